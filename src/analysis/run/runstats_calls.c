/* The launches and api analyses inside the run's one pass (runstats_int.h):
 * the run's observer gives them every event of a trace, so summary's
 * launch_bound and api_share quote `vprof launches` and `vprof api` (the
 * same per-event and end-of-file functions, the same finish) without
 * reading the trace again.  Their partials travel in the run's. */
#include <stdlib.h>
#include <string.h>

#include "analysis/run/runstats_int.h"
#include "vprof/callfind.h"

struct vp_run_calls_file {
    vp_launches_file *l;
    vp_evsum_file *api;
    vp_calledges_file *edges;
    vp_calledges *model;     /* the run's, that edges adds to */
};

void vp_run_calls_init(vp_run_calls *c)
{
    memset(c, 0, sizeof *c);
    /* HTA's cutoffs, as vprof launches' defaults; the counts alone */
    vp_launches_opts lo = {.runtime_cutoff = 50000, .delay_cutoff = 100000, .keep = 0,
                           .counts_only = 1};
    vp_evsum_opts ao = {.family = VP_EVSUM_API};
    vp_launches_init(&c->l, &lo);
    vp_evsum_init(&c->api, &ao);
    vp_calledges_init(&c->edges);
}

void vp_run_calls_free(vp_run_calls *c)
{
    vp_launches_free(&c->l);
    vp_evsum_free(&c->api);
    vp_calledges_free(&c->edges);
}

vp_run_calls_file *vp_run_calls_begin(vp_run_calls *c, const char *path, long position,
                                      const vp_run_opts *o)
{
    /* the run's steps, as vprof api --steps counts them (launches get the
     * pass's steps at the end) */
    c->range = o->steps;
    c->api.o.steps = o->steps_given ? &c->range : NULL;
    c->in_steps |= o->steps_given;
    vp_run_calls_file *f = vp_malloc(sizeof *f);
    f->l = vp_launches_file_begin(&c->l, path, position);
    f->api = vp_evsum_file_begin(&c->api);
    f->edges = vp_calledges_file_begin();
    f->model = &c->edges;
    return f;
}

void vp_run_calls_observe(vp_run_calls_file *f, const vp_gpu_ev *g, const vp_event *ev)
{
    /* GPU work with the correlation the pass read; the launching calls
     * are its steps' (vp_run_calls_end): no event's args read twice */
    if (g)
        vp_launches_file_work(f->l, ev, g->corr, g->corr >= 0);
    else {
        vp_evsum_file_observe(f->api, ev);
        vp_calledges_file_observe(f->model, f->edges, ev);
    }
}

void vp_run_calls_end(vp_run_calls *c, vp_run_calls_file *f, long rank, vp_steps *steps,
                      const vp_gpuwork *w)
{
    vp_launches_file_end(f->l, rank, steps, w->steps);
    vp_evsum_file_end(f->api, steps, rank);
    vp_calledges_file_end(&c->edges, f->edges, w, steps);
    f->edges = NULL;
    vp_run_calls_free_file(f);
}

void vp_run_calls_free_file(vp_run_calls_file *f)
{
    if (!f)
        return;
    vp_launches_file_free(f->l);
    vp_evsum_file_free(f->api);
    vp_calledges_file_free(f->edges);
    free(f);
}

/* unread, in_steps, then the launches partial and the api one, each
 * behind its length, then the calls by edge (docs/partials.md, "summary"). */
void vp_run_calls_save(const vp_run_calls *c, vp_buf *b)
{
    vp_put_i64(b, c->unread);
    vp_put_u64(b, (uint64_t)c->in_steps);
    vp_buf part = {0};
    vp_launches_save(&c->l, &part);
    vp_put_str(b, part.data ? part.data : "", part.len);
    part.len = 0;
    vp_evsum_save(&c->api, &part);
    vp_put_str(b, part.data ? part.data : "", part.len);
    vp_buf_free(&part);
    vp_calledges_save(&c->edges, b);   /* run partial version 9 */
}

void vp_run_calls_merge(vp_run_calls *c, vp_rd *d, vp_error *err)
{
    int64_t unread = vp_get_i64(d);
    uint64_t in_steps = vp_get_u64(d);
    size_t ln, an;
    const char *lp = vp_get_str(d, &ln), *ap = vp_get_str(d, &an);
    if (d->bad || unread < 0 || in_steps > 1 || vp_launches_merge(&c->l, lp, ln, err) != 0 ||
        vp_evsum_merge(&c->api, ap, an, err) != 0 || vp_calledges_merge(&c->edges, d) != 0) {
        d->bad = 1;
        return;
    }
    c->unread += unread;
    c->in_steps |= (int)in_steps;
}

void vp_run_calls_finish(vp_run *r)
{
    vp_run_calls *c = &r->calls;
    vp_launches_finish(&c->l);
    vp_evsum_finish(&c->api);
    vp_call_facts f;
    if (vp_run_call_facts(r, &f) != 0)
        return;
    if (f.launches)
        vp_run_set(r, "launches.bound_pct", vp_call_launch_bound_pct(&f));
    if (f.api[0])
        vp_run_set(r, "api.top_pct", f.api_pct);
}

int vp_run_call_facts(const vp_run *r, vp_call_facts *out)
{
    const vp_run_calls *c = &r->calls;
    /* An Ascend run's calls are AscendCL's operator calls, and its device
     * tasks are joined to no launch: neither rule reads them. */
    if (r->ascend || c->unread || !c->l.nfiles)
        return -1;
    vp_call_facts_of(&c->l, &c->api, c->in_steps, out);
    vp_call_facts_edges(&c->edges, out);
    return 0;
}
