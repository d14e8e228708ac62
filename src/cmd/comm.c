/* vprof comm: communication against computation per rank (HTA's overlap
 * percentage and msprof-analyze's step_trace_time split, one definition),
 * per collective with message sizes and bus bandwidth, the spread over
 * ranks and the straggler of each step. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/ascend_cmd.h"
#include "cmd/cli.h"
#include "cmd/scale.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_groups.h"
#include "vprof/ascend_hccl.h"
#include "vprof/ascend_stepwork.h"
#include "vprof/ascend_stt.h"
#include "vprof/ascend_summaries.h"
#include "vprof/ascend_tracks.h"
#include "vprof/classify.h"
#include "vprof/collective.h"
#include "vprof/gpuwork.h"
#include "vprof/rank.h"
#include "vprof/stats.h"
#include "vprof/table.h"
#include "vprof/trace.h"
#include "vprof/util.h"

const char cmd_comm_usage[] =
    "usage: vprof comm [options] TRACE...\n"
    "\n"
    "Communication against computation on the GPU, per rank (a file is a rank): exact\n"
    "interval unions of compute and communication kernels, their overlap, the exposed\n"
    "(not overlapped) communication, and per collective its count, time, message size\n"
    "and bandwidth. Several files add the spread over ranks and the straggler of each\n"
    "step. TRACE is a Chrome/Kineto trace, plain or gzip, or - for standard input.\n"
    "\n"
    "Ascend profiles (docs/ascend.md): a *_ascend_pt directory, a folder of them, a\n"
    "PROF_* directory, cluster_analysis_output, or their files one by one. Their HCCL\n"
    "operations are the communication; the step_trace_time table (msprof-analyze's\n"
    "columns) comes from trace_view.json, else step_trace_time.csv; communication.json\n"
    "gives per-operation times and per-transport bandwidth, communication_matrix.json\n"
    "a per-link table.\n"
    "\n"
    "  --steps A:B        keep GPU work launched inside ProfilerStep#A .. before #B\n"
    "                     (Python slice; ':-1' drops the last step as HTA does)\n"
    "  --top N            keep the N collectives with the most time\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --full-names   never shorten text cells in the table format\n"
    "      --partial      accept a truncated trace, with a warning\n"
    "  -v, --verbose      say which rank each file is, and why, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Per rank (msprof-analyze names; HTA's in docs/comm.md):\n"
    "  Computing        |union of compute kernels|\n"
    "  Communication    |union of communication kernels|\n"
    "  Overlapped       |Computing ∩ Communication|\n"
    "  Comm Exposed     Communication(Not Overlapped) = Communication - Overlapped\n"
    "  Free             Span - |Computing ∪ Communication|\n"
    "  Idle             Span - |union of all GPU work| (memcpy, memset, sync included)\n"
    "  Overlap (%)      100 x Overlapped / Communication: HTA's comp_comm_overlap_pctg\n"
    "  Exposed/Step (%) 100 x Comm Exposed / the wall time of the steps (the Span\n"
    "                   when the trace has no ProfilerStep)\n"
    "Bus bandwidth uses the nccl-tests factors: 2(n-1)/n all-reduce, (n-1)/n\n"
    "all-gather, reduce-scatter, all-to-all, 1 broadcast, reduce, send/recv.\n"
    "\n"
    "Examples:\n"
    "  vprof comm rank*.json.gz\n"
    "  vprof comm --steps :-1 -f csv rank0.json.gz rank1.json.gz\n"
    "  vprof comm ./profile_dir\n";


/* What a communication kernel (or its record_param_comms op) says. */
typedef struct coll_info {
    vp_coll type;
    int64_t bytes;     /* -1: unknown */
    int64_t group;     /* group size, -1: unknown */
    int32_t pg;        /* interned process group name, -1: none */
} coll_info;

/* A record_param_comms CPU op: its window and what it says. */
typedef struct rpc {
    int64_t start, end;
    coll_info info;
} rpc;

/* Per rank: the totals, and the comm kernels of each step for the
 * straggler rule. */
typedef struct rank_row {
    long rank;
    char *path;
    vp_gpu_totals t;
    int64_t step_time;
    size_t nsteps;
    uint64_t gpu_events;
    struct step_coll {
        long step;       /* ProfilerStep number */
        int64_t start, dur;
    } *sc;
    size_t nsc, cap_sc;
} rank_row;

/* A row of the collectives table. */
typedef struct coll_group {
    vp_coll type;
    int32_t pg;
    int64_t group;
    int32_t stream;
    int64_t count, total, exposed;
    int64_t sized_bytes, sized_time, sized_count;
} coll_group;

typedef struct comm {
    vp_common_opts common;
    size_t pos0;          /* the position of the first trace (its operand's) */
    vp_strmap *pgs;
    rank_row *ranks;
    size_t nranks, cap_ranks;
    coll_group *groups;
    size_t ngroups, cap_groups;
    /* per file, reused */
    coll_info *ci;
    size_t nci, cap_ci;
    rpc *rpcs;
    size_t nrpc, cap_rpc;
    /* Ascend */
    long rank_override;   /* the rank of the next trace read, -1: detect */
    vp_stt stt;
    const char *stt_source;
    vp_hccl hccl;
    int have_comm_json, have_matrix;
} comm;

static int64_t span_int(vp_span v, int64_t fallback)
{
    int64_t x;
    return v.p && vp_json_int(v, &x) == 0 ? x : fallback;
}

static int32_t intern(comm *c, vp_span v)
{
    if (!v.p || !vp_json_is_string(v))
        return -1;
    int inserted;
    void **slot = vp_strmap_upsert(c->pgs, v.p + 1, v.n - 2, &inserted);
    if (inserted)
        *slot = (void *)(uintptr_t)vp_strmap_count(c->pgs);
    return (int32_t)((uintptr_t)*slot - 1);
}

/* Reads the c10d arguments Kineto copies onto NCCL kernels and
 * record_param_comms ops.  Returns 1 when any was there. */
static int parse_coll_args(comm *c, vp_span args, coll_info *ci)
{
    static const char *const keys[] = {"Collective name", "In msg nelems", "Out msg nelems", "dtype",
                                       "Group size", "Process Group Name", "Process Group Ranks"};
    vp_span v[7] = {{0}};
    if (!args.p || vp_json_get_many(args, keys, 7, v) == 0)
        return 0;
    int any = 0;
    if (v[0].p && vp_json_is_string(v[0])) {
        vp_coll t = vp_coll_from_arg(v[0].p + 1, v[0].n - 2);
        if (t != VP_COLL_UNKNOWN)
            ci->type = t;
        any = 1;
    }
    int64_t in = span_int(v[1], -1), out = span_int(v[2], -1);
    int size = v[3].p && vp_json_is_string(v[3]) ? vp_dtype_size(v[3].p + 1, v[3].n - 2) : 0;
    int64_t n = in > out ? in : out;
    if (n >= 0 && size > 0) {
        ci->bytes = n * size;
        any = 1;
    }
    int64_t g = span_int(v[4], -1);
    if (g < 1 && v[6].p && vp_json_is_string(v[6]) && v[6].n > 4) {
        /* "[0, 1, 2]": count the elements. */
        g = 1;
        for (size_t i = 1; i + 1 < v[6].n; i++)
            g += v[6].p[i] == ',';
    }
    if (g >= 1) {
        ci->group = g;
        any = 1;
    }
    int32_t pg = intern(c, v[5]);
    if (pg >= 0) {
        ci->pg = pg;
        any = 1;
    }
    return any;
}

/* Bytes per element of an HCCL data type (FP16, BF16, FP32, INT8 ...). */
static int hccl_dtype_size(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int size;
    } map[] = {{"INT8", 1},  {"UINT8", 1},  {"FP16", 2},   {"BFP16", 2},  {"BF16", 2},
               {"INT16", 2}, {"UINT16", 2}, {"FP32", 4},   {"INT32", 4},  {"UINT32", 4},
               {"FP64", 8},  {"INT64", 8},  {"UINT64", 8}, {"INT128", 16}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strlen(map[i].name) == n && memcmp(map[i].name, s, n) == 0)
            return map[i].size;
    return 0;
}

/* An HCCL operation of an Ascend trace's Communication process: count,
 * data_type, rank_size.  HCCL's count is per rank: all-gather and
 * reduce-scatter buffers are count x ranks (nccl-tests' S). */
static void parse_hccl_args(vp_span args, coll_info *ci)
{
    static const char *const keys[] = {"count", "data_type", "rank_size"};
    vp_span v[3] = {{0}};
    if (!args.p || vp_json_get_many(args, keys, 3, v) == 0)
        return;
    int64_t count = span_int(v[0], -1), ranks = span_int(v[2], -1);
    int size = vp_json_is_string(v[1]) ? hccl_dtype_size(v[1].p + 1, v[1].n - 2) : 0;
    if (ranks >= 1)
        ci->group = ranks;
    if (count >= 0 && size > 0) {
        ci->bytes = count * size;
        if ((ci->type == VP_COLL_ALLGATHER || ci->type == VP_COLL_REDUCESCATTER) && ranks >= 1)
            ci->bytes *= ranks;
    }
}

static void take_event(comm *c, vp_gpuwork *w, const vp_event *ev)
{
    long i = vp_gpuwork_observe(w, ev);
    if (i >= 0) {
        vp_gpu_ev *g = &w->ev[i];
        if (g->cls != VP_CLASS_COMM)
            return;
        if (c->nci == c->cap_ci) {
            c->cap_ci = c->cap_ci ? c->cap_ci * 2 : 256;
            c->ci = vp_realloc(c->ci, c->cap_ci * sizeof *c->ci);
        }
        coll_info *ci = &c->ci[c->nci];
        *ci = (coll_info){vp_coll_from_kernel(ev->name.p, ev->name.n), -1, -1, -1};
        if (g->flags & VP_GPU_F_BY_TIME)
            parse_hccl_args(ev->args, ci);
        else
            parse_coll_args(c, ev->args, ci);
        g->aux = (uint32_t)c->nci++;
        return;
    }
    if (ev->ph == 'X' && ev->has_ts && ev->name.n == 18 &&
        memcmp(ev->name.p, "record_param_comms", 18) == 0) {
        coll_info ci = {VP_COLL_UNKNOWN, -1, -1, -1};
        if (!parse_coll_args(c, ev->args, &ci))
            return;
        if (c->nrpc == c->cap_rpc) {
            c->cap_rpc = c->cap_rpc ? c->cap_rpc * 2 : 256;
            c->rpcs = vp_realloc(c->rpcs, c->cap_rpc * sizeof *c->rpcs);
        }
        c->rpcs[c->nrpc++] = (rpc){ev->ts, ev->ts + (ev->has_dur ? ev->dur : 0), ci};
    }
}

static int cmp_rpc(const void *a, const void *b)
{
    const rpc *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Fills what a kernel's own args lack from the record_param_comms op whose
 * window holds the kernel's launch call (the innermost when nested). */
static void join_rpc(comm *c, vp_gpuwork *w)
{
    if (!c->nrpc)
        return;
    qsort(c->rpcs, c->nrpc, sizeof *c->rpcs, cmp_rpc);
    for (size_t i = 0; i < w->n; i++) {
        vp_gpu_ev *g = &w->ev[i];
        if (g->aux == UINT32_MAX)
            continue;
        coll_info *ci = &c->ci[g->aux];
        int64_t ts;
        if (ci->bytes >= 0 && ci->group >= 1 && ci->type != VP_COLL_UNKNOWN)
            continue;
        if (g->corr < 0 || !vp_steps_launch(w->steps, g->corr, &ts, NULL))
            continue;
        size_t lo = 0, hi = c->nrpc;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (c->rpcs[mid].start <= ts)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k-- > 0 && lo - k <= 8;) {
            const rpc *r = &c->rpcs[k];
            if (ts < r->end) {
                if (ci->type == VP_COLL_UNKNOWN || r->info.type == VP_COLL_ALLTOALL)
                    ci->type = r->info.type;
                if (ci->bytes < 0)
                    ci->bytes = r->info.bytes;
                if (ci->group < 1)
                    ci->group = r->info.group;
                if (ci->pg < 0)
                    ci->pg = r->info.pg;
                break;
            }
        }
    }
}

static coll_group *group_of(comm *c, const coll_info *ci, int32_t stream)
{
    for (size_t i = 0; i < c->ngroups; i++) {
        coll_group *g = &c->groups[i];
        if (g->type == ci->type && g->pg == ci->pg && g->group == ci->group && g->stream == stream)
            return g;
    }
    if (c->ngroups == c->cap_groups) {
        c->cap_groups = c->cap_groups ? c->cap_groups * 2 : 16;
        c->groups = vp_realloc(c->groups, c->cap_groups * sizeof *c->groups);
    }
    coll_group *g = &c->groups[c->ngroups++];
    memset(g, 0, sizeof *g);
    g->type = ci->type;
    g->pg = ci->pg;
    g->group = ci->group;
    g->stream = stream;
    return g;
}

static void analyse_file(comm *c, vp_gpuwork *w, rank_row *rr)
{
    join_rpc(c, w);
    vp_gpu_sets sets;
    vp_gpu_sets_init(&sets);
    vp_gpu_measure(&sets, w->ev, NULL, w->n, &rr->t);
    rr->gpu_events = w->n;

    /* Step time: the selected steps' windows, else the GPU span. */
    size_t nsteps = vp_steps_count(w->steps);
    rr->step_time = 0;
    rr->nsteps = 0;
    for (size_t i = 0; i < nsteps; i++) {
        int64_t a, b;
        if (vp_steps_window(w->steps, i, &a, &b) == 1 || !c->common.has_steps) {
            rr->step_time += b - a;
            rr->nsteps++;
        }
    }
    if (!rr->nsteps)
        rr->step_time = rr->t.span;

    for (size_t i = 0; i < w->n; i++) {
        const vp_gpu_ev *g = &w->ev[i];
        if (g->aux == UINT32_MAX)
            continue;
        const coll_info *ci = &c->ci[g->aux];
        coll_group *cg = group_of(c, ci, g->stream);
        int64_t dur = g->end - g->start;
        int64_t hidden = vp_ivset_measure_in(&sets.comp, g->start, g->end);
        cg->count++;
        cg->total += dur;
        cg->exposed += dur - hidden;
        if (ci->bytes >= 0) {
            cg->sized_bytes += ci->bytes;
            cg->sized_time += dur;
            cg->sized_count++;
        }
        if (g->step >= 0) {
            if (rr->nsc == rr->cap_sc) {
                rr->cap_sc = rr->cap_sc ? rr->cap_sc * 2 : 64;
                rr->sc = vp_realloc(rr->sc, rr->cap_sc * sizeof *rr->sc);
            }
            rr->sc[rr->nsc++] = (struct step_coll){vp_steps_number(w->steps, (size_t)g->step),
                                                   g->start, dur};
        }
    }
    vp_gpu_sets_free(&sets);
}

static int read_file(comm *c, const char *path, size_t file)
{
    vp_error err = {0};
    vp_trace_opts topts = {.partial = c->common.partial, .progress = 1};
    vp_trace *t = vp_trace_open(path, &topts, &err);
    if (!t) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    vp_gpuwork w;
    vp_gpuwork_init(&w);
    c->nci = c->nrpc = 0;
    vp_event ev;
    int r;
    while ((r = vp_trace_next(t, &ev, &err)) == 1)
        take_event(c, &w, &ev);
    if (r < 0) {
        vp_error_print(&err);
        vp_gpuwork_free(&w);
        vp_trace_close(t);
        return VP_EXIT_INPUT;
    }
    const char *name = vp_trace_name(t);
    size_t nsteps = vp_steps_count(w.steps);
    size_t chosen = vp_gpuwork_resolve(&w, c->common.has_steps ? &c->common.steps : NULL);
    if (c->common.has_steps && nsteps == 0)
        vp_warn("%s: --steps: the trace has no ProfilerStep#N annotations, so no GPU work is kept",
                name);
    else if (c->common.has_steps && chosen == 0)
        vp_warn("%s: --steps selects none of the steps present (ProfilerStep#%ld to #%ld)", name,
                vp_steps_number(w.steps, 0), vp_steps_number(w.steps, nsteps - 1));
    rank_row *rr = &c->ranks[file];
    rr->path = vp_strdup(path);
    vp_rank_source rs;
    rr->rank = vp_rank_detect(vp_trace_meta(t), path, (long)(c->pos0 + file), &rs);
    if (c->rank_override >= 0)
        rr->rank = c->rank_override;
    analyse_file(c, &w, rr);
    if (vp_npu_tracks_seen(w.npu) || w.nslices) {
        int slices = vp_stt_from_work(&w, rr->rank, c->common.has_steps, &c->stt);
        c->stt_source = asc_stt_trace_source(slices);
    }
    if (w.no_dur)
        vp_warn("%s: %llu GPU events without \"dur\" were skipped", name,
                (unsigned long long)w.no_dur);
    if (c->common.verbose) {
        const vp_trace_stats *st = vp_trace_get_stats(t);
        fprintf(stderr,
                "vprof: %s: rank %ld (from %s); read %llu events in %llu bytes%s; %llu GPU events "
                "kept, %zu communication kernels, %zu record_param_comms\n",
                name, rr->rank, vp_rank_source_name(rs), (unsigned long long)st->events,
                (unsigned long long)st->bytes, st->truncated ? " (truncated)" : "",
                (unsigned long long)w.n, c->nci, c->nrpc);
    }
    vp_gpuwork_free(&w);
    vp_trace_close(t);
    return VP_EXIT_OK;
}

static size_t new_rank(comm *c)
{
    if (c->nranks == c->cap_ranks) {
        c->cap_ranks = c->cap_ranks ? c->cap_ranks * 2 : 8;
        c->ranks = vp_realloc(c->ranks, c->cap_ranks * sizeof *c->ranks);
    }
    memset(&c->ranks[c->nranks], 0, sizeof *c->ranks);
    return c->nranks++;
}

/* One Ascend summary file, by kind. */
static int read_ascend_file(comm *c, const char *path, vp_asc_file kind, long rank)
{
    vp_error err = {0};
    int rc = 0;
    switch (kind) {
    case VP_ASC_DB:   /* vp_stt_read reads the DB's tasks (ascend_summaries.h) */
    case VP_ASC_STEP_TRACE:
        rc = vp_stt_read(path, rank, &c->stt, &err);
        if (!c->stt_source)
            c->stt_source = asc_stt_csv_source();
        break;
    case VP_ASC_COMM: {
        size_t first = c->hccl.nops;
        rc = vp_hccl_read_comm(path, &c->hccl, &err);
        for (size_t i = first; i < c->hccl.nops; i++)
            if (c->hccl.ops[i].rank < 0)
                c->hccl.ops[i].rank = rank;
        c->have_comm_json = 1;
        break;
    }
    case VP_ASC_MATRIX:
        rc = vp_hccl_read_matrix(path, &c->hccl, &err);
        c->have_matrix = 1;
        break;
    default:
        vp_error_set(&err, VP_EXIT_INPUT,
                     "%s: a %s has no communication data (comm reads traces, step_trace_time.csv, "
                     "communication.json and communication_matrix.json)",
                     path, vp_asc_file_name(kind));
        rc = -1;
    }
    if (rc != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

/* An Ascend directory: per rank its trace (else step_trace_time.csv),
 * communication.json and communication_matrix.json; the cluster files. */
static int read_ascend_dir(comm *c, const char *path)
{
    vp_error err = {0};
    vp_asc_run run;
    if (vp_asc_scan(path, &run, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    int status = VP_EXIT_OK;
    for (size_t i = 0; i < run.n && status == VP_EXIT_OK; i++) {
        vp_asc_rank *r = &run.ranks[i];
        if (!r->files[VP_ASC_TRACE] && !r->files[VP_ASC_STEP_TRACE] &&
            !r->files[VP_ASC_COMM] && !r->files[VP_ASC_MATRIX] && !r->files[VP_ASC_DB]) {
            fprintf(stderr, "vprof: %s: no trace_view.json, step_trace_time.csv, "
                            "communication.json or communication_matrix.json\n",
                    r->dir);
            status = VP_EXIT_INPUT;
            break;
        }
        if (c->common.verbose)
            fprintf(stderr, "vprof: %s: rank %ld (from %s)\n", r->dir, r->rank, r->rank_from);
        if (r->metadata && vp_asc_read_groups(r->metadata, &c->stt, &err) != 0) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
            break;
        }
        if (r->files[VP_ASC_TRACE]) {
            c->rank_override = r->rank;
            status = read_file(c, r->files[VP_ASC_TRACE], new_rank(c));
            c->rank_override = -1;
        } else if (r->files[VP_ASC_STEP_TRACE] || r->files[VP_ASC_DB]) {
            status = read_ascend_file(c, vp_asc_need(r, VP_ASC_STEP_TRACE, VP_ASC_UNKNOWN, &err),
                                      VP_ASC_STEP_TRACE, r->rank);
        }
        if (status == VP_EXIT_OK && r->files[VP_ASC_COMM])
            status = read_ascend_file(c, r->files[VP_ASC_COMM], VP_ASC_COMM, r->rank);
        if (status == VP_EXIT_OK && r->files[VP_ASC_MATRIX])
            status = read_ascend_file(c, r->files[VP_ASC_MATRIX], VP_ASC_MATRIX, r->rank);
    }
    if (status == VP_EXIT_OK && run.n > 1 && !c->stt.ngroups)
        status = asc_read_comm_groups(path, &run, &c->stt);
    /* msprof-analyze's cluster files, when no rank directory is there
     * (with ranks, their own files are read and the stage rows computed). */
    if (status == VP_EXIT_OK && run.has_cluster && run.n == 0) {
        static const vp_asc_file kinds[] = {VP_ASC_STEP_TRACE, VP_ASC_COMM, VP_ASC_MATRIX};
        if (run.cluster.files[VP_ASC_STEP_TRACE])
            c->stt_source = asc_stt_cluster_source();
        for (int k = 0; k < 3 && status == VP_EXIT_OK; k++)
            if (run.cluster.files[kinds[k]])
                status = read_ascend_file(c, run.cluster.files[kinds[k]], kinds[k], -1);
    }
    vp_asc_run_free(&run);
    return status;
}

static double pct(int64_t num, int64_t den)
{
    return den > 0 ? 100.0 * (double)num / (double)den : 0.0;
}

enum { C_RANK, C_SPAN, C_COMP, C_COMM, C_OVER, C_EXPOSED, C_FREE, C_IDLE, C_OVER_PCT, C_EXP_PCT };

static vp_table *rank_table(comm *c)
{
    vp_table *t = vp_table_new("comm");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Span", VP_COL_NS, 0);
    vp_table_add_col(t, "Computing", VP_COL_NS, 0);
    vp_table_add_col(t, "Communication", VP_COL_NS, 0);
    vp_table_add_col(t, "Overlapped", VP_COL_NS, 0);
    vp_table_add_col(t, "Comm Exposed", VP_COL_NS, 0);
    vp_table_add_col(t, "Free", VP_COL_NS, 0);
    vp_table_add_col(t, "Idle", VP_COL_NS, 0);
    vp_table_add_col(t, "Overlap", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "Exposed/Step", VP_COL_PERCENT, 2);
    for (size_t i = 0; i < c->nranks; i++) {
        const rank_row *r = &c->ranks[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, C_RANK, r->rank);
        vp_table_set_int(t, row, C_SPAN, r->t.span);
        vp_table_set_int(t, row, C_COMP, r->t.compute);
        vp_table_set_int(t, row, C_COMM, r->t.comm);
        vp_table_set_int(t, row, C_OVER, r->t.overlap);
        vp_table_set_int(t, row, C_EXPOSED, r->t.exposed);
        vp_table_set_int(t, row, C_FREE, r->t.free);
        vp_table_set_int(t, row, C_IDLE, r->t.idle);
        if (r->t.comm > 0)
            vp_table_set_double(t, row, C_OVER_PCT, pct(r->t.overlap, r->t.comm));
        if (r->step_time > 0)
            vp_table_set_double(t, row, C_EXP_PCT, pct(r->t.exposed, r->step_time));
        if (r->gpu_events == 0)
            vp_table_add_note(t, "rank %ld: no GPU work%s: every time is 0 and the percentages are "
                                 "empty",
                              r->rank, c->common.has_steps ? " in the selected steps" : " in the trace");
        else if (r->t.comm == 0)
            vp_table_add_note(t, "rank %ld: no communication kernels, so Overlap is empty (HTA "
                                 "prints NaN)",
                              r->rank);
    }
    vp_table_add_note(t, "Overlap = Overlapped / Communication (HTA's comp_comm_overlap_pctg); "
                         "Comm Exposed = Communication(Not Overlapped); Exposed/Step: share of %s",
                      c->nranks && c->ranks[0].nsteps ? "the steps' wall time" : "the GPU span");
    return t;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t metric(const vp_gpu_totals *x, int m)
{
    int64_t vals[7] = {x->span, x->compute, x->comm, x->overlap, x->exposed, x->free, x->idle};
    return vals[m];
}

/* min / median / max over ranks of each time, with the ranks at the ends. */
static vp_table *spread_table(comm *c)
{
    vp_table *t = vp_table_new("spread");
    vp_table_add_col(t, "Metric", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Min", VP_COL_NS, 0);
    vp_table_add_col(t, "Median", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Max", VP_COL_NS, 0);
    vp_table_add_col(t, "Min Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Max Rank", VP_COL_INT, 0);
    static const char *const metrics[] = {"Span", "Computing", "Communication", "Overlapped",
                                          "Comm Exposed", "Free", "Idle"};
    int64_t *v = vp_malloc(c->nranks * sizeof *v);
    size_t slowest = 0;
    for (int m = 0; m < 7; m++) {
        size_t lo = 0, hi = 0;
        for (size_t i = 0; i < c->nranks; i++) {
            v[i] = metric(&c->ranks[i].t, m);
            if (v[i] < metric(&c->ranks[lo].t, m))
                lo = i;
            if (v[i] > metric(&c->ranks[hi].t, m))
                hi = i;
        }
        if (m == 1)
            slowest = hi;
        qsort(v, c->nranks, sizeof *v, cmp_i64);
        size_t n = c->nranks;
        double med = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, metrics[m]);
        vp_table_set_int(t, row, 1, v[0]);
        vp_table_set_double(t, row, 2, med);
        vp_table_set_int(t, row, 3, v[n - 1]);
        vp_table_set_int(t, row, 4, c->ranks[lo].rank);
        vp_table_set_int(t, row, 5, c->ranks[hi].rank);
    }
    free(v);
    vp_table_add_note(t, "slowest rank: %ld (the most Computing; the others wait for it in "
                         "collectives, which shows as their Comm Exposed)",
                      c->ranks[slowest].rank);
    return t;
}

static int cmp_sc(const void *a, const void *b)
{
    const struct step_coll *x = a, *y = b;
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    return (x->start > y->start) - (x->start < y->start);
}

/* Per step: collectives are matched across ranks by their order in the
 * step (k-th with k-th).  A collective ends at about the same time on every
 * rank, so a rank that arrives late runs the shortest kernel and the others
 * wait for it in theirs: a rank's wait on the k-th collective is its
 * duration minus the shortest duration of any rank.  The straggler of the
 * step is the rank that waited least.  No clock alignment is needed. */
static vp_table *straggler_table(comm *c)
{
    vp_table *t = vp_table_new("stragglers");
    vp_table_add_col(t, "Step", VP_COL_INT, 0);
    vp_table_add_col(t, "Collectives", VP_COL_INT, 0);
    vp_table_add_col(t, "Straggler", VP_COL_INT, 0);
    vp_table_add_col(t, "Its Wait", VP_COL_NS, 0);
    vp_table_add_col(t, "Max Wait", VP_COL_NS, 0);
    vp_table_add_col(t, "Waiting Rank", VP_COL_INT, 0);
    size_t n = c->nranks;
    size_t *pos = vp_calloc(n, sizeof *pos);
    int64_t *wait = vp_calloc(n, sizeof *wait);
    for (size_t i = 0; i < n; i++)
        if (c->ranks[i].nsc)
            qsort(c->ranks[i].sc, c->ranks[i].nsc, sizeof *c->ranks[i].sc, cmp_sc);
    size_t uneven = 0;
    for (;;) {
        /* The next step present on every rank. */
        long step = -1;
        int done = 0;
        for (size_t i = 0; i < n; i++) {
            rank_row *r = &c->ranks[i];
            if (pos[i] >= r->nsc) {
                done = 1;
                break;
            }
            if (r->sc[pos[i]].step > step)
                step = r->sc[pos[i]].step;
        }
        if (done)
            break;
        size_t cnt = SIZE_MAX, lim[1024];
        size_t *ends = n <= 1024 ? lim : vp_malloc(n * sizeof *ends);
        for (size_t i = 0; i < n; i++) {
            rank_row *r = &c->ranks[i];
            while (pos[i] < r->nsc && r->sc[pos[i]].step < step)
                pos[i]++;
            size_t e = pos[i];
            while (e < r->nsc && r->sc[e].step == step)
                e++;
            ends[i] = e;
            if (e - pos[i] < cnt)
                cnt = e - pos[i];
        }
        int all_same = 1;
        for (size_t i = 0; i < n; i++)
            all_same &= ends[i] - pos[i] == cnt;
        if (!all_same)
            uneven++;
        if (cnt > 0) {
            memset(wait, 0, n * sizeof *wait);
            for (size_t k = 0; k < cnt; k++) {
                int64_t mn = INT64_MAX;
                for (size_t i = 0; i < n; i++)
                    if (c->ranks[i].sc[pos[i] + k].dur < mn)
                        mn = c->ranks[i].sc[pos[i] + k].dur;
                for (size_t i = 0; i < n; i++)
                    wait[i] += c->ranks[i].sc[pos[i] + k].dur - mn;
            }
            size_t s = 0, wmax = 0;
            for (size_t i = 1; i < n; i++) {
                if (wait[i] < wait[s] || (wait[i] == wait[s] && c->ranks[i].rank < c->ranks[s].rank))
                    s = i;
                if (wait[i] > wait[wmax] ||
                    (wait[i] == wait[wmax] && c->ranks[i].rank < c->ranks[wmax].rank))
                    wmax = i;
            }
            size_t row = vp_table_add_row(t);
            vp_table_set_int(t, row, 0, step);
            vp_table_set_int(t, row, 1, (int64_t)cnt);
            vp_table_set_int(t, row, 2, c->ranks[s].rank);
            vp_table_set_int(t, row, 3, wait[s]);
            vp_table_set_int(t, row, 4, wait[wmax]);
            vp_table_set_int(t, row, 5, c->ranks[wmax].rank);
        }
        for (size_t i = 0; i < n; i++)
            pos[i] = ends[i];
        if (ends != lim)
            free(ends);
    }
    if (uneven)
        vp_table_add_note(t, "%zu steps have a different number of collectives on different ranks: "
                             "only the first ones common to all were matched",
                          uneven);
    if (vp_table_rows(t) == 0)
        vp_table_add_note(t, "no step has communication kernels on every rank");
    free(pos);
    free(wait);
    return t;
}

static int cmp_group(const void *a, const void *b)
{
    const coll_group *x = a, *y = b;
    if (x->total != y->total)
        return (y->total > x->total) - (y->total < x->total);
    if (x->type != y->type)
        return (x->type > y->type) - (x->type < y->type);
    if (x->pg != y->pg)
        return (x->pg > y->pg) - (x->pg < y->pg);
    if (x->group != y->group)
        return (x->group > y->group) - (x->group < y->group);
    return (x->stream > y->stream) - (x->stream < y->stream);
}

static vp_table *collective_table(comm *c)
{
    vp_table *t = vp_table_new("collectives");
    vp_table_add_col(t, "Collective", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Group", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Size", VP_COL_INT, 0);
    vp_table_add_col(t, "Stream", VP_COL_INT, 0);
    vp_table_add_col(t, "Count", VP_COL_INT, 0);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Exposed", VP_COL_NS, 0);
    vp_table_add_col(t, "Bytes", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Algbw (GB/s)", VP_COL_RATIO, 2);
    vp_table_add_col(t, "Busbw (GB/s)", VP_COL_RATIO, 2);
    if (c->ngroups)
        qsort(c->groups, c->ngroups, sizeof *c->groups, cmp_group);
    size_t shown = c->common.top > 0 && (size_t)c->common.top < c->ngroups ? (size_t)c->common.top : c->ngroups;
    int64_t unsized = 0;
    for (size_t i = 0; i < c->ngroups; i++)
        unsized += c->groups[i].count - c->groups[i].sized_count;
    for (size_t i = 0; i < shown; i++) {
        const coll_group *g = &c->groups[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, vp_coll_name(g->type));
        if (g->pg >= 0) {
            size_t len;
            const char *k = vp_strmap_key(c->pgs, (size_t)g->pg, &len);
            vp_table_set_textn(t, row, 1, k, len);
        }
        if (g->group >= 1)
            vp_table_set_int(t, row, 2, g->group);
        vp_table_set_int(t, row, 3, g->stream);
        vp_table_set_int(t, row, 4, g->count);
        vp_table_set_int(t, row, 5, g->total);
        vp_table_set_int(t, row, 6, g->exposed);
        if (g->sized_count) {
            vp_table_set_int(t, row, 7, g->sized_bytes);
            if (g->sized_time > 0) {
                double algbw = (double)g->sized_bytes / (double)g->sized_time; /* B/ns = GB/s */
                vp_table_set_double(t, row, 8, algbw);
                double f = vp_coll_bus_factor(g->type, g->group);
                if (f >= 0)
                    vp_table_set_double(t, row, 9, algbw * f);
            }
        }
    }
    if (shown < c->ngroups)
        vp_table_add_note(t, "%zu more rows (--top %ld)", c->ngroups - shown, c->common.top);
    if (c->ngroups == 0)
        vp_table_add_note(t, "no communication kernels (NCCL/RCCL/HCCL) in the input");
    else if (unsized)
        vp_table_add_note(t, "%lld kernels carry no message size (In/Out msg nelems and dtype, on "
                             "the kernel or its record_param_comms): Bytes and bandwidths count "
                             "the others",
                          (long long)unsized);
    vp_table_add_note(t, "Count and times are summed over ranks; Exposed: the part of each "
                         "kernel not hidden by compute kernels; Busbw = Algbw x nccl-tests factor "
                         "(docs/comm.md)");
    return t;
}

static void comm_free(comm *c)
{
    for (size_t i = 0; i < c->nranks; i++) {
        free(c->ranks[i].sc);
        free(c->ranks[i].path);
    }
    free(c->ranks);
    vp_stt_free(&c->stt);
    vp_hccl_free(&c->hccl);
    free(c->groups);
    free(c->ci);
    free(c->rpcs);
    vp_strmap_free(c->pgs);
}

/* The partial result of traces (docs/partials.md, "comm"): per rank its
 * totals and the communication kernels of each step, the process group
 * names in the order they were first seen (the collectives table sorts on
 * it), and the collectives table's rows in the order they were first
 * seen; the step_trace_time rows (computed from Ascend traces, or read
 * from step_trace_time.csv, cluster files and DBs) with their parallel
 * groups; communication.json's operations and communication_matrix.json's
 * links (version 2). */
enum { COMM_PART_VERSION = 2 };

static void comm_save(void *ctx, vp_buf *b)
{
    const comm *c = ctx;
    vp_put_u64(b, c->nranks);
    for (size_t i = 0; i < c->nranks; i++) {
        const rank_row *r = &c->ranks[i];
        vp_put_i64(b, r->rank);
        vp_put_str(b, r->path, strlen(r->path));
        vp_gpu_totals_put(b, &r->t);
        vp_put_i64(b, r->step_time);
        vp_put_i64(b, (int64_t)r->nsteps);
        vp_put_i64(b, (int64_t)r->gpu_events);
        vp_put_u64(b, r->nsc);
        for (size_t k = 0; k < r->nsc; k++) {
            vp_put_i64(b, r->sc[k].step);
            vp_put_i64(b, r->sc[k].start);
            vp_put_i64(b, r->sc[k].dur);
        }
    }
    size_t npg = vp_strmap_count(c->pgs);
    vp_put_u64(b, npg);
    for (size_t i = 0; i < npg; i++) {
        size_t len;
        const char *k = vp_strmap_key(c->pgs, i, &len);
        vp_put_str(b, k, len);
    }
    vp_put_u64(b, c->ngroups);
    for (size_t i = 0; i < c->ngroups; i++) {
        const coll_group *g = &c->groups[i];
        vp_put_u64(b, (uint64_t)g->type);
        vp_put_i64(b, g->pg);
        vp_put_i64(b, g->group);
        vp_put_i64(b, g->stream);
        const int64_t v[] = {g->count, g->total, g->exposed, g->sized_bytes, g->sized_time,
                             g->sized_count};
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            vp_put_i64(b, v[k]);
    }
    asc_stt_save(&c->stt, c->stt_source, b);
    asc_hccl_save(&c->hccl, c->have_comm_json, c->have_matrix, b);
}

static int comm_merge(void *ctx, const void *p, size_t n, vp_error *err)
{
    comm *c = ctx;
    vp_rd r;
    vp_rd_init(&r, p, n);
    size_t nr = vp_get_count(&r, 20);
    for (size_t i = 0; i < nr && !r.bad; i++) {
        size_t ri = new_rank(c);
        rank_row *rr = &c->ranks[ri];
        rr->rank = (long)vp_get_i64(&r);
        size_t len;
        const char *path = vp_get_str(&r, &len);
        rr->path = vp_strndup(path, len);
        vp_gpu_totals_get(&r, &rr->t);
        rr->step_time = vp_get_i64(&r);
        rr->nsteps = (size_t)vp_get_i64(&r);
        rr->gpu_events = (uint64_t)vp_get_i64(&r);
        size_t nsc = vp_get_count(&r, 3);
        rr->sc = vp_malloc((nsc ? nsc : 1) * sizeof *rr->sc);
        rr->nsc = rr->cap_sc = nsc;
        for (size_t k = 0; k < nsc; k++) {
            rr->sc[k].step = (long)vp_get_i64(&r);
            rr->sc[k].start = vp_get_i64(&r);
            rr->sc[k].dur = vp_get_i64(&r);
        }
    }
    size_t npg = vp_get_count(&r, 1);
    int32_t *pgmap = vp_malloc((npg ? npg : 1) * sizeof *pgmap);
    for (size_t i = 0; i < npg; i++) {
        size_t len;
        const char *k = vp_get_str(&r, &len);
        int inserted;
        void **slot = vp_strmap_upsert(c->pgs, k, len, &inserted);
        if (inserted)
            *slot = (void *)(uintptr_t)vp_strmap_count(c->pgs);
        pgmap[i] = (int32_t)((uintptr_t)*slot - 1);
    }
    size_t ng = vp_get_count(&r, 10);
    for (size_t i = 0; i < ng && !r.bad; i++) {
        coll_info ci = {(vp_coll)vp_get_u64(&r), -1, -1, -1};
        int64_t pg = vp_get_i64(&r);
        ci.group = vp_get_i64(&r);
        int32_t stream = (int32_t)vp_get_i64(&r);
        if (pg >= (int64_t)npg || pg < -1) {
            r.bad = 1;
            break;
        }
        ci.pg = pg >= 0 ? pgmap[pg] : -1;
        coll_group *g = group_of(c, &ci, stream);
        g->count += vp_get_i64(&r);
        g->total += vp_get_i64(&r);
        g->exposed += vp_get_i64(&r);
        g->sized_bytes += vp_get_i64(&r);
        g->sized_time += vp_get_i64(&r);
        g->sized_count += vp_get_i64(&r);
    }
    free(pgmap);
    if (!r.bad)
        asc_stt_merge(&c->stt, &c->stt_source, &r);
    if (!r.bad)
        asc_hccl_merge(&c->hccl, &c->have_comm_json, &c->have_matrix, &r);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged comm partial result");
        return -1;
    }
    return 0;
}

static int comm_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    comm one;
    memset(&one, 0, sizeof one);
    one.common = ((const comm *)ctx)->common;
    one.pgs = vp_strmap_new();
    one.rank_override = -1;
    one.pos0 = i;
    /* An Ascend operand (a directory, a summary file) by its kind, as
     * cmd_comm read them before partials; a trace otherwise. */
    asc_arg a = asc_arg_of(input);
    int status;
    if (a.is_dir)
        status = read_ascend_dir(&one, input);
    else if (a.kind != VP_ASC_TRACE)
        status = read_ascend_file(&one, input, a.kind, (long)i);
    else
        status = read_file(&one, input, new_rank(&one));
    if (status == VP_EXIT_OK)
        comm_save(&one, out);
    comm_free(&one);
    return status;
}

int cmd_comm(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_STEPS_LONGOPT,
        VP_TOP_LONGOPT,
        VP_SCALE_LONGOPTS,
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("comm");
    comm c;
    memset(&c, 0, sizeof c);
    vp_common_init(&c.common);
    c.pgs = vp_strmap_new();
    c.rank_override = -1;
    int opt, status = VP_EXIT_USAGE;
    optind = 1;
    while ((opt = vp_getopt(&c.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        vp_usage_error("comm", "unexpected option");
        status = VP_EXIT_USAGE;
        goto out;
    }
    if (opt == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (optind >= argc) {
        vp_usage_error("comm", "no trace given (a file, or - for standard input)");
        goto out;
    }
    vp_parts parts = {"comm", COMM_PART_VERSION, comm_analyse, comm_merge, comm_save, &c};
    status = vp_parts_run(&c.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status != VP_EXIT_OK) {
        if (status == VP_PARTS_DONE)
            status = VP_EXIT_OK;
        goto out;
    }
    for (size_t i = 0; i < c.nranks; i++)
        for (size_t j = 0; j < i; j++)
            if (c.ranks[i].rank == c.ranks[j].rank)
                vp_warn("%s and %s both are rank %ld", c.ranks[j].path, c.ranks[i].path,
                        c.ranks[i].rank);
    vp_table *tables[8];
    size_t nt = 0;
    if (c.nranks) {
        tables[nt++] = rank_table(&c);
        tables[nt++] = collective_table(&c);
    }
    if (c.nranks > 1) {
        tables[nt++] = spread_table(&c);
        tables[nt++] = straggler_table(&c);
    }
    if (c.stt_source)
        tables[nt++] = asc_stt_table(&c.stt, 1, c.stt_source);
    asc_hccl_tables(&c.hccl, c.have_comm_json, c.have_matrix, tables, &nt);
    status = vp_emit_tables(&c.common, tables, nt, "vprof.comm/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
out:
    comm_free(&c);
    return status;
}
