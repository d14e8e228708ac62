/* vprof sequences: the kernel sequences launched under an operator, as
 * HTA's get_frequent_cuda_kernel_sequences finds them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "vprof/sequences.h"
#include "vprof/sequences_view.h"

const char cmd_sequences_usage[] =
    "usage: vprof sequences --op NAME [options] TRACE\n"
    "\n"
    "The GPU kernel sequences launched under an operator, as HTA's\n"
    "get_frequent_cuda_kernel_sequences finds them: the CPU slices whose name holds\n"
    "NAME (a substring match), at the shallowest depth any of them has, with at least\n"
    "--min-len GPU events (kernels, memcpys, memsets) under them; each one's pattern\n"
    "is its name, then the names of those GPU events in start order, joined by '|'.\n"
    "One row per pattern: how many instances, their GPU time and their CPU time,\n"
    "the most frequent first. TRACE is one rank's Chrome/Kineto trace, plain or\n"
    "gzip, or - for standard input.\n"
    "\n"
    "  --op NAME          the operator (required), matched as a substring\n"
    "  --min-len N        GPU events an instance needs (default 3, HTA's\n"
    "                     min_pattern_len)\n"
    "  --top K            print the K most frequent patterns; 0 = all (default)\n"
    "  --trace-out FILE   also write the trace with those patterns marked to FILE\n"
    "                     (.gz: compressed), as HTA's overlay: every event of their\n"
    "                     instances (the operator, the slices under it, their GPU\n"
    "                     events) gets args Patterns = {pattern: count, ...}\n"
    VP_STEPS_USAGE
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --full-names   never shorten patterns in the table format\n"
    "      --partial      accept a truncated trace, with a warning saying how much was read\n"
    "  -v, --verbose      say what was read and how many instances matched\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    "  -h, --help         this help\n"
    "\n"
    "Times are nanoseconds. Memory holds the trace's CPU slices and GPU events\n"
    "(docs/sequences.md).\n"
    "\n"
    "Examples:\n"
    "  vprof sequences --op aten::conv2d trace.json.gz\n"
    "  vprof sequences --op aten::linear --min-len 2 --top 5 -f csv trace.json.gz\n"
    "  vprof sequences --op aten::conv2d --top 5 --trace-out overlaid.json.gz trace.json.gz\n";

enum {
    OPT_OP = VP_OPT_FIRST_CMD,
    OPT_MIN_LEN,
    OPT_TRACE_OUT,
};

int cmd_sequences(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_STEPS_LONGOPT,
        {"op", required_argument, 0, OPT_OP},
        {"min-len", required_argument, 0, OPT_MIN_LEN},
        {"trace-out", required_argument, 0, OPT_TRACE_OUT},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("sequences");
    vp_common_opts common;
    vp_common_init(&common);
    vp_sequences_opts o = {.min_len = 3};
    vp_sequences q;
    vp_sequences_init(&q, &o);
    int c, status = VP_EXIT_USAGE;
    const char *trace_out = NULL;
    optind = 1;
    while ((c = vp_getopt(&common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (c) {
        case OPT_OP: o.op = optarg; break;
        case OPT_TRACE_OUT: trace_out = optarg; vp_cli_output("--trace-out", optarg); break;
        case OPT_MIN_LEN: {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || v < 0) {
                vp_usage_error("sequences", "--min-len: '%s' is not a whole number >= 0", optarg);
                goto out;
            }
            o.min_len = v;
            break;
        }
        default:
            vp_usage_error("sequences", "unexpected option");
            goto out;
        }
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (!o.op || !*o.op) {
        vp_usage_error("sequences", "--op NAME is required (the operator whose kernels to find)");
        goto out;
    }
    if (optind >= argc) {
        vp_usage_error("sequences", "no trace given (a file, or - for standard input)");
        goto out;
    }
    if (argc - optind > 1) {
        vp_usage_error("sequences", "one trace at a time (one rank, as HTA's rank argument)");
        goto out;
    }
    if (trace_out && strcmp(argv[optind], "-") == 0) {
        vp_usage_error("sequences", "--trace-out reads the trace a second time: give a file, "
                       "not standard input");
        goto out;
    }
    if ((status = vp_cli_check_outputs("sequences", argv + optind, 1)) != 0)
        goto out;
    o.keep_marks = trace_out != NULL;
    o.steps = common.has_steps ? &common.steps : NULL;
    o.partial = common.partial;
    o.say = common.verbose ? vp_verbose_say : NULL;
    vp_sequences_init(&q, &o);
    vp_error err = {0};
    status = vp_sequences_read(&q, argv[optind], &err);
    if (status == VP_EXIT_OK && trace_out)
        status = vp_sequences_write_trace(&q, argv[optind], trace_out, (size_t)common.top, &err);
    if (status != VP_EXIT_OK) {
        vp_error_print(&err);
        goto out;
    }
    vp_table *t = vp_sequences_table(&q, common.top);
    status = vp_emit_tables(&common, &t, 1, "vprof.sequences/1");
    vp_table_free(t);
out:
    vp_sequences_free(&q);
    return status;
}
