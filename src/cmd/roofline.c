/* vprof roofline: how close each operator runs to the hardware's limit,
 * per operator and input shape (docs/roofline.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/scale.h"
#include "vprof/roofline.h"
#include "vprof/roofline_view.h"
#include "vprof/util.h"

const char cmd_roofline_usage[] =
    "usage: vprof roofline [options] TRACE...\n"
    "\n"
    "How close each operator runs to the hardware's limit: one row per operator name,\n"
    "Input Dims and Input type (a trace recorded with record_shapes=True), with the\n"
    "FLOPs and bytes one call does by its family's cost model (GEMM, attention,\n"
    "convolution, elementwise, reduction, normalisation, softmax, embedding), the\n"
    "GPU time of the kernels it launched (vprof ops' GPU Total of the outermost\n"
    "modelled operator), the TFLOP/s and TB/s achieved, and the share of the roof:\n"
    "min(peak TFLOP/s, FLOP/Byte x peak TB/s) of the device (deviceProperties, --gpu)\n"
    "at the operator's dtype. Operators without a model are listed with their own\n"
    "kernels' time (Self GPU) and \"no model\", so every kernel counts once.\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --by DIMS          name and shape (always), rank\n"
    "  --sort KEY         time (default: Kernel Time), roofline (ascending: furthest\n"
    "                     from the roof first), tflops, calls or name\n"
    VP_TOP_USAGE
    "      --gpu NAME     the device whose peaks apply (default: the trace's\n"
    "                     deviceProperties), e.g. H100, \"A100 80GB\", MI300X\n"
    "      --peak-tflops X  peak TFLOP/s for every modelled row, instead of the table\n"
    "      --peak-tbs X   peak memory bandwidth, TB/s, instead of the table\n"
    "      --tf32         FP32 GEMMs and convolutions ran as TF32 (allow_tf32): the TF32 peak\n"
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
    "Columns: GFLOP and Bytes are per call; Kernel Time is nanoseconds; TFLOP/s =\n"
    "Calls x GFLOP / Kernel Time, TB/s likewise; Roofline (%) = the calls' ideal time\n"
    "(the longer of FLOPs / peak and bytes / bandwidth) / Kernel Time; Bound: compute\n"
    "or memory by the ridge point. Peaks are dense (no sparsity), docs/roofline.md.\n"
    "\n"
    "Examples:\n"
    "  vprof roofline trace.json.gz\n"
    "  vprof roofline --sort roofline --top 20 trace.json.gz\n"
    "  vprof roofline --gpu H100 --tf32 -f csv rank*.json.gz > roofline.csv\n";

enum {
    OPT_BY = VP_OPT_FIRST_CMD,
    OPT_SORT,
    OPT_GPU,
    OPT_PEAK_TFLOPS,
    OPT_PEAK_TBS,
    OPT_TF32,
};

static int parse_by(vp_roofline_opts *o, const char *arg)
{
    char *copy = vp_strdup(arg), *save = NULL;
    int ok = 1;
    o->by_rank = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "rank") == 0) {
            o->by_rank = 1;
        } else if (strcmp(tok, "name") != 0 && strcmp(tok, "shape") != 0) {
            vp_usage_error("roofline", "--by: unknown grouping '%s' (name, shape, rank)", tok);
            ok = 0;
            break;
        }
    }
    free(copy);
    return ok ? 0 : -1;
}

static int parse_sort(const char *arg, vp_rl_sort *key)
{
    static const struct {
        const char *name;
        vp_rl_sort key;
    } keys[] = {
        {"time", VP_RLSORT_TIME},   {"roofline", VP_RLSORT_ROOFLINE}, {"tflops", VP_RLSORT_TFLOPS},
        {"calls", VP_RLSORT_CALLS}, {"name", VP_RLSORT_NAME},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(arg, keys[i].name) == 0) {
            *key = keys[i].key;
            return 0;
        }
    vp_usage_error("roofline", "--sort: unknown key '%s' (time, roofline, tflops, calls, name)",
                   arg);
    return -1;
}

static int parse_positive(const char *opt, const char *arg, double *out)
{
    if (vp_parse_positive(arg, out) != 0)
        return vp_usage_error("roofline", "%s: expected a positive number, found '%s'", opt, arg);
    return 0;
}

int cmd_roofline(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_STEPS_LONGOPT,
        VP_SCALE_LONGOPTS,
        {"by", required_argument, 0, OPT_BY},
        {"sort", required_argument, 0, OPT_SORT},
        {"gpu", required_argument, 0, OPT_GPU},
        {"peak-tflops", required_argument, 0, OPT_PEAK_TFLOPS},
        {"peak-tbs", required_argument, 0, OPT_PEAK_TBS},
        {"tf32", no_argument, 0, OPT_TF32},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("roofline");
    vp_common_opts common;
    vp_roofline_opts o;
    vp_rl_sort sort = VP_RLSORT_TIME;
    memset(&o, 0, sizeof o);
    vp_common_init(&common);
    int opt, status = VP_EXIT_USAGE;
    optind = 1;
    while ((opt = vp_getopt(&common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >=
           0) {
        status = VP_EXIT_USAGE;
        switch (opt) {
        case OPT_BY:
            if (parse_by(&o, optarg) != 0)
                return status;
            break;
        case OPT_SORT:
            if (parse_sort(optarg, &sort) != 0)
                return status;
            break;
        case OPT_GPU: o.device = optarg; break;
        case OPT_PEAK_TFLOPS:
            if (parse_positive("--peak-tflops", optarg, &o.peak_tflops) != 0)
                return status;
            break;
        case OPT_PEAK_TBS:
            if (parse_positive("--peak-tbs", optarg, &o.peak_tbs) != 0)
                return status;
            break;
        case OPT_TF32: o.tf32 = 1; break;
        default: vp_usage_error("roofline", "unexpected option"); return status;
        }
    }
    if (opt == VP_OPT_EXIT)
        return status;
    if (optind >= argc)
        return vp_usage_error("roofline", "no trace given (a file, or - for standard input)");
    o.steps = common.has_steps ? &common.steps : NULL;
    o.partial = common.partial;
    o.say = common.verbose ? vp_verbose_say : NULL;
    vp_ops_opts oo;
    vp_roofline_ops_opts(&o, &oo);
    vp_ops m;
    vp_ops_init(&m, &oo);
    vp_parts parts = {.cmd = "roofline", .opts = &oo, .model = &m};
    status = vp_parts_run(&common, &parts, argv + optind, (size_t)(argc - optind));
    if (status == VP_EXIT_OK) {
        vp_ops_finish(&m, VP_OSORT_GPU_TOTAL);
        vp_roofline r;
        vp_roofline_build(&r, &o, &m, m.device, sort);
        vp_table *t = vp_roofline_table(&r, common.top);
        vp_roofline_notes(t, &r, common.has_steps);
        status = vp_emit_tables(&common, &t, 1, "vprof.roofline/1");
        vp_table_free(t);
        vp_roofline_free(&r);
    } else if (status == VP_PARTS_DONE) {
        status = VP_EXIT_OK;
    }
    vp_ops_free(&m);
    return status;
}
