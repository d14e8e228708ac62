/* The merge engine behind `vprof merge` (docs/merge.md): per-rank traces
 * into one timeline, streamed at constant memory.  Rank R's processes
 * become pids R*VP_MERGE_PIDS_PER_RANK + 0, 1, ..., flow and async ids
 * get a namespace per rank (vprof/trace_writer.h), and every ts moves
 * onto one clock (baseTimeNanoseconds, each rank from 0, or matched
 * collective kernels).  One call takes the inputs, the options and the
 * output; it prints nothing: what it found comes back in the result, and
 * what it has to say while it works goes through the hooks. */
#ifndef VPROF_MERGE_H
#define VPROF_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/sink.h"
#include "vprof/steps.h"
#include "vprof/util.h"

typedef enum {
    VP_ALIGN_AUTO,        /* base, the default */
    VP_ALIGN_NONE,
    VP_ALIGN_BASE,
    VP_ALIGN_START,
    VP_ALIGN_COLLECTIVE,
} vp_merge_align;

#define VP_MERGE_DEFAULT_COLLECTIVES 32

/* One input: a trace file ("-": standard input) and, when rank_explicit,
 * its rank (else found as vprof/rank.h says). */
typedef struct vp_merge_input {
    const char *arg;      /* as given, for messages */
    const char *path;
    long rank;
    int rank_explicit;
} vp_merge_input;

/* What merge did with one input. */
typedef struct vp_merge_rank {
    const char *path;
    long rank;
    int rank_explicit;       /* given with the input */
    const char *rank_from;   /* else where it was found: vp_rank_source_name */
    int skipped;             /* not among the ranks asked for */
    int truncated;
    uint64_t events_read, events_written;
    int64_t shift;           /* ns added to every ts */
    int64_t coll_offset;     /* VP_ALIGN_COLLECTIVE: the shift the collectives gave */
    size_t coll_matched;
} vp_merge_rank;

/* What merge warns of (a, b: the values the message needs). */
typedef enum {
    VP_MERGE_NO_COLLECTIVE_MATCH,    /* no collective matches rank a's: base alignment only */
    VP_MERGE_TRUNCATED,              /* truncated: the a events before the end merged */
} vp_merge_warning;

/* What the caller hears while merge works: called in the process that
 * copies the input (a worker's standard error is handed back in order). */
typedef struct vp_merge_hooks {
    /* An input copied (or left out). */
    void (*input_done)(void *ctx, const vp_merge_rank *r);
    /* An input whose rank or clock base came after its events and was not
     * what merge assumed: it is copied again. */
    void (*recopy)(void *ctx, const char *path);
    void (*warn)(void *ctx, vp_merge_warning what, const char *path, long long a, long long b);
    /* What a worker process wrote on its standard error. */
    void (*echo)(void *ctx, const char *text, size_t n);
    void *ctx;
} vp_merge_hooks;

/* Other processes copying shares of the inputs (MPI, in the binary):
 * process r of size copies the r-th contiguous share; every process but
 * 0 sends its results, in order, to process 0, which writes the output. */
typedef struct vp_merge_peers {
    int rank, size;
    /* One message to process 0. */
    int (*send)(void *ctx, const void *p, size_t n);
    /* The next message from process from, into out (cleared first). */
    int (*recv)(void *ctx, int from, vp_buf *out);
    void *ctx;
} vp_merge_peers;

typedef struct vp_merge_opts {
    const char *output;            /* file, or "-" for standard output */
    vp_sink_opts sink;             /* gzip, level */
    vp_merge_align align;
    long coll_n;                   /* VP_ALIGN_COLLECTIVE: collectives matched */
    struct vp_kclass_rules *classes;   /* VP_ALIGN_COLLECTIVE: the --comm-kernels and
                                        * --compute-kernels overrides, NULL: the rules alone */
    const long (*ranks)[2];        /* only ranks in these ranges (none: all) */
    size_t nranks;
    const vp_step_range *steps;    /* only these ProfilerSteps (NULL: all) */
    int has_w0, has_w1;            /* only events overlapping [w0, w1], ns */
    int64_t w0, w1;
    char *const *drop, *const *keep;   /* categories */
    size_t ndrop, nkeep;
    int partial;                   /* merge what a truncated input holds */
    int progress;                  /* the reader's progress bar, copying alone */
    long jobs;                     /* worker processes; 0: one per online core */
    const vp_merge_peers *peers;   /* NULL: this process alone */
    const vp_merge_hooks *hooks;   /* NULL: none */
} vp_merge_opts;

typedef struct vp_merge_result {
    vp_merge_rank *ranks;          /* one per input, in input order */
    size_t n;
    int any_base;                  /* an input had baseTimeNanoseconds */
    char *output_name;             /* the sink's name, for messages */
    int wrote;                     /* this process wrote the output (not a peer) */
} vp_merge_result;

/* Merges the n inputs into o->output.  0, or -1 with err set (the output
 * then left untouched; VP_EXIT_USAGE: what was asked cannot be done). */
int vp_merge_run(const vp_merge_input *in, size_t n, const vp_merge_opts *o,
                 vp_merge_result *res, vp_error *err);

void vp_merge_result_free(vp_merge_result *res);

/* The option syntaxes, the same for every front end; each returns 0, or
 * -1 when the text is malformed.  none|base|start|collective[:N]: */
int vp_merge_parse_align(const char *spec, vp_merge_align *align, long *coll_n);
/* A list like 0-3,8, appended to *ranks (malloc'ed): */
int vp_merge_parse_ranks(const char *spec, long (**ranks)[2], size_t *nranks);
/* T0:T1 in microseconds, either left out, T0 <= T1, into o->w0, o->w1: */
int vp_merge_parse_window(const char *spec, vp_merge_opts *o);
/* FILE@RANK: 0 with *path (malloc'ed) and *rank; -1 with *path the whole
 * argument when it has no rank (or names an existing file). */
int vp_merge_parse_input(const char *arg, char **path, long *rank);
/* A comma list (categories), appended to *out (each malloc'ed); -1 when
 * it holds none. */
int vp_merge_parse_list(const char *spec, char ***out, size_t *n);

/* The inputs as operands give them, for vp_merge_run: in[i].path is
 * paths[i]; both owned here. */
typedef struct vp_merge_inputs {
    vp_merge_input *in;
    char **paths;
    size_t n;
} vp_merge_inputs;

/* An operand: FILE@RANK, or FILE. */
void vp_merge_inputs_add(vp_merge_inputs *l, const char *arg);
/* An Ascend directory (a *_ascend_pt, a folder of them, a PROF_*) stands
 * for the trace of each of its ranks, with the rank its profiler_info
 * names.  0, or -1 with err set. */
int vp_merge_inputs_add_ascend(vp_merge_inputs *l, const char *dir, vp_error *err);
void vp_merge_inputs_free(vp_merge_inputs *l);

#endif
