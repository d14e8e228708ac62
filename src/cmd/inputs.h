/* The operands of every command that reads traces, resolved by one
 * function: a directory stands for its traces, and one file named twice
 * is refused (docs/trace-input.md "Directories"). */
#ifndef VPROF_CMD_INPUTS_H
#define VPROF_CMD_INPUTS_H

#include <stddef.h>

typedef struct vp_inputs {
    char **paths;    /* the files (and Ascend directories) to read, in order */
    size_t n;
} vp_inputs;

/* Resolves the operands of cmd: an Ascend profile directory (by content:
 * vp_asc_scan reads it) stands for itself, the Ascend readers scan it;
 * any other directory for its trace files (*.json, *.json.gz, *.gz; no
 * dot files) in rank order: the files whose name holds a rank ("rank3",
 * "rank_3"), by rank, then the others by name.  A directory with neither
 * stays itself, for its reader to say so.  "-" and names that are no file
 * (merge's FILE@RANK: one trace merged as two ranks on purpose) are kept
 * as given.  Two operands that reach the same file (same device
 * and inode: a name given twice, a symbolic link and its target, a
 * directory and a file in it) are a usage error naming both: its events
 * would be counted twice.  Returns 0, or an exit status after printing. */
int vp_inputs_resolve(const char *cmd, char *const *args, size_t n, vp_inputs *out);
void vp_inputs_free(vp_inputs *in);

#endif
