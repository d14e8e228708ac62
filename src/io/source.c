/* Byte sources: plain or gzip input, read (and inflated) by a thread that
 * runs ahead of the parser through a ring of buffers.
 *
 * The thread owns the file descriptor and the inflater; the consumer only
 * ever sees whole filled buffers.  One buffer is held by the consumer at a
 * time and returned on its next call, so the parser may point into the
 * chunk it was handed until it asks for the next one.
 *
 * A hook (vp_source_open_hooked) may add work on the thread: it sees each
 * filled chunk before the consumer does and attaches data to it in the
 * slot's own buffer.  The trace reader uses it to find where member
 * objects end (its skip facts: why they cannot change a result is told in
 * src/trace/reader.c); the source only carries the bytes and knows
 * nothing of JSON. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if VPROF_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "vprof/source.h"
#include "vprof/util.h"

#ifdef VP_SOURCE_INLINE
/* The fuzz build (tests/fuzz/CMakeLists.txt): no thread.  The open call
 * produces every chunk at once, into slots for up to 1 MiB (the fuzz
 * target's inputs are smaller); a larger output fails as "too large".  A
 * thread per open cost ASan most of each input's time.  The slots are an
 * array grown as they fill: a fixed one for 1 MiB (264 slots of 4 KiB
 * chunks) was zeroed at every open and freed slot by slot at every close
 * (under ASan each free, even of NULL, records a stack trace), for inputs
 * that fill one to four. */
#define NSLOTS ((1u << 20) / VP_SOURCE_CHUNK + 8)
#define FIRST_SLOTS 4u
#else
#define NSLOTS 4
#define FIRST_SLOTS NSLOTS
#endif
#ifndef INBUF_SIZE
#define INBUF_SIZE (256u << 10)
#endif

enum slot_state { SLOT_FREE, SLOT_FILLED, SLOT_HELD };

struct slot {
    char *buf;
    size_t len;
    vp_buf aux;              /* the hook's data about buf */
    uint64_t comp_offset;
    enum slot_state state;
};

struct vp_source {
    char *name;
    int fd;
    int gzip;
    uint64_t input_size;

    /* Input side, used by the reader thread only (and by open to peek). */
    unsigned char *inbuf;
    size_t in_len, in_pos;   /* valid bytes and consumed bytes of inbuf */
    uint64_t in_base;        /* file offset of inbuf[0] */
    int in_eof;
    _Atomic uint64_t input_pos;

    pthread_mutex_t mu;
    pthread_cond_t cv;       /* both directions: few waiters, rare wakeups */
    struct slot *slots;      /* nslots of them: NSLOTS, or in the fuzz build as
                                many as have been filled, grown by acquire_slot */
    unsigned nslots;
    unsigned wr, rd;         /* next slot the thread fills / the consumer takes */
    int held;                /* slot the consumer holds, -1 when none */
    int finished;            /* thread wrote its last slot (or failed) */
    int stop;                /* consumer is closing: thread must return */
    vp_error thread_err;     /* set when the thread failed */
    int truncated;           /* ... because the gzip stream stopped inside a member */
    uint64_t member_start;   /* compressed offset of the gzip member being inflated */
    int thread_started;
    int inline_full;         /* VP_SOURCE_INLINE: the output outgrew the slots */
    pthread_t thread;
    uint64_t delivered;      /* uncompressed bytes handed to the consumer */
    vp_source_hook hook;     /* run on the thread for each chunk, or NULL */
    void *hook_ctx;
};

/* Refills inbuf when it is fully consumed. Returns 0, or -1 on error. */
static int fill_input(vp_source *s, vp_error *err)
{
    if (s->in_pos < s->in_len || s->in_eof)
        return 0;
    s->in_base += s->in_len;
    s->in_len = s->in_pos = 0;
    for (;;) {
        ssize_t n = read(s->fd, s->inbuf, INBUF_SIZE);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: read error at byte %llu: %s", s->name,
                         (unsigned long long)s->in_base, strerror(errno));
            return -1;
        }
        if (n == 0)
            s->in_eof = 1;
        s->in_len = (size_t)n;
        atomic_store_explicit(&s->input_pos, s->in_base + s->in_len, memory_order_relaxed);
        return 0;
    }
}

/* Waits for the next free slot; returns it, or NULL when the consumer is
 * closing. */
static struct slot *acquire_slot(vp_source *s)
{
    pthread_mutex_lock(&s->mu);
    /* Only the fuzz build's ring starts short of NSLOTS.  One slot past wr
     * always exists, so that vp_source_next may look at slot rd == wr once
     * the consumer has taken them all. */
    if (s->wr + 1 >= s->nslots && s->nslots < NSLOTS) {
        unsigned n = 2 * s->nslots < NSLOTS ? 2 * s->nslots : NSLOTS;
        s->slots = vp_realloc(s->slots, n * sizeof *s->slots);
        memset(s->slots + s->nslots, 0, (n - s->nslots) * sizeof *s->slots);
        s->nslots = n;
    }
    struct slot *sl = &s->slots[s->wr % NSLOTS];
#ifdef VP_SOURCE_INLINE
    if (sl->state != SLOT_FREE) {
        s->inline_full = 1;
        s->stop = 1;
    } else if (!sl->buf) {
        sl->buf = vp_malloc(VP_SOURCE_CHUNK);
    }
#endif
    while (sl->state != SLOT_FREE && !s->stop)
        pthread_cond_wait(&s->cv, &s->mu);
    int stop = s->stop;
    pthread_mutex_unlock(&s->mu);
    return stop ? NULL : sl;
}

static void publish_slot(vp_source *s, struct slot *sl)
{
    /* The hook runs here, on the thread, outside the lock: the slot is
     * the thread's until it is marked filled. */
    if (s->hook)
        s->hook(s->hook_ctx, sl->buf, sl->len, &sl->aux);
    pthread_mutex_lock(&s->mu);
    sl->state = SLOT_FILLED;
    s->wr++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void finish(vp_source *s, const vp_error *err)
{
    pthread_mutex_lock(&s->mu);
    if (err && err->status)
        s->thread_err = *err;
    s->finished = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static uint64_t comp_pos(const vp_source *s)
{
    return s->in_base + s->in_pos;
}

static void run_plain(vp_source *s, vp_error *err)
{
    for (;;) {
        struct slot *sl = acquire_slot(s);
        if (!sl)
            return;
        sl->len = 0;
        while (sl->len < VP_SOURCE_CHUNK) {
            if (fill_input(s, err) != 0)
                return;
            size_t avail = s->in_len - s->in_pos;
            if (avail == 0)
                break;
            size_t n = VP_SOURCE_CHUNK - sl->len < avail ? VP_SOURCE_CHUNK - sl->len : avail;
            memcpy(sl->buf + sl->len, s->inbuf + s->in_pos, n);
            sl->len += n;
            s->in_pos += n;
        }
        sl->comp_offset = comp_pos(s);
        if (sl->len == 0)
            return;
        publish_slot(s, sl);
    }
}

/* After a gzip member ends: 1 when another member follows, 0 at the end of
 * the input (trailing NUL padding is accepted, as gzip does), -1 on
 * trailing garbage or a read error. */
static int next_member(vp_source *s, vp_error *err)
{
    for (;;) {
        if (fill_input(s, err) != 0)
            return -1;
        if (s->in_pos == s->in_len)
            return 0;
        unsigned char c = s->inbuf[s->in_pos];
        if (c == 0x1f)
            return 1;
        if (c != 0) {
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: compressed byte %llu: expected another gzip member or the end of "
                         "the file, found byte 0x%02x",
                         s->name, (unsigned long long)comp_pos(s), c);
            return -1;
        }
        s->in_pos++;
    }
}

/* The stream stops inside a member.  What was inflated so far is still
 * handed over (--partial may use it) before the error. */
static void truncated_gzip(vp_source *s, vp_error *err, uint64_t out, struct slot *sl)
{
    s->truncated = 1;
    if (sl->len) {
        sl->comp_offset = comp_pos(s);
        publish_slot(s, sl);
    }
    vp_error_set(err, VP_EXIT_INPUT,
                 "%s: compressed byte %llu: truncated gzip stream: the input ends inside a "
                 "member (after %llu uncompressed bytes)",
                 s->name, (unsigned long long)comp_pos(s), (unsigned long long)out);
}

/* Corruption is reported at the start of its member: how far past the bad
 * spot the inflater had read differs between zlib and ISA-L, while the
 * uncompressed offset pins the place exactly either way. */
static void corrupt_gzip(vp_source *s, vp_error *err, uint64_t out, const char *what)
{
    vp_error_set(err, VP_EXIT_INPUT,
                 "%s: corrupt gzip stream in the member at compressed byte %llu: %s (after %llu "
                 "uncompressed bytes)",
                 s->name, (unsigned long long)s->member_start, what, (unsigned long long)out);
}

/* The inflater, ISA-L's or zlib's, behind one loop (run_gzip): init,
 * reset for the next member, one call over the input and the slot, end. */
#if VPROF_HAVE_ISAL
typedef struct inflate_state inflater;

static int inflater_init(inflater *st, vp_source *s, vp_error *err)
{
    (void)s, (void)err;
    isal_inflate_init(st);
    st->crc_flag = ISAL_GZIP;
    return 0;
}

static void inflater_reset(inflater *st)
{
    isal_inflate_reset(st);
    st->crc_flag = ISAL_GZIP;
}

static void inflater_end(inflater *st)
{
    (void)st;
}

/* Inflates what the input holds into the rest of sl: 1 when the member
 * ended, 0 to go on, -1 with err set. */
static int inflater_step(inflater *st, vp_source *s, struct slot *sl, uint64_t *out, vp_error *err)
{
    st->next_in = s->inbuf + s->in_pos;
    st->avail_in = (uint32_t)(s->in_len - s->in_pos);
    st->next_out = (uint8_t *)sl->buf + sl->len;
    st->avail_out = (uint32_t)(VP_SOURCE_CHUNK - sl->len);
    uint32_t before_in = st->avail_in, before_out = st->avail_out;
    int ret = isal_inflate(st);
    s->in_pos += before_in - st->avail_in;
    sl->len += before_out - st->avail_out;
    *out += before_out - st->avail_out;
    if (ret == ISAL_INCORRECT_CHECKSUM) {
        corrupt_gzip(s, err, *out, "CRC-32 check failed");
        return -1;
    }
    if (ret == ISAL_INVALID_WRAPPER || ret == ISAL_UNSUPPORTED_METHOD) {
        corrupt_gzip(s, err, *out, "invalid gzip header");
        return -1;
    }
    if (ret < 0) {
        corrupt_gzip(s, err, *out, "invalid deflate data");
        return -1;
    }
    if (st->block_state == ISAL_BLOCK_FINISH) {
        /* ISA-L may have buffered bytes past the member's trailer:
         * give them back before looking for the next member. */
        size_t back = (size_t)st->read_in_length / 8;
        if (back > s->in_pos)
            back = s->in_pos;
        s->in_pos -= back;
        return 1;
    }
    if (before_in == st->avail_in && before_out == st->avail_out && s->in_eof &&
        s->in_pos == s->in_len) {
        truncated_gzip(s, err, *out, sl);
        return -1;
    }
    return 0;
}
#else
typedef z_stream inflater;

static int inflater_init(inflater *z, vp_source *s, vp_error *err)
{
    memset(z, 0, sizeof *z);
    if (inflateInit2(z, 15 + 16) != Z_OK) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: cannot initialise zlib", s->name);
        return -1;
    }
    return 0;
}

static void inflater_reset(inflater *z)
{
    inflateReset(z);
}

static void inflater_end(inflater *z)
{
    inflateEnd(z);
}

static int inflater_step(inflater *z, vp_source *s, struct slot *sl, uint64_t *out, vp_error *err)
{
    z->next_in = s->inbuf + s->in_pos;
    z->avail_in = (uInt)(s->in_len - s->in_pos);
    z->next_out = (Bytef *)sl->buf + sl->len;
    z->avail_out = (uInt)(VP_SOURCE_CHUNK - sl->len);
    uInt before_in = z->avail_in, before_out = z->avail_out;
    int ret = inflate(z, Z_NO_FLUSH);
    s->in_pos += before_in - z->avail_in;
    sl->len += before_out - z->avail_out;
    *out += before_out - z->avail_out;
    if (ret == Z_STREAM_END)
        return 1;
    if (ret == Z_DATA_ERROR) {
        const char *m = z->msg ? z->msg : "invalid data";
        if (strcmp(m, "incorrect data check") == 0)
            m = "CRC-32 check failed";
        else if (strcmp(m, "incorrect header check") == 0 ||
                 strcmp(m, "unknown compression method") == 0)
            m = "invalid gzip header";
        else
            m = "invalid deflate data";
        corrupt_gzip(s, err, *out, m);
        return -1;
    }
    if (ret != Z_OK && ret != Z_BUF_ERROR) {
        corrupt_gzip(s, err, *out, "zlib error");
        return -1;
    }
    if (before_in == z->avail_in && before_out == z->avail_out && s->in_eof &&
        s->in_pos == s->in_len) {
        truncated_gzip(s, err, *out, sl);
        return -1;
    }
    return 0;
}
#endif

#ifdef VP_SOURCE_INLINE
/* The fuzz build opens a few gzip sources per input: one inflater (87 KiB
 * with ISA-L) is kept for the next open instead of a fresh allocation that
 * ASan fills and poisons each time.  Exchanged atomically, as opens may
 * run on several threads. */
static _Atomic(inflater *) spare_inflater;

static inflater *inflater_get(void)
{
    inflater *inf = atomic_exchange(&spare_inflater, NULL);
    return inf ? inf : vp_malloc(sizeof *inf);
}

static void inflater_put(inflater *inf)
{
    free(atomic_exchange(&spare_inflater, inf));
}
#else
static inflater *inflater_get(void)
{
    return vp_malloc(sizeof(inflater));
}

static void inflater_put(inflater *inf)
{
    free(inf);
}
#endif

static void run_gzip(vp_source *s, vp_error *err)
{
    inflater *inf = inflater_get();
    if (inflater_init(inf, s, err) != 0) {
        inflater_put(inf);
        return;
    }
    uint64_t out = 0;
    int in_member = 1;
    for (;;) {
        struct slot *sl = acquire_slot(s);
        if (!sl)
            break;
        sl->len = 0;
        while (sl->len < VP_SOURCE_CHUNK) {
            if (!in_member) {
                int r = next_member(s, err);
                if (r <= 0)
                    break;
                inflater_reset(inf);
                in_member = 1;
                s->member_start = comp_pos(s);
            }
            if (fill_input(s, err) != 0)
                goto out;
            int r = inflater_step(inf, s, sl, &out, err);
            if (r < 0)
                goto out;
            if (r > 0)
                in_member = 0;
        }
        if (err->status)
            goto out;
        sl->comp_offset = comp_pos(s);
        if (sl->len == 0)
            break;
        publish_slot(s, sl);
        if (!in_member && s->in_eof && s->in_pos == s->in_len)
            break;
    }
out:
    inflater_end(inf);
    inflater_put(inf);
}

static void *reader_thread(void *arg)
{
    vp_source *s = arg;
    vp_error err = {0};
    if (s->gzip)
        run_gzip(s, &err);
    else
        run_plain(s, &err);
    finish(s, &err);
    return NULL;
}

vp_source *vp_source_open(const char *path, vp_error *err)
{
    return vp_source_open_hooked(path, NULL, NULL, err);
}

vp_source *vp_source_open_hooked(const char *path, vp_source_hook hook, void *ctx, vp_error *err)
{
    vp_source *s = vp_calloc(1, sizeof *s);
    s->nslots = FIRST_SLOTS;
    s->slots = vp_calloc(s->nslots, sizeof *s->slots);
    s->held = -1;
    s->fd = -1;
    s->hook = hook;
    s->hook_ctx = ctx;
    if (strcmp(path, "-") == 0) {
        s->name = vp_strdup("standard input");
        s->fd = STDIN_FILENO;
    } else {
        s->name = vp_strdup(path);
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: cannot open: %s", path, strerror(errno));
            vp_source_close(s);
            return NULL;
        }
        struct stat st;
        if (fstat(s->fd, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                vp_error_set(err, VP_EXIT_INPUT, "%s: is a directory, not a trace file", path);
                vp_source_close(s);
                return NULL;
            }
            if (S_ISREG(st.st_mode))
                s->input_size = (uint64_t)st.st_size;
        }
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    s->inbuf = vp_malloc(INBUF_SIZE);
    /* Peek: the first bytes decide between gzip and plain. A pipe may
     * deliver one byte at a time, so read until two bytes or the end. */
    while (s->in_len < 2 && !s->in_eof) {
        ssize_t n = read(s->fd, s->inbuf + s->in_len, INBUF_SIZE - s->in_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: cannot read: %s", s->name, strerror(errno));
            vp_source_close(s);
            return NULL;
        }
        if (n == 0)
            s->in_eof = 1;
        s->in_len += (size_t)n;
    }
    atomic_store(&s->input_pos, s->in_len);
    s->gzip = s->in_len >= 2 && s->inbuf[0] == 0x1f && s->inbuf[1] == 0x8b;

    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
#ifdef VP_SOURCE_INLINE
    reader_thread(s);
    if (s->inline_full)
        vp_error_set(&s->thread_err, VP_EXIT_INPUT, "%s: more than %u MiB of input: too large "
                     "for the fuzz build", s->name, (unsigned)(NSLOTS * VP_SOURCE_CHUNK >> 20));
    return s;
#endif
    for (unsigned i = 0; i < NSLOTS; i++)
        s->slots[i].buf = vp_malloc(VP_SOURCE_CHUNK);
    if (pthread_create(&s->thread, NULL, reader_thread, s) != 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: cannot start the reader thread", s->name);
        vp_source_close(s);
        return NULL;
    }
    s->thread_started = 1;
    return s;
}

int vp_source_next(vp_source *s, vp_chunk *chunk, vp_error *err)
{
    pthread_mutex_lock(&s->mu);
    if (s->held >= 0) {
        s->slots[s->held].state = SLOT_FREE;
        s->held = -1;
        pthread_cond_broadcast(&s->cv);
    }
    struct slot *sl = &s->slots[s->rd % NSLOTS];
    while (sl->state != SLOT_FILLED && !s->finished)
        pthread_cond_wait(&s->cv, &s->mu);
    if (sl->state != SLOT_FILLED) {
        /* The thread is done and nothing is queued: end or failure. */
        int failed = s->thread_err.status != 0;
        if (failed)
            vp_error_set(err, s->thread_err.status, "%s", s->thread_err.msg);
        pthread_mutex_unlock(&s->mu);
        return failed ? -1 : 0;
    }
    sl->state = SLOT_HELD;
    s->held = (int)(s->rd % NSLOTS);
    s->rd++;
    pthread_mutex_unlock(&s->mu);
    chunk->data = sl->buf;
    chunk->len = sl->len;
    chunk->offset = s->delivered;
    chunk->comp_offset = sl->comp_offset;
    chunk->aux = s->hook ? sl->aux.data : NULL;
    chunk->aux_len = s->hook ? sl->aux.len : 0;
    s->delivered += sl->len;
    return 1;
}

const char *vp_source_name(const vp_source *s)
{
    return s->name;
}

int vp_source_is_gzip(const vp_source *s)
{
    return s->gzip;
}

uint64_t vp_source_input_size(const vp_source *s)
{
    return s->input_size;
}

uint64_t vp_source_input_pos(const vp_source *s)
{
    return atomic_load_explicit(&((vp_source *)s)->input_pos, memory_order_relaxed);
}

int vp_source_truncated(const vp_source *s)
{
    return s->truncated;
}

void vp_source_close(vp_source *s)
{
    if (!s)
        return;
    if (s->thread_started) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->thread, NULL);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    for (unsigned i = 0; i < s->nslots; i++) {
        free(s->slots[i].buf);
        vp_buf_free(&s->slots[i].aux);
    }
    free(s->slots);
    if (s->fd >= 0 && s->fd != STDIN_FILENO)
        close(s->fd);
    free(s->inbuf);
    free(s->name);
    free(s);
}

int vp_source_locate(const char *path, uint64_t offset, uint64_t *line, uint64_t *col)
{
    if (strcmp(path, "-") == 0)
        return -1;
    vp_error err = {0};
    vp_source *s = vp_source_open(path, &err);
    if (!s)
        return -1;
    uint64_t ln = 1, c = 1;
    vp_chunk ch;
    int found = -1;
    while (vp_source_next(s, &ch, &err) == 1) {
        size_t n = ch.len;
        if (ch.offset + n > offset)
            n = (size_t)(offset - ch.offset);
        const char *p = ch.data, *end = ch.data + n, *nl;
        while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            ln++;
            c = 1;
            p = nl + 1;
        }
        c += vp_utf8_chars(p, (size_t)(end - p));
        if (ch.offset + ch.len >= offset) {
            found = 0;
            break;
        }
    }
    vp_source_close(s);
    if (found == 0) {
        *line = ln;
        *col = c;
    }
    return found;
}
