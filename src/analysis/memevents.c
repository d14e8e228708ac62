/* Peaks and timelines from Kineto [memory] events (see vprof/memevents.h). */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "vprof/memevents.h"
#include "vprof/util.h"

vp_memevents *vp_memevents_new(int keep_points)
{
    vp_memevents *m = vp_calloc(1, sizeof *m);
    m->keep_points = keep_points;
    return m;
}

void vp_memevents_free(vp_memevents *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->ndevices; i++) {
        free(m->devices[i].points);
        free(m->devices[i].peak_pid);
        free(m->devices[i].peak_tid);
    }
    free(m->devices);
    free(m->ooms);
    free(m);
}

static vp_mem_device *device(vp_memevents *m, int type, int id)
{
    for (size_t i = 0; i < m->ndevices; i++)
        if (m->devices[i].type == type && m->devices[i].id == id)
            return &m->devices[i];
    m->devices = vp_realloc(m->devices, (m->ndevices + 1) * sizeof *m->devices);
    vp_mem_device *d = &m->devices[m->ndevices++];
    memset(d, 0, sizeof *d);
    d->type = type;
    d->id = id;
    d->peak_alloc.allocated = d->peak_reserved.reserved = INT64_MIN;
    return d;
}

static int64_t num(vp_span v, int *ok)
{
    int64_t x = 0;
    if (!v.p || vp_json_int(v, &x) != 0)
        *ok = 0;
    return x;
}

static char *span_text(vp_span s)
{
    return s.p ? vp_strndup(s.p, s.n) : vp_strdup("");
}

/* Earlier in the trace: smaller ts, then smaller order. */
static int before(const vp_mem_point *a, const vp_mem_point *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->order < b->order);
}

void vp_memevents_observe(vp_memevents *m, const vp_event *ev)
{
    if (ev->ph != 'i' && ev->ph != 'I')
        return;
    int is_mem = ev->name.n == 8 && memcmp(ev->name.p, "[memory]", 8) == 0;
    int is_oom = ev->name.n == 13 && memcmp(ev->name.p, "[OutOfMemory]", 13) == 0;
    if (!is_mem && !is_oom)
        return;
    static const char *const keys[] = {"Device Type", "Device Id", "Bytes", "Total Allocated",
                                       "Total Reserved", "Ev Idx"};
    vp_span v[6];
    vp_json_get_many(ev->args, keys, 6, v);
    int ok = ev->has_ts && ev->args.p;
    int type = (int)num(v[0], &ok), id = (int)num(v[1], &ok);
    vp_mem_point p = {.ts = ev->ts, .bytes = num(v[2], &ok), .allocated = num(v[3], &ok),
                      .reserved = num(v[4], &ok)};
    if (!ok) {
        m->bad++;
        return;
    }
    int ok_idx = 1;
    p.order = num(v[5], &ok_idx);
    if (!ok_idx)
        p.order = (int64_t)m->events;
    if (is_oom) {
        m->ooms = vp_realloc(m->ooms, (m->nooms + 1) * sizeof *m->ooms);
        m->ooms[m->nooms++] = (vp_mem_oom){type, id, p.ts, p.bytes, p.allocated, p.reserved};
        return;
    }
    m->events++;
    vp_mem_device *d = device(m, type, id);
    if (p.bytes >= 0)
        d->allocs++;
    else
        d->frees++;
    if (p.allocated > d->peak_alloc.allocated ||
        (p.allocated == d->peak_alloc.allocated && before(&p, &d->peak_alloc))) {
        d->peak_alloc = p;
        free(d->peak_pid);
        free(d->peak_tid);
        d->peak_pid = span_text(ev->pid);
        d->peak_tid = span_text(ev->tid);
    }
    if (p.reserved > d->peak_reserved.reserved ||
        (p.reserved == d->peak_reserved.reserved && before(&p, &d->peak_reserved)))
        d->peak_reserved = p;
    if (d->allocs + d->frees == 1 || !before(&p, &d->last))
        d->last = p;
    if (m->keep_points) {
        if (d->npoints == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 256;
            d->points = vp_realloc(d->points, d->cap * sizeof *d->points);
        }
        d->points[d->npoints++] = p;
    }
}

static int cmp_point(const void *a, const void *b)
{
    const vp_mem_point *x = a, *y = b;
    if (x->ts != y->ts)
        return (x->ts > y->ts) - (x->ts < y->ts);
    return (x->order > y->order) - (x->order < y->order);
}

static int cmp_device(const void *a, const void *b)
{
    const vp_mem_device *x = a, *y = b;
    if (x->type != y->type)
        return (x->type > y->type) - (x->type < y->type);
    return (x->id > y->id) - (x->id < y->id);
}

void vp_memevents_finish(vp_memevents *m)
{
    if (m->ndevices)
        qsort(m->devices, m->ndevices, sizeof *m->devices, cmp_device);
    for (size_t i = 0; i < m->ndevices; i++)
        if (m->devices[i].npoints)
            qsort(m->devices[i].points, m->devices[i].npoints, sizeof(vp_mem_point), cmp_point);
}

void vp_mem_device_name(int type, int id, char *buf, size_t n)
{
    const char *t;
    switch (type) {
    case 0: t = "cpu"; break;
    case 1: t = "cuda"; break;
    case 6: t = "hip"; break;
    case 12: t = "xpu"; break;
    case 13: t = "mps"; break;
    case 20: t = "privateuse1"; break;
    default: t = NULL; break;
    }
    if (type == 0 && id < 0)
        snprintf(buf, n, "cpu");
    else if (t)
        snprintf(buf, n, "%s:%d", t, id);
    else
        snprintf(buf, n, "type%d:%d", type, id);
}

static int span_is(vp_span s, const char *text)
{
    size_t n = strlen(text);
    return s.p ? s.n == n && memcmp(s.p, text, n) == 0 : n == 0;
}

void vp_op_finder_observe(vp_op_finder *f, const vp_event *ev)
{
    if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur || ev->ts > f->ts ||
        ev->ts + ev->dur < f->ts)
        return;
    if (!(ev->cat.n == 6 && memcmp(ev->cat.p, "cpu_op", 6) == 0))
        return;
    if (!span_is(ev->pid, f->pid) || !span_is(ev->tid, f->tid))
        return;
    if (f->name && (ev->dur > f->best_dur || (ev->dur == f->best_dur && ev->ts <= f->best_start)))
        return;
    free(f->name);
    f->name = vp_strndup(ev->name.p, ev->name.n);
    f->best_dur = ev->dur;
    f->best_start = ev->ts;
}
