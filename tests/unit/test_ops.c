/* Unit tests for src/analysis/ops/ops.c and ops_read.c: the operator tree as
 * torch builds it (only children of the same name folded, filtered names,
 * runtime calls as children, threads written out of time order), the GPU
 * time of launches, the sort, the fold, and the partial result's
 * save/merge round trip; and ops_sort.c's in-place merge of a thread's
 * runs against a stable insertion sort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/ops.h"
#include "analysis/ops/ops_tree.h"

#include "tmppath.h"

/* Thread 1: outer [0,100] holds aten::to [10,60] > aten::to [12,58] >
 * aten::to [15,50] > aten::_to_copy [20,40] (the two inner aten::to are
 * only children of their name: folded), aten::is_leaf (dropped, as torch
 * drops it) and aten::add [80,99] whose launch [85,90] ran 7 + 2 us of GPU
 * work (correlation 5); the runtime call comes last, as Kineto writes it.
 * Thread 2: aten::mul [0,30] with an identical aten::mul inside (folded). */
static const char trace[] =
    "{\"distributedInfo\": {\"rank\": %d}, \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"outer\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::to\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 50},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::to\", \"pid\": 1, \"tid\": 1, \"ts\": 12, \"dur\": 46},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": 1, \"tid\": 2, \"ts\": 0, \"dur\": 30},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": 1, \"tid\": 2, \"ts\": 0, \"dur\": 30},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::to\", \"pid\": 1, \"tid\": 1, \"ts\": 15, \"dur\": 35},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::_to_copy\", \"pid\": 1, \"tid\": 1, \"ts\": 20, \"dur\": 20},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::is_leaf\", \"pid\": 1, \"tid\": 1, \"ts\": 70, \"dur\": 1},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 80, \"dur\": 19},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 85, \"dur\": 5, \"args\": {\"correlation\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 91, \"dur\": 7, \"args\": {\"correlation\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"m\", \"pid\": 0, \"tid\": 7, \"ts\": 98, \"dur\": 2, \"args\": {\"correlation\": 5}}\n"
    "]}\n";

static char dir[256], rank0[320], rank1[320];

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-test-ops")))
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

static const vp_op_row *row_named(const vp_ops *m, const char *name, long rank)
{
    for (size_t i = 0; i < m->nrows; i++)
        if (strcmp(m->names[m->rows[i].name], name) == 0 && m->rows[i].rank == rank)
            return &m->rows[i];
    return NULL;
}

static void expect_row(const vp_ops *m, const char *name, long rank, int64_t calls,
                       int64_t total_us, int64_t self_us, int64_t self_gpu_us,
                       int64_t gpu_total_us)
{
    const vp_op_row *r = row_named(m, name, rank);
    assert_non_null(r);
    assert_int_equal(r->calls, calls);
    assert_int_equal(r->cpu_total, total_us * 1000);
    assert_int_equal(r->self_cpu, self_us * 1000);
    assert_int_equal(r->self_gpu, self_gpu_us * 1000);
    assert_int_equal(r->gpu_total, gpu_total_us * 1000);
}

static void test_tree(void **state)
{
    (void)state;
    vp_ops_opts o = {0};
    vp_ops m;
    vp_ops_init(&m, &o);
    vp_error err = {0};
    assert_int_equal(vp_ops_read(&m, rank0, 0, &err), VP_EXIT_OK);
    vp_ops_finish(&m, VP_OSORT_CPU_TOTAL);
    assert_int_equal(m.nrows, 5);
    assert_true(m.gpu);
    /* outer: 100 - 50 (aten::to) - 19 (aten::add); is_leaf is no child */
    expect_row(&m, "outer", -1, 1, 100, 31, 0, 9);
    expect_row(&m, "aten::to", -1, 1, 50, 30, 0, 0);
    expect_row(&m, "aten::_to_copy", -1, 1, 20, 20, 0, 0);
    expect_row(&m, "aten::add", -1, 1, 19, 14, 9, 9);
    expect_row(&m, "aten::mul", -1, 1, 30, 30, 0, 0);
    assert_null(row_named(&m, "aten::is_leaf", -1));
    assert_null(row_named(&m, "cudaLaunchKernel", -1));
    /* descending CPU total; 30 before 20 before 19 */
    const char *order[] = {"outer", "aten::to", "aten::mul", "aten::_to_copy", "aten::add"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(m.names[m.rows[i].name], order[i]);
    vp_op_row sum;
    vp_ops_fold(&m, 3, &sum);
    assert_int_equal(sum.calls, 2);
    assert_int_equal(sum.cpu_total, 39000);
    assert_int_equal(sum.self_gpu, 9000);
    vp_ops_free(&m);
}

static void test_runtime_rows_and_sort(void **state)
{
    (void)state;
    vp_ops_opts o = {.runtime = 1};
    vp_ops m;
    vp_ops_init(&m, &o);
    vp_error err = {0};
    assert_int_equal(vp_ops_read(&m, rank0, 0, &err), VP_EXIT_OK);
    vp_ops_finish(&m, VP_OSORT_SELF_GPU);
    assert_int_equal(m.nrows, 6);
    assert_string_equal(m.names[m.rows[0].name], "aten::add");
    /* the call's GPU work is its operator's, not its own */
    expect_row(&m, "cudaLaunchKernel", -1, 1, 5, 5, 0, 0);
    vp_ops_finish(&m, VP_OSORT_NAME);
    assert_string_equal(m.names[m.rows[0].name], "aten::_to_copy");
    vp_ops_free(&m);
}

/* Partials: saving two files apart and merging them gives what reading
 * both in one model gives, and a model saved after a merge saves back to
 * the same bytes. */
static void test_save_merge(void **state)
{
    (void)state;
    vp_ops_opts o = {.dims = VP_ODIM_RANK};
    vp_ops a, b, both, merged;
    vp_ops_init(&a, &o);
    vp_ops_init(&b, &o);
    vp_ops_init(&both, &o);
    vp_ops_init(&merged, &o);
    vp_error err = {0};
    assert_int_equal(vp_ops_read(&a, rank0, 0, &err), VP_EXIT_OK);
    assert_int_equal(vp_ops_read(&b, rank1, 1, &err), VP_EXIT_OK);
    assert_int_equal(vp_ops_read(&both, rank0, 0, &err), VP_EXIT_OK);
    assert_int_equal(vp_ops_read(&both, rank1, 1, &err), VP_EXIT_OK);
    vp_buf pa = {0}, pb = {0}, pboth = {0}, pmerged = {0};
    vp_ops_save(&a, &pa);
    vp_ops_save(&b, &pb);
    vp_ops_save(&both, &pboth);
    assert_int_equal(vp_ops_merge(&merged, pa.data, pa.len, &err), 0);
    assert_int_equal(vp_ops_merge(&merged, pb.data, pb.len, &err), 0);
    vp_ops_save(&merged, &pmerged);
    assert_int_equal(pmerged.len, pboth.len);
    assert_memory_equal(pmerged.data, pboth.data, pboth.len);
    vp_ops_finish(&merged, VP_OSORT_CPU_TOTAL);
    assert_int_equal(merged.nrows, 10);
    expect_row(&merged, "aten::add", 0, 1, 19, 14, 9, 9);
    expect_row(&merged, "aten::add", 1, 1, 19, 14, 9, 9);
    /* a damaged partial is an error, not a partial answer */
    assert_int_equal(vp_ops_merge(&merged, pa.data, pa.len - 1, &err), -1);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    vp_buf_free(&pa);
    vp_buf_free(&pb);
    vp_buf_free(&pboth);
    vp_buf_free(&pmerged);
    vp_ops_free(&a);
    vp_ops_free(&b);
    vp_ops_free(&both);
    vp_ops_free(&merged);
}

/* The fuzz input of CI's run (tests/fuzz/corpus/part/ops_nul_name.vpart):
 * a name with a NUL inside was interned apart from the same name without
 * it, then saved up to the NUL, so the save held the name twice and did
 * not merge back to the same bytes.  A NUL in a name or a path is damage. */
static void test_merge_nul(void **state)
{
    (void)state;
    /* flags 0; no files; names "a" and "a\0b"; no shapes; no rows */
    static const unsigned char name[] = {0, 0, 2, 1, 'a', 3, 'a', 0, 'b', 0, 0};
    static const unsigned char path[] = {0, 1, 0, 3, 'p', 0, 'q', 0, 0, 0};
    static const unsigned char fine[] = {0, 0, 2, 1, 'a', 2, 'a', 'b', 0, 0};
    vp_ops_opts o = {0};
    vp_ops m;
    vp_error err = {0};
    vp_ops_init(&m, &o);
    assert_int_equal(vp_ops_merge(&m, name, sizeof name, &err), -1);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    assert_string_equal(err.msg, "damaged ops partial result");
    assert_int_equal(vp_ops_merge(&m, path, sizeof path, &err), -1);
    vp_ops_free(&m);
    vp_ops_init(&m, &o);
    assert_int_equal(vp_ops_merge(&m, fine, sizeof fine, &err), 0);
    assert_int_equal(m.nnames, 2);
    vp_ops_free(&m);
}

/* A stable insertion sort by start, the longer first: torch's order. */
static void sort_slow(oslice *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        oslice x = v[i];
        size_t j = i;
        while (j > 0 && (x.ts < v[j - 1].ts || (x.ts == v[j - 1].ts && x.end > v[j - 1].end))) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* ops_sort_thread against sort_slow on lists shaped as threads arrive
 * (two interleaved ascending runs, Kineto's operators then runtime calls;
 * many short runs; descending: one run per slice) and at random, with
 * few distinct starts and ends so that ties are many: the name (the
 * slice's place in file order) says that equal slices keep that order. */
static void test_sort_thread(void **state)
{
    (void)state;
    enum { N = 3000 };
    uint64_t seed = 12345;
    for (int shape = 0; shape < 4; shape++) {
        for (size_t n = 0; n <= N; n = n ? n * 3 : 1) {
            othread th = {vp_malloc((n ? n : 1) * sizeof *th.v), n, n};
            oslice *want = vp_malloc((n ? n : 1) * sizeof *want);
            for (size_t i = 0; i < n; i++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                int64_t r = (int64_t)(seed >> 33) % 16, ts;
                if (shape == 0)         /* first half ascending, then the second */
                    ts = (int64_t)(i < n / 2 ? i : i - n / 2) * 2 + (i >= n / 2);
                else if (shape == 1)    /* runs of 7 */
                    ts = (int64_t)(i % 7) * 3 + r % 3;
                else if (shape == 2)    /* descending */
                    ts = (int64_t)(n - i);
                else
                    ts = r;
                th.v[i] = (oslice){.ts = ts, .end = ts + (int64_t)((seed >> 40) % 4),
                                   .x = -1, .name = (uint32_t)i, .kind = K_OP};
            }
            memcpy(want, th.v, n * sizeof *want);
            sort_slow(want, n);
            ops_sort_thread(&th);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(th.v[i].ts, want[i].ts);
                assert_int_equal(th.v[i].end, want[i].end);
                assert_int_equal(th.v[i].name, want[i].name);
            }
            free(th.v);
            free(want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_runtime_rows_and_sort),
        cmocka_unit_test(test_save_merge),
        cmocka_unit_test(test_merge_nul),
        cmocka_unit_test(test_sort_thread),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
