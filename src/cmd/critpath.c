/* vprof critical-path: HTA's lightweight critical path of one step (or
 * any annotation's instance): what bounds it, the path, the ops and
 * kernels on it; --trace-out (or -o, its first name) writes the trace
 * with the path marked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "vprof/critpath.h"
#include "vprof/critpath_view.h"
#include "vprof/util.h"

const vp_table_doc cmd_critpath_tables[] = {
    {"summary", "time on the path per bound_by category (HTA's summary)"},
    {"path", "the path's edges in order: event, type, duration, bound_by"},
    {"top", "names with the most time on the path"},
    {NULL, NULL},
};

const char cmd_critpath_usage[] =
    "usage: vprof critical-path [options] TRACE\n"
    "\n"
    "HTA's lightweight critical path of one window of a trace: the N-th event named\n"
    "like the annotation (a ProfilerStep by default), or the whole trace. The graph\n"
    "holds CPU ops and runtime calls as begin/end nodes nested on their thread,\n"
    "launches to their kernels, kernels in order on their stream, and the edges of\n"
    "stream, device and event synchronisation; its longest path is what bounds the\n"
    "window. Each edge is attributed as HTA's critical_path_analysis does: cpu_bound,\n"
    "gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead,\n"
    "gpu_kernel_kernel_overhead, data_loading, or none (dependency and sync edges).\n"
    "TRACE is a Chrome/Kineto trace, plain or gzip, or - for standard input.\n"
    "\n"
    "  --annotation NAME  the window is an event whose name contains NAME (default\n"
    "                     ProfilerStep); '' = the whole trace\n"
    "  --instance N       which of them, counted from 0 in file order (default 0)\n"
    "  --data-load NAMES  comma-separated names: events whose name contains one are\n"
    "                     data loading (nodes of the graph, bound_by data_loading)\n"
    "  --trace-out FILE   also write the trace with the path marked to FILE (.gz:\n"
    "                     compressed): args.critical = 1 on the path's events, flow\n"
    "                     arrows of category critical_path for its dependency,\n"
    "                     launch and sync edges, as HTA's overlay\n"
    "  -o, --output FILE  the same as --trace-out (its first name, kept): the tables\n"
    "                     always go to standard output\n"
    "  --top N            the top table's rows (default 20; 0 = all)\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "      --table NAME   summary (default), path, top, or list: print that table\n"
    "                     alone; csv and tsv print one table, summary unless --table\n"
    "                     names another\n"
    "      --full-names   never shorten names in the table format\n"
    "      --partial      accept a truncated trace, with a warning saying how much was read\n"
    "  -v, --verbose      say what was read and how large the graph is\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    "  -h, --help         this help\n"
    "\n"
    "Times are HTA's: microseconds rounded as HTA rounds nanosecond traces (start up,\n"
    "end down), shown in ns. Summary: Bound By, Time (ns), Time (%) of the path, as\n"
    "HTA's summary() and get_critical_path_breakdown(). Path: Step, Event (the index\n"
    "in traceEvents of the event an op or kernel-gap edge is attributed to), Name,\n"
    "Type (HTA's edge type), Duration, Bound By, Begin and End (us). The tables go to\n"
    "standard output; docs/critical-path.md says where vprof and HTA differ.\n"
    "\n"
    "Exit status: 0 ok, 2 usage error, 3 unreadable input, no such annotation\n"
    "instance, or a graph HTA refuses (a cycle, a sync within one stream).\n"
    "\n"
    "Examples:\n"
    "  vprof critical-path trace.json.gz\n"
    "  vprof critical-path --instance 1 --table path -f csv trace.json.gz\n"
    "  vprof critical-path --annotation '' --trace-out critical.json.gz trace.json.gz\n";

enum {
    OPT_ANNOTATION = VP_OPT_FIRST_CMD,
    OPT_INSTANCE,
    OPT_DATA_LOAD,
    OPT_TRACE_OUT,
};

/* "a,b,c" -> a NULL-ended list of copies. */
static char **split_names(const char *s)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    char **v = vp_calloc(n + 1, sizeof *v);
    size_t k = 0;
    for (const char *p = s;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len)
            v[k++] = vp_strndup(p, len);
        if (!c)
            break;
        p = c + 1;
    }
    return v;
}

static void free_names(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

int cmd_critpath(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_TABLE_LONGOPT,
        {"annotation", required_argument, 0, OPT_ANNOTATION},
        {"instance", required_argument, 0, OPT_INSTANCE},
        {"data-load", required_argument, 0, OPT_DATA_LOAD},
        {"trace-out", required_argument, 0, OPT_TRACE_OUT},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("critical-path");
    vp_common_opts common;
    vp_common_init(&common);
    common.top = 20;
    vp_cp_opts o = {.annotation = "ProfilerStep", .instance = 0};
    char **data_load = NULL;
    const char *trace_out = NULL;
    vp_critpath cp;
    memset(&cp, 0, sizeof cp);
    int c, status = VP_EXIT_USAGE;
    optind = 1;
    while ((c = vp_getopt(&common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (c) {
        case OPT_ANNOTATION: o.annotation = optarg; break;
        case OPT_INSTANCE: {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || v < 0) {
                vp_usage_error("critical-path", "--instance: '%s' is not a count >= 0", optarg);
                goto out;
            }
            o.instance = v;
            break;
        }
        case OPT_TRACE_OUT: trace_out = optarg; vp_cli_output("--trace-out", optarg); break;
        case OPT_DATA_LOAD:
            free_names(data_load);
            data_load = split_names(optarg);
            break;
        default:
            vp_usage_error("critical-path", "unexpected option");
            goto out;
        }
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (optind >= argc) {
        vp_usage_error("critical-path", "no trace given (a file, or - for standard input)");
        goto out;
    }
    if (argc - optind > 1) {
        vp_usage_error("critical-path", "one trace at a time (one rank's critical path)");
        goto out;
    }
    /* -o, the option's first name, is --trace-out here: the tables go to
     * standard output */
    if (trace_out && common.output) {
        vp_usage_error("critical-path", "--trace-out and -o name the same file: give one of them");
        goto out;
    }
    const char *overlay = trace_out;
    if (!overlay && common.output && strcmp(common.output, "-") != 0)
        overlay = common.output;
    common.output = NULL;
    if (overlay && strcmp(argv[optind], "-") == 0) {
        vp_usage_error("critical-path", "--trace-out (-o) reads the trace a second time: give a "
                       "file, not standard input");
        goto out;
    }
    if ((status = vp_cli_check_outputs("critical-path", argv + optind, 1)) != 0)
        goto out;
    o.data_load = (const char *const *)data_load;
    o.partial = common.partial;
    const char *input = argv[optind];
    vp_error err = {0};
    status = vp_critpath_run(&cp, input, &o, &err);
    if (status == VP_EXIT_OK && overlay)
        status = vp_critpath_overlay(&cp, input, overlay, &err);
    if (status != VP_EXIT_OK) {
        vp_error_print(&err);
        goto out;
    }
    if (common.verbose) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: %zu events with a duration, %zu kept for the window; graph "
                 "%zu nodes, %zu edges; %zu kernels without an edge into them", input, cp.nread,
                 cp.nrows, cp.graph_nodes,
                 cp.graph_edges, cp.nwarn_no_edge);
        vp_verbose_say(msg);
    }
    vp_table *t[3] = {vp_critpath_summary_table(&cp), vp_critpath_path_table(&cp),
                      vp_critpath_top_table(&cp, common.top)};
    status = vp_emit_tables(&common, t, 3, "vprof.critical-path/1");
    for (int i = 0; i < 3; i++)
        vp_table_free(t[i]);
out:
    free_names(data_load);
    vp_critpath_free(&cp);
    return status;
}
