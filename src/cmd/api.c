/* vprof api: per runtime and driver API name, nsys cuda_api_sum. */
#include "cli/cli.h"
#include "cmd/commands.h"
#include "cmd/evsum_cli.h"

const char cmd_api_usage[] =
    "usage: vprof api [options] TRACE...\n"
    "\n"
    "Which runtime and driver API calls take the CPU's time: one row per API name\n"
    "with the columns of `nsys stats --report cuda_api_sum`, from the cuda_runtime and\n"
    "cuda_driver events (and other back ends' *_runtime, *_driver: hip, MTIA, XPU;\n"
    "AscendCL calls of an Ascend trace_view.json).\n"
    "Several traces give one combined table. TRACE is a Chrome/Kineto trace, plain or\n"
    "gzip, or - for standard input.\n"
    VP_OPERANDS_USAGE
    "\n"
    "Ascend profiles (docs/ascend.md): a *_ascend_pt directory (or a folder of them, a\n"
    "PROF_* directory) gives per rank its api_statistic.csv (msprof's totals per API,\n"
    "every level: acl, runtime, node, model, hccl), else its trace's AscendCL calls;\n"
    "an api_statistic.csv itself too. Its rows are totals: no median (Med empty).\n"
    "\n"
    "  --top N            keep the N first rows; 0 = all\n"
    "      --by DIMS      group by name (always), level and/or rank (comma list; level:\n"
    "                     api_statistic's Level, acl for AscendCL calls of a trace,\n"
    "                     else the event's category)\n"
    VP_STEPS_USAGE
    "                     (an API call counts when it starts inside a selected step;\n"
    "                     api_statistic.csv has no steps: an Ascend profile's trace\n"
    "                     is read instead, if it has one)\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    VP_EVSUM_OUTPUT_USAGE
    "\n"
    "Columns: Time (%) is the row's share of the listed total; Total, Avg, Med (exact\n"
    "median), Min, Max and StdDev (sample standard deviation, 0 for one call) are\n"
    "nanoseconds of the calls' durations (docs/api.md). From api_statistic.csv, StdDev\n"
    "comes from its Variance (population, us^2), combined exactly over its rows.\n"
    "\n"
    "Examples:\n"
    "  vprof api trace.json.gz\n"
    "  vprof api -f csv --top 10 rank*.json.gz\n"
    "  vprof api --by level,rank run/\n";

int cmd_api(int argc, char **argv)
{
    return vp_evsum_command(argc, argv, "api", VP_EVSUM_API);
}
