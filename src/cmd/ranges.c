/* vprof ranges: per user annotation, nsys nvtx_sum. */
#include "cli/cli.h"
#include "cmd/commands.h"
#include "cmd/evsum_cli.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_ranges_tables[] = {
    {"ranges", "per range name: nsys nvtx_sum's columns"},
    {"gpu_proj", "per range name: nsys nvtx_gpu_proj_sum's columns, the GPU work launched inside"},
    {NULL, NULL},
};

const char cmd_ranges_usage[] =
    "usage: vprof ranges [options] TRACE...\n"
    "\n"
    "How long the user's ranges take: one row per range name (record_function,\n"
    "the user_annotation events on the CPU and their gpu_user_annotation spans on\n"
    "the GPU, apart) with the columns of `nsys stats --report nvtx_sum`; then, as\n"
    "`nsys stats --report nvtx_gpu_proj_sum`, the GPU work launched inside each CPU\n"
    "range (kernels, memcpys and memsets whose runtime call lies within it, joined by\n"
    "correlation id) projected onto the GPU: from the start of its first operation\n"
    "to the end of its last. Several traces give one combined table. TRACE is a\n"
    "Chrome/Kineto trace, plain or gzip, or - for standard input.\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --top N            keep the N first rows; 0 = all\n"
    "      --by DIMS      group by name (always) and/or rank (comma list)\n"
    VP_STEPS_USAGE
    "                     (a range counts when it starts inside a selected step)\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "      --table NAME   ranges (default), gpu_proj, or list: print that table alone;\n"
    "                     csv and tsv print one table, ranges unless --table names the\n"
    "                     other\n"
    VP_EVSUM_OUTPUT_USAGE
    "\n"
    "Columns: Time (%) is the row's share of the listed total; times are nanoseconds;\n"
    "Category says user_annotation (CPU) or gpu_user_annotation (GPU). gpu_proj: Total\n"
    "Proj Time sums the instances' projected spans, Total Range Time their CPU\n"
    "durations; Total GPU Ops counts distinct correlation ids; Avg Range Lvl is the\n"
    "nesting depth (0: outermost), Avg Num Child the projected child ranges; Total GPU\n"
    "Time (vprof's) sums the operations' durations (docs/ranges.md).\n"
    "\n"
    "Examples:\n"
    "  vprof ranges trace.json.gz\n"
    "  vprof ranges -f csv --top 20 rank*.json.gz\n"
    "  vprof ranges -f csv --table gpu_proj --steps 2:4 trace.json.gz\n";

int cmd_ranges(int argc, char **argv)
{
    return vp_evsum_command(argc, argv, "ranges", VP_EVSUM_RANGES);
}
