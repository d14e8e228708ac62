/* vprof kernels: where GPU time went, per kernel name (and rank, device,
 * stream or class), with the columns of `nsys stats -r cuda_gpu_kern_sum`. */
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/ascend_cmd.h"
#include "cmd/cli.h"
#include "cmd/scale.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_summaries.h"
#include "vprof/ascend_tracks.h"
#include "vprof/classify.h"
#include "vprof/part.h"
#include "vprof/rank.h"
#include "vprof/stats.h"
#include "vprof/steps.h"
#include "vprof/table.h"
#include "vprof/trace.h"
#include "vprof/util.h"

const char cmd_kernels_usage[] =
    "usage: vprof kernels [options] TRACE...\n"
    "\n"
    "Where GPU time went, per kernel: one row per kernel name with the columns of\n"
    "`nsys stats --report cuda_gpu_kern_sum`. Several traces (a file is a rank) give\n"
    "one combined table; --by rank splits it. TRACE is a Chrome/Kineto trace, plain or\n"
    "gzip, or - for standard input.\n"
    "\n"
    "Ascend profiles (docs/ascend.md): a *_ascend_pt directory (or a folder of them, a\n"
    "PROF_* directory), kernel_details.csv, op_summary_*.csv, op_statistic.csv (per op\n"
    "type, no Med/StdDev) or trace_view.json. Their\n"
    "device tasks are the kernels; --by type (the op type) and --by core (AI_CORE,\n"
    "AI_VECTOR_CORE, MIX_AIC, MIX_AIV, AI_CPU, HCCL, DSA_SQE ...) group them; without\n"
    "name in the list, the rows are per type and/or core alone.\n"
    "\n"
    "  --include KINDS    also count memcpy, memset and/or sync events (comma list)\n"
    "  --by DIMS          group by name (default), and/or class, stream, rank, device,\n"
    "                     type, core (Ascend)\n"
    "                     (comma list; the columns come before Name in that order)\n"
    VP_TOP_USAGE
    "  --sort KEY         total (default), count, avg, med, max or name\n"
    "  --filter REGEX     keep kernels whose name matches (POSIX extended regex)\n"
    "  --exclude REGEX    drop kernels whose name matches\n"
    VP_STEPS_USAGE
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --full-names   never shorten kernel names in the table format\n"
    "      --partial      accept a truncated trace, with a warning saying how much was read\n"
    "  -v, --verbose      say which rank each file is, and why, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Columns: Time (%) is the row's share of the listed total; Total, Avg, Med (exact\n"
    "median), Min, Max and StdDev (sample standard deviation, 0 for one instance) are\n"
    "nanoseconds. Classes: docs/kernels.md.\n"
    "\n"
    "Examples:\n"
    "  vprof kernels trace.json.gz\n"
    "  vprof kernels -f csv --by rank rank*.json.gz > kernels.csv\n"
    "  zcat trace.json.gz | vprof kernels --top 20 -\n";

enum { DIM_CLASS = 1, DIM_STREAM = 2, DIM_RANK = 4, DIM_DEVICE = 8, DIM_TYPE = 16, DIM_CORE = 32 };
enum { SORT_TOTAL, SORT_COUNT, SORT_AVG, SORT_MED, SORT_MAX, SORT_NAME };

enum {
    OPT_INCLUDE = VP_OPT_FIRST_CMD,
    OPT_BY,
    OPT_SORT,
    OPT_FILTER,
    OPT_EXCLUDE,
};

typedef struct kname {
    char *text;
    size_t len;
    vp_kclass cls;
    int kept;          /* after --filter/--exclude */
    uint32_t group;    /* the group when grouping by name alone, else UINT32_MAX */
} kname;

typedef struct group_key {
    uint32_t name;
    int32_t file;      /* the file, standing for its rank (known only at its end) */
    int64_t device;
    int64_t stream;
    int32_t cls;
    int32_t mrank;     /* in a merged trace (vprof merge): 1 + the rank of the event's pid */
    int32_t type;      /* Ascend op type, interned; 0 = none */
    int32_t core;      /* Ascend accelerator core (Task Type), interned; 0 = none */
} group_key;

typedef struct group {
    group_key key;
    int64_t *samples;
    size_t n, cap;
    /* Instances known only in aggregate (op_statistic.csv rows): their
     * count, total, min and max.  A group with any has no exact median
     * nor standard deviation. */
    int64_t agg_n, agg_total, agg_min, agg_max;
    vp_summary sum;
    long rank;
} group;

/* A kernel kept for --steps until its launch is known.  An Ascend task
 * has no launch: its start time (ts) decides, or its Step Id. */
typedef struct pending {
    int64_t dur;
    int64_t ts;        /* Ascend: start (trace) or Step Id (CSV); INT64_MIN = none */
    uint32_t group;
    uint32_t corr;     /* UINT32_MAX = none */
} pending;

typedef struct kernels {
    vp_common_opts common;
    unsigned kinds;    /* bit per vp_gpu_kind */
    unsigned dims;
    char dim_order[6]; /* 'c', 's', 'r', 'd', 'y' (type), 'k' (core) in --by order */
    int by_name;       /* name is a grouping (always, unless --by names only type/core) */
    int ndims;
    int sort;
    regex_t filter, exclude;
    int has_filter, has_exclude;

    /* The result so far: a partial result (one input's, or the merge of
     * the first inputs'), see kernels_save. */
    vp_strmap *names;  /* name -> index + 1 into knames */
    kname *knames;
    size_t nnames, cap_names;
    group *groups;
    size_t ngroups, cap_groups;
    uint32_t *gindex;  /* open addressing over groups, UINT32_MAX = empty */
    size_t gcap;
    pending *pend;
    size_t npend, cap_pend;

    vp_strmap *strs;   /* Ascend types and cores -> id */
    char **str;        /* id -> text; id 0 = "" */
    size_t nstr;
    vp_npu_tracks *npu;/* the current file's Ascend tracks */
    long rank_override;/* the rank of the file being read (Ascend directories), -1 */
    long *ranks;       /* per file */
    long *merged;      /* per file: pids per rank of a merged trace, 0 for others */
    char **paths;      /* per file */
    size_t nfiles;
    size_t pos0;       /* the position of the first file (its operand's) */
} kernels;

static void add_sample(group *g, int64_t v)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 4;
        g->samples = vp_realloc(g->samples, g->cap * sizeof *g->samples);
    }
    g->samples[g->n++] = v;
}

/* An op_statistic row: count instances of total ns between min and max. */
static void add_aggregate(group *g, int64_t count, int64_t total, int64_t min, int64_t max)
{
    if (g->agg_n == 0 || min < g->agg_min)
        g->agg_min = min;
    if (g->agg_n == 0 || max > g->agg_max)
        g->agg_max = max;
    g->agg_n += count;
    g->agg_total += total;
}

/* cls VP_CLASS_COUNT: classify the name (as a kind's event) when it is
 * first seen; names repeat millions of times and the rules scan them. */
static uint32_t name_index(kernels *k, const char *name, size_t len, vp_kclass cls,
                           vp_gpu_kind kind)
{
    int inserted;
    void **slot = vp_strmap_upsert(k->names, name, len, &inserted);
    if (!inserted)
        return (uint32_t)((uintptr_t)*slot - 1);
    if (k->nnames == k->cap_names) {
        k->cap_names = k->cap_names ? k->cap_names * 2 : 256;
        k->knames = vp_realloc(k->knames, k->cap_names * sizeof *k->knames);
    }
    kname *kn = &k->knames[k->nnames];
    kn->text = vp_strndup(name, len);
    kn->len = len;
    kn->cls = cls == VP_CLASS_COUNT ? vp_classify(kind, name, len) : cls;
    kn->kept = 1;
    if (k->has_filter && regexec(&k->filter, kn->text, 0, NULL, 0) != 0)
        kn->kept = 0;
    if (k->has_exclude && regexec(&k->exclude, kn->text, 0, NULL, 0) == 0)
        kn->kept = 0;
    kn->group = UINT32_MAX;
    *slot = (void *)(uintptr_t)(k->nnames + 1);
    return (uint32_t)k->nnames++;
}

static int32_t intern(kernels *k, const char *s, size_t n)
{
    if (!n)
        return 0;
    int inserted;
    void **slot = vp_strmap_upsert(k->strs, s, n, &inserted);
    if (inserted) {
        if (k->nstr == 0) {
            k->str = vp_realloc(k->str, sizeof *k->str);
            k->str[k->nstr++] = vp_strdup("");
        }
        k->str = vp_realloc(k->str, (k->nstr + 1) * sizeof *k->str);
        k->str[k->nstr] = vp_strndup(s, n);
        *slot = (void *)(uintptr_t)k->nstr++;
    }
    return (int32_t)(uintptr_t)*slot;
}

static uint32_t new_group(kernels *k, const group_key *key)
{
    if (k->ngroups == k->cap_groups) {
        k->cap_groups = k->cap_groups ? k->cap_groups * 2 : 256;
        k->groups = vp_realloc(k->groups, k->cap_groups * sizeof *k->groups);
    }
    group *g = &k->groups[k->ngroups];
    memset(g, 0, sizeof *g);
    g->key = *key;
    return (uint32_t)k->ngroups++;
}

static void gindex_insert(kernels *k, uint32_t gi);

static void gindex_grow(kernels *k)
{
    free(k->gindex);
    k->gcap = k->gcap ? k->gcap * 2 : 1024;
    k->gindex = vp_malloc(k->gcap * sizeof *k->gindex);
    memset(k->gindex, 0xFF, k->gcap * sizeof *k->gindex);
    for (size_t i = 0; i < k->ngroups; i++)
        gindex_insert(k, (uint32_t)i);
}

static void gindex_insert(kernels *k, uint32_t gi)
{
    size_t mask = k->gcap - 1;
    size_t i = vp_hash_bytes(&k->groups[gi].key, sizeof(group_key)) & mask;
    while (k->gindex[i] != UINT32_MAX)
        i = (i + 1) & mask;
    k->gindex[i] = gi;
}

static uint32_t group_of(kernels *k, const group_key *key)
{
    if ((k->ngroups + 1) * 2 > k->gcap)
        gindex_grow(k);
    size_t mask = k->gcap - 1;
    size_t i = vp_hash_bytes(key, sizeof *key) & mask;
    while (k->gindex[i] != UINT32_MAX) {
        if (memcmp(&k->groups[k->gindex[i]].key, key, sizeof *key) == 0)
            return k->gindex[i];
        i = (i + 1) & mask;
    }
    uint32_t gi = new_group(k, key);
    k->gindex[i] = gi;
    return gi;
}

static int64_t span_int(vp_span v, int64_t fallback)
{
    int64_t x;
    return v.p && vp_json_int(v, &x) == 0 ? x : fallback;
}

typedef struct file_counts {
    uint64_t kernels, no_dur;
} file_counts;

/* The group of a kernel (by name alone, or by the --by dimensions). */
static uint32_t group_for(kernels *k, size_t file, uint32_t ni, int64_t pid, int64_t device,
                          int64_t stream, int32_t type, int32_t core)
{
    kname *kn = &k->knames[ni];
    if (k->dims == 0) {
        if (kn->group == UINT32_MAX) {
            group_key key = {.name = ni};
            kn->group = new_group(k, &key);
        }
        return kn->group;
    }
    group_key key = {.name = k->by_name ? ni : UINT32_MAX};
    if (k->dims & DIM_CLASS)
        key.cls = (int32_t)kn->cls;
    if (k->dims & DIM_RANK) {
        key.file = (int32_t)file;
        if (k->merged[file] && pid >= 0)
            key.mrank = (int32_t)(pid / k->merged[file] + 1);
    }
    if (k->dims & DIM_DEVICE)
        key.device = device;
    if (k->dims & DIM_STREAM)
        key.stream = stream;
    if (k->dims & DIM_TYPE)
        key.type = type;
    if (k->dims & DIM_CORE)
        key.core = core;
    return group_of(k, &key);
}

static void hold(kernels *k, int64_t dur, int64_t ts, uint32_t gi, int64_t corr)
{
    if (k->npend == k->cap_pend) {
        k->cap_pend = k->cap_pend ? k->cap_pend * 2 : 4096;
        k->pend = vp_realloc(k->pend, k->cap_pend * sizeof *k->pend);
    }
    k->pend[k->npend++] = (pending){
        .dur = dur,
        .ts = ts,
        .group = gi,
        .corr = corr >= 0 && corr < UINT32_MAX ? (uint32_t)corr : UINT32_MAX,
    };
}

static void take_event(kernels *k, size_t file, const vp_event *ev, vp_steps *steps,
                       file_counts *fc)
{
    vp_gpu_kind kind = vp_gpu_kind_of(ev->cat);
    vp_span core = {0};
    int npu = 0;
    vp_kclass cls = VP_CLASS_COMPUTE;
    if (kind == VP_GPU_NONE && ev->ph == 'M')
        vp_npu_tracks_observe(k->npu, ev);
    if (kind == VP_GPU_NONE && ev->ph == 'X' && ev->cat.n == 0 &&
        vp_npu_role_of(k->npu, ev) == VP_NPU_HARDWARE) {
        /* An Ascend device task: its class from its Task Type. */
        if (ev->args.p && vp_json_get(ev->args, "Task Type", &core) && vp_json_is_string(core))
            core.p++, core.n -= 2;
        else
            core.n = 0;
        cls = vp_npu_classify(core.p, core.n, ev->name.p, ev->name.n);
        kind = cls == VP_CLASS_MEMORY ? VP_GPU_MEMCPY
               : cls == VP_CLASS_SYNC ? VP_GPU_SYNC
                                      : VP_GPU_KERNEL;
        npu = 1;
    }
    if (kind == VP_GPU_NONE || !(k->kinds & (1u << kind)) || ev->ph != 'X') {
        if (steps)
            vp_steps_observe(steps, ev);
        return;
    }
    if (!ev->has_dur) {
        fc->no_dur++;
        return;
    }
    uint32_t ni = name_index(k, ev->name.p, ev->name.n, npu ? cls : VP_CLASS_COUNT, kind);
    kname *kn = &k->knames[ni];
    if (!kn->kept)
        return;
    fc->kernels++;

    vp_span vals[3] = {{0}};
    if (k->dims & (DIM_DEVICE | DIM_STREAM) || steps) {
        static const char *const keys[] = {"stream", "correlation", "device"};
        static const char *const npu_keys[] = {"Stream Id", "correlation", "device"};
        if (ev->args.p)
            vp_json_get_many(ev->args, npu ? npu_keys : keys, 3, vals);
    }
    /* pid, device and stream are parsed only for the groupings that use
     * them: the default (by name) is the hot path. */
    uint32_t gi;
    if (k->dims == 0) {
        gi = group_for(k, file, ni, -1, -1, -1, 0, 0);
    } else {
        int64_t pid = span_int(ev->pid, -1);
        gi = group_for(k, file, ni, pid, span_int(vals[2], pid), span_int(vals[0], span_int(ev->tid, -1)),
                       0, intern(k, core.p, core.n));
    }
    if (!steps) {
        add_sample(&k->groups[gi], ev->dur);
        return;
    }
    hold(k, ev->dur, npu ? ev->ts : INT64_MIN, gi, npu ? -1 : span_int(vals[1], -1));
}

/* Resolves the kernels of one file held for --steps. */
static void resolve_steps(kernels *k, vp_steps *steps, const char *path, size_t first)
{
    size_t nsteps = vp_steps_count(steps);
    size_t chosen = vp_steps_select(steps, &k->common.steps);
    if (nsteps == 0)
        vp_warn("%s: --steps: the trace has no ProfilerStep#N annotations, so no kernel is "
                "kept",
                path);
    else if (chosen == 0)
        vp_warn("%s: --steps selects none of the steps present (ProfilerStep#%ld to #%ld)", path,
                vp_steps_number(steps, 0), vp_steps_number(steps, nsteps - 1));
    for (size_t i = first; i < k->npend; i++) {
        pending *p = &k->pend[i];
        int64_t a, b;
        long at;
        if (p->ts != INT64_MIN) {
            /* An Ascend task: the step whose window holds its start. */
            if ((at = vp_steps_at(steps, p->ts)) >= 0 &&
                vp_steps_window(steps, (size_t)at, &a, &b) == 1)
                add_sample(&k->groups[p->group], p->dur);
        } else if (p->corr != UINT32_MAX && vp_steps_selected(steps, p->corr)) {
            add_sample(&k->groups[p->group], p->dur);
        }
    }
    k->npend = first;
}

static int read_file(kernels *k, const char *path, size_t file)
{
    vp_error err = {0};
    vp_trace_opts topts = {.partial = k->common.partial, .progress = 1};
    vp_trace *t = vp_trace_open(path, &topts, &err);
    if (!t) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    vp_steps *steps = k->common.has_steps ? vp_steps_new() : NULL;
    file_counts fc = {0};
    vp_npu_tracks_free(k->npu);
    k->npu = vp_npu_tracks_new();
    vp_event ev;
    int r = vp_trace_next(t, &ev, &err);
    if (r == 1)
        k->merged[file] = vp_rank_merged_pids(vp_trace_meta(t));
    for (; r == 1; r = vp_trace_next(t, &ev, &err))
        take_event(k, file, &ev, steps, &fc);
    if (r < 0) {
        vp_error_print(&err);
        vp_steps_free(steps);
        vp_trace_close(t);
        return VP_EXIT_INPUT;
    }
    if (steps) {
        resolve_steps(k, steps, vp_trace_name(t), 0);
        vp_steps_free(steps);
    }
    vp_rank_source rs;
    k->ranks[file] = vp_rank_detect(vp_trace_meta(t), path, (long)(k->pos0 + file), &rs);
    if (k->rank_override >= 0)
        k->ranks[file] = k->rank_override;
    const vp_trace_stats *st = vp_trace_get_stats(t);
    if (fc.no_dur)
        vp_warn("%s: %llu kernel events without \"dur\" were skipped", vp_trace_name(t),
                (unsigned long long)fc.no_dur);
    if (st->bad_utf8)
        vp_warn("%s: %llu invalid UTF-8 sequences in names were replaced by U+FFFD",
                vp_trace_name(t), (unsigned long long)st->bad_utf8);
    if (k->common.verbose && k->merged[file])
        fprintf(stderr, "vprof: %s: merged trace: the rank of an event is its pid / %ld\n",
                vp_trace_name(t), k->merged[file]);
    else if (k->common.verbose)
        fprintf(stderr, "vprof: %s: rank %ld (from %s); read %llu events in %llu bytes%s, counted %llu kernels\n",
                vp_trace_name(t), k->ranks[file], vp_rank_source_name(rs),
                (unsigned long long)st->events, (unsigned long long)st->bytes,
                st->truncated ? " (truncated)" : "", (unsigned long long)fc.kernels);
    vp_trace_close(t);
    return VP_EXIT_OK;
}

/* kernel_details.csv / op_summary rows as kernels. */
typedef struct csv_ctx {
    kernels *k;
    size_t file;
    uint64_t rows;
} csv_ctx;

static void take_row(void *ctx, const vp_asc_kernel *r)
{
    csv_ctx *cc = ctx;
    kernels *k = cc->k;
    size_t tn = strlen(r->core);
    vp_kclass cls = vp_npu_classify(r->core, tn, r->name, strlen(r->name));
    vp_gpu_kind kind = cls == VP_CLASS_MEMORY ? VP_GPU_MEMCPY
                       : cls == VP_CLASS_SYNC ? VP_GPU_SYNC
                                              : VP_GPU_KERNEL;
    if (!(k->kinds & (1u << kind)))
        return;
    uint32_t ni = name_index(k, r->name, strlen(r->name), cls, VP_GPU_KERNEL);
    if (!k->knames[ni].kept)
        return;
    cc->rows++;
    uint32_t gi = group_for(k, cc->file, ni, -1, r->device, r->stream,
                            intern(k, r->type, strlen(r->type)), intern(k, r->core, tn));
    if (k->common.has_steps)
        hold(k, r->dur, r->step >= 0 ? r->step : INT64_MIN, gi, -1);
    else
        add_sample(&k->groups[gi], r->dur);
}

/* op_statistic.csv rows: the op type is the name (the file lists no op
 * names), the core type the core. */
static void take_opstat(void *ctx, const vp_asc_opstat *o)
{
    csv_ctx *cc = ctx;
    kernels *k = cc->k;
    size_t tn = strlen(o->core), yn = strlen(o->type);
    vp_kclass cls = vp_npu_classify(o->core, tn, o->type, yn);
    vp_gpu_kind kind = cls == VP_CLASS_MEMORY ? VP_GPU_MEMCPY
                       : cls == VP_CLASS_SYNC ? VP_GPU_SYNC
                                              : VP_GPU_KERNEL;
    if (!(k->kinds & (1u << kind)))
        return;
    uint32_t ni = name_index(k, o->type, yn, cls, VP_GPU_KERNEL);
    if (!k->knames[ni].kept)
        return;
    cc->rows++;
    uint32_t gi = group_for(k, cc->file, ni, -1, o->device, -1, intern(k, o->type, yn),
                            intern(k, o->core, tn));
    /* A missing min or max: the average is the best bound there is. */
    int64_t avg = o->total / o->count;
    add_aggregate(&k->groups[gi], o->count, o->total, o->min >= 0 ? o->min : avg,
                  o->max >= 0 ? o->max : avg);
}

/* --steps on Step Id: the same slice over the step numbers present. */
static void resolve_csv_steps(kernels *k, const char *path)
{
    long *v = vp_malloc((k->npend ? k->npend : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < k->npend; i++)
        if (k->pend[i].ts != INT64_MIN)
            v[n++] = (long)k->pend[i].ts;
    /* distinct, ascending (a few steps: insertion into a sorted prefix) */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < m && v[j] < v[i])
            j++;
        if (j < m && v[j] == v[i])
            continue;
        long x = v[i];
        memmove(v + j + 1, v + j, (m - j) * sizeof *v);
        v[j] = x;
        m++;
    }
    const vp_step_range *r = &k->common.steps;
    size_t a = 0, b = m;
    if (r->single) {
        a = m;
        for (size_t i = 0; i < m; i++)
            if ((r->start >= 0 && v[i] == r->start) || (r->start < 0 && (long)i == (long)m + r->start))
                a = i;
        b = a < m ? a + 1 : m;
    } else {
        if (r->has_start) {
            if (r->start >= 0)
                while (a < m && v[a] < r->start)
                    a++;
            else
                a = (long)m + r->start > 0 ? (size_t)((long)m + r->start) : 0;
        }
        if (r->has_stop) {
            if (r->stop >= 0) {
                b = 0;
                while (b < m && v[b] < r->stop)
                    b++;
            } else {
                b = (long)m + r->stop > 0 ? (size_t)((long)m + r->stop) : 0;
            }
        }
    }
    if (m == 0)
        vp_warn("%s: --steps: no Step Id column, so no kernel is kept", path);
    else if (a >= b)
        vp_warn("%s: --steps selects none of the steps present (Step Id %ld to %ld)", path, v[0],
                v[m - 1]);
    for (size_t i = 0; i < k->npend; i++) {
        pending *p = &k->pend[i];
        for (size_t j = a; j < b && j < m; j++)
            if (p->ts == v[j])
                add_sample(&k->groups[p->group], p->dur);
    }
    k->npend = 0;
    free(v);
}

static int read_csv(kernels *k, const char *path, size_t file)
{
    vp_error err = {0};
    csv_ctx cc = {k, file, 0};
    uint64_t skipped = 0;
    if (vp_asc_read_kernels(path, take_row, &cc, &skipped, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    if (k->common.has_steps)
        resolve_csv_steps(k, path);
    if (k->ranks[file] < 0)
        k->ranks[file] = k->rank_override >= 0 ? k->rank_override : (long)(k->pos0 + file);
    if (skipped)
        vp_warn("%s: %llu rows without a duration were skipped", path,
                (unsigned long long)skipped);
    if (k->common.verbose)
        fprintf(stderr, "vprof: %s: rank %ld; %llu kernel rows\n", path, k->ranks[file],
                (unsigned long long)cc.rows);
    return VP_EXIT_OK;
}

/* op_statistic.csv: per op type and core type, counted by the profiler.
 * It has no steps, so --steps keeps none of it (as for a kernel CSV
 * without Step Id). */
static int read_opstat(kernels *k, const char *path, size_t file)
{
    vp_error err = {0};
    csv_ctx cc = {k, file, 0};
    uint64_t skipped = 0;
    if (k->common.has_steps) {
        vp_warn("%s: --steps: op_statistic.csv has no steps, so none of its rows is kept",
                path);
    } else if (vp_asc_read_opstat(path, take_opstat, &cc, &skipped, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    if (k->ranks[file] < 0)
        k->ranks[file] = k->rank_override >= 0 ? k->rank_override : (long)(k->pos0 + file);
    if (skipped)
        vp_warn("%s: %llu rows without a count or a total time were skipped", path,
                (unsigned long long)skipped);
    if (k->common.verbose)
        fprintf(stderr, "vprof: %s: rank %ld; %llu op_statistic rows\n", path, k->ranks[file],
                (unsigned long long)cc.rows);
    return VP_EXIT_OK;
}

static size_t new_file(kernels *k, const char *path)
{
    k->ranks = vp_realloc(k->ranks, (k->nfiles + 1) * sizeof *k->ranks);
    k->merged = vp_realloc(k->merged, (k->nfiles + 1) * sizeof *k->merged);
    k->paths = vp_realloc(k->paths, (k->nfiles + 1) * sizeof *k->paths);
    k->ranks[k->nfiles] = -1;
    k->merged[k->nfiles] = 0;
    k->paths[k->nfiles] = vp_strdup(path);
    return k->nfiles++;
}

/* An Ascend directory: per rank kernel_details.csv (op_summary), else
 * its trace, else its DB, else op_statistic.csv (aggregates only). */
static int read_ascend_dir(kernels *k, const char *path)
{
    vp_error err = {0};
    vp_asc_run run;
    if (vp_asc_scan(path, &run, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    int status = VP_EXIT_OK;
    if (run.n == 0) {
        fprintf(stderr, "vprof: %s: no rank directory (kernels needs kernel_details.csv or "
                        "trace_view.json)\n",
                path);
        status = VP_EXIT_INPUT;
    }
    for (size_t i = 0; i < run.n && status == VP_EXIT_OK; i++) {
        vp_asc_rank *r = &run.ranks[i];
        const char *f = vp_asc_need(r, VP_ASC_KERNELS, VP_ASC_TRACE, &err);
        const char *stat = f ? NULL : r->files[VP_ASC_OP_STATISTIC];
        if (!f && !stat) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
            break;
        }
        memset(&err, 0, sizeof err);   /* op_statistic.csv stands in */
        k->rank_override = r->rank;
        size_t file = new_file(k, f ? f : stat);
        status = stat                           ? read_opstat(k, stat, file)
                 : f != r->files[VP_ASC_TRACE] ? read_csv(k, f, file)
                                                : read_file(k, f, file);
        k->rank_override = -1;
    }
    vp_asc_run_free(&run);
    return status;
}

static int sort_key;
static const kernels *sort_ctx;

static int cmp_group(const void *a, const void *b)
{
    const group *x = a, *y = b;
    const char *tx = x->key.name == UINT32_MAX ? "" : sort_ctx->knames[x->key.name].text;
    const char *ty = y->key.name == UINT32_MAX ? "" : sort_ctx->knames[y->key.name].text;
    int c = 0;
    switch (sort_key) {
    case SORT_COUNT: c = (y->sum.n > x->sum.n) - (y->sum.n < x->sum.n); break;
    case SORT_AVG: c = (y->sum.mean > x->sum.mean) - (y->sum.mean < x->sum.mean); break;
    case SORT_MED: c = (y->sum.median > x->sum.median) - (y->sum.median < x->sum.median); break;
    case SORT_MAX: c = (y->sum.max > x->sum.max) - (y->sum.max < x->sum.max); break;
    case SORT_NAME: break;
    default: c = (y->sum.total > x->sum.total) - (y->sum.total < x->sum.total); break;
    }
    if (c)
        return c;
    if (sort_key != SORT_NAME && y->sum.total != x->sum.total)
        return (y->sum.total > x->sum.total) - (y->sum.total < x->sum.total);
    c = strcmp(tx, ty);
    if (c)
        return c;
    if (x->key.core != y->key.core)
        return strcmp(sort_ctx->str[x->key.core], sort_ctx->str[y->key.core]);
    if (x->key.type != y->key.type)
        return strcmp(sort_ctx->str[x->key.type], sort_ctx->str[y->key.type]);
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    if (x->key.device != y->key.device)
        return (x->key.device > y->key.device) - (x->key.device < y->key.device);
    if (x->key.stream != y->key.stream)
        return (x->key.stream > y->key.stream) - (x->key.stream < y->key.stream);
    return (x->key.cls > y->key.cls) - (x->key.cls < y->key.cls);
}

/* exact: every instance known (no aggregate), so Med and StdDev exist. */
static void put_stats(vp_table *t, size_t row, const vp_summary *s, int64_t grand, int exact)
{
    vp_table_set_double(t, row, 0, grand ? 100.0 * (double)s->total / (double)grand : 0.0);
    vp_table_set_int(t, row, 1, s->total);
    vp_table_set_int(t, row, 2, s->n);
    vp_table_set_double(t, row, 3, s->mean);
    if (exact)
        vp_table_set_double(t, row, 4, s->median);
    vp_table_set_int(t, row, 5, s->min);
    vp_table_set_int(t, row, 6, s->max);
    if (exact)
        vp_table_set_double(t, row, 7, s->stddev);
}

/* Adds aggregated instances to a summary of samples: count, total, min,
 * max and mean stay exact; the median is left at the mean (for --sort
 * med only: it is not printed). */
static void add_aggregate_sum(vp_summary *s, int64_t n, int64_t total, int64_t min, int64_t max)
{
    if (!n)
        return;
    if (s->n == 0 || min < s->min)
        s->min = min;
    if (s->n == 0 || max > s->max)
        s->max = max;
    s->n += n;
    s->total += total;
    s->mean = (double)s->total / (double)s->n;
    s->median = s->mean;
    s->stddev = 0;
}

static vp_table *build_table(kernels *k)
{
    vp_table *t = vp_table_new("kernels");
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 1);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "Avg", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Med", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Min", VP_COL_NS, 0);
    vp_table_add_col(t, "Max", VP_COL_NS, 0);
    vp_table_add_col(t, "StdDev", VP_COL_NS_F, 1);
    for (int d = 0; d < k->ndims; d++) {
        switch (k->dim_order[d]) {
        case 'r': vp_table_add_col(t, "Rank", VP_COL_INT, 0); break;
        case 'd': vp_table_add_col(t, "Device", VP_COL_INT, 0); break;
        case 's': vp_table_add_col(t, "Stream", VP_COL_INT, 0); break;
        case 'c': vp_table_add_col(t, "Class", VP_COL_TEXT, 0); break;
        case 'y': vp_table_add_col(t, "Type", VP_COL_TEXT, 0); break;
        case 'k': vp_table_add_col(t, "Accelerator Core", VP_COL_TEXT, 0); break;
        }
    }
    int name_col = k->by_name ? vp_table_add_col(t, "Name", VP_COL_TEXT, 0) : -1;

    /* Drop empty groups (all filtered by --steps), summarise the rest. */
    size_t n = 0;
    int64_t grand = 0;
    for (size_t i = 0; i < k->ngroups; i++) {
        group *g = &k->groups[i];
        if (!g->n && !g->agg_n) {
            free(g->samples);
            continue;
        }
        g->rank = g->key.mrank ? g->key.mrank - 1 : k->ranks[g->key.file];
        vp_summarize(g->samples, g->n, &g->sum);
        add_aggregate_sum(&g->sum, g->agg_n, g->agg_total, g->agg_min, g->agg_max);
        grand += g->sum.total;
        k->groups[n++] = *g;
    }
    k->ngroups = n;
    sort_key = k->sort;
    sort_ctx = k;
    if (n)
        qsort(k->groups, n, sizeof *k->groups, cmp_group);

    int aggregated = 0;
    for (size_t i = 0; i < n; i++)
        aggregated |= k->groups[i].agg_n != 0;
    if (aggregated)
        vp_table_add_note(t, "rows with op_statistic.csv instances have no Med nor StdDev: the "
                             "file gives each op type's count, total, min and max only");
    size_t shown = k->common.top > 0 && (size_t)k->common.top < n ? (size_t)k->common.top : n;
    for (size_t i = 0; i < shown; i++) {
        const group *g = &k->groups[i];
        size_t row = vp_table_add_row(t);
        put_stats(t, row, &g->sum, grand, g->agg_n == 0);
        int col = 8;
        for (int d = 0; d < k->ndims; d++, col++) {
            switch (k->dim_order[d]) {
            case 'r': vp_table_set_int(t, row, col, g->rank); break;
            case 'd': vp_table_set_int(t, row, col, g->key.device); break;
            case 's': vp_table_set_int(t, row, col, g->key.stream); break;
            case 'c': vp_table_set_text(t, row, col, vp_kclass_name((vp_kclass)g->key.cls)); break;
            case 'y':
                if (g->key.type)
                    vp_table_set_text(t, row, col, k->str[g->key.type]);
                break;
            case 'k':
                if (g->key.core)
                    vp_table_set_text(t, row, col, k->str[g->key.core]);
                break;
            }
        }
        if (name_col >= 0) {
            const kname *kn = &k->knames[g->key.name];
            vp_table_set_textn(t, row, name_col, kn->text, kn->len);
        }
    }
    if (shown < n) {
        /* (others): statistics over the folded instances themselves. */
        size_t total = 0;
        for (size_t i = shown; i < n; i++)
            total += k->groups[i].n;
        int64_t *all = vp_malloc((total ? total : 1) * sizeof *all);
        size_t w = 0;
        for (size_t i = shown; i < n; i++) {
            if (k->groups[i].n)   /* op_statistic groups have no samples */
                memcpy(all + w, k->groups[i].samples, k->groups[i].n * sizeof *all);
            w += k->groups[i].n;
        }
        vp_summary s;
        vp_summarize(all, total, &s);
        free(all);
        int exact = 1;
        for (size_t i = shown; i < n; i++) {
            const group *g = &k->groups[i];
            add_aggregate_sum(&s, g->agg_n, g->agg_total, g->agg_min, g->agg_max);
            exact &= g->agg_n == 0;
        }
        size_t row = vp_table_add_row(t);
        put_stats(t, row, &s, grand, exact);
        char label[64];
        snprintf(label, sizeof label, "(others: %zu rows)", n - shown);
        vp_table_set_text(t, row, name_col >= 0 ? name_col : 8, label);
    }
    return t;
}

static int parse_include(kernels *k, const char *arg)
{
    char *copy = vp_strdup(arg), *save = NULL;
    int ok = 1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "memcpy") == 0)
            k->kinds |= 1u << VP_GPU_MEMCPY;
        else if (strcmp(tok, "memset") == 0)
            k->kinds |= 1u << VP_GPU_MEMSET;
        else if (strcmp(tok, "sync") == 0)
            k->kinds |= 1u << VP_GPU_SYNC;
        else if (strcmp(tok, "kernel") == 0)
            ;
        else {
            vp_usage_error("kernels", "--include: unknown kind '%s' (memcpy, memset, sync)", tok);
            ok = 0;
            break;
        }
    }
    free(copy);
    return ok ? 0 : -1;
}

static int parse_by(kernels *k, const char *arg)
{
    char *copy = vp_strdup(arg), *save = NULL;
    int ok = 1;
    k->dims = 0;
    k->ndims = 0;
    int named = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned bit;
        char c;
        if (strcmp(tok, "name") == 0) {
            named = 1;
            continue;
        }
        if (strcmp(tok, "type") == 0)
            bit = DIM_TYPE, c = 'y';
        else if (strcmp(tok, "core") == 0)
            bit = DIM_CORE, c = 'k';
        else
        if (strcmp(tok, "class") == 0)
            bit = DIM_CLASS, c = 'c';
        else if (strcmp(tok, "stream") == 0)
            bit = DIM_STREAM, c = 's';
        else if (strcmp(tok, "rank") == 0)
            bit = DIM_RANK, c = 'r';
        else if (strcmp(tok, "device") == 0)
            bit = DIM_DEVICE, c = 'd';
        else {
            vp_usage_error("kernels",
                           "--by: unknown grouping '%s' (name, class, stream, rank, device, type, "
                           "core)",
                           tok);
            ok = 0;
            break;
        }
        if (!(k->dims & bit)) {
            k->dims |= bit;
            k->dim_order[k->ndims++] = c;
        }
    }
    free(copy);
    /* type and core without name: per type/core alone (the Ascend
     * summaries by op type and accelerator core). */
    k->by_name = named || !(k->dims & (DIM_TYPE | DIM_CORE)) ||
                 (k->dims & ~(unsigned)(DIM_TYPE | DIM_CORE));
    return ok ? 0 : -1;
}

static int parse_sort(kernels *k, const char *arg)
{
    static const char *const keys[] = {"total", "count", "avg", "med", "max", "name"};
    for (int i = 0; i < 6; i++)
        if (strcmp(arg, keys[i]) == 0) {
            k->sort = i;
            return 0;
        }
    vp_usage_error("kernels", "--sort: unknown key '%s' (total, count, avg, med, max, name)", arg);
    return -1;
}

static int compile(regex_t *re, const char *pattern, const char *opt)
{
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[200];
        regerror(rc, re, msg, sizeof msg);
        vp_usage_error("kernels", "%s '%s': %s", opt, pattern, msg);
        return -1;
    }
    return 0;
}

/* The result, not the options (a worker's copy shares the regexes). */
static void kernels_free_data(kernels *k)
{
    for (size_t i = 0; i < k->ngroups; i++)
        free(k->groups[i].samples);
    for (size_t i = 0; i < k->nnames; i++)
        free(k->knames[i].text);
    free(k->groups);
    free(k->knames);
    free(k->gindex);
    free(k->pend);
    free(k->ranks);
    free(k->merged);
    for (size_t i = 0; i < k->nfiles; i++)
        free(k->paths[i]);
    free(k->paths);
    vp_strmap_free(k->names);
    vp_strmap_free(k->strs);
    for (size_t i = 0; i < k->nstr; i++)
        free(k->str[i]);
    free(k->str);
    vp_npu_tracks_free(k->npu);
}

static void kernels_free(kernels *k)
{
    kernels_free_data(k);
    if (k->has_filter)
        regfree(&k->filter);
    if (k->has_exclude)
        regfree(&k->exclude);
}

/* One operand: a trace, an Ascend CSV or database, or an Ascend directory. */
static int read_input(kernels *k, const char *arg)
{
    asc_arg a = asc_arg_of(arg);
    if (a.is_dir)
        return read_ascend_dir(k, arg);
    if (a.kind == VP_ASC_KERNELS || a.kind == VP_ASC_DB)
        return read_csv(k, arg, new_file(k, arg));
    if (a.kind == VP_ASC_OP_STATISTIC)
        return read_opstat(k, arg, new_file(k, arg));
    if (a.kind != VP_ASC_TRACE) {
        fprintf(stderr, "vprof: %s: a %s has no kernels (kernels reads traces, "
                            "kernel_details.csv, op_summary and op_statistic CSVs)\n",
                    arg, vp_asc_file_name(a.kind));
        return VP_EXIT_INPUT;
    }
    return read_file(k, arg, new_file(k, arg));
}

/* The partial result (docs/partials.md, "kernels"): the files (rank,
 * merged-trace pids, path), the interned Ascend strings, the kernel names
 * and the groups with every sample, in the order they were first seen:
 * merged in input order they give the groups, and the samples in each,
 * in the order one process reading the files in turn gives them. */
enum { KERNELS_PART_VERSION = 2 };

static void kernels_save(void *ctx, vp_buf *b)
{
    const kernels *k = ctx;
    vp_put_u64(b, k->nfiles);
    for (size_t i = 0; i < k->nfiles; i++) {
        vp_put_i64(b, k->ranks[i]);
        vp_put_i64(b, k->merged[i]);
        vp_put_str(b, k->paths[i], strlen(k->paths[i]));
    }
    vp_put_u64(b, k->nstr ? k->nstr - 1 : 0);
    for (size_t i = 1; i < k->nstr; i++)
        vp_put_str(b, k->str[i], strlen(k->str[i]));
    vp_put_u64(b, k->nnames);
    for (size_t i = 0; i < k->nnames; i++) {
        vp_put_str(b, k->knames[i].text, k->knames[i].len);
        vp_put_u64(b, (uint64_t)k->knames[i].cls);
    }
    vp_put_u64(b, k->ngroups);
    for (size_t i = 0; i < k->ngroups; i++) {
        const group *g = &k->groups[i];
        vp_put_u64(b, g->key.name == UINT32_MAX ? 0 : (uint64_t)g->key.name + 1);
        vp_put_u64(b, (uint64_t)g->key.file);
        vp_put_i64(b, g->key.device);
        vp_put_i64(b, g->key.stream);
        vp_put_u64(b, (uint64_t)g->key.cls);
        vp_put_u64(b, (uint64_t)g->key.mrank);
        vp_put_u64(b, (uint64_t)g->key.type);
        vp_put_u64(b, (uint64_t)g->key.core);
        vp_put_u64(b, g->n);
        for (size_t j = 0; j < g->n; j++)
            vp_put_i64(b, g->samples[j]);
        vp_put_i64(b, g->agg_n);
        if (g->agg_n) {
            vp_put_i64(b, g->agg_total);
            vp_put_i64(b, g->agg_min);
            vp_put_i64(b, g->agg_max);
        }
    }
}

static int kernels_merge(void *ctx, const void *p, size_t n, vp_error *err)
{
    kernels *k = ctx;
    vp_rd r;
    vp_rd_init(&r, p, n);
    size_t base = k->nfiles;
    size_t nf = vp_get_count(&r, 3);
    for (size_t i = 0; i < nf; i++) {
        long rank = (long)vp_get_i64(&r), merged = (long)vp_get_i64(&r);
        size_t len;
        const char *path = vp_get_str(&r, &len);
        char *tmp = vp_strndup(path, len);
        size_t f = new_file(k, tmp);
        free(tmp);
        k->ranks[f] = rank;
        k->merged[f] = merged;
    }
    size_t ns = vp_get_count(&r, 1);
    int32_t *smap = vp_malloc((ns + 1) * sizeof *smap);
    smap[0] = 0;
    for (size_t i = 0; i < ns; i++) {
        size_t len;
        const char *t = vp_get_str(&r, &len);
        smap[i + 1] = intern(k, t, len);
    }
    size_t nn = vp_get_count(&r, 2);
    uint32_t *nmap = vp_malloc((nn ? nn : 1) * sizeof *nmap);
    for (size_t i = 0; i < nn; i++) {
        size_t len;
        const char *t = vp_get_str(&r, &len);
        uint64_t cls = vp_get_u64(&r);
        nmap[i] = name_index(k, t, len, cls < VP_CLASS_COUNT ? (vp_kclass)cls : VP_CLASS_COMPUTE,
                             VP_GPU_KERNEL);
    }
    size_t ng = vp_get_count(&r, 9);
    for (size_t i = 0; i < ng && !r.bad; i++) {
        uint64_t name = vp_get_u64(&r), file = vp_get_u64(&r);
        group_key key = {.device = vp_get_i64(&r), .stream = vp_get_i64(&r)};
        key.cls = (int32_t)vp_get_u64(&r);
        key.mrank = (int32_t)vp_get_u64(&r);
        uint64_t type = vp_get_u64(&r), core = vp_get_u64(&r);
        size_t cnt = vp_get_count(&r, 1);
        if (name > nn || file >= (nf ? nf : 1) || type > ns || core > ns) {
            r.bad = 1;
            break;
        }
        key.name = name ? nmap[name - 1] : UINT32_MAX;
        key.file = k->dims & DIM_RANK ? (int32_t)(base + file) : 0;
        key.type = smap[type];
        key.core = smap[core];
        uint32_t gi;
        if (k->dims == 0) {
            if (key.name == UINT32_MAX) {
                r.bad = 1;
                break;
            }
            kname *kn = &k->knames[key.name];
            if (kn->group == UINT32_MAX)
                kn->group = new_group(k, &key);
            gi = kn->group;
        } else {
            gi = group_of(k, &key);
        }
        group *g = &k->groups[gi];
        for (size_t j = 0; j < cnt; j++)
            add_sample(g, vp_get_i64(&r));
        int64_t an = vp_get_i64(&r);
        if (an < 0) {
            r.bad = 1;
        } else if (an > 0) {
            int64_t at = vp_get_i64(&r), amin = vp_get_i64(&r), amax = vp_get_i64(&r);
            add_aggregate(g, an, at, amin, amax);
        }
    }
    free(smap);
    free(nmap);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged kernels partial result");
        return -1;
    }
    return 0;
}

/* A fresh result with k's options, for operand i alone. */
static int kernels_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    kernels one = *(const kernels *)ctx;
    one.names = vp_strmap_new();
    one.strs = vp_strmap_new();
    one.knames = NULL;
    one.nnames = one.cap_names = 0;
    one.groups = NULL;
    one.ngroups = one.cap_groups = 0;
    one.gindex = NULL;
    one.gcap = 0;
    one.pend = NULL;
    one.npend = one.cap_pend = 0;
    one.str = NULL;
    one.nstr = 0;
    one.npu = NULL;
    one.rank_override = -1;
    one.ranks = one.merged = NULL;
    one.paths = NULL;
    one.nfiles = 0;
    one.pos0 = i;
    int status = read_input(&one, input);
    if (status == VP_EXIT_OK)
        kernels_save(&one, out);
    kernels_free_data(&one);
    return status;
}

int cmd_kernels(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_STEPS_LONGOPT,
        VP_SCALE_LONGOPTS,
        {"include", required_argument, 0, OPT_INCLUDE},
        {"by", required_argument, 0, OPT_BY},
        {"sort", required_argument, 0, OPT_SORT},
        {"filter", required_argument, 0, OPT_FILTER},
        {"exclude", required_argument, 0, OPT_EXCLUDE},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("kernels");
    kernels k;
    memset(&k, 0, sizeof k);
    vp_common_init(&k.common);
    k.kinds = 1u << VP_GPU_KERNEL;
    k.by_name = 1;
    k.names = vp_strmap_new();
    k.strs = vp_strmap_new();
    k.rank_override = -1;
    int c, status = VP_EXIT_USAGE;
    optind = 1;
    while ((c = vp_getopt(&k.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (c) {
        case OPT_INCLUDE:
            if (parse_include(&k, optarg) != 0)
                goto out;
            break;
        case OPT_BY:
            if (parse_by(&k, optarg) != 0)
                goto out;
            break;
        case OPT_SORT:
            if (parse_sort(&k, optarg) != 0)
                goto out;
            break;
        case OPT_FILTER:
            if (k.has_filter)
                regfree(&k.filter);
            k.has_filter = 0;
            if (compile(&k.filter, optarg, "--filter") != 0)
                goto out;
            k.has_filter = 1;
            break;
        case OPT_EXCLUDE:
            if (k.has_exclude)
                regfree(&k.exclude);
            k.has_exclude = 0;
            if (compile(&k.exclude, optarg, "--exclude") != 0)
                goto out;
            k.has_exclude = 1;
            break;
        default:
            vp_usage_error("kernels", "unexpected option");
            goto out;
        }
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (optind >= argc) {
        vp_usage_error("kernels", "no trace given (a file, or - for standard input)");
        goto out;
    }
    vp_parts parts = {"kernels", KERNELS_PART_VERSION, kernels_analyse, kernels_merge,
                      kernels_save, &k};
    status = vp_parts_run(&k.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status != VP_EXIT_OK) {
        if (status == VP_PARTS_DONE)
            status = VP_EXIT_OK;
        goto out;
    }
    if (k.dims & DIM_RANK) {
        for (size_t i = 0; i < k.nfiles; i++)
            for (size_t j = 0; j < i; j++)
                if (k.ranks[i] == k.ranks[j] && !k.merged[i] && !k.merged[j])
                    vp_warn("%s and %s both are rank %ld: their rows are added together",
                            k.paths[j], k.paths[i], k.ranks[i]);
    }
    vp_table *t = build_table(&k);
    if (vp_table_rows(t) == 0)
        vp_table_add_note(t, "no GPU kernels in the input%s",
                          k.common.has_steps ? " (with --steps)" : "");
    status = vp_emit_tables(&k.common, &t, 1, "vprof.kernels/1");
    vp_table_free(t);
out:
    kernels_free(&k);
    return status;
}
