/* The one command behind api, copies and ranges: options, the file pass of
 * vprof/evsum.h (one partial-result kind per family), the tables. */
#ifndef VPROF_CMD_EVSUM_CLI_H
#define VPROF_CMD_EVSUM_CLI_H

#include "vprof/evsum.h"

/* name: the command's name (its usage text comes from the table). */
int vp_evsum_command(int argc, char **argv, const char *name, vp_evsum_family family);

/* The options every command of vp_evsum_command takes alike, as their
 * usage texts list them after the table options. */
#define VP_EVSUM_OUTPUT_USAGE \
    "  -o, --output FILE  write there instead of standard output\n" \
    "      --full-names   never shorten names in the table format\n" \
    "      --partial      accept a truncated trace, with a warning saying how much was read\n" \
    "  -v, --verbose      say what was read, per file\n" \
    "  -q, --quiet        no warnings, no progress bar\n" \
    VP_SCALE_USAGE \
    "  -h, --help         this help\n"

#endif
