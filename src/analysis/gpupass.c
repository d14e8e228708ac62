/* The per-file pass over GPU work (vprof/gpupass.h). */
#include <string.h>

#include "vprof/gpupass.h"

int vp_gpu_pass_read(vp_gpu_pass *p, const char *path, const vp_gpu_pass_opts *o,
                     vp_gpu_pass_fn fn, void *ctx, vp_error *err)
{
    memset(p, 0, sizeof *p);
    vp_gpuwork_init(&p->w);
    vp_trace_opts topts = {.partial = o->partial, .progress = 1};
    p->trace = vp_trace_open(path, &topts, err);
    if (!p->trace)
        return -1;
    vp_event ev;
    int r;
    while ((r = vp_trace_next(p->trace, &ev, err)) == 1) {
        long i = vp_gpuwork_observe(&p->w, &ev);
        if (fn)
            fn(ctx, &p->w, i, &ev);
    }
    if (r < 0)
        return -1;
    p->nsteps = vp_steps_count(p->w.steps);
    p->chosen = vp_gpuwork_resolve(&p->w, o->range);
    p->rank = vp_rank_detect(vp_trace_meta(p->trace), path, o->position, &p->rank_from);
    if (o->rank >= 0)
        p->rank = o->rank;
    return 0;
}

void vp_gpu_pass_close(vp_gpu_pass *p)
{
    vp_gpuwork_free(&p->w);
    if (p->trace)
        vp_trace_close(p->trace);
    p->trace = NULL;
}
