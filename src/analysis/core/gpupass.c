/* The per-file pass over GPU work (vprof/gpupass.h): the trace pass
 * (vprof/tracepass.h) with every event given to vp_gpuwork first. */
#include <string.h>

#include "vprof/gpupass.h"

typedef struct gpu_observer {
    vp_gpuwork *w;
    vp_gpu_pass_fn fn;
    void *ctx;
    const vp_gpu_pass_rider *rider;
} gpu_observer;

/* Per thread: the worker pool's workers are processes, and a rider is
 * installed around one analysis' reading. */
static _Thread_local const vp_gpu_pass_rider *rider;

const vp_gpu_pass_rider *vp_gpu_pass_ride(const vp_gpu_pass_rider *r)
{
    const vp_gpu_pass_rider *old = rider;
    rider = r;
    return old;
}

static void observe(void *ctx, const vp_event *ev)
{
    gpu_observer *g = ctx;
    long i = vp_gpuwork_observe(g->w, ev);
    if (g->fn)
        g->fn(g->ctx, g->w, i, ev);
    if (g->rider && g->rider->observe)
        g->rider->observe(g->rider->ctx, g->w, i, ev);
}

int vp_gpu_pass_read(vp_gpu_pass *p, const char *path, const vp_trace_pass_opts *o,
                     vp_gpu_pass_fn fn, void *ctx, vp_error *err)
{
    memset(p, 0, sizeof *p);
    vp_gpuwork_init(&p->w);
    p->w.rules = o->classes;
    /* vp_gpuwork_observe feeds w's steps; the pass only selects them. */
    vp_trace_pass_opts to = *o;
    to.steps = p->w.steps;
    gpu_observer g = {&p->w, fn, ctx, rider};
    if (g.rider && g.rider->begin)
        g.rider->begin(g.rider->ctx, p, path);
    if (vp_trace_pass_read(&p->pass, path, &to, observe, &g, err) != 0)
        return -1;
    vp_gpuwork_resolve(&p->w, o->range);
    if (g.rider && g.rider->done)
        g.rider->done(g.rider->ctx, p);
    return 0;
}

void vp_gpu_pass_warn(const vp_gpu_pass *p)
{
    vp_trace_pass_warn(&p->pass, &(vp_trace_pass_warnings){
                                     .no_steps_kept = ", so no GPU work is kept",
                                     .skipped = p->w.no_dur,
                                     .skipped_what = "GPU events without \"dur\"",
                                 });
}

void vp_gpu_pass_close(vp_gpu_pass *p)
{
    vp_trace_pass_close(&p->pass);   /* the steps are w's */
    vp_gpuwork_free(&p->w);
}
