/* vprof copies: memcpy and memset per kind, nsys cuda_gpu_mem_time_sum and
 * cuda_gpu_mem_size_sum. */
#include "cli/cli.h"
#include "cmd/commands.h"
#include "cmd/evsum_cli.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_copies_tables[] = {
    {"copy_time", "per kind: nsys cuda_gpu_mem_time_sum's columns"},
    {"copy_size", "per kind: nsys cuda_gpu_mem_size_sum's columns, with the bandwidth"},
    {NULL, NULL},
};

const char cmd_copies_usage[] =
    "usage: vprof copies [options] TRACE...\n"
    "\n"
    "What the GPU's memory copies and sets cost and move: one row per operation kind\n"
    "(HtoD, DtoH, DtoD, HtoH, PtoP from the memcpy names, and memset) with the columns\n"
    "of `nsys stats --report cuda_gpu_mem_time_sum`, then a table of the bytes each\n"
    "moved (args.bytes) as `cuda_gpu_mem_size_sum` in bytes, with the achieved\n"
    "bandwidth. Several traces give one combined table. TRACE is a Chrome/Kineto\n"
    "trace, plain or gzip, or - for standard input.\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --top N            keep the N first rows; 0 = all\n"
    "      --by DIMS      group by name (always) and/or rank (comma list)\n"
    VP_STEPS_USAGE
    "                     (a copy counts when its runtime call started inside one, as kernels)\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "      --table NAME   copy_time (default), copy_size, or list: print that table\n"
    "                     alone; csv and tsv print one table, copy_time unless --table\n"
    "                     names the other\n"
    VP_EVSUM_OUTPUT_USAGE
    "\n"
    "Columns: times are nanoseconds, sizes bytes; Bandwidth (GB/s) is the kind's\n"
    "total bytes over its total time (docs/copies.md).\n"
    "\n"
    "Examples:\n"
    "  vprof copies trace.json.gz\n"
    "  vprof copies -f csv rank*.json.gz\n";

int cmd_copies(int argc, char **argv)
{
    return vp_evsum_command(argc, argv, "copies", VP_EVSUM_COPIES);
}
