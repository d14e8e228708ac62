/* Per-name duration statistics of one family of trace events: the result
 * model of `vprof api` (nsys cuda_api_sum: runtime and driver calls),
 * `vprof copies` (cuda_gpu_mem_time_sum and cuda_gpu_mem_size_sum: memcpy
 * and memset per operation kind, with the bytes of args.bytes) and
 * `vprof ranges` (nvtx_sum: user_annotation and gpu_user_annotation
 * ranges).  One file pass fills it for any of the three; each group keeps
 * every duration (and byte count) for exact medians.  save/merge carry a
 * partial result (docs/partials.md, "api, copies, ranges").  Nothing here
 * prints. */
#ifndef VPROF_EVSUM_H
#define VPROF_EVSUM_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/rangeproj.h"
#include "vprof/stats.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/util.h"

typedef enum vp_evsum_family {
    VP_EVSUM_API,      /* cuda_runtime, cuda_driver, other *_runtime/_driver calls;
                        * AscendCL calls of Ascend traces (named without "AscendCL@") */
    VP_EVSUM_COPIES,   /* gpu_memcpy/Memcpy per kind (HtoD ...), gpu_memset/Memset */
    VP_EVSUM_RANGES,   /* user_annotation and gpu_user_annotation, per category */
} vp_evsum_family;

typedef struct vp_evsum_opts {
    vp_evsum_family family;
    /* Only what the steps of this range hold (NULL: all): API calls and
     * ranges that start inside a selected step's window, copies launched
     * inside one (correlation id, as kernels). */
    const vp_step_range *steps;
    int by_rank;                    /* a group per name and rank */
    int project;                    /* ranges: the GPU projection too (proj) */
    int partial;                    /* accept truncated traces */
    void (*say)(const char *msg);   /* what was read, per file; NULL: quiet */
} vp_evsum_opts;

/* One name (and, for ranges, category).  Bytes: copies only, of the
 * instances whose args hold "bytes" (nbytes of them). */
typedef struct vp_evgroup {
    uint32_t name, cat;             /* into vp_evsum.str; cat UINT32_MAX: none */
    long rank;                      /* -1: not grouped by rank */
    int64_t *dur, *bytes;
    size_t n, nbytes, cap, capb;
    vp_summary d, b;                /* after vp_evsum_finish */
} vp_evgroup;

typedef struct vp_evsum {
    vp_evsum_opts o;
    char **str;
    size_t nstr;
    vp_evgroup *groups;
    size_t ngroups, cap;
    size_t nfiles;
    int64_t grand;                  /* after finish: the total duration of all groups */
    int64_t no_dur;                 /* events of the family without "dur" (skipped) */
    vp_rangeproj *proj;             /* with opts.project: nvtx_gpu_proj_sum's model */
    /* private */
    vp_strmap *strs, *keys;
} vp_evsum;

void vp_evsum_init(vp_evsum *s, const vp_evsum_opts *o);
void vp_evsum_free(vp_evsum *s);

/* One trace; position: its place among the inputs (its rank when
 * nothing else says).  An exit status, err set when not OK. */
int vp_evsum_read(vp_evsum *s, const char *path, size_t position, vp_error *err);

/* One file read by a pass that another reader drives (summary's run
 * metrics read the api analysis in their own pass): begin, observe every
 * event (the shape of a vp_trace_pass_fn, ctx being the vp_evsum_file),
 * end once the trace is read whole, with the driving pass's steps
 * (selected by the same range as opts.steps; NULL without one) and rank,
 * free.  The per-event and end-of-file logic is vp_evsum_read's; the
 * steps' warning is the driving pass's. */
typedef struct vp_evsum_file vp_evsum_file;
vp_evsum_file *vp_evsum_file_begin(vp_evsum *s);
void vp_evsum_file_observe(void *ctx, const vp_event *ev);
void vp_evsum_file_end(vp_evsum_file *f, vp_steps *steps, long rank);
void vp_evsum_file_free(vp_evsum_file *f);

/* The operation kind of a memcpy event's name ("Memcpy HtoD (Pageable ->
 * Device)" -> "HtoD"; "Memcpy" alone or no kind -> "other"). */
const char *vp_copy_kind(const char *name, size_t n, size_t *len);

#define VP_EVSUM_PART_VERSION 2
void vp_evsum_save(const vp_evsum *s, vp_buf *b);
int vp_evsum_merge(vp_evsum *s, const void *p, size_t n, vp_error *err);

/* Summarises the groups and sorts them by total duration (ties by name,
 * then category, then rank); the projection too. */
void vp_evsum_finish(vp_evsum *s);

#endif
