/* The counters model (vprof/counters.h) as tables: HTA's
 * get_queue_length_summary and get_memory_bw_summary, and the series. */
#ifndef VPROF_COUNTERS_VIEW_H
#define VPROF_COUNTERS_VIEW_H

#include "vprof/counters.h"
#include "vprof/table.h"

/* c: finished.  Rank, Stream (or Name), Count, Mean, Std, Min, 25%, 50%,
 * 75%, Max: the statistics at full precision (the shortest text that
 * reads back as the same double). */
vp_table *vp_counters_queue_table(const vp_counters *c);
vp_table *vp_counters_bandwidth_table(const vp_counters *c);
/* Every point: Rank, Stream, Time (ns), Queue Length; Rank, Name,
 * Time (ns), Bandwidth (GB/s). */
vp_table *vp_counters_queue_series_table(const vp_counters *c);
vp_table *vp_counters_bandwidth_series_table(const vp_counters *c);

#endif
