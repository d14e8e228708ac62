/* The launches model (vprof/launches.h) as tables: per rank, HTA's launch
 * counts; per API and kernel name, nsys cuda_kern_exec_sum's columns; and
 * the kept launches one per row. */
#ifndef VPROF_LAUNCHES_VIEW_H
#define VPROF_LAUNCHES_VIEW_H

#include "vprof/launches.h"
#include "vprof/table.h"

/* l: finished.  A Rank column when l holds several files. */
vp_table *vp_launches_summary_table(const vp_launches *l);
/* top 0: every name; else the top names by kernel time, and a note. */
vp_table *vp_launches_exec_table(const vp_launches *l, long top);
/* The kept rows, in their order. */
vp_table *vp_launches_rows_table(const vp_launches *l);

#endif
