/* The output of the table-printing commands: --table, the one table of
 * csv and tsv, the formatter. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "vprof/error.h"
#include "vprof/util.h"

/* "a, b, c": the names of a command's tables. */
static void doc_names(vp_buf *b, const vp_table_doc *docs)
{
    for (const vp_table_doc *d = docs; d->name; d++)
        vp_buf_printf(b, "%s%s", d == docs ? "" : ", ", d->name);
}

int vp_table_option(vp_common_opts *o, const vp_cmd *cmd, const char *arg)
{
    if (!cmd->tables) {   /* not in its getopt table; kept for safety */
        vp_usage_error(cmd->name, "--table: %s prints one table", cmd->name);
        return -1;
    }
    if (strcmp(arg, "list") == 0) {
        int w = 0;
        for (const vp_table_doc *d = cmd->tables; d->name; d++)
            if ((int)strlen(d->name) > w)
                w = (int)strlen(d->name);
        for (const vp_table_doc *d = cmd->tables; d->name; d++)
            printf("%-*s  %s\n", w, d->name, d->what);
        return 2;
    }
    for (const vp_table_doc *d = cmd->tables; d->name; d++)
        if (strcmp(arg, d->name) == 0) {
            o->table = d->name;
            return 1;
        }
    vp_buf names = {0};
    doc_names(&names, cmd->tables);
    vp_usage_error(cmd->name, "--table: no table '%s' (%s's tables: %s; list says what each "
                              "holds)",
                   arg, cmd->name, vp_buf_cstr(&names));
    vp_buf_free(&names);
    return -1;
}

/* The index of the table named name in t[0..n), n when none. */
static size_t find_table(vp_table *const *t, size_t n, const char *name)
{
    size_t i = 0;
    while (i < n && strcmp(vp_table_name(t[i]), name) != 0)
        i++;
    return i;
}

/* "a, b": the tables of t[0..n) but skip. */
static void table_names(vp_buf *b, vp_table *const *t, size_t n, size_t skip)
{
    for (size_t i = 0, k = 0; i < n; i++)
        if (i != skip)
            vp_buf_printf(b, "%s%s", k++ ? ", " : "", vp_table_name(t[i]));
}

/* Which of t[0..n) to print: *first and *count; an exit status. */
static int choose(const vp_common_opts *o, vp_table *const *t, size_t n, size_t *first,
                  size_t *count)
{
    const vp_cmd *cmd = o->cmd;
    const char *name = cmd ? cmd->name : NULL;
    int one_table = o->format == VP_FMT_CSV || o->format == VP_FMT_TSV;
    *first = 0;
    *count = n;
    if (o->table) {
        size_t i = find_table(t, n, o->table);
        if (i == n) {
            vp_buf have = {0};
            table_names(&have, t, n, n);
            vp_usage_error(name, "--table %s: this input and these options give no %s table "
                                 "(they give: %s)",
                           o->table, o->table, n ? vp_buf_cstr(&have) : "none");
            vp_buf_free(&have);
            return VP_EXIT_USAGE;
        }
        *first = i;
        *count = 1;
        return VP_EXIT_OK;
    }
    if (!one_table || n < 2)
        return VP_EXIT_OK;
    size_t pick = 0;
    if (o->lead && find_table(t, n, o->lead) < n) {
        pick = find_table(t, n, o->lead);
    } else if (cmd && cmd->tables) {
        const vp_table_doc *d = cmd->tables;
        while (d->name && find_table(t, n, d->name) == n)
            d++;
        if (d->name)
            pick = find_table(t, n, d->name);
    }
    *first = pick;
    *count = 1;
    if (!vp_quiet) {
        vp_buf others = {0};
        table_names(&others, t, n, pick);
        vp_cli_note(name, "%s prints one table, %s; --table NAME prints one of the others: %s",
                    o->format == VP_FMT_CSV ? "csv" : "tsv", vp_table_name(t[pick]),
                    vp_buf_cstr(&others));
        vp_buf_free(&others);
    }
    return VP_EXIT_OK;
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
    size_t first, count;
    int st = choose(o, tables, n, &first, &count);
    if (st != VP_EXIT_OK)
        return st;
    tables += first;
    n = count;
    vp_outfile of;
    FILE *out = vp_outfile_open(&of, o->output);
    int to_file = of.path != NULL;
    vp_format_opts fo = {
        .format = o->format,
        .width = output_width(out),
        .full_names = o->full_names,
        .color = !to_file && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
        .schema = schema,
    };
    return vp_outfile_close(&of, vp_table_write(out, tables, n, &fo));
}
