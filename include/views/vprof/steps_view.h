/* The tables of a vp_breakdown (vprof steps' output, docs/steps.md). */
#ifndef VPROF_STEPS_VIEW_H
#define VPROF_STEPS_VIEW_H

#include "vprof/breakdown.h"
#include "vprof/table.h"

/* "steps": a row per step (rank_col: and rank).  selected_steps: a
 * range chose the steps (no note on work outside them).  maxima: NULL, or
 * b's rows merged by vp_breakdown_max_over_ranks: then a Type column, and
 * after each step's rank rows ("rank") a "max" row. */
vp_table *vp_steps_table(const vp_breakdown *b, int rank_col, int selected_steps,
                         const vp_breakdown *maxima);
/* "summary": mean, median, min, max of each column over the rows. */
vp_table *vp_steps_summary_table(const vp_breakdown *b);
/* "temporal" and "idle" (HTA's breakdowns); kernel_wait in ns. */
vp_table *vp_steps_temporal_table(const vp_breakdown *b);
vp_table *vp_steps_idle_table(vp_breakdown *b, int64_t kernel_wait);

#endif
