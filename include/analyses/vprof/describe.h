/* pandas' Series.describe() of double samples, bit for bit where it can
 * be: count; mean = numpy's pairwise sum / count (pandas never hands the
 * mean to bottleneck); std with ddof 1 as bottleneck's nanstd computes it
 * (pandas' choice where bottleneck is installed, as where HTA's oracles
 * were made: a plain sum for the mean, then a plain sum of the squared
 * deviations, over n - 1); min; the 25, 50 and 75 %
 * quantiles by numpy's linear interpolation (virtual index q (n - 1),
 * numpy's _lerp); max.  HTA's summaries are groupby().describe(). */
#ifndef VPROF_DESCRIBE_H
#define VPROF_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

typedef struct vp_describe {
    int64_t count;
    double mean, std, min, q25, q50, q75, max;   /* std NaN for one sample; all NaN for none */
} vp_describe;

/* v is not changed; scratch holds n doubles (sorted there). */
void vp_describe_doubles(const double *v, size_t n, double *scratch, vp_describe *out);

/* numpy's pairwise summation (the order np.add.reduce adds doubles in). */
double vp_pairwise_sum(const double *v, size_t n);

/* numpy's argsort(kind="quicksort") of int64 keys (numpy 1.24's
 * aquicksort: median-of-3 introsort, insertion sort on 16 items or fewer, a heap
 * sort past 2 log2(n) levels), which pandas' sort_values(by=one column)
 * runs: idx (n entries) receives the permutation.  It is not stable; HTA's
 * order of equal times is this one. */
void vp_np_argsort_i64(const int64_t *keys, size_t *idx, size_t n);

#endif
