/* One way for every multi-file command to use all cores, many machines
 * and job arrays (docs/scale.md): its per-input work makes a partial
 * result (vprof/part.h), partials are merged in input order, and the
 * tables are built from the merge.
 *
 * -j 1 takes the same path as -j N (analyse, serialise, merge), so the
 * output is the same bytes for every N.  The workers are the library's
 * pool (vprof/exec.h); a worker's standard error is printed when its
 * input's turn comes, so warnings keep the input order too.  MPI lives
 * here, in the binary only (the library stays free of it): the partials'
 * share and gather, and for merge the peers of vprof/merge.h. */
#ifndef VPROF_CMD_SCALE_H
#define VPROF_CMD_SCALE_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/cli.h"
#include "vprof/merge.h"
#include "vprof/part.h"

typedef struct vp_parts {
    const char *cmd;            /* the command, in partial headers */
    uint64_t version;           /* of this command's payload */
    /* Analyses input i (an operand) alone and appends its partial to
     * out; messages go to standard error.  Returns an exit status. */
    int (*analyse)(void *ctx, const char *input, size_t i, vp_buf *out);
    /* Merges a partial (of the next inputs in order) into ctx.  -1 with
     * err set when it is malformed. */
    int (*merge)(void *ctx, const void *p, size_t n, vp_error *err);
    /* Appends what ctx holds as one partial (--save-part, MPI). */
    void (*save)(void *ctx, vp_buf *out);
    void *ctx;
} vp_parts;

/* Returned by vp_parts_run when this process prints nothing: the partial
 * was saved, or it is an MPI process other than rank 0. */
#define VP_PARTS_DONE (-1)

/* Analyses the n inputs -j at a time (--mpi: this process's share of
 * them), or under `vprof reduce` reads them as .vpart files, and merges
 * the partials into p->ctx in input order.  VP_EXIT_OK: ctx holds the
 * whole result, print it; VP_PARTS_DONE; or an exit status after the
 * error was printed. */
int vp_parts_run(const vp_common_opts *o, const vp_parts *p, char *const *inputs, size_t n);

/* Set by `vprof reduce` before it calls the command: the operands are
 * partial results. */
extern int vp_reducing;

#ifndef VPROF_HAVE_MPI
#define VPROF_HAVE_MPI 0
#endif
#if VPROF_HAVE_MPI
/* The operands with the globs among them expanded by this process
 * (--local: what this node has); NULL after printing that one matches
 * nothing.  Free with vp_mpi_list_free. */
char **vp_mpi_expand(const char *cmd, int local, char *const *inputs, size_t n, size_t *nout);
void vp_mpi_list_free(char **list, size_t n);
/* MPI started, and this process among the others as merge's peers. */
void vp_mpi_peers(vp_merge_peers *pe);
/* Says this process failed and ends the whole job. */
void vp_mpi_abort(const char *cmd, int status);
void vp_mpi_finish(void);
#endif

#endif
