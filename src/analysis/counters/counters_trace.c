/* The trace with the counters added (vprof/counters.h), as HTA's
 * generate_trace_with_counters writes it: one counter event (ph "C") per
 * point of every series, after the trace's own events.  HTA's events
 * (trace.py convert_time_series_to_events): queue length {"name": "Queue
 * Length", "pid": the GPU event's pid, "id": the stream, "args": {"Queue
 * Length": n}}; bandwidth {"name": the copy kind, "pid", "args": {"Memcpy
 * BW": GB/s}}; series by stream (kind), points in the series' order. */
#include <string.h>

#include "vprof/counters.h"
#include "vprof/trace_copy.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

static void write_series(vp_trace_out *o, const vp_cseries *s, int queue, vp_buf *b)
{
    for (size_t j = 0; j < s->n; j++) {
        b->len = 0;
        vp_buf_printf(b, "{\"name\": ");
        const char *name = queue ? "Queue Length" : s->name;
        vp_tw_string(b, name, strlen(name));
        vp_buf_printf(b, ", \"ph\": \"C\", \"pid\": %lld, \"ts\": ", (long long)s->pid);
        vp_tw_us(b, s->ts[j]);
        if (queue)
            vp_buf_printf(b, ", \"id\": %lld, \"args\": {\"Queue Length\": %lld}}",
                          (long long)s->stream, (long long)s->v[j]);
        else {
            vp_buf_printf(b, ", \"args\": {\"Memcpy BW\": ");
            vp_trace_copy_double(b, s->v[j]);
            vp_buf_printf(b, "}}");
        }
        vp_trace_out_next(o);
        vp_sink_write(o->sink, b->data, b->len);
    }
}

static void write_counters(void *ctx, vp_trace_out *o)
{
    const vp_counters *c = ctx;
    vp_buf b = {0};
    for (size_t i = 0; i < c->nqueue; i++)
        write_series(o, &c->queue[i], 1, &b);
    for (size_t i = 0; i < c->nbw; i++)
        write_series(o, &c->bw[i], 0, &b);
    vp_buf_free(&b);
}

int vp_counters_write_trace(const vp_counters *c, const char *in, const char *out, vp_error *err)
{
    vp_trace_copy_ops ops = {.tail = write_counters, .ctx = (void *)c, .partial = c->o.partial};
    return vp_trace_copy(in, out, &ops, err);
}
