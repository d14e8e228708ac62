/* The driver of partial results (docs/scale.md, docs/partials.md): a
 * command's inputs analysed one by one on the worker pool (vprof/exec.h),
 * each into a partial of its analysis (vprof/analyses.h), the partials
 * merged in input order into the command's model, or written as files
 * (--save-part), or partial files read back and merged (vprof reduce).
 *
 * One input takes the same path for any number of jobs (analyse, save,
 * merge), so that the merge is the same bytes for every number.  The
 * driver prints nothing: what it has to say goes to the hooks the caller
 * installs, and a worker's own messages (its standard error, captured)
 * are handed over when its input's turn comes, so they keep the input
 * order too.  Sharing among MPI processes is the binary's: it calls these
 * for its share and merges the others' partials itself. */
#ifndef VPROF_PARTS_H
#define VPROF_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/analyses.h"
#include "vprof/error.h"
#include "vprof/util.h"

typedef struct vp_parts_hooks {
    /* An error: an input that could not be read, merged or written, a
     * worker that died.  Called in a worker too, where its output is
     * captured and comes back through echo at the input's turn. */
    void (*report)(void *ctx, const vp_error *err);
    /* What a worker wrote on its standard error, at its input's turn. */
    void (*echo)(void *ctx, const char *text, size_t n);
    void *ctx;
} vp_parts_hooks;

typedef struct vp_parts_job {
    const char *command;         /* in messages and partial headers */
    const vp_analysis *a;        /* the partials' kind; a->version in headers */
    void *model;                 /* where the partials are merged */
    const void *opts;            /* a->new_model's and a->read's */
    /* Optional: input i alone, its partial appended to out; an exit
     * status (its messages its own).  NULL: a->read into a new model. */
    int (*analyse)(void *ctx, const char *input, size_t i, vp_buf *out);
    void *ctx;
    const char *options;         /* NUL-separated: the options in headers */
    size_t noptions;
    const char *save_part;       /* a path pattern (vprof/partfile.h): write
                                  * partials there instead of merging; with
                                  * %i one file per input */
    long rank;                   /* the pattern's %r */
    vp_parts_hooks hooks;
} vp_parts_job;

/* Inputs [first, last) (an input's index is its place among all of
 * inputs), up to jobs at a time (jobs <= 1: all here, in order), their
 * partials merged into j->model in order, or with save_part's %i each
 * written to its file.  Stops at the first failure.  An exit status. */
int vp_parts_analyse(const vp_parts_job *j, long jobs, char *const *inputs, size_t first,
                     size_t last);

/* vprof reduce: paths[0..n) read as partial files of j's command, payload
 * version and options, and taken as vp_parts_analyse takes partials. */
int vp_parts_reduce(const vp_parts_job *j, char *const *paths, size_t n);

/* With save_part but no %i: j->model as one partial file, covering inputs
 * files.  An exit status. */
int vp_parts_save(const vp_parts_job *j, uint64_t inputs);

/* 1 when j writes one partial file per input (save_part holds %i). */
int vp_parts_each(const vp_parts_job *j);

#endif
