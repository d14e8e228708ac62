/* The GPU work of one trace, kept as the few fields interval analyses need
 * (40 bytes per GPU event, never the event itself), and the breakdown of
 * GPU time that `vprof comm` and `vprof steps` share.
 *
 * GPU events are kernels, memcpys, memsets (any stream) and cuda_sync
 * events that sit on a stream (args.stream >= 0): Kineto writes Event Sync
 * and Context Sync with stream -1, host waits that occupy no stream, and
 * HTA leaves them out of its temporal breakdown too.  The class of each is
 * vp_classify_rules' with the args and launching-op evidence (docs/classification.md).
 *
 * Feed every event of a file to vp_gpuwork_observe, then resolve steps
 * once at the end of the file. */
#ifndef VPROF_GPUWORK_H
#define VPROF_GPUWORK_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/classify.h"
#include "vprof/intervals.h"
#include "vprof/part.h"
#include "vprof/steps.h"
#include "vprof/trace.h"

typedef struct vp_gpu_ev {
    int64_t start, end;   /* ns */
    int64_t corr;         /* args.correlation, -1 when absent */
    int32_t stream;       /* args.stream (else the tid), -1 when neither */
    int32_t step;         /* index of the launching step, -1: none (after resolve) */
    uint8_t cls;          /* vp_kclass */
    uint8_t kind;         /* vp_gpu_kind */
    uint8_t flags;        /* VP_GPU_F_* */
    uint8_t device;       /* the device that ran it: args.device, else the pid (the rule of
                           * kernels --by device); VP_GPU_DEVICE_NONE when neither is a
                           * number in 0..254 (an Ascend task: its rank is its device) */
    uint32_t aux;         /* the reader's (the run metrics' kernel name), UINT32_MAX = none;
                           * an analysis that rides on another's reading keeps its own map
                           * (comm's records: vp_gpuwork.dropped) */
} vp_gpu_ev;

#define VP_GPU_DEVICE_NONE 255

/* Ascend device work (docs/ascend.md): tasks of the "Ascend Hardware"
 * process and operations of the "Communication" process (vprof/ascend_tracks.h
 * tells the tracks).  Their step is the one whose window holds their
 * start, msprof's rule: the trace links them to no launch call. */
enum {
    VP_GPU_F_BY_TIME = 1,     /* step by start time, not by launch */
    VP_GPU_F_NPU_TASK_COMM = 2, /* an HCCL task of Ascend Hardware: left out when the trace
                                   has Communication operations, which are the same time */
    VP_GPU_F_RECEIVE = 4,     /* an hcom_receive*: msprof's Bubble */
    VP_GPU_F_UNDECIDED = 8,   /* a kernel compute for want of evidence in its name and args:
                                 its launching op may make it communication (resolve) */
    VP_GPU_F_BY_LAUNCHER = 16, /* communication by its launching op (after resolve) */
};

/* A CPU op's window on its thread (vp_steps_thread_key), for the
 * launching-op evidence of communication (docs/classification.md). */
typedef struct vp_thread_window {
    int64_t start, end;
    uint32_t tid;
} vp_thread_window;

/* An "Overlap Analysis" slice of an Ascend trace: kind 0..3 = Computing,
 * Communication, Communication(Not Overlapped), Free (VP_OVL_*).  Its
 * duration is kept in picoseconds too: msprof writes durations like
 * 1.2695 us, and rounding each of thousands of slices to whole
 * nanoseconds before adding them up would drift from msprof's sums. */
typedef struct vp_npu_slice {
    int64_t start, end;   /* ns */
    int64_t dur_ps;
    int kind;
} vp_npu_slice;

typedef struct vp_gpuwork {
    vp_gpu_ev *ev;
    size_t n, cap;
    vp_steps *steps;
    uint64_t no_dur;      /* GPU events without dur, skipped */
    uint64_t no_stream;   /* cuda_sync events with no stream, left out */
    uint64_t unlaunched;  /* after resolve: events with no launch in a step */
    void *names;          /* name -> class cache */
    void *npu;            /* vp_npu_tracks: the tracks of an Ascend trace */
    uint64_t npu_ops;     /* Communication operations seen (Ascend) */
    vp_npu_slice *slices; /* Overlap Analysis slices, in file order */
    size_t nslices, cap_slices;
    vp_kclass_rules *rules;   /* the run's overrides of the class rules, NULL: none (the
                               * caller's, set before the first event) */
    vp_thread_window *coll;   /* collective CPU ops (vp_collective_op) */
    size_t ncoll, cap_coll;
    vp_thread_window *inner;  /* other CPU ops that start inside a collective op seen
                               * before them on their thread (torch writes a thread's
                               * ops parent first): their launches are theirs */
    size_t ninner, cap_inner;
    uint64_t by_launcher;     /* after resolve: kernels made communication by their launcher */
    uint64_t *dropped;    /* after vp_gpuwork_resolve: bit i set when it dropped the i-th
                           * event it was given; NULL when it dropped none.  The kept
                           * ones keep their order, so that an analysis that numbered
                           * events as they came finds them (vp_gpuwork_dropped) */
} vp_gpuwork;

void vp_gpuwork_init(vp_gpuwork *w);
void vp_gpuwork_free(vp_gpuwork *w);

/* Takes one event: records ProfilerStep windows and launches (vp_steps),
 * and appends GPU events (and an Ascend trace's device tasks,
 * communication operations and Overlap Analysis slices).  Returns the index of the appended GPU event,
 * or -1 when the event is not one. */
long vp_gpuwork_observe(vp_gpuwork *w, const vp_event *ev);

/* The args of a GPU event that vprof reads, as one keyset:
 * vp_json_get_keyset's vals[0] stream, [1] correlation, [2] device, [3] "Collective
 * name" (the args evidence of communication): four spans. */
const vp_json_keyset *vp_gpu_args(void);

/* Gives every GPU event the index of the step whose ProfilerStep window
 * holds its launching call (an Ascend task: its start).  Ascend HCCL
 * tasks are dropped when Communication operations cover the same time.  With a range, keeps only the events launched
 * inside the selected steps (order preserved) and returns how many steps
 * were selected; without one, returns the number of steps. */
size_t vp_gpuwork_resolve(vp_gpuwork *w, const vp_step_range *range);

/* 1 when the last vp_gpuwork_resolve dropped the i-th event it was given. */
static inline int vp_gpuwork_dropped(const vp_gpuwork *w, size_t i)
{
    return w->dropped && (w->dropped[i / 64] >> (i % 64) & 1);
}

/* A walk from the events given to the last vp_gpuwork_resolve to their
 * indices after it (it keeps their order), for a reader that noted
 * events by their index before resolve (comm's records, kernels' and
 * merge's kernels waiting for their launcher): zeroed first, asked in
 * increasing order. */
typedef struct vp_gpu_remap {
    size_t pre, post;
} vp_gpu_remap;

/* The index after resolve of the event given at, -1 when resolve dropped it. */
static inline long vp_gpuwork_index_after(const vp_gpuwork *w, vp_gpu_remap *m, size_t at)
{
    if (!w->dropped)
        return at < w->n ? (long)at : -1;
    for (; m->pre < at; m->pre++)
        m->post += !vp_gpuwork_dropped(w, m->pre);
    return vp_gpuwork_dropped(w, at) || m->post >= w->n ? -1 : (long)m->post;
}

/* Interval sets of a group of GPU events, by class. */
typedef struct vp_gpu_sets {
    vp_ivset comp, comm, mem, sync;
    vp_ivset hidden;      /* COMP ∩ COMM, built on demand by vp_gpu_exposed_in */
    int have_hidden;
} vp_gpu_sets;

void vp_gpu_sets_init(vp_gpu_sets *s);
void vp_gpu_sets_free(vp_gpu_sets *s);

/* Times of a group of GPU events, all exact ns:
 *   span      last end - first start
 *   busy      |union of all|             idle = span - busy
 *   compute   |COMP|                     comm = |COMM|
 *   overlap   |COMP ∩ COMM|              exposed = comm - overlap
 *   memory    |MEM|                      memory_exposed = |MEM \ (COMP ∪ COMM)|
 *   free      span - |COMP ∪ COMM|       (msprof's Free)
 *   non_compute  span - compute - idle   (HTA's temporal breakdown) */
typedef struct vp_gpu_totals {
    int64_t first, last, span, busy, idle;
    int64_t compute, comm, overlap, exposed, memory, memory_exposed, free, non_compute;
    uint64_t events, kernels;
} vp_gpu_totals;

/* A vp_gpu_totals in a partial result (vprof/part.h): its 15 fields as
 * signed varints, in declaration order (comm's and steps' payloads). */
void vp_gpu_totals_put(vp_buf *b, const vp_gpu_totals *t);
void vp_gpu_totals_get(vp_rd *r, vp_gpu_totals *t);

/* Builds the sets of events ev[idx[i]] for i < n (idx NULL: ev[0..n)) and
 * their totals.  The sets stay valid (normalized) until the next call. */
void vp_gpu_measure(vp_gpu_sets *s, const vp_gpu_ev *ev, const uint32_t *idx, size_t n,
                    vp_gpu_totals *t);

/* The classes of GPU work as bits of a combination (vp_gpu_class_times). */
enum { VP_GPU_COMP_BIT = 1, VP_GPU_COMM_BIT = 2, VP_GPU_MEM_BIT = 4 };

/* HTA's kernel-type table of the sets vp_gpu_measure built: t[m] = the
 * time covered by exactly the classes of combination m (a mask of
 * VP_GPU_*_BIT) of compute, communication and memory, sync work left out;
 * t[0] = 0.  Their sum is |COMP ∪ COMM ∪ MEM|.  *instants: bit m set when
 * combination m holds at a single instant only, where one class's union
 * ends as another's begins (t[m] = 0; HTA lists such a combination with 0 us
 * when its unstable sort puts the start first). */
void vp_gpu_class_times(vp_gpu_sets *s, int64_t t[8], unsigned *instants);

/* The exposed communication of the sets vp_gpu_measure built that lies
 * inside [start, end): |COMM ∩ w| - |COMM ∩ COMP ∩ w|. */
int64_t vp_gpu_exposed_in(vp_gpu_sets *s, int64_t start, int64_t end);

/* A share of the steps' time over one window: the steps' wall time
 * (*wall, the sum of their windows) and the exposed communication inside
 * those windows (returned), so that their ratio covers the same time and
 * never passes 100 % (GPU work launched in a step may run after it, and
 * work launched outside every step still runs during them).  all: every
 * step, else the ones vp_steps_select selected; *nsteps: how many.
 * comm's Exposed/Step and the run metrics' comm.exposed_step_pct. */
int64_t vp_gpu_step_exposed(vp_gpu_sets *s, vp_steps *st, int all, int64_t *wall,
                            size_t *nsteps);

#endif
