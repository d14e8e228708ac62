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
#ifndef VPROF_ASCEND_FILES_H
#define VPROF_ASCEND_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"

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
    VP_ASC_API_STATISTIC,  /* api_statistic.csv, api_statistic_*.csv */
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

/* vp_asc_scan, each directory once per command: the first call for a
 * path scans it (listing it and sniffing every file), the next ones (the
 * same path string, in this process or a worker forked after) get a copy
 * of what it found, until vp_asc_scan_forget.  A command resolves its
 * operands (vp_inputs_expand: is a directory an Ascend profile?) and
 * then reads them (the run's metrics, vprof summary's and report's);
 * both ask here, so the directory is scanned once.  Failures are not
 * kept. */
int vp_asc_scan_once(const char *path, vp_asc_run *run, vp_error *err);
void vp_asc_scan_forget(void);

/* vp_asc_scan for a command that reads ranks: a run without a rank
 * directory (only a cluster_analysis_output) is an error too, "PATH: no
 * rank directory (NEEDS)", with nothing left to free. */
int vp_asc_scan_ranks(const char *path, vp_asc_run *run, const char *needs, vp_error *err);

/* The first rank file of kind k, or of kind k2 when k is absent (k2 may be
 * VP_ASC_UNKNOWN), else, when k or k2 is VP_ASC_KERNELS or
 * VP_ASC_STEP_TRACE, the rank's SQLite export (which
 * vp_asc_read_kernels and vp_stt_read read); NULL with err set naming the
 * directory and the files looked for when none is there. */
const char *vp_asc_need(const vp_asc_rank *r, vp_asc_file k, vp_asc_file k2, vp_error *err);

#endif
