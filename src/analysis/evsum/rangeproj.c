/* The per-name model of ranges projected onto the GPU (vprof/rangeproj.h):
 * instances summed per (name, rank), partial results, the order. */
#include <stdlib.h>
#include <string.h>

#include "vprof/part.h"
#include "vprof/rangeproj.h"

void vp_rangeproj_init(vp_rangeproj *m)
{
    memset(m, 0, sizeof *m);
    m->strs = vp_strmap_new();
    m->keys = vp_strmap_new();
}

void vp_rangeproj_free(vp_rangeproj *m)
{
    for (size_t i = 0; i < m->nstr; i++)
        free(m->str[i]);
    free(m->str);
    for (size_t i = 0; i < m->ngroups; i++)
        free(m->groups[i].proj);
    free(m->groups);
    vp_strmap_free(m->strs);
    vp_strmap_free(m->keys);
    memset(m, 0, sizeof *m);
}

static uint32_t intern(vp_rangeproj *m, const char *p, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(m->strs, p, n, &inserted);
    if (inserted) {
        m->str = vp_realloc(m->str, (m->nstr + 1) * sizeof *m->str);
        m->str[m->nstr] = vp_strndup(p, n);
        *slot = (void *)(uintptr_t)++m->nstr;
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

static vp_projgroup *group(vp_rangeproj *m, uint32_t name, long rank)
{
    int64_t key[2] = {name, rank};
    int inserted;
    void **slot = vp_strmap_upsert(m->keys, (const char *)key, sizeof key, &inserted);
    if (inserted) {
        if (m->ngroups == m->cap) {
            m->cap = m->cap ? m->cap * 2 : 32;
            m->groups = vp_realloc(m->groups, m->cap * sizeof *m->groups);
        }
        vp_projgroup *g = &m->groups[m->ngroups];
        memset(g, 0, sizeof *g);
        g->name = name;
        g->rank = rank;
        *slot = (void *)(uintptr_t)++m->ngroups;
    }
    return &m->groups[(uintptr_t)*slot - 1];
}

static void push_proj(vp_projgroup *g, int64_t proj)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 8;
        g->proj = vp_realloc(g->proj, g->cap * sizeof *g->proj);
    }
    g->proj[g->n++] = proj;
}

static void add_sums(vp_projgroup *g, int64_t range_dur, int64_t ops, int64_t level,
                     int64_t children, int64_t gpu_time)
{
    g->range_total += range_dur;
    g->ops += ops;
    g->levels += level;
    g->children += children;
    g->gpu_time += gpu_time;
}

void vp_rangeproj_add(vp_rangeproj *m, const char *name, size_t len, long rank, int64_t proj,
                      int64_t range_dur, int64_t ops, int64_t level, int64_t children,
                      int64_t gpu_time)
{
    vp_projgroup *g = group(m, intern(m, name, len), rank);
    push_proj(g, proj);
    add_sums(g, range_dur, ops, level, children, gpu_time);
}

/* Per group: name, rank + 1, the sums, then every projected duration. */
void vp_rangeproj_save(const vp_rangeproj *m, vp_buf *b)
{
    vp_put_u64(b, m->ngroups);
    for (size_t i = 0; i < m->ngroups; i++) {
        const vp_projgroup *g = &m->groups[i];
        const char *name = m->str[g->name];
        vp_put_str(b, name, strlen(name));
        vp_put_i64(b, g->rank);
        vp_put_i64(b, g->range_total);
        vp_put_i64(b, g->ops);
        vp_put_i64(b, g->levels);
        vp_put_i64(b, g->children);
        vp_put_i64(b, g->gpu_time);
        vp_put_u64(b, g->n);
        for (size_t j = 0; j < g->n; j++)
            vp_put_i64(b, g->proj[j]);
    }
}

void vp_rangeproj_load(vp_rangeproj *m, struct vp_rd *r)
{
    size_t ng = vp_get_count(r, 8);
    for (size_t i = 0; i < ng && !r->bad; i++) {
        size_t len;
        const char *name = vp_get_cstr(r, &len);
        long rank = (long)vp_get_i64(r);
        int64_t sums[5];
        for (int k = 0; k < 5; k++)
            sums[k] = vp_get_i64(r);
        size_t n = vp_get_count(r, 1);
        if (r->bad || !name)
            break;
        vp_projgroup *g = group(m, intern(m, name, len), rank);
        add_sums(g, sums[0], sums[1], sums[2], sums[3], sums[4]);
        for (size_t j = 0; j < n && !r->bad; j++)
            push_proj(g, vp_get_i64(r));
    }
}

static const vp_rangeproj *sort_ctx;

static int cmp_group(const void *a, const void *b)
{
    const vp_projgroup *x = a, *y = b;
    if (x->d.total != y->d.total)
        return (y->d.total > x->d.total) - (y->d.total < x->d.total);
    int c = strcmp(sort_ctx->str[x->name], sort_ctx->str[y->name]);
    if (c)
        return c;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

void vp_rangeproj_finish(vp_rangeproj *m)
{
    m->grand = 0;
    for (size_t i = 0; i < m->ngroups; i++) {
        vp_projgroup *g = &m->groups[i];
        vp_summarize(g->proj, g->n, &g->d);
        m->grand += g->d.total;
    }
    sort_ctx = m;
    if (m->ngroups)
        qsort(m->groups, m->ngroups, sizeof *m->groups, cmp_group);
    vp_strmap_free(m->keys);   /* it points at the old places */
    m->keys = vp_strmap_new();
}
