/* Whether each step is CPU- or GPU-bound by its critical path: HTA's
 * lightweight critical path (vprof/critpath.h, the one implementation)
 * of every ProfilerStep of a trace, read in the caller's own pass over it
 * (summary's), and the bound_by category with the most time on each.
 * Memory: critical-path's compact rows of the whole trace while it is
 * read (every step is a window), then a verdict per step. */
#ifndef VPROF_CRITPATH_STEPS_H
#define VPROF_CRITPATH_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/critpath.h"
#include "vprof/part.h"
#include "vprof/trace.h"

typedef struct vp_cp_verdict {
    long rank;
    long step;               /* N of ProfilerStep#N */
    long instance;           /* critical-path --instance for the same window */
    vp_cp_bound bound;       /* the category with the most time on the path */
    int64_t bound_us, total_us;
} vp_cp_verdict;

typedef struct vp_cp_steps {
    vp_critpath cp;          /* the trace being read */
    int reading;
    vp_cp_verdict *v;        /* by rank as read, then step in file order */
    size_t n;
    size_t refused;          /* steps with no path (a graph HTA refuses, no ops) */
} vp_cp_steps;

void vp_cp_steps_init(vp_cp_steps *s);
/* One trace: begin, every event in file order, end (path names it in
 * messages; rank is the one the caller gives the trace).  The last step
 * of a trace with two step names or more has no verdict: HTA leaves it
 * out when it loads a trace. */
void vp_cp_steps_begin(vp_cp_steps *s);
void vp_cp_steps_feed(vp_cp_steps *s, const vp_event *ev);
void vp_cp_steps_end(vp_cp_steps *s, const char *path, long rank);

/* Partial results (docs/partials.md): the verdicts, appended to a run's. */
void vp_cp_steps_save(const vp_cp_steps *s, vp_buf *b);
void vp_cp_steps_merge(vp_cp_steps *s, vp_rd *d);

void vp_cp_steps_free(vp_cp_steps *s);

#endif
