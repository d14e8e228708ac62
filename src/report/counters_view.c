/* The counters tables. */
#include <math.h>

#include "vprof/counters_view.h"

/* Full precision in the raw formats: the shortest text that reads back as
 * the same double (Python's repr, which HTA's CSV files hold); three
 * significant digits in the table format. */
static void add_stat_cols(vp_table *t)
{
    static const char *const names[] = {"Mean", "Std", "Min", "25%", "50%", "75%", "Max"};
    vp_table_add_col(t, "Count", VP_COL_INT, 0);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        vp_table_add_col(t, names[i], VP_COL_RATIO, VP_DECIMALS_EXACT);
}

static void put_stats(vp_table *t, size_t row, int col, const vp_describe *d)
{
    const double v[] = {d->mean, d->std, d->min, d->q25, d->q50, d->q75, d->max};
    vp_table_set_int(t, row, col++, d->count);
    for (size_t i = 0; i < sizeof v / sizeof *v; i++, col++)
        if (isfinite(v[i]))   /* std of one point: NaN in pandas, empty here */
            vp_table_set_double(t, row, col, v[i]);
}

/* skip_empty: no row for a series with no point kept (HTA's groupby has
 * no group for a copy kind whose bandwidth never rose above 0). */
static vp_table *summary(const char *name, const char *key, const vp_cseries *s, size_t n,
                         int skip_empty)
{
    vp_table *t = vp_table_new(name);
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, key, key[0] == 'S' ? VP_COL_INT : VP_COL_TEXT, 0);
    add_stat_cols(t);
    for (size_t i = 0; i < n; i++) {
        if (skip_empty && s[i].stats.count == 0)
            continue;
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 0, s[i].rank);
        if (key[0] == 'S')
            vp_table_set_int(t, row, 1, s[i].stream);
        else
            vp_table_set_text(t, row, 1, s[i].name);
        put_stats(t, row, 2, &s[i].stats);
    }
    return t;
}

vp_table *vp_counters_queue_table(const vp_counters *c)
{
    vp_table *t = summary("queue", "Stream", c->queue, c->nqueue, 0);
    vp_table_add_note(t, "queue length: launches not yet started on the stream, at each change "
                         "(HTA's get_queue_length_summary)");
    return t;
}

vp_table *vp_counters_bandwidth_table(const vp_counters *c)
{
    vp_table *t = summary("bandwidth", "Name", c->bw, c->nbw, 1);
    vp_table_add_note(t, "GB/s of the copies in flight, at each change above 0 "
                         "(HTA's get_memory_bw_summary)");
    return t;
}

static vp_table *series(const char *name, const char *key, const char *value,
                        const vp_cseries *s, size_t n)
{
    vp_table *t = vp_table_new(name);
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, key, key[0] == 'S' ? VP_COL_INT : VP_COL_TEXT, 0);
    vp_table_add_col(t, "Time (ns)", VP_COL_INT, 0);
    vp_table_add_col(t, value, key[0] == 'S' ? VP_COL_INT : VP_COL_RATIO, VP_DECIMALS_EXACT);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < s[i].n; j++) {
            size_t row = vp_table_add_row(t);
            vp_table_set_int(t, row, 0, s[i].rank);
            if (key[0] == 'S') {
                vp_table_set_int(t, row, 1, s[i].stream);
                vp_table_set_int(t, row, 3, (int64_t)s[i].v[j]);
            } else {
                vp_table_set_text(t, row, 1, s[i].name);
                vp_table_set_double(t, row, 3, s[i].v[j]);
            }
            vp_table_set_int(t, row, 2, s[i].ts[j]);
        }
    return t;
}

vp_table *vp_counters_queue_series_table(const vp_counters *c)
{
    return series("queue_series", "Stream", "Queue Length", c->queue, c->nqueue);
}

vp_table *vp_counters_bandwidth_series_table(const vp_counters *c)
{
    return series("bandwidth_series", "Name", "Bandwidth (GB/s)", c->bw, c->nbw);
}
