/* Step windows and launch times, joined on correlation ids. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/corrjoin.h"
#include "vprof/error.h"
#include "vprof/steps.h"
#include "vprof/util.h"

typedef struct step {
    long number;
    int64_t start, end;   /* ns, end exclusive */
    int selected;
} step;

struct vp_steps {
    step *steps;
    size_t n, cap;
    int sorted;
    vp_corrjoin *launches;   /* correlation id -> the launching call */
};

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
    vp_steps *s = vp_calloc(1, sizeof(vp_steps));
    s->launches = vp_corrjoin_new();   /* launch times and threads: 32 bytes a call */
    return s;
}

void vp_steps_free(vp_steps *s)
{
    if (!s)
        return;
    free(s->steps);
    vp_corrjoin_free(s->launches);
    free(s);
}

static const char STEP_PREFIX[] = "ProfilerStep#";

/* Whether name starts as a step annotation's, whatever follows. */
static int step_prefixed(vp_span name)
{
    const size_t n = sizeof STEP_PREFIX - 1;
    return name.n > n && name.p[0] == 'P' && memcmp(name.p, STEP_PREFIX, n) == 0;
}

int vp_step_number(vp_span name, long *number)
{
    const size_t n = sizeof STEP_PREFIX - 1;
    return step_prefixed(name) && parse_long(name.p + n, name.p + name.n, number) == 0 &&
           *number >= 0;
}

void vp_steps_observe(vp_steps *s, const vp_event *ev)
{
    if (ev->ph != 'X' || !ev->has_ts)
        return;
    if (step_prefixed(ev->name) &&
        vp_event_kind(ev->cat, ev->name) != VP_EV_GPU_ANNOTATION) {
        long number;
        if (!vp_step_number(ev->name, &number))
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
    int64_t corr;
    if (ev->args.p && vp_launch_correlation(ev, &corr))
        vp_corrjoin_call(s->launches, corr,
                         &(vp_launch_call){ev->ts, ev->has_dur ? ev->dur : 0,
                                           vp_steps_thread_key(ev->tid)});
}

uint32_t vp_steps_thread_key(vp_span tid)
{
    int64_t v;
    if (tid.p && vp_json_int(tid, &v) == 0)
        return (uint32_t)v;
    uint32_t h = 2166136261u;   /* a named thread: FNV-1a of its text */
    for (size_t i = 0; i < tid.n; i++)
        h = (h ^ (unsigned char)tid.p[i]) * 16777619u;
    return h;
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

int vp_steps_selected(const vp_steps *s, int64_t correlation)
{
    vp_launch_call c;
    if (!vp_corrjoin_launcher(s->launches, correlation, &c))
        return 0;
    long i = vp_steps_at(s, c.ts);
    return i >= 0 && s->steps[i].selected;
}

int vp_steps_launch_thread(const vp_steps *s, int64_t correlation, int64_t *ts, uint32_t *tid)
{
    vp_launch_call c;
    if (!vp_corrjoin_launcher(s->launches, correlation, &c))
        return 0;
    *ts = c.ts;
    *tid = c.api;
    return 1;
}

int vp_steps_launch(const vp_steps *s, int64_t correlation, int64_t *ts, int64_t *dur)
{
    vp_launch_call c;
    if (!vp_corrjoin_launcher(s->launches, correlation, &c))
        return 0;
    *ts = c.ts;
    if (dur)
        *dur = c.dur;
    return 1;
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
