/* The table of subcommands: a name, the function that runs it, its line
 * in `vprof help`, its usage text and the tables it may print.  It lives
 * with the commands rather than in main.c because commands look each other
 * up in it (check and diff find the tables of the command they gate, the
 * usage texts find their own entry): main.c calls into src/cmd/, and
 * src/cmd/ never calls back into main.c. */
#include <stddef.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"

const vp_cmd vp_commands[] = {
    {"summary", cmd_summary, "one screen per run: step time, GPU time shares, top kernels, findings",
     cmd_summary_usage, cmd_summary_tables},
    {"kernels", cmd_kernels, "where GPU time went, per kernel (nsys cuda_gpu_kern_sum columns)",
     cmd_kernels_usage, NULL},
    {"ops", cmd_ops, "where CPU time went, per PyTorch operator (torch key_averages columns)",
     cmd_ops_usage, NULL},
    {"roofline", cmd_roofline, "per operator and shape: FLOPs, bytes, TFLOP/s, TB/s, % of the roofline",
     cmd_roofline_usage, NULL},
    {"launches", cmd_launches, "launch cost and delay per launch and kernel (HTA launch stats, nsys cuda_kern_exec_sum)",
     cmd_launches_usage, cmd_launches_tables},
    {"critical-path", cmd_critpath, "what bounds a step: HTA's critical path (CPU, GPU, launch, kernel gaps)",
     cmd_critpath_usage, cmd_critpath_tables},
    {"counters", cmd_counters, "queue length per stream and copy bandwidth over time (HTA's counters)",
     cmd_counters_usage, cmd_counters_tables},
    {"sequences", cmd_sequences, "the kernel sequences launched under an operator (HTA's frequent sequences)",
     cmd_sequences_usage, NULL},
    {"api", cmd_api, "CPU time per runtime/driver API call (nsys cuda_api_sum columns)", cmd_api_usage, NULL},
    {"copies", cmd_copies, "memcpy/memset time, bytes and bandwidth per kind (nsys cuda_gpu_mem_*_sum)",
     cmd_copies_usage, cmd_copies_tables},
    {"ranges", cmd_ranges, "time per user range and the GPU work inside it (nsys nvtx_sum, nvtx_gpu_proj_sum)",
     cmd_ranges_usage, cmd_ranges_tables},
    {"comm", cmd_comm, "communication vs computation: overlap, exposed comm, bus bandwidth, stragglers",
     cmd_comm_usage, cmd_comm_tables},
    {"steps", cmd_steps, "per-step time: GPU compute/comm/idle, data loading, fwd/bwd/optimizer",
     cmd_steps_usage, cmd_steps_tables},
    {"memory", cmd_memory, "CUDA memory snapshots: peak, timeline, top tensors, fragmentation", cmd_memory_usage, cmd_memory_tables},
    {"mfu", cmd_mfu, "model FLOPs utilization: parameters, FLOPs per token, TFLOP/s, MFU", cmd_mfu_usage, cmd_mfu_tables},
    {"merge", cmd_merge, "one timeline for all ranks: merge per-rank traces for Perfetto", cmd_merge_usage, NULL},
    {"diff", cmd_diff, "what changed between two runs, per kernel and metric; --fail-if gates",
     cmd_diff_usage, cmd_diff_tables},
    {"check", cmd_check, "CI gates on one run: --expect, --fail-if, --baseline", cmd_check_usage, NULL},
    {"record", cmd_record, "capture a trace of any CUDA program (CUPTI), or run msprof on Ascend",
     cmd_record_usage, NULL},
    {"report", cmd_report, "the run on one self-contained HTML page: charts and tables, offline",
     cmd_report_usage, cmd_report_tables},
    {"reduce", cmd_reduce, "merge partial results (--save-part) and print the command's tables",
     cmd_reduce_usage, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

const vp_cmd *vp_cmd_find(const char *name)
{
    for (const vp_cmd *c = vp_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}
