/* Unit tests for src/analysis/launches/launches.c (the join itself: test_corrjoin.c): HTA's three
 * numbers per launch, its plot counts, nsys cuda_kern_exec_sum's samples,
 * the earliest of repeated calls, unlaunched work, --steps, the rows kept
 * under a bound, and the partial result's save/merge round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/launches.h"

#include "tmppath.h"

/* A: call 10+5, kernel k at 20 for 3 (delay 5, queue 5, total 13).
 * B: call 30+60 (a long call), kernel k at 80 for 4 (starts before the call
 *    returns: delay 0, no queue time, total 60).
 * C: memcpy call 100+2, memcpy at 300 for 1 (delay 198: a long delay;
 *    GPU shorter than the call: short).
 * A later driver call repeats id 1 (ignored: the earliest launched it);
 * a kernel with id 9 has no call and one has no id (both unlaunched). */
static const char trace[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#1\", \"ts\": 0, \"dur\": 50},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#2\", \"ts\": 50, \"dur\": 300},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 20, \"dur\": 3, \"args\": {\"stream\": 7, \"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuLaunchKernel\", \"ts\": 12, \"dur\": 1, \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 30, \"dur\": 60, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 80, \"dur\": 4, \"args\": {\"stream\": 7, \"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"ts\": 100, \"dur\": 2, \"args\": {\"correlation\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", \"ts\": 300, \"dur\": 1, \"args\": {\"stream\": 7, \"correlation\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 400, \"dur\": 1, \"args\": {\"stream\": 7, \"correlation\": 9}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 410, \"dur\": 1}\n"
    "]}\n";

static char dir[256], path[320];

static int setup(void **state)
{
    (void)state;
    return test_file_make(dir, sizeof dir, path, sizeof path, "vprof-test-launches", trace);
}

static int teardown(void **state)
{
    (void)state;
    test_file_remove(dir, path);
    return 0;
}

static vp_launches_opts opts(long keep)
{
    vp_launches_opts o = {.runtime_cutoff = 50000, .delay_cutoff = 100000, .keep = keep};
    return o;
}

static void read_one(vp_launches *l, const vp_launches_opts *o)
{
    vp_error err = {0};
    vp_launches_init(l, o);
    assert_int_equal(vp_launches_read(l, path, 0, &err), VP_EXIT_OK);
}

static void test_hta_numbers(void **state)
{
    (void)state;
    vp_launches_opts o = opts(-1);
    vp_launches l;
    read_one(&l, &o);
    vp_launches_finish(&l);
    assert_int_equal(l.nfiles, 1);
    const vp_lfile *f = &l.files[0];
    assert_int_equal(f->launches, 3);
    assert_int_equal(f->runtime_over, 1);
    assert_int_equal(f->delay_over, 1);
    assert_int_equal(f->short_gpu, 2);
    assert_int_equal(f->unlaunched, 2);
    assert_int_equal(f->cpu_total, 67000);
    assert_int_equal(f->gpu_total, 8000);
    assert_int_equal(f->delay_total, 203000);
    assert_int_equal(f->delay_max, 198000);
    /* by delay: C, A, B */
    assert_int_equal(l.nrows, 3);
    assert_int_equal(l.rows[0].corr, 3);
    assert_int_equal(l.rows[0].delay, 198000);
    assert_string_equal(l.names[l.rows[0].api], "cudaMemcpyAsync");
    assert_int_equal(l.rows[1].corr, 1);
    assert_int_equal(l.rows[1].cpu_dur, 5000);   /* the runtime call, not the later driver one */
    assert_int_equal(l.rows[1].gpu_dur, 3000);
    assert_int_equal(l.rows[1].delay, 5000);
    assert_string_equal(l.names[l.rows[1].api], "cudaLaunchKernel");
    assert_int_equal(l.rows[2].corr, 2);
    assert_int_equal(l.rows[2].delay, 0);
    vp_launches_free(&l);
}

static void test_exec_sum(void **state)
{
    (void)state;
    vp_launches_opts o = opts(0);
    vp_launches l;
    read_one(&l, &o);
    vp_launches_finish(&l);
    assert_int_equal(l.nrows, 0);
    assert_int_equal(l.all_rows, 3);
    assert_int_equal(l.ngroups, 1);   /* kernels only: the memcpy is not a row */
    const vp_lgroup *g = &l.groups[0];
    assert_string_equal(l.names[g->name], "k");
    assert_int_equal(g->n, 2);
    assert_int_equal(g->nq, 1);
    assert_int_equal(g->a.total, 65000);
    assert_true(g->a.median == 32500.0);
    assert_int_equal(g->q.total, 5000);
    assert_int_equal(g->k.min, 3000);
    assert_int_equal(g->k.max, 4000);
    assert_int_equal(g->t.min, 13000);
    assert_int_equal(g->t.max, 60000);
    vp_launches_free(&l);
}

static void test_steps_and_keep(void **state)
{
    (void)state;
    vp_step_range r;
    assert_int_equal(vp_step_range_parse(":-1", &r), 0);
    vp_launches_opts o = opts(1);
    o.steps = &r;
    vp_launches l;
    read_one(&l, &o);
    vp_launches_finish(&l);
    /* step 1 holds the calls of A and B; C's call is in the last step */
    assert_int_equal(l.files[0].launches, 2);
    assert_int_equal(l.all_rows, 2);
    assert_int_equal(l.nrows, 1);
    assert_int_equal(l.rows[0].corr, 1);
    vp_launches_free(&l);
}

static void test_save_merge(void **state)
{
    (void)state;
    vp_launches_opts o = opts(-1);
    vp_launches a, b;
    read_one(&a, &o);
    vp_buf buf = {0};
    vp_launches_save(&a, &buf);
    vp_launches_init(&b, &o);
    vp_error err = {0};
    assert_int_equal(vp_launches_merge(&b, buf.data, buf.len, &err), 0);
    assert_int_equal(vp_launches_merge(&b, buf.data, buf.len, &err), 0);
    vp_launches_finish(&a);
    vp_launches_finish(&b);
    assert_int_equal(b.nfiles, 2);
    assert_int_equal(b.files[1].short_gpu, 2);
    assert_int_equal(b.all_rows, 6);
    assert_int_equal(b.nrows, 6);
    assert_int_equal(b.rows[0].corr, 3);
    assert_int_equal(b.rows[1].corr, 3);
    assert_int_equal(b.rows[1].file, 1);
    assert_int_equal(b.groups[0].n, 4);
    assert_int_equal(b.groups[0].nq, 2);
    assert_int_equal(b.groups[0].k.total, 2 * a.groups[0].k.total);
    /* a damaged partial is refused */
    assert_int_equal(vp_launches_merge(&b, buf.data, buf.len - 3, &err), -1);
    vp_buf_free(&buf);
    vp_launches_free(&a);
    vp_launches_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hta_numbers),
        cmocka_unit_test(test_exec_sum),
        cmocka_unit_test(test_steps_and_keep),
        cmocka_unit_test(test_save_merge),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
