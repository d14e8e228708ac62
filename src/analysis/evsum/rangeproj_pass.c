/* One file's pass of the range projection (vprof/rangeproj.h): hold the
 * user ranges, the launching calls and the GPU operations, then at the
 * file's end nest the ranges per thread, walk each operation's launch up
 * the ranges that enclose it, and hand the projected instances over. */
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/corrjoin.h"
#include "vprof/rangeproj.h"

typedef struct prange {
    int64_t ts, end;
    uint32_t thread, order;
    uint32_t name;          /* into the file's names */
    int32_t parent;         /* index in the sorted array; -1: none */
    int32_t level;
    /* the projection */
    int64_t first, last, gpu_time;
    int64_t ops, children;
} prange;

typedef struct gpuop {
    int64_t corr, ts, end;
} gpuop;

struct vp_projfile {
    prange *r;
    size_t nr, capr;
    gpuop *op;
    size_t nop, capop;
    vp_corrjoin *calls;
    vp_strmap *threads, *names;
    vp_buf key;
};

vp_projfile *vp_projfile_new(void)
{
    vp_projfile *f = vp_calloc(1, sizeof *f);
    f->calls = vp_corrjoin_new();
    f->threads = vp_strmap_new();
    f->names = vp_strmap_new();
    return f;
}

void vp_projfile_free(vp_projfile *f)
{
    if (!f)
        return;
    free(f->r);
    free(f->op);
    vp_corrjoin_free(f->calls);
    vp_strmap_free(f->threads);
    vp_strmap_free(f->names);
    vp_buf_free(&f->key);
    free(f);
}

static uint32_t intern_local(vp_strmap *map, const char *s, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(map, s, n, &inserted);
    if (inserted)
        *slot = (void *)(uintptr_t)vp_strmap_count(map);
    return (uint32_t)((uintptr_t)*slot - 1);
}

/* A thread is its pid and tid, as the trace spells them. */
static uint32_t thread_of(vp_projfile *f, const vp_event *ev)
{
    f->key.len = 0;
    vp_buf_append(&f->key, ev->pid.p ? ev->pid.p : "", ev->pid.p ? ev->pid.n : 0);
    vp_buf_putc(&f->key, ' ');
    vp_buf_append(&f->key, ev->tid.p ? ev->tid.p : "", ev->tid.p ? ev->tid.n : 0);
    return intern_local(f->threads, f->key.data, f->key.len);
}

void vp_projfile_observe(vp_projfile *f, const vp_event *ev)
{
    if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur)
        return;
    int64_t corr;
    vp_gpu_kind kind = vp_gpu_kind_of(ev->cat);
    if (kind == VP_GPU_KERNEL || kind == VP_GPU_MEMCPY || kind == VP_GPU_MEMSET) {
        if (!vp_gpu_correlation(ev, &corr))
            return;
        if (f->nop == f->capop) {
            f->capop = f->capop ? f->capop * 2 : 1024;
            f->op = vp_realloc(f->op, f->capop * sizeof *f->op);
        }
        f->op[f->nop++] = (gpuop){corr, ev->ts, ev->ts + ev->dur};
    } else if (vp_launch_correlation(ev, &corr)) {
        vp_launch_call call = {ev->ts, ev->dur, thread_of(f, ev)};
        vp_corrjoin_call(f->calls, corr, &call);
    } else if (vp_event_kind(ev->cat, ev->name) == VP_EV_ANNOTATION) {
        if (f->nr == f->capr) {
            f->capr = f->capr ? f->capr * 2 : 256;
            f->r = vp_realloc(f->r, f->capr * sizeof *f->r);
        }
        prange *r = &f->r[f->nr];
        memset(r, 0, sizeof *r);
        r->ts = ev->ts;
        r->end = ev->ts + ev->dur;
        r->thread = thread_of(f, ev);
        r->order = (uint32_t)f->nr++;
        r->name = intern_local(f->names, ev->name.p, ev->name.n);
        r->first = INT64_MAX;
        r->last = INT64_MIN;
    }
}

/* Per thread, by start, the longer first, then in file order: an
 * enclosing range comes before what it encloses. */
static int cmp_range(const void *a, const void *b)
{
    const prange *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static int cmp_op(const void *a, const void *b)
{
    const gpuop *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

/* Parents and levels: a stack of the open ranges of the thread; the
 * innermost that still encloses a range is its parent.  Also each
 * thread's first range (from[thread]) and the end of its run. */
static void nest(vp_projfile *f, size_t *from, size_t *to)
{
    int32_t *stack = vp_malloc((f->nr ? f->nr : 1) * sizeof *stack);
    size_t depth = 0;
    for (size_t i = 0; i < f->nr; i++) {
        prange *r = &f->r[i];
        if (i == 0 || r->thread != f->r[i - 1].thread) {
            depth = 0;
            from[r->thread] = i;
        }
        to[r->thread] = i + 1;
        while (depth && f->r[stack[depth - 1]].end < r->end)
            depth--;
        r->parent = depth ? stack[depth - 1] : -1;
        r->level = depth ? f->r[r->parent].level + 1 : 0;
        stack[depth++] = (int32_t)i;
    }
    free(stack);
}

/* The innermost range of the thread's run [lo, hi) that holds the whole
 * call, or -1. */
static int32_t innermost(const vp_projfile *f, size_t lo, size_t hi, const vp_launch_call *c)
{
    /* the last range that starts at or before the call ... */
    size_t a = lo, b = hi;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (f->r[mid].ts <= c->ts)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == lo)
        return -1;
    /* ... or the first of its enclosing ranges that outlasts the call */
    int32_t i = (int32_t)(a - 1);
    while (i >= 0 && f->r[i].end < c->ts + c->dur)
        i = f->r[i].parent;
    return i;
}

void vp_projfile_end(vp_projfile *f, vp_rangeproj *m, long rank, vp_steps *steps)
{
    if (f->nr == 0 || f->nop == 0)
        return;
    qsort(f->r, f->nr, sizeof *f->r, cmp_range);
    size_t nthreads = vp_strmap_count(f->threads);
    size_t *from = vp_calloc(nthreads, sizeof *from), *to = vp_calloc(nthreads, sizeof *to);
    nest(f, from, to);
    qsort(f->op, f->nop, sizeof *f->op, cmp_op);
    for (size_t i = 0; i < f->nop;) {
        size_t j = i;
        while (j < f->nop && f->op[j].corr == f->op[i].corr)
            j++;
        vp_launch_call c;
        int32_t at = -1;
        if (vp_corrjoin_launcher(f->calls, f->op[i].corr, &c) && c.api < nthreads)
            at = innermost(f, from[c.api], to[c.api], &c);
        /* one GPU op per correlation id, in every enclosing range */
        for (; at >= 0; at = f->r[at].parent) {
            prange *r = &f->r[at];
            r->ops++;
            for (size_t k = i; k < j; k++) {
                r->first = f->op[k].ts < r->first ? f->op[k].ts : r->first;
                r->last = f->op[k].end > r->last ? f->op[k].end : r->last;
                r->gpu_time += f->op[k].end - f->op[k].ts;
            }
        }
        i = j;
    }
    for (size_t i = 0; i < f->nr; i++)
        if (f->r[i].ops && f->r[i].parent >= 0)
            f->r[f->r[i].parent].children++;
    for (size_t i = 0; i < f->nr; i++) {
        const prange *r = &f->r[i];
        int64_t a, b;
        long s;
        if (!r->ops)
            continue;
        if (steps && ((s = vp_steps_at(steps, r->ts)) < 0 ||
                      vp_steps_window(steps, (size_t)s, &a, &b) != 1))
            continue;
        size_t len;
        const char *name = vp_strmap_key(f->names, r->name, &len);
        vp_rangeproj_add(m, name, len, rank, r->last - r->first, r->end - r->ts, r->ops,
                         r->level, r->children, r->gpu_time);
    }
    free(from);
    free(to);
}
