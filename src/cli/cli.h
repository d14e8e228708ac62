/* What every subcommand shares: the dispatch signature, the common
 * options (-f, -o, --top, -q, --full-names ...) with one meaning
 * everywhere, and the opening of the output. */
#ifndef VPROF_CMD_CLI_H
#define VPROF_CMD_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "vprof/steps.h"
#include "vprof/table.h"

/* A subcommand: argv[0] is its name. Returns the process exit status. */
typedef int (*vp_cmd_fn)(int argc, char **argv);

/* A table a command may print: its name (the JSON key, --table's value)
 * and what it holds, for --table list. */
typedef struct vp_table_doc {
    const char *name;
    const char *what;
} vp_table_doc;

typedef struct vp_cmd {
    const char *name;
    vp_cmd_fn fn;
    const char *summary;   /* one line for `vprof help` */
    const char *usage;     /* full help text for `vprof help NAME` and --help */
    /* The tables it may print, ended by {NULL}; NULL for a command with
     * one.  The order is the choice of csv and tsv, which print one table:
     * without --table, the first of these that the output has. */
    const vp_table_doc *tables;
} vp_cmd;

/* Routes the library's diagnostics to stderr ("vprof: warning: ...",
 * silenced by -q) and spells its hints as this CLI's options; main()
 * calls it before any command runs. */
void vp_cli_diagnostics_install(void);

/* Options common to the table-printing commands. */
typedef struct vp_common_opts {
    vp_format format;
    const char *output;    /* NULL or "-" = stdout */
    int full_names;
    int verbose;
    int partial;           /* accept truncated input, with a warning */
    long top;              /* --top N: rows kept, the rest folded; 0 = all */
    vp_step_range steps;   /* --steps A:B */
    int has_steps;
    long jobs;             /* -j N: worker processes; 0 = one per online core */
    const char *save_part; /* --save-part PATTERN: write partial results, no tables */
    int mpi;               /* --mpi: share the inputs among MPI processes */
    int local;             /* --local: each node's own files, among its processes */
    /* A command with -f formats of its own (check, diff: github, junit)
     * sees each -f first: 1 when it took it. */
    int (*own_format)(void *ctx, const char *name);
    void *own_format_ctx;
    const char *table;     /* --table NAME: print this table alone; NULL: all (csv, tsv: one) */
    struct vp_kclass_rules *classes; /* --comm-kernels, --compute-kernels; NULL: neither */
    /* the table an option of the command asks for (launches --list: the
     * list): csv and tsv print it without --table, before the command's
     * first; NULL: none */
    const char *lead;
    const vp_cmd *cmd;     /* set by vp_getopt: the command, for its tables and messages */
} vp_common_opts;

/* getopt_long ids for the common long-only options; a command's own
 * long-only options start at VP_OPT_FIRST_CMD. */
enum {
    VP_OPT_FULL_NAMES = 1000,
    VP_OPT_PARTIAL,
    VP_OPT_TOP,
    VP_OPT_STEPS,
    VP_OPT_SAVE_PART,
    VP_OPT_MPI,
    VP_OPT_LOCAL,
    VP_OPT_TABLE,
    VP_OPT_COMM_KERNELS,
    VP_OPT_COMPUTE_KERNELS,
    VP_OPT_FIRST_CMD = 1100,
};

/* The common entries of a getopt_long table ("format", "output",
 * "full-names", "partial", "quiet", "verbose", "help"), to be copied in
 * front of a command's own; VP_COMMON_SHORTOPTS is their short form
 * (with -j of VP_SCALE_LONGOPTS: a command without them never sees it
 * accepted, vp_getopt refuses it). */
#define VP_COMMON_SHORTOPTS "f:o:qvhj:"
#define VP_COMMON_LONGOPTS \
    {"format", required_argument, 0, 'f'}, \
    {"output", required_argument, 0, 'o'}, \
    {"full-names", no_argument, 0, VP_OPT_FULL_NAMES}, \
    {"partial", no_argument, 0, VP_OPT_PARTIAL}, \
    {"quiet", no_argument, 0, 'q'}, \
    {"verbose", no_argument, 0, 'v'}, \
    {"help", no_argument, 0, 'h'}

/* A description paragraph for every command that reads traces: what its
 * operands may be (vp_inputs_expand, vprof/exec.h). */
#define VP_OPERANDS_USAGE \
    "A directory stands for its traces (*.json, *.json.gz) in rank order, an\n" \
    "Ascend profile directory for itself; one file given twice is a usage error\n" \
    "(docs/trace-input.md).\n"

/* What an analysis says with -v (its options' say callback): one line on
 * stderr, "vprof: MSG". */
void vp_verbose_say(const char *msg);

/* --table NAME, for the commands with several tables (vp_cmd.tables); a
 * command's help lists its names on the option's line. */
#define VP_TABLE_LONGOPT {"table", required_argument, 0, VP_OPT_TABLE}

/* --top N and --steps A:B, the same for every command that has them. */
#define VP_TOP_LONGOPT {"top", required_argument, 0, VP_OPT_TOP}
#define VP_STEPS_LONGOPT {"steps", required_argument, 0, VP_OPT_STEPS}
#define VP_TOP_USAGE "  --top N            keep the N largest rows, fold the rest into (others); 0 = all\n"
#define VP_STEPS_USAGE \
    "  --steps A:B        keep the work launched inside ProfilerStep#A .. before #B\n" \
    "                     (Python slice over the steps present; -1 = the last step;\n" \
    "                     ':-1' drops the last step as HTA does; '5' = step 5 only)\n"

/* --comm-kernels and --compute-kernels, the same for every command that
 * classifies kernels (docs/classification.md). */
#define VP_CLASS_LONGOPTS \
    {"comm-kernels", required_argument, 0, VP_OPT_COMM_KERNELS}, \
    {"compute-kernels", required_argument, 0, VP_OPT_COMPUTE_KERNELS}
#define VP_CLASS_USAGE \
    "      --comm-kernels REGEX  kernels whose name matches are communication,\n" \
    "                     whatever the rules say (POSIX extended regex;\n" \
    "                     docs/classification.md)\n" \
    "      --compute-kernels REGEX  kernels whose name matches are compute\n" \
    "                     (before --comm-kernels and the rules)\n"

/* The commands whose per-file work is a partial result (docs/scale.md):
 * -j/--jobs N, --save-part PATTERN, --mpi. */
#define VP_SCALE_LONGOPTS \
    {"jobs", required_argument, 0, 'j'}, \
    {"save-part", required_argument, 0, VP_OPT_SAVE_PART}, \
    {"mpi", no_argument, 0, VP_OPT_MPI}, \
    {"local", no_argument, 0, VP_OPT_LOCAL}
#define VP_SCALE_USAGE \
    "  -j, --jobs N       read N files at a time in worker processes (default: one per\n" \
    "                     online core); the output is the same for every N\n" \
    "      --save-part P  write the partial result to P instead of tables (%r: the\n" \
    "                     MPI rank, %i: one file per input, its index); vprof reduce\n" \
    "                     merges them (docs/partials.md)\n" \
    "      --mpi          share the inputs among the MPI processes (mpirun); rank 0\n" \
    "                     prints (docs/scale.md)\n" \
    "      --local        with --mpi: each node takes the files it has (node-local\n" \
    "                     disks), shared among its processes\n"

void vp_common_init(vp_common_opts *o);

/* Handles one common option c with argument arg.  Returns 1 when c was a
 * common option (handled), 0 when it is not one, and -1 after printing a
 * usage error (exit with VP_EXIT_USAGE). 'h' prints the command's help to
 * stdout and returns 2: exit 0. */
int vp_common_option(vp_common_opts *o, const vp_cmd *cmd, int c, const char *arg);

/* --table ARG for cmd: "list" prints its tables and returns 2 (exit 0);
 * a name of them is kept in o->table (1); another is a usage error naming
 * them (-1). */
int vp_table_option(vp_common_opts *o, const vp_cmd *cmd, const char *arg);

/* The one option loop: getopt_long over a command's table, the common
 * options handled (vp_common_option).  Returns the next option that is
 * the command's own, VP_OPT_END after the last option (optind is then
 * the first operand), or VP_OPT_EXIT when the command must return
 * *status: 0 after --help, VP_EXIT_USAGE after a usage error (printed).
 * It also records the options that shape a partial result (all but -f,
 * -o, --full-names, --top, -q, -v, -j, --save-part, --mpi) for its
 * header: vp_shape_options. */
enum { VP_OPT_END = -1, VP_OPT_EXIT = -2 };
int vp_getopt(vp_common_opts *o, const vp_cmd *cmd, int argc, char **argv,
              const char *shortopts, const struct option *longopts, int *status);

/* The recorded options, NUL-separated (one command runs per process). */
const char *vp_shape_options(size_t *len);

/* The files a command names by option, its outputs (-o, --trace-out,
 * --save-part, --plot) and the inputs besides its operands (--model,
 * --log, --baseline ...): recorded as the options are parsed (the common
 * ones by vp_common_option), compared once with the inputs by
 * vp_cli_check_outputs.  One command runs per process. */
void vp_cli_output(const char *option, const char *path);
void vp_cli_input(const char *option, const char *path);

/* vp_outputs_check (vprof/sink.h) of the recorded outputs against the
 * recorded inputs and the n files of paths (operands resolved: a
 * directory's traces, a .vpart): 0, or VP_EXIT_USAGE after printing the
 * refusal as cmd's usage error.  vp_inputs_resolve calls it, so that every
 * command that reads operands checks before it writes anything. */
int vp_cli_check_outputs(const char *cmd, char *const *paths, size_t n);

/* An output file, whole or not at all: vp_outfile_open gives standard
 * output for NULL or "-", otherwise a stream in memory that
 * vp_outfile_close writes through a sink (vprof/sink.h: a temporary file
 * in the target's directory, flushed, synced and renamed onto it), so a
 * failed run leaves an existing file as it was.  vp_outfile_close takes
 * the writer's result (0 or -1) and returns an exit status, after
 * printing "cannot write PATH: why" on failure. */
typedef struct vp_outfile {
    FILE *f;
    const char *path;     /* NULL: standard output */
    char *mem;
    size_t len;
} vp_outfile;
FILE *vp_outfile_open(vp_outfile *o, const char *path);
int vp_outfile_close(vp_outfile *o, int rc);

/* Prints "vprof: CMD: <msg>" (cmd NULL: "vprof: <msg>") and a newline to
 * stderr: a note that is no error. */
void vp_cli_note(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "vprof: CMD: <msg>\nTry 'vprof help CMD'." to stderr and returns
 * VP_EXIT_USAGE. */
int vp_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Two options that exclude each other (one would be silently ignored):
 * prints "vprof: CMD: A and B cannot be given together: WHY" and the help
 * line; returns VP_EXIT_USAGE. */
int vp_options_conflict(const char *cmd, const char *a, const char *b, const char *why);

/* Writes tables to the output named by o (stdout when none), in o's
 * format; the table format uses the terminal width when stdout is a tty,
 * and colour unless NO_COLOR is set.  With --table, only that table (exit
 * 2 when this output has none of that name); csv and tsv print one table
 * (a spreadsheet reads one header): without --table the one an option
 * asked for (o->lead), else the command's first (vp_cmd.tables), with one
 * line on stderr naming the others.  Returns an
 * exit status. */
int vp_emit_tables(const vp_common_opts *o, vp_table *const *tables, size_t n, const char *schema);

#endif
