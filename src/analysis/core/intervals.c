/* Interval sets: sorted vectors, merged once, combined by linear merges. */
#include <stdlib.h>
#include <string.h>

#include "vprof/intervals.h"
#include "vprof/util.h"

void vp_ivset_init(vp_ivset *s)
{
    memset(s, 0, sizeof *s);
    s->normalized = 1;
}

void vp_ivset_free(vp_ivset *s)
{
    free(s->v);
    vp_ivset_init(s);
}

void vp_ivset_clear(vp_ivset *s)
{
    s->n = 0;
    s->normalized = 1;
}

static void reserve(vp_ivset *s, size_t extra)
{
    if (s->n + extra <= s->cap)
        return;
    size_t cap = s->cap ? s->cap * 2 : 64;
    while (cap < s->n + extra)
        cap *= 2;
    s->v = vp_realloc(s->v, cap * sizeof *s->v);
    s->cap = cap;
}

static void push(vp_ivset *s, int64_t start, int64_t end)
{
    reserve(s, 1);
    s->v[s->n++] = (vp_ival){start, end};
}

void vp_ivset_add(vp_ivset *s, int64_t start, int64_t end)
{
    if (end <= start)
        return;
    /* Most producers add in time order: stay normalized while we can, so
     * that sorting is skipped altogether. */
    if (s->normalized && s->n) {
        vp_ival *last = &s->v[s->n - 1];
        if (start > last->end) {
            push(s, start, end);
            return;
        }
        if (start >= last->start) {
            if (end > last->end)
                last->end = end;
            return;
        }
        s->normalized = 0;
    }
    push(s, start, end);
}

/* LSD radix sort on the start, 8 bits at a time, skipping the byte
 * positions where every key agrees (the high bytes of timestamps). */
void vp_ival_sort(vp_ival *v, size_t n)
{
    if (n < 2)
        return;
    if (n < 64) {
        for (size_t i = 1; i < n; i++) {
            vp_ival x = v[i];
            size_t j = i;
            while (j > 0 && v[j - 1].start > x.start) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
        }
        return;
    }
    size_t (*count)[256] = vp_calloc(8, sizeof *count);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)v[i].start ^ (UINT64_C(1) << 63);
        for (int b = 0; b < 8; b++)
            count[b][(k >> (8 * b)) & 0xFF]++;
    }
    vp_ival *tmp = vp_malloc(n * sizeof *tmp), *src = v, *dst = tmp;
    for (int b = 0; b < 8; b++) {
        size_t *c = count[b];
        int trivial = 0;
        for (int d = 0; d < 256; d++)
            if (c[d] == n)
                trivial = 1;
        if (trivial)
            continue;
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t t = c[d];
            c[d] = sum;
            sum += t;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t k = (uint64_t)src[i].start ^ (UINT64_C(1) << 63);
            dst[c[(k >> (8 * b)) & 0xFF]++] = src[i];
        }
        vp_ival *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    free(tmp);
    free(count);
}

void vp_ivset_normalize(vp_ivset *s)
{
    if (s->normalized)
        return;
    vp_ival_sort(s->v, s->n);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (w && s->v[i].start <= s->v[w - 1].end) {
            if (s->v[i].end > s->v[w - 1].end)
                s->v[w - 1].end = s->v[i].end;
        } else {
            s->v[w++] = s->v[i];
        }
    }
    s->n = w;
    s->normalized = 1;
}

void vp_ivset_union(vp_ivset *a, vp_ivset *b, vp_ivset *out)
{
    vp_ivset_normalize(a);
    vp_ivset_normalize(b);
    vp_ivset_clear(out);
    reserve(out, a->n + b->n);
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        const vp_ival *x = j >= b->n || (i < a->n && a->v[i].start <= b->v[j].start) ? &a->v[i++]
                                                                                      : &b->v[j++];
        if (out->n && x->start <= out->v[out->n - 1].end) {
            if (x->end > out->v[out->n - 1].end)
                out->v[out->n - 1].end = x->end;
        } else {
            out->v[out->n++] = *x;
        }
    }
}

void vp_ivset_intersect(vp_ivset *a, vp_ivset *b, vp_ivset *out)
{
    vp_ivset_normalize(a);
    vp_ivset_normalize(b);
    vp_ivset_clear(out);
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t s = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        int64_t e = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (s < e)
            push(out, s, e);   /* pieces of disjoint sets never touch */
        if (a->v[i].end < b->v[j].end)
            i++;
        else
            j++;
    }
}

void vp_ivset_subtract(vp_ivset *a, vp_ivset *b, vp_ivset *out)
{
    vp_ivset_normalize(a);
    vp_ivset_normalize(b);
    vp_ivset_clear(out);
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        int64_t s = a->v[i].start, e = a->v[i].end;
        while (j < b->n && b->v[j].end <= s)
            j++;
        size_t k = j;
        while (k < b->n && b->v[k].start < e) {
            if (b->v[k].start > s)
                push(out, s, b->v[k].start);
            if (b->v[k].end > s)
                s = b->v[k].end;
            k++;
        }
        if (s < e)
            push(out, s, e);
    }
}

int64_t vp_ivset_measure(vp_ivset *s)
{
    vp_ivset_normalize(s);
    int64_t m = 0;
    for (size_t i = 0; i < s->n; i++)
        m += s->v[i].end - s->v[i].start;
    return m;
}

int64_t vp_ivset_intersect_measure(vp_ivset *a, vp_ivset *b)
{
    vp_ivset_normalize(a);
    vp_ivset_normalize(b);
    int64_t m = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t s = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        int64_t e = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (s < e)
            m += e - s;
        if (a->v[i].end < b->v[j].end)
            i++;
        else
            j++;
    }
    return m;
}

int64_t vp_ivset_measure_in(vp_ivset *s, int64_t start, int64_t end)
{
    vp_ivset_normalize(s);
    if (end <= start)
        return 0;
    /* First interval that ends after start. */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].end <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t m = 0;
    for (size_t i = lo; i < s->n && s->v[i].start < end; i++) {
        int64_t a = s->v[i].start > start ? s->v[i].start : start;
        int64_t b = s->v[i].end < end ? s->v[i].end : end;
        if (a < b)
            m += b - a;
    }
    return m;
}

int vp_ivset_bounds(vp_ivset *s, int64_t *start, int64_t *end)
{
    vp_ivset_normalize(s);
    if (!s->n) {
        *start = *end = 0;
        return 0;
    }
    *start = s->v[0].start;
    *end = s->v[s->n - 1].end;
    return 1;
}
