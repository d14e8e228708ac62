/* `vprof summary`'s findings over the runtime calls: what `vprof launches`
 * and `vprof api` measure, read from their models (one implementation: the
 * numbers are theirs, not computed again).  The run's pass feeds both
 * models (vprof/runstats.h): no trace is read twice.
 *
 *   launch_bound: launches whose GPU work ran shorter than the call that
 *     launched it and started less than that call's duration after it
 *     ended (launches' "Launch-Bound": the GPU had nothing queued, it
 *     waited for the launch), as a share of the launches, above the
 *     threshold.  (A launch delay longer than the kernel alone does not
 *     say it: a deep queue on a busy GPU gives the same.)
 *   api_share: the runtime/driver API call with the most time that is not
 *     a launch (no "Launch" in its name: syncs, allocations, copies), its
 *     share of all API time above the threshold, over the program's calls
 *     alone: the calls at the profiler's edges (vprof/calledges.h: before
 *     the first launch, after the last, outside every step) are left out
 *     and the evidence says how many and which.  `vprof api` counts them:
 *     its "Time (%)" (the metric api.top_pct) can be higher.
 * Both over the counted steps when the run counts steps (--steps).  The
 * shares are the run's metrics launches.bound_pct and api.top_pct too. */
#ifndef VPROF_CALLFIND_H
#define VPROF_CALLFIND_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/calledges.h"
#include "vprof/evsum.h"
#include "vprof/findings.h"
#include "vprof/launches.h"
#include "vprof/runstats.h"

typedef struct vp_call_facts {
    int in_steps;                   /* the analyses counted --steps only */
    int have_launches;
    int64_t launches, launch_bound, short_gpu;   /* summed over files */
    int have_api;
    char api[128];                  /* "" when every call launches */
    double api_pct;                 /* its Time (%) */
    int64_t api_total, api_calls;
    /* the program's calls alone (have_edges: known) */
    int have_edges;
    char prog_api[128];             /* "" when every call of the program launches */
    double prog_pct;
    int64_t prog_total, prog_calls;
    int64_t edge_time[VP_EDGE_COUNT], edge_calls[VP_EDGE_COUNT];   /* every name's */
    int64_t edges_left;             /* calls left out that vprof api counts */
    char edge_top[128];             /* the non-launch name with the most time left out */
    int64_t edge_top_time, edge_top_calls;
} vp_call_facts;

/* From finished models; either may be NULL (not read). */
void vp_call_facts_of(const vp_launches *l, const vp_evsum *api, int in_steps,
                      vp_call_facts *out);

/* The program's calls (see api_share) from the run's calls by edge. */
void vp_call_facts_edges(const vp_calledges *e, vp_call_facts *out);

/* Launch-Bound over Launches, in percent (0 without launches). */
double vp_call_launch_bound_pct(const vp_call_facts *c);

/* The facts of a run's traces (0), or -1 when it has none to judge: an
 * Ascend run (AscendCL calls, tasks joined to no launch), or a run read
 * in part from files the pass does not read (a DB export, a CSV). */
int vp_run_call_facts(const vp_run *r, vp_call_facts *out);

/* Appends the findings that hold to out (from out[n], up to max); returns
 * the new count. */
size_t vp_call_findings(const vp_call_facts *c, const vp_threshold *th, vp_finding *out,
                        size_t n, size_t max);

#endif
