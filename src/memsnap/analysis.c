/* The per-device analyses: state at snapshot time, the alloc/free replay
 * (baseline, peak, live set), the reserved-bytes replay, sites.
 *
 * Definitions (memsnap.md section 6, validated against PyTorch's viewer):
 * an `alloc` opens its address with its requested size; a `free_completed`
 * closes the address, or, when the address is not open, stands for an
 * allocation older than the trace (part of the baseline).  Active blocks
 * whose address is not open at the end are older still and were alive all
 * along.  free_requested, segment actions, snapshot and oom do not move
 * the active bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/memsnap.h"
#include "vprof/util.h"

/* ---- address map: open addressing, linear probing, backward-shift
 * deletion (no tombstones, so a long replay does not degrade) ---- */

typedef struct addrmap {
    uint64_t *keys;
    uint32_t *vals;
    uint8_t *used;
    size_t mask, count;
} addrmap;

static size_t addr_hash(uint64_t a)
{
    a ^= a >> 33;
    a *= UINT64_C(0xff51afd7ed558ccd);
    a ^= a >> 33;
    return (size_t)a;
}

static void map_init(addrmap *m, size_t expect)
{
    size_t n = 64;
    while (n < expect * 2)
        n *= 2;
    m->keys = vp_malloc(n * sizeof *m->keys);
    m->vals = vp_malloc(n * sizeof *m->vals);
    m->used = vp_calloc(n, 1);
    m->mask = n - 1;
    m->count = 0;
}

static void map_free(addrmap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
}

static size_t map_find(const addrmap *m, uint64_t key)
{
    size_t i = addr_hash(key) & m->mask;
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & m->mask;
    return i;
}

static void map_put(addrmap *m, uint64_t key, uint32_t val);

static void map_grow(addrmap *m)
{
    addrmap old = *m;
    map_init(m, (old.mask + 1));
    for (size_t i = 0; i <= old.mask; i++)
        if (old.used[i])
            map_put(m, old.keys[i], old.vals[i]);
    map_free(&old);
}

static void map_put(addrmap *m, uint64_t key, uint32_t val)
{
    if ((m->count + 1) * 4 > (m->mask + 1) * 3)
        map_grow(m);
    size_t i = map_find(m, key);
    if (!m->used[i]) {
        m->used[i] = 1;
        m->keys[i] = key;
        m->count++;
    }
    m->vals[i] = val;
}

/* Returns 1 and the value when key is present. */
static int map_get(const addrmap *m, uint64_t key, uint32_t *val)
{
    size_t i = map_find(m, key);
    if (!m->used[i])
        return 0;
    *val = m->vals[i];
    return 1;
}

static void map_del_slot(addrmap *m, size_t i)
{
    m->used[i] = 0;
    m->count--;
    /* Shift back the entries of the probe run that follows. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (!m->used[j])
            return;
        size_t home = addr_hash(m->keys[j]) & m->mask;
        /* Entry j may move to i when i lies cyclically in [home, j). */
        if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            m->used[i] = 1;
            m->used[j] = 0;
            i = j;
        }
    }
}

/* ---- the replay ---- */

#define NEVER UINT32_MAX

typedef struct replay {
    /* For an alloc: the index of the free_completed closing it (NEVER if
     * it is still open at the end).  For a free_completed: the index of
     * the alloc it closes, NEVER when it matched none (then it stands for
     * an allocation older than the trace). */
    uint32_t *link;
    addrmap open;              /* at the end: addr -> alloc index */
    int64_t unmatched_bytes;
} replay;

static void replay_run(const vp_ms_device *dev, replay *r)
{
    size_t n = dev->nevents;
    r->link = vp_malloc((n ? n : 1) * sizeof *r->link);
    map_init(&r->open, 1024);
    r->unmatched_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const vp_ms_event *e = &dev->events[i];
        r->link[i] = NEVER;
        if (e->action == VP_MS_ALLOC) {
            /* An alloc on an address still open replaces it; the older one
             * is never closed (as in PyTorch's viewer). */
            map_put(&r->open, e->addr, (uint32_t)i);
        } else if (e->action == VP_MS_FREE_COMPLETED) {
            size_t slot = map_find(&r->open, e->addr);
            if (r->open.used[slot]) {
                r->link[r->open.vals[slot]] = (uint32_t)i;
                r->link[i] = r->open.vals[slot];
                map_del_slot(&r->open, slot);
            } else {
                r->unmatched_bytes += e->size;
            }
        }
    }
}

static void replay_free(replay *r)
{
    free(r->link);
    map_free(&r->open);
}

/* Walks every block of the device: segments are sorted by device, and
 * each segment's blocks are one range. */
#define FOR_DEVICE_BLOCKS(s, dev, b)                                                          \
    for (size_t seg_i_ = (dev)->first_segment; seg_i_ < (dev)->first_segment + (dev)->nsegments; \
         seg_i_++)                                                                            \
        for (const vp_ms_block *b = (s)->segments[seg_i_].nblocks                               \
                                        ? &(s)->blocks[(s)->segments[seg_i_].first_block]       \
                                        : NULL,                                               \
                               *end_##b = b ? b + (s)->segments[seg_i_].nblocks : NULL;       \
             b != end_##b; b++)

static int64_t baseline_blocks(const vp_memsnap *s, const vp_ms_device *dev, const replay *r)
{
    int64_t sum = 0;
    uint32_t v;
    FOR_DEVICE_BLOCKS(s, dev, b) {
        if (b->state == VP_MS_ACTIVE_ALLOCATED && !map_get(&r->open, b->addr, &v))
            sum += b->requested;
    }
    return sum;
}

void vp_ms_device_stats(const vp_memsnap *s, const vp_ms_device *dev, vp_ms_stats *st)
{
    memset(st, 0, sizeof *st);
    st->device = dev->id;
    st->trace_entries = dev->nevents;
    st->segments = dev->nsegments;

    for (size_t i = dev->first_segment; i < dev->first_segment + dev->nsegments; i++)
        st->reserved += s->segments[i].total_size;
    FOR_DEVICE_BLOCKS(s, dev, b) {
        st->blocks++;
        switch (b->state) {
        case VP_MS_ACTIVE_ALLOCATED:
            st->allocated += b->size;
            st->requested += b->requested;
            break;
        case VP_MS_ACTIVE_PENDING_FREE:
            st->pending_free += b->size;
            break;
        default:
            st->inactive += b->size;
            st->inactive_blocks++;
            if (b->size > st->largest_inactive)
                st->largest_inactive = b->size;
        }
    }
    st->rounding_waste = st->allocated - st->requested;
    st->fragmentation = st->inactive > 0 ? 1.0 - (double)st->largest_inactive / (double)st->inactive : 0.0;

    replay r;
    replay_run(dev, &r);
    st->baseline = r.unmatched_bytes + baseline_blocks(s, dev, &r);

    int64_t active = st->baseline, net = 0;
    st->peak_active = active;
    st->peak_index = -1;
    for (size_t i = 0; i < dev->nevents; i++) {
        const vp_ms_event *e = &dev->events[i];
        st->actions[e->action]++;
        switch (e->action) {
        case VP_MS_ALLOC:
            active += e->size;
            if (active > st->peak_active) {
                st->peak_active = active;
                st->peak_index = (long)i;
            }
            break;
        case VP_MS_FREE_COMPLETED:
            /* A matched free subtracts what its alloc added. */
            active -= r.link[i] == NEVER ? e->size : dev->events[r.link[i]].size;
            break;
        case VP_MS_SEGMENT_ALLOC: case VP_MS_SEGMENT_MAP:
            net += e->size;
            break;
        case VP_MS_SEGMENT_FREE: case VP_MS_SEGMENT_UNMAP:
            net -= e->size;
            break;
        case VP_MS_OOM:
            st->ooms++;
            break;
        }
    }
    replay_free(&r);
    st->final_active = active;
    if (st->peak_index >= 0) {
        const vp_ms_event *e = &dev->events[st->peak_index];
        st->peak_has_time = e->has_time;
        st->peak_time_us = e->time_us;
    }

    /* Reserved bytes: anchored on the segments at snapshot time and
     * replayed from the start. */
    int64_t reserved = st->reserved - net;
    st->reserved_at_start = st->peak_reserved = reserved;
    st->peak_reserved_index = -1;
    for (size_t i = 0; i < dev->nevents; i++) {
        const vp_ms_event *e = &dev->events[i];
        if (e->action == VP_MS_SEGMENT_ALLOC || e->action == VP_MS_SEGMENT_MAP)
            reserved += e->size;
        else if (e->action == VP_MS_SEGMENT_FREE || e->action == VP_MS_SEGMENT_UNMAP)
            reserved -= e->size;
        else
            continue;
        if (reserved > st->peak_reserved) {
            st->peak_reserved = reserved;
            st->peak_reserved_index = (long)i;
        }
    }
}

/* ---- live sets ---- */

/* Largest first; a stable merge sort, because among equal sizes the
 * order the live set was built in is kept (it is what PyTorch's viewer
 * and expected.json show): older-than-trace allocations freed later, then
 * the snapshot's older blocks, then the trace's allocations in order. */
static void sort_live(vp_ms_live *v, size_t n)
{
    if (n < 2)
        return;
    vp_ms_live *tmp = vp_malloc(n * sizeof *tmp);
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = v[j].size > v[i].size ? v[j++] : v[i++];
            while (i < mid)
                tmp[k++] = v[i++];
            while (j < hi)
                tmp[k++] = v[j++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
    free(tmp);
}

typedef struct livevec {
    vp_ms_live *v;
    size_t n, cap;
} livevec;

static void live_add(livevec *lv, uint64_t addr, int64_t size, uint32_t stack, long idx)
{
    if (lv->n == lv->cap) {
        lv->cap = lv->cap ? lv->cap * 2 : 256;
        lv->v = vp_realloc(lv->v, lv->cap * sizeof *lv->v);
    }
    lv->v[lv->n++] = (vp_ms_live){.addr = addr, .size = size, .stack = stack, .alloc_index = idx};
}

size_t vp_ms_live_at(const vp_memsnap *s, const vp_ms_device *dev, long index, vp_ms_live **out)
{
    replay r;
    replay_run(dev, &r);
    livevec lv = {0};
    uint32_t v;
    /* Older than the trace, freed after index: the only stack known is
     * the free's. */
    for (size_t i = (size_t)(index + 1); i < dev->nevents; i++) {
        const vp_ms_event *e = &dev->events[i];
        if (e->action == VP_MS_FREE_COMPLETED && r.link[i] == NEVER)
            live_add(&lv, e->addr, e->size, e->stack, -1);
    }
    /* Older than the trace and alive all along. */
    FOR_DEVICE_BLOCKS(s, dev, b) {
        if (b->state == VP_MS_ACTIVE_ALLOCATED && !map_get(&r.open, b->addr, &v))
            live_add(&lv, b->addr, b->requested, b->stack, -1);
    }
    for (size_t i = 0; i < dev->nevents && (long)i <= index; i++) {
        const vp_ms_event *e = &dev->events[i];
        if (e->action == VP_MS_ALLOC && (r.link[i] == NEVER || (long)r.link[i] > index))
            live_add(&lv, e->addr, e->size, e->stack, (long)i);
    }
    replay_free(&r);
    sort_live(lv.v, lv.n);
    *out = lv.v;
    return lv.n;
}

/* The call path of an allocation, every frame, for telling one piece of
 * code from another whatever --by site shows. */
static size_t path_key(const vp_memsnap *s, uint32_t stack, char *buf)
{
    vp_ms_site(s, stack, 64, 1, buf, VP_MS_SITE_MAX);
    return strlen(buf);
}

/* Allocated after the warm-up and never freed, by a call path that still
 * adds such memory in the second half of the trace entries after the
 * warm-up.  A path whose never-freed allocations all came earlier and
 * stayed constant since (an optimizer's state made in the first step, a
 * cache filled once) is state, not a leak: a leak grows with the loop. */
size_t vp_ms_leaks(const vp_memsnap *s, const vp_ms_device *dev, vp_ms_live **out)
{
    replay r;
    replay_run(dev, &r);
    size_t warm = vp_ms_warmup_end(dev), mid = warm + (dev->nevents - warm) / 2;
    vp_strmap *growing = vp_strmap_new();
    char *buf = vp_malloc(VP_MS_SITE_MAX);
    int inserted;
    for (size_t i = mid; i < dev->nevents; i++) {
        const vp_ms_event *e = &dev->events[i];
        if (e->action == VP_MS_ALLOC && r.link[i] == NEVER)
            *vp_strmap_upsert(growing, buf, path_key(s, e->stack, buf), &inserted) = growing;
    }
    livevec lv = {0};
    for (size_t i = warm; i < dev->nevents; i++) {
        const vp_ms_event *e = &dev->events[i];
        if (e->action == VP_MS_ALLOC && r.link[i] == NEVER &&
            vp_strmap_get(growing, buf, path_key(s, e->stack, buf)))
            live_add(&lv, e->addr, e->size, e->stack, (long)i);
    }
    free(buf);
    vp_strmap_free(growing);
    replay_free(&r);
    sort_live(lv.v, lv.n);
    *out = lv.v;
    return lv.n;
}

void vp_ms_timeline(const vp_memsnap *s, const vp_ms_device *dev, int64_t **active_out,
                    int64_t **reserved_out)
{
    vp_ms_stats st;
    vp_ms_device_stats(s, dev, &st);
    replay r;
    replay_run(dev, &r);
    size_t n = dev->nevents;
    int64_t *active = vp_malloc((n + 1) * sizeof *active);
    int64_t *reserved = vp_malloc((n + 1) * sizeof *reserved);
    active[0] = st.baseline;
    reserved[0] = st.reserved_at_start;
    for (size_t i = 0; i < n; i++) {
        const vp_ms_event *e = &dev->events[i];
        int64_t a = active[i], rv = reserved[i];
        switch (e->action) {
        case VP_MS_ALLOC:
            a += e->size;
            break;
        case VP_MS_FREE_COMPLETED:
            a -= r.link[i] == NEVER ? e->size : dev->events[r.link[i]].size;
            break;
        case VP_MS_SEGMENT_ALLOC: case VP_MS_SEGMENT_MAP:
            rv += e->size;
            break;
        case VP_MS_SEGMENT_FREE: case VP_MS_SEGMENT_UNMAP:
            rv -= e->size;
            break;
        }
        active[i + 1] = a;
        reserved[i + 1] = rv;
    }
    replay_free(&r);
    *active_out = active;
    *reserved_out = reserved;
}

/* ---- frames and sites ---- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* What PyTorch's viewer hides: the unwinder, the program's entry, the
 * interpreter loop and the dispatcher's generated glue. */
static int viewer_hides(const vp_ms_frame *f)
{
    static const char *const names[] = {
        "unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp", "_start",
        "__libc_start_main", "PyEval_", "PyObject_", "PyFunction_",
    };
    static const char *const files[] = {
        "core/boxing", "/Register", "/Redispatch", "pythonrun.c", "Modules/main.c",
        "Objects/call.c", "Objects/methodobject.c", "pycore_ceval.h", "ceval.c",
        "cpython/abstract.h",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(f->name, names[i]))
            return 1;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (strstr(f->filename, files[i]))
            return 1;
    return 0;
}

int vp_ms_frame_shown(const vp_ms_frame *f, int all_frames)
{
    if (viewer_hides(f))
        return 0;
    if (!all_frames)
        return ends_with(f->filename, ".py");
    /* The caching allocator's own frames (CUDA's, and NPU's and others'
     * of the same name) are where every allocation comes from: never a
     * site. */
    return !strstr(f->name, "CachingAllocator") && !ends_with(f->filename, "memory_snapshot.cpp");
}

static const char *base_name(const char *path)
{
    const char *b = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\')   /* Windows paths too */
            b = p + 1;
    return b;
}

size_t vp_ms_site(const vp_memsnap *s, uint32_t stack, int depth, int all_frames, char *buf,
                  size_t bufsize)
{
    size_t written = 0, pos = 0;
    if (bufsize)
        buf[0] = '\0';
    if (stack == VP_MS_NO_STACK || stack > s->nstacks || depth <= 0)
        return 0;
    const uint32_t *ids = s->stack_frames + s->stack_first[stack];
    for (uint32_t i = 0; i < s->stack_len[stack] && written < (size_t)depth; i++) {
        const vp_ms_frame *f = &s->frames[ids[i]];
        if (!vp_ms_frame_shown(f, all_frames))
            continue;
        const char *file = *f->filename ? base_name(f->filename) : "??";
        int n = snprintf(buf + pos, pos < bufsize ? bufsize - pos : 0, "%s%s:%lld:%s",
                         written ? " < " : "", file, (long long)f->line, f->name);
        if (n > 0)
            pos += (size_t)n;
        written++;
    }
    if (pos >= bufsize && bufsize)
        buf[bufsize - 1] = '\0';
    return written;
}

/* ---- sites ---- */

static int cmp_site_sum(const void *a, const void *b)
{
    const vp_ms_site_sum *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->site, y->site);
}

void vp_ms_group_by_site(const vp_memsnap *s, const vp_ms_live *lv, size_t n, int depth,
                         int all_frames, vp_ms_sites *out)
{
    vp_strmap *m = vp_strmap_new();
    vp_ms_site_sum *sums = NULL;
    size_t cnt = 0, cap = 0;
    char *buf = vp_malloc(VP_MS_SITE_MAX);
    for (size_t i = 0; i < n; i++) {
        vp_ms_site(s, lv[i].stack, depth, all_frames, buf, VP_MS_SITE_MAX);
        int inserted;
        void **slot = vp_strmap_upsert(m, buf, strlen(buf), &inserted);
        if (inserted) {
            if (cnt == cap) {
                cap = cap ? cap * 2 : 64;
                sums = vp_realloc(sums, cap * sizeof *sums);
            }
            sums[cnt] = (vp_ms_site_sum){.bytes = 0, .count = 0};
            *slot = (void *)(uintptr_t)(cnt + 1);
            cnt++;
        }
        size_t k = (size_t)(uintptr_t)*slot - 1;
        sums[k].bytes += lv[i].size;
        sums[k].count++;
    }
    /* The map owns the key strings; point at them once it stops growing. */
    for (size_t i = 0; i < vp_strmap_count(m); i++) {
        size_t len;
        const char *key = vp_strmap_key(m, i, &len);
        sums[(size_t)(uintptr_t)vp_strmap_value(m, i) - 1].site = key;
    }
    free(buf);
    if (cnt)
        qsort(sums, cnt, sizeof *sums, cmp_site_sum);
    out->sums = sums;
    out->n = cnt;
    out->keys = m;
}

void vp_ms_sites_free(vp_ms_sites *sites)
{
    free(sites->sums);
    vp_strmap_free(sites->keys);
    sites->sums = NULL;
    sites->keys = NULL;
    sites->n = 0;
}
