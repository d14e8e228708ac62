/* The operators model of vprof/ops.h: names, input dims and rows, the
 * partial result, the order.  The trace pass is ops_read.c. */
#include <stdlib.h>
#include <string.h>

#include "vprof/ops.h"
#include "vprof/part.h"

void vp_ops_init(vp_ops *m, const vp_ops_opts *o)
{
    memset(m, 0, sizeof *m);
    m->o = *o;
    m->name_map = vp_strmap_new();
    m->shape_map = vp_strmap_new();
    m->row_map = vp_strmap_new();
    vp_ops_shape(m, "[]", 2);   /* index 0: no dims */
}

void vp_ops_free(vp_ops *m)
{
    for (size_t i = 0; i < m->nnames; i++)
        free(m->names[i]);
    for (size_t i = 0; i < m->nshapes; i++)
        free(m->shapes[i]);
    for (size_t i = 0; i < m->nfiles; i++)
        free(m->paths[i]);
    free(m->names);
    free(m->shapes);
    free(m->paths);
    free(m->ranks);
    free(m->rows);
    vp_strmap_free(m->name_map);
    vp_strmap_free(m->shape_map);
    vp_strmap_free(m->row_map);
    memset(m, 0, sizeof *m);
}

/* Interns s into (list, n) through map; the index. */
static uint32_t intern(vp_strmap *map, char ***list, size_t *n, const char *s, size_t len)
{
    int inserted;
    void **slot = vp_strmap_upsert(map, s, len, &inserted);
    if (!inserted)
        return (uint32_t)((uintptr_t)*slot - 1);
    *list = vp_realloc(*list, (*n + 1) * sizeof **list);
    (*list)[*n] = vp_strndup(s, len);
    *slot = (void *)(uintptr_t)(*n + 1);
    return (uint32_t)(*n)++;
}

/* torch's key_averages names every ProfilerStep#N "ProfilerStep*"
 * (profiler_util.py, rewrite_name with_wildcard). */
uint32_t vp_ops_name(vp_ops *m, const char *name, size_t len)
{
    static const char step[] = "ProfilerStep#";
    if (len >= sizeof step - 1 && memcmp(name, step, sizeof step - 1) == 0)
        name = "ProfilerStep*", len = 13;
    return intern(m->name_map, &m->names, &m->nnames, name, len);
}

uint32_t vp_ops_shape(vp_ops *m, const char *text, size_t len)
{
    uint32_t i = intern(m->shape_map, &m->shapes, &m->nshapes, text, len);
    return i;   /* "[]" was interned first: index 0 */
}

uint32_t vp_ops_row(vp_ops *m, uint32_t name, uint32_t shape, int32_t file)
{
    uint32_t key[3] = {name, shape, (uint32_t)file};
    int inserted;
    void **slot = vp_strmap_upsert(m->row_map, (const char *)key, sizeof key, &inserted);
    if (!inserted)
        return (uint32_t)((uintptr_t)*slot - 1);
    if (m->nrows == m->cap_rows) {
        m->cap_rows = m->cap_rows ? m->cap_rows * 2 : 256;
        m->rows = vp_realloc(m->rows, m->cap_rows * sizeof *m->rows);
    }
    vp_op_row *r = &m->rows[m->nrows];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->shape = shape;
    r->file = file;
    *slot = (void *)(uintptr_t)(m->nrows + 1);
    return (uint32_t)m->nrows++;
}

size_t vp_ops_new_file(vp_ops *m, const char *path)
{
    m->ranks = vp_realloc(m->ranks, (m->nfiles + 1) * sizeof *m->ranks);
    m->paths = vp_realloc(m->paths, (m->nfiles + 1) * sizeof *m->paths);
    m->ranks[m->nfiles] = -1;
    m->paths[m->nfiles] = vp_strdup(path);
    return m->nfiles++;
}

/* The partial result (docs/partials.md, "ops"): the flags (and the
 * device name when flag 8 says there is one), the files
 * (rank, path), the names, the input dims (after "[]") and the rows in
 * the order they were first seen, each with its sums.  Merged in input
 * order they give the rows one process reading the files in turn gives. */
void vp_ops_save(const vp_ops *m, vp_buf *b)
{
    vp_put_u64(b, (uint64_t)(m->gpu ? 1 : 0) | (uint64_t)(m->dims_seen ? 2 : 0) |
                      (uint64_t)(m->modules_seen ? 4 : 0) | (uint64_t)(m->device[0] ? 8 : 0));
    if (m->device[0])
        vp_put_str(b, m->device, strlen(m->device));
    vp_put_u64(b, m->nfiles);
    for (size_t i = 0; i < m->nfiles; i++) {
        vp_put_i64(b, m->ranks[i]);
        vp_put_str(b, m->paths[i], strlen(m->paths[i]));
    }
    vp_put_u64(b, m->nnames);
    for (size_t i = 0; i < m->nnames; i++)
        vp_put_str(b, m->names[i], strlen(m->names[i]));
    vp_put_u64(b, m->nshapes - 1);
    for (size_t i = 1; i < m->nshapes; i++)
        vp_put_str(b, m->shapes[i], strlen(m->shapes[i]));
    vp_put_u64(b, m->nrows);
    for (size_t i = 0; i < m->nrows; i++) {
        const vp_op_row *r = &m->rows[i];
        vp_put_u64(b, r->name);
        vp_put_u64(b, r->shape);
        vp_put_u64(b, (uint64_t)r->file);
        vp_put_i64(b, r->calls);
        vp_put_i64(b, r->cpu_total);
        vp_put_i64(b, r->self_cpu);
        vp_put_i64(b, r->self_gpu);
        vp_put_i64(b, r->gpu_total);
    }
}

int vp_ops_merge(vp_ops *m, const void *p, size_t n, vp_error *err)
{
    vp_rd r;
    vp_rd_init(&r, p, n);
    uint64_t flags = vp_get_u64(&r);
    m->gpu |= (flags & 1) != 0;
    m->dims_seen |= (flags & 2) != 0;
    m->modules_seen |= (flags & 4) != 0;
    if (flags & 8) {
        size_t len;
        const char *dev = vp_get_cstr(&r, &len);
        if (dev && !m->device[0] && len < sizeof m->device) {
            memcpy(m->device, dev, len);
            m->device[len] = 0;
        }
    }
    size_t base = m->nfiles;
    size_t nf = vp_get_count(&r, 2);
    for (size_t i = 0; i < nf && !r.bad; i++) {
        long rank = (long)vp_get_i64(&r);
        size_t len;
        const char *path = vp_get_cstr(&r, &len);
        if (!path)
            break;
        char *tmp = vp_strndup(path, len);
        size_t f = vp_ops_new_file(m, tmp);   /* it moves m->ranks */
        m->ranks[f] = rank;
        free(tmp);
    }
    size_t nn = vp_get_count(&r, 1);
    uint32_t *nmap = vp_malloc((nn ? nn : 1) * sizeof *nmap);
    for (size_t i = 0; i < nn; i++) {
        size_t len;
        const char *t = vp_get_cstr(&r, &len);
        nmap[i] = intern(m->name_map, &m->names, &m->nnames, t ? t : "", len);
    }
    size_t ns = vp_get_count(&r, 1);
    uint32_t *smap = vp_malloc((ns + 1) * sizeof *smap);
    smap[0] = 0;
    for (size_t i = 0; i < ns; i++) {
        size_t len;
        const char *t = vp_get_cstr(&r, &len);
        smap[i + 1] = vp_ops_shape(m, t ? t : "", len);
    }
    size_t nr = vp_get_count(&r, 8);
    for (size_t i = 0; i < nr && !r.bad; i++) {
        uint64_t name = vp_get_u64(&r), shape = vp_get_u64(&r), file = vp_get_u64(&r);
        vp_op_row add = {0};
        add.calls = vp_get_i64(&r);
        add.cpu_total = vp_get_i64(&r);
        add.self_cpu = vp_get_i64(&r);
        add.self_gpu = vp_get_i64(&r);
        add.gpu_total = vp_get_i64(&r);
        if (name >= nn || shape > ns || (file && file >= nf) || add.calls < 0) {
            r.bad = 1;
            break;
        }
        int32_t f = m->o.dims & VP_ODIM_RANK ? (int32_t)(base + file) : 0;
        uint32_t ri = vp_ops_row(m, nmap[name], smap[shape], f);   /* it moves m->rows */
        vp_op_row *row = &m->rows[ri];
        row->calls += add.calls;
        row->cpu_total += add.cpu_total;
        row->self_cpu += add.self_cpu;
        row->self_gpu += add.self_gpu;
        row->gpu_total += add.gpu_total;
    }
    free(nmap);
    free(smap);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged ops partial result");
        return -1;
    }
    return 0;
}

static vp_osort sort_key;
static const vp_ops *sort_ops;

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static int cmp_row(const void *a, const void *b)
{
    const vp_op_row *x = a, *y = b;
    int c = 0;
    switch (sort_key) {
    case VP_OSORT_SELF_CPU: c = cmp_i64(y->self_cpu, x->self_cpu); break;
    case VP_OSORT_CALLS: c = cmp_i64(y->calls, x->calls); break;
    case VP_OSORT_SELF_GPU: c = cmp_i64(y->self_gpu, x->self_gpu); break;
    case VP_OSORT_GPU_TOTAL: c = cmp_i64(y->gpu_total, x->gpu_total); break;
    case VP_OSORT_CPU_AVG: {
        /* total/calls compared exactly: y.t * x.c vs x.t * y.c */
        __int128 l = (__int128)y->cpu_total * (x->calls ? x->calls : 1);
        __int128 r = (__int128)x->cpu_total * (y->calls ? y->calls : 1);
        c = (l > r) - (l < r);
        break;
    }
    case VP_OSORT_NAME: break;
    default: c = cmp_i64(y->cpu_total, x->cpu_total); break;
    }
    if (c)
        return c;
    if (sort_key != VP_OSORT_NAME && (c = cmp_i64(y->cpu_total, x->cpu_total)) != 0)
        return c;
    if ((c = strcmp(sort_ops->names[x->name], sort_ops->names[y->name])) != 0)
        return c;
    if ((c = strcmp(sort_ops->shapes[x->shape], sort_ops->shapes[y->shape])) != 0)
        return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

void vp_ops_finish(vp_ops *m, vp_osort key)
{
    /* A row whose every operator was folded into its parent (an only
     * child of the same name) is empty: it is no row of torch's either. */
    size_t kept = 0;
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].calls)
            m->rows[kept++] = m->rows[i];
    m->nrows = kept;
    for (size_t i = 0; i < m->nrows; i++) {
        vp_op_row *r = &m->rows[i];
        r->rank = m->o.dims & VP_ODIM_RANK && (size_t)r->file < m->nfiles ? m->ranks[r->file]
                                                                          : -1;
    }
    /* The row index points at the old places. */
    vp_strmap_free(m->row_map);
    m->row_map = vp_strmap_new();
    sort_key = key;
    sort_ops = m;
    if (m->nrows)
        qsort(m->rows, m->nrows, sizeof *m->rows, cmp_row);
}

void vp_ops_fold(const vp_ops *m, size_t from, vp_op_row *sum)
{
    memset(sum, 0, sizeof *sum);
    for (size_t i = from; i < m->nrows; i++) {
        const vp_op_row *r = &m->rows[i];
        sum->calls += r->calls;
        sum->cpu_total += r->cpu_total;
        sum->self_cpu += r->self_cpu;
        sum->self_gpu += r->self_gpu;
        sum->gpu_total += r->gpu_total;
    }
}
