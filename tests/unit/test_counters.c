/* Unit tests for src/analysis/core/describe.c, npsort.c, counters*.c: pandas'
 * describe() as HTA's summaries compute it, numpy's argsort order of equal
 * keys, HTA's copy kinds and launch set, and the queue and bandwidth of a
 * small trace with the partial result's save/merge round trip.  The
 * expected permutations and sums are numpy 1.24.2's own. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/counters.h"
#include "vprof/describe.h"

#include "tmppath.h"

static void check_argsort(const int64_t *v, const size_t *want, size_t n)
{
    size_t got[64];
    vp_np_argsort_i64(v, got, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

/* numpy.argsort(kind="quicksort") of these, on numpy 1.24.2: not stable. */
static void test_argsort(void **state)
{
    (void)state;
    static const int64_t v17[] = {0, 0, 0, 2, 1, 5, 5, 2, 2, 4, 1, 4, 0, 4, 5, 1, 3};
    static const size_t w17[] = {0, 1, 2, 12, 4, 10, 15, 8, 3, 7, 16, 9, 11, 13, 6, 5, 14};
    check_argsort(v17, w17, 17);
    static const int64_t v40[] = {4, 2, 5, 2, 6, 5, 6, 5, 5, 4, 0, 6, 3, 6, 1, 5, 0, 1, 0, 2,
                                  3, 6, 1, 3, 4, 0, 4, 1, 0, 5, 1, 3, 2, 1, 6, 6, 3, 1, 6, 6};
    static const size_t w40[] = {18, 16, 25, 10, 28, 27, 17, 14, 22, 33, 37, 30, 32, 3,
                                 1,  19, 31, 23, 12, 36, 20, 26, 24, 0,  9,  15, 29, 8,
                                 7,  5,  2,  38, 13, 11, 6,  34, 35, 4,  21, 39};
    check_argsort(v40, w40, 40);
}

static void test_describe(void **state)
{
    (void)state;
    /* HTA's queue length on event_sync_trace: 1 0 1 0 ... */
    double v[10], scratch[10];
    for (int i = 0; i < 10; i++)
        v[i] = (i + 1) % 2;
    vp_describe d;
    vp_describe_doubles(v, 10, scratch, &d);
    assert_int_equal(d.count, 10);
    assert_true(d.mean == 0.5 && d.std == 0.5270462766947299);
    assert_true(d.min == 0 && d.q25 == 0 && d.q50 == 0.5 && d.q75 == 1 && d.max == 1);
    /* two points: the quartiles interpolate (HTA's stream 203 row) */
    double two[] = {1, 0};
    vp_describe_doubles(two, 2, scratch, &d);
    assert_true(d.q25 == 0.25 && d.q50 == 0.5 && d.q75 == 0.75 && d.std == 0.7071067811865476);
    /* one point: no std (pandas: NaN) */
    vp_describe_doubles(two, 1, scratch, &d);
    assert_true(isnan(d.std) && d.mean == 1);
    vp_describe_doubles(two, 0, scratch, &d);
    assert_int_equal(d.count, 0);
    /* numpy's pairwise order, not a plain loop (1991.9999999999993) */
    double x[200];
    for (int i = 0; i < 200; i++)
        x[i] = 0.1 * i + 0.01;
    assert_true(vp_pairwise_sum(x, 200) == 1992.0000000000002);
}

static void test_names(void **state)
{
    (void)state;
    const char *k = vp_counters_copy_kind("Memcpy HtoD (Pageable -> Device)", 32);
    assert_string_equal(k, "Memcpy HtoD");
    assert_string_equal(vp_counters_copy_kind("Memset (Device)", 15), "Memset");
    assert_string_equal(vp_counters_copy_kind("dma_copy", 8), "Memcpy Unknown");
    assert_null(vp_counters_copy_kind("hipMemcpy", 9));          /* communication for HTA */
    assert_null(vp_counters_copy_kind("ncclKernel_AllReduce", 20));
    assert_null(vp_counters_copy_kind("volta_sgemm", 11));
    assert_true(vp_counters_hta_launch("cudaLaunchKernel", 16));
    assert_true(vp_counters_hta_launch("hipMemcpyWithStream", 19));
    assert_false(vp_counters_hta_launch("cudaGraphLaunch", 15));
}

/* Stream 7: calls at 10 and 20 (us), kernels at 20 and 30: at 20 the call
 * comes first (2), then the kernel (1).  A cudaGraphLaunch is not in HTA's
 * set.  One memcpy at 15 for 10 us at 2 GB/s, one memset of 0 us at 40
 * (lasts 1 us) at 0.5 GB/s. */
static const char trace[] =
    "{\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":10,\"dur\":2,\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":20,\"dur\":2,\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"ts\":21,\"dur\":2,\"args\":{\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"ts\":12,\"dur\":1,\"args\":{\"correlation\":4}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemsetAsync\",\"ts\":38,\"dur\":1,\"args\":{\"correlation\":5}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":5,\"args\":{\"stream\":7,\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":5,\"args\":{\"stream\":7,\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g\",\"pid\":0,\"tid\":7,\"ts\":31,\"dur\":5,\"args\":{\"stream\":7,\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":9,\"ts\":15,\"dur\":10,"
    "\"args\":{\"stream\":9,\"correlation\":4,\"memory bandwidth (GB/s)\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":9,\"ts\":40,\"dur\":0,"
    "\"args\":{\"stream\":9,\"correlation\":5,\"memory bandwidth (GB/s)\":0.5}}\n"
    "]}\n";

static char dir[4096], path[4200];

static int setup(void **state)
{
    (void)state;
    return test_file_make(dir, sizeof dir, path, sizeof path, "vprof-test-counters", trace);
}

static int teardown(void **state)
{
    (void)state;
    test_file_remove(dir, path);
    return 0;
}

static void check_model(const vp_counters *c)
{
    assert_int_equal(c->nqueue, 2);   /* streams 7 and 9 */
    const vp_cseries *q = &c->queue[0];
    assert_int_equal(q->stream, 7);
    static const double want[] = {1, 2, 1, 0};
    assert_int_equal(q->n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_true(q->v[i] == want[i]);
    assert_int_equal(q->ts[1], 20000);
    assert_int_equal(q->stats.count, 4);
    assert_true(q->stats.mean == 1.0);
    assert_int_equal(c->nbw, 2);
    assert_string_equal(c->bw[0].name, "Memcpy HtoD");
    assert_int_equal(c->bw[0].stats.count, 1);   /* 2, then 0 (not > 0) */
    assert_true(c->bw[0].stats.mean == 2.0);
    assert_string_equal(c->bw[1].name, "Memset");
    assert_int_equal(c->bw[1].n, 2);
    assert_int_equal(c->bw[1].ts[1], 40000);    /* the exact end; sorted as 41 us */
}

static void test_read_and_merge(void **state)
{
    (void)state;
    vp_counters_opts o = {0};
    vp_counters c;
    vp_counters_init(&c, &o);
    vp_error err = {0};
    assert_int_equal(vp_counters_read(&c, path, 0, &err), VP_EXIT_OK);
    vp_counters_finish(&c);
    check_model(&c);
    vp_buf b = {0};
    vp_counters_save(&c, &b);
    vp_counters m;
    vp_counters_init(&m, &o);
    assert_int_equal(vp_counters_merge(&m, b.data, b.len, &err), 0);
    vp_counters_finish(&m);
    check_model(&m);
    assert_int_equal(vp_counters_merge(&m, b.data, b.len / 2, &err), -1);   /* damaged */
    vp_buf_free(&b);
    vp_counters_free(&m);
    vp_counters_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argsort),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_read_and_merge),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
