/* Where CPU time went, per PyTorch operator: the result model of
 * `vprof ops`, the numbers of torch.profiler's key_averages() table.
 *
 * Operators are the cpu_op and user_annotation slices of a trace (and
 * python_function frames when asked), or every slice of torch's legacy
 * trace (pid "CPU functions", no cat).  Per thread they form a tree as
 * torch's EventList._build_tree forms it (docs/ops.md): sorted by start,
 * longer first, an event is the child of the innermost open one that it
 * does not outlast; a child with its parent's name that is the parent's
 * only child is folded into it.  Self CPU = duration minus the durations
 * of the children (runtime calls are children too, as in torch).  GPU
 * work (kernels, memcpys, memsets) belongs, through its correlation id,
 * to the runtime call that launched it, whose parent operator gets it as
 * Self GPU; GPU Total adds that of the operator's children.
 *
 * Rows are keyed by name (ProfilerStep#N folded into ProfilerStep*, as
 * torch does), and by input dims and/or rank when asked.  Fill a model
 * from traces (vp_ops_read); save/merge carry partial results between
 * processes (docs/partials.md, "ops"); vp_ops_finish sorts.  Nothing here
 * prints. */
#ifndef VPROF_OPS_H
#define VPROF_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/util.h"

/* VP_ODIM_MODULE: rows are nn.Module paths instead of operators (the
 * "nn.Module: NAME" python_function frames of with_modules=True, as
 * TensorBoard's module view): CPU Total is the frame's duration, Self CPU
 * that minus its child modules', GPU Total the GPU work launched inside
 * it, Self GPU that minus its child modules'. */
/* VP_ODIM_ARGS (with VP_ODIM_SHAPE): the shape key is the operator's
 * "Input Dims", "Input type" and "Concrete Inputs" texts joined by
 * VP_OPS_ARGS_SEP, for vprof roofline's cost models. */
enum { VP_ODIM_SHAPE = 1, VP_ODIM_RANK = 2, VP_ODIM_MODULE = 4, VP_ODIM_ARGS = 8 };
#define VP_OPS_ARGS_SEP '\x1f'


typedef enum vp_osort {
    VP_OSORT_CPU_TOTAL, VP_OSORT_SELF_CPU, VP_OSORT_CPU_AVG, VP_OSORT_CALLS,
    VP_OSORT_SELF_GPU, VP_OSORT_GPU_TOTAL, VP_OSORT_NAME,
} vp_osort;

typedef struct vp_ops_opts {
    int python;                     /* python_function frames are operators (rows) too */
    int runtime;                    /* runtime calls (cudaLaunchKernel ...) are rows too */
    unsigned dims;                  /* VP_ODIM_*; 0: by name alone */
    const vp_step_range *steps;     /* NULL: every operator counts */
    int partial;                    /* accept truncated traces */
    void (*say)(const char *msg);   /* what was read, per file; NULL: quiet */
    /* NULL, or says which operators own their subtree: the operators
     * inside one (at any depth) get no row, their time being the owner's
     * GPU Total (vprof roofline: the outermost operator with a model). */
    int (*owns)(const char *name);
} vp_ops_opts;

/* One row: the operators of one key, summed.  Times in ns. */
typedef struct vp_op_row {
    uint32_t name;      /* index into names */
    uint32_t shape;     /* index into shapes; 0 = none ("[]") or not grouped by shape */
    int32_t file;       /* the file (its rank) when grouped by rank, else 0 */
    int64_t calls;
    int64_t cpu_total, self_cpu;
    int64_t self_gpu, gpu_total;
    long rank;          /* after vp_ops_finish, when grouped by rank */
} vp_op_row;

typedef struct vp_ops {
    vp_ops_opts o;
    char **names;       /* row names, interned */
    size_t nnames;
    char **shapes;      /* "Input Dims" as torch prints them; shapes[0] = "[]" */
    size_t nshapes;
    vp_op_row *rows;
    size_t nrows, cap_rows;
    long *ranks;        /* per file */
    char **paths;       /* per file */
    size_t nfiles;
    int gpu;            /* some file had GPU work: the GPU columns mean something */
    int dims_seen;      /* some operator had "Input Dims" */
    int modules_seen;   /* some nn.Module frame (VP_ODIM_MODULE) */
    char device[128];   /* the first deviceProperties[].name read; "" when none */
    /* private */
    vp_strmap *name_map, *shape_map, *row_map;
    size_t pos0;
} vp_ops;

void vp_ops_init(vp_ops *m, const vp_ops_opts *o);
void vp_ops_free(vp_ops *m);

/* One trace; position: its place among the inputs, its rank when nothing
 * else says.  An exit status, err set when it is not VP_EXIT_OK. */
int vp_ops_read(vp_ops *m, const char *input, size_t position, vp_error *err);

/* The same reading fed by another analysis' pass over the trace (the run
 * of summary, check and diff reads its operators for the roofline in its
 * own pass, vprof/runstats.h): begin before the pass, every event to
 * observe, end after it (p: the pass, its steps selected with o.steps;
 * ok: 0 when the reading failed, the file then adds nothing).  end frees
 * f.  The pass must have read with o.steps as its range. */
typedef struct vp_ops_file vp_ops_file;
struct vp_trace_pass;
vp_ops_file *vp_ops_file_begin(vp_ops *m, const char *input, size_t position);
void vp_ops_file_observe(vp_ops_file *f, const vp_event *ev);
void vp_ops_file_end(vp_ops_file *f, const struct vp_trace_pass *p, int ok);

/* Interning and rows, for the reader and the merge. */
uint32_t vp_ops_name(vp_ops *m, const char *name, size_t len);
uint32_t vp_ops_shape(vp_ops *m, const char *text, size_t len);
/* The row of (name, shape, file), made when new. */
uint32_t vp_ops_row(vp_ops *m, uint32_t name, uint32_t shape, int32_t file);
size_t vp_ops_new_file(vp_ops *m, const char *path);

#define VP_OPS_PART_VERSION 1
void vp_ops_save(const vp_ops *m, vp_buf *b);
/* Adds a partial of the inputs that follow; -1 with err set when damaged. */
int vp_ops_merge(vp_ops *m, const void *p, size_t n, vp_error *err);

/* Ranks the rows and sorts them by key, descending (name: ascending);
 * ties by CPU total, name, input dims, rank. */
void vp_ops_finish(vp_ops *m, vp_osort key);
/* The rows [from, nrows) summed into one (for "(others)"). */
void vp_ops_fold(const vp_ops *m, size_t from, vp_op_row *sum);

#endif
