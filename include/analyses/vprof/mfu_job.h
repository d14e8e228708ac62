/* vprof mfu's whole question as one library call: what the caller gave
 * (a model, the work per step, a trace, a training log or a rate, the
 * accelerator) checked and turned into the model's FLOPs per token and,
 * with a step time, the rate that MFU is computed from (vprof/mfu.h).
 * The tables are the view's (vprof/mfu_view.h).
 *
 * Messages that point at what the caller set name it through the hint
 * codes VP_HINT_OPT_* (the CLI says "--seq-len"); without a front end
 * they name the vp_mfu_job field ("seq_len"). */
#ifndef VPROF_MFU_JOB_H
#define VPROF_MFU_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/flops.h"
#include "vprof/mfu.h"
#include "vprof/steps.h"
#include "vprof/trainlog.h"
#include "vprof/util.h"

/* Attention conventions: bit 1 the full square, bit 2 causal. */
enum { VP_CONV_FULL = 1, VP_CONV_CAUSAL = 2 };

typedef struct vp_mfu_job {
    const char *model_path;     /* config.json; NULL: the given values alone */
    vp_model_given given;
    const char *log_path, *seqlens_path, *gpu;
    char *const *traces;        /* the ranks of one run */
    size_t ntraces;
    int64_t seq_len, tokens_per_step, global_batch, world_size;   /* 0: not given */
    double step_time, tokens_per_sec, peak;                       /* 0: not given */
    vp_dtype dtype;
    int convs;                  /* VP_CONV_* bits */
    vp_recompute recompute;
    const vp_step_range *steps; /* NULL: every step */
    int partial;                /* read truncated traces in part */
} vp_mfu_job;

typedef struct vp_mfu_result {
    vp_model model;
    double tokens, sq_sum;      /* of the documents the attention term is averaged over */
    vp_flops flops[2];          /* full, causal */
    char lengths_note[512];
    int has_rate;               /* 0: no step time, the model alone */
    vp_step_times steps;        /* the traces' steps (n 0: none listed) */
    long first_out;             /* vp_mfu_step_median's */
    int has_log;
    vp_trainlog log;
    int veomni;                 /* the log has VeOmni's flops_achieved/flops_promised */
    int veomni_only;            /* ... and no model was given: its MFU alone */
    vp_mfu_log log_rates;
    double step_time;           /* seconds; NAN: not known */
    double tokens_per_gpu;
    double peak;                /* TFLOP/s */
    char peak_note[512];
    vp_buf notes;               /* where the numbers come from, a line each; a C string */
} vp_mfu_result;

/* Fills r (free it with vp_mfu_result_free either way).  -1 with err
 * set: status 2 when the job is incomplete or contradicts itself, else
 * the input's status.  Warns through vp_warn. */
int vp_mfu_compute(const vp_mfu_job *j, vp_mfu_result *r, vp_error *err);
void vp_mfu_result_free(vp_mfu_result *r);

#endif
