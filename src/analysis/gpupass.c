/* The per-file pass over GPU work (vprof/gpupass.h). */
#include <string.h>

#include "vprof/gpupass.h"

int vp_gpu_pass_read(vp_gpu_pass *p, const char *path, const vp_gpu_pass_opts *o,
                     vp_gpu_pass_fn fn, void *ctx, vp_error *err)
{
    memset(p, 0, sizeof *p);
    vp_gpuwork_init(&p->w);
    vp_trace_opts topts = {.partial = o->partial, .progress = !o->no_progress};
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

void vp_gpu_pass_warn(const vp_gpu_pass *p, int has_steps)
{
    const char *name = vp_trace_name(p->trace);
    if (has_steps)
        vp_steps_warn_none(p->w.steps, p->chosen, name, ", so no GPU work is kept", "");
    if (p->w.no_dur)
        vp_warn("%s: %llu GPU events without \"dur\" were skipped", name,
                (unsigned long long)p->w.no_dur);
}

void vp_gpu_pass_close(vp_gpu_pass *p)
{
    vp_gpuwork_free(&p->w);
    if (p->trace)
        vp_trace_close(p->trace);
    p->trace = NULL;
}
