/* The sequences table. */
#include "vprof/sequences_view.h"

vp_table *vp_sequences_table(const vp_sequences *q, long top)
{
    vp_table *t = vp_table_new("sequences");
    vp_table_add_col(t, "Pattern", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Count", VP_COL_INT, 0);
    vp_table_add_col(t, "GPU Kernel Duration", VP_COL_NS, 0);
    vp_table_add_col(t, "CPU Op Duration", VP_COL_NS, 0);
    size_t n = top > 0 && (size_t)top < q->nrows ? (size_t)top : q->nrows;
    for (size_t i = 0; i < n; i++) {
        const vp_sequence *s = &q->rows[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, s->pattern);
        vp_table_set_int(t, row, 1, s->count);
        vp_table_set_int(t, row, 2, s->gpu_dur);
        vp_table_set_int(t, row, 3, s->cpu_dur);
    }
    if (n < q->nrows)
        vp_table_add_note(t, "the top %zu of %zu patterns (--top)", n, q->nrows);
    if (q->nrows == 0)
        vp_table_add_note(t, "no instance of '%s' with at least %ld GPU events under it "
                             "(%lld slices hold the name)",
                          q->o.op, q->o.min_len, (long long)q->candidates);
    else
        vp_table_add_note(t, "%lld instances of '%s' at depth %ld (the shallowest), each with "
                             ">= %ld GPU events: the root's name, then its GPU events in "
                             "start order",
                          (long long)q->roots, q->o.op, q->min_depth, q->o.min_len);
    return t;
}
