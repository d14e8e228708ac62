/* vprof merge: one timeline for all ranks, streamed at constant memory.
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
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "vprof/ascend_files.h"
#include "vprof/classify.h"
#include "vprof/part.h"
#include "vprof/rank.h"
#include "vprof/sink.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

#ifndef VPROF_HAVE_MPI
#define VPROF_HAVE_MPI 0
#endif
#if VPROF_HAVE_MPI
#include <glob.h>
#include <mpi.h>
#endif

const char cmd_merge_usage[] =
    "usage: vprof merge -o OUTPUT [options] TRACE[@RANK]...\n"
    "\n"
    "Merges per-rank traces into one trace for Perfetto or chrome://tracing, streaming:\n"
    "memory does not grow with the number or the size of the inputs. Each rank keeps\n"
    "its own processes (pids R*1000+n, named \"rank R: <name>\", sorted by rank), flow\n"
    "and async ids are made unique per rank, every event keeps its fields. The rank of\n"
    "a file is distributedInfo.rank, else the file name (rank3, rank-3, rank_3), else\n"
    "its position; TRACE@RANK says it explicitly. An Ascend directory (a *_ascend_pt,\n"
    "a folder of them, a PROF_*) stands for each rank's trace_view.json, with the rank\n"
    "its profiler_info names (docs/ascend.md).\n"
    "\n"
    "  -o, --output FILE  the merged trace (required; - for standard output); gzip\n"
    "                     when FILE ends in .gz. Written under a temporary name and\n"
    "                     renamed at the end: a failed merge leaves nothing behind\n"
    "  -z, --gzip         gzip whatever the name\n"
    "      --level N      gzip level, 0 (fastest) to 9 (smallest); default 1\n"
    "      --align MODE   the clock of the merged timeline:\n"
    "                       base   ts moved onto one clock using each trace's\n"
    "                              baseTimeNanoseconds (default; equals none when\n"
    "                              no input has one)\n"
    "                       none   ts as recorded\n"
    "                       start  each rank starts at 0\n"
    "                       collective[:N]  shift each rank so that its first N\n"
    "                              (default 32) collective kernels end when rank\n"
    "                              0's matching ones do (median); prints the shifts\n"
    "      --ranks LIST   only these ranks, e.g. 0-3,8\n"
    "      --steps A:B    only events inside the ProfilerSteps A..B-1 of each rank\n"
    "                     (by time window, GPU work of those steps included; Python\n"
    "                     slice over the steps present, as in vprof kernels)\n"
    "      --window T0:T1 only events overlapping [T0, T1], microseconds on the\n"
    "                     merged clock (either bound may be left out)\n"
    "      --drop CATS    leave out events of these categories (comma list)\n"
    "      --keep CATS    keep only events of these categories\n"
    "      --partial      merge what can be read of a truncated input (said on stderr\n"
    "                     and in the output's vprofMergeInfo)\n"
    "  -j, --jobs N       copy N inputs at a time in worker processes (default: one\n"
    "                     per online core); the output is the same bytes for every N\n"
    "      --mpi          share the inputs among the MPI processes (mpirun); rank 0\n"
    "                     writes the output (an MPI build: vprof --version says)\n"
    "  -v, --verbose      say which rank each file is, and why\n"
    "  -q, --quiet        no warnings, no summary, no progress bar\n"
    "  -h, --help         this help\n"
    "\n"
    "Metadata events are always kept. Details: docs/merge.md.\n"
    "\n"
    "Examples:\n"
    "  vprof merge -o all.json.gz rank*.json.gz\n"
    "  vprof merge -o steps.json.gz --steps 5:7 --ranks 0-7 run/*.json.gz\n"
    "  vprof merge -o small.json.gz --drop python_function big.json.gz\n";

enum { ALIGN_AUTO, ALIGN_NONE, ALIGN_BASE, ALIGN_START, ALIGN_COLLECTIVE };

enum {
    OPT_LEVEL = VP_OPT_FIRST_CMD,
    OPT_ALIGN,
    OPT_RANKS,
    OPT_WINDOW,
    OPT_DROP,
    OPT_KEEP,
};

#define DEFAULT_COLLECTIVES 32

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
    char *path;
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
    int gzip;
    int level, has_level;
    int align;
    long coll_n;
    long (*ranks)[2];
    size_t nranks;
    vp_step_range steps;
    int has_steps;
    int has_w0, has_w1;
    int64_t w0, w1;
    char **drop, **keep;
    size_t ndrop, nkeep;
    int partial, verbose;
    long jobs;         /* -j: 0 = one per online core */
    int mpi;

    /* parts (-j, gzip output): each input is copied into a part of its
     * own, a temporary file, and the parts appended in input order */
    int part_mode;
    int progress;      /* the reader's progress bar (not in workers) */
    int guess_own;     /* a worker that does not know the merged clock yet
                          assumes its input's own base (shift 0); the
                          parent checks the shift and copies it again if not */
    const char *part_dir;
    char *part_dir_buf;
    /* --mpi, a process other than rank 0: its parts are kept (fd and
     * report, by input) until they are sent to rank 0 */
    int keeping;
    int mpi_rank;
    char **owned;      /* --mpi: the paths globs expanded to */
    size_t nowned;
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

static int parse_list(const char *arg, char ***out, size_t *n)
{
    char *copy = vp_strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        *out = vp_realloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = vp_strdup(tok);
    }
    free(copy);
    return *n ? 0 : -1;
}

static int parse_long_full(const char *s, const char *end, long *out)
{
    if (s == end)
        return -1;
    long v = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9' || v > 100000000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    *out = v;
    return 0;
}

static int parse_ranks(merge *m, const char *arg)
{
    const char *p = arg;
    while (*p) {
        const char *e = strchr(p, ',');
        if (!e)
            e = p + strlen(p);
        const char *dash = memchr(p, '-', (size_t)(e - p));
        long a, b;
        if (dash ? parse_long_full(p, dash, &a) || parse_long_full(dash + 1, e, &b) || b < a
                 : parse_long_full(p, e, &a))
            return -1;
        if (!dash)
            b = a;
        m->ranks = vp_realloc(m->ranks, (m->nranks + 1) * sizeof *m->ranks);
        m->ranks[m->nranks][0] = a;
        m->ranks[m->nranks][1] = b;
        m->nranks++;
        p = *e ? e + 1 : e;
    }
    return m->nranks ? 0 : -1;
}

static int rank_wanted(const merge *m, long r)
{
    if (!m->nranks)
        return 1;
    for (size_t i = 0; i < m->nranks; i++)
        if (r >= m->ranks[i][0] && r <= m->ranks[i][1])
            return 1;
    return 0;
}

static int parse_time_us(const char *s, size_t n, int64_t *out)
{
    vp_span v = {s, n};
    return vp_json_us_to_ns(v, out);
}

static int parse_window(merge *m, const char *arg)
{
    const char *colon = strchr(arg, ':');
    if (!colon)
        return -1;
    if (colon > arg) {
        if (parse_time_us(arg, (size_t)(colon - arg), &m->w0) != 0)
            return -1;
        m->has_w0 = 1;
    }
    if (colon[1]) {
        if (parse_time_us(colon + 1, strlen(colon + 1), &m->w1) != 0)
            return -1;
        m->has_w1 = 1;
    }
    if (m->has_w0 && m->has_w1 && m->w1 < m->w0)
        return -1;
    return 0;
}

static int parse_align(merge *m, const char *arg)
{
    if (strcmp(arg, "none") == 0)
        m->align = ALIGN_NONE;
    else if (strcmp(arg, "base") == 0)
        m->align = ALIGN_BASE;
    else if (strcmp(arg, "start") == 0)
        m->align = ALIGN_START;
    else if (strncmp(arg, "collective", 10) == 0 && (arg[10] == 0 || arg[10] == ':')) {
        m->align = ALIGN_COLLECTIVE;
        m->coll_n = DEFAULT_COLLECTIVES;
        if (arg[10] == ':' &&
            (parse_long_full(arg + 11, arg + strlen(arg), &m->coll_n) != 0 || m->coll_n < 1))
            return -1;
    } else
        return -1;
    return 0;
}

/* FILE@RANK: split when what follows the last '@' is a number and the
 * whole argument is not itself an existing file. */
static void parse_input(input *in, const char *arg)
{
    in->arg = arg;
    const char *at = strrchr(arg, '@');
    long r;
    struct stat sb;
    if (at && at > arg && parse_long_full(at + 1, at + strlen(at), &r) == 0 && stat(arg, &sb) != 0) {
        in->path = vp_strndup(arg, (size_t)(at - arg));
        in->rank = r;
        in->rank_explicit = 1;
    } else {
        in->path = vp_strdup(arg);
    }
}

/* -- categories ----------------------------------------------------------- */

static int cat_in(vp_span cat, char **list, size_t n)
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

static const char STEP_PREFIX[] = "ProfilerStep#";

/* Reads a whole input for what must be known before its first event is
 * written: rank, clock base, first timestamp, step window, collectives. */
static int scan_input(merge *m, input *in, long position)
{
    vp_error err = {0};
    vp_trace_opts topts = {.partial = m->partial, .progress = m->progress};
    if (strcmp(in->path, "-") == 0) {
        vp_error_set(&m->err, VP_EXIT_USAGE,
                     "standard input can be merged only when it needs a single reading: not with "
                     "--steps or --align start|collective, nor to a non-regular output when its "
                     "rank or clock base comes after its events (give the rank as -@RANK)");
        return -1;
    }
    vp_trace *t = vp_trace_open(in->path, &topts, &err);
    if (!t) {
        vp_error_set(&m->err, err.status, "%s", err.msg);
        return -1;
    }
    vp_steps *steps = m->has_steps ? vp_steps_new() : NULL;
    gpu_step *gsteps = NULL;
    size_t ngsteps = 0, cap_g = 0, cap_c = 0;
    vp_event ev;
    int r;
    in->has_min = 0;
    in->ncolls = 0;
    while ((r = vp_trace_next(t, &ev, &err)) == 1) {
        if (ev.ph == 'M' || !ev.has_ts)
            continue;
        if (!in->has_min || ev.ts < in->min_ts) {
            in->min_ts = ev.ts;
            in->has_min = 1;
        }
        if (steps) {
            vp_steps_observe(steps, &ev);
            if (ev.ph == 'X' && ev.name.n > sizeof STEP_PREFIX - 1 &&
                memcmp(ev.name.p, STEP_PREFIX, sizeof STEP_PREFIX - 1) == 0 &&
                name_is(ev.cat, "gpu_user_annotation")) {
                char *e;
                const char *d = ev.name.p + sizeof STEP_PREFIX - 1;
                long num = strtol(d, &e, 10);
                if (e > d && e == ev.name.p + ev.name.n) {
                    if (ngsteps == cap_g) {
                        cap_g = cap_g ? cap_g * 2 : 16;
                        gsteps = vp_realloc(gsteps, cap_g * sizeof *gsteps);
                    }
                    gsteps[ngsteps++] = (gpu_step){num, ev.ts, event_end(&ev)};
                }
            }
        }
        if (m->align == ALIGN_COLLECTIVE && ev.ph == 'X' && ev.has_dur) {
            vp_gpu_kind kind = vp_gpu_kind_of(ev.cat);
            if (kind == VP_GPU_KERNEL && vp_classify(kind, ev.name.p, ev.name.n) == VP_CLASS_COMM) {
                if (in->ncolls == cap_c) {
                    cap_c = cap_c ? cap_c * 2 : 256;
                    in->colls = vp_realloc(in->colls, cap_c * sizeof *in->colls);
                }
                in->colls[in->ncolls++] =
                    (coll_end){vp_hash_bytes(ev.name.p, ev.name.n), 0, ev.ts, event_end(&ev)};
            }
        }
    }
    if (r < 0) {
        vp_error_set(&m->err, err.status, "%s", err.msg);
        vp_steps_free(steps);
        free(gsteps);
        vp_trace_close(t);
        return -1;
    }
    const cJSON *meta = vp_trace_meta(t);
    if (!in->rank_explicit)
        in->rank = vp_rank_detect(meta, in->path, position, &in->rank_from);
    in->has_base = meta_base(t, &in->base);
    in->known = 1;
    in->scanned = 1;

    if (steps) {
        size_t nsteps = vp_steps_count(steps);
        size_t chosen = vp_steps_select(steps, &m->steps);
        int64_t s0 = 0, s1 = 0;
        int found = 0;
        for (size_t i = 0; i < nsteps; i++) {
            int64_t a, b;
            if (vp_steps_window(steps, i, &a, &b) != 1)
                continue;
            long num = vp_steps_number(steps, i);
            /* The GPU work of a step runs after its CPU window; Kineto's
             * gpu_user_annotation copy of the step spans it. */
            for (size_t g = 0; g < ngsteps; g++)
                if (gsteps[g].number == num) {
                    if (gsteps[g].start < a)
                        a = gsteps[g].start;
                    if (gsteps[g].end > b)
                        b = gsteps[g].end;
                }
            if (!found || a < s0)
                s0 = a;
            if (!found || b > s1)
                s1 = b;
            found = 1;
        }
        if (nsteps == 0)
            vp_warn("%s: --steps: the trace has no ProfilerStep#N annotations: only its metadata "
                    "events are kept",
                    in->path);
        else if (chosen == 0)
            vp_warn("%s: --steps selects none of the steps present (ProfilerStep#%ld to #%ld): "
                    "only its metadata events are kept",
                    in->path, vp_steps_number(steps, 0), vp_steps_number(steps, nsteps - 1));
        in->has_steps_window = 1;
        if (found) {
            in->steps_start = s0;
            in->steps_end = s1;
        } else {
            /* an empty window: start after end */
            in->steps_start = 1;
            in->steps_end = 0;
        }
        vp_steps_free(steps);
    }
    free(gsteps);
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
    vp_trace_close(t);
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
            vp_warn("%s: --align collective: no collective kernel matches rank %ld's; its clock "
                    "is aligned with baseTimeNanoseconds only",
                    in->path, ref->rank);
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
            if (m->verbose)
                fprintf(stderr, "vprof: merge: %s: rank or clock base found after the events; "
                                "copying it again\n",
                        in->path);
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
                vp_warn("%s: truncated: merged the %llu events read before the end (--partial)",
                        in->path, (unsigned long long)in->events_read);
        }
        if (m->verbose)
            fprintf(stderr, "vprof: merge: %s: rank %ld (from %s)%s; %llu of %llu events written, "
                            "ts shifted by %lld ns\n",
                    in->path, in->rank,
                    in->rank_explicit ? "the command line" : vp_rank_source_name(in->rank_from),
                    in->skipped ? ", not in --ranks" : "", (unsigned long long)in->events_written,
                    (unsigned long long)in->events_read, (long long)in->shift);
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

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

typedef struct mtask {
    pid_t pid;
    int fd;            /* the worker's pipe, -1 once closed */
    int part;          /* the part file, -1 when none */
    int done, wstatus;
    int here;          /* copied by the parent at its turn */
    int nothing;       /* nothing to copy (left out by --ranks after a pre-pass) */
    vp_buf data;
} mtask;

/* A worker: copies input i into its part, then sends its messages and
 * result through fd.  Never returns. */
static void part_worker(merge *m, size_t i, int part, int fd)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    FILE *cap = tmpfile();
    if (cap)
        dup2(fileno(cap), STDERR_FILENO);
    m->progress = 0;
    /* Until the first rank merged is done the merged clock is unknown. */
    m->guess_own = !m->out_base_set && (m->align == ALIGN_AUTO || m->align == ALIGN_BASE);
    part_res res;
    copy_part(m, i, part, &res);
    fflush(stderr);
    vp_buf msg = {0}, frame = {0};
    if (cap && lseek(fileno(cap), 0, SEEK_SET) == 0) {
        char buf[4096];
        ssize_t r;
        while ((r = read(fileno(cap), buf, sizeof buf)) > 0)
            vp_buf_append(&msg, buf, (size_t)r);
    }
    vp_put_str(&frame, msg.data, msg.len);
    put_res(&frame, &res, &m->in[i]);
    int rc = write_all(fd, frame.data, frame.len);
    _exit(rc == 0 ? 0 : 1);
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

/* --mpi, not rank 0: input i's part waits to be sent (or its error is
 * this process's). */
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

/* Input i copied by this process, at its turn (the merged clock known). */
static int part_here(merge *m, size_t i)
{
    int fd = part_file(m);
    if (fd < 0)
        return -1;
    m->guess_own = 0;
    int saved_any = m->any_written;
    part_res res;
    copy_part(m, i, fd, &res);
    m->any_written = saved_any;
    if (m->keeping)
        return keep_part(m, i, fd, &res);
    int r = take_part(m, i, fd, &res);
    free(res.msg);
    close(fd);
    if (r > 0) {
        vp_error_set(&m->err, VP_EXIT_INPUT, "%s: internal error: its clock shift changed",
                     m->in[i].path);
        r = -1;
    }
    return r;
}

static void stop_tasks(mtask *t, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (t[i].fd >= 0) {
            kill(t[i].pid, SIGTERM);
            close(t[i].fd);
            waitpid(t[i].pid, NULL, 0);
            t[i].fd = -1;
        }
        if (t[i].part >= 0)
            close(t[i].part);
        t[i].part = -1;
        vp_buf_free(&t[i].data);
    }
}

/* A worker's frame at its turn: messages printed, part taken. */
static int finish_task(merge *m, mtask *w, size_t i)
{
    input *in = &m->in[i];
    vp_rd r;
    vp_rd_init(&r, w->data.data, w->data.len);
    size_t nmsg;
    const char *msg = vp_get_str(&r, &nmsg);
    part_res res = {0};
    int bad = get_res(&r, &res, in) != 0;
    if (!WIFEXITED(w->wstatus) || WEXITSTATUS(w->wstatus) != 0 || bad) {
        fwrite(msg, 1, nmsg, stderr);
        free(res.msg);
        if (WIFSIGNALED(w->wstatus))
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: the worker process %ld died of signal %d (%s)",
                         in->path, (long)w->pid, WTERMSIG(w->wstatus),
                         strsignal(WTERMSIG(w->wstatus)));
        else
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: the worker process %ld failed without a result",
                         in->path, (long)w->pid);
        return -1;
    }
    if (m->keeping) {
        fwrite(msg, 1, nmsg, stderr);
        int part = w->part;
        w->part = -1;
        return keep_part(m, i, part, &res);
    }
    int st = take_part(m, i, w->part, &res);
    free(res.msg);
    if (st > 0) {
        /* copied under a wrong guess of the merged clock: again, here */
        if (m->verbose)
            fprintf(stderr, "vprof: merge: %s: rank or clock base found after the events; "
                            "copying it again\n",
                    in->path);
        return part_here(m, i);
    }
    fwrite(msg, 1, nmsg, stderr);
    return st;
}

static long online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/* Every input into a part, jobs at a time, appended in input order.  The
 * workers run at most 4 jobs ahead of the output: what waits is on disk. */
static int run_parts(merge *m, long jobs, size_t first, size_t last)
{
    size_t n = last;
    if (jobs > (long)(last - first))
        jobs = (long)(last - first);
    if (jobs < 1)
        jobs = 1;
    size_t window = (size_t)jobs * 4;
    mtask *t = vp_calloc(n ? n : 1, sizeof *t);
    for (size_t i = 0; i < n; i++)
        t[i].fd = t[i].part = -1;
    struct pollfd *pfd = vp_calloc((size_t)jobs, sizeof *pfd);
    size_t *who = vp_calloc((size_t)jobs, sizeof *who);
    size_t started = first, merged = first;
    long running = 0;
    int st = 0;
    while (merged < n) {
        while (running < jobs && started < n && started - merged < window) {
            input *in = &m->in[started];
            if (in->skipped && in->scanned) {
                t[started++].nothing = 1;
                continue;
            }
            if (jobs == 1 || is_stdin(in)) {
                /* standard input is read once, at its turn */
                t[started++].here = 1;
                continue;
            }
            int part = part_file(m);
            if (part < 0) {
                st = -1;
                goto out;
            }
            int fds[2];
            fflush(stdout);
            fflush(stderr);
            pid_t pid = -1;
            if (pipe(fds) == 0) {
                pid = fork();
                if (pid < 0) {
                    close(fds[0]);
                    close(fds[1]);
                }
            }
            if (pid < 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "cannot start a worker: %s", strerror(errno));
                close(part);
                st = -1;
                goto out;
            }
            if (pid == 0) {
                close(fds[0]);
                for (size_t i = merged; i < started; i++) {
                    if (t[i].fd >= 0)
                        close(t[i].fd);
                    if (t[i].part >= 0)
                        close(t[i].part);
                }
                part_worker(m, started, part, fds[1]);
            }
            close(fds[1]);
            t[started].pid = pid;
            t[started].fd = fds[0];
            t[started].part = part;
            started++;
            running++;
        }
        mtask *w = &t[merged];
        if (w->nothing || w->here || w->done) {
            if (w->nothing)
                m->in[merged].done = 1;
            else if (w->here)
                st = part_here(m, merged);
            else
                st = finish_task(m, w, merged);
            if (w->part >= 0)
                close(w->part);
            w->part = -1;
            vp_buf_free(&w->data);
            merged++;
            if (st != 0)
                goto out;
            continue;
        }
        nfds_t np = 0;
        for (size_t i = merged; i < started; i++)
            if (t[i].fd >= 0) {
                pfd[np].fd = t[i].fd;
                pfd[np].events = POLLIN;
                who[np++] = i;
            }
        if (poll(pfd, np, -1) < 0) {
            if (errno == EINTR)
                continue;
            vp_error_set(&m->err, VP_EXIT_INPUT, "poll: %s", strerror(errno));
            st = -1;
            goto out;
        }
        for (nfds_t j = 0; j < np; j++) {
            if (!pfd[j].revents)
                continue;
            mtask *x = &t[who[j]];
            vp_buf_reserve(&x->data, 65536);
            ssize_t r = read(x->fd, x->data.data + x->data.len, 65536);
            if (r < 0 && errno == EINTR)
                continue;
            if (r > 0) {
                x->data.len += (size_t)r;
                continue;
            }
            close(x->fd);
            x->fd = -1;
            while (waitpid(x->pid, &x->wstatus, 0) < 0 && errno == EINTR)
                ;
            x->done = 1;
            running--;
        }
    }
out:
    stop_tasks(t, merged, started);
    free(t);
    free(pfd);
    free(who);
    return st;
}

#if VPROF_HAVE_MPI
/* --mpi: process r of P copies the r-th contiguous share of the inputs
 * into parts (with -j workers), as one process would; then every process
 * but rank 0 sends each part's report and bytes, in pieces, to rank 0,
 * which appends them in input order: nothing is held whole in memory.
 * Rank 0 checks each part as it does a worker's, and copies an input again
 * itself when a process guessed the merged clock wrong. */
#define PART_TAG 7201
#define PIECE (1u << 20)

static size_t share_start(size_t n, int r, int size)
{
    return n * (size_t)r / (size_t)size;
}

static int mpi_send_share(merge *m, long jobs, size_t first, size_t last)
{
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
        uint64_t len = m->kept[i].len;
        MPI_Send(&len, 8, MPI_BYTE, 0, PART_TAG, MPI_COMM_WORLD);
        MPI_Send(m->kept[i].data, (int)len, MPI_BYTE, 0, PART_TAG, MPI_COMM_WORLD);
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
            MPI_Send(piece, (int)got, MPI_BYTE, 0, PART_TAG, MPI_COMM_WORLD);
            at += (uint64_t)got;
        }
        close(m->kept_fd[i]);
        m->kept_fd[i] = -1;
    }
    free(piece);
    return st;
}

/* Rank 0: the parts of processes 1..size-1, in order. */
static int mpi_receive(merge *m, int size)
{
    char *piece = vp_malloc(PIECE);
    int st = 0;
    for (int p = 1; p < size && st == 0; p++) {
        size_t first = share_start(m->nin, p, size), last = share_start(m->nin, p + 1, size);
        for (size_t i = first; i < last && st == 0; i++) {
            uint64_t len = 0;
            MPI_Recv(&len, 8, MPI_BYTE, p, PART_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            vp_buf frame = {0};
            vp_buf_reserve(&frame, (size_t)len + 1);
            MPI_Recv(frame.data, (int)len, MPI_BYTE, p, PART_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            frame.len = (size_t)len;
            vp_rd r;
            vp_rd_init(&r, frame.data, frame.len);
            part_res res = {0};
            if (get_res(&r, &res, &m->in[i]) != 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "%s: a damaged report from MPI process %d",
                             m->in[i].path, p);
                st = -1;
            }
            vp_buf_free(&frame);
            int fd = -1;
            if (st == 0 && res.len) {
                fd = part_file(m);
                if (fd < 0)
                    st = -1;
            }
            for (uint64_t at = 0; st == 0 && at < res.len;) {
                MPI_Status ms;
                int got = 0;
                MPI_Recv(piece, (int)PIECE, MPI_BYTE, p, PART_TAG, MPI_COMM_WORLD, &ms);
                MPI_Get_count(&ms, MPI_BYTE, &got);
                if (got <= 0 || write_all(fd, piece, (size_t)got) != 0) {
                    vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot write its part: %s",
                                 m->in[i].path, strerror(errno));
                    st = -1;
                }
                at += (uint64_t)got;
            }
            if (st == 0) {
                st = take_part(m, i, fd, &res);
                if (st > 0)
                    st = part_here(m, i);
            }
            free(res.msg);
            if (fd >= 0)
                close(fd);
        }
    }
    free(piece);
    return st;
}
#endif

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

static void summary(merge *m)
{
    if (vp_quiet)
        return;
    size_t ranks = 0;
    uint64_t read = 0, written = 0;
    int truncated = 0;
    for (size_t i = 0; i < m->nin; i++) {
        if (m->in[i].skipped)
            continue;
        ranks++;
        read += m->in[i].events_read;
        written += m->in[i].events_written;
        truncated |= m->in[i].truncated;
    }
    const char *clock;
    switch (m->align) {
    case ALIGN_NONE: clock = "as recorded (--align none)"; break;
    case ALIGN_START: clock = "each rank starts at 0 (--align start)"; break;
    case ALIGN_COLLECTIVE: clock = "shifted to align collective kernels (--align collective)"; break;
    default:
        clock = m->any_base ? "one clock from baseTimeNanoseconds (--align base)"
                            : "as recorded: no input has baseTimeNanoseconds (--align base)";
    }
    fprintf(stderr, "vprof: merge: %zu rank%s, %llu of %llu events to %s%s; time: %s\n", ranks,
            ranks == 1 ? "" : "s", (unsigned long long)written, (unsigned long long)read,
            vp_sink_name(m->sink), truncated ? " (partial: some inputs were truncated)" : "", clock);
    if (m->align == ALIGN_COLLECTIVE) {
        for (size_t i = 0; i < m->nin; i++) {
            const input *in = &m->in[i];
            if (in->skipped)
                continue;
            fprintf(stderr, "vprof: merge: rank %ld: shifted by %+.3f us (%zu collectives matched)\n",
                    in->rank, (double)in->coll_offset / 1000.0, in->coll_matched);
        }
    }
}

static void merge_free(merge *m)
{
    for (size_t i = 0; i < m->nin; i++) {
        free(m->in[i].path);
        free(m->in[i].colls);
        free(m->in[i].meta_dp);
        free(m->in[i].meta_di);
        free(m->in[i].meta_unit);
    }
    free(m->in);
    for (size_t i = 0; i < m->ndrop; i++)
        free(m->drop[i]);
    for (size_t i = 0; i < m->nkeep; i++)
        free(m->keep[i]);
    free(m->drop);
    free(m->keep);
    free(m->ranks);
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
    for (size_t i = 0; i < m->nowned; i++)
        free(m->owned[i]);
    free(m->owned);
    if (m->spool_dp)
        fclose(m->spool_dp);
    if (m->spool_di)
        fclose(m->spool_di);
    if (m->spool_info)
        fclose(m->spool_info);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

#if VPROF_HAVE_MPI
/* --mpi: an operand that names no file and holds a wildcard is a glob
 * each process expands itself (quoted on the mpirun line); every process
 * must see the same list. */
static int expand_globs(merge *m, int *argc, char ***argv)
{
    char **list = NULL;
    size_t n = 0;
    for (int i = 0; i < optind; i++) {
        list = vp_realloc(list, (n + 1) * sizeof *list);
        list[n++] = (*argv)[i];
    }
    for (int i = optind; i < *argc; i++) {
        const char *a = (*argv)[i];
        if (access(a, F_OK) == 0 || !strpbrk(a, "*?[")) {
            list = vp_realloc(list, (n + 1) * sizeof *list);
            list[n++] = (*argv)[i];
            continue;
        }
        glob_t g;
        memset(&g, 0, sizeof g);
        if (glob(a, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
            fprintf(stderr, "vprof: merge: %s: no file matches\n", a);
            globfree(&g);
            free(list);
            return -1;
        }
        list = vp_realloc(list, (n + g.gl_pathc) * sizeof *list);
        m->owned = vp_realloc(m->owned, (m->nowned + g.gl_pathc) * sizeof *m->owned);
        for (size_t k = 0; k < g.gl_pathc; k++) {
            m->owned[m->nowned] = vp_strdup(g.gl_pathv[k]);
            list[n++] = m->owned[m->nowned++];
        }
        globfree(&g);
    }
    m->owned = vp_realloc(m->owned, (m->nowned + 1) * sizeof *m->owned);
    m->owned[m->nowned++] = (char *)list;   /* freed with the paths */
    *argc = (int)n;
    *argv = list;
    return 0;
}
#endif

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
    vp_sink_opts so = {.gzip = m->gzip || ends_with(m->output, ".gz"),
                       .level = m->has_level ? m->level : VP_SINK_DEFAULT_LEVEL};
    if (m->has_level && !so.gzip) {
        vp_error_set(&m->err, VP_EXIT_USAGE, "--level needs gzip output (-z or a name ending in .gz)");
        return -1;
    }
    m->sink_opts = so;
    /* Parts: with -j, and always with gzip output, so that the output is
     * the same bytes for every -j (a gzip member per rank). */
    long jobs = m->jobs ? m->jobs : online_cores();
    m->part_mode = jobs > 1 || so.gzip;
    m->progress = !vp_quiet && jobs == 1;
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
#if VPROF_HAVE_MPI
    int size = 1;
    if (m->mpi) {
        MPI_Comm_rank(MPI_COMM_WORLD, &m->mpi_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        m->part_mode = 1;
        m->progress = 0;
        first = share_start(m->nin, m->mpi_rank, size);
        last = share_start(m->nin, m->mpi_rank + 1, size);
        if (m->mpi_rank != 0)
            return mpi_send_share(m, m->jobs ? m->jobs : 1, first, last);
        if (!m->jobs)
            jobs = 1;
    }
#endif
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
#if VPROF_HAVE_MPI
        if (m->mpi && mpi_receive(m, size) != 0)
            return -1;
#endif
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
    summary(m);
    vp_sink *s = m->sink;
    m->sink = NULL;
    return vp_sink_close(s, &m->err);
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},
        {"gzip", no_argument, 0, 'z'},
        {"level", required_argument, 0, OPT_LEVEL},
        {"align", required_argument, 0, OPT_ALIGN},
        {"ranks", required_argument, 0, OPT_RANKS},
        VP_STEPS_LONGOPT,
        {"window", required_argument, 0, OPT_WINDOW},
        {"drop", required_argument, 0, OPT_DROP},
        {"keep", required_argument, 0, OPT_KEEP},
        {"partial", no_argument, 0, VP_OPT_PARTIAL},
        {"jobs", required_argument, 0, 'j'},
        {"mpi", no_argument, 0, VP_OPT_MPI},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("merge");
    merge m;
    memset(&m, 0, sizeof m);
    vp_common_opts common;
    vp_common_init(&common);
    int c, status = VP_EXIT_USAGE;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:zj:qvh", longopts, NULL)) != -1) {
        int h = vp_common_option(&common, self, c, optarg);
        if (h == 2) {
            status = VP_EXIT_OK;
            goto out;
        }
        if (h < 0)
            goto out;
        if (h == 1)
            continue;
        switch (c) {
        case 'z':
            m.gzip = 1;
            break;
        case OPT_LEVEL: {
            char *e;
            long l = strtol(optarg, &e, 10);
            if (*e || e == optarg || l < 0 || l > 9) {
                vp_usage_error("merge", "--level: expected 0 to 9, found '%s'", optarg);
                goto out;
            }
            m.level = (int)l;
            m.has_level = 1;
            break;
        }
        case OPT_ALIGN:
            if (parse_align(&m, optarg) != 0) {
                vp_usage_error("merge", "--align: expected none, base, start or collective[:N], found '%s'",
                               optarg);
                goto out;
            }
            break;
        case OPT_RANKS:
            if (parse_ranks(&m, optarg) != 0) {
                vp_usage_error("merge", "--ranks: expected a list like 0-3,8, found '%s'", optarg);
                goto out;
            }
            break;
        case OPT_WINDOW:
            if (parse_window(&m, optarg) != 0) {
                vp_usage_error("merge", "--window: expected T0:T1 in microseconds (T0 <= T1), found '%s'",
                               optarg);
                goto out;
            }
            break;
        case OPT_DROP:
            if (parse_list(optarg, &m.drop, &m.ndrop) != 0) {
                vp_usage_error("merge", "--drop: expected categories, found '%s'", optarg);
                goto out;
            }
            break;
        case OPT_KEEP:
            if (parse_list(optarg, &m.keep, &m.nkeep) != 0) {
                vp_usage_error("merge", "--keep: expected categories, found '%s'", optarg);
                goto out;
            }
            break;
        default:
            vp_usage_error("merge", "unexpected option");
            goto out;
        }
    }
    m.output = common.output;
    m.partial = common.partial;
    m.verbose = common.verbose;
    m.jobs = common.jobs;
    m.mpi = common.mpi;
    if (m.mpi && (m.has_steps || m.align == ALIGN_START || m.align == ALIGN_COLLECTIVE)) {
        vp_usage_error("merge", "--mpi does not take --steps or --align start|collective yet");
        goto out;
    }
    if (!m.output) {
        vp_usage_error("merge", "no output given (-o FILE, or -o - for standard output)");
        goto out;
    }
    m.steps = common.steps;
    m.has_steps = common.has_steps;
    if (optind >= argc) {
        vp_usage_error("merge", "no trace given");
        goto out;
    }
    /* An Ascend directory (a *_ascend_pt, a folder of them, a PROF_*)
     * stands for the trace of each of its ranks, with the rank its
     * profiler_info names. */
#if VPROF_HAVE_MPI
    if (m.mpi && expand_globs(&m, &argc, &argv) != 0) {
        status = VP_EXIT_INPUT;
        goto out;
    }
#endif
    for (int i = optind; i < argc; i++) {
        if (m.mpi && strcmp(argv[i], "-") == 0) {
            vp_usage_error("merge", "--mpi cannot read standard input");
            goto out;
        }
        if (!vp_asc_is_dir(argv[i])) {
            m.in = vp_realloc(m.in, (m.nin + 1) * sizeof *m.in);
            memset(&m.in[m.nin], 0, sizeof *m.in);
            parse_input(&m.in[m.nin++], argv[i]);
            continue;
        }
        vp_asc_run run;
        if (vp_asc_scan(argv[i], &run, &m.err) != 0) {
            vp_error_print(&m.err);
            status = VP_EXIT_INPUT;
            goto out;
        }
        for (size_t k = 0; k < run.n; k++) {
            if (!vp_asc_need(&run.ranks[k], VP_ASC_TRACE, VP_ASC_UNKNOWN, &m.err)) {
                vp_error_print(&m.err);
                vp_asc_run_free(&run);
                status = VP_EXIT_INPUT;
                goto out;
            }
            m.in = vp_realloc(m.in, (m.nin + 1) * sizeof *m.in);
            input *in = &m.in[m.nin++];
            memset(in, 0, sizeof *in);
            in->path = vp_strdup(run.ranks[k].files[VP_ASC_TRACE]);
            in->arg = in->path;
            in->rank = run.ranks[k].rank;
            in->rank_explicit = 1;
        }
        if (run.n == 0) {
            fprintf(stderr, "vprof: %s: no rank directory with a trace_view.json\n", argv[i]);
            vp_asc_run_free(&run);
            status = VP_EXIT_INPUT;
            goto out;
        }
        vp_asc_run_free(&run);
    }
    m.pid_map = vp_strmap_new();
#if VPROF_HAVE_MPI
    int inited = 0;
    if (m.mpi) {
        MPI_Initialized(&inited);
        if (!inited)
            MPI_Init(NULL, NULL);
    }
#endif
    if (run(&m) != 0) {
        vp_sink_abort(m.sink);
        m.sink = NULL;
        if (m.err.status == VP_EXIT_USAGE)
            status = vp_usage_error("merge", "%s", m.err.msg);
        else {
            vp_error_print(&m.err);
            status = m.err.status ? m.err.status : VP_EXIT_INPUT;
        }
#if VPROF_HAVE_MPI
        if (m.mpi) {
            int rank = 0, size = 1;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            fprintf(stderr, "vprof: merge: MPI process %d of %d failed; aborting the job\n", rank,
                    size);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, status);
        }
#endif
        goto out;
    }
#if VPROF_HAVE_MPI
    if (m.mpi)
        MPI_Finalize();
#endif
    status = VP_EXIT_OK;
out:
    merge_free(&m);
    return status;
}
