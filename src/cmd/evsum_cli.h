/* The one command behind api, copies and ranges: options, the file pass of
 * vprof/evsum.h (one partial-result kind per family), the tables. */
#ifndef VPROF_CMD_EVSUM_CLI_H
#define VPROF_CMD_EVSUM_CLI_H

#include "vprof/evsum.h"

/* name: the command's name (its usage text comes from the table). */
int vp_evsum_command(int argc, char **argv, const char *name, vp_evsum_family family);

#endif
