/* The tables of vprof steps (vprof/steps_view.h). */
#include "vprof/steps_view.h"
#include "vprof/util.h"

static const char *const v_title[VP_BD_COUNT] = {
    "CPU Time", "GPU Span", "GPU Busy", "Compute", "Comm Exposed", "Memory", "GPU Idle",
    "Data Loading", "Forward", "Backward", "Optimizer", "Kernels", "Short Kernels",
};

/* One row of the steps table: type "rank" or "max" when c0 is 3. */
static void put_row(vp_table *t, const vp_step_row *r, int rank_col, int c0, const char *type)
{
    size_t row = vp_table_add_row(t);
    if (type)
        vp_table_set_text(t, row, 0, type);
    if (rank_col && (!type || type[0] == 'r'))
        vp_table_set_int(t, row, c0 - 2, r->rank);
    if (r->step >= 0)
        vp_table_set_int(t, row, c0 - 1, r->step);
    for (int c = 0; c < VP_BD_COUNT; c++)
        if (r->has_cpu || !vp_breakdown_is_cpu(c))
            vp_table_set_int(t, row, c0 + c, r->v[c]);
}

vp_table *vp_steps_table(const vp_breakdown *b, int rank_col, int selected_steps,
                         const vp_breakdown *maxima)
{
    vp_table *t = vp_table_new("steps");
    if (maxima) {
        vp_table_add_col(t, "Type", VP_COL_TEXT, 0);
        rank_col = 1;
    }
    if (rank_col)
        vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    int c0 = vp_table_add_col(t, "Step", VP_COL_INT, 0) + 1;
    for (int c = 0; c < VP_BD_COUNT; c++)
        vp_table_add_col(t, v_title[c], c >= VP_BD_KERNELS ? VP_COL_INT : VP_COL_NS, 0);
    if (!maxima) {
        for (size_t i = 0; i < b->nrows; i++)
            put_row(t, &b->rows[i], rank_col, c0, NULL);
    } else {
        /* Each step's ranks in b's order, then their maxima (maxima's
         * rows are sorted by step). */
        for (size_t m = 0; m < maxima->nrows; m++) {
            for (size_t i = 0; i < b->nrows; i++)
                if (b->rows[i].step == maxima->rows[m].step)
                    put_row(t, &b->rows[i], 1, c0, "rank");
            put_row(t, &maxima->rows[m], 1, c0, "max");
        }
        vp_table_add_note(t, "%zu ranks: a max row holds each column's largest value over the "
                             "ranks, column by column, so its columns need not add up; the "
                             "summary is over the max rows (--per-rank: the rank rows alone)",
                          b->nfiles);
    }
    if (b->no_steps_files)
        vp_table_add_note(t, "%s no ProfilerStep#N annotations: one row for the whole trace, "
                             "without the CPU columns, which need step windows",
                          b->nfiles > 1 ? "some traces have" : "the trace has");
    if (b->outside && !selected_steps)
        vp_table_add_note(t, "%llu GPU event%s launched outside every step (or by no recorded "
                             "launch call): in no row",
                          (unsigned long long)b->outside, b->outside == 1 ? " was" : "s were");
    if (b->comm_unseen)
        vp_table_add_note(t, "%llu trace%s of a run of several ranks (distributedInfo world_size) "
                             "%s no kernel that is communication by the rules of "
                             "docs/classification.md: %s Comm Exposed is unknown, not 0%s",
                          (unsigned long long)b->comm_unseen, b->comm_unseen == 1 ? "" : "s",
                          b->comm_unseen == 1 ? "has" : "have",
                          b->comm_unseen == 1 ? "its" : "their", vp_diag_hint(VP_HINT_COMM_KERNELS));
    if (b->empty_steps)
        vp_table_add_note(t, "%llu step%s launched no GPU work: %s GPU columns are 0",
                          (unsigned long long)b->empty_steps, b->empty_steps == 1 ? "" : "s",
                          b->empty_steps == 1 ? "its" : "their");
    return t;
}

vp_table *vp_steps_summary_table(const vp_breakdown *b)
{
    vp_table *t = vp_table_new("summary");
    vp_table_add_col(t, "Statistic", VP_COL_TEXT, 0);
    for (int c = 0; c < VP_BD_COUNT; c++)
        vp_table_add_col(t, v_title[c], c >= VP_BD_KERNELS ? VP_COL_RATIO : VP_COL_NS_F, 1);
    static const char *const stats[] = {"mean", "median", "min", "max"};
    vp_summary sum[VP_BD_COUNT];
    int have[VP_BD_COUNT];
    for (int c = 0; c < VP_BD_COUNT; c++)
        have[c] = vp_breakdown_summary(b, c, &sum[c]);
    for (int k = 0; k < 4; k++) {
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, stats[k]);
        for (int c = 0; c < VP_BD_COUNT; c++) {
            if (!have[c])
                continue;
            double x = k == 0 ? sum[c].mean : k == 1 ? sum[c].median
                                          : k == 2 ? (double)sum[c].min
                                                   : (double)sum[c].max;
            vp_table_set_double(t, row, c + 1, x);
        }
    }
    return t;
}

/* 100 x part / whole of each part, in the row's columns from c. */
static void set_shares(vp_table *t, size_t row, int c, const int64_t *part, int n, int64_t whole)
{
    for (int i = 0; i < n; i++)
        vp_table_set_double(t, row, c + i, 100.0 * (double)part[i] / (double)whole);
}

vp_table *vp_steps_temporal_table(const vp_breakdown *b)
{
    static const vp_col_spec cols[] = {
        {"Rank", VP_COL_INT, 0}, {"Idle", VP_COL_NS, 0}, {"Compute", VP_COL_NS, 0},
        {"Non-Compute", VP_COL_NS, 0}, {"Span", VP_COL_NS, 0}, {"Idle", VP_COL_PERCENT, 2},
        {"Compute", VP_COL_PERCENT, 2}, {"Non-Compute", VP_COL_PERCENT, 2},
    };
    vp_table *t = vp_table_new_cols("temporal", cols, sizeof cols / sizeof *cols);
    for (size_t i = 0; i < b->ntrows; i++) {
        const vp_temporal_row *r = &b->trows[i];
        const int64_t parts[] = {r->t.idle, r->t.compute, r->t.non_compute};
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 0, r->rank);
        for (int k = 0; k < 3; k++)
            vp_table_set_int(t, row, 1 + k, parts[k]);
        vp_table_set_int(t, row, 4, r->t.span);
        if (r->t.span > 0)
            set_shares(t, row, 5, parts, 3, r->t.span);
        else
            vp_table_add_note(t, "rank %ld: %s, so the percentages are empty (HTA raises an "
                                 "error)",
                              r->rank, r->t.events ? "the GPU work spans no time" : "no GPU work");
    }
    vp_table_add_note(t, "Span = first start to last end of all GPU work; Idle = Span - |union|; "
                         "Compute = |compute kernels|; Non-Compute = the rest (HTA's "
                         "get_temporal_breakdown)");
    return t;
}

vp_table *vp_steps_idle_table(vp_breakdown *b, int64_t kernel_wait)
{
    static const vp_col_spec cols[] = {
        {"Rank", VP_COL_INT, 0}, {"Stream", VP_COL_INT, 0}, {"Idle", VP_COL_NS, 0},
        {"Host Wait", VP_COL_NS, 0}, {"Kernel Wait", VP_COL_NS, 0}, {"Other", VP_COL_NS, 0},
        {"Host Wait", VP_COL_PERCENT, 2}, {"Kernel Wait", VP_COL_PERCENT, 2},
        {"Other", VP_COL_PERCENT, 2},
    };
    vp_table *t = vp_table_new_cols("idle", cols, sizeof cols / sizeof *cols);
    vp_breakdown_sort_idle(b);
    for (size_t i = 0; i < b->nirows; i++) {
        const vp_idle_row *r = &b->irows[i];
        const int64_t parts[] = {r->host, r->kernel, r->other};
        int64_t idle = r->host + r->kernel + r->other;
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 0, r->rank);
        vp_table_set_int(t, row, 1, r->stream);
        vp_table_set_int(t, row, 2, idle);
        for (int k = 0; k < 3; k++)
            vp_table_set_int(t, row, 3 + k, parts[k]);
        if (idle > 0)
            set_shares(t, row, 6, parts, 3, idle);
    }
    char thr[32];
    vp_human_ns(thr, sizeof thr, (double)kernel_wait);
    vp_table_add_note(t, "gaps between consecutive kernels, memcpys and memsets of a stream: host "
                         "wait when the next one was launched after the stream went idle, else "
                         "kernel wait when shorter than %s (--kernel-wait), else other",
                      thr);
    if (b->nirows == 0)
        vp_table_add_note(t, "no kernels, memcpys or memsets in the input");
    return t;
}
