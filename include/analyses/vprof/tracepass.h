/* One trace file read once, as every analysis of events reads one (kernels,
 * ops, launches, api/copies/ranges, comm, steps, the run metrics, merge's
 * scan, memory's [memory] events): the trace opened, every event given to
 * the caller's observer, the steps selected, the rank told, and the
 * warnings every reader gives worded once.  vprof/gpupass.h builds the
 * GPU-work pass on it.
 *
 * The caller keeps the per-event logic, and nothing else: a reader's
 * observer sees each event once, in file order, and reads what the pass
 * decided (p->steps, p->rank) after vp_trace_pass_read. */
#ifndef VPROF_TRACEPASS_H
#define VPROF_TRACEPASS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/rank.h"
#include "vprof/steps.h"
#include "vprof/trace.h"

typedef void (*vp_trace_pass_fn)(void *ctx, const vp_event *ev);

typedef struct vp_trace_pass_opts {
    int partial;                  /* accept a truncated trace */
    int no_progress;              /* no progress bar */
    const char *name;             /* the input's name in messages (vp_trace_opts.name) */
    const vp_step_range *range;   /* NULL: every step, and no step selection */
    /* Steps that the observer fills itself (vp_gpuwork does): the pass
     * only selects them.  NULL: with a range the pass keeps steps of its
     * own and gives them every event before the observer sees it. */
    vp_steps *steps;
    long position;                /* the file's position, the rank's last resort */
    long rank;                    /* >= 0: the rank, whatever the trace says */
    /* The run's overrides of the kernel class rules (vprof/classify.h),
     * for the analyses that classify; NULL: the rules alone.  Mutable:
     * matching keeps a buffer in it. */
    struct vp_kclass_rules *classes;
    /* Keep the earliest and latest ts (ts_first, ts_last) for the trace's
     * origin (vprof/origin.h); 0: the pass does not look, so the commands
     * that never judge origins pay nothing per event. */
    int window;
} vp_trace_pass_opts;

typedef struct vp_trace_pass {
    vp_trace *trace;       /* open until vp_trace_pass_close: name, metadata, statistics */
    vp_steps *steps;       /* opts.steps, the pass's own, or NULL (no range, none given) */
    int own_steps;
    int has_range;
    size_t nsteps;         /* steps present */
    size_t chosen;         /* steps the range selected (nsteps without one) */
    long rank;
    vp_rank_source rank_from;
    int64_t ts_first, ts_last;   /* the earliest and latest ts of its timed events, ns
                                  * (metadata events apart); ts_first > ts_last: none */
} vp_trace_pass;

/* 0, or -1 with err set (the trace did not open, or an event is bad); p
 * is to be closed either way.  The steps are selected and the rank told
 * only after a whole reading. */
int vp_trace_pass_read(vp_trace_pass *p, const char *path, const vp_trace_pass_opts *o,
                       vp_trace_pass_fn fn, void *ctx, vp_error *err);

/* The warnings of a reading, in this order, through vp_warn:
 * - with a range, that it keeps nothing (vp_steps_warn_none; each message
 *   ends with what is kept instead: ", so no kernel is kept");
 * - events skipped, when skipped > 0: "NAME: N <skipped_what> were skipped";
 * - with utf8, invalid UTF-8 in names replaced by U+FFFD. */
typedef struct vp_trace_pass_warnings {
    const char *no_steps_kept;       /* after "the trace has no ProfilerStep#N annotations" */
    const char *none_selected_kept;  /* after "selects none of the steps present (...)" */
    uint64_t skipped;
    const char *skipped_what;        /* "kernel events without \"dur\"" */
    int utf8;
} vp_trace_pass_warnings;

void vp_trace_pass_warn(const vp_trace_pass *p, const vp_trace_pass_warnings *w);

/* What a reader read, for -v: formatted (at most 1 KiB) and given to say;
 * nothing when say is NULL. */
typedef void (*vp_say_fn)(const char *msg);
void vp_trace_pass_say(vp_say_fn say, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void vp_trace_pass_close(vp_trace_pass *p);

#endif
