/* Unit tests for src/analysis (steps, stats, classify) and src/trace/rank.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "vprof/classify.h"
#include "vprof/rank.h"
#include "vprof/stats.h"
#include "vprof/steps.h"
#include "vprof/util.h"

static vp_span S(const char *s)
{
    vp_span v = {s, s ? strlen(s) : 0};
    return v;
}

/* ---- steps ---- */

static void range_ok(const char *spec, long start, int has_start, long stop, int has_stop,
                     int single)
{
    vp_step_range r;
    if (vp_step_range_parse(spec, &r) != 0)
        fail_msg("\"%s\" refused", spec);
    assert_int_equal(r.has_start, has_start);
    assert_int_equal(r.has_stop, has_stop);
    assert_int_equal(r.single, single);
    if (has_start)
        assert_int_equal(r.start, start);
    if (has_stop)
        assert_int_equal(r.stop, stop);
}

static void test_range_parse(void **state)
{
    vp_step_range r;
    (void)state;
    range_ok("5", 5, 1, 0, 0, 1);
    range_ok("-1", -1, 1, 0, 0, 1);
    range_ok("5:7", 5, 1, 7, 1, 0);
    range_ok(":-1", 0, 0, -1, 1, 0);
    range_ok("3:", 3, 1, 0, 0, 0);
    range_ok(":", 0, 0, 0, 0, 0);
    range_ok("-3:-1", -3, 1, -1, 1, 0);
    range_ok("0:0", 0, 1, 0, 1, 0);
    assert_int_equal(vp_step_range_parse("a:b", &r), -1);
    assert_int_equal(vp_step_range_parse("a", &r), -1);
    assert_int_equal(vp_step_range_parse("", &r), -1);
    assert_int_equal(vp_step_range_parse("1:2:3", &r), -1);
    assert_int_equal(vp_step_range_parse("5x", &r), -1);
    assert_int_equal(vp_step_range_parse("5:x", &r), -1);
    assert_int_equal(vp_step_range_parse("1.5", &r), -1);
    assert_int_equal(vp_step_range_parse("99999999999999999999999", &r), -1);
    assert_int_equal(vp_step_range_parse("123456789012345678901234567890123:", &r), -1);
}

/* A step annotation's number, the one parse steps and merge use: the
 * whole rest of the name, a long, not negative.  The text after the name
 * (a quote in a trace) must not be read: the span ends before "9". */
static void test_step_number(void **state)
{
    (void)state;
    long n = -7;
    const char *text = "ProfilerStep#129";
    assert_int_equal(vp_step_number((vp_span){text, 16}, &n), 1);
    assert_int_equal(n, 129);
    assert_int_equal(vp_step_number((vp_span){text, 15}, &n), 1);
    assert_int_equal(n, 12);
    assert_int_equal(vp_step_number((vp_span){text, 14}, &n), 1);
    assert_int_equal(n, 1);
    assert_int_equal(vp_step_number((vp_span){"ProfilerStep#0", 14}, &n), 1);
    assert_int_equal(n, 0);
    assert_int_equal(vp_step_number((vp_span){"ProfilerStep#9223372036854775807", 32}, &n), 1);
    assert_int_equal(n, 9223372036854775807L);
    static const char *const refused[] = {"ProfilerStep#", "ProfilerStep#-1", "ProfilerStep#5x",
                                          "ProfilerStep#9223372036854775808", "ProfilerStep*",
                                          "ProfilerStep#1.5", "profilerStep#1", "Step#1"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        assert_int_equal(vp_step_number((vp_span){refused[i], strlen(refused[i])}, &n), 0);
}

/* Makes an X event; the strings must outlive its use. */
static vp_event event(const char *name, const char *cat, int64_t ts_us, int64_t dur_us,
                      const char *args)
{
    vp_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ph = 'X';
    ev.name = S(name);
    ev.cat = S(cat ? cat : "");
    if (args)
        ev.args = S(args);
    ev.ts = ts_us * 1000;
    ev.has_ts = 1;
    if (dur_us >= 0) {
        ev.dur = dur_us * 1000;
        ev.has_dur = 1;
    }
    return ev;
}

static void observe(vp_steps *s, const char *name, const char *cat, int64_t ts, int64_t dur,
                    const char *args)
{
    vp_event ev = event(name, cat, ts, dur, args);
    vp_steps_observe(s, &ev);
}

/* A launch with correlation id corr at time ts (us). */
static void launch(vp_steps *s, const char *cat, int64_t ts, long corr)
{
    char args[64];
    snprintf(args, sizeof args, "{\"External id\": 1, \"correlation\": %ld}", corr);
    observe(s, "cudaLaunchKernel", cat, ts, 5, args);
}

static vp_step_range parse(const char *spec)
{
    vp_step_range r;
    assert_int_equal(vp_step_range_parse(spec, &r), 0);
    return r;
}

/* Steps 5..9 at 1000 us each from t = 10000; launches at the middle of
 * each step (correlation 100 + step), one before the first step (1),
 * and two inside step 7 (107, 207). */
static vp_steps *five_steps(void)
{
    vp_steps *s = vp_steps_new();
    /* Out of order, as events come. */
    for (long n = 9; n >= 5; n--) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%ld", n);
        observe(s, name, "user_annotation", 10000 + (n - 5) * 1000, 1000, NULL);
        /* The GPU mirror of the annotation is not a step. */
        observe(s, name, "gpu_user_annotation", 50000 + (n - 5) * 1000, 1000, NULL);
        launch(s, "cuda_runtime", 10000 + (n - 5) * 1000 + 500, 100 + n);
    }
    launch(s, "cuda_runtime", 9000, 1);
    launch(s, "cuda_driver", 12100, 207);
    return s;
}

/* Which of steps 5..9 a range selects, as a bit mask (bit n). */
static unsigned selected_mask(vp_steps *s, const char *spec, size_t *count)
{
    vp_step_range r = parse(spec);
    *count = vp_steps_select(s, &r);
    unsigned mask = 0;
    for (long n = 5; n <= 9; n++)
        if (vp_steps_selected(s, 100 + n))
            mask |= 1u << n;
    return mask;
}

#define B(n) (1u << (n))

static void test_steps_select(void **state)
{
    vp_steps *s = five_steps();
    size_t c;
    (void)state;

    assert_int_equal(vp_steps_count(s), 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(vp_steps_number(s, i), (long)(5 + i));
    assert_int_equal(vp_steps_number(s, 5), -1);

    assert_int_equal(selected_mask(s, ":", &c), B(5) | B(6) | B(7) | B(8) | B(9));
    assert_int_equal(c, 5);
    assert_int_equal(selected_mask(s, "5:7", &c), B(5) | B(6));
    assert_int_equal(c, 2);
    assert_int_equal(selected_mask(s, ":-1", &c), B(5) | B(6) | B(7) | B(8));
    assert_int_equal(c, 4);
    assert_int_equal(selected_mask(s, "-1", &c), B(9));
    assert_int_equal(c, 1);
    assert_int_equal(selected_mask(s, "-2:", &c), B(8) | B(9));
    assert_int_equal(c, 2);
    assert_int_equal(selected_mask(s, "7", &c), B(7));
    assert_int_equal(c, 1);
    assert_int_equal(selected_mask(s, "8:", &c), B(8) | B(9));
    assert_int_equal(selected_mask(s, "0:6", &c), B(5));
    /* Steps not present select nothing. */
    assert_int_equal(selected_mask(s, "4", &c), 0);
    assert_int_equal(c, 0);
    assert_int_equal(selected_mask(s, "12", &c), 0);
    assert_int_equal(selected_mask(s, "7:7", &c), 0);
    assert_int_equal(selected_mask(s, "9:5", &c), 0);
    assert_int_equal(selected_mask(s, "-10:", &c), B(5) | B(6) | B(7) | B(8) | B(9));
    assert_int_equal(selected_mask(s, "-10", &c), B(5));   /* clamped to the first */

    /* Launches outside every step, and ids never launched. */
    vp_step_range all = parse(":");
    vp_steps_select(s, &all);
    assert_int_equal(vp_steps_selected(s, 1), 0);
    assert_int_equal(vp_steps_selected(s, 999), 0);
    /* A cuda_driver launch counts as well. */
    assert_int_equal(vp_steps_selected(s, 207), 1);
    vp_step_range r7 = parse("7");
    vp_steps_select(s, &r7);
    assert_int_equal(vp_steps_selected(s, 207), 1);
    assert_int_equal(vp_steps_selected(s, 106), 0);
    vp_step_range r8 = parse("8");
    vp_steps_select(s, &r8);
    assert_int_equal(vp_steps_selected(s, 207), 0);
    vp_steps_free(s);
}

static void test_steps_correlation(void **state)
{
    vp_steps *s = vp_steps_new();
    (void)state;

    observe(s, "ProfilerStep#1", "user_annotation", 0, 100, NULL);
    observe(s, "ProfilerStep#2", "user_annotation", 100, 100, NULL);
    /* A launch at the very end of step 1 (exclusive) belongs to step 2. */
    launch(s, "cuda_runtime", 100, 10);
    launch(s, "cuda_runtime", 99, 11);
    /* Several CPU events with one id: the first launched it. */
    launch(s, "cuda_runtime", 150, 12);
    launch(s, "cuda_runtime", 50, 12);
    /* Not launches: wrong category, no args, no correlation, a string id. */
    launch(s, "cpu_op", 50, 13);
    observe(s, "cudaLaunchKernel", "cuda_runtime", 50, 5, NULL);
    observe(s, "cudaLaunchKernel", "cuda_runtime", 50, 5, "{\"External id\": 14}");
    observe(s, "hipLaunchKernel", "cuda_runtime", 50, 5, "{\"correlation\": \"15\"}");
    /* Other back ends' runtimes launch too. */
    launch(s, "mtia_runtime", 20, 16);
    launch(s, "Runtime", 20, 17);

    vp_step_range r1 = parse("1");
    assert_int_equal(vp_steps_select(s, &r1), 1);
    assert_int_equal(vp_steps_selected(s, 10), 0);
    assert_int_equal(vp_steps_selected(s, 11), 1);
    assert_int_equal(vp_steps_selected(s, 12), 1);
    assert_int_equal(vp_steps_selected(s, 13), 0);
    assert_int_equal(vp_steps_selected(s, 14), 0);
    assert_int_equal(vp_steps_selected(s, 15), 1);   /* "15" is a number in a string */
    assert_int_equal(vp_steps_selected(s, 16), 1);
    assert_int_equal(vp_steps_selected(s, 17), 1);
    vp_step_range r2 = parse("2");
    vp_steps_select(s, &r2);
    assert_int_equal(vp_steps_selected(s, 10), 1);
    assert_int_equal(vp_steps_selected(s, 11), 0);
    assert_int_equal(vp_steps_selected(s, 12), 0);

    /* Many launches: the map grows. */
    for (long i = 0; i < 5000; i++)
        launch(s, "cuda_runtime", 100 + i % 100, 1000 + i);
    vp_steps_select(s, &r2);
    for (long i = 0; i < 5000; i++)
        assert_int_equal(vp_steps_selected(s, 1000 + i), 1);
    vp_steps_free(s);
}

/* A launch of correlation id corr at ts with dur (us). */
static void launch_at(vp_steps *s, int64_t ts, int64_t dur, long corr)
{
    char args[64];
    snprintf(args, sizeof args, "{\"correlation\": %ld}", corr);
    observe(s, "cudaLaunchKernel", "cuda_runtime", ts, dur, args);
}

static void launch_is(vp_steps *s, long corr, int64_t ts_us, int64_t dur_us)
{
    int64_t ts = -1, dur = -1;
    assert_int_equal(vp_steps_launch(s, corr, &ts, &dur), 1);
    assert_int_equal(ts, ts_us * 1000);
    assert_int_equal(dur, dur_us * 1000);
}

/* The launch log: appended in any order, sorted at the first lookup, one
 * launch per id (the first to start; of equal starts, the first read),
 * found in any order of lookups, and still right after more launches. */
static void test_steps_launch_log(void **state)
{
    (void)state;
    vp_steps *s = vp_steps_new();
    int64_t ts, dur;
    assert_int_equal(vp_steps_launch(s, 1, &ts, &dur), 0);   /* empty */
    launch_at(s, 10, 1, 50);
    launch_at(s, 5, 2, 20);
    launch_at(s, 7, 3, 40);
    launch_at(s, 3, 4, 20);    /* id 20 again, earlier: this one launched it */
    launch_at(s, 8, 5, 30);
    launch_at(s, 8, 6, 30);    /* same start: the first read stays */
    launch_at(s, 9, 7, 20);
    launch_is(s, 50, 10, 1);   /* descending lookups: the finger walks back */
    launch_is(s, 40, 7, 3);
    launch_is(s, 30, 8, 5);
    launch_is(s, 20, 3, 4);
    assert_int_equal(vp_steps_launch(s, 10, &ts, &dur), 0);
    assert_int_equal(vp_steps_launch(s, 35, &ts, &dur), 0);
    assert_int_equal(vp_steps_launch(s, 60, &ts, &dur), 0);
    launch_at(s, 1, 8, 70);    /* after the lookups, in order */
    launch_is(s, 70, 1, 8);
    launch_at(s, 2, 9, 25);    /* and out of order */
    launch_is(s, 25, 2, 9);
    launch_is(s, 20, 3, 4);
    launch_is(s, 70, 1, 8);
    vp_steps_free(s);

    /* 10,000 ids read in a scrambled order, looked up ascending, then
     * scrambled again. */
    s = vp_steps_new();
    for (long i = 0; i < 10000; i++) {
        long id = (i * 7919) % 10000;
        launch_at(s, 2 * id, id % 7, id);
    }
    for (long id = 0; id < 10000; id++)
        launch_is(s, id, 2 * id, id % 7);
    for (long i = 0; i < 10000; i++) {
        long id = (i * 104729) % 10000;
        launch_is(s, id, 2 * id, id % 7);
    }
    assert_int_equal(vp_steps_launch(s, 10000, &ts, &dur), 0);
    assert_int_equal(vp_steps_launch(s, -1, &ts, &dur), 0);
    vp_steps_free(s);
}

static void test_steps_merge_and_names(void **state)
{
    vp_steps *s = vp_steps_new();
    vp_event ev;
    (void)state;

    /* One step annotated on two threads: one window covering both. */
    observe(s, "ProfilerStep#3", "user_annotation", 100, 50, NULL);
    observe(s, "ProfilerStep#3", "cpu_op", 80, 50, NULL);   /* Ascend: a cpu_op */
    /* Not steps. */
    observe(s, "ProfilerStep#", "user_annotation", 0, 10, NULL);
    observe(s, "ProfilerStep#x", "user_annotation", 0, 10, NULL);
    observe(s, "ProfilerStep#-4", "user_annotation", 0, 10, NULL);
    observe(s, "ProfilerStep#4 extra", "user_annotation", 0, 10, NULL);
    observe(s, "profilerStep#5", "user_annotation", 0, 10, NULL);
    ev = event("ProfilerStep#6", "user_annotation", 0, 10, NULL);
    ev.ph = 'B';
    vp_steps_observe(s, &ev);
    ev = event("ProfilerStep#7", "user_annotation", 0, 10, NULL);
    ev.has_ts = 0;
    vp_steps_observe(s, &ev);
    /* A step without dur is an empty window. */
    observe(s, "ProfilerStep#8", "user_annotation", 500, -1, NULL);

    assert_int_equal(vp_steps_count(s), 2);
    assert_int_equal(vp_steps_number(s, 0), 3);
    assert_int_equal(vp_steps_number(s, 1), 8);
    launch(s, "cuda_runtime", 80, 1);
    launch(s, "cuda_runtime", 149, 2);
    launch(s, "cuda_runtime", 150, 3);
    launch(s, "cuda_runtime", 79, 4);
    launch(s, "cuda_runtime", 500, 5);
    vp_step_range all = parse(":");
    assert_int_equal(vp_steps_select(s, &all), 2);
    assert_int_equal(vp_steps_selected(s, 1), 1);
    assert_int_equal(vp_steps_selected(s, 2), 1);
    assert_int_equal(vp_steps_selected(s, 3), 0);
    assert_int_equal(vp_steps_selected(s, 4), 0);
    assert_int_equal(vp_steps_selected(s, 5), 0);

    /* No steps at all. */
    vp_steps *none = vp_steps_new();
    assert_int_equal(vp_steps_count(none), 0);
    assert_int_equal(vp_steps_select(none, &all), 0);
    assert_int_equal(vp_steps_selected(none, 1), 0);
    vp_steps_free(none);
    vp_steps_free(s);
    vp_steps_free(NULL);
}

/* ---- stats ---- */

/* Older cmocka has no assert_double_equal. */
static void near(double got, double want, double eps)
{
    if (!(got - want <= eps && want - got <= eps))
        fail_msg("%.17g != %.17g", got, want);
}

static void test_summary_odd_even(void **state)
{
    vp_summary m;
    (void)state;

    int64_t odd[] = {5, 1, 4, 2, 3};
    vp_summarize(odd, 5, &m);
    assert_int_equal(m.n, 5);
    assert_int_equal(m.total, 15);
    assert_int_equal(m.min, 1);
    assert_int_equal(m.max, 5);
    assert_true(m.mean == 3.0);
    assert_true(m.median == 3.0);
    /* Sample stddev: sqrt(10 / 4). */
    near(m.stddev, 1.5811388300841898, 1e-12);
    for (int i = 0; i < 5; i++)
        assert_int_equal(odd[i], i + 1);   /* sorted in place */

    int64_t even[] = {10, 40, 20, 30};
    vp_summarize(even, 4, &m);
    assert_int_equal(m.total, 100);
    assert_true(m.median == 25.0);
    assert_true(m.mean == 25.0);
    near(m.stddev, 12.909944487358056, 1e-12);

    /* An even count whose middle pair sums to an odd number. */
    int64_t half[] = {1, 2};
    vp_summarize(half, 2, &m);
    assert_true(m.median == 1.5);
    near(m.stddev, 0.7071067811865476, 1e-12);

    int64_t one[] = {42};
    vp_summarize(one, 1, &m);
    assert_int_equal(m.n, 1);
    assert_true(m.median == 42.0);
    assert_true(m.stddev == 0.0);
    assert_int_equal(m.min, 42);
    assert_int_equal(m.max, 42);

    vp_summarize(NULL, 0, &m);
    assert_int_equal(m.n, 0);
    assert_int_equal(m.total, 0);
    assert_true(m.mean == 0.0 && m.median == 0.0 && m.stddev == 0.0);

    /* Large nanosecond values: the mean is not thrown off by rounding. */
    int64_t big[] = {1712195495519689047LL, 1712195495519689049LL};
    vp_summarize(big, 2, &m);
    assert_int_equal(m.total, (int64_t)(1712195495519689047ULL + 1712195495519689049ULL));
    assert_int_equal(m.min, 1712195495519689047LL);
    near(m.stddev, 1.4142135623730951, 1e-9);

    /* Identical samples: zero spread. */
    int64_t same[300];
    for (int i = 0; i < 300; i++)
        same[i] = 77;
    vp_summarize(same, 300, &m);
    assert_true(m.stddev == 0.0);
    assert_true(m.median == 77.0);
    assert_int_equal(m.total, 77 * 300);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void check_sort(int64_t *v, size_t n)
{
    int64_t *want = vp_malloc(n * sizeof *want + 1);
    memcpy(want, v, n * sizeof *v);
    qsort(want, n, sizeof *want, cmp64);
    vp_sort_i64(v, n);
    for (size_t i = 0; i < n; i++)
        if (v[i] != want[i])
            fail_msg("n=%zu: v[%zu] = %lld, want %lld", n, i, (long long)v[i], (long long)want[i]);
    free(want);
}

static void test_radix_sort(void **state)
{
    uint64_t x = 88172645463325252ULL;
    size_t sizes[] = {0, 1, 2, 255, 256, 257, 1000, 100000};
    (void)state;

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        int64_t *v = vp_malloc(n * sizeof *v + 1);
        /* Full 64-bit range with negatives. */
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v[i] = (int64_t)x;
        }
        if (n > 3) {
            v[0] = INT64_MIN;
            v[1] = INT64_MAX;
            v[2] = 0;
            v[3] = -1;
        }
        check_sort(v, n);
        /* Small durations around zero (few byte passes), with repeats. */
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v[i] = (int64_t)(x % 2001) - 1000;
        }
        check_sort(v, n);
        /* Values that differ only in high bytes. */
        for (size_t i = 0; i < n; i++)
            v[i] = (int64_t)((i * 7919) % 300) << 40;
        check_sort(v, n);
        /* Already sorted and reversed. */
        for (size_t i = 0; i < n; i++)
            v[i] = (int64_t)i - 500;
        check_sort(v, n);
        for (size_t i = 0; i < n; i++)
            v[i] = 500 - (int64_t)i;
        check_sort(v, n);
        free(v);
    }

    /* A summary over many values with negatives. */
    int64_t w[1001];
    vp_summary m;
    for (int i = 0; i < 1001; i++)
        w[i] = (int64_t)((i * 37) % 1001) - 500;
    vp_summarize(w, 1001, &m);
    assert_int_equal(m.min, -500);
    assert_int_equal(m.max, 500);
    assert_int_equal(m.total, 0);
    assert_true(m.median == 0.0);
    assert_true(m.mean == 0.0);
    for (int i = 0; i < 1001; i++)
        assert_int_equal(w[i], i - 500);
}

/* ---- classify ---- */

static void test_gpu_kind(void **state)
{
    (void)state;
    assert_int_equal(vp_gpu_kind_of(S("kernel")), VP_GPU_KERNEL);
    assert_int_equal(vp_gpu_kind_of(S("Kernel")), VP_GPU_KERNEL);
    assert_int_equal(vp_gpu_kind_of(S("mtia_ccp_events")), VP_GPU_KERNEL);
    assert_int_equal(vp_gpu_kind_of(S("gpu_memcpy")), VP_GPU_MEMCPY);
    assert_int_equal(vp_gpu_kind_of(S("Memcpy")), VP_GPU_MEMCPY);
    assert_int_equal(vp_gpu_kind_of(S("gpu_memset")), VP_GPU_MEMSET);
    assert_int_equal(vp_gpu_kind_of(S("Memset")), VP_GPU_MEMSET);
    assert_int_equal(vp_gpu_kind_of(S("cuda_sync")), VP_GPU_SYNC);
    assert_int_equal(vp_gpu_kind_of(S("gpu_user_annotation")), VP_GPU_NONE);
    assert_int_equal(vp_gpu_kind_of(S("cuda_runtime")), VP_GPU_NONE);
    assert_int_equal(vp_gpu_kind_of(S("cpu_op")), VP_GPU_NONE);
    assert_int_equal(vp_gpu_kind_of(S("")), VP_GPU_NONE);
    assert_int_equal(vp_gpu_kind_of(S("KERNEL")), VP_GPU_NONE);
    assert_int_equal(vp_gpu_kind_of(S("kernels")), VP_GPU_NONE);
    assert_int_equal(vp_gpu_kind_of(S("Memcpz")), VP_GPU_NONE);
    vp_span part = {"kernel", 5};
    assert_int_equal(vp_gpu_kind_of(part), VP_GPU_NONE);
}

static vp_kclass cls(vp_gpu_kind kind, const char *name)
{
    return vp_classify(kind, name, strlen(name));
}

static void test_classify(void **state)
{
    (void)state;
    /* Communication: NCCL's old and new names, RCCL, HCCL. */
    assert_int_equal(cls(VP_GPU_KERNEL, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
                     VP_CLASS_COMM);
    assert_int_equal(cls(VP_GPU_KERNEL, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
                     VP_CLASS_COMM);
    assert_int_equal(cls(VP_GPU_KERNEL, "void ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*)"),
                     VP_CLASS_COMM);
    assert_int_equal(cls(VP_GPU_KERNEL, "void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)"),
                     VP_CLASS_COMM);
    assert_int_equal(cls(VP_GPU_KERNEL, "rcclGenericKernel"), VP_CLASS_COMM);
    assert_int_equal(cls(VP_GPU_KERNEL, "hcclAllReduce"), VP_CLASS_COMM);
    assert_int_equal(cls(VP_GPU_KERNEL, "HcclAllGather"), VP_CLASS_COMM);
    assert_int_equal(cls(VP_GPU_KERNEL, "nccl"), VP_CLASS_COMM);
    /* Memory: copy and set activities, and kernels named like copies. */
    assert_int_equal(cls(VP_GPU_MEMCPY, "Memcpy HtoD (Pageable -> Device)"), VP_CLASS_MEMORY);
    assert_int_equal(cls(VP_GPU_MEMSET, "Memset (Device)"), VP_CLASS_MEMORY);
    assert_int_equal(cls(VP_GPU_MEMCPY, "ncclKernel_confusing"), VP_CLASS_MEMORY);
    assert_int_equal(cls(VP_GPU_KERNEL, "Memcpy DtoD (Device -> Device)"), VP_CLASS_MEMORY);
    assert_int_equal(cls(VP_GPU_KERNEL, "hipMemsetAsync"), VP_CLASS_MEMORY);
    assert_int_equal(cls(VP_GPU_KERNEL, "dma_copy"), VP_CLASS_MEMORY);
    /* Sync. */
    assert_int_equal(cls(VP_GPU_SYNC, "Stream Sync"), VP_CLASS_SYNC);
    assert_int_equal(cls(VP_GPU_SYNC, "Event Sync"), VP_CLASS_SYNC);
    assert_int_equal(cls(VP_GPU_SYNC, "Stream Wait Event"), VP_CLASS_SYNC);
    /* Compute: everything else, including near misses. */
    assert_int_equal(cls(VP_GPU_KERNEL, "void at::native::vectorized_elementwise_kernel<4>()"),
                     VP_CLASS_COMPUTE);
    assert_int_equal(cls(VP_GPU_KERNEL, "Cijk_Ailk_Bljk_SB_MT64x64x16"), VP_CLASS_COMPUTE);
    assert_int_equal(cls(VP_GPU_KERNEL, "ncc"), VP_CLASS_COMPUTE);
    assert_int_equal(cls(VP_GPU_KERNEL, "NCCL_like"), VP_CLASS_COMPUTE);
    assert_int_equal(cls(VP_GPU_KERNEL, "my_ncclKerne"), VP_CLASS_COMPUTE);
    assert_int_equal(cls(VP_GPU_KERNEL, "memcpy_kernel"), VP_CLASS_COMPUTE);
    assert_int_equal(cls(VP_GPU_KERNEL, ""), VP_CLASS_COMPUTE);
    assert_int_equal(cls(VP_GPU_NONE, "gemm"), VP_CLASS_COMPUTE);
    /* A name given by length, not NUL-terminated. */
    assert_int_equal(vp_classify(VP_GPU_KERNEL, "ncclKernel_xyz", 4), VP_CLASS_COMM);
    assert_int_equal(vp_classify(VP_GPU_KERNEL, "xncclKernel", 6), VP_CLASS_COMPUTE);
    /* A repeated first character before the match. */
    assert_int_equal(cls(VP_GPU_KERNEL, "nnnncclDevKernel"), VP_CLASS_COMM);
    assert_int_equal(cls(VP_GPU_KERNEL, "xxncclKernel"), VP_CLASS_COMM);

    assert_string_equal(vp_kclass_name(VP_CLASS_COMPUTE), "compute");
    assert_string_equal(vp_kclass_name(VP_CLASS_COMM), "communication");
    assert_string_equal(vp_kclass_name(VP_CLASS_MEMORY), "memory");
    assert_string_equal(vp_kclass_name(VP_CLASS_SYNC), "sync");
    assert_string_equal(vp_kclass_name(VP_CLASS_COUNT), "?");
}

/* The rule table on the kernel names of the libraries as their sources
 * define them and traces show them (docs/classification.md). */
static void test_comm_rules(void **state)
{
    (void)state;
    static const char *const comm[] = {
        /* DeepEP, DeepSeek's namespace (an EP64 training rank) and the library's */
        "void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*, "
        "dpsk::ep::internode::SourceMeta*, int4 const*)",
        "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*)",
        "void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*)",
        "void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int)",
        "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*)",
        "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int)",
        "void deep_ep::internode_ll::combine<7168>(void*, void*, int*)",
        /* symmetric memory (a vLLM TP8 rank on B200), PyTorch's namespace, Triton */
        "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, "
        "unsigned long, unsigned int**, unsigned long, unsigned long)",
        "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>(float**, float*)",
        "two_shot_all_reduce_kernel_0d1d2d3d",
        /* custom all-reduce */
        "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals)",
        "void sglang::cross_device_reduce_2stage<half, 4>(sglang::RankData*)",
        "void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(AllReduceParams)",
        "void trt_llm::twoShotAllReduceKernel<float, 4>(trt_llm::AllReduceParams)",
        /* NVSHMEM, MSCCL++, RCCL on ROCm, oneCCL */
        "nvshmemi_proxy_progress",
        "void mscclpp::executionKernel<__half>(int, __half*, __half*)",
        "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)",
        "oneccl_allreduce_kernel",
    };
    static const char *const compute[] = {
        /* DeepEP's local layout kernels stay compute */
        "void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*)",
        "void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*)",
        /* the same EP64 rank's grouped GEMMs: namespace dpsk, not dpsk::ep */
        "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(Params)",
        /* near misses: reductions that are not all-reduces */
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(ReduceOp<float>)",
        "triton_red_fused_all_reduce_0",
        "void at::native::cross_entropy_kernel<float>()",
        "multimem",
        "flash_fwd_kernel",
    };
    for (size_t i = 0; i < sizeof comm / sizeof *comm; i++)
        if (cls(VP_GPU_KERNEL, comm[i]) != VP_CLASS_COMM)
            fail_msg("should be communication: %s", comm[i]);
    for (size_t i = 0; i < sizeof compute / sizeof *compute; i++)
        if (cls(VP_GPU_KERNEL, compute[i]) != VP_CLASS_COMPUTE)
            fail_msg("should be compute: %s", compute[i]);

    /* A kernel no name rule decides is compute for want of evidence:
     * the args and the launcher may still say more. */
    int decided;
    assert_int_equal(vp_classify_rules(NULL, VP_GPU_KERNEL, "my_kernel", 9, &decided),
                     VP_CLASS_COMPUTE);
    assert_int_equal(decided, 0);
    assert_int_equal(vp_classify_rules(NULL, VP_GPU_KERNEL, comm[6], strlen(comm[6]), &decided),
                     VP_CLASS_COMM);
    assert_int_equal(decided, 1);
    assert_int_equal(vp_classify_rules(NULL, VP_GPU_KERNEL, compute[0], strlen(compute[0]),
                                       &decided),
                     VP_CLASS_COMPUTE);
    assert_int_equal(decided, 1);   /* an exception decides: no launcher overrides it */

    /* Launching ops */
    static const char *const ops[] = {"c10d::allreduce_", "_c10d_functional::all_reduce",
                                      "nccl:all_gather", "record_param_comms",
                                      "vllm::all_reduce", "symm_mem::multimem_all_reduce_",
                                      "c10d_functional::wait_tensor"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!vp_collective_op(ops[i], strlen(ops[i])))
            fail_msg("should be a collective op: %s", ops[i]);
    assert_false(vp_collective_op("aten::copy_", 11));
    assert_false(vp_collective_op("vllm::rms_norm", 14));
    assert_false(vp_collective_op("ProfilerStep#3", 14));

    /* The table: every rule names its family and pattern; args rules
     * read a key, the others a name. */
    size_t n;
    const vp_comm_rule *r = vp_comm_rules(&n);
    assert_true(n >= 30);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(r[i].family);
        assert_true(strlen(r[i].pattern) > 0);
        assert_true((r[i].evidence == VP_EVID_ARGS) == (r[i].how == VP_MATCH_KEY));
        assert_true(r[i].cls == VP_CLASS_COMM || r[i].cls == VP_CLASS_COMPUTE);
    }

    /* Overrides: compute's before comm's, before the rules; copies keep
     * their class. */
    vp_kclass_rules *o = vp_kclass_rules_new();
    vp_error err = {0};
    assert_int_equal(vp_kclass_rules_set(o, VP_CLASS_COMM, "my_(all)?reduce", &err), 0);
    assert_int_equal(vp_kclass_rules_set(o, VP_CLASS_COMPUTE, "cached_notify|my_allreduce_local",
                                         &err), 0);
    assert_int_equal(vp_classify_rules(o, VP_GPU_KERNEL, "void my_allreduce<8>()", 21, &decided),
                     VP_CLASS_COMM);
    assert_int_equal(decided, 1);
    assert_int_equal(vp_classify_rules(o, VP_GPU_KERNEL, comm[2], strlen(comm[2]), &decided),
                     VP_CLASS_COMPUTE);
    assert_int_equal(vp_classify_rules(o, VP_GPU_KERNEL, "my_allreduce_local", 18, &decided),
                     VP_CLASS_COMPUTE);
    assert_int_equal(vp_classify_rules(o, VP_GPU_MEMCPY, "my_reduce", 9, &decided),
                     VP_CLASS_MEMORY);
    /* a name given by length: the regex sees only those bytes */
    assert_int_equal(vp_classify_rules(o, VP_GPU_KERNEL, "my_reduce_x", 2, &decided),
                     VP_CLASS_COMPUTE);
    assert_int_equal(vp_kclass_rules_set(o, VP_CLASS_COMM, "(", &err), -1);
    assert_int_equal(err.status, VP_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "bad regular expression '('"));
    vp_kclass_rules_free(o);
}

static void test_launch_category(void **state)
{
    (void)state;
    assert_true(vp_is_launch_category(S("cuda_runtime")));
    assert_true(vp_is_launch_category(S("cuda_driver")));
    assert_true(vp_is_launch_category(S("Runtime")));
    assert_true(vp_is_launch_category(S("mtia_runtime")));
    assert_true(vp_is_launch_category(S("xpu_runtime")));
    assert_true(vp_is_launch_category(S("xpu_driver")));
    assert_true(vp_is_launch_category(S("privateuse1_runtime")));
    assert_false(vp_is_launch_category(S("cpu_op")));
    assert_false(vp_is_launch_category(S("kernel")));
    assert_false(vp_is_launch_category(S("_runtime")));
    assert_false(vp_is_launch_category(S("_driver")));
    assert_false(vp_is_launch_category(S("runtime")));
    assert_false(vp_is_launch_category(S("")));
    assert_false(vp_is_launch_category(S("cuda_runtime_x")));
}

static void test_event_kind(void **state)
{
    (void)state;
    /* every dialect's name of each kind */
    assert_int_equal(vp_event_kind(S("cpu_op"), S("aten::mm")), VP_EV_CPU_OP);
    assert_int_equal(vp_event_kind(S("Operator"), S("aten::mm")), VP_EV_CPU_OP);
    assert_int_equal(vp_event_kind(S("Operator"), S("ProfilerStep#5")), VP_EV_CPU_OP);
    assert_int_equal(vp_event_kind(S("user_annotation"), S("fwd")), VP_EV_ANNOTATION);
    assert_int_equal(vp_event_kind(S("gpu_user_annotation"), S("fwd")), VP_EV_GPU_ANNOTATION);
    assert_int_equal(vp_event_kind(S("python_function"), S("f")), VP_EV_PYTHON);
    assert_int_equal(vp_event_kind(S("cuda_runtime"), S("hipLaunchKernel")), VP_EV_RUNTIME);
    assert_int_equal(vp_event_kind(S("Runtime"), S("cudaLaunchKernel")), VP_EV_RUNTIME);
    assert_int_equal(vp_event_kind(S("hip_runtime"), S("hipMalloc")), VP_EV_RUNTIME);
    assert_int_equal(vp_event_kind(S("cuda_driver"), S("cuLaunchKernel")), VP_EV_DRIVER);
    assert_int_equal(vp_event_kind(S("Kernel"), S("k")), VP_EV_KERNEL);
    assert_int_equal(vp_event_kind(S("kernel"), S("k")), VP_EV_KERNEL);
    assert_int_equal(vp_event_kind(S("Memcpy"), S("Memcpy HtoD")), VP_EV_MEMCPY);
    assert_int_equal(vp_event_kind(S("gpu_memset"), S("Memset")), VP_EV_MEMSET);
    assert_int_equal(vp_event_kind(S("cuda_sync"), S("Event Sync")), VP_EV_SYNC);
    /* [memory] by name, whatever the category (none in torch 1.8-1.10) */
    assert_int_equal(vp_event_kind(S(""), S("[memory]")), VP_EV_MEMORY);
    assert_int_equal(vp_event_kind(S("cpu_instant_event"), S("[memory]")), VP_EV_MEMORY);
    assert_int_equal(vp_event_kind(S("cpu_instant_event"), S("[OutOfMemory]")), VP_EV_OTHER);
    assert_int_equal(vp_event_kind(S("Trace"), S("PyTorch Profiler (0)")), VP_EV_OTHER);
    assert_int_equal(vp_event_kind(S("ac2g"), S("ac2g")), VP_EV_OTHER);
    assert_true(vp_ev_is_op(VP_EV_CPU_OP) && vp_ev_is_op(VP_EV_ANNOTATION));
    assert_false(vp_ev_is_op(VP_EV_PYTHON) || vp_ev_is_op(VP_EV_RUNTIME));
}

static void test_autograd_op(void **state)
{
    (void)state;
    assert_true(vp_is_autograd_op(S("autograd::engine::evaluate_function: AddBackward0")));
    assert_true(vp_is_autograd_op(S("CudnnConvolutionBackward")));
    assert_true(vp_is_autograd_op(S("ReluBackward1")));
    assert_true(vp_is_autograd_op(S("MaxPool2DWithIndicesBackward")));
    assert_true(vp_is_autograd_op(S("torch::autograd::AccumulateGrad")));
    assert_false(vp_is_autograd_op(S("Backward")));
    assert_false(vp_is_autograd_op(S("aten::threshold_backward")));
    assert_false(vp_is_autograd_op(S("aten::cudnn_convolution_backward")));
    assert_false(vp_is_autograd_op(S("my Backward")));
    assert_false(vp_is_autograd_op(S("ReluBackward1x")));
    assert_false(vp_is_autograd_op(S("")));
}

/* ---- rank ---- */

static void test_rank_from_name(void **state)
{
    (void)state;
    assert_int_equal(vp_rank_from_name("rank-3"), 3);
    assert_int_equal(vp_rank_from_name("rank3"), 3);
    assert_int_equal(vp_rank_from_name("_rank_3"), 3);
    assert_int_equal(vp_rank_from_name("x_RANK12_y.json"), 12);
    assert_int_equal(vp_rank_from_name("trace_Rank-0.json.gz"), 0);
    assert_int_equal(vp_rank_from_name("rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"), 34);
    assert_int_equal(vp_rank_from_name("/data/rank7/trace_rank_2.json"), 2);
    assert_int_equal(vp_rank_from_name("sampled_rank-1.json.gz"), 1);
    /* The first "rank" followed by digits wins. */
    assert_int_equal(vp_rank_from_name("ranking_rank5_rank6"), 5);
    /* None. */
    assert_int_equal(vp_rank_from_name("none"), -1);
    assert_int_equal(vp_rank_from_name("trace.json"), -1);
    assert_int_equal(vp_rank_from_name(""), -1);
    assert_int_equal(vp_rank_from_name("/data/rank7/trace.json"), -1);   /* only the file name */
    assert_int_equal(vp_rank_from_name("rank"), -1);
    assert_int_equal(vp_rank_from_name("rank-"), -1);
    assert_int_equal(vp_rank_from_name("rank--3"), -1);
    assert_int_equal(vp_rank_from_name("rank_-3"), -1);
    assert_int_equal(vp_rank_from_name("ran-k3"), -1);
    /* Huge numbers stay bounded. */
    assert_true(vp_rank_from_name("rank99999999999999999999999") >= 0);
}

static void test_rank_detect(void **state)
{
    vp_rank_source src;
    (void)state;

    cJSON *meta = cJSON_Parse("{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 5}}");
    assert_int_equal(vp_rank_detect(meta, "trace_rank3.json", 9, &src), 5);
    assert_int_equal(src, VP_RANK_DISTRIBUTED_INFO);
    cJSON_Delete(meta);

    /* No usable distributedInfo.rank: the name, then the position. */
    static const char *const metas[] = {
        "{}", "{\"distributedInfo\": {}}", "{\"distributedInfo\": {\"rank\": \"5\"}}",
        "{\"distributedInfo\": {\"rank\": -1}}", "{\"distributedInfo\": 5}",
    };
    for (size_t i = 0; i < sizeof metas / sizeof metas[0]; i++) {
        meta = cJSON_Parse(metas[i]);
        assert_non_null(meta);
        assert_int_equal(vp_rank_detect(meta, "trace_rank3.json", 9, &src), 3);
        assert_int_equal(src, VP_RANK_FILE_NAME);
        assert_int_equal(vp_rank_detect(meta, "trace.json", 9, &src), 9);
        assert_int_equal(src, VP_RANK_POSITION);
        cJSON_Delete(meta);
    }
    assert_int_equal(vp_rank_detect(NULL, "rank-2.json", 0, &src), 2);
    assert_int_equal(src, VP_RANK_FILE_NAME);

    assert_string_equal(vp_rank_source_name(VP_RANK_DISTRIBUTED_INFO), "distributedInfo.rank");
    assert_string_equal(vp_rank_source_name(VP_RANK_FILE_NAME), "the file name");
    assert_string_equal(vp_rank_source_name(VP_RANK_POSITION), "its position on the command line");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_parse),
        cmocka_unit_test(test_step_number),
        cmocka_unit_test(test_steps_select),
        cmocka_unit_test(test_steps_correlation),
        cmocka_unit_test(test_steps_merge_and_names),
        cmocka_unit_test(test_steps_launch_log),
        cmocka_unit_test(test_summary_odd_even),
        cmocka_unit_test(test_radix_sort),
        cmocka_unit_test(test_gpu_kind),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_comm_rules),
        cmocka_unit_test(test_launch_category),
        cmocka_unit_test(test_event_kind),
        cmocka_unit_test(test_autograd_op),
        cmocka_unit_test(test_rank_from_name),
        cmocka_unit_test(test_rank_detect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
