/* Ascend NPU profiles: what torch_npu's profiler and CANN's msprof write,
 * found by content and read into the few records the commands need.
 *
 * Layouts (docs/ascend.md): a `*_ascend_pt` directory is one rank, with
 * ASCEND_PROFILER_OUTPUT/ holding trace_view.json and the CSV and JSON
 * summaries; a folder of such directories is a run; an msprof PROF_*
 * directory holds the same summaries in mindstudio_profiler_output/ with
 * a timestamp in each name; msprof-analyze's cluster_analysis_output/
 * holds the cluster_* files.  Files are recognised by their content (a
 * CSV by its header, a JSON document by its keys), never by their name
 * alone, so a renamed copy still reads.
 *
 * Times are integer nanoseconds (the CSV microseconds converted exactly);
 * sizes are bytes (torch_npu's MB and KB are binary: 2^20 and 2^10), except
 * in the communication records, which keep msprof's decimal MB and ms so
 * that bandwidths read exactly as msprof-analyze prints them. */
#ifndef VPROF_ASCEND_H
#define VPROF_ASCEND_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/gpuwork.h"
#include "vprof/trace.h"

/* ---- inputs ---- */

typedef enum vp_asc_file {
    VP_ASC_UNKNOWN = 0,
    VP_ASC_TRACE,          /* a JSON trace: trace_view.json, msprof_*.json */
    VP_ASC_KERNELS,        /* kernel_details.csv, op_summary_*.csv */
    VP_ASC_OP_STATISTIC,   /* op_statistic.csv */
    VP_ASC_STEP_TRACE,     /* step_trace_time.csv, cluster_step_trace_time.csv */
    VP_ASC_COMM,           /* communication.json, cluster_communication.json */
    VP_ASC_MATRIX,         /* communication_matrix.json, cluster_communication_matrix.json */
    VP_ASC_MEMORY_RECORD,  /* memory_record.csv */
    VP_ASC_OPERATOR_MEMORY,/* operator_memory.csv */
    VP_ASC_MODULE_MEM,     /* npu_module_mem.csv */
    VP_ASC_DB,             /* an SQLite export (msprof_*.db, ascend_pytorch_profiler_*.db) */
    VP_ASC_FILE_COUNT,
} vp_asc_file;

/* What a file is, from its first bytes: a CSV by the columns of its
 * header, a JSON document by its first keys, SQLite by its magic.
 * VP_ASC_UNKNOWN for anything else (a Kineto trace is VP_ASC_TRACE only
 * when it is a bare array or has traceEvents). */
vp_asc_file vp_asc_sniff(const char *path);

/* The usual file name of a kind, for messages ("kernel_details.csv"). */
const char *vp_asc_file_name(vp_asc_file k);

/* One rank's profile: the path of each kind of file found (NULL: none). */
typedef struct vp_asc_rank {
    char *dir;                       /* the directory it was found in */
    char *metadata;                  /* its profiler_metadata.json, NULL when none */
    long rank;                       /* -1 until known */
    const char *rank_from;           /* "profiler_info", "profiler_metadata", "directory name" */
    char *files[VP_ASC_FILE_COUNT];
} vp_asc_rank;

typedef struct vp_asc_run {
    vp_asc_rank *ranks;              /* sorted by rank */
    size_t n;
    vp_asc_rank cluster;             /* cluster_analysis_output's cluster_* files */
    int has_cluster;
} vp_asc_run;

/* 1 when path is a directory. */
int vp_asc_is_dir(const char *path);

/* Scans a directory: a `*_ascend_pt` (or `*_ascend_ms`) directory, a
 * folder of them, ASCEND_PROFILER_OUTPUT itself, a PROF_* directory or its
 * mindstudio_profiler_output, or a cluster_analysis_output folder.  A rank
 * without a rank id in profiler_info_N.json or profiler_metadata.json takes
 * one from its directory name, else its position.  Returns 0, or -1 with
 * err (exit status 3) naming what is missing: an empty or half-written
 * profiler directory (no ASCEND_PROFILER_OUTPUT yet, a PROF_* directory not
 * exported) says so and how to finish it. */
int vp_asc_scan(const char *path, vp_asc_run *run, vp_error *err);
void vp_asc_run_free(vp_asc_run *run);

/* The first rank file of kind k, or of kind k2 when k is absent (k2 may be
 * VP_ASC_UNKNOWN), else, when k or k2 is VP_ASC_KERNELS or
 * VP_ASC_STEP_TRACE, the rank's SQLite export (which
 * vp_asc_read_kernels and vp_stt_read read); NULL with err set naming the
 * directory and the files looked for when none is there. */
const char *vp_asc_need(const vp_asc_rank *r, vp_asc_file k, vp_asc_file k2, vp_error *err);

/* ---- kernel_details.csv / op_summary ---- */

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

/* ---- step_trace_time ---- */

enum {
    VP_STT_COMPUTING,
    VP_STT_NOT_OVERLAPPED,   /* Communication(Not Overlapped) */
    VP_STT_OVERLAPPED,
    VP_STT_COMMUNICATION,
    VP_STT_FREE,
    VP_STT_STAGE,
    VP_STT_BUBBLE,
    VP_STT_EXCL_RECEIVE,     /* Communication(Not Overlapped and Exclude Receive) */
    VP_STT_PREPARING,
    VP_STT_COUNT,
};
extern const char *const vp_stt_names[VP_STT_COUNT];

typedef struct vp_stt_row {
    long step;               /* -1: no step */
    int is_stage;            /* a cluster "stage" row */
    long rank;               /* rank row: the rank; -1 for stage rows */
    char *index;             /* stage rows: "(0, 1, 2, 3)"; NULL otherwise */
    int64_t device;          /* Device_id, -1 when absent */
    int64_t v[VP_STT_COUNT]; /* ns */
    unsigned have;           /* bit per column present */
} vp_stt_row;

/* A parallel group of profiler_metadata.json's parallel_group_info. */
typedef struct vp_asc_pgroup {
    char *id;                /* the key: the group's hash name */
    char *name;              /* group_name: tp, pp, dp, pp_new_stream ... */
    long *ranks;             /* global_ranks */
    size_t n;
} vp_asc_pgroup;

typedef struct vp_stt {
    vp_stt_row *rows;
    size_t n, cap;
    const char *note;        /* where DB rows came from (static text, or note_own), NULL */
    char *note_own;          /* a note read back from a partial result (owned) */
    vp_asc_pgroup *groups;   /* the ranks' parallel groups, for stage rows */
    size_t ngroups;
    int groups_from;         /* VP_ASC_GROUPS_*: the file the groups came from */
} vp_stt;

enum { VP_ASC_GROUPS_NONE, VP_ASC_GROUPS_METADATA, VP_ASC_GROUPS_COMM_GROUP };

/* Reads step_trace_time.csv (with or without Device_id, Preparing) or
 * cluster_step_trace_time.csv (Type, Index); rows are appended to out
 * with rank = default_rank for a per-rank file.  An SQLite export is read
 * with vp_asc_db_stt (no step range).  0, or -1 with err. */
int vp_stt_read(const char *path, long default_rank, vp_stt *out, vp_error *err);
vp_stt_row *vp_stt_add(vp_stt *s);
void vp_stt_free(vp_stt *s);

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

/* The element-wise maximum of the rank rows of one step whose rank is in
 * ranks[0..n) (all rank rows of the step when ranks is NULL), as
 * msprof-analyze's stage rows.  0 when no row matched. */
int vp_stt_stage(const vp_stt *s, long step, const long *ranks, size_t n, vp_stt_row *out);

/* Adds the parallel groups of a profiler_metadata.json to s->groups; a
 * group already there (the same id: every rank's file lists the groups
 * it is in) is kept once.  A file without parallel_group_info adds none.
 * 0, or -1 with err when the file is not JSON. */
int vp_asc_read_groups(const char *path, vp_stt *s, vp_error *err);

/* Adds one parallel group (copied) unless a group with the same id is
 * there; 1 when added. */
int vp_asc_add_group(vp_stt *s, const char *id, const char *name, const long *ranks, size_t n);

/* Adds the groups of msprof-analyze's communication_group.json
 * (cluster_analysis_output/) from its comm_group_parallel_info list
 * (type, rank_set, group_name, group_id, pg_name), as msprof-analyze's
 * stage analysis takes them: a "p2p" group whose pg_name starts with "pp"
 * is a pipeline's point-to-point group, every "collective" group is a
 * candidate stage group, other p2p groups are left out.  A file without
 * comm_group_parallel_info (the older form: collective and p2p lists
 * only) adds none.  0, or -1 with err when the file is not JSON. */
int vp_asc_read_comm_groups(const char *path, vp_stt *s, vp_error *err);

/* Pipeline stages from parallel groups, msprof-analyze's rule: groups
 * whose name starts with "pp" (any case: pp, pp_new_stream) are the
 * point-to-point groups of pipelines, and those that share ranks are
 * chained into one pipeline; every other group that holds at most one rank
 * of each pipeline is a stage group, and stage groups that share ranks are
 * merged (union-find).  Stage i is ranks[first[i] .. first[i + 1]),
 * ascending; stages are ordered by their smallest rank.  Returns the
 * number of pipelines: 0 when no group is a pp group, and then no stage. */
typedef struct vp_asc_stages {
    long *ranks;
    size_t *first;           /* n + 1 offsets */
    size_t n;
} vp_asc_stages;
size_t vp_asc_stages_of(const vp_asc_pgroup *g, size_t n, vp_asc_stages *out);
void vp_asc_stages_free(vp_asc_stages *st);

/* Parses a stage Index "(0, 1, 2)" into ranks (at most cap); returns the
 * count, or -1 when it is not such a tuple. */
int vp_stt_parse_index(const char *index, long *ranks, size_t cap);

/* ---- SQLite exports: msprof_*.db, ascend_pytorch_profiler_N.db, analysis.db ---- */

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

/* ---- communication.json / communication_matrix.json ---- */

enum { VP_HCCL_RDMA, VP_HCCL_HCCS, VP_HCCL_PCIE, VP_HCCL_SDMA, VP_HCCL_SIO, VP_HCCL_TRANSPORTS };
extern const char *const vp_hccl_transport_names[VP_HCCL_TRANSPORTS];

typedef struct vp_hccl_bw {
    double size_mb, time_ms;         /* decimal MB (10^6 B), ms */
    double bandwidth;                /* GB/s: as written, else size / time */
    double large_ratio;              /* share of packets above the large-packet size */
    int64_t packets;                 /* from Size Distribution */
    int has_ratio;                   /* large_ratio known (written, or from packets) */
} vp_hccl_bw;

typedef struct vp_hccl_op {
    char *step;                      /* "step2" */
    char *kind;                      /* "collective", "p2p", or a cluster group "(0, 1, ...)" */
    char *name;                      /* "hcom_allReduce__483_2", "Total Op Info" */
    char *group;                     /* the hash after '@', "" when none */
    long rank;                       /* cluster files: the rank; else -1 */
    int total;                       /* the "Total Op Info" summary */
    int64_t start;                   /* ns; -1 when absent */
    double elapse, transit, wait, sync, idle;   /* ms */
    double wait_ratio, sync_ratio;
    vp_hccl_bw bw[VP_HCCL_TRANSPORTS];
    unsigned bw_have;                /* bit per transport present */
    /* the merged Size Distribution per transport: sizes (MB) and counts */
    double *dist_size[VP_HCCL_TRANSPORTS];
    int64_t *dist_count[VP_HCCL_TRANSPORTS];
    double *dist_ms[VP_HCCL_TRANSPORTS];
    size_t ndist[VP_HCCL_TRANSPORTS];
} vp_hccl_op;

typedef struct vp_hccl_link {
    char *step, *kind, *op;
    long src, dst;                   /* global ranks */
    char transport[16];              /* LOCAL, HCCS, RDMA, PCIE, SIO, SDMA */
    double size_mb, time_ms, bandwidth;
} vp_hccl_link;

typedef struct vp_hccl {
    vp_hccl_op *ops;
    size_t nops, cap_ops;
    vp_hccl_link *links;
    size_t nlinks, cap_links;
} vp_hccl;

/* Reads communication.json (step -> collective|p2p -> op -> info) or its
 * cluster form (group -> step -> op -> rank -> info); appends to h. */
int vp_hccl_read_comm(const char *path, vp_hccl *h, vp_error *err);
/* Reads communication_matrix.json or its cluster form. */
int vp_hccl_read_matrix(const char *path, vp_hccl *h, vp_error *err);
void vp_hccl_free(vp_hccl *h);

/* Packets above this many MB are large: 0.5 MB on RDMA, 32 MB on HCCS,
 * PCIE, SIO and SDMA (msprof's communication analyzer). */
double vp_hccl_large_mb(int transport);

/* The large-packet share of a Size Distribution. */
double vp_hccl_large_ratio(int transport, const double *size_mb, const int64_t *count, size_t n);

/* ---- memory ---- */

typedef struct vp_asc_mem_point {
    int64_t ts;              /* ns */
    int64_t allocated;       /* bytes; -1 when the cell is empty (APP rows) */
    int64_t reserved;        /* bytes; -1 when missing */
    int64_t active;          /* bytes; -1 when absent (older header) */
} vp_asc_mem_point;

typedef struct vp_asc_mem_series {
    char *component;         /* PTA, GE, PTA+GE, APP, WORKSPACE; or a module (SLOG, HCCL ...) */
    char *device;            /* "NPU:0" */
    vp_asc_mem_point *p;     /* in file order (time order) */
    size_t n, cap;
    size_t peak_alloc, peak_reserved;   /* indices; the earliest wins a tie */
} vp_asc_mem_series;

typedef struct vp_asc_mem {
    vp_asc_mem_series *s;
    size_t n, cap;
} vp_asc_mem;

/* memory_record.csv (both generations, MB or KB) or npu_module_mem.csv
 * (whose reserved -1 means only a release was seen: missing). */
int vp_asc_read_memory(const char *path, vp_asc_mem *m, vp_error *err);
void vp_asc_mem_free(vp_asc_mem *m);

typedef struct vp_asc_opmem {
    char *name;
    char *device;
    int64_t size;            /* bytes (negative: allocated before the window) */
    int64_t alloc, release;  /* ns; -1 when empty (before the window / still live) */
    int64_t total_alloc;     /* Allocation Total Allocated, bytes; -1 when empty */
} vp_asc_opmem;

/* The allocator an operator_memory.csv row belongs to: "PTA" for aten::
 * (torch_npu's caching allocator), "GE" for cann:: (the graph engine),
 * else "". */
const char *vp_asc_opmem_component(const char *name);

/* operator_memory.csv: one row per block. */
int vp_asc_read_opmem(const char *path, vp_asc_opmem **rows, size_t *n, vp_error *err);
void vp_asc_opmem_free(vp_asc_opmem *rows, size_t n);

/* ---- trace_view.json tracks ---- */

/* What a track of an Ascend trace holds, from its process_name (and, for
 * the communication process, its thread_name). */
typedef enum vp_npu_role {
    VP_NPU_UNKNOWN = 0,
    VP_NPU_HARDWARE,         /* "Ascend Hardware": device tasks per stream */
    VP_NPU_COMM_OP,          /* "Communication"/"HCCL", thread "Group ... Communication" */
    VP_NPU_COMM_TASK,        /* the same process, thread "Plane N": HCCL's small tasks */
    VP_NPU_OVERLAP,          /* "Overlap Analysis" */
    VP_NPU_OTHER,            /* another named process (Python, CANN, counters ...) */
} vp_npu_role;

typedef struct vp_npu_tracks vp_npu_tracks;

vp_npu_tracks *vp_npu_tracks_new(void);
void vp_npu_tracks_free(vp_npu_tracks *t);

/* Takes process_name and thread_name metadata events; returns 1 when ev
 * was one. */
int vp_npu_tracks_observe(vp_npu_tracks *t, const vp_event *ev);

/* The role of an event's track.  A track named by no metadata is told by
 * the event itself: an uncategorised slice with a "Task Type" argument is
 * a hardware task, with "alg_type" or "rank_size" a communication op, with
 * "notify_id" or "transport type" a communication task; a slice named
 * Computing, Communication, Communication(Not Overlapped) or Free with
 * neither category nor arguments an overlap slice. */
vp_npu_role vp_npu_role_of(vp_npu_tracks *t, const vp_event *ev);

/* 1 once any Ascend track (hardware, communication, overlap) was seen. */
int vp_npu_tracks_seen(const vp_npu_tracks *t);

/* Overlap Analysis slice kinds (by name). */
enum { VP_OVL_COMPUTING, VP_OVL_COMMUNICATION, VP_OVL_NOT_OVERLAPPED, VP_OVL_FREE, VP_OVL_COUNT };
/* The kind of an Overlap Analysis slice name, or -1. */
int vp_npu_overlap_kind(vp_span name);

#endif
