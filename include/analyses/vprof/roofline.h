/* How close each operator runs to the hardware's limit: the result model
 * of `vprof roofline` (docs/roofline.md).
 *
 * A cost model per operator family turns one call's "Input Dims",
 * "Input type" and "Concrete Inputs" (a trace recorded with
 * record_shapes=True) into the FLOPs it does and the bytes it moves, each
 * tensor read or written once, contiguous.  The time is that of the
 * operator rows of vprof ops (vprof/ops.h), grouped by name and those
 * arguments: the outermost operator with a model owns its subtree and
 * gets its GPU Total; an operator without one gets its Self GPU, so that
 * every kernel counts once.  Peaks come from src/flops/'s device table
 * (vprof/flops.h).  Nothing here prints. */
#ifndef VPROF_ROOFLINE_H
#define VPROF_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/flops.h"
#include "vprof/ops.h"

typedef enum vp_rl_family {
    VP_RL_NONE,             /* no model */
    VP_RL_GEMM,
    VP_RL_ATTN_FWD, VP_RL_ATTN_BWD,
    VP_RL_CONV_FWD, VP_RL_CONV_BWD,
    VP_RL_ELEMENTWISE,
    VP_RL_REDUCE,
    VP_RL_NORM_FWD, VP_RL_NORM_BWD,
    VP_RL_SOFTMAX,
    VP_RL_EMBEDDING,
    VP_RL_NFAMILIES
} vp_rl_family;

/* "GEMM", "attention fwd", ..., "no model". */
const char *vp_rl_family_name(vp_rl_family f);

/* The family of an operator name; VP_RL_NONE when vprof has no model. */
vp_rl_family vp_rl_family_of(const char *name);

/* The compute dtype of a call: which peak it runs against. */
typedef enum vp_rl_prec {
    VP_RL_PREC_NONE,        /* a dtype without a peak (bool, integers but int8 GEMMs) */
    VP_RL_FP64, VP_RL_FP32, VP_RL_FP16, VP_RL_BF16, VP_RL_FP8, VP_RL_INT8,
} vp_rl_prec;

/* One call's cost. */
typedef struct vp_rl_cost {
    vp_rl_family family;
    double flops;           /* FLOPs of one call */
    double bytes;           /* bytes moved by one call; < 0 when a dtype has no known size */
    vp_rl_prec prec;
    int matrix;             /* runs on tensor/matrix units (GEMM, attention, convolution) */
} vp_rl_cost;

/* The cost of one call of name from its argument texts (JSON arrays as
 * Kineto writes them; concrete may be NULL or empty).  0, or -1 when the
 * name has no model or the arguments do not fit it (why: a short reason,
 * static). */
int vp_rl_cost_of(const char *name, const char *dims, const char *types, const char *concrete,
                  vp_rl_cost *c, const char **why);

/* The device's roofs for a cost: the peak TFLOP/s of its dtype (tensor
 * peaks for matrix work, TF32 for FP32 matrix work when tf32 is set; the
 * non-tensor FP32 or FP64 peak for the rest) and its TB/s.  0 where the
 * table does not know it. */
double vp_rl_peak_tflops(const vp_peak *row, const vp_rl_cost *c, int tf32);

typedef struct vp_roofline_opts {
    int by_rank;
    const vp_step_range *steps;
    int partial;
    int tf32;               /* FP32 GEMMs ran as TF32 (torch allow_tf32) */
    double peak_tflops;     /* > 0: instead of the table's, for every row */
    double peak_tbs;        /* > 0: instead of the table's */
    const char *device;     /* NULL: the traces' deviceProperties */
    void (*say)(const char *msg);
} vp_roofline_opts;

/* One row: an operator name and its arguments (and rank). */
typedef struct vp_rl_row {
    const char *name;
    char *dims, *types;     /* "Input Dims", "Input type" texts */
    long rank;
    vp_rl_cost cost;        /* family VP_RL_NONE: no model */
    const char *why;        /* why no model, when family is VP_RL_NONE but the name has one */
    int64_t calls;
    int64_t kernel_ns;      /* modelled: GPU Total; no model: Self GPU */
    double peak_tflops, peak_tbs;   /* 0: not known */
} vp_rl_row;

typedef enum vp_rl_sort { VP_RLSORT_TIME, VP_RLSORT_ROOFLINE, VP_RLSORT_TFLOPS, VP_RLSORT_CALLS,
                          VP_RLSORT_NAME } vp_rl_sort;

typedef struct vp_roofline {
    vp_roofline_opts o;
    vp_rl_row *rows;
    size_t nrows;
    int64_t gpu_ns;         /* the kernel time of every row */
    int64_t modelled_ns;    /* of the rows with a model */
    int dims_seen;          /* some operator had Input Dims */
    int gpu;                /* some trace had GPU work */
    char device[128];       /* the device the peaks are of, "" when none */
    const vp_peak *peak;    /* its table entry, NULL when none */
    double tbs;             /* its bandwidth (TB/s), 0 when not known */
    const char *tbs_source;
} vp_roofline;

/* The ops options a roofline reads with: rows by name and arguments (and
 * rank), the outermost modelled operator owning its subtree. */
void vp_roofline_ops_opts(const vp_roofline_opts *o, vp_ops_opts *ops);

/* The roofline of a finished ops model read with vp_roofline_ops_opts;
 * device: the traces' device name, NULL when none.  Rows sorted by key. */
void vp_roofline_build(vp_roofline *r, const vp_roofline_opts *o, const vp_ops *m,
                       const char *device, vp_rl_sort key);
void vp_roofline_free(vp_roofline *r);

/* The derived figures of a row: TFLOP/s and TB/s achieved (calls x cost /
 * kernel time; -1 when no time or no model or bytes unknown), the roof
 * (TFLOP/s: min(peak, FLOP/byte x bandwidth)), the share of it achieved
 * (%), compute- or memory-bound by the ridge point. -1 where unknown. */
typedef struct vp_rl_figures {
    double tflops, tbs, intensity, roof, pct;
    int compute_bound;      /* 1 compute, 0 memory, -1 unknown */
} vp_rl_figures;
void vp_rl_row_figures(const vp_rl_row *row, vp_rl_figures *f);

/* The time-weighted Roofline (%) of the rows of the families in mask
 * (bit 1 << vp_rl_family): sum of Roofline (%) x Kernel Time over the sum
 * of Kernel Time, over the rows that have one (the roofline.gemm_pct and
 * roofline.attention_pct of issue 33); -1 when no row has one. */
double vp_roofline_weighted_pct(const vp_roofline *r, unsigned mask);
#define VP_RL_MASK_GEMM (1u << VP_RL_GEMM)
#define VP_RL_MASK_ATTENTION (1u << VP_RL_ATTN_FWD | 1u << VP_RL_ATTN_BWD)

#endif
