/* Per-name duration statistics of one family of trace events: the result
 * model of `vprof api` (nsys cuda_api_sum: runtime and driver calls),
 * `vprof copies` (cuda_gpu_mem_time_sum and cuda_gpu_mem_size_sum: memcpy
 * and memset per operation kind, with the bytes of args.bytes) and
 * `vprof ranges` (nvtx_sum: user_annotation and gpu_user_annotation
 * ranges).  One file pass fills it for any of the three; each group keeps
 * every duration (and byte count) for exact medians.  An Ascend profile's
 * api_statistic.csv (api only) lists calls already totalled per API: they
 * join a group as pre-totalled parts (vp_evagg), without a median.
 * save/merge carry a partial result (docs/partials.md, "api, copies,
 * ranges").  Nothing here prints. */
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
    int by_level;                   /* api: a group per name and level (cat: the
                                     * api_statistic Level, "acl" for AscendCL calls
                                     * of a trace, else the event's category) */
    int project;                    /* ranges: the GPU projection too (proj) */
    int partial;                    /* accept truncated traces */
    void (*say)(const char *msg);   /* what was read, per file; NULL: quiet */
} vp_evsum_opts;

/* One name (and, for ranges, category; for api --by level, level).
 * Bytes: copies only, of the instances whose args hold "bytes" (nbytes of
 * them).  agg: pre-totalled parts, in the order read. */
typedef struct vp_evgroup {
    uint32_t name, cat;             /* into vp_evsum.str; cat UINT32_MAX: none */
    long rank;                      /* -1: not grouped by rank */
    int64_t *dur, *bytes;
    size_t n, nbytes, cap, capb;
    vp_evagg *agg;
    size_t nagg, capagg;
    vp_summary d, b;                /* after vp_evsum_finish; d.median NAN with agg */
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
 * nothing else says).  api also reads an Ascend profile directory (per
 * rank its api_statistic.csv, else its trace; with opts.steps the trace
 * first, since the CSV has no steps) and an api_statistic.csv itself.
 * An exit status, err set when not OK. */
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

/* Adds pre-totalled calls to the group of name (and cat, rank: as the
 * group's key); a.n >= 1. */
void vp_evsum_add_agg(vp_evsum *s, const char *name, const char *cat, long rank,
                      const vp_evagg *a);

#define VP_EVSUM_PART_VERSION 3   /* 3: the groups' pre-totalled parts */
void vp_evsum_save(const vp_evsum *s, vp_buf *b);
int vp_evsum_merge(vp_evsum *s, const void *p, size_t n, vp_error *err);

/* Summarises the groups and sorts them by total duration (ties by name,
 * then category, then rank); the projection too. */
void vp_evsum_finish(vp_evsum *s);

#endif
