/* MPI, in the binary only (the library stays free of it): the one
 * interface the commands use to share their inputs among MPI processes
 * (--mpi, --local; docs/scale.md).  Built with -DVPROF_MPI=ON; without it
 * these are not declared and --mpi says how to get it (cmd/cli.c). */
#ifndef VPROF_CMD_MPI_H
#define VPROF_CMD_MPI_H

#include <stddef.h>

#include "cli/cli.h"
#include "vprof/merge.h"
#include "vprof/parts.h"

#ifndef VPROF_HAVE_MPI
#define VPROF_HAVE_MPI 0
#endif
#if VPROF_HAVE_MPI
/* A partial-result command under --mpi: this process's share of the
 * inputs (globs expanded here; --local: this node's files shared among
 * its processes) analysed (or, reducing, read) through the library's
 * driver into j->model, the partials gathered to rank 0 in rank order and
 * merged there.  VP_EXIT_OK on rank 0 with the whole result in j->model,
 * VP_PARTS_DONE (cli/scale.h) elsewhere or after --save-part, or an exit
 * status after the error was printed (and the job aborted). */
int vp_mpi_parts(const vp_common_opts *o, vp_parts_job *j, int reducing, char *const *inputs,
                 size_t n);

/* For merge: the operands with the globs among them expanded by this
 * process (--local: what this node has); NULL after printing that one
 * matches nothing.  Free with vp_mpi_list_free. */
char **vp_mpi_expand(const char *cmd, int local, char *const *inputs, size_t n, size_t *nout);
void vp_mpi_list_free(char **list, size_t n);
/* MPI started, and this process among the others as merge's peers. */
void vp_mpi_peers(vp_merge_peers *pe);
/* Says this process failed and ends the whole job. */
void vp_mpi_abort(const char *cmd, int status);
void vp_mpi_finish(void);
#endif

#endif
