/* MFU of a run (vprof/runstats.h): the model's FLOPs per token times the
 * tokens a GPU processes per second, over its peak. */
#include "vprof/flops.h"
#include "vprof/runstats.h"

int vp_run_add_mfu(vp_run *r, const vp_run_mfu_opts *o, vp_error *err)
{
    if (o->tokens_per_step <= 0 || o->seq_len <= 0) {
        vp_error_set(err, VP_EXIT_USAGE, "%s",
                     vp_diag_hint_or(VP_HINT_MFU_TOKENS, "MFU from a model needs the tokens of "
                                                         "one step (all ranks) and per sequence"));
        return -1;
    }
    const vp_metric *step = vp_run_find(r, "step.median");
    if (!step || step->value <= 0) {
        vp_error_set(err, VP_EXIT_USAGE,
                     "MFU needs the step time, and the trace has no ProfilerStep#N annotations%s",
                     vp_diag_hint(VP_HINT_MFU_STEP_TIME));
        return -1;
    }
    double peak = o->peak_tflops;
    if (peak <= 0) {
        const vp_peak *p = vp_peak_lookup(vp_run_device(r));
        if (!p || p->tflops[VP_DTYPE_BF16] <= 0) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "no dense BF16 peak known for the accelerator '%s'%s",
                         vp_run_device(r)[0] ? vp_run_device(r) : "(no deviceProperties)",
                         vp_diag_hint(VP_HINT_MFU_PEAK));
            return -1;
        }
        peak = p->tflops[VP_DTYPE_BF16];
    }
    long world = o->world_size > 0 ? o->world_size : (long)vp_run_find(r, "ranks")->value;
    if (world <= 0)
        world = 1;
    vp_model m;
    if (vp_model_load(o->model, &m, err) != 0 || vp_model_check(&m, err) != 0)
        return -1;
    double tokens_per_s_gpu = o->tokens_per_step / (step->value / 1e9) / (double)world;
    vp_flops full, causal;
    vp_model_flops(&m, VP_ATTN_FULL, o->seq_len, o->seq_len * o->seq_len, &full);
    vp_model_flops(&m, VP_ATTN_CAUSAL, o->seq_len, o->seq_len * o->seq_len, &causal);
    double tflops = full.total * tokens_per_s_gpu / 1e12;
    vp_run_set(r, "tflops", tflops);
    vp_run_set(r, "mfu", tflops / peak);
    vp_run_set(r, "mfu.causal", causal.total * tokens_per_s_gpu / 1e12 / peak);
    return 0;
}
