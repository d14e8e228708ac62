/* One way for every multi-file command to use all cores, many machines
 * and job arrays (docs/scale.md): its per-input work makes a partial
 * result of its analysis (vprof/analyses.h), the partials are merged in
 * input order by the library's driver (vprof/parts.h), and the command
 * builds its tables from the merge.
 *
 * This is the driver's command-line side: the operands resolved, the
 * options of --save-part's headers, the printer of the driver's messages,
 * `vprof reduce`'s switch, and --mpi (cli/mpi.h). */
#ifndef VPROF_CMD_SCALE_H
#define VPROF_CMD_SCALE_H

#include <stddef.h>

#include "cli/cli.h"
#include "vprof/util.h"

typedef struct vp_parts {
    const char *cmd;            /* the command: messages, partial headers,
                                 * and its entry of vprof/analyses.h */
    const void *opts;           /* the analysis' options (its new_model, read) */
    void *model;                /* where the inputs are merged: the entry's model */
    /* Optional: input i alone, its partial appended to out; an exit
     * status after printing why.  NULL: the entry's read. */
    int (*analyse)(void *ctx, const char *input, size_t i, vp_buf *out);
    void *ctx;
    const char *analysis;       /* the entry, when not cmd's (NULL: cmd's) */
} vp_parts;

/* Returned by vp_parts_run when this process prints nothing: the partial
 * was saved, or it is an MPI process other than rank 0. */
#define VP_PARTS_DONE (-1)

/* Analyses the n inputs -j at a time (--mpi: this process's share of
 * them), or under `vprof reduce` reads them as .vpart files, and merges
 * the partials into p->model in input order.  VP_EXIT_OK: the model holds
 * the whole result, print it; VP_PARTS_DONE; or an exit status after the
 * error was printed. */
int vp_parts_run(const vp_common_opts *o, const vp_parts *p, char *const *inputs, size_t n);

/* Set by `vprof reduce` before it calls the command: the operands are
 * partial results. */
extern int vp_reducing;

#endif
