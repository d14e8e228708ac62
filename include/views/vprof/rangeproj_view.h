/* The projection of user ranges onto the GPU (vprof/rangeproj.h) as
 * nsys' nvtx_gpu_proj_sum table, the second table of `vprof ranges`. */
#ifndef VPROF_RANGEPROJ_VIEW_H
#define VPROF_RANGEPROJ_VIEW_H

#include "vprof/rangeproj.h"
#include "vprof/table.h"

/* m: finished.  top 0: every row; else the first top rows and a note.
 * rank: a Rank column (the rows were grouped by rank). */
vp_table *vp_rangeproj_table(const vp_rangeproj *m, long top, int rank);

#endif
