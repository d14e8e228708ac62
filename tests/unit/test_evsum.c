/* Unit tests for src/analysis/evsum.c: the three families' selection and
 * keys (API names, copy kinds with bytes, ranges per category), exact
 * statistics, and the partial result's save/merge round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_ranges_and_merge),
        cmocka_unit_test(test_projection),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
