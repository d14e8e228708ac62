/* The GPU side of HTA's critical path graph (CPGraph._construct_graph_
 * from_kernels): each kernel's span, joined to the kernel before it on its
 * stream or to its launch, and the synchronisation edges: a stream or
 * device sync waits for the last kernel(s), cudaEventSynchronize and
 * cudaStreamWaitEvent wait for the last kernel launched on the recorded
 * stream before the event was recorded. */
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"

/* HTA's kernel-kernel gaps beyond this are not gaps (an unrecorded
 * dependency): 1.5 ms. */
#define KERNEL_GAP_LIMIT_US 1500

static const char *const launch_calls[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
    "cudaMemcpyAsync", "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
    "hipMemcpyWithStream", NULL,
};

/* Per interned name: 1 for a launching call's name, so that the passes
 * over every row test a byte, not a dozen names. */
static uint8_t *launch_names(const vp_critpath *cp)
{
    uint8_t *ln = vp_calloc(cp->nnames + 1, 1);
    for (const char *const *l = launch_calls; *l; l++) {
        void *v = vp_strmap_get(cp->intern, *l, strlen(*l));
        if (v)
            ln[(uintptr_t)v - 1] = 1;
    }
    return ln;
}

static int is_launch(const uint8_t *ln, const vp_cp_row *r)
{
    return r->icorr > 0 && ln[r->name];
}

typedef struct qev {
    int64_t ts;
    int32_t stream, order, row;
    int32_t delta;
} qev;

static int cmp_qev(const void *a, const void *b)
{
    const qev *x = a, *y = b;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->order - y->order;
}

#define NO_QUEUE INT32_MIN

/* HTA's queue length per stream over the whole trace: +1 when a launch
 * starts, -1 when its kernel starts; the value after each row's step. */
static int32_t *queue_lengths(const vp_critpath *cp, const uint8_t *ln)
{
    int32_t *q = vp_malloc((cp->nrows + 1) * sizeof *q);
    /* the maps and the steps sized by the rows that go in them (a map of
     * every row was this pass's peak) */
    size_t ngpu = 0, nlaunch = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        q[i] = NO_QUEUE;
        ngpu += cp->rows[i].stream != -1;
        nlaunch += is_launch(ln, &cp->rows[i]);
    }
    vp_cp_imap gpu, launch;
    vp_cp_imap_init(&gpu, ngpu);
    vp_cp_imap_init(&launch, nlaunch);
    for (size_t i = 0; i < cp->nrows; i++) {
        if (cp->rows[i].stream != -1)
            vp_cp_imap_put(&gpu, cp->rows[i].corr, (int32_t)i);
        if (is_launch(ln, &cp->rows[i]))
            vp_cp_imap_put(&launch, cp->rows[i].corr, (int32_t)i);
    }
    qev *ev = vp_malloc((ngpu + nlaunch + 1) * sizeof *ev);
    size_t n = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        int32_t k;
        if (is_launch(ln, r) && (k = vp_cp_imap_get(&gpu, r->corr)) >= 0) {
            ev[n] = (qev){r->ts, cp->rows[k].stream, (int32_t)n, (int32_t)i, 1};
            n++;   /* apart: order is n before the increment, in any compiler */
        }
    }
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        if (r->stream != -1 && vp_cp_imap_get(&launch, r->corr) >= 0) {
            ev[n] = (qev){r->ts, r->stream, (int32_t)n, (int32_t)i, -1};
            n++;
        }
    }
    qsort(ev, n, sizeof *ev, cmp_qev);
    int32_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || ev[i].stream != ev[i - 1].stream)
            len = 0;
        len += ev[i].delta;
        q[ev[i].row] = len;
    }
    free(ev);
    vp_cp_imap_free(&gpu);
    vp_cp_imap_free(&launch);
    return q;
}

/* Launches of GPU work HTA can place (its _get_cuda_runtime_calls_df):
 * in time order, with the device, stream and thread of each. */
typedef struct launch {
    int64_t a, b, c;    /* the grouping key: (gpu, stream, 0) or (pid, tid, stream) */
    int64_t ts;
    int32_t id, row;
} launch;

static int cmp_launch(const void *x_, const void *y_)
{
    const launch *x = x_, *y = y_;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->id - y->id;
}

static const vp_critpath *ts_ctx;

/* By time, then row (a stable sort by time). */
static int cmp_by_ts(const void *x_, const void *y_)
{
    int32_t x = *(const int32_t *)x_, y = *(const int32_t *)y_;
    if (ts_ctx->rows[x].ts != ts_ctx->rows[y].ts)
        return ts_ctx->rows[x].ts < ts_ctx->rows[y].ts ? -1 : 1;
    return x - y;
}

static int is_placed_kernel(const vp_critpath *cp, int32_t k)
{
    return k >= 0 && cp->rows[k].stream != -1 && cp->rows[k].icorr > 0;
}

/* The launches in time order (stable), numbered. */
static int32_t *launches_by_ts(const vp_critpath *cp, const uint8_t *ln, size_t *n)
{
    int32_t *l = vp_malloc((cp->nrows + 1) * sizeof *l);
    *n = 0;
    for (size_t i = 0; i < cp->nrows; i++)
        if (is_launch(ln, &cp->rows[i]) && is_placed_kernel(cp, cp->rows[i].partner))
            l[(*n)++] = (int32_t)i;
    ts_ctx = cp;
    qsort(l, *n, sizeof *l, cmp_by_ts);
    return l;
}

/* Last entry of sorted[0..n) with key (a, b, c) and ts <= t (or < t when
 * strict is 0 and we look forward: first with ts > t).  -1 if none. */
static int32_t find_launch(const launch *s, size_t n, int64_t a, int64_t b, int64_t c, int64_t t,
                           int forward)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {   /* first entry with key > (a,b,c) or ts > t within the key */
        size_t mid = (lo + hi) / 2;
        const launch *m = &s[mid];
        int before = m->a != a ? m->a < a : m->b != b ? m->b < b : m->c != c ? m->c < c : m->ts <= t;
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (forward)
        return lo < n && s[lo].a == a && s[lo].b == b && s[lo].c == c ? s[lo].row : -1;
    return lo > 0 && s[lo - 1].a == a && s[lo - 1].b == b && s[lo - 1].c == c ? s[lo - 1].row : -1;
}

typedef struct sync_maps {
    vp_cp_imap record_prev;   /* cudaEventRecord correlation -> runtime row of the launch before */
    vp_cp_imap wait_next;     /* cudaStreamWaitEvent row -> runtime row of the launch after */
} sync_maps;

static void event_sync_maps(const vp_critpath *cp, const uint8_t *ln, sync_maps *m)
{
    size_t nl;
    int32_t *byts = launches_by_ts(cp, ln, &nl);
    launch *dev = vp_malloc((nl + 1) * sizeof *dev), *thr = vp_malloc((nl + 1) * sizeof *thr);
    for (size_t i = 0; i < nl; i++) {
        const vp_cp_row *r = &cp->rows[byts[i]], *k = &cp->rows[r->partner];
        dev[i] = (launch){k->pid, k->stream, 0, r->ts, (int32_t)i, byts[i]};
        thr[i] = (launch){r->pid, r->tid, k->stream, r->ts, (int32_t)i, byts[i]};
    }
    qsort(dev, nl, sizeof *dev, cmp_launch);
    qsort(thr, nl, sizeof *thr, cmp_launch);
    /* the maps sized by the rows that go in them: they stay in the cache
     * for every window, and sized by every row they were most of it */
    size_t nwait = 0, nrec = 0, nswe = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        nwait += r->wait_stream > -1;
        nrec += vp_cp_is_named(cp, r, "cudaEventRecord");
        nswe += vp_cp_is_named(cp, r, "cudaStreamWaitEvent");
    }
    /* the stream and device each recorded event is waited on */
    vp_cp_imap waited;
    vp_cp_imap_init(&waited, nwait);
    for (size_t i = 0; i < cp->nrows; i++)
        if (cp->rows[i].wait_stream > -1 && vp_cp_imap_get(&waited, cp->rows[i].wait_corr) < 0)
            vp_cp_imap_put(&waited, cp->rows[i].wait_corr, (int32_t)i);
    vp_cp_imap_init(&m->record_prev, nrec);
    vp_cp_imap_init(&m->wait_next, nswe);
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        int32_t w;
        if (vp_cp_is_named(cp, r, "cudaEventRecord") && (w = vp_cp_imap_get(&waited, r->corr)) >= 0) {
            const vp_cp_row *wr = &cp->rows[w];
            int32_t prev = find_launch(dev, nl, wr->pid, wr->wait_stream, 0, r->ts, 0);
            vp_cp_imap_put(&m->record_prev, r->corr, prev);
        } else if (vp_cp_is_named(cp, r, "cudaStreamWaitEvent") && is_placed_kernel(cp, r->partner)) {
            int32_t next = find_launch(thr, nl, r->pid, r->tid, cp->rows[r->partner].stream, r->ts, 1);
            vp_cp_imap_put(&m->wait_next, (int64_t)i, next);
        }
    }
    vp_cp_imap_free(&waited);
    free(thr);
    free(dev);
    free(byts);
}

/* The last node on each stream, in the order streams first appeared
 * (HTA's dict: a device sync waits for all of them in that order). */
typedef struct stream_last {
    int64_t stream;
    int32_t node;
} stream_last;

typedef struct kernel_pass {
    vp_cp_graph *g;
    const int32_t *q;
    sync_maps m;
    stream_last *last;
    size_t nlast;
    vp_cp_imap kernel_sync;   /* kernel row -> row of the kernel it waits for */
} kernel_pass;

static int32_t *last_on(kernel_pass *p, int64_t stream)
{
    for (size_t i = 0; i < p->nlast; i++)
        if (p->last[i].stream == stream)
            return &p->last[i].node;
    return NULL;
}

static void sync_edge(vp_cp_graph *g, int32_t gpu_node, int32_t runtime_row)
{
    if (runtime_row >= 0 && g->end_node[runtime_row] >= 0)
        vp_cp_add_edge(g, gpu_node, g->end_node[runtime_row], VP_CP_SYNC, 0);
}

static void cuda_sync(kernel_pass *p, int32_t row)
{
    vp_cp_graph *g = p->g;
    const vp_critpath *cp = g->cp;
    const vp_cp_row *r = &cp->rows[row];
    int wait = vp_cp_is_named(cp, r, "Stream Wait Event");
    if (wait || vp_cp_is_named(cp, r, "Event Sync")) {
        int32_t prev = r->wait_corr >= 0 ? vp_cp_imap_get(&p->m.record_prev, r->wait_corr) : -1;
        if (prev < 0)
            return;
        int32_t src = cp->rows[prev].partner;
        if (wait) {
            int32_t next = r->partner >= 0 ? vp_cp_imap_get(&p->m.wait_next, r->partner) : -1;
            if (next < 0 || cp->rows[next].partner < 0)
                return;
            vp_cp_imap_put(&p->kernel_sync, cp->rows[next].partner, src);
        } else if (src >= 0 && g->end_node[src] >= 0) {
            sync_edge(g, g->end_node[src], r->partner);
        }
        return;
    }
    if (r->partner < 0)
        return;
    if (vp_cp_is_named(cp, r, "Context Sync")) {
        for (size_t i = 0; i < p->nlast; i++)
            sync_edge(g, p->last[i].node, r->partner);
    } else if (vp_cp_is_named(cp, r, "Stream Sync")) {
        int32_t *l = last_on(p, r->stream);
        if (l)
            sync_edge(g, *l, r->partner);
    }
}

static void kernel(kernel_pass *p, int32_t row)
{
    vp_cp_graph *g = p->g;
    const vp_critpath *cp = g->cp;
    const vp_cp_row *r = &cp->rows[row];
    int32_t s = g->start_node[row], en = g->end_node[row];
    if (s < 0 || en < 0)
        return;
    vp_cp_attribute(g, vp_cp_add_edge(g, s, en, VP_CP_OPERATOR, 0), -1);
    int32_t sync = vp_cp_imap_get(&p->kernel_sync, row), sync_end = -1;
    int added = 0;
    if (sync >= 0) {
        sync_end = g->end_node[sync];
        if (sync_end < 0) {
            sync = -1;
        } else {
            vp_cp_add_edge(g, sync_end, s, VP_CP_SYNC, 0);
            added = 1;
        }
        vp_cp_imap_put(&p->kernel_sync, row, -1);
    }
    int32_t *last = last_on(p, r->stream);
    int32_t rt = r->partner;
    int64_t rt_ts = rt >= 0 ? cp->rows[rt].ts : 0;
    int32_t q_rt = rt >= 0 ? p->q[rt] : NO_QUEUE;
    if (q_rt == 1 && p->q[row] == 0 && (!last || g->nodes[*last].ts < rt_ts) &&
        (sync < 0 || g->nodes[sync_end].ts < rt_ts)) {
        if (rt >= 0 && g->start_node[rt] >= 0) {
            vp_cp_add_edge(g, g->start_node[rt], s, VP_CP_LAUNCH_DELAY, 0);
            added = 1;
        }
    } else if (last && g->nodes[s].ts - g->nodes[*last].ts < KERNEL_GAP_LIMIT_US &&
               (sync < 0 || g->nodes[sync_end].ts < g->nodes[*last].ts)) {
        vp_cp_attribute(g, vp_cp_add_edge(g, *last, s, VP_CP_KERNEL_DELAY, 0), -1);
        added = 1;
    }
    if (!added)
        g->no_edge++;
    if (last) {
        *last = en;
    } else {
        p->last = vp_realloc(p->last, (p->nlast + 1) * sizeof *p->last);
        p->last[p->nlast++] = (stream_last){r->stream, en};
    }
}

static const vp_critpath *sort_ctx;

/* Kernels by start, syncs by end (a stream sync overlapping a memcpy
 * comes after it); stable. */
static int64_t sort_key(const vp_critpath *cp, int32_t i)
{
    const vp_cp_row *r = &cp->rows[i];
    return r->kind == VP_EV_SYNC ? r->ts + r->dur : r->ts;
}

static int cmp_gpu(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    int64_t kx = sort_key(sort_ctx, x), ky = sort_key(sort_ctx, y);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return x - y;
}

/* The queue lengths and the event-record maps are the whole trace's,
 * whatever the window: made once per trace, kept for the next window
 * (summary --critical-path asks for every step). */
typedef struct gpu_cache {
    int32_t *q;
    sync_maps m;
} gpu_cache;

void vp_cp_gpu_cache_free(vp_critpath *cp)
{
    gpu_cache *c = cp->gpu_cache;
    if (!c)
        return;
    free(c->q);
    vp_cp_imap_free(&c->m.record_prev);
    vp_cp_imap_free(&c->m.wait_next);
    free(c);
    cp->gpu_cache = NULL;
}

void vp_cp_kernel_edges(vp_cp_graph *g)
{
    vp_critpath *cp = g->cp;
    if (!cp->gpu_cache) {
        gpu_cache *c = vp_calloc(1, sizeof *c);
        uint8_t *ln = launch_names(cp);
        c->q = queue_lengths(cp, ln);
        event_sync_maps(cp, ln, &c->m);
        free(ln);
        cp->gpu_cache = c;
    }
    gpu_cache *c = cp->gpu_cache;
    kernel_pass p = {.g = g, .q = c->q, .m = c->m};
    int32_t *rows = vp_malloc((cp->nrows + 1) * sizeof *rows);
    size_t n = 0, nwaits = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        if (g->clipped[i] && r->icorr >= 0 &&
            (r->stream != -1 || vp_cp_is_named(cp, r, "Event Sync") ||
             vp_cp_is_named(cp, r, "Context Sync"))) {
            rows[n++] = (int32_t)i;
            nwaits += vp_cp_is_named(cp, r, "Stream Wait Event");
        }
    }
    /* a key per Stream Wait Event at most (a kernel's own entry is only
     * ever reset) */
    vp_cp_imap_init(&p.kernel_sync, nwaits);
    sort_ctx = cp;
    qsort(rows, n, sizeof *rows, cmp_gpu);
    for (size_t i = 0; i < n; i++) {
        if (cp->rows[rows[i]].kind == VP_EV_SYNC)
            cuda_sync(&p, rows[i]);
        else
            kernel(&p, rows[i]);
    }
    free(rows);
    free(p.last);
    vp_cp_imap_free(&p.kernel_sync);
}
