/* vprof comm: communication against computation per rank (HTA's overlap
 * percentage and msprof-analyze's step_trace_time split, one definition),
 * per collective with message sizes and bus bandwidth, the spread over
 * ranks and the straggler of each step. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ascend_cmd.h"
#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/gpupass_cli.h"
#include "cli/scale.h"
#include "vprof/rank.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_groups.h"
#include "vprof/ascend_partial.h"
#include "vprof/ascend_summaries.h"
#include "vprof/ascend_stepwork.h"
#include "vprof/ascend_tracks.h"
#include "vprof/comm.h"
#include "vprof/comm_view.h"
#include "vprof/gpupass.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_comm_tables[] = {
    {"comm", "per rank: computing, communication, overlapped, exposed, free, idle"},
    {"collectives", "per collective: count, time, message size, bus bandwidth"},
    {"spread", "each per-rank figure over the ranks (two ranks or more)"},
    {"stragglers", "per step, the rank that the others waited for (two ranks or more)"},
    {"overlaps", "per rank, the time of each combination of compute, communication and memory "
                 "work (HTA's kernel types); only when --table names it"},
    {"step_trace_time", "msprof-analyze's step_trace_time columns (Ascend)"},
    {"hccl_ops", "per HCCL operation, from communication.json (Ascend)"},
    {"hccl_bandwidth", "per transport bandwidth, from communication.json (Ascend)"},
    {"hccl_links", "per link, from communication_matrix.json (Ascend)"},
    {NULL, NULL},
};

const char cmd_comm_usage[] =
    "usage: vprof comm [options] TRACE...\n"
    "\n"
    "Communication against computation on the GPU, per rank (a file is a rank): exact\n"
    "interval unions of compute and communication kernels, their overlap, the exposed\n"
    "(not overlapped) communication, and per collective its count, time, message size\n"
    "and bandwidth. Several files add the spread over ranks and the straggler of each\n"
    "step. TRACE is a Chrome/Kineto trace, plain or gzip, or - for standard input.\n"
    "\n"
    VP_OPERANDS_USAGE
    "\n"
    "Ascend profiles (docs/ascend.md): a *_ascend_pt directory, a folder of them, a\n"
    "PROF_* directory, cluster_analysis_output, or their files one by one. Their HCCL\n"
    "operations are the communication; the step_trace_time table (msprof-analyze's\n"
    "columns) comes from trace_view.json, else step_trace_time.csv; communication.json\n"
    "gives per-operation times and per-transport bandwidth, communication_matrix.json\n"
    "a per-link table.\n"
    "\n"
    "  --steps A:B        keep GPU work launched inside ProfilerStep#A .. before #B\n"
    "                     (Python slice; ':-1' drops the last step as HTA does)\n"
    "  --top N            keep the N collectives with the most time\n"
    VP_CLASS_USAGE
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --table NAME   comm (default), collectives, spread, stragglers, step_trace_time,\n"
    "                     hccl_ops, hccl_bandwidth, hccl_links, overlaps, or list (what each\n"
    "                     holds): print that table alone; csv and tsv print one table, the\n"
    "                     first of these that the output has unless --table names one;\n"
    "                     overlaps (HTA's kernel-type table) only when named\n"
    "      --full-names   never shorten text cells in the table format\n"
    "      --partial      accept a truncated trace, with a warning\n"
    "  -v, --verbose      say which rank each file is, and why, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Per rank (msprof-analyze names; HTA's in docs/comm.md):\n"
    "  Computing        |union of compute kernels|\n"
    "  Communication    |union of communication kernels|\n"
    "  Overlapped       |Computing ∩ Communication|\n"
    "  Comm Exposed     Communication(Not Overlapped) = Communication - Overlapped\n"
    "  Free             Span - |Computing ∪ Communication|\n"
    "  Idle             Span - |union of all GPU work| (memcpy, memset, sync included)\n"
    "  Overlap (%)      100 x Overlapped / Communication: HTA's comp_comm_overlap_pctg\n"
    "  Exposed/Step (%) 100 x the Comm Exposed inside the steps' windows / their\n"
    "                   wall time (Comm Exposed / Span when the trace has no\n"
    "                   ProfilerStep): one window, so never above 100\n"
    "Bus bandwidth uses the nccl-tests factors: 2(n-1)/n all-reduce, (n-1)/n\n"
    "all-gather, reduce-scatter, all-to-all, 1 broadcast, reduce, send/recv.\n"
    "\n"
    "Examples:\n"
    "  vprof comm rank*.json.gz\n"
    "  vprof comm --steps :-1 -f csv rank0.json.gz rank1.json.gz\n"
    "  vprof comm ./profile_dir\n";


typedef struct comm {
    vp_common_opts common;
    size_t pos0;          /* the position of the first trace (its operand's) */
    long rank_override;   /* the rank of the next trace read, -1: detect */
    vp_comm m;
} comm;

static int read_file(comm *c, const char *path)
{
    vp_error err = {0};
    vp_gpu_pass p;
    vp_trace_pass_opts o = {.partial = c->common.partial,
                            .range = c->common.has_steps ? &c->common.steps : NULL,
                            .position = (long)(c->pos0 + c->m.nranks),
                            .rank = c->rank_override,
                            .classes = c->common.classes,
                            .window = 1};   /* vp_origins_add */
    if (vp_gpu_pass_read(&p, path, &o, vp_comm_observe, &c->m, &err) != 0) {
        vp_error_print(&err);
        vp_gpu_pass_close(&p);
        return VP_EXIT_INPUT;
    }
    vp_gpu_pass_warn(&p);
    vp_origins_add(&c->m.origins, &p.pass);
    size_t ncoll = c->m.file_colls, nrpc = c->m.file_rpcs;
    vp_comm_rank *rr = vp_comm_add_file(&c->m, &p.w, path, p.pass.rank,
                                          vp_rank_world_size(vp_trace_meta(p.pass.trace)),
                                          c->common.has_steps);
    if (vp_npu_tracks_seen(p.w.npu) || p.w.nslices) {
        int slices = vp_stt_from_work(&p.w, rr->rank, c->common.has_steps, &c->m.stt);
        c->m.stt_source = vp_stt_trace_source(slices);
    }
    if (c->common.verbose) {
        const vp_trace_stats *st = vp_trace_get_stats(p.pass.trace);
        fprintf(stderr,
                "vprof: %s: rank %ld (from %s); read %llu events in %llu bytes%s; %llu GPU events "
                "kept, %zu communication kernels, %zu record_param_comms\n",
                vp_trace_name(p.pass.trace), rr->rank, vp_rank_source_name(p.pass.rank_from),
                (unsigned long long)st->events, (unsigned long long)st->bytes,
                st->truncated ? " (truncated)" : "", (unsigned long long)p.w.n, ncoll, nrpc);
    }
    vp_gpu_pass_close(&p);
    return VP_EXIT_OK;
}

/* One Ascend summary file, by kind. */
static int read_ascend_file(comm *c, const char *path, vp_asc_file kind, long rank)
{
    vp_error err = {0};
    int rc = 0;
    switch (kind) {
    case VP_ASC_DB:   /* vp_stt_read reads the DB's tasks (ascend_summaries.h) */
    case VP_ASC_STEP_TRACE:
        rc = vp_stt_read(path, rank, &c->m.stt, &err);
        if (!c->m.stt_source)
            c->m.stt_source = vp_stt_csv_source();
        break;
    case VP_ASC_COMM:
    case VP_ASC_MATRIX:
        rc = vp_comm_read_hccl(&c->m, path, kind == VP_ASC_MATRIX, rank, &err);
        break;
    default:
        vp_error_set(&err, VP_EXIT_INPUT,
                     "%s: a %s has no communication data (comm reads traces, step_trace_time.csv, "
                     "communication.json and communication_matrix.json)",
                     path, vp_asc_file_name(kind));
        rc = -1;
    }
    if (rc != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

/* An Ascend directory: per rank its trace (else step_trace_time.csv),
 * communication.json and communication_matrix.json; the cluster files. */
static int read_ascend_dir(comm *c, const char *path)
{
    vp_error err = {0};
    vp_asc_run run;
    if (vp_asc_scan(path, &run, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    int status = VP_EXIT_OK;
    for (size_t i = 0; i < run.n && status == VP_EXIT_OK; i++) {
        vp_asc_rank *r = &run.ranks[i];
        if (!r->files[VP_ASC_TRACE] && !r->files[VP_ASC_STEP_TRACE] &&
            !r->files[VP_ASC_COMM] && !r->files[VP_ASC_MATRIX] && !r->files[VP_ASC_DB]) {
            fprintf(stderr, "vprof: %s: no trace_view.json, step_trace_time.csv, "
                            "communication.json or communication_matrix.json\n",
                    r->dir);
            status = VP_EXIT_INPUT;
            break;
        }
        if (c->common.verbose)
            fprintf(stderr, "vprof: %s: rank %ld (from %s)\n", r->dir, r->rank, r->rank_from);
        if (r->metadata && vp_asc_read_groups(r->metadata, &c->m.stt, &err) != 0) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
            break;
        }
        if (r->files[VP_ASC_TRACE]) {
            c->rank_override = r->rank;
            status = read_file(c, r->files[VP_ASC_TRACE]);
            c->rank_override = -1;
        } else if (r->files[VP_ASC_STEP_TRACE] || r->files[VP_ASC_DB]) {
            status = read_ascend_file(c, vp_asc_need(r, VP_ASC_STEP_TRACE, VP_ASC_UNKNOWN, &err),
                                      VP_ASC_STEP_TRACE, r->rank);
        }
        if (status == VP_EXIT_OK && r->files[VP_ASC_COMM])
            status = read_ascend_file(c, r->files[VP_ASC_COMM], VP_ASC_COMM, r->rank);
        if (status == VP_EXIT_OK && r->files[VP_ASC_MATRIX])
            status = read_ascend_file(c, r->files[VP_ASC_MATRIX], VP_ASC_MATRIX, r->rank);
    }
    if (status == VP_EXIT_OK && run.n > 1 && !c->m.stt.ngroups)
        status = asc_read_comm_groups(path, &run, &c->m.stt);
    /* msprof-analyze's cluster files, when no rank directory is there
     * (with ranks, their own files are read and the stage rows computed). */
    if (status == VP_EXIT_OK && run.has_cluster && run.n == 0) {
        static const vp_asc_file kinds[] = {VP_ASC_STEP_TRACE, VP_ASC_COMM, VP_ASC_MATRIX};
        if (run.cluster.files[VP_ASC_STEP_TRACE])
            c->m.stt_source = vp_stt_cluster_source();
        for (int k = 0; k < 3 && status == VP_EXIT_OK; k++)
            if (run.cluster.files[kinds[k]])
                status = read_ascend_file(c, run.cluster.files[kinds[k]], kinds[k], -1);
    }
    vp_asc_run_free(&run);
    return status;
}

/* Input i alone, as a partial result (docs/partials.md, "comm"). */
static int comm_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    comm one = {((const comm *)ctx)->common, i, -1, {0}};
    vp_comm_init(&one.m);
    /* An Ascend operand (a directory, a summary file) by its kind, as
     * cmd_comm read them before partials; a trace otherwise. */
    asc_arg a = asc_arg_of(input);
    int status;
    if (a.is_dir)
        status = read_ascend_dir(&one, input);
    else if (a.kind != VP_ASC_TRACE)
        status = read_ascend_file(&one, input, a.kind, (long)i);
    else
        status = read_file(&one, input);
    if (status == VP_EXIT_OK)
        vp_comm_save(&one.m, out);
    vp_comm_free(&one.m);
    return status;
}

int cmd_comm(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TABLE_LONGOPT,
        VP_STEPS_LONGOPT,
        VP_CLASS_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_SCALE_LONGOPTS,
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("comm");
    comm c = {.rank_override = -1};
    vp_common_init(&c.common);
    vp_comm_init(&c.m);
    int opt, status = VP_EXIT_USAGE;
    optind = 1;
    while ((opt = vp_getopt(&c.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        vp_usage_error("comm", "unexpected option");
        status = VP_EXIT_USAGE;
        goto out;
    }
    vp_parts parts = {.cmd = "comm", .model = &c.m, .analyse = comm_analyse, .ctx = &c};
    if (opt == VP_OPT_EXIT || !vp_parts_operands(&c.common, &parts, argc, argv, &status))
        goto out;
    const vp_comm_rank *ranks = c.m.ranks;
    for (size_t i = 0; i < c.m.nranks; i++)
        for (size_t j = 0; j < i; j++)
            if (ranks[i].rank == ranks[j].rank)
                vp_warn("%s and %s both are rank %ld", ranks[j].path, ranks[i].path, ranks[i].rank);
    vp_origins_warn(&c.m.origins, "comm");
    vp_table *tables[9];
    size_t nt = 0;
    if (c.m.nranks) {
        tables[nt++] = vp_comm_rank_table(&c.m, c.common.has_steps);
        tables[nt++] = vp_comm_collective_table(&c.m, c.common.top);
    }
    if (c.m.nranks && c.common.table && strcmp(c.common.table, "overlaps") == 0)
        tables[nt++] = vp_comm_overlaps_table(&c.m);
    if (c.m.nranks > 1) {
        tables[nt++] = vp_comm_spread_table(&c.m);
        tables[nt++] = vp_comm_straggler_table(&c.m);
    }
    if (c.m.stt_source)
        tables[nt++] = asc_stt_table(&c.m.stt, 1, c.m.stt_source);
    asc_hccl_tables(&c.m.hccl, c.m.have_comm_json, c.m.have_matrix, tables, &nt);
    status = vp_emit_tables(&c.common, tables, nt, "vprof.comm/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
out:
    vp_comm_free(&c.m);
    return status;
}
