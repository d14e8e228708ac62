/* The sequences model (vprof/sequences.h) as a table: HTA's
 * get_frequent_cuda_kernel_sequences frame. */
#ifndef VPROF_SEQUENCES_VIEW_H
#define VPROF_SEQUENCES_VIEW_H

#include "vprof/sequences.h"
#include "vprof/table.h"

/* Pattern, Count, GPU Kernel Duration, CPU Op Duration; top 0: every
 * pattern, else the first top and a note. */
vp_table *vp_sequences_table(const vp_sequences *q, long top);

#endif
