/* vprof counters: queue length per CUDA stream and memory bandwidth per
 * copy kind over time, summarised as HTA's get_queue_length_summary and
 * get_memory_bw_summary. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/scale.h"
#include "vprof/counters.h"
#include "vprof/counters_view.h"
#include "vprof/util.h"

const vp_table_doc cmd_counters_tables[] = {
    {"queue", "per rank and stream: queue length statistics (HTA's get_queue_length_summary)"},
    {"bandwidth", "per rank and copy kind: memory bandwidth statistics in GB/s (get_memory_bw_summary)"},
    {"queue_series", "with --time-series: every change of a stream's queue length"},
    {"bandwidth_series", "with --time-series: every change of a copy kind's bandwidth"},
    {NULL, NULL},
};

const char cmd_counters_usage[] =
    "usage: vprof counters [options] TRACE...\n"
    "\n"
    "Queue length per CUDA stream and memory bandwidth per copy kind over time, as\n"
    "HTA's TraceCounters defines them. Queue length: a launching runtime call adds one\n"
    "when it starts, the kernel, memcpy or memset it launched takes one away when it\n"
    "starts. Bandwidth: each memcpy and memset adds its \"memory bandwidth (GB/s)\"\n"
    "while it runs. Tables: per rank and stream, and per rank and copy kind (Memcpy\n"
    "HtoD, Memcpy DtoD, Memset ...), the statistics of HTA's summaries (Count, Mean,\n"
    "Std, Min, 25%, 50%, 75%, Max, at full precision); with --time-series, every\n"
    "point of the series. Several traces (a file is a rank) give rows per rank.\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --time-series      also the series themselves: one row per change (Rank,\n"
    "                     Stream or Name, Time (ns), the value)\n"
    "  --trace-out FILE   also write the trace with the counters added to FILE (.gz:\n"
    "                     compressed), as HTA's generate_trace_with_counters: a\n"
    "                     counter event (ph C) per change, named Queue Length (id:\n"
    "                     the stream) or the copy kind (args Memcpy BW), which\n"
    "                     Perfetto draws as tracks; one trace, a file\n"
    VP_STEPS_USAGE
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "      --table NAME   queue (default), bandwidth, queue_series, bandwidth_series:\n"
    "                     print that table alone; csv and tsv print one table, the\n"
    "                     first of these that the output has unless --table names one\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --partial      accept a truncated trace, with a warning saying how much was read\n"
    "  -v, --verbose      say which rank each file is, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Memory holds every point of every series (exact quantiles need them): 16 bytes\n"
    "per launch and per copy (docs/counters.md).\n"
    "\n"
    "Examples:\n"
    "  vprof counters trace.json.gz\n"
    "  vprof counters --steps :-1 -f csv --table bandwidth rank*.json.gz\n"
    "  vprof counters --time-series -f csv --table queue_series trace.json.gz\n"
    "  vprof counters --trace-out with_counters.json.gz trace.json.gz\n";

enum {
    OPT_TIME_SERIES = VP_OPT_FIRST_CMD,
    OPT_TRACE_OUT,
};

typedef struct counters {
    vp_common_opts common;
    vp_counters_opts o;
    vp_counters result;
} counters;

int cmd_counters(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_STEPS_LONGOPT,
        VP_SCALE_LONGOPTS,
        VP_TABLE_LONGOPT,
        {"time-series", no_argument, 0, OPT_TIME_SERIES},
        {"trace-out", required_argument, 0, OPT_TRACE_OUT},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("counters");
    counters c;
    memset(&c, 0, sizeof c);
    vp_common_init(&c.common);
    int opt, status = VP_EXIT_USAGE, time_series = 0;
    const char *trace_out = NULL;
    optind = 1;
    while ((opt = vp_getopt(&c.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (opt) {
        case OPT_TIME_SERIES: time_series = 1; c.common.lead = "queue_series"; break;
        case OPT_TRACE_OUT: trace_out = optarg; vp_cli_output("--trace-out", optarg); break;
        default:
            vp_usage_error("counters", "unexpected option");
            goto out;
        }
    }
    if (opt == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (optind >= argc) {
        vp_usage_error("counters", "no trace given (a file, or - for standard input)");
        goto out;
    }
    if (trace_out && (argc - optind > 1 || strcmp(argv[optind], "-") == 0 ||
                      c.common.save_part || c.common.mpi)) {
        vp_usage_error("counters", "--trace-out reads its trace a second time: give one trace, "
                       "a file (not -), without --save-part or --mpi");
        goto out;
    }
    c.o.steps = c.common.has_steps ? &c.common.steps : NULL;
    c.o.partial = c.common.partial;
    c.o.say = c.common.verbose ? vp_verbose_say : NULL;
    vp_counters_init(&c.result, &c.o);
    vp_parts parts = {.cmd = "counters", .opts = &c.o, .model = &c.result};
    status = vp_parts_run(&c.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status != VP_EXIT_OK) {
        if (status == VP_PARTS_DONE)
            status = VP_EXIT_OK;
        goto out;
    }
    vp_counters_finish(&c.result);
    if (trace_out) {
        if (c.result.nfiles != 1) {
            vp_usage_error("counters", "--trace-out: '%s' holds %zu traces; give one", argv[optind],
                           c.result.nfiles);
            status = VP_EXIT_USAGE;
            goto out;
        }
        vp_error err = {0};
        status = vp_counters_write_trace(&c.result, argv[optind], trace_out, &err);
        if (status != VP_EXIT_OK) {
            vp_error_print(&err);
            goto out;
        }
    }
    vp_table *t[4];
    size_t nt = 0;
    t[nt++] = vp_counters_queue_table(&c.result);
    t[nt++] = vp_counters_bandwidth_table(&c.result);
    if (time_series) {
        t[nt++] = vp_counters_queue_series_table(&c.result);
        t[nt++] = vp_counters_bandwidth_series_table(&c.result);
    }
    if (c.result.nqueue == 0)
        vp_table_add_note(t[0], "no launch of HTA's runtime calls joined to GPU work%s",
                          c.common.has_steps ? " (with --steps)" : "");
    if (c.result.nbw == 0)
        vp_table_add_note(t[1], "no memcpy or memset in the input%s",
                          c.common.has_steps ? " (with --steps)" : "");
    status = vp_emit_tables(&c.common, t, nt, "vprof.counters/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(t[i]);
out:
    vp_counters_free(&c.result);
    return status;
}
