/* The streaming Chrome-trace reader (see vprof/trace.h).
 *
 * The reader walks the top level with a small state machine and parses one
 * element at a time (a key, a top-level value, an event) from a window of
 * the input.  The window is normally the current chunk of the source, with
 * no copy.  When an element straddles the end of a chunk, its start is
 * copied into a carry buffer followed by as much of the next chunk as it
 * takes, the element is parsed again from its start, and the reader moves
 * back onto the chunk as soon as the element is done.  So an element is
 * always contiguous while it is parsed and the carry holds at most about
 * one element.
 *
 * Skip facts.  Skipping the members nobody asked for (args, mostly) was a
 * quarter of the parser's time, while the source thread that inflates
 * ahead of it sat idle most of the time.  So the source thread runs a
 * hook on each chunk it fills (facts_hook): a scan of the chunk
 * (vp_json_facts_scan) that records, for the objects and arrays written
 * after `"args": ` or `"args":`, where each one ends.  A fact is the
 * bitmap walk's answer at that place with the arguments the parser's
 * vp_json_skip would pass it there (the chunk's end, nesting base 2): a
 * memo of the same pure function on the same bytes.  So when the parser stands at a member's
 * '{' or '[' outside the carry (its window is then exactly the chunk),
 * the fact at that offset, if there is one, is what its own skip would
 * return; with none it skips as before, and every error is found and
 * worded by its own skip as before.  Where the scan looks decides only
 * where facts are made: a fact is right wherever it is asked, and a
 * container without one is skipped by the parser itself.  Chunks
 * straddled by a value get no fact for it, and the carry never uses
 * facts. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vprof/htatime.h"
#include "vprof/source.h"
#include "vprof/trace.h"
#include "vprof/util.h"

enum state {
    ST_START,
    ST_OBJ_FIRST_KEY,  /* after the top-level '{' */
    ST_OBJ_KEY,        /* after a top-level ',' */
    ST_OBJ_VALUE,      /* after a top-level key other than traceEvents */
    ST_EVENTS_OPEN,    /* after "traceEvents": */
    ST_OBJ_NEXT,       /* after a top-level value */
    ST_ARR_FIRST,      /* after the events' '[' */
    ST_ARR_ELEM,       /* after a ',' between events */
    ST_ARR_NEXT,       /* after an event */
    ST_END,            /* after the whole trace */
    ST_DONE,
    ST_FAILED,
};

enum { STEP_NONE, STEP_EVENT };

/* What the carry takes of the next chunk at first: an element straddles
 * by a few hundred bytes, and the carry's bytes are copied and get no
 * skip facts.  Each further step doubles the carry, so a long element
 * costs a linear copy all the same. */
#define CARRY_STEP (4u << 10)

struct vp_trace {
    vp_source *src;
    vp_json_facts *facts;      /* the source thread's; NULL: no skip facts (no walk, or off) */
    const vp_json_fact *fact;  /* the current chunk's facts, from the first not yet passed */
    char *path;                /* the name in messages */
    char *file;                /* what was opened ("-" = standard input) */
    vp_trace_opts opts;
    vp_chunk chunk;
    int src_ended;

    const char *p, *end;       /* the window */
    int in_carry;
    vp_buf carry;
    uint64_t carry_offset;     /* stream offset of carry.data[0] */
    size_t carry_tail;         /* carry index that mirrors ... */
    size_t tail_chunk_start;   /* ... this index of the current chunk */
    size_t chunk_used;         /* chunk bytes copied into the carry */

    enum state st;
    int array_form;
    int has_events;            /* the object form had a "traceEvents" member */
    vp_span key;               /* current top-level key (raw), valid in ST_OBJ_VALUE */
    vp_buf key_buf;

    vp_buf name_buf, cat_buf;
    vp_buf meta_text;          /* "{"k":v,..." of the top-level members */
    cJSON *meta;
    vp_trace_stats stats;
    vp_error failure;          /* repeated on every call after a failure */

    int progress_on;
    struct timespec progress_last;
    int hta_times;             /* VPROF_HTA_TIMES=1: times as HTA rounds them (hta_quantise) */
};

int vp_trace_prepass = 1;

static uint64_t off_of(const vp_trace *t, const char *q)
{
    if (t->in_carry)
        return t->carry_offset + (uint64_t)(q - t->carry.data);
    return t->chunk.offset + (uint64_t)(q - t->chunk.data);
}

static void progress_draw(vp_trace *t, int final)
{
    if (!t->progress_on)
        return;
    if (final) {
        fputs("\r\033[K", stderr);
        return;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = (double)(now.tv_sec - t->progress_last.tv_sec) +
                (double)(now.tv_nsec - t->progress_last.tv_nsec) / 1e9;
    if (dt < 0.2)
        return;
    t->progress_last = now;
    uint64_t pos = vp_source_input_pos(t->src), size = vp_source_input_size(t->src);
    int pct = size ? (int)(100.0 * (double)pos / (double)size) : 0;
    if (pct > 100)
        pct = 100;
    char bar[31];
    int fill = pct * 30 / 100;
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    fprintf(stderr, "\r%s [%s] %3d%% %llu events", t->path, bar, pct,
            (unsigned long long)t->stats.events);
}

/* The facts of a chunk without any: the terminator alone. */
static const vp_json_fact no_facts = {UINT32_MAX, 0};

/* On the source thread, each chunk: its skip facts into aux. */
static void facts_hook(void *ctx, const char *data, size_t len, vp_buf *aux)
{
    vp_json_facts_scan(ctx, data, len, aux);
}

/* The end of the member value at p ('{' or '[') when a fact knows it. */
static inline const char *known_end(vp_trace *t, const char *p)
{
    if (t->in_carry)
        return NULL;
    uint32_t off = (uint32_t)(p - t->chunk.data);
    const vp_json_fact *f = t->fact;
    while (f->off < off)
        f++;
    t->fact = f;
    return f->off == off ? p + f->len : NULL;
}

/* Takes the next chunk from the source: 1, or 0 at the end, or -1. */
static int fetch_chunk(vp_trace *t, vp_error *err)
{
    if (t->src_ended)
        return 0;
    int r = vp_source_next(t->src, &t->chunk, err);
    if (r == 1) {
        t->chunk_used = 0;
        t->fact = t->chunk.aux ? t->chunk.aux : &no_facts;
        progress_draw(t, 0);
        return 1;
    }
    if (r < 0 && t->opts.partial && vp_source_truncated(t->src)) {
        /* --partial: what was inflated before the cut is used; the note
         * about how much comes with the end of the trace. */
        vp_warn("%s", err->msg);
        err->status = 0;
        err->msg[0] = 0;
        t->stats.truncated = 1;
        r = 0;
    } else if (r < 0 && vp_source_truncated(t->src)) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, " (a truncated file? events read: %llu%s)",
                 (unsigned long long)t->stats.events, vp_diag_hint(VP_HINT_PARTIAL_RETRY));
    }
    if (r == 0) {
        t->src_ended = 1;
        t->chunk.data = NULL;
        t->chunk.len = 0;
    }
    return r;
}

/* The element starting at s did not fit in the window: extend the window
 * (carry mode) and restart it at s.  1 = more is there, 0 = the input has
 * ended, -1 = error. */
static int need_more(vp_trace *t, const char *s, vp_error *err)
{
    if (!t->in_carry) {
        if (s == t->end) {
            /* A clean cut at the end of the chunk: no carry needed. */
            uint64_t off = off_of(t, s);
            int r = fetch_chunk(t, err);
            if (r == 1) {
                t->p = t->chunk.data;
                t->end = t->chunk.data + t->chunk.len;
            } else {
                /* Stand on an empty carry so that offsets stay right. */
                t->in_carry = 1;
                t->carry.len = 0;
                vp_buf_reserve(&t->carry, 1);
                t->carry_offset = off;
                t->p = t->end = t->carry.data;
            }
            return r;
        }
        uint64_t off = off_of(t, s);
        t->carry.len = 0;
        vp_buf_append(&t->carry, s, (size_t)(t->end - s));
        t->carry_offset = off;
        t->in_carry = 1;
        t->carry_tail = t->carry.len;
        t->tail_chunk_start = t->chunk.len;
        t->chunk_used = t->chunk.len;
    } else {
        size_t drop = (size_t)(s - t->carry.data);
        memmove(t->carry.data, s, t->carry.len - drop);
        t->carry.len -= drop;
        t->carry_offset += drop;
        if (drop <= t->carry_tail) {
            t->carry_tail -= drop;
        } else {
            t->tail_chunk_start += drop - t->carry_tail;
            t->carry_tail = 0;
        }
    }
    if (t->carry.len > VP_TRACE_MAX_ELEMENT) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: byte %llu: an element of the trace is larger than %u MiB; vprof "
                     "refuses it rather than hold it in memory",
                     t->path, (unsigned long long)t->carry_offset, VP_TRACE_MAX_ELEMENT >> 20);
        return -1;
    }
    if (t->chunk_used == t->chunk.len) {
        int r = fetch_chunk(t, err);
        if (r != 1) {
            t->p = t->carry.data;
            t->end = t->carry.data + t->carry.len;
            return r;
        }
        t->carry_tail = t->carry.len;
        t->tail_chunk_start = 0;
    }
    size_t n = t->chunk.len - t->chunk_used;
    size_t want = t->carry.len > CARRY_STEP ? t->carry.len : CARRY_STEP;
    if (n > want)
        n = want;
    vp_buf_append(&t->carry, t->chunk.data + t->chunk_used, n);
    t->chunk_used += n;
    t->p = t->carry.data;
    t->end = t->carry.data + t->carry.len;
    return 1;
}

/* An element ended at q: continue there, back on the chunk if possible. */
static void settle(vp_trace *t, const char *q)
{
    if (t->in_carry) {
        size_t i = (size_t)(q - t->carry.data);
        if (i >= t->carry_tail) {
            t->in_carry = 0;
            t->p = t->chunk.data + t->tail_chunk_start + (i - t->carry_tail);
            t->end = t->chunk.data + t->chunk.len;
            return;
        }
    }
    t->p = q;
}

static int input_error(vp_trace *t, vp_error *err, uint64_t off, const char *what)
{
    uint64_t line, col;
    char where[160];
    if (vp_source_locate(t->file, off, &line, &col) == 0)
        snprintf(where, sizeof where, " (line %llu, column %llu)", (unsigned long long)line,
                 (unsigned long long)col);
    else
        where[0] = 0;
    if (vp_source_is_gzip(t->src))
        vp_error_set(err, VP_EXIT_INPUT, "%s: uncompressed byte %llu%s, compressed byte %llu: %s",
                     t->path, (unsigned long long)off, where,
                     (unsigned long long)t->chunk.comp_offset, what);
    else
        vp_error_set(err, VP_EXIT_INPUT, "%s: byte %llu%s: %s", t->path, (unsigned long long)off,
                     where, what);
    return -1;
}

enum { KEY_OTHER, KEY_PH, KEY_NAME, KEY_CAT, KEY_TS, KEY_DUR, KEY_ARGS, KEY_PID, KEY_TID, KEY_ID };


/* The name of a member that must hold a string, for messages: the key
 * as written, as common_key and fast_key match names exactly (so the
 * loop keeps no key). */
static const char *key_name(int which)
{
    return which == KEY_PH ? "ph" : which == KEY_NAME ? "name" : "cat";
}

/* Which common member a raw key names, by its length and first byte, then
 * the rest byte by byte: about 6 instructions a key (a compare per
 * candidate name cost more, so did a switch over the key as one word). */
static inline int common_key(vp_span k)
{
    const char *s = k.p;
    switch (k.n) {
    case 2:
        if (s[0] == 'p')
            return s[1] == 'h' ? KEY_PH : KEY_OTHER;
        if (s[0] == 't')
            return s[1] == 's' ? KEY_TS : KEY_OTHER;
        if (s[0] == 'i')
            return s[1] == 'd' ? KEY_ID : KEY_OTHER;
        return KEY_OTHER;
    case 3:
        if (s[1] == 'i' && s[2] == 'd')
            return s[0] == 'p' ? KEY_PID : s[0] == 't' ? KEY_TID : KEY_OTHER;
        if (s[0] == 'c')
            return s[1] == 'a' && s[2] == 't' ? KEY_CAT : KEY_OTHER;
        if (s[0] == 'd')
            return s[1] == 'u' && s[2] == 'r' ? KEY_DUR : KEY_OTHER;
        return KEY_OTHER;
    case 4:
        if (s[0] == 'n')
            return memcmp(s, "name", 4) == 0 ? KEY_NAME : KEY_OTHER;
        if (s[0] == 'a')
            return memcmp(s, "args", 4) == 0 ? KEY_ARGS : KEY_OTHER;
        return KEY_OTHER;
    }
    return KEY_OTHER;
}

/* The common members' names as Kineto writes them, quotes and colon
 * included ("ph":), by the low five bits of the name's first byte (p,
 * t, i, c, d, n and a differ there; p and t hold two names each): one
 * compare of eight bytes a member instead of a string scan, a ':' test
 * and common_key.  What does not match (other names, a space before the
 * colon, an escape, fewer than eight bytes left) goes the general way,
 * which gives these the same answer. */
typedef struct key_pat {
    uint64_t pat, mask;
    unsigned len;    /* bytes up to and with the colon */
    int which;
} key_pat;

static key_pat key_pats[32][2];

__attribute__((constructor)) static void build_key_pats(void)
{
    static const struct {
        const char *name;
        int which;
    } keys[] = {{"ph", KEY_PH},   {"pid", KEY_PID}, {"ts", KEY_TS},     {"tid", KEY_TID},
                {"id", KEY_ID},   {"cat", KEY_CAT}, {"dur", KEY_DUR},   {"name", KEY_NAME},
                {"args", KEY_ARGS}};
    for (size_t i = 0; i < 32; i++)
        for (size_t j = 0; j < 2; j++)
            key_pats[i][j] = (key_pat){.pat = 1, .mask = 0};   /* matches nothing */
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char text[8] = {0};
        size_t n = strlen(keys[i].name);
        text[0] = '"';
        memcpy(text + 1, keys[i].name, n);
        text[n + 1] = '"';
        text[n + 2] = ':';
        key_pat k = {.len = (unsigned)n + 3, .which = keys[i].which};
        memcpy(&k.pat, text, 8);
        k.mask = k.len == 8 ? ~0ULL : (1ULL << (8 * k.len)) - 1;
        key_pat *slot = key_pats[(unsigned char)keys[i].name[0] & 0x1f];
        slot[slot[0].len ? 1 : 0] = k;
    }
}

/* The member at p (its opening quote) when it is one of those: which
 * one, with *len the bytes to its value's side of the colon; else -1. */
static inline int fast_key(const char *p, unsigned *len)
{
    uint64_t w;
    memcpy(&w, p, 8);
    const key_pat *e = key_pats[(w >> 8) & 0x1f];
    if ((w & e[0].mask) == e[0].pat) {
        *len = e[0].len;
        return e[0].which;
    }
    if ((w & e[1].mask) == e[1].pat) {
        *len = e[1].len;
        return e[1].which;
    }
    return -1;
}

/* ts and dur: Kineto's forms inline, the rest out of line, so that the
 * common case saves no registers. */
static __attribute__((noinline)) int time_field_general(const char **pp, const char *end,
                                                        const char *key, int64_t *out,
                                                        vp_json_fail *fail)
{
    if (vp_json_us_to_ns_at_general(pp, end, out))
        return VP_JSON_OK;
    vp_span v;
    const char *at = *pp;
    int r = vp_json_skip(pp, end, 2, &v, fail);
    if (r != VP_JSON_OK)
        return r;
    if (vp_json_us_to_ns(v, out) != 0) {
        fail->where = at;
        snprintf(fail->what, sizeof fail->what,
                 "expected a number of microseconds for \"%s\", found %.*s%s", key,
                 v.n > 40 ? 40 : (int)v.n, v.p, v.n > 40 ? "..." : "");
        return VP_JSON_ERR;
    }
    return VP_JSON_OK;
}

static inline int time_field(const char **pp, const char *end, const char *key, int64_t *out,
                             vp_json_fail *fail)
{
    if (vp_json_us_to_ns_short(pp, end, out))
        return VP_JSON_OK;
    /* Through a copy (as vp_json_skip and vp_json_string): parse_event's
     * own cursor is then an address no call takes, and stays in a
     * register instead of being stored and loaded again at every step of
     * every member. */
    const char *p = *pp;
    int r = time_field_general(&p, end, key, out, fail);
    *pp = p;
    return r;
}

/* Kineto's pretty layout, ",\n    \"" between an event's members and
 * "{\n    \"" opening it: seven bytes, the low ones of a little-endian
 * load (pretty_at). */
#define PRETTY_SEPARATOR                                                                          \
    ((uint64_t)',' | (uint64_t)'\n' << 8 | (uint64_t)0x20202020 << 16 | (uint64_t)'"' << 48)
#define PRETTY_OPENING (PRETTY_SEPARATOR - ',' + '{')
/* ",\n  {" between events: the four bytes after the ',' */
#define PRETTY_EVENT_GAP ((uint32_t)'\n' | (uint32_t)' ' << 8 | (uint32_t)' ' << 16 | (uint32_t)'{' << 24)

static inline int pretty_at(const char *p, const char *end, uint64_t seven)
{
    return end - p >= 8 && (vp_json_load64(p) & 0xFFFFFFFFFFFFFFULL) == seven;
}

/* Parses the event object at *pp ('{'). Members other than the common
 * ones are skipped structurally; keys are compared raw (Kineto never
 * escapes them, and an escaped key is simply not a common field). */
static int parse_event(vp_trace *t, const char **pp, const char *end, vp_event *ev,
                       unsigned *nflags, unsigned *cflags, vp_json_fail *fail)
{
    const char *p = *pp;
    const char *start = p;
    int r;
    /* Field by field, but for raw and offset, which every event gets
     * (done: and take_event): a memset of the struct compiles to a string
     * store of 19 words, the cost of parsing two members. */
    ev->ph = 0;
    ev->name = ev->cat = ev->pid = ev->tid = ev->id = ev->args = (vp_span){0};
    ev->ts = ev->dur = 0;
    ev->has_ts = ev->has_dur = 0;
    *nflags = *cflags = 0;
    /* Kineto's pretty layout opens an event with "{\n    \"" */
    if (pretty_at(p, end, PRETTY_OPENING))
        p += 6;
    else
        p = vp_json_ws(p + 1, end);
    if (p == end)
        return VP_JSON_MORE;
    if (*p == '}') {
        p++;
        goto done;
    }
    for (;;) {
        vp_span v;
        unsigned klen;
        int which;
        /* Nine bytes: the member's value side of the colon (and a space)
         * is then inside the window, with no test. */
        if (end - p >= 9 && (which = fast_key(p, &klen)) >= 0) {
            p += klen;
            p += *p == ' ';   /* within the eight bytes: klen is at most 7 */
            if ((unsigned char)*p <= ' ') {
                p = vp_json_ws(p, end);
                if (p == end)
                    return VP_JSON_MORE;
            }
        } else {
            if (*p != '"')
                return vp_json_fail_at(fail, p, end, "a member name (a string) in an event");
            vp_span k;
            unsigned kf;
            if ((r = vp_json_member(&p, end, &k, &kf, fail)) != VP_JSON_OK)
                return r;
            which = common_key(k);
            p = vp_json_ws(p, end);
            if (p == end)
                return VP_JSON_MORE;
        }
        switch (which) {
        case KEY_PH:
            /* "X": one byte that neither ends nor escapes the string */
            if (end - p >= 3 && p[0] == '"' && p[2] == '"' && p[1] != '"' && p[1] != '\\') {
                ev->ph = p[1];
                p += 3;
                break;
            }
            /* fall through */
        case KEY_NAME:
        case KEY_CAT:
            if (*p != '"') {
                if (*p == 'n' && which == KEY_CAT) {  /* "cat": null */
                    if ((r = vp_json_skip(&p, end, 2, &v, fail)) != VP_JSON_OK)
                        return r;
                } else {
                    char what[48];
                    snprintf(what, sizeof what, "a string for \"%s\"", key_name(which));
                    return vp_json_fail_at(fail, p, end, what);
                }
            } else {
                unsigned fl;
                if ((r = vp_json_string(&p, end, &v, &fl, fail)) != VP_JSON_OK)
                    return r;
                if (which == KEY_PH) {
                    ev->ph = v.n ? v.p[0] : 0;
                } else if (which == KEY_NAME) {
                    ev->name = v;
                    *nflags = fl;
                } else {
                    ev->cat = v;
                    *cflags = fl;
                }
            }
            break;
        case KEY_TS:
            if ((r = time_field(&p, end, "ts", &ev->ts, fail)) != VP_JSON_OK)
                return r;
            ev->has_ts = 1;
            break;
        case KEY_DUR:
            if ((r = time_field(&p, end, "dur", &ev->dur, fail)) != VP_JSON_OK)
                return r;
            ev->has_dur = 1;
            break;
        default: {
            /* pid, tid and ids are mostly numbers: skipped without a call;
             * args mostly by a fact (see the top) */
            const char *known;
            if ((unsigned)(*p - '0') < 10 || *p == '-') {
                r = vp_json_skip_number(&p, end, &v);
            } else if ((*p == '{' || *p == '[') && (known = known_end(t, p))) {
                v.p = p;
                v.n = (size_t)(known - p);
                p = known;
                r = VP_JSON_OK;
                t->stats.known_skips++;
            } else {
                r = vp_json_skip(&p, end, 2, &v, fail);
            }
            if (r != VP_JSON_OK)
                return r;
            if (which == KEY_ARGS)
                ev->args = v;
            else if (which == KEY_PID)
                ev->pid = v;
            else if (which == KEY_TID)
                ev->tid = v;
            else if (which == KEY_ID)
                ev->id = v;
        }
        }
        /* ", " and the next member's quote: the common separator at once,
         * three bytes of one load compared */
        if (end - p >= 4 && (vp_json_load32(p) & 0xFFFFFF) == (',' | ' ' << 8 | '"' << 16)) {
            p += 2;
            continue;
        }
        /* and Kineto's line break in an event, ",\n    \"": seven bytes */
        if (pretty_at(p, end, PRETTY_SEPARATOR)) {
            p += 6;
            continue;
        }
        p = vp_json_ws(p, end);
        if (p == end)
            return VP_JSON_MORE;
        if (*p == ',') {
            p = vp_json_ws(p + 1, end);
            if (p == end)
                return VP_JSON_MORE;
            continue;
        }
        if (*p == '}') {
            p++;
            break;
        }
        return vp_json_fail_at(fail, p, end, "',' or '}' after an event member");
    }
done:
    ev->raw.p = start;
    ev->raw.n = (size_t)(p - start);
    *pp = p;
    return VP_JSON_OK;
}

static void decode_text(vp_trace *t, vp_span *s, unsigned flags, vp_buf *buf)
{
    if (!flags)
        return;
    t->stats.bad_utf8 += vp_json_unescape(*s, buf);
    s->p = buf->data;
    s->n = buf->len;
}

/* VPROF_HTA_TIMES=1 (vprof/htatime.h): the times HTA computes with, each
 * start rounded up and each end rounded down to the microsecond, so that
 * an event shorter than a microsecond may end before it starts (HTA keeps
 * those with a duration of -1 us).  Events without dur keep their start
 * rounded up (HTA drops them; vprof reads steps and counters from some). */
static void hta_quantise(vp_event *ev)
{
    int64_t start, end;
    vp_hta_round(ev->ts, ev->has_dur ? ev->dur : 0, &start, &end);
    ev->ts = start * 1000;
    if (ev->has_dur)
        ev->dur = (end - start) * 1000;
}

/* The event at *pp ('{'), its offset and its decoded name and category. */
static int take_event(vp_trace *t, const char **pp, const char *end, vp_event *ev,
                      vp_json_fail *fail)
{
    unsigned nf, cf;
    int r = parse_event(t, pp, end, ev, &nf, &cf, fail);
    if (r != VP_JSON_OK)
        return r;
    ev->offset = off_of(t, ev->raw.p);
    if (t->hta_times && ev->has_ts)
        hta_quantise(ev);
    decode_text(t, &ev->name, nf, &t->name_buf);
    decode_text(t, &ev->cat, cf, &t->cat_buf);
    return VP_JSON_OK;
}

/* A top-level member other than traceEvents: parsed on its own, so that a
 * value the structural scan let through but JSON does not (a bare word)
 * drops that member alone, and vp_trace_meta's object is the same whenever
 * it is asked for.  The text is kept too, for exact integers. */
static void keep_meta(vp_trace *t, vp_span key, vp_span val)
{
    if (val.n > VP_TRACE_MAX_META)
        return;
    vp_buf one = {0};
    vp_buf_append(&one, "{\"", 2);
    vp_buf_append(&one, key.p, key.n);
    vp_buf_append(&one, "\":", 2);
    vp_buf_append(&one, val.p, val.n);
    vp_buf_putc(&one, '}');
    cJSON *o = cJSON_ParseWithLength(one.data, one.len);
    if (o && o->child) {
        if (!t->meta)
            t->meta = cJSON_CreateObject();
        cJSON *item = cJSON_DetachItemViaPointer(o, o->child);
        cJSON_AddItemToObject(t->meta, item->string, item);
        vp_buf_putc(&t->meta_text, t->meta_text.len ? ',' : '{');
        vp_buf_append(&t->meta_text, one.data + 1, one.len - 2);
    } else {
        t->stats.bad_meta++;
    }
    cJSON_Delete(o);
    vp_buf_free(&one);
}

/* One step of the top-level machine from t->p. Sets *q to where the
 * element ended. */
static int step(vp_trace *t, vp_event *ev, const char **q, int *produced, vp_json_fail *fail)
{
    const char *p = vp_json_ws(t->p, t->end), *end = t->end;
    const char *comma = NULL;   /* ST_ARR_NEXT: the ',' before the event taken with it */
    uint64_t known = 0;
    int r;
    *produced = STEP_NONE;
    if (p == end)
        return VP_JSON_MORE;
    switch (t->st) {
    case ST_START:
        if (t->stats.bytes == 0 && (unsigned char)*p == 0xEF && end - p < 3 && !t->src_ended)
            return VP_JSON_MORE;  /* a byte order mark the chunk boundary cut (found by fuzz_trace) */
        if (t->stats.bytes == 0 && end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
            p = vp_json_ws(p + 3, end);  /* a UTF-8 byte order mark */
        if (p == end)
            return VP_JSON_MORE;
        if (*p == '{') {
            t->st = ST_OBJ_FIRST_KEY;
        } else if (*p == '[') {
            t->array_form = 1;
            t->st = ST_ARR_FIRST;
        } else if (*p == 'v' && t->stats.bytes == 0 && p == t->p) {
            /* A Git LFS pointer checked out in place of the file: what a
             * clone without git-lfs leaves for every large file. */
            static const char lfs[] = "version https://git-lfs.github.com/spec/";
            size_t have = (size_t)(end - p), n = sizeof lfs - 1;
            if (have < n && !t->src_ended && memcmp(p, lfs, have) == 0)
                return VP_JSON_MORE;
            if (have >= n && memcmp(p, lfs, n) == 0) {
                snprintf(fail->what, sizeof fail->what,
                         "a Git LFS pointer, not the file: run git lfs pull");
                fail->where = p;
                return VP_JSON_ERR;
            }
            return vp_json_fail_at(fail, p, end, "a trace: '{' (object form) or '[' (array form)");
        } else if ((unsigned char)*p == 0x80 && end - p >= 2 && p[1] >= 2 && p[1] <= 5) {
            /* a pickle's PROTO opcode: what torch.cuda.memory._dump_snapshot writes */
            snprintf(fail->what, sizeof fail->what,
                     "this is a CUDA memory snapshot (a Python pickle), not a trace%s",
                     vp_diag_hint(VP_HINT_MEMORY_SNAPSHOT));
            fail->where = p;
            return VP_JSON_ERR;
        } else {
            return vp_json_fail_at(fail, p, end, "a trace: '{' (object form) or '[' (array form)");
        }
        p++;
        break;
    case ST_OBJ_FIRST_KEY:
    case ST_OBJ_KEY: {
        if (t->st == ST_OBJ_FIRST_KEY && *p == '}') {
            t->st = ST_END;
            p++;
            break;
        }
        if (*p != '"')
            return vp_json_fail_at(fail, p, end, "a top-level member name (a string)");
        vp_span k;
        unsigned fl;
        if ((r = vp_json_member(&p, end, &k, &fl, fail)) != VP_JSON_OK)
            return r;
        if (vp_json_str_eq(k, "traceEvents")) {
            t->has_events = 1;
            t->st = ST_EVENTS_OPEN;
        } else {
            t->key_buf.len = 0;
            vp_buf_append(&t->key_buf, k.p, k.n);
            t->st = ST_OBJ_VALUE;
        }
        break;
    }
    case ST_OBJ_VALUE: {
        vp_span v;
        if ((r = vp_json_skip(&p, end, 1, &v, fail)) != VP_JSON_OK)
            return r;
        vp_span k = {t->key_buf.data, t->key_buf.len};
        keep_meta(t, k, v);
        t->st = ST_OBJ_NEXT;
        break;
    }
    case ST_EVENTS_OPEN:
        if (*p != '[')
            return vp_json_fail_at(fail, p, end, "'[' to open the \"traceEvents\" array");
        p++;
        t->st = ST_ARR_FIRST;
        break;
    case ST_OBJ_NEXT:
        if (*p == ',') {
            t->st = ST_OBJ_KEY;
        } else if (*p == '}') {
            t->st = ST_END;
        } else {
            return vp_json_fail_at(fail, p, end, "',' or '}' after a top-level member");
        }
        p++;
        break;
    case ST_ARR_FIRST:
    case ST_ARR_ELEM:
        if (*p == ']') {
            /* "[]", or a trailing comma "[...,]": the viewer accepts both. */
            p++;
            t->st = t->array_form ? ST_END : ST_OBJ_NEXT;
            break;
        }
        if (*p != '{')
            return vp_json_fail_at(fail, p, end, "an event object '{'");
    event:
        if ((r = take_event(t, &p, end, ev, fail)) != VP_JSON_OK) {
            if (!comma)
                return r;
            /* Cut by the window, or an error: the ',' alone, as its own
             * step, and the next step parses the event as ever. */
            t->stats.known_skips = known;
            fail->where = NULL;
            fail->what[0] = 0;
            t->st = ST_ARR_ELEM;
            *q = comma + 1;
            return VP_JSON_OK;
        }
        *produced = STEP_EVENT;
        t->st = ST_ARR_NEXT;
        break;
    case ST_ARR_NEXT:
        if (*p == ',') {
            /* The next event in the same step when it starts in the
             * window: a step less an event.  Kineto puts ",\n  {"
             * between events: one load instead of a whitespace scan. */
            const char *e = end - p >= 5 && vp_json_load32(p + 1) == PRETTY_EVENT_GAP
                                ? p + 4
                                : vp_json_ws(p + 1, end);
            if (e < end && *e == '{') {
                comma = p;
                known = t->stats.known_skips;
                p = e;
                goto event;
            }
            t->st = ST_ARR_ELEM;
        } else if (*p == ']') {
            t->st = t->array_form ? ST_END : ST_OBJ_NEXT;
        } else {
            return vp_json_fail_at(fail, p, end, "',' or ']' after an event");
        }
        p++;
        break;
    case ST_END:
        return vp_json_fail_at(fail, p, end, "the end of the input after the trace");
    case ST_DONE:
    case ST_FAILED:
        break;
    }
    *q = p;
    return VP_JSON_OK;
}

/* The input ended at t->p (nothing but the unfinished element after it). */
static int at_end_of_input(vp_trace *t, vp_error *err)
{
    const char *rest = vp_json_ws(t->p, t->end);
    int clean = rest == t->end;   /* no element was cut */
    uint64_t off = off_of(t, t->p);
    const char *what = NULL;
    char msg[512];

    if (t->st == ST_END && clean && !t->array_form && !t->has_events) {
        /* valid JSON, but {"traceEvents": [...]} is what a trace is */
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: not a Chrome trace: a JSON object without \"traceEvents\" (a trace is "
                     "{\"traceEvents\": [...]} or an array of events)",
                     t->path);
        return -1;
    }
    if (t->st == ST_END && clean)
        return 0;
    if (t->st == ST_START && clean) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: empty input: expected a trace ('{' or '[')",
                     t->path);
        return -1;
    }
    int in_events = t->st == ST_ARR_FIRST || t->st == ST_ARR_ELEM || t->st == ST_ARR_NEXT;
    if (clean && in_events && t->array_form)
        return 0;  /* the viewer's repair: an unterminated array is complete */
    char inside[96];
    if (!clean && in_events && t->st != ST_ARR_NEXT) {
        snprintf(inside, sizeof inside, "the input ends at byte %llu, inside the event that starts here",
                 (unsigned long long)off_of(t, t->end));
        what = inside;
    }
    else if (in_events)
        what = "the input ends inside \"traceEvents\" (no closing ']')";
    else
        what = "the input ends before the end of the trace (no closing '}')";
    uint64_t at = clean ? off : off_of(t, rest);
    if (t->opts.partial) {
        vp_warn("%s: byte %llu: %s; %susing the %llu events before it", t->path,
                (unsigned long long)at, what, vp_diag_hint(VP_HINT_PARTIAL_USED),
                (unsigned long long)t->stats.events);
        t->stats.truncated = 1;
        return 0;
    }
    snprintf(msg, sizeof msg,
             "%s (a truncated file? events read: %llu%s)", what,
             (unsigned long long)t->stats.events, vp_diag_hint(VP_HINT_PARTIAL_RETRY));
    return input_error(t, err, at, msg);
}

int vp_trace_next(vp_trace *t, vp_event *ev, vp_error *err)
{
    if (t->st == ST_DONE)
        return 0;
    if (t->st == ST_FAILED) {
        *err = t->failure;
        return -1;
    }
    for (;;) {
        const char *q = NULL;
        int produced;
        vp_json_fail fail;   /* not zeroed: 168 bytes a call; an error fills it */
        fail.where = NULL;
        fail.what[0] = 0;
        int r = step(t, ev, &q, &produced, &fail);
        if (r == VP_JSON_OK) {
            settle(t, q);
            t->stats.bytes = off_of(t, t->p);
            if (produced == STEP_EVENT) {
                t->stats.events++;
                return 1;
            }
            continue;
        }
        if (r == VP_JSON_ERR) {
            input_error(t, err, off_of(t, fail.where), fail.what);
            goto failed;
        }
        int m = need_more(t, t->p, err);
        if (m == 1)
            continue;
        if (m < 0)
            goto failed;
        if (at_end_of_input(t, err) != 0)
            goto failed;
        if (!t->stats.truncated)
            t->stats.bytes = off_of(t, t->end);  /* the whitespace after the trace too */
        t->st = ST_DONE;
        progress_draw(t, 1);
        if (t->stats.bad_meta)
            vp_warn("%s: %llu top-level member(s) outside \"traceEvents\" are not valid JSON and "
                    "were ignored", t->path, (unsigned long long)t->stats.bad_meta);
        return 0;
    }
failed:
    progress_draw(t, 1);
    t->failure = *err;
    t->st = ST_FAILED;
    return -1;
}

vp_trace *vp_trace_open(const char *path, const vp_trace_opts *opts, vp_error *err)
{
    /* The facts' state is the source thread's alone: its own allocation,
     * away from the parser's fields. */
    vp_json_facts *fc = NULL;
    if (vp_trace_prepass) {
        fc = vp_calloc(1, sizeof *fc);
        if (!vp_json_facts_init(fc, 2)) {
            free(fc);
            fc = NULL;
        }
    }
    vp_source *src = vp_source_open_hooked(path, fc ? facts_hook : NULL, fc, err);
    if (!src) {
        free(fc);
        return NULL;
    }
    vp_trace *t = vp_calloc(1, sizeof *t);
    t->src = src;
    t->facts = fc;
    t->fact = &no_facts;
    t->path = vp_strdup(opts && opts->name ? opts->name : vp_source_name(src));
    t->file = vp_strdup(path);
    if (opts)
        t->opts = *opts;
    t->hta_times = vp_hta_times_asked();
    /* Worth a bar only when reading takes a moment: about 64 MiB of JSON. */
    uint64_t worth = vp_source_is_gzip(src) ? (8u << 20) : (64u << 20);
    t->progress_on = t->opts.progress && !vp_quiet && isatty(STDERR_FILENO) &&
                     vp_source_input_size(src) >= worth;
    clock_gettime(CLOCK_MONOTONIC, &t->progress_last);
    int r = fetch_chunk(t, err);
    if (r < 0) {
        vp_trace_close(t);
        return NULL;
    }
    t->p = t->chunk.data;
    t->end = t->chunk.data ? t->chunk.data + t->chunk.len : NULL;
    t->st = ST_START;
    return t;
}

const cJSON *vp_trace_meta(vp_trace *t)
{
    if (!t->meta)
        t->meta = cJSON_CreateObject();
    return t->meta;
}

int vp_trace_meta_int(vp_trace *t, const char *key, int64_t *out)
{
    if (!t->meta_text.len)
        return 0;
    vp_buf_putc(&t->meta_text, '}');
    vp_span obj = {t->meta_text.data, t->meta_text.len}, v;
    int ok = vp_json_get(obj, key, &v) && vp_json_int(v, out) == 0;
    t->meta_text.len--;
    return ok;
}

const vp_trace_stats *vp_trace_get_stats(const vp_trace *t)
{
    return &t->stats;
}

const char *vp_trace_name(const vp_trace *t)
{
    return t->path;
}

void vp_trace_close(vp_trace *t)
{
    if (!t)
        return;
    vp_source_close(t->src);
    free(t->facts);
    vp_buf_free(&t->carry);
    vp_buf_free(&t->key_buf);
    vp_buf_free(&t->name_buf);
    vp_buf_free(&t->cat_buf);
    vp_buf_free(&t->meta_text);
    cJSON_Delete(t->meta);
    free(t->path);
    free(t->file);
    free(t);
}
