/* Each step's critical-path verdict as a table (summary --critical-path). */
#include "vprof/critpath_view.h"

vp_table *vp_critpath_steps_table(const vp_cp_steps *s)
{
    if (!s || (!s->n && !s->refused))
        return NULL;
    vp_table *t = vp_table_new("step_bound");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Step", VP_COL_INT, 0);
    vp_table_add_col(t, "Instance", VP_COL_INT, 0);
    vp_table_add_col(t, "Bound By", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Path", VP_COL_NS, 0);
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 2);
    for (size_t i = 0; i < s->n; i++) {
        const vp_cp_verdict *v = &s->v[i];
        size_t r = vp_table_add_row(t);
        vp_table_set_int(t, r, 0, v->rank);
        vp_table_set_int(t, r, 1, v->step);
        vp_table_set_int(t, r, 2, v->instance);
        vp_table_set_text(t, r, 3, vp_cp_bound_name(v->bound));
        vp_table_set_int(t, r, 4, v->bound_us * 1000);
        vp_table_set_int(t, r, 5, v->total_us * 1000);
        if (v->total_us)
            vp_table_set_double(t, r, 6, 100.0 * (double)v->bound_us / (double)v->total_us);
    }
    vp_table_add_note(t, "the bound_by category with the most time on each step's critical path "
                         "(vprof critical-path --instance N shows the path); HTA leaves out the "
                         "last step of a trace with two steps or more");
    if (s->refused)
        vp_table_add_note(t, "%zu step(s) without a critical path (no ops joined, or a graph HTA "
                             "refuses)", s->refused);
    return t;
}
