/* nvtx_gpu_proj_sum's table: the columns, in its order, with its names. */
#include "vprof/rangeproj_view.h"

vp_table *vp_rangeproj_table(const vp_rangeproj *m, long top, int rank)
{
    vp_table *t = vp_table_new("gpu_proj");
    vp_table_add_col(t, "Range", VP_COL_TEXT, 0);
    /* Kineto's user annotations are scoped to their thread: push/pop */
    vp_table_add_col(t, "Style", VP_COL_TEXT, 0);
    int rank_col = rank ? vp_table_add_col(t, "Rank", VP_COL_INT, 0) : -1;
    int c0 = vp_table_add_col(t, "Total Proj Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Total Range Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Range Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "Proj Avg", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Proj Med", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Proj Min", VP_COL_NS, 0);
    vp_table_add_col(t, "Proj Max", VP_COL_NS, 0);
    vp_table_add_col(t, "Proj StdDev", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Total GPU Ops", VP_COL_INT, 0);
    vp_table_add_col(t, "Avg GPU Ops", VP_COL_RATIO, 1);
    vp_table_add_col(t, "Avg Range Lvl", VP_COL_RATIO, 1);
    vp_table_add_col(t, "Avg Num Child", VP_COL_RATIO, 1);
    vp_table_add_col(t, "Total GPU Time", VP_COL_NS, 0);
    size_t shown = top > 0 && (size_t)top < m->ngroups ? (size_t)top : m->ngroups;
    for (size_t i = 0; i < shown; i++) {
        const vp_projgroup *g = &m->groups[i];
        const vp_summary *d = &g->d;
        double n = (double)d->n;
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, m->str[g->name]);
        vp_table_set_text(t, row, 1, "PushPop");
        if (rank_col >= 0)
            vp_table_set_int(t, row, rank_col, g->rank);
        int c = c0;
        vp_table_set_int(t, row, c++, d->total);
        vp_table_set_int(t, row, c++, g->range_total);
        vp_table_set_int(t, row, c++, d->n);
        vp_table_set_double(t, row, c++, d->mean);
        vp_table_set_double(t, row, c++, d->median);
        vp_table_set_int(t, row, c++, d->min);
        vp_table_set_int(t, row, c++, d->max);
        vp_table_set_double(t, row, c++, d->stddev);
        vp_table_set_int(t, row, c++, g->ops);
        vp_table_set_double(t, row, c++, (double)g->ops / n);
        vp_table_set_double(t, row, c++, (double)g->levels / n);
        vp_table_set_double(t, row, c++, (double)g->children / n);
        vp_table_set_int(t, row, c, g->gpu_time);
    }
    if (shown < m->ngroups)
        vp_table_add_note(t, "%zu more rows not shown (--top)", m->ngroups - shown);
    return t;
}
