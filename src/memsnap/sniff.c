/* What a memory input is (vprof/memsnap.h: vp_mem_sniff). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vprof/memsnap.h"
#include "vprof/memtimeline.h"
#include "vprof/source.h"

int vp_mem_sniff(const char *path, int hold, vp_mem_input *kind, vp_buf *whole, int *gz,
                 vp_error *err)
{
    vp_source *src = vp_source_open(path, err);
    if (!src)
        return -1;
    vp_chunk ch;
    int r = vp_source_next(src, &ch, err);
    *gz = vp_source_is_gzip(src);
    if (r < 0) {
        vp_source_close(src);
        return -1;
    }
    if (r == 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: empty input: expected a memory snapshot (a pickle) or a trace",
                     vp_source_name(src));
        vp_source_close(src);
        return -1;
    }
    if ((unsigned char)ch.data[0] == 0x80)
        *kind = VP_MEM_SNAPSHOT;
    else if (vp_memtimeline_detect(ch.data, ch.len))
        *kind = VP_MEM_TIMELINE;
    else
        *kind = VP_MEM_TRACE;
    if ((*kind == VP_MEM_SNAPSHOT && (*gz || hold)) || *kind == VP_MEM_TIMELINE) {
        do
            vp_buf_append(whole, ch.data, ch.len);
        while ((r = vp_source_next(src, &ch, err)) == 1);
    }
    vp_source_close(src);
    return r < 0 ? -1 : 0;
}


/* Standard input is copied to a temporary file first: a snapshot is read
 * whole anyway, and a trace is read twice. */
char *vp_mem_spool_stdin(vp_error *err)
{
    const char *dir = getenv("TMPDIR");
    char *tmp = vp_malloc(4096);
    snprintf(tmp, 4096, "%s/vprof-memory-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot create a temporary file in %s: %s",
                     dir && *dir ? dir : "/tmp", strerror(errno));
        free(tmp);
        return NULL;
    }
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0 && write(fd, buf, (size_t)n) != n) {
            vp_error_set(err, VP_EXIT_INPUT, "cannot write the temporary file %s: %s", tmp,
                         strerror(errno));
            n = -1;
            break;
        }
    }
    if (n < 0 && !err->status)
        vp_error_set(err, VP_EXIT_INPUT, "standard input: cannot read: %s", strerror(errno));
    close(fd);
    if (n < 0) {
        unlink(tmp);
        free(tmp);
        return NULL;
    }
    return tmp;
}

