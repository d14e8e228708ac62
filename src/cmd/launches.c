/* vprof launches: how long launching calls take and how long their GPU
 * work waits, as HTA's get_cuda_kernel_launch_stats and nsys
 * cuda_kern_exec_sum define them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/scale.h"
#include "vprof/launches.h"
#include "vprof/launches_view.h"
#include "vprof/util.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_launches_tables[] = {
    {"launch_summary", "per rank: launches, long calls, long delays, short GPU work (HTA's plots)"},
    {"kernel_launches", "per API and kernel name: nsys cuda_kern_exec_sum's columns"},
    {"launches", "with --list: one row per launch"},
    {NULL, NULL},
};

const char cmd_launches_usage[] =
    "usage: vprof launches [options] TRACE...\n"
    "\n"
    "How long launches take and wait. Every kernel, memcpy and memset is joined with\n"
    "the runtime call that launched it (the CUDA correlation id): the call's CPU\n"
    "duration, the GPU duration, and the launch delay (GPU start minus the call's end,\n"
    "0 when negative), as HTA's get_cuda_kernel_launch_stats defines them. Tables: per\n"
    "rank, the counts HTA plots; per API and kernel name, the columns of\n"
    "`nsys stats --report cuda_kern_exec_sum`; with --list, one row per launch. Several\n"
    "traces (a file is a rank) give a row per rank. TRACE is a Chrome/Kineto trace,\n"
    "plain or gzip, or - for standard input.\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --list             one row per launch (Correlation, CPU Duration, GPU Duration,\n"
    "                     Launch Delay, Kind, API Name, Name) instead of the per-name\n"
    "                     table\n"
    "  --sort KEY         the order of --list: delay (default), cpu, gpu (largest\n"
    "                     first) or start (per rank, the calls in time order)\n"
    "  --top N            keep the first N rows of --list or of the per-name table;\n"
    "                     0 = all (memory holds N launches, not all of them)\n"
    "  --runtime-cutoff US  launching calls longer than this are Long Calls\n"
    "                     (microseconds; default 50, HTA's runtime_cutoff)\n"
    "  --delay-cutoff US  launch delays longer than this are Long Delays\n"
    "                     (microseconds; default 100, HTA's launch_delay_cutoff)\n"
    VP_STEPS_USAGE
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "      --table NAME   launch_summary (default), kernel_launches, launches (with\n"
    "                     --list), or list: print that table alone; csv and tsv print\n"
    "                     one table, the first of these that the output has unless\n"
    "                     --table names one\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --full-names   never shorten kernel names in the table format\n"
    "      --partial      accept a truncated trace, with a warning saying how much was read\n"
    "  -v, --verbose      say which rank each file is, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Columns: times are nanoseconds. In the per-rank table, Short GPU Work counts GPU\n"
    "work shorter than its call among calls within the runtime cutoff (HTA's \"short\n"
    "GPU kernels\"). In the per-name table, T is from the call's start to the later\n"
    "of its end and the kernel's end, A the call, Q the call's end to the kernel's\n"
    "start where positive (QCount of them), K the kernel. HTA joins only the calls\n"
    "named cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync and\n"
    "MTIA's runFunction; vprof takes every runtime or driver call (docs/launches.md).\n"
    "\n"
    "Examples:\n"
    "  vprof launches trace.json.gz\n"
    "  vprof launches --list --top 20 trace.json.gz\n"
    "  vprof launches --list --steps :-1 -f csv rank*.json.gz > launches.csv\n";

enum {
    OPT_LIST = VP_OPT_FIRST_CMD,
    OPT_SORT,
    OPT_RUNTIME_CUTOFF,
    OPT_DELAY_CUTOFF,
};

typedef struct launches {
    vp_common_opts common;
    vp_launches_opts o;
    int list;
    vp_launches result;
} launches;

/* Microseconds, as HTA takes them, to ns. */
static int parse_us(const char *arg, const char *opt, int64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno || !isfinite(v) || v < 0 || v > 9e12) {
        vp_usage_error("launches", "%s: '%s' is not a number of microseconds >= 0", opt, arg);
        return -1;
    }
    *out = (int64_t)llround(v * 1e3);
    return 0;
}

static int parse_sort(launches *l, const char *arg)
{
    static const char *const keys[] = {"delay", "cpu", "gpu", "start"};
    for (int i = 0; i < 4; i++)
        if (strcmp(arg, keys[i]) == 0) {
            l->o.sort = (vp_lsort)i;
            return 0;
        }
    vp_usage_error("launches", "--sort: unknown key '%s' (delay, cpu, gpu, start)", arg);
    return -1;
}

int cmd_launches(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_STEPS_LONGOPT,
        VP_SCALE_LONGOPTS,
        VP_TABLE_LONGOPT,
        {"list", no_argument, 0, OPT_LIST},
        {"sort", required_argument, 0, OPT_SORT},
        {"runtime-cutoff", required_argument, 0, OPT_RUNTIME_CUTOFF},
        {"delay-cutoff", required_argument, 0, OPT_DELAY_CUTOFF},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("launches");
    launches l;
    memset(&l, 0, sizeof l);
    vp_common_init(&l.common);
    l.o.runtime_cutoff = 50000;
    l.o.delay_cutoff = 100000;
    int c, status = VP_EXIT_USAGE, sorted = 0;
    optind = 1;
    while ((c = vp_getopt(&l.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (c) {
        case OPT_LIST: l.list = 1; l.common.lead = "launches"; break;
        case OPT_SORT:
            if (parse_sort(&l, optarg) != 0)
                goto out;
            sorted = 1;
            break;
        case OPT_RUNTIME_CUTOFF:
            if (parse_us(optarg, "--runtime-cutoff", &l.o.runtime_cutoff) != 0)
                goto out;
            break;
        case OPT_DELAY_CUTOFF:
            if (parse_us(optarg, "--delay-cutoff", &l.o.delay_cutoff) != 0)
                goto out;
            break;
        default:
            vp_usage_error("launches", "unexpected option");
            goto out;
        }
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (sorted && !l.list) {
        vp_usage_error("launches", "--sort orders the rows of --list, which is not given");
        goto out;
    }
    if (optind >= argc) {
        vp_usage_error("launches", "no trace given (a file, or - for standard input)");
        goto out;
    }
    l.o.steps = l.common.has_steps ? &l.common.steps : NULL;
    l.o.partial = l.common.partial;
    l.o.say = l.common.verbose ? vp_verbose_say : NULL;
    /* A saved partial keeps every launch: the --top of `vprof reduce`
     * chooses later.  Workers of -j keep what this table shows. */
    l.o.keep = !l.list ? 0 : l.common.top > 0 && !l.common.save_part && !l.common.mpi
                                 ? l.common.top : -1;
    vp_launches_init(&l.result, &l.o);
    vp_parts parts = {.cmd = "launches", .opts = &l.o, .model = &l.result};
    status = vp_parts_run(&l.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status != VP_EXIT_OK) {
        if (status == VP_PARTS_DONE)
            status = VP_EXIT_OK;
        goto out;
    }
    vp_launches_finish(&l.result);
    vp_table *t[2];
    t[0] = vp_launches_summary_table(&l.result);
    t[1] = l.list ? vp_launches_rows_table(&l.result)
                  : vp_launches_exec_table(&l.result, l.common.top);
    if (l.result.all_rows == 0)
        vp_table_add_note(t[0], "no launched GPU work in the input%s",
                          l.common.has_steps ? " (with --steps)" : "");
    status = vp_emit_tables(&l.common, t, 2, "vprof.launches/1");
    vp_table_free(t[0]);
    vp_table_free(t[1]);
out:
    vp_launches_free(&l.result);
    return status;
}
