/* The run's model and the pieces its files share: runstats.c reads
 * traces and computes the metrics, runstats_ascend.c reads Ascend profile
 * directories and DB exports, runstats_calls.c keeps the launches and api
 * analyses that the same pass feeds (summary's launch_bound and api_share).
 * Internal to src/analysis. */
#ifndef VPROF_ANALYSIS_RUNSTATS_INT_H
#define VPROF_ANALYSIS_RUNSTATS_INT_H

#include "vprof/calledges.h"
#include "vprof/critpath_steps.h"
#include "vprof/evsum.h"
#include "vprof/gpuwork.h"
#include "vprof/intervals.h"
#include "vprof/kernels.h"
#include "vprof/launches.h"
#include "vprof/memevents.h"
#include "vprof/mfu.h"
#include "vprof/origin.h"
#include "vprof/part.h"
#include "vprof/roofline.h"
#include "vprof/runstats.h"

/* The launches and api models over the run's traces (runstats_calls.c). */
typedef struct vp_run_calls {
    vp_launches l;           /* counts only, HTA's cutoffs: launch_summary's numbers */
    vp_evsum api;            /* vprof api's groups */
    vp_calledges edges;      /* the same calls, the program's apart from the profiler's edges */
    vp_step_range range;     /* the steps they count, with --steps */
    int in_steps;            /* a file was read with --steps */
    int64_t unread;          /* files of the run they did not read (a DB export, a CSV) */
} vp_run_calls;

struct vp_run {
    vp_metric *m;
    size_t nm;
    vp_kernels km;           /* per-name totals, as vprof kernels groups them */
    vp_kernel_total *k;      /* after vp_run_finish: km's, sorted */
    size_t nk;
    vp_step_times steps;     /* selected steps, the longest rank's time each */
    double mfu_step;         /* after vp_run_finish: vp_mfu_step_median */
    long world;              /* the largest distributedInfo.world_size, 0: none */
    char device[128];
    int listed;              /* the entries of that trace's deviceProperties */
    long *devs;              /* (rank, device id) pairs that ran GPU work, flat, distinct */
    size_t ndevs;
    int cc_major, cc_minor;  /* the first device's compute capability; -1: unknown */
    long schema;             /* the first trace's schemaVersion, 0: none */
    int dp_seen;             /* a file had deviceProperties while device was "" */
    /* sums over ranks */
    int64_t span, busy, compute, comm, overlap, exposed, memory;
    int64_t step_wall, data, kernels, short_kernels, syncs, sync_time;
    int64_t step_exposed;   /* exposed communication inside the counted steps' windows */
    int64_t sync_in_steps;  /* sync_time's part inside the steps' windows */
    int64_t *rank_compute;
    long *rank_ids;          /* per file: distributedInfo.rank, the file name, or position */
    size_t nranks;
    int have_mem;
    int mem_replayed;        /* a GPU's [memory] events had Bytes alone (torch 1.8-1.10):
                              * its allocated replayed, its reserved unknown */
    int64_t peak_alloc, peak_reserved;
    int ascend;              /* a file was an Ascend profile (its tracks were seen) */
    char *untimed;           /* the directory of the first rank read from kernel_details.csv
                              * alone: its steps are Step Ids, without times */
    vp_run_calls calls;      /* the launches and api analyses of the same pass */
    vp_cp_steps cps;         /* each step's critical-path verdict (--critical-path) */
    vp_origins origins;      /* where and when each trace was recorded */
    vp_ops *roof;            /* the operators as vprof roofline reads them (vp_run_opts.roofline),
                              * NULL: not read */
    vp_step_range roof_steps;   /* roof's range, with --steps */
    vp_roofline rl;          /* after vp_run_finish, when rl_built: roof's roofline */
    int rl_built;
};


/* A file's device work added to the run (rank: its rank; resolved:
 * vp_gpu_pass resolved w's steps already; device: the device that ran all
 * of w, -1: each event's own), without CPU events: an Ascend DB export's
 * or kernel_details.csv's. */
void vp_run_account_work(vp_run *r, vp_gpuwork *w, int resolved, long rank, long device,
                         const vp_run_opts *o);
uint32_t vp_run_kernel_index(vp_run *r, vp_span name, int cls);
void vp_run_add_step(vp_run *r, long number, int64_t dur);
/* One trace; rank: its rank when the caller knows it (an Ascend rank
 * directory), else -1 and the trace says.  mem: where the trace's
 * [memory] events go (every event observed, unfinished), the caller's, so
 * that one reading of them gives the run's peaks and the caller's
 * timeline (vprof report's); NULL: a model of the file's own, freed. */
int vp_run_add_trace(vp_run *r, const char *path, long position, long rank,
                     const vp_run_opts *o, vp_memevents *mem, vp_error *err);

/* runstats_ascend.c: an Ascend directory (a *_ascend_pt, a folder of
 * them, a PROF_*), and an SQLite export given as a file. */
int vp_run_add_ascend_dir(vp_run *r, const char *path, const vp_run_opts *o, vp_error *err);
int vp_run_add_db(vp_run *r, const char *path, long rank, const vp_run_opts *o, vp_error *err);

/* runstats_roofline.c: the operators of the run's traces, read by the
 * same pass (NULL from begin without vp_run_opts.roofline), the partial's
 * part, and the roofline metrics at the finish. */
vp_ops_file *vp_run_roof_begin(vp_run *r, const char *path, long position, const vp_run_opts *o);
void vp_run_roof_save(const vp_run *r, vp_buf *b);
void vp_run_roof_merge(vp_run *r, vp_rd *d, vp_error *err);
void vp_run_roof_finish(vp_run *r);
void vp_run_roof_free(vp_run *r);

/* runstats_calls.c */
void vp_run_calls_init(vp_run_calls *c);
void vp_run_calls_free(vp_run_calls *c);
/* A trace's readers of the same pass: begin before it, observe each
 * event (g: the GPU event the pass appended for it, else NULL), end after
 * it (rank: the file's; steps: the pass's, selected, or NULL without
 * --steps; w: the pass's GPU work, whose steps recorded the launching calls),
 * or free when the reading failed. */
typedef struct vp_run_calls_file vp_run_calls_file;
vp_run_calls_file *vp_run_calls_begin(vp_run_calls *c, const char *path, long position,
                                      const vp_run_opts *o);
void vp_run_calls_observe(vp_run_calls_file *f, const vp_gpu_ev *g, const vp_event *ev);
void vp_run_calls_end(vp_run_calls *c, vp_run_calls_file *f, long rank, vp_steps *steps,
                      const vp_gpuwork *w);
void vp_run_calls_free_file(vp_run_calls_file *f);
void vp_run_calls_save(const vp_run_calls *c, vp_buf *b);
void vp_run_calls_merge(vp_run_calls *c, vp_rd *d, vp_error *err);
/* Finishes both models and sets launches.bound_pct and api.top_pct. */
void vp_run_calls_finish(vp_run *r);

#endif
