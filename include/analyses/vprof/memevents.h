/* Memory use from a Kineto trace's `[memory]` and `[OutOfMemory]` instant
 * events (torch.profiler with profile_memory=True).
 *
 * Each `[memory]` event is one allocator call seen by the profiler, on the
 * CPU thread that made it: `Bytes` (> 0 allocation, < 0 free) and the
 * allocator's `Total Allocated` and `Total Reserved` after it, per
 * (`Device Type`, `Device Id`).  Peaks are the maxima of those totals; the
 * earliest event wins a tie.  Feed every event, then read the devices. */
#ifndef VPROF_MEMEVENTS_H
#define VPROF_MEMEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/trace.h"
#include "vprof/util.h"

typedef struct vp_mem_point {
    int64_t ts;          /* ns, as in the trace */
    int64_t bytes;       /* the call's Bytes */
    int64_t allocated;   /* Total Allocated after it */
    int64_t reserved;    /* Total Reserved after it */
    int64_t order;       /* Ev Idx when present, else position in the file */
} vp_mem_point;

typedef struct vp_mem_device {
    int type;            /* c10 DeviceType: 0 CPU, 1 CUDA, 6 HIP, 12 XPU, 13 MPS, 20 PrivateUse1 */
    int id;              /* Device Id (-1 for CPU) */
    uint64_t allocs, frees;
    vp_mem_point peak_alloc;     /* the event with the highest Total Allocated */
    vp_mem_point peak_reserved;  /* ... with the highest Total Reserved */
    vp_mem_point last;           /* the latest event */
    char *peak_pid, *peak_tid;   /* raw pid and tid of peak_alloc's event */
    char *peak_op;               /* the CPU op at peak_alloc, once a caller found it
                                  * (vp_op_finder); freed with the rest */
    vp_mem_point *points;        /* the events kept (vp_memevents_new's keep_points) */
    /* Events without Total Allocated and Total Reserved (torch 1.8-1.10
     * write Bytes only): their allocated is the running sum of the
     * device's Bytes in file order, from 0 where the trace begins (what
     * was allocated before the profiler started is not seen), their
     * reserved -1 (unknown). */
    uint64_t replayed;
    int64_t running;
    size_t npoints, cap;
} vp_mem_device;

typedef struct vp_mem_oom {
    int type, id;
    int64_t ts, bytes, allocated, reserved;
} vp_mem_oom;

typedef struct vp_memevents {
    vp_mem_device *devices;      /* sorted by (type, id) after vp_memevents_finish */
    size_t ndevices;
    vp_mem_oom *ooms;
    size_t nooms;
    uint64_t events;             /* [memory] events seen */
    uint64_t bad;                /* [memory] events without the totals (skipped) */
    int64_t start;               /* the earliest ts of any event observed (metadata aside):
                                  * the trace's start, the origin of the times people
                                  * read; valid when has_start */
    int has_start;
    int keep_points;
} vp_memevents;

/* keep_points: which events a device keeps as points.
 * VP_MEM_POINTS_CHART keeps what a chart of bytes over time draws
 * (vprof/plot.h), in bounded memory: every event while the device has
 * fewer than VP_MEM_CHART_POINTS; from that many on, per time bucket
 * (at most VP_MEM_CHART_BUCKETS over the device's span, a power of two
 * nanoseconds wide: under half a column of the 880 a chart has) the
 * first and the last event and those with the least and the most
 * allocated and reserved bytes, the earliest of equals.  So each
 * column's extremes, its first and last values and the peaks are those
 * of every event; a bucket that straddles two columns can give one's
 * extreme to the other.  The result depends on the events alone, not on
 * when they were thinned, and a partial's points merged into a new
 * model (vprof/report_run.h) finish to the same. */
enum { VP_MEM_POINTS_NONE, VP_MEM_POINTS_ALL, VP_MEM_POINTS_CHART };
#define VP_MEM_CHART_BUCKETS 2048
#define VP_MEM_CHART_POINTS 16384
vp_memevents *vp_memevents_new(int keep_points);
/* Give it every event of the trace: each one's ts moves the start. */
void vp_memevents_observe(vp_memevents *m, const vp_event *ev);
/* Sorts devices, and each device's points by (ts, order) (thinned, with
 * VP_MEM_POINTS_CHART, where the device had VP_MEM_CHART_POINTS events
 * or more). */
void vp_memevents_finish(vp_memevents *m);
void vp_memevents_free(vp_memevents *m);

/* Partial results (docs/partials.md, "memory"): the devices' counts,
 * peaks, last events and peak ops, the OOM events and the start (the
 * earliest of the traces'), without the points.
 * Merged in input order, partials of several traces give what one pass
 * over the traces in turn gives: peaks by maximum, the earliest event
 * (ts, then Ev Idx) winning a tie; the latest event last, a later input
 * winning a tie; OOMs in input order.  Merge before vp_memevents_finish;
 * -1 with err set when the partial is damaged. */
#define VP_MEMEVENTS_PART_VERSION 3
void vp_memevents_save(const vp_memevents *m, vp_buf *out);
int vp_memevents_merge(vp_memevents *m, const void *p, size_t n, vp_error *err);

/* "cuda:1", "cpu", "hip:0", "type7:2" ... */
void vp_mem_device_name(int type, int id, char *buf, size_t n);

/* One event of the peak's thread that contains ts: the innermost `cpu_op`
 * (smallest duration; a later start wins a tie).  Call for every event of a
 * second pass over the trace. */
typedef struct vp_op_finder {
    const char *pid, *tid;       /* raw spans to match */
    int64_t ts;
    int64_t best_dur;
    char *name;                  /* the op found, or NULL */
    int64_t best_start;
} vp_op_finder;

void vp_op_finder_observe(vp_op_finder *f, const vp_event *ev);

/* The CPU op running at each device's peak (peak_op), from a second
 * reading of the trace m was filled from (not standard input: it cannot
 * be read twice), with the options of the first. */
struct vp_trace_pass_opts;
void vp_memevents_find_ops(vp_memevents *m, const char *file, const struct vp_trace_pass_opts *o);

/* A trace's [memory] events, finished: read once for the peaks (and the
 * points, with keep_points), then, with find_ops, once more for the CPU op
 * running at each device's peak (holding every op of a long trace to look
 * one up later would cost memory in proportion to the trace).  NULL with
 * err set when the trace cannot be read. */
vp_memevents *vp_memevents_read(const char *file, const vp_trace_opts *topts, int keep_points,
                                int find_ops, vp_error *err);

#endif
