/* The trace with the top kernel sequences marked (vprof/sequences.h), as
 * HTA's _overlay_frequent_patterns_with_trace writes it: every event of
 * an instance of a top pattern (the operator, the slices under it, the GPU
 * events they launched) gets args "Patterns": {pattern: count, ...}, the
 * top patterns it belongs to in the table's order, so that a search for
 * "Patterns" in the viewer finds them.  HTA by default also empties the
 * args and shortens the names of every other complete event
 * (compress_other_kernels, to save its memory); vprof copies them as they
 * are, as HTA does with compress_other_kernels=False. */
#include <stdlib.h>
#include <string.h>

#include "analysis/sequences/sequences_int.h"
#include "vprof/sequences.h"
#include "vprof/trace_copy.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

static int cmp_row(const void *a, const void *b)
{
    const vp_sequence *x = a, *y = b;
    if (x->count != y->count)
        return (y->count > x->count) - (y->count < x->count);
    return strcmp(x->pattern, y->pattern);
}

typedef struct row_at {
    const char *pattern;
    uint32_t row;
} row_at;

static int cmp_row_at(const void *a, const void *b)
{
    const row_at *x = a, *y = b;
    return (x->pattern > y->pattern) - (x->pattern < y->pattern);
}

static int cmp_mark(const void *a, const void *b)
{
    const vp_sequence_mark *x = a, *y = b;
    if (x->event != y->event)
        return (x->event > y->event) - (x->event < y->event);
    return (x->row > y->row) - (x->row < y->row);
}

/* The rows most frequent first; the marks follow their rows (a row's
 * pattern text does not move, so it names the row across the sort) and
 * are put in file order. */
void vp_sequences_sort_rows(vp_sequences *q)
{
    row_at *before = vp_malloc(q->nrows * sizeof *before);
    for (size_t i = 0; i < q->nrows; i++)
        before[i] = (row_at){q->rows[i].pattern, (uint32_t)i};
    qsort(q->rows, q->nrows, sizeof *q->rows, cmp_row);
    if (q->nmarks) {
        row_at *after = vp_malloc(q->nrows * sizeof *after);
        for (size_t i = 0; i < q->nrows; i++)
            after[i] = (row_at){q->rows[i].pattern, (uint32_t)i};
        qsort(after, q->nrows, sizeof *after, cmp_row_at);
        uint32_t *to = vp_malloc(q->nrows * sizeof *to);
        for (size_t i = 0; i < q->nrows; i++) {
            row_at *a = bsearch(&before[i], after, q->nrows, sizeof *after, cmp_row_at);
            to[i] = a->row;
        }
        for (size_t i = 0; i < q->nmarks; i++)
            q->marks[i].row = to[q->marks[i].row];
        qsort(q->marks, q->nmarks, sizeof *q->marks, cmp_mark);
        free(to);
        free(after);
    }
    free(before);
}

/* A pattern may be hundreds of kilobytes (a step's every kernel), and
 * every event of each of its instances carries it: each row's member text
 * is escaped once, and the member of the last event reused while the next
 * one belongs to the same rows. */
typedef struct overlay {
    const vp_sequences *q;
    size_t top;
    size_t at;          /* the next mark */
    vp_buf *row_text;   /* per row: its "pattern": count, once asked for */
    vp_buf member;      /* the last event's Patterns member */
    uint32_t *rows, *last_rows;   /* the rows of this event's and the last one's */
    size_t nrows, nlast;
} overlay;

static const vp_buf *row_text(overlay *o, uint32_t row)
{
    vp_buf *b = &o->row_text[row];
    if (!b->len) {
        const vp_sequence *sq = &o->q->rows[row];
        vp_tw_string(b, sq->pattern, strlen(sq->pattern));
        vp_buf_printf(b, ": %lld", (long long)sq->count);
    }
    return b;
}

static void write_event(void *ctx, vp_sink *s, const vp_event *ev, int64_t idx)
{
    overlay *o = ctx;
    const vp_sequences *q = o->q;
    while (o->at < q->nmarks && q->marks[o->at].event < idx)
        o->at++;
    o->nrows = 0;
    for (; o->at < q->nmarks && q->marks[o->at].event == idx; o->at++) {
        uint32_t row = q->marks[o->at].row;
        if (row >= o->top || (o->nrows && o->rows[o->nrows - 1] == row))
            continue;
        o->rows[o->nrows++] = row;
    }
    if (!o->nrows) {
        vp_sink_write(s, ev->raw.p, ev->raw.n);
        return;
    }
    if (o->nrows != o->nlast || memcmp(o->rows, o->last_rows, o->nrows * sizeof *o->rows) != 0) {
        o->member.len = 0;
        vp_buf_printf(&o->member, "\"Patterns\": {");
        for (size_t i = 0; i < o->nrows; i++) {
            const vp_buf *t = row_text(o, o->rows[i]);
            if (i)
                vp_buf_append(&o->member, ", ", 2);
            vp_buf_append(&o->member, t->data, t->len);
        }
        vp_buf_putc(&o->member, '}');
        memcpy(o->last_rows, o->rows, o->nrows * sizeof *o->rows);
        o->nlast = o->nrows;
    }
    vp_trace_copy_with_arg(s, ev, o->member.data, o->member.len);
}

int vp_sequences_write_trace(const vp_sequences *q, const char *in, const char *out, size_t top,
                             vp_error *err)
{
    overlay o = {.q = q, .top = top && top < q->nrows ? top : q->nrows};
    /* an event's marks name each of its rows at most once per instance,
     * and an event is in one instance per row: at most top rows */
    o.row_text = vp_calloc(o.top + 1, sizeof *o.row_text);
    o.rows = vp_malloc((o.top + 1) * sizeof *o.rows);
    o.last_rows = vp_malloc((o.top + 1) * sizeof *o.last_rows);
    vp_trace_copy_ops ops = {.event = write_event, .ctx = &o, .partial = q->o.partial};
    int r = vp_trace_copy(in, out, &ops, err);
    for (size_t i = 0; i < o.top; i++)
        vp_buf_free(&o.row_text[i]);
    free(o.row_text);
    free(o.rows);
    free(o.last_rows);
    vp_buf_free(&o.member);
    return r;
}
