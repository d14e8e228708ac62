/* The operators model (vprof/ops.h) as a table: the columns of torch's
 * key_averages().table() that a trace can give, rows past top folded
 * into one "(others: N rows)". */
#ifndef VPROF_OPS_VIEW_H
#define VPROF_OPS_VIEW_H

#include "vprof/ops.h"
#include "vprof/table.h"

/* m: finished (vp_ops_finish).  Name, then Input Dims and Rank when
 * grouped by them, then Calls, CPU Total, Self CPU, CPU Avg, and Self GPU
 * and GPU Total when some trace had GPU work.  top 0: every row. */
vp_table *vp_ops_table(const vp_ops *m, long top);

#endif
