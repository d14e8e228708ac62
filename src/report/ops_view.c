/* The ops table. */
#include <stdio.h>

#include "vprof/ops_view.h"

/* The numbers of a row from column first on. */
static void put_sums(vp_table *t, size_t row, int first, const vp_op_row *r, int gpu)
{
    vp_table_set_int(t, row, first, r->calls);
    vp_table_set_int(t, row, first + 1, r->cpu_total);
    vp_table_set_int(t, row, first + 2, r->self_cpu);
    vp_table_set_double(t, row, first + 3,
                        r->calls ? (double)r->cpu_total / (double)r->calls : 0.0);
    if (gpu) {
        vp_table_set_int(t, row, first + 4, r->self_gpu);
        vp_table_set_int(t, row, first + 5, r->gpu_total);
    }
}

vp_table *vp_ops_table(const vp_ops *m, long top)
{
    vp_table *t = vp_table_new("ops");
    int shape = (m->o.dims & VP_ODIM_SHAPE) != 0, rank = (m->o.dims & VP_ODIM_RANK) != 0;
    vp_table_add_col(t, m->o.dims & VP_ODIM_MODULE ? "Module" : "Name", VP_COL_TEXT, 0);
    int shape_col = shape ? vp_table_add_col(t, "Input Dims", VP_COL_TEXT, 0) : -1;
    int rank_col = rank ? vp_table_add_col(t, "Rank", VP_COL_INT, 0) : -1;
    int first = vp_table_add_col(t, "Calls", VP_COL_INT, 0);
    vp_table_add_col(t, "CPU Total", VP_COL_NS, 0);
    vp_table_add_col(t, "Self CPU", VP_COL_NS, 0);
    vp_table_add_col(t, "CPU Avg", VP_COL_NS_F, 1);
    if (m->gpu) {
        vp_table_add_col(t, "Self GPU", VP_COL_NS, 0);
        vp_table_add_col(t, "GPU Total", VP_COL_NS, 0);
    }
    size_t n = m->nrows;
    size_t shown = top > 0 && (size_t)top < n ? (size_t)top : n;
    for (size_t i = 0; i < shown; i++) {
        const vp_op_row *r = &m->rows[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, m->names[r->name]);
        if (shape_col >= 0)
            vp_table_set_text(t, row, shape_col, m->shapes[r->shape]);
        if (rank_col >= 0)
            vp_table_set_int(t, row, rank_col, r->rank);
        put_sums(t, row, first, r, m->gpu);
    }
    if (shown < n) {
        vp_op_row sum;
        vp_ops_fold(m, shown, &sum);
        size_t row = vp_table_add_row(t);
        char label[64];
        snprintf(label, sizeof label, "(others: %zu rows)", n - shown);
        vp_table_set_text(t, row, 0, label);
        put_sums(t, row, first, &sum, m->gpu);
    }
    if (shape && !m->dims_seen)
        vp_table_add_note(t, "no operator has \"Input Dims\" (Kineto traces recorded with "
                             "record_shapes=True have them; torch's legacy trace never does)");
    return t;
}
