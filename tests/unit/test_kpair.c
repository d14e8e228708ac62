/* Kernel names matched across runs: the literal-free key, the merged name
 * (vprof/kpair.h); the pairing itself is checked in tests/cli/diff-runs.t. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/kpair.h"
#include "vprof/runstats.h"

static void key_is(const char *name, const char *want)
{
    vp_buf b = {0};
    vp_kname_key(name, &b);
    if (strcmp(b.data, want) != 0)
        fail_msg("key of '%s': '%s', expected '%s'", name, b.data, want);
    vp_buf_free(&b);
}

static void merged_is(const char *a, const char *b, const char *want)
{
    vp_buf m = {0};
    vp_kname_merged(a, b, &m);
    if (strcmp(m.data, want) != 0)
        fail_msg("merged '%s' '%s': '%s', expected '%s'", a, b, m.data, want);
    vp_buf_free(&m);
}

static void test_key_literals(void **state)
{
    (void)state;
    key_is("void k<128, 64>(float*, int)", "void k<#, #>(float*, int)");
    key_is("reduce<2ul>", "reduce<#>");
    key_is("f<-1, 0x1F, 1.5f, 1e-3, 7LL>", "f<#, #, #, #, #>");
    key_is("bn_bw<float, 128, true, false>", "bn_bw<float, #, #, #>");
    /* digits inside identifiers are part of the name, not literals */
    key_is("volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn");
    key_is("Array<char*, 3>::float2", "Array<char*, #>::float2");
    key_is("k<4th>", "k<4th>");
    key_is("truefn<trueish>", "truefn<trueish>");
    key_is("a-1", "a-#");          /* after an identifier the minus is an operator, kept */
    key_is("f()-1", "f()-#");
    key_is("g<-1>", "g<#>");
    key_is("", "");
    key_is("12", "#");
}

static void test_merged(void **state)
{
    (void)state;
    merged_is("void k<128, 64>(int)", "void k<256, 64>(int)", "void k<128->256, 64>(int)");
    merged_is("r<2ul>(A<float, 2ul>)", "r<5ul>(A<float, 5ul>)", "r<2ul->5ul>(A<float, 2ul->5ul>)");
    merged_is("same<1>", "same<1>", "same<1>");
    /* not the same key: both shown whole */
    merged_is("a<1>", "b<1>", "a<1> -> b<1>");
    merged_is("a<1>", "a<1>x", "a<1> -> a<1>x");
}

static void test_change_format(void **state)
{
    (void)state;
    char s[48];
    vp_metric_format_change(s, sizeof s, VP_COL_PERCENT, 55.21 - 52.89);
    assert_string_equal(s, "+2.32 pp");
    vp_metric_format_change(s, sizeof s, VP_COL_PERCENT, -0.001);
    assert_string_equal(s, "0.00 pp");
    vp_metric_format_change(s, sizeof s, VP_COL_NS, -4000);
    assert_string_equal(s, "-4.00 us");
    vp_metric_format_change(s, sizeof s, VP_COL_INT, 1);
    assert_string_equal(s, "+1");
    vp_metric_format_change(s, sizeof s, VP_COL_NS, 0);
    assert_string_equal(s, "0 ns");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_literals),
        cmocka_unit_test(test_merged),
        cmocka_unit_test(test_change_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
