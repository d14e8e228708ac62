/* vprof report's reading: the same library calls as summary, steps
 * --per-rank, comm, diff and memory, their tables side by side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/report.h"
#include "vprof/breakdown.h"
#include "vprof/comm.h"
#include "vprof/comm_view.h"
#include "vprof/diff_view.h"
#include "vprof/findings.h"
#include "vprof/gpupass.h"
#include "vprof/memdoc.h"
#include "vprof/memview.h"
#include "vprof/report_page.h"
#include "vprof/steps_view.h"
#include "vprof/summary_view.h"
#include "cmd/inputs.h"

void vp_report_input_init(vp_report_input *in)
{
    memset(in, 0, sizeof *in);
}

void vp_report_input_free(vp_report_input *in)
{
    for (size_t i = 0; i < in->ntables; i++)
        vp_table_free(in->tables[i]);
    vp_inputs_free(&in->inputs);
    free(in->memory_svg);
}

static void add(vp_report_input *in, vp_table *t, const char *name)
{
    if (!t)
        return;
    if (name)
        vp_table_set_name(t, name);
    if (in->ntables < VP_REPORT_TABLES)
        in->tables[in->ntables++] = t;
    else
        vp_table_free(t);
}

/* The steps and comm models of one pass over each trace: the observers of
 * vprof steps and vprof comm on the same events. */
typedef struct sc_models {
    vp_breakdown b;
    vp_comm m;
} sc_models;

static void observe_both(void *ctx, vp_gpuwork *w, long gpu_index, const vp_event *ev)
{
    sc_models *s = ctx;
    vp_breakdown_observe(&s->b, w, gpu_index, ev);
    vp_comm_observe(&s->m, w, gpu_index, ev);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int read_steps_comm(vp_report_input *in)
{
    sc_models s;
    vp_breakdown_init(&s.b);
    vp_comm_init(&s.m);
    int status = VP_EXIT_OK, sel = in->common.has_steps;
    for (size_t i = 0; i < in->inputs.n && status == VP_EXIT_OK; i++) {
        const char *path = in->inputs.paths[i];
        if (is_dir(path))   /* an Ascend profile: its summary alone */
            continue;
        vp_error err = {0};
        vp_gpu_pass p;
        vp_trace_pass_opts o = {.partial = in->common.partial,
                                .range = sel ? &in->common.steps : NULL,
                                .position = (long)i, .rank = -1, .no_progress = 1};
        if (vp_gpu_pass_read(&p, path, &o, observe_both, &s, &err) != 0) {
            vp_error_print(&err);
            status = err.status ? err.status : VP_EXIT_INPUT;
        } else {
            vp_breakdown_add_steps(&s.b, &p.w, p.pass.rank, sel);
            vp_comm_rank *rr = vp_comm_new_rank(&s.m);
            rr->path = vp_strdup(path);
            rr->rank = p.pass.rank;
            vp_comm_add_rank(&s.m, &p.w, rr, sel);
        }
        vp_gpu_pass_close(&p);
    }
    if (status == VP_EXIT_OK && s.b.nfiles) {
        add(in, vp_steps_table(&s.b, s.b.nfiles > 1, sel, NULL), NULL);
        add(in, vp_comm_rank_table(&s.m, sel), NULL);
        add(in, vp_comm_collective_table(&s.m, in->common.top), NULL);
        if (s.m.nranks > 1) {
            add(in, vp_comm_spread_table(&s.m), NULL);
            add(in, vp_comm_straggler_table(&s.m), NULL);
        }
    }
    vp_breakdown_free(&s.b);
    vp_comm_free(&s.m);
    return status;
}

static int read_baseline(vp_report_input *in, const vp_run *now)
{
    vp_inputs bp = {0};
    int status = vp_inputs_resolve("report", (char *const *)&in->baseline, 1, &bp);
    if (status)
        return status;
    vp_run *base = vp_run_cli_read(&in->ro, &in->common, bp.paths, bp.n, &status);
    vp_inputs_free(&bp);
    if (!base)
        return status ? status : VP_EXIT_INPUT;
    vp_buf differs = {0};
    add(in, vp_diff_runs_table(base, now, &differs), "baseline_runs");
    vp_buf_free(&differs);
    int raw = in->common.format == VP_FMT_CSV || in->common.format == VP_FMT_TSV ||
              in->common.format == VP_FMT_JSON;
    vp_table *t = vp_diff_metric_table(0, raw);
    vp_diff_metric_rows(t, base, now, -1, raw);
    add(in, t, "baseline_metrics");
    vp_diff_kernel_opts ko = {0, in->common.top, 0};
    t = vp_diff_kernel_table(0);
    vp_diff_kernel_rows(t, base, now, -1, &ko, NULL);
    add(in, t, "baseline_kernels");
    vp_run_free(base);
    return VP_EXIT_OK;
}

/* A memory snapshot: vprof memory's tables and its --plot chart, which
 * the page inlines without its XML declaration. */
static int read_snapshot(vp_report_input *in, vp_memdoc *d)
{
    vp_memdoc_read_opts ro = {in->common.partial, 1, 1, -1};
    vp_error err = {0};
    if (vp_memdoc_read(d, &ro, &err) != 0) {
        vp_error_print(&err);
        return err.status ? err.status : VP_EXIT_INPUT;
    }
    vp_memview_opts vo = {in->common.top, 0, 1, 0, 0, 0, -1};
    vp_table *t[5];
    size_t nt = vp_memview_doc(d, &vo, t);
    for (size_t i = 0; i < nt; i++)
        add(in, t[i], NULL);
    char *svg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&svg, &len);
    if (!f)
        return VP_EXIT_INPUT;
    int rc = vp_memview_plot_doc(f, d, in->title);
    fclose(f);
    if (rc != 0) {
        free(svg);
        return VP_EXIT_INPUT;
    }
    const char *body = strstr(svg, "<svg");
    in->memory_svg = vp_strdup(body ? body : svg);
    free(svg);
    return VP_EXIT_OK;
}

/* 1: the one operand is a snapshot (read, or failed: *status says). */
static int snapshot_operand(vp_report_input *in, int *status)
{
    const char *path = in->inputs.paths[0];
    if (in->inputs.n != 1 || strcmp(path, "-") == 0 || is_dir(path) || vp_memdoc_is_ascend(path))
        return 0;
    vp_memdoc d;
    vp_error err = {0};
    int snap = 0;
    if (vp_memdoc_open(path, &d, &err) == 0 && d.kind == VP_MEMDOC_SNAPSHOT) {
        snap = 1;
        *status = read_snapshot(in, &d);
    }
    vp_memdoc_free(&d);
    return snap;
}

int vp_report_read(vp_report_input *in)
{
    const char *first = in->inputs.paths[0], *slash = strrchr(first, '/');
    snprintf(in->title, sizeof in->title, "vprof report: %s%s", slash && slash[1] ? slash + 1 : first,
             in->inputs.n > 1 ? " and the other ranks" : "");
    int status = VP_EXIT_OK;
    if (snapshot_operand(in, &status))
        return status;
    for (size_t i = 0; i < in->inputs.n; i++)
        if (strcmp(in->inputs.paths[i], "-") == 0)
            return vp_usage_error("report", "standard input cannot be read: the report reads "
                                            "each trace twice (summary's pass, then steps and comm)");
    vp_run *run = vp_run_cli_read(&in->ro, &in->common, in->inputs.paths, in->inputs.n, &status);
    if (!run)
        return status ? status : VP_EXIT_INPUT;
    vp_threshold *th = vp_thresholds_new();
    vp_table *t[VP_SUMMARY_TABLES];
    size_t nt = vp_summary_tables(run, th, in->common.top ? in->common.top : VP_REPORT_MAX_ROWS, 1,
                                  1, t);
    for (size_t i = 0; i < nt; i++)
        add(in, t[i], NULL);
    free(th);
    status = read_steps_comm(in);
    if (status == VP_EXIT_OK && in->baseline)
        status = read_baseline(in, run);
    vp_run_free(run);
    return status;
}

int vp_report_write(FILE *out, const vp_report_input *in)
{
    return vp_report_page(out, in->title, NULL, in->tables, in->ntables, in->memory_svg);
}
