/* Communication against computation (vprof comm, docs/comm.md): per rank
 * the GPU time totals, per collective (type, process group, group size,
 * stream) its count, time, exposed time and message bytes, and per rank
 * the communication kernels of each step, from which the straggler of
 * each step is found.  Ascend inputs add step_trace_time rows and the
 * communication analyzer's records.
 *
 * Fill it a trace at a time: vp_comm_observe as the observer of a
 * vp_gpu_pass, then vp_comm_add_rank.  Partials (docs/partials.md,
 * "comm") save and merge it. */
#ifndef VPROF_COMM_H
#define VPROF_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/ascend_hccl.h"
#include "vprof/ascend_stt.h"
#include "vprof/collective.h"
#include "vprof/gpuwork.h"
#include "vprof/origin.h"
#include "vprof/part.h"
#include "vprof/util.h"

/* A communication kernel of a step, for the straggler rule. */
typedef struct vp_comm_step_coll {
    long step;            /* ProfilerStep number */
    int64_t start, dur;
} vp_comm_step_coll;

typedef struct vp_comm_rank {
    long rank;
    char *path;
    vp_gpu_totals t;
    int64_t step_time;    /* the selected steps' wall time, else the GPU span */
    int64_t step_exposed; /* the exposed communication inside step_time's windows */
    size_t nsteps;        /* steps in step_time; 0: it is the span */
    uint64_t gpu_events;
    long world;           /* distributedInfo.world_size, 0: not said */
    int64_t class_time[8];    /* vp_gpu_class_times: HTA's kernel-type table */
    unsigned class_instants;
    vp_comm_step_coll *sc;
    size_t nsc, cap_sc;
} vp_comm_rank;

/* Kernels of one collective type, process group, group size and stream,
 * summed over ranks.  exposed: the part of each kernel no compute kernel
 * hides; sized_*: of the kernels whose message size is known. */
typedef struct vp_comm_group {
    vp_coll type;
    int32_t pg;           /* index in vp_comm.pgs, -1: none */
    int64_t group;        /* ranks in the group, -1: unknown */
    int32_t stream;
    int64_t count, total, exposed;
    int64_t sized_bytes, sized_time, sized_count;
} vp_comm_group;

typedef struct vp_comm {
    vp_strmap *pgs;       /* process group names, in the order first seen */
    vp_comm_rank *ranks;
    size_t nranks, cap_ranks;
    vp_comm_group *groups;
    size_t ngroups, cap_groups;
    /* Ascend */
    vp_stt stt;
    const char *stt_source;   /* vprof/ascend_part.h; NULL: no rows */
    vp_hccl hccl;
    int have_comm_json, have_matrix;
    vp_origins origins;   /* where and when each trace was recorded (vprof/origin.h) */
    /* the trace being read: its collectives' records (see comm.c) */
    void *file;
    size_t file_colls, file_rpcs;   /* kernels noted (communication, or undecided after a
                                     * collective op: vp_comm_observe) and record_param_comms seen */
} vp_comm;

void vp_comm_init(vp_comm *c);
void vp_comm_free(vp_comm *c);

/* A new zeroed rank row, at the end. */
vp_comm_rank *vp_comm_new_rank(vp_comm *c);

/* A vp_gpu_pass_fn (ctx: the vp_comm): notes the collective of each
 * communication kernel, from its arguments, and record_param_comms ops. */
void vp_comm_observe(void *ctx, vp_gpuwork *w, long gpu_index, const vp_event *ev);

/* After the pass (steps resolved): fills r from the file's GPU work and
 * adds its collectives to the groups.  selected_only: the step time counts
 * only the steps a range selected.  Forgets the file's records. */
void vp_comm_add_rank(vp_comm *c, vp_gpuwork *w, vp_comm_rank *r, int selected_only);
/* The two above for one file read: a new rank row with its path and rank,
 * filled from w.  Returns the row. */
vp_comm_rank *vp_comm_add_file(vp_comm *c, vp_gpuwork *w, const char *path, long rank, long world,
                               int selected_only);

/* An Ascend rank's communication.json (matrix 0: its operations, given
 * the rank when the file names none) or communication_matrix.json
 * (matrix 1: its links), into c->hccl; 0, or -1 with err set.  vprof comm
 * and vprof report read them with this. */
int vp_comm_read_hccl(vp_comm *c, const char *path, int matrix, long rank, vp_error *err);

/* Partial results: save appends what c holds; merge appends a partial's
 * ranks and adds its groups (-1 with err set, status 3, when damaged). */
enum { VP_COMM_PART_VERSION = 5 };   /* 3: step_exposed, world; 4: class_time; 5: the traces' origins */
void vp_comm_save(const vp_comm *c, vp_buf *b);
int vp_comm_merge(vp_comm *c, const void *p, size_t n, vp_error *err);

/* Groups by total time, most first (ties: type, group, size, stream). */
void vp_comm_sort_groups(vp_comm *c);
/* The algorithm bandwidth of a group (GB/s, bytes over the time of the
 * sized kernels), and the bus bandwidth: algbw x nccl-tests' factor.
 * Returns 0: neither, 1: algbw only, 2: both. */
int vp_comm_bandwidth(const vp_comm_group *g, double *algbw, double *busbw);

/* The times of a rank, by index: span, compute, comm, overlap, exposed,
 * free, idle. */
enum { VP_COMM_METRICS = 7 };
int64_t vp_comm_metric(const vp_gpu_totals *t, int m);

/* One metric over the ranks (nranks >= 1): min, median, max and the
 * rank rows (indices) holding the min and the max (the first). */
typedef struct vp_comm_spread {
    int64_t min, max;
    double median;
    size_t min_rank, max_rank;
} vp_comm_spread;
void vp_comm_spread_of(const vp_comm *c, int m, vp_comm_spread *out);

/* The straggler of each step present on every rank: collectives are
 * matched across ranks by their order in the step (k-th with k-th).  A
 * collective ends at about the same time on every rank, so a rank that
 * arrives late runs the shortest kernel and the others wait for it in
 * theirs: a rank's wait on the k-th collective is its duration minus the
 * shortest duration of any rank.  The straggler is the rank that waited
 * least (ties: the lower rank); no clock alignment is needed.  Sorts the
 * ranks' step collectives; *uneven counts the steps whose ranks had
 * different numbers of collectives.  The rows are the caller's to free. */
typedef struct vp_comm_straggler {
    long step;
    size_t collectives;       /* matched: the fewest of any rank */
    size_t straggler, waiter; /* rank rows: the least and the most wait */
    int64_t its_wait, max_wait;
} vp_comm_straggler;
size_t vp_comm_stragglers(vp_comm *c, vp_comm_straggler **rows, size_t *uneven);

/* The slowest rank of the run, by the stragglers' rule over all the
 * steps of vp_comm_stragglers at once: each rank's wait summed over every
 * matched collective of every step; the slowest is the rank that waited
 * least (the others wait for it), the waiter the one that waited most
 * (ties: the lower rank).  The spread table's note and the stragglers
 * table use this one definition, per step and over the steps, so the
 * two cannot contradict each other.  Returns 0 (and steps 0) when no
 * step has communication kernels on every rank. */
typedef struct vp_comm_slowest {
    size_t rank, waiter;      /* rank rows */
    int64_t wait, max_wait;   /* their waits, summed over the steps */
    size_t steps;             /* the steps of the stragglers table */
} vp_comm_slowest;
int vp_comm_slowest_rank(vp_comm *c, vp_comm_slowest *out);

#endif
