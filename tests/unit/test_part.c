/* Unit tests for src/util/part.c (vprof/part.h, docs/partials.md): the
 * varint, zigzag, double and string round trips at their edges, and a
 * header reader that refuses every damaged partial with a message instead
 * of reading past the end or allocating what a length claims. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/part.h"

static void test_varint_round_trip(void **state)
{
    static const uint64_t u[] = {0, 1, 127, 128, 255, 16383, 16384, 0xffffffffu,
                                 (uint64_t)1 << 63, UINT64_MAX - 1, UINT64_MAX};
    static const size_t ulen[] = {1, 1, 1, 2, 2, 2, 3, 5, 10, 10, 10};
    static const int64_t s[] = {0, -1, 1, -64, 63, -65, 64, INT64_MIN, INT64_MAX, -123456789};
    vp_buf b = {0};

    (void)state;
    for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
        size_t before = b.len;
        vp_put_u64(&b, u[i]);
        assert_int_equal(b.len - before, ulen[i]);
    }
    for (size_t i = 0; i < sizeof s / sizeof *s; i++)
        vp_put_i64(&b, s[i]);
    vp_rd r;
    vp_rd_init(&r, b.data, b.len);
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        assert_true(vp_get_u64(&r) == u[i]);
    for (size_t i = 0; i < sizeof s / sizeof *s; i++)
        assert_true(vp_get_i64(&r) == s[i]);
    assert_true(vp_rd_done(&r));
    vp_buf_free(&b);
}

static void test_zigzag_is_short_for_small_magnitudes(void **state)
{
    vp_buf b = {0};

    (void)state;
    vp_put_i64(&b, -1);
    vp_put_i64(&b, 1);
    vp_put_i64(&b, -64);
    assert_int_equal(b.len, 3);
    assert_int_equal((unsigned char)b.data[0], 1);
    assert_int_equal((unsigned char)b.data[1], 2);
    assert_int_equal((unsigned char)b.data[2], 127);
    vp_buf_free(&b);
}

static void test_f64_and_str_round_trip(void **state)
{
    static const double d[] = {0.0, -0.0, 1.5, -2.25e300, 5e-324, INFINITY};
    vp_buf b = {0};

    (void)state;
    for (size_t i = 0; i < sizeof d / sizeof *d; i++)
        vp_put_f64(&b, d[i]);
    vp_put_f64(&b, NAN);
    vp_put_str(&b, "", 0);
    vp_put_str(&b, "a\0b", 3);   /* strings are counted, NULs and all */
    vp_put_str(&b, "kernel", 6);
    assert_int_equal((unsigned char)b.data[0], 0);   /* little-endian bytes */
    vp_rd r;
    vp_rd_init(&r, b.data, b.len);
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        double v = vp_get_f64(&r);
        assert_memory_equal(&v, &d[i], sizeof v);  /* bits: -0.0 stays -0.0 */
    }
    assert_true(isnan(vp_get_f64(&r)));
    size_t n;
    const char *s = vp_get_str(&r, &n);
    assert_int_equal(n, 0);
    (void)s;
    s = vp_get_str(&r, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(s, "a\0b", 3);
    s = vp_get_str(&r, &n);
    assert_int_equal(n, 6);
    assert_memory_equal(s, "kernel", 6);
    assert_true(vp_rd_done(&r));
    vp_buf_free(&b);
}

/* A getter past the end, or on a malformed value, returns 0 (or "") and
 * leaves the cursor bad and at the end, so that loops over counts stop. */
static void test_getters_fail_closed(void **state)
{
    vp_rd r;
    size_t n;

    (void)state;
    vp_rd_init(&r, "", 0);
    assert_true(vp_get_u64(&r) == 0);
    assert_true(r.bad);
    assert_false(vp_rd_done(&r));

    static const unsigned char cont[] = {0x80, 0x80};   /* continues past the end */
    vp_rd_init(&r, cont, sizeof cont);
    assert_true(vp_get_u64(&r) == 0);
    assert_true(r.bad);
    assert_true(r.p == r.end);

    /* eleven bytes, or a tenth byte with more than bit 63: not a uint64 */
    static const unsigned char eleven[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                           0xff, 0xff, 0xff, 0x81, 0x00};
    vp_rd_init(&r, eleven, sizeof eleven);
    assert_true(vp_get_u64(&r) == 0);
    assert_true(r.bad);
    static const unsigned char wide[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff, 0xff, 0xff, 0x02};
    vp_rd_init(&r, wide, sizeof wide);
    assert_true(vp_get_u64(&r) == 0);
    assert_true(r.bad);
    static const unsigned char max[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0x01};
    vp_rd_init(&r, max, sizeof max);
    assert_true(vp_get_u64(&r) == UINT64_MAX);
    assert_true(vp_rd_done(&r));

    static const unsigned char seven[] = {1, 2, 3, 4, 5, 6, 7};
    vp_rd_init(&r, seven, sizeof seven);
    assert_true(vp_get_f64(&r) == 0.0);
    assert_true(r.bad);
    assert_true(r.p == r.end);

    static const unsigned char longstr[] = {5, 'a', 'b', 'c', 'd'};
    vp_rd_init(&r, longstr, sizeof longstr);
    const char *s = vp_get_str(&r, &n);
    assert_int_equal(n, 0);
    assert_string_equal(s, "");
    assert_true(r.bad);
}

/* A count is bounded by the bytes left, so that a damaged count cannot
 * make a reader allocate without limit. */
static void test_count_bounded_by_bytes(void **state)
{
    vp_buf b = {0};
    vp_rd r;

    (void)state;
    vp_put_u64(&b, 4);
    vp_buf_append(&b, "abcdefgh", 8);
    vp_rd_init(&r, b.data, b.len);
    assert_int_equal(vp_get_count(&r, 2), 4);     /* 4 items of 2 bytes: fits */
    assert_false(r.bad);
    vp_rd_init(&r, b.data, b.len);
    assert_int_equal(vp_get_count(&r, 3), 0);     /* 4 of 3 bytes: 12 > 8 */
    assert_true(r.bad);
    vp_buf_free(&b);

    vp_put_u64(&b, UINT64_MAX);
    vp_rd_init(&r, b.data, b.len);
    assert_int_equal(vp_get_count(&r, 1), 0);
    assert_true(r.bad);
    vp_rd_init(&r, b.data, b.len);
    assert_true(vp_get_count(&r, 0) == (size_t)UINT64_MAX);   /* 0: not bounded */
    assert_false(r.bad);
    vp_buf_free(&b);
}

/* A small partial: kernels with two options, three inputs, a payload. */
static void make_partial(vp_buf *out, const char *cmd, const char *payload, size_t n)
{
    vp_part_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.command, sizeof h.command, "%s", cmd);
    h.payload_version = 1;
    static const char opts[] = "--by=rank\0-x\0^nccl";
    vp_buf_append(&h.options, opts, sizeof opts);  /* with the last NUL */
    h.inputs = 3;
    vp_part_write(out, &h, payload, n);
    vp_buf_free(&h.options);
}

static void test_header_round_trip(void **state)
{
    vp_buf b = {0};
    vp_part_header h;
    const void *payload;
    size_t n;
    vp_error err = {0};

    (void)state;
    make_partial(&b, "kernels", "\x01\x02\x00\x03", 4);
    assert_memory_equal(b.data, "VPART\r\n\x1a\x01", 9);
    assert_int_equal(vp_part_read("p", b.data, b.len, &h, &payload, &n, &err), 0);
    assert_string_equal(h.command, "kernels");
    assert_true(h.payload_version == 1);
    assert_true(h.inputs == 3);
    assert_int_equal(h.options.len, sizeof "--by=rank\0-x\0^nccl");
    assert_memory_equal(h.options.data, "--by=rank\0-x\0^nccl", h.options.len);
    assert_int_equal(n, 4);
    assert_memory_equal(payload, "\x01\x02\x00\x03", 4);
    assert_true((const char *)payload + n == b.data + b.len);   /* the rest, exactly */
    vp_buf_free(&h.options);
    vp_buf_free(&b);

    /* no options, no payload; a command of 31 bytes, the most there is room for */
    vp_part_header e;
    memset(&e, 0, sizeof e);
    memset(e.command, 'c', sizeof e.command - 1);
    vp_part_write(&b, &e, NULL, 0);
    assert_int_equal(vp_part_read("p", b.data, b.len, &h, &payload, &n, &err), 0);
    assert_int_equal(strlen(h.command), sizeof h.command - 1);
    assert_int_equal(h.options.len, 0);
    assert_int_equal(n, 0);
    vp_buf_free(&h.options);
    vp_buf_free(&b);
    assert_int_equal(err.status, 0);
}

/* Every prefix of a partial (and every extension of it) is refused with
 * the message for its kind of damage. */
static void test_every_truncation_refused(void **state)
{
    vp_buf b = {0};
    vp_part_header h;
    const void *payload;
    size_t n;
    char want[256];

    (void)state;
    make_partial(&b, "comm", "payload", 7);
    for (size_t len = 0; len < b.len; len++) {
        vp_error err = {0};
        /* a copy of exactly len bytes: ASan sees any read past it */
        char *cut = malloc(len ? len : 1);
        memcpy(cut, b.data, len);
        assert_int_equal(vp_part_read("cut.vpart", cut, len, &h, &payload, &n, &err), -1);
        assert_int_equal(err.status, 3);
        if (len < 8)
            snprintf(want, sizeof want, "cut.vpart: not a vprof partial result (no VPART header)");
        else
            snprintf(want, sizeof want,
                     "cut.vpart: damaged or truncated partial result (%zu bytes)", len);
        assert_string_equal(err.msg, want);
        assert_null(h.options.data);   /* nothing to free after a refusal */
        free(cut);
    }
    vp_buf_putc(&b, 'x');   /* a byte after the payload */
    vp_error err = {0};
    assert_int_equal(vp_part_read("long.vpart", b.data, b.len, &h, &payload, &n, &err), -1);
    snprintf(want, sizeof want, "long.vpart: damaged or truncated partial result (%zu bytes)",
             b.len);
    assert_string_equal(err.msg, want);
    vp_buf_free(&b);
}

static void test_wrong_magic_and_version(void **state)
{
    vp_buf b = {0};
    vp_part_header h;
    const void *payload;
    size_t n;
    vp_error err = {0};

    (void)state;
    make_partial(&b, "steps", "", 0);
    /* a text-mode copy: \n became \r\n */
    vp_buf t = {0};
    vp_buf_append(&t, "VPART\r\r\n\x1a", 9);
    vp_buf_append(&t, b.data + 8, b.len - 8);
    assert_int_equal(vp_part_read("t.vpart", t.data, t.len, &h, &payload, &n, &err), -1);
    assert_string_equal(err.msg, "t.vpart: not a vprof partial result (no VPART header)");
    vp_buf_free(&t);

    b.data[8] = 2;   /* format version 2 */
    memset(&err, 0, sizeof err);
    assert_int_equal(vp_part_read("v.vpart", b.data, b.len, &h, &payload, &n, &err), -1);
    assert_int_equal(err.status, 3);
    assert_string_equal(err.msg, "v.vpart: partial result format 2, this vprof reads format 1 "
                                 "(use the same vprof version to save and reduce)");
    vp_buf_free(&b);
}

/* The fields a reader checks beyond lengths: a command too long for the
 * header, an option with a NUL inside, an option count the bytes cannot
 * hold. */
static void test_bad_fields_refused(void **state)
{
    vp_part_header h;
    const void *payload;
    size_t n;

    (void)state;
    for (int which = 0; which < 3; which++) {
        vp_buf b = {0};
        vp_buf_append(&b, "VPART\r\n\x1a", 8);
        vp_put_u64(&b, VP_PART_VERSION);
        if (which == 0)
            vp_put_str(&b, "a-command-name-of-thirty-two-byt", 32);
        else
            vp_put_str(&b, "kernels", 7);
        vp_put_u64(&b, 1);
        if (which == 1) {
            vp_put_u64(&b, 1);
            vp_put_str(&b, "--by\0rank", 9);
        } else if (which == 2) {
            vp_put_u64(&b, 1000);   /* options, but 3 bytes remain */
        } else {
            vp_put_u64(&b, 0);
        }
        vp_put_u64(&b, 1);
        vp_put_u64(&b, 0);
        vp_error err = {0};
        assert_int_equal(vp_part_read("f.vpart", b.data, b.len, &h, &payload, &n, &err), -1);
        char want[128];
        snprintf(want, sizeof want, "f.vpart: damaged or truncated partial result (%zu bytes)",
                 b.len);
        assert_string_equal(err.msg, want);
        assert_null(h.options.data);
        vp_buf_free(&b);
    }
}

/* Random bytes after a good magic: refused or accepted, never more. */
static void test_random_bytes(void **state)
{
    unsigned seed = 12345;
    vp_part_header h;
    const void *payload;
    size_t n;

    (void)state;
    for (int round = 0; round < 20000; round++) {
        unsigned char buf[48];
        size_t len = 8 + (size_t)(round % 40);
        memcpy(buf, "VPART\r\n\x1a", 8);
        for (size_t i = 8; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (unsigned char)(seed >> 16);
            if (i == 8)
                buf[i] = 1;
        }
        vp_error err = {0};
        unsigned char *copy = malloc(len);
        memcpy(copy, buf, len);
        if (vp_part_read("r", copy, len, &h, &payload, &n, &err) == 0) {
            assert_true((const unsigned char *)payload + n == copy + len);
            assert_true(strlen(h.command) < sizeof h.command);
            vp_buf_free(&h.options);
        } else {
            assert_int_equal(err.status, 3);
        }
        free(copy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint_round_trip),
        cmocka_unit_test(test_zigzag_is_short_for_small_magnitudes),
        cmocka_unit_test(test_f64_and_str_round_trip),
        cmocka_unit_test(test_getters_fail_closed),
        cmocka_unit_test(test_count_bounded_by_bytes),
        cmocka_unit_test(test_header_round_trip),
        cmocka_unit_test(test_every_truncation_refused),
        cmocka_unit_test(test_wrong_magic_and_version),
        cmocka_unit_test(test_bad_fields_refused),
        cmocka_unit_test(test_random_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
