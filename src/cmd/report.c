/* vprof report: the run on one self-contained HTML page.  A second front
 * end over the analyses of summary (the run's metrics and findings), steps
 * (the breakdown), comm and diff, drawn from their views: it computes
 * nothing of its own. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/inputs.h"
#include "cmd/report.h"
#include "cli/runopts.h"
#include "vprof/diff_view.h"
#include "vprof/findings.h"
#include "vprof/report_page.h"
#include "vprof/sink.h"
#include "vprof/summary_view.h"

const vp_table_doc cmd_report_tables[] = {
    {"run", "accelerator, devices, ranks, steps, step time (summary)"},
    {"gpu_time", "GPU span and its shares (summary)"},
    {"top_kernels", "the kernels with the most GPU time (summary)"},
    {"memory", "peak memory per device from [memory] events (summary)"},
    {"mfu", "model FLOPs utilization, with --model (summary)"},
    {"findings", "what to look at, with the evidence (summary)"},
    {"metrics", "every metric by name (summary)"},
    {"roofline", "per operator and shape: FLOPs, bytes, TFLOP/s, TB/s, Roofline (%) (roofline)"},
    {"kernel_classes", "per rank: kernel time by class (kernels --by rank,class --include "
                       "memcpy,memset,sync)"},
    {"op_types", "an Ascend profile's operator time per op type (kernels --by type)"},
    {"op_cores", "an Ascend profile's operator time per core type (kernels --by core)"},
    {"op_statistics", "an Ascend profile's operators per op type and core type (kernels --by "
                      "type,core)"},
    {"steps", "per rank and step: GPU and CPU time breakdown (steps --per-rank)"},
    {"step_trace_time", "an Ascend profile's step_trace_time per rank and step, with stage "
                        "rows (steps DIR)"},
    {"comm", "per rank: computing, communication, overlap, exposed, free (comm)"},
    {"collectives", "per collective: time, bytes, algbw, busbw (comm)"},
    {"spread", "each time's min, median and max over ranks (comm)"},
    {"stragglers", "the straggler of each step (comm)"},
    {"hccl_ops", "an Ascend profile's HCCL operations from communication.json (comm DIR)"},
    {"hccl_bandwidth", "an Ascend profile's bandwidth per transport from communication.json "
                       "(comm DIR)"},
    {"hccl_links", "an Ascend profile's links from communication_matrix.json (comm DIR)"},
    {"baseline_runs", "the two runs side by side, with --baseline (diff)"},
    {"baseline_metrics", "every metric of both runs and its change (diff)"},
    {"baseline_kernels", "the kernels whose time changed most (diff)"},
    {"memory_events", "the first trace's [memory] events per device (memory TRACE)"},
    {"out_of_memory", "the first trace's [OutOfMemory] events (memory TRACE)"},
    {"npu_memory", "an Ascend profile's memory_record.csv per component (memory DIR)"},
    {"operators_at_peak", "an Ascend profile's operators at each allocator's peak (memory DIR)"},
    {"npu_module_mem", "an Ascend profile's memory per module (memory DIR)"},
    {"state", "a snapshot's memory at the end (memory)"},
    {"peak", "a snapshot's peak per device (memory)"},
    {"top_at_peak", "the largest live allocations at the peak, with their sites (memory)"},
    {"oom", "a snapshot's out-of-memory events (memory)"},
    {NULL, NULL},
};

const char cmd_report_usage[] =
    "usage: vprof report [options] TRACE...\n"
    "\n"
    "The run on one HTML page that opens anywhere, offline: an overview (devices,\n"
    "ranks, steps, GPU busy and idle, MFU with --model, the findings of vprof\n"
    "summary with their evidence, each step's breakdown as stacked bars), the\n"
    "top kernels and each rank's kernel time by class, the ranks and collectives\n"
    "(several ranks), memory (the first trace's [memory] events over time), an\n"
    "Ascend profile's operators, HCCL tables (vprof comm DIR's) and NPU memory\n"
    "(MindStudio Insight's Operator and Memory pages), and with --baseline what changed against another run. Each\n"
    "trace is read once, as vprof summary reads it. Each chart has its table\n"
    "beside it. The page is self-contained (inline CSS and SVG, a small script\n"
    "that only sorts tables and switches ranks; no network), follows the\n"
    "system's light or dark theme and prints on A4. A memory snapshot (.pickle)\n"
    "gives a memory page. `-f json` gives the page's tables as data.\n"
    "\n"
    VP_OPERANDS_USAGE
    "\n"
    "  -o, --output FILE    write the page there (default: standard output); it\n"
    "                       appears whole or not at all\n"
    "  -f, --format FMT     html (default), json, csv, tsv, md\n"
    "      --baseline BASE  compare with another run (a trace or a directory of rank\n"
    "                       traces): vprof diff's metrics and kernels\n"
    "  --top N              kernels in the top table and chart (default 20, 0 = all)\n"
    VP_RUN_USAGE
    "      --table NAME     with -f csv/tsv/json/md: run, gpu_time, top_kernels, memory,\n"
    "                       mfu, findings, metrics, roofline, kernel_classes, op_types,\n"
    "                       op_cores, op_statistics, steps, step_trace_time, comm,\n"
    "                       collectives, spread, stragglers, hccl_ops, hccl_bandwidth,\n"
    "                       hccl_links, baseline_runs, baseline_metrics,\n"
    "                       baseline_kernels, memory_events, out_of_memory, npu_memory,\n"
    "                       operators_at_peak, npu_module_mem, state, peak, top_at_peak,\n"
    "                       oom, or list (what each holds)\n"
    "      --partial        accept truncated traces, with a warning\n"
    "  -q, --quiet          no warnings, no progress bar\n"
    "  -h, --help           this help\n"
    "\n"
    "Sections and what each shows: docs/report.md.\n"
    "\n"
    "Examples:\n"
    "  vprof report -o run.html rank*.json.gz\n"
    "  vprof report -o run.html --model config.json --tokens-per-step 1048576 run/\n"
    "  vprof report -o cmp.html --baseline base/ new/\n"
    "  vprof report -o mem.html snapshot.pickle\n";

enum { OPT_BASELINE = VP_OPT_FIRST_CMD };

/* -f html is this command's; -f table is refused after the options. */
typedef struct fmt_ctx {
    int html, table;
} fmt_ctx;

static int report_format(void *ctx, const char *name)
{
    fmt_ctx *f = ctx;
    if (strcmp(name, "html") == 0)
        return f->html = 1;
    if (strcmp(name, "table") == 0)
        return f->table = 1;
    f->html = 0;
    return 0;
}

/* The page into path, whole or not at all: rendered in memory (the page
 * is at most 2 MB), then written through a sink, which writes under a
 * temporary name and renames only a complete file. */
static int write_page(const char *path, const vp_report_input *in)
{
    vp_outfile of;
    FILE *f = vp_outfile_open(&of, path);
    return vp_outfile_close(&of, vp_report_write(f, in));
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TABLE_LONGOPT,
        VP_RUN_LONGOPTS,
        VP_TOP_LONGOPT,
        {"baseline", required_argument, 0, OPT_BASELINE},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("report");
    vp_report_input in;
    vp_report_input_init(&in);
    vp_common_init(&in.common);
    vp_run_cli_init(&in.ro, "report");
    in.ro.run.roofline = 1;   /* the roofline chart and table, from the same pass */
    fmt_ctx fmt = {1, 0};
    in.common.own_format = report_format;
    in.common.own_format_ctx = &fmt;
    in.common.top = 20;
    int c, status = VP_EXIT_USAGE;
    optind = 1;
    while ((c = vp_getopt(&in.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        int h = vp_run_option(&in.ro, "report", c, optarg);
        if (h < 0)
            goto out;
        if (h == 1)
            continue;
        if (c == OPT_BASELINE) {
            in.baseline = optarg;
            vp_cli_input("--baseline", optarg);
            continue;
        }
        vp_usage_error("report", "unexpected option");
        goto out;
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (fmt.table) {
        vp_usage_error("report", "-f table: the report is html (default), json, csv, tsv or md");
        goto out;
    }
    if (fmt.html && in.common.table) {
        vp_usage_error("report", "--table picks a table of -f json, csv, tsv or md, not of the "
                                 "html page");
        goto out;
    }
    if (optind >= argc) {
        vp_usage_error("report", "no trace given (files, a directory of rank traces, or a "
                                 "memory snapshot)");
        goto out;
    }
    if ((status = vp_inputs_resolve("report", argv + optind, (size_t)(argc - optind), &in.inputs)))
        goto out;
    if ((status = vp_report_read(&in)) != VP_EXIT_OK)
        goto out;
    if (in.done)
        status = VP_EXIT_OK;
    else if (fmt.html)
        status = write_page(in.common.output, &in);
    else
        status = vp_emit_tables(&in.common, in.tables, in.ntables, "vprof.report/1");
out:
    vp_report_input_free(&in);
    return status;
}
