/* The roofline model (vprof/roofline.h) as a table: one row per
 * operator, input dims and types (and rank), with its FLOPs and bytes
 * per call, the rates achieved and the share of the roof; rows past top
 * folded into one "(others: N rows)". */
#ifndef VPROF_ROOFLINE_VIEW_H
#define VPROF_ROOFLINE_VIEW_H

#include <stdio.h>

#include "vprof/roofline.h"
#include "vprof/table.h"

vp_table *vp_roofline_table(const vp_roofline *r, long top);

/* What the table alone cannot say (no shapes, no GPU work, the share
 * modelled, whose peaks, the weighted roofline, rows above the roof), as
 * t's notes: vprof roofline's and the report's. */
void vp_roofline_notes(vp_table *t, const vp_roofline *r, int has_steps);

/* The roofline chart (vprof report): log-log, arithmetic intensity
 * (FLOP/Byte) against achieved TFLOP/s, one point per row with FLOPs,
 * bytes and time, its area by kernel time, coloured GEMM, attention,
 * other compute- or memory-bound; the device's roofs (bandwidth to the
 * ridge point, then each peak the rows run against) with the ridge
 * marked.  An <svg> element without XML declaration; 0, 1 when no row
 * has a point (nothing written), -1 on a write error. */
int vp_roofline_svg(FILE *out, const vp_roofline *r, const char *title);

#endif
