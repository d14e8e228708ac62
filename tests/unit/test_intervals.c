/* Unit tests for src/analysis/core/intervals.c: exact set algebra, checked
 * against a brute-force bitmap on random sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/intervals.h"

static void test_merge_touching(void **state)
{
    vp_ivset s = VP_IVSET_INIT;

    (void)state;
    vp_ivset_add(&s, 5, 9);
    vp_ivset_add(&s, 0, 5);     /* touches: one busy period, as HTA merges */
    vp_ivset_add(&s, 20, 30);
    vp_ivset_add(&s, 22, 25);   /* inside */
    vp_ivset_add(&s, 7, 7);     /* empty: dropped */
    vp_ivset_add(&s, 9, 3);     /* inverted: dropped */
    assert_int_equal(vp_ivset_measure(&s), 9 + 10);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.v[0].start, 0);
    assert_int_equal(s.v[0].end, 9);
    int64_t a, b;
    assert_int_equal(vp_ivset_bounds(&s, &a, &b), 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 30);
    vp_ivset_free(&s);
    assert_int_equal(vp_ivset_bounds(&s, &a, &b), 0);
    assert_int_equal(vp_ivset_measure(&s), 0);
}

static void test_in_order_stays_normalized(void **state)
{
    vp_ivset s = VP_IVSET_INIT;

    (void)state;
    for (int i = 0; i < 1000; i++)
        vp_ivset_add(&s, i * 10, i * 10 + (i % 3 == 0 ? 10 : 4));
    assert_true(s.normalized);
    assert_int_equal(vp_ivset_measure(&s), 334 * 10 + 666 * 4);
    vp_ivset_free(&s);
}

static void test_algebra_small(void **state)
{
    vp_ivset a = VP_IVSET_INIT, b = VP_IVSET_INIT, o = VP_IVSET_INIT;

    (void)state;
    vp_ivset_add(&a, 0, 10);
    vp_ivset_add(&a, 20, 30);
    vp_ivset_add(&b, 5, 25);
    vp_ivset_add(&b, 40, 50);
    vp_ivset_union(&a, &b, &o);
    assert_int_equal(o.n, 2);
    assert_int_equal(vp_ivset_measure(&o), 30 + 10);
    vp_ivset_intersect(&a, &b, &o);
    assert_int_equal(o.n, 2);
    assert_int_equal(vp_ivset_measure(&o), 5 + 5);
    assert_int_equal(vp_ivset_intersect_measure(&a, &b), 10);
    vp_ivset_subtract(&a, &b, &o);
    assert_int_equal(o.n, 2);
    assert_int_equal(o.v[0].end, 5);
    assert_int_equal(o.v[1].start, 25);
    assert_int_equal(vp_ivset_measure(&o), 10);
    vp_ivset_subtract(&b, &a, &o);
    assert_int_equal(vp_ivset_measure(&o), 10 + 10);
    assert_int_equal(vp_ivset_measure_in(&a, 5, 25), 5 + 5);
    assert_int_equal(vp_ivset_measure_in(&a, 30, 40), 0);
    assert_int_equal(vp_ivset_measure_in(&a, 9, 9), 0);
    vp_ivset_free(&a);
    vp_ivset_free(&b);
    vp_ivset_free(&o);
}

/* Large timestamps and negative ones sort right (the radix sort flips the
 * sign bit). */
static void test_sort_extremes(void **state)
{
    vp_ival v[300];

    (void)state;
    for (int i = 0; i < 300; i++) {
        int64_t k = (int64_t)((i * 7919) % 300) - 150;
        v[i].start = k * INT64_C(1000000000000);
        v[i].end = v[i].start + 1;
    }
    vp_ival_sort(v, 300);
    for (int i = 1; i < 300; i++)
        assert_true(v[i - 1].start <= v[i].start);
}

#define W 512

static void fill(vp_ivset *s, unsigned char *bits, unsigned *seed, int n)
{
    for (int i = 0; i < n; i++) {
        int a = rand_r(seed) % W, len = rand_r(seed) % 40;
        int b = a + len > W ? W : a + len;
        vp_ivset_add(s, a, b);
        for (int k = a; k < b; k++)
            bits[k] = 1;
    }
}

static int64_t count(const unsigned char *x, const unsigned char *y, int op)
{
    int64_t m = 0;
    for (int k = 0; k < W; k++)
        m += op == 0 ? (x[k] | y[k]) : op == 1 ? (x[k] & y[k]) : (x[k] & !y[k]);
    return m;
}

static void check_normal(const vp_ivset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        assert_true(s->v[i].start < s->v[i].end);
        if (i)
            assert_true(s->v[i - 1].end < s->v[i].start);
    }
}

static void test_random_against_bitmap(void **state)
{
    unsigned seed = 12345;

    (void)state;
    for (int round = 0; round < 300; round++) {
        vp_ivset a = VP_IVSET_INIT, b = VP_IVSET_INIT, o = VP_IVSET_INIT;
        unsigned char ba[W] = {0}, bb[W] = {0};
        fill(&a, ba, &seed, rand_r(&seed) % 100);
        fill(&b, bb, &seed, rand_r(&seed) % 100);
        unsigned char none[W] = {0};
        assert_int_equal(vp_ivset_measure(&a), count(ba, none, 0));
        vp_ivset_union(&a, &b, &o);
        check_normal(&o);
        assert_int_equal(vp_ivset_measure(&o), count(ba, bb, 0));
        vp_ivset_intersect(&a, &b, &o);
        check_normal(&o);
        assert_int_equal(vp_ivset_measure(&o), count(ba, bb, 1));
        assert_int_equal(vp_ivset_intersect_measure(&a, &b), count(ba, bb, 1));
        vp_ivset_subtract(&a, &b, &o);
        check_normal(&o);
        assert_int_equal(vp_ivset_measure(&o), count(ba, bb, 2));
        int lo = rand_r(&seed) % W, hi = rand_r(&seed) % W;
        int64_t want = 0;
        for (int k = lo; k < hi; k++)
            want += ba[k];
        assert_int_equal(vp_ivset_measure_in(&a, lo, hi), want);
        vp_ivset_free(&a);
        vp_ivset_free(&b);
        vp_ivset_free(&o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_touching),
        cmocka_unit_test(test_in_order_stays_normalized),
        cmocka_unit_test(test_algebra_small),
        cmocka_unit_test(test_sort_extremes),
        cmocka_unit_test(test_random_against_bitmap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
