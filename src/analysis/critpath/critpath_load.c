/* Reading a trace into HTA's frame for the critical path: one compact row
 * per event that has a duration and a category (HTA drops the others and
 * the "Trace" span), times rounded as HTA rounds them, and the pairing of
 * CPU calls with their GPU events on the correlation id (HTA's
 * index_correlation). */
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"
#include "vprof/htatime.h"
#include "vprof/json.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"

uint32_t vp_cp_intern(vp_critpath *cp, const char *s, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(cp->intern, s, n, &inserted);
    if (inserted) {
        cp->names = vp_realloc(cp->names, (cp->nnames + 1) * sizeof *cp->names);
        cp->names[cp->nnames] = vp_strndup(s, n);
        *slot = (void *)(uintptr_t)++cp->nnames;
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

/* A pid or tid: its integer, else (a name) a negative id of its own. */
static int64_t thread_id(vp_critpath *cp, vp_span v)
{
    int64_t x;
    if (!v.p)
        return -1;
    if (vp_json_int(v, &x) == 0)
        return x;
    return -1000000 - (int64_t)vp_cp_intern(cp, v.p, v.n);
}

static int64_t arg_int(vp_span v, int64_t absent)
{
    int64_t x;
    if (!v.p || vp_json_int(v, &x) != 0)
        return absent;
    return x;
}

/* args.stream as HTA's pd.to_numeric(errors="coerce") reads it: a number
 * or a string of decimal digits; anything else (ROCm's "0x0" on runtime
 * calls) is -1, as absent. */
static int32_t arg_stream(vp_span v)
{
    if (!v.p || v.n == 0)
        return -1;
    if (v.p[0] == '"') {
        size_t i = 1;
        if (i < v.n - 1 && (v.p[i] == '-' || v.p[i] == '+'))
            i++;
        if (i >= v.n - 1)
            return -1;
        for (; i < v.n - 1; i++)
            if (v.p[i] < '0' || v.p[i] > '9')
                return -1;
    }
    return (int32_t)arg_int(v, -1);
}

/* HTA's times in whole us: exact where the trace's are, else rounded as
 * HTA rounds them (vprof/htatime.h). */
static void hta_times(const vp_event *ev, int64_t *ts, int64_t *dur)
{
    if (ev->ts % 1000 == 0 && ev->dur % 1000 == 0) {
        *ts = ev->ts / 1000;
        *dur = ev->dur / 1000;
        return;
    }
    int64_t end;
    vp_hta_round(ev->ts, ev->dur, ts, &end);
    *dur = end - *ts;
}

/* The args asked of every row, prepared once. */
VP_JSON_KEYSET(row_set, "correlation", "stream", "wait_on_stream",
               "wait_on_cuda_event_record_corr_id", "device")

static vp_cp_row *take(vp_critpath *cp, const vp_event *ev, int64_t idx, size_t *cap)
{
    if (!ev->has_ts || !ev->has_dur || !ev->cat.p || vp_json_str_eq(ev->cat, "Trace"))
        return NULL;
    if (cp->nrows == *cap) {
        *cap = *cap ? *cap * 2 : 4096;
        cp->rows = vp_realloc(cp->rows, *cap * sizeof *cp->rows);
    }
    vp_span v[5] = {{0}};
    if (ev->args.p)
        vp_json_get_keyset(ev->args, &row_set, v);
    vp_cp_row *r = &cp->rows[cp->nrows++];
    memset(r, 0, sizeof *r);
    r->idx = idx;
    hta_times(ev, &r->ts, &r->dur);
    r->pid = thread_id(cp, ev->pid);
    r->tid = thread_id(cp, ev->tid);
    r->corr = arg_int(v[0], -1);
    r->stream = arg_stream(v[1]);
    r->wait_stream = (int32_t)arg_int(v[2], -1);
    r->wait_corr = arg_int(v[3], -1);
    r->device = (int32_t)arg_int(v[4], -1);
    r->partner = -1;
    r->name = vp_cp_intern(cp, ev->name.p, ev->name.n);
    r->cat = vp_cp_intern(cp, ev->cat.p, ev->cat.n);
    r->kind = (uint8_t)vp_event_kind(ev->cat, ev->name);
    return r;
}

/* int64 -> row map, open addressing (correlation ids).  A key put with a
 * negative value (no launch before a record, a kernel's sync taken) keeps
 * its slot as IMAP_NONE: an empty slot in the middle of a probe sequence
 * would hide the keys placed after it. */
#define IMAP_EMPTY (-1)
#define IMAP_NONE (-2)

void vp_cp_imap_init(vp_cp_imap *m, size_t n)
{
    m->cap = 16;
    while (m->cap < n * 2)
        m->cap *= 2;
    m->keys = vp_malloc(m->cap * sizeof *m->keys);
    m->vals = vp_malloc(m->cap * sizeof *m->vals);
    for (size_t i = 0; i < m->cap; i++)
        m->vals[i] = IMAP_EMPTY;
}

static size_t imap_slot(const vp_cp_imap *m, int64_t k)
{
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ULL;
    size_t i = (size_t)(h >> 17) & (m->cap - 1);
    while (m->vals[i] != IMAP_EMPTY && m->keys[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

void vp_cp_imap_put(vp_cp_imap *m, int64_t k, int32_t v)
{
    size_t i = imap_slot(m, k);
    m->keys[i] = k;
    m->vals[i] = v < 0 ? IMAP_NONE : v;
}

int32_t vp_cp_imap_get(const vp_cp_imap *m, int64_t k)
{
    int32_t v = m->vals[imap_slot(m, k)];
    return v < 0 ? -1 : v;
}

void vp_cp_imap_free(vp_cp_imap *m)
{
    free(m->keys);
    free(m->vals);
}

int vp_cp_is_named(const vp_critpath *cp, const vp_cp_row *r, const char *name)
{
    return strcmp(cp->names[r->name], name) == 0;
}

/* HTA's GPU side of a correlation: a GPU event, or a device-wide sync
 * (Event Sync and Context Sync sit on stream -1). */
static int gpu_side(const vp_critpath *cp, const vp_cp_row *r)
{
    return (r->stream >= 0 && r->corr >= 0) || vp_cp_is_named(cp, r, "Event Sync") ||
           vp_cp_is_named(cp, r, "Context Sync");
}

/* HTA's inner merge of CPU and GPU sides on the correlation: a row takes
 * the last row of the other side with its id. */
static void pair_correlations(vp_critpath *cp)
{
    /* each map sized by its side's rows: a map of every row would be
     * half empty and is this step's peak */
    size_t ngpu = 0, ncpu = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        vp_cp_row *r = &cp->rows[i];
        r->icorr = r->corr < 0 ? -1 : 0;
        if (r->corr != -1) {
            int g = gpu_side(cp, r);
            ngpu += g;
            ncpu += !g;
        }
    }
    vp_cp_imap cpu, gpu;
    vp_cp_imap_init(&cpu, ncpu);
    vp_cp_imap_init(&gpu, ngpu);
    for (size_t i = 0; i < cp->nrows; i++) {
        vp_cp_row *r = &cp->rows[i];
        if (r->corr == -1)
            continue;
        vp_cp_imap_put(gpu_side(cp, r) ? &gpu : &cpu, r->corr, (int32_t)i);
    }
    for (size_t i = 0; i < cp->nrows; i++) {
        vp_cp_row *r = &cp->rows[i];
        if (r->corr == -1)
            continue;
        int32_t p = vp_cp_imap_get(gpu_side(cp, r) ? &cpu : &gpu, r->corr);
        if (p >= 0) {
            r->partner = p;
            r->icorr = 1;
        }
    }
    vp_cp_imap_free(&cpu);
    vp_cp_imap_free(&gpu);
}

static int is_profiler_step(const char *name)
{
    return strncmp(name, "ProfilerStep#", 13) == 0 && name[13] >= '0' && name[13] <= '9';
}

/* HTA's Trace drops the last profiler step when it loads a trace with two
 * step names or more (_filter_irrelevant_gpu_kernels): the CPU events
 * from the last step's start on, and the GPU events whose correlation no
 * kept CPU event carries.  Kept rows stay in file order. */
static void drop_last_step(vp_critpath *cp)
{
    uint32_t first = UINT32_MAX;
    int names = 0;
    int64_t last = INT64_MIN;
    int32_t last_name = -1;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        if (!is_profiler_step(cp->names[r->name]))
            continue;
        if (first == UINT32_MAX)
            first = r->name;
        else if (r->name != first)
            names = 2;
        if (!gpu_side(cp, r) && r->ts > last) {
            last = r->ts;
            last_name = (int32_t)r->name;
        }
    }
    if (names < 2 || last == INT64_MIN)
        return;
    vp_cp_imap kept;
    vp_cp_imap_init(&kept, cp->nrows);
    for (size_t i = 0; i < cp->nrows; i++)
        if (!gpu_side(cp, &cp->rows[i]) && cp->rows[i].ts < last)
            vp_cp_imap_put(&kept, cp->rows[i].corr, 1);
    if (cp->pruned && cp->pruned_min_ts < last)   /* pruned rows are CPU side, without an id */
        vp_cp_imap_put(&kept, -1, 1);
    int32_t *to = vp_malloc((cp->nrows + 1) * sizeof *to);
    cp->dropped_by_name = vp_calloc(cp->nnames ? cp->nnames : 1, sizeof *cp->dropped_by_name);
    cp->ndropped_by_name = cp->nnames;
    cp->dropped_step = last_name;
    size_t n = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        int keep = gpu_side(cp, r) ? vp_cp_imap_get(&kept, r->corr) >= 0 : r->ts < last;
        to[i] = keep ? (int32_t)n : -1;
        if (keep)
            cp->rows[n++] = *r;
        else
            cp->dropped_by_name[r->name]++;
    }
    for (size_t i = 0; i < n; i++) {
        vp_cp_row *r = &cp->rows[i];
        if (r->partner >= 0)
            r->partner = to[r->partner];
    }
    cp->nrows = n;
    cp->dropped_last_step = 1;
    free(to);
    vp_cp_imap_free(&kept);
}

/* What the window needs while streaming.  Before the annotation's N-th
 * instance (file order) is read, every row is kept; once it is, the rows
 * read so far and every later row are kept only when the window may need
 * them: a row in the window's time span, a row with a correlation id (a
 * launch, kernel or sync links into the window from anywhere in the
 * trace, and HTA's queue length and event-record lookups run over the
 * whole trace), a GPU-side or Stream Wait Event row (HTA clips every
 * one), a ProfilerStep (HTA's last-step rule) and every instance of the
 * annotation (which one is the N-th is decided after that rule).  What
 * goes is CPU ops without a correlation outside the window: the bulk of
 * a trace's events.  vp_critpath_run checks that the window found after
 * loading is the one assumed here, else reads the trace again whole. */
typedef struct cp_stream {
    const char *annotation;   /* "" : the whole trace, nothing pruned */
    long instance;
    long seen;                /* instances read so far */
    int64_t ws, we;           /* the assumed window, us */
} cp_stream;

static int needed(const vp_critpath *cp, const cp_stream *s, const vp_cp_row *r)
{
    return r->corr != -1 || (r->ts >= s->ws && r->ts <= s->we) || gpu_side(cp, r) ||
           is_profiler_step(cp->names[r->name]) || vp_cp_is_named(cp, r, "Stream Wait Event") ||
           strstr(cp->names[r->name], s->annotation);
}

static void prune(vp_critpath *cp, const cp_stream *s, size_t from, size_t *cap)
{
    size_t n = from;
    for (size_t i = from; i < cp->nrows; i++) {
        if (needed(cp, s, &cp->rows[i])) {
            cp->rows[n++] = cp->rows[i];
        } else {
            if (cp->pruned == 0 || cp->rows[i].ts < cp->pruned_min_ts)
                cp->pruned_min_ts = cp->rows[i].ts;
            cp->pruned++;
        }
    }
    cp->nrows = n;
    if (*cap > 4096 && n < *cap / 4) {   /* give the pages back */
        *cap = n * 2 > 4096 ? n * 2 : 4096;
        cp->rows = vp_realloc(cp->rows, *cap * sizeof *cp->rows);
    }
}

/* One row just appended: counts an instance of the annotation, and once
 * the assumed window is known drops what it does not need. */
static void stream_row(vp_critpath *cp, cp_stream *s, size_t *cap)
{
    const vp_cp_row *r = &cp->rows[cp->nrows - 1];
    if (!*s->annotation)
        return;
    if (s->seen <= s->instance && strstr(cp->names[r->name], s->annotation)) {
        if (s->seen++ == s->instance) {
            cp->window_idx = r->idx;
            s->ws = r->ts;
            s->we = r->ts + r->dur;
            prune(cp, s, 0, cap);
        }
        return;
    }
    if (s->seen > s->instance)
        prune(cp, s, cp->nrows - 1, cap);
}

/* What the loading pass's observer needs beside the graph. */
typedef struct cp_load {
    vp_critpath *cp;
    cp_stream s;
} cp_load;

static void load_event(void *ctx, const vp_event *ev)
{
    cp_load *l = ctx;
    vp_critpath *cp = l->cp;
    if (take(cp, ev, cp->next_idx++, &cp->rows_cap)) {
        cp->nread++;
        stream_row(cp, &l->s, &cp->rows_cap);
    }
}

int vp_cp_load(vp_critpath *cp, const char *path, const vp_cp_opts *o, int whole, vp_error *err)
{
    vp_critpath_begin(cp);
    cp_load l = {.cp = cp,
                 .s = {.annotation = whole || !o->annotation ? "" : o->annotation,
                       .instance = o->instance}};
    vp_trace_pass p;
    vp_trace_pass_opts po = {.partial = o->partial, .rank = -1};
    int r = vp_trace_pass_read(&p, path, &po, load_event, &l, err);
    vp_trace_pass_close(&p);
    if (r != 0)
        return VP_EXIT_INPUT;
    vp_critpath_end(cp);
    return VP_EXIT_OK;
}

void vp_critpath_begin(vp_critpath *cp)
{
    memset(cp, 0, sizeof *cp);
    cp->intern = vp_strmap_new();
    cp->window_idx = -1;
}

void vp_critpath_feed(vp_critpath *cp, const vp_event *ev)
{
    if (take(cp, ev, cp->next_idx++, &cp->rows_cap))
        cp->nread++;
}

/* The rows are final: the doubling's spare capacity (or what the last
 * step left) goes back before the maps and the graph are made beside
 * them. */
static void fit_rows(vp_critpath *cp)
{
    cp->rows = vp_realloc(cp->rows, (cp->nrows + 1) * sizeof *cp->rows);
    cp->rows_cap = cp->nrows + 1;
}

void vp_critpath_end(vp_critpath *cp)
{
    fit_rows(cp);
    pair_correlations(cp);
    drop_last_step(cp);
    if (cp->dropped_last_step)
        fit_rows(cp);
}

int vp_cp_is_step(const vp_critpath *cp, const vp_cp_row *r, long *number)
{
    const char *n = cp->names[r->name];
    if (gpu_side(cp, r) || r->stream != -1 || !is_profiler_step(n))
        return 0;
    *number = strtol(n + 13, NULL, 10);
    return 1;
}
