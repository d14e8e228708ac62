/* The comparison tables of vprof diff. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/diff_view.h"
#include "vprof/kpair.h"
#include "vprof/util.h"

/* The tables take an optional Rank column first (--by rank). */
static vp_table *new_table(const char *name, int by_rank)
{
    vp_table *t = vp_table_new(name);
    if (by_rank)
        vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    return t;
}

static size_t new_row(vp_table *t, long rank)
{
    size_t row = vp_table_add_row(t);
    if (rank >= 0)
        vp_table_set_int(t, row, 0, rank);
    return row;
}

/* The change as a share of the base's value; NAN from a base of 0. */
static double relative_pct(double base, double now)
{
    return base != 0 ? 100.0 * (now - base) / fabs(base) : NAN;
}

/* The four columns of a time compared, in the kernel and the class table:
 * Base Total, New Total, Delta (ns) and Relative (%). */
static void add_time_cols(vp_table *t)
{
    vp_table_add_col(t, "Base Total", VP_COL_NS, 0);
    vp_table_add_col(t, "New Total", VP_COL_NS, 0);
    vp_table_add_col(t, "Delta", VP_COL_NS, 0);
    vp_table_add_col(t, "Relative", VP_COL_PERCENT, 1);
}

static void set_time_cols(vp_table *t, size_t row, int col, int64_t base, int64_t now)
{
    vp_table_set_int(t, row, col, base);
    vp_table_set_int(t, row, col + 1, now);
    vp_table_set_int(t, row, col + 2, now - base);
    double p = relative_pct((double)base, (double)now);
    if (!isnan(p))
        vp_table_set_double(t, row, col + 3, p);
}

vp_table *vp_diff_kernel_table(int by_rank)
{
    vp_table *t = new_table("kernels", by_rank);
    add_time_cols(t);
    vp_table_add_col(t, "Base Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "New Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "Status", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    return t;
}

typedef struct krow {
    char *name;          /* the shown name: both names in one when paired */
    const char *status;
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

static krow kernel_row(const vp_run *base, const vp_run *now, const vp_kpair *p, vp_buf *tmp)
{
    const vp_kernel_total *b = p->base >= 0 ? vp_run_kernel(base, (size_t)p->base) : NULL;
    const vp_kernel_total *n = p->now >= 0 ? vp_run_kernel(now, (size_t)p->now) : NULL;
    krow k = {NULL, !b ? "new" : !n ? "gone" : p->paired ? "paired" : "", b ? b->total : 0,
              n ? n->total : 0, b ? b->count : 0, n ? n->count : 0};
    if (p->paired) {
        vp_kname_merged(b->name, n->name, tmp);
        k.name = vp_strdup(tmp->data);
    } else {
        k.name = vp_strdup(b ? b->name : n->name);
    }
    return k;
}

size_t vp_diff_kernel_rows(vp_table *t, const vp_run *base, const vp_run *now, long rank,
                           const vp_diff_kernel_opts *o, size_t *ambiguous)
{
    vp_kpair *pairs;
    size_t amb = 0;
    size_t n = vp_kernel_pairs(base, now, o->exact_names, &pairs, &amb);
    if (ambiguous)
        *ambiguous += amb;
    krow *rows = vp_malloc((n ? n : 1) * sizeof *rows);
    vp_buf tmp = {0};
    for (size_t i = 0; i < n; i++)
        rows[i] = kernel_row(base, now, &pairs[i], &tmp);
    vp_buf_free(&tmp);
    free(pairs);
    if (n)
        qsort(rows, n, sizeof *rows, cmp_krow);
    int c = rank >= 0;
    size_t shown = 0, hidden = 0;
    for (size_t i = 0; i < n; i++) {
        const krow *k = &rows[i];
        if (llabs(k->now - k->base) < o->min_delta || (o->top > 0 && (long)shown >= o->top)) {
            hidden++;
        } else {
            shown++;
            size_t row = new_row(t, rank);
            set_time_cols(t, row, c, k->base, k->now);
            vp_table_set_int(t, row, c + 4, k->base_n);
            vp_table_set_int(t, row, c + 5, k->now_n);
            vp_table_set_text(t, row, c + 6, k->status);
            vp_table_set_text(t, row, c + 7, k->name);
        }
        free(k->name);
    }
    free(rows);
    return hidden;
}

vp_table *vp_diff_class_table(int by_rank)
{
    vp_table *t = new_table("classes", by_rank);
    vp_table_add_col(t, "Class", VP_COL_TEXT, 0);
    add_time_cols(t);
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
        size_t row = new_row(t, rank);
        vp_table_set_text(t, row, c, vp_kclass_name((vp_kclass)k));
        set_time_cols(t, row, c + 1, tot[0][k], tot[1][k]);
    }
}

/* Metrics of both runs; values in their own units, which a column cannot
 * carry, so humans get them rendered and machines get raw numbers with
 * the unit named.  A percent metric's change is in points (Delta), never
 * relative: 52.9% -> 55.2% is +2.33 pp, not +4.40%. */
vp_table *vp_diff_metric_table(int by_rank, int raw)
{
    vp_table *t = new_table("metrics", by_rank);
    vp_col_type v = raw ? VP_COL_RATIO : VP_COL_TEXT;
    vp_table_add_col(t, "Metric", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Base", v, 6);
    vp_table_add_col(t, "New", v, 6);
    vp_table_add_col(t, "Delta", v, 6);
    vp_table_add_col(t, "Relative", VP_COL_PERCENT, 1);
    if (raw)
        vp_table_add_col(t, "Unit", VP_COL_TEXT, 0);
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
        size_t row = new_row(t, rank);
        vp_table_set_text(t, row, c, m->name);
        double v[3] = {b->value, m->value, m->value - b->value};
        for (int k = 0; k < 3; k++) {
            if (raw) {
                vp_table_set_double(t, row, c + 1 + k, v[k]);
            } else {
                char s[48];
                if (k < 2)
                    vp_metric_format(s, sizeof s, m->unit, v[k]);
                else
                    vp_metric_format_change(s, sizeof s, m->unit, v[k]);
                vp_table_set_text(t, row, c + 1 + k, s);
            }
        }
        double p = relative_pct(b->value, m->value);
        if (m->unit != VP_COL_PERCENT && !isnan(p))
            vp_table_set_double(t, row, c + 4, p);
        if (raw)
            vp_table_set_text(t, row, c + 5,
                              m->unit == VP_COL_PERCENT ? "percent (Delta: points)"
                                                        : vp_metric_unit_name(m->unit));
    }
}

/* One property of a run as text; "-" when the run does not say. */
static void run_property(const vp_run *r, int which, char *s, size_t n)
{
    int major, minor;
    const vp_metric *m;
    snprintf(s, n, "-");
    switch (which) {
    case 0:
        snprintf(s, n, "%s", vp_run_device(r)[0] ? vp_run_device(r)
                             : vp_run_is_ascend(r) ? "Ascend NPU" : "-");
        break;
    case 1:
        if (vp_run_find(r, "gpus"))   /* none for Ascend: its traces list no devices */
            snprintf(s, n, "%d", vp_run_device_count(r));
        break;
    case 2:
        if (vp_run_compute_capability(r, &major, &minor))
            snprintf(s, n, "%d.%d", major, minor);
        break;
    case 3:
        if (vp_run_world(r) > 0)
            snprintf(s, n, "%ld", vp_run_world(r));
        break;
    case 4:
    case 5:
        if ((m = vp_run_find(r, which == 4 ? "ranks" : "steps")))
            snprintf(s, n, "%.0f", m->value);
        break;
    default:
        if (vp_run_schema(r) > 0)
            snprintf(s, n, "%ld", vp_run_schema(r));
        break;
    }
}

vp_table *vp_diff_runs_table(const vp_run *base, const vp_run *now, vp_buf *differs)
{
    static const char *const names[] = {"device", "GPUs", "compute capability", "world size",
                                        "ranks", "steps", "trace schema"};
    vp_table *t = vp_table_new("runs");
    vp_table_add_col(t, "Property", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Base", VP_COL_TEXT, 0);
    vp_table_add_col(t, "New", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Differs", VP_COL_TEXT, 0);
    differs->len = 0;
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++) {
        char a[160], b[160];
        run_property(base, i, a, sizeof a);
        run_property(now, i, b, sizeof b);
        int same = strcmp(a, b) == 0;
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, names[i]);
        vp_table_set_text(t, row, 1, a);
        vp_table_set_text(t, row, 2, b);
        vp_table_set_text(t, row, 3, same ? "no" : "yes");
        if (!same)
            vp_buf_printf(differs, "%s%s %s -> %s", differs->len ? ", " : "", names[i], a, b);
    }
    vp_buf_cstr(differs);
    if (differs->len)
        vp_table_add_note(t, "the runs differ in: %s", differs->data);
    return t;
}
