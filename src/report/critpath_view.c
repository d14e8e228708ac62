/* The critical path tables. */
#include <stdlib.h>
#include <string.h>

#include "vprof/critpath_view.h"

static int cmp_bound_name(const void *a, const void *b)
{
    return strcmp(vp_cp_bound_name(*(const vp_cp_bound *)a), vp_cp_bound_name(*(const vp_cp_bound *)b));
}

vp_table *vp_critpath_summary_table(const vp_critpath *cp)
{
    vp_table *t = vp_table_new("summary");
    vp_table_add_col(t, "Bound By", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 2);
    int seen[VP_CP_BOUND_COUNT] = {0};
    for (size_t i = 0; i < cp->npath; i++)
        seen[cp->path[i].bound] = 1;
    vp_cp_bound order[VP_CP_BOUND_COUNT];
    size_t n = 0;
    for (int b = 0; b < VP_CP_BOUND_COUNT; b++)
        if (seen[b])
            order[n++] = (vp_cp_bound)b;
    qsort(order, n, sizeof *order, cmp_bound_name);
    for (size_t i = 0; i < n; i++) {
        size_t r = vp_table_add_row(t);
        vp_table_set_text(t, r, 0, vp_cp_bound_name(order[i]));
        vp_table_set_int(t, r, 1, cp->bound_us[order[i]] * 1000);
        if (cp->total_us)
            vp_table_set_double(t, r, 2, 100.0 * (double)cp->bound_us[order[i]] / (double)cp->total_us);
    }
    vp_table_add_note(t,
                      "window %lld..%lld us (%ld annotation instances); graph %zu nodes, %zu edges; "
                      "path %zu nodes, %zu edges, %zu events, %lld us. Empty Bound By: dependency "
                      "and sync edges (0 time)",
                      (long long)cp->win_start, (long long)cp->win_end, cp->instances, cp->graph_nodes,
                      cp->graph_edges, cp->path_nodes, cp->npath, cp->ncritical,
                      (long long)cp->total_us);
    return t;
}

vp_table *vp_critpath_path_table(const vp_critpath *cp)
{
    vp_table *t = vp_table_new("path");
    vp_table_add_col(t, "Step", VP_COL_INT, 0);
    vp_table_add_col(t, "Event", VP_COL_INT, 0);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Type", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Duration", VP_COL_NS, 0);
    vp_table_add_col(t, "Bound By", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Begin (us)", VP_COL_CLOCK, 0);
    vp_table_add_col(t, "End (us)", VP_COL_CLOCK, 0);
    for (size_t i = 0; i < cp->npath; i++) {
        const vp_cp_step *s = &cp->path[i];
        size_t r = vp_table_add_row(t);
        vp_table_set_int(t, r, 0, (int64_t)i);
        if (s->row >= 0 && s->type != VP_CP_DEPENDENCY && s->type != VP_CP_SYNC &&
            s->type != VP_CP_LAUNCH_DELAY) {
            vp_table_set_int(t, r, 1, cp->rows[s->row].idx);
            vp_table_set_text(t, r, 2, cp->names[cp->rows[s->row].name]);
        }
        vp_table_set_text(t, r, 3, vp_cp_edge_type_name(s->type));
        vp_table_set_int(t, r, 4, s->weight * 1000);
        vp_table_set_text(t, r, 5, vp_cp_bound_name(s->bound));
        vp_table_set_int(t, r, 6, s->begin_ts);
        vp_table_set_int(t, r, 7, s->end_ts);
    }
    return t;
}

typedef struct name_time {
    uint32_t name;
    int64_t us;
    int64_t edges;
    vp_cp_bound bound;
} name_time;

static int cmp_time(const void *a, const void *b)
{
    const name_time *x = a, *y = b;
    if (x->us != y->us)
        return x->us > y->us ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

vp_table *vp_critpath_top_table(const vp_critpath *cp, long top)
{
    vp_table *t = vp_table_new("top");
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Bound By", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Edges", VP_COL_INT, 0);
    vp_table_add_col(t, "Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 2);
    name_time *nt = vp_calloc(cp->npath + 1, sizeof *nt);
    size_t n = 0;
    for (size_t i = 0; i < cp->npath; i++) {
        const vp_cp_step *s = &cp->path[i];
        if (s->row < 0 || (s->type != VP_CP_OPERATOR && s->type != VP_CP_KERNEL_DELAY))
            continue;
        uint32_t name = cp->rows[s->row].name;
        size_t j = 0;
        while (j < n && !(nt[j].name == name && nt[j].bound == s->bound))
            j++;
        if (j == n)
            nt[n++] = (name_time){name, 0, 0, s->bound};
        nt[j].us += s->weight;
        nt[j].edges++;
    }
    qsort(nt, n, sizeof *nt, cmp_time);
    size_t keep = top > 0 && (size_t)top < n ? (size_t)top : n;
    for (size_t i = 0; i < keep; i++) {
        size_t r = vp_table_add_row(t);
        vp_table_set_text(t, r, 0, cp->names[nt[i].name]);
        vp_table_set_text(t, r, 1, vp_cp_bound_name(nt[i].bound));
        vp_table_set_int(t, r, 2, nt[i].edges);
        vp_table_set_int(t, r, 3, nt[i].us * 1000);
        if (cp->total_us)
            vp_table_set_double(t, r, 4, 100.0 * (double)nt[i].us / (double)cp->total_us);
    }
    if (keep < n)
        vp_table_add_note(t, "the top %zu of %zu names", keep, n);
    free(nt);
    return t;
}
