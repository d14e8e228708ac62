/* Where each step's time goes, and the idle-time breakdown
 * (vprof/breakdown.h). */
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_partial.h"
#include "vprof/breakdown.h"
#include "vprof/classify.h"
#include "vprof/intervals.h"

/* CPU annotations of the phases, as interval sets. */
typedef struct phases {
    vp_ivset data, opt, bwd;
} phases;

int vp_breakdown_is_cpu(int c)
{
    return c == VP_BD_CPU || c == VP_BD_DATA || c == VP_BD_FWD || c == VP_BD_BWD || c == VP_BD_OPT;
}

void vp_breakdown_init(vp_breakdown *b)
{
    memset(b, 0, sizeof *b);
    phases *ph = vp_malloc(sizeof *ph);
    vp_ivset_init(&ph->data);
    vp_ivset_init(&ph->opt);
    vp_ivset_init(&ph->bwd);
    b->phases = ph;
}

void vp_breakdown_free(vp_breakdown *b)
{
    phases *ph = b->phases;
    if (ph) {
        vp_ivset_free(&ph->data);
        vp_ivset_free(&ph->opt);
        vp_ivset_free(&ph->bwd);
        free(ph);
    }
    vp_stt_free(&b->stt);
    vp_origins_free(&b->origins);
    free(b->rows);
    free(b->irows);
    free(b->trows);
    memset(b, 0, sizeof *b);
}

static int starts_with(vp_span s, const char *lit, size_t n)
{
    return s.n >= n && memcmp(s.p, lit, n) == 0;
}

void vp_breakdown_observe(void *ctx, vp_gpuwork *w, long gpu_index, const vp_event *ev)
{
    (void)w;
    if (gpu_index >= 0 || ev->ph != 'X' || !ev->has_ts || !ev->has_dur || ev->name.n < 9)
        return;
    phases *ph = ((vp_breakdown *)ctx)->phases;
    int64_t a = ev->ts, b = ev->ts + ev->dur;
    if (ev->name.p[0] == 'e' && starts_with(ev->name, "enumerate(DataLoader)", 21)) {
        /* enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ */
        vp_ivset_add(&ph->data, a, b);
    } else if (ev->name.p[0] == 'O' && starts_with(ev->name, "Optimizer.step#", 15)) {
        vp_ivset_add(&ph->opt, a, b);
    } else if (vp_is_autograd_op(ev->name) && vp_event_kind(ev->cat, ev->name) == VP_EV_CPU_OP) {
        /* the autograd engine's ops: its evaluate_function wrappers, or,
         * where torch (1.8-1.10) records no wrappers, the nodes themselves */
        vp_ivset_add(&ph->bwd, a, b);
    }
}

/* Appends one zeroed element to an array of elements of size sz. */
static void *grow(void **v, size_t *n, size_t *cap, size_t sz, size_t first)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : first;
        *v = vp_realloc(*v, *cap * sz);
    }
    char *e = (char *)*v + (*n)++ * sz;
    memset(e, 0, sz);
    return e;
}

static vp_step_row *new_row(vp_breakdown *b)
{
    return grow((void **)&b->rows, &b->nrows, &b->cap_rows, sizeof *b->rows, 64);
}

static void gpu_columns(vp_step_row *r, const vp_gpu_totals *t)
{
    r->v[VP_BD_SPAN] = t->span;
    r->v[VP_BD_BUSY] = t->busy;
    r->v[VP_BD_COMPUTE] = t->compute;
    r->v[VP_BD_EXPOSED] = t->exposed;
    r->v[VP_BD_MEMORY] = t->memory_exposed;
    r->v[VP_BD_IDLE] = t->idle;
    r->v[VP_BD_KERNELS] = (int64_t)t->kernels;
}

/* The CPU phases of the window [a, b). */
static void cpu_columns(vp_step_row *r, phases *ph, int64_t a, int64_t b, vp_ivset *tmp)
{
    r->v[VP_BD_CPU] = b - a;
    r->v[VP_BD_DATA] = vp_ivset_measure_in(&ph->data, a, b);
    r->v[VP_BD_OPT] = vp_ivset_measure_in(&ph->opt, a, b);
    /* The backward pass: from the first autograd op that starts in the
     * step to the last end of one, less what the other phases cover. */
    vp_ivset_normalize(&ph->bwd);
    int64_t b0 = b, b1 = b;
    size_t lo = 0, hi = ph->bwd.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ph->bwd.v[mid].start < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ph->bwd.n && ph->bwd.v[lo].start < b) {
        b0 = ph->bwd.v[lo].start;
        b1 = b0;
        for (size_t i = lo; i < ph->bwd.n && ph->bwd.v[i].start < b; i++)
            if (ph->bwd.v[i].end > b1)
                b1 = ph->bwd.v[i].end;
        if (b1 > b)
            b1 = b;
    }
    /* tmp = data ∪ opt, clipped to nothing: measured inside windows. */
    vp_ivset_union(&ph->data, &ph->opt, tmp);
    r->v[VP_BD_BWD] = (b1 - b0) - vp_ivset_measure_in(tmp, b0, b1);
    r->v[VP_BD_FWD] = (b0 - a) - vp_ivset_measure_in(tmp, a, b0);
}

/* Events grouped by step, a counting sort of indices: the events of key
 * k = step + 1 (0: launched in no step) are idx[f[k] .. f[k+1]). */
static uint32_t *by_step(const vp_gpuwork *w, size_t nsteps, size_t **first)
{
    size_t *f = vp_calloc(nsteps + 2, sizeof *f);
    for (size_t i = 0; i < w->n; i++)
        f[(size_t)(w->ev[i].step + 1) + 1]++;
    for (size_t i = 1; i < nsteps + 2; i++)
        f[i] += f[i - 1];
    uint32_t *idx = vp_malloc((w->n ? w->n : 1) * sizeof *idx);
    size_t *pos = vp_malloc((nsteps + 2) * sizeof *pos);
    memcpy(pos, f, (nsteps + 2) * sizeof *pos);
    for (size_t i = 0; i < w->n; i++)
        idx[pos[w->ev[i].step + 1]++] = (uint32_t)i;
    free(pos);
    *first = f;
    return idx;
}

/* A kernel that ran shorter than its own launch call. */
static int is_short(const vp_gpuwork *w, const vp_gpu_ev *g)
{
    int64_t ts, dur;
    return g->kind == VP_GPU_KERNEL && vp_steps_launch(w->steps, g->corr, &ts, &dur) &&
           g->end - g->start < dur;
}

static void forget_phases(phases *ph)
{
    ph->data.n = ph->opt.n = ph->bwd.n = 0;
    ph->data.normalized = ph->opt.normalized = ph->bwd.normalized = 0;
}

void vp_breakdown_add_world(vp_breakdown *b, const vp_gpuwork *w, long world)
{
    if (world <= 1 || !w->n)
        return;
    for (size_t i = 0; i < w->n; i++)
        if (w->ev[i].cls == VP_CLASS_COMM)
            return;
    b->comm_unseen++;
}

void vp_breakdown_add_steps(vp_breakdown *b, vp_gpuwork *w, long rank, int selected_only)
{
    phases *ph = b->phases;
    size_t nsteps = vp_steps_count(w->steps);
    vp_gpu_sets sets;
    vp_gpu_sets_init(&sets);
    vp_ivset tmp;
    vp_ivset_init(&tmp);
    vp_gpu_totals t;
    b->nfiles++;
    if (nsteps == 0) {
        b->no_steps_files++;
        vp_step_row *r = new_row(b);
        r->rank = rank;
        r->step = -1;
        vp_gpu_measure(&sets, w->ev, NULL, w->n, &t);
        gpu_columns(r, &t);
        for (size_t i = 0; i < w->n; i++)
            r->v[VP_BD_SHORT] += w->ev[i].corr >= 0 && is_short(w, &w->ev[i]);
    } else {
        size_t *f;
        uint32_t *idx = by_step(w, nsteps, &f);
        b->outside += f[1];
        for (size_t i = 0; i < nsteps; i++) {
            int64_t s0, s1;
            if (vp_steps_window(w->steps, i, &s0, &s1) != 1 && selected_only)
                continue;
            vp_step_row *r = new_row(b);
            r->rank = rank;
            r->step = vp_steps_number(w->steps, i);
            r->has_cpu = 1;
            size_t from = f[i + 1], to = f[i + 2];
            vp_gpu_measure(&sets, w->ev, idx + from, to - from, &t);
            if (to == from)
                b->empty_steps++;
            gpu_columns(r, &t);
            cpu_columns(r, ph, s0, s1, &tmp);
            for (size_t k = from; k < to; k++)
                r->v[VP_BD_SHORT] += is_short(w, &w->ev[idx[k]]);
        }
        free(idx);
        free(f);
    }
    vp_ivset_free(&tmp);
    vp_gpu_sets_free(&sets);
    forget_phases(ph);
}

typedef struct idle_ev {
    int64_t stream, start, end, launch;   /* launch: INT64_MIN when unknown */
} idle_ev;

static int cmp_idle_ev(const void *a, const void *b)
{
    const idle_ev *x = a, *y = b;
    if (x->stream != y->stream)
        return (x->stream > y->stream) - (x->stream < y->stream);
    if (x->start != y->start)
        return (x->start > y->start) - (x->start < y->start);
    return (x->end > y->end) - (x->end < y->end);
}

void vp_breakdown_add_idle(vp_breakdown *b, vp_gpuwork *w, long rank, int64_t kernel_wait)
{
    b->nfiles++;
    vp_temporal_row *tr = grow((void **)&b->trows, &b->ntrows, &b->cap_trows, sizeof *b->trows, 8);
    tr->rank = rank;
    vp_gpu_sets sets;
    vp_gpu_sets_init(&sets);
    vp_gpu_measure(&sets, w->ev, NULL, w->n, &tr->t);
    vp_gpu_sets_free(&sets);

    idle_ev *v = vp_malloc((w->n ? w->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < w->n; i++) {
        const vp_gpu_ev *g = &w->ev[i];
        if (g->kind == VP_GPU_SYNC)
            continue;
        int64_t ts = INT64_MIN;
        if (g->corr < 0 || !vp_steps_launch(w->steps, g->corr, &ts, NULL))
            ts = INT64_MIN;
        v[n++] = (idle_ev){g->stream, g->start, g->end, ts};
    }
    qsort(v, n, sizeof *v, cmp_idle_ev);
    for (size_t i = 0; i < n;) {
        vp_idle_row *r = grow((void **)&b->irows, &b->nirows, &b->cap_irows, sizeof *b->irows, 16);
        r->rank = rank;
        r->stream = v[i].stream;
        int64_t end = v[i].end;
        size_t j = i + 1;
        for (; j < n && v[j].stream == v[i].stream; j++) {
            int64_t gap = v[j].start - end;
            if (gap > 0) {
                if (v[j].launch != INT64_MIN && v[j].launch > end)
                    r->host += gap;
                else if (gap < kernel_wait)
                    r->kernel += gap;
                else
                    r->other += gap;
            }
            if (v[j].end > end)
                end = v[j].end;
        }
        i = j;
    }
    free(v);
}

/* The payload (docs/partials.md, "steps"): the rows of each table as the
 * files gave them (the per-step rows of all ranks are merged only when the
 * tables are built), the counters of the notes, and step_trace_time rows
 * (computed from Ascend traces, or read from step_trace_time.csv, cluster
 * files and DBs) with the parallel groups of the stage rows (version 2). */
void vp_breakdown_save(const vp_breakdown *b, vp_buf *out)
{
    vp_put_u64(out, b->nfiles);
    vp_put_u64(out, b->nrows);
    for (size_t i = 0; i < b->nrows; i++) {
        const vp_step_row *r = &b->rows[i];
        vp_put_i64(out, r->rank);
        vp_put_i64(out, r->step);
        vp_put_u64(out, (uint64_t)r->has_cpu);
        for (int k = 0; k < VP_BD_COUNT; k++)
            vp_put_i64(out, r->v[k]);
    }
    vp_put_u64(out, b->nirows);
    for (size_t i = 0; i < b->nirows; i++) {
        const vp_idle_row *r = &b->irows[i];
        const int64_t v[] = {r->rank, r->stream, r->host, r->kernel, r->other};
        for (size_t k = 0; k < 5; k++)
            vp_put_i64(out, v[k]);
    }
    vp_put_u64(out, b->ntrows);
    for (size_t i = 0; i < b->ntrows; i++) {
        const vp_temporal_row *r = &b->trows[i];
        vp_put_i64(out, r->rank);
        vp_gpu_totals_put(out, &r->t);
    }
    vp_put_u64(out, b->outside);
    vp_put_u64(out, b->empty_steps);
    vp_put_u64(out, (uint64_t)b->no_steps_files);
    vp_put_u64(out, b->comm_unseen);
    vp_stt_save(&b->stt, b->stt_source, out);
    vp_origins_save(&b->origins, out);
}

int vp_breakdown_merge(vp_breakdown *b, const void *p, size_t n, vp_error *err)
{
    vp_rd r;
    vp_rd_init(&r, p, n);
    b->nfiles += (size_t)vp_get_u64(&r);
    size_t nr = vp_get_count(&r, 3 + VP_BD_COUNT);
    for (size_t i = 0; i < nr && !r.bad; i++) {
        vp_step_row *row = new_row(b);
        row->rank = (long)vp_get_i64(&r);
        row->step = (long)vp_get_i64(&r);
        row->has_cpu = vp_get_u64(&r) != 0;
        for (int k = 0; k < VP_BD_COUNT; k++)
            row->v[k] = vp_get_i64(&r);
    }
    size_t ni = vp_get_count(&r, 5);
    for (size_t i = 0; i < ni && !r.bad; i++) {
        vp_idle_row *row = grow((void **)&b->irows, &b->nirows, &b->cap_irows, sizeof *b->irows, 8);
        row->rank = (long)vp_get_i64(&r);
        row->stream = vp_get_i64(&r);
        row->host = vp_get_i64(&r);
        row->kernel = vp_get_i64(&r);
        row->other = vp_get_i64(&r);
    }
    size_t nt = vp_get_count(&r, 16);
    for (size_t i = 0; i < nt && !r.bad; i++) {
        vp_temporal_row *row =
            grow((void **)&b->trows, &b->ntrows, &b->cap_trows, sizeof *b->trows, 8);
        row->rank = (long)vp_get_i64(&r);
        vp_gpu_totals_get(&r, &row->t);
    }
    b->outside += vp_get_u64(&r);
    b->empty_steps += vp_get_u64(&r);
    b->no_steps_files += (int)vp_get_u64(&r);
    b->comm_unseen += vp_get_u64(&r);
    if (!r.bad)
        vp_stt_merge(&b->stt, &b->stt_source, &r);
    if (!r.bad)
        vp_origins_merge(&b->origins, &r);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged steps partial result");
        return -1;
    }
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    const vp_step_row *x = a, *y = b;
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    return (x->rank > y->rank) - (x->rank < y->rank);
}

void vp_breakdown_max_over_ranks(vp_breakdown *b)
{
    if (b->nrows)
        qsort(b->rows, b->nrows, sizeof *b->rows, cmp_row);
    size_t w = 0;
    for (size_t i = 0; i < b->nrows; i++) {
        if (w && b->rows[w - 1].step == b->rows[i].step) {
            vp_step_row *d = &b->rows[w - 1];
            for (int c = 0; c < VP_BD_COUNT; c++)
                if (b->rows[i].v[c] > d->v[c])
                    d->v[c] = b->rows[i].v[c];
            d->has_cpu |= b->rows[i].has_cpu;
        } else {
            b->rows[w++] = b->rows[i];
        }
    }
    b->nrows = w;
}

static int cmp_idle_row(const void *a, const void *b)
{
    const vp_idle_row *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->stream > y->stream) - (x->stream < y->stream);
}

void vp_breakdown_sort_idle(vp_breakdown *b)
{
    if (b->nirows)
        qsort(b->irows, b->nirows, sizeof *b->irows, cmp_idle_row);
}

int vp_breakdown_summary(const vp_breakdown *b, int c, vp_summary *out)
{
    int64_t *v = vp_malloc((b->nrows ? b->nrows : 1) * sizeof *v);
    size_t n = 0;
    int cpu = vp_breakdown_is_cpu(c);
    for (size_t i = 0; i < b->nrows; i++)
        if (!cpu || b->rows[i].has_cpu)
            v[n++] = b->rows[i].v[c];
    vp_summarize(v, n, out);
    free(v);
    return n > 0;
}
