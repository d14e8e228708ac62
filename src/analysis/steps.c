/* Step windows and launch times, joined on correlation ids. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/error.h"
#include "vprof/steps.h"
#include "vprof/util.h"

typedef struct step {
    long number;
    int64_t start, end;   /* ns, end exclusive */
    int selected;
} step;

/* correlation id -> launch time and duration, open addressing; key
 * INT64_MIN = empty. */
typedef struct launch_map {
    int64_t *keys, *ts, *dur;
    size_t cap, count;
} launch_map;

struct vp_steps {
    step *steps;
    size_t n, cap;
    int sorted;
    launch_map launches;
};

#define EMPTY INT64_MIN

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static void launch_put(launch_map *m, int64_t key, int64_t ts, int64_t dur);

static void launch_grow(launch_map *m)
{
    launch_map old = *m;
    m->cap = old.cap ? old.cap * 2 : 1024;
    m->keys = vp_malloc(m->cap * sizeof *m->keys);
    m->ts = vp_malloc(m->cap * sizeof *m->ts);
    m->dur = vp_malloc(m->cap * sizeof *m->dur);
    m->count = 0;
    for (size_t i = 0; i < m->cap; i++)
        m->keys[i] = EMPTY;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i] != EMPTY)
            launch_put(m, old.keys[i], old.ts[i], old.dur[i]);
    free(old.keys);
    free(old.ts);
    free(old.dur);
}

static void launch_put(launch_map *m, int64_t key, int64_t ts, int64_t dur)
{
    if ((m->count + 1) * 4 > m->cap * 3)
        launch_grow(m);
    size_t mask = m->cap - 1, i = mix((uint64_t)key) & mask;
    while (m->keys[i] != EMPTY && m->keys[i] != key)
        i = (i + 1) & mask;
    if (m->keys[i] == EMPTY) {
        m->keys[i] = key;
        m->count++;
        m->ts[i] = ts;
        m->dur[i] = dur;
    } else if (ts < m->ts[i]) {
        m->ts[i] = ts;  /* several CPU events share an id: the first launched it */
        m->dur[i] = dur;
    }
}

static int launch_get(const launch_map *m, int64_t key, int64_t *ts, int64_t *dur)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = mix((uint64_t)key) & mask;
    while (m->keys[i] != EMPTY) {
        if (m->keys[i] == key) {
            *ts = m->ts[i];
            if (dur)
                *dur = m->dur[i];
            return 1;
        }
        i = (i + 1) & mask;
    }
    return 0;
}

static int parse_long(const char *s, const char *end, long *out)
{
    if (s == end)
        return -1;
    char buf[32];
    if (end - s >= (long)sizeof buf)
        return -1;
    memcpy(buf, s, (size_t)(end - s));
    buf[end - s] = 0;
    char *e;
    errno = 0;
    long v = strtol(buf, &e, 10);
    if (*e || errno)
        return -1;
    *out = v;
    return 0;
}

int vp_step_range_parse(const char *spec, vp_step_range *r)
{
    memset(r, 0, sizeof *r);
    const char *colon = strchr(spec, ':');
    const char *end = spec + strlen(spec);
    if (!colon) {
        if (parse_long(spec, end, &r->start) != 0)
            return -1;
        r->has_start = r->single = 1;
        return 0;
    }
    if (strchr(colon + 1, ':'))
        return -1;
    if (colon > spec) {
        if (parse_long(spec, colon, &r->start) != 0)
            return -1;
        r->has_start = 1;
    }
    if (colon + 1 < end) {
        if (parse_long(colon + 1, end, &r->stop) != 0)
            return -1;
        r->has_stop = 1;
    }
    return 0;
}

vp_steps *vp_steps_new(void)
{
    return vp_calloc(1, sizeof(vp_steps));
}

void vp_steps_free(vp_steps *s)
{
    if (!s)
        return;
    free(s->steps);
    free(s->launches.keys);
    free(s->launches.ts);
    free(s->launches.dur);
    free(s);
}

static const char STEP_PREFIX[] = "ProfilerStep#";

void vp_steps_observe(vp_steps *s, const vp_event *ev)
{
    if (ev->ph != 'X' || !ev->has_ts)
        return;
    if (ev->name.n > sizeof STEP_PREFIX - 1 && ev->name.p[0] == 'P' &&
        memcmp(ev->name.p, STEP_PREFIX, sizeof STEP_PREFIX - 1) == 0 &&
        !(ev->cat.n == 19 && memcmp(ev->cat.p, "gpu_user_annotation", 19) == 0)) {
        long number;
        const char *d = ev->name.p + sizeof STEP_PREFIX - 1;
        if (parse_long(d, ev->name.p + ev->name.n, &number) != 0 || number < 0)
            return;
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 64;
            s->steps = vp_realloc(s->steps, s->cap * sizeof *s->steps);
        }
        step *st = &s->steps[s->n++];
        st->number = number;
        st->start = ev->ts;
        st->end = ev->ts + (ev->has_dur ? ev->dur : 0);
        st->selected = 0;
        s->sorted = 0;
        return;
    }
    if (ev->args.p && vp_is_launch_category(ev->cat)) {
        vp_span v;
        int64_t corr;
        if (vp_json_get(ev->args, "correlation", &v) && vp_json_int(v, &corr) == 0 && corr != EMPTY)
            launch_put(&s->launches, corr, ev->ts, ev->has_dur ? ev->dur : 0);
    }
}

static int cmp_step(const void *a, const void *b)
{
    const step *x = a, *y = b;
    if (x->number != y->number)
        return (x->number > y->number) - (x->number < y->number);
    return (x->start > y->start) - (x->start < y->start);
}

/* Sorts by number and merges repeats of one number (a step annotated on
 * several threads) into the window that covers them all. */
static void finish(vp_steps *s)
{
    if (s->sorted)
        return;
    if (s->n > 1)   /* qsort(NULL, 0, ...) is undefined */
        qsort(s->steps, s->n, sizeof *s->steps, cmp_step);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (w && s->steps[w - 1].number == s->steps[i].number) {
            step *prev = &s->steps[w - 1];
            if (s->steps[i].start < prev->start)
                prev->start = s->steps[i].start;
            if (s->steps[i].end > prev->end)
                prev->end = s->steps[i].end;
        } else {
            s->steps[w++] = s->steps[i];
        }
    }
    s->n = w;
    s->sorted = 1;
}

size_t vp_steps_count(vp_steps *s)
{
    finish(s);
    return s->n;
}

long vp_steps_number(vp_steps *s, size_t i)
{
    finish(s);
    return i < s->n ? s->steps[i].number : -1;
}

/* Position of a bound among the steps present (Python slice rules). */
static long position(const vp_steps *s, long bound)
{
    long n = (long)s->n;
    if (bound < 0)
        return n + bound < 0 ? 0 : n + bound;
    long i = 0;
    while (i < n && s->steps[i].number < bound)
        i++;
    return i;
}

size_t vp_steps_select(vp_steps *s, const vp_step_range *r)
{
    finish(s);
    long n = (long)s->n, a = 0, b = n;
    if (r->single) {
        a = position(s, r->start);
        b = a;
        if (a < n && (r->start < 0 || s->steps[a].number == r->start))
            b = a + 1;
    } else {
        if (r->has_start)
            a = position(s, r->start);
        if (r->has_stop)
            b = position(s, r->stop);
    }
    size_t count = 0;
    for (long i = 0; i < n; i++) {
        s->steps[i].selected = i >= a && i < b;
        count += (size_t)s->steps[i].selected;
    }
    return count;
}

long vp_steps_at(const vp_steps *s, int64_t ts)
{
    /* Steps are sorted by number, which is also time order; few enough
     * that a binary search over starts suffices. */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->steps[mid].start <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ts >= s->steps[lo - 1].end)
        return -1;
    return (long)lo - 1;
}

int vp_steps_selected(const vp_steps *s, int64_t correlation)
{
    int64_t ts;
    if (!launch_get(&s->launches, correlation, &ts, NULL))
        return 0;
    long i = vp_steps_at(s, ts);
    return i >= 0 && s->steps[i].selected;
}

int vp_steps_launch(const vp_steps *s, int64_t correlation, int64_t *ts, int64_t *dur)
{
    return launch_get(&s->launches, correlation, ts, dur);
}

int vp_steps_window(vp_steps *s, size_t i, int64_t *start, int64_t *end)
{
    finish(s);
    if (i >= s->n)
        return -1;
    *start = s->steps[i].start;
    *end = s->steps[i].end;
    return s->steps[i].selected;
}

void vp_steps_warn_none(vp_steps *s, size_t chosen, const char *name, const char *no_steps_kept,
                        const char *none_selected_kept)
{
    size_t n = vp_steps_count(s);
    const char *range = vp_diag_hint_or(VP_HINT_STEPS, "the step range");
    if (n == 0)
        vp_warn("%s: %s: the trace has no ProfilerStep#N annotations%s", name, range,
                no_steps_kept);
    else if (chosen == 0)
        vp_warn("%s: %s selects none of the steps present (ProfilerStep#%ld to #%ld)%s", name,
                range, vp_steps_number(s, 0), vp_steps_number(s, n - 1), none_selected_kept);
}
