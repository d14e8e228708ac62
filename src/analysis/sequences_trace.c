/* The trace with the top kernel sequences marked (vprof/sequences.h), as
 * HTA's _overlay_frequent_patterns_with_trace writes it: every event of
 * an instance of a top pattern (the operator, the slices under it, the GPU
 * events they launched) gets args "Patterns": {pattern: count, ...}, the
 * top patterns it belongs to in the table's order, so that a search for
 * "Patterns" in the viewer finds them.  HTA by default also empties the
 * args and shortens the names of every other complete event
 * (compress_other_kernels, to save its memory); vprof copies them as they
 * are, as HTA does with compress_other_kernels=False. */
#include <string.h>

#include "vprof/sequences.h"
#include "vprof/trace_copy.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

typedef struct overlay {
    const vp_sequences *q;
    size_t top;
    size_t at;          /* the next mark */
    vp_buf member;
} overlay;

static void write_event(void *ctx, vp_sink *s, const vp_event *ev, int64_t idx)
{
    overlay *o = ctx;
    const vp_sequences *q = o->q;
    while (o->at < q->nmarks && q->marks[o->at].event < idx)
        o->at++;
    o->member.len = 0;
    long last = -1;
    for (; o->at < q->nmarks && q->marks[o->at].event == idx; o->at++) {
        uint32_t row = q->marks[o->at].row;
        if (row >= o->top || (long)row == last)
            continue;
        vp_buf_printf(&o->member, "%s", o->member.len ? ", " : "\"Patterns\": {");
        const vp_sequence *sq = &q->rows[row];
        vp_tw_string(&o->member, sq->pattern, strlen(sq->pattern));
        vp_buf_printf(&o->member, ": %lld", (long long)sq->count);
        last = (long)row;
    }
    if (!o->member.len) {
        vp_sink_write(s, ev->raw.p, ev->raw.n);
        return;
    }
    vp_buf_putc(&o->member, '}');
    vp_trace_copy_with_arg(s, ev, o->member.data, o->member.len);
}

int vp_sequences_write_trace(const vp_sequences *q, const char *in, const char *out, size_t top,
                             vp_error *err)
{
    overlay o = {.q = q, .top = top && top < q->nrows ? top : q->nrows};
    vp_trace_copy_ops ops = {.event = write_event, .ctx = &o, .partial = q->o.partial};
    int r = vp_trace_copy(in, out, &ops, err);
    vp_buf_free(&o.member);
    return r;
}
