/* The kernels model (vprof/kernels.h) as a table: the columns of
 * `nsys stats -r cuda_gpu_kern_sum`, then the grouping dimensions, then
 * Name; rows past top folded into one "(others: N rows)". */
#ifndef VPROF_KERNELS_VIEW_H
#define VPROF_KERNELS_VIEW_H

#include "vprof/kernels.h"
#include "vprof/table.h"

/* k: finished (vp_kernels_finish).  dims: the dimension columns in their
 * order, one letter each: r(ank), d(evice), s(tream), c(lass), y (type),
 * k (core).  top 0: every row. */
vp_table *vp_kernels_table(const vp_kernels *k, const char *dims, long top);

/* k grouped by rank and class (VP_KDIM_RANK | VP_KDIM_CLASS), finished:
 * each file's rank and its time per class (compute, communication,
 * memory, sync, vprof/classify.h) and in all, one row per file in input
 * order, as "kernel_classes".  A file without any kernel has no row but a
 * note naming it; with no row at all, the note vprof kernels prints ("no
 * GPU kernels in the input"). */
vp_table *vp_kernels_class_table(const vp_kernels *k);

/* k grouped by Ascend op type and core (VP_KDIM_TYPE | VP_KDIM_CORE),
 * finished: the time per op type (dim 'y') or per accelerator core type
 * ('k'), summed over the other, largest first, with its share of all: the
 * charts of MindStudio Insight's Operator page. */
vp_table *vp_kernels_dim_table(const vp_kernels *k, char dim, const char *name);

#endif
