/* pandas' describe() of doubles (vprof/describe.h).  The order of each
 * floating-point operation follows numpy's, so that the results equal
 * HTA's to the last bit where numpy's reduction order is the one below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/describe.h"

/* numpy's pairwise_sum (loops_utils.h): below 8 items a plain loop; up to
 * 128 eight accumulators combined as ((0+1)+(2+3))+((4+5)+(6+7)) and the
 * rest added in order; above, the two halves (the first a multiple of 8). */
double vp_pairwise_sum(const double *v, size_t n)
{
    if (n < 8) {
        double res = 0.;
        for (size_t i = 0; i < n; i++)
            res += v[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        memcpy(r, v, sizeof r);
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += v[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += v[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return vp_pairwise_sum(v, n2) + vp_pairwise_sum(v + n2, n - n2);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy.percentile(method="linear") of sorted s: the virtual index
 * q (n - 1) and numpy's _lerp, which computes from the upper neighbour
 * when the fraction is at least one half. */
static double quantile(const double *s, size_t n, double q)
{
    double virt = q * (double)(n - 1);
    double lo_f = floor(virt);
    size_t lo = (size_t)lo_f, hi = lo + 1 < n ? lo + 1 : n - 1;
    double t = virt - lo_f, a = s[lo], b = s[hi];
    double diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

void vp_describe_doubles(const double *v, size_t n, double *scratch, vp_describe *out)
{
    out->count = (int64_t)n;
    if (n == 0) {
        out->mean = out->std = out->min = out->q25 = out->q50 = out->q75 = out->max = NAN;
        return;
    }
    double count = (double)n;
    out->mean = vp_pairwise_sum(v, n) / count;
    if (n > 1) {
        /* pandas' std() goes to bottleneck's nanstd where bottleneck is
         * installed (HTA's oracles: it is): two plain passes in order, the
         * mean of the first, the squared deviations from it in the
         * second, over n - 1. */
        double sum = 0, sq = 0;
        for (size_t i = 0; i < n; i++)
            sum += v[i];
        double amean = sum / count;
        for (size_t i = 0; i < n; i++) {
            double d = v[i] - amean;
            sq += d * d;
        }
        out->std = sqrt(sq / (count - 1));
    } else {
        out->std = NAN;
    }
    memcpy(scratch, v, n * sizeof *v);
    qsort(scratch, n, sizeof *scratch, cmp_double);
    out->min = scratch[0];
    out->max = scratch[n - 1];
    out->q25 = quantile(scratch, n, 0.25);
    out->q50 = quantile(scratch, n, 0.5);
    out->q75 = quantile(scratch, n, 0.75);
}
