/* vprof steps: where each training step's time goes, on the CPU (data
 * loading, forward, backward, optimizer) and on the GPU (compute, exposed
 * communication, memory copies, idle), and with --idle HTA's temporal and
 * idle-time breakdowns. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/ascend_cmd.h"
#include "cmd/cli.h"
#include "cmd/scale.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_groups.h"
#include "vprof/ascend_stepwork.h"
#include "vprof/ascend_stt.h"
#include "vprof/ascend_summaries.h"
#include "vprof/ascend_tracks.h"
#include "vprof/classify.h"
#include "vprof/gpuwork.h"
#include "vprof/rank.h"
#include "vprof/stats.h"
#include "vprof/table.h"
#include "vprof/trace.h"
#include "vprof/util.h"

const char cmd_steps_usage[] =
    "usage: vprof steps [options] TRACE...\n"
    "\n"
    "A row per ProfilerStep#N: its CPU wall time, the GPU work it launched (joined on\n"
    "the correlation id) split into compute, exposed communication, memory copies and\n"
    "idle, its CPU phases (data loading, forward, backward, optimizer) and kernel\n"
    "counts; then mean, median, min and max over the steps. TRACE is a Chrome/Kineto\n"
    "trace, plain or gzip, or - for standard input; several files are ranks.\n"
    "\n"
    "Ascend profiles (docs/ascend.md): a *_ascend_pt directory, a folder of them, a\n"
    "PROF_* directory or cluster_analysis_output, or step_trace_time.csv itself: the\n"
    "step_trace_time table (Computing, Communication(Not Overlapped), Overlapped,\n"
    "Communication, Free, Stage, Bubble, ... with msprof-analyze's definitions) per\n"
    "rank and step, computed from trace_view.json or read from the CSV, and stage\n"
    "rows holding the maximum over the ranks.\n"
    "\n"
    "  --steps A:B        keep the steps ProfilerStep#A .. before #B (Python slice;\n"
    "                     ':-1' drops the last step as HTA does)\n"
    "  --per-rank         with several files, a row per rank and step (default: per\n"
    "                     step, the largest value over the ranks)\n"
    "  --idle             instead: HTA's temporal breakdown per rank and idle-time\n"
    "                     breakdown per rank and stream\n"
    "  --kernel-wait US   gaps shorter than this are kernel wait (--idle); microseconds,\n"
    "                     default 30 (HTA's consecutive_kernel_delay)\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --partial      accept a truncated trace, with a warning\n"
    "  -v, --verbose      say which rank each file is, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Columns (exact definitions in docs/steps.md): GPU Span = first start to last\n"
    "end of the step's GPU work; GPU Busy = |union|; Compute = |compute kernels|;\n"
    "Comm Exposed = |communication \\ compute|; Memory = |memcpy and memset \\ (compute\n"
    "∪ communication)|; GPU Idle = Span - Busy; Data Loading = DataLoader __next__\n"
    "annotations; Optimizer = Optimizer.step#* annotations; Backward = first to last\n"
    "autograd::engine op of the step, less the others; Forward = the step before\n"
    "Backward, less data loading and optimizer; Short Kernels = kernels that ran\n"
    "shorter than their own launch call (a sign of a launch-bound step).\n"
    "\n"
    "Examples:\n"
    "  vprof steps trace.json.gz\n"
    "  vprof steps --idle --steps :-1 -f csv trace.json.gz\n";

enum { OPT_PER_RANK = VP_OPT_FIRST_CMD, OPT_IDLE, OPT_KERNEL_WAIT };

/* The numeric columns of a step row, in table order. */
enum {
    V_CPU, V_SPAN, V_BUSY, V_COMPUTE, V_EXPOSED, V_MEMORY, V_IDLE,
    V_DATA, V_FWD, V_BWD, V_OPT, V_KERNELS, V_SHORT, V_COUNT
};
static const char *const v_title[V_COUNT] = {
    "CPU Time", "GPU Span", "GPU Busy", "Compute", "Comm Exposed", "Memory", "GPU Idle",
    "Data Loading", "Forward", "Backward", "Optimizer", "Kernels", "Short Kernels",
};

typedef struct step_row {
    long rank;
    long step;        /* ProfilerStep number; -1: the whole trace */
    int has_cpu;      /* CPU columns known (a step window exists) */
    int64_t v[V_COUNT];
} step_row;

typedef struct idle_row {
    long rank;
    int64_t stream;
    int64_t host, kernel, other;
} idle_row;

typedef struct temporal_row {
    long rank;
    vp_gpu_totals t;
} temporal_row;

typedef struct stepsc {
    vp_common_opts common;
    int per_rank, idle;
    size_t pos0;           /* the position of the first trace (its operand's) */
    int64_t kernel_wait;   /* ns */
    size_t nfiles;
    step_row *rows;
    size_t nrows, cap_rows;
    idle_row *irows;
    size_t nirows, cap_irows;
    temporal_row *trows;
    size_t ntrows, cap_trows;
    /* Ascend */
    long rank_override;
    vp_stt stt;
    const char *stt_source;
    int no_steps_files;
    uint64_t outside, empty_steps;
} stepsc;

/* CPU annotations of the phases, as interval sets. */
typedef struct phases {
    vp_ivset data, opt, bwd;
} phases;

static int starts_with(vp_span s, const char *lit, size_t n)
{
    return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static void take_phase(phases *ph, const vp_event *ev)
{
    if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur || ev->name.n < 14)
        return;
    int64_t a = ev->ts, b = ev->ts + ev->dur;
    switch (ev->name.p[0]) {
    case 'e':
        /* enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ */
        if (starts_with(ev->name, "enumerate(DataLoader)", 21))
            vp_ivset_add(&ph->data, a, b);
        break;
    case 'O':
        if (starts_with(ev->name, "Optimizer.step#", 15))
            vp_ivset_add(&ph->opt, a, b);
        break;
    case 'a':
        if (starts_with(ev->name, "autograd::engine::evaluate_function:", 36))
            vp_ivset_add(&ph->bwd, a, b);
        break;
    }
}

static step_row *new_row(stepsc *s)
{
    if (s->nrows == s->cap_rows) {
        s->cap_rows = s->cap_rows ? s->cap_rows * 2 : 64;
        s->rows = vp_realloc(s->rows, s->cap_rows * sizeof *s->rows);
    }
    step_row *r = &s->rows[s->nrows++];
    memset(r, 0, sizeof *r);
    return r;
}

static void gpu_columns(step_row *r, const vp_gpu_totals *t)
{
    r->v[V_SPAN] = t->span;
    r->v[V_BUSY] = t->busy;
    r->v[V_COMPUTE] = t->compute;
    r->v[V_EXPOSED] = t->exposed;
    r->v[V_MEMORY] = t->memory_exposed;
    r->v[V_IDLE] = t->idle;
    r->v[V_KERNELS] = (int64_t)t->kernels;
}

/* The CPU phases of the window [a, b). */
static void cpu_columns(step_row *r, phases *ph, int64_t a, int64_t b, vp_ivset *tmp)
{
    r->v[V_CPU] = b - a;
    r->v[V_DATA] = vp_ivset_measure_in(&ph->data, a, b);
    r->v[V_OPT] = vp_ivset_measure_in(&ph->opt, a, b);
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
    r->v[V_BWD] = (b1 - b0) - vp_ivset_measure_in(tmp, b0, b1);
    r->v[V_FWD] = (b0 - a) - vp_ivset_measure_in(tmp, a, b0);
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

static void step_rows(stepsc *s, vp_gpuwork *w, phases *ph, long rank)
{
    size_t nsteps = vp_steps_count(w->steps);
    vp_gpu_sets sets;
    vp_gpu_sets_init(&sets);
    vp_ivset tmp;
    vp_ivset_init(&tmp);
    vp_gpu_totals t;
    if (nsteps == 0) {
        s->no_steps_files++;
        step_row *r = new_row(s);
        r->rank = rank;
        r->step = -1;
        vp_gpu_measure(&sets, w->ev, NULL, w->n, &t);
        gpu_columns(r, &t);
        for (size_t i = 0; i < w->n; i++) {
            int64_t ts, dur;
            if (w->ev[i].kind == VP_GPU_KERNEL && w->ev[i].corr >= 0 &&
                vp_steps_launch(w->steps, w->ev[i].corr, &ts, &dur) &&
                w->ev[i].end - w->ev[i].start < dur)
                r->v[V_SHORT]++;
        }
    } else {
        size_t *f;
        uint32_t *idx = by_step(w, nsteps, &f);
        s->outside += f[1];
        for (size_t i = 0; i < nsteps; i++) {
            int64_t a, b;
            if (vp_steps_window(w->steps, i, &a, &b) != 1 && s->common.has_steps)
                continue;
            step_row *r = new_row(s);
            r->rank = rank;
            r->step = vp_steps_number(w->steps, i);
            r->has_cpu = 1;
            size_t from = f[i + 1], to = f[i + 2];
            vp_gpu_measure(&sets, w->ev, idx + from, to - from, &t);
            if (to == from)
                s->empty_steps++;
            gpu_columns(r, &t);
            cpu_columns(r, ph, a, b, &tmp);
            for (size_t k = from; k < to; k++) {
                const vp_gpu_ev *g = &w->ev[idx[k]];
                int64_t ts, dur;
                if (g->kind == VP_GPU_KERNEL && vp_steps_launch(w->steps, g->corr, &ts, &dur) &&
                    g->end - g->start < dur)
                    r->v[V_SHORT]++;
            }
        }
        free(idx);
        free(f);
    }
    vp_ivset_free(&tmp);
    vp_gpu_sets_free(&sets);
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

/* HTA's idle-time breakdown per stream, over kernels, memcpys and memsets:
 * each gap before an event is host wait when the event's launch call
 * started after the stream went idle (the CPU was late), else kernel wait
 * when shorter than the threshold, else other.  Where events overlap on a
 * stream the gap is taken from the latest end so far, and no gap is
 * counted (HTA would subtract the overlap as a negative gap). */
static void idle_rows(stepsc *s, vp_gpuwork *w, long rank)
{
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
        if (s->nirows == s->cap_irows) {
            s->cap_irows = s->cap_irows ? s->cap_irows * 2 : 16;
            s->irows = vp_realloc(s->irows, s->cap_irows * sizeof *s->irows);
        }
        idle_row *r = &s->irows[s->nirows++];
        memset(r, 0, sizeof *r);
        r->rank = rank;
        r->stream = v[i].stream;
        int64_t end = v[i].end;
        size_t j = i + 1;
        for (; j < n && v[j].stream == v[i].stream; j++) {
            int64_t gap = v[j].start - end;
            if (gap > 0) {
                if (v[j].launch != INT64_MIN && v[j].launch > end)
                    r->host += gap;
                else if (gap < s->kernel_wait)
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

static int read_file(stepsc *s, const char *path, size_t file)
{
    vp_error err = {0};
    vp_trace_opts topts = {.partial = s->common.partial, .progress = 1};
    vp_trace *t = vp_trace_open(path, &topts, &err);
    if (!t) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    vp_gpuwork w;
    vp_gpuwork_init(&w);
    phases ph;
    vp_ivset_init(&ph.data);
    vp_ivset_init(&ph.opt);
    vp_ivset_init(&ph.bwd);
    vp_event ev;
    int r;
    while ((r = vp_trace_next(t, &ev, &err)) == 1) {
        if (vp_gpuwork_observe(&w, &ev) < 0 && !s->idle)
            take_phase(&ph, &ev);
    }
    int status = VP_EXIT_OK;
    if (r < 0) {
        vp_error_print(&err);
        status = VP_EXIT_INPUT;
        goto done;
    }
    const char *name = vp_trace_name(t);
    size_t nsteps = vp_steps_count(w.steps);
    size_t chosen = vp_gpuwork_resolve(&w, s->common.has_steps ? &s->common.steps : NULL);
    if (s->common.has_steps && nsteps == 0)
        vp_warn("%s: --steps: the trace has no ProfilerStep#N annotations, so no GPU work is kept",
                name);
    else if (s->common.has_steps && chosen == 0)
        vp_warn("%s: --steps selects none of the steps present (ProfilerStep#%ld to #%ld)", name,
                vp_steps_number(w.steps, 0), vp_steps_number(w.steps, nsteps - 1));
    vp_rank_source rs;
    long rank = vp_rank_detect(vp_trace_meta(t), path, (long)(s->pos0 + file), &rs);
    if (s->rank_override >= 0)
        rank = s->rank_override;
    if (!s->idle && (vp_npu_tracks_seen(w.npu) || w.nslices)) {
        int slices = vp_stt_from_work(&w, rank, s->common.has_steps, &s->stt);
        s->stt_source = asc_stt_trace_source(slices);
    }
    if (s->idle) {
        vp_gpu_sets sets;
        vp_gpu_sets_init(&sets);
        if (s->ntrows == s->cap_trows) {
            s->cap_trows = s->cap_trows ? s->cap_trows * 2 : 8;
            s->trows = vp_realloc(s->trows, s->cap_trows * sizeof *s->trows);
        }
        temporal_row *tr = &s->trows[s->ntrows++];
        tr->rank = rank;
        vp_gpu_measure(&sets, w.ev, NULL, w.n, &tr->t);
        vp_gpu_sets_free(&sets);
        idle_rows(s, &w, rank);
    } else {
        step_rows(s, &w, &ph, rank);
    }
    if (w.no_dur)
        vp_warn("%s: %llu GPU events without \"dur\" were skipped", name,
                (unsigned long long)w.no_dur);
    if (s->common.verbose) {
        const vp_trace_stats *st = vp_trace_get_stats(t);
        fprintf(stderr, "vprof: %s: rank %ld (from %s); read %llu events in %llu bytes%s; %zu steps, "
                        "%zu GPU events kept\n",
                name, rank, vp_rank_source_name(rs), (unsigned long long)st->events,
                (unsigned long long)st->bytes, st->truncated ? " (truncated)" : "", nsteps, w.n);
    }
done:
    vp_ivset_free(&ph.data);
    vp_ivset_free(&ph.opt);
    vp_ivset_free(&ph.bwd);
    vp_gpuwork_free(&w);
    vp_trace_close(t);
    return status;
}

static vp_col_type v_type(int c)
{
    return c >= V_KERNELS ? VP_COL_INT : VP_COL_NS;
}

static int cmp_row(const void *a, const void *b)
{
    const step_row *x = a, *y = b;
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Several ranks without --per-rank: per step, the largest value over the
 * ranks (a step lasts as long as its slowest rank), as msprof-analyze's
 * cluster "stage" rows. */
static void merge_ranks(stepsc *s)
{
    if (s->nrows)
        qsort(s->rows, s->nrows, sizeof *s->rows, cmp_row);
    size_t w = 0;
    for (size_t i = 0; i < s->nrows; i++) {
        if (w && s->rows[w - 1].step == s->rows[i].step) {
            step_row *d = &s->rows[w - 1];
            for (int c = 0; c < V_COUNT; c++)
                if (s->rows[i].v[c] > d->v[c])
                    d->v[c] = s->rows[i].v[c];
            d->has_cpu |= s->rows[i].has_cpu;
        } else {
            s->rows[w++] = s->rows[i];
        }
    }
    s->nrows = w;
}

static vp_table *steps_table(stepsc *s, int rank_col)
{
    vp_table *t = vp_table_new("steps");
    if (rank_col)
        vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    int c0 = vp_table_add_col(t, "Step", VP_COL_INT, 0) + 1;
    for (int c = 0; c < V_COUNT; c++)
        vp_table_add_col(t, v_title[c], v_type(c), 0);
    for (size_t i = 0; i < s->nrows; i++) {
        const step_row *r = &s->rows[i];
        size_t row = vp_table_add_row(t);
        if (rank_col)
            vp_table_set_int(t, row, 0, r->rank);
        if (r->step >= 0)
            vp_table_set_int(t, row, c0 - 1, r->step);
        for (int c = 0; c < V_COUNT; c++) {
            int cpu = c == V_CPU || c == V_DATA || c == V_FWD || c == V_BWD || c == V_OPT;
            if (cpu && !r->has_cpu)
                continue;
            vp_table_set_int(t, row, c0 + c, r->v[c]);
        }
    }
    if (s->no_steps_files)
        vp_table_add_note(t, "%s no ProfilerStep#N annotations: one row for the whole trace, "
                             "without the CPU columns, which need step windows",
                          s->nfiles > 1 ? "some traces have" : "the trace has");
    if (s->outside && !s->common.has_steps)
        vp_table_add_note(t, "%llu GPU event%s launched outside every step (or by no recorded "
                             "launch call): in no row",
                          (unsigned long long)s->outside, s->outside == 1 ? " was" : "s were");
    if (s->empty_steps)
        vp_table_add_note(t, "%llu step%s launched no GPU work: %s GPU columns are 0",
                          (unsigned long long)s->empty_steps, s->empty_steps == 1 ? "" : "s",
                          s->empty_steps == 1 ? "its" : "their");
    if (s->nfiles > 1 && !rank_col)
        vp_table_add_note(t, "%zu ranks: each value is the largest over the ranks (--per-rank "
                             "for a row per rank)",
                          s->nfiles);
    return t;
}

static vp_table *summary_table(stepsc *s)
{
    vp_table *t = vp_table_new("summary");
    vp_table_add_col(t, "Statistic", VP_COL_TEXT, 0);
    for (int c = 0; c < V_COUNT; c++)
        vp_table_add_col(t, v_title[c], c >= V_KERNELS ? VP_COL_RATIO : VP_COL_NS_F, 1);
    static const char *const stats[] = {"mean", "median", "min", "max"};
    vp_summary sum[V_COUNT];
    int64_t *v = vp_malloc((s->nrows ? s->nrows : 1) * sizeof *v);
    int have[V_COUNT];
    for (int c = 0; c < V_COUNT; c++) {
        size_t n = 0;
        for (size_t i = 0; i < s->nrows; i++) {
            int cpu = c == V_CPU || c == V_DATA || c == V_FWD || c == V_BWD || c == V_OPT;
            if (!cpu || s->rows[i].has_cpu)
                v[n++] = s->rows[i].v[c];
        }
        have[c] = n > 0;
        vp_summarize(v, n, &sum[c]);
    }
    free(v);
    for (int k = 0; k < 4; k++) {
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, stats[k]);
        for (int c = 0; c < V_COUNT; c++) {
            if (!have[c])
                continue;
            double x = k == 0 ? sum[c].mean : k == 1 ? sum[c].median
                                          : k == 2 ? (double)sum[c].min
                                                   : (double)sum[c].max;
            vp_table_set_double(t, row, c + 1, x);
        }
    }
    return t;
}

static int cmp_idle_row(const void *a, const void *b)
{
    const idle_row *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->stream > y->stream) - (x->stream < y->stream);
}

static vp_table *temporal_table(stepsc *s)
{
    vp_table *t = vp_table_new("temporal");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Idle", VP_COL_NS, 0);
    vp_table_add_col(t, "Compute", VP_COL_NS, 0);
    vp_table_add_col(t, "Non-Compute", VP_COL_NS, 0);
    vp_table_add_col(t, "Span", VP_COL_NS, 0);
    vp_table_add_col(t, "Idle", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "Compute", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "Non-Compute", VP_COL_PERCENT, 2);
    for (size_t i = 0; i < s->ntrows; i++) {
        const temporal_row *r = &s->trows[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 0, r->rank);
        vp_table_set_int(t, row, 1, r->t.idle);
        vp_table_set_int(t, row, 2, r->t.compute);
        vp_table_set_int(t, row, 3, r->t.non_compute);
        vp_table_set_int(t, row, 4, r->t.span);
        if (r->t.span > 0) {
            double d = (double)r->t.span;
            vp_table_set_double(t, row, 5, 100.0 * (double)r->t.idle / d);
            vp_table_set_double(t, row, 6, 100.0 * (double)r->t.compute / d);
            vp_table_set_double(t, row, 7, 100.0 * (double)r->t.non_compute / d);
        } else {
            vp_table_add_note(t, "rank %ld: %s, so the percentages are empty (HTA raises an "
                                 "error)",
                              r->rank, r->t.events ? "the GPU work spans no time" : "no GPU work");
        }
    }
    vp_table_add_note(t, "Span = first start to last end of all GPU work; Idle = Span - |union|; "
                         "Compute = |compute kernels|; Non-Compute = the rest (HTA's "
                         "get_temporal_breakdown)");
    return t;
}

static vp_table *idle_table(stepsc *s)
{
    vp_table *t = vp_table_new("idle");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Stream", VP_COL_INT, 0);
    vp_table_add_col(t, "Idle", VP_COL_NS, 0);
    vp_table_add_col(t, "Host Wait", VP_COL_NS, 0);
    vp_table_add_col(t, "Kernel Wait", VP_COL_NS, 0);
    vp_table_add_col(t, "Other", VP_COL_NS, 0);
    vp_table_add_col(t, "Host Wait", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "Kernel Wait", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "Other", VP_COL_PERCENT, 2);
    if (s->nirows)
        qsort(s->irows, s->nirows, sizeof *s->irows, cmp_idle_row);
    for (size_t i = 0; i < s->nirows; i++) {
        const idle_row *r = &s->irows[i];
        size_t row = vp_table_add_row(t);
        int64_t idle = r->host + r->kernel + r->other;
        vp_table_set_int(t, row, 0, r->rank);
        vp_table_set_int(t, row, 1, r->stream);
        vp_table_set_int(t, row, 2, idle);
        vp_table_set_int(t, row, 3, r->host);
        vp_table_set_int(t, row, 4, r->kernel);
        vp_table_set_int(t, row, 5, r->other);
        if (idle > 0) {
            vp_table_set_double(t, row, 6, 100.0 * (double)r->host / (double)idle);
            vp_table_set_double(t, row, 7, 100.0 * (double)r->kernel / (double)idle);
            vp_table_set_double(t, row, 8, 100.0 * (double)r->other / (double)idle);
        }
    }
    char thr[32];
    vp_human_ns(thr, sizeof thr, (double)s->kernel_wait);
    vp_table_add_note(t, "gaps between consecutive kernels, memcpys and memsets of a stream: host "
                         "wait when the next one was launched after the stream went idle, else "
                         "kernel wait when shorter than %s (--kernel-wait), else other",
                      thr);
    if (s->nirows == 0)
        vp_table_add_note(t, "no kernels, memcpys or memsets in the input");
    return t;
}

/* An Ascend directory: per rank its trace, else its step_trace_time.csv;
 * msprof-analyze's cluster_step_trace_time.csv when no rank is there. */
static int read_ascend(stepsc *s, const char *path, int is_dir, vp_asc_file kind, long position)
{
    vp_error err = {0};
    if (!is_dir) {
        if (kind != VP_ASC_STEP_TRACE && kind != VP_ASC_DB) {
            fprintf(stderr, "vprof: %s: a %s has no steps (steps reads traces and "
                            "step_trace_time.csv)\n",
                    path, vp_asc_file_name(kind));
            return VP_EXIT_INPUT;
        }
        if (vp_stt_read(path, position, &s->stt, &err) != 0) {
            vp_error_print(&err);
            return VP_EXIT_INPUT;
        }
        if (!s->stt_source)
            s->stt_source = asc_stt_csv_source();
        return VP_EXIT_OK;
    }
    vp_asc_run run;
    if (vp_asc_scan(path, &run, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    int status = VP_EXIT_OK;
    for (size_t i = 0; i < run.n && status == VP_EXIT_OK; i++) {
        vp_asc_rank *r = &run.ranks[i];
        const char *f = vp_asc_need(r, VP_ASC_TRACE, VP_ASC_STEP_TRACE, &err);
        if (f && r->metadata && vp_asc_read_groups(r->metadata, &s->stt, &err) != 0) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
        } else if (!f) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
        } else if (f == r->files[VP_ASC_TRACE]) {
            s->rank_override = r->rank;
            status = read_file(s, f, s->nfiles++);
            s->rank_override = -1;
        } else if (vp_stt_read(f, r->rank, &s->stt, &err) != 0) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
        } else if (!s->stt_source) {
            s->stt_source = asc_stt_csv_source();
        }
    }
    if (status == VP_EXIT_OK && run.n > 1 && !s->stt.ngroups)
        status = asc_read_comm_groups(path, &run, &s->stt);
    if (status == VP_EXIT_OK && run.n == 0) {
        const char *f = run.cluster.files[VP_ASC_STEP_TRACE];
        if (!f) {
            fprintf(stderr, "vprof: %s: no cluster_step_trace_time.csv\n", path);
            status = VP_EXIT_INPUT;
        } else if (vp_stt_read(f, -1, &s->stt, &err) != 0) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
        } else {
            s->stt_source = asc_stt_cluster_source();
        }
    }
    vp_asc_run_free(&run);
    return status;
}

static void steps_free(stepsc *s)
{
    vp_stt_free(&s->stt);
    free(s->rows);
    free(s->irows);
    free(s->trows);
}

/* The partial result of traces (docs/partials.md, "steps"): the rows of
 * each table as the files gave them (the per-step rows of all ranks are
 * merged only when the tables are built), the counters of the notes, and
 * step_trace_time rows (computed from Ascend traces, or read from
 * step_trace_time.csv, cluster files and DBs) with the parallel groups
 * of the stage rows (version 2). */
enum { STEPS_PART_VERSION = 2 };

static void steps_save(void *ctx, vp_buf *b)
{
    const stepsc *s = ctx;
    vp_put_u64(b, s->nfiles);
    vp_put_u64(b, s->nrows);
    for (size_t i = 0; i < s->nrows; i++) {
        const step_row *r = &s->rows[i];
        vp_put_i64(b, r->rank);
        vp_put_i64(b, r->step);
        vp_put_u64(b, (uint64_t)r->has_cpu);
        for (int k = 0; k < V_COUNT; k++)
            vp_put_i64(b, r->v[k]);
    }
    vp_put_u64(b, s->nirows);
    for (size_t i = 0; i < s->nirows; i++) {
        const idle_row *r = &s->irows[i];
        const int64_t v[] = {r->rank, r->stream, r->host, r->kernel, r->other};
        for (size_t k = 0; k < 5; k++)
            vp_put_i64(b, v[k]);
    }
    vp_put_u64(b, s->ntrows);
    for (size_t i = 0; i < s->ntrows; i++) {
        const temporal_row *r = &s->trows[i];
        vp_put_i64(b, r->rank);
        vp_gpu_totals_put(b, &r->t);
    }
    vp_put_u64(b, s->outside);
    vp_put_u64(b, s->empty_steps);
    vp_put_u64(b, (uint64_t)s->no_steps_files);
    asc_stt_save(&s->stt, s->stt_source, b);
}

static int steps_merge(void *ctx, const void *p, size_t n, vp_error *err)
{
    stepsc *s = ctx;
    vp_rd r;
    vp_rd_init(&r, p, n);
    s->nfiles += (size_t)vp_get_u64(&r);
    size_t nr = vp_get_count(&r, 3 + V_COUNT);
    for (size_t i = 0; i < nr && !r.bad; i++) {
        step_row *row = new_row(s);
        row->rank = (long)vp_get_i64(&r);
        row->step = (long)vp_get_i64(&r);
        row->has_cpu = vp_get_u64(&r) != 0;
        for (int k = 0; k < V_COUNT; k++)
            row->v[k] = vp_get_i64(&r);
    }
    size_t ni = vp_get_count(&r, 5);
    for (size_t i = 0; i < ni && !r.bad; i++) {
        if (s->nirows == s->cap_irows) {
            s->cap_irows = s->cap_irows ? s->cap_irows * 2 : 8;
            s->irows = vp_realloc(s->irows, s->cap_irows * sizeof *s->irows);
        }
        idle_row *row = &s->irows[s->nirows++];
        row->rank = (long)vp_get_i64(&r);
        row->stream = vp_get_i64(&r);
        row->host = vp_get_i64(&r);
        row->kernel = vp_get_i64(&r);
        row->other = vp_get_i64(&r);
    }
    size_t nt = vp_get_count(&r, 16);
    for (size_t i = 0; i < nt && !r.bad; i++) {
        if (s->ntrows == s->cap_trows) {
            s->cap_trows = s->cap_trows ? s->cap_trows * 2 : 8;
            s->trows = vp_realloc(s->trows, s->cap_trows * sizeof *s->trows);
        }
        temporal_row *row = &s->trows[s->ntrows++];
        row->rank = (long)vp_get_i64(&r);
        vp_gpu_totals_get(&r, &row->t);
    }
    s->outside += vp_get_u64(&r);
    s->empty_steps += vp_get_u64(&r);
    s->no_steps_files += (int)vp_get_u64(&r);
    if (!r.bad)
        asc_stt_merge(&s->stt, &s->stt_source, &r);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged steps partial result");
        return -1;
    }
    return 0;
}

static int steps_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    const stepsc *all = ctx;
    stepsc one;
    memset(&one, 0, sizeof one);
    one.common = all->common;
    one.per_rank = all->per_rank;
    one.idle = all->idle;
    one.kernel_wait = all->kernel_wait;
    one.rank_override = -1;
    one.pos0 = i;
    asc_arg a = asc_arg_of(input);
    int status = a.is_dir || a.kind != VP_ASC_TRACE
                     ? read_ascend(&one, input, a.is_dir, a.kind, (long)i)
                     : read_file(&one, input, one.nfiles++);
    if (status == VP_EXIT_OK)
        steps_save(&one, out);
    steps_free(&one);
    return status;
}

int cmd_steps(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_STEPS_LONGOPT,
        VP_SCALE_LONGOPTS,
        {"per-rank", no_argument, 0, OPT_PER_RANK},
        {"idle", no_argument, 0, OPT_IDLE},
        {"kernel-wait", required_argument, 0, OPT_KERNEL_WAIT},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("steps");
    stepsc s;
    memset(&s, 0, sizeof s);
    vp_common_init(&s.common);
    s.kernel_wait = 30000;
    s.rank_override = -1;
    int opt, status = VP_EXIT_USAGE;
    optind = 1;
    while ((opt = vp_getopt(&s.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (opt) {
        case OPT_PER_RANK:
            s.per_rank = 1;
            break;
        case OPT_IDLE:
            s.idle = 1;
            break;
        case OPT_KERNEL_WAIT: {
            vp_span v = {optarg, strlen(optarg)};
            if (vp_json_us_to_ns(v, &s.kernel_wait) != 0 || s.kernel_wait < 0) {
                vp_usage_error("steps",
                               "--kernel-wait: expected microseconds (a number >= 0), found '%s'",
                               optarg);
                goto out;
            }
            break;
        }
        default:
            vp_usage_error("steps", "unexpected option");
            goto out;
        }
    }
    if (opt == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (optind >= argc) {
        vp_usage_error("steps", "no trace given (a file, or - for standard input)");
        goto out;
    }
    vp_parts parts = {"steps", STEPS_PART_VERSION, steps_analyse, steps_merge, steps_save, &s};
    status = vp_parts_run(&s.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status != VP_EXIT_OK) {
        if (status == VP_PARTS_DONE)
            status = VP_EXIT_OK;
        goto out;
    }
    vp_table *tables[3];
    size_t nt = 2;
    if (s.nfiles == 0) {
        /* Only step_trace_time.csv files: their table alone. */
        tables[0] = asc_stt_table(&s.stt, 1, s.stt_source);
        nt = 1;
    } else if (s.idle) {
        tables[0] = temporal_table(&s);
        tables[1] = idle_table(&s);
    } else {
        int rank_col = s.nfiles > 1 && s.per_rank;
        if (s.nfiles > 1 && !s.per_rank)
            merge_ranks(&s);
        tables[0] = steps_table(&s, rank_col);
        tables[1] = summary_table(&s);
        if (s.stt_source)
            tables[nt++] = asc_stt_table(&s.stt, 1, s.stt_source);
    }
    status = vp_emit_tables(&s.common, tables, nt, "vprof.steps/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
out:
    steps_free(&s);
    return status;
}
