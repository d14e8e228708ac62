/* The kernel sequences launched under an operator: the model of
 * `vprof sequences`, as HTA's get_frequent_cuda_kernel_sequences
 * (hta/analyzers/cuda_kernel_analysis.py) defines them.
 *
 * Per thread the CPU slices nest as vprof ops nests them (the same walk);
 * GPU work (events with args.stream, joined on the correlation id) hangs
 * under the slice that launched it.  The roots are the slices whose name
 * holds the operator name as a substring, at the smallest depth any such
 * slice has (depth 0: a slice with no parent; the backward thread's top
 * slices inside the main thread's "## backward ##" or ProfilerStep#
 * annotation sit one below it, as HTA links the two threads), and with at
 * least min_len GPU events under them.  A root's pattern is its name, then
 * the names of its GPU events in start order, '|'-joined; each pattern
 * counts its roots and sums their GPU durations and their own durations.
 *
 * Memory: every CPU slice and GPU event of the file (about 80 bytes
 * each) until it is read; with keep_marks also 8 bytes per slice and GPU
 * event, and 16 per event of an instance.  Nothing here prints. */
#ifndef VPROF_SEQUENCES_H
#define VPROF_SEQUENCES_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/steps.h"

typedef struct vp_sequences_opts {
    const char *op;                 /* matched as a substring of slice names */
    long min_len;                   /* HTA's min_pattern_len (3) */
    const vp_step_range *steps;     /* NULL: every root counts */
    int partial;
    int keep_marks;                 /* keep the marks, for vp_sequences_write_trace */
    void (*say)(const char *msg);
} vp_sequences_opts;

typedef struct vp_sequence {
    char *pattern;
    int64_t count;
    int64_t gpu_dur, cpu_dur;       /* ns */
} vp_sequence;

/* An event of an instance: its index among the file's events, its
 * pattern's row. */
typedef struct vp_sequence_mark {
    int64_t event;
    uint32_t row;
} vp_sequence_mark;

typedef struct vp_sequences {
    vp_sequences_opts o;
    vp_sequence *rows;              /* by count (largest first), then pattern */
    size_t nrows;
    int64_t roots;                  /* instances counted */
    int64_t candidates;             /* slices whose name holds op */
    long min_depth;                 /* of the candidates; -1 when none */
    vp_sequence_mark *marks;        /* keep_marks: by event, then row */
    size_t nmarks, cap_marks;
} vp_sequences;

void vp_sequences_init(vp_sequences *q, const vp_sequences_opts *o);
void vp_sequences_free(vp_sequences *q);

/* One trace (one rank).  An exit status, err set when not OK. */
int vp_sequences_read(vp_sequences *q, const char *path, vp_error *err);

/* Writes the trace in (the file read) to out (gzip when it ends in .gz)
 * with the top patterns (rows 0 .. top-1; 0 = all) marked as HTA's
 * get_frequent_cuda_kernel_sequences overlays them: every event of their
 * instances gets args "Patterns": {pattern: count, ...} (the top patterns
 * it is in, most frequent first).  Needs keep_marks.  An exit status, err
 * set when not OK. */
int vp_sequences_write_trace(const vp_sequences *q, const char *in, const char *out, size_t top,
                             vp_error *err);

#endif
