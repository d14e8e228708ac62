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
#include "vprof/mfu_job.h"
#include "vprof/util.h"

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


#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* Llama-3-8B described by its values, no config file. */
static vp_mfu_job llama_job(void)
{
    vp_mfu_job j = {.convs = VP_CONV_FULL | VP_CONV_CAUSAL};
    static const int64_t v[] = {[VP_MF_HIDDEN] = 4096, [VP_MF_LAYERS] = 32, [VP_MF_HEADS] = 32,
                                [VP_MF_KV_HEADS] = 8, [VP_MF_FFN] = 14336, [VP_MF_VOCAB] = 128256};
    for (int f = 0; f <= VP_MF_VOCAB; f++)
        if (v[f]) {
            j.given.value[f] = v[f];
            j.given.set |= 1u << f;
        }
    j.given.tied = j.given.plain_mlp = -1;
    j.seq_len = 8192;
    return j;
}

/* vp_mfu_compute from the values given (the CLI test mfu.t's "--step-time
 * with --world-size" case): 1048576 tokens a step of 1.82 s on 64 GPUs. */
static void test_compute_given(void **state)
{
    (void)state;
    vp_mfu_job j = llama_job();
    j.tokens_per_step = 1048576;
    j.step_time = 1.82;
    j.world_size = 64;
    j.peak = 989;
    vp_mfu_result r;
    vp_error err = {0};
    assert_int_equal(vp_mfu_compute(&j, &r, &err), 0);
    assert_true(r.has_rate);
    assert_int_equal(r.steps.n, 0);
    assert_near(r.flops[0].total, 57.91285248e9, 1);
    assert_near(r.flops[1].total, 51.470401536e9, 1);
    assert_near(r.tokens_per_gpu, 1048576 / 1.82 / 64, 1e-9);
    assert_near(vp_mfu_pct(r.tokens_per_gpu, r.flops[1].total, r.peak), 46.85002382058822,
                        1e-9);
    /* no front end installed: the notes name the job's fields */
    assert_string_equal(r.notes.data, "tokens per step: 1048576 (tokens_per_step)\n");
    assert_string_equal(r.peak_note, "peak: 989 TFLOP/s per device (peak)");
    vp_mfu_result_free(&r);
}

/* The job's contradictions and gaps, named by field without a front end. */
static void test_compute_refuses(void **state)
{
    (void)state;
    vp_mfu_job j = llama_job();
    j.seqlens_path = "lens.txt";
    vp_mfu_result r;
    vp_error err = {0};
    assert_int_equal(vp_mfu_compute(&j, &r, &err), -1);
    assert_int_equal(err.status, 2);
    assert_string_equal(err.msg, "seq_len or seqlens_path, not both");
    vp_mfu_result_free(&r);

    j = llama_job();
    j.step_time = 1.82;
    j.tokens_per_step = 1048576;
    j.peak = 989;
    err = (vp_error){0};
    assert_int_equal(vp_mfu_compute(&j, &r, &err), -1);
    assert_string_equal(err.msg, "the number of GPUs is not known: give world_size");
    vp_mfu_result_free(&r);

    /* the model alone: no rate, no error */
    j = llama_job();
    err = (vp_error){0};
    assert_int_equal(vp_mfu_compute(&j, &r, &err), 0);
    assert_false(r.has_rate);
    vp_mfu_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_size),
        cmocka_unit_test(test_step_times),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_steps_used),
        cmocka_unit_test(test_compute_given),
        cmocka_unit_test(test_compute_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
