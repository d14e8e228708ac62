/* User ranges projected onto the GPU: the model of `vprof ranges`' second
 * table, nsys `nvtx_gpu_proj_sum` (and, per instance, its
 * `nvtx_gpu_proj_trace`), over Kineto's user_annotation ranges.
 *
 * As nsys defines it (its report's SQL, docs/ranges.md): a GPU operation
 * (kernel, memcpy, memset) is inside a range when the runtime or driver
 * call that launched it (same correlation id) lies wholly inside the range
 * on the range's thread (range start <= call start, call end <= range
 * end).  Every enclosing range gets it, not only the innermost.  A range
 * with at least one operation is projected: from the start of its first
 * operation to the end of its last; its GPU ops are the distinct
 * correlation ids; its level is its depth among all the ranges of its
 * thread (0: outermost; the parent is the innermost enclosing range), its
 * children the projected ranges whose parent it is.  Ranges without GPU
 * work are not listed.  Instances are summed per name (and rank).
 *
 * Per file: vp_projfile_observe every event, then vp_projfile_end adds the
 * file's projected instances to a vp_rangeproj.  The file's ranges, calls
 * and GPU operations are held until its end (80, 40 and 24 bytes each):
 * Kineto writes the GPU events after the CPU ones, the launches in any
 * order.  Nothing here prints. */
#ifndef VPROF_RANGEPROJ_H
#define VPROF_RANGEPROJ_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/stats.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/util.h"

/* One range name (and rank): its projected instances. */
typedef struct vp_projgroup {
    uint32_t name;             /* into vp_rangeproj.str */
    long rank;                 /* -1: not grouped by rank */
    int64_t *proj;             /* projected durations, one per instance */
    size_t n, cap;
    int64_t range_total;       /* the instances' own (CPU) durations */
    int64_t ops;               /* distinct correlation ids, summed */
    int64_t levels, children;  /* summed, for the averages */
    int64_t gpu_time;          /* the durations of the instances' operations */
    vp_summary d;              /* of proj, after vp_rangeproj_finish */
} vp_projgroup;

typedef struct vp_rangeproj {
    char **str;
    size_t nstr;
    vp_projgroup *groups;
    size_t ngroups, cap;
    int64_t grand;             /* after finish: the sum of every Total Proj Time */
    /* private */
    vp_strmap *strs, *keys;
} vp_rangeproj;

void vp_rangeproj_init(vp_rangeproj *m);
void vp_rangeproj_free(vp_rangeproj *m);

/* One projected instance of range `name` (len bytes) on rank (-1: none). */
void vp_rangeproj_add(vp_rangeproj *m, const char *name, size_t len, long rank, int64_t proj,
                      int64_t range_dur, int64_t ops, int64_t level, int64_t children,
                      int64_t gpu_time);

void vp_rangeproj_save(const vp_rangeproj *m, vp_buf *b);
/* Reads what vp_rangeproj_save wrote from r into m (r->bad when damaged). */
struct vp_rd;
void vp_rangeproj_load(vp_rangeproj *m, struct vp_rd *r);

/* Summarises and sorts by Total Proj Time, descending (ties: name, rank). */
void vp_rangeproj_finish(vp_rangeproj *m);

/* The pass over one file. */
typedef struct vp_projfile vp_projfile;
vp_projfile *vp_projfile_new(void);
void vp_projfile_free(vp_projfile *f);
void vp_projfile_observe(vp_projfile *f, const vp_event *ev);
/* Projects the file's ranges and adds the instances to m with rank.
 * steps: NULL, or steps already selected (vp_steps_select): only the
 * ranges that start inside a selected step's window count. */
void vp_projfile_end(vp_projfile *f, vp_rangeproj *m, long rank, vp_steps *steps);

#endif
