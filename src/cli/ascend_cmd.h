/* What the subcommands share for Ascend inputs: telling an argument's
 * kind, the cluster's groups, the step_trace_time table (docs/ascend.md). */
#ifndef VPROF_CMD_ASCEND_CMD_H
#define VPROF_CMD_ASCEND_CMD_H

#include "vprof/ascend_files.h"
#include "vprof/ascend_hccl.h"
#include "vprof/ascend_partial.h"
#include "vprof/ascend_stage_rows.h"
#include "vprof/ascend_stt.h"
#include "vprof/ascend_tables.h"
#include "vprof/table.h"

/* An argument: a directory (scanned as an Ascend profile), an Ascend
 * summary file (its kind), or anything else, which the command reads as a
 * trace (VP_ASC_TRACE; "-" included). */
typedef struct asc_arg {
    int is_dir;
    vp_asc_file kind;
} asc_arg;

asc_arg asc_arg_of(const char *path);

/* The parallel groups of the run's cluster_analysis_output/
 * communication_group.json (comm_group_parallel_info), for stage rows
 * when no rank has a profiler_metadata.json: added to s when the file is
 * there.  An exit status (a message printed when the file is not JSON). */
int asc_read_comm_groups(const char *path, const vp_asc_run *run, vp_stt *s);

/* step_trace_time rows (rank rows, then stage rows) as a table "Step,
 * Type, Index, <columns>": vp_stt_stage_rows, then vp_stt_table. */
vp_table *asc_stt_table(vp_stt *s, int add_stage, const char *source);

/* The names comm.c and steps.c call, now the library's. */
#define asc_stt_trace_source vp_stt_trace_source
#define asc_stt_csv_source vp_stt_csv_source
#define asc_stt_cluster_source vp_stt_cluster_source
#define asc_stt_save vp_stt_save
#define asc_stt_merge vp_stt_merge
#define asc_hccl_save vp_hccl_save
#define asc_hccl_merge vp_hccl_merge
#define asc_hccl_tables vp_hccl_tables

#endif
