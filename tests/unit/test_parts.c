/* Unit tests for the analyses' table (src/exec/analyses.c, vprof/analyses.h)
 * and the driver of partial results (src/exec/parts.c, vprof/parts.h):
 * the entries and their versions, every model's empty round trip, the
 * order of the merges for any number of jobs, a failing input's status and
 * message (here and from a worker), a worker that dies, --save-part's files
 * read back by a reduce, and a partial of another command refused. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmppath.h"
#include "vprof/analyses.h"
#include "vprof/evsum.h"
#include "vprof/kernels.h"
#include "vprof/parts.h"

/* ---- the table ---- */

static void test_table(void **state)
{
    static const struct {
        const char *command;
        uint64_t version;
        int reads;      /* a uniform read step */
    } want[] = {
        {"kernels", 2, 1}, {"ops", 1, 1},    {"roofline", 1, 1}, {"launches", 2, 1},
        {"counters", 1, 1}, {"api", 3, 1},   {"copies", 3, 1},   {"ranges", 3, 1},
        {"comm", 5, 0},    {"steps", 4, 0},
        {"summary", 12, 1}, {"check", 12, 1}, {"memory", 3, 0},   {"report", 7, 1},
    };
    (void)state;
    size_t n = 0;
    const vp_analysis *t = vp_analyses(&n);
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(t[i].command, want[i].command);
        assert_int_equal(t[i].version, want[i].version);
        assert_int_equal(t[i].read != NULL, want[i].reads);
        assert_non_null(t[i].new_model);
        assert_non_null(t[i].merge);
        assert_non_null(t[i].save);
        assert_non_null(t[i].free_model);
        assert_ptr_equal(vp_analysis_find(want[i].command), &t[i]);
    }
    assert_null(vp_analysis_find("mfu"));
    assert_null(vp_analysis_find("reduce"));
    assert_null(vp_analysis_find(""));
}

/* The widest model of each family is of its own family. */
static void test_evsum_families(void **state)
{
    static const char *const names[] = {"api", "copies", "ranges"};
    static const vp_evsum_family fam[] = {VP_EVSUM_API, VP_EVSUM_COPIES, VP_EVSUM_RANGES};
    (void)state;
    for (int i = 0; i < 3; i++) {
        const vp_analysis *a = vp_analysis_find(names[i]);
        vp_evsum *e = a->new_model(NULL);
        assert_int_equal(e->o.family, fam[i]);
        a->free_model(e);
    }
    /* given options win */
    vp_evsum_opts o = {.family = VP_EVSUM_RANGES};
    const vp_analysis *a = vp_analysis_find("api");
    vp_evsum *e = a->new_model(&o);
    assert_int_equal(e->o.family, VP_EVSUM_RANGES);
    a->free_model(e);
}

/* An empty model's partial merges into another empty model, which saves
 * the same bytes: every entry's four functions fit together. */
static void test_empty_round_trip(void **state)
{
    (void)state;
    size_t n = 0;
    const vp_analysis *t = vp_analyses(&n);
    for (size_t i = 0; i < n; i++) {
        void *m = t[i].new_model(NULL), *again = t[i].new_model(NULL);
        vp_buf s1 = {0}, s2 = {0};
        vp_error err = {0};
        t[i].save(m, &s1);
        assert_true(s1.len > 0);
        assert_int_equal(t[i].merge(again, s1.data, s1.len, &err), 0);
        t[i].save(again, &s2);
        assert_int_equal(s1.len, s2.len);
        assert_memory_equal(s1.data, s2.data, s1.len);
        /* one byte short is damaged: an input error, never a crash */
        void *cut = t[i].new_model(NULL);
        assert_int_equal(t[i].merge(cut, s1.data, s1.len - 1, &err), -1);
        assert_int_equal(err.status, 3);
        t[i].free_model(cut);
        t[i].free_model(m);
        t[i].free_model(again);
        vp_buf_free(&s1);
        vp_buf_free(&s2);
    }
}

/* ---- the driver, over a made-up analysis ----
 * Its model is a string: an input's partial is the input's name, a merge
 * appends the partial and ';'.  "bad" fails to read, "damaged" reads to a
 * partial the merge refuses, "die" kills its worker. */

static void *fake_new(const void *opts)
{
    (void)opts;
    return vp_calloc(1, sizeof(vp_buf));
}

static int fake_merge(void *m, const void *p, size_t n, vp_error *err)
{
    if (n == 7 && memcmp(p, "damaged", 7) == 0) {
        vp_error_set(err, 3, "damaged partial");
        return -1;
    }
    vp_buf_append(m, p, n);
    vp_buf_putc(m, ';');
    return 0;
}

static void fake_save(const void *m, vp_buf *out)
{
    const vp_buf *b = m;
    vp_buf_append(out, b->data, b->len);
}

static void fake_free(void *m)
{
    vp_buf_free(m);
    free(m);
}

static pid_t test_pid;

static int fake_read(void *m, const void *opts, const char *input, size_t i, vp_error *err)
{
    (void)opts;
    (void)i;
    if (strcmp(input, "bad") == 0) {
        vp_error_set(err, 3, "%s: not a trace", input);
        return 3;
    }
    if (strcmp(input, "die") == 0 && getpid() != test_pid)
        raise(SIGKILL);
    vp_buf_append(m, input, strlen(input));
    return 0;
}

static const vp_analysis fake = {"fake", 9, fake_new, fake_merge, fake_save, fake_free,
                                 fake_read, NULL};

/* What the hooks were told, in order. */
static vp_buf said;

static void hook_report(void *ctx, const vp_error *err)
{
    (void)ctx;
    /* in a worker this reaches the parent only through its stderr */
    fprintf(stderr, "report: %s\n", err->msg);
    vp_buf_printf(&said, "report: %s\n", err->msg);
}

static void hook_echo(void *ctx, const char *text, size_t n)
{
    (void)ctx;
    vp_buf_printf(&said, "echo: ");
    vp_buf_append(&said, text, n);
}

static vp_parts_job job_of(vp_buf *model)
{
    vp_parts_job j = {.command = "fake", .a = &fake, .model = model,
                      .hooks = {hook_report, hook_echo, NULL}};
    return j;
}

static const char *text(vp_buf *b)
{
    return b->len ? vp_buf_cstr(b) : "";
}

static void test_order(void **state)
{
    static char *inputs[] = {"a", "bb", "c", "dd", "e", "ff", "g"};
    (void)state;
    for (long jobs = 1; jobs <= 4; jobs++) {
        vp_buf m = {0};
        vp_parts_job j = job_of(&m);
        assert_int_equal(vp_parts_analyse(&j, jobs, inputs, 0, 7), 0);
        assert_string_equal(text(&m), "a;bb;c;dd;e;ff;g;");
        vp_buf_free(&m);
        /* a share: inputs [2, 5) */
        j = job_of(&m);
        assert_int_equal(vp_parts_analyse(&j, jobs, inputs, 2, 5), 0);
        assert_string_equal(text(&m), "c;dd;e;");
        vp_buf_free(&m);
    }
}

static void test_failing_input(void **state)
{
    static char *inputs[] = {"a", "bad", "c"};
    (void)state;
    for (long jobs = 1; jobs <= 3; jobs += 2) {
        vp_buf m = {0};
        said.len = 0;
        vp_parts_job j = job_of(&m);
        assert_int_equal(vp_parts_analyse(&j, jobs, inputs, 0, 3), 3);
        /* what came before is merged, nothing after */
        assert_string_equal(text(&m), "a;");
        /* here the report itself; from a worker its stderr, at its turn */
        assert_string_equal(text(&said), jobs == 1 ? "report: bad: not a trace\n"
                                                   : "echo: report: bad: not a trace\n");
        vp_buf_free(&m);
    }
    static char *damaged[] = {"a", "damaged", "c"};
    vp_buf m = {0};
    said.len = 0;
    vp_parts_job j = job_of(&m);
    assert_int_equal(vp_parts_analyse(&j, 2, damaged, 0, 3), 3);
    assert_string_equal(text(&m), "a;");
    assert_string_equal(text(&said), "report: fake: damaged: damaged partial\n");
    vp_buf_free(&m);
}

static void test_worker_dies(void **state)
{
    static char *inputs[] = {"a", "die", "c"};
    (void)state;
    vp_buf m = {0};
    said.len = 0;
    vp_parts_job j = job_of(&m);
    assert_int_equal(vp_parts_analyse(&j, 2, inputs, 0, 3), 3);
    assert_string_equal(text(&m), "a;");
    const char *s = text(&said);
    assert_true(strncmp(s, "report: fake: die: the worker process ", 38) == 0);
    assert_non_null(strstr(s, " died of signal 9 ("));
    vp_buf_free(&m);
}

/* --save-part with %i: one file per input, the model untouched; a reduce
 * of them merges them in the order given. */
static void test_save_and_reduce(void **state)
{
    static char *inputs[] = {"a", "bb", "c"};
    (void)state;
    char dir[512], pattern[600];
    test_tmp_template(dir, sizeof dir, "vprof-parts");
    assert_non_null(mkdtemp(dir));
    snprintf(pattern, sizeof pattern, "%s/p%%i.vpart", dir);
    static const char opts[] = "--x\0";
    vp_buf m = {0};
    vp_parts_job j = job_of(&m);
    j.save_part = pattern;
    j.options = opts;
    j.noptions = sizeof opts - 1;
    assert_int_equal(vp_parts_each(&j), 1);
    assert_int_equal(vp_parts_analyse(&j, 2, inputs, 0, 3), 0);
    assert_int_equal(m.len, 0);

    char p0[600], p1[600], p2[600], all[600];
    snprintf(p0, sizeof p0, "%s/p0.vpart", dir);
    snprintf(p1, sizeof p1, "%s/p1.vpart", dir);
    snprintf(p2, sizeof p2, "%s/p2.vpart", dir);
    char *paths[] = {p2, p0, p1};
    vp_parts_job r = job_of(&m);
    r.options = opts;
    r.noptions = sizeof opts - 1;
    assert_int_equal(vp_parts_reduce(&r, paths, 3), 0);
    assert_string_equal(text(&m), "c;a;bb;");

    /* the merge as one file (no %i), read back the same */
    snprintf(all, sizeof all, "%s/all.vpart", dir);
    r.save_part = all;
    assert_int_equal(vp_parts_each(&r), 0);
    assert_int_equal(vp_parts_save(&r, 3), 0);
    vp_buf m2 = {0};
    vp_parts_job r2 = job_of(&m2);
    r2.options = opts;
    r2.noptions = sizeof opts - 1;
    char *one[] = {all};
    assert_int_equal(vp_parts_reduce(&r2, one, 1), 0);
    assert_string_equal(text(&m2), "c;a;bb;;");
    vp_buf_free(&m2);

    /* another command's partial is refused, and nothing of it merged */
    static const vp_analysis other = {"other", 9, fake_new, fake_merge, fake_save, fake_free,
                                      fake_read, NULL};
    vp_buf m3 = {0};
    vp_parts_job o = job_of(&m3);
    o.command = "other";
    o.a = &other;
    said.len = 0;
    assert_int_equal(vp_parts_reduce(&o, paths, 3), 3);
    assert_int_equal(m3.len, 0);
    vp_buf want = {0};
    vp_buf_printf(&want, "report: reduce: %s: a partial result of vprof fake, not of vprof other\n",
                  p2);
    assert_string_equal(text(&said), vp_buf_cstr(&want));
    vp_buf_free(&want);

    unlink(p0);
    unlink(p1);
    unlink(p2);
    unlink(all);
    rmdir(dir);
    vp_buf_free(&m);
}

/* ---- the driver over a real entry: kernels of two HTA ranks ---- */

static char *data_path(const char *name)
{
    const char *d = getenv("VPROF_TEST_DATA");
    vp_buf b = {0};
    vp_buf_printf(&b, "%s/%s", d ? d : "tests/data", name);
    vp_buf_cstr(&b);
    return b.data;
}

static void test_kernels_any_jobs(void **state)
{
    (void)state;
    char *inputs[] = {data_path("hta/trace_filter_rank-0.json.gz"),
                      data_path("hta/trace_filter_rank-1.json.gz")};
    const vp_analysis *a = vp_analysis_find("kernels");
    vp_kernels_opts o = {.kinds = 1u << VP_GPU_KERNEL, .by_name = 1};
    vp_buf saved[2] = {{0}};
    for (int jobs = 1; jobs <= 2; jobs++) {
        vp_kernels k;
        vp_kernels_init(&k, &o);
        vp_parts_job j = {.command = "kernels", .a = a, .model = &k, .opts = &o};
        assert_int_equal(vp_parts_analyse(&j, jobs, inputs, 0, 2), 0);
        assert_int_equal(k.nfiles, 2);
        a->save(&k, &saved[jobs - 1]);
        /* `vprof kernels -f csv` of the two ranks: 194 rows, 2258
         * instances, 1,257,545,000 ns in all */
        vp_kernels_finish(&k, VP_KSORT_TOTAL);
        assert_int_equal(k.ngroups, 194);
        assert_int_equal(k.grand, 1257545000);
        int64_t count = 0;
        for (size_t g = 0; g < k.ngroups; g++)
            count += (int64_t)k.groups[g].n + k.groups[g].agg_n;
        assert_int_equal(count, 2258);
        vp_kernels_free(&k);
    }
    assert_int_equal(saved[0].len, saved[1].len);
    assert_memory_equal(saved[0].data, saved[1].data, saved[0].len);
    vp_buf_free(&saved[0]);
    vp_buf_free(&saved[1]);
    free(inputs[0]);
    free(inputs[1]);
}

int main(void)
{
    test_pid = getpid();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_evsum_families),
        cmocka_unit_test(test_empty_round_trip),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_failing_input),
        cmocka_unit_test(test_worker_dies),
        cmocka_unit_test(test_save_and_reduce),
        cmocka_unit_test(test_kernels_any_jobs),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    vp_buf_free(&said);
    return rc;
}
