/* The table of the analyses that make partial results (vprof/analyses.h).
 * Adding one: its wrappers (MODEL_LIFE for a model kept in storage of its
 * own type) and one line in the table at the end. */
#include <stdlib.h>
#include <string.h>

#include "vprof/analyses.h"
#include "vprof/breakdown.h"
#include "vprof/comm.h"
#include "vprof/counters.h"
#include "vprof/evsum.h"
#include "vprof/kernels.h"
#include "vprof/launches.h"
#include "vprof/memevents.h"
#include "vprof/ops.h"
#include "vprof/report_run.h"
#include "vprof/roofline.h"
#include "vprof/runstats.h"

/* new, merge, save and free of a model initialised in place by init(m,
 * opts) (opts NULL: widest), typed here once so that the table holds
 * functions of one signature (calling a function through a pointer of
 * another type is undefined, and UBSan's -fsanitize=function says so). */
#define MODEL_LIFE(name, type, opts_type, init, merge_fn, save_fn, free_fn, widest) \
    static void *name##_new(const void *opts) \
    { \
        type *m = vp_malloc(sizeof *m); \
        init(m, opts ? (const opts_type *)opts : (widest)); \
        return m; \
    } \
    static int name##_merge(void *m, const void *p, size_t n, vp_error *err) \
    { \
        return merge_fn(m, p, n, err); \
    } \
    static void name##_save(const void *m, vp_buf *out) \
    { \
        save_fn(m, out); \
    } \
    static void name##_free(void *m) \
    { \
        if (m) \
            free_fn(m); \
        free(m); \
    }

/* ---- kernels ---- */

/* Every kind and grouping, so that any key a partial holds has a place. */
static const vp_kernels_opts kernels_widest = {
    .kinds = 1u << VP_GPU_KERNEL | 1u << VP_GPU_MEMCPY | 1u << VP_GPU_MEMSET | 1u << VP_GPU_SYNC,
    .by_name = 1,
    .dims = VP_KDIM_CLASS | VP_KDIM_STREAM | VP_KDIM_RANK | VP_KDIM_DEVICE | VP_KDIM_TYPE |
            VP_KDIM_CORE,
};
MODEL_LIFE(kernels, vp_kernels, vp_kernels_opts, vp_kernels_init, vp_kernels_merge,
           vp_kernels_save, vp_kernels_free, &kernels_widest)

static int kernels_read(void *m, const void *opts, const char *input, size_t i, vp_error *err)
{
    (void)opts;
    return vp_kernels_read(m, input, i, err);
}

static void kernels_finish(void *m)
{
    vp_kernels_finish(m, VP_KSORT_TOTAL);
}

/* ---- ops ---- */

static const vp_ops_opts ops_widest = {.dims = VP_ODIM_SHAPE | VP_ODIM_RANK};
MODEL_LIFE(ops, vp_ops, vp_ops_opts, vp_ops_init, vp_ops_merge, vp_ops_save, vp_ops_free,
           &ops_widest)

static int ops_read(void *m, const void *opts, const char *input, size_t i, vp_error *err)
{
    (void)opts;
    return vp_ops_read(m, input, i, err);
}

static void ops_finish(void *m)
{
    vp_ops_finish(m, VP_OSORT_CPU_TOTAL);
}

/* ---- roofline: an ops model read by name and arguments ---- */

static void roofline_ops_init(vp_ops *m, const vp_ops_opts *o)
{
    vp_ops_opts widest;
    if (!o) {
        vp_roofline_ops_opts(&(vp_roofline_opts){.by_rank = 1}, &widest);
        o = &widest;
    }
    vp_ops_init(m, o);
}
MODEL_LIFE(roofline, vp_ops, vp_ops_opts, roofline_ops_init, vp_ops_merge, vp_ops_save,
           vp_ops_free, NULL)

/* ---- launches ---- */

/* HTA's cutoffs, every launch kept. */
static const vp_launches_opts launches_widest = {
    .runtime_cutoff = 50000, .delay_cutoff = 100000, .keep = -1,
};
MODEL_LIFE(launches, vp_launches, vp_launches_opts, vp_launches_init, vp_launches_merge,
           vp_launches_save, vp_launches_free, &launches_widest)

static int launches_read(void *m, const void *opts, const char *input, size_t i, vp_error *err)
{
    (void)opts;
    return vp_launches_read(m, input, i, err);
}

static void launches_finish(void *m)
{
    vp_launches_finish(m);
}

/* ---- counters ---- */

static const vp_counters_opts counters_widest = {0};
MODEL_LIFE(counters, vp_counters, vp_counters_opts, vp_counters_init, vp_counters_merge,
           vp_counters_save, vp_counters_free, &counters_widest)

static int counters_read(void *m, const void *opts, const char *input, size_t i, vp_error *err)
{
    (void)opts;
    return vp_counters_read(m, input, i, err);
}

static void counters_finish(void *m)
{
    vp_counters_finish(m);
}

/* ---- api, copies, ranges: one model, a family each ---- */

static const vp_evsum_opts api_widest = {.family = VP_EVSUM_API, .by_rank = 1};
static const vp_evsum_opts copies_widest = {.family = VP_EVSUM_COPIES, .by_rank = 1};
static const vp_evsum_opts ranges_widest = {.family = VP_EVSUM_RANGES, .by_rank = 1, .project = 1};
MODEL_LIFE(api, vp_evsum, vp_evsum_opts, vp_evsum_init, vp_evsum_merge, vp_evsum_save,
           vp_evsum_free, &api_widest)

static void *copies_new(const void *opts)
{
    return api_new(opts ? opts : &copies_widest);
}

static void *ranges_new(const void *opts)
{
    return api_new(opts ? opts : &ranges_widest);
}

static int evsum_read(void *m, const void *opts, const char *input, size_t i, vp_error *err)
{
    (void)opts;
    return vp_evsum_read(m, input, i, err);
}

static void evsum_finish(void *m)
{
    vp_evsum_finish(m);
}

/* ---- summary, check, diff: the run's metrics ---- */

static void *run_new(const void *opts)
{
    (void)opts;   /* a run's options shape its reading, not the model */
    return vp_run_new();
}

static int run_merge(void *m, const void *p, size_t n, vp_error *err)
{
    return vp_run_merge(m, p, n, err);
}

static void run_save(const void *m, vp_buf *out)
{
    vp_run_save(m, out);
}

static void run_free(void *m)
{
    vp_run_free(m);
}

static int run_read(void *m, const void *opts, const char *input, size_t i, vp_error *err)
{
    static const vp_run_opts plain;
    if (vp_run_add_file(m, input, (long)i, opts ? opts : &plain, err) == 0)
        return VP_EXIT_OK;
    if (!err->status)
        err->status = VP_EXIT_INPUT;
    return err->status;
}

static void run_finish(void *m)
{
    vp_run_finish(m);
}

/* ---- memory: the events of traces ---- */

static void *memory_new(const void *opts)
{
    (void)opts;
    return vp_memevents_new(0);
}

static int memory_merge(void *m, const void *p, size_t n, vp_error *err)
{
    return vp_memevents_merge(m, p, n, err);
}

static void memory_save(const void *m, vp_buf *out)
{
    vp_memevents_save(m, out);
}

static void memory_free(void *m)
{
    vp_memevents_free(m);
}

static void memory_finish(void *m)
{
    vp_memevents_finish(m);
}

/* ---- comm and steps: read by their commands (Ascend directories) ---- */

static void comm_init(vp_comm *c, const void *opts)
{
    (void)opts;
    vp_comm_init(c);
}
MODEL_LIFE(comm, vp_comm, void, comm_init, vp_comm_merge, vp_comm_save, vp_comm_free, NULL)

static void steps_init(vp_breakdown *b, const void *opts)
{
    (void)opts;
    vp_breakdown_init(b);
}
MODEL_LIFE(steps, vp_breakdown, void, steps_init, vp_breakdown_merge, vp_breakdown_save,
           vp_breakdown_free, NULL)

/* ---- report: the run's metrics with steps, comm, kernels and memory ---- */

static void report_init(vp_report_run *r, const vp_run_opts *o)
{
    vp_report_run_init(r, o);
}
MODEL_LIFE(report, vp_report_run, vp_run_opts, report_init, vp_report_run_merge,
           vp_report_run_save, vp_report_run_free, NULL)

static int report_read(void *m, const void *opts, const char *input, size_t i, vp_error *err)
{
    (void)opts;   /* the model's, given to new_model */
    return vp_report_run_read(m, input, i, err);
}

static void report_finish(void *m)
{
    vp_report_run_finish(m);
}

#define ENTRY(cmd, version, life, read, finish) \
    {cmd, version, life##_new, life##_merge, life##_save, life##_free, read, finish}

static const vp_analysis table[] = {
    ENTRY("kernels", VP_KERNELS_PART_VERSION, kernels, kernels_read, kernels_finish),
    ENTRY("ops", VP_OPS_PART_VERSION, ops, ops_read, ops_finish),
    ENTRY("roofline", VP_OPS_PART_VERSION, roofline, ops_read, ops_finish),
    ENTRY("launches", VP_LAUNCHES_PART_VERSION, launches, launches_read, launches_finish),
    ENTRY("counters", VP_COUNTERS_PART_VERSION, counters, counters_read, counters_finish),
    {"api", VP_EVSUM_PART_VERSION, api_new, api_merge, api_save, api_free, evsum_read,
     evsum_finish},
    {"copies", VP_EVSUM_PART_VERSION, copies_new, api_merge, api_save, api_free, evsum_read,
     evsum_finish},
    {"ranges", VP_EVSUM_PART_VERSION, ranges_new, api_merge, api_save, api_free, evsum_read,
     evsum_finish},
    ENTRY("comm", VP_COMM_PART_VERSION, comm, NULL, NULL),
    ENTRY("steps", VP_BREAKDOWN_PART_VERSION, steps, NULL, NULL),
    ENTRY("summary", VP_RUN_PART_VERSION, run, run_read, run_finish),
    ENTRY("check", VP_RUN_PART_VERSION, run, run_read, run_finish),
    ENTRY("memory", VP_MEMEVENTS_PART_VERSION, memory, NULL, memory_finish),
    ENTRY("report", VP_REPORT_RUN_PART_VERSION, report, report_read, report_finish),
};

const vp_analysis *vp_analyses(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const vp_analysis *vp_analysis_find(const char *command)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].command, command) == 0)
            return &table[i];
    return NULL;
}
