/* The profiler's edges among runtime calls (vprof/calledges.h). */
#include <stdlib.h>
#include <string.h>

#include "vprof/calledges.h"
#include "vprof/classify.h"

typedef struct edge_call {
    int64_t ts, dur;
    uint32_t name;
} edge_call;

struct vp_calledges_file {
    edge_call *c;
    size_t n, cap;
};

void vp_calledges_init(vp_calledges *e)
{
    memset(e, 0, sizeof *e);
    e->names = vp_strmap_new();
}

void vp_calledges_free(vp_calledges *e)
{
    vp_strmap_free(e->names);
    free(e->v);
    memset(e, 0, sizeof *e);
}

static uint32_t name_of(vp_calledges *e, const char *p, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(e->names, p, n, &inserted);
    if (inserted) {
        size_t i = vp_strmap_count(e->names) - 1;
        *slot = (void *)(uintptr_t)(i + 1);
        if (i >= e->cap) {
            e->cap = e->cap ? e->cap * 2 : 64;
            e->v = vp_realloc(e->v, e->cap * sizeof *e->v);
        }
        memset(&e->v[i], 0, sizeof e->v[i]);
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

vp_calledges_file *vp_calledges_file_begin(void)
{
    return vp_calloc(1, sizeof(vp_calledges_file));
}

void vp_calledges_file_free(vp_calledges_file *f)
{
    if (!f)
        return;
    free(f->c);
    free(f);
}

void vp_calledges_file_observe(vp_calledges *e, vp_calledges_file *f, const vp_event *ev)
{
    if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur || !vp_is_launch_category(ev->cat))
        return;
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 1024;
        f->c = vp_realloc(f->c, f->cap * sizeof *f->c);
    }
    f->c[f->n++] = (edge_call){ev->ts, ev->dur, name_of(e, ev->name.p, ev->name.n)};
}

int vp_calledge_of(int64_t ts, int has_launch, int64_t first_launch, int64_t last_launch_end,
                   vp_steps *steps, int counted_only)
{
    int64_t a, b;
    /* --steps: what the counted steps leave out, vprof api leaves out too */
    if (counted_only && vp_steps_count(steps) > 0) {
        long at = vp_steps_at(steps, ts);
        if (at < 0 || vp_steps_window(steps, (size_t)at, &a, &b) != 1)
            return VP_EDGE_OUTSIDE_STEPS;
    }
    if (has_launch && ts < first_launch)
        return VP_EDGE_BEFORE_LAUNCH;
    if (has_launch && ts >= last_launch_end)
        return VP_EDGE_AFTER_LAUNCH;
    if (steps && vp_steps_count(steps) > 0 && vp_steps_at(steps, ts) < 0)
        return VP_EDGE_OUTSIDE_STEPS;
    return VP_EDGE_PROGRAM;
}

void vp_calledges_file_end(vp_calledges *e, vp_calledges_file *f, const vp_gpuwork *w,
                           vp_steps *counted)
{
    /* the first and the last call that launched GPU work the trace holds */
    int has = 0;
    int64_t first = 0, last_end = 0;
    for (size_t i = 0; i < w->n; i++) {
        int64_t ts, dur;
        if (w->ev[i].corr < 0 || !vp_steps_launch(w->steps, w->ev[i].corr, &ts, &dur))
            continue;
        if (!has || ts < first)
            first = ts;
        if (!has || ts + dur > last_end)
            last_end = ts + dur;
        has = 1;
    }
    vp_steps *steps = counted ? counted : w->steps;
    for (size_t i = 0; i < f->n; i++) {
        const edge_call *c = &f->c[i];
        int k = vp_calledge_of(c->ts, has, first, last_end, steps, counted != NULL);
        e->v[c->name].time[k] += c->dur;
        e->v[c->name].calls[k]++;
    }
    vp_calledges_file_free(f);
}

const char *vp_calledge_name(int edge)
{
    static const char *const names[] = {"the program's", "before the first launch",
                                        "after the last launch", "outside every step"};
    return edge >= 0 && edge < VP_EDGE_COUNT ? names[edge] : "?";
}

void vp_calledges_save(const vp_calledges *e, vp_buf *b)
{
    size_t n = vp_strmap_count(e->names);
    vp_put_u64(b, n);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *k = vp_strmap_key(e->names, i, &len);
        vp_put_str(b, k, len);
        for (int j = 0; j < VP_EDGE_COUNT; j++) {
            vp_put_i64(b, e->v[i].time[j]);
            vp_put_i64(b, e->v[i].calls[j]);
        }
    }
}

int vp_calledges_merge(vp_calledges *e, vp_rd *r)
{
    size_t n = vp_get_count(r, 1 + 2 * VP_EDGE_COUNT);   /* varints: a byte at least */
    for (size_t i = 0; i < n && !r->bad; i++) {
        size_t len;
        const char *k = vp_get_str(r, &len);
        vp_edge_name v;
        for (int j = 0; j < VP_EDGE_COUNT; j++) {
            v.time[j] = vp_get_i64(r);
            v.calls[j] = vp_get_i64(r);
            if (v.calls[j] < 0)
                r->bad = 1;
        }
        if (r->bad)
            break;
        uint32_t id = name_of(e, k, len);
        for (int j = 0; j < VP_EDGE_COUNT; j++) {
            e->v[id].time[j] += v.time[j];
            e->v[id].calls[j] += v.calls[j];
        }
    }
    return r->bad ? -1 : 0;
}
