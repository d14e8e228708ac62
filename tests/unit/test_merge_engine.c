/* Unit tests for the merge engine (src/merge/, vprof/merge.h):
 * pids and flow ids rewritten per rank, the clock moved by
 * baseTimeNanoseconds or to each rank's start, and the same bytes with
 * worker processes as without. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/merge.h"
#include "vprof/util.h"

#include "tmppath.h"

/* Two processes (pids 1 and 2, the same in both ranks), a flow between
 * them; ts in microseconds. */
static const char TRACE_A[] =
    "{\"traceEvents\":[\n"
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python\"}},\n"
    "{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},\n"
    "{\"name\":\"k\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":12,\"dur\":1},\n"
    "{\"name\":\"f\",\"ph\":\"s\",\"pid\":1,\"tid\":1,\"ts\":11,\"id\":7,\"cat\":\"ac2g\"},\n"
    "{\"name\":\"f\",\"ph\":\"f\",\"pid\":2,\"tid\":7,\"ts\":12,\"id\":7,\"cat\":\"ac2g\",\"bp\":\"e\"}\n"
    "],\"baseTimeNanoseconds\":1000000000}\n";

/* The same shape, its clock 2 us later, a string flow id, a late start. */
static const char TRACE_B[] =
    "{\"traceEvents\":[\n"
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python\"}},\n"
    "{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":250,\"dur\":5},\n"
    "{\"name\":\"k\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":240,\"dur\":1},\n"
    "{\"name\":\"f\",\"ph\":\"s\",\"pid\":1,\"tid\":1,\"ts\":251,\"id\":7,\"cat\":\"ac2g\"},\n"
    "{\"name\":\"f\",\"ph\":\"f\",\"pid\":2,\"tid\":7,\"ts\":252,\"id\":\"0x1f\",\"cat\":\"ac2g\",\"bp\":\"e\"}\n"
    "],\"baseTimeNanoseconds\":1000002000}\n";

static char dir[256];
static char path_a[320], path_b[320], path_out[320];

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-test-merge")))
        return -1;
    snprintf(path_a, sizeof path_a, "%s/a.json", dir);
    snprintf(path_b, sizeof path_b, "%s/b.json", dir);
    snprintf(path_out, sizeof path_out, "%s/out.json", dir);
    put_file(path_a, TRACE_A);
    put_file(path_b, TRACE_B);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path_a);
    unlink(path_b);
    unlink(path_out);
    rmdir(dir);
    return 0;
}

/* Merges a.json (rank 0, by position) and b.json@3 with the given clock
 * and jobs; returns the output's text (to free) and fills res. */
static char *merge_ab(vp_merge_align align, long jobs, vp_merge_result *res)
{
    vp_merge_input in[2] = {
        {.path = path_a},
        {.path = path_b, .rank = 3, .rank_explicit = 1},
    };
    vp_merge_opts o = {.output = path_out, .align = align, .jobs = jobs};
    vp_error err = {0};
    int r = vp_merge_run(in, 2, &o, res, &err);
    if (r != 0)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(r, 0);
    FILE *f = fopen(path_out, "r");
    assert_non_null(f);
    vp_buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        vp_buf_append(&b, chunk, n);
    fclose(f);
    vp_buf_cstr(&b);
    return b.data;
}

static void assert_has(const char *text, const char *line)
{
    if (!strstr(text, line))
        fail_msg("missing: %s\nin:\n%s", line, text);
}

/* Rank R's processes are R*1000 + their order of appearance: the two
 * ranks' pids 1 and 2 do not collide, and the names carry the rank. */
static void test_pids_per_rank(void **state)
{
    (void)state;
    vp_merge_result res;
    char *out = merge_ab(VP_ALIGN_NONE, 1, &res);
    assert_has(out, "{\"name\":\"a\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":10,\"dur\":5}");
    assert_has(out, "{\"name\":\"k\",\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":12,\"dur\":1}");
    assert_has(out, "{\"name\":\"a\",\"ph\":\"X\",\"pid\":3000,\"tid\":1,\"ts\":250,\"dur\":5}");
    assert_has(out, "{\"name\":\"k\",\"ph\":\"X\",\"pid\":3001,\"tid\":7,\"ts\":240,\"dur\":1}");
    assert_has(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3000,\"tid\":0,\"args\":{\"name\":\"rank 3: python\"}}");
    assert_has(out, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 3001, \"tid\": 0, \"args\": {\"name\": \"rank 3: pid 2\"}}");
    assert_has(out, "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 3001, \"tid\": 0, \"args\": {\"sort_index\": 3001}}");
    assert_has(out, "\"vprofMerge\": {\"version\": 1, \"pidsPerRank\": 1000}");
    assert_null(strstr(out, "\"pid\":2,"));
    assert_int_equal(res.n, 2);
    assert_int_equal(res.ranks[0].rank, 0);
    assert_int_equal(res.ranks[1].rank, 3);
    assert_int_equal(res.ranks[1].rank_explicit, 1);
    assert_int_equal(res.ranks[0].events_read, 5);
    assert_int_equal(res.ranks[1].events_written, 5);
    assert_int_equal(res.wrote, 1);
    vp_merge_result_free(&res);
    free(out);
}

/* Flow ids get each rank's own space: 7 stays 7 on rank 0, becomes
 * 3 * 2^32 + 7 on rank 3; a non-decimal string id gets the "r3:" prefix. */
static void test_flow_ids_per_rank(void **state)
{
    (void)state;
    vp_merge_result res;
    char *out = merge_ab(VP_ALIGN_NONE, 1, &res);
    assert_has(out, "{\"name\":\"f\",\"ph\":\"s\",\"pid\":0,\"tid\":1,\"ts\":11,\"id\":7,\"cat\":\"ac2g\"}");
    assert_has(out, "{\"name\":\"f\",\"ph\":\"f\",\"pid\":1,\"tid\":7,\"ts\":12,\"id\":7,\"cat\":\"ac2g\",\"bp\":\"e\"}");
    assert_has(out, "{\"name\":\"f\",\"ph\":\"s\",\"pid\":3000,\"tid\":1,\"ts\":251,\"id\":12884901895,\"cat\":\"ac2g\"}");
    assert_has(out, "{\"name\":\"f\",\"ph\":\"f\",\"pid\":3001,\"tid\":7,\"ts\":252,\"id\":\"r3:0x1f\",\"cat\":\"ac2g\",\"bp\":\"e\"}");
    vp_merge_result_free(&res);
    free(out);
}

/* --align base: rank 3's clock starts 2000 ns after rank 0's, so its ts
 * move 2 us later; the merged file keeps rank 0's base. */
static void test_clock_base(void **state)
{
    (void)state;
    vp_merge_result res;
    char *out = merge_ab(VP_ALIGN_AUTO, 1, &res);
    assert_int_equal(res.ranks[0].shift, 0);
    assert_int_equal(res.ranks[1].shift, 2000);
    assert_int_equal(res.any_base, 1);
    assert_has(out, "{\"name\":\"a\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":10,\"dur\":5}");
    assert_has(out, "{\"name\":\"a\",\"ph\":\"X\",\"pid\":3000,\"tid\":1,\"ts\":252,\"dur\":5}");
    assert_has(out, "{\"name\":\"k\",\"ph\":\"X\",\"pid\":3001,\"tid\":7,\"ts\":242,\"dur\":1}");
    assert_has(out, "\"baseTimeNanoseconds\": 1000000000,\n");
    assert_has(out, "\"shiftNs\": 2000");
    vp_merge_result_free(&res);
    free(out);
}

/* --align start: each rank's first ts (10 us and 240 us) becomes 0; the
 * merged file has no base then. */
static void test_clock_start(void **state)
{
    (void)state;
    vp_merge_result res;
    char *out = merge_ab(VP_ALIGN_START, 1, &res);
    assert_int_equal(res.ranks[0].shift, -10000);
    assert_int_equal(res.ranks[1].shift, -240000);
    assert_has(out, "{\"name\":\"a\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":0,\"dur\":5}");
    assert_has(out, "{\"name\":\"k\",\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":2,\"dur\":1}");
    assert_has(out, "{\"name\":\"a\",\"ph\":\"X\",\"pid\":3000,\"tid\":1,\"ts\":10,\"dur\":5}");
    assert_has(out, "{\"name\":\"k\",\"ph\":\"X\",\"pid\":3001,\"tid\":7,\"ts\":0,\"dur\":1}");
    assert_null(strstr(out, "\"baseTimeNanoseconds\": 1000000000,\n"));
    vp_merge_result_free(&res);
    free(out);
}

/* Worker processes (one per input, parts appended in order) write the
 * same bytes as one process. */
static void test_jobs_same_bytes(void **state)
{
    (void)state;
    vp_merge_result r1, r2;
    char *one = merge_ab(VP_ALIGN_AUTO, 1, &r1);
    char *two = merge_ab(VP_ALIGN_AUTO, 2, &r2);
    assert_string_equal(one, two);
    assert_int_equal(r2.ranks[1].shift, 2000);
    vp_merge_result_free(&r1);
    vp_merge_result_free(&r2);
    free(one);
    free(two);
}

/* Two inputs of the same rank are refused, naming both. */
static void test_duplicate_rank(void **state)
{
    (void)state;
    vp_merge_input in[2] = {
        {.path = path_a, .rank = 1, .rank_explicit = 1},
        {.path = path_b, .rank = 1, .rank_explicit = 1},
    };
    vp_merge_opts o = {.output = path_out, .jobs = 1};
    vp_error err = {0};
    vp_merge_result res;
    assert_int_equal(vp_merge_run(in, 2, &o, &res, &err), -1);
    assert_int_equal(err.status, VP_EXIT_USAGE);
    char want[1024];
    snprintf(want, sizeof want, "%s and %s are both given as rank 1", path_a, path_b);
    assert_string_equal(err.msg, want);
    assert_int_equal(res.wrote, 0);
    vp_merge_result_free(&res);
}

/* The operands as the library turns them into inputs: FILE@RANK with its
 * rank, FILE alone without, and category lists. */
static void test_inputs_from_operands(void **state)
{
    (void)state;
    vp_merge_inputs l = {0};
    vp_merge_inputs_add(&l, "no-such-dir/r.json@12");
    vp_merge_inputs_add(&l, "no-such-dir/plain.json");
    assert_int_equal(l.n, 2);
    assert_string_equal(l.in[0].path, "no-such-dir/r.json");
    assert_string_equal(l.in[0].arg, "no-such-dir/r.json@12");
    assert_int_equal(l.in[0].rank, 12);
    assert_int_equal(l.in[0].rank_explicit, 1);
    assert_string_equal(l.in[1].path, "no-such-dir/plain.json");
    assert_int_equal(l.in[1].rank_explicit, 0);
    assert_ptr_equal(l.in[1].path, l.paths[1]);
    vp_merge_inputs_free(&l);
    assert_int_equal(l.n, 0);

    char **cats = NULL;
    size_t n = 0;
    assert_int_equal(vp_merge_parse_list("python_function,,cuda_runtime", &cats, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(cats[0], "python_function");
    assert_string_equal(cats[1], "cuda_runtime");
    for (size_t i = 0; i < n; i++)
        free(cats[i]);
    free(cats);
    n = 0;
    cats = NULL;
    assert_int_equal(vp_merge_parse_list(",", &cats, &n), -1);
    free(cats);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pids_per_rank),
        cmocka_unit_test(test_flow_ids_per_rank),
        cmocka_unit_test(test_clock_base),
        cmocka_unit_test(test_clock_start),
        cmocka_unit_test(test_jobs_same_bytes),
        cmocka_unit_test(test_duplicate_rank),
        cmocka_unit_test(test_inputs_from_operands),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
