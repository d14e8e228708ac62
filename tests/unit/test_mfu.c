/* Unit tests for src/flops/runmfu.c: the world-size rule, the step time
 * (median, the first step left out when an outlier, the longest rank's
 * time per step), and the rate. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "vprof/mfu.h"

static void test_world_size(void **state)
{
    (void)state;
    vp_world_from from;
    /* --world-size overrides distributedInfo */
    assert_int_equal(vp_world_size(8, 128, 2, &from), 8);
    assert_int_equal(from, VP_WORLD_FLAG);
    /* distributedInfo's world_size over the ranks read */
    assert_int_equal(vp_world_size(0, 128, 1, &from), 128);
    assert_int_equal(from, VP_WORLD_DISTRIBUTED);
    assert_int_equal(vp_world_size(0, 128, 2, &from), 128);
    /* else the ranks read */
    assert_int_equal(vp_world_size(0, 0, 2, &from), 2);
    assert_int_equal(from, VP_WORLD_RANKS);
    assert_int_equal(vp_world_size(0, 0, 1, &from), 1);
    /* nothing says (--step-time without a trace) */
    assert_int_equal(vp_world_size(0, 0, 0, &from), 0);
    assert_int_equal(from, VP_WORLD_UNKNOWN);
    assert_int_equal(vp_world_size(0, 0, 3, NULL), 3);
}

static void test_step_times(void **state)
{
    (void)state;
    vp_step_times s = {0};
    /* rank 0, then rank 1: a step takes its longest rank's time */
    vp_step_times_add(&s, 551, 607312000, 1);
    vp_step_times_add(&s, 552, 622928000, 1);
    vp_step_times_add(&s, 551, 607904000, 1);
    vp_step_times_add(&s, 552, 630639000, 1);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.st[0].dur, 607904000);
    assert_int_equal(s.st[1].dur, 630639000);
    size_t counted;
    long out;
    /* two steps (even): the mean of both, no outlier test under 3 */
    assert_true(vp_mfu_step_median(&s, &counted, &out) == 619271500.0);
    assert_int_equal(counted, 2);
    assert_int_equal(out, -1);
    vp_step_times_free(&s);

    /* the first step 20% off the others' median is left out */
    static const int64_t d[] = {35115869, 72077474, 95697341, 95551087, 95699037};
    for (int i = 0; i < 5; i++)
        vp_step_times_add(&s, 101 + i, d[i], 1);
    double m = vp_mfu_step_median(&s, &counted, &out);
    assert_true(m == (95551087.0 + 95697341.0) / 2);
    assert_int_equal(counted, 4);
    assert_int_equal(out, 0);
    /* unused steps (--steps) do not count; an odd count: the middle one */
    vp_step_times_add(&s, 101, 1, 0);       /* shorter: the time stays, used stays */
    assert_int_equal(s.st[0].dur, 35115869);
    s.st[0].used = 0;
    s.st[1].used = 0;
    m = vp_mfu_step_median(&s, &counted, &out);
    assert_true(m == 95697341.0);
    assert_int_equal(counted, 3);
    assert_int_equal(out, -1);
    /* not an outlier: within 20% */
    s.st[0].used = 1;
    s.st[0].dur = 90000000;
    m = vp_mfu_step_median(&s, &counted, &out);
    assert_true(m == (95551087.0 + 95697341.0) / 2);
    assert_int_equal(counted, 4);
    assert_int_equal(out, -1);
    vp_step_times_free(&s);
    assert_true(vp_mfu_step_median(&s, &counted, &out) == 0);
    assert_int_equal(counted, 0);
}

static void test_rate(void **state)
{
    (void)state;
    assert_true(vp_mfu_tokens_per_gpu(1024, 2, 8) == 64.0);
    assert_true(vp_mfu_pct(1000, 1e9, 100) == 1.0);
    /* trace_filter rank 0: 196608 tokens per step, 615.12 ms, 128 GPUs,
     * Llama-3-8B's 51.470401536 GFLOP/token (full), 312 TFLOP/s */
    double tok = vp_mfu_tokens_per_gpu(196608, 0.61512, 128);
    assert_true(tok == 2497.073741708935);
    /* what vprof mfu and vprof summary print */
    assert_true(vp_mfu_pct(tok, 51.470401536e9, 312) == 41.19403466370539);
}

/* The steps a range selects, a step used when any rank's is; and a
 * trace that cannot be read leaves nothing behind. */
static void test_steps_used(void **state)
{
    vp_step_times s = {0};
    (void)state;
    assert_int_equal(vp_step_times_used(&s), 0);
    vp_step_times_add(&s, 1, 100, 0);
    vp_step_times_add(&s, 2, 200, 0);
    vp_step_times_add(&s, 3, 300, 1);
    assert_int_equal(vp_step_times_used(&s), 1);
    vp_step_times_add(&s, 2, 250, 1);
    assert_int_equal(s.n, 3);
    assert_int_equal(vp_step_times_used(&s), 2);
    vp_step_times_free(&s);

    vp_mfu_traces t = {0};
    vp_error err = {0};
    char *const paths[] = {"no/such/trace.json"};
    assert_int_equal(vp_mfu_read_traces(&t, paths, 1, NULL, 0, &err), -1);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    assert_int_equal(t.ranks, 0);
    assert_null(t.device);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_size),
        cmocka_unit_test(test_step_times),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_steps_used),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
