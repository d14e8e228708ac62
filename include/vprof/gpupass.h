/* One trace's GPU work in one pass (the trace pass of vprof/tracepass.h
 * with vp_gpuwork fed first), as the analyses over GPU work (comm,
 * steps, the run metrics of summary/check/diff) read a file: the trace opened, every event given to vp_gpuwork
 * and to the caller's observer, the steps resolved and the rank told. */
#ifndef VPROF_GPUPASS_H
#define VPROF_GPUPASS_H

#include <stddef.h>

#include "vprof/error.h"
#include "vprof/gpuwork.h"
#include "vprof/rank.h"
#include "vprof/steps.h"
#include "vprof/trace.h"

/* Sees every event after vp_gpuwork_observe did: gpu_index is what that
 * returned (the index of the GPU event appended, or -1). */
typedef void (*vp_gpu_pass_fn)(void *ctx, vp_gpuwork *w, long gpu_index, const vp_event *ev);

typedef struct vp_gpu_pass {
    vp_trace *trace;        /* open until vp_gpu_pass_close: name, metadata, statistics */
    vp_gpuwork w;
    size_t nsteps;          /* steps present */
    size_t chosen;          /* steps the range selected (nsteps without one) */
    long rank;
    vp_rank_source rank_from;
} vp_gpu_pass;

typedef struct vp_gpu_pass_opts {
    int partial;                  /* accept a truncated trace */
    const vp_step_range *range;   /* NULL: every step */
    long position;                /* the file's position, the rank's last resort */
    long rank;                    /* >= 0: the rank, whatever the trace says */
    int no_progress;              /* no progress bar */
} vp_gpu_pass_opts;

/* 0, or -1 with err set; p is to be closed either way. */
int vp_gpu_pass_read(vp_gpu_pass *p, const char *path, const vp_gpu_pass_opts *o,
                     vp_gpu_pass_fn fn, void *ctx, vp_error *err);
/* Warns (vp_warn) of a step range that keeps no GPU work (when
 * has_steps) and of GPU events without "dur". */
void vp_gpu_pass_warn(const vp_gpu_pass *p, int has_steps);
void vp_gpu_pass_close(vp_gpu_pass *p);

#endif
