/* Partial results as files (docs/partials.md): where --save-part puts one,
 * writing it, and reading one back for a reduce with the checks that keep
 * partials of another command, version or set of options out.  The MPI
 * share is the binary's (cmd/mpi.h); the driver over the worker pool is
 * vprof/parts.h. */
#ifndef VPROF_PARTFILE_H
#define VPROF_PARTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/part.h"
#include "vprof/util.h"

/* pattern with %r (the MPI rank), %i (the input's index) and %% expanded;
 * any other % sequence is kept as it is.  Free the result. */
char *vp_part_path(const char *pattern, long rank, size_t index);

/* What a partial file says of itself, besides its payload. */
typedef struct vp_part_kind {
    const char *command;        /* the command that makes and reads it */
    uint64_t version;           /* of its payload */
    const char *options;        /* NUL-separated: the options that shape it */
    size_t noptions;
} vp_part_kind;

/* Writes the header and payload to path.  -1 with err set (status 3,
 * "<command>: cannot write <path>: <reason>"). */
int vp_part_save(const char *path, const vp_part_kind *k, uint64_t inputs, const void *payload,
                 size_t n, vp_error *err);

/* Reads path into file and points *payload into it, after checking that
 * it is a partial of k's command, payload version and options (first
 * names the file the options are compared with, in messages).  -1 with
 * err set (status 3).  Free file either way. */
int vp_part_load(const char *path, const vp_part_kind *k, const char *first, vp_buf *file,
                 const void **payload, size_t *n, vp_error *err);

/* vprof reduce's reading: each of paths[0..n) loaded in turn (as
 * vp_part_load, the options compared with paths[0]'s) and handed to take
 * with its index, which returns an exit status.  Stops at the first
 * failure: a load's sets err (status 3) and returns 3; take's status is
 * returned as it is.  0 when all were taken. */
typedef int (*vp_part_take_fn)(void *ctx, const char *path, size_t i, const void *payload,
                               size_t n);
int vp_part_load_each(const vp_part_kind *k, char *const *paths, size_t n, vp_part_take_fn take,
                      void *ctx, vp_error *err);

#endif
