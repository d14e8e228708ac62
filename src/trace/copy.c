/* The trace written beside a command's tables (vprof/trace_copy.h). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/trace_copy.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

void vp_trace_out_next(vp_trace_out *o)
{
    if (o->nevents++)
        vp_sink_puts(o->sink, ",\n");
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The input's members other than traceEvents, as the reader kept them. */
static void write_members(vp_sink *s, vp_trace *t)
{
    for (const cJSON *m = vp_trace_meta(t)->child; m; m = m->next) {
        char *v = cJSON_PrintUnformatted(m);
        vp_buf k = {0};
        vp_tw_string(&k, m->string, strlen(m->string));
        vp_sink_printf(s, ",\n%s: %s", vp_buf_cstr(&k), v ? v : "null");
        vp_buf_free(&k);
        cJSON_free(v);
    }
}

int vp_trace_copy(const char *in, const char *out, const vp_trace_copy_ops *ops, vp_error *err)
{
    vp_trace_opts topts = {.partial = ops->partial, .progress = 1};
    vp_trace *t = vp_trace_open(in, &topts, err);
    if (!t)
        return VP_EXIT_INPUT;
    vp_sink_opts so = {.gzip = ends_with(out, ".gz"), .level = VP_SINK_DEFAULT_LEVEL};
    vp_sink *s = vp_sink_open(out, &so, err);
    if (!s) {
        vp_trace_close(t);
        return VP_EXIT_INPUT;
    }
    vp_trace_out o = {.sink = s};
    vp_sink_puts(s, "{\"traceEvents\": [\n");
    vp_event ev;
    int r;
    while ((r = vp_trace_next(t, &ev, err)) == 1) {
        vp_trace_out_next(&o);
        if (ops->event)
            ops->event(ops->ctx, s, &ev, (int64_t)o.nevents - 1);
        else
            vp_sink_write(s, ev.raw.p, ev.raw.n);
    }
    if (r == 0) {
        if (ops->tail)
            ops->tail(ops->ctx, &o);
        vp_sink_puts(s, "\n]");
        write_members(s, t);
        vp_sink_puts(s, "\n}\n");
        r = vp_sink_close(s, err);
    } else {
        vp_sink_abort(s);
    }
    vp_trace_close(t);
    return r == 0 ? VP_EXIT_OK : VP_EXIT_INPUT;
}

int vp_trace_copy_with_arg(vp_sink *s, const vp_event *ev, const char *member, size_t n)
{
    /* one insertion: before the args' closing brace (after ", " when they
     * hold members), or a new args member before the event's own; written
     * piece by piece, since a member may be large (sequences' patterns) */
    const char *at, *pre, *post = "";
    if (ev->args.p && ev->args.n >= 2) {
        at = ev->args.p + ev->args.n - 1;
        const char *p = ev->args.p + 1;
        while (p < at && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
            p++;
        pre = p != at ? ", " : "";
    } else {
        at = ev->raw.p + ev->raw.n - 1;
        pre = ", \"args\": {";
        post = "}";
    }
    vp_sink_write(s, ev->raw.p, (size_t)(at - ev->raw.p));
    vp_sink_puts(s, pre);
    vp_sink_write(s, member, n);
    vp_sink_puts(s, post);
    return vp_sink_write(s, at, (size_t)(ev->raw.p + ev->raw.n - at));
}

void vp_trace_copy_double(vp_buf *out, double v)
{
    if (isnan(v)) {
        vp_buf_printf(out, "%s", "NaN");
        return;
    }
    if (isinf(v)) {
        vp_buf_printf(out, "%s", v < 0 ? "-Infinity" : "Infinity");
        return;
    }
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    vp_buf_printf(out, "%s", buf);
    if (!strpbrk(buf, ".eEn"))
        vp_buf_printf(out, "%s", ".0");
}
