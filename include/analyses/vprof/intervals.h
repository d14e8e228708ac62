/* Exact interval sets over integer nanoseconds.
 *
 * A set is a vector of half-open intervals [start, end).  Adding appends;
 * vp_ivset_normalize sorts by start and merges every pair that overlaps or
 * touches (HTA merges touching kernels too: [0,5) and [5,9) are one busy
 * period), after which the vector is sorted, disjoint and non-adjacent, and
 * the operations below are linear merges.  Empty or inverted intervals
 * (end <= start) are dropped on add: they cover no time.
 *
 * Memory: 16 bytes per interval added. */
#ifndef VPROF_INTERVALS_H
#define VPROF_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

typedef struct vp_ival {
    int64_t start, end;
} vp_ival;

typedef struct vp_ivset {
    vp_ival *v;
    size_t n, cap;
    int normalized;   /* sorted, disjoint, non-adjacent */
} vp_ivset;

#define VP_IVSET_INIT {NULL, 0, 0, 1}

void vp_ivset_init(vp_ivset *s);
void vp_ivset_free(vp_ivset *s);
/* Empties the set, keeping its storage for reuse. */
void vp_ivset_clear(vp_ivset *s);

void vp_ivset_add(vp_ivset *s, int64_t start, int64_t end);
void vp_ivset_normalize(vp_ivset *s);

/* The operations require normalized inputs (they normalize them when not)
 * and leave out normalized.  out may not be one of the inputs. */
void vp_ivset_union(vp_ivset *a, vp_ivset *b, vp_ivset *out);
void vp_ivset_intersect(vp_ivset *a, vp_ivset *b, vp_ivset *out);
void vp_ivset_subtract(vp_ivset *a, vp_ivset *b, vp_ivset *out);   /* a \ b */

/* Total length covered (normalizes s first). */
int64_t vp_ivset_measure(vp_ivset *s);
/* |a ∩ b| without building the intersection. */
int64_t vp_ivset_intersect_measure(vp_ivset *a, vp_ivset *b);
/* |s ∩ [start, end)| by binary search: O(log n + intervals inside). */
int64_t vp_ivset_measure_in(vp_ivset *s, int64_t start, int64_t end);

/* First start and last end, or 0 when empty (returns 0 then, 1 otherwise). */
int vp_ivset_bounds(vp_ivset *s, int64_t *start, int64_t *end);

/* Sorts intervals by start (a radix sort, linear in n). */
void vp_ival_sort(vp_ival *v, size_t n);

#endif
