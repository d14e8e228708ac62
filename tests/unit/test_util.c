/* Unit tests for src/util: errors, vp_buf, vp_strmap, vp_hash_bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/error.h"
#include "vprof/units.h"
#include "vprof/util.h"

static void test_error_first_wins(void **state)
{
    vp_error err = {0};

    (void)state;
    vp_error_set(&err, VP_EXIT_INPUT, "%s: bad byte at %d", "a.json", 42);
    vp_error_set(&err, VP_EXIT_USAGE, "later failure");
    assert_int_equal(err.status, VP_EXIT_INPUT);
    assert_string_equal(err.msg, "a.json: bad byte at 42");
}

static void test_error_truncates(void **state)
{
    vp_error err = {0};
    char big[2000];

    (void)state;
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    vp_error_set(&err, VP_EXIT_USAGE, "%s", big);
    assert_int_equal(err.status, VP_EXIT_USAGE);
    assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
}

static void test_strndup(void **state)
{
    char *s = vp_strndup("kernel_name", 6);
    char *d = vp_strdup("");

    (void)state;
    assert_string_equal(s, "kernel");
    assert_string_equal(d, "");
    free(s);
    free(d);
}

static void test_buf(void **state)
{
    vp_buf b = {0};
    int i;

    (void)state;
    assert_string_equal(vp_buf_cstr(&b), "");
    vp_buf_append(&b, "abc", 3);
    vp_buf_putc(&b, '-');
    vp_buf_printf(&b, "%d/%s", 42, "x");
    assert_int_equal(b.len, 8);
    assert_string_equal(b.data, "abc-42/x");
    assert_int_equal(b.data[b.len], '\0');

    /* Growth past the first guess, in both printf passes. */
    for (i = 0; i < 1000; i++)
        vp_buf_printf(&b, "%0100d", i);
    assert_int_equal(b.len, 8 + 100 * 1000);
    assert_true(b.cap > b.len);
    assert_memory_equal(b.data + b.len - 3, "999", 3);

    /* the decimal appenders write what printf's %llu and %lld write */
    b.len = 0;
    vp_buf_u64(&b, 0);
    vp_buf_putc(&b, ' ');
    vp_buf_u64(&b, 10);
    vp_buf_putc(&b, ' ');
    vp_buf_u64(&b, UINT64_MAX);
    vp_buf_putc(&b, ' ');
    vp_buf_i64(&b, -1);
    vp_buf_putc(&b, ' ');
    vp_buf_i64(&b, INT64_MIN);
    vp_buf_putc(&b, ' ');
    vp_buf_i64(&b, INT64_MAX);
    assert_string_equal(b.data, "0 10 18446744073709551615 -1 -9223372036854775808 9223372036854775807");

    b.len = 0;
    assert_string_equal(vp_buf_cstr(&b), "");
    vp_buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.cap, 0);
}

static void test_strmap_basic(void **state)
{
    vp_strmap *m = vp_strmap_new();
    int inserted = -1, a = 1, b = 2;
    void **slot;
    size_t len;

    (void)state;
    assert_int_equal(vp_strmap_count(m), 0);
    assert_null(vp_strmap_get(m, "x", 1));

    slot = vp_strmap_upsert(m, "gemm", 4, &inserted);
    assert_int_equal(inserted, 1);
    assert_null(*slot);
    *slot = &a;
    slot = vp_strmap_upsert(m, "gemm", 4, &inserted);
    assert_int_equal(inserted, 0);
    assert_ptr_equal(*slot, &a);

    /* Keys are byte strings: prefixes, the empty key and embedded NULs
     * are all distinct. */
    *vp_strmap_upsert(m, "gem", 3, &inserted) = &b;
    assert_int_equal(inserted, 1);
    vp_strmap_upsert(m, "", 0, &inserted);
    assert_int_equal(inserted, 1);
    vp_strmap_upsert(m, "a\0b", 3, &inserted);
    assert_int_equal(inserted, 1);
    vp_strmap_upsert(m, "a\0c", 3, &inserted);
    assert_int_equal(inserted, 1);
    assert_int_equal(vp_strmap_count(m), 5);

    assert_ptr_equal(vp_strmap_get(m, "gemm", 4), &a);
    assert_ptr_equal(vp_strmap_get(m, "gem", 3), &b);
    assert_null(vp_strmap_get(m, "ge", 2));
    assert_string_equal(vp_strmap_key(m, 0, &len), "gemm");
    assert_int_equal(len, 4);
    assert_string_equal(vp_strmap_key(m, 2, &len), "");
    assert_int_equal(len, 0);
    assert_memory_equal(vp_strmap_key(m, 4, &len), "a\0c", 4);
    assert_ptr_equal(vp_strmap_value(m, 1), &b);
    vp_strmap_free(m);
    vp_strmap_free(NULL);
}

/* Key i of the big test: long and sharing a prefix, like kernel names. */
static size_t make_key(char *buf, size_t n, size_t i)
{
    return (size_t)snprintf(buf, n,
        "void at::native::vectorized_elementwise_kernel<4, Functor<%zu>, "
        "at::detail::Array<char*, %zu> >(int, T2, T3)", i, i % 7);
}

static void test_strmap_100k(void **state)
{
    enum { N = 100000 };
    vp_strmap *m = vp_strmap_new();
    char key[256];
    size_t i, len, klen;
    int inserted;

    (void)state;
    for (i = 0; i < N; i++) {
        len = make_key(key, sizeof(key), i);
        *vp_strmap_upsert(m, key, len, &inserted) = (void *)(uintptr_t)(i + 1);
        assert_int_equal(inserted, 1);
    }
    /* A second pass finds every key and inserts nothing. */
    for (i = 0; i < N; i++) {
        len = make_key(key, sizeof(key), i);
        assert_ptr_equal(*vp_strmap_upsert(m, key, len, &inserted),
                         (void *)(uintptr_t)(i + 1));
        assert_int_equal(inserted, 0);
    }
    assert_int_equal(vp_strmap_count(m), N);
    for (i = 0; i < N; i++) {
        const char *k = vp_strmap_key(m, i, &klen);

        len = make_key(key, sizeof(key), i);
        assert_int_equal(klen, len);
        assert_string_equal(k, key);
        assert_ptr_equal(vp_strmap_value(m, i), (void *)(uintptr_t)(i + 1));
    }
    len = make_key(key, sizeof(key), N);
    assert_null(vp_strmap_get(m, key, len));
    vp_strmap_free(m);
}

static void test_strmap_big_key(void **state)
{
    vp_strmap *m = vp_strmap_new();
    size_t n = 200000, len;
    char *big = malloc(n);
    int inserted;

    (void)state;
    memset(big, 'k', n);
    vp_strmap_upsert(m, "small", 5, &inserted);
    *vp_strmap_upsert(m, big, n, &inserted) = big;
    assert_int_equal(inserted, 1);
    vp_strmap_upsert(m, "after", 5, &inserted);
    assert_ptr_equal(vp_strmap_get(m, big, n), big);
    assert_memory_equal(vp_strmap_key(m, 1, &len), big, n);
    assert_int_equal(len, n);
    assert_string_equal(vp_strmap_key(m, 2, NULL), "after");
    vp_strmap_free(m);
    free(big);
}

static void test_hash(void **state)
{
    unsigned char data[300], shifted[310];
    uint64_t seen[sizeof(data) + 1];
    size_t i, j, n;

    (void)state;
    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 7 + 3);
    /* Every length gives a different value: the tail handling neither
     * drops nor confuses bytes. */
    for (n = 0; n <= sizeof(data); n++) {
        seen[n] = vp_hash_bytes(data, n);
        for (j = 0; j < n; j++)
            assert_true(seen[j] != seen[n]);
    }
    /* A one-bit change anywhere changes the value, and the result does not
     * depend on the buffer's alignment. */
    for (n = 1; n <= 100; n++) {
        for (i = 0; i < n; i++) {
            uint64_t h = vp_hash_bytes(data, n);

            data[i] ^= 0x10;
            assert_true(vp_hash_bytes(data, n) != h);
            data[i] ^= 0x10;
        }
        memcpy(shifted + 1 + n % 8, data, n);
        assert_true(vp_hash_bytes(shifted + 1 + n % 8, n) == seen[n]);
    }
    assert_true(vp_hash_bytes("", 0) == vp_hash_bytes(data, 0));
}

/* The low bits pick the slot: keys differing in one digit must spread
 * over buckets about evenly. */
static void test_hash_spread(void **state)
{
    enum { BUCKETS = 256, KEYS = 256 * 64 };
    unsigned counts[BUCKETS] = {0};
    char key[256];
    size_t i, len, max = 0;

    (void)state;
    for (i = 0; i < KEYS; i++) {
        len = make_key(key, sizeof(key), i);
        counts[vp_hash_bytes(key, len) % BUCKETS]++;
    }
    for (i = 0; i < BUCKETS; i++)
        if (counts[i] > max)
            max = counts[i];
    /* Expected 64 per bucket; 110 would be over five standard deviations. */
    assert_true(max < 110);
}

/* The command line's numbers: the whole string, in range, or refused. */
static void test_parse_numbers(void **state)
{
    (void)state;
    long long n = 7;
    assert_int_equal(vp_parse_count("12", 1, 100, &n), 0);
    assert_int_equal(n, 12);
    assert_int_equal(vp_parse_count("0", 1, 100, &n), -1);
    assert_int_equal(vp_parse_count("101", 1, 100, &n), -1);
    assert_int_equal(vp_parse_count("12x", 1, 100, &n), -1);
    assert_int_equal(vp_parse_count("", 0, 100, &n), -1);
    assert_int_equal(vp_parse_count("99999999999999999999", 0, INT64_MAX, &n), -1);
    assert_int_equal(n, 12);   /* untouched when refused */
    double v = 0;
    assert_int_equal(vp_parse_positive("2e3", &v), 0);
    assert_true(v == 2000);
    assert_int_equal(vp_parse_positive("0", &v), -1);
    assert_int_equal(vp_parse_positive("inf", &v), -1);
    assert_int_equal(vp_parse_positive("1.5s", &v), -1);
    assert_int_equal(vp_parse_seconds("1.82", &v), 0);
    assert_true(v == 1.82);
    assert_int_equal(vp_parse_seconds("1.82s", &v), 0);
    assert_true(v == 1.82);
    assert_int_equal(vp_parse_seconds("1820ms", &v), 0);
    assert_true(v == 1820 * 1e-3);
    assert_int_equal(vp_parse_seconds("1820 us", &v), 0);
    assert_true(v == 1820 * 1e-6);
    assert_int_equal(vp_parse_seconds("1820 min", &v), -1);
    assert_int_equal(vp_parse_seconds("-1s", &v), -1);
    assert_int_equal(vp_parse_seconds("ms", &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_first_wins),
        cmocka_unit_test(test_error_truncates),
        cmocka_unit_test(test_parse_numbers),
        cmocka_unit_test(test_strndup),
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_strmap_basic),
        cmocka_unit_test(test_strmap_100k),
        cmocka_unit_test(test_strmap_big_key),
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_hash_spread),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
