/* vprof summary: one screen per run, and what to look at first. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/runopts.h"
#include "vprof/classify.h"
#include "vprof/critpath_view.h"
#include "vprof/findings.h"
#include "vprof/runstats.h"
#include "vprof/summary_view.h"
#include "vprof/table.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_summary_tables[] = {
    {"metrics", "every metric by name, value and unit: what check and diff compare"},
    {"run", "accelerator, devices with kernels, ranks, steps, step time"},
    {"gpu_time", "GPU span and the shares of busy, compute, exposed communication, copies, idle"},
    {"top_kernels", "the kernels with the most GPU time"},
    {"memory", "peak memory per device (traces with memory events)"},
    {"mfu", "model FLOPs utilization (with --model)"},
    {"findings", "what to look at, with the rule and its threshold"},
    {"step_bound", "per rank and step: the bound_by category with the most time on its critical path (--critical-path)"},
    {NULL, NULL},
};

const char cmd_summary_usage[] =
    "usage: vprof summary [options] TRACE...\n"
    "\n"
    "Is this run healthy, and what should I look at first? One screen: the\n"
    "accelerator, ranks and steps, step time, where the GPU time went (busy,\n"
    "compute, exposed communication, memory copies, idle), the top kernels, peak\n"
    "memory from [memory] events, MFU with --model; then findings: rules with\n"
    "the evidence measured and a suggestion. Several traces are the ranks of one\n"
    "run; an Ascend directory (*_ascend_pt, a folder of them) is its ranks'\n"
    "trace_view.json (docs/summary.md \"Ascend\"). `-f json` adds every metric by name (what vprof check and vprof diff\n"
    "gate on) and gives the findings as data.\n"
    "\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --threshold NAME=V   change a finding's threshold (repeatable); --list-thresholds\n"
    "                       prints the names, defaults and meanings\n"
    "  --list-thresholds    print the thresholds and exit\n"
    "  --top N              kernels in the top table (default 5, 0 = all)\n"
    "  --critical-path      also each step's critical path (HTA's, as vprof\n"
    "                       critical-path --instance N): the step_bound table says per\n"
    "                       rank and step which bound_by category has the most time on\n"
    "                       it (cpu_bound, gpu_compute_bound, ...); keeps a compact row\n"
    "                       per event of a trace while it is read (docs/summary.md)\n"
    VP_RUN_USAGE
    VP_SCALE_USAGE
    "  -f, --format FMT     table (default), csv, tsv, json, md\n"
    "  -o, --output FILE    write there instead of standard output\n"
    "      --table NAME     metrics (default), run, gpu_time, top_kernels, memory, mfu,\n"
    "                       findings, step_bound, or list (what each holds): print that\n"
    "                       table alone;\n"
    "                       csv and tsv print one table, the first of these that the output\n"
    "                       has unless --table names one\n"
    "      --full-names     never shorten kernel names in the table format\n"
    "      --partial        accept truncated traces, with a warning\n"
    "  -q, --quiet          no warnings, no progress bar\n"
    "  -h, --help           this help\n"
    "\n"
    "Metrics and findings: docs/summary.md.\n"
    "\n"
    "Examples:\n"
    "  vprof summary rank*.json.gz\n"
    "  vprof summary --model config.json --tokens-per-step 1048576 --seq-len 8192 trace.json.gz\n"
    "  vprof summary -f json run.json.gz > baseline.json\n";

enum { OPT_THRESHOLD = VP_OPT_FIRST_CMD, OPT_LIST_THRESHOLDS, OPT_CRITICAL_PATH };

static void wrap(FILE *out, const char *text, int first, int indent, int width)
{
    int col = first;
    const char *p = text;
    while (*p) {
        const char *w = p;
        while (*w && *w != ' ')
            w++;
        int len = (int)(w - p);
        if (col > indent && col + 1 + len > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > first || (col == first && p != text)) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", len, p);
        col += len;
        p = *w ? w + 1 : w;
    }
    fputc('\n', out);
}

/* The findings read as a list on a terminal: a table would cut the
 * sentences that are the point of them. */
static int print_findings(const vp_common_opts *o, const vp_run *r, const vp_threshold *th)
{
    FILE *out = stdout;
    int to_file = o->output && strcmp(o->output, "-") != 0;
    if (to_file && !(out = fopen(o->output, "a"))) {
        fprintf(stderr, "vprof: cannot write %s\n", o->output);
        return VP_EXIT_INPUT;
    }
    const char *env = getenv("COLUMNS");
    int width = env && atoi(env) > 40 ? atoi(env) : 100;
    vp_finding f[16];
    size_t n = vp_findings(r, th, f, 16);
    fprintf(out, "\n== findings ==\n");
    if (!n)
        fprintf(out, "none: every rule's threshold holds (vprof summary --list-thresholds)\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%zu. %s [%s]\n", i + 1, f[i].what, f[i].rule);
        fputs("   evidence: ", out);
        wrap(out, f[i].evidence, 13, 13, width);
        fputs("   try: ", out);
        wrap(out, f[i].suggestion, 8, 8, width);
    }
    int bad = fflush(out) != 0 || (to_file && fclose(out) != 0);
    return bad ? VP_EXIT_INPUT : VP_EXIT_OK;
}

int cmd_summary(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TABLE_LONGOPT,
        VP_RUN_LONGOPTS,
        {"threshold", required_argument, 0, OPT_THRESHOLD},
        {"list-thresholds", no_argument, 0, OPT_LIST_THRESHOLDS},
        {"critical-path", no_argument, 0, OPT_CRITICAL_PATH},
        VP_TOP_LONGOPT,
        VP_SCALE_LONGOPTS,
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("summary");
    vp_common_opts common;
    vp_common_init(&common);
    vp_run_cli ro;
    vp_run_cli_init(&ro, "summary");
    ro.run.roofline = 1;   /* the far_under_roof finding, from the same pass */
    vp_threshold *th = vp_thresholds_new();
    common.top = 5;
    int c, status = VP_EXIT_USAGE, list = 0;
    optind = 1;
    while ((c = vp_getopt(&common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        int h = vp_run_option(&ro, "summary", c, optarg);
        if (h < 0)
            goto out;
        if (h == 1)
            continue;
        switch (c) {
        case OPT_THRESHOLD:
            if (vp_thresholds_set(th, optarg) != 0) {
                vp_usage_error("summary", "--threshold: expected NAME=NUMBER with a NAME of "
                                          "--list-thresholds, found '%s'", optarg);
                goto out;
            }
            break;
        case OPT_LIST_THRESHOLDS:
            list = 1;
            break;
        case OPT_CRITICAL_PATH:
            ro.run.critical_path = 1;
            break;
        default:
            vp_usage_error("summary", "unexpected option");
            goto out;
        }
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (list) {
        for (const vp_threshold *t = th; t->name; t++)
            printf("%-14s %-6g %s\n", t->name, t->value, t->meaning);
        status = VP_EXIT_OK;
        goto out;
    }
    if (optind >= argc) {
        vp_usage_error("summary", "no trace given (a file, or - for standard input)");
        goto out;
    }
    vp_run *r = vp_run_cli_read(&ro, &common, argv + optind, (size_t)(argc - optind), &status);
    if (!r)
        goto out;
    vp_table *tables[VP_SUMMARY_TABLES + 1];
    /* The table format prints findings as text, and no metrics table:
     * unless --table asks for one of them. */
    int human = common.format == VP_FMT_TABLE && !common.table;
    int metrics = common.format != VP_FMT_TABLE && common.format != VP_FMT_MD;
    size_t nt = vp_summary_tables(r, th, common.top ? common.top : LONG_MAX, !human,
                                  metrics || common.table, tables);
    if ((tables[nt] = vp_critpath_steps_table(vp_run_step_bounds(r))))
        nt++;
    status = vp_emit_tables(&common, tables, nt, "vprof.summary/1");
    if (status == VP_EXIT_OK && human)
        status = print_findings(&common, r, th);
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
    vp_run_free(r);
out:
    free(th);
    return status;
}
