/* Where GPU time went, per kernel: the result model of `vprof kernels`
 * (and the per-name totals of vprof/runstats.h).  Kernels are grouped by
 * name, or by name and/or the dimensions asked for; a group keeps every
 * duration (for exact medians), or, for rows that a profiler summed up
 * (op_statistic.csv), their count, total, min and max.
 *
 * Fill it from inputs (vp_kernels_read) or kernel by kernel
 * (vp_kernels_name, vp_kernels_group, vp_kernels_add); save/merge carry a
 * partial result between processes (docs/partials.md, "kernels");
 * vp_kernels_finish summarises and sorts.  Nothing here prints: warnings
 * go through vp_warn, what -v says through opts.say. */
#ifndef VPROF_KERNELS_H
#define VPROF_KERNELS_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "vprof/classify.h"
#include "vprof/error.h"
#include "vprof/gpuwork.h"
#include "vprof/stats.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/util.h"

enum {
    VP_KDIM_CLASS = 1, VP_KDIM_STREAM = 2, VP_KDIM_RANK = 4, VP_KDIM_DEVICE = 8,
    VP_KDIM_TYPE = 16, VP_KDIM_CORE = 32,
    /* the dimensions a row can total over without the kernel name */
    VP_KDIM_TOTALS = VP_KDIM_CLASS | VP_KDIM_STREAM | VP_KDIM_TYPE | VP_KDIM_CORE,
};
typedef enum vp_ksort {
    VP_KSORT_TOTAL, VP_KSORT_COUNT, VP_KSORT_AVG, VP_KSORT_MED, VP_KSORT_MAX, VP_KSORT_NAME,
} vp_ksort;

typedef struct vp_kernels_opts {
    unsigned kinds;                 /* bit per vp_gpu_kind */
    unsigned dims;                  /* VP_KDIM_*; 0: by name alone */
    int by_name;                    /* name is a grouping too */
    const regex_t *filter, *exclude;/* NULL: none */
    const vp_step_range *steps;     /* NULL: every kernel counts */
    int partial;                    /* accept truncated traces */
    int totals_only;                /* a trace's kernels kept as their groups' count,
                                     * total, min and max (no median): what a total per
                                     * group needs, in constant memory */
    void (*say)(const char *msg);   /* what was read, per file; NULL: quiet */
    vp_kclass_rules *classes;       /* overrides of the class rules; NULL: none */
} vp_kernels_opts;

typedef struct vp_kname {
    char *text;
    size_t len;
    vp_kclass cls;
    int kept;          /* after filter/exclude */
    uint32_t group;    /* the group when grouping by name alone, else UINT32_MAX */
} vp_kname;

typedef struct vp_kgroup_key {
    uint32_t name;     /* UINT32_MAX: not grouped by name */
    int32_t file;      /* the file, standing for its rank (known only at its end) */
    int64_t device;
    int64_t stream;
    int32_t cls;
    int32_t mrank;     /* in a merged trace (vprof merge): 1 + the rank of the event's pid */
    int32_t type;      /* Ascend op type, interned (str); 0 = none */
    int32_t core;      /* Ascend accelerator core (Task Type), interned; 0 = none */
} vp_kgroup_key;

typedef struct vp_kgroup {
    vp_kgroup_key key;
    int64_t *samples;
    size_t n, cap;
    /* Instances known only in aggregate: a group with any has no exact
     * median nor standard deviation. */
    int64_t agg_n, agg_total, agg_min, agg_max;
    vp_summary sum;    /* after vp_kernels_finish */
    long rank;         /* after vp_kernels_finish */
} vp_kgroup;

struct vp_kpending;
struct vp_npu_tracks;

typedef struct vp_kernels {
    vp_kernels_opts o;
    vp_strmap *names;  /* name -> index + 1 into knames */
    vp_kname *knames;
    size_t nnames, cap_names;
    vp_kgroup *groups;
    size_t ngroups, cap_groups;
    char **str;        /* interned Ascend types and cores; id 0 = "" */
    size_t nstr;
    long *ranks;       /* per file */
    long *merged;      /* per file: pids per rank of a merged trace, 0 for others */
    char **paths;      /* per file */
    size_t nfiles;
    int64_t grand;     /* after vp_kernels_finish: the total of every group */
    /* private */
    uint32_t *gindex;
    size_t gcap;
    uint32_t glast;    /* 1 + the group group_of found last; 0: none */
    struct vp_kpending *pend;
    size_t npend, cap_pend;
    struct vp_kdefer *defer;   /* the file's kernels whose class waits for their launcher */
    size_t ndefer, cap_defer;
    vp_strmap *strs;
    struct vp_npu_tracks *npu;
    long rank_override;
    size_t pos0;
} vp_kernels;

void vp_kernels_init(vp_kernels *k, const vp_kernels_opts *o);
void vp_kernels_free(vp_kernels *k);

/* One input: a trace, an Ascend CSV or DB, or an Ascend directory (one
 * file per rank).  position: the input's place among the inputs, the
 * rank of its files when nothing else says.  An exit status, err set
 * when it is not VP_EXIT_OK. */
int vp_kernels_read(vp_kernels *k, const char *input, size_t position, vp_error *err);

/* One rank of an Ascend directory (vprof/ascend_files.h) into nk models
 * (at most VP_KERNELS_TEE) from one reading of each file, as
 * vp_kernels_read reads the rank: its kernel_details.csv (op_summary, or
 * its DB), else, when it has no trace either, its op_statistic.csv.
 * When the rank's operators are its trace, nothing is read and *trace is
 * that file, for the caller to read (vp_kernels_trace_*), e.g. riding on
 * another analysis' pass (vprof report).  An exit status, err set when it
 * is not VP_EXIT_OK. */
#define VP_KERNELS_TEE 4
struct vp_asc_rank;
int vp_kernels_read_asc_rank(vp_kernels *const *ks, size_t nk, const struct vp_asc_rank *r,
                             const char **trace, vp_error *err);

/* The file vp_kernels_read_asc_rank reads for the rank: its
 * kernel_details.csv (op_summary), else its trace, else its DB, else its
 * op_statistic.csv; NULL with err set when it has none. */
const char *vp_kernels_asc_file(const struct vp_asc_rank *r, vp_error *err);

/* A rank's kernel_details.csv (op_summary) or DB read by the caller for
 * nk models (at most VP_KERNELS_TEE), as vp_kernels_read_asc_rank reads
 * it, while others take its rows too (vprof report: the run's metrics
 * take the same rows as device work): begin (rank: the rank's files'
 * rank, -1 to let the rows or the position say), give
 * vp_kernels_rows_take (ctx: rows) every row vp_asc_read_kernels gives,
 * end after the whole reading with the rows it skipped. */
struct vp_asc_kernel;
typedef struct vp_kernels_rows {
    vp_kernels *const *ks;
    size_t nk;
    size_t file[VP_KERNELS_TEE];
    uint64_t rows[VP_KERNELS_TEE];
} vp_kernels_rows;
void vp_kernels_rows_begin(vp_kernels_rows *rows, vp_kernels *const *ks, size_t nk,
                           const char *path, long rank);
void vp_kernels_rows_take(void *rows, const struct vp_asc_kernel *k);
void vp_kernels_rows_end(vp_kernels_rows *rows, const char *path, uint64_t skipped);

/* One trace read by a pass of the caller's (vprof/tracepass.h), which
 * other analyses may observe too (vprof report): begin before the
 * reading (pass need not be open yet), give vp_kernels_trace_observe
 * every event, end after the whole reading (the steps selected, the rank
 * told).  vp_kernels_read reads a trace this way. */
typedef struct vp_kernels_trace {
    vp_kernels *k;
    size_t file;
    const struct vp_trace_pass *pass;
    int started;
    uint64_t kernels, no_dur;   /* counted, skipped without "dur" */
} vp_kernels_trace;
void vp_kernels_trace_begin(vp_kernels_trace *t, vp_kernels *k, const char *path,
                            const struct vp_trace_pass *pass);
void vp_kernels_trace_observe(void *ctx, const vp_event *ev);
/* vp_kernels_trace_observe with the GPU event vp_gpuwork appended for ev
 * (w->ev[gi]; gi -1: none), as a reader of a vp_gpu_pass has it (vprof
 * report, kernels --by class): the model takes that event's kind and
 * class (its name, its args, the --comm/--compute-kernels overrides)
 * rather than the name's alone, and a model that neither groups nor
 * filters by name does not look the name up (hashing a long kernel name
 * is most of what an event costs it).  Grouped by class, a kernel that
 * only its launching op can make communication (VP_GPU_F_UNDECIDED) waits
 * for vp_kernels_trace_end's w: one classification for kernels, comm,
 * steps and summary (docs/classification.md). */
void vp_kernels_trace_observe_gpu(vp_kernels_trace *t, const vp_event *ev, const vp_gpuwork *w,
                                  long gi);
/* After the whole reading; w: the pass's GPU work, resolved (its
 * launchers' evidence applied), or NULL without a vp_gpu_pass. */
void vp_kernels_trace_end(vp_kernels_trace *t, const vp_gpuwork *w);

#define VP_KERNELS_PART_VERSION 2
void vp_kernels_save(const vp_kernels *k, vp_buf *b);
/* Adds a partial of the inputs that follow; -1 with err set when damaged. */
int vp_kernels_merge(vp_kernels *k, const void *p, size_t n, vp_error *err);

/* The grouping.  cls VP_CLASS_COUNT: classify the name as a kind's event. */
uint32_t vp_kernels_name(vp_kernels *k, const char *name, size_t len, vp_kclass cls,
                         vp_gpu_kind kind);
/* The group of a kernel (file: its index in k->ranks; pid -1: not a
 * merged trace's event). */
uint32_t vp_kernels_group(vp_kernels *k, size_t file, uint32_t name, int64_t pid,
                          int64_t device, int64_t stream, int32_t type, int32_t core);
void vp_kernels_add(vp_kernels *k, uint32_t group, int64_t dur);
/* count instances of total ns between min and max, known only in sum. */
void vp_kernels_add_aggregate(vp_kernels *k, uint32_t group, int64_t count, int64_t total,
                              int64_t min, int64_t max);

/* Drops empty groups, summarises the others (their sum and rank) and
 * sorts them by key (ties: total, name, then the dimensions). */
void vp_kernels_finish(vp_kernels *k, vp_ksort key);
/* The statistics of groups[from..] together (their instances); *exact: 0
 * when some are known only in aggregate. */
void vp_kernels_fold(const vp_kernels *k, size_t from, vp_summary *s, int *exact);

#endif
