/* Building the snapshot model from a decoded pickle.
 *
 * The pickle tree is walked along the paths the schema defines (never
 * generically, so a cyclic or absurdly shaped tree cannot make it loop);
 * what it finds is copied into flat arrays, and the tree can then go.
 * Stacks are interned through the pickle memo: a frames list or frame dict
 * that the writer shared is the same vp_pk_seq, and its `user` field
 * remembers the id it got the first time. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vprof/memsnap.h"
#include "vprof/util.h"

static const char *const action_names[VP_MS_NACTIONS] = {
    [VP_MS_ALLOC] = "alloc",
    [VP_MS_FREE_REQUESTED] = "free_requested",
    [VP_MS_FREE_COMPLETED] = "free_completed",
    [VP_MS_SEGMENT_ALLOC] = "segment_alloc",
    [VP_MS_SEGMENT_FREE] = "segment_free",
    [VP_MS_SEGMENT_MAP] = "segment_map",
    [VP_MS_SEGMENT_UNMAP] = "segment_unmap",
    [VP_MS_SNAPSHOT] = "snapshot",
    [VP_MS_OOM] = "oom",
    [VP_MS_OTHER] = "other",
};

const char *vp_ms_action_name(int action)
{
    if (action < 0 || action >= VP_MS_NACTIONS)
        return "other";
    return action_names[action];
}

/* ---- private state ---- */

typedef struct strchunk {
    struct strchunk *next;
    size_t used, size;
    char data[];
} strchunk;

struct vp_ms_internal {
    strchunk *chunks;
    vp_strmap *strings;      /* interned filenames and function names */
    size_t frames_cap, stack_frames_cap, stacks_cap, nstack_frames;
    size_t events_cap_total;
};

typedef struct loader {
    vp_memsnap *s;
    const char *name;
    vp_error *err;
    /* growable arrays */
    size_t seg_cap, block_cap, dev_cap;
    const char *last_action_ptr;   /* memoized action strings share storage */
    int last_action;
} loader;

static const char *store_str(vp_memsnap *s, const char *p, size_t n)
{
    struct vp_ms_internal *in = s->in;
    int inserted;
    void **slot = vp_strmap_upsert(in->strings, p, n, &inserted);
    if (!inserted)
        return *slot;
    strchunk *c = in->chunks;
    if (!c || c->size - c->used < n + 1) {
        size_t size = n + 1 > 65536 ? n + 1 : 65536;
        c = vp_malloc(sizeof *c + size);
        c->used = 0;
        c->size = size;
        c->next = in->chunks;
        in->chunks = c;
    }
    char *dst = c->data + c->used;
    memcpy(dst, p, n);
    dst[n] = '\0';
    c->used += n + 1;
    *slot = dst;
    return dst;
}

static int bad(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(loader *L, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vp_error_set(L->err, VP_EXIT_INPUT, "%s: not a memory snapshot: %s", L->name, msg);
    return -1;
}

static const char *type_name(const vp_pk *v)
{
    if (!v)
        return "missing";
    switch ((vp_pk_type)v->type) {
    case VP_PK_NONE: return "None";
    case VP_PK_BOOL: return "a bool";
    case VP_PK_INT: return "an int";
    case VP_PK_FLOAT: return "a float";
    case VP_PK_STR: return "a str";
    case VP_PK_LIST: return "a list";
    case VP_PK_TUPLE: return "a tuple";
    case VP_PK_DICT: return "a dict";
    }
    return "?";
}

/* An int field that must be present. */
static int need_int(loader *L, const vp_pk *dict, const char *key, const char *what, size_t idx,
                    int64_t *out)
{
    const vp_pk *v = vp_pk_dict_get(dict, key);
    if (!v)
        return bad(L, "%s %zu has no '%s'", what, idx, key);
    if (v->type != VP_PK_INT && v->type != VP_PK_BOOL)
        return bad(L, "%s %zu: '%s' is %s, not an int", what, idx, key, type_name(v));
    *out = v->u.i;
    return 0;
}

/* ---- frames and stacks ---- */

static uint32_t intern_frame(vp_memsnap *s, const vp_pk *f)
{
    vp_pk_seq *seq = f->u.seq;
    if (seq->user)
        return seq->user - 1;
    struct vp_ms_internal *in = s->in;
    if (s->nframes == in->frames_cap) {
        in->frames_cap = in->frames_cap ? in->frames_cap * 2 : 256;
        s->frames = vp_realloc(s->frames, in->frames_cap * sizeof *s->frames);
    }
    vp_ms_frame *fr = &s->frames[s->nframes];
    size_t n;
    const char *p;
    p = vp_pk_str(vp_pk_dict_get(f, "filename"), &n);
    fr->filename = p ? store_str(s, p, n) : "";
    p = vp_pk_str(vp_pk_dict_get(f, "name"), &n);
    fr->name = p ? store_str(s, p, n) : "";
    fr->line = vp_pk_int(vp_pk_dict_get(f, "line"), 0);
    seq->user = (uint32_t)++s->nframes;
    return seq->user - 1;
}

/* The stack id of a `frames` value: a list of frame dicts, innermost first.
 * Anything else (absent, not a list, empty) has no stack. */
static uint32_t intern_stack(vp_memsnap *s, const vp_pk *frames)
{
    if (!vp_pk_is(frames, VP_PK_LIST) || frames->u.seq->n == 0)
        return VP_MS_NO_STACK;
    vp_pk_seq *seq = frames->u.seq;
    if (seq->user)
        return seq->user;
    struct vp_ms_internal *in = s->in;
    if (s->nstacks + 2 > in->stacks_cap) {
        in->stacks_cap = in->stacks_cap ? in->stacks_cap * 2 : 256;
        s->stack_first = vp_realloc(s->stack_first, in->stacks_cap * sizeof *s->stack_first);
        s->stack_len = vp_realloc(s->stack_len, in->stacks_cap * sizeof *s->stack_len);
        if (s->nstacks == 0)
            s->stack_first[0] = s->stack_len[0] = 0;
    }
    uint32_t id = (uint32_t)++s->nstacks;
    if (in->nstack_frames + seq->n > in->stack_frames_cap) {
        size_t cap = in->stack_frames_cap ? in->stack_frames_cap * 2 : 4096;
        while (cap < in->nstack_frames + seq->n)
            cap *= 2;
        in->stack_frames_cap = cap;
        s->stack_frames = vp_realloc(s->stack_frames, cap * sizeof *s->stack_frames);
    }
    s->stack_first[id] = (uint32_t)in->nstack_frames;
    uint32_t len = 0;
    for (uint32_t i = 0; i < seq->n; i++) {
        const vp_pk *f = &seq->items[i];
        if (f->type != VP_PK_DICT)
            continue;
        s->stack_frames[in->nstack_frames++] = intern_frame(s, f);
        len++;
    }
    s->stack_len[id] = len;
    seq->user = id;
    return id;
}

/* ---- devices ---- */

static vp_ms_device *device_get(loader *L, int id)
{
    vp_memsnap *s = L->s;
    for (size_t i = 0; i < s->ndevices; i++)
        if (s->devices[i].id == id)
            return &s->devices[i];
    if (s->ndevices == L->dev_cap) {
        L->dev_cap = L->dev_cap ? L->dev_cap * 2 : 8;
        s->devices = vp_realloc(s->devices, L->dev_cap * sizeof *s->devices);
    }
    vp_ms_device *d = &s->devices[s->ndevices++];
    memset(d, 0, sizeof *d);
    d->id = id;
    return d;
}

/* ---- segments and blocks ---- */

static int block_state(const vp_pk *v)
{
    if (vp_pk_str_eq(v, "active_allocated"))
        return VP_MS_ACTIVE_ALLOCATED;
    /* The writer says active_pending_free; the docstrings active_awaiting_free. */
    if (vp_pk_str_eq(v, "active_pending_free") || vp_pk_str_eq(v, "active_awaiting_free"))
        return VP_MS_ACTIVE_PENDING_FREE;
    return VP_MS_INACTIVE;
}

static int load_segment(loader *L, const vp_pk *seg, size_t idx)
{
    vp_memsnap *s = L->s;
    if (!vp_pk_is(seg, VP_PK_DICT))
        return bad(L, "segment %zu is %s, not a dict", idx, type_name(seg));
    if (s->nsegments == L->seg_cap) {
        L->seg_cap = L->seg_cap ? L->seg_cap * 2 : 64;
        s->segments = vp_realloc(s->segments, L->seg_cap * sizeof *s->segments);
    }
    vp_ms_segment *g = &s->segments[s->nsegments];
    memset(g, 0, sizeof *g);
    int64_t v = 0;
    if (need_int(L, seg, "address", "segment", idx, &v) < 0)
        return -1;
    g->addr = (uint64_t)v;
    if (need_int(L, seg, "total_size", "segment", idx, &g->total_size) < 0)
        return -1;
    g->device = (int)vp_pk_int(vp_pk_dict_get(seg, "device"), 0);
    g->stream = vp_pk_int(vp_pk_dict_get(seg, "stream"), 0);
    g->small = vp_pk_str_eq(vp_pk_dict_get(seg, "segment_type"), "small");
    g->expandable = vp_pk_int(vp_pk_dict_get(seg, "is_expandable"), 0) != 0;
    const vp_pk *pool = vp_pk_dict_get(seg, "segment_pool_id");
    if (vp_pk_count(pool) == 2 && pool->type != VP_PK_DICT)
        g->private_pool = vp_pk_int(vp_pk_item(pool, 0), 0) != 0 || vp_pk_int(vp_pk_item(pool, 1), 0) != 0;
    g->stack = intern_stack(s, vp_pk_dict_get(seg, "frames"));

    const vp_pk *blocks = vp_pk_dict_get(seg, "blocks");
    if (blocks && !vp_pk_is(blocks, VP_PK_LIST))
        return bad(L, "segment %zu: 'blocks' is %s, not a list", idx, type_name(blocks));
    g->first_block = s->nblocks;
    size_t nb = vp_pk_count(blocks);
    uint64_t addr = g->addr;
    for (size_t i = 0; i < nb; i++) {
        const vp_pk *b = vp_pk_item(blocks, i);
        if (!vp_pk_is(b, VP_PK_DICT))
            return bad(L, "segment %zu: block %zu is %s, not a dict", idx, i, type_name(b));
        if (s->nblocks == L->block_cap) {
            L->block_cap = L->block_cap ? L->block_cap * 2 : 256;
            s->blocks = vp_realloc(s->blocks, L->block_cap * sizeof *s->blocks);
        }
        vp_ms_block *k = &s->blocks[s->nblocks];
        if (need_int(L, b, "size", "block", s->nblocks, &k->size) < 0)
            return -1;
        k->state = (uint8_t)block_state(vp_pk_dict_get(b, "state"));
        /* torch 2.0 blocks have no address: the segment's base plus the
         * sizes before it, as PyTorch's viewer computes it; their frames
         * and requested size are in history[0] (newest first). */
        const vp_pk *a = vp_pk_dict_get(b, "address");
        k->addr = a ? (uint64_t)vp_pk_int(a, 0) : addr;
        addr += (uint64_t)k->size;
        const vp_pk *hist = vp_pk_item(vp_pk_dict_get(b, "history"), 0);
        if (hist)
            s->torch20 = 1;
        const vp_pk *req = vp_pk_dict_get(b, "requested_size");
        if (!req && hist)
            req = vp_pk_dict_get(hist, "real_size");
        k->requested = vp_pk_int(req, k->size);
        const vp_pk *frames = vp_pk_dict_get(b, "frames");
        if (!frames && hist)
            frames = vp_pk_dict_get(hist, "frames");
        k->stack = intern_stack(s, frames);
        s->nblocks++;
    }
    g->nblocks = s->nblocks - g->first_block;
    s->nsegments++;
    return 0;
}

/* ---- trace entries ---- */

static int action_of(loader *L, const vp_pk *v)
{
    if (!vp_pk_is(v, VP_PK_STR))
        return -1;
    if (v->u.s == L->last_action_ptr)
        return L->last_action;
    int a = VP_MS_OTHER;
    for (int i = 0; i < VP_MS_OTHER; i++)
        if (vp_pk_str_eq(v, action_names[i])) {
            a = i;
            break;
        }
    L->last_action_ptr = v->u.s;
    L->last_action = a;
    return a;
}

static int key_is(const vp_pk *k, const char *lit, size_t n)
{
    return k->len == n && memcmp(k->u.s, lit, n) == 0;
}

static int load_trace(loader *L, int devid, const vp_pk *trace)
{
    if (!vp_pk_is(trace, VP_PK_LIST))
        return bad(L, "device_traces[%d] is %s, not a list", devid, type_name(trace));
    size_t n = trace->u.seq->n;
    if (n == 0)
        return 0;
    vp_ms_device *dev = device_get(L, devid);
    dev->events = vp_malloc(n * sizeof *dev->events);
    const vp_pk *items = trace->u.seq->items;
    for (size_t i = 0; i < n; i++) {
        const vp_pk *e = &items[i];
        if (e->type != VP_PK_DICT)
            return bad(L, "device_traces[%d][%zu] is %s, not a dict", devid, i, type_name(e));
        vp_ms_event *ev = &dev->events[i];
        memset(ev, 0, sizeof *ev);
        int action = -1, have_size = 0, have_addr = 0;
        const vp_pk *frames = NULL;
        int64_t device_free = 0;
        /* One pass over the entry's keys instead of a lookup per field:
         * this loop runs once per trace entry, millions of times. */
        const vp_pk_seq *d = e->u.seq;
        for (uint32_t j = 0; j < d->n; j++) {
            const vp_pk *k = &d->keys[j], *v = &d->items[j];
            if (k->type != VP_PK_STR)
                continue;
            int isint = v->type == VP_PK_INT;
            switch (k->len) {
            case 4:
                if (isint && key_is(k, "addr", 4)) {
                    ev->addr = (uint64_t)v->u.i;
                    have_addr = 1;
                } else if (isint && key_is(k, "size", 4)) {
                    ev->size = v->u.i;
                    have_size = 1;
                }
                break;
            case 6:
                if (key_is(k, "action", 6))
                    action = action_of(L, v);
                else if (key_is(k, "frames", 6))
                    frames = v;
                break;
            case 7:
                if (isint && key_is(k, "time_us", 7)) {
                    ev->time_us = v->u.i;
                    ev->has_time = 1;
                }
                break;
            case 11:
                if (isint && key_is(k, "device_free", 11))
                    device_free = v->u.i;
                break;
            }
        }
        if (action < 0)
            return bad(L, "device_traces[%d][%zu] has no 'action' string", devid, i);
        if (!have_size && action != VP_MS_OTHER)
            return bad(L, "device_traces[%d][%zu] (%s) has no int 'size'", devid, i,
                       action_names[action]);
        if (!have_addr && action != VP_MS_OOM && action != VP_MS_OTHER && action != VP_MS_SNAPSHOT)
            return bad(L, "device_traces[%d][%zu] (%s) has no int 'addr'", devid, i,
                       action_names[action]);
        if (action == VP_MS_OOM)
            ev->addr = (uint64_t)device_free;
        ev->action = (uint8_t)action;
        ev->stack = intern_stack(L->s, frames);
    }
    dev->nevents = n;
    return 0;
}

static int cmp_segment(const void *a, const void *b)
{
    const vp_ms_segment *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

static int cmp_device(const void *a, const void *b)
{
    const vp_ms_device *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Devices are numbered by ordinal; more than this is not a real file. */
#define MAX_DEVICE 65536

vp_memsnap *vp_memsnap_from_pickle(const vp_pk *root, int protocol, const char *name, vp_error *err)
{
    vp_memsnap *s = vp_calloc(1, sizeof *s);
    s->in = vp_calloc(1, sizeof *s->in);
    s->in->strings = vp_strmap_new();
    s->protocol = protocol;
    loader L = {.s = s, .name = name, .err = err};

    const vp_pk *segments, *traces = NULL;
    if (vp_pk_is(root, VP_PK_LIST)) {
        /* torch.cuda.memory_snapshot(): the segments alone. */
        s->list_form = 1;
        segments = root;
        if (vp_pk_count(root) && !vp_pk_is(vp_pk_item(root, 0), VP_PK_DICT)) {
            bad(&L, "top level is a list of %s, not of segment dicts", type_name(vp_pk_item(root, 0)));
            goto fail;
        }
    } else if (vp_pk_is(root, VP_PK_DICT)) {
        segments = vp_pk_dict_get(root, "segments");
        traces = vp_pk_dict_get(root, "device_traces");
        if (!segments && !traces) {
            bad(&L, "top level is a dict without 'segments' or 'device_traces'");
            goto fail;
        }
        if (segments && !vp_pk_is(segments, VP_PK_LIST)) {
            bad(&L, "'segments' is %s, not a list", type_name(segments));
            goto fail;
        }
        if (traces && !vp_pk_is(traces, VP_PK_LIST)) {
            bad(&L, "'device_traces' is %s, not a list", type_name(traces));
            goto fail;
        }
    } else {
        bad(&L, "top level is %s", type_name(root));
        goto fail;
    }

    for (size_t i = 0; i < vp_pk_count(segments); i++)
        if (load_segment(&L, vp_pk_item(segments, i), i) < 0)
            goto fail;
    size_t ntraces = vp_pk_count(traces);
    if (ntraces > MAX_DEVICE) {
        bad(&L, "'device_traces' lists %zu devices", ntraces);
        goto fail;
    }
    for (size_t d = 0; d < ntraces; d++)
        if (load_trace(&L, (int)d, vp_pk_item(traces, d)) < 0)
            goto fail;

    /* Newer files sort segments by device then address, older ones by
     * address only: sort, so that each device's segments are a range. */
    if (s->nsegments)
        qsort(s->segments, s->nsegments, sizeof *s->segments, cmp_segment);
    for (size_t i = 0; i < s->nsegments; i++) {
        vp_ms_device *dev = device_get(&L, s->segments[i].device);
        if (dev->nsegments == 0)
            dev->first_segment = i;
        dev->nsegments++;
    }
    if (s->ndevices)
        qsort(s->devices, s->ndevices, sizeof *s->devices, cmp_device);
    /* The interning table for strings is only needed while loading. */
    vp_strmap_free(s->in->strings);
    s->in->strings = NULL;
    return s;
fail:
    vp_memsnap_free(s);
    return NULL;
}

void vp_memsnap_free(vp_memsnap *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ndevices; i++)
        free(s->devices[i].events);
    free(s->devices);
    free(s->segments);
    free(s->blocks);
    free(s->frames);
    free(s->stack_first);
    free(s->stack_len);
    free(s->stack_frames);
    if (s->in) {
        vp_strmap_free(s->in->strings);
        strchunk *c = s->in->chunks;
        while (c) {
            strchunk *next = c->next;
            free(c);
            c = next;
        }
        free(s->in);
    }
    free(s);
}

const vp_ms_device *vp_memsnap_device(const vp_memsnap *s, int id)
{
    for (size_t i = 0; i < s->ndevices; i++)
        if (s->devices[i].id == id)
            return &s->devices[i];
    return NULL;
}

vp_memsnap *vp_memsnap_load_mem(const void *data, size_t len, const char *name, vp_error *err)
{
    vp_pk_doc *doc = vp_pk_decode(data, len, name, err);
    if (!doc)
        return NULL;
    vp_memsnap *s = vp_memsnap_from_pickle(vp_pk_root(doc), vp_pk_protocol(doc), name, err);
    vp_pk_doc_free(doc);
    return s;
}

/* The mapped file is read through a window: the pages behind the decoder
 * are dropped as it goes, so that a large snapshot costs its decoded tree,
 * not the tree plus the file, and the pages ahead are faulted in with one
 * call per window instead of one fault per page. */
typedef struct window {
    const char *base;
    size_t len;
} window;

#define WINDOW ((size_t)32 << 20)   /* the decoder's release step */

static void prefault(const window *w, size_t from)
{
#ifdef MADV_POPULATE_READ
    if (from >= w->len)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    from -= from % page;
    size_t n = w->len - from < WINDOW + page ? w->len - from : WINDOW + page;
    madvise((void *)(w->base + from), n, MADV_POPULATE_READ);   /* a hint; errors are harmless */
#else
    (void)w;
    (void)from;
#endif
}

static void drop_pages(void *ctx, size_t upto)
{
    const window *w = ctx;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t done = upto - upto % page;
    if (done)
        madvise((void *)w->base, done, MADV_DONTNEED);
    prefault(w, upto);
}

static int read_all(int fd, vp_buf *b)
{
    for (;;) {
        vp_buf_reserve(b, 1 << 20);
        ssize_t n = read(fd, b->data + b->len, b->cap - b->len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            return 0;
        b->len += (size_t)n;
    }
}

vp_memsnap *vp_memsnap_load(const char *path, vp_error *err)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "(stdin)" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    vp_pk_doc *doc = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t len = (size_t)st.st_size;
        void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            vp_error_set(err, VP_EXIT_INPUT, "cannot read %s: %s", name, strerror(errno));
            if (!is_stdin)
                close(fd);
            return NULL;
        }
        madvise(map, len, MADV_SEQUENTIAL);
        window w = {map, len};
        prefault(&w, 0);
        doc = vp_pk_decode_ex(map, len, name, err, drop_pages, &w);
        munmap(map, len);
    } else {
        vp_buf b = {0};
        if (read_all(fd, &b) < 0) {
            vp_error_set(err, VP_EXIT_INPUT, "cannot read %s: %s", name, strerror(errno));
            vp_buf_free(&b);
            if (!is_stdin)
                close(fd);
            return NULL;
        }
        doc = vp_pk_decode(b.data ? b.data : "", b.len, name, err);
        vp_buf_free(&b);
    }
    if (!is_stdin)
        close(fd);
    if (!doc)
        return NULL;
    vp_memsnap *s = vp_memsnap_from_pickle(vp_pk_root(doc), vp_pk_protocol(doc), name, err);
    vp_pk_doc_free(doc);
    return s;
}
