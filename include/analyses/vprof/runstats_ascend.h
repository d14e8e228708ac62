/* A run's Ascend inputs rank by rank (vprof/runstats.h reads a whole
 * profile directory with vp_run_add_file): for a caller that reads the
 * other files of the rank itself, once, and gives the run its part
 * (vprof report). */
#ifndef VPROF_RUNSTATS_ASCEND_H
#define VPROF_RUNSTATS_ASCEND_H

#include "vprof/ascend_files.h"
#include "vprof/ascend_memory.h"
#include "vprof/error.h"
#include "vprof/gpuwork.h"
#include "vprof/runstats.h"

/* vp_asc_scan of a profile directory that must hold a rank: 0, or -1
 * with err set (run freed) when it holds none or cannot be read. */
int vp_run_scan_ascend(const char *path, vp_asc_run *run, vp_error *err);

/* One rank of a profile directory: its trace_view.json (msprof_*.json;
 * a vp_gpu_pass_read that riders see), else its DB export, else its
 * kernel_details.csv; position: its place in the directory.  Not its
 * memory files: vp_run_add_npu_memory.  0, or -1 with err set. */
int vp_run_add_ascend_rank(vp_run *r, const vp_asc_rank *k, long position, const vp_run_opts *o,
                           vp_error *err);

/* The file vp_run_add_ascend_rank reads for the rank (its trace, DB or
 * kernel_details.csv), NULL when it has none. */
const char *vp_run_ascend_file(const vp_asc_rank *k);

/* The run's part of a reading of the rank's DB or kernel_details.csv
 * that the caller makes, once, for others too (vprof report: kernels'
 * models, step_trace_time): each DB device's work as vp_asc_db_work
 * gives it (rank: the rank's; a DB of several devices makes each device
 * a rank), or the CSV's tasks (vp_asc_csv_work_end done; rows skipped
 * said here), as vp_run_add_ascend_rank takes them. */
struct vp_asc_csv_work;
void vp_run_ascend_begin(vp_run *r);   /* before either: the run is an Ascend one */
void vp_run_add_db_device(vp_run *r, long rank, const vp_run_opts *o, int64_t device,
                          size_t ndevices, vp_gpuwork *w, const char *const *names);
void vp_run_add_csv_work(vp_run *r, const vp_asc_rank *k, struct vp_asc_csv_work *c,
                         const vp_run_opts *o);

/* A rank's memory_record.csv, read: the PTA (torch_npu's caching
 * allocator) peaks, as the run's memory metrics. */
void vp_run_add_npu_memory(vp_run *r, const vp_asc_mem *m);

#endif
