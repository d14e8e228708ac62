/* Options and output shared by the table-printing subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "vprof/error.h"

void vp_common_init(vp_common_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = VP_FMT_TABLE;
}

int vp_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vprof: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'vprof help %s'.\n", cmd);
    va_end(ap);
    return VP_EXIT_USAGE;
}

int vp_common_option(vp_common_opts *o, const vp_cmd *cmd, int c, const char *arg)
{
    switch (c) {
    case 'f':
        if (vp_format_parse(arg, &o->format) != 0) {
            vp_usage_error(cmd->name, "unknown format '%s' (table, csv, tsv, json, md)", arg);
            return -1;
        }
        return 1;
    case 'o':
        o->output = arg;
        return 1;
    case 'q':
        vp_quiet = 1;
        return 1;
    case 'v':
        o->verbose = 1;
        return 1;
    case VP_OPT_FULL_NAMES:
        o->full_names = 1;
        return 1;
    case VP_OPT_PARTIAL:
        o->partial = 1;
        return 1;
    case 'h':
        fputs(cmd->usage, stdout);
        return 2;
    case '?':
        fprintf(stderr, "Try 'vprof help %s'.\n", cmd->name);
        return -1;
    default:
        return 0;
    }
}

/* The terminal's width when stdout is one; COLUMNS wins so that tests and
 * pipes into `less` can choose. 0 = do not shorten. */
static int output_width(FILE *out)
{
    const char *env = getenv("COLUMNS");
    if (env && *env) {
        int w = atoi(env);
        if (w > 0)
            return w;
    }
    if (out != stdout || !isatty(STDOUT_FILENO))
        return 0;
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

int vp_emit_tables(const vp_common_opts *o, vp_table *const *tables, size_t n, const char *schema)
{
    FILE *out = stdout;
    int to_file = o->output && strcmp(o->output, "-") != 0;
    if (to_file) {
        out = fopen(o->output, "w");
        if (!out) {
            fprintf(stderr, "vprof: cannot write %s: %s\n", o->output, strerror(errno));
            return VP_EXIT_INPUT;
        }
    }
    vp_format_opts fo = {
        .format = o->format,
        .width = output_width(out),
        .full_names = o->full_names,
        .color = !to_file && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
        .schema = schema,
    };
    int rc = vp_table_write(out, tables, n, &fo);
    if (fflush(out) != 0)
        rc = -1;
    int err = errno;
    if (to_file && fclose(out) != 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    if (rc != 0) {
        fprintf(stderr, "vprof: cannot write %s: %s\n", to_file ? o->output : "standard output",
                strerror(err));
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}
