/* The api, copies and ranges tables. */
#include <math.h>
#include <stdio.h>

#include "vprof/evsum_view.h"

static size_t shown_rows(const vp_evsum *s, long top)
{
    return top > 0 && (size_t)top < s->ngroups ? (size_t)top : s->ngroups;
}

static void note_more(vp_table *t, const vp_evsum *s, size_t shown)
{
    if (shown < s->ngroups)
        vp_table_add_note(t, "%zu more rows not shown (--top)", s->ngroups - shown);
}

vp_table *vp_evsum_table(const vp_evsum *s, long top)
{
    static const char *const names[] = {"api", "copy_time", "ranges"};
    static const char *const counts[] = {"Num Calls", "Count", "Instances"};
    vp_evsum_family f = s->o.family;
    vp_table *t = vp_table_new(names[f]);
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 1);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, counts[f], VP_COL_INT, 0);
    vp_table_add_col(t, "Avg", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Med", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Min", VP_COL_NS, 0);
    vp_table_add_col(t, "Max", VP_COL_NS, 0);
    vp_table_add_col(t, "StdDev", VP_COL_NS_F, 1);
    int cat_col = f == VP_EVSUM_RANGES ? vp_table_add_col(t, "Category", VP_COL_TEXT, 0)
                  : s->o.by_level      ? vp_table_add_col(t, "Level", VP_COL_TEXT, 0)
                                       : -1;
    int rank_col = s->o.by_rank ? vp_table_add_col(t, "Rank", VP_COL_INT, 0) : -1;
    vp_table_add_col(t, f == VP_EVSUM_API ? "Name" : f == VP_EVSUM_COPIES ? "Operation" : "Range",
                     VP_COL_TEXT, 0);
    size_t shown = shown_rows(s, top);
    for (size_t i = 0; i < shown; i++) {
        const vp_evgroup *g = &s->groups[i];
        const vp_summary *d = &g->d;
        size_t row = vp_table_add_row(t);
        vp_table_set_double(t, row, 0, s->grand ? 100.0 * (double)d->total / (double)s->grand : 0.0);
        vp_table_set_int(t, row, 1, d->total);
        vp_table_set_int(t, row, 2, d->n);
        vp_table_set_double(t, row, 3, d->mean);
        if (!isnan(d->median))   /* none for pre-totalled calls: an empty cell */
            vp_table_set_double(t, row, 4, d->median);
        vp_table_set_int(t, row, 5, d->min);
        vp_table_set_int(t, row, 6, d->max);
        vp_table_set_double(t, row, 7, d->stddev);
        int c = 8;
        if (cat_col >= 0)
            vp_table_set_text(t, row, c++, g->cat == UINT32_MAX ? "" : s->str[g->cat]);
        if (rank_col >= 0)
            vp_table_set_int(t, row, c++, g->rank);
        vp_table_set_text(t, row, c, s->str[g->name]);
    }
    note_more(t, s, shown);
    size_t no_med = 0;
    for (size_t i = 0; i < s->ngroups; i++)
        no_med += s->groups[i].nagg > 0;
    if (no_med)
        vp_table_add_note(t, "%zu rows hold calls the profiler totalled (api_statistic.csv): "
                             "they have no median; StdDev is from its Variance", no_med);
    if (s->no_dur)
        vp_table_add_note(t, "%lld events without \"dur\" are not counted", (long long)s->no_dur);
    return t;
}

vp_table *vp_copies_size_table(const vp_evsum *s, long top)
{
    vp_table *t = vp_table_new("copy_size");
    vp_table_add_col(t, "Total", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Count", VP_COL_INT, 0);
    vp_table_add_col(t, "Avg (B)", VP_COL_RATIO, 1);
    vp_table_add_col(t, "Med (B)", VP_COL_RATIO, 1);
    vp_table_add_col(t, "Min", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Max", VP_COL_BYTES, 0);
    vp_table_add_col(t, "StdDev (B)", VP_COL_RATIO, 1);
    vp_table_add_col(t, "Bandwidth (GB/s)", VP_COL_RATIO, 3);
    int rank_col = s->o.by_rank ? vp_table_add_col(t, "Rank", VP_COL_INT, 0) : -1;
    int name_col = vp_table_add_col(t, "Operation", VP_COL_TEXT, 0);
    size_t shown = shown_rows(s, top), partial = 0;
    for (size_t i = 0; i < shown; i++) {
        const vp_evgroup *g = &s->groups[i];
        const vp_summary *b = &g->b;
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 1, b->n);
        if (b->n) {
            vp_table_set_int(t, row, 0, b->total);
            vp_table_set_double(t, row, 2, b->mean);
            vp_table_set_double(t, row, 3, b->median);
            vp_table_set_int(t, row, 4, b->min);
            vp_table_set_int(t, row, 5, b->max);
            vp_table_set_double(t, row, 6, b->stddev);
        }
        /* bytes per ns is GB/s; only where every instance says its bytes */
        if (b->n == g->d.n && g->d.total > 0)
            vp_table_set_double(t, row, 7, (double)b->total / (double)g->d.total);
        else
            partial++;
        if (rank_col >= 0)
            vp_table_set_int(t, row, rank_col, g->rank);
        vp_table_set_text(t, row, name_col, s->str[g->name]);
    }
    note_more(t, s, shown);
    vp_table_add_note(t, "bytes from args.bytes; Bandwidth = "
                         "Total bytes / Total Time%s",
                      partial ? "; empty where some instances have no bytes or no time" : "");
    return t;
}
