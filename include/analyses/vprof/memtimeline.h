/* The output of PyTorch's `profiler.export_memory_timeline()`: memory per
 * category (parameter, optimizer state, input, temporary, activation,
 * gradient, autograd detail, unknown) over time.
 *
 * Two forms are read: the raw `.raw.json.gz` list of [t_ns, action, bytes,
 * category] (t_ns -1 = existed before profiling; bytes negative for frees)
 * that HTA reads, and the `.json.gz` pair [times_us, sizes] whose sizes[k]
 * holds 9 cumulative byte counts (index 0 unused, then the categories). */
#ifndef VPROF_MEMTIMELINE_H
#define VPROF_MEMTIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"

#define VP_MEMCAT_COUNT 8

extern const char *const vp_memcat_names[VP_MEMCAT_COUNT];

typedef struct vp_memtimeline {
    int raw;                      /* 1: the raw list; 0: the [times, sizes] pair */
    size_t n;                     /* points */
    int64_t *ts;                  /* ns after each point (-1: before profiling) */
    int64_t *total;               /* bytes of all categories after each point */
    size_t peak;                  /* point of the highest total (earliest wins) */
    int64_t at_peak[VP_MEMCAT_COUNT];   /* bytes per category at the peak */
    int64_t cat_peak[VP_MEMCAT_COUNT];  /* each category's own maximum */
} vp_memtimeline;

/* 1 when the text (after whitespace) starts like either form: "[[". */
int vp_memtimeline_detect(const char *data, size_t len);

/* Parses and replays; 0, or -1 with err naming the file and byte. */
int vp_memtimeline_parse(const char *data, size_t len, const char *name, vp_memtimeline *out,
                         vp_error *err);
void vp_memtimeline_free(vp_memtimeline *t);

#endif
