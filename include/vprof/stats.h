/* Exact summary statistics of integer nanosecond samples. */
#ifndef VPROF_STATS_H
#define VPROF_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct vp_summary {
    int64_t n;
    int64_t total, min, max;
    double mean;
    double median;   /* exact: the middle sample, or the mean of the two middle ones */
    double stddev;   /* sample standard deviation (n - 1); 0 for one sample */
} vp_summary;

/* Sorts samples in place and summarises them. n == 0 gives all zeros. */
void vp_summarize(int64_t *samples, size_t n, vp_summary *out);

/* Sorts int64 values ascending (a radix sort: linear in n). */
void vp_sort_i64(int64_t *v, size_t n);

#endif
