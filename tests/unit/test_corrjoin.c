/* Unit tests for src/analysis/core/corrjoin.c: the one correlation join of
 * `vprof ops` (the GPU time of a call) and `vprof launches` (the call of
 * GPU work), both sides in either order, the earliest of repeated calls,
 * repeated GPU work summed, unknown ids, and growth past the first table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/corrjoin.h"

static void test_both_sides(void **state)
{
    (void)state;
    vp_corrjoin *j = vp_corrjoin_new();
    vp_launch_call c;
    assert_int_equal(vp_corrjoin_launcher(j, 5, &c), 0);
    assert_int_equal(vp_corrjoin_gpu_time(j, 5), 0);
    /* GPU work before its call, as Kineto writes a thread's calls late */
    vp_corrjoin_work(j, 5, 7);
    vp_corrjoin_work(j, 9, 100);
    vp_corrjoin_work(j, 5, 2);   /* a memcpy and a kernel of one call */
    vp_corrjoin_call(j, 5, &(vp_launch_call){1000, 30, 1});
    vp_corrjoin_call(j, 5, &(vp_launch_call){900, 40, 2});    /* earlier: it launched */
    vp_corrjoin_call(j, 5, &(vp_launch_call){950, 50, 3});
    vp_corrjoin_call(j, 5, &(vp_launch_call){900, 60, 4});    /* a tie keeps the first */
    vp_corrjoin_call(j, 11, &(vp_launch_call){-5, 1, 7});     /* a call with no GPU work */
    assert_int_equal(vp_corrjoin_gpu_time(j, 5), 9);
    assert_int_equal(vp_corrjoin_gpu_time(j, 9), 100);
    assert_int_equal(vp_corrjoin_gpu_time(j, 11), 0);
    assert_int_equal(vp_corrjoin_gpu_time(j, -1), 0);
    assert_int_equal(vp_corrjoin_launcher(j, 5, &c), 1);
    assert_int_equal(c.ts, 900);
    assert_int_equal(c.dur, 40);
    assert_int_equal(c.api, 2);
    assert_int_equal(vp_corrjoin_launcher(j, 9, &c), 0);   /* work that no call launched */
    assert_int_equal(vp_corrjoin_launcher(j, 11, &c), 1);
    assert_int_equal(c.ts, -5);
    assert_int_equal(c.api, 7);
    assert_int_equal(vp_corrjoin_calls(j), 2);
    assert_int_equal(vp_corrjoin_works(j), 3);
    vp_corrjoin_free(j);
    vp_corrjoin_free(NULL);
}

/* 5000 ids: the table grows four times over and keeps every record. */
static void test_growth(void **state)
{
    (void)state;
    vp_corrjoin *j = vp_corrjoin_new();
    for (int64_t i = 0; i < 5000; i++) {
        vp_corrjoin_call(j, i, &(vp_launch_call){i * 10, 1, (uint32_t)i});
        vp_corrjoin_work(j, i, i);
        vp_corrjoin_work(j, i, 1);
    }
    vp_corrjoin_call(j, 4321, &(vp_launch_call){-1, 7, 99});
    vp_corrjoin_call(j, 4322, &(vp_launch_call){1000000, 7, 98});
    assert_int_equal(vp_corrjoin_calls(j), 5000);
    assert_int_equal(vp_corrjoin_works(j), 10000);
    vp_launch_call c;
    assert_int_equal(vp_corrjoin_launcher(j, 4321, &c), 1);
    assert_int_equal(c.api, 99);
    assert_int_equal(c.ts, -1);
    assert_int_equal(vp_corrjoin_launcher(j, 4322, &c), 1);
    assert_int_equal(c.api, 4322);
    assert_int_equal(c.ts, 43220);
    assert_int_equal(vp_corrjoin_gpu_time(j, 4999), 5000);
    assert_int_equal(vp_corrjoin_gpu_time(j, 0), 1);
    assert_int_equal(vp_corrjoin_launcher(j, 5000, &c), 0);
    int64_t sum = 0;
    for (int64_t i = 0; i < 5000; i++)
        sum += vp_corrjoin_gpu_time(j, i);
    assert_int_equal(sum, 4999 * 5000 / 2 + 5000);
    vp_corrjoin_free(j);
}

/* The GPU work records of an id side by side in the order recorded, ids
 * recorded out of order, questions between records (the log sorts
 * again), and lookups in any order. */
static void test_work_records(void **state)
{
    (void)state;
    vp_corrjoin *j = vp_corrjoin_new();
    size_t n = 99;
    assert_null(vp_corrjoin_work_records(j, 3, &n));
    assert_int_equal(n, 0);
    vp_corrjoin_work(j, 30, 100);
    vp_corrjoin_work(j, 10, 101);
    vp_corrjoin_work(j, 30, 102);
    vp_corrjoin_work(j, 20, 103);
    vp_corrjoin_work(j, 30, 104);
    const vp_corr_work *w = vp_corrjoin_work_records(j, 30, &n);
    assert_int_equal(n, 3);
    assert_int_equal(w[0].dur, 100);
    assert_int_equal(w[1].dur, 102);
    assert_int_equal(w[2].dur, 104);
    w = vp_corrjoin_work_records(j, 10, &n);   /* behind the last answer */
    assert_int_equal(n, 1);
    assert_int_equal(w[0].dur, 101);
    assert_int_equal(vp_corrjoin_gpu_time(j, 30), 306);
    assert_int_equal(vp_corrjoin_gpu_time(j, 25), 0);
    /* more after a question, in order and out of it */
    vp_corrjoin_work(j, 40, 105);
    assert_int_equal(vp_corrjoin_gpu_time(j, 40), 105);
    vp_corrjoin_work(j, 20, 106);
    w = vp_corrjoin_work_records(j, 20, &n);
    assert_int_equal(n, 2);
    assert_int_equal(w[0].dur, 103);
    assert_int_equal(w[1].dur, 106);
    assert_int_equal(vp_corrjoin_works(j), 7);
    /* a call after a question, earlier than the one kept */
    vp_launch_call c;
    vp_corrjoin_call(j, 20, &(vp_launch_call){50, 1, 1});
    assert_int_equal(vp_corrjoin_launcher(j, 20, &c), 1);
    vp_corrjoin_call(j, 20, &(vp_launch_call){40, 2, 2});
    assert_int_equal(vp_corrjoin_launcher(j, 20, &c), 1);
    assert_int_equal(c.ts, 40);
    assert_int_equal(c.api, 2);
    assert_int_equal(vp_corrjoin_calls(j), 1);
    vp_corrjoin_free(j);

    /* 3000 ids in a scrambled order, two records each, asked descending */
    j = vp_corrjoin_new();
    for (int64_t i = 0; i < 6000; i++) {
        int64_t id = (i * 1543) % 3000;
        vp_corrjoin_work(j, id, i);
    }
    for (int64_t id = 2999; id >= 0; id--) {
        w = vp_corrjoin_work_records(j, id, &n);
        assert_int_equal(n, 2);
        assert_int_equal(w[0].corr, id);
        assert_true(w[0].dur < w[1].dur);   /* the order recorded */
        assert_int_equal((w[0].dur * 1543) % 3000, id);
    }
    vp_corrjoin_free(j);
}

/* Which events carry a correlation: a complete launching call, and the
 * args of any GPU event. */
/* Two threads' launches, one after the other as Kineto writes them: a
 * long run then a short one (merged backwards) and a short run then a
 * long one (merged forwards); an id in both runs at one start keeps the
 * first run's call, an earlier start wins from either. */
static void test_runs(void **state)
{
    (void)state;
    for (int shape = 0; shape < 2; shape++) {
        vp_corrjoin *j = vp_corrjoin_new();
        int64_t first = shape ? 100 : 1000, second = shape ? 1000 : 100;
        for (int64_t i = 0; i < first; i++)
            vp_corrjoin_call(j, 2 * i, &(vp_launch_call){2 * i, 1, 1});
        for (int64_t i = 0; i < second; i++)
            vp_corrjoin_call(j, 2 * i + 1, &(vp_launch_call){2 * i + 1, 2, 2});
        vp_corrjoin_call(j, 10, &(vp_launch_call){10, 3, 3});   /* a tie: the first stays */
        vp_corrjoin_call(j, 12, &(vp_launch_call){11, 4, 4});   /* earlier: it wins */
        int64_t n = first < second ? first : second;
        assert_int_equal(vp_corrjoin_calls(j), (size_t)(first + second));
        vp_launch_call c;
        for (int64_t id = 0; id < 2 * n; id++) {
            assert_int_equal(vp_corrjoin_launcher(j, id, &c), 1);
            assert_int_equal(c.api, id == 12 ? 4 : 1 + (id & 1));
            assert_int_equal(c.ts, id == 12 ? 11 : id);
        }
        assert_int_equal(vp_corrjoin_launcher(j, 2 * (first > second ? first : second), &c), 0);
        vp_corrjoin_free(j);
    }
}

/* The join without the api (steps' launch log, 24-byte calls): the same
 * answers as the full one on calls in two interleaved runs (merged by
 * the sort), repeated ids (the earliest start wins, a tie keeps the
 * first), a negative start and a long duration; the api reads 0. */
static void test_unnamed(void **state)
{
    (void)state;
    vp_corrjoin *full = vp_corrjoin_new(), *bare = vp_corrjoin_new_unnamed();
    vp_corrjoin *both[2] = {full, bare};
    for (int k = 0; k < 2; k++) {
        for (int64_t i = 0; i < 3000; i++)
            vp_corrjoin_call(both[k], 2 * i, &(vp_launch_call){3 * i, i, 5});
        for (int64_t i = 0; i < 3000; i++)
            vp_corrjoin_call(both[k], 2 * i + 1, &(vp_launch_call){3 * i + 1, 2 * i, 6});
        vp_corrjoin_call(both[k], 40, &(vp_launch_call){60, 999, 7});   /* a tie: the first stays */
        vp_corrjoin_call(both[k], 42, &(vp_launch_call){-8, INT64_MAX - 1, 8});   /* earlier */
    }
    assert_int_equal(vp_corrjoin_calls(full), 6000);
    assert_int_equal(vp_corrjoin_calls(bare), 6000);
    vp_launch_call a, b;
    for (int64_t id = -1; id <= 6000; id++) {
        int fa = vp_corrjoin_launcher(full, id, &a), fb = vp_corrjoin_launcher(bare, id, &b);
        assert_int_equal(fa, id >= 0 && id < 6000);
        assert_int_equal(fb, fa);
        if (!fa)
            continue;
        assert_int_equal(b.ts, a.ts);
        assert_int_equal(b.dur, a.dur);
        assert_int_equal(a.api, id == 42 ? 8 : 5 + (id & 1));
        assert_int_equal(b.api, 0);
    }
    assert_int_equal(vp_corrjoin_launcher(bare, 40, &b), 1);
    assert_int_equal(b.ts, 60);
    assert_int_equal(b.dur, 20);
    assert_int_equal(vp_corrjoin_launcher(bare, 42, &b), 1);
    assert_int_equal(b.ts, -8);
    assert_int_equal(b.dur, INT64_MAX - 1);
    vp_corrjoin_free(full);
    vp_corrjoin_free(bare);
}

static void test_correlation_of_events(void **state)
{
    (void)state;
    static const char args[] = "{\"correlation\": 42, \"stream\": 7}";
    vp_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ph = 'X';
    ev.has_ts = 1;
    ev.cat = (vp_span){"cuda_runtime", 12};
    ev.args = (vp_span){args, sizeof args - 1};
    int64_t corr = 0;
    assert_int_equal(vp_launch_correlation(&ev, &corr), 1);
    assert_int_equal(corr, 42);
    ev.ph = 'i';
    assert_int_equal(vp_launch_correlation(&ev, &corr), 0);
    ev.ph = 'X';
    ev.cat = (vp_span){"kernel", 6};
    assert_int_equal(vp_launch_correlation(&ev, &corr), 0);
    corr = 0;
    assert_int_equal(vp_gpu_correlation(&ev, &corr), 1);
    assert_int_equal(corr, 42);
    ev.args = (vp_span){0};
    assert_int_equal(vp_gpu_correlation(&ev, &corr), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_sides),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_work_records),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_unnamed),
        cmocka_unit_test(test_correlation_of_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
