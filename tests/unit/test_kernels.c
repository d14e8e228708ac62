/* Unit tests for src/analysis/kernels/kernels.c: grouping by name and by rank and
 * stream, exact medians of odd and even counts, the (others) fold, and
 * the partial result's save/merge round trip, and a damaged partial that
 * would not save back to its own bytes refused; the class totals that
 * vprof report's rider takes from vp_gpuwork's events. */
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

#include "vprof/gpupass.h"
#include "vprof/kernels.h"
#include "vprof/part.h"

#include "tmppath.h"

/* Two ranks of the same work: a = 5, 1, 3 us (1 on stream 9), b = 4, 2,
 * 8, 6 us (2 on stream 9); the rest on stream 7. */
static const char trace[] =
    "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 4, \"args\": {\"stream\": 7, \"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": 0, \"tid\": 9, \"ts\": 30, \"dur\": 1, \"args\": {\"stream\": 9, \"correlation\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"pid\": 0, \"tid\": 9, \"ts\": 40, \"dur\": 2, \"args\": {\"stream\": 9, \"correlation\": 4}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 3, \"args\": {\"stream\": 7, \"correlation\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"pid\": 0, \"tid\": 7, \"ts\": 60, \"dur\": 8, \"args\": {\"stream\": 7, \"correlation\": 6}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 0, \"tid\": 1, \"ts\": 65, \"dur\": 1, \"args\": {\"correlation\": 7}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"pid\": 0, \"tid\": 7, \"ts\": 70, \"dur\": 6, \"args\": {\"stream\": 7, \"correlation\": 7}}\n"
    "]}\n";

static char dir[256], rank0[320], rank1[320];

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-test-kernels")))
        return -1;
    for (int r = 0; r < 2; r++) {
        char *p = r ? rank1 : rank0;
        snprintf(p, sizeof rank0, "%s/rank%d.json", dir, r);
        FILE *f = fopen(p, "w");
        if (!f)
            return -1;
        fprintf(f, trace, r);
        fclose(f);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(rank0);
    unlink(rank1);
    rmdir(dir);
    return 0;
}

static void read_ok(vp_kernels *k, const char *path, size_t position)
{
    vp_error err = {0};
    int st = vp_kernels_read(k, path, position, &err);
    if (st != VP_EXIT_OK)
        fail_msg("%s", err.msg);
}

static const char *name_of(const vp_kernels *k, const vp_kgroup *g)
{
    return k->knames[g->key.name].text;
}

static void test_medians_by_name(void **state)
{
    (void)state;
    vp_kernels k;
    vp_kernels_opts o = {.kinds = 1u << VP_GPU_KERNEL, .by_name = 1};
    vp_kernels_init(&k, &o);
    read_ok(&k, rank0, 0);
    assert_int_equal(k.nfiles, 1);
    assert_int_equal(k.ranks[0], 0);
    vp_kernels_finish(&k, VP_KSORT_TOTAL);
    assert_int_equal(k.ngroups, 2);
    assert_int_equal(k.grand, 29000);
    /* b: 4 instances (even): the median is the mean of the middle two */
    const vp_kgroup *b = &k.groups[0];
    assert_string_equal(name_of(&k, b), "b");
    assert_int_equal(b->sum.n, 4);
    assert_int_equal(b->sum.total, 20000);
    assert_true(b->sum.median == 5000.0);
    assert_true(b->sum.mean == 5000.0);
    assert_int_equal(b->sum.min, 2000);
    assert_int_equal(b->sum.max, 8000);
    assert_true(fabs(b->sum.stddev - sqrt(20e6 / 3)) < 1e-9);
    /* a: 3 instances (odd): the middle one */
    const vp_kgroup *a = &k.groups[1];
    assert_string_equal(name_of(&k, a), "a");
    assert_int_equal(a->sum.n, 3);
    assert_int_equal(a->sum.total, 9000);
    assert_true(a->sum.median == 3000.0);
    assert_true(a->sum.stddev == 2000.0);
    assert_int_equal(k.knames[0].cls, VP_CLASS_COMPUTE);
    vp_kernels_free(&k);
}

static void test_by_rank_and_stream(void **state)
{
    (void)state;
    vp_kernels k;
    vp_kernels_opts o = {.kinds = 1u << VP_GPU_KERNEL, .by_name = 1,
                         .dims = VP_KDIM_RANK | VP_KDIM_STREAM};
    vp_kernels_init(&k, &o);
    read_ok(&k, rank1, 0);   /* the ranks come from distributedInfo, not the order */
    read_ok(&k, rank0, 1);
    vp_kernels_finish(&k, VP_KSORT_TOTAL);
    assert_int_equal(k.ngroups, 8);
    /* ties on total: by name, then rank, then stream */
    static const struct {
        const char *name;
        long rank;
        int64_t stream, n, total;
        double median;
    } want[] = {
        {"b", 0, 7, 3, 18000, 6000}, {"b", 1, 7, 3, 18000, 6000},
        {"a", 0, 7, 2, 8000, 4000},  {"a", 1, 7, 2, 8000, 4000},
        {"b", 0, 9, 1, 2000, 2000},  {"b", 1, 9, 1, 2000, 2000},
        {"a", 0, 9, 1, 1000, 1000},  {"a", 1, 9, 1, 1000, 1000},
    };
    for (size_t i = 0; i < 8; i++) {
        const vp_kgroup *g = &k.groups[i];
        assert_string_equal(name_of(&k, g), want[i].name);
        assert_int_equal(g->rank, want[i].rank);
        assert_int_equal(g->key.stream, want[i].stream);
        assert_int_equal(g->sum.n, want[i].n);
        assert_int_equal(g->sum.total, want[i].total);
        assert_true(g->sum.median == want[i].median);
    }
    /* (others) past the first two rows: a 4000, 5000 / 3000 ... exact */
    vp_summary s;
    int exact;
    vp_kernels_fold(&k, 2, &s, &exact);
    assert_int_equal(exact, 1);
    assert_int_equal(s.n, 8);
    assert_int_equal(s.total, 22000);
    assert_true(s.median == 2500.0);
    vp_kernels_free(&k);
}

static void test_steps(void **state)
{
    (void)state;
    /* no ProfilerStep in the trace: --steps keeps nothing */
    vp_step_range r = {0};
    vp_kernels k;
    vp_kernels_opts o = {.kinds = 1u << VP_GPU_KERNEL, .by_name = 1, .steps = &r};
    vp_kernels_init(&k, &o);
    int q = vp_quiet;
    vp_quiet = 1;
    read_ok(&k, rank0, 0);
    vp_quiet = q;
    vp_kernels_finish(&k, VP_KSORT_TOTAL);
    assert_int_equal(k.ngroups, 0);
    vp_kernels_free(&k);
}

static void test_aggregate_fold(void **state)
{
    (void)state;
    vp_kernels k;
    vp_kernels_opts o = {.kinds = 1u << VP_GPU_KERNEL, .by_name = 1};
    vp_kernels_init(&k, &o);
    uint32_t x = vp_kernels_name(&k, "x", 1, VP_CLASS_COUNT, VP_GPU_KERNEL);
    uint32_t y = vp_kernels_name(&k, "ncclKernel_AllReduce", 20, VP_CLASS_COUNT, VP_GPU_KERNEL);
    assert_int_equal(vp_kernels_name(&k, "x", 1, VP_CLASS_COMPUTE, VP_GPU_KERNEL), x);
    assert_int_equal(k.knames[y].cls, VP_CLASS_COMM);
    uint32_t gx = vp_kernels_group(&k, 0, x, -1, -1, -1, 0, 0);
    uint32_t gy = vp_kernels_group(&k, 0, y, -1, -1, -1, 0, 0);
    assert_int_equal(vp_kernels_group(&k, 0, x, -1, -1, -1, 0, 0), gx);
    vp_kernels_add(&k, gx, 10);
    vp_kernels_add(&k, gx, 30);
    vp_kernels_add_aggregate(&k, gy, 4, 100, 10, 40);
    vp_kernels_add_aggregate(&k, gy, 1, 5, 5, 5);
    vp_kernels_finish(&k, VP_KSORT_TOTAL);
    assert_int_equal(k.groups[0].sum.n, 5);
    assert_int_equal(k.groups[0].sum.total, 105);
    assert_int_equal(k.groups[0].sum.min, 5);
    assert_int_equal(k.groups[0].sum.max, 40);
    assert_true(k.groups[0].sum.mean == 21.0);
    vp_summary s;
    int exact;
    vp_kernels_fold(&k, 0, &s, &exact);
    assert_int_equal(exact, 0);
    assert_int_equal(s.n, 7);
    assert_int_equal(s.total, 145);
    assert_int_equal(s.min, 5);
    assert_int_equal(s.max, 40);
    vp_kernels_fold(&k, 1, &s, &exact);
    assert_int_equal(exact, 1);
    assert_true(s.median == 20.0);
    vp_kernels_free(&k);
}

static void test_save_merge_round_trip(void **state)
{
    (void)state;
    vp_kernels_opts o = {.kinds = 1u << VP_GPU_KERNEL, .by_name = 1,
                         .dims = VP_KDIM_RANK | VP_KDIM_STREAM};
    vp_kernels one, two, all;
    vp_kernels_init(&one, &o);
    vp_kernels_init(&two, &o);
    vp_kernels_init(&all, &o);
    read_ok(&one, rank0, 0);
    read_ok(&two, rank1, 1);
    vp_buf p1 = {0}, p2 = {0}, again = {0};
    vp_kernels_save(&one, &p1);
    vp_kernels_save(&two, &p2);
    vp_error err = {0};
    assert_int_equal(vp_kernels_merge(&all, p1.data, p1.len, &err), 0);
    /* one partial merged into an empty model saves the same bytes */
    vp_kernels_save(&all, &again);
    assert_int_equal(again.len, p1.len);
    assert_memory_equal(again.data, p1.data, p1.len);
    assert_int_equal(vp_kernels_merge(&all, p2.data, p2.len, &err), 0);
    assert_int_equal(all.nfiles, 2);
    assert_int_equal(all.ranks[1], 1);
    assert_string_equal(all.paths[1], rank1);
    vp_kernels_finish(&all, VP_KSORT_TOTAL);
    assert_int_equal(all.ngroups, 8);
    assert_int_equal(all.grand, 58000);
    assert_int_equal(all.groups[1].rank, 1);
    assert_true(all.groups[1].sum.median == 6000.0);
    /* a damaged partial is an error, never an overrun */
    assert_int_equal(vp_kernels_merge(&all, p2.data, p2.len - 1, &err), -1);
    assert_string_equal(err.msg, "damaged kernels partial result");
    vp_buf_free(&p1);
    vp_buf_free(&p2);
    vp_buf_free(&again);
    vp_kernels_free(&one);
    vp_kernels_free(&two);
    vp_kernels_free(&all);
}

/* A kernels payload written here, as vp_kernels_save would: one file, two
 * Ascend core strings, one name, a group per core with one sample each. */
static void core_payload(vp_buf *b, const char *core1, size_t n1, const char *core2, size_t n2)
{
    vp_put_u64(b, 1);
    vp_put_i64(b, 3);
    vp_put_i64(b, 0);
    vp_put_str(b, "r3.csv", 6);
    vp_put_u64(b, 2);
    vp_put_str(b, core1, n1);
    vp_put_str(b, core2, n2);
    vp_put_u64(b, 1);
    vp_put_str(b, "MatMul", 6);
    vp_put_u64(b, (uint64_t)VP_CLASS_COMPUTE);
    vp_put_u64(b, 2);
    for (uint64_t core = 1; core <= 2; core++) {
        vp_put_u64(b, 1);                 /* the name */
        vp_put_u64(b, 0);                 /* the file */
        vp_put_i64(b, -1);                /* device */
        vp_put_i64(b, -1);                /* stream */
        vp_put_u64(b, (uint64_t)VP_CLASS_COMPUTE);
        vp_put_u64(b, 0);                 /* not a merged trace's */
        vp_put_u64(b, 0);                 /* no op type */
        vp_put_u64(b, core);
        vp_put_u64(b, 1);
        vp_put_i64(b, (int64_t)(100 * core));
        vp_put_i64(b, 0);                 /* no aggregate */
    }
}

/* The fuzz input of CI's run (tests/fuzz/corpus/part/kernels_nul_core.vpart):
 * Ascend strings with a NUL inside.  The model keeps them as C strings, so
 * "AI\0CORE" and "AI\0VECTOR" were two groups that saved as two "AI" and
 * merged back as one: the merge of one partial was not a fixed point.
 * Such a partial is refused, saying why; without the NUL the same payload
 * merges and saves back to its own bytes. */
static void test_merge_refuses_nul_in_strings(void **state)
{
    (void)state;
    vp_kernels_opts o = {.kinds = 1u << VP_GPU_KERNEL, .by_name = 1,
                         .dims = VP_KDIM_RANK | VP_KDIM_CORE};
    vp_kernels k;
    vp_error err = {0};
    vp_buf bad = {0}, good = {0}, saved = {0};
    core_payload(&bad, "AI\0CORE", 7, "AI\0VECTOR", 9);
    vp_kernels_init(&k, &o);
    assert_int_equal(vp_kernels_merge(&k, bad.data, bad.len, &err), -1);
    assert_int_equal(err.status, 3);
    assert_string_equal(err.msg,
                        "damaged kernels partial result: an Ascend op type or core holds a NUL byte");
    vp_kernels_free(&k);

    core_payload(&good, "AI_CORE", 7, "AI_VECTOR", 9);
    vp_kernels_init(&k, &o);
    assert_int_equal(vp_kernels_merge(&k, good.data, good.len, &err), 0);
    assert_int_equal(k.ngroups, 2);
    vp_kernels_save(&k, &saved);
    assert_int_equal(saved.len, good.len);
    assert_memory_equal(saved.data, good.data, good.len);
    vp_kernels_free(&k);

    /* a path with a NUL inside is refused the same way */
    vp_buf path = {0};
    vp_put_u64(&path, 1);
    vp_put_i64(&path, 0);
    vp_put_i64(&path, 0);
    vp_put_str(&path, "a\0b", 3);
    vp_put_u64(&path, 0);
    vp_put_u64(&path, 0);
    vp_put_u64(&path, 0);
    vp_kernels_init(&k, &o);
    err = (vp_error){0};
    assert_int_equal(vp_kernels_merge(&k, path.data, path.len, &err), -1);
    assert_string_equal(err.msg, "damaged kernels partial result: a file's path holds a NUL byte");
    vp_kernels_free(&k);
    vp_buf_free(&bad);
    vp_buf_free(&good);
    vp_buf_free(&saved);
    vp_buf_free(&path);
}

/* Kernels, an NCCL kernel, a copy, a set and a sync, then a runtime call:
 * by class and stream, 12 us of compute on stream 7 (a), 7 us of
 * communication on 9, 3 us of copy and 2 us of set on 7 and a sync of 4
 * us on 7 that the model leaves out. */
static const char classes_trace[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\", \"pid\": 0, \"tid\": 9, \"ts\": 12, \"dur\": 7, \"args\": {\"stream\": 9, \"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 3, \"args\": {\"stream\": 7, \"correlation\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 24, \"dur\": 2, \"args\": {\"stream\": 7, \"correlation\": 4}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": 0, \"tid\": 7, \"ts\": 30, \"dur\": 7, \"args\": {\"stream\": 7, \"correlation\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Event Sync\", \"pid\": 0, \"tid\": 7, \"ts\": 40, \"dur\": 4, \"args\": {\"stream\": 7}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 0, \"tid\": 1, \"ts\": 45, \"dur\": 1, \"args\": {\"correlation\": 6}}\n"
    "]}\n";

static void observe_gpu(void *ctx, vp_gpuwork *w, long gi, const vp_event *ev)
{
    vp_kernels_trace_observe_gpu(ctx, ev, w, gi);
}

/* One model by class and stream, filled from a trace (by_gpu: from
 * vp_gpuwork's events on a GPU pass, as vprof report's rider is), and
 * finished by total. */
static void read_classes(vp_kernels *k, const char *path, int by_gpu)
{
    vp_kernels_opts o = {.kinds = 1u << VP_GPU_KERNEL | 1u << VP_GPU_MEMCPY |
                                  1u << VP_GPU_MEMSET,
                         .dims = VP_KDIM_CLASS | VP_KDIM_STREAM, .totals_only = 1};
    vp_kernels_init(k, &o);
    if (!by_gpu) {
        read_ok(k, path, 0);
    } else {
        vp_gpu_pass p;
        vp_kernels_trace t;
        vp_error err = {0};
        vp_trace_pass_opts po = {.no_progress = 1, .rank = -1};
        vp_kernels_trace_begin(&t, k, path, &p.pass);
        assert_int_equal(vp_gpu_pass_read(&p, path, &po, observe_gpu, &t, &err), 0);
        vp_kernels_trace_end(&t, &p.w);
        assert_int_equal(t.kernels, 5);
        vp_gpu_pass_close(&p);
    }
    vp_kernels_finish(k, VP_KSORT_TOTAL);
}

static void test_classes_from_gpu_events(void **state)
{
    (void)state;
    char cdir[256], path[320];
    assert_int_equal(test_file_make(cdir, sizeof cdir, path, sizeof path, "vprof-test-classes",
                                    classes_trace), 0);
    static const struct {
        vp_kclass cls;
        int64_t stream, n, total;
    } want[] = {
        {VP_CLASS_COMPUTE, 7, 2, 12000},
        {VP_CLASS_COMM, 9, 1, 7000},
        {VP_CLASS_MEMORY, 7, 2, 5000},
    };
    for (int by_gpu = 0; by_gpu < 2; by_gpu++) {
        vp_kernels k;
        read_classes(&k, path, by_gpu);
        assert_int_equal(k.ngroups, 3);
        assert_int_equal(k.grand, 24000);
        for (size_t i = 0; i < 3; i++) {
            const vp_kgroup *g = &k.groups[i];
            assert_int_equal(g->key.cls, want[i].cls);
            assert_int_equal(g->key.stream, want[i].stream);
            assert_int_equal(g->key.name, UINT32_MAX);
            assert_int_equal(g->sum.n, want[i].n);
            assert_int_equal(g->sum.total, want[i].total);
        }
        /* vp_gpuwork's kind and class: no name looked up, vp_kernels_read
         * too reads a model grouped by class through the GPU-work pass */
        assert_int_equal(k.nnames, 0);
        vp_kernels_free(&k);
    }
    test_file_remove(cdir, path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_medians_by_name),
        cmocka_unit_test(test_by_rank_and_stream),
        cmocka_unit_test(test_steps),
        cmocka_unit_test(test_aggregate_fold),
        cmocka_unit_test(test_save_merge_round_trip),
        cmocka_unit_test(test_merge_refuses_nul_in_strings),
        cmocka_unit_test(test_classes_from_gpu_events),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
