/* HTA's lightweight critical path of one window of a trace (one instance
 * of an annotation such as ProfilerStep, or the whole trace): a graph of
 * CPU op begin/end nodes nested on their thread, runtime launches to their
 * kernels, kernels in order on their stream and CUDA synchronisation edges;
 * its longest path, with HTA's edge types and bound_by attribution
 * (docs/critical-path.md says where each rule comes from).
 *
 * Times follow HTA: microseconds on HTA's grid (a start rounded up, an end
 * rounded down), so that the same path comes out on nanosecond traces.
 * Memory: a compact row per event that has a duration that the window
 * may need (its own events, and every launch, kernel and sync of the
 * trace: HTA's queue length and event-record matching run over the whole
 * trace; CPU ops outside the window are dropped as they are read), plus
 * the window's graph. */
#ifndef VPROF_CRITPATH_H
#define VPROF_CRITPATH_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/trace.h"
#include "vprof/util.h"

typedef enum vp_cp_edge_type {
    VP_CP_OPERATOR = 0,      /* critical_path_operator: an op's or kernel's span */
    VP_CP_DEPENDENCY,        /* critical_path_dependency: between top-level ops (weight 0) */
    VP_CP_LAUNCH_DELAY,      /* critical_path_kernel_launch_delay: launch start -> kernel start */
    VP_CP_KERNEL_DELAY,      /* critical_path_kernel_kernel_delay: kernel end -> next kernel start */
    VP_CP_SYNC,              /* critical_path_sync_dependency: GPU -> CPU or GPU -> GPU (weight 0) */
} vp_cp_edge_type;

typedef enum vp_cp_bound {
    VP_CP_BOUND_NONE = 0,    /* dependency and sync edges: HTA's empty bound_by */
    VP_CP_BOUND_CPU,
    VP_CP_BOUND_DATA_LOADING,
    VP_CP_BOUND_GPU_COMPUTE,
    VP_CP_BOUND_GPU_COMM,
    VP_CP_BOUND_LAUNCH,      /* gpu_kernel_launch_overhead */
    VP_CP_BOUND_KERNEL_GAP,  /* gpu_kernel_kernel_overhead */
    VP_CP_BOUND_COUNT
} vp_cp_bound;

/* One event of the trace that has a duration and a category (HTA's frame
 * row); times in HTA's microseconds. */
typedef struct vp_cp_row {
    int64_t idx;             /* index in traceEvents */
    int64_t ts, dur;         /* us, HTA-rounded */
    int64_t pid, tid;
    int64_t corr;            /* args.correlation, -1 when absent */
    int64_t wait_corr;       /* args.wait_on_cuda_event_record_corr_id, -1 */
    int32_t stream;          /* args.stream, -1 when absent or not a number */
    int32_t wait_stream;     /* args.wait_on_stream, -1 */
    int32_t device;          /* args.device, -1 */
    int32_t partner;         /* row of the correlated CPU call / GPU event, -1 */
    int8_t icorr;            /* HTA's index_correlation sign: -1, 0, or 1 (partner set) */
    uint8_t kind;            /* vp_ev_kind (vprof/classify.h) */
    uint32_t name, cat;      /* interned */
} vp_cp_row;

/* One edge of the path, in path order. */
typedef struct vp_cp_step {
    int64_t begin_ts, end_ts;    /* us, of the edge's two nodes */
    int64_t weight;              /* us: HTA's edge weight (duration) */
    int32_t row;                 /* the event the edge is attributed to, -1 none */
    int32_t from_row, to_row;    /* the events of the edge's two nodes */
    uint8_t from_start, to_start;/* whether each node is its event's start */
    vp_cp_edge_type type;
    vp_cp_bound bound;
} vp_cp_step;

typedef struct vp_cp_opts {
    const char *annotation;      /* substring of the window's event name; "" = whole trace */
    long instance;               /* which one, counted from 0 in file order */
    const char *const *data_load;/* extended regexes of data-loading event names, NULL-ended */
    int partial;
} vp_cp_opts;

typedef struct vp_critpath {
    /* the trace */
    vp_cp_row *rows;
    size_t nrows;
    char **names;                /* interned names and categories */
    size_t nnames;
    void *intern;                /* vp_strmap */
    int dropped_last_step;       /* HTA's loading rule: the last ProfilerStep left out */
    int32_t dropped_step;        /* then its name (an index in names), else -1 */
    uint32_t *dropped_by_name;   /* then per name, the rows it left out (for the messages) */
    size_t ndropped_by_name;
    size_t nread;                /* events with a duration read */
    size_t pruned;               /* of them, dropped as the window needs none */
    int64_t pruned_min_ts;       /* the earliest of those, us */
    int64_t window_idx;          /* traceEvents index of the window's event, -1 */
    size_t rows_cap;             /* while reading */
    void *gpu_cache;             /* the trace's queue lengths and event maps, made once */
    int64_t next_idx;
    /* the window */
    int64_t win_start, win_end;  /* us */
    long instances;              /* annotation instances found */
    size_t graph_nodes, graph_edges;
    /* the result */
    vp_cp_step *path;
    size_t npath;
    size_t path_nodes;
    int32_t *critical_rows;      /* rows of the path's events, ascending */
    size_t ncritical;
    int64_t bound_us[VP_CP_BOUND_COUNT];
    int64_t total_us;
    size_t nwarn_no_edge;        /* kernels HTA would warn about: no edge into them */
} vp_critpath;

const char *vp_cp_edge_type_name(vp_cp_edge_type t);   /* HTA's strings */
const char *vp_cp_bound_name(vp_cp_bound b);           /* HTA's strings; "" for NONE */

/* Reads path and computes the critical path of the window.  VP_EXIT_INPUT
 * with err set on unreadable input, on no such annotation instance, and on
 * a graph HTA would refuse (a cycle, a negative span). */
int vp_critpath_run(vp_critpath *cp, const char *path, const vp_cp_opts *o, vp_error *err);

/* Writes the trace at in to out (a .gz name compresses) with the path
 * marked as HTA's overlay does: args.critical = 1 on the path's events and
 * a flow (ph s/f, cat critical_path) per dependency, launch-delay and sync
 * edge of the path.  Written to a temporary name, then renamed. */
int vp_critpath_overlay(const vp_critpath *cp, const char *in, const char *out, vp_error *err);

/* The same in steps, for a caller that streams the trace itself (summary):
 * begin, every event of the trace in file order, end; then the critical
 * path of any window of it, one after the other, each replacing the
 * last result.  Rows of the whole trace are kept (no window is known while
 * reading). */
void vp_critpath_begin(vp_critpath *cp);
void vp_critpath_feed(vp_critpath *cp, const vp_event *ev);
void vp_critpath_end(vp_critpath *cp);
int vp_critpath_window(vp_critpath *cp, const vp_cp_opts *o, const char *path, vp_error *err);

/* The bound_by category with the most time on the path (HTA's order of
 * names breaks a tie); VP_CP_BOUND_NONE when the path has no time. */
vp_cp_bound vp_critpath_top_bound(const vp_critpath *cp);

void vp_critpath_free(vp_critpath *cp);

#endif
