/* Unit tests for src/trace/htatime.c: the double Python's json reads for
 * a time in us with three decimals, and HTA's rounding of an event's start
 * up and end down.  The expected doubles are Python 3's float() of the
 * same text; the sweep compares with strtod of that text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "vprof/htatime.h"

static double from_text(int64_t ns)
{
    char buf[48];
    int neg = ns < 0;
    uint64_t a = neg ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, sizeof buf, "%s%llu.%03llu", neg ? "-" : "", (unsigned long long)(a / 1000),
             (unsigned long long)(a % 1000));
    return strtod(buf, NULL);
}

static void test_python_values(void **state)
{
    (void)state;
    /* at 1.7e15 us a double holds quarters: .375 is halfway, to even */
    assert_true(vp_hta_us(1700044920503701375) == 1700044920503701.5);
    assert_true(vp_hta_us(1700044920503701125) == 1700044920503701.0);
    assert_true(vp_hta_us(1) == 0.001);
    assert_true(vp_hta_us(-1234567891) == -1234567.891);
    assert_true(vp_hta_us(5000) == 5.0);
    assert_true(vp_hta_us(0) == 0.0);
}

static void test_sweep(void **state)
{
    (void)state;
    /* xorshift: near today's epoch in ns, small, negative, and anywhere
     * below 2^62 */
    uint64_t s = 88172645463325252u;
    for (long i = 0; i < 400000; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int64_t ns;
        switch (i % 4) {
        case 0: ns = 1700000000000000000 + (int64_t)(s % 100000000000000u); break;
        case 1: ns = (int64_t)(s % 1000000); break;
        case 2: ns = -(int64_t)(s % 1000000000000u); break;
        default: ns = (int64_t)(s % ((uint64_t)1 << 62)); break;
        }
        if (vp_hta_us(ns) != from_text(ns))
            fail_msg("ns %lld: %.17g, the text reads %.17g", (long long)ns, vp_hta_us(ns),
                     from_text(ns));
    }
}

static void test_round(void **state)
{
    (void)state;
    int64_t a, b;
    /* 1712345678901.2345 us written with ns: start up, end down */
    vp_hta_round(1712345678901234, 2500, &a, &b);
    assert_int_equal(a, 1712345678902);
    assert_int_equal(b, 1712345678903);
    /* whole us stay as they are */
    vp_hta_round(7000, 3000, &a, &b);
    assert_int_equal(a, 7);
    assert_int_equal(b, 10);
    /* the end is start + dur added in doubles: .375 + .125 rounds to even
     * at 1.7e15 (1700044920503701.5 + 0.125 -> .5 with quarters) */
    vp_hta_round(1700044920503701375, 125, &a, &b);
    assert_int_equal(a, 1700044920503702);
    assert_int_equal(b, 1700044920503701);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_values),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
