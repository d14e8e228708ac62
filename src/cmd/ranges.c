/* vprof ranges: per user annotation, nsys nvtx_sum. */
#include "cmd/cli.h"
#include "cmd/evsum_cli.h"

const char cmd_ranges_usage[] =
    "usage: vprof ranges [options] TRACE...\n"
    "\n"
    "How long the user's ranges take: one row per range name (record_function,\n"
    "the user_annotation events on the CPU and their gpu_user_annotation spans on\n"
    "the GPU, apart) with the columns of `nsys stats --report nvtx_sum`. Several\n"
    "traces give one combined table. TRACE is a Chrome/Kineto trace, plain or gzip,\n"
    "or - for standard input.\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --top N            keep the N first rows; 0 = all\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --full-names   never shorten names in the table format\n"
    "      --partial      accept a truncated trace, with a warning saying how much was read\n"
    "  -v, --verbose      say what was read, per file\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Columns: Time (%) is the row's share of the listed total; times are nanoseconds;\n"
    "Category says user_annotation (CPU) or gpu_user_annotation (GPU) (docs/ranges.md).\n"
    "\n"
    "Examples:\n"
    "  vprof ranges trace.json.gz\n"
    "  vprof ranges -f csv --top 20 rank*.json.gz\n";

int cmd_ranges(int argc, char **argv)
{
    return vp_evsum_command(argc, argv, "ranges", VP_EVSUM_RANGES);
}
