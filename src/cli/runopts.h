/* Options shared by the commands that read whole runs (summary, diff,
 * check): which steps count, and the model for MFU. */
#ifndef VPROF_CMD_RUNOPTS_H
#define VPROF_CMD_RUNOPTS_H

#include "cli/cli.h"
#include "vprof/mfu.h"
#include "vprof/runstats.h"

enum {
    VP_OPT_RUN_MODEL = 1050,
    VP_OPT_RUN_TOKENS,
    VP_OPT_RUN_SEQLEN,
    VP_OPT_RUN_PEAK,
    VP_OPT_RUN_WORLD,
};

#define VP_RUN_LONGOPTS \
    VP_STEPS_LONGOPT, \
    {"model", required_argument, 0, VP_OPT_RUN_MODEL}, \
    {"tokens-per-step", required_argument, 0, VP_OPT_RUN_TOKENS}, \
    {"seq-len", required_argument, 0, VP_OPT_RUN_SEQLEN}, \
    {"peak-tflops", required_argument, 0, VP_OPT_RUN_PEAK}, \
    {"world-size", required_argument, 0, VP_OPT_RUN_WORLD}, \
    VP_CLASS_LONGOPTS

/* The help lines for them, to paste into a usage text. */
#define VP_RUN_USAGE \
    "  --steps A:B          count only these steps (Python slice, as in vprof kernels)\n" \
    "  --model FILE         a Hugging Face config.json: adds mfu, mfu.causal and tflops\n" \
    "  --tokens-per-step N  tokens of one training step, all ranks together (with --model)\n" \
    "  --seq-len N          tokens per sequence, for the attention FLOPs (with --model)\n" \
    "  --peak-tflops X      the accelerator's dense BF16 peak, when deviceProperties lack it\n" \
    VP_WORLD_SIZE_USAGE \
    VP_CLASS_USAGE

typedef struct vp_run_cli {
    const char *cmd;       /* in partial headers: vprof reduce runs it */
    vp_run_opts run;
    vp_run_mfu_opts mfu;
} vp_run_cli;

/* Sets o->run.roofline when a gate's text names a roofline.* metric: the
 * run's pass then reads the traces' operators too. */
void vp_run_cli_gate(vp_run_cli *o, const char *gate_text);

void vp_run_cli_init(vp_run_cli *o, const char *cmd);

/* 1 when c was one of these options (handled), 0 when not, -1 after a
 * usage error was printed. */
int vp_run_option(vp_run_cli *o, const char *cmd, int c, const char *arg);

/* The run's options from these and the common ones (--steps, --partial). */
void vp_run_cli_opts(const vp_run_cli *o, const vp_common_opts *common, vp_run_opts *out);
/* Adds MFU to a finished run when --model was given: an exit status,
 * after printing the error. */
int vp_run_cli_mfu(const vp_run_cli *o, vp_run *run);

/* Reads a run from its files (common: --steps, --partial, and -j,
 * --save-part, --mpi through cli/scale.h), adding MFU when --model was
 * given (the roofline metrics come from the same pass with
 * o->run.roofline); prints the error and sets *status on failure.  NULL with
 * *status 0 when there is nothing to print here (--save-part, an MPI
 * process other than rank 0). */
vp_run *vp_run_cli_read(const vp_run_cli *o, const vp_common_opts *common, char *const *paths,
                        size_t n, int *status);

#endif
