/* The run as vprof report shows it: the models of summary (the run's
 * metrics), steps --per-rank, comm, kernels --by rank,class and memory
 * (the first trace's [memory] events over time), filled from one reading of each trace.  The run
 * metrics read their files themselves (vp_run_add_file); the others ride
 * on that reading (vp_gpu_pass_ride) and observe the same events with
 * their commands' observers, so a report costs one pass per file, as a
 * summary does.  Partials (docs/partials.md, "report") carry each model's
 * own partial, so that the worker pool reads the files apart. */
#ifndef VPROF_REPORT_RUN_H
#define VPROF_REPORT_RUN_H

#include <stddef.h>

#include "vprof/breakdown.h"
#include "vprof/comm.h"
#include "vprof/error.h"
#include "vprof/kernels.h"
#include "vprof/memevents.h"
#include "vprof/runstats.h"
#include "vprof/util.h"

typedef struct vp_report_run {
    vp_run_opts o;
    vp_run *run;              /* summary's */
    vp_breakdown b;           /* steps' */
    vp_comm m;                /* comm's */
    vp_kernels classes;       /* kernels' time by rank and class: kernels, copies,
                               * sets and syncs, as kernels --by rank,class
                               * --include memcpy,memset,sync */
    vp_kernels ops;           /* Ascend profiles' operators by op type and core
                               * type, as kernels --by type,core reads them */
    vp_memevents *timeline;   /* the first input's [memory] events with their
                               * points, as vprof memory --plot TRACE reads them:
                               * the run's own reading of them, so its peaks are
                               * those of summary's memory table; NULL: it has none */
    struct vp_asc_rankmem *ascmem;  /* the first Ascend profile's memory files per rank
                                     * (those with any), as vprof memory DIR reads them */
    size_t nascmem;
    char *ascmem_path;        /* that profile; NULL: no input had memory files */
} vp_report_run;

#define VP_REPORT_RUN_PART_VERSION 7   /* 2: the Ascend memory; 4: summary's run at version 10; 5: comm's at 4; 6: summary's run at 11, comm's at 5; 7: summary's run at 12 */

/* o: the run's options (steps, partial, progress); NULL: the defaults. */
void vp_report_run_init(vp_report_run *r, const vp_run_opts *o);
void vp_report_run_free(vp_report_run *r);
/* Input i (a trace, an Ascend directory or DB: summary's inputs); an
 * exit status, err set when not VP_EXIT_OK.  An Ascend directory gives
 * the run's metrics alone. */
int vp_report_run_read(vp_report_run *r, const char *input, size_t i, vp_error *err);
/* An Ascend profile directory as input (report_ascend.c): each rank's
 * files read once, the riders on its trace: steps' breakdown and
 * step_trace_time rows (vprof steps DIR), comm's ranks and collectives,
 * kernels' operators and classes (vprof kernels DIR); and comm's HCCL
 * files (vprof comm DIR); 0, or -1 with err set. */
int vp_report_run_read_ascend(vp_report_run *r, const char *dir, vp_error *err);
/* The partial of ascmem (report_ascend.c), after the others: save, then
 * merge (the earliest input's kept; 0, or -1 when damaged), free. */
void vp_report_run_save_ascmem(const vp_report_run *r, vp_buf *out);
struct vp_rd;
int vp_report_run_merge_ascmem(vp_report_run *r, struct vp_rd *rd);
void vp_report_run_free_ascmem(vp_report_run *r);
void vp_report_run_save(const vp_report_run *r, vp_buf *out);
int vp_report_run_merge(vp_report_run *r, const void *p, size_t n, vp_error *err);
/* Once every input is in: the run's metrics, the kernels' groups, the
 * memory devices. */
void vp_report_run_finish(vp_report_run *r);

#endif
