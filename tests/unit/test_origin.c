/* Unit tests for src/analysis/core/origin.c (vprof/origin.h): which traces can
 * be ranks of one run.  Windows on the wall clock within the allowance
 * are one run, however many files; beyond it the files fall into groups
 * named in time order; devices and world sizes speak only where the
 * clock does not; a partial round trip keeps every field and a damaged
 * one is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/origin.h"

#define S 1000000000LL
#define T0 (1700000000LL * S)   /* 2023-11-14 22:13:20 UTC */

static void add(vp_origins *s, const char *name, int64_t first, int64_t last, long rank,
                long world, const char *device)
{
    s->o = realloc(s->o, (s->n + 1) * sizeof *s->o);
    s->o[s->n++] = (vp_origin){strdup(name), first, last, rank, world, strdup(device)};
}

static int apart(const vp_origins *s, char *out, size_t n)
{
    vp_buf b = {0};
    int r = vp_origins_apart(s, &b);
    snprintf(out, n, "%s", b.len ? vp_buf_cstr(&b) : "");
    vp_buf_free(&b);
    return r;
}

static void test_one_run(void **state)
{
    (void)state;
    char m[1024];
    vp_origins s;
    vp_origins_init(&s);
    assert_int_equal(apart(&s, m, sizeof m), 0);
    add(&s, "r0", T0, T0 + 10 * S, 0, 8, "H100");
    assert_int_equal(apart(&s, m, sizeof m), 0);   /* one file */
    /* overlapping, and one starting 60 s after the others end: one run */
    add(&s, "r1", T0 + 5 * S, T0 + 12 * S, 1, 8, "H100");
    add(&s, "r2", T0 + 72 * S, T0 + 80 * S, -1, 0, "");
    /* no clock: says nothing of when */
    add(&s, "r3", 1, 0, -1, 0, "H100");
    assert_int_equal(apart(&s, m, sizeof m), 0);
    assert_string_equal(m, "");
    vp_origins_free(&s);
}

static void test_apart_in_time(void **state)
{
    (void)state;
    char m[1024];
    vp_origins s;
    vp_origins_init(&s);
    add(&s, "late", T0 + 3600 * S, T0 + 3601 * S, 0, 0, "A100");
    for (int i = 0; i < 5; i++) {
        char name[8];
        snprintf(name, sizeof name, "e%d", i);
        add(&s, name, T0 + i * S, T0 + 10 * S, -1, 0, "H100");
    }
    assert_int_equal(apart(&s, m, sizeof m), 1);
    assert_string_equal(m, "the 6 traces look like separate runs, not ranks of one: e0, e1, e2 "
                           "and 2 more recorded from 2023-11-14 22:13:20 UTC, late from "
                           "2023-11-14 23:13:20 UTC (the ranks of one run record at the same "
                           "time); e0, e1, e2 and 2 more have no distributedInfo.rank");
    vp_origins_free(&s);
}

static void test_apart_by_device_and_world(void **state)
{
    (void)state;
    char m[1024];
    vp_origins s;
    vp_origins_init(&s);
    add(&s, "a", 1, 0, 0, 8, "H100");
    add(&s, "b", 1, 0, 1, 8, "");
    add(&s, "c", 1, 0, 2, 8, "A100");
    add(&s, "d", 1, 0, 3, 8, "H100");
    assert_int_equal(apart(&s, m, sizeof m), 1);
    assert_string_equal(m, "the 4 traces look like separate runs, not ranks of one: a and d ran on "
                           "H100, c on A100");
    free(s.o[2].device);
    s.o[2].device = strdup("H100");
    assert_int_equal(apart(&s, m, sizeof m), 0);
    s.o[1].world = 16;
    assert_int_equal(apart(&s, m, sizeof m), 1);
    assert_string_equal(m, "the 4 traces look like separate runs, not ranks of one: a says "
                           "world_size 8, b world_size 16");
    vp_origins_free(&s);
}

static void test_round_trip(void **state)
{
    (void)state;
    vp_origins s, t;
    vp_origins_init(&s);
    vp_origins_init(&t);
    add(&s, "x.json", T0, T0 + S, 3, 8, "NVIDIA H100 80GB HBM3");
    add(&s, "y.json", 1, 0, -1, 0, "");
    vp_buf b = {0};
    vp_origins_save(&s, &b);
    vp_rd d;
    vp_rd_init(&d, b.data, b.len);
    vp_origins_merge(&t, &d);
    assert_true(vp_rd_done(&d));
    assert_int_equal(t.n, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(t.o[i].name, s.o[i].name);
        assert_int_equal(t.o[i].first, s.o[i].first);
        assert_int_equal(t.o[i].last, s.o[i].last);
        assert_int_equal(t.o[i].rank, s.o[i].rank);
        assert_int_equal(t.o[i].world, s.o[i].world);
        assert_string_equal(t.o[i].device, s.o[i].device);
    }
    /* cut short: damaged, nothing half-read kept */
    vp_origins u;
    vp_origins_init(&u);
    vp_rd_init(&d, b.data, b.len - 3);
    vp_origins_merge(&u, &d);
    assert_false(vp_rd_done(&d));
    assert_int_equal(u.n, 1);
    vp_origins_free(&u);
    vp_buf_free(&b);
    vp_origins_free(&s);
    vp_origins_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_run),
        cmocka_unit_test(test_apart_in_time),
        cmocka_unit_test(test_apart_by_device_and_world),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
