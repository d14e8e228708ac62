/* The worker pool every multi-input command runs on (docs/scale.md):
 * items are worked on in forked worker processes, a few ahead of the
 * one whose turn it is, and their results are taken strictly in item
 * order, so that the output is the same bytes for every number of jobs.
 *
 * Processes, not threads: the analyses keep globals (vp_quiet, qsort
 * contexts, compiled regexes) that were never meant to be shared, and a
 * crash stays in its worker.  A worker's standard error is captured and
 * handed over with its result, so that the caller can print it when the
 * item's turn comes and messages keep the item order too.  The pool
 * itself prints nothing.  MPI is not here: the library stays free of it
 * (the binary shares inputs among processes, cmd/mpi.h); the driver of
 * partial results over this pool is vprof/parts.h. */
#ifndef VPROF_EXEC_H
#define VPROF_EXEC_H

#include <stddef.h>

#include "vprof/error.h"
#include "vprof/util.h"

/* The online cores (at least 1): the default number of jobs. */
long vp_online_cores(void);

/* Writes all of p[0..n) to fd, through short writes and EINTR; -1 on error. */
int vp_write_all(int fd, const void *p, size_t n);

/* What came back for one item, at its turn. */
typedef struct vp_pool_result {
    int worker;          /* it ran in a worker process (0: in this one) */
    int ok;              /* the worker ended normally with its whole result */
    long pid;            /* the worker, when !ok */
    int signal;          /* the signal that killed it, 0 when none */
    int status;          /* work's return */
    const char *msg;     /* what the worker wrote on stderr (NULL when here) */
    size_t nmsg;
    const void *data;    /* what work appended to its output */
    size_t n;
} vp_pool_result;

enum { VP_POOL_WORKER, VP_POOL_HERE };

typedef struct vp_pool {
    /* Item i's work, in a worker process (worker = 1) or in this one at
     * its turn (worker = 0): appends its result to out, returns a status
     * that travels with it. */
    int (*work)(void *ctx, size_t i, int worker, vp_buf *out);
    /* Item i's result, in this process, in item order.  0 to go on;
     * anything else stops the pool and is what vp_pool_run returns. */
    int (*take)(void *ctx, size_t i, const vp_pool_result *r);
    /* Optional, in this process just before item i is started: where it
     * runs (VP_POOL_WORKER or VP_POOL_HERE), or -1 to stop the pool with
     * VP_EXIT_INPUT (the reason kept by the caller). */
    int (*place)(void *ctx, size_t i);
    void *ctx;
} vp_pool;

/* Items [first, last) with up to jobs workers (jobs <= 1, or one item:
 * every item here, in order, no process started).  Returns 0, take's
 * non-zero return, or VP_EXIT_INPUT with err set when no worker could
 * be started or polled. */
int vp_pool_run(const vp_pool *p, long jobs, size_t first, size_t last, vp_error *err);

/* The operands of a job shared among processes (--mpi), globs among them
 * expanded by each process itself: an operand that names no file and
 * holds a wildcard (quoted on the mpirun line: the files may be on a disk
 * only the compute nodes see) stands for its matches, in glob order.
 * local (--local): what this node has; a file named that it lacks, or a
 * glob matching nothing, is another node's and left out.  Returns the list
 * (free with vp_operands_free; *nout entries), or NULL with err set (status
 * 3) when a glob matches nothing and local is 0. */
char **vp_operands_expand(char *const *inputs, size_t n, int local, size_t *nout, vp_error *err);
void vp_operands_free(char **list, size_t n);

/* ---- operands to files ------------------------------------------------- */

typedef struct vp_inputs {
    char **paths;    /* the files (and Ascend directories) to read, in order */
    size_t n;
} vp_inputs;

/* The operands of a command that reads traces, resolved by one function:
 * an Ascend profile directory (by content: vp_asc_scan reads it) stands
 * for itself, the Ascend readers scan it; any other directory for its
 * trace files (*.json, *.json.gz, *.gz; no dot files) in rank order: the
 * files whose name holds a rank ("rank3", "rank_3"), by rank, then the
 * others by name.  A directory with neither stays itself, for its reader
 * to say so.  "-" and names that are no file (merge's FILE@RANK: one trace
 * merged as two ranks on purpose) are kept as given.  Two operands that
 * reach the same file (same device and inode: a name given twice, a
 * symbolic link and its target, a directory and a file in it) are refused
 * (err status 2, naming both: its events would be counted twice).
 * Returns 0, or -1 with err set and out empty.  The scans of the Ascend
 * directories are kept for their readers (vp_asc_scan_once) until
 * vp_inputs_free. */
int vp_inputs_expand(char *const *args, size_t n, vp_inputs *out, vp_error *err);
void vp_inputs_free(vp_inputs *in);

#endif
