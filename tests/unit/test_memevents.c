/* A trace's [memory] events kept for a chart (src/analysis/memory/memevents.c,
 * VP_MEM_POINTS_CHART): every event below VP_MEM_CHART_POINTS, then each
 * time bucket's first, last, least and most allocated and reserved
 * events; the same points whatever the order the events came in and
 * through vprof report's partials. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/memevents.h"
#include "vprof/report_run.h"

typedef struct mev {
    int64_t ts, order, allocated, reserved;
} mev;

/* One [memory] event of cuda:0. */
static void feed(vp_memevents *m, const mev *e)
{
    char args[256];
    snprintf(args, sizeof args,
             "{\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": 1, \"Total Allocated\": %lld, "
             "\"Total Reserved\": %lld, \"Ev Idx\": %lld}",
             (long long)e->allocated, (long long)e->reserved, (long long)e->order);
    vp_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ph = 'i';
    ev.name = (vp_span){"[memory]", 8};
    ev.args = (vp_span){args, strlen(args)};
    ev.ts = e->ts;
    ev.has_ts = 1;
    vp_memevents_observe(m, &ev);
}

/* 16,384 events 1 ns apart: buckets of 8 ns (2,048 of them).  In each,
 * the first (+0) and last (+7), the most (+3) and least (+5) allocated,
 * the most (+1) and least (+6) reserved stay; +2 and +4 go. */
static void test_chart_buckets(void **state)
{
    (void)state;
    static const int64_t da[8] = {0, 0, 0, 50, 0, -50, 0, 0}, dr[8] = {0, 70, 0, 0, 0, 0, -70, 0};
    vp_memevents *m = vp_memevents_new(VP_MEM_POINTS_CHART);
    for (int64_t k = 0; k < VP_MEM_CHART_POINTS; k++) {
        mev e = {k, k, 100 + da[k % 8], 1000 + dr[k % 8]};
        feed(m, &e);
        assert_true(m->devices[0].cap <= VP_MEM_CHART_POINTS);
    }
    vp_memevents_finish(m);
    const vp_mem_device *d = &m->devices[0];
    assert_int_equal(d->allocs, VP_MEM_CHART_POINTS);
    assert_int_equal(d->npoints, 6 * 2048);
    static const int64_t kept[6] = {0, 1, 3, 5, 6, 7};
    for (size_t i = 0; i < d->npoints; i++)
        assert_int_equal(d->points[i].ts, 8 * (int64_t)(i / 6) + kept[i % 6]);
    assert_int_equal(d->points[2].allocated, 150);
    assert_int_equal(d->points[3].allocated, 50);
    vp_memevents_free(m);

    /* One fewer: every event, sorted. */
    m = vp_memevents_new(VP_MEM_POINTS_CHART);
    for (int64_t k = VP_MEM_CHART_POINTS - 2; k >= 0; k--)
        feed(m, &(mev){k, k, 100, 1000});
    vp_memevents_finish(m);
    assert_int_equal(m->devices[0].npoints, VP_MEM_CHART_POINTS - 1);
    for (size_t i = 0; i < m->devices[0].npoints; i++)
        assert_int_equal(m->devices[0].points[i].ts, (int64_t)i);
    vp_memevents_free(m);
}

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

#define NEV 100000

/* Random times over 1 s with repeated values: the points of a chart
 * model are those of every event bucketed at once (the narrowest power
 * of two wide buckets that number at most 2,048 over the span), whether
 * the events come in one order or the reverse. */
static void test_chart_any_order(void **state)
{
    (void)state;
    mev *ev = malloc(NEV * sizeof *ev);
    uint64_t seed = 7;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t k = 0; k < NEV; k++) {
        ev[k] = (mev){(int64_t)(rnd(&seed) % 1000000000) - 500000000, k,
                      (int64_t)(rnd(&seed) % 1000), (int64_t)(rnd(&seed) % 500)};
        lo = ev[k].ts < lo ? ev[k].ts : lo;
        hi = ev[k].ts > hi ? ev[k].ts : hi;
    }
    vp_memevents *a = vp_memevents_new(VP_MEM_POINTS_CHART);
    vp_memevents *b = vp_memevents_new(VP_MEM_POINTS_CHART);
    for (size_t k = 0; k < NEV; k++) {
        feed(a, &ev[k]);
        feed(b, &ev[NEV - 1 - k]);
    }
    vp_memevents_finish(a);
    vp_memevents_finish(b);
    const vp_mem_device *da = &a->devices[0], *db = &b->devices[0];
    assert_int_equal(da->npoints, db->npoints);
    assert_memory_equal(da->points, db->points, da->npoints * sizeof *da->points);

    /* Every event at once: 1e9 ns over 2,048 buckets is 2^19 ns each. */
    int shift = 19;
    assert_true((hi >> shift) - (lo >> shift) < 2048);
    assert_true((hi >> (shift - 1)) - (lo >> (shift - 1)) >= 2048);
    size_t nb = (size_t)((hi >> shift) - (lo >> shift)) + 1, want = 0;
    char *keep = calloc(NEV, 1);
    long (*r)[6] = malloc(nb * sizeof *r);
    memset(r, 0xff, nb * sizeof *r);   /* -1: none yet */
    /* orders equal positions here: earlier = (ts, position) smaller */
#define EARLIER(x, y) (ev[x].ts < ev[y].ts || (ev[x].ts == ev[y].ts && (x) < (y)))
#define LESS(f, x, y) (ev[x].f < ev[y].f || (ev[x].f == ev[y].f && EARLIER(x, y)))
#define MORE(f, x, y) (ev[x].f > ev[y].f || (ev[x].f == ev[y].f && EARLIER(x, y)))
    for (long k = 0; k < NEV; k++) {
        long *q = r[(ev[k].ts >> shift) - (lo >> shift)];
        if (q[0] < 0 || EARLIER(k, q[0]))
            q[0] = k;
        if (q[1] < 0 || EARLIER(q[1], k))
            q[1] = k;
        if (q[2] < 0 || LESS(allocated, k, q[2]))
            q[2] = k;
        if (q[3] < 0 || MORE(allocated, k, q[3]))
            q[3] = k;
        if (q[4] < 0 || LESS(reserved, k, q[4]))
            q[4] = k;
        if (q[5] < 0 || MORE(reserved, k, q[5]))
            q[5] = k;
    }
#undef EARLIER
#undef LESS
#undef MORE
    for (size_t bk = 0; bk < nb; bk++)
        for (int j = 0; j < 6; j++)
            if (r[bk][j] >= 0 && !keep[r[bk][j]]) {
                keep[r[bk][j]] = 1;
                want++;
            }
    free(r);
    assert_int_equal(da->npoints, want);
    int64_t pa = INT64_MIN;
    for (size_t i = 0; i < da->npoints; i++) {
        const vp_mem_point *p = &da->points[i];
        assert_true(keep[p->order]);
        assert_int_equal(p->ts, ev[p->order].ts);
        assert_int_equal(p->allocated, ev[p->order].allocated);
        if (i)
            assert_true(p->ts > p[-1].ts || (p->ts == p[-1].ts && p->order > p[-1].order));
        if (p->allocated > pa)
            pa = p->allocated;
    }
    assert_int_equal(pa, da->peak_alloc.allocated);   /* the peak is a point */
    free(keep);
    vp_memevents_free(a);
    vp_memevents_free(b);
    free(ev);
}

/* vprof report's first trace read by a worker: the points of its partial
 * finish in the parent to what the worker's own model finishes to. */
static void test_chart_through_a_partial(void **state)
{
    (void)state;
    vp_report_run w, parent;
    vp_report_run_init(&w, NULL);
    vp_report_run_init(&parent, NULL);
    w.timeline = vp_memevents_new(VP_MEM_POINTS_CHART);
    uint64_t seed = 3;
    for (int64_t k = 0; k < 40000; k++)
        feed(w.timeline, &(mev){(int64_t)(rnd(&seed) % 50000000), k,
                                (int64_t)(rnd(&seed) % 1000), (int64_t)(rnd(&seed) % 500)});
    vp_buf part = {0};
    vp_report_run_save(&w, &part);
    vp_error err = {0};
    assert_int_equal(vp_report_run_merge(&parent, part.data, part.len, &err), 0);
    vp_report_run_finish(&w);
    vp_report_run_finish(&parent);
    const vp_mem_device *a = &w.timeline->devices[0], *b = &parent.timeline->devices[0];
    assert_true(a->npoints < VP_MEM_CHART_POINTS);
    assert_int_equal(a->npoints, b->npoints);
    assert_memory_equal(a->points, b->points, a->npoints * sizeof *a->points);
    vp_buf_free(&part);
    vp_report_run_free(&w);
    vp_report_run_free(&parent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chart_buckets),
        cmocka_unit_test(test_chart_any_order),
        cmocka_unit_test(test_chart_through_a_partial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
