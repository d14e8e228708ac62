/* The critical path of every step of a trace (vprof/critpath_steps.h):
 * the rows read once, then vp_critpath_window on each ProfilerStep as
 * `vprof critical-path --instance N` computes it. */
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"
#include "vprof/critpath_steps.h"

#define ANNOTATION "ProfilerStep"

void vp_cp_steps_init(vp_cp_steps *s)
{
    memset(s, 0, sizeof *s);
}

void vp_cp_steps_begin(vp_cp_steps *s)
{
    vp_critpath_begin(&s->cp);
    s->reading = 1;
}

void vp_cp_steps_feed(vp_cp_steps *s, const vp_event *ev)
{
    if (s->reading)
        vp_critpath_feed(&s->cp, ev);
}

static void add(vp_cp_steps *s, vp_cp_verdict v)
{
    s->v = vp_realloc(s->v, (s->n + 1) * sizeof *s->v);
    s->v[s->n++] = v;
}

void vp_cp_steps_end(vp_cp_steps *s, const char *path, long rank)
{
    if (!s->reading)
        return;
    vp_critpath *cp = &s->cp;
    vp_critpath_end(cp);
    /* the instances of the annotation as find_window counts them */
    long instance = 0;
    size_t nrows = cp->nrows;
    for (size_t i = 0; i < nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        if (!strstr(cp->names[r->name], ANNOTATION))
            continue;
        long step;
        if (vp_cp_is_step(cp, r, &step)) {
            vp_cp_opts o = {.annotation = ANNOTATION, .instance = instance};
            vp_error err = {0};
            if (vp_critpath_window(cp, &o, path, &err) == VP_EXIT_OK) {
                vp_cp_bound b = vp_critpath_top_bound(cp);
                add(s, (vp_cp_verdict){rank, step, instance, b, cp->bound_us[b], cp->total_us});
            } else {
                s->refused++;
            }
        }
        instance++;
    }
    vp_critpath_free(cp);
    s->reading = 0;
}

void vp_cp_steps_save(const vp_cp_steps *s, vp_buf *b)
{
    vp_put_u64(b, s->n);
    for (size_t i = 0; i < s->n; i++) {
        const vp_cp_verdict *v = &s->v[i];
        vp_put_i64(b, v->rank);
        vp_put_i64(b, v->step);
        vp_put_i64(b, v->instance);
        vp_put_u64(b, (uint64_t)v->bound);
        vp_put_i64(b, v->bound_us);
        vp_put_i64(b, v->total_us);
    }
    vp_put_u64(b, s->refused);
}

void vp_cp_steps_merge(vp_cp_steps *s, vp_rd *d)
{
    size_t n = vp_get_count(d, 6);
    for (size_t i = 0; i < n && !d->bad; i++) {
        vp_cp_verdict v;
        v.rank = (long)vp_get_i64(d);
        v.step = (long)vp_get_i64(d);
        v.instance = (long)vp_get_i64(d);
        uint64_t b = vp_get_u64(d);
        v.bound_us = vp_get_i64(d);
        v.total_us = vp_get_i64(d);
        if (b >= VP_CP_BOUND_COUNT) {
            d->bad = 1;
            return;
        }
        v.bound = (vp_cp_bound)b;
        if (!d->bad)
            add(s, v);
    }
    s->refused += (size_t)vp_get_u64(d);
}

void vp_cp_steps_free(vp_cp_steps *s)
{
    if (s->reading)
        vp_critpath_free(&s->cp);
    free(s->v);
    memset(s, 0, sizeof *s);
}
