/* vprof report's model (vprof/report_run.h) on an Ascend profile: its
 * partial carries the first profile's memory files (each read once, in
 * the worker that read the profile), merges back to the same bytes, and
 * a damaged one is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/memascend.h"
#include "vprof/part.h"
#include "vprof/report_run.h"
#include "vprof/runstats.h"

static char *data_path(const char *rel)
{
    const char *d = getenv("VPROF_TEST_DATA");
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", d ? d : "tests/data", rel);
    return buf;
}

#define ASC "ascend/msinsight_gpt3_rank0_ascend_pt"

static void read_one(vp_report_run *r, const char *path, size_t i)
{
    vp_error err = {0};
    vp_report_run_init(r, NULL);
    assert_int_equal(vp_report_run_read(r, path, i, &err), 0);
}

/* memory_record.csv's PTA peaks are the run's (4.49 GiB allocated,
 * 8.46 GiB reserved: vprof memory DIR's npu_memory row), and its series,
 * operator_memory.csv and npu_module_mem.csv are kept for the page. */
static void test_ascend_memory_once(void **state)
{
    (void)state;
    vp_report_run r;
    read_one(&r, data_path(ASC), 0);
    assert_non_null(r.ascmem_path);
    assert_int_equal(r.nascmem, 1);
    const vp_asc_rankmem *m = &r.ascmem[0];
    assert_true(m->has_rec && m->has_mod && m->has_ops);
    assert_int_equal(m->rec.n, 4);   /* APP, PTA, PTA+GE, GE */
    vp_report_run_finish(&r);
    const vp_metric *a = vp_run_find(r.run, "memory.peak_allocated");
    assert_non_null(a);
    int64_t want = 0;
    for (size_t i = 0; i < m->rec.n; i++)
        if (strcmp(m->rec.s[i].component, "PTA") == 0)
            want = m->rec.s[i].p[m->rec.s[i].peak_alloc].allocated;
    assert_true(want > 0);
    assert_true(a->value == (double)want);
    vp_report_run_free(&r);
}

/* Saved, merged into an empty model, saved again: the same bytes; a
 * later input's memory does not replace an earlier one's. */
static void test_partial_round_trip(void **state)
{
    (void)state;
    vp_report_run r;
    read_one(&r, data_path(ASC), 0);
    vp_buf s1 = {0}, s2 = {0};
    vp_report_run_save(&r, &s1);
    vp_report_run again;
    vp_report_run_init(&again, NULL);
    vp_error err = {0};
    assert_int_equal(vp_report_run_merge(&again, s1.data, s1.len, &err), 0);
    vp_report_run_save(&again, &s2);
    assert_int_equal(s1.len, s2.len);
    assert_memory_equal(s1.data, s2.data, s1.len);
    assert_int_equal(again.nascmem, 1);
    assert_string_equal(again.ascmem[0].rec.s[0].component, r.ascmem[0].rec.s[0].component);
    /* a second input's partial: its memory is left, the first kept */
    const vp_asc_rankmem *first = again.ascmem;
    assert_int_equal(vp_report_run_merge(&again, s1.data, s1.len, &err), 0);
    assert_ptr_equal(again.ascmem, first);
    vp_buf_free(&s1);
    vp_buf_free(&s2);
    vp_report_run_free(&again);
    vp_report_run_free(&r);
}

/* A peak index past a series' points would make the views read past
 * them: a damaged partial. */
static void test_damaged_peak(void **state)
{
    (void)state;
    vp_report_run r;
    vp_report_run_init(&r, NULL);
    r.ascmem_path = vp_strdup("x");
    r.ascmem = vp_calloc(1, sizeof *r.ascmem);
    r.nascmem = 1;
    vp_asc_rankmem *m = &r.ascmem[0];
    m->has_rec = 1;
    m->rec.s = vp_calloc(1, sizeof *m->rec.s);
    m->rec.n = m->rec.cap = 1;
    m->rec.s[0].component = vp_strdup("PTA");
    m->rec.s[0].device = vp_strdup("NPU:0");
    m->rec.s[0].p = vp_calloc(1, sizeof *m->rec.s[0].p);
    m->rec.s[0].n = m->rec.s[0].cap = 1;
    vp_buf ok = {0}, bad = {0};
    vp_report_run_save(&r, &ok);
    m->rec.s[0].peak_alloc = 1;   /* one past its one point */
    vp_report_run_save(&r, &bad);
    vp_report_run a, b;
    vp_report_run_init(&a, NULL);
    vp_report_run_init(&b, NULL);
    vp_error err = {0};
    assert_int_equal(vp_report_run_merge(&a, ok.data, ok.len, &err), 0);
    assert_int_equal(vp_report_run_merge(&b, bad.data, bad.len, &err), -1);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    assert_null(b.ascmem_path);
    vp_buf_free(&ok);
    vp_buf_free(&bad);
    vp_report_run_free(&a);
    vp_report_run_free(&b);
    vp_report_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ascend_memory_once),
        cmocka_unit_test(test_partial_round_trip),
        cmocka_unit_test(test_damaged_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
