/* A run (vprof/runstats.h) as the tables of vprof summary: run, gpu_time,
 * top_kernels (the top largest), memory and mfu when the run has them,
 * then findings (with findings: the table form of what the text format
 * prints) and metrics (with metrics: every metric by name, for gates and
 * baselines). */
#ifndef VPROF_SUMMARY_VIEW_H
#define VPROF_SUMMARY_VIEW_H

#include <stddef.h>

#include "vprof/findings.h"
#include "vprof/runstats.h"
#include "vprof/table.h"

#define VP_SUMMARY_TABLES 8

/* Fills tables[0..n) (at most VP_SUMMARY_TABLES) and returns n. */
size_t vp_summary_tables(const vp_run *r, const vp_threshold *th, long top, int findings,
                         int metrics, vp_table **tables);

#endif
