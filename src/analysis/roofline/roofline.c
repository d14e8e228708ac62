/* The roofline model (vprof/roofline.h): the rows of vprof ops, read by
 * name and arguments with the outermost modelled operator owning its
 * subtree, each costed by roofline_model.c and put against the device's
 * roofs. */
#include <stdlib.h>
#include <string.h>

#include "vprof/roofline.h"

static int owns(const char *name)
{
    return vp_rl_family_of(name) != VP_RL_NONE;
}

void vp_roofline_ops_opts(const vp_roofline_opts *o, vp_ops_opts *ops)
{
    memset(ops, 0, sizeof *ops);
    ops->dims = VP_ODIM_SHAPE | VP_ODIM_ARGS | (o->by_rank ? VP_ODIM_RANK : 0);
    ops->steps = o->steps;
    ops->partial = o->partial;
    ops->say = o->say;
    ops->owns = owns;
}

/* The three texts of an ops shape key (dims SEP types SEP concrete), as
 * fresh strings; a key without separators is the dims alone. */
static void split_key(const char *key, char **part)
{
    for (int i = 0; i < 3; i++) {
        const char *sep = key ? strchr(key, VP_OPS_ARGS_SEP) : NULL;
        size_t n = key ? (sep ? (size_t)(sep - key) : strlen(key)) : 0;
        part[i] = vp_strndup(key ? key : "", n);
        key = sep ? sep + 1 : NULL;
    }
}

static vp_rl_sort sort_key;

static double row_time(const vp_rl_row *r)
{
    return (double)r->kernel_ns;
}

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* The identity of a row: rank, name, dims, types and cost (two concrete
 * inputs of one cost are one row). */
static int cmp_identity(const vp_rl_row *x, const vp_rl_row *y)
{
    int c;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if ((c = cmp_str(x->name, y->name)) || (c = cmp_str(x->dims, y->dims)) ||
        (c = cmp_str(x->types, y->types)))
        return c;
    if (x->cost.family != y->cost.family)
        return x->cost.family < y->cost.family ? -1 : 1;
    if (x->cost.flops != y->cost.flops)
        return x->cost.flops < y->cost.flops ? -1 : 1;
    if (x->cost.bytes != y->cost.bytes)
        return x->cost.bytes < y->cost.bytes ? -1 : 1;
    return 0;
}

static int cmp_identity_q(const void *a, const void *b)
{
    return cmp_identity(a, b);
}

static int cmp_dbl_desc(double a, double b)
{
    return a > b ? -1 : a < b ? 1 : 0;
}

static int cmp_key(const void *a, const void *b)
{
    const vp_rl_row *x = a, *y = b;
    vp_rl_figures fx, fy;
    int c = 0;
    switch (sort_key) {
    case VP_RLSORT_TIME: c = cmp_dbl_desc(row_time(x), row_time(y)); break;
    case VP_RLSORT_CALLS: c = cmp_dbl_desc((double)x->calls, (double)y->calls); break;
    case VP_RLSORT_NAME: c = cmp_str(x->name, y->name); break;
    case VP_RLSORT_ROOFLINE:
    case VP_RLSORT_TFLOPS:
        vp_rl_row_figures(x, &fx);
        vp_rl_row_figures(y, &fy);
        /* ascending roofline %: the furthest from the roof first; rows
         * without one last */
        if (sort_key == VP_RLSORT_ROOFLINE)
            c = (fx.pct < 0) != (fy.pct < 0) ? (fx.pct < 0 ? 1 : -1) : -cmp_dbl_desc(fx.pct, fy.pct);
        else
            c = cmp_dbl_desc(fx.tflops, fy.tflops);
        break;
    }
    if (c)
        return c;
    if ((c = cmp_dbl_desc(row_time(x), row_time(y))))
        return c;
    return cmp_identity(x, y);
}

void vp_roofline_build(vp_roofline *r, const vp_roofline_opts *o, const vp_ops *m,
                       const char *device, vp_rl_sort key)
{
    memset(r, 0, sizeof *r);
    r->o = *o;
    r->dims_seen = m->dims_seen;
    r->gpu = m->gpu;
    const char *dev = o->device ? o->device : device;
    if (dev && *dev) {
        size_t n = strlen(dev);
        if (n >= sizeof r->device)
            n = sizeof r->device - 1;
        memcpy(r->device, dev, n);
        r->peak = vp_peak_lookup(r->device);
        r->tbs = vp_peak_tbs(r->device, r->peak, &r->tbs_source);
    }
    double tbs = o->peak_tbs > 0 ? o->peak_tbs : r->tbs;
    r->rows = vp_malloc((m->nrows ? m->nrows : 1) * sizeof *r->rows);
    for (size_t i = 0; i < m->nrows; i++) {
        const vp_op_row *op = &m->rows[i];
        const char *name = m->names[op->name];
        vp_rl_row row = {.name = name, .rank = op->rank, .calls = op->calls};
        char *part[3];
        split_key(op->shape ? m->shapes[op->shape] : "", part);
        row.dims = part[0];
        row.types = part[1];
        int has_model = owns(name);
        if (has_model && vp_rl_cost_of(name, part[0], part[1], part[2], &row.cost, &row.why) != 0)
            row.cost.family = VP_RL_NONE;
        free(part[2]);
        row.kernel_ns = has_model ? op->gpu_total : op->self_gpu;
        if (row.kernel_ns <= 0) {   /* CPU-side only: nothing to judge */
            free(row.dims);
            free(row.types);
            continue;
        }
        if (row.cost.family != VP_RL_NONE) {
            row.peak_tflops = o->peak_tflops > 0 ? o->peak_tflops
                                                 : vp_rl_peak_tflops(r->peak, &row.cost, o->tf32);
            row.peak_tbs = tbs;
        }
        r->rows[r->nrows++] = row;
    }
    /* one row per identity */
    qsort(r->rows, r->nrows, sizeof *r->rows, cmp_identity_q);
    size_t w = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        if (w > 0 && cmp_identity(&r->rows[w - 1], &r->rows[i]) == 0) {
            r->rows[w - 1].calls += r->rows[i].calls;
            r->rows[w - 1].kernel_ns += r->rows[i].kernel_ns;
            free(r->rows[i].dims);
            free(r->rows[i].types);
            continue;
        }
        r->rows[w++] = r->rows[i];
    }
    r->nrows = w;
    for (size_t i = 0; i < r->nrows; i++) {
        r->gpu_ns += r->rows[i].kernel_ns;
        if (r->rows[i].cost.family != VP_RL_NONE)
            r->modelled_ns += r->rows[i].kernel_ns;
    }
    sort_key = key;
    qsort(r->rows, r->nrows, sizeof *r->rows, cmp_key);
}

void vp_roofline_free(vp_roofline *r)
{
    for (size_t i = 0; i < r->nrows; i++) {
        free(r->rows[i].dims);
        free(r->rows[i].types);
    }
    free(r->rows);
    memset(r, 0, sizeof *r);
}

void vp_rl_row_figures(const vp_rl_row *row, vp_rl_figures *f)
{
    *f = (vp_rl_figures){-1, -1, -1, -1, -1, -1};
    const vp_rl_cost *c = &row->cost;
    if (c->family == VP_RL_NONE)
        return;
    double s = (double)row->kernel_ns * 1e-9, calls = (double)row->calls;
    if (c->bytes > 0)
        f->intensity = c->flops / c->bytes;
    if (s > 0) {
        f->tflops = calls * c->flops / s / 1e12;
        if (c->bytes >= 0)
            f->tbs = calls * c->bytes / s / 1e12;
    }
    double P = row->peak_tflops, B = row->peak_tbs;
    if (P <= 0 || B <= 0 || c->bytes < 0)
        return;
    /* the ideal time of the calls: the longer of the compute time at the
     * peak and the memory time at the bandwidth (the roof at the op's
     * intensity); achieved / roof = ideal time / kernel time */
    double tc = c->flops / (P * 1e12), tm = c->bytes / (B * 1e12);
    f->compute_bound = tc >= tm;
    f->roof = c->bytes > 0 ? (P < f->intensity * B ? P : f->intensity * B) : P;
    if (s > 0)
        f->pct = 100 * calls * (tc > tm ? tc : tm) / s;
}

double vp_roofline_weighted_pct(const vp_roofline *r, unsigned mask)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const vp_rl_row *x = &r->rows[i];
        vp_rl_figures f;
        if (!(mask & 1u << x->cost.family))
            continue;
        vp_rl_row_figures(x, &f);
        if (f.pct < 0)
            continue;
        num += f.pct * (double)x->kernel_ns;
        den += (double)x->kernel_ns;
    }
    return den > 0 ? num / den : -1;
}
