/* Options shared by summary, diff and check (see runopts.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/runopts.h"
#include "cli/scale.h"
#include "vprof/origin.h"

void vp_run_cli_init(vp_run_cli *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->run.progress = 1;
}

static int number(const char *cmd, const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0)) {
        vp_usage_error(cmd, "%s: expected a positive number, found '%s'", opt, arg);
        return -1;
    }
    *out = v;
    return 1;
}

int vp_run_option(vp_run_cli *o, const char *cmd, int c, const char *arg)
{
    double v;
    switch (c) {
    case VP_OPT_RUN_MODEL:
        o->mfu.model = arg;
        vp_cli_input("--model", arg);
        return 1;
    case VP_OPT_RUN_TOKENS:
        return number(cmd, "--tokens-per-step", arg, &o->mfu.tokens_per_step);
    case VP_OPT_RUN_SEQLEN:
        return number(cmd, "--seq-len", arg, &o->mfu.seq_len);
    case VP_OPT_RUN_PEAK:
        return number(cmd, "--peak-tflops", arg, &o->mfu.peak_tflops);
    case VP_OPT_RUN_WORLD:
        if (number(cmd, "--world-size", arg, &v) < 0)
            return -1;
        o->mfu.world_size = (long)v;
        return 1;
    default:
        return 0;
    }
}

void vp_run_cli_opts(const vp_run_cli *o, const vp_common_opts *common, vp_run_opts *out)
{
    *out = o->run;
    out->steps = common->steps;
    out->steps_given = common->has_steps;
    out->partial = common->partial;
    out->classes = common->classes;
}

int vp_run_cli_mfu(const vp_run_cli *o, vp_run *run)
{
    vp_error err = {0};
    if (o->mfu.model && vp_run_add_mfu(run, &o->mfu, &err) != 0) {
        vp_error_print(&err);
        return err.status ? err.status : VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

void vp_run_cli_gate(vp_run_cli *o, const char *gate_text)
{
    if (strstr(gate_text, "roofline."))
        o->run.roofline = 1;
}

vp_run *vp_run_cli_read(const vp_run_cli *o, const vp_common_opts *common, char *const *paths,
                        size_t n, int *status)
{
    vp_run_opts opts;
    vp_run_cli_opts(o, common, &opts);
    vp_run *run = vp_run_new();
    /* check and diff read their runs as summary does: one analysis */
    vp_parts parts = {.cmd = o->cmd, .opts = &opts, .model = run, .analysis = "summary"};
    int st = vp_parts_run(common, &parts, paths, n);
    if (st != VP_EXIT_OK) {
        vp_run_free(run);
        *status = st == VP_PARTS_DONE ? VP_EXIT_OK : st;
        return NULL;
    }
    vp_run_finish(run);
    vp_origins_warn(vp_run_origins(run), o->cmd);
    if ((*status = vp_run_cli_mfu(o, run)) != VP_EXIT_OK) {
        vp_run_free(run);
        return NULL;
    }
    return run;
}
