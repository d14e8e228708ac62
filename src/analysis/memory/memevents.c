/* Peaks and timelines from Kineto [memory] events (see vprof/memevents.h). */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "vprof/classify.h"
#include "vprof/memevents.h"
#include "vprof/part.h"
#include "vprof/tracepass.h"
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
        free(m->devices[i].peak_op);
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

/* The trace's start: its earliest event; metadata events carry a ts of
 * 0 or of the trace's creation in some writers, not a time of the run. */
static void move_start(vp_memevents *m, int64_t ts)
{
    if (!m->has_start || ts < m->start) {
        m->start = ts;
        m->has_start = 1;
    }
}

/* ts as an unsigned number in the same order, so that shifting it
 * right gives buckets aligned on multiples of their width, negative
 * times included. */
static uint64_t time_key(int64_t ts)
{
    return (uint64_t)ts ^ (UINT64_C(1) << 63);
}

/* A bucket's points (VP_MEM_POINTS_CHART), as indices into the device's:
 * first, last, least and most allocated, least and most reserved. */
enum { REP_FIRST, REP_LAST, REP_AMIN, REP_AMAX, REP_RMIN, REP_RMAX, NREP };

static int rep_wins(int kind, const vp_mem_point *p, const vp_mem_point *cur)
{
    switch (kind) {
    case REP_FIRST: return before(p, cur);
    case REP_LAST: return !before(p, cur);
    case REP_AMIN: return p->allocated < cur->allocated ||
                          (p->allocated == cur->allocated && before(p, cur));
    case REP_AMAX: return p->allocated > cur->allocated ||
                          (p->allocated == cur->allocated && before(p, cur));
    case REP_RMIN: return p->reserved < cur->reserved ||
                          (p->reserved == cur->reserved && before(p, cur));
    default: return p->reserved > cur->reserved ||
                    (p->reserved == cur->reserved && before(p, cur));
    }
}

/* Keeps each bucket's points, sorted by (ts, order).  The buckets are
 * the narrowest that number at most VP_MEM_CHART_BUCKETS over the
 * points' span; the span only grows and the first and last points stay,
 * so a later thinning's buckets are whole multiples of an earlier one's
 * and keep what thinning every event at once keeps. */
static void thin(vp_mem_device *d)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t k = 0; k < d->npoints; k++) {
        uint64_t t = time_key(d->points[k].ts);
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    int shift = 0;
    while ((hi >> shift) - (lo >> shift) >= VP_MEM_CHART_BUCKETS)
        shift++;
    size_t nb = (size_t)((hi >> shift) - (lo >> shift)) + 1;
    uint32_t(*rep)[NREP] = vp_malloc(nb * sizeof *rep);
    memset(rep, 0xff, nb * sizeof *rep);
    for (size_t k = 0; k < d->npoints; k++) {
        const vp_mem_point *p = &d->points[k];
        uint32_t *r = rep[(time_key(p->ts) >> shift) - (lo >> shift)];
        for (int j = 0; j < NREP; j++)
            if (r[j] == UINT32_MAX || rep_wins(j, p, &d->points[r[j]]))
                r[j] = (uint32_t)k;
    }
    size_t cap = nb * NREP < d->npoints ? nb * NREP : d->npoints, n = 0;
    vp_mem_point *out = vp_malloc(cap * sizeof *out);
    for (size_t b = 0; b < nb; b++) {
        size_t first = n;
        for (int j = 0; j < NREP && rep[b][j] != UINT32_MAX; j++) {
            int again = 0;   /* one point can be several of the bucket's */
            for (int q = 0; q < j; q++)
                again |= rep[b][q] == rep[b][j];
            if (again)
                continue;
            const vp_mem_point *p = &d->points[rep[b][j]];
            size_t at = n++;
            for (; at > first && before(p, &out[at - 1]); at--)
                out[at] = out[at - 1];
            out[at] = *p;
        }
    }
    memcpy(d->points, out, n * sizeof *out);
    d->npoints = n;
    free(out);
    free(rep);
}

/* The args of [memory] events, in the order Kineto writes them: each
 * member's key is then the first not yet found that the keyset tests. */
VP_JSON_KEYSET(memory_set, "Ev Idx", "Device Type", "Device Id", "Bytes", "Total Allocated",
               "Total Reserved")

/* Apart from vp_memevents_observe, which every event of a trace goes
 * through and which then needs no stack frame. */
static __attribute__((noinline)) void observe_instant(vp_memevents *m, const vp_event *ev)
{
    int is_mem = ev->name.n == 8 && memcmp(ev->name.p, "[memory]", 8) == 0;
    int is_oom = ev->name.n == 13 && memcmp(ev->name.p, "[OutOfMemory]", 13) == 0;
    if (!is_mem && !is_oom)
        return;
    vp_span v[6];
    vp_json_get_keyset(ev->args, &memory_set, v);
    int ok = ev->has_ts && ev->args.p;
    int type = (int)num(v[1], &ok), id = (int)num(v[2], &ok);
    vp_mem_point p = {.ts = ev->ts, .bytes = num(v[3], &ok)};
    /* torch 1.8-1.10 write Bytes without the allocator's totals: the
     * device's running sum of Bytes stands for Total Allocated */
    int replay = is_mem && ok && !v[4].p && !v[5].p;
    if (!replay) {
        p.allocated = num(v[4], &ok);
        p.reserved = num(v[5], &ok);
    }
    if (!ok) {
        m->bad++;
        return;
    }
    int ok_idx = 1;
    p.order = num(v[0], &ok_idx);
    if (!ok_idx)
        p.order = (int64_t)m->events;
    if (is_oom) {
        m->ooms = vp_realloc(m->ooms, (m->nooms + 1) * sizeof *m->ooms);
        m->ooms[m->nooms++] = (vp_mem_oom){type, id, p.ts, p.bytes, p.allocated, p.reserved};
        return;
    }
    m->events++;
    vp_mem_device *d = device(m, type, id);
    if (replay) {
        d->replayed++;
        d->running += p.bytes;
        p.allocated = d->running;
        p.reserved = -1;
    }
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
        if (m->keep_points == VP_MEM_POINTS_CHART && d->npoints >= VP_MEM_CHART_POINTS)
            thin(d);
    }
}

void vp_memevents_observe(vp_memevents *m, const vp_event *ev)
{
    if (ev->has_ts && ev->ph != 'M')
        move_start(m, ev->ts);
    if (ev->ph == 'i' || ev->ph == 'I')
        observe_instant(m, ev);
}

static void put_point(vp_buf *b, const vp_mem_point *p)
{
    vp_put_i64(b, p->ts);
    vp_put_i64(b, p->bytes);
    vp_put_i64(b, p->allocated);
    vp_put_i64(b, p->reserved);
    vp_put_i64(b, p->order);
}

static void get_point(vp_rd *r, vp_mem_point *p)
{
    p->ts = vp_get_i64(r);
    p->bytes = vp_get_i64(r);
    p->allocated = vp_get_i64(r);
    p->reserved = vp_get_i64(r);
    p->order = vp_get_i64(r);
}

void vp_memevents_save(const vp_memevents *m, vp_buf *b)
{
    vp_put_u64(b, m->events);
    vp_put_u64(b, m->nooms);
    for (size_t i = 0; i < m->nooms; i++) {
        const vp_mem_oom *o = &m->ooms[i];
        vp_put_i64(b, o->type);
        vp_put_i64(b, o->id);
        vp_put_i64(b, o->ts);
        vp_put_i64(b, o->bytes);
        vp_put_i64(b, o->allocated);
        vp_put_i64(b, o->reserved);
    }
    vp_put_u64(b, m->ndevices);
    for (size_t i = 0; i < m->ndevices; i++) {
        const vp_mem_device *d = &m->devices[i];
        vp_put_i64(b, d->type);
        vp_put_i64(b, d->id);
        vp_put_u64(b, d->allocs);
        vp_put_u64(b, d->frees);
        put_point(b, &d->peak_alloc);
        put_point(b, &d->peak_reserved);
        put_point(b, &d->last);
        vp_put_u64(b, d->peak_op != NULL);
        if (d->peak_op)
            vp_put_str(b, d->peak_op, strlen(d->peak_op));
        vp_put_u64(b, d->replayed);   /* version 3 */
    }
    vp_put_u64(b, (uint64_t)m->has_start);   /* version 2 */
    vp_put_i64(b, m->start);
}

int vp_memevents_merge(vp_memevents *m, const void *p, size_t n, vp_error *err)
{
    vp_rd r;
    vp_rd_init(&r, p, n);
    m->events += vp_get_u64(&r);
    size_t nooms = vp_get_count(&r, 6);
    for (size_t i = 0; i < nooms && !r.bad; i++) {
        vp_mem_oom o;
        o.type = (int)vp_get_i64(&r);
        o.id = (int)vp_get_i64(&r);
        o.ts = vp_get_i64(&r);
        o.bytes = vp_get_i64(&r);
        o.allocated = vp_get_i64(&r);
        o.reserved = vp_get_i64(&r);
        m->ooms = vp_realloc(m->ooms, (m->nooms + 1) * sizeof *m->ooms);
        m->ooms[m->nooms++] = o;
    }
    size_t ndev = vp_get_count(&r, 20);
    for (size_t i = 0; i < ndev && !r.bad; i++) {
        int type = (int)vp_get_i64(&r), id = (int)vp_get_i64(&r);
        uint64_t allocs = vp_get_u64(&r), frees = vp_get_u64(&r);
        vp_mem_point pa, pr, last;
        get_point(&r, &pa);
        get_point(&r, &pr);
        get_point(&r, &last);
        size_t len = 0;
        const char *op = vp_get_u64(&r) ? vp_get_str(&r, &len) : NULL;
        uint64_t replayed = vp_get_u64(&r);
        /* a device is in a partial because it had events; an op name is
         * a C string once kept */
        if (r.bad || allocs + frees == 0 || allocs + frees < allocs || replayed > allocs + frees ||
            (op && memchr(op, '\0', len))) {
            r.bad = 1;
            break;
        }
        vp_mem_device *d = device(m, type, id);
        int fresh = d->allocs + d->frees == 0;
        d->replayed += replayed;
        if (__builtin_add_overflow(d->allocs, allocs, &d->allocs) ||
            __builtin_add_overflow(d->frees, frees, &d->frees)) {
            r.bad = 1;
            break;
        }
        if (fresh || pa.allocated > d->peak_alloc.allocated ||
            (pa.allocated == d->peak_alloc.allocated && before(&pa, &d->peak_alloc))) {
            d->peak_alloc = pa;
            free(d->peak_op);
            d->peak_op = op ? vp_strndup(op, len) : NULL;
        }
        if (fresh || pr.reserved > d->peak_reserved.reserved ||
            (pr.reserved == d->peak_reserved.reserved && before(&pr, &d->peak_reserved)))
            d->peak_reserved = pr;
        if (fresh || !before(&last, &d->last))
            d->last = last;
    }
    uint64_t has_start = vp_get_u64(&r);
    int64_t start = vp_get_i64(&r);
    if (has_start > 1)
        r.bad = 1;
    else if (has_start)
        move_start(m, start);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged memory partial result");
        return -1;
    }
    return 0;
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
    for (size_t i = 0; i < m->ndevices; i++) {
        vp_mem_device *d = &m->devices[i];
        if (m->keep_points == VP_MEM_POINTS_CHART && d->npoints &&
            d->allocs + d->frees >= VP_MEM_CHART_POINTS)
            thin(d);
        else if (d->npoints)
            qsort(d->points, d->npoints, sizeof(vp_mem_point), cmp_point);
    }
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

/* A raw pid or tid equal to text, the quotes of either aside: torch
 * 1.8-1.10 write a [memory] event's tid as a number and the ops' as a
 * string. */
static int span_is(vp_span s, const char *text)
{
    size_t n = strlen(text);
    if (n >= 2 && text[0] == '"' && text[n - 1] == '"') {
        text++;
        n -= 2;
    }
    if (s.p && s.n >= 2 && s.p[0] == '"' && s.p[s.n - 1] == '"') {
        s.p++;
        s.n -= 2;
    }
    return s.p ? s.n == n && memcmp(s.p, text, n) == 0 : n == 0;
}

void vp_op_finder_observe(vp_op_finder *f, const vp_event *ev)
{
    if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur || ev->ts > f->ts ||
        ev->ts + ev->dur < f->ts)
        return;
    if (vp_event_kind(ev->cat, ev->name) != VP_EV_CPU_OP)
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

static void observe(void *m, const vp_event *ev)
{
    vp_memevents_observe(m, ev);
}

typedef struct op_search {
    vp_op_finder *ops;
    size_t n;
} op_search;

static void observe_ops(void *ctx, const vp_event *ev)
{
    op_search *s = ctx;
    for (size_t i = 0; i < s->n; i++)
        vp_op_finder_observe(&s->ops[i], ev);
}

void vp_memevents_find_ops(vp_memevents *m, const char *file, const vp_trace_pass_opts *o)
{
    if (!m->ndevices)
        return;
    vp_op_finder *ops = vp_calloc(m->ndevices, sizeof *ops);
    for (size_t i = 0; i < m->ndevices; i++)
        ops[i] = (vp_op_finder){.pid = m->devices[i].peak_pid, .tid = m->devices[i].peak_tid,
                                .ts = m->devices[i].peak_alloc.ts};
    /* a second reading that fails finds no op, as with none running */
    vp_error ignored = {0};
    vp_trace_pass again;
    vp_trace_pass_read(&again, file, o, observe_ops, &(op_search){ops, m->ndevices}, &ignored);
    vp_trace_pass_close(&again);
    for (size_t i = 0; i < m->ndevices; i++) {
        free(m->devices[i].peak_op);
        m->devices[i].peak_op = ops[i].name;
    }
    free(ops);
}

vp_memevents *vp_memevents_read(const char *file, const vp_trace_opts *topts, int keep_points,
                                int find_ops, vp_error *err)
{
    vp_trace_pass_opts o = {.partial = topts->partial, .no_progress = !topts->progress,
                            .name = topts->name, .rank = -1};
    vp_trace_pass p;
    vp_memevents *m = vp_memevents_new(keep_points);
    if (vp_trace_pass_read(&p, file, &o, observe, m, err) != 0) {
        vp_trace_pass_close(&p);
        vp_memevents_free(m);
        return NULL;
    }
    vp_memevents_finish(m);
    if (find_ops)
        vp_memevents_find_ops(m, file, &o);
    /* the first pass held open so that this comes after the second's warnings */
    vp_trace_pass_warn(&p, &(vp_trace_pass_warnings){
                               .skipped = m->bad,
                               .skipped_what = "[memory] events without Device Type, Device Id, "
                                               "Bytes and the totals"});
    vp_trace_pass_close(&p);
    return m;
}
