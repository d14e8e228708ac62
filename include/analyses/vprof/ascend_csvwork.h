/* The device work of an Ascend rank that has only its CSV summaries
 * (no trace_view.json, no SQLite export): kernel_details.csv's tasks
 * (op_summary_*.csv in msprof's generation), as a trace's device tasks,
 * for the run metrics of summary, check and diff (vprof/runstats.h).
 *
 * The CSV has every task with its start, duration, name and Accelerator
 * Core, so the GPU time breakdown, communication and kernels are the
 * trace's; it has no ProfilerStep window (a step is only a Step Id) and
 * no CPU track, so step times and what is measured against them are not
 * there. */
#ifndef VPROF_ASCEND_CSVWORK_H
#define VPROF_ASCEND_CSVWORK_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/gpuwork.h"
#include "vprof/steps.h"

typedef struct vp_asc_csv_work {
    vp_gpuwork w;        /* the tasks, in file order; no step windows (ev[i].step = -1) */
    char **names;        /* names[i]: the name of w.ev[i] (owned) */
    long *steps;         /* the Step Ids kept, ascending and distinct */
    size_t nsteps;
    uint64_t no_start;   /* tasks without a Start Time: left out, their time unknown */
    uint64_t skipped;    /* rows without a duration (vp_asc_read_kernels) */
    long *ids;           /* while reading: per event, its Step Id, -1 when none */
    size_t cap;
} vp_asc_csv_work;

/* Reads path (kernel_details.csv or op_summary): each task with a start
 * as a GPU event at [start, start + duration), classed as `vprof kernels`
 * classes it (vp_npu_task_of on its Accelerator Core and name; an
 * hcom_receive* is msprof's Bubble).  With range, only the tasks whose
 * Step Id it selects (vp_step_range_slice, the rule of kernels' --steps);
 * a range that keeps none warns as kernels does.  0, or -1 with err. */
int vp_asc_csv_work_read(const char *path, const vp_step_range *range, vp_asc_csv_work *out,
                         vp_error *err);

/* The same from a reading of the caller's that others take the rows of
 * too (vprof report: kernels' models): begin, vp_asc_csv_work_take (ctx:
 * out) for every row vp_asc_read_kernels gives, end after the whole
 * reading (skipped is the caller's to set); free in any case. */
struct vp_asc_kernel;
void vp_asc_csv_work_begin(vp_asc_csv_work *out);
void vp_asc_csv_work_take(void *out, const struct vp_asc_kernel *k);
void vp_asc_csv_work_end(vp_asc_csv_work *out, const vp_step_range *range, const char *path);
void vp_asc_csv_work_free(vp_asc_csv_work *c);

#endif
