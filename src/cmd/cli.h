/* What every subcommand shares: the dispatch signature, the common
 * options (-f, -o, --top, -q, --full-names ...) with one meaning
 * everywhere, and the opening of the output. */
#ifndef VPROF_CMD_CLI_H
#define VPROF_CMD_CLI_H

#include <stdio.h>
#include "vprof/table.h"

/* A subcommand: argv[0] is its name. Returns the process exit status. */
typedef int (*vp_cmd_fn)(int argc, char **argv);

typedef struct vp_cmd {
    const char *name;
    vp_cmd_fn fn;
    const char *summary;   /* one line for `vprof help` */
    const char *usage;     /* full help text for `vprof help NAME` and --help */
} vp_cmd;

extern const vp_cmd vp_commands[];
const vp_cmd *vp_cmd_find(const char *name);

/* The subcommands, one file each in src/cmd/. */
int cmd_kernels(int argc, char **argv);
extern const char cmd_kernels_usage[];
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

/* Options common to the table-printing commands. */
typedef struct vp_common_opts {
    vp_format format;
    const char *output;    /* NULL or "-" = stdout */
    int full_names;
    int verbose;
    int partial;           /* accept truncated input, with a warning */
} vp_common_opts;

/* getopt_long ids for the common long-only options; a command's own
 * long-only options start at VP_OPT_FIRST_CMD. */
enum {
    VP_OPT_FULL_NAMES = 1000,
    VP_OPT_PARTIAL,
    VP_OPT_FIRST_CMD = 1100,
};

/* The common entries of a getopt_long table ("format", "output",
 * "full-names", "partial", "quiet", "verbose", "help"), to be copied in
 * front of a command's own; VP_COMMON_SHORTOPTS is their short form. */
#define VP_COMMON_SHORTOPTS "f:o:qvh"
#define VP_COMMON_LONGOPTS \
    {"format", required_argument, 0, 'f'}, \
    {"output", required_argument, 0, 'o'}, \
    {"full-names", no_argument, 0, VP_OPT_FULL_NAMES}, \
    {"partial", no_argument, 0, VP_OPT_PARTIAL}, \
    {"quiet", no_argument, 0, 'q'}, \
    {"verbose", no_argument, 0, 'v'}, \
    {"help", no_argument, 0, 'h'}

void vp_common_init(vp_common_opts *o);

/* Handles one common option c with argument arg.  Returns 1 when c was a
 * common option (handled), 0 when it is not one, and -1 after printing a
 * usage error (exit with VP_EXIT_USAGE). 'h' prints the command's help to
 * stdout and returns 2: exit 0. */
int vp_common_option(vp_common_opts *o, const vp_cmd *cmd, int c, const char *arg);

/* Prints "vprof: CMD: <msg>\nTry 'vprof help CMD'." to stderr and returns
 * VP_EXIT_USAGE. */
int vp_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes tables to the output named by o (stdout when none), in o's
 * format; the table format uses the terminal width when stdout is a tty,
 * and colour unless NO_COLOR is set.  Returns an exit status. */
int vp_emit_tables(const vp_common_opts *o, vp_table *const *tables, size_t n, const char *schema);

#endif
