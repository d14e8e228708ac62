/* What the subcommands share for Ascend inputs: telling an argument's
 * kind, and the tables of step_trace_time and of the communication
 * analyzer's files (docs/ascend.md). */
#ifndef VPROF_CMD_ASCEND_CMD_H
#define VPROF_CMD_ASCEND_CMD_H

#include "vprof/ascend.h"
#include "vprof/part.h"
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
 * Type, Index, <columns>".  With add_stage, a stage row per step holding
 * the element-wise maximum of its rank rows (as msprof-analyze's cluster
 * rows) is added when there are several ranks and the input had none.
 * Stage rows read from a cluster file are checked against their ranks: a
 * note says whether each equals their maxima. */
vp_table *asc_stt_table(vp_stt *s, int add_stage, const char *source);

/* The tables of communication.json (per operation; per transport) and of
 * communication_matrix.json (per link), appended to tables[*n]. */
void asc_hccl_tables(const vp_hccl *h, int have_comm, int have_matrix, vp_table **tables,
                     size_t *n);

#endif
