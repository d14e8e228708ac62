/* GPU work by correlation id (vprof/corrmap.h): a sorted array, not a
 * hash table: one sort per file is cheaper than a probe per kernel, and
 * repeated ids (a memcpy and a kernel of one call) sit side by side. */
#include <stdlib.h>

#include "vprof/corrmap.h"
#include "vprof/util.h"

void vp_corrmap_add(vp_corrmap *m, int64_t corr, int64_t dur)
{
    if (corr < 0)
        return;
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 4096;
        m->v = vp_realloc(m->v, m->cap * sizeof *m->v);
    }
    m->v[m->n++] = (vp_corr_work){corr, dur};
}

static int cmp_corr(const void *a, const void *b)
{
    const vp_corr_work *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

void vp_corrmap_seal(vp_corrmap *m)
{
    if (m->n)
        qsort(m->v, m->n, sizeof *m->v, cmp_corr);
}

const vp_corr_work *vp_corrmap_find(const vp_corrmap *m, int64_t corr, size_t *n)
{
    *n = 0;
    if (corr < 0)
        return NULL;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo + *n < m->n && m->v[lo + *n].corr == corr)
        ++*n;
    return *n ? &m->v[lo] : NULL;
}

int64_t vp_corrmap_sum(const vp_corrmap *m, int64_t corr)
{
    size_t n;
    const vp_corr_work *w = vp_corrmap_find(m, corr, &n);
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += w[i].dur;
    return sum;
}

void vp_corrmap_free(vp_corrmap *m)
{
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}
