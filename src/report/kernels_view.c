/* The kernels table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/kernels_view.h"

/* exact: every instance known (no aggregate), so Med and StdDev exist. */
static void put_stats(vp_table *t, size_t row, const vp_summary *s, int64_t grand, int exact)
{
    vp_table_set_double(t, row, 0, grand ? 100.0 * (double)s->total / (double)grand : 0.0);
    vp_table_set_int(t, row, 1, s->total);
    vp_table_set_int(t, row, 2, s->n);
    vp_table_set_double(t, row, 3, s->mean);
    if (exact)
        vp_table_set_double(t, row, 4, s->median);
    vp_table_set_int(t, row, 5, s->min);
    vp_table_set_int(t, row, 6, s->max);
    if (exact)
        vp_table_set_double(t, row, 7, s->stddev);
}

vp_table *vp_kernels_table(const vp_kernels *k, const char *dims, long top)
{
    vp_table *t = vp_table_new("kernels");
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 1);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "Avg", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Med", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Min", VP_COL_NS, 0);
    vp_table_add_col(t, "Max", VP_COL_NS, 0);
    vp_table_add_col(t, "StdDev", VP_COL_NS_F, 1);
    size_t ndims = strlen(dims);
    for (size_t d = 0; d < ndims; d++) {
        switch (dims[d]) {
        case 'r': vp_table_add_col(t, "Rank", VP_COL_INT, 0); break;
        case 'd': vp_table_add_col(t, "Device", VP_COL_INT, 0); break;
        case 's': vp_table_add_col(t, "Stream", VP_COL_INT, 0); break;
        case 'c': vp_table_add_col(t, "Class", VP_COL_TEXT, 0); break;
        case 'y': vp_table_add_col(t, "Type", VP_COL_TEXT, 0); break;
        case 'k': vp_table_add_col(t, "Accelerator Core", VP_COL_TEXT, 0); break;
        }
    }
    int name_col = k->o.by_name ? vp_table_add_col(t, "Name", VP_COL_TEXT, 0) : -1;

    size_t n = k->ngroups;
    int aggregated = 0;
    for (size_t i = 0; i < n; i++)
        aggregated |= k->groups[i].agg_n != 0;
    if (aggregated)
        vp_table_add_note(t, "rows with op_statistic.csv instances have no Med nor StdDev: the "
                             "file gives each op type's count, total, min and max only");
    size_t shown = top > 0 && (size_t)top < n ? (size_t)top : n;
    for (size_t i = 0; i < shown; i++) {
        const vp_kgroup *g = &k->groups[i];
        size_t row = vp_table_add_row(t);
        put_stats(t, row, &g->sum, k->grand, g->agg_n == 0);
        int col = 8;
        for (size_t d = 0; d < ndims; d++, col++) {
            switch (dims[d]) {
            case 'r': vp_table_set_int(t, row, col, g->rank); break;
            case 'd': vp_table_set_int(t, row, col, g->key.device); break;
            case 's': vp_table_set_int(t, row, col, g->key.stream); break;
            case 'c': vp_table_set_text(t, row, col, vp_kclass_name((vp_kclass)g->key.cls)); break;
            case 'y':
                if (g->key.type)
                    vp_table_set_text(t, row, col, k->str[g->key.type]);
                break;
            case 'k':
                if (g->key.core)
                    vp_table_set_text(t, row, col, k->str[g->key.core]);
                break;
            }
        }
        if (name_col >= 0) {
            const vp_kname *kn = &k->knames[g->key.name];
            vp_table_set_textn(t, row, name_col, kn->text, kn->len);
        }
    }
    if (shown < n) {
        /* (others): statistics over the folded instances themselves. */
        vp_summary s;
        int exact;
        vp_kernels_fold(k, shown, &s, &exact);
        size_t row = vp_table_add_row(t);
        put_stats(t, row, &s, k->grand, exact);
        char label[64];
        snprintf(label, sizeof label, "(others: %zu rows)", n - shown);
        int text_col = name_col;
        for (size_t d = 0; text_col < 0 && d < ndims; d++)
            if (strchr("cyk", dims[d]))
                text_col = 8 + (int)d;
        /* The label goes in a text column: json keeps its column types. */
        if (text_col >= 0)
            vp_table_set_text(t, row, text_col, label);
        else
            vp_table_add_note(t, "the last row, with no %s, folds the other %zu rows (--top)",
                              dims[0] == 's' ? "stream" : dims[0] == 'r' ? "rank" : "device",
                              n - shown);
    }
    return t;
}

vp_table *vp_kernels_class_table(const vp_kernels *k)
{
    static const vp_col_spec cols[] = {
        {"Rank", VP_COL_INT, 0},          {"Compute", VP_COL_NS, 0},
        {"Communication", VP_COL_NS, 0},  {"Memory", VP_COL_NS, 0},
        {"Sync", VP_COL_NS, 0},           {"Total", VP_COL_NS, 0},
    };
    vp_table *t = vp_table_new_cols("kernel_classes", cols, sizeof cols / sizeof *cols);
    const char *with_steps = k->o.steps ? " (with --steps)" : "";
    int some = 0;   /* a file with kernels: the others are named */
    for (size_t g = 0; g < k->ngroups && !some; g++)
        some = k->groups[g].key.cls >= 0 && k->groups[g].key.cls < VP_CLASS_COUNT;
    for (size_t f = 0; f < k->nfiles; f++) {
        int64_t by[VP_CLASS_COUNT] = {0}, total = 0;
        int any = 0;
        for (size_t g = 0; g < k->ngroups; g++) {
            const vp_kgroup *gr = &k->groups[g];
            if ((size_t)gr->key.file != f || gr->key.cls < 0 || gr->key.cls >= VP_CLASS_COUNT)
                continue;
            by[gr->key.cls] += gr->sum.total;
            total += gr->sum.total;
            any = 1;
        }
        /* A row of zeros would read as a rank whose kernels took no
         * time: a file with no kernel has nothing to judge, and says so. */
        if (!any) {
            if (some)
                vp_table_add_note(t, "%s: no GPU kernels%s, so no row", k->paths[f], with_steps);
            continue;
        }
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 0, k->ranks[f]);
        for (int c = 0; c < VP_CLASS_COUNT; c++)
            vp_table_set_int(t, row, 1 + c, by[c]);
        vp_table_set_int(t, row, 5, total);
    }
    if (!vp_table_rows(t))   /* vprof kernels' words for the same input */
        vp_table_add_note(t, "no GPU kernels in the input%s", with_steps);
    return t;
}

typedef struct dim_total {
    int32_t id;        /* the interned type or core */
    int64_t total, n;
} dim_total;

static int cmp_dim_total(const void *a, const void *b)
{
    const dim_total *x = a, *y = b;
    if (x->total != y->total)
        return (y->total > x->total) - (y->total < x->total);
    return (x->id > y->id) - (x->id < y->id);
}

vp_table *vp_kernels_dim_table(const vp_kernels *k, char dim, const char *name)
{
    vp_table *t = vp_table_new(name);
    vp_table_add_col(t, dim == 'y' ? "Type" : "Accelerator Core", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Time", VP_COL_PERCENT, 1);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Instances", VP_COL_INT, 0);
    dim_total *d = vp_calloc(k->nstr ? k->nstr : 1, sizeof *d);
    for (size_t i = 0; i < k->nstr; i++)
        d[i].id = (int32_t)i;
    for (size_t g = 0; g < k->ngroups; g++) {
        const vp_kgroup *gr = &k->groups[g];
        int32_t id = dim == 'y' ? gr->key.type : gr->key.core;
        if (id < 0 || (size_t)id >= k->nstr)
            continue;
        d[id].total += gr->sum.total;
        d[id].n += gr->sum.n;
    }
    qsort(d, k->nstr, sizeof *d, cmp_dim_total);
    for (size_t i = 0; i < k->nstr; i++) {
        if (!d[i].n)
            continue;
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, d[i].id ? k->str[d[i].id] : "");
        vp_table_set_double(t, row, 1,
                            k->grand ? 100.0 * (double)d[i].total / (double)k->grand : 0.0);
        vp_table_set_int(t, row, 2, d[i].total);
        vp_table_set_int(t, row, 3, d[i].n);
    }
    free(d);
    return t;
}
