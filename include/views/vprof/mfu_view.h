/* The tables of vprof mfu: the model's parameters, FLOPs per token, the
 * steps or the log's iterations, and the rate.  conv: bit 1 the full
 * attention square, bit 2 causal attention; flops[0] full, [1] causal. */
#ifndef VPROF_MFU_VIEW_H
#define VPROF_MFU_VIEW_H

#include "vprof/flops.h"
#include "vprof/mfu.h"
#include "vprof/mfu_job.h"
#include "vprof/table.h"

/* source: the config's path, NULL for a model from flags. */
vp_table *vp_mfu_model_table(const vp_model *md, const char *source);
vp_table *vp_mfu_flops_table(const vp_flops flops[2], int conv);
/* Every step, whether it counted; first_out as vp_mfu_step_median. */
vp_table *vp_mfu_steps_table(const vp_step_times *s, long first_out);
/* One row per record of the log, with its rate (vp_mfu_log_rates). */
vp_table *vp_mfu_log_table(const vp_trainlog *log, const vp_mfu_log *rates,
                           const vp_flops flops[2], int conv, double peak_tflops);

typedef struct vp_mfu_rate {
    double step_time;        /* seconds; NAN: not known (--tokens-per-sec) */
    double tokens_per_gpu;   /* per second */
    double peak_tflops;
    vp_recompute recompute;  /* not NONE: an HFU column */
    const char *peak_note;   /* where the peak comes from; NULL: none */
} vp_mfu_rate;

/* The MFU (and HFU) of each convention; notes: one per line, then the
 * peak's and the recomputation's.  Warns when an MFU is above 100 %. */
vp_table *vp_mfu_rate_table(const vp_mfu_rate *r, const vp_flops flops[2], int conv,
                            const char *notes);

/* VeOmni's EnvironMeter records of a log (vprof/trainlog.h): per step the
 * job's achieved and promised TFLOP/s and their ratio, the MFU; a note
 * names the source (log lines, a W&B CSV or JSON export) and the median. */
vp_table *vp_mfu_veomni_table(const vp_trainlog *log, const char *path);

/* Every table of vp_mfu_compute's result, in the order vprof mfu prints
 * them, into out[0..VP_MFU_TABLES); returns how many. */
#define VP_MFU_TABLES 5
size_t vp_mfu_tables(const vp_mfu_job *j, const vp_mfu_result *r, vp_table *out[VP_MFU_TABLES]);

#endif
