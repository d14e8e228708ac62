/* Two runs (vprof/runstats.h) side by side: the tables of vprof diff.
 * Each table takes a Rank column first when by_rank (--by rank); the rows
 * of one pair of runs are added with their rank (rank < 0: no column). */
#ifndef VPROF_DIFF_VIEW_H
#define VPROF_DIFF_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/runstats.h"
#include "vprof/table.h"
#include "vprof/util.h"

/* What the runs themselves were (device, GPUs, compute capability, world
 * size, ranks, steps, trace schema), base and new side by side with a
 * Differs column; differs gets "device A -> B, steps 2 -> 5" for those
 * that differ (empty when none). */
vp_table *vp_diff_runs_table(const vp_run *base, const vp_run *now, vp_buf *differs);

typedef struct vp_diff_kernel_opts {
    int64_t min_delta;    /* ns: hide smaller changes */
    long top;             /* keep the largest changes; 0: all */
    int exact_names;      /* 1: no pairing of names that differ in literals (vprof/kpair.h) */
} vp_diff_kernel_opts;

/* Kernels by name (pairs of names differing only in literals in one row,
 * Status "paired"), largest change first; returns how many rows min_delta
 * and top hid, and adds to *ambiguous (may be NULL) the kernels left
 * unpaired because several names share their key. */
vp_table *vp_diff_kernel_table(int by_rank);
size_t vp_diff_kernel_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank,
                           const vp_diff_kernel_opts *o, size_t *ambiguous);

/* Kernel time per class (vp_kclass). */
vp_table *vp_diff_class_table(int by_rank);
void vp_diff_class_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank);

/* Metrics of both runs: rendered in their units, or raw numbers (raw). */
vp_table *vp_diff_metric_table(int by_rank, int raw);
void vp_diff_metric_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank,
                         int raw);

#endif
