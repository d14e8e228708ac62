/* The launches tables. */
#include <stdio.h>

#include "vprof/classify.h"
#include "vprof/launches_view.h"

static int several_ranks(const vp_launches *l)
{
    return l->nfiles > 1;
}

vp_table *vp_launches_summary_table(const vp_launches *l)
{
    vp_table *t = vp_table_new("launch_summary");
    int ranks = several_ranks(l);
    if (ranks)
        vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Launches", VP_COL_INT, 0);
    vp_table_add_col(t, "Long Calls", VP_COL_INT, 0);
    vp_table_add_col(t, "Long Delays", VP_COL_INT, 0);
    vp_table_add_col(t, "Short GPU Work", VP_COL_INT, 0);
    vp_table_add_col(t, "CPU Duration", VP_COL_NS, 0);
    vp_table_add_col(t, "GPU Duration", VP_COL_NS, 0);
    vp_table_add_col(t, "Launch Delay", VP_COL_NS, 0);
    vp_table_add_col(t, "Max Launch Delay", VP_COL_NS, 0);
    vp_table_add_col(t, "Unlaunched", VP_COL_INT, 0);
    vp_table_add_col(t, "Launch-Bound", VP_COL_INT, 0);
    for (size_t i = 0; i < l->nfiles; i++) {
        const vp_lfile *f = &l->files[i];
        size_t row = vp_table_add_row(t);
        int c = 0;
        if (ranks)
            vp_table_set_int(t, row, c++, f->rank);
        const int64_t v[] = {f->launches, f->runtime_over, f->delay_over, f->short_gpu,
                             f->cpu_total, f->gpu_total, f->delay_total, f->delay_max,
                             f->unlaunched, f->launch_bound};
        for (size_t j = 0; j < sizeof v / sizeof *v; j++)
            vp_table_set_int(t, row, c++, v[j]);
    }
    vp_table_add_note(t,
                      "Long Calls: launching calls longer than %.17g us; Long Delays: launch "
                      "delays longer than %.17g us; Short GPU Work: GPU work shorter than its "
                      "call, among calls within %.17g us (HTA's plots); Unlaunched: GPU work "
                      "with no launching call in the trace; Launch-Bound: GPU work shorter than "
                      "its call, with a launch delay under the call's duration (the GPU waited "
                      "for it)",
                      (double)l->o.runtime_cutoff / 1e3, (double)l->o.delay_cutoff / 1e3,
                      (double)l->o.runtime_cutoff / 1e3);
    return t;
}

static const char *const STAT_NAMES[] = {"Avg", "Med", "Min", "Max", "StdDev"};

static void add_stat_cols(vp_table *t, char prefix)
{
    char title[32];
    for (int i = 0; i < 5; i++) {
        snprintf(title, sizeof title, "%c%s", prefix, STAT_NAMES[i]);
        vp_table_add_col(t, title, i == 2 || i == 3 ? VP_COL_NS : VP_COL_NS_F, 1);
    }
}

static int put_stats(vp_table *t, size_t row, int col, const vp_summary *s)
{
    if (s->n) {
        vp_table_set_double(t, row, col, s->mean);
        vp_table_set_double(t, row, col + 1, s->median);
        vp_table_set_int(t, row, col + 2, s->min);
        vp_table_set_int(t, row, col + 3, s->max);
        vp_table_set_double(t, row, col + 4, s->stddev);
    }
    return col + 5;
}

vp_table *vp_launches_exec_table(const vp_launches *l, long top)
{
    vp_table *t = vp_table_new("kernel_launches");
    vp_table_add_col(t, "Count", VP_COL_INT, 0);
    vp_table_add_col(t, "QCount", VP_COL_INT, 0);
    add_stat_cols(t, 'T');
    add_stat_cols(t, 'A');
    add_stat_cols(t, 'Q');
    add_stat_cols(t, 'K');
    vp_table_add_col(t, "API Name", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Kernel Name", VP_COL_TEXT, 0);
    size_t shown = top > 0 && (size_t)top < l->ngroups ? (size_t)top : l->ngroups;
    for (size_t i = 0; i < shown; i++) {
        const vp_lgroup *g = &l->groups[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 0, (int64_t)g->n);
        vp_table_set_int(t, row, 1, (int64_t)g->nq);
        int c = put_stats(t, row, 2, &g->t);
        c = put_stats(t, row, c, &g->a);
        c = put_stats(t, row, c, &g->q);
        c = put_stats(t, row, c, &g->k);
        vp_table_set_text(t, row, c, l->names[g->api]);
        vp_table_set_text(t, row, c + 1, l->names[g->name]);
    }
    if (shown < l->ngroups)
        vp_table_add_note(t, "%zu more kernel names not shown (--top)", l->ngroups - shown);
    vp_table_add_note(t, "T: call start to the later of the call's and the kernel's end; A: the "
                         "launching call; Q: the call's end to the kernel's start, where "
                         "positive (QCount of them); K: the kernel (nsys cuda_kern_exec_sum)");
    return t;
}

static const char *kind_name(uint32_t kind)
{
    switch (kind) {
    case VP_GPU_MEMCPY: return "memcpy";
    case VP_GPU_MEMSET: return "memset";
    default: return "kernel";
    }
}

vp_table *vp_launches_rows_table(const vp_launches *l)
{
    vp_table *t = vp_table_new("launches");
    int ranks = several_ranks(l);
    if (ranks)
        vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Correlation", VP_COL_INT, 0);
    vp_table_add_col(t, "CPU Duration", VP_COL_NS, 0);
    vp_table_add_col(t, "GPU Duration", VP_COL_NS, 0);
    vp_table_add_col(t, "Launch Delay", VP_COL_NS, 0);
    vp_table_add_col(t, "Kind", VP_COL_TEXT, 0);
    vp_table_add_col(t, "API Name", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    for (size_t i = 0; i < l->nrows; i++) {
        const vp_launch *x = &l->rows[i];
        size_t row = vp_table_add_row(t);
        int c = 0;
        if (ranks)
            vp_table_set_int(t, row, c++, l->files[x->file].rank);
        vp_table_set_int(t, row, c++, x->corr);
        vp_table_set_int(t, row, c++, x->cpu_dur);
        vp_table_set_int(t, row, c++, x->gpu_dur);
        vp_table_set_int(t, row, c++, x->delay);
        vp_table_set_text(t, row, c++, kind_name(x->kind));
        vp_table_set_text(t, row, c++, l->names[x->api]);
        vp_table_set_text(t, row, c, l->names[x->name]);
    }
    if ((int64_t)l->nrows < l->all_rows)
        vp_table_add_note(t, "%lld of %lld launches shown (--top)", (long long)l->nrows,
                          (long long)l->all_rows);
    return t;
}
