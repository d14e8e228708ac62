/* The per-file pass over GPU work (vprof/gpupass.h): the trace pass
 * (vprof/tracepass.h) with every event given to vp_gpuwork first. */
#include <string.h>

#include "vprof/gpupass.h"
#include "vprof/tracepass.h"

typedef struct gpu_observer {
    vp_gpuwork *w;
    vp_gpu_pass_fn fn;
    void *ctx;
} gpu_observer;

static void observe(void *ctx, const vp_event *ev)
{
    gpu_observer *g = ctx;
    long i = vp_gpuwork_observe(g->w, ev);
    if (g->fn)
        g->fn(g->ctx, g->w, i, ev);
}

int vp_gpu_pass_read(vp_gpu_pass *p, const char *path, const vp_gpu_pass_opts *o,
                     vp_gpu_pass_fn fn, void *ctx, vp_error *err)
{
    memset(p, 0, sizeof *p);
    vp_gpuwork_init(&p->w);
    /* vp_gpuwork_observe feeds w's steps; the pass only selects them. */
    vp_trace_pass_opts to = {.partial = o->partial, .no_progress = o->no_progress,
                             .range = o->range, .steps = p->w.steps,
                             .position = o->position, .rank = o->rank};
    gpu_observer g = {&p->w, fn, ctx};
    vp_trace_pass tp;
    int rc = vp_trace_pass_read(&tp, path, &to, observe, &g, err);
    p->trace = tp.trace;   /* p's now, to close with p */
    tp.trace = NULL;
    if (rc == 0) {
        p->nsteps = tp.nsteps;
        p->chosen = vp_gpuwork_resolve(&p->w, o->range);
        p->rank = tp.rank;
        p->rank_from = tp.rank_from;
    }
    vp_trace_pass_close(&tp);
    return rc;
}

void vp_gpu_pass_warn(const vp_gpu_pass *p, int has_steps)
{
    vp_trace_pass tp = {.trace = p->trace, .steps = p->w.steps, .has_range = has_steps,
                        .nsteps = p->nsteps, .chosen = p->chosen};
    vp_trace_pass_warn(&tp, &(vp_trace_pass_warnings){
                                .no_steps_kept = ", so no GPU work is kept",
                                .skipped = p->w.no_dur,
                                .skipped_what = "GPU events without \"dur\"",
                            });
}

void vp_gpu_pass_close(vp_gpu_pass *p)
{
    vp_gpuwork_free(&p->w);
    if (p->trace)
        vp_trace_close(p->trace);
    p->trace = NULL;
}
