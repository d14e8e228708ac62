/* A trace written beside a command's tables: the input copied event by
 * event, some events given extra args, new events appended.  One layout
 * and one writer for every such output (counters --trace-out, sequences
 * --trace-out; critical-path's overlay writes the same layout):
 *
 *   {"traceEvents": [
 *   <each input event, its raw text>,
 *   ...
 *   <the appended events>
 *   ],
 *   <the input's other top-level members, in their order>
 *   }
 *
 * The file goes through vp_sink: gzip when its name ends in .gz, written
 * under a temporary name and renamed only when whole, so a failed run
 * leaves nothing under the target's name. */
#ifndef VPROF_TRACE_COPY_H
#define VPROF_TRACE_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/sink.h"
#include "vprof/trace.h"

typedef struct vp_trace_out {
    vp_sink *sink;
    uint64_t nevents;   /* events written so far */
} vp_trace_out;

/* Before each appended event: the separator (",\n" after the first). */
void vp_trace_out_next(vp_trace_out *o);

typedef struct vp_trace_copy_ops {
    /* Writes input event idx (0-based, in file order) to s: its raw text,
     * or that text with args added (vp_trace_copy_with_arg).  NULL: every
     * event is copied as it is. */
    void (*event)(void *ctx, vp_sink *s, const vp_event *ev, int64_t idx);
    /* After the last input event: the appended events, each after
     * vp_trace_out_next.  NULL: none. */
    void (*tail)(void *ctx, vp_trace_out *o);
    void *ctx;
    int partial;        /* accept a truncated input, as the first reading did */
} vp_trace_copy_ops;

/* Reads in (again: the caller read it once to compute what it adds) and
 * writes out.  An exit status; err set when not OK (the input changed or
 * broke, the output could not be written). */
int vp_trace_copy(const char *in, const char *out, const vp_trace_copy_ops *ops, vp_error *err);

/* Writes ev with member (a JSON object member, `"key": value`) added to its
 * args, which are made when the event has none. */
int vp_trace_copy_with_arg(vp_sink *s, const vp_event *ev, const char *member, size_t n);

/* Appends v as Python's json module writes a float: the shortest text
 * that reads back as the same double, with ".0" when it is a whole number
 * ("3.0", "0.25", "1e-05"); NaN and infinities as NaN, Infinity,
 * -Infinity. */
void vp_trace_copy_double(vp_buf *out, double v);

#endif
