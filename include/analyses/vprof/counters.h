/* Queue length per CUDA stream and memory bandwidth per copy kind over
 * time: the model of `vprof counters`, as HTA's TraceCounters
 * (hta/analyzers/trace_counters.py) defines them.
 *
 * Queue length, per rank and stream: a launching runtime call of HTA's set
 * (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, cuLaunchKernelEx,
 * cudaMemcpyAsync, cudaMemsetAsync, MTIA's runFunction, hipLaunchKernel,
 * hipExtModuleLaunchKernel, hipMemcpyAsync, hipMemsetAsync,
 * hipMemcpyWithStream) adds one at its start; the GPU event it launched
 * (any event with args.stream, joined on the correlation id) takes one
 * away at the GPU event's start ts, which is what HTA uses, not its end.
 * The points, in time order (at equal ts the call first, as a stable sort
 * of HTA's concatenation puts them), are the running sums.
 *
 * Memory bandwidth, per rank and copy kind (HTA's "Memcpy DtoD",
 * "Memcpy HtoD", "Memcpy DtoH", "Memset", ...: the name's first 11
 * characters, or "Memset"): each GPU event named Memcpy*, Memset* or dma*
 * adds its args "memory bandwidth (GB/s)" at its start and takes it away
 * at its end (a 0-length event lasts 1 us, as in HTA); the points are the
 * running sums in double, in HTA's order.  The summary keeps the points
 * above 0, as HTA's get_memory_bw_summary does.
 *
 * Memory: every point is kept (exact quantiles need them): 16 bytes per
 * launch for the queue, 32 per copy for the bandwidth, per file while it
 * is read.  Nothing here prints. */
#ifndef VPROF_COUNTERS_H
#define VPROF_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/describe.h"
#include "vprof/error.h"
#include "vprof/steps.h"
#include "vprof/util.h"

typedef struct vp_counters_opts {
    const vp_step_range *steps;     /* NULL: every launch counts */
    int partial;                    /* accept truncated traces */
    void (*say)(const char *msg);   /* what was read, per file; NULL: quiet */
} vp_counters_opts;

/* One time series: points (ts ns, value) in time order. */
typedef struct vp_cseries {
    long rank;
    int64_t stream;                 /* queue: the CUDA stream; bandwidth: -1 */
    char name[16];                  /* bandwidth: HTA's copy kind; queue: "" */
    int64_t pid;                    /* the GPU event's pid (the first seen), -1 if none */
    int64_t tid;                    /* queue: the GPU event's tid, -1 if none */
    int64_t *ts;
    double *v;
    size_t n, cap;
    vp_describe stats;              /* after vp_counters_finish */
} vp_cseries;

typedef struct vp_counters {
    vp_counters_opts o;
    vp_cseries *queue, *bw;         /* sorted by rank, then stream / name */
    size_t nqueue, nbw;
    long *ranks;                    /* per file read */
    size_t nfiles;
} vp_counters;

void vp_counters_init(vp_counters *c, const vp_counters_opts *o);
void vp_counters_free(vp_counters *c);

/* One trace (a file is a rank; position: its place among the inputs).
 * An exit status, err set when not OK. */
int vp_counters_read(vp_counters *c, const char *path, size_t position, vp_error *err);

#define VP_COUNTERS_PART_VERSION 1
/* A partial result (every series, all its points) and its merge; -1 with
 * err set when damaged (counters_part.c). */
void vp_counters_save(const vp_counters *c, vp_buf *b);
int vp_counters_merge(vp_counters *c, const void *p, size_t n, vp_error *err);

/* Sorts the series by rank and stream (name) and describes them. */
void vp_counters_finish(vp_counters *c);

/* Writes the trace in (the one file read) to out (gzip when it ends in
 * .gz) with a counter event (ph "C") per point of every series after its
 * events, as HTA's generate_trace_with_counters does, for Perfetto: after
 * vp_counters_finish.  An exit status, err set when not OK. */
int vp_counters_write_trace(const vp_counters *c, const char *in, const char *out, vp_error *err);

/* The HTA copy kind of a GPU event name, or NULL when HTA does not count
 * it as memory work (it takes names starting nccl, hip or hccl, or holding
 * ncclKernel, as communication first). */
const char *vp_counters_copy_kind(const char *name, size_t n);

/* 1 when name is one of HTA's launching runtime calls (the list above). */
int vp_counters_hta_launch(const char *name, size_t n);

#endif
