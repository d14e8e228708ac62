/* Warnings about a vp_gpu_pass (cmd/gpupass_cli.h). */
#include <getopt.h>

#include "cmd/gpupass_cli.h"

void vp_gpu_pass_warn(const vp_gpu_pass *p, int has_steps)
{
    const char *name = vp_trace_name(p->trace);
    vp_steps *steps = p->w.steps;
    if (has_steps && p->nsteps == 0)
        vp_warn("%s: --steps: the trace has no ProfilerStep#N annotations, so no GPU work is kept",
                name);
    else if (has_steps && p->chosen == 0)
        vp_warn("%s: --steps selects none of the steps present (ProfilerStep#%ld to #%ld)", name,
                vp_steps_number(steps, 0), vp_steps_number(steps, p->nsteps - 1));
    if (p->w.no_dur)
        vp_warn("%s: %llu GPU events without \"dur\" were skipped", name,
                (unsigned long long)p->w.no_dur);
}

int vp_parts_operands(const vp_common_opts *o, const vp_parts *p, int argc, char **argv,
                      int *status)
{
    if (optind >= argc) {
        *status = vp_usage_error(p->cmd, "no trace given (a file, or - for standard input)");
        return 0;
    }
    *status = vp_parts_run(o, p, argv + optind, (size_t)(argc - optind));
    if (*status != VP_PARTS_DONE)
        return *status == VP_EXIT_OK;
    *status = VP_EXIT_OK;
    return 0;
}
