/* The order of held slices (ops_tree.h): per thread, by start, the longer
 * first at equal starts, then in file order.  ops_sort_slices sorts vprof
 * sequences' slices (all threads in one array); ops_sort_thread, at the
 * end, sorts one of vprof ops' per-thread lists.
 *
 * Not qsort: a file holds millions of slices and glibc's qsort sorts
 * elements this large through an array of pointers, one cache miss per
 * comparison once the slices outgrow the caches.  The slices arrive
 * nearly sorted already: each thread's operators in start order, then its
 * runtime calls in start order.  So both merge the ascending runs a
 * thread holds: a thread written as one run costs one pass.
 * ops_sort_slices first deals the slices out by thread (a counting sort,
 * stable) and merges their indices; ops_sort_thread merges the slices of
 * a list in place, only where runs overlap. */
#include <stdlib.h>
#include <string.h>

#include "analysis/ops/ops_tree.h"

/* x before y within one thread. */
static int before(const slice *x, const slice *y)
{
    if (x->ts != y->ts)
        return x->ts < y->ts;
    if (x->end != y->end)
        return x->end > y->end;
    return x->order < y->order;
}

/* Merges the sorted runs a[0..m) and a[m..n) of indices into out[0..n). */
static void merge(const slice *s, const uint32_t *a, size_t m, size_t n, uint32_t *out)
{
    size_t i = 0, j = m, k = 0;
    while (i < m && j < n)
        out[k++] = before(&s[a[j]], &s[a[i]]) ? a[j++] : a[i++];
    memcpy(out + k, a + i, (m - i) * sizeof *a);
    k += m - i;
    memcpy(out + k, a + j, (n - j) * sizeof *a);
}

/* The ascending runs of the slices a[0..n) name: 1 + the descents. */
static size_t runs_in(const slice *s, const uint32_t *a, size_t n)
{
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        k += before(&s[a[i]], &s[a[i - 1]]);
    return k;
}

/* Sorts the indices a[0..n) by their slices, merging the ascending runs
 * pairwise through buf[0..n); run[] has room for runs_in + 1. */
static void sort_runs(const slice *s, uint32_t *a, uint32_t *buf, size_t n, size_t *run)
{
    size_t nrun = 0;
    run[nrun++] = 0;
    for (size_t i = 1; i < n; i++)
        if (before(&s[a[i]], &s[a[i - 1]]))
            run[nrun++] = i;
    run[nrun] = n;
    uint32_t *from = a, *to = buf;
    while (nrun > 1) {
        size_t out = 0;
        for (size_t r = 0; r < nrun; r += 2) {
            size_t lo = run[r], hi = run[r + 2 <= nrun ? r + 2 : nrun];
            if (r + 1 < nrun)
                merge(s, from + lo, run[r + 1] - lo, hi - lo, to + lo);
            else
                memcpy(to + lo, from + lo, (hi - lo) * sizeof *from);
            run[out++] = lo;
        }
        run[out] = n;
        nrun = out;
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != a)
        memcpy(a, from, n * sizeof *a);
}

/* Puts s[idx[k]] at k for every k, in place, cycle by cycle. */
static void permute(slice *s, uint32_t *idx, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (idx[k] == k)
            continue;
        slice t = s[k];
        size_t j = k;
        while (idx[j] != k) {
            size_t from = idx[j];
            s[j] = s[from];
            idx[j] = (uint32_t)j;
            j = from;
        }
        s[j] = t;
        idx[j] = (uint32_t)j;
    }
}

/* Indices, not slices, are dealt out and merged (4 bytes moved instead of
 * 48, and 8 bytes a slice aside instead of a second copy of the slices);
 * the slices move once at the end.  A file holds fewer than 2^32 slices
 * (their order is a uint32_t). */
void ops_sort_slices(slice *s, size_t n)
{
    if (n < 2)
        return;
    uint32_t nthreads = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].thread >= nthreads)
            nthreads = s[i].thread + 1;
    size_t *end = vp_calloc((size_t)nthreads + 1, sizeof *end);
    for (size_t i = 0; i < n; i++)
        end[s[i].thread + 1]++;
    for (uint32_t t = 0; t < nthreads; t++)
        end[t + 1] += end[t];
    uint32_t *idx = vp_malloc(n * sizeof *idx), *buf = vp_malloc(n * sizeof *buf);
    for (size_t i = 0; i < n; i++)   /* end[t]: the next place of thread t */
        idx[end[s[i].thread]++] = (uint32_t)i;
    size_t most = 0;   /* now end[t]: t's end */
    for (size_t t = 0, lo = 0; t < nthreads; lo = end[t++])
        if (end[t] > lo && runs_in(s, idx + lo, end[t] - lo) > most)
            most = runs_in(s, idx + lo, end[t] - lo);
    size_t *run = vp_malloc((most + 1) * sizeof *run);
    for (size_t t = 0, lo = 0; t < nthreads; lo = end[t++])
        if (end[t] > lo)
            sort_runs(s, idx + lo, buf + lo, end[t] - lo, run);
    permute(s, idx, n);
    free(run);
    free(buf);
    free(idx);
    free(end);
}

/* vprof ops' lists, one per thread, in file order: x before y. */
static int obefore(const oslice *x, const oslice *y)
{
    if (x->ts != y->ts)
        return x->ts < y->ts;
    return x->end > y->end;
}

/* Merges the adjacent sorted runs v[lo..mid) and v[mid..hi) in place,
 * stably.  Only where they overlap moves: the head of the first run that
 * comes before the second's first slice, and the tail of the second that
 * comes after the first's last, stay.  The rest of the first goes through
 * *tmp, then the two are merged forward into their place. */
static void omerge(oslice *v, size_t lo, size_t mid, size_t hi, oslice **tmp, size_t *tcap)
{
    if (!obefore(&v[mid], &v[mid - 1]))
        return;   /* already in order */
    size_t a = lo, b = mid;   /* a: the first of v[lo..mid) after v[mid] */
    while (a < b) {
        size_t h = a + (b - a) / 2;
        if (obefore(&v[mid], &v[h]))
            b = h;
        else
            a = h + 1;
    }
    size_t c = mid, d = hi;   /* d: the first of v[mid..hi) not before v[mid - 1] */
    while (c < d) {
        size_t h = c + (d - c) / 2;
        if (obefore(&v[h], &v[mid - 1]))
            c = h + 1;
        else
            d = h;
    }
    size_t na = mid - a;
    if (na > *tcap) {
        *tcap = na;
        free(*tmp);
        *tmp = vp_malloc(na * sizeof **tmp);
    }
    oslice *t = *tmp;
    memcpy(t, v + a, na * sizeof *t);
    size_t i = 0, j = mid, k = a;
    while (i < na && j < d)
        v[k++] = obefore(&v[j], &t[i]) ? v[j++] : t[i++];
    memcpy(v + k, t + i, (na - i) * sizeof *t);   /* fills up to d */
}

typedef struct osort {
    oslice *v, *tmp;
    size_t tcap;
} osort;

static int odescends(void *ctx, size_t i)
{
    const oslice *v = ((osort *)ctx)->v;
    return obefore(&v[i], &v[i - 1]);
}

static void omerge_runs(void *ctx, size_t lo, size_t mid, size_t hi)
{
    osort *o = ctx;
    omerge(o->v, lo, mid, hi, &o->tmp, &o->tcap);
}

/* A thread's slices arrive as a few long runs (its operators in start
 * order, its runtime calls later in start order), each overlapping the
 * next only over a stretch of time, so each merge moves that stretch and
 * no more, in memory order (the index sort of ops_sort_slices reads the
 * slices at random).  At worst, log2 runs passes over the list and a
 * buffer of half of it. */
void ops_sort_thread(othread *th)
{
    osort o = {th->v, NULL, 0};
    vp_sort_runs(th->n, odescends, omerge_runs, &o);
    free(o.tmp);
}
