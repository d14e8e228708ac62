/* The trace with its critical path marked, as HTA's
 * overlay_critical_path_analysis writes it: args.critical = 1 on every
 * event of the path, and a flow arrow (ph s/f, cat and name critical_path,
 * args weight, critical, type) per dependency, launch-delay and sync edge
 * of the path.  The events are copied as they are, with only that member
 * added; the other top-level members follow them. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"
#include "vprof/sink.h"
#include "vprof/trace.h"
#include "vprof/trace_writer.h"

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

/* Inserts "critical": 1 into the event's args (made when absent). */
static int write_marked(vp_sink *s, const vp_event *ev)
{
    vp_tw_edit ed;
    if (ev->args.p && ev->args.n >= 2) {
        const char *close = ev->args.p + ev->args.n - 1;
        const char *p = ev->args.p + 1;
        while (p < close && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
            p++;
        static const char first[] = "\"critical\": 1", more[] = ", \"critical\": 1";
        ed = (vp_tw_edit){close, 0, p == close ? first : more,
                          p == close ? sizeof first - 1 : sizeof more - 1};
    } else {
        static const char args[] = ", \"args\": {\"critical\": 1}";
        ed = (vp_tw_edit){ev->raw.p + ev->raw.n - 1, 0, args, sizeof args - 1};
    }
    return vp_tw_splice(s, ev->raw, &ed, 1);
}

static char *span_dup(vp_span v)
{
    return v.p ? vp_strndup(v.p, v.n) : vp_strdup("null");
}

static void write_flow(vp_buf *b, const vp_cp_step *st, const flow_end *e, int start_node, long id,
                       int is_start)
{
    /* HTA: the start's ts, or the end (a GPU event's end less 1 us) */
    int64_t ns = e->ts;
    if (!start_node) {
        ns = e->ts + e->dur;
        if (e->device >= 0)
            ns -= e->dur < 1000 ? e->dur : 1000;
    }
    vp_buf_printf(b, ",\n{\"ph\": \"%s\", \"id\": %ld, \"pid\": %s, \"tid\": %s, \"ts\": %lld, "
                  "\"cat\": \"critical_path\", \"name\": \"critical_path\", \"args\": "
                  "{\"weight\": %lld, \"critical\": true, \"type\": \"%s\"}%s}",
                  is_start ? "s" : "f", id, e->pid, e->tid, (long long)(ns / 1000),
                  (long long)st->weight, vp_cp_edge_type_name(st->type), is_start ? "" : ", \"bp\": \"e\"");
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
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
    ne = u;
    vp_trace_opts topts = {.partial = 0, .progress = 1};
    vp_trace *t = vp_trace_open(in, &topts, err);
    vp_sink_opts so = {.gzip = ends_with(out, ".gz"), .level = VP_SINK_DEFAULT_LEVEL};
    vp_sink *s = t ? vp_sink_open(out, &so, err) : NULL;
    int r = -1;
    if (!s)
        goto done;
    vp_sink_puts(s, "{\"traceEvents\": [\n");
    vp_event ev;
    int64_t idx = 0;
    size_t crit = 0;
    while ((r = vp_trace_next(t, &ev, err)) == 1) {
        if (idx)
            vp_sink_puts(s, ",\n");
        while (crit < cp->ncritical && cp->rows[cp->critical_rows[crit]].idx < idx)
            crit++;
        if (crit < cp->ncritical && cp->rows[cp->critical_rows[crit]].idx == idx)
            write_marked(s, &ev);
        else
            vp_sink_write(s, ev.raw.p, ev.raw.n);
        flow_end *e = ne ? find_end(ends, ne, idx) : NULL;
        if (e) {
            vp_span dev = {0};
            int64_t d = -1;
            if (ev.args.p && vp_json_get(ev.args, "device", &dev))
                vp_json_int(dev, &d);
            e->pid = span_dup(ev.pid);
            e->tid = span_dup(ev.tid);
            e->ts = ev.ts;
            e->dur = ev.has_dur ? ev.dur : 0;
            e->device = (int)d;
        }
        idx++;
    }
    if (r == 0) {
        vp_buf b = {0};
        long id = 0;
        for (size_t i = 0; i < cp->npath; i++) {
            const vp_cp_step *st = &cp->path[i];
            if (!shown(st->type))
                continue;
            const flow_end *a = find_end(ends, ne, cp->rows[st->from_row].idx);
            const flow_end *z = find_end(ends, ne, cp->rows[st->to_row].idx);
            if (!a || !z || !a->pid || !z->pid)   /* the file changed under us */
                continue;
            write_flow(&b, st, a, st->from_start, id, 1);
            write_flow(&b, st, z, st->to_start, id, 0);
            id++;
        }
        vp_sink_write(s, b.data ? b.data : "", b.len);
        vp_buf_free(&b);
        vp_sink_puts(s, "\n]");
        for (const cJSON *m = vp_trace_meta(t)->child; m; m = m->next) {
            char *v = cJSON_PrintUnformatted(m);
            vp_buf k = {0};
            vp_tw_string(&k, m->string, strlen(m->string));
            vp_sink_printf(s, ",\n%s: %s", vp_buf_cstr(&k), v ? v : "null");
            vp_buf_free(&k);
            cJSON_free(v);
        }
        vp_sink_puts(s, "\n}\n");
        r = vp_sink_close(s, err);
        s = NULL;
    }
done:
    if (s)
        vp_sink_abort(s);
    if (t)
        vp_trace_close(t);
    for (size_t i = 0; i < ne; i++) {
        free(ends[i].pid);
        free(ends[i].tid);
    }
    free(ends);
    return r == 0 ? VP_EXIT_OK : VP_EXIT_INPUT;
}
