/* An output that is an input, refused before anything is written
 * (vprof/sink.h, vp_outputs_check). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vprof/sink.h"
#include "vprof/util.h"

typedef struct out_id {
    dev_t dev;
    ino_t ino;
    const vp_named_path *out;
} out_id;

/* The output among ids that is the file st, or NULL. */
static const vp_named_path *same_as(const out_id *ids, size_t n, const struct stat *st)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i].dev == st->st_dev && ids[i].ino == st->st_ino)
            return ids[i].out;
    return NULL;
}

static void refuse(const vp_named_path *out, const vp_named_path *in, const char *file,
                   vp_error *err)
{
    vp_buf b = {0};
    if (out->what && *out->what)
        vp_buf_printf(&b, "%s ", out->what);
    vp_buf_printf(&b, "%s is the input ", out->path);
    if (in->what && *in->what)
        vp_buf_printf(&b, "%s ", in->what);
    vp_buf_printf(&b, "%s", in->path);
    if (file)
        vp_buf_printf(&b, " (its %s)", file);
    vp_error_set(err, VP_EXIT_USAGE, "%s: writing it would destroy the input; nothing written",
                 vp_buf_cstr(&b));
    vp_buf_free(&b);
}

/* Every file under dir (followed as the readers follow it), compared with
 * the outputs; depth bounds a loop of symbolic links.  1 on a match, with
 * *file the path of the file in dir (the caller frees it). */
static int walk(const char *dir, int depth, const out_id *ids, size_t n,
                const vp_named_path **hit, char **file)
{
    if (depth > 16)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        vp_buf p = {0};
        vp_buf_printf(&p, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        struct stat st;
        if (stat(vp_buf_cstr(&p), &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                found = walk(vp_buf_cstr(&p), depth + 1, ids, n, hit, file);
            } else if ((*hit = same_as(ids, n, &st)) != NULL) {
                *file = vp_strdup(vp_buf_cstr(&p));
                found = 1;
            }
        }
        vp_buf_free(&p);
    }
    closedir(d);
    return found;
}

int vp_outputs_check(const vp_named_path *outs, size_t nout, const vp_named_path *ins,
                     size_t nin, vp_error *err)
{
    /* Only an output that exists can be an input; one that does not, or
     * that is no regular file (standard output, /dev/null, a pipe), is
     * written without replacing any file. */
    out_id *ids = vp_malloc((nout ? nout : 1) * sizeof *ids);
    size_t n = 0;
    for (size_t i = 0; i < nout; i++) {
        struct stat st;
        if (!outs[i].path || strcmp(outs[i].path, "-") == 0 || stat(outs[i].path, &st) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        ids[n++] = (out_id){st.st_dev, st.st_ino, &outs[i]};
    }
    int status = 0;
    for (size_t i = 0; n > 0 && i < nin && status == 0; i++) {
        struct stat st;
        if (!ins[i].path || strcmp(ins[i].path, "-") == 0 || stat(ins[i].path, &st) != 0)
            continue;
        const vp_named_path *hit = NULL;
        char *file = NULL;
        if (S_ISDIR(st.st_mode)) {
            if (walk(ins[i].path, 0, ids, n, &hit, &file)) {
                refuse(hit, &ins[i], file, err);
                status = -1;
            }
        } else if ((hit = same_as(ids, n, &st)) != NULL) {
            refuse(hit, &ins[i], NULL, err);
            status = -1;
        }
        free(file);
    }
    free(ids);
    return status;
}
