/* Partial results on the command line (cli/scale.h): the library's driver
 * (vprof/parts.h) given the command's entry, model and options, the
 * operands resolved, --save-part's headers, a printer for what the driver
 * says, and the MPI share (cli/mpi.h). */
#include <stdio.h>
#include <string.h>

#include "cli/inputs.h"
#include "cli/mpi.h"
#include "cli/scale.h"
#include "vprof/analyses.h"
#include "vprof/exec.h"
#include "vprof/parts.h"

int vp_reducing;

static void print_error(void *ctx, const vp_error *err)
{
    (void)ctx;
    vp_error_print(err);
}

/* A worker's standard error, as it wrote it. */
static void print_echo(void *ctx, const char *text, size_t n)
{
    (void)ctx;
    fwrite(text, 1, n, stderr);
}

static int parts_run(const vp_common_opts *o, const vp_parts *p, char *const *inputs, size_t n)
{
    const char *name = p->analysis ? p->analysis : p->cmd;
    const vp_analysis *a = vp_analysis_find(name);
    if (!a) {
        /* a command wired to an analysis the table lacks: a bug here */
        fprintf(stderr, "vprof: %s: no analysis '%s' makes partial results\n", p->cmd, name);
        return VP_EXIT_INPUT;
    }
    vp_parts_job j = {
        .command = p->cmd, .a = a, .model = p->model, .opts = p->opts,
        .analyse = p->analyse, .ctx = p->ctx, .save_part = o->save_part,
        .hooks = {print_error, print_echo, NULL},
    };
    j.options = vp_shape_options(&j.noptions);
#if VPROF_HAVE_MPI
    if (o->mpi)
        return vp_mpi_parts(o, &j, vp_reducing, inputs, n);
#endif
    int st = vp_reducing ? vp_parts_reduce(&j, inputs, n)
                         : vp_parts_analyse(&j, o->jobs ? o->jobs : vp_online_cores(), inputs, 0, n);
    if (st != VP_EXIT_OK)
        return st;
    if (o->save_part) {
        if (!vp_parts_each(&j) && (st = vp_parts_save(&j, n)) != VP_EXIT_OK)
            return st;
        return VP_PARTS_DONE;
    }
    return VP_EXIT_OK;
}

/* Every command's operands pass through vp_inputs_resolve here (once
 * more for those that resolved them already: a no-op), except the .vpart
 * files of vprof reduce. */
int vp_parts_run(const vp_common_opts *o, const vp_parts *p, char *const *inputs, size_t n)
{
    if (vp_reducing) {
        int st = vp_cli_check_outputs(p->cmd, inputs, n);
        return st ? st : parts_run(o, p, inputs, n);
    }
    vp_inputs in;
    int st = vp_inputs_resolve(p->cmd, inputs, n, &in);
    if (st != 0)
        return st;
    st = parts_run(o, p, in.paths, in.n);
    vp_inputs_free(&in);
    return st;
}
