/* Which runtime calls are the program's, and which belong to the
 * profiler's edges (docs/summary.md, "Findings"): a trace starts and stops
 * where the profiler did, and the calls there are the profiler's or the
 * process's, not the loop's: the cudaFree or cudaDeviceGetStreamPriorityRange
 * of context start-up before the first launch, the cudaDeviceSynchronize
 * or hipDeviceSynchronize that stops the profiler after the last one,
 * the calls between and around the ProfilerStep#N windows.
 *
 * A runtime or driver call (vp_is_launch_category) of a trace is, by its
 * start, the first that holds:
 *   OUTSIDE_STEPS   with --steps: it starts in none of the counted steps
 *                   (vprof api --steps leaves it out too);
 *   BEFORE_LAUNCH   it starts before the first call that launched GPU work
 *                   of the trace (work queued before the trace began is not
 *                   the trace's first launch);
 *   AFTER_LAUNCH    it starts after the last such call ended;
 *   OUTSIDE_STEPS   the trace has ProfilerStep#N windows and it starts in
 *                   none of them;
 *   PROGRAM         else.
 * Per call name, the time and calls of each; summary's api_share reads the
 * program's alone and says what it left out. */
#ifndef VPROF_CALLEDGES_H
#define VPROF_CALLEDGES_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/gpuwork.h"
#include "vprof/part.h"
#include "vprof/steps.h"
#include "vprof/util.h"

enum { VP_EDGE_PROGRAM, VP_EDGE_BEFORE_LAUNCH, VP_EDGE_AFTER_LAUNCH, VP_EDGE_OUTSIDE_STEPS,
       VP_EDGE_COUNT };

typedef struct vp_edge_name {
    int64_t time[VP_EDGE_COUNT];
    int64_t calls[VP_EDGE_COUNT];
} vp_edge_name;

typedef struct vp_calledges {
    vp_strmap *names;         /* call names in order of first sight */
    vp_edge_name *v;          /* v[i]: the i-th name's */
    size_t cap;
} vp_calledges;

void vp_calledges_init(vp_calledges *e);
void vp_calledges_free(vp_calledges *e);

/* One trace: observe its events (CPU side), then end with its GPU work
 * (launches joined in w->steps) and the steps that count (NULL: all the
 * trace's ProfilerStep#N). */
typedef struct vp_calledges_file vp_calledges_file;
vp_calledges_file *vp_calledges_file_begin(void);
void vp_calledges_file_observe(vp_calledges *e, vp_calledges_file *f, const vp_event *ev);
void vp_calledges_file_end(vp_calledges *e, vp_calledges_file *f, const vp_gpuwork *w,
                           vp_steps *counted);
void vp_calledges_file_free(vp_calledges_file *f);

/* Which part a call of [ts, ts + dur) is in, given the trace's first launch
 * start and last launch end (has_launch 0: none) and its steps. */
int vp_calledge_of(int64_t ts, int has_launch, int64_t first_launch, int64_t last_launch_end,
                   vp_steps *steps, int counted_only);

/* "before the first launch", "after the last launch", "outside every step" */
const char *vp_calledge_name(int edge);

void vp_calledges_save(const vp_calledges *e, vp_buf *b);
int vp_calledges_merge(vp_calledges *e, vp_rd *r);

#endif
