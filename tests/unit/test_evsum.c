/* Unit tests for src/analysis/evsum/evsum.c: the three families' selection and
 * keys (API names, copy kinds with bytes, ranges per category), exact
 * statistics, and the partial result's save/merge round trip; the calls
 * api_statistic.csv totalled (pre-totalled parts: their combination with
 * each other and with samples, their partial, bad rows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "vprof/evsum.h"

#include "tmppath.h"

static const char trace[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 0, \"dur\": 4},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 5, \"dur\": 2},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuLaunchKernel\", \"ts\": 9, \"dur\": 9},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 20},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"ts\": 30, \"dur\": 2, \"args\": {\"bytes\": 2000}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", \"ts\": 40, \"dur\": 1, \"args\": {\"bytes\": 4000}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"ts\": 50, \"dur\": 1, \"args\": {\"bytes\": 8}},\n"
    "{\"ph\": \"X\", \"cat\": \"Memcpy\", \"name\": \"Memcpy\", \"ts\": 60, \"dur\": 3},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"fwd\", \"ts\": 0, \"dur\": 10},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"fwd\", \"ts\": 2, \"dur\": 20},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 2, \"dur\": 20}\n"
    "]}\n";

static char dir[256], path[320];

static int setup(void **state)
{
    (void)state;
    return test_file_make(dir, sizeof dir, path, sizeof path, "vprof-test-evsum", trace);
}

static int teardown(void **state)
{
    (void)state;
    test_file_remove(dir, path);
    return 0;
}

static void read_family(vp_evsum *s, vp_evsum_family f)
{
    vp_evsum_opts o = {.family = f};
    vp_error err = {0};
    vp_evsum_init(s, &o);
    assert_int_equal(vp_evsum_read(s, path, 0, &err), VP_EXIT_OK);
    vp_evsum_finish(s);
}

static void test_api(void **state)
{
    (void)state;
    vp_evsum s;
    read_family(&s, VP_EVSUM_API);
    assert_int_equal(s.ngroups, 2);
    assert_string_equal(s.str[s.groups[0].name], "cuLaunchKernel");
    assert_int_equal(s.groups[0].d.total, 9000);
    assert_string_equal(s.str[s.groups[1].name], "cudaLaunchKernel");
    assert_int_equal(s.groups[1].d.n, 2);
    assert_true(s.groups[1].d.median == 3000.0);
    assert_int_equal(s.no_dur, 1);
    assert_int_equal(s.grand, 15000);
    vp_evsum_free(&s);
}

static void test_copies(void **state)
{
    (void)state;
    vp_evsum s;
    read_family(&s, VP_EVSUM_COPIES);
    assert_int_equal(s.ngroups, 3);
    /* HtoD 3 us, other 3 us (ties by name), memset 1 us */
    assert_string_equal(s.str[s.groups[0].name], "HtoD");
    assert_int_equal(s.groups[0].d.n, 2);
    assert_int_equal(s.groups[0].b.total, 6000);
    assert_true(s.groups[0].b.median == 3000.0);
    assert_string_equal(s.str[s.groups[1].name], "other");
    assert_int_equal(s.groups[1].nbytes, 0);
    assert_string_equal(s.str[s.groups[2].name], "memset");
    assert_int_equal(s.groups[2].b.total, 8);
    size_t n;
    const char *k = vp_copy_kind("Memcpy PtoP (Device -> Device)", 30, &n);
    assert_int_equal(n, 4);
    assert_memory_equal(k, "PtoP", 4);
    vp_evsum_free(&s);
}

static void test_ranges_and_merge(void **state)
{
    (void)state;
    vp_evsum a, b;
    read_family(&a, VP_EVSUM_RANGES);
    assert_int_equal(a.ngroups, 2);
    assert_string_equal(a.str[a.groups[0].cat], "gpu_user_annotation");
    assert_int_equal(a.groups[0].d.total, 20000);
    assert_string_equal(a.str[a.groups[1].cat], "user_annotation");
    vp_evsum_opts o = {.family = VP_EVSUM_RANGES};
    vp_evsum_init(&b, &o);
    vp_evsum c;
    vp_evsum_init(&c, &o);
    vp_error err = {0};
    assert_int_equal(vp_evsum_read(&c, path, 0, &err), VP_EXIT_OK);
    vp_buf buf = {0};
    vp_evsum_save(&c, &buf);
    assert_int_equal(vp_evsum_merge(&b, buf.data, buf.len, &err), 0);
    assert_int_equal(vp_evsum_merge(&b, buf.data, buf.len, &err), 0);
    vp_evsum_finish(&b);
    assert_int_equal(b.nfiles, 2);
    assert_int_equal(b.ngroups, 2);
    assert_int_equal(b.groups[0].d.n, 2);
    assert_int_equal(b.groups[0].d.total, 40000);
    assert_string_equal(b.str[b.groups[1].cat], "user_annotation");
    assert_int_equal(vp_evsum_merge(&b, buf.data, buf.len - 1, &err), -1);
    vp_buf_free(&buf);
    vp_evsum_free(&a);
    vp_evsum_free(&b);
    vp_evsum_free(&c);
}

/* The GPU projection of ranges (vprof/rangeproj.h), by rank, through a
 * partial: fwd [0,10] us launches (call [2,3]) a kernel [20,25] and, nested
 * in it, inner [4,6] launches nothing; a call [9,12] outlasts fwd. */
static void test_projection(void **state)
{
    (void)state;
    static const char proj_trace[] =
        "{\"distributedInfo\": {\"rank\": 3}, \"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"fwd\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 10},\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"inner\", \"pid\": 1, \"tid\": 1, \"ts\": 4, \"dur\": 2},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1, \"args\": {\"correlation\": 7}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 9, \"dur\": 3, \"args\": {\"correlation\": 8}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 30, \"dur\": 5, \"args\": {\"correlation\": 8}}\n"
        "]}\n";
    char p2[400];
    snprintf(p2, sizeof p2, "%s/p.json", dir);
    FILE *f = fopen(p2, "w");
    assert_non_null(f);
    fputs(proj_trace, f);
    fclose(f);
    vp_evsum_opts o = {.family = VP_EVSUM_RANGES, .project = 1, .by_rank = 1};
    vp_evsum one, all;
    vp_evsum_init(&one, &o);
    vp_evsum_init(&all, &o);
    vp_error err = {0};
    assert_int_equal(vp_evsum_read(&one, p2, 0, &err), VP_EXIT_OK);
    vp_buf buf = {0};
    vp_evsum_save(&one, &buf);
    assert_int_equal(vp_evsum_merge(&all, buf.data, buf.len, &err), 0);
    vp_evsum_finish(&all);
    assert_int_equal(all.ngroups, 2);
    assert_int_equal(all.groups[0].rank, 3);
    assert_non_null(all.proj);
    assert_int_equal(all.proj->ngroups, 1);
    const vp_projgroup *g = &all.proj->groups[0];
    assert_string_equal(all.proj->str[g->name], "fwd");
    assert_int_equal(g->rank, 3);
    assert_int_equal(g->d.total, 5000);
    assert_int_equal(g->range_total, 10000);
    assert_int_equal(g->ops, 1);
    assert_int_equal(g->levels, 0);
    assert_int_equal(g->children, 0);
    assert_int_equal(g->gpu_time, 5000);
    /* a partial with a projection into a result without one: read, dropped */
    vp_evsum plain;
    vp_evsum_opts po = {.family = VP_EVSUM_RANGES, .by_rank = 1};
    vp_evsum_init(&plain, &po);
    assert_int_equal(vp_evsum_merge(&plain, buf.data, buf.len, &err), 0);
    assert_null(plain.proj);
    vp_buf_free(&buf);
    vp_evsum_free(&one);
    vp_evsum_free(&all);
    vp_evsum_free(&plain);
    unlink(p2);
}

/* ---- pre-totalled calls (api_statistic.csv) ---- */

/* Calls of 1000, 3000 and 2000 ns: n 3, mean 2000, squared deviations
 * 10^6 + 10^6 + 0, sample variance 10^6, StdDev 1000 exactly, whichever
 * way they are cut into parts. */
static void test_agg_combine(void **state)
{
    (void)state;
    int64_t raw[] = {1000, 3000, 2000}, two[] = {2000};
    vp_summary want, got;
    vp_summarize(raw, 3, &want);
    assert_true(want.stddev == 1000.0);
    /* a part {1000, 3000} (m2 = 2 * 10^6) and the sample 2000 */
    vp_evagg a = {2, 4000, 1000, 3000, 2e6};
    vp_summarize_with_aggs(two, 1, &a, 1, &got);
    assert_int_equal(got.n, 3);
    assert_int_equal(got.total, 6000);
    assert_int_equal(got.min, 1000);
    assert_int_equal(got.max, 3000);
    assert_true(got.mean == 2000.0);
    assert_true(got.stddev == want.stddev);
    assert_true(isnan(got.median));
    /* three parts of one call each: all the spread is between the parts */
    vp_evagg ones[] = {{1, 1000, 1000, 1000, 0}, {1, 3000, 3000, 3000, 0}, {1, 2000, 2000, 2000, 0}};
    vp_summarize_with_aggs(NULL, 0, ones, 3, &got);
    assert_int_equal(got.n, 3);
    assert_int_equal(got.min, 1000);
    assert_int_equal(got.max, 3000);
    assert_true(got.stddev == 1000.0);
    /* one part of one call: no spread */
    vp_summarize_with_aggs(NULL, 0, ones, 1, &got);
    assert_true(got.stddev == 0.0 && got.mean == 1000.0 && got.total == 1000);
    /* no part: vp_summarize itself, median kept */
    vp_summarize_with_aggs(raw, 3, NULL, 0, &got);
    assert_true(got.median == 2000.0 && got.stddev == 1000.0);
}

static void write_file(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* msprof's header with Device_id; aclnnMatmul on two devices: 10, 30 us
 * (Variance 100 us^2) and 20 us; "2.0005" us is 2000.5 ns, rounded. */
static const char apistat[] =
    "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n"
    "0,acl,aclnnMatmul,40,2,20,10,30,100\n"
    "1,acl,aclnnMatmul,20,1,20,20,20,0\n"
    "0,runtime,aclnnMatmul,2.0005,1,2.0005,2.0005,2.0005,0\n";

static void test_apistat(void **state)
{
    (void)state;
    char p2[400];
    snprintf(p2, sizeof p2, "%s/api_statistic.csv", dir);
    write_file(p2, apistat);
    vp_error err = {0};
    /* by name: 10, 30, 20 and 2.0005 us */
    vp_evsum_opts o = {.family = VP_EVSUM_API};
    vp_evsum one, all;
    vp_evsum_init(&one, &o);
    assert_int_equal(vp_evsum_read(&one, p2, 0, &err), VP_EXIT_OK);
    vp_buf buf = {0};
    vp_evsum_save(&one, &buf);
    vp_evsum_finish(&one);
    assert_int_equal(one.ngroups, 1);
    const vp_evgroup *g = &one.groups[0];
    assert_int_equal(g->nagg, 3);
    assert_int_equal(g->d.n, 4);
    assert_int_equal(g->d.total, 62001);
    assert_int_equal(g->d.min, 2001);
    assert_int_equal(g->d.max, 30000);
    assert_true(isnan(g->d.median));
    /* the calls' own sample variance: mean 15500.25, squared deviations
     * summed 442973000.75, / 3 (12151.447112038411 ns) */
    assert_true(fabs(g->d.stddev - sqrt(442973000.75 / 3)) < 1e-6);
    /* the partial keeps the parts: merged twice, 8 calls, 6 parts */
    vp_evsum_init(&all, &o);
    assert_int_equal(vp_evsum_merge(&all, buf.data, buf.len, &err), 0);
    assert_int_equal(vp_evsum_merge(&all, buf.data, buf.len, &err), 0);
    vp_evsum_finish(&all);
    assert_int_equal(all.nfiles, 2);
    assert_int_equal(all.groups[0].nagg, 6);
    assert_int_equal(all.groups[0].d.n, 8);
    assert_int_equal(all.groups[0].d.total, 124002);
    /* a part with no call is damage */
    /* the last part's n: zigzag 1, before total, min and max (2 bytes
     * each), m2 (8) and the projection flag (1) */
    size_t at = buf.len - 1 - 8 - 6 - 1;
    assert_int_equal((unsigned char)buf.data[at], 2);
    buf.data[at] = 0;
    vp_evsum bad;
    vp_evsum_init(&bad, &o);
    assert_int_equal(vp_evsum_merge(&bad, buf.data, buf.len, &err), -1);
    vp_evsum_free(&bad);
    vp_buf_free(&buf);
    vp_evsum_free(&one);
    vp_evsum_free(&all);
    /* by level: acl and runtime apart */
    vp_evsum_opts ol = {.family = VP_EVSUM_API, .by_level = 1};
    vp_evsum lv;
    vp_evsum_init(&lv, &ol);
    assert_int_equal(vp_evsum_read(&lv, p2, 0, &err), VP_EXIT_OK);
    vp_evsum_finish(&lv);
    assert_int_equal(lv.ngroups, 2);
    assert_string_equal(lv.str[lv.groups[0].cat], "acl");
    assert_int_equal(lv.groups[0].d.total, 60000);
    /* 10, 30 (m2 200 us^2) and 20: squared deviations 200 us^2, / 2 */
    assert_true(fabs(lv.groups[0].d.stddev - 10000.0) < 1e-9);
    assert_string_equal(lv.str[lv.groups[1].cat], "runtime");
    assert_int_equal(lv.groups[1].d.total, 2001);
    vp_evsum_free(&lv);
    /* a bad row: its file and line, status 3 */
    write_file(p2, "Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n"
                   "acl,a,1,1,1,1,1,0\n"
                   "acl,b,2,2,1,1,1,N/A\n");
    vp_evsum_init(&lv, &ol);
    memset(&err, 0, sizeof err);
    assert_int_equal(vp_evsum_read(&lv, p2, 0, &err), VP_EXIT_INPUT);
    assert_non_null(strstr(err.msg, "api_statistic.csv: line 3: Variance is missing"));
    vp_evsum_free(&lv);
    unlink(p2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_ranges_and_merge),
        cmocka_unit_test(test_projection),
        cmocka_unit_test(test_agg_combine),
        cmocka_unit_test(test_apistat),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
