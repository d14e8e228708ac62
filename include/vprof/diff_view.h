/* Two runs (vprof/runstats.h) side by side: the tables of vprof diff.
 * Each table takes a Rank column first when by_rank (--by rank); the rows
 * of one pair of runs are added with their rank (rank < 0: no column). */
#ifndef VPROF_DIFF_VIEW_H
#define VPROF_DIFF_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/runstats.h"
#include "vprof/table.h"

/* Kernels by name, largest change first; returns how many rows
 * min_delta (ns) and top (0: all) hid. */
vp_table *vp_diff_kernel_table(int by_rank);
size_t vp_diff_kernel_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank,
                           int64_t min_delta, long top);

/* Kernel time per class (vp_kclass). */
vp_table *vp_diff_class_table(int by_rank);
void vp_diff_class_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank);

/* Metrics of both runs: rendered in their units, or raw numbers (raw). */
vp_table *vp_diff_metric_table(int by_rank, int raw);
void vp_diff_metric_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank,
                         int raw);

#endif
