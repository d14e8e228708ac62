/* The partial result of `vprof launches` (docs/partials.md, "launches"):
 * the files with their counts, the names, the kept rows and the groups
 * with every sample.  Merged in input order, they give what one process
 * reading the files in turn gives. */
#include <stdlib.h>
#include <string.h>

#include "vprof/launches.h"
#include "vprof/part.h"

static void put_samples(vp_buf *b, const int64_t *v, size_t n)
{
    vp_put_u64(b, n);
    for (size_t i = 0; i < n; i++)
        vp_put_i64(b, v[i]);
}

void vp_launches_save(const vp_launches *l, vp_buf *b)
{
    vp_put_u64(b, l->nfiles);
    for (size_t i = 0; i < l->nfiles; i++) {
        const vp_lfile *f = &l->files[i];
        vp_put_str(b, f->path, strlen(f->path));
        vp_put_i64(b, f->rank);
        const int64_t c[] = {f->launches, f->runtime_over, f->delay_over, f->short_gpu,
                             f->cpu_total, f->gpu_total, f->delay_total, f->delay_max,
                             f->unlaunched, f->launch_bound};
        for (size_t j = 0; j < sizeof c / sizeof *c; j++)
            vp_put_i64(b, c[j]);
    }
    vp_put_u64(b, l->nnames);
    for (size_t i = 0; i < l->nnames; i++)
        vp_put_str(b, l->names[i], strlen(l->names[i]));
    vp_put_i64(b, l->all_rows);
    vp_put_u64(b, l->nrows);
    for (size_t i = 0; i < l->nrows; i++) {
        const vp_launch *x = &l->rows[i];
        const int64_t v[] = {x->corr, x->cpu_ts, x->gpu_ts, x->cpu_dur, x->gpu_dur, x->delay};
        for (size_t j = 0; j < 6; j++)
            vp_put_i64(b, v[j]);
        vp_put_u64(b, x->api);
        vp_put_u64(b, x->name);
        vp_put_u64(b, x->file);
        vp_put_u64(b, x->kind);
    }
    vp_put_u64(b, l->ngroups);
    for (size_t i = 0; i < l->ngroups; i++) {
        const vp_lgroup *g = &l->groups[i];
        vp_put_u64(b, g->api);
        vp_put_u64(b, g->name);
        put_samples(b, g->api_t, g->n);
        put_samples(b, g->kernel_t, g->n);
        put_samples(b, g->total_t, g->n);
        put_samples(b, g->queue_t, g->nq);
    }
}

/* Reads count samples into a fresh array (NULL when none). */
static int64_t *get_samples(vp_rd *r, size_t *n)
{
    *n = vp_get_count(r, 1);
    int64_t *v = *n && !r->bad ? vp_malloc(*n * sizeof *v) : NULL;
    for (size_t i = 0; v && i < *n; i++)
        v[i] = vp_get_i64(r);
    return v;
}

static void merge_group(vp_launches *l, vp_rd *r, const uint32_t *nmap, size_t nn)
{
    uint64_t api = vp_get_u64(r), name = vp_get_u64(r);
    size_t na, nk, nt, nq;
    int64_t *a = get_samples(r, &na), *k = get_samples(r, &nk), *t = get_samples(r, &nt);
    int64_t *q = get_samples(r, &nq);
    if (api >= nn || name >= nn || na != nk || na != nt || nq > na)
        r->bad = 1;
    if (!r->bad) {
        vp_lgroup *g = vp_launches_group(l, nmap[api], nmap[name]);
        for (size_t i = 0; i < na; i++)
            vp_lgroup_add(g, a[i], k[i], t[i]);
        for (size_t i = 0; i < nq; i++)
            vp_lgroup_add_queue(g, q[i]);
    }
    free(a);
    free(k);
    free(t);
    free(q);
}

int vp_launches_merge(vp_launches *l, const void *p, size_t n, vp_error *err)
{
    vp_rd r;
    vp_rd_init(&r, p, n);
    size_t base = l->nfiles;
    size_t nf = vp_get_count(&r, 10);
    for (size_t i = 0; i < nf && !r.bad; i++) {
        size_t len;
        const char *s = vp_get_cstr(&r, &len);
        char *path = vp_strndup(s ? s : "", s ? len : 0);
        long rank = (long)vp_get_i64(&r);
        size_t fi = vp_launches_new_file(l, path, rank);   /* moves l->files */
        vp_lfile *f = &l->files[fi];
        free(path);
        int64_t *c[] = {&f->launches, &f->runtime_over, &f->delay_over, &f->short_gpu,
                        &f->cpu_total, &f->gpu_total, &f->delay_total, &f->delay_max,
                        &f->unlaunched, &f->launch_bound};
        for (size_t j = 0; j < sizeof c / sizeof *c; j++)
            *c[j] = vp_get_i64(&r);
    }
    size_t nn = vp_get_count(&r, 1);
    uint32_t *nmap = vp_malloc((nn ? nn : 1) * sizeof *nmap);
    for (size_t i = 0; i < nn && !r.bad; i++) {
        size_t len;
        const char *s = vp_get_cstr(&r, &len);
        nmap[i] = s ? vp_launches_intern(l, s, len) : 0;
    }
    l->all_rows += vp_get_i64(&r);
    size_t nr = vp_get_count(&r, 10);
    for (size_t i = 0; i < nr && !r.bad; i++) {
        vp_launch x;
        int64_t *v[] = {&x.corr, &x.cpu_ts, &x.gpu_ts, &x.cpu_dur, &x.gpu_dur, &x.delay};
        for (size_t j = 0; j < 6; j++)
            *v[j] = vp_get_i64(&r);
        uint64_t api = vp_get_u64(&r), name = vp_get_u64(&r), file = vp_get_u64(&r);
        x.kind = (uint32_t)vp_get_u64(&r);
        if (api >= nn || name >= nn || file >= nf) {
            r.bad = 1;
            break;
        }
        x.api = nmap[api];
        x.name = nmap[name];
        x.file = (uint32_t)(base + file);
        l->all_rows--;   /* counted in the partial's all_rows already */
        vp_launches_keep_row(l, &x);
    }
    size_t ng = vp_get_count(&r, 6);
    for (size_t i = 0; i < ng && !r.bad; i++)
        merge_group(l, &r, nmap, nn);
    free(nmap);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged launches partial result");
        return -1;
    }
    return 0;
}
