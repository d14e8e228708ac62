/* The merge engine (vprof/merge.h, docs/merge.md).
 *
 * Each input is copied event by event from the reader to the sink; only
 * pid, flow/async id and (when the clock moves) ts are rewritten in the
 * event's raw text.  Rank R's processes become pids R*1000 + 0, 1, ...
 * (vprof/trace_writer.h), announced ahead of the events in "vprofMerge" so
 * that `vprof kernels --by rank` can tell the ranks apart again.
 * process_name and process_sort_index events are held until the end of
 * their input (a few per process) and written then with the rank in the
 * name and a rank-major sort index; every other metadata event passes
 * with its pid rewritten, so viewers still recognise all of them.
 *
 * The rank and the clock base of an input may be written after its events
 * (2024-era Kineto puts distributedInfo and baseTimeNanoseconds last).
 * Rather than read every input twice, merge assumes what the head of the
 * file suggests, checks at its end, and in the rare case it was wrong
 * rewinds the output to where the input began (vprof/sink.h) and copies
 * it again.  Only --steps and --align start|collective, which need a whole
 * input's content before its first event can be written, read inputs
 * twice. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vprof/classify.h"
#include "vprof/exec.h"
#include "vprof/merge.h"
#include "vprof/part.h"
#include "vprof/rank.h"
#include "vprof/sink.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/trace_writer.h"
#include "vprof/tracepass.h"
#include "vprof/util.h"

enum {
    ALIGN_AUTO = VP_ALIGN_AUTO,
    ALIGN_NONE = VP_ALIGN_NONE,
    ALIGN_BASE = VP_ALIGN_BASE,
    ALIGN_START = VP_ALIGN_START,
    ALIGN_COLLECTIVE = VP_ALIGN_COLLECTIVE,
};

/* One process of the input being copied. */
typedef struct proc {
    vp_buf key;        /* raw pid text ("" when the event had none) */
    char *name_ev;     /* raw text of its last process_name event, or NULL */
    size_t name_len;
    char *sort_ev;     /* raw text of its last process_sort_index event */
    size_t sort_len;
    int64_t sort_key;  /* original sort index, else the numeric pid */
    int has_sort_key;
    uint32_t index;    /* new pid = rank * 1000 + index */
} proc;

typedef struct coll_end {
    uint64_t name;     /* hash of the kernel name */
    uint32_t occurrence;
    int64_t ts, end;
} coll_end;

typedef struct gpu_step {
    long number;
    int64_t start, end;
} gpu_step;

typedef struct input {
    const char *arg;
    const char *path;
    long rank;
    int rank_explicit;
    vp_rank_source rank_from;
    int known;         /* rank and base below are final (pre-pass or end of input) */
    int has_base;
    int64_t base;
    int scanned;
    int64_t min_ts;
    int has_min;
    int has_steps_window;
    int64_t steps_start, steps_end;
    coll_end *colls;
    size_t ncolls;
    int64_t coll_offset;
    size_t coll_matched;
    int64_t shift;     /* ns added to every ts */
    int done, skipped;
    uint64_t events_read, events_written;
    int truncated;
    /* its top-level metadata, as JSON text (NULL: absent) */
    char *meta_dp, *meta_di, *meta_unit;
} input;

typedef struct merge {
    const char *output;
    int align;
    long coll_n;
    const long (*ranks)[2];
    size_t nranks;
    vp_step_range steps;
    int has_steps;
    int has_w0, has_w1;
    int64_t w0, w1;
    char *const *drop, *const *keep;
    size_t ndrop, nkeep;
    int partial;
    long jobs;         /* -j: 0 = one per online core */
    const vp_merge_peers *peers;
    const vp_merge_hooks *hooks;

    /* parts (-j, gzip output): each input is copied into a part of its
     * own, a temporary file, and the parts appended in input order */
    int part_mode;
    int progress;      /* the reader's progress bar (not in workers) */
    int guess_own;     /* a worker that does not know the merged clock yet
                          assumes its input's own base (shift 0); the
                          parent checks the shift and copies it again if not */
    const char *part_dir;
    char *part_dir_buf;
    int *part_fd;      /* by input: its part file, -1 when none */
    /* a process other than peer 0: its parts are kept (fd and report, by
     * input) until they are sent to process 0 */
    int keeping;
    int *kept_fd;
    vp_buf *kept;

    input *in;
    size_t nin;
    vp_sink *sink;
    vp_sink_opts sink_opts;
    int any_written;   /* an event was written: the next needs a comma */
    int out_base_set;
    int64_t out_base;
    int any_base;
    char *time_unit;
    char *output_name;
    FILE *spool_dp, *spool_di, *spool_info;  /* per-rank metadata, kept on disk */
    int first_dp, first_di, first_info;

    /* the input being copied */
    vp_strmap *pid_map;    /* raw pid text -> index + 1 into procs */
    proc *procs;
    size_t nprocs, cap_procs;
    uint32_t last_proc;    /* cache: consecutive events share a pid */
    int has_last;
    vp_buf ebuf;           /* replacement texts of one event */
    vp_buf scratch;
    vp_error err;
} merge;

/* -- options -------------------------------------------------------------- */

static int rank_wanted(const merge *m, long r)
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

static void procs_reset(merge *m)
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

static void separator(merge *m)
{
    if (m->any_written)
        vp_sink_write(m->sink, ",\n", 2);
    m->any_written = 1;
}

static int64_t new_pid(const input *in, const proc *p)
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
static int write_rewritten(merge *m, input *in, vp_span raw, vp_span pid, vp_span id, char ph,
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
    vp_buf_printf(b, "%lld", (long long)new_pid(in, p));
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
    separator(m);
    vp_tw_splice(m->sink, raw, edits, n);
    return 0;
}

static int name_is(vp_span name, const char *lit)
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
    int pname = name_is(ev->name, "process_name");
    int psort = !pname && name_is(ev->name, "process_sort_index");
    if (!pname && !psort)
        return write_rewritten(m, in, ev->raw, ev->pid, ev->id, ev->ph, ev->has_ts, ev->ts, NULL, 0);
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

static int64_t event_end(const vp_event *ev)
{
    return ev->ts + (ev->has_dur && ev->dur > 0 ? ev->dur : 0);
}

static int take_event(merge *m, input *in, const vp_event *ev)
{
    if (ev->ph == 'M') {
        in->events_written++;
        return meta_event(m, in, ev);
    }
    if (!cat_kept(m, ev->cat))
        return 0;
    if (ev->has_ts) {
        if (in->has_steps_window && (event_end(ev) < in->steps_start || ev->ts > in->steps_end))
            return 0;
        if (m->has_w0 && event_end(ev) + in->shift < m->w0)
            return 0;
        if (m->has_w1 && ev->ts + in->shift > m->w1)
            return 0;
    }
    in->events_written++;
    return write_rewritten(m, in, ev->raw, ev->pid, ev->id, ev->ph, ev->has_ts, ev->ts, NULL, 0);
}

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
        separator(m);
        vp_sink_printf(m->sink, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %lld, \"tid\": 0, \"args\": {\"%s\": ",
                       what, (long long)new_pid(in, p), argkey);
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
    int r = write_rewritten(m, in, raw, pid, noid, 'M', has_ts, tsv, &e, 1);
    vp_buf_free(&m->scratch);
    m->scratch = value;
    return r;
}

/* The held process metadata of the input, in the original process order. */
static int finish_procs(merge *m, input *in)
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

/* -- top-level metadata --------------------------------------------------- */

/* baseTimeNanoseconds, exactly (a number or a quoted one). */
static int meta_base(vp_trace *t, int64_t *base)
{
    return vp_trace_meta_int(t, "baseTimeNanoseconds", base);
}

static void spool_value(FILE *f, long rank, const char *text, int *first)
{
    fprintf(f, "%s\"%ld\": %s", *first ? "" : ", ", rank, text);
    *first = 0;
}

/* The top-level values merge keeps of an input, as text, so that a
 * worker process can hand them to its parent. */
static void keep_meta(input *in, const cJSON *meta)
{
    const cJSON *dp = cJSON_GetObjectItemCaseSensitive(meta, "deviceProperties");
    const cJSON *di = cJSON_GetObjectItemCaseSensitive(meta, "distributedInfo");
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(meta, "displayTimeUnit");
    free(in->meta_dp);
    free(in->meta_di);
    free(in->meta_unit);
    in->meta_dp = dp ? cJSON_PrintUnformatted(dp) : NULL;
    in->meta_di = di ? cJSON_PrintUnformatted(di) : NULL;
    in->meta_unit = cJSON_IsString(unit) ? vp_strdup(unit->valuestring) : NULL;
}

static void spool_input(merge *m, input *in)
{
    if (in->meta_dp)
        spool_value(m->spool_dp, in->rank, in->meta_dp, &m->first_dp);
    if (in->meta_di)
        spool_value(m->spool_di, in->rank, in->meta_di, &m->first_di);
    if (!m->time_unit && in->meta_unit)
        m->time_unit = vp_strdup(in->meta_unit);
    vp_buf b = {0};
    vp_tw_string(&b, in->path, strlen(in->path));
    fprintf(m->spool_info, "%s\"%ld\": {\"source\": %s, \"rankFrom\": \"%s\", \"shiftNs\": %lld, "
                           "\"eventsRead\": %llu, \"eventsWritten\": %llu, \"truncated\": %s",
            m->first_info ? "" : ", ", in->rank, vp_buf_cstr(&b),
            in->rank_explicit ? "command line" : vp_rank_source_name(in->rank_from),
            (long long)in->shift, (unsigned long long)in->events_read,
            (unsigned long long)in->events_written, in->truncated ? "true" : "false");
    if (in->has_base)
        fprintf(m->spool_info, ", \"baseTimeNanoseconds\": %lld", (long long)in->base);
    if (m->align == ALIGN_COLLECTIVE)
        fprintf(m->spool_info, ", \"collectivesMatched\": %zu", in->coll_matched);
    if (in->has_steps_window)
        fprintf(m->spool_info, ", \"stepsWindowNs\": [%lld, %lld]", (long long)in->steps_start,
                (long long)in->steps_end);
    fputc('}', m->spool_info);
    m->first_info = 0;
    vp_buf_free(&b);
}

static int copy_spool(merge *m, FILE *f)
{
    char buf[65536];
    size_t n;
    fflush(f);
    rewind(f);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        vp_sink_write(m->sink, buf, n);
    return ferror(f) ? -1 : 0;
}

/* What an input written to the output changes for the next ones: the
 * merged clock (the first rank merged), and the top-level metadata. */
static void accept_input(merge *m, input *in)
{
    if (!m->out_base_set && (m->align == ALIGN_AUTO || m->align == ALIGN_BASE)) {
        m->out_base_set = 1;
        m->out_base = in->has_base ? in->base : 0;
    }
    if (in->has_base)
        m->any_base = 1;
    spool_input(m, in);
}

/* -- the pre-pass --------------------------------------------------------- */

static int cmp_coll_ts(const void *a, const void *b)
{
    const coll_end *x = a, *y = b;
    if (x->ts != y->ts)
        return (x->ts > y->ts) - (x->ts < y->ts);
    return (x->end > y->end) - (x->end < y->end);
}

static int cmp_coll_key(const void *a, const void *b)
{
    const coll_end *x = a, *y = b;
    if (x->name != y->name)
        return (x->name > y->name) - (x->name < y->name);
    return (x->occurrence > y->occurrence) - (x->occurrence < y->occurrence);
}

static void warn(const merge *m, vp_merge_warning what, const char *path, long long a, long long b)
{
    if (m->hooks && m->hooks->warn)
        m->hooks->warn(m->hooks->ctx, what, path, a, b);
}

static const char STEP_PREFIX[] = "ProfilerStep#";

/* What scan_input gathers from the events of one input. */
typedef struct scan {
    merge *m;
    input *in;
    int steps;            /* a step range was given */
    gpu_step *gsteps;     /* the gpu_user_annotation copies of the steps */
    size_t ngsteps, cap_g, cap_c;
} scan;

static void scan_event(void *ctx, const vp_event *ev)
{
    scan *sc = ctx;
    input *in = sc->in;
    if (ev->ph == 'M' || !ev->has_ts)
        return;
    if (!in->has_min || ev->ts < in->min_ts) {
        in->min_ts = ev->ts;
        in->has_min = 1;
    }
    if (sc->steps && ev->ph == 'X' && ev->name.n > sizeof STEP_PREFIX - 1 &&
        memcmp(ev->name.p, STEP_PREFIX, sizeof STEP_PREFIX - 1) == 0 &&
        name_is(ev->cat, "gpu_user_annotation")) {
        char *e;
        const char *d = ev->name.p + sizeof STEP_PREFIX - 1;
        long num = strtol(d, &e, 10);
        if (e > d && e == ev->name.p + ev->name.n) {
            if (sc->ngsteps == sc->cap_g) {
                sc->cap_g = sc->cap_g ? sc->cap_g * 2 : 16;
                sc->gsteps = vp_realloc(sc->gsteps, sc->cap_g * sizeof *sc->gsteps);
            }
            sc->gsteps[sc->ngsteps++] = (gpu_step){num, ev->ts, event_end(ev)};
        }
    }
    if (sc->m->align == ALIGN_COLLECTIVE && ev->ph == 'X' && ev->has_dur) {
        vp_gpu_kind kind = vp_gpu_kind_of(ev->cat);
        if (kind == VP_GPU_KERNEL && vp_classify(kind, ev->name.p, ev->name.n) == VP_CLASS_COMM) {
            if (in->ncolls == sc->cap_c) {
                sc->cap_c = sc->cap_c ? sc->cap_c * 2 : 256;
                in->colls = vp_realloc(in->colls, sc->cap_c * sizeof *in->colls);
            }
            in->colls[in->ncolls++] =
                (coll_end){vp_hash_bytes(ev->name.p, ev->name.n), 0, ev->ts, event_end(ev)};
        }
    }
}

/* The window of the steps selected: from the first one's start to the last
 * one's end, CPU or GPU copy, whichever is wider; start after end when
 * none is selected. */
static void steps_window(input *in, vp_steps *steps, size_t nsteps, const scan *sc)
{
    int64_t s0 = 0, s1 = 0;
    int found = 0;
    for (size_t i = 0; i < nsteps; i++) {
        int64_t a, b;
        if (vp_steps_window(steps, i, &a, &b) != 1)
            continue;
        long num = vp_steps_number(steps, i);
        /* The GPU work of a step runs after its CPU window; Kineto's
         * gpu_user_annotation copy of the step spans it. */
        for (size_t g = 0; g < sc->ngsteps; g++)
            if (sc->gsteps[g].number == num) {
                if (sc->gsteps[g].start < a)
                    a = sc->gsteps[g].start;
                if (sc->gsteps[g].end > b)
                    b = sc->gsteps[g].end;
            }
        if (!found || a < s0)
            s0 = a;
        if (!found || b > s1)
            s1 = b;
        found = 1;
    }
    in->has_steps_window = 1;
    if (found) {
        in->steps_start = s0;
        in->steps_end = s1;
    } else {
        /* an empty window: start after end */
        in->steps_start = 1;
        in->steps_end = 0;
    }
}

/* Reads a whole input for what must be known before its first event is
 * written: rank, clock base, first timestamp, step window, collectives. */
static int scan_input(merge *m, input *in, long position)
{
    vp_error err = {0};
    if (strcmp(in->path, "-") == 0) {
        vp_error_set(&m->err, VP_EXIT_USAGE,
                     "standard input can be merged only when it needs a single reading: not with "
                     "--steps or --align start|collective, nor to a non-regular output when its "
                     "rank or clock base comes after its events (give the rank as -@RANK)");
        return -1;
    }
    vp_trace_pass p;
    vp_trace_pass_opts o = {.partial = m->partial, .no_progress = !m->progress,
                            .range = m->has_steps ? &m->steps : NULL, .position = position,
                            .rank = -1};
    scan sc = {.m = m, .in = in, .steps = m->has_steps};
    in->has_min = 0;
    in->ncolls = 0;
    if (vp_trace_pass_read(&p, in->path, &o, scan_event, &sc, &err) != 0) {
        vp_error_set(&m->err, err.status, "%s", err.msg);
        free(sc.gsteps);
        vp_trace_pass_close(&p);
        return -1;
    }
    if (!in->rank_explicit) {
        in->rank = p.rank;
        in->rank_from = p.rank_from;
    }
    in->has_base = meta_base(p.trace, &in->base);
    in->known = 1;
    in->scanned = 1;
    if (p.steps) {
        steps_window(in, p.steps, p.nsteps, &sc);
        vp_trace_pass_warn(&p, &(vp_trace_pass_warnings){
                                   .no_steps_kept = ": only its metadata events are kept",
                                   .none_selected_kept = ": only its metadata events are kept",
                               });
    }
    free(sc.gsteps);
    if (in->ncolls) {
        qsort(in->colls, in->ncolls, sizeof *in->colls, cmp_coll_ts);
        /* Number each kernel name's occurrences: the k-th all-reduce of a
         * rank matches the k-th of the others. */
        if (in->ncolls > (size_t)m->coll_n)
            in->ncolls = (size_t)m->coll_n;
        for (size_t i = 0; i < in->ncolls; i++) {
            uint32_t occ = 0;
            for (size_t j = 0; j < i; j++)
                occ += in->colls[j].name == in->colls[i].name;
            in->colls[i].occurrence = occ;
        }
        qsort(in->colls, in->ncolls, sizeof *in->colls, cmp_coll_key);
    }
    vp_trace_pass_close(&p);
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Shifts of --align collective, against the first rank merged. */
static void collective_offsets(merge *m, input *ref)
{
    int64_t *d = vp_malloc((size_t)m->coll_n * sizeof *d);
    int64_t rb = ref->has_base ? ref->base : 0;
    for (size_t i = 0; i < m->nin; i++) {
        input *in = &m->in[i];
        if (in->skipped || in == ref) {
            in->coll_matched = in == ref ? ref->ncolls : 0;
            continue;
        }
        int64_t ib = in->has_base ? in->base : 0;
        size_t n = 0;
        for (size_t k = 0; k < in->ncolls; k++) {
            coll_end *c = bsearch(&in->colls[k], ref->colls, ref->ncolls, sizeof *ref->colls,
                                  cmp_coll_key);
            if (c)
                d[n++] = (c->end + rb) - (in->colls[k].end + ib);
        }
        in->coll_matched = n;
        if (n) {
            qsort(d, n, sizeof *d, cmp_i64);
            in->coll_offset = n % 2 ? d[n / 2] : d[n / 2 - 1] + (d[n / 2] - d[n / 2 - 1]) / 2;
        } else {
            warn(m, VP_MERGE_NO_COLLECTIVE_MATCH, in->path, ref->rank, 0);
        }
    }
    free(d);
}

/* -- the main pass -------------------------------------------------------- */

static int64_t shift_of(const merge *m, const input *in)
{
    int64_t b = in->has_base ? in->base : 0;
    switch (m->align) {
    case ALIGN_NONE:
        return 0;
    case ALIGN_START:
        return in->has_min ? -in->min_ts : 0;
    case ALIGN_COLLECTIVE:
        return b - m->out_base + in->coll_offset;
    default:
        return m->out_base_set ? b - m->out_base : 0;
    }
}

static int check_duplicate_now(merge *m, const input *in);

static int is_stdin(const input *in)
{
    return strcmp(in->path, "-") == 0;
}

static int check_duplicate(merge *m, const input *in)
{
    /* with parts, the parent checks each input at its turn */
    if (m->part_mode)
        return 0;
    return check_duplicate_now(m, in);
}

static int check_duplicate_now(merge *m, const input *in)
{
    for (const input *o = m->in; o < in; o++)
        if (o->done && !o->skipped && o->rank == in->rank) {
            vp_error_set(&m->err, o->rank_explicit && in->rank_explicit ? VP_EXIT_USAGE : VP_EXIT_INPUT,
                         "%s and %s are both rank %ld (from %s and %s); give the ranks as FILE@RANK",
                         o->path, in->path, in->rank,
                         o->rank_explicit ? "the command line" : vp_rank_source_name(o->rank_from),
                         in->rank_explicit ? "the command line" : vp_rank_source_name(in->rank_from));
            return -1;
        }
    return 0;
}

static void report_input(const input *in, vp_merge_rank *r)
{
    r->path = in->path;
    r->rank = in->rank;
    r->rank_explicit = in->rank_explicit;
    r->rank_from = vp_rank_source_name(in->rank_from);
    r->skipped = in->skipped;
    r->truncated = in->truncated;
    r->events_read = in->events_read;
    r->events_written = in->events_written;
    r->shift = in->shift;
    r->coll_offset = in->coll_offset;
    r->coll_matched = in->coll_matched;
}

static int copy_input(merge *m, input *in, long position)
{
    vp_sink_mark mark;
    int can_rewind = vp_sink_can_rewind(m->sink);
    int saved_any = m->any_written;
    for (int attempt = 0;; attempt++) {
        if (can_rewind && vp_sink_mark_here(m->sink, &mark, &m->err) != 0)
            return -1;
        vp_error err = {0};
        vp_trace_opts topts = {.partial = m->partial, .progress = m->progress};
        vp_trace *t = vp_trace_open(in->path, &topts, &err);
        if (!t) {
            vp_error_set(&m->err, err.status, "%s", err.msg);
            return -1;
        }
        vp_event ev;
        int r = vp_trace_next(t, &ev, &err);
        const cJSON *meta = vp_trace_meta(t);
        int assumed_rank = 0, assumed_base = 0;
        if (!in->known) {
            if (!in->rank_explicit) {
                in->rank = vp_rank_detect(meta, in->path, position, &in->rank_from);
                assumed_rank = in->rank_from != VP_RANK_DISTRIBUTED_INFO;
            }
            in->has_base = meta_base(t, &in->base);
            /* No base ahead of the events: assume the one of the merged
             * clock (Kineto floors it to ~3 months: ranks share it).  A
             * worker that does not know the merged clock yet writes shift
             * 0 whatever the base (guess_own); its parent checks it. */
            if (m->guess_own) {
                assumed_base = 0;
            } else if (!in->has_base && m->out_base_set && m->out_base) {
                in->has_base = 1;
                in->base = m->out_base;
                assumed_base = 1;
            } else if (!in->has_base) {
                assumed_base = m->out_base_set;
            }
            if (m->align != ALIGN_AUTO && m->align != ALIGN_BASE)
                assumed_base = 0;
            if ((assumed_rank || assumed_base) && !can_rewind) {
                vp_trace_close(t);
                if (scan_input(m, in, position) != 0)
                    return -1;
                continue;
            }
        }
        if (in->rank > VP_MERGE_MAX_RANK) {
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: rank %ld is too large to merge (at most %ld)",
                         in->path, in->rank, VP_MERGE_MAX_RANK);
            vp_trace_close(t);
            return -1;
        }
        if (!assumed_rank && check_duplicate(m, in) != 0) {
            vp_trace_close(t);
            return -1;
        }
        int write = rank_wanted(m, in->rank);
        if (!write && !assumed_rank) {
            vp_trace_close(t);
            in->skipped = 1;
            in->done = 1;
            return 0;
        }
        in->shift = m->guess_own ? 0 : shift_of(m, in);
        in->events_read = in->events_written = 0;
        procs_reset(m);
        while (r == 1) {
            in->events_read++;
            if (write && take_event(m, in, &ev) != 0) {
                vp_trace_close(t);
                return -1;
            }
            r = vp_trace_next(t, &ev, &err);
        }
        if (r < 0) {
            vp_error_set(&m->err, err.status, "%s", err.msg);
            vp_trace_close(t);
            return -1;
        }
        meta = vp_trace_meta(t);
        in->truncated = vp_trace_get_stats(t)->truncated;
        int wrong = 0;
        if (!in->known) {
            long rank = in->rank;
            vp_rank_source from = in->rank_from;
            if (!in->rank_explicit)
                rank = vp_rank_detect(meta, in->path, position, &from);
            int64_t base = 0;
            int has_base = meta_base(t, &base);
            if (rank != in->rank || (assumed_base && (has_base ? base : 0) != (in->has_base ? in->base : 0)))
                wrong = 1;
            in->rank = rank;
            in->rank_from = from;
            in->has_base = has_base;
            in->base = base;
            in->known = 1;
        }
        if (wrong) {
            /* What the head suggested was not so: undo and copy again. */
            vp_trace_close(t);
            if (is_stdin(in)) {
                vp_error_set(&m->err, VP_EXIT_USAGE,
                             "standard input: its rank or clock base comes after its events and "
                             "differs from what merge assumed; give it as a file or as -@RANK");
                return -1;
            }
            if (m->hooks && m->hooks->recopy)
                m->hooks->recopy(m->hooks->ctx, in->path);
            if (vp_sink_rewind(m->sink, &mark, &m->err) != 0)
                return -1;
            m->any_written = saved_any;
            if (attempt > 2)
                return -1;
            continue;
        }
        if (check_duplicate(m, in) != 0) {
            vp_trace_close(t);
            return -1;
        }
        if (!write) {
            in->skipped = 1;
        } else {
            if (finish_procs(m, in) != 0) {
                vp_trace_close(t);
                return -1;
            }
            keep_meta(in, meta);
            if (!m->part_mode)
                accept_input(m, in);
            if (in->truncated)
                warn(m, VP_MERGE_TRUNCATED, in->path, (long long)in->events_read, 0);
        }
        if (m->hooks && m->hooks->input_done) {
            vp_merge_rank mr;
            report_input(in, &mr);
            m->hooks->input_done(m->hooks->ctx, &mr);
        }
        in->done = 1;
        vp_trace_close(t);
        return 0;
    }
}

/* -- parts: -j workers, gzip members -------------------------------------- */

/* What copying one input into a part found: sent by a worker to its
 * parent, or kept by the parent for an input it copies itself. */
typedef struct part_res {
    int status;          /* 0, or the exit status of the error in msg */
    char *msg;
    uint64_t len;        /* bytes of the part file */
    uint64_t bytes;      /* of JSON text in it */
} part_res;

/* An empty temporary file for a part, unlinked at once: it goes away with
 * the last process that holds it, whatever happens to them. */
static int part_file(merge *m)
{
    vp_buf b = {0};
    vp_buf_printf(&b, "%s/.vprof-merge-part-XXXXXX", m->part_dir);
    char *path = (char *)vp_buf_cstr(&b);
    int fd = mkstemp(path);
    if (fd < 0)
        vp_error_set(&m->err, VP_EXIT_INPUT, "cannot create a temporary file in %s: %s",
                     m->part_dir, strerror(errno));
    else
        unlink(path);
    vp_buf_free(&b);
    return fd;
}

/* Copies input i into the part file fd (from its start): the same
 * copy_input as without parts, into a sink of its own, so that with gzip
 * the part is one whole gzip member. */
static void copy_part(merge *m, size_t i, int fd, part_res *res)
{
    memset(res, 0, sizeof *res);
    vp_sink_opts so = m->sink_opts;
    vp_error err = {0};
    vp_sink *main_sink = m->sink;
    m->sink = vp_sink_open_fd(fd, m->in[i].path, &so, &err);
    if (!m->sink) {
        m->sink = main_sink;
        res->status = err.status ? err.status : VP_EXIT_INPUT;
        res->msg = vp_strdup(err.msg);
        return;
    }
    m->any_written = 0;
    m->err = (vp_error){0};
    int r = copy_input(m, &m->in[i], (long)i);
    res->bytes = vp_sink_bytes(m->sink);
    vp_sink *ps = m->sink;
    m->sink = main_sink;
    if (r != 0) {
        vp_sink_abort(ps);
        res->status = m->err.status ? m->err.status : VP_EXIT_INPUT;
        res->msg = vp_strdup(m->err.msg);
        return;
    }
    if (vp_sink_close(ps, &err) != 0) {
        res->status = err.status ? err.status : VP_EXIT_INPUT;
        res->msg = vp_strdup(err.msg);
        return;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        res->status = VP_EXIT_INPUT;
        res->msg = vp_strdup("cannot read back a temporary part");
        return;
    }
    res->len = (uint64_t)sb.st_size;
}

static void put_opt_str(vp_buf *b, const char *s)
{
    vp_put_u64(b, s != NULL);
    if (s)
        vp_put_str(b, s, strlen(s));
}

static char *get_opt_str(vp_rd *r)
{
    if (!vp_get_u64(r))
        return NULL;
    size_t n;
    const char *p = vp_get_str(r, &n);
    return vp_strndup(p ? p : "", n);
}

/* The result and what the copy learnt of the input, for the parent. */
static void put_res(vp_buf *b, const part_res *res, const input *in)
{
    vp_put_u64(b, (uint64_t)res->status);
    put_opt_str(b, res->msg);
    vp_put_u64(b, res->len);
    vp_put_u64(b, res->bytes);
    vp_put_i64(b, in->rank);
    vp_put_u64(b, (uint64_t)in->rank_from);
    vp_put_u64(b, (uint64_t)in->has_base);
    vp_put_i64(b, in->base);
    vp_put_i64(b, in->shift);
    vp_put_u64(b, (uint64_t)in->skipped);
    vp_put_u64(b, in->events_read);
    vp_put_u64(b, in->events_written);
    vp_put_u64(b, (uint64_t)in->truncated);
    put_opt_str(b, in->meta_dp);
    put_opt_str(b, in->meta_di);
    put_opt_str(b, in->meta_unit);
}

static int get_res(vp_rd *r, part_res *res, input *in)
{
    res->status = (int)vp_get_u64(r);
    res->msg = get_opt_str(r);
    res->len = vp_get_u64(r);
    res->bytes = vp_get_u64(r);
    in->rank = (long)vp_get_i64(r);
    in->rank_from = (vp_rank_source)vp_get_u64(r);
    in->has_base = (int)vp_get_u64(r);
    in->base = vp_get_i64(r);
    in->shift = vp_get_i64(r);
    in->skipped = (int)vp_get_u64(r);
    in->events_read = vp_get_u64(r);
    in->events_written = vp_get_u64(r);
    in->truncated = (int)vp_get_u64(r);
    free(in->meta_dp);
    free(in->meta_di);
    free(in->meta_unit);
    in->meta_dp = get_opt_str(r);
    in->meta_di = get_opt_str(r);
    in->meta_unit = get_opt_str(r);
    in->known = 1;
    return vp_rd_done(r) ? 0 : -1;
}

/* Input i's part, at its turn: checked, appended, accounted.  1 when it
 * must be copied again (a worker's guess of the merged clock was wrong). */
static int take_part(merge *m, size_t i, int part, const part_res *res)
{
    input *in = &m->in[i];
    if (res->status) {
        vp_error_set(&m->err, res->status, "%s", res->msg ? res->msg : "failed");
        return -1;
    }
    if (check_duplicate_now(m, in) != 0)
        return -1;
    if (!in->skipped) {
        if (in->shift != shift_of(m, in))
            return 1;
        if (res->bytes) {
            if (m->any_written)
                vp_sink_write(m->sink, ",\n", 2);
            if (vp_sink_append(m->sink, part, res->len, res->bytes) != 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "cannot write %s: %s", vp_sink_name(m->sink),
                             strerror(errno));
                return -1;
            }
            m->any_written = 1;
        }
        accept_input(m, in);
    }
    in->done = 1;
    return 0;
}

/* A process other than peer 0: input i's part waits to be sent (or its
 * error is this process's). */
static int keep_part(merge *m, size_t i, int fd, part_res *res)
{
    if (res->status) {
        vp_error_set(&m->err, res->status, "%s", res->msg ? res->msg : "failed");
        free(res->msg);
        close(fd);
        return -1;
    }
    put_res(&m->kept[i], res, &m->in[i]);
    m->kept_fd[i] = fd;
    free(res->msg);
    return 0;
}

static void echo(merge *m, const char *text, size_t n)
{
    if (n && m->hooks && m->hooks->echo)
        m->hooks->echo(m->hooks->ctx, text, n);
}

/* Where input i is copied: standard input (read once) and an input with
 * nothing to copy (left out by --ranks after a pre-pass) at their turn in
 * this process, any other in a worker, into a part file made here. */
static int part_place(void *ctx, size_t i)
{
    merge *m = ctx;
    input *in = &m->in[i];
    if ((in->skipped && in->scanned) || is_stdin(in))
        return VP_POOL_HERE;
    int fd = part_file(m);
    if (fd < 0)
        return -1;
    m->part_fd[i] = fd;
    return VP_POOL_WORKER;
}

/* Copies input i into its part; what the copy found goes to out. */
static int part_work(void *ctx, size_t i, int worker, vp_buf *out)
{
    merge *m = ctx;
    input *in = &m->in[i];
    if (in->skipped && in->scanned)
        return 0;
    if (worker) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        m->progress = 0;
        /* Until the first rank merged is done the merged clock is unknown. */
        m->guess_own = !m->out_base_set && (m->align == ALIGN_AUTO || m->align == ALIGN_BASE);
    } else {
        /* at its turn: the merged clock is known */
        m->part_fd[i] = part_file(m);
        if (m->part_fd[i] < 0)
            return -1;
        m->guess_own = 0;
    }
    int saved_any = m->any_written;
    part_res res;
    copy_part(m, i, m->part_fd[i], &res);
    m->any_written = saved_any;
    put_res(out, &res, in);
    free(res.msg);
    return 0;
}

static int part_take(void *ctx, size_t i, const vp_pool_result *r);

/* Input i copied again by this process, at its turn. */
static int part_again(merge *m, size_t i)
{
    vp_buf out = {0};
    vp_pool_result r = {0};
    r.ok = 1;
    r.status = part_work(m, i, 0, &out);
    r.data = out.data;
    r.n = out.len;
    int st = part_take(m, i, &r);
    vp_buf_free(&out);
    return st;
}

/* Input i's part at its turn: the worker's messages passed on, the part
 * appended (or kept for process 0). */
static int part_take(void *ctx, size_t i, const vp_pool_result *r)
{
    merge *m = ctx;
    input *in = &m->in[i];
    if (!r->worker && r->status)
        return -1;
    if (!r->worker && r->n == 0) {
        in->done = 1;   /* nothing to copy */
        return 0;
    }
    vp_rd rd;
    vp_rd_init(&rd, r->data, r->n);
    part_res res = {0};
    int bad = get_res(&rd, &res, in) != 0;
    if (!r->ok || bad) {
        echo(m, r->msg, r->nmsg);
        free(res.msg);
        if (r->signal)
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: the worker process %ld died of signal %d (%s)",
                         in->path, r->pid, r->signal, strsignal(r->signal));
        else
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: the worker process %ld failed without a result",
                         in->path, r->pid);
        return -1;
    }
    int fd = m->part_fd[i];
    m->part_fd[i] = -1;
    if (m->keeping) {
        echo(m, r->msg, r->nmsg);
        return keep_part(m, i, fd, &res);
    }
    int st = take_part(m, i, fd, &res);
    free(res.msg);
    close(fd);
    if (st > 0) {
        if (!r->worker) {
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: internal error: its clock shift changed",
                         in->path);
            return -1;
        }
        /* copied under a wrong guess of the merged clock: again, here */
        if (m->hooks && m->hooks->recopy)
            m->hooks->recopy(m->hooks->ctx, in->path);
        return part_again(m, i);
    }
    echo(m, r->msg, r->nmsg);
    return st;
}

/* Inputs [first, last) into parts, jobs at a time, appended in input
 * order.  The workers run at most 4 jobs ahead of the output: what waits
 * is on disk. */
static int run_parts(merge *m, long jobs, size_t first, size_t last)
{
    vp_pool pool = {part_work, part_take, part_place, m};
    vp_error err = {0};
    int st = vp_pool_run(&pool, jobs, first, last, &err);
    if (err.status)
        vp_error_set(&m->err, err.status, "%s", err.msg);
    return st ? -1 : 0;
}

/* -- peers ---------------------------------------------------------------- */

/* Process r of P copies the r-th contiguous share of the inputs into
 * parts (with -j workers), as one process would; then every process but 0
 * sends each part's report and bytes, in pieces, to process 0, which
 * appends them in input order: nothing is held whole in memory.  Process 0
 * checks each part as it does a worker's, and copies an input again itself
 * when a process guessed the merged clock wrong. */
#define PIECE (1u << 20)

static size_t share_start(size_t n, int r, int size)
{
    return n * (size_t)r / (size_t)size;
}

static int send_share(merge *m, long jobs, size_t first, size_t last)
{
    const vp_merge_peers *pe = m->peers;
    m->keeping = 1;
    m->kept_fd = vp_calloc(m->nin ? m->nin : 1, sizeof *m->kept_fd);
    m->kept = vp_calloc(m->nin ? m->nin : 1, sizeof *m->kept);
    for (size_t i = 0; i < m->nin; i++)
        m->kept_fd[i] = -1;
    if (run_parts(m, jobs, first, last) != 0)
        return -1;
    char *piece = vp_malloc(PIECE);
    int st = 0;
    for (size_t i = first; i < last && st == 0; i++) {
        if (pe->send(pe->ctx, m->kept[i].data, m->kept[i].len) != 0) {
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot send its report", m->in[i].path);
            st = -1;
            break;
        }
        /* the part's length, from the report just sent */
        vp_rd r;
        vp_rd_init(&r, m->kept[i].data, m->kept[i].len);
        input scratch_in;
        memset(&scratch_in, 0, sizeof scratch_in);
        part_res res = {0};
        get_res(&r, &res, &scratch_in);
        free(res.msg);
        free(scratch_in.meta_dp);
        free(scratch_in.meta_di);
        free(scratch_in.meta_unit);
        for (uint64_t at = 0; at < res.len;) {
            size_t want = res.len - at < PIECE ? (size_t)(res.len - at) : PIECE;
            ssize_t got = pread(m->kept_fd[i], piece, want, (off_t)at);
            if (got <= 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot read back its part: %s",
                             m->in[i].path, got < 0 ? strerror(errno) : "short");
                st = -1;
                break;
            }
            if (pe->send(pe->ctx, piece, (size_t)got) != 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot send its part", m->in[i].path);
                st = -1;
                break;
            }
            at += (uint64_t)got;
        }
        close(m->kept_fd[i]);
        m->kept_fd[i] = -1;
    }
    free(piece);
    return st;
}

/* Process 0: the parts of processes 1..size-1, in order. */
static int receive_shares(merge *m)
{
    const vp_merge_peers *pe = m->peers;
    vp_buf msg = {0};
    int st = 0;
    for (int p = 1; p < pe->size && st == 0; p++) {
        size_t first = share_start(m->nin, p, pe->size), last = share_start(m->nin, p + 1, pe->size);
        for (size_t i = first; i < last && st == 0; i++) {
            part_res res = {0};
            vp_rd r;
            if (pe->recv(pe->ctx, p, &msg) != 0 ||
                (vp_rd_init(&r, msg.data, msg.len), get_res(&r, &res, &m->in[i])) != 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "%s: a damaged report from MPI process %d",
                             m->in[i].path, p);
                st = -1;
            }
            int fd = -1;
            if (st == 0 && res.len) {
                fd = part_file(m);
                if (fd < 0)
                    st = -1;
            }
            for (uint64_t at = 0; st == 0 && at < res.len;) {
                if (pe->recv(pe->ctx, p, &msg) != 0 || msg.len == 0 ||
                    vp_write_all(fd, msg.data, msg.len) != 0) {
                    vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot write its part: %s",
                                 m->in[i].path, strerror(errno));
                    st = -1;
                }
                at += (uint64_t)msg.len;
            }
            if (st == 0) {
                st = take_part(m, i, fd, &res);
                if (st > 0)
                    st = part_again(m, i);
            }
            free(res.msg);
            if (fd >= 0)
                close(fd);
        }
    }
    vp_buf_free(&msg);
    return st;
}

static const char *align_name(int a)
{
    switch (a) {
    case ALIGN_NONE: return "none";
    case ALIGN_START: return "start";
    case ALIGN_COLLECTIVE: return "collective";
    default: return "base";
    }
}

static int write_tail(merge *m)
{
    vp_sink *s = m->sink;
    vp_sink_puts(s, "\n],\n");
    if (m->time_unit) {
        m->scratch.len = 0;
        vp_tw_string(&m->scratch, m->time_unit, strlen(m->time_unit));
        vp_sink_printf(s, "\"displayTimeUnit\": %s,\n", vp_buf_cstr(&m->scratch));
    }
    if (m->align != ALIGN_START && m->out_base_set && m->out_base)
        vp_sink_printf(s, "\"baseTimeNanoseconds\": %lld,\n", (long long)m->out_base);
    vp_buf names = {0};
    vp_buf_append(&names, "vprof merge of ", 15);
    int first = 1;
    for (size_t i = 0; i < m->nin; i++) {
        if (m->in[i].skipped)
            continue;
        if (!first)
            vp_buf_append(&names, ", ", 2);
        vp_buf_append(&names, m->in[i].path, strlen(m->in[i].path));
        first = 0;
    }
    m->scratch.len = 0;
    vp_tw_string(&m->scratch, names.data, names.len);
    vp_buf_free(&names);
    vp_sink_printf(s, "\"traceName\": %s,\n", vp_buf_cstr(&m->scratch));
    vp_sink_puts(s, "\"deviceProperties\": {");
    copy_spool(m, m->spool_dp);
    vp_sink_puts(s, "},\n\"distributedInfo\": {");
    copy_spool(m, m->spool_di);
    vp_sink_printf(s, "},\n\"vprofMergeInfo\": {\"align\": \"%s\", \"partial\": %s, \"ranks\": {",
                   align_name(m->align), m->partial ? "true" : "false");
    copy_spool(m, m->spool_info);
    return vp_sink_puts(s, "}}\n}\n");
}

static void merge_free(merge *m)
{
    for (size_t i = 0; i < m->nin; i++) {
        free(m->in[i].colls);
        free(m->in[i].meta_dp);
        free(m->in[i].meta_di);
        free(m->in[i].meta_unit);
    }
    free(m->in);
    for (size_t i = 0; i < m->nprocs; i++) {
        vp_buf_free(&m->procs[i].key);
        free(m->procs[i].name_ev);
        free(m->procs[i].sort_ev);
    }
    free(m->procs);
    vp_strmap_free(m->pid_map);
    vp_buf_free(&m->ebuf);
    vp_buf_free(&m->scratch);
    free(m->time_unit);
    free(m->part_dir_buf);
    for (size_t i = 0; m->kept && i < m->nin; i++) {
        vp_buf_free(&m->kept[i]);
        if (m->kept_fd[i] >= 0)
            close(m->kept_fd[i]);
    }
    free(m->kept);
    free(m->kept_fd);
    for (size_t i = 0; m->part_fd && i < m->nin; i++)
        if (m->part_fd[i] >= 0)
            close(m->part_fd[i]);
    free(m->part_fd);
    free(m->output_name);
    if (m->spool_dp)
        fclose(m->spool_dp);
    if (m->spool_di)
        fclose(m->spool_di);
    if (m->spool_info)
        fclose(m->spool_info);
}

static int run(merge *m)
{
    int need_scan = m->has_steps || m->align == ALIGN_START || m->align == ALIGN_COLLECTIVE;
    size_t nstdin = 0;
    for (size_t i = 0; i < m->nin; i++)
        nstdin += is_stdin(&m->in[i]);
    if (nstdin > 1) {
        vp_error_set(&m->err, VP_EXIT_USAGE, "standard input (-) given %zu times", nstdin);
        return -1;
    }
    for (size_t i = 0; i < m->nin; i++)
        for (size_t j = 0; j < i; j++)
            if (m->in[i].rank_explicit && m->in[j].rank_explicit && m->in[i].rank == m->in[j].rank) {
                vp_error_set(&m->err, VP_EXIT_USAGE, "%s and %s are both given as rank %ld",
                             m->in[j].arg, m->in[i].arg, m->in[i].rank);
                return -1;
            }
    if (need_scan) {
        input *ref = NULL;
        for (size_t i = 0; i < m->nin; i++) {
            if (scan_input(m, &m->in[i], (long)i) != 0)
                return -1;
            m->in[i].skipped = !rank_wanted(m, m->in[i].rank);
            if (!ref && !m->in[i].skipped)
                ref = &m->in[i];
        }
        if (m->align == ALIGN_COLLECTIVE && ref) {
            m->out_base_set = 1;
            m->out_base = ref->has_base ? ref->base : 0;
            collective_offsets(m, ref);
        }
    }
    vp_sink_opts so = m->sink_opts;
    /* Parts: with -j, and always with gzip output, so that the output is
     * the same bytes for every -j (a gzip member per rank). */
    long jobs = m->jobs ? m->jobs : vp_online_cores();
    m->part_mode = jobs > 1 || so.gzip;
    m->progress = m->progress && jobs == 1;
    struct stat sb;
    vp_buf dir = {0};
    if (strcmp(m->output, "-") != 0 && (stat(m->output, &sb) != 0 || S_ISREG(sb.st_mode))) {
        const char *slash = strrchr(m->output, '/');
        if (!slash)
            vp_buf_append(&dir, ".", 1);
        else
            vp_buf_append(&dir, m->output, slash == m->output ? 1 : (size_t)(slash - m->output));
    } else {
        const char *tmp = getenv("TMPDIR");
        vp_buf_printf(&dir, "%s", tmp && *tmp ? tmp : "/tmp");
    }
    m->part_dir = vp_buf_cstr(&dir);
    m->part_dir_buf = dir.data;
    size_t first = 0, last = m->nin;
    if (m->peers) {
        m->part_mode = 1;
        m->progress = 0;
        first = share_start(m->nin, m->peers->rank, m->peers->size);
        last = share_start(m->nin, m->peers->rank + 1, m->peers->size);
        if (m->peers->rank != 0)
            return send_share(m, m->jobs ? m->jobs : 1, first, last);
        if (!m->jobs)
            jobs = 1;
    }
    m->sink = vp_sink_open(m->output, &so, &m->err);
    if (!m->sink)
        return -1;
    m->spool_dp = tmpfile();
    m->spool_di = tmpfile();
    m->spool_info = tmpfile();
    if (!m->spool_dp || !m->spool_di || !m->spool_info) {
        vp_error_set(&m->err, VP_EXIT_INPUT, "cannot create a temporary file for the metadata");
        return -1;
    }
    m->first_dp = m->first_di = m->first_info = 1;
    vp_sink_printf(m->sink, "{\"schemaVersion\": 1,\n\"vprofMerge\": {\"version\": 1, \"pidsPerRank\": %d},\n"
                            "\"traceEvents\": [\n",
                   VP_MERGE_PIDS_PER_RANK);
    if (m->part_mode) {
        if (run_parts(m, jobs, first, last) != 0)
            return -1;
        if (m->peers && receive_shares(m) != 0)
            return -1;
    } else {
        for (size_t i = 0; i < m->nin; i++) {
            input *in = &m->in[i];
            if (in->skipped && in->scanned) {
                in->done = 1;
                continue;
            }
            if (copy_input(m, in, (long)i) != 0)
                return -1;
        }
    }
    size_t merged = 0;
    for (size_t i = 0; i < m->nin; i++)
        merged += !m->in[i].skipped;
    if (!merged) {
        vp_error_set(&m->err, VP_EXIT_USAGE, "--ranks selects none of the inputs' ranks");
        return -1;
    }
    write_tail(m);
    m->output_name = vp_strdup(vp_sink_name(m->sink));
    vp_sink *s = m->sink;
    m->sink = NULL;
    return vp_sink_close(s, &m->err);
}


int vp_merge_run(const vp_merge_input *in, size_t n, const vp_merge_opts *o,
                 vp_merge_result *res, vp_error *err)
{
    merge m;
    memset(&m, 0, sizeof m);
    m.output = o->output;
    m.sink_opts = o->sink;
    m.align = o->align;
    m.coll_n = o->coll_n > 0 ? o->coll_n : VP_MERGE_DEFAULT_COLLECTIVES;
    m.ranks = o->ranks;
    m.nranks = o->nranks;
    if (o->steps) {
        m.steps = *o->steps;
        m.has_steps = 1;
    }
    m.has_w0 = o->has_w0;
    m.has_w1 = o->has_w1;
    m.w0 = o->w0;
    m.w1 = o->w1;
    m.drop = o->drop;
    m.ndrop = o->ndrop;
    m.keep = o->keep;
    m.nkeep = o->nkeep;
    m.partial = o->partial;
    m.progress = o->progress;
    m.jobs = o->jobs;
    m.peers = o->peers;
    m.hooks = o->hooks;
    m.nin = n;
    m.in = vp_calloc(n ? n : 1, sizeof *m.in);
    m.part_fd = vp_calloc(n ? n : 1, sizeof *m.part_fd);
    for (size_t i = 0; i < n; i++) {
        m.in[i].arg = in[i].arg ? in[i].arg : in[i].path;
        m.in[i].path = in[i].path;
        m.in[i].rank = in[i].rank;
        m.in[i].rank_explicit = in[i].rank_explicit;
        m.part_fd[i] = -1;
    }
    m.pid_map = vp_strmap_new();
    int r = run(&m);
    if (r != 0) {
        vp_sink_abort(m.sink);
        m.sink = NULL;
        if (!m.err.status)
            m.err.status = VP_EXIT_INPUT;
        *err = m.err;
    }
    if (res) {
        memset(res, 0, sizeof *res);
        res->ranks = vp_calloc(n ? n : 1, sizeof *res->ranks);
        res->n = n;
        for (size_t i = 0; i < n; i++)
            report_input(&m.in[i], &res->ranks[i]);
        res->any_base = m.any_base;
        res->output_name = m.output_name;
        m.output_name = NULL;
        res->wrote = r == 0 && (!m.peers || m.peers->rank == 0);
    }
    merge_free(&m);
    return r != 0 ? -1 : 0;
}

void vp_merge_result_free(vp_merge_result *res)
{
    free(res->ranks);
    free(res->output_name);
    memset(res, 0, sizeof *res);
}
