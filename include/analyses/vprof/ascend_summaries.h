/* The CSV summaries of an Ascend profile: kernel_details / op_summary,
 * op_statistic and step_trace_time, read row by row.  Each reader takes
 * the SQLite export in place of its CSV (ascend_db.h). */
#ifndef VPROF_ASCEND_SUMMARIES_H
#define VPROF_ASCEND_SUMMARIES_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/ascend_stt.h"
#include "vprof/error.h"

typedef struct vp_asc_kernel {
    const char *name;     /* Name | Op Name */
    const char *type;     /* Type | OP Type ("" when absent) */
    const char *core;     /* Accelerator Core | Task Type */
    long step;            /* Step Id, -1 when absent */
    int64_t start;        /* ns; -1 when missing */
    int64_t dur;          /* ns */
    int64_t wait;         /* ns; -1 when missing */
    int64_t stream;       /* Stream ID; -1 when N/A (HCCL rows) */
    int64_t device;       /* Device_id; -1 when absent */
} vp_asc_kernel;

/* Calls fn for each row with a duration (strings valid during the call).
 * Both header generations are read (Name/Op Name, Type/OP Type,
 * Accelerator Core/Task Type, Duration(us)/Task Duration(us) ...).  An
 * SQLite export (by its magic) is read with vp_asc_db_read_kernels.
 * *skipped counts rows without a duration.  0, or -1 with err. */
int vp_asc_read_kernels(const char *path, void (*fn)(void *ctx, const vp_asc_kernel *k), void *ctx,
                        uint64_t *skipped, vp_error *err);
/* The same for a file the caller knows to be a CSV (a scan sniffed it):
 * no second look at its first bytes. */
int vp_asc_read_kernels_csv(const char *path, void (*fn)(void *ctx, const vp_asc_kernel *k),
                            void *ctx, uint64_t *skipped, vp_error *err);

/* ---- op_statistic.csv ---- */

/* One row of op_statistic.csv: the tasks of one op type on one core type,
 * already aggregated by the profiler (no task of its own is listed). */
typedef struct vp_asc_opstat {
    const char *type;     /* OP Type */
    const char *core;     /* Core Type (Task Type, Accelerator Core in other spellings) */
    int64_t count;
    int64_t total;        /* ns */
    int64_t min, max;     /* ns; -1 when missing */
    double ratio;         /* Ratio(%) as written; NAN when missing */
    int64_t device;       /* Device_id; -1 when absent */
} vp_asc_opstat;

/* Calls fn for each row with a count and a total (strings valid during the
 * call).  Both header generations: torch_npu's "OP Type, Core Type, Count,
 * Total Time(us), Min Time(us), Avg Time(us), Max Time(us), Ratio(%)" and
 * msprof's, which adds Device_id and Model Name.  *skipped counts rows
 * without a count or a total.  0, or -1 with err. */
int vp_asc_read_opstat(const char *path, void (*fn)(void *ctx, const vp_asc_opstat *o), void *ctx,
                       uint64_t *skipped, vp_error *err);

/* ---- api_statistic.csv ---- */

/* One row of api_statistic.csv (msprof's "Device_id, Level, API Name,
 * Time(us), Count, Avg(us), Min(us), Max(us), Variance"): the calls of one
 * API at one level, already totalled by the profiler. */
typedef struct vp_asc_apistat {
    const char *level;    /* Level: acl, runtime, node, model, hccl ... ("" when absent) */
    const char *name;     /* API Name */
    int64_t count;        /* >= 1 */
    int64_t total;        /* ns, from Time(us) exactly */
    int64_t min, max;     /* ns */
    double variance;      /* ns^2: Variance (us^2, the population variance) * 1e6 */
} vp_asc_apistat;

/* Calls fn for each row (strings valid during the call).  A row without
 * an API Name, or whose Time, Count, Min, Max or Variance is missing, not
 * a number or out of range (Count < 1, a negative time or variance, Min
 * above Max) is damage: -1 with err naming the file and line (status 3),
 * never a row skipped. */
int vp_asc_read_apistat(const char *path, void (*fn)(void *ctx, const vp_asc_apistat *a),
                        void *ctx, vp_error *err);

/* Reads step_trace_time.csv (with or without Device_id, Preparing) or
 * cluster_step_trace_time.csv (Type, Index); rows are appended to out
 * with rank = default_rank for a per-rank file.  An SQLite export is read
 * with vp_asc_db_stt (no step range).  0, or -1 with err. */
int vp_stt_read(const char *path, long default_rank, vp_stt *out, vp_error *err);
/* vp_stt_read of a file the caller knows to be a CSV. */
int vp_stt_read_csv(const char *path, long default_rank, vp_stt *out, vp_error *err);

#endif
