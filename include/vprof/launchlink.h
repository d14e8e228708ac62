/* The CPU call that launched each piece of GPU work, joined on the CUDA
 * correlation id: a launching call (an event of a vp_is_launch_category
 * category with args.correlation: cudaLaunchKernel, cudaMemcpyAsync,
 * cuLaunchKernel, hipLaunchKernel ...) and the kernel, memcpy or memset
 * events carrying the same id belong together.
 *
 * One map per trace file (ids repeat across ranks).  When several CPU
 * calls carry one id, the one that started first launched the work (as
 * vprof/steps.h decides).  Memory: three words per launching call. */
#ifndef VPROF_LAUNCHLINK_H
#define VPROF_LAUNCHLINK_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/trace.h"

typedef struct vp_launchlink vp_launchlink;

/* A launching call: when it started, how long it ran (ns), and the
 * caller's id for its name. */
typedef struct vp_launch_call {
    int64_t ts, dur;
    uint32_t api;
} vp_launch_call;

/* 1 with *corr when ev is a complete launching call carrying an integer
 * args.correlation; 0 otherwise. */
int vp_launch_correlation(const vp_event *ev, int64_t *corr);

/* 1 with *corr when the args of a GPU event hold an integer correlation. */
int vp_gpu_correlation(const vp_event *ev, int64_t *corr);

vp_launchlink *vp_launchlink_new(void);
void vp_launchlink_free(vp_launchlink *l);

/* Records a launching call (the earliest one wins for a repeated id). */
void vp_launchlink_put(vp_launchlink *l, int64_t corr, const vp_launch_call *call);

/* 1 with *out when a call was recorded for corr, else 0. */
int vp_launchlink_get(const vp_launchlink *l, int64_t corr, vp_launch_call *out);

size_t vp_launchlink_count(const vp_launchlink *l);

#endif
