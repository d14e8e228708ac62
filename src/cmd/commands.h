/* The subcommands: one file each in src/cmd/, the table of them in
 * src/cmd/commands.c (name, function, help line, usage, tables). */
#ifndef VPROF_CMD_COMMANDS_H
#define VPROF_CMD_COMMANDS_H

#include "cli/cli.h"

extern const vp_cmd vp_commands[];
const vp_cmd *vp_cmd_find(const char *name);

/* The subcommands, one file each in src/cmd/. */
int cmd_kernels(int argc, char **argv);
extern const char cmd_kernels_usage[];
int cmd_ops(int argc, char **argv);
extern const char cmd_ops_usage[];
int cmd_roofline(int argc, char **argv);
extern const char cmd_roofline_usage[];
int cmd_launches(int argc, char **argv);
int cmd_critpath(int argc, char **argv);
extern const char cmd_critpath_usage[];
extern const char cmd_launches_usage[];
int cmd_counters(int argc, char **argv);
extern const char cmd_counters_usage[];
int cmd_sequences(int argc, char **argv);
extern const char cmd_sequences_usage[];
int cmd_api(int argc, char **argv);
extern const char cmd_api_usage[];
int cmd_copies(int argc, char **argv);
extern const char cmd_copies_usage[];
int cmd_ranges(int argc, char **argv);
extern const char cmd_ranges_usage[];
int cmd_memory(int argc, char **argv);
extern const char cmd_memory_usage[];
int cmd_comm(int argc, char **argv);
extern const char cmd_comm_usage[];
int cmd_steps(int argc, char **argv);
extern const char cmd_steps_usage[];
int cmd_merge(int argc, char **argv);
extern const char cmd_merge_usage[];
int cmd_mfu(int argc, char **argv);
extern const char cmd_mfu_usage[];
int cmd_record(int argc, char **argv);
extern const char cmd_record_usage[];
int cmd_summary(int argc, char **argv);
extern const char cmd_summary_usage[];
int cmd_diff(int argc, char **argv);
extern const char cmd_diff_usage[];
int cmd_check(int argc, char **argv);
extern const char cmd_check_usage[];
int cmd_reduce(int argc, char **argv);
extern const char cmd_reduce_usage[];
int cmd_report(int argc, char **argv);
extern const char cmd_report_usage[];
extern const vp_table_doc cmd_report_tables[];
extern const vp_table_doc cmd_summary_tables[], cmd_comm_tables[], cmd_steps_tables[],
    cmd_memory_tables[], cmd_mfu_tables[], cmd_diff_tables[], cmd_launches_tables[],
    cmd_copies_tables[], cmd_critpath_tables[], cmd_ranges_tables[], cmd_counters_tables[];

#endif
