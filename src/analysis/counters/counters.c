/* Queue length and memory bandwidth series (vprof/counters.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/counters.h"
#include "vprof/htatime.h"
#include "vprof/json.h"
#include "vprof/corrjoin.h"
#include "vprof/rank.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"
#include "vprof/util.h"

/* A GPU event with a stream, held until the file's end. */
typedef struct gpu_ev {
    int64_t corr, ts, dur, stream, pid, tid;
    double bw;
    int has_corr;
    char kind[16];   /* "" when not memory work */
} gpu_ev;

/* A launching call of HTA's set. */
typedef struct call_ev {
    int64_t corr, ts;
} call_ev;

typedef struct pass {
    vp_counters *c;
    long rank;
    vp_steps *steps;    /* the pass's, with --steps */
    gpu_ev *ev;
    size_t nev, cap;
    call_ev *calls;
    size_t ncalls, cap_calls;
    int fractional;   /* a ts off the whole us: HTA rounds every time */
} pass;

static int64_t span_int(vp_span s, int64_t dflt)
{
    int64_t v;
    return s.p && vp_json_int(s, &v) == 0 ? v : dflt;
}

static void take_event(void *ctx, const vp_event *ev)
{
    pass *p = ctx;
    int64_t corr;
    if (ev->has_ts && ev->ts % 1000 != 0)
        p->fractional = 1;
    if (vp_launch_correlation(ev, &corr)) {
        if (vp_counters_hta_launch(ev->name.p, ev->name.n) && ev->has_dur) {
            if (p->ncalls == p->cap_calls) {
                p->cap_calls = p->cap_calls ? p->cap_calls * 2 : 4096;
                p->calls = vp_realloc(p->calls, p->cap_calls * sizeof *p->calls);
            }
            p->calls[p->ncalls++] = (call_ev){corr, ev->ts};
        }
        return;
    }
    vp_span v;
    int64_t stream;
    if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur || !ev->args.p ||
        !vp_json_get(ev->args, "stream", &v) || vp_json_int(v, &stream) != 0 || stream == -1)
        return;
    if (p->nev == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 4096;
        p->ev = vp_realloc(p->ev, p->cap * sizeof *p->ev);
    }
    gpu_ev *g = &p->ev[p->nev++];
    memset(g, 0, sizeof *g);
    g->ts = ev->ts;
    g->dur = ev->dur;
    g->stream = stream;
    g->pid = span_int(ev->pid, -1);
    g->tid = span_int(ev->tid, -1);
    g->has_corr = vp_gpu_correlation(ev, &g->corr);
    const char *kind = vp_counters_copy_kind(ev->name.p, ev->name.n);
    if (kind) {
        snprintf(g->kind, sizeof g->kind, "%s", kind);
        /* HTA's default for a missing "memory bandwidth (GB/s)" is 0.0 */
        if (!vp_json_get(ev->args, "memory bandwidth (GB/s)", &v) || vp_json_double(v, &g->bw) != 0)
            g->bw = 0.0;
    }
}

/* HTA's times as it sorts them: on a trace with a fractional ts, rounded
 * as vprof/htatime.h says; else the exact times keep the same order. */
static int64_t start_key(const pass *p, int64_t ts)
{
    return p->fractional ? (int64_t)ceil(vp_hta_us(ts)) : ts;
}

/* The end of a copy: HTA's ts + dur, where a 0 dur is 1 us. */
static int64_t end_key(const pass *p, const gpu_ev *g)
{
    if (!p->fractional)
        return g->ts + (g->dur == 0 ? 1000 : g->dur);
    int64_t ts, end;
    vp_hta_round(g->ts, g->dur, &ts, &end);
    return end == ts ? ts + 1 : end;
}

/* One change of a series, in HTA's concatenation order. */
typedef struct point {
    int64_t ts;           /* the event's time (ns) */
    double delta;
    uint32_t series;      /* index into the file's series */
} point;

static vp_cseries *new_series(vp_cseries **arr, size_t *n, long rank, int64_t stream,
                              const char *name, const gpu_ev *g)
{
    *arr = vp_realloc(*arr, (*n + 1) * sizeof **arr);
    vp_cseries *s = &(*arr)[(*n)++];
    memset(s, 0, sizeof *s);
    s->rank = rank;
    s->stream = stream;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->pid = g->pid;
    s->tid = name[0] ? -1 : g->tid;
    return s;
}

static void push(vp_cseries *s, int64_t ts, double v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->ts = vp_realloc(s->ts, s->cap * sizeof *s->ts);
        s->v = vp_realloc(s->v, s->cap * sizeof *s->v);
    }
    s->ts[s->n] = ts;
    s->v[s->n++] = v;
}

/* HTA: sort_values("ts") of the concatenation (numpy's quicksort, whose
 * order of equal times is its own), then a cumsum per series in that
 * order. */
static void accumulate(const point *pts, const int64_t *keys, size_t n, vp_cseries *first,
                       size_t nseries)
{
    size_t *order = vp_malloc((n + 1) * sizeof *order);
    double *sum = vp_calloc(nseries + 1, sizeof *sum);
    vp_np_argsort_i64(keys, order, n);
    for (size_t i = 0; i < n; i++) {
        const point *pt = &pts[order[i]];
        sum[pt->series] += pt->delta;
        push(&first[pt->series], pt->ts, sum[pt->series]);
    }
    free(sum);
    free(order);
}

static int selected(const pass *p, int64_t corr, int has_corr)
{
    return !p->steps || (has_corr && vp_steps_selected(p->steps, corr));
}

/* Finds (or makes) the series of this rank keyed by stream or kind. */
static uint32_t series_of(vp_counters *c, int bw, size_t first, long rank, const gpu_ev *g)
{
    vp_cseries **arr = bw ? &c->bw : &c->queue;
    size_t *n = bw ? &c->nbw : &c->nqueue;
    for (size_t i = first; i < *n; i++)
        if (bw ? strcmp((*arr)[i].name, g->kind) == 0 : (*arr)[i].stream == g->stream)
            return (uint32_t)(i - first);
    new_series(arr, n, rank, bw ? -1 : g->stream, bw ? g->kind : "", g);
    return (uint32_t)(*n - 1 - first);
}

static int cmp_size(const void *a, const void *b)
{
    const vp_corr_work *x = a, *y = b;
    return (x->dur > y->dur) - (x->dur < y->dur);
}

/* The queue: HTA's runtime calls joined to their GPU events (one row per
 * GPU event, in call order), then the GPU events launched by those calls,
 * in trace order. */
static void build_queue(pass *p)
{
    vp_counters *c = p->c;
    size_t q0 = c->nqueue, n = 0;
    vp_corrjoin *gpu = vp_corrjoin_new(), *launched = vp_corrjoin_new();
    for (size_t i = 0; i < p->nev; i++)
        if (p->ev[i].has_corr && selected(p, p->ev[i].corr, 1))
            vp_corrjoin_work(gpu, p->ev[i].corr, (int64_t)i);
    size_t cap = 2 * p->nev + 1;
    point *pts = vp_malloc(cap * sizeof *pts);
    int64_t *keys = vp_malloc(cap * sizeof *keys);
    for (size_t i = 0; i < p->ncalls; i++) {
        const call_ev *call = &p->calls[i];
        if (!selected(p, call->corr, 1))
            continue;
        size_t k;
        vp_corr_work *w = (vp_corr_work *)vp_corrjoin_work_records(gpu, call->corr, &k);
        if (k > 1)   /* the join's order: the GPU events' */
            qsort(w, k, sizeof *w, cmp_size);
        for (size_t j = 0; j < k; j++) {
            if (n == cap) {
                cap *= 2;
                pts = vp_realloc(pts, cap * sizeof *pts);
                keys = vp_realloc(keys, cap * sizeof *keys);
            }
            uint32_t s = series_of(c, 0, q0, p->rank, &p->ev[w[j].dur]);
            keys[n] = start_key(p, call->ts);
            pts[n++] = (point){call->ts, 1.0, s};
        }
        if (k)
            vp_corrjoin_work(launched, call->corr, 1);
    }
    for (size_t i = 0; i < p->nev; i++) {
        const gpu_ev *g = &p->ev[i];
        if (!g->has_corr || !selected(p, g->corr, 1) || !vp_corrjoin_gpu_time(launched, g->corr))
            continue;
        if (n == cap) {
            cap *= 2;
            pts = vp_realloc(pts, cap * sizeof *pts);
            keys = vp_realloc(keys, cap * sizeof *keys);
        }
        uint32_t s = series_of(c, 0, q0, p->rank, g);
        keys[n] = start_key(p, g->ts);
        pts[n++] = (point){g->ts, -1.0, s};
    }
    accumulate(pts, keys, n, c->queue + q0, c->nqueue - q0);
    free(pts);
    free(keys);
    vp_corrjoin_free(gpu);
    vp_corrjoin_free(launched);
}

/* The bandwidth: each copy's start (+bw), then each one's end (-bw), in
 * trace order. */
static void build_bandwidth(pass *p)
{
    vp_counters *c = p->c;
    size_t b0 = c->nbw, n = 0, ncopies = 0;
    for (size_t i = 0; i < p->nev; i++)
        ncopies += p->ev[i].kind[0] != 0;
    point *pts = vp_malloc((2 * ncopies + 1) * sizeof *pts);
    int64_t *keys = vp_malloc((2 * ncopies + 1) * sizeof *keys);
    for (int end = 0; end < 2; end++)
        for (size_t i = 0; i < p->nev; i++) {
            const gpu_ev *g = &p->ev[i];
            if (!g->kind[0] || !selected(p, g->corr, g->has_corr))
                continue;
            uint32_t s = series_of(c, 1, b0, p->rank, g);
            keys[n] = end ? end_key(p, g) : start_key(p, g->ts);
            pts[n++] = (point){end ? g->ts + g->dur : g->ts, end ? -g->bw : g->bw, s};
        }
    accumulate(pts, keys, n, c->bw + b0, c->nbw - b0);
    free(pts);
    free(keys);
}

static void build(pass *p)
{
    build_queue(p);
    build_bandwidth(p);
}

void vp_counters_init(vp_counters *c, const vp_counters_opts *o)
{
    memset(c, 0, sizeof *c);
    c->o = *o;
}

static void free_series(vp_cseries *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].ts);
        free(s[i].v);
    }
    free(s);
}

void vp_counters_free(vp_counters *c)
{
    free_series(c->queue, c->nqueue);
    free_series(c->bw, c->nbw);
    free(c->ranks);
    memset(c, 0, sizeof *c);
}

int vp_counters_read(vp_counters *c, const char *path, size_t position, vp_error *err)
{
    pass p = {.c = c};
    vp_trace_pass tp;
    vp_trace_pass_opts po = {.partial = c->o.partial, .range = c->o.steps,
                             .position = (long)position, .rank = -1};
    int r = vp_trace_pass_read(&tp, path, &po, take_event, &p, err);
    if (r == 0) {
        p.rank = tp.rank;
        p.steps = tp.steps;
        vp_trace_pass_warn(&tp, &(vp_trace_pass_warnings){
                                    .no_steps_kept = ", so no launch is counted"});
        c->ranks = vp_realloc(c->ranks, (c->nfiles + 1) * sizeof *c->ranks);
        c->ranks[c->nfiles++] = p.rank;
        size_t q0 = c->nqueue, b0 = c->nbw;
        build(&p);
        vp_trace_pass_say(c->o.say, "%s: rank %ld (from %s); %zu GPU events with a stream, "
                          "%zu queue series, %zu bandwidth series",
                          vp_trace_name(tp.trace), p.rank, vp_rank_source_name(tp.rank_from),
                          p.nev, c->nqueue - q0, c->nbw - b0);
    }
    free(p.ev);
    free(p.calls);
    vp_trace_pass_close(&tp);
    return r == 0 ? VP_EXIT_OK : VP_EXIT_INPUT;
}

static int cmp_series(const void *a, const void *b)
{
    const vp_cseries *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    if (x->stream != y->stream)
        return (x->stream > y->stream) - (x->stream < y->stream);
    return strcmp(x->name, y->name);
}

/* describe() of the points; for the bandwidth only those above 0. */
static void describe_all(vp_cseries *s, size_t n, int positive_only)
{
    for (size_t i = 0; i < n; i++) {
        double *keep = vp_realloc(NULL, (s[i].n + 1) * sizeof *keep);
        double *scratch = vp_realloc(NULL, (s[i].n + 1) * sizeof *scratch);
        size_t k = 0;
        for (size_t j = 0; j < s[i].n; j++)
            if (!positive_only || s[i].v[j] > 0)
                keep[k++] = s[i].v[j];
        vp_describe_doubles(keep, k, scratch, &s[i].stats);
        free(keep);
        free(scratch);
    }
}

void vp_counters_finish(vp_counters *c)
{
    if (c->nqueue)
        qsort(c->queue, c->nqueue, sizeof *c->queue, cmp_series);
    if (c->nbw)
        qsort(c->bw, c->nbw, sizeof *c->bw, cmp_series);
    describe_all(c->queue, c->nqueue, 0);
    describe_all(c->bw, c->nbw, 1);
}
