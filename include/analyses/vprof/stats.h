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

/* Calls a profiler already totalled (an api_statistic.csv row): how many
 * (>= 1), their total and extremes (ns), and m2, the sum of their squared
 * deviations from their mean (ns^2: count * the population variance). */
typedef struct vp_evagg {
    int64_t n, total, min, max;
    double m2;
} vp_evagg;

/* The summary of samples (sorted in place) and pre-totalled parts
 * together: count, total and extremes exact; mean total / n; stddev the
 * sample standard deviation of all the calls, the parts' m2 (the samples
 * being one more part) plus each part's n * (its mean - the mean)^2, in
 * one sum in a fixed order, in doubles (Chan et al.'s combination, its
 * deviations taken from exact integers); median NAN when nagg > 0 (no part keeps
 * one).  nagg == 0 is vp_summarize. */
void vp_summarize_with_aggs(int64_t *samples, size_t n, const vp_evagg *agg, size_t nagg,
                            vp_summary *out);

/* Sorts int64 values ascending (a radix sort: linear in n). */
void vp_sort_i64(int64_t *v, size_t n);

#endif
