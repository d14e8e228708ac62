/* The analyses that make partial results (docs/partials.md), one entry
 * each: the command whose name their partial headers carry, the version
 * of their payload, and the model's life (new, merge, save, free) behind
 * one signature, so that the worker pool (vprof/parts.h), `vprof reduce`
 * and the fuzz target for partial files are driven by this one table
 * instead of a copy of it per command.
 *
 * A model is the analysis' own (vp_kernels, vp_run ...): the entry's
 * functions take it as void * and the command that asked for it reads it
 * through its own header.  opts is the analysis' own options struct
 * (vp_kernels_opts, vp_run_opts ...), or NULL for the widest model, one
 * with every grouping, that takes any partial of its command (what the
 * fuzz target merges into). */
#ifndef VPROF_ANALYSES_H
#define VPROF_ANALYSES_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/util.h"

typedef struct vp_analysis {
    const char *command;         /* in partial headers; one entry per name */
    uint64_t version;            /* of the payload */
    /* A new empty model shaped by opts (NULL: the widest). */
    void *(*new_model)(const void *opts);
    /* Adds a partial of the inputs that follow; -1 with err set (status 3)
     * when it is damaged. */
    int (*merge)(void *model, const void *p, size_t n, vp_error *err);
    /* Appends what the model holds as one payload. */
    void (*save)(const void *model, vp_buf *out);
    void (*free_model)(void *model);
    /* Input i (its place among the inputs, its rank when nothing else
     * says) read alone into a model fresh from new_model(opts): an exit
     * status, err set when not VP_EXIT_OK.  NULL where a command reads its
     * inputs its own way (comm and steps: Ascend directories; memory:
     * snapshots and timelines besides traces). */
    int (*read)(void *model, const void *opts, const char *input, size_t i, vp_error *err);
    /* Optional: what every view needs done once all is merged, with the
     * default order (vp_run_finish, vp_memevents_finish ...); NULL when
     * the finish takes a choice of the command's. */
    void (*finish)(void *model);
} vp_analysis;

/* The entries, in a fixed order; *n of them. */
const vp_analysis *vp_analyses(size_t *n);

/* The entry of command, or NULL when that command makes no partials. */
const vp_analysis *vp_analysis_find(const char *command);

#endif
