/* The trace with its critical path marked, as HTA's
 * overlay_critical_path_analysis writes it: args.critical = 1 on every
 * event of the path, and a flow arrow (ph s/f, cat and name critical_path,
 * args weight, critical, type) per dependency, launch-delay and sync edge
 * of the path.  Written by vp_trace_copy (vprof/trace_copy.h), the writer
 * of counters' and sequences' --trace-out: the events copied as they are,
 * with only that member added, the flows after them, then the input's
 * other top-level members. */
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"
#include "vprof/trace.h"
#include "vprof/trace_copy.h"

/* What a flow needs of an event: its raw pid and tid, its times. */
typedef struct flow_end {
    int64_t idx;
    char *pid, *tid;
    int64_t ts, dur;
    int device;
} flow_end;

static int shown(vp_cp_edge_type t)
{
    return t == VP_CP_DEPENDENCY || t == VP_CP_LAUNCH_DELAY || t == VP_CP_SYNC;
}

static int cmp_end(const void *a, const void *b)
{
    const flow_end *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static flow_end *find_end(flow_end *e, size_t n, int64_t idx)
{
    flow_end key = {.idx = idx};
    return bsearch(&key, e, n, sizeof *e, cmp_end);
}

static char *span_dup(vp_span v)
{
    return v.p ? vp_strndup(v.p, v.n) : vp_strdup("null");
}

static void write_flow(vp_sink *s, const vp_cp_step *st, const flow_end *e, int start_node, long id,
                       int is_start)
{
    /* HTA: the start's ts, or the end (a GPU event's end less 1 us) */
    int64_t ns = e->ts;
    if (!start_node) {
        ns = e->ts + e->dur;
        if (e->device >= 0)
            ns -= e->dur < 1000 ? e->dur : 1000;
    }
    vp_sink_printf(s, "{\"ph\": \"%s\", \"id\": %ld, \"pid\": %s, \"tid\": %s, \"ts\": %lld, "
                  "\"cat\": \"critical_path\", \"name\": \"critical_path\", \"args\": "
                  "{\"weight\": %lld, \"critical\": true, \"type\": \"%s\"}%s}",
                  is_start ? "s" : "f", id, e->pid, e->tid, (long long)(ns / 1000),
                  (long long)st->weight, vp_cp_edge_type_name(st->type), is_start ? "" : ", \"bp\": \"e\"");
}

/* What the copy needs: the path, the events flows start or end at (found
 * as the copy passes them), and the next critical row. */
typedef struct overlay {
    const vp_critpath *cp;
    flow_end *ends;
    size_t ne;
    size_t crit;
} overlay;

static void copy_event(void *ctx, vp_sink *s, const vp_event *ev, int64_t idx)
{
    overlay *o = ctx;
    const vp_critpath *cp = o->cp;
    while (o->crit < cp->ncritical && cp->rows[cp->critical_rows[o->crit]].idx < idx)
        o->crit++;
    if (o->crit < cp->ncritical && cp->rows[cp->critical_rows[o->crit]].idx == idx) {
        static const char mark[] = "\"critical\": 1";
        vp_trace_copy_with_arg(s, ev, mark, sizeof mark - 1);
    } else {
        vp_sink_write(s, ev->raw.p, ev->raw.n);
    }
    flow_end *e = o->ne ? find_end(o->ends, o->ne, idx) : NULL;
    if (e) {
        vp_span dev = {0};
        int64_t d = -1;
        if (ev->args.p && vp_json_get(ev->args, "device", &dev))
            vp_json_int(dev, &d);
        e->pid = span_dup(ev->pid);
        e->tid = span_dup(ev->tid);
        e->ts = ev->ts;
        e->dur = ev->has_dur ? ev->dur : 0;
        e->device = (int)d;
    }
}

/* The flows, an s and an f event per edge shown, after the events. */
static void write_flows(void *ctx, vp_trace_out *out)
{
    overlay *o = ctx;
    const vp_critpath *cp = o->cp;
    long id = 0;
    for (size_t i = 0; i < cp->npath; i++) {
        const vp_cp_step *st = &cp->path[i];
        if (!shown(st->type))
            continue;
        const flow_end *a = find_end(o->ends, o->ne, cp->rows[st->from_row].idx);
        const flow_end *z = find_end(o->ends, o->ne, cp->rows[st->to_row].idx);
        if (!a || !z || !a->pid || !z->pid)   /* the file changed under us */
            continue;
        vp_trace_out_next(out);
        write_flow(out->sink, st, a, st->from_start, id, 1);
        vp_trace_out_next(out);
        write_flow(out->sink, st, z, st->to_start, id, 0);
        id++;
    }
}

int vp_critpath_overlay(const vp_critpath *cp, const char *in, const char *out, vp_error *err)
{
    /* the events flows start or end at */
    size_t ne = 0;
    flow_end *ends = vp_calloc(2 * cp->npath + 1, sizeof *ends);
    for (size_t i = 0; i < cp->npath; i++)
        if (shown(cp->path[i].type)) {
            ends[ne++].idx = cp->rows[cp->path[i].from_row].idx;
            ends[ne++].idx = cp->rows[cp->path[i].to_row].idx;
        }
    qsort(ends, ne, sizeof *ends, cmp_end);
    size_t u = 0;
    for (size_t i = 0; i < ne; i++)
        if (u == 0 || ends[u - 1].idx != ends[i].idx)
            ends[u++] = ends[i];
    overlay o = {.cp = cp, .ends = ends, .ne = u};
    vp_trace_copy_ops ops = {.event = copy_event, .tail = write_flows, .ctx = &o};
    int r = vp_trace_copy(in, out, &ops, err);
    for (size_t i = 0; i < u; i++) {
        free(ends[i].pid);
        free(ends[i].tid);
    }
    free(ends);
    return r;
}
