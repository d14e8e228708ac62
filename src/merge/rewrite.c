/* Merge: one event of an input written with its pid, flow/async id and
 * ts rewritten for its rank (vprof/trace_writer.h splices the new values
 * into the raw text, so everything else passes byte for byte), and which
 * events pass the filters (--ranks, --drop/--keep, --window, --steps).
 * The process table of the input being copied lives here: the pid text
 * of each event is looked up once, and consecutive events mostly share
 * one, hence the one-entry cache in front of the map. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge_int.h"
#include "vprof/json.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

int vp_mg_rank_wanted(const merge *m, long r)
{
    if (!m->nranks)
        return 1;
    for (size_t i = 0; i < m->nranks; i++)
        if (r >= m->ranks[i][0] && r <= m->ranks[i][1])
            return 1;
    return 0;
}

/* -- categories ----------------------------------------------------------- */

static int cat_in(vp_span cat, char *const *list, size_t n)
{
    const char *p = cat.p, *end = cat.p + cat.n;
    while (p <= end && cat.n) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        if (!c)
            c = end;
        for (size_t i = 0; i < n; i++)
            if (strlen(list[i]) == (size_t)(c - p) && memcmp(list[i], p, (size_t)(c - p)) == 0)
                return 1;
        p = c + 1;
    }
    return 0;
}

static int cat_kept(const merge *m, vp_span cat)
{
    if (m->nkeep && !cat_in(cat, m->keep, m->nkeep))
        return 0;
    if (m->ndrop && cat_in(cat, m->drop, m->ndrop))
        return 0;
    return 1;
}

/* -- processes of the current input --------------------------------------- */

void vp_mg_procs_reset(merge *m)
{
    for (size_t i = 0; i < m->nprocs; i++) {
        vp_buf_free(&m->procs[i].key);
        free(m->procs[i].name_ev);
        free(m->procs[i].sort_ev);
    }
    m->nprocs = 0;
    m->has_last = 0;
    vp_strmap_free(m->pid_map);
    m->pid_map = vp_strmap_new();
}

/* The process of a raw pid span (p == NULL: no pid), created on first
 * sight; NULL when the input has more processes than a rank can hold. */
static proc *proc_of(merge *m, vp_span pid)
{
    const char *key = pid.p ? pid.p : "";
    size_t len = pid.p ? pid.n : 0;
    if (m->has_last) {
        proc *last = &m->procs[m->last_proc];
        if (last->key.len == len && memcmp(last->key.data ? last->key.data : "", key, len) == 0)
            return last;
    }
    int inserted;
    void **slot = vp_strmap_upsert(m->pid_map, key, len, &inserted);
    if (inserted) {
        if (m->nprocs == VP_MERGE_PIDS_PER_RANK)
            return NULL;
        if (m->nprocs == m->cap_procs) {
            m->cap_procs = m->cap_procs ? m->cap_procs * 2 : 16;
            m->procs = vp_realloc(m->procs, m->cap_procs * sizeof *m->procs);
        }
        proc *p = &m->procs[m->nprocs];
        memset(p, 0, sizeof *p);
        vp_buf_append(&p->key, key, len);
        vp_buf_cstr(&p->key);
        int64_t v;
        if (pid.p && !vp_json_is_string(pid) && vp_json_int(pid, &v) == 0) {
            p->sort_key = v;
            p->has_sort_key = 1;
        }
        p->index = (uint32_t)m->nprocs;
        *slot = (void *)(uintptr_t)(++m->nprocs);
    }
    m->last_proc = (uint32_t)((uintptr_t)*slot - 1);
    m->has_last = 1;
    return &m->procs[m->last_proc];
}

/* -- writing events ------------------------------------------------------- */

void vp_mg_separator(merge *m)
{
    if (m->any_written)
        vp_sink_write(m->sink, ",\n", 2);
    m->any_written = 1;
}

int64_t vp_mg_new_pid(const input *in, const proc *p)
{
    return (int64_t)in->rank * VP_MERGE_PIDS_PER_RANK + p->index;
}

static int is_id_phase(char ph)
{
    /* flows, and async events, whose ids are global: without a rank of
     * their own two ranks' arrows and async slices would join. */
    return ph && strchr("stfbneSTFp", ph) != NULL;
}

/* Writes raw (an event) with its pid, id and ts rewritten for in.  pid and
 * id are spans inside raw (p == NULL when absent); has_ts/ts as typed by
 * the reader.  extra edits (e.g. a new args value) may be passed. */
int vp_mg_write_rewritten(merge *m, input *in, vp_span raw, vp_span pid, vp_span id, char ph,
                          int has_ts, int64_t ts, const vp_tw_edit *extra, size_t nextra)
{
    proc *p = proc_of(m, pid);
    if (!p) {
        vp_error_set(&m->err, VP_EXIT_INPUT,
                     "%s: more than %d processes: a rank of a merged trace holds at most that many",
                     in->path, VP_MERGE_PIDS_PER_RANK);
        return -1;
    }
    vp_tw_edit edits[6];
    size_t n = 0;
    size_t offs[3];
    vp_buf *b = &m->ebuf;
    b->len = 0;

    offs[0] = b->len;
    if (!pid.p)
        vp_buf_putc(b, '"'), vp_buf_append(b, "pid\":", 5);
    vp_buf_i64(b, vp_mg_new_pid(in, p));
    if (!pid.p)
        vp_buf_putc(b, ',');
    size_t pid_end = b->len;
    offs[1] = b->len;
    if (id.p && is_id_phase(ph))
        vp_tw_rank_id(id, in->rank, b);
    size_t id_end = b->len;
    offs[2] = b->len;
    vp_span ts_span = {0};
    if (has_ts && in->shift != 0 && vp_json_get(raw, "ts", &ts_span))
        vp_tw_us(b, ts + in->shift);
    size_t ts_end = b->len;

    /* b may have moved while growing: take pointers only now. */
    if (pid.p)
        edits[n++] = (vp_tw_edit){pid.p, pid.n, b->data + offs[0], pid_end - offs[0]};
    else
        edits[n++] = (vp_tw_edit){raw.p + 1, 0, b->data + offs[0], pid_end - offs[0]};
    if (id_end > offs[1])
        edits[n++] = (vp_tw_edit){id.p, id.n, b->data + offs[1], id_end - offs[1]};
    if (ts_end > offs[2])
        edits[n++] = (vp_tw_edit){ts_span.p, ts_span.n, b->data + offs[2], ts_end - offs[2]};
    for (size_t i = 0; i < nextra && n < 6; i++)
        edits[n++] = extra[i];
    vp_mg_separator(m);
    vp_tw_splice(m->sink, raw, edits, n);
    return 0;
}

int vp_mg_name_is(vp_span name, const char *lit)
{
    size_t n = strlen(lit);
    return name.n == n && memcmp(name.p, lit, n) == 0;
}

static void keep_copy(char **dst, size_t *len, vp_span raw)
{
    free(*dst);
    *dst = vp_strndup(raw.p, raw.n);
    *len = raw.n;
}

static int meta_event(merge *m, input *in, const vp_event *ev)
{
    int pname = vp_mg_name_is(ev->name, "process_name");
    int psort = !pname && vp_mg_name_is(ev->name, "process_sort_index");
    if (!pname && !psort)
        return vp_mg_write_rewritten(m, in, ev->raw, ev->pid, ev->id, ev->ph, ev->has_ts, ev->ts, NULL, 0);
    proc *p = proc_of(m, ev->pid);
    if (!p) {
        vp_error_set(&m->err, VP_EXIT_INPUT,
                     "%s: more than %d processes: a rank of a merged trace holds at most that many",
                     in->path, VP_MERGE_PIDS_PER_RANK);
        return -1;
    }
    /* Held to the end of the input, last one wins: the rank goes into the
     * name and the sort index, once the rank is certain. */
    if (pname) {
        keep_copy(&p->name_ev, &p->name_len, ev->raw);
    } else {
        keep_copy(&p->sort_ev, &p->sort_len, ev->raw);
        vp_span v;
        int64_t x;
        if (ev->args.p && vp_json_get(ev->args, "sort_index", &v) && vp_json_int(v, &x) == 0) {
            p->sort_key = x;
            p->has_sort_key = 1;
        }
    }
    return 0;
}

int64_t vp_mg_event_end(const vp_event *ev)
{
    return ev->ts + (ev->has_dur && ev->dur > 0 ? ev->dur : 0);
}

int vp_mg_take_event(merge *m, input *in, const vp_event *ev)
{
    if (ev->ph == 'M') {
        in->events_written++;
        return meta_event(m, in, ev);
    }
    if (!cat_kept(m, ev->cat))
        return 0;
    if (ev->has_ts) {
        if (in->has_steps_window && (vp_mg_event_end(ev) < in->steps_start || ev->ts > in->steps_end))
            return 0;
        if (m->has_w0 && vp_mg_event_end(ev) + in->shift < m->w0)
            return 0;
        if (m->has_w1 && ev->ts + in->shift > m->w1)
            return 0;
    }
    in->events_written++;
    return vp_mg_write_rewritten(m, in, ev->raw, ev->pid, ev->id, ev->ph, ev->has_ts, ev->ts, NULL, 0);
}
