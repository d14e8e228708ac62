/* Byte sinks (see vprof/sink.h): buffered, optionally deflated output
 * written under a temporary name and renamed at the end. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#if VPROF_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

#include "vprof/sink.h"
#include "vprof/util.h"

#define IN_CAP (1u << 20)
#define OUT_CAP (256u << 10)

enum { FEED_NONE, FEED_SYNC, FEED_FINISH };

struct vp_sink {
    char *target;          /* NULL = standard output */
    char *tmp;             /* temporary path, NULL when written in place */
    int fd;
    int regular;           /* a file we created: can truncate and rename */
    int gzip;
    int failed;
    int saved_errno;
    char *in;              /* uncompressed bytes not yet handed on */
    size_t in_len;
    unsigned char *out;    /* deflate output */
    uint64_t bytes;        /* uncompressed bytes accepted */
    uint64_t file_offset;  /* bytes written to fd */
    uint32_t crc;          /* of the current gzip member's bytes */
    uint64_t member_start; /* bytes at the start of the current member */
    int member_open;       /* its header is written, its trailer not yet */
    int keep_fd;           /* vp_sink_open_fd: the caller's descriptor */
    char *name;            /* vp_sink_open_fd: the name in messages */
#if VPROF_HAVE_ISAL
    struct isal_zstream *isal; /* vp_sink_opts.deflate_state, or isal_own */
    struct isal_zstream *isal_own;
    unsigned char *level_buf;
#else
    z_stream z;
    int z_ready;
#endif
};

/* The temporary file of the sink being written, for the signal handler:
 * an interrupted merge must not leave a hidden multi-gigabyte file. */
static char signal_tmp[PATH_MAX];
static volatile sig_atomic_t signal_tmp_set;

static void on_signal(int sig)
{
    if (signal_tmp_set)
        unlink(signal_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void guard_tmp(const char *path)
{
    if (!path || strlen(path) >= sizeof signal_tmp)
        return;
    signal_tmp_set = 0;
    memcpy(signal_tmp, path, strlen(path) + 1);
    signal_tmp_set = 1;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
}

static void unguard_tmp(void)
{
    signal_tmp_set = 0;
}

static uint32_t crc_update(uint32_t crc, const void *p, size_t n)
{
#if VPROF_HAVE_ISAL
    return crc32_gzip_refl(crc, p, n);
#else
    while (n > 0) {
        uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, p, step);
        p = (const char *)p + step;
        n -= step;
    }
    return crc;
#endif
}

static void emit(vp_sink *s, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0 && !s->failed) {
        ssize_t w = write(s->fd, c, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            s->failed = 1;
            s->saved_errno = errno;
            return;
        }
        c += w;
        n -= (size_t)w;
        s->file_offset += (uint64_t)w;
    }
}

static int deflate_start(vp_sink *s, const vp_sink_opts *opts)
{
    int level = opts->level;
#if VPROF_HAVE_ISAL
    if (opts->deflate_state) {
        s->isal = opts->deflate_state;
    } else {
        s->isal_own = vp_calloc(1, sizeof *s->isal_own);
        s->isal = s->isal_own;
    }
    static const uint32_t buf_size[] = {ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT,
                                        ISAL_DEF_LVL2_DEFAULT, ISAL_DEF_LVL3_DEFAULT};
    int l = level <= 0 ? 0 : level == 1 ? 1 : level <= 4 ? 2 : 3;
    isal_deflate_init(s->isal);
    s->isal->gzip_flag = IGZIP_DEFLATE;
    s->isal->level = (uint32_t)l;
    if (buf_size[l]) {
        s->level_buf = vp_calloc(1, buf_size[l]);
        s->isal->level_buf = s->level_buf;
        s->isal->level_buf_size = buf_size[l];
    }
    return 0;
#else
    memset(&s->z, 0, sizeof s->z);
    if (deflateInit2(&s->z, level < 0 ? 0 : level > 9 ? 9 : level, Z_DEFLATED, -15, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    s->z_ready = 1;
    return 0;
#endif
}

#if VPROF_HAVE_ISAL
/* ISA-L 2.30's deflate body for levels 1-2 (igzip_icf_body_h1_gr_bt.asm),
 * when it starts a stream (no match history yet), hashes the stream's
 * third byte from a register that holds the address of the isal_zstream
 * instead of the input: that byte's position goes into a hash slot that
 * depends on where the struct lies in memory (ASLR).  When that slot is
 * the first or second byte's, a later match to them is missed and the
 * member comes out 1-3 bytes longer: about one member in 4,000, the same
 * input otherwise (tests/cli/merge-repeat.t).  Its finishing routine,
 * which takes the input the body leaves (under 16 bytes when flushing),
 * starts a stream correctly.  So a member's first ISAL_PRIME bytes are
 * compressed on their own with a sync flush (more than the 3 bytes the
 * finish leaves as literals, at most 16 so that the body does not run):
 * the body then always runs with history, and the output depends on the
 * bytes alone.  It costs the member one small block. */
#define ISAL_PRIME 8

/* One isal_deflate pass over n bytes, until the output is out. */
static void isal_run(vp_sink *s, const void *p, size_t n, int flush, int end)
{
    struct isal_zstream *st = s->isal;
    st->next_in = (uint8_t *)(uintptr_t)p;
    st->avail_in = (uint32_t)n;
    st->flush = (uint32_t)flush;
    st->end_of_stream = (uint16_t)end;
    do {
        st->next_out = s->out;
        st->avail_out = OUT_CAP;
        if (isal_deflate(st) != COMP_OK) {
            s->failed = 1;
            s->saved_errno = EIO;
            return;
        }
        emit(s, s->out, OUT_CAP - st->avail_out);
    } while (st->avail_out == 0 || (end && st->internal_state.state != ZSTATE_END));
}
#endif

/* Compresses n bytes and, for FEED_SYNC, ends the block on a byte
 * boundary; for FEED_FINISH, ends the stream. */
static void feed(vp_sink *s, const void *p, size_t n, int mode)
{
    if (!s->member_open) {
        /* A minimal gzip header: no name, no time (reproducible output). */
        static const unsigned char hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
        emit(s, hdr, sizeof hdr);
        s->member_open = 1;
    }
    s->crc = crc_update(s->crc, p, n);
#if VPROF_HAVE_ISAL
    struct isal_zstream *st = s->isal;
    if (st->level > 0 && st->internal_state.has_hist == IGZIP_NO_HIST && n > ISAL_PRIME) {
        /* See ISAL_PRIME: the member's first bytes in a block of their
         * own, so that the body never starts a stream. */
        isal_run(s, p, ISAL_PRIME, SYNC_FLUSH, 0);
        p = (const char *)p + ISAL_PRIME;
        n -= ISAL_PRIME;
    }
    isal_run(s, p, n, mode == FEED_SYNC ? SYNC_FLUSH : NO_FLUSH, mode == FEED_FINISH);
#else
    z_stream *z = &s->z;
    z->next_in = (Bytef *)(uintptr_t)p;
    z->avail_in = (uInt)n;
    int flush = mode == FEED_FINISH ? Z_FINISH : mode == FEED_SYNC ? Z_SYNC_FLUSH : Z_NO_FLUSH;
    int r;
    do {
        z->next_out = s->out;
        z->avail_out = OUT_CAP;
        r = deflate(z, flush);
        if (r == Z_STREAM_ERROR) {
            s->failed = 1;
            s->saved_errno = EIO;
            return;
        }
        emit(s, s->out, OUT_CAP - z->avail_out);
    } while (z->avail_out == 0 || (mode == FEED_FINISH && r != Z_STREAM_END));
#endif
}

/* Hands the buffered bytes on (with mode's flush for gzip). */
static void drain(vp_sink *s, int mode)
{
    if (s->gzip)
        feed(s, s->in, s->in_len, mode);
    else
        emit(s, s->in, s->in_len);
    s->in_len = 0;
}

static char *temp_name(const char *target)
{
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
    vp_buf b = {0};
    vp_buf_append(&b, target, dirlen);
    vp_buf_printf(&b, ".%s.vprof-XXXXXX", target + dirlen);
    return (char *)vp_buf_cstr(&b);
}

vp_sink *vp_sink_open(const char *path, const vp_sink_opts *opts, vp_error *err)
{
    vp_sink *s = vp_calloc(1, sizeof *s);
    s->fd = -1;
    s->gzip = opts && opts->gzip;
    if (strcmp(path, "-") == 0) {
        s->fd = STDOUT_FILENO;
    } else {
        s->target = vp_strdup(path);
        struct stat sb;
        if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
            if (S_ISDIR(sb.st_mode)) {
                vp_error_set(err, VP_EXIT_INPUT, "cannot write %s: it is a directory", path);
                goto fail;
            }
            s->fd = open(path, O_WRONLY | O_CLOEXEC);
            if (s->fd < 0) {
                vp_error_set(err, VP_EXIT_INPUT, "cannot write %s: %s", path, strerror(errno));
                goto fail;
            }
        } else {
            s->tmp = temp_name(path);
            s->fd = mkstemp(s->tmp);
            if (s->fd < 0) {
                /* the temporary file is how the target is written:
                   the user knows the target */
                vp_error_set(err, VP_EXIT_INPUT, "cannot write %s: %s", path, strerror(errno));
                free(s->tmp);
                s->tmp = NULL;
                goto fail;
            }
            guard_tmp(s->tmp);
            /* mkstemp makes it 0600; the output is an ordinary file. */
            mode_t mask = umask(0);
            umask(mask);
            if (fchmod(s->fd, 0666 & ~mask) != 0) {
                /* not fatal: the file is still ours to read */
            }
            s->regular = 1;
        }
    }
    s->in = vp_malloc(IN_CAP);
    if (s->gzip) {
        s->out = vp_malloc(OUT_CAP);
        if (deflate_start(s, opts) != 0) {
            vp_error_set(err, VP_EXIT_INPUT, "cannot start the gzip compressor for %s",
                         vp_sink_name(s));
            goto fail;
        }
        /* the member's header is written with its first bytes (feed) */
    }
    return s;
fail:
    vp_sink_abort(s);
    return NULL;
}

vp_sink *vp_sink_open_fd(int fd, const char *name, const vp_sink_opts *opts, vp_error *err)
{
    vp_sink *s = vp_calloc(1, sizeof *s);
    s->fd = fd;
    s->keep_fd = 1;
    s->regular = 1;
    s->name = vp_strdup(name);
    s->gzip = opts && opts->gzip;
    s->in = vp_malloc(IN_CAP);
    if (s->gzip) {
        s->out = vp_malloc(OUT_CAP);
        if (deflate_start(s, opts) != 0) {
            vp_error_set(err, VP_EXIT_INPUT, "cannot start the gzip compressor for %s", name);
            vp_sink_abort(s);
            return NULL;
        }
    }
    return s;
}

static void deflate_reset(vp_sink *s)
{
#if VPROF_HAVE_ISAL
    uint8_t *lb = s->isal->level_buf;
    uint32_t lbs = s->isal->level_buf_size;
    isal_deflate_reset(s->isal);
    s->isal->level_buf = lb;
    s->isal->level_buf_size = lbs;
#else
    deflateReset(&s->z);
#endif
}

/* Ends the deflate stream and writes the member's trailer. */
static void finish_member(vp_sink *s)
{
    drain(s, FEED_FINISH);
    unsigned char trailer[8];
    uint32_t size = (uint32_t)(s->bytes - s->member_start);
    for (int i = 0; i < 4; i++) {
        trailer[i] = (unsigned char)(s->crc >> (8 * i));
        trailer[4 + i] = (unsigned char)(size >> (8 * i));
    }
    emit(s, trailer, sizeof trailer);
    s->member_open = 0;
    s->crc = 0;
    s->member_start = s->bytes;
}

int vp_sink_end_member(vp_sink *s)
{
    if (!s->gzip) {
        drain(s, FEED_NONE);
    } else if (s->member_open || s->in_len) {
        finish_member(s);
        deflate_reset(s);
    }
    return s->failed ? -1 : 0;
}

int vp_sink_append(vp_sink *s, int fd, uint64_t len, uint64_t bytes)
{
    if (vp_sink_end_member(s) != 0)
        return -1;
    char *buf = vp_malloc(OUT_CAP);
    uint64_t at = 0;
    while (at < len && !s->failed) {
        size_t want = len - at < OUT_CAP ? (size_t)(len - at) : OUT_CAP;
        ssize_t r = pread(fd, buf, want, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            s->failed = 1;
            s->saved_errno = r < 0 ? errno : EIO;
            break;
        }
        emit(s, buf, (size_t)r);
        at += (uint64_t)r;
    }
    free(buf);
    s->bytes += bytes;
    s->member_start = s->bytes;
    return s->failed ? -1 : 0;
}

int vp_sink_write(vp_sink *s, const void *p, size_t n)
{
    s->bytes += n;
    if (n <= IN_CAP - s->in_len) {
        memcpy(s->in + s->in_len, p, n);
        s->in_len += n;
        return s->failed ? -1 : 0;
    }
    const char *c = p;
    size_t room = IN_CAP - s->in_len;
    memcpy(s->in + s->in_len, c, room);
    s->in_len = IN_CAP;
    c += room;
    n -= room;
    drain(s, FEED_NONE);
    while (n >= IN_CAP) {
        /* Large pieces go straight through, without a copy. */
        if (s->gzip)
            feed(s, c, IN_CAP, FEED_NONE);
        else
            emit(s, c, IN_CAP);
        c += IN_CAP;
        n -= IN_CAP;
    }
    memcpy(s->in, c, n);
    s->in_len = n;
    return s->failed ? -1 : 0;
}

int vp_sink_puts(vp_sink *s, const char *str)
{
    return vp_sink_write(s, str, strlen(str));
}

int vp_sink_printf(vp_sink *s, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if ((size_t)n < sizeof small)
        return vp_sink_write(s, small, (size_t)n);
    char *big = vp_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int r = vp_sink_write(s, big, (size_t)n);
    free(big);
    return r;
}

int vp_sink_can_rewind(const vp_sink *s)
{
    return s->regular;
}

int vp_sink_mark_here(vp_sink *s, vp_sink_mark *m, vp_error *err)
{
    m->member_start = s->gzip && !s->member_open && s->in_len == 0;
    if (!m->member_start)
        drain(s, FEED_SYNC);
    if (s->failed) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot write %s: %s", vp_sink_name(s),
                     strerror(s->saved_errno));
        return -1;
    }
    m->file_offset = s->file_offset;
    m->bytes = s->bytes;
    m->crc = s->crc;
    return 0;
}

int vp_sink_rewind(vp_sink *s, const vp_sink_mark *m, vp_error *err)
{
    if (!s->regular) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot go back in %s: not a regular file",
                     vp_sink_name(s));
        return -1;
    }
    if (s->failed || ftruncate(s->fd, (off_t)m->file_offset) != 0 ||
        lseek(s->fd, (off_t)m->file_offset, SEEK_SET) < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot write %s: %s", vp_sink_name(s),
                     strerror(s->failed ? s->saved_errno : errno));
        return -1;
    }
    s->in_len = 0;
    s->file_offset = m->file_offset;
    s->bytes = m->bytes;
    s->crc = m->crc;
    if (s->gzip) {
        deflate_reset(s);
        if (m->member_start) {
            s->member_open = 0;
#if VPROF_HAVE_ISAL
            /* a fresh compressor, as vp_sink_open's */
            if (s->level_buf)
                memset(s->level_buf, 0, s->isal->level_buf_size);
#endif
        }
    }
    return 0;
}

uint64_t vp_sink_bytes(const vp_sink *s)
{
    return s->bytes;
}

const char *vp_sink_name(const vp_sink *s)
{
    if (s->name)
        return s->name;
    return s->target ? s->target : "standard output";
}

size_t vp_sink_deflate_state_size(void)
{
#if VPROF_HAVE_ISAL
    return sizeof(struct isal_zstream);
#else
    return 0;
#endif
}

const char *vp_sink_compressor(const vp_sink *s)
{
    if (!s->gzip)
        return "none";
    return VPROF_HAVE_ISAL ? "ISA-L" : "zlib";
}

static void sink_free(vp_sink *s)
{
#if VPROF_HAVE_ISAL
    free(s->level_buf);
    free(s->isal_own);
#else
    if (s->z_ready)
        deflateEnd(&s->z);
#endif
    free(s->in);
    free(s->out);
    free(s->tmp);
    free(s->target);
    free(s->name);
    free(s);
}

int vp_sink_close(vp_sink *s, vp_error *err)
{
    if (s->gzip) {
        /* an empty output is still one (empty) member */
        if (s->member_open || s->in_len || s->file_offset == 0)
            finish_member(s);
    } else {
        drain(s, FEED_NONE);
    }
    int e = s->failed ? s->saved_errno : 0;
    /* on the disk before the rename names it: a crash after the rename
     * must not leave an empty or short file under the target's name */
    if (!e && s->tmp && fsync(s->fd) != 0)
        e = errno;
    if (s->fd != STDOUT_FILENO && !s->keep_fd) {
        if (close(s->fd) != 0 && !e)
            e = errno;
        s->fd = -1;
    }
    if (!e && s->tmp && rename(s->tmp, s->target) != 0)
        e = errno;
    if (e) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot write %s: %s", vp_sink_name(s), strerror(e));
        vp_sink_abort(s);
        return -1;
    }
    unguard_tmp();
    sink_free(s);
    return 0;
}

void vp_sink_abort(vp_sink *s)
{
    if (!s)
        return;
    if (s->fd >= 0 && s->fd != STDOUT_FILENO && !s->keep_fd)
        close(s->fd);
    if (s->tmp) {
        unlink(s->tmp);
        unguard_tmp();
    }
    sink_free(s);
}
