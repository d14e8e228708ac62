/* The roofline table (docs/roofline.md). */
#include <stdio.h>

#include "vprof/roofline_view.h"

enum { C_NAME, C_CAT, C_DIMS, C_TYPES };

vp_table *vp_roofline_table(const vp_roofline *r, long top)
{
    vp_table *t = vp_table_new("roofline");
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Category", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Input Dims", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Input Type", VP_COL_TEXT, 0);
    int rank_col = r->o.by_rank ? vp_table_add_col(t, "Rank", VP_COL_INT, 0) : -1;
    int c = vp_table_add_col(t, "Calls", VP_COL_INT, 0);
    vp_table_add_col(t, "Kernel Time", VP_COL_NS, 0);
    vp_table_add_col(t, "GFLOP", VP_COL_RATIO, VP_DECIMALS_EXACT);
    vp_table_add_col(t, "Bytes", VP_COL_BYTES, 0);
    vp_table_add_col(t, "FLOP/Byte", VP_COL_RATIO, 3);
    /* six decimals: an elementwise op runs at a few GFLOP/s */
    vp_table_add_col(t, "TFLOP/s", VP_COL_RATIO, 6);
    vp_table_add_col(t, "TB/s", VP_COL_RATIO, 6);
    vp_table_add_col(t, "Peak TFLOP/s", VP_COL_RATIO, 2);
    vp_table_add_col(t, "Peak TB/s", VP_COL_RATIO, 3);
    vp_table_add_col(t, "Roofline", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "Bound", VP_COL_TEXT, 0);
    size_t n = r->nrows, shown = top > 0 && (size_t)top < n ? (size_t)top : n;
    for (size_t i = 0; i < shown; i++) {
        const vp_rl_row *x = &r->rows[i];
        vp_rl_figures f;
        vp_rl_row_figures(x, &f);
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, C_NAME, x->name);
        vp_table_set_text(t, row, C_CAT, vp_rl_family_name(x->cost.family));
        vp_table_set_text(t, row, C_DIMS, x->dims);
        vp_table_set_text(t, row, C_TYPES, x->types);
        if (rank_col >= 0)
            vp_table_set_int(t, row, rank_col, x->rank);
        vp_table_set_int(t, row, c, x->calls);
        vp_table_set_int(t, row, c + 1, x->kernel_ns);
        if (x->cost.family == VP_RL_NONE) {
            vp_table_set_text(t, row, c + 10, x->why ? x->why : "no model");
            continue;
        }
        vp_table_set_double(t, row, c + 2, x->cost.flops / 1e9);
        if (x->cost.bytes >= 0)
            vp_table_set_int(t, row, c + 3, (int64_t)x->cost.bytes);
        if (f.intensity >= 0)
            vp_table_set_double(t, row, c + 4, f.intensity);
        if (f.tflops >= 0)
            vp_table_set_double(t, row, c + 5, f.tflops);
        if (f.tbs >= 0)
            vp_table_set_double(t, row, c + 6, f.tbs);
        if (x->peak_tflops > 0)
            vp_table_set_double(t, row, c + 7, x->peak_tflops);
        if (x->peak_tbs > 0)
            vp_table_set_double(t, row, c + 8, x->peak_tbs);
        if (f.pct >= 0)
            vp_table_set_double(t, row, c + 9, f.pct);
        if (f.compute_bound >= 0)
            vp_table_set_text(t, row, c + 10, f.compute_bound ? "compute" : "memory");
    }
    if (shown < n) {
        int64_t calls = 0, ns = 0;
        for (size_t i = shown; i < n; i++)
            calls += r->rows[i].calls, ns += r->rows[i].kernel_ns;
        size_t row = vp_table_add_row(t);
        char label[64];
        snprintf(label, sizeof label, "(others: %zu rows)", n - shown);
        vp_table_set_text(t, row, C_NAME, label);
        vp_table_set_int(t, row, c, calls);
        vp_table_set_int(t, row, c + 1, ns);
    }
    return t;
}
