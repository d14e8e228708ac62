/* What the commands over GPU work (comm, steps) share on the command
 * line: the operands' way through cli/scale.h. */
#ifndef VPROF_CMD_GPUPASS_CLI_H
#define VPROF_CMD_GPUPASS_CLI_H

#include "cli/scale.h"
#include "vprof/gpupass.h"

/* The operands (argv[optind..]) analysed -j at a time, or read as
 * partials, and merged into p->ctx.  1: there is a result to print here;
 * 0 with *status set when not (no operand, an error printed,
 * --save-part, an MPI process other than rank 0). */
int vp_parts_operands(const vp_common_opts *o, const vp_parts *p, int argc, char **argv,
                      int *status);

#endif
