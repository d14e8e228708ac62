/* step_trace_time rows from a trace's device work. */
#ifndef VPROF_ASCEND_STEPWORK_H
#define VPROF_ASCEND_STEPWORK_H

#include "vprof/ascend_stt.h"
#include "vprof/gpuwork.h"

/* The step_trace_time rows of one rank's trace, after
 * vp_gpuwork_resolve: a row per ProfilerStep (one row with step -1 when
 * there are none), with torch_npu's definitions (docs/ascend.md):
 * Computing, Communication, Communication(Not Overlapped) and Free are the
 * sums of the step's Overlap Analysis slices (a slice belongs to the step
 * whose window holds its start) when the trace has them, else the
 * measures of the step's device work (|compute|, |communication|,
 * |communication \ compute|, span - |compute ∪ communication|: the same
 * definitions msprof applies to build those slices); Overlapped =
 * Communication - Not Overlapped; Bubble = the hcom_receive* time; Stage =
 * the step's first-to-last span - Bubble; Exclude Receive = max(Not
 * Overlapped - Bubble, 0); Preparing = first compute or communication start
 * - the step's start.  With selected_only, only the steps a range
 * selected (vp_gpuwork_resolve with a range) give rows.  Returns 1 when
 * the slices were used. */
int vp_stt_from_work(vp_gpuwork *w, long rank, int selected_only, vp_stt *out);

#endif
