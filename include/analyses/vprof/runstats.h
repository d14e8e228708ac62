/* A run in numbers: what `vprof summary` shows, `vprof diff` compares and
 * `vprof check` gates.  A run is one or several trace files (a file is a
 * rank), read once each, streaming.
 *
 * Every figure is a named metric with a unit and a direction, so that the
 * gate language (vprof/gates.h) can name it and a baseline comparison knows
 * which way is worse.  Per-kernel totals are kept too, for the
 * `kernel:REGEX` metrics and the diff's kernel table. */
#ifndef VPROF_RUNSTATS_H
#define VPROF_RUNSTATS_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/steps.h"
#include "vprof/units.h"
#include "vprof/util.h"

typedef struct vp_metric {
    const char *name;     /* "step.median" */
    double value;
    vp_col_type unit;     /* VP_COL_NS, VP_COL_PERCENT, VP_COL_BYTES, VP_COL_INT, VP_COL_RATIO */
    int worse;            /* +1: higher is worse, -1: lower is worse, 0: neither */
    const char *what;     /* one line for --list-metrics */
} vp_metric;

typedef struct vp_kernel_total {
    char *name;
    int64_t total;        /* ns, over all ranks */
    int64_t count;
    int cls;              /* vp_kclass */
} vp_kernel_total;

typedef struct vp_run_opts {
    vp_step_range steps;  /* which steps count */
    int steps_given;      /* 0: all GPU work counts, in steps or not, and every step */
    int partial;          /* accept truncated traces */
    int progress;
    int critical_path;    /* each step's critical path (vprof/critpath_steps.h) */
    struct vp_kclass_rules *classes;  /* overrides of the kernel class rules, NULL: none */
    int roofline;         /* read the traces' operators as vprof roofline does, in the same
                           * pass: the roofline.* metrics and vp_run_roofline */
} vp_run_opts;

typedef struct vp_run vp_run;

/* paths: trace files (a file is a rank), or Ascend profile directories
 * (a *_ascend_pt, a folder of them: each rank's trace_view.json, else its
 * DB export, else its kernel_details.csv, and its memory_record.csv's PTA
 * peaks as the memory metrics). */
vp_run *vp_run_read(char *const *paths, size_t n, const vp_run_opts *o, vp_error *err);

/* The same in parts, for reading files apart (vprof/parts.h): a run made
 * by vp_run_new and given files with vp_run_add_file (position: the
 * file's place in the run, its rank when nothing else says) is a partial
 * result; vp_run_save writes it (docs/partials.md) and vp_run_merge adds
 * one to a run.  Merged in file order, partials give the run one process
 * reading the files in turn gives.  vp_run_finish computes the metrics
 * once every file is in; vp_run_read does all of it. */
#define VP_RUN_PART_VERSION 12  /* 12: the roofline's operators (vp_run_opts.roofline); 11: where and when each trace was recorded (vprof/origin.h); 10: the calls by edge (vprof/calledges.h) and step_exposed; 8: the api payload's version 3 */
int vp_run_add_file(vp_run *r, const char *path, long position, const vp_run_opts *o,
                    vp_error *err);
void vp_run_save(const vp_run *r, vp_buf *out);
int vp_run_merge(vp_run *r, const void *p, size_t n, vp_error *err);
void vp_run_finish(vp_run *r);
void vp_run_free(vp_run *r);
/* A run known only by its metrics (a baseline read back from
 * `vprof summary -f json`): no kernels; fill it with vp_run_set. */
vp_run *vp_run_new(void);

size_t vp_run_nmetrics(const vp_run *r);
const vp_metric *vp_run_metric(const vp_run *r, size_t i);
/* NULL when the run has no such metric (e.g. memory.peak_allocated in a
 * trace without [memory] events). */
const vp_metric *vp_run_find(const vp_run *r, const char *name);
/* Adds or replaces a metric of the catalogue (mfu, computed by a caller). */
void vp_run_set(vp_run *r, const char *name, double value);

/* A metric value as a person reads it: "612 ms", "4.50 GiB", "61.53%",
 * "12", "0.4123". */
void vp_metric_format(char *buf, size_t n, vp_col_type unit, double v);
/* A change of a metric, signed: "+4.00 us", "-1.20 GiB", "+2"; a percent
 * metric's in percentage points, "+2.33 pp" (52.90% -> 55.23%); one that
 * reads as zero unsigned ("0 ns", "0.00 pp"). */
void vp_metric_format_change(char *buf, size_t n, vp_col_type unit, double change);
/* The unit's name in machine output: ns, bytes, percent, count, ratio. */
const char *vp_metric_unit_name(vp_col_type unit);

/* Kernels, sorted by total descending (then name). */
size_t vp_run_nkernels(const vp_run *r);
const vp_kernel_total *vp_run_kernel(const vp_run *r, size_t i);
/* Total ns and instances of the kernels whose name matches re. */
int64_t vp_run_kernel_match(const vp_run *r, const regex_t *re, int64_t *count);

/* Facts that are not metrics. */
long vp_run_rank(const vp_run *r, size_t i);  /* the rank of the i-th file read */
const char *vp_run_device(const vp_run *r);   /* deviceProperties[0].name, or "" */
/* The devices that ran GPU work (the "gpus" metric): each rank's devices
 * (args.device of its GPU events, else their pid) that ran a kernel, a
 * memory copy or set in the counted work, a (rank, device) pair counting
 * once; 0 when the run has no such metric (an Ascend run). */
int vp_run_device_count(const vp_run *r);
/* The entries of the first trace's deviceProperties (what the machine
 * had, used or not); 0 when no trace has them. */
int vp_run_listed_devices(const vp_run *r);
/* 1 when distributedInfo says world_size > 1 and GPU work was read, but
 * no kernel is communication by the class rules (docs/classification.md):
 * the run's comm.* metrics are then absent, vp_run_why_absent says why,
 * and the no_comm finding names the kernels it could not place. */
int vp_run_comm_unseen(const vp_run *r);

/* The largest distributedInfo.world_size of the files, 0 when none has one. */
long vp_run_world(const vp_run *r);
/* deviceProperties[0]'s computeMajor.computeMinor (8.0 on an A100, 7.0 on
 * a V100; AMD's ROCm traces give the gfx major, 9); 0 when no trace had
 * one (an Ascend run, a trace without deviceProperties). */
int vp_run_compute_capability(const vp_run *r, int *major, int *minor);
/* The directory of the first Ascend rank read from its kernel_details.csv,
 * without a trace or a DB export (its device metrics are its tasks', its
 * steps Step Ids without times), NULL when none; vp_run_why_absent: 1 with why in buf
 * when such a rank is why metric name is absent (step.*, dataloader.pct,
 * sync.*, comm.exposed_step_pct, mfu), else 0. */
const char *vp_run_untimed(const vp_run *r);
int vp_run_why_absent(const vp_run *r, const char *name, char *buf, size_t n);
/* The first trace's top-level schemaVersion (Kineto writes 1), 0: none. */
long vp_run_schema(const vp_run *r);
/* After vp_run_finish: the step time MFU uses (vprof/mfu.h), ns; 0: no step. */
double vp_run_mfu_step(const vp_run *r);
/* Where and when each trace was recorded, for vp_origins_warn
 * (vprof/origin.h): files of separate runs are not ranks of one. */
struct vp_origins;
const struct vp_origins *vp_run_origins(const vp_run *r);
/* 1 when the run is an Ascend profile (an Ascend directory, or a trace
 * with Ascend Hardware tracks): findings then name HCCL, AI Core, NPU. */
int vp_run_is_ascend(const vp_run *r);
/* After vp_run_finish: 1 when the run did work on a GPU or NPU (a GPU
 * span, or a kernel) in the counted steps; 0 when its device metrics
 * (vp_metric_on_device) are zeros that measure nothing: a CPU-only trace,
 * or --steps that keep no device work.  Summary says so as a finding and
 * gates on those metrics fail rather than pass on nothing. */
int vp_run_has_device_work(const vp_run *r);

/* After vp_run_finish: the roofline of the run's traces (vprof/roofline.h:
 * rows by operator and shape, not by rank, sorted by kernel time, the
 * peaks of the traces' device), read with vp_run_opts.roofline in the
 * run's own pass; NULL when not read (nor merged from a partial). */
struct vp_roofline;
const struct vp_roofline *vp_run_roofline(const vp_run *r);

/* Each step's critical-path verdict, read with vp_run_opts.critical_path
 * (none without). */
struct vp_cp_steps;
const struct vp_cp_steps *vp_run_step_bounds(const vp_run *r);
/* 1 for a metric of device work: gpu.*, comm.*, kernels.*, memcpy.pct,
 * gemm.*, attention.*, rank.spread_pct, roofline.*. */
int vp_metric_on_device(const char *name);

/* MFU of a run: tokens per step over the median step time, per GPU, with
 * the model's FLOPs per token (vprof/flops.h) at one document of seq_len
 * tokens, against the accelerator's dense BF16 peak (deviceProperties, or
 * peak_tflops).  Sets mfu, mfu.causal and tflops. */
typedef struct vp_run_mfu_opts {
    const char *model;        /* config.json */
    double tokens_per_step;   /* global: all ranks together */
    double seq_len;
    double peak_tflops;       /* 0: from the device name */
    long world_size;          /* 0: vp_world_size's rule (vprof/mfu.h) */
} vp_run_mfu_opts;

/* 0, or -1 with err set: status 2 for a missing input (the message names
 * the flag that supplies it), 3 for a bad config file. */
int vp_run_add_mfu(vp_run *r, const vp_run_mfu_opts *o, vp_error *err);

/* Every metric name summary can produce, with its unit and meaning, for
 * `vprof check --list-metrics`; ended by a NULL name. */
const vp_metric *vp_run_metric_catalogue(void);

#endif
