/* The page of vprof report: the tables of summary, steps, comm and diff
 * laid out as sections with their charts (vprof/html.h).  It finds the
 * tables by name and draws only what they hold: the report computes
 * nothing of its own. */
#ifndef VPROF_REPORT_PAGE_H
#define VPROF_REPORT_PAGE_H

#include <stddef.h>
#include <stdio.h>

#include "vprof/table.h"

/* The most rows a table shows on the page and bars a chart draws: what
 * keeps a page of any run under 2 MB (the commands print the rest). */
#define VP_REPORT_MAX_ROWS 200
#define VP_REPORT_MAX_BARS 40

/* Sections, in order: Overview (run, findings, gpu_time, mfu, steps:
 * left out without run, the page of a memory snapshot),
 * Kernels (top_kernels, kernel_classes), Roofline (roofline_svg, the
 * chart of vp_roofline_svg, may be NULL; the roofline table), Operators (an Ascend profile's
 * op_types, op_cores, op_statistics), Distributed (comm, collectives, spread,
 * stragglers: with two ranks or more), Memory (memory_svg, a chart of
 * vprof memory --plot inlined, may be NULL; a snapshot's peak,
 * top_at_peak, state and oom; a trace's memory_events and out_of_memory;
 * an Ascend profile's npu_memory, operators_at_peak, npu_module_mem;
 * memory), Baseline
 * (baseline_runs, baseline_metrics, baseline_kernels).  A section whose
 * tables are absent is left out, but for Memory, which says why it is
 * empty.  Returns 0, or -1 on a write error. */
int vp_report_page(FILE *out, const char *title, const char *subtitle, vp_table *const *tables,
                   size_t n, const char *memory_svg, const char *roofline_svg);

#endif
