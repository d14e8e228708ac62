/* Where each training step's time goes (vprof steps, docs/steps.md): per
 * rank and ProfilerStep its CPU wall time and phases (data loading,
 * forward, backward, optimizer) and the GPU work it launched split into
 * compute, exposed communication, memory and idle; and, instead, HTA's
 * temporal breakdown per rank and idle-time breakdown per rank and
 * stream.  Ascend inputs add step_trace_time rows.
 *
 * Fill it a trace at a time: vp_breakdown_observe as the observer of a
 * vp_gpu_pass (for the CPU phases), then vp_breakdown_add_steps, or
 * vp_breakdown_add_idle.  Partials (docs/partials.md, "steps") save and
 * merge it. */
#ifndef VPROF_BREAKDOWN_H
#define VPROF_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/ascend_stt.h"
#include "vprof/gpuwork.h"
#include "vprof/origin.h"
#include "vprof/part.h"
#include "vprof/stats.h"

/* The values of a step row, in table order. */
enum {
    VP_BD_CPU, VP_BD_SPAN, VP_BD_BUSY, VP_BD_COMPUTE, VP_BD_EXPOSED, VP_BD_MEMORY, VP_BD_IDLE,
    VP_BD_DATA, VP_BD_FWD, VP_BD_BWD, VP_BD_OPT, VP_BD_KERNELS, VP_BD_SHORT, VP_BD_COUNT
};

/* 1 for the CPU values, which need a step window. */
int vp_breakdown_is_cpu(int value);

typedef struct vp_step_row {
    long rank;
    long step;        /* ProfilerStep number; -1: the whole trace */
    int has_cpu;      /* the CPU values are known (a step window exists) */
    int64_t v[VP_BD_COUNT];
} vp_step_row;

/* The gaps of a stream: host wait, kernel wait, other (ns). */
typedef struct vp_idle_row {
    long rank;
    int64_t stream;
    int64_t host, kernel, other;
} vp_idle_row;

typedef struct vp_temporal_row {
    long rank;
    vp_gpu_totals t;
} vp_temporal_row;

typedef struct vp_breakdown {
    size_t nfiles;           /* traces read */
    vp_step_row *rows;
    size_t nrows, cap_rows;
    vp_idle_row *irows;
    size_t nirows, cap_irows;
    vp_temporal_row *trows;
    size_t ntrows, cap_trows;
    int no_steps_files;      /* traces without ProfilerStep: one row each */
    uint64_t outside;        /* GPU events launched in no step */
    uint64_t empty_steps;    /* steps that launched no GPU work */
    uint64_t comm_unseen;    /* ranks of a run of several (distributedInfo) in which no kernel
                              * is communication by the class rules: their Comm Exposed is
                              * unknown, not 0 (version 3) */
    /* Ascend */
    vp_stt stt;
    const char *stt_source;  /* vprof/ascend_part.h; NULL: no rows */
    void *phases;            /* the CPU phases of the trace being read */
    vp_origins origins;      /* where and when each trace was recorded (version 4) */
} vp_breakdown;

void vp_breakdown_init(vp_breakdown *b);
void vp_breakdown_free(vp_breakdown *b);

/* A vp_gpu_pass_fn (ctx: the vp_breakdown): notes the CPU phase
 * annotations (DataLoader __next__, Optimizer.step#, autograd ops). */
void vp_breakdown_observe(void *ctx, vp_gpuwork *w, long gpu_index, const vp_event *ev);

/* After the pass (steps resolved): a row per step of the trace
 * (selected_only: per selected step), or one row for the whole trace
 * when it has no steps.  Forgets the trace's phases. */
void vp_breakdown_add_steps(vp_breakdown *b, vp_gpuwork *w, long rank, int selected_only);

/* After the pass: the temporal row of the rank and HTA's idle-time
 * breakdown of each of its streams over kernels, memcpys and memsets:
 * each gap before an event is host wait when the event's launch call
 * started after the stream went idle (the CPU was late), else kernel
 * wait when shorter than kernel_wait (ns), else other.  Where events
 * overlap on a stream the gap is taken from the latest end so far, and
 * no gap is counted (HTA would subtract the overlap as a negative gap). */
void vp_breakdown_add_idle(vp_breakdown *b, vp_gpuwork *w, long rank, int64_t kernel_wait);

/* After the pass: counts the trace in comm_unseen when its world size
 * (distributedInfo.world_size) is above 1 and none of its GPU work is
 * communication. */
void vp_breakdown_add_world(vp_breakdown *b, const vp_gpuwork *w, long world);

/* Partial results: save appends what b holds; merge appends a partial's
 * rows and adds its counters (-1 with err set, status 3, when damaged). */
enum { VP_BREAKDOWN_PART_VERSION = 4 };   /* 4: the traces' origins (vprof/origin.h) */
void vp_breakdown_save(const vp_breakdown *b, vp_buf *out);
int vp_breakdown_merge(vp_breakdown *b, const void *p, size_t n, vp_error *err);

/* Per step, one row holding the largest value of each column over the
 * ranks (a step lasts as long as its slowest rank), as msprof-analyze's
 * cluster "stage" rows; the rows end sorted by step. */
void vp_breakdown_max_over_ranks(vp_breakdown *b);
/* The idle rows by rank, then stream. */
void vp_breakdown_sort_idle(vp_breakdown *b);
/* Mean, median, min, max of one value over the rows that have it;
 * returns 0 when none has. */
int vp_breakdown_summary(const vp_breakdown *b, int value, vp_summary *out);

#endif
