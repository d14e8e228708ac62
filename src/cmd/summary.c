/* vprof summary: one screen per run, and what to look at first. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/runopts.h"
#include "vprof/classify.h"
#include "vprof/findings.h"
#include "vprof/runstats.h"
#include "vprof/table.h"

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
    "  --threshold NAME=V   change a finding's threshold (repeatable); --list-thresholds\n"
    "                       prints the names, defaults and meanings\n"
    "  --list-thresholds    print the thresholds and exit\n"
    "  --top N              kernels in the top table (default 5, 0 = all)\n"
    VP_RUN_USAGE
    VP_SCALE_USAGE
    "  -f, --format FMT     table (default), csv, tsv, json, md\n"
    "  -o, --output FILE    write there instead of standard output\n"
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

enum { OPT_THRESHOLD = VP_OPT_FIRST_CMD, OPT_LIST_THRESHOLDS };

static double metric(const vp_run *r, const char *name, int *present)
{
    const vp_metric *m = vp_run_find(r, name);
    if (present)
        *present = m != NULL;
    return m ? m->value : 0;
}

static vp_table *overview(const vp_run *r)
{
    vp_table *t = vp_table_new("run");
    vp_table_add_col(t, "Accelerator", VP_COL_TEXT, 0);
    vp_table_add_col(t, "GPUs", VP_COL_INT, 0);
    vp_table_add_col(t, "Ranks", VP_COL_INT, 0);
    vp_table_add_col(t, "Steps", VP_COL_INT, 0);
    vp_table_add_col(t, "Step Median", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Step Min", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Step Max", VP_COL_NS_F, 1);
    size_t row = vp_table_add_row(t);
    vp_table_set_text(t, row, 0, vp_run_device(r)[0] ? vp_run_device(r)
                                 : vp_run_is_ascend(r) ? "Ascend NPU"
                                                       : "-");
    if (vp_run_find(r, "gpus"))   /* none for Ascend: its traces list no devices */
        vp_table_set_int(t, row, 1, vp_run_device_count(r));
    vp_table_set_int(t, row, 2, (int64_t)metric(r, "ranks", NULL));
    vp_table_set_int(t, row, 3, (int64_t)metric(r, "steps", NULL));
    int has;
    double v = metric(r, "step.median", &has);
    if (has) {
        vp_table_set_double(t, row, 4, v);
        vp_table_set_double(t, row, 5, metric(r, "step.min", NULL));
        vp_table_set_double(t, row, 6, metric(r, "step.max", NULL));
    } else {
        vp_table_add_note(t, "no ProfilerStep#N annotations: no step time");
    }
    return t;
}

static vp_table *gpu_time(const vp_run *r)
{
    static const char *const names[] = {"gpu.busy_pct", "gpu.compute_pct", "comm.exposed_pct",
                                        "memcpy.pct", "gpu.idle_pct", "comm.overlap_pct"};
    static const char *const titles[] = {"Busy", "Compute", "Comm Exposed", "Memory Copies",
                                         "Idle", "Comm Overlap"};
    vp_table *t = vp_table_new("gpu_time");
    vp_table_add_col(t, "GPU Span", VP_COL_NS, 0);
    for (int i = 0; i < 6; i++)
        vp_table_add_col(t, titles[i], VP_COL_PERCENT, 2);
    size_t row = vp_table_add_row(t);
    vp_table_set_int(t, row, 0, (int64_t)metric(r, "gpu.span", NULL));
    for (int i = 0; i < 6; i++) {
        int has;
        double v = metric(r, names[i], &has);
        if (has)
            vp_table_set_double(t, row, i + 1, v);
    }
    vp_table_add_note(t, "shares of the GPU span (all ranks); Comm Exposed: of the GPU's busy time; "
                         "Comm Overlap: of the communication time (HTA's overlap %%)");
    return t;
}

static vp_table *top_kernels(const vp_run *r, long top)
{
    vp_table *t = vp_table_new("top_kernels");
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 1);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "Class", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    double total = metric(r, "kernels.total", NULL);
    for (size_t i = 0; i < vp_run_nkernels(r) && (long)i < top; i++) {
        const vp_kernel_total *k = vp_run_kernel(r, i);
        if (!k->count)
            break;
        size_t row = vp_table_add_row(t);
        vp_table_set_double(t, row, 0, total > 0 ? 100.0 * (double)k->total / total : 0);
        vp_table_set_int(t, row, 1, k->total);
        vp_table_set_int(t, row, 2, k->count);
        vp_table_set_text(t, row, 3, vp_kclass_name((vp_kclass)k->cls));
        vp_table_set_text(t, row, 4, k->name);
    }
    if (!vp_table_rows(t))
        vp_table_add_note(t, "no GPU kernels in the counted steps");
    return t;
}

static vp_table *memory(const vp_run *r)
{
    int has;
    double a = metric(r, "memory.peak_allocated", &has);
    if (!has)
        return NULL;
    vp_table *t = vp_table_new("memory");
    vp_table_add_col(t, "Peak Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Peak Reserved", VP_COL_BYTES, 0);
    size_t row = vp_table_add_row(t);
    vp_table_set_int(t, row, 0, (int64_t)a);
    vp_table_set_int(t, row, 1, (int64_t)metric(r, "memory.peak_reserved", NULL));
    vp_table_add_note(t, "the highest of any GPU, from the traces' [memory] events");
    return t;
}

static vp_table *mfu_table(const vp_run *r)
{
    int has;
    double m = metric(r, "mfu", &has);
    if (!has)
        return NULL;
    vp_table *t = vp_table_new("mfu");
    vp_table_add_col(t, "MFU", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "MFU Causal", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "TFLOP/s per GPU", VP_COL_RATIO, 3);
    size_t row = vp_table_add_row(t);
    vp_table_set_double(t, row, 0, 100 * m);
    vp_table_set_double(t, row, 1, 100 * metric(r, "mfu.causal", NULL));
    vp_table_set_double(t, row, 2, metric(r, "tflops", NULL));
    vp_table_add_note(t, "full-square attention (PaLM, nanoGPT) and causal (Megatron-LM); vprof mfu "
                         "has the details");
    return t;
}

static vp_table *findings_table(const vp_run *r, const vp_threshold *th)
{
    vp_finding f[16];
    size_t n = vp_findings(r, th, f, 16);
    vp_table *t = vp_table_new("findings");
    vp_table_add_col(t, "Rule", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Finding", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Evidence", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Suggestion", VP_COL_TEXT, 0);
    for (size_t i = 0; i < n; i++) {
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, f[i].rule);
        vp_table_set_text(t, row, 1, f[i].what);
        vp_table_set_text(t, row, 2, f[i].evidence);
        vp_table_set_text(t, row, 3, f[i].suggestion);
    }
    if (!n)
        vp_table_add_note(t, "no finding: every rule's threshold holds (--list-thresholds)");
    return t;
}

/* Prints text wrapped at width, every line after the first indented. */
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

/* Every metric by name: what gates and baselines use. */
static vp_table *metrics_table(const vp_run *r)
{
    vp_table *t = vp_table_new("metrics");
    vp_table_add_col(t, "Metric", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Value", VP_COL_RATIO, 6);
    vp_table_add_col(t, "Unit", VP_COL_TEXT, 0);
    static const char *const unit_names[] = {
        [VP_COL_TEXT] = "text", [VP_COL_INT] = "count", [VP_COL_NS] = "ns", [VP_COL_NS_F] = "ns",
        [VP_COL_BYTES] = "bytes", [VP_COL_PERCENT] = "percent", [VP_COL_RATIO] = "ratio",
    };
    for (size_t i = 0; i < vp_run_nmetrics(r); i++) {
        const vp_metric *m = vp_run_metric(r, i);
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, m->name);
        vp_table_set_double(t, row, 1, m->value);
        vp_table_set_text(t, row, 2, unit_names[m->unit]);
    }
    return t;
}

int cmd_summary(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_RUN_LONGOPTS,
        {"threshold", required_argument, 0, OPT_THRESHOLD},
        {"list-thresholds", no_argument, 0, OPT_LIST_THRESHOLDS},
        VP_TOP_LONGOPT,
        VP_SCALE_LONGOPTS,
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("summary");
    vp_common_opts common;
    vp_common_init(&common);
    vp_run_cli ro;
    vp_run_cli_init(&ro, "summary");
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
    vp_table *tables[8];
    size_t nt = 0;
    tables[nt++] = overview(r);
    tables[nt++] = gpu_time(r);
    tables[nt++] = top_kernels(r, common.top ? common.top : LONG_MAX);
    if ((tables[nt] = memory(r)))
        nt++;
    if ((tables[nt] = mfu_table(r)))
        nt++;
    int human = common.format == VP_FMT_TABLE;
    if (!human)
        tables[nt++] = findings_table(r, th);
    if (common.format == VP_FMT_JSON)
        tables[nt++] = metrics_table(r);
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
