/* Merge: the process_name and process_sort_index events of an input, held
 * until its end (the rank may be known only then) and written with the
 * rank in the name ("rank R: python") and a rank-major sort index, so a
 * viewer shows the ranks in order and tells them apart. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "merge/merge_int.h"
#include "vprof/json.h"
#include "vprof/sink.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

static int cmp_proc_order(const void *a, const void *b)
{
    const proc *x = *(const proc *const *)a, *y = *(const proc *const *)b;
    if (x->has_sort_key != y->has_sort_key)
        return y->has_sort_key - x->has_sort_key;
    if (x->has_sort_key && x->sort_key != y->sort_key)
        return (x->sort_key > y->sort_key) - (x->sort_key < y->sort_key);
    return (x->index > y->index) - (x->index < y->index);
}

/* "rank R: <name>" where name is the original process name, or what the
 * pid says when the input named none. */
static void process_label(merge *m, const input *in, const proc *p, vp_span orig_name)
{
    vp_buf *s = &m->scratch;
    s->len = 0;
    if (orig_name.p) {
        vp_json_unescape(orig_name, s);
    } else if (p->key.len > 2 && p->key.data[0] == '"') {
        vp_span k = {p->key.data, p->key.len};
        vp_json_unescape(k, s);
    } else if (p->key.len) {
        vp_buf_append(s, "pid ", 4);
        vp_buf_append(s, p->key.data, p->key.len);
    } else {
        vp_buf_append(s, "no pid", 6);
    }
    char prefix[48];
    int n = snprintf(prefix, sizeof prefix, "rank %ld: ", in->rank);
    vp_buf label = {0};
    vp_buf_append(&label, prefix, (size_t)n);
    vp_buf_append(&label, s->data, s->len);
    s->len = 0;
    vp_tw_string(s, label.data, label.len);
    vp_buf_free(&label);
}

/* Writes a held metadata event with its pid and one args value replaced,
 * or a new one when there is none (or it has no such value). */
static int write_held(merge *m, input *in, proc *p, const char *held, size_t held_len,
                      const char *what, const char *argkey, int is_name, int64_t sort_index)
{
    vp_span raw = {held, held_len}, args = {0}, val = {0}, pid = {0}, ts = {0};
    int have = held && vp_json_get(raw, "args", &args) && vp_json_get(args, argkey, &val);
    vp_span orig = {0};
    if (have && is_name && vp_json_is_string(val))
        orig = val;
    if (is_name) {
        process_label(m, in, p, orig);
    } else {
        m->scratch.len = 0;
        vp_buf_printf(&m->scratch, "%lld", (long long)sort_index);
    }
    if (!have) {
        vp_mg_separator(m);
        vp_sink_printf(m->sink, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %lld, \"tid\": 0, \"args\": {\"%s\": ",
                       what, (long long)vp_mg_new_pid(in, p), argkey);
        vp_sink_write(m->sink, m->scratch.data, m->scratch.len);
        vp_sink_write(m->sink, "}}", 2);
        return 0;
    }
    vp_json_get(raw, "pid", &pid);
    int64_t tsv = 0;
    int has_ts = vp_json_get(raw, "ts", &ts) && vp_json_us_to_ns(ts, &tsv) == 0;
    /* scratch holds the new value; write_rewritten uses ebuf. */
    vp_buf value = m->scratch;
    m->scratch = (vp_buf){0};
    vp_tw_edit e = {val.p, val.n, value.data, value.len};
    vp_span noid = {0};
    int r = vp_mg_write_rewritten(m, in, raw, pid, noid, 'M', has_ts, tsv, &e, 1);
    vp_buf_free(&m->scratch);
    m->scratch = value;
    return r;
}

/* The held process metadata of the input, in the original process order. */
int vp_mg_finish_procs(merge *m, input *in)
{
    proc **order = vp_malloc((m->nprocs ? m->nprocs : 1) * sizeof *order);
    for (size_t i = 0; i < m->nprocs; i++)
        order[i] = &m->procs[i];
    qsort(order, m->nprocs, sizeof *order, cmp_proc_order);
    int r = 0;
    for (size_t i = 0; i < m->nprocs && r == 0; i++) {
        proc *p = order[i];
        /* pids are looked up again by write_rewritten: keep the cache from
         * pointing at another process. */
        m->has_last = 0;
        r = write_held(m, in, p, p->name_ev, p->name_len, "process_name", "name", 1, 0);
        if (r == 0)
            r = write_held(m, in, p, p->sort_ev, p->sort_len, "process_sort_index", "sort_index", 0,
                           (int64_t)in->rank * VP_MERGE_PIDS_PER_RANK + (int64_t)i);
    }
    free(order);
    return r;
}
