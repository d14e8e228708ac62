/* The correlation join: the CPU call that launched each piece of GPU
 * work, and the GPU work each call launched.  A launching call (an event
 * of a vp_is_launch_category category with args.correlation:
 * cudaLaunchKernel, cudaMemcpyAsync, cuLaunchKernel, hipLaunchKernel ...)
 * and the kernel, memcpy or memset events carrying the same id belong
 * together.  `vprof ops` asks for the GPU time of each call (Self GPU),
 * `vprof launches` for the call of each piece of GPU work: both ask this
 * one table.
 *
 * One join per trace file (ids repeat across ranks) holds both sides as
 * the trace streams by: the calls (when several CPU calls carry one id,
 * the one that started first launched the work, as vprof/steps.h
 * decides) and the GPU work records.  Either side may come first in the
 * file; ask after the file's end (a question in the middle is right too,
 * but sorts again).  The id INT64_MIN is none (ignored), and a call at ts
 * INT64_MAX is none.  Memory: 32 bytes a call (24 without the api) and 16
 * a GPU work record, as recorded (src/analysis/core/corrjoin.c says why it is
 * no hash map). */
#ifndef VPROF_CORRJOIN_H
#define VPROF_CORRJOIN_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/trace.h"

typedef struct vp_corrjoin vp_corrjoin;

/* A GPU work record: its id and the value recorded (GPU time in ns, or
 * an index of the caller's own). */
typedef struct vp_corr_work {
    int64_t corr, dur;
} vp_corr_work;

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

vp_corrjoin *vp_corrjoin_new(void);
/* A join whose calls keep no api (it reads back as 0): 24 bytes a call,
 * for a join of every runtime call that needs only when each ran. */
vp_corrjoin *vp_corrjoin_new_unnamed(void);
void vp_corrjoin_free(vp_corrjoin *j);

/* Records a launching call of id corr (the earliest one wins; a tie
 * keeps the first recorded). */
void vp_corrjoin_call(vp_corrjoin *j, int64_t corr, const vp_launch_call *call);

/* Records dur ns of GPU work launched under id corr (or any value: an
 * index into the caller's own array of GPU events). */
void vp_corrjoin_work(vp_corrjoin *j, int64_t corr, int64_t dur);

/* 1 with *out when a call was recorded for corr, else 0. */
int vp_corrjoin_launcher(const vp_corrjoin *j, int64_t corr, vp_launch_call *out);

/* The sum of the GPU work recorded for corr (0 when none). */
int64_t vp_corrjoin_gpu_time(const vp_corrjoin *j, int64_t corr);

/* The GPU work records of corr, side by side in the order recorded (*n
 * of them; NULL when none).  Valid until the next record. */
const vp_corr_work *vp_corrjoin_work_records(const vp_corrjoin *j, int64_t corr, size_t *n);

/* Distinct ids with a launching call; GPU work records taken. */
size_t vp_corrjoin_calls(const vp_corrjoin *j);
size_t vp_corrjoin_works(const vp_corrjoin *j);

#endif
