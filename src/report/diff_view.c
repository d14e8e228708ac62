/* The comparison tables of vprof diff. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/diff_view.h"
#include "vprof/util.h"

typedef struct krow {
    const char *name;
    int cls;
    int64_t base, now, base_n, now_n;
} krow;

static int cmp_krow(const void *a, const void *b)
{
    const krow *x = a, *y = b;
    int64_t dx = llabs(x->now - x->base), dy = llabs(y->now - y->base);
    if (dx != dy)
        return (dy > dx) - (dy < dx);
    return strcmp(x->name, y->name);
}

static double change_pct(double base, double now)
{
    return base != 0 ? 100.0 * (now - base) / fabs(base) : NAN;
}

/* The tables take an optional Rank column first (--by rank); col is the
 * index of the first column after it. */
static vp_table *new_table(const char *name, int by_rank, int *col)
{
    vp_table *t = vp_table_new(name);
    if (by_rank)
        vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    *col = by_rank;
    return t;
}

vp_table *vp_diff_kernel_table(int by_rank)
{
    int c;
    vp_table *t = new_table("kernels", by_rank, &c);
    vp_table_add_col(t, "Base Total", VP_COL_NS, 0);
    vp_table_add_col(t, "New Total", VP_COL_NS, 0);
    vp_table_add_col(t, "Delta", VP_COL_NS, 0);
    vp_table_add_col(t, "Delta", VP_COL_PERCENT, 1);
    vp_table_add_col(t, "Base Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "New Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "Status", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    return t;
}

/* Rows of one pair of runs (rank < 0: no Rank column); returns how many
 * kernels --min-delta and --top hid. */
size_t vp_diff_kernel_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank,
                           int64_t min_delta, long top)
{
    vp_strmap *map = vp_strmap_new();
    krow *rows = NULL;
    size_t n = 0;
    const vp_run *runs[2] = {base, now};
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < vp_run_nkernels(runs[side]); i++) {
            const vp_kernel_total *k = vp_run_kernel(runs[side], i);
            if (!k->count)
                continue;
            int inserted;
            void **slot = vp_strmap_upsert(map, k->name, strlen(k->name), &inserted);
            if (inserted) {
                rows = vp_realloc(rows, (n + 1) * sizeof *rows);
                rows[n] = (krow){k->name, k->cls, 0, 0, 0, 0};
                *slot = (void *)(uintptr_t)(n++ + 1);
            }
            krow *r = &rows[(uintptr_t)*slot - 1];
            if (side == 0)
                r->base = k->total, r->base_n = k->count;
            else
                r->now = k->total, r->now_n = k->count;
        }
    }
    if (n)
        qsort(rows, n, sizeof *rows, cmp_krow);
    int c = rank >= 0;
    size_t shown = 0, hidden = 0;
    for (size_t i = 0; i < n; i++) {
        const krow *k = &rows[i];
        int64_t d = k->now - k->base;
        if (llabs(d) < min_delta || (top > 0 && (long)shown >= top)) {
            hidden++;
            continue;
        }
        shown++;
        size_t row = vp_table_add_row(t);
        if (rank >= 0)
            vp_table_set_int(t, row, 0, rank);
        vp_table_set_int(t, row, c + 0, k->base);
        vp_table_set_int(t, row, c + 1, k->now);
        vp_table_set_int(t, row, c + 2, d);
        double p = change_pct((double)k->base, (double)k->now);
        if (!isnan(p))
            vp_table_set_double(t, row, c + 3, p);
        vp_table_set_int(t, row, c + 4, k->base_n);
        vp_table_set_int(t, row, c + 5, k->now_n);
        vp_table_set_text(t, row, c + 6, !k->base_n ? "new" : !k->now_n ? "gone" : "");
        vp_table_set_text(t, row, c + 7, k->name);
    }
    free(rows);
    vp_strmap_free(map);
    return hidden;
}

vp_table *vp_diff_class_table(int by_rank)
{
    int c;
    vp_table *t = new_table("classes", by_rank, &c);
    vp_table_add_col(t, "Class", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Base Total", VP_COL_NS, 0);
    vp_table_add_col(t, "New Total", VP_COL_NS, 0);
    vp_table_add_col(t, "Delta", VP_COL_NS, 0);
    vp_table_add_col(t, "Delta", VP_COL_PERCENT, 1);
    return t;
}

void vp_diff_class_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank)
{
    int64_t tot[2][VP_CLASS_COUNT] = {{0}};
    const vp_run *runs[2] = {base, now};
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < vp_run_nkernels(runs[side]); i++) {
            const vp_kernel_total *k = vp_run_kernel(runs[side], i);
            tot[side][k->cls] += k->total;
        }
    int c = rank >= 0;
    for (int k = 0; k < VP_CLASS_COUNT; k++) {
        if (!tot[0][k] && !tot[1][k])
            continue;
        size_t row = vp_table_add_row(t);
        if (rank >= 0)
            vp_table_set_int(t, row, 0, rank);
        vp_table_set_text(t, row, c, vp_kclass_name((vp_kclass)k));
        vp_table_set_int(t, row, c + 1, tot[0][k]);
        vp_table_set_int(t, row, c + 2, tot[1][k]);
        vp_table_set_int(t, row, c + 3, tot[1][k] - tot[0][k]);
        double p = change_pct((double)tot[0][k], (double)tot[1][k]);
        if (!isnan(p))
            vp_table_set_double(t, row, c + 4, p);
    }
}

/* Metrics of both runs; values in their own units, which a column cannot
 * carry, so humans get them rendered and machines get raw numbers. */
vp_table *vp_diff_metric_table(int by_rank, int raw)
{
    int c;
    vp_table *t = new_table("metrics", by_rank, &c);
    vp_table_add_col(t, "Metric", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Base", raw ? VP_COL_RATIO : VP_COL_TEXT, 6);
    vp_table_add_col(t, "New", raw ? VP_COL_RATIO : VP_COL_TEXT, 6);
    vp_table_add_col(t, "Change", VP_COL_PERCENT, 1);
    return t;
}

void vp_diff_metric_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank,
                         int raw)
{
    int c = rank >= 0;
    for (size_t i = 0; i < vp_run_nmetrics(now); i++) {
        const vp_metric *m = vp_run_metric(now, i);
        const vp_metric *b = vp_run_find(base, m->name);
        if (!b)
            continue;
        size_t row = vp_table_add_row(t);
        if (rank >= 0)
            vp_table_set_int(t, row, 0, rank);
        vp_table_set_text(t, row, c, m->name);
        if (raw) {
            vp_table_set_double(t, row, c + 1, b->value);
            vp_table_set_double(t, row, c + 2, m->value);
        } else {
            char s[2][48];
            double v[2] = {b->value, m->value};
            for (int k = 0; k < 2; k++)
                vp_metric_format(s[k], sizeof s[k], m->unit, v[k]);
            vp_table_set_text(t, row, c + 1, s[0]);
            vp_table_set_text(t, row, c + 2, s[1]);
        }
        double p = change_pct(b->value, m->value);
        if (!isnan(p))
            vp_table_set_double(t, row, c + 3, p);
    }
}

