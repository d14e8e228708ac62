/* MFU, one implementation for vprof mfu, summary, check and diff: the
 * world size rule, the step time (a median of the steps), and the rate.
 *
 *   tokens/s/GPU = tokens per step / step time / world size
 *   MFU          = tokens/s/GPU x FLOPs per token / peak FLOP/s */
#ifndef VPROF_MFU_H
#define VPROF_MFU_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/steps.h"
#include "vprof/trainlog.h"

/* The help line of --world-size, the same in every command that has it. */
#define VP_WORLD_SIZE_USAGE \
    "  --world-size N       GPUs in the job (default: the traces' distributedInfo\n" \
    "                       world_size, else the number of traces read)\n"

typedef enum vp_world_from {
    VP_WORLD_UNKNOWN,       /* nothing says: 0 */
    VP_WORLD_FLAG,          /* --world-size */
    VP_WORLD_DISTRIBUTED,   /* distributedInfo.world_size */
    VP_WORLD_RANKS,         /* the ranks (traces) read */
} vp_world_from;

/* flag when > 0, else distributed when > 0, else ranks; 0 when none is. */
long vp_world_size(long flag, long distributed, long ranks, vp_world_from *from);

/* A step's time: its longest rank's ProfilerStep#number span. */
typedef struct vp_step_time {
    long number;
    int64_t dur;            /* ns */
    int used;               /* selected (--steps) */
} vp_step_time;

typedef struct vp_step_times {
    vp_step_time *st;       /* in the order first seen (the order they ran) */
    size_t n, cap;
} vp_step_times;

/* Adds one rank's step: a step seen before keeps the longer time, and
 * is used when any rank's is. */
void vp_step_times_add(vp_step_times *s, long number, int64_t dur, int used);
void vp_step_times_free(vp_step_times *s);

/* The step time of MFU: the median of the used steps, the first left out
 * when it is an outlier (with 3 used steps or more: more than 20% off the
 * median of the others), as a warm-up step or one that includes the
 * profiler's start is.  *counted: the steps in the median; *first_out:
 * the index in s->st of the step left out, or -1.  0 when none is used. */
double vp_mfu_step_median(const vp_step_times *s, size_t *counted, long *first_out);

/* What MFU needs of traces (vprof mfu): the step times, the largest
 * distributedInfo.world_size (0: none says), the first deviceProperties
 * name.  Several traces are the ranks of one run. */
typedef struct vp_mfu_traces {
    vp_step_times steps;
    size_t nsteps_first;    /* the steps of the first trace (for messages) */
    long world;
    long ranks;             /* traces read */
    char *device;           /* NULL: no deviceProperties */
    char *first_name;       /* the first trace's name in messages */
} vp_mfu_traces;

/* Reads one trace (range NULL: every step used). */
int vp_mfu_read_trace(vp_mfu_traces *t, const char *path, const vp_step_range *range, int partial,
                      vp_error *err);
void vp_mfu_traces_free(vp_mfu_traces *t);
/* Reads the n traces in order; -1 with err set at the first that fails,
 * t freed. */
int vp_mfu_read_traces(vp_mfu_traces *t, char *const *paths, size_t n,
                       const vp_step_range *range, int partial, vp_error *err);

/* The steps of s a range selects. */
size_t vp_step_times_used(const vp_step_times *s);

/* tokens per second per GPU */
double vp_mfu_tokens_per_gpu(double tokens_per_step, double step_s, long world);
/* MFU in percent of flops_per_token at that rate against peak TFLOP/s. */
double vp_mfu_pct(double tokens_per_gpu, double flops_per_token, double peak_tflops);

/* A training log's iterations (docs/mfu.md): each record's tokens per
 * second per GPU, from its throughput, or from its time and the tokens
 * per step (tokens_per_step, else global_batch x seq_len, each else the
 * log's), over the world size (world_flag, else the log's). */
typedef struct vp_mfu_log {
    double *tokens_per_gpu;   /* per record; NAN: neither a rate nor a time */
    double step_time;         /* median seconds of the records with a time; NAN: none */
    double median_tokens;     /* median of the rates */
    size_t rated;             /* records with a rate */
    long world;               /* 0: not known */
    vp_world_from world_from;
} vp_mfu_log;

/* 0, or -1 with err set (status 2) saying what is missing. */
int vp_mfu_log_rates(const vp_trainlog *log, const char *path, long world_flag,
                     int64_t tokens_per_step, int64_t global_batch, int64_t seq_len,
                     vp_mfu_log *out, vp_error *err);
void vp_mfu_log_free(vp_mfu_log *l);

/* Document lengths (--seqlens): numbers separated by white space or
 * commas, '#' to the end of a line a comment; "-" is standard input.
 * Their sum, sum of squares and count; -1 with err set (status 3). */
int vp_seqlens_read(const char *path, double *tokens, double *sq_sum, int64_t *docs,
                    vp_error *err);

#endif
