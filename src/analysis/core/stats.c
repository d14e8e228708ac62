/* Summary statistics over sorted samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/stats.h"
#include "vprof/util.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void vp_sort_i64(int64_t *v, size_t n)
{
    if (n < 2)
        return;  /* also keeps qsort away from a NULL array */
    if (n < 256) {
        qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    /* LSD radix sort on the bits that vary; durations rarely need more
     * than 5 of the 8 byte passes.  The sign bit is flipped so that
     * negative values sort first. */
    uint64_t *a = (uint64_t *)v, *tmp = vp_malloc(n * sizeof *tmp);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] ^= 1ULL << 63;
        if (a[i] < lo)
            lo = a[i];
        if (a[i] > hi)
            hi = a[i];
    }
    uint64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < 64 && (hi - lo) >> shift; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((src[i] - lo) >> shift & 0xFF) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] - lo) >> shift & 0xFF]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] ^= 1ULL << 63;
    free(tmp);
}

void vp_summarize(int64_t *s, size_t n, vp_summary *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    vp_sort_i64(s, n);
    long double sum = 0;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        /* saturates: only a damaged partial result holds such values */
        if (__builtin_add_overflow(total, s[i], &total))
            total = s[i] < 0 ? INT64_MIN : INT64_MAX;
        sum += (long double)s[i];
    }
    long double mean = sum / (long double)n;
    long double ss = 0;
    for (size_t i = 0; i < n; i++) {
        long double d = (long double)s[i] - mean;
        ss += d * d;
    }
    out->n = (int64_t)n;
    out->total = total;
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = (double)mean;
    out->median = n % 2 ? (double)s[n / 2] : ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2.0;
    out->stddev = n > 1 ? (double)sqrtl(ss / (long double)(n - 1)) : 0.0;
}

/* a + b, saturating as vp_summarize's total does */
static int64_t add_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b < 0 ? INT64_MIN : INT64_MAX) : r;
}

void vp_summarize_with_aggs(int64_t *s, size_t n, const vp_evagg *agg, size_t nagg,
                            vp_summary *out)
{
    vp_summarize(s, n, out);
    if (nagg == 0)
        return;
    /* In doubles, not long doubles: the same bits on every machine and
     * under valgrind, whose x87 emulation keeps 64 bits (and mangles
     * 128-bit integers converted to long double). */
    double m2 = 0;
    if (n > 0) {   /* the samples as the first part: their own m2 */
        double mean = (double)out->total / (double)n;
        for (size_t i = 0; i < n; i++)
            m2 += ((double)s[i] - mean) * ((double)s[i] - mean);
    }
    int64_t count = out->n, total = out->total, lo = out->min, hi = out->max;
    for (size_t i = 0; i < nagg; i++) {
        const vp_evagg *a = &agg[i];
        if (count == 0 || a->min < lo)
            lo = a->min;
        if (count == 0 || a->max > hi)
            hi = a->max;
        count = add_sat(count, a->n);
        total = add_sat(total, a->total);
        m2 += a->m2;
    }
    /* + n_i (mean_i - mean)^2 = (T_i N - T n_i)^2 / (n_i N^2), the
     * difference exact in 128 bits before it is rounded once */
    double nn = (double)count;
    for (size_t i = 0; i <= nagg; i++) {
        int64_t ni = i == 0 ? out->n : agg[i - 1].n, ti = i == 0 ? out->total : agg[i - 1].total;
        if (ni <= 0)
            continue;
        double d = (double)((__int128)ti * count - (__int128)total * ni);
        m2 += d / nn * (d / nn) / (double)ni;
    }
    out->n = count;
    out->total = total;
    out->min = lo;
    out->max = hi;
    out->mean = (double)total / nn;
    out->median = NAN;
    out->stddev = count > 1 ? sqrt(m2 / (nn - 1)) : 0.0;
}
