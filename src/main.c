/* vprof: the dispatch table of subcommands, `help` and `--version`. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "cmd/cli.h"
#include "vprof/error.h"
#include "vprof/json.h"

#ifndef VPROF_VERSION
#define VPROF_VERSION "0.0.0"
#endif
#ifndef VPROF_GIT_COMMIT
#define VPROF_GIT_COMMIT "unknown"
#endif

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

#ifndef VPROF_HAVE_CUPTI
#define VPROF_HAVE_CUPTI 0
#endif
#ifndef VPROF_HAVE_SQLITE
#define VPROF_HAVE_SQLITE 0
#endif
#ifndef VPROF_HAVE_MPI
#define VPROF_HAVE_MPI 0
#endif

/* The version (CMake's project(VERSION), semantic versioning), the commit
 * it was built from, and one "backend: state" line per optional part. */
static void print_version(void)
{
    printf("vprof %s (commit %s)\n", VPROF_VERSION, VPROF_GIT_COMMIT);
    printf("inflate: %s\n", VPROF_HAVE_ISAL ? "ISA-L" : "zlib");
    printf("zlib: %s\n", zlibVersion());
    printf("cupti: %s\n", VPROF_HAVE_CUPTI ? "built (libvprof-cupti.so)" : "not built");
    printf("sqlite: %s\n", VPROF_HAVE_SQLITE ? "built" : "not built");
    printf("mpi: %s\n", VPROF_HAVE_MPI ? "built" : "not built");
    /* Chosen at start-up (VPROF_SIMD forces one): scripts/cross-check-arm64
     * asserts that arm64 runs NEON. */
    printf("json scanner: %s\n", vp_json_scanner());
}

/* The first line under "Examples:" in a command's usage text, if any. */
static void print_first_example(FILE *out, const char *usage)
{
    const char *p = strstr(usage, "\nExamples:\n");
    if (!p)
        return;
    p += strlen("\nExamples:\n");
    const char *end = strchr(p, '\n');
    fprintf(out, "%.*s\n", (int)(end ? end - p : (ptrdiff_t)strlen(p)), p);
}

static void print_overview(FILE *out)
{
    fprintf(out, "usage: vprof <command> [options] FILE...\n\ncommands:\n");
    for (const vp_cmd *c = vp_commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\nexamples:\n");
    for (const vp_cmd *c = vp_commands; c->name; c++)
        print_first_example(out, c->usage);
    fprintf(out, "\n'vprof help <command>' or 'vprof <command> --help' for a command's options.\n"
                 "Exit status: 0 ok, 1 a gate failed, 2 usage error, 3 bad input.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return VP_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        print_version();
        return VP_EXIT_OK;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_overview(stdout);
        return VP_EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            print_overview(stdout);
            return VP_EXIT_OK;
        }
        if (strcmp(argv[2], "--list") == 0) {  /* for scripts: one name a line */
            for (const vp_cmd *c = vp_commands; c->name; c++)
                puts(c->name);
            return VP_EXIT_OK;
        }
        const vp_cmd *c = vp_cmd_find(argv[2]);
        if (!c) {
            fprintf(stderr, "vprof: help: no command '%s'\n", argv[2]);
            return VP_EXIT_USAGE;
        }
        fputs(c->usage, stdout);
        return VP_EXIT_OK;
    }
    const vp_cmd *c = vp_cmd_find(name);
    if (!c) {
        fprintf(stderr, "vprof: '%s' is not a vprof command. See 'vprof help'.\n", name);
        return VP_EXIT_USAGE;
    }
    vp_cli_diagnostics_install();
    /* getopt names argv[0] in its messages: make them read like ours. */
    char label[64];
    snprintf(label, sizeof label, "vprof: %s", c->name);
    argv[1] = label;
    return c->fn(argc - 1, argv + 1);
}
