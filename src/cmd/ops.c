/* vprof ops: where CPU time went, per PyTorch operator, with the columns
 * of torch.profiler's key_averages().table(). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/scale.h"
#include "vprof/ops.h"
#include "vprof/ops_view.h"
#include "vprof/util.h"

const char cmd_ops_usage[] =
    "usage: vprof ops [options] TRACE...\n"
    "\n"
    "Where CPU time went, per PyTorch operator: one row per operator name (cpu_op and\n"
    "user_annotation slices) with the columns of torch.profiler's key_averages()\n"
    "table, ProfilerStep#N folded into ProfilerStep* as torch does. Self CPU is the\n"
    "time not covered by child slices on the same thread, with children as torch's\n"
    "profiler builds its operator tree. On GPU traces, Self GPU is the GPU time of the\n"
    "kernels, memcpys and memsets the operator's own runtime calls launched\n"
    "(correlation ids), GPU Total that of it and its children. Several traces (a file\n"
    "is a rank) give one combined table. TRACE is a Chrome/Kineto trace, or torch's\n"
    "legacy trace (written without Kineto), plain or gzip, or - for standard input.\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --by DIMS          group by name (always), and/or shape (Input Dims, as\n"
    "                     key_averages(group_by_input_shape=True)), rank (comma list);\n"
    "                     module: rows are nn.Module paths (with_modules=True frames)\n"
    "  --sort KEY         cpu_total (default), self_cpu, cpu_avg, calls, self_gpu,\n"
    "                     gpu_total or name (torch's sort_by names work too)\n"
    VP_TOP_USAGE
    "      --python       python_function frames (with_stack=True) are operators too\n"
    "      --runtime      runtime calls (cudaLaunchKernel ...) get rows too\n"
    VP_STEPS_USAGE
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --full-names   never shorten names in the table format\n"
    "      --partial      accept a truncated trace, with a warning saying how much was read\n"
    "  -v, --verbose      say which rank each file is, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Columns: Calls; CPU Total, Self CPU, CPU Avg (CPU Total / Calls), Self GPU and GPU\n"
    "Total are nanoseconds (docs/ops.md). Self CPU can be negative where a child ends\n"
    "after its parent, as in torch.\n"
    "\n"
    "Examples:\n"
    "  vprof ops trace.json.gz\n"
    "  vprof ops --sort self_cpu --top 20 trace.json.gz\n"
    "  vprof ops -f csv --by shape,rank rank*.json.gz > ops.csv\n";

enum {
    OPT_BY = VP_OPT_FIRST_CMD,
    OPT_SORT,
    OPT_PYTHON,
    OPT_RUNTIME,
};

typedef struct ops_cmd {
    vp_common_opts common;
    vp_ops_opts o;
    vp_osort sort;
    vp_ops result;   /* the inputs merged so far */
} ops_cmd;

static int parse_by(ops_cmd *c, const char *arg)
{
    char *copy = vp_strdup(arg), *save = NULL;
    int ok = 1;
    c->o.dims = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "name") == 0)
            continue;
        if (strcmp(tok, "shape") == 0) {
            c->o.dims |= VP_ODIM_SHAPE;
        } else if (strcmp(tok, "rank") == 0) {
            c->o.dims |= VP_ODIM_RANK;
        } else if (strcmp(tok, "module") == 0) {
            c->o.dims |= VP_ODIM_MODULE;
        } else {
            vp_usage_error("ops", "--by: unknown grouping '%s' (name, shape, rank, module)", tok);
            ok = 0;
            break;
        }
    }
    free(copy);
    if (ok && (c->o.dims & VP_ODIM_MODULE) && (c->o.dims & VP_ODIM_SHAPE)) {
        vp_usage_error("ops", "--by: module and shape do not go together (a module has no "
                              "Input Dims)");
        ok = 0;
    }
    return ok ? 0 : -1;
}

static int parse_sort(ops_cmd *c, const char *arg)
{
    /* ours, then torch's table(sort_by=...) names of the same column */
    static const struct {
        const char *name;
        vp_osort key;
    } keys[] = {
        {"cpu_total", VP_OSORT_CPU_TOTAL}, {"self_cpu", VP_OSORT_SELF_CPU},
        {"cpu_avg", VP_OSORT_CPU_AVG},     {"calls", VP_OSORT_CALLS},
        {"self_gpu", VP_OSORT_SELF_GPU},   {"gpu_total", VP_OSORT_GPU_TOTAL},
        {"name", VP_OSORT_NAME},           {"cpu_time_total", VP_OSORT_CPU_TOTAL},
        {"self_cpu_time_total", VP_OSORT_SELF_CPU}, {"cpu_time", VP_OSORT_CPU_AVG},
        {"count", VP_OSORT_CALLS},         {"self_cuda_time_total", VP_OSORT_SELF_GPU},
        {"cuda_time_total", VP_OSORT_GPU_TOTAL}, {"self_device_time_total", VP_OSORT_SELF_GPU},
        {"device_time_total", VP_OSORT_GPU_TOTAL},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(arg, keys[i].name) == 0) {
            c->sort = keys[i].key;
            return 0;
        }
    vp_usage_error("ops",
                   "--sort: unknown key '%s' (cpu_total, self_cpu, cpu_avg, calls, self_gpu, "
                   "gpu_total, name)",
                   arg);
    return -1;
}

int cmd_ops(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_STEPS_LONGOPT,
        VP_SCALE_LONGOPTS,
        {"by", required_argument, 0, OPT_BY},
        {"sort", required_argument, 0, OPT_SORT},
        {"python", no_argument, 0, OPT_PYTHON},
        {"runtime", no_argument, 0, OPT_RUNTIME},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("ops");
    ops_cmd c;
    memset(&c, 0, sizeof c);
    vp_common_init(&c.common);
    int opt, status = VP_EXIT_USAGE;
    optind = 1;
    while ((opt = vp_getopt(&c.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts,
                            &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (opt) {
        case OPT_BY:
            if (parse_by(&c, optarg) != 0)
                return status;
            break;
        case OPT_SORT:
            if (parse_sort(&c, optarg) != 0)
                return status;
            break;
        case OPT_PYTHON: c.o.python = 1; break;
        case OPT_RUNTIME: c.o.runtime = 1; break;
        default: vp_usage_error("ops", "unexpected option"); return status;
        }
    }
    if (opt == VP_OPT_EXIT)
        return status;
    if (optind >= argc)
        return vp_usage_error("ops", "no trace given (a file, or - for standard input)");
    c.o.steps = c.common.has_steps ? &c.common.steps : NULL;
    c.o.partial = c.common.partial;
    c.o.say = c.common.verbose ? vp_verbose_say : NULL;
    vp_ops_init(&c.result, &c.o);
    vp_parts parts = {.cmd = "ops", .opts = &c.o, .model = &c.result};
    status = vp_parts_run(&c.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status == VP_EXIT_OK) {
        vp_ops_finish(&c.result, c.sort);
        vp_table *t = vp_ops_table(&c.result, c.common.top);
        if (vp_table_rows(t) == 0 && (c.o.dims & VP_ODIM_MODULE))
            vp_table_add_note(t, "no nn.Module frames in the input%s (the profiler records "
                                 "them with with_stack=True and with_modules=True)",
                              c.common.has_steps ? " (with --steps)" : "");
        else if (vp_table_rows(t) == 0)
            vp_table_add_note(t, "no operators (cpu_op, user_annotation) in the input%s",
                              c.common.has_steps ? " (with --steps)" : "");
        status = vp_emit_tables(&c.common, &t, 1, "vprof.ops/1");
        vp_table_free(t);
    } else if (status == VP_PARTS_DONE) {
        status = VP_EXIT_OK;
    }
    vp_ops_free(&c.result);
    return status;
}
