/* numpy's indirect quicksort of int64 (vprof/describe.h), step for step,
 * so that equal keys end up in the order numpy leaves them in. */
#include "vprof/describe.h"

#define SMALL_QUICKSORT 15
#define QS_STACK 128

static int msb(size_t n)
{
    int depth = 0;
    while (n >>= 1)
        depth++;
    return depth;
}

static void swap(size_t *a, size_t *b)
{
    size_t t = *a;
    *a = *b;
    *b = t;
}

/* numpy's sift-down in aheapsort: tmp, taken from a[i], sinks to its
 * place in the heap a[1..n]. */
static void sift_down(const int64_t *v, size_t *a, size_t i, size_t tmp, size_t n)
{
    for (size_t j = i << 1; j <= n;) {
        if (j < n && v[a[j]] < v[a[j + 1]])
            j += 1;
        if (v[tmp] < v[a[j]]) {
            a[i] = a[j];
            i = j;
            j += j;
        } else {
            break;
        }
    }
    a[i] = tmp;
}

/* numpy's aheapsort, on the 1-based view a[1..n]. */
static void heapsort_idx(const int64_t *v, size_t *tosort, size_t n)
{
    size_t *a = tosort - 1, tmp;
    for (size_t l = n >> 1; l > 0; --l)
        sift_down(v, a, l, a[l], n);
    for (; n > 1;) {
        tmp = a[n];
        a[n] = a[1];
        n -= 1;
        sift_down(v, a, 1, tmp, n);
    }
}

void vp_np_argsort_i64(const int64_t *v, size_t *idx, size_t num)
{
    for (size_t i = 0; i < num; i++)
        idx[i] = i;
    if (num < 2)
        return;
    size_t *pl = idx, *pr = idx + num - 1;
    size_t *stack[QS_STACK], **sptr = stack;
    int depth[QS_STACK], *psdepth = depth;
    int cdepth = msb(num) * 2;
    for (;;) {
        if (cdepth < 0) {
            heapsort_idx(v, pl, (size_t)(pr - pl) + 1);
            goto stack_pop;
        }
        while (pr - pl > SMALL_QUICKSORT) {
            size_t *pm = pl + ((pr - pl) >> 1), *pi, *pj;
            if (v[*pm] < v[*pl])
                swap(pm, pl);
            if (v[*pr] < v[*pm])
                swap(pr, pm);
            if (v[*pm] < v[*pl])
                swap(pm, pl);
            int64_t vp = v[*pm];
            pi = pl;
            pj = pr - 1;
            swap(pm, pj);
            for (;;) {
                do
                    ++pi;
                while (v[*pi] < vp);
                do
                    --pj;
                while (vp < v[*pj]);
                if (pi >= pj)
                    break;
                swap(pi, pj);
            }
            swap(pi, pr - 1);
            /* the larger partition waits on the stack */
            if (pi - pl < pr - pi) {
                *sptr++ = pi + 1;
                *sptr++ = pr;
                pr = pi - 1;
            } else {
                *sptr++ = pl;
                *sptr++ = pi - 1;
                pl = pi + 1;
            }
            *psdepth++ = --cdepth;
        }
        for (size_t *pi = pl + 1; pi <= pr; ++pi) {
            size_t vi = *pi;
            int64_t vv = v[vi];
            size_t *pj = pi, *pk = pi - 1;
            while (pj > pl && vv < v[*pk])
                *pj-- = *pk--;
            *pj = vi;
        }
    stack_pop:
        if (sptr == stack)
            break;
        pr = *(--sptr);
        pl = *(--sptr);
        cdepth = *(--psdepth);
    }
}
