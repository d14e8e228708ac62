/* GPU work by correlation id: the join between a runtime call (or any CPU
 * event carrying args.correlation) and the kernels, memcpys and memsets it
 * launched.  Collect (correlation, duration) pairs as the trace streams
 * by, seal once, then look up sums.  16 bytes per GPU activity.  Used by
 * vprof ops (Self GPU); meant for any analysis that joins launches to
 * their GPU work. */
#ifndef VPROF_CORRMAP_H
#define VPROF_CORRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct vp_corr_work {
    int64_t corr, dur;
} vp_corr_work;

typedef struct vp_corrmap {
    vp_corr_work *v;
    size_t n, cap;
} vp_corrmap;

/* Records dur ns of GPU work for correlation id corr (corr < 0: ignored). */
void vp_corrmap_add(vp_corrmap *m, int64_t corr, int64_t dur);
/* Sorts the records: call once after the last add, before lookups. */
void vp_corrmap_seal(vp_corrmap *m);
/* The records of corr, side by side (*n of them; NULL when none).  A
 * caller that needs more than the duration (vprof sequences: the name and
 * start) records an index into its own array as the value. */
const vp_corr_work *vp_corrmap_find(const vp_corrmap *m, int64_t corr, size_t *n);
/* The sum of the durations recorded for corr (0 when none). */
int64_t vp_corrmap_sum(const vp_corrmap *m, int64_t corr);
void vp_corrmap_free(vp_corrmap *m);

#endif
