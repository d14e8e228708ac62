/* summary's call findings: the launches and api analyses over the same
 * inputs (vprof/callfind.h), through the partial-result path of every
 * multi-file command (-j). */
#ifndef VPROF_CMD_CALLFACTS_CLI_H
#define VPROF_CMD_CALLFACTS_CLI_H

#include "cmd/cli.h"
#include "vprof/callfind.h"

/* Reads the inputs with launches and api (common's --steps, --partial,
 * -j).  0 with *out filled; -1 when an input is not a trace either reads
 * (nothing printed: the call findings are then left out). */
int vp_call_facts_read(const vp_common_opts *common, char *const *inputs, size_t n,
                       vp_call_facts *out);

#endif
