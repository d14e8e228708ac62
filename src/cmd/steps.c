/* vprof steps: where each training step's time goes, on the CPU (data
 * loading, forward, backward, optimizer) and on the GPU (compute, exposed
 * communication, memory copies, idle), and with --idle HTA's temporal and
 * idle-time breakdowns. */
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
#include "vprof/ascend_groups.h"
#include "vprof/ascend_partial.h"
#include "vprof/ascend_stepwork.h"
#include "vprof/ascend_summaries.h"
#include "vprof/ascend_tracks.h"
#include "vprof/breakdown.h"
#include "vprof/gpupass.h"
#include "vprof/steps_view.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_steps_tables[] = {
    {"steps", "per step (and rank): GPU compute, communication, idle, CPU phases"},
    {"summary", "the step columns over the steps"},
    {"temporal", "with --idle: HTA's temporal breakdown per rank"},
    {"idle", "with --idle: HTA's idle time breakdown"},
    {"step_trace_time", "msprof-analyze's step_trace_time columns (Ascend)"},
    {NULL, NULL},
};

const char cmd_steps_usage[] =
    "usage: vprof steps [options] TRACE...\n"
    "\n"
    "A row per ProfilerStep#N: its CPU wall time, the GPU work it launched (joined on\n"
    "the correlation id) split into compute, exposed communication, memory copies and\n"
    "idle, its CPU phases (data loading, forward, backward, optimizer) and kernel\n"
    "counts; then mean, median, min and max over the steps. TRACE is a Chrome/Kineto\n"
    "trace, plain or gzip, or - for standard input; several files are ranks.\n"
    "\n"
    VP_OPERANDS_USAGE
    "\n"
    "Ascend profiles (docs/ascend.md): a *_ascend_pt directory, a folder of them, a\n"
    "PROF_* directory or cluster_analysis_output, or step_trace_time.csv itself: the\n"
    "step_trace_time table (Computing, Communication(Not Overlapped), Overlapped,\n"
    "Communication, Free, Stage, Bubble, ... with msprof-analyze's definitions) per\n"
    "rank and step, computed from trace_view.json or read from the CSV, and stage\n"
    "rows holding the maximum over the ranks.\n"
    "\n"
    "  --steps A:B        keep the steps ProfilerStep#A .. before #B (Python slice;\n"
    "                     ':-1' drops the last step as HTA does)\n"
    "  --per-rank         with several files, a row per rank and step (default: per\n"
    "                     step, the largest value over the ranks)\n"
    "  --idle             instead: HTA's temporal breakdown per rank and idle-time\n"
    "                     breakdown per rank and stream\n"
    "  --kernel-wait US   gaps shorter than this are kernel wait (--idle); microseconds,\n"
    "                     default 30 (HTA's consecutive_kernel_delay)\n"
    VP_CLASS_USAGE
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --table NAME   steps (default), summary, temporal, idle, step_trace_time, or\n"
    "                     list (what each holds): print that table alone; csv and tsv print\n"
    "                     one table, the first of these that the output has unless --table\n"
    "                     names one\n"
    "      --partial      accept a truncated trace, with a warning\n"
    "  -v, --verbose      say which rank each file is, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Columns (exact definitions in docs/steps.md): GPU Span = first start to last\n"
    "end of the step's GPU work; GPU Busy = |union|; Compute = |compute kernels|;\n"
    "Comm Exposed = |communication \\ compute|; Memory = |memcpy and memset \\ (compute\n"
    "∪ communication)|; GPU Idle = Span - Busy; Data Loading = DataLoader __next__\n"
    "annotations; Optimizer = Optimizer.step#* annotations; Backward = first to last\n"
    "autograd::engine op of the step, less the others; Forward = the step before\n"
    "Backward, less data loading and optimizer; Short Kernels = kernels that ran\n"
    "shorter than their own launch call (a sign of a launch-bound step).\n"
    "\n"
    "Examples:\n"
    "  vprof steps trace.json.gz\n"
    "  vprof steps --idle --steps :-1 -f csv trace.json.gz\n";

enum { OPT_PER_RANK = VP_OPT_FIRST_CMD, OPT_IDLE, OPT_KERNEL_WAIT };

typedef struct stepsc {
    vp_common_opts common;
    int per_rank, idle;
    size_t pos0;           /* the position of the first trace (its operand's) */
    int64_t kernel_wait;   /* ns */
    long rank_override;    /* the rank of the next trace read, -1: detect */
    vp_breakdown b;
} stepsc;

static int read_file(stepsc *s, const char *path)
{
    vp_error err = {0};
    vp_gpu_pass p;
    vp_trace_pass_opts o = {.partial = s->common.partial,
                            .range = s->common.has_steps ? &s->common.steps : NULL,
                            .position = (long)(s->pos0 + s->b.nfiles),
                            .rank = s->rank_override,
                            .classes = s->common.classes,
                            .window = 1};   /* vp_origins_add */
    if (vp_gpu_pass_read(&p, path, &o, s->idle ? NULL : vp_breakdown_observe, &s->b, &err) != 0) {
        vp_error_print(&err);
        vp_gpu_pass_close(&p);
        return VP_EXIT_INPUT;
    }
    vp_gpu_pass_warn(&p);
    vp_origins_add(&s->b.origins, &p.pass);
    if (s->idle) {
        vp_breakdown_add_idle(&s->b, &p.w, p.pass.rank, s->kernel_wait);
    } else {
        if (vp_npu_tracks_seen(p.w.npu) || p.w.nslices) {
            int slices = vp_stt_from_work(&p.w, p.pass.rank, s->common.has_steps, &s->b.stt);
            s->b.stt_source = vp_stt_trace_source(slices);
        }
        vp_breakdown_add_steps(&s->b, &p.w, p.pass.rank, s->common.has_steps);
        vp_breakdown_add_world(&s->b, &p.w, vp_rank_world_size(vp_trace_meta(p.pass.trace)));
    }
    if (s->common.verbose) {
        const vp_trace_stats *st = vp_trace_get_stats(p.pass.trace);
        fprintf(stderr, "vprof: %s: rank %ld (from %s); read %llu events in %llu bytes%s; %zu steps, "
                        "%zu GPU events kept\n",
                vp_trace_name(p.pass.trace), p.pass.rank, vp_rank_source_name(p.pass.rank_from),
                (unsigned long long)st->events, (unsigned long long)st->bytes,
                st->truncated ? " (truncated)" : "", p.pass.nsteps, p.w.n);
    }
    vp_gpu_pass_close(&p);
    return VP_EXIT_OK;
}

/* An Ascend directory: per rank its trace, else its step_trace_time.csv;
 * msprof-analyze's cluster_step_trace_time.csv when no rank is there. */
static int read_ascend(stepsc *s, const char *path, int is_dir, vp_asc_file kind, long position)
{
    vp_error err = {0};
    if (!is_dir) {
        if (kind != VP_ASC_STEP_TRACE && kind != VP_ASC_DB) {
            fprintf(stderr, "vprof: %s: a %s has no steps (steps reads traces and "
                            "step_trace_time.csv)\n",
                    path, vp_asc_file_name(kind));
            return VP_EXIT_INPUT;
        }
        if (vp_stt_read(path, position, &s->b.stt, &err) != 0) {
            vp_error_print(&err);
            return VP_EXIT_INPUT;
        }
        if (!s->b.stt_source)
            s->b.stt_source = vp_stt_csv_source();
        return VP_EXIT_OK;
    }
    vp_asc_run run;
    if (vp_asc_scan(path, &run, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    int status = VP_EXIT_OK;
    for (size_t i = 0; i < run.n && status == VP_EXIT_OK; i++) {
        vp_asc_rank *r = &run.ranks[i];
        const char *f = vp_asc_need(r, VP_ASC_TRACE, VP_ASC_STEP_TRACE, &err);
        if (f && r->metadata && vp_asc_read_groups(r->metadata, &s->b.stt, &err) != 0) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
        } else if (!f) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
        } else if (f == r->files[VP_ASC_TRACE]) {
            s->rank_override = r->rank;
            status = read_file(s, f);
            s->rank_override = -1;
        } else if (vp_stt_read(f, r->rank, &s->b.stt, &err) != 0) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
        } else if (!s->b.stt_source) {
            s->b.stt_source = vp_stt_csv_source();
        }
    }
    if (status == VP_EXIT_OK && run.n > 1 && !s->b.stt.ngroups)
        status = asc_read_comm_groups(path, &run, &s->b.stt);
    if (status == VP_EXIT_OK && run.n == 0) {
        const char *f = run.cluster.files[VP_ASC_STEP_TRACE];
        if (!f) {
            fprintf(stderr, "vprof: %s: no cluster_step_trace_time.csv\n", path);
            status = VP_EXIT_INPUT;
        } else if (vp_stt_read(f, -1, &s->b.stt, &err) != 0) {
            vp_error_print(&err);
            status = VP_EXIT_INPUT;
        } else {
            s->b.stt_source = vp_stt_cluster_source();
        }
    }
    vp_asc_run_free(&run);
    return status;
}

/* Input i alone, as a partial result (docs/partials.md, "steps"). */
static int steps_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    const stepsc *all = ctx;
    stepsc one = {all->common, all->per_rank, all->idle, i, all->kernel_wait, -1, {0}};
    vp_breakdown_init(&one.b);
    asc_arg a = asc_arg_of(input);
    int status = a.is_dir || a.kind != VP_ASC_TRACE
                     ? read_ascend(&one, input, a.is_dir, a.kind, (long)i)
                     : read_file(&one, input);
    if (status == VP_EXIT_OK)
        vp_breakdown_save(&one.b, out);
    vp_breakdown_free(&one.b);
    return status;
}

int cmd_steps(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TABLE_LONGOPT,
        VP_STEPS_LONGOPT,
        VP_CLASS_LONGOPTS,
        VP_SCALE_LONGOPTS,
        {"per-rank", no_argument, 0, OPT_PER_RANK},
        {"idle", no_argument, 0, OPT_IDLE},
        {"kernel-wait", required_argument, 0, OPT_KERNEL_WAIT},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("steps");
    stepsc s = {.kernel_wait = 30000, .rank_override = -1};
    vp_common_init(&s.common);
    vp_breakdown_init(&s.b);
    int opt, status = VP_EXIT_USAGE, kernel_wait_given = 0;
    optind = 1;
    while ((opt = vp_getopt(&s.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (opt) {
        case OPT_PER_RANK:
            s.per_rank = 1;
            break;
        case OPT_IDLE:
            s.idle = 1;
            s.common.lead = "temporal";
            break;
        case OPT_KERNEL_WAIT: {
            vp_span v = {optarg, strlen(optarg)};
            kernel_wait_given = 1;
            if (vp_json_us_to_ns(v, &s.kernel_wait) != 0 || s.kernel_wait < 0) {
                vp_usage_error("steps",
                               "--kernel-wait: expected microseconds (a number >= 0), found '%s'",
                               optarg);
                goto out;
            }
            break;
        }
        default:
            vp_usage_error("steps", "unexpected option");
            goto out;
        }
    }
    if (opt != VP_OPT_EXIT && s.idle && s.per_rank) {
        status = vp_options_conflict("steps", "--idle", "--per-rank",
                                     "--idle's breakdowns are per rank already");
        goto out;
    }
    if (opt != VP_OPT_EXIT && kernel_wait_given && !s.idle) {
        status = vp_usage_error("steps", "--kernel-wait needs --idle (it sets the idle-time "
                                         "breakdown's kernel wait)");
        goto out;
    }
    vp_parts parts = {.cmd = "steps", .model = &s.b, .analyse = steps_analyse, .ctx = &s};
    if (opt == VP_OPT_EXIT || !vp_parts_operands(&s.common, &parts, argc, argv, &status))
        goto out;
    vp_origins_warn(&s.b.origins, "steps");
    vp_table *tables[3];
    size_t nt = 2;
    if (s.b.nfiles == 0) {
        /* Only step_trace_time.csv files: their table alone. */
        tables[0] = asc_stt_table(&s.b.stt, 1, s.b.stt_source);
        nt = 1;
    } else if (s.idle) {
        tables[0] = vp_steps_temporal_table(&s.b);
        tables[1] = vp_steps_idle_table(&s.b, s.kernel_wait);
    } else {
        int rank_col = s.b.nfiles > 1 && s.per_rank;
        vp_breakdown maxima = s.b;   /* shares b's other arrays, never freed */
        int with_max = s.b.nfiles > 1 && !s.per_rank;
        if (with_max) {
            maxima.rows = vp_malloc((s.b.nrows ? s.b.nrows : 1) * sizeof *maxima.rows);
            if (s.b.nrows)
                memcpy(maxima.rows, s.b.rows, s.b.nrows * sizeof *maxima.rows);
            vp_breakdown_max_over_ranks(&maxima);
        }
        tables[0] = vp_steps_table(&s.b, rank_col, s.common.has_steps, with_max ? &maxima : NULL);
        tables[1] = vp_steps_summary_table(with_max ? &maxima : &s.b);
        if (with_max)
            free(maxima.rows);
        if (s.b.stt_source)
            tables[nt++] = asc_stt_table(&s.b.stt, 1, s.b.stt_source);
    }
    status = vp_emit_tables(&s.common, tables, nt, "vprof.steps/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
out:
    vp_breakdown_free(&s.b);
    return status;
}
