/* The evsum model (vprof/evsum.h) as the tables of nsys stats reports:
 * cuda_api_sum (vprof api), cuda_gpu_mem_time_sum and
 * cuda_gpu_mem_size_sum (vprof copies), nvtx_sum (vprof ranges). */
#ifndef VPROF_EVSUM_VIEW_H
#define VPROF_EVSUM_VIEW_H

#include "vprof/evsum.h"
#include "vprof/table.h"

/* s: finished.  top 0: every row; else the first top rows and a note.
 * The table of s's family; for copies, the time table. */
vp_table *vp_evsum_table(const vp_evsum *s, long top);
/* copies: per kind, the bytes of args.bytes and the bandwidth. */
vp_table *vp_copies_size_table(const vp_evsum *s, long top);

#endif
