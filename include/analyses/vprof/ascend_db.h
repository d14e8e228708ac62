/* The SQLite exports of an Ascend profile: msprof_*.db,
 * ascend_pytorch_profiler_N.db, analysis.db. */
#ifndef VPROF_ASCEND_DB_H
#define VPROF_ASCEND_DB_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/ascend_stt.h"
#include "vprof/ascend_summaries.h"
#include "vprof/error.h"
#include "vprof/gpuwork.h"
#include "vprof/steps.h"

/* Opened read-only and immutable (never written, no lock), with a
 * bounded page cache; every string column is an id into STRING_IDS.
 * Built without SQLite (VPROF_HAVE_SQLITE unset), each returns -1 with an
 * error saying so (exit status 3).  A database that is not an msprof one
 * is refused naming the file and the tables looked for. */

/* 1 when vprof was built with libsqlite3. */
int vp_asc_db_available(void);

/* kernel_details.csv's rows from a DB: each COMPUTE_TASK_INFO row with
 * its TASK row (name, OP type, task type as the core, start, end - start,
 * waitNs, stream, device), then each COMMUNICATION_OP as an HCCL row
 * (stream -1).  Step: the STEP_TIME window holding the start, else -1. */
int vp_asc_db_read_kernels(const char *path, void (*fn)(void *ctx, const vp_asc_kernel *k),
                           void *ctx, uint64_t *skipped, vp_error *err);

/* step_trace_time rows of a DB, appended to out (out->note says where
 * from): analysis.db's StepTraceTime as written (µs); an msprof or
 * torch_npu DB computed per device with msprof's definitions through
 * vp_stt_from_work: compute tasks (COMPUTE_TASK_INFO) are Computing,
 * COMMUNICATION_OP rows Communication (hcom_receive*: Bubble), the other
 * TASK rows stretch the span (Free), steps from STEP_TIME.  Rows have
 * rank = rank (each device its id as the rank when the DB holds several)
 * and device = TASK.deviceId.  With range, only the selected steps. */
int vp_asc_db_stt(const char *path, long rank, const vp_step_range *range, vp_stt *out,
                  vp_error *err);

/* The device work of an msprof or torch_npu DB, per device (ascending
 * deviceId): a vp_gpuwork holding STEP_TIME's windows as ProfilerStep
 * slices, every TASK row (compute tasks by their task type and name,
 * HCCL and other tasks as syncs that only stretch the span) and every
 * COMMUNICATION_OP as communication, not yet resolved; names[i] is the
 * name of w->ev[i] (COMPUTE_TASK_INFO's name or the operation's opName
 * through STRING_IDS; "" for other tasks).  fn may change w (resolve it)
 * and must not keep names.  0, or -1 with err (an analysis.db, a DB
 * without COMPUTE_TASK_INFO). */
typedef void (*vp_asc_db_work_fn)(void *ctx, int64_t device, size_t ndevices, vp_gpuwork *w,
                                  const char *const *names);
int vp_asc_db_work(const char *path, vp_asc_db_work_fn fn, void *ctx, vp_error *err);

/* One reading of a DB for several consumers (vprof report: kernels'
 * models, the run's metrics, step_trace_time): opened once, STEP_TIME
 * read once; the kernel rows to rows (as vp_asc_db_read_kernels gives
 * them, skipped counted) when rows is not NULL, then each device's work
 * to fn (as vp_asc_db_work) when fn is not NULL.  0, or -1 with err. */
int vp_asc_db_read(const char *path, void (*rows)(void *ctx, const vp_asc_kernel *k),
                   void *rows_ctx, uint64_t *skipped, vp_asc_db_work_fn fn, void *ctx,
                   vp_error *err);

/* vp_asc_db_stt's rows of one device's work, resolved (vp_gpuwork_resolve
 * with the range whose steps selected_only keeps): the rank's, or with
 * several devices the device's as its rank; their note is
 * vp_asc_db_stt_note. */
void vp_asc_db_stt_work(vp_gpuwork *w, int64_t device, size_t ndevices, long rank,
                        int selected_only, vp_stt *out);
extern const char vp_asc_db_stt_note[];

#endif
