/* vprof report's reading: the same library calls as summary, steps
 * --per-rank, comm, diff and memory, their tables side by side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/ascend_cmd.h"
#include "cmd/report.h"
#include "vprof/comm_view.h"
#include "vprof/ascend_files.h"
#include "vprof/diff_view.h"
#include "vprof/findings.h"
#include "vprof/kernels_view.h"
#include "vprof/memdoc.h"
#include "vprof/memview.h"
#include "vprof/origin.h"
#include "vprof/report_page.h"
#include "vprof/roofline_view.h"
#include "vprof/report_run.h"
#include "vprof/steps_view.h"
#include "vprof/summary_view.h"
#include "cli/inputs.h"
#include "cli/scale.h"

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
    free(in->roofline_svg);
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

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A chart of vprof memory --plot, inlined in the page without its XML
 * declaration; NULL after a write error. */
static char *inline_svg(int (*plot)(FILE *, const void *, const char *), const void *model,
                        const char *title)
{
    char *svg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&svg, &len);
    if (!f)
        return NULL;
    int rc = plot(f, model, title);
    if (fclose(f) != 0 || rc != 0) {
        free(svg);
        return NULL;
    }
    const char *body = strstr(svg, "<svg");
    char *out = vp_strdup(body ? body : svg);
    free(svg);
    return out;
}

static int plot_roofline(FILE *f, const void *r, const char *title)
{
    (void)title;
    return vp_roofline_svg(f, r, "Each operator and shape against the device's roofs");
}

/* vprof roofline's table and its chart, of the operators the run's pass
 * read (vp_run_roofline): the rows with the most kernel time first. */
static void add_roofline(vp_report_input *in, const vp_run *run)
{
    const vp_roofline *rl = vp_run_roofline(run);
    if (!rl || !rl->gpu)
        return;
    vp_table *t = vp_roofline_table(rl, VP_REPORT_MAX_ROWS);
    vp_roofline_notes(t, rl, in->common.has_steps);
    add(in, t, NULL);
    in->roofline_svg = inline_svg(plot_roofline, rl, NULL);
}

static int plot_trace(FILE *f, const void *m, const char *title)
{
    return vp_memview_plot_trace(f, m, title);
}

static int plot_doc(FILE *f, const void *d, const char *title)
{
    return vp_memview_plot_doc(f, d, title);
}

/* The tables of steps --per-rank, comm, kernels --by rank,class and
 * memory, from the models that rode on the run's reading. */
static void add_riders(vp_report_input *in, vp_report_run *rr)
{
    int sel = in->common.has_steps;
    if (rr->b.nfiles)
        add(in, vp_steps_table(&rr->b, rr->b.nfiles > 1, sel, NULL), NULL);
    if (rr->b.stt_source)   /* Ascend profiles: vprof steps DIR's */
        add(in, asc_stt_table(&rr->b.stt, 1, rr->b.stt_source), NULL);
    if (rr->m.nranks) {
        add(in, vp_comm_rank_table(&rr->m, sel), NULL);
        add(in, vp_comm_collective_table(&rr->m, in->common.top), NULL);
        if (rr->m.nranks > 1) {
            add(in, vp_comm_spread_table(&rr->m), NULL);
            add(in, vp_comm_straggler_table(&rr->m), NULL);
        }
    }
    {   /* Ascend profiles: vprof comm DIR's communication.json and matrix tables */
        vp_table *t[3];
        size_t nt = 0;
        asc_hccl_tables(&rr->m.hccl, rr->m.have_comm_json, rr->m.have_matrix, t, &nt);
        for (size_t i = 0; i < nt; i++)
            add(in, t[i], NULL);
    }
    if (rr->classes.nfiles)   /* without kernels, its note says so */
        add(in, vp_kernels_class_table(&rr->classes), NULL);
    if (rr->ops.ngroups) {
        add(in, vp_kernels_dim_table(&rr->ops, 'y', "op_types"), NULL);
        add(in, vp_kernels_dim_table(&rr->ops, 'k', "op_cores"), NULL);
        add(in, vp_kernels_table(&rr->ops, "yk", in->common.top), "op_statistics");
    }
    if (rr->timeline) {
        vp_memview_opts vo = {in->common.top, 0, 1, 0, 0, 0, -1};
        vp_table *t[5];
        size_t nt = vp_memview_trace(rr->timeline, &vo, t);
        for (size_t i = 0; i < nt; i++)
            add(in, t[i], strcmp(vp_table_name(t[i]), "memory") == 0 ? "memory_events" : NULL);
        in->memory_svg = inline_svg(plot_trace, rr->timeline, in->title);
    }
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
    in->memory_svg = inline_svg(plot_doc, d, in->title);
    return in->memory_svg ? VP_EXIT_OK : VP_EXIT_INPUT;
}

static int plot_ascend(FILE *f, const void *r, const char *title)
{
    const vp_report_run *rr = r;
    return vp_memview_plot_ascend(f, rr->ascmem, rr->nascmem, title);
}

/* The first Ascend profile's memory files (memory_record.csv,
 * operator_memory.csv, npu_module_mem.csv), which its reading kept:
 * vprof memory DIR's tables and its --plot chart; nothing when no input
 * has any. */
static void add_ascend_memory(vp_report_input *in, const vp_report_run *rr)
{
    if (!rr->ascmem_path)
        return;
    vp_memview_opts vo = {in->common.top, 0, 1, 0, 0, 0, -1};
    vp_table *t[5];
    size_t nt = vp_memview_ascend(rr->ascmem, rr->nascmem, &vo, t);
    for (size_t k = 0; k < nt; k++)
        add(in, t[k], NULL);
    int rec = 0;
    for (size_t r = 0; r < rr->nascmem; r++)
        rec |= rr->ascmem[r].has_rec;
    if (rec && !in->memory_svg)
        in->memory_svg = inline_svg(plot_ascend, rr, in->title);
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
    /* One reading of each trace, on the worker pool as summary's. */
    vp_run_opts opts;
    vp_run_cli_opts(&in->ro, &in->common, &opts);
    vp_report_run rr;
    vp_report_run_init(&rr, &opts);
    vp_parts parts = {.cmd = "report", .opts = &opts, .model = &rr};
    status = vp_parts_run(&in->common, &parts, in->inputs.paths, in->inputs.n);
    if (status == VP_PARTS_DONE) {
        in->done = 1;    /* an MPI process other than rank 0: nothing to print */
        status = VP_EXIT_OK;
    } else if (status == VP_EXIT_OK) {
        vp_report_run_finish(&rr);
        vp_origins_warn(vp_run_origins(rr.run), "report");
        status = vp_run_cli_mfu(&in->ro, rr.run);
    }
    if (status == VP_EXIT_OK && !in->done) {
        vp_threshold *th = vp_thresholds_new();
        vp_table *t[VP_SUMMARY_TABLES];
        size_t nt = vp_summary_tables(rr.run, th, in->common.top ? in->common.top : VP_REPORT_MAX_ROWS,
                                      1, 1, t);
        for (size_t i = 0; i < nt; i++)
            add(in, t[i], NULL);
        free(th);
        add_roofline(in, rr.run);
        add_riders(in, &rr);
        add_ascend_memory(in, &rr);
        if (in->baseline)
            status = read_baseline(in, rr.run);
    }
    vp_report_run_free(&rr);
    return status;
}

int vp_report_write(FILE *out, const vp_report_input *in)
{
    return vp_report_page(out, in->title, NULL, in->tables, in->ntables, in->memory_svg,
                          in->roofline_svg);
}
