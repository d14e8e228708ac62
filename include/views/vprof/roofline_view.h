/* The roofline model (vprof/roofline.h) as a table: one row per
 * operator, input dims and types (and rank), with its FLOPs and bytes
 * per call, the rates achieved and the share of the roof; rows past top
 * folded into one "(others: N rows)". */
#ifndef VPROF_ROOFLINE_VIEW_H
#define VPROF_ROOFLINE_VIEW_H

#include "vprof/roofline.h"
#include "vprof/table.h"

vp_table *vp_roofline_table(const vp_roofline *r, long top);

#endif
