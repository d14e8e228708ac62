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

/* correlation id -> launch time and duration.  A trace has a launch per
 * kernel (millions), so this is not a hash map: launches are appended as
 * read (sequential writes, 24 bytes each, no rehashing), sorted by id once
 * at the first lookup, and found by galloping from the previous hit.
 * CUPTI hands out correlation ids in launch order and both the CPU calls
 * and the GPU work come roughly in time order, so the sort is mostly a
 * check and a lookup usually lands next to the last one: memory is read
 * in order instead of one cache miss per launch (perf: 21 % of `vprof
 * comm` on the real-shaped trace was the hash map's probes). */
typedef struct launch_slot {
    int64_t key, ts, dur;
} launch_slot;

typedef struct launch_log {
    launch_slot *v;
    size_t n, cap;
    int sorted;       /* ascending ids, one slot each */
    size_t finger;    /* the last hit: where the next search starts */
} launch_log;

struct vp_steps {
    step *steps;
    size_t n, cap;
    int sorted;
    launch_log launches;
};

#define EMPTY INT64_MIN

static void launch_put(launch_log *m, int64_t key, int64_t ts, int64_t dur)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 1024;
        m->v = vp_realloc(m->v, m->cap * sizeof *m->v);
    }
    if (m->n && key <= m->v[m->n - 1].key)
        m->sorted = 0;
    else if (!m->n)
        m->sorted = 1;
    m->v[m->n++] = (launch_slot){key, ts, dur};
}

/* Stable merge sort by id (bottom-up, runs of w doubling): stable so that
 * of several calls with one id and one start, the first read wins, as it
 * did when the map kept the first. */
static void launch_sort(launch_log *m)
{
    launch_slot *a = m->v, *t = vp_malloc(m->cap * sizeof *t);  /* cap: either may become m->v */
    for (size_t w = 1; w < m->n; w *= 2) {
        for (size_t lo = 0; lo < m->n; lo += 2 * w) {
            size_t mid = lo + w < m->n ? lo + w : m->n, hi = lo + 2 * w < m->n ? lo + 2 * w : m->n;
            size_t i = lo, j = mid, k = lo;
            if (mid == hi || a[mid - 1].key <= a[mid].key) {
                memcpy(t + lo, a + lo, (hi - lo) * sizeof *a);
                continue;
            }
            while (i < mid && j < hi)
                t[k++] = a[j].key < a[i].key ? a[j++] : a[i++];
            while (i < mid)
                t[k++] = a[i++];
            while (j < hi)
                t[k++] = a[j++];
        }
        launch_slot *x = a;
        a = t;
        t = x;
    }
    if (a != m->v) {
        free(m->v);
        m->v = a;
    } else {
        free(t);
    }
}

/* Sorted, one slot per id: several CPU events share an id, and the first
 * to start launched it. */
static void launch_prepare(launch_log *m)
{
    if (!m->sorted && m->n) {
        launch_sort(m);
        size_t out = 0;
        for (size_t i = 0; i < m->n; i++) {
            if (out && m->v[out - 1].key == m->v[i].key) {
                if (m->v[i].ts < m->v[out - 1].ts)
                    m->v[out - 1] = m->v[i];
                continue;
            }
            m->v[out++] = m->v[i];
        }
        m->n = out;
    }
    m->sorted = 1;
    m->finger = 0;
}

/* The first slot with an id >= key in [lo, hi), galloping from lo. */
static size_t gallop_up(const launch_slot *v, size_t lo, size_t hi, int64_t key)
{
    size_t stride = 1, prev = lo;
    while (lo < hi && v[lo].key < key) {
        prev = lo + 1;
        lo = hi - lo > stride ? lo + stride : hi;
        stride *= 2;
    }
    /* answer in [prev, lo] */
    while (prev < lo) {
        size_t mid = prev + (lo - prev) / 2;
        if (v[mid].key < key)
            prev = mid + 1;
        else
            lo = mid;
    }
    return lo;
}

static int launch_get(launch_log *m, int64_t key, int64_t *ts, int64_t *dur)
{
    if (!m->sorted)
        launch_prepare(m);
    if (!m->n)
        return 0;
    size_t f = m->finger, i;
    if (m->v[f].key <= key) {
        i = gallop_up(m->v, f, m->n, key);
    } else {
        /* behind the finger: gallop down to a slot below key, then up */
        size_t stride = 1, lo = f;
        while (lo > 0 && m->v[lo].key > key) {
            lo = lo > stride ? lo - stride : 0;
            stride *= 2;
        }
        i = gallop_up(m->v, lo, f, key);
    }
    if (i == m->n || m->v[i].key != key)
        return 0;
    m->finger = i;
    *ts = m->v[i].ts;
    if (dur)
        *dur = m->v[i].dur;
    return 1;
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
    free(s->launches.v);
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
/* Where bound falls among the ascending numbers v[0..n): a negative one
 * counts from the end. */
static long position(const long *v, long n, long bound)
{
    if (bound < 0)
        return n + bound < 0 ? 0 : n + bound;
    long i = 0;
    while (i < n && v[i] < bound)
        i++;
    return i;
}

void vp_step_range_slice(const vp_step_range *r, const long *v, size_t nv, size_t *from,
                         size_t *to)
{
    long n = (long)nv, a = 0, b = n;
    if (r->single) {
        a = position(v, n, r->start);
        b = a;
        if (a < n && (r->start < 0 || v[a] == r->start))
            b = a + 1;
    } else {
        if (r->has_start)
            a = position(v, n, r->start);
        if (r->has_stop)
            b = position(v, n, r->stop);
    }
    *from = (size_t)a;
    *to = (size_t)(b > a ? b : a);
}

static int cmp_long(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

size_t vp_step_ids_distinct(long *v, size_t n)
{
    if (n)
        qsort(v, n, sizeof *v, cmp_long);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

size_t vp_steps_select(vp_steps *s, const vp_step_range *r)
{
    finish(s);
    long n = (long)s->n;
    long *v = vp_malloc((s->n ? s->n : 1) * sizeof *v);
    for (size_t i = 0; i < s->n; i++)
        v[i] = s->steps[i].number;
    size_t from, to;
    vp_step_range_slice(r, v, s->n, &from, &to);
    free(v);
    long a = (long)from, b = (long)to;
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

/* The lookups are const to their callers: the log's order and finger are
 * a cache of what was read, not a change to it. */
static launch_log *launches_of(const vp_steps *s)
{
    return (launch_log *)&s->launches;
}

int vp_steps_selected(const vp_steps *s, int64_t correlation)
{
    int64_t ts;
    if (!launch_get(launches_of(s), correlation, &ts, NULL))
        return 0;
    long i = vp_steps_at(s, ts);
    return i >= 0 && s->steps[i].selected;
}

int vp_steps_launch(const vp_steps *s, int64_t correlation, int64_t *ts, int64_t *dur)
{
    return launch_get(launches_of(s), correlation, ts, dur);
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
