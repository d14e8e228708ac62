/* One trace's GPU work in one pass, as the analyses over GPU work (comm,
 * steps, the run metrics of summary/check/diff) read a file: the trace
 * pass of vprof/tracepass.h with every event given to vp_gpuwork before
 * the caller's observer, and the GPU work's steps resolved at the end. */
#ifndef VPROF_GPUPASS_H
#define VPROF_GPUPASS_H

#include <stddef.h>

#include "vprof/error.h"
#include "vprof/gpuwork.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"

/* Sees every event after vp_gpuwork_observe did: gpu_index is what that
 * returned (the index of the GPU event appended, or -1). */
typedef void (*vp_gpu_pass_fn)(void *ctx, vp_gpuwork *w, long gpu_index, const vp_event *ev);

typedef struct vp_gpu_pass {
    vp_trace_pass pass;     /* the reading: trace (open until vp_gpu_pass_close), w's
                               steps and the range's choice, rank */
    vp_gpuwork w;
} vp_gpu_pass;


/* A rider: analyses that see the passes another analysis makes, so that
 * one reading of a file serves them all.  vprof report rides on the run
 * metrics' reading (vprof/runstats.h reads its files itself): steps,
 * comm, kernel classes and memory events observe the same events.
 * begin: before a reading (p's trace is open once events come); observe:
 * each event, after the reader's own observer; done: after a whole
 * reading, w's steps resolved, before the reader uses w.  The aux of an
 * event is its reader's: a rider that numbers events keeps its own map
 * (comm keeps each record's event index, vp_gpuwork.dropped). */
typedef struct vp_gpu_pass_rider {
    void (*begin)(void *ctx, const vp_gpu_pass *p, const char *path);
    vp_gpu_pass_fn observe;
    void (*done)(void *ctx, vp_gpu_pass *p);
    void *ctx;
} vp_gpu_pass_rider;

/* The rider of every vp_gpu_pass_read this thread makes from now on;
 * NULL: none.  Returns the one it replaces. */
const vp_gpu_pass_rider *vp_gpu_pass_ride(const vp_gpu_pass_rider *r);

/* 0, or -1 with err set; p is to be closed either way.  o->steps is not
 * used: the steps are w's, which vp_gpuwork_observe feeds. */
int vp_gpu_pass_read(vp_gpu_pass *p, const char *path, const vp_trace_pass_opts *o,
                     vp_gpu_pass_fn fn, void *ctx, vp_error *err);
/* Warns (vp_trace_pass_warn) of a step range that keeps no GPU work and
 * of GPU events without "dur". */
void vp_gpu_pass_warn(const vp_gpu_pass *p);
void vp_gpu_pass_close(vp_gpu_pass *p);

#endif
