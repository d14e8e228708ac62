/* The tables of vprof summary. */
#include <stdio.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/summary_view.h"

static double metric(const vp_run *r, const char *name, int *present)
{
    const vp_metric *m = vp_run_find(r, name);
    if (present)
        *present = m != NULL;
    return m ? m->value : 0;
}

static vp_table *overview(const vp_run *r)
{
    vp_table *t = vp_table_new("run");
    vp_table_add_col(t, "Accelerator", VP_COL_TEXT, 0);
    vp_table_add_col(t, "GPUs", VP_COL_INT, 0);
    vp_table_add_col(t, "Ranks", VP_COL_INT, 0);
    vp_table_add_col(t, "Steps", VP_COL_INT, 0);
    vp_table_add_col(t, "Step Median", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Step Min", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Step Max", VP_COL_NS_F, 1);
    size_t row = vp_table_add_row(t);
    vp_table_set_text(t, row, 0, vp_run_device(r)[0] ? vp_run_device(r)
                                 : vp_run_is_ascend(r) ? "Ascend NPU"
                                                       : "-");
    if (vp_run_find(r, "gpus")) {  /* none for Ascend: its ranks are its devices */
        vp_table_set_int(t, row, 1, vp_run_device_count(r));
        int listed = vp_run_listed_devices(r);
        if (listed && listed != vp_run_device_count(r))
            vp_table_add_note(t, "GPUs: the devices that ran GPU work; the first trace's "
                                 "deviceProperties lists %d", listed);
    }
    vp_table_set_int(t, row, 2, (int64_t)metric(r, "ranks", NULL));
    vp_table_set_int(t, row, 3, (int64_t)metric(r, "steps", NULL));
    int has;
    double v = metric(r, "step.median", &has);
    if (has) {
        vp_table_set_double(t, row, 4, v);
        vp_table_set_double(t, row, 5, metric(r, "step.min", NULL));
        vp_table_set_double(t, row, 6, metric(r, "step.max", NULL));
    } else {
        char why[400];
        if (vp_run_why_absent(r, "step.median", why, sizeof why))
            vp_table_add_note(t, "no step time: %s", why);
        else
            vp_table_add_note(t, "no ProfilerStep#N annotations: no step time");
    }
    return t;
}

static vp_table *gpu_time(const vp_run *r)
{
    static const char *const names[] = {"gpu.busy_pct", "gpu.compute_pct", "comm.exposed_pct",
                                        "memcpy.pct", "gpu.idle_pct", "comm.overlap_pct"};
    static const char *const titles[] = {"Busy", "Compute", "Comm Exposed", "Memory Copies",
                                         "Idle", "Comm Overlap"};
    vp_table *t = vp_table_new("gpu_time");
    vp_table_add_col(t, "GPU Span", VP_COL_NS, 0);
    for (int i = 0; i < 6; i++)
        vp_table_add_col(t, titles[i], VP_COL_PERCENT, 2);
    size_t row = vp_table_add_row(t);
    vp_table_set_int(t, row, 0, (int64_t)metric(r, "gpu.span", NULL));
    for (int i = 0; i < 6; i++) {
        int has;
        double v = metric(r, names[i], &has);
        if (has)
            vp_table_set_double(t, row, i + 1, v);
    }
    vp_table_add_note(t, "shares of the GPU span (all ranks); Comm Exposed: of the GPU's busy time; "
                         "Comm Overlap: of the communication time (HTA's overlap %%)");
    return t;
}

static vp_table *top_kernels(const vp_run *r, long top)
{
    vp_table *t = vp_table_new("top_kernels");
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 1);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "Class", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    double total = metric(r, "kernels.total", NULL);
    for (size_t i = 0; i < vp_run_nkernels(r) && (long)i < top; i++) {
        const vp_kernel_total *k = vp_run_kernel(r, i);
        if (!k->count)
            break;
        size_t row = vp_table_add_row(t);
        vp_table_set_double(t, row, 0, total > 0 ? 100.0 * (double)k->total / total : 0);
        vp_table_set_int(t, row, 1, k->total);
        vp_table_set_int(t, row, 2, k->count);
        vp_table_set_text(t, row, 3, vp_kclass_name((vp_kclass)k->cls));
        vp_table_set_text(t, row, 4, k->name);
    }
    if (!vp_table_rows(t))
        vp_table_add_note(t, "no GPU kernels in the counted steps");
    return t;
}

static vp_table *memory(const vp_run *r)
{
    int has;
    double a = metric(r, "memory.peak_allocated", &has);
    if (!has)
        return NULL;
    vp_table *t = vp_table_new("memory");
    vp_table_add_col(t, "Peak Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Peak Reserved", VP_COL_BYTES, 0);
    size_t row = vp_table_add_row(t);
    vp_table_set_int(t, row, 0, (int64_t)a);
    double reserved = metric(r, "memory.peak_reserved", &has);
    if (has)
        vp_table_set_int(t, row, 1, (int64_t)reserved);
    vp_table_add_note(t, "the highest of any GPU, from the traces' [memory] events");
    if (!has)
        vp_table_add_note(t, "Peak Allocated replayed from the Bytes of [memory] events without "
                             "the allocator's totals (torch 1.8-1.10), from 0 where the trace "
                             "begins; Peak Reserved unknown (docs/memory.md)");
    return t;
}

static vp_table *mfu_table(const vp_run *r)
{
    int has;
    double m = metric(r, "mfu", &has);
    if (!has)
        return NULL;
    vp_table *t = vp_table_new("mfu");
    vp_table_add_col(t, "MFU", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "MFU Causal", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "TFLOP/s per GPU", VP_COL_RATIO, 3);
    size_t row = vp_table_add_row(t);
    vp_table_set_double(t, row, 0, 100 * m);
    vp_table_set_double(t, row, 1, 100 * metric(r, "mfu.causal", NULL));
    vp_table_set_double(t, row, 2, metric(r, "tflops", NULL));
    vp_table_add_note(t, "full-square attention (PaLM, nanoGPT) and causal (Megatron-LM); vprof mfu "
                         "has the details");
    return t;
}

static vp_table *findings_table(const vp_run *r, const vp_threshold *th)
{
    vp_finding f[16];
    size_t n = vp_findings(r, th, f, 16);
    vp_table *t = vp_table_new("findings");
    vp_table_add_col(t, "Rule", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Finding", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Evidence", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Suggestion", VP_COL_TEXT, 0);
    for (size_t i = 0; i < n; i++) {
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, f[i].rule);
        vp_table_set_text(t, row, 1, f[i].what);
        vp_table_set_text(t, row, 2, f[i].evidence);
        vp_table_set_text(t, row, 3, f[i].suggestion);
    }
    if (!n)
        vp_table_add_note(t, "no finding: every rule's threshold holds (--list-thresholds)");
    return t;
}

/* Prints text wrapped at width, every line after the first indented. */
/* Every metric by name: what gates and baselines use. */
static vp_table *metrics_table(const vp_run *r)
{
    vp_table *t = vp_table_new("metrics");
    vp_table_add_col(t, "Metric", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Value", VP_COL_RATIO, 6);
    vp_table_add_col(t, "Unit", VP_COL_TEXT, 0);
    for (size_t i = 0; i < vp_run_nmetrics(r); i++) {
        const vp_metric *m = vp_run_metric(r, i);
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, m->name);
        vp_table_set_double(t, row, 1, m->value);
        vp_table_set_text(t, row, 2, vp_metric_unit_name(m->unit));
    }
    return t;
}

size_t vp_summary_tables(const vp_run *r, const vp_threshold *th, long top, int findings,
                         int metrics, vp_table **tables)
{
    size_t nt = 0;
    tables[nt++] = overview(r);
    tables[nt++] = gpu_time(r);
    tables[nt++] = top_kernels(r, top);
    if ((tables[nt] = memory(r)))
        nt++;
    if ((tables[nt] = mfu_table(r)))
        nt++;
    if (findings)
        tables[nt++] = findings_table(r, th);
    if (metrics)
        tables[nt++] = metrics_table(r);
    return nt;
}
