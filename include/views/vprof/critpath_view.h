/* The critical path (vprof/critpath.h) as tables: time per bound_by
 * category, the path's edges in order, the ops and kernels with the most
 * time on the path. */
#ifndef VPROF_CRITPATH_VIEW_H
#define VPROF_CRITPATH_VIEW_H

#include "vprof/critpath.h"
#include "vprof/critpath_steps.h"
#include "vprof/table.h"

/* "summary": Bound By (HTA's names, sorted as HTA's groupby sorts them),
 * Time (ns), Time (%) of the path. */
vp_table *vp_critpath_summary_table(const vp_critpath *cp);
/* "path": one row per edge in path order. */
vp_table *vp_critpath_path_table(const vp_critpath *cp);
/* "top": per event name (ops, runtime calls, kernels), the time of the
 * edges attributed to it on the path; top 0 = all. */
vp_table *vp_critpath_top_table(const vp_critpath *cp, long top);

/* "step_bound" (summary --critical-path): per rank and step, the bound_by
 * category with the most time on the step's critical path: Rank, Step,
 * Instance (critical-path --instance for the same window), Bound By,
 * Time (ns) of that category, Path (ns), Time (%) of the path; NULL when
 * there are no verdicts. */
vp_table *vp_critpath_steps_table(const vp_cp_steps *s);

#endif
