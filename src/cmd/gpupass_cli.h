/* What comm and steps say about a trace that vp_gpu_pass read (its
 * library says nothing): --steps that keep no GPU work, and GPU events
 * without "dur". */
#ifndef VPROF_CMD_GPUPASS_CLI_H
#define VPROF_CMD_GPUPASS_CLI_H

#include "vprof/gpupass.h"

void vp_gpu_pass_warn(const vp_gpu_pass *p, int has_steps);

#endif
