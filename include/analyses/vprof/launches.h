/* How long launches take and wait: the result model of `vprof launches`.
 *
 * Every kernel, memcpy and memset joined with the CPU call that launched
 * it (vprof/corrjoin.h) gives one launch with HTA's three numbers
 * (get_cuda_kernel_launch_stats, hta/analyzers/cuda_kernel_analysis.py):
 *   CPU duration  = the call's dur;
 *   GPU duration  = the GPU event's dur;
 *   launch delay  = GPU start - (call start + call dur), 0 when negative.
 * Per file: the launches, the counts HTA's plots show (calls longer than
 * the runtime cutoff; delays longer than the delay cutoff; GPU work shorter
 * than its call, among calls within the runtime cutoff) and the GPU events
 * with no launching call.  Per API and kernel name (kernels only), nsys
 * cuda_kern_exec_sum's statistics: API time (the call), queue time (end of
 * the call to the kernel's start, counted only when positive: QCount),
 * kernel time, and total time (call start to the later of the call's and
 * the kernel's end).
 *
 * Per-launch rows are kept up to opts.keep (the first by opts.sort), so
 * memory is bounded by what the table shows; the per-name groups keep every
 * sample for exact medians.  save/merge carry a partial result
 * (docs/partials.md, "launches").  Nothing here prints. */
#ifndef VPROF_LAUNCHES_H
#define VPROF_LAUNCHES_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/stats.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/util.h"

typedef enum vp_lsort {
    VP_LSORT_DELAY, VP_LSORT_CPU, VP_LSORT_GPU, VP_LSORT_START,
} vp_lsort;

typedef struct vp_launches_opts {
    int64_t runtime_cutoff;         /* ns; HTA's runtime_cutoff (50 us) */
    int64_t delay_cutoff;           /* ns; HTA's launch_delay_cutoff (100 us) */
    const vp_step_range *steps;     /* NULL: every launch counts */
    long keep;                      /* per-launch rows kept: -1 all, 0 none, N */
    vp_lsort sort;                  /* which N: largest delay, CPU or GPU time; earliest */
    int partial;                    /* accept truncated traces */
    void (*say)(const char *msg);   /* what was read, per file; NULL: quiet */
    int counts_only;                /* the per-file counts alone: no per-name groups (and,
                                     * with keep 0, no names): summary's facts */
} vp_launches_opts;

/* One launch.  api and name index vp_launches.names. */
typedef struct vp_launch {
    int64_t corr, cpu_ts, gpu_ts, cpu_dur, gpu_dur, delay;
    uint32_t api, name;
    uint32_t file;
    uint32_t kind;                  /* vp_gpu_kind */
} vp_launch;

/* What one file (rank) held. */
typedef struct vp_lfile {
    char *path;
    long rank;
    int64_t launches, runtime_over, delay_over, short_gpu;
    int64_t cpu_total, gpu_total, delay_total, delay_max;
    int64_t unlaunched;             /* GPU work with no launching call in the file */
    int64_t launch_bound;           /* GPU work shorter than its call that the GPU waited
                                     * for: launch delay under the call's duration */
} vp_lfile;

/* One API and kernel name: the samples of cuda_kern_exec_sum. */
typedef struct vp_lgroup {
    uint32_t api, name;
    int64_t *api_t, *queue_t, *kernel_t, *total_t;
    size_t n, nq, cap, capq;
    vp_summary a, q, k, t;          /* after vp_launches_finish */
} vp_lgroup;

typedef struct vp_launches {
    vp_launches_opts o;
    char **names;                   /* API and kernel names, interned */
    size_t nnames;
    vp_lfile *files;
    size_t nfiles;
    vp_launch *rows;
    size_t nrows, cap_rows;
    int64_t all_rows;               /* launches in all, kept or not */
    vp_lgroup *groups;
    size_t ngroups, cap_groups;
    /* private */
    vp_strmap *name_map;            /* name -> index + 1 */
    vp_strmap *group_map;           /* "api,name" ids -> index + 1 */
    size_t pos0;
} vp_launches;

void vp_launches_init(vp_launches *l, const vp_launches_opts *o);
void vp_launches_free(vp_launches *l);

/* One trace (a file is a rank; position: its place among the inputs, the
 * rank when nothing else says).  An exit status, err set when not OK. */
int vp_launches_read(vp_launches *l, const char *path, size_t position, vp_error *err);

/* One file read by a pass that another reader drives (summary's run
 * metrics read launches in their own pass): vp_launches_read is begin,
 * observe every event, end (rank: the file's; steps: the pass's steps,
 * selected, or NULL for every launch; calls NULL), free.  observe has the
 * shape of a vp_trace_pass_fn, ctx being the vp_launches_file.
 *
 * A pass that parses the events already (vprof/gpuwork.h: its steps
 * record every launching call, by the same join) gives the GPU events
 * alone to vp_launches_file_work, with the correlation it read (has_corr
 * 0: none), and its steps as calls to end: names of calls are then not
 * kept (counts_only). */
typedef struct vp_launches_file vp_launches_file;
vp_launches_file *vp_launches_file_begin(vp_launches *l, const char *path, long position);
void vp_launches_file_observe(void *ctx, const vp_event *ev);
void vp_launches_file_work(vp_launches_file *f, const vp_event *ev, int64_t corr, int has_corr);
void vp_launches_file_end(vp_launches_file *f, long rank, vp_steps *steps,
                          const vp_steps *calls);
size_t vp_launches_file_calls(const vp_launches_file *f);   /* distinct launching calls */
void vp_launches_file_free(vp_launches_file *f);

/* Adds one launch of file (an index into l->files) to the model. */
void vp_launches_add(vp_launches *l, const vp_launch *x);

#define VP_LAUNCHES_PART_VERSION 2
void vp_launches_save(const vp_launches *l, vp_buf *b);
/* Adds a partial of the inputs that follow; -1 with err set when damaged. */
int vp_launches_merge(vp_launches *l, const void *p, size_t n, vp_error *err);

/* Sorts the rows by opts.sort (ties: rank, GPU start, correlation) and
 * keeps opts.keep of them; summarises the groups and sorts them by total
 * kernel time. */
void vp_launches_finish(vp_launches *l);

/* The model's parts, for the partial results (launches_part.c):
 * interning a name, a new file, a group's place, one group sample (and
 * one positive queue time), one kept row. */
uint32_t vp_launches_intern(vp_launches *l, const char *s, size_t n);
size_t vp_launches_new_file(vp_launches *l, const char *path, long rank);
vp_lgroup *vp_launches_group(vp_launches *l, uint32_t api, uint32_t name);
void vp_lgroup_add(vp_lgroup *g, int64_t api, int64_t kernel, int64_t total);
void vp_lgroup_add_queue(vp_lgroup *g, int64_t queue);
void vp_launches_keep_row(vp_launches *l, const vp_launch *x);

#endif
