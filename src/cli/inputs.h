/* The operands of every command that reads traces, as the command says
 * them: vp_inputs_expand (vprof/exec.h) with its refusal printed as the
 * command's usage error (docs/trace-input.md "Directories"). */
#ifndef VPROF_CMD_INPUTS_H
#define VPROF_CMD_INPUTS_H

#include <stddef.h>

#include "vprof/exec.h"

/* vp_inputs_expand of args; 0, or exit status 2 after printing its
 * message as cmd's usage error. */
int vp_inputs_resolve(const char *cmd, char *const *args, size_t n, vp_inputs *out);

#endif
