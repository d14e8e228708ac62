/* Unit tests for src/analysis/critpath*.c: a small step worked by hand
 * through HTA's rules (a launch's lock span, nested ops, a launch-delay
 * edge, a device sync waiting for the kernel), the window's choice and
 * its errors, data-loading attribution, and each step's verdict as
 * summary --critical-path computes it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/critpath.h"
#include "vprof/critpath_steps.h"
#include "vprof/trace.h"

#include "analysis/critpath/critpath_int.h"
#include "tmppath.h"

/* Step 0 (0..100 us) on thread 1: aten::op 10..40 launches k (call 15..20,
 * kernel 30..70 on stream 7, nothing queued before it: a launch delay of
 * 15 us); cudaDeviceSynchronize 50..80 waits for k (Context Sync).
 * Longest path: op start -> launch start (op, 5 us cpu_bound) -> k start
 * (launch delay 15 us) -> k end (40 us gpu_compute_bound): 60 us; the sync
 * call's end (k end -> sync end, weight 0) is as far, but networkx ends
 * the path at the first node of greatest distance in topological order.  Step 1 (200..300) holds one op only;
 * step 2 is the last: HTA's loader leaves it out. */
static const char trace[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#0\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 30},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 15, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 30, \"dur\": 40, \"args\": {\"stream\": 7, \"correlation\": 1, \"device\": 0}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaDeviceSynchronize\", \"pid\": 1, \"tid\": 1, \"ts\": 50, \"dur\": 30, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 30, \"args\": {\"stream\": -1, \"correlation\": 2, \"device\": 0}},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"dataloader::next\", \"pid\": 1, \"tid\": 1, \"ts\": 210, \"dur\": 30},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 1, \"tid\": 1, \"ts\": 400, \"dur\": 100}\n"
    "]}\n";

static char dir[256], path[320];

static int setup(void **state)
{
    (void)state;
    return test_file_make(dir, sizeof dir, path, sizeof path, "vprof-test-critpath", trace);
}

static int teardown(void **state)
{
    (void)state;
    test_file_remove(dir, path);
    return 0;
}

static void test_hand_worked_step(void **state)
{
    (void)state;
    vp_critpath cp;
    vp_cp_opts o = {.annotation = "ProfilerStep", .instance = 0};
    vp_error err = {0};
    assert_int_equal(vp_critpath_run(&cp, path, &o, &err), VP_EXIT_OK);
    assert_int_equal(cp.instances, 2);
    assert_int_equal(cp.dropped_last_step, 1);
    assert_int_equal(cp.win_start, 0);
    assert_int_equal(cp.win_end, 100);
    assert_int_equal(cp.npath, 3);
    const vp_cp_edge_type types[] = {VP_CP_OPERATOR, VP_CP_LAUNCH_DELAY, VP_CP_OPERATOR};
    const int64_t weights[] = {5, 15, 40};
    const char *const names[] = {"aten::op", NULL, "k"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(cp.path[i].type, types[i]);
        assert_int_equal(cp.path[i].weight, weights[i]);
        if (names[i])
            assert_string_equal(cp.names[cp.rows[cp.path[i].row].name], names[i]);
        else
            assert_int_equal(cp.path[i].row, -1);
    }
    assert_int_equal(cp.bound_us[VP_CP_BOUND_CPU], 5);
    assert_int_equal(cp.bound_us[VP_CP_BOUND_LAUNCH], 15);
    assert_int_equal(cp.bound_us[VP_CP_BOUND_GPU_COMPUTE], 40);
    assert_int_equal(cp.total_us, 60);
    /* the path's events: op, the launch, k */
    assert_int_equal(cp.ncritical, 3);
    assert_int_equal(cp.rows[cp.critical_rows[0]].idx, 1);
    assert_int_equal(cp.rows[cp.critical_rows[2]].idx, 3);
    vp_critpath_free(&cp);
}

/* Each step's verdict, the events fed as summary's pass feeds them: step
 * 0's path is 40 us of k (gpu_compute_bound) of 60, step 1's the 30 us op
 * (cpu_bound); step 2 is the last, which HTA leaves out. */
static void test_step_verdicts(void **state)
{
    (void)state;
    vp_cp_steps s;
    vp_cp_steps_init(&s);
    vp_cp_steps_begin(&s);
    vp_error err = {0};
    vp_trace_opts to = {0};
    vp_trace *t = vp_trace_open(path, &to, &err);
    assert_non_null(t);
    vp_event ev;
    while (vp_trace_next(t, &ev, &err) == 1)
        vp_cp_steps_feed(&s, &ev);
    vp_trace_close(t);
    vp_cp_steps_end(&s, path, 3);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.refused, 0);
    assert_int_equal(s.v[0].rank, 3);
    assert_int_equal(s.v[0].step, 0);
    assert_int_equal(s.v[0].instance, 0);
    assert_int_equal(s.v[0].bound, VP_CP_BOUND_GPU_COMPUTE);
    assert_int_equal(s.v[0].bound_us, 40);
    assert_int_equal(s.v[0].total_us, 60);
    assert_int_equal(s.v[1].step, 1);
    assert_int_equal(s.v[1].instance, 1);
    assert_int_equal(s.v[1].bound, VP_CP_BOUND_CPU);
    assert_int_equal(s.v[1].bound_us, 30);
    assert_int_equal(s.v[1].total_us, 30);
    /* a partial result gives the same verdicts back */
    vp_buf b = {0};
    vp_cp_steps_save(&s, &b);
    vp_cp_steps m;
    vp_cp_steps_init(&m);
    vp_rd d;
    vp_rd_init(&d, b.data, b.len);
    vp_cp_steps_merge(&m, &d);
    assert_true(vp_rd_done(&d));
    assert_int_equal(m.n, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(m.v[i].rank, s.v[i].rank);
        assert_int_equal(m.v[i].step, s.v[i].step);
        assert_int_equal(m.v[i].instance, s.v[i].instance);
        assert_int_equal(m.v[i].bound, s.v[i].bound);
        assert_int_equal(m.v[i].bound_us, s.v[i].bound_us);
        assert_int_equal(m.v[i].total_us, s.v[i].total_us);
    }
    vp_cp_steps_free(&m);
    free(b.data);
    vp_cp_steps_free(&s);
}

static void test_window_errors(void **state)
{
    (void)state;
    vp_critpath cp;
    vp_error err = {0};
    vp_cp_opts o = {.annotation = "ProfilerStep", .instance = 2};
    assert_int_equal(vp_critpath_run(&cp, path, &o, &err), VP_EXIT_INPUT);
    /* three steps in the trace, the last left out by HTA's rule: counted
     * and said (it used to say 2) */
    assert_non_null(strstr(err.msg, "3 events are named like 'ProfilerStep', 1 of them from the "
                                    "last step (ProfilerStep#2), which HTA's rule leaves out"));
    assert_non_null(strstr(err.msg, "instance 2 (counted from 0) is not one of the 2 left"));
    vp_critpath_free(&cp);
    vp_error err2 = {0};
    o = (vp_cp_opts){.annotation = "Iteration", .instance = 0};
    assert_int_equal(vp_critpath_run(&cp, path, &o, &err2), VP_EXIT_INPUT);
    assert_non_null(strstr(err2.msg, "no event named like 'Iteration'"));
    vp_critpath_free(&cp);
}

static void test_data_loading(void **state)
{
    (void)state;
    vp_critpath cp;
    vp_error err = {0};
    const char *const dl[] = {"dataloader", NULL};
    vp_cp_opts o = {.annotation = "ProfilerStep", .instance = 1, .data_load = dl};
    assert_int_equal(vp_critpath_run(&cp, path, &o, &err), VP_EXIT_OK);
    assert_int_equal(cp.npath, 1);
    assert_int_equal(cp.bound_us[VP_CP_BOUND_DATA_LOADING], 30);
    vp_critpath_free(&cp);
    /* the whole trace: step 0's path, then (a dependency between top-level
     * calls) the op of step 1, cpu_bound without data-loading names */
    o = (vp_cp_opts){.annotation = "", .instance = 0};
    assert_int_equal(vp_critpath_run(&cp, path, &o, &err), VP_EXIT_OK);
    assert_int_equal(cp.total_us, 90);
    assert_int_equal(cp.bound_us[VP_CP_BOUND_CPU], 35);
    assert_int_equal(cp.npath, 6);
    vp_critpath_free(&cp);
}

/* The correlation maps are sized by the keys they hold (half full at
 * most), so keys share probe sequences: a key put with "none" (-1: a
 * record with no launch before it, a kernel's sync taken) must keep its
 * slot, or the keys placed after it on the sequence are lost.  1000 keys
 * in 2048 slots, every odd one then set to none. */
static void test_imap_none_keeps_slot(void **state)
{
    (void)state;
    int64_t key[1000];
    uint64_t x = 88172645463325252ULL;   /* xorshift64: keys as scattered as real ids */
    for (int i = 0; i < 1000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        key[i] = (int64_t)(x >> 2);
    }
    vp_cp_imap m;
    vp_cp_imap_init(&m, 1000);
    for (int i = 0; i < 1000; i++)
        vp_cp_imap_put(&m, key[i], i);
    for (int i = 1; i < 1000; i += 2)
        vp_cp_imap_put(&m, key[i], -1);
    int lost = 0, none = 0;
    for (int i = 0; i < 1000; i++) {
        int32_t v = vp_cp_imap_get(&m, key[i]);
        if (i % 2 == 0)
            lost += v != i;
        else
            none += v == -1;
    }
    assert_int_equal(lost, 0);
    assert_int_equal(none, 500);
    vp_cp_imap_put(&m, key[1], 42);   /* a key set to none takes a value again */
    assert_int_equal(vp_cp_imap_get(&m, key[1]), 42);
    vp_cp_imap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked_step),
        cmocka_unit_test(test_step_verdicts),
        cmocka_unit_test(test_window_errors),
        cmocka_unit_test(test_data_loading),
        cmocka_unit_test(test_imap_none_keeps_slot),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
