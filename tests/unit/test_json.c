/* Unit tests for src/json/json.c: string scanning, structural skipping,
 * member lookup, exact number conversion and string decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/json.h"
#include "vprof/util.h"

static vp_span S(const char *s)
{
    vp_span v = {s, strlen(s)};
    return v;
}

/* us_to_ns on text, expecting success with want. */
static void ns_ok(const char *text, int64_t want)
{
    int64_t got = 12345;
    if (vp_json_us_to_ns(S(text), &got) != 0)
        fail_msg("vp_json_us_to_ns(%s) failed", text);
    if (got != want)
        fail_msg("vp_json_us_to_ns(%s) = %lld, want %lld", text, (long long)got, (long long)want);
}

static void ns_bad(const char *text)
{
    int64_t got = 12345;
    if (vp_json_us_to_ns(S(text), &got) != -1)
        fail_msg("vp_json_us_to_ns(%s) succeeded with %lld", text, (long long)got);
    assert_int_equal(got, 12345);  /* untouched on failure */
}

static void int_ok(const char *text, int64_t want)
{
    int64_t got = 12345;
    if (vp_json_int(S(text), &got) != 0)
        fail_msg("vp_json_int(%s) failed", text);
    if (got != want)
        fail_msg("vp_json_int(%s) = %lld, want %lld", text, (long long)got, (long long)want);
}

static void int_bad(const char *text)
{
    int64_t got = 12345;
    if (vp_json_int(S(text), &got) != -1)
        fail_msg("vp_json_int(%s) succeeded with %lld", text, (long long)got);
}

static void test_us_to_ns_integers(void **state)
{
    (void)state;
    ns_ok("0", 0);
    ns_ok("1", 1000);
    ns_ok("25", 25000);
    ns_ok("-7", -7000);
    ns_ok("+7", 7000);
    ns_ok("000012", 12000);
    ns_ok("1669783687389324", 1669783687389324000LL);
    /* INT64_MAX ns is the largest value that fits. */
    ns_ok("9223372036854775.807", INT64_MAX);
    ns_ok("-9223372036854775.807", -INT64_MAX);
}

static void test_us_to_ns_decimals(void **state)
{
    (void)state;
    ns_ok("1.5", 1500);
    ns_ok("0.001", 1);
    ns_ok("10.0", 10000);
    ns_ok("4461299882853.096", 4461299882853096LL);
    ns_ok("1712195495519689.047", 1712195495519689047LL);
    ns_ok("-1.250", -1250);
    ns_ok("0.000", 0);
    ns_ok("1.", 1000);
    ns_ok(".5", 500);
}

static void test_us_to_ns_rounding(void **state)
{
    (void)state;
    /* Ascend CANN durations carry 14 decimals. */
    ns_ok("12.77012757357446", 12770);
    ns_ok("0.49999999999999", 500);
    ns_ok("0.00049999999999", 0);
    ns_ok("0.00050000000000", 1);   /* half: away from zero */
    ns_ok("-0.00050000000000", -1);
    ns_ok("0.0004", 0);
    ns_ok("-0.0004", 0);
    ns_ok("1.0005", 1001);
    ns_ok("-1.0005", -1001);
    ns_ok("1.00049999", 1000);
    ns_ok("2.9995", 3000);          /* the carry ripples through */
    ns_ok("999.9999", 1000000);
    ns_ok("0.00005", 0);            /* below the rounding digit */
    ns_ok("3.14159265358979", 3142);
    ns_ok("1704161511420306.4905", 1704161511420306491LL);
    ns_ok("1704161511420306.4904999", 1704161511420306490LL);
    /* More digits than the scanner keeps: still exact at the ns. */
    ns_ok("1.00000000000000000000000000000000000000000000000000009", 1000);
}

static void test_us_to_ns_exponents(void **state)
{
    (void)state;
    ns_ok("1e3", 1000000);
    ns_ok("1E3", 1000000);
    ns_ok("1e+3", 1000000);
    ns_ok("1.5e-3", 2);             /* 1.5 ns rounds away from zero */
    ns_ok("-1.5e-3", -2);
    ns_ok("1.4e-3", 1);
    ns_ok("2.5e0", 2500);
    ns_ok("12345e-6", 12);          /* 12.345 ns */
    ns_ok("0.1e1", 1000);
    ns_ok("1e-10000", 0);
    ns_ok("0e400", 0);
    ns_ok("1.712195495519689047e15", 1712195495519689047LL);
    ns_bad("1e");
    ns_bad("1e+");
    ns_bad("1e400");                /* overflow */
}

static void test_us_to_ns_strings(void **state)
{
    (void)state;
    /* Ascend writes ts as a JSON string. */
    ns_ok("\"1704161511420306.491\"", 1704161511420306491LL);
    ns_ok("\"42\"", 42000);
    ns_bad("\"\"");
    ns_bad("\"abc\"");
}

static void test_us_to_ns_invalid(void **state)
{
    (void)state;
    ns_bad("");
    ns_bad("-");
    ns_bad(".");
    ns_bad("abc");
    ns_bad("1.2.3");
    ns_bad("12x");
    ns_bad("1 ");
    ns_bad("true");
    ns_bad("null");
    /* Overflow of int64 nanoseconds gives -1. */
    ns_bad("9223372036854775.808");
    ns_bad("9223372036854776");
    ns_bad("-9223372036854776");
    ns_bad("100000000000000000000");
    ns_bad("1234567890123456789012345678901234567890123");   /* > 40 integer digits */
    ns_bad("9223372036854775.8075");                          /* rounds past INT64_MAX */
}

static void test_json_int(void **state)
{
    (void)state;
    int_ok("0", 0);
    int_ok("42", 42);
    int_ok("-42", -42);
    int_ok("9223372036854775807", INT64_MAX);
    int_ok("-9223372036854775808", INT64_MIN);
    int_ok("\"2568503\"", 2568503);
    /* eight digits at a time: runs of 8, 9, 16, 17 and 18, all nines,
     * leading zeros, a non-digit at the eighth byte, a [memory] total */
    int_ok("12345678", 12345678);
    int_ok("99999999", 99999999);
    int_ok("-987654321", -987654321);
    int_ok("9999999999999999", 9999999999999999);
    int_ok("10000000000000001", 10000000000000001);
    int_ok("999999999999999999", 999999999999999999);
    int_ok("000000001234", 1234);
    int_ok("12782141440", 12782141440);
    int_ok("1234567.0", 1234567);
    int_bad("1234567a9");
    /* Hex strings (ROCm's "stream": "0x0"). */
    int_ok("\"0x1a\"", 26);
    int_ok("0x1a", 26);
    int_ok("\"0X1A\"", 26);
    int_ok("\"0x0\"", 0);
    int_ok("\"-0x10\"", -16);
    int_ok("\"0x7fffffffffffffff\"", INT64_MAX);
    /* Floats with an integer value. */
    int_ok("7.0", 7);
    int_ok("-7.000", -7);
    int_ok("1e3", 1000);
    int_ok("\"7.0\"", 7);
    int_bad("7.5");
    int_bad("7.0005");
    int_bad("7.0004");          /* rounds to 7000 ns, but is not an integer */
    int_bad("7.0000001");
    int_bad("1.5e0");
    int_bad("1e-3");
    /* Out of range. */
    int_bad("9223372036854775808");
    int_bad("-9223372036854775809");
    int_bad("18446744073709551616");
    int_bad("123456789012345678901234567890");   /* Kineto's "Comms Id" */
    int_bad("\"0x8000000000000000\"");
    int_bad("\"0x10000000000000000\"");
    /* Not numbers. */
    int_bad("");
    int_bad("\"\"");
    int_bad("-");
    int_bad("\"0x\"");
    int_bad("\"0xg\"");
    int_bad("abc");
    int_bad("true");
    int_bad("null");
    int_bad("\"Spans\"");
    int_bad("12abc");
}

/* vp_json_int's value of [-]digits, worked out apart: 0 with *out, or
 * -1 when it does not fit in int64. */
static int int_reference(const char *t, size_t n, int64_t *out)
{
    int neg = n && t[0] == '-';
    unsigned __int128 x = 0;
    for (size_t i = (size_t)neg; i < n; i++) {
        x = x * 10 + (unsigned)(t[i] - '0');
        if (x > (unsigned __int128)INT64_MAX + 1)
            return -1;
    }
    if (!neg && x > (unsigned __int128)INT64_MAX)
        return -1;
    *out = neg ? (int64_t)(0 - (uint64_t)x) : (int64_t)x;
    return 0;
}

/* Plain digits of every length 1-20 (the fast way takes 1-16, eight at
 * a time from eight), signed and not, quoted and not, with leading
 * zeros, all nines, at the exact end of a heap buffer, and with a
 * non-digit at every position (refused): the reference's answer. */
static void test_json_int_every_length(void **state)
{
    (void)state;
    srand(16);
    size_t checked = 0;
    for (size_t len = 1; len <= 20; len++)
        for (int form = 0; form < 4; form++)   /* random, nines, leading zeros, 1 then zeros */
            for (int neg = 0; neg < 2; neg++)
                for (int quoted = 0; quoted < 2; quoted++) {
                    char d[32], t[40];
                    for (size_t i = 0; i < len; i++)
                        d[i] = form == 1   ? '9'
                               : form == 2 ? (i < len / 2 ? '0' : (char)('1' + rand() % 9))
                               : form == 3 ? (i ? '0' : '1')
                                           : (char)('0' + rand() % 10);
                    size_t n = 0;
                    if (quoted)
                        t[n++] = '"';
                    if (neg)
                        t[n++] = '-';
                    memcpy(t + n, d, len);
                    n += len;
                    if (quoted)
                        t[n++] = '"';
                    int64_t want = 0, got = 12345;
                    int rw = int_reference(t + quoted, n - 2 * (size_t)quoted, &want);
                    char *b = malloc(n);
                    memcpy(b, t, n);
                    int rg = vp_json_int((vp_span){b, n}, &got);
                    if (rg != rw || (rw == 0 && got != want))
                        fail_msg("vp_json_int(%.*s) = %d %lld, want %d %lld", (int)n, t, rg,
                                 (long long)got, rw, (long long)want);
                    /* a byte no integer holds, at each position of the digits */
                    static const char junk[] = {'a', ' ', ',', '/', ':', 'z', '\\'};
                    for (size_t i = 0; i < len; i++) {
                        memcpy(b, t, n);
                        b[quoted + neg + i] = junk[(i + len) % sizeof junk];
                        if (vp_json_int((vp_span){b, n}, &got) != -1)
                            fail_msg("vp_json_int(%.*s) accepted", (int)n, b);
                    }
                    free(b);
                    checked++;
                }
    assert_int_equal(checked, 20 * 4 * 2 * 2);
    /* the edges of int64 and of the fast way's sixteen digits */
    int_ok("1234567890123456", 1234567890123456);
    int_ok("12345678901234567", 12345678901234567);
    int_ok("0000000000000000", 0);
    int_ok("00000000000000009", 9);
    int_ok("-0", 0);
    int_ok("9223372036854775807", INT64_MAX);
    int_bad("9223372036854775808");
    int_ok("-9223372036854775808", INT64_MIN);
    int_bad("-9223372036854775809");
    int_bad("18446744073709551616");
    int_bad("+5");
    int_bad("");
    int_bad("-");
    int_bad("\"\"");
    int_ok("0x10", 16);
    int_bad("00x10");
}

static void test_json_double(void **state)
{
    double d = 0;
    (void)state;
    assert_int_equal(vp_json_double(S("1.5"), &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(vp_json_double(S("\"-2.25e2\""), &d), 0);
    assert_true(d == -225.0);
    assert_int_equal(vp_json_double(S("0"), &d), 0);
    assert_true(d == 0.0);
    assert_int_equal(vp_json_double(S(""), &d), -1);
    assert_int_equal(vp_json_double(S("abc"), &d), -1);
    assert_int_equal(vp_json_double(S("1.5x"), &d), -1);
    assert_int_equal(vp_json_double(S("1e999"), &d), -1);
    assert_int_equal(vp_json_double(S("nan"), &d), -1);
    /* Longer than the conversion buffer. */
    assert_int_equal(vp_json_double(S("1.0000000000000000000000000000000000000000000000000000000000000000"),
                                    &d), -1);
}

/* Unescapes text, checks the decoded bytes and the replacement count. */
static void unesc(const char *text, const char *want, size_t want_len, size_t want_bad)
{
    vp_buf b = {0};
    size_t bad = vp_json_unescape(S(text), &b);
    if (bad != want_bad)
        fail_msg("unescape(%s): %zu replacements, want %zu", text, bad, want_bad);
    assert_int_equal(b.len, want_len);
    assert_memory_equal(b.data, want, want_len);
    assert_int_equal(b.data[b.len], 0);
    vp_buf_free(&b);
}

#define UNESC(text, want, bad) unesc(text, want, sizeof(want) - 1, bad)

static void test_unescape(void **state)
{
    (void)state;
    UNESC("plain", "plain", 0);
    UNESC("\"quoted\"", "quoted", 0);
    UNESC("", "", 0);
    UNESC("a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti", "a\"b\\c/d\be\ff\ng\rh\ti", 0);
    UNESC("\\u0041\\u00e9\\u20AC", "A\xC3\xA9\xE2\x82\xAC", 0);
    UNESC("\\u0000", "\0", 0);
    /* A surrogate pair: U+1F600. */
    UNESC("\\ud83d\\ude00", "\xF0\x9F\x98\x80", 0);
    UNESC("x\\uD83D\\uDE00y", "x\xF0\x9F\x98\x80y", 0);
    /* Lone surrogates. */
    UNESC("\\ud83d", "\xEF\xBF\xBD", 1);
    UNESC("\\ud83dx", "\xEF\xBF\xBDx", 1);
    UNESC("\\ude00", "\xEF\xBF\xBD", 1);
    UNESC("\\ud83d\\u0041", "\xEF\xBF\xBD" "A", 1);
    UNESC("\\ud83d\\ud83d\\ude00", "\xEF\xBF\xBD\xF0\x9F\x98\x80", 1);
    /* Bad escapes. */
    UNESC("\\u12", "\xEF\xBF\xBD" "12", 1);
    UNESC("\\uZZZZ", "\xEF\xBF\xBDZZZZ", 1);
    UNESC("\\x41", "\xEF\xBF\xBD" "41", 1);
    UNESC("ab\\", "ab\xEF\xBF\xBD", 1);
    /* Valid UTF-8 passes through. */
    UNESC("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 0);
    /* Invalid UTF-8: one U+FFFD per bad byte. */
    UNESC("a\xFF" "b", "a\xEF\xBF\xBD" "b", 1);
    UNESC("\xC3\x28", "\xEF\xBF\xBD(", 1);
    UNESC("\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD", 2);           /* overlong */
    UNESC("\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 3); /* encoded surrogate */
    UNESC("\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 4); /* > U+10FFFF */
    UNESC("\xE2\x82", "\xEF\xBF\xBD\xEF\xBF\xBD", 2);           /* cut short */
    UNESC("\x80\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 3);
}

static void test_unescape_reuses_buffer(void **state)
{
    vp_buf b = {0};
    (void)state;
    vp_buf_append(&b, "previous content", 16);
    assert_int_equal(vp_json_unescape(S("ab"), &b), 0);
    assert_int_equal(b.len, 2);
    assert_string_equal(b.data, "ab");
    vp_buf_free(&b);
}

static void test_str_eq(void **state)
{
    (void)state;
    assert_true(vp_json_str_eq(S("traceEvents"), "traceEvents"));
    assert_true(vp_json_str_eq(S("\"traceEvents\""), "traceEvents"));
    assert_true(vp_json_str_eq(S("trace\\u0045vents"), "traceEvents"));
    assert_false(vp_json_str_eq(S("traceEvent"), "traceEvents"));
    assert_false(vp_json_str_eq(S("trace\\u0046vents"), "traceEvents"));
    assert_true(vp_json_str_eq(S(""), ""));
}

/* vp_json_string over text whose first byte is the opening quote. */
static int str_scan(const char *text, size_t len, vp_span *out, unsigned *flags, size_t *used,
                    vp_json_fail *fail)
{
    const char *p = text;
    int r = vp_json_string(&p, text + len, out, flags, fail);
    *used = (size_t)(p - text);
    return r;
}

static void test_string(void **state)
{
    vp_span out;
    unsigned fl = 99;
    size_t used;
    vp_json_fail fail;
    (void)state;

    assert_int_equal(str_scan("\"abc\" rest", 10, &out, &fl, &used, &fail), VP_JSON_OK);
    assert_int_equal(out.n, 3);
    assert_memory_equal(out.p, "abc", 3);
    assert_int_equal(fl, 0);
    assert_int_equal(used, 5);

    assert_int_equal(str_scan("\"\"", 2, &out, &fl, &used, &fail), VP_JSON_OK);
    assert_int_equal(out.n, 0);
    assert_int_equal(used, 2);

    /* Escapes, including an escaped quote and backslash, at every word
     * alignment of the fast scan. */
    for (size_t pad = 0; pad < 20; pad++) {
        char text[64];
        size_t n = 0;
        text[n++] = '"';
        for (size_t i = 0; i < pad; i++)
            text[n++] = 'x';
        memcpy(text + n, "\\\"\\\\\"", 5);
        n += 5;
        memcpy(text + n, "tail", 4);
        n += 4;
        assert_int_equal(str_scan(text, n, &out, &fl, &used, &fail), VP_JSON_OK);
        assert_int_equal(out.n, pad + 4);
        assert_int_equal(fl, VP_STR_ESCAPED);
        assert_int_equal(used, pad + 6);
    }

    /* Non-ASCII bytes at every position around a word boundary, before
     * and after the closing quote (bytes after it must not count). */
    for (size_t pos = 0; pos < 20; pos++) {
        char text[64];
        memset(text, 'a', sizeof text);
        text[0] = '"';
        text[1 + pos] = (char)0xC3;
        text[22] = '"';
        text[23] = (char)0xFF;
        assert_int_equal(str_scan(text, 30, &out, &fl, &used, &fail), VP_JSON_OK);
        assert_int_equal(out.n, 21);
        assert_int_equal(fl, VP_STR_NONASCII);
        text[1 + pos] = 'a';
        assert_int_equal(str_scan(text, 30, &out, &fl, &used, &fail), VP_JSON_OK);
        assert_int_equal(fl, 0);
    }

    /* Unterminated: more input needed, at every length.  (An array with
     * room past the text: GCC's bounds warning does not see that the
     * 32-byte probe needs 32 bytes in the window.) */
    static const char t[64] = "\"abcdefghijklmnopqrs\\\"tuv\\";
    for (size_t n = 1; n <= strlen(t); n++)
        assert_int_equal(str_scan(t, n, &out, &fl, &used, &fail), VP_JSON_MORE);
    /* Raw control characters and newlines are tolerated inside strings. */
    assert_int_equal(str_scan("\"a\nb\tc\"", 7, &out, &fl, &used, &fail), VP_JSON_OK);
    assert_int_equal(out.n, 5);
}

static void test_string_too_long(void **state)
{
    size_t n = VP_JSON_MAX_STRING + 64;
    char *text = malloc(n);
    vp_span out;
    unsigned fl;
    size_t used;
    vp_json_fail fail = {0};
    (void)state;

    assert_non_null(text);
    memset(text, 'x', n);
    text[0] = '"';
    /* No closing quote in 16 MiB + 63 bytes: an error, not a request for
     * more input. */
    assert_int_equal(str_scan(text, n, &out, &fl, &used, &fail), VP_JSON_ERR);
    assert_ptr_equal(fail.where, text);
    assert_string_equal(fail.what, "a string longer than 16 MiB (vprof's limit)");
    /* A closing quote past the limit does not help. */
    text[n - 2] = '"';
    assert_int_equal(str_scan(text, n, &out, &fl, &used, &fail), VP_JSON_ERR);
    /* A backslash right at the limit: still an error, not MORE. */
    memset(text + 1, 'x', n - 1);
    text[VP_JSON_MAX_STRING] = '\\';
    assert_int_equal(str_scan(text, n, &out, &fl, &used, &fail), VP_JSON_ERR);
    /* Well below the limit: fine. */
    memset(text + 1, 'x', n - 1);
    text[1000001] = '"';
    assert_int_equal(str_scan(text, n, &out, &fl, &used, &fail), VP_JSON_OK);
    assert_int_equal(out.n, 1000000);
    free(text);
}

/* vp_json_skip over text; returns the result and sets *used. */
static int skip_text(const char *text, int depth, vp_span *out, size_t *used, vp_json_fail *fail)
{
    const char *p = text;
    int r = vp_json_skip(&p, text + strlen(text), depth, out, fail);
    *used = (size_t)(p - text);
    return r;
}

static void skip_ok(const char *text, size_t want_start, size_t want_len)
{
    vp_span out;
    size_t used;
    vp_json_fail fail;
    int r = skip_text(text, 0, &out, &used, &fail);
    if (r != VP_JSON_OK)
        fail_msg("skip_text(%s) = %d (%s)", text, r, r == VP_JSON_ERR ? fail.what : "more");
    assert_ptr_equal(out.p, text + want_start);
    assert_int_equal(out.n, want_len);
    assert_int_equal(used, want_start + want_len);
}

static void skip_err(const char *text, size_t where, const char *what)
{
    vp_span out;
    size_t used;
    vp_json_fail fail = {0};
    int r = skip_text(text, 0, &out, &used, &fail);
    if (r != VP_JSON_ERR)
        fail_msg("skip_text(%s) = %d, want an error", text, r);
    assert_int_equal(fail.where - text, where);
    assert_string_equal(fail.what, what);
}

static void test_skip_ok(void **state)
{
    (void)state;
    skip_ok("{}, ", 0, 2);
    skip_ok("  [] ", 2, 2);
    skip_ok("{\"a\": [1, 2, {\"b\": \"}]\"}], \"c\": null}x", 0, 37);
    skip_ok("\"str\\\"ing\",", 0, 10);
    skip_ok("12.5e3,", 0, 6);
    skip_ok("-1]", 0, 2);
    skip_ok("true}", 0, 4);
    skip_ok("null ", 0, 4);
    skip_ok("[[[[]]]] ", 0, 8);
    skip_ok("{ \"k\" : { \"k2\" : [ 1 , \"x\" ] } } ", 0, 32);
    skip_ok("\n\t\r [\n1\n] ", 4, 5);
}

static void test_skip_more(void **state)
{
    const char *doc = "{\"a\": [1, 2.5, {\"b\": \"x\\\"y\"}], \"c\": null, \"d\": true}";
    size_t len = strlen(doc);
    (void)state;
    /* Every proper prefix asks for more; the whole value is OK. */
    for (size_t n = 0; n < len; n++) {
        const char *p = doc;
        vp_span out;
        vp_json_fail fail;
        int r = vp_json_skip(&p, doc + n, 0, &out, &fail);
        if (r != VP_JSON_MORE)
            fail_msg("prefix of %zu bytes: %d, want MORE", n, r);
        assert_ptr_equal(p, doc);   /* *p untouched unless OK */
    }
    skip_ok(doc, 0, len);
    /* A number at the very end may go on: MORE. */
    vp_span out;
    size_t used;
    vp_json_fail fail;
    assert_int_equal(skip_text("123", 0, &out, &used, &fail), VP_JSON_MORE);
    assert_int_equal(skip_text("   ", 0, &out, &used, &fail), VP_JSON_MORE);
}

static void test_skip_err(void **state)
{
    (void)state;
    skip_err("{\"a\" 1}", 5, "expected ':' after a member name, found '1'");
    skip_err("{\"a\": 1 \"b\": 2}", 8, "expected ',' or '}' after an object member, found '\"'");
    skip_err("[1 2]", 3, "expected ',' or ']' after an array element, found '2'");
    skip_err("[1, }]", 4, "expected a JSON value, found '}'");
    skip_err("{1: 2}", 1, "expected a member name (a string), found '1'");
    skip_err("{\"a\": 1,}", 8, "expected a member name (a string), found '}'");
    skip_err("[1}", 2, "expected ',' or ']' after an array element, found '}'");
    skip_err("{\"a\":1]", 6, "expected ',' or '}' after an object member, found ']'");
    skip_err("]", 0, "expected a JSON value, found ']'");
    skip_err("\x01", 0, "expected a JSON value, found byte 0x01");
    skip_err("[\xff]", 1, "expected a JSON value, found byte 0xff");
}

static void test_skip_depth(void **state)
{
    char text[1200];
    vp_span out;
    size_t used;
    vp_json_fail fail = {0};
    (void)state;

    /* 128 levels are accepted, 129 refused. */
    memset(text, 0, sizeof text);
    memset(text, '[', 128);
    memset(text + 128, ']', 128);
    assert_int_equal(skip_text(text, 0, &out, &used, &fail), VP_JSON_OK);
    assert_int_equal(out.n, 256);

    memset(text, 0, sizeof text);
    memset(text, '[', 129);
    memset(text + 129, ']', 129);
    assert_int_equal(skip_text(text, 0, &out, &used, &fail), VP_JSON_ERR);
    assert_ptr_equal(fail.where, text + 128);
    assert_string_equal(fail.what, "nesting deeper than 128 levels (vprof's limit)");

    /* The enclosing levels count: at depth 2 only 126 more fit. */
    memset(text, 0, sizeof text);
    memset(text, '[', 126);
    memset(text + 126, ']', 126);
    assert_int_equal(skip_text(text, 2, &out, &used, &fail), VP_JSON_OK);
    memset(text, 0, sizeof text);
    memset(text, '[', 127);
    memset(text + 127, ']', 127);
    assert_int_equal(skip_text(text, 2, &out, &used, &fail), VP_JSON_ERR);

    /* Objects count as levels too, and an unclosed deep nest is refused
     * before the input runs out. */
    memset(text, 0, sizeof text);
    for (int i = 0; i < 200; i++)
        memcpy(text + 5 * i, "{\"a\":", 5);
    assert_int_equal(skip_text(text, 0, &out, &used, &fail), VP_JSON_ERR);
    assert_ptr_equal(fail.where, text + 5 * 128);

    /* Many values at a shallow depth: bounded by the depth, not the size. */
    size_t n = 3 * 100000 + 2;
    char *big = malloc(n + 1);
    assert_non_null(big);
    big[0] = '[';
    for (size_t i = 0; i < 100000; i++)
        memcpy(big + 1 + 3 * i, "[],", 3);
    big[n - 1] = ']';
    big[n] = 0;
    /* "[[],...,[],]": a trailing comma is not JSON. */
    assert_int_equal(skip_text(big, 0, &out, &used, &fail), VP_JSON_ERR);
    assert_int_equal(fail.where - big, n - 1);
    big[n - 2] = ' ';
    assert_int_equal(skip_text(big, 0, &out, &used, &fail), VP_JSON_OK);
    assert_int_equal(out.n, n);
    free(big);
}

static void test_get(void **state)
{
    const char *obj = "{\"External id\": 7, \"correlation\": 1234, \"stream\": \"0x0\", "
                      "\"grid\": [1, 2, 3], \"nested\": {\"correlation\": 9}, "
                      "\"esc\\u0061ped\": true, \"last\": null}";
    vp_span v;
    int64_t x;
    (void)state;

    assert_int_equal(vp_json_get(S(obj), "correlation", &v), 1);
    assert_int_equal(v.n, 4);
    assert_memory_equal(v.p, "1234", 4);
    assert_int_equal(vp_json_int(v, &x), 0);
    assert_int_equal(x, 1234);

    assert_int_equal(vp_json_get(S(obj), "stream", &v), 1);
    assert_int_equal(v.n, 5);
    assert_memory_equal(v.p, "\"0x0\"", 5);

    assert_int_equal(vp_json_get(S(obj), "grid", &v), 1);
    assert_int_equal(v.n, 9);
    assert_memory_equal(v.p, "[1, 2, 3]", 9);

    assert_int_equal(vp_json_get(S(obj), "nested", &v), 1);
    assert_memory_equal(v.p, "{\"correlation\": 9}", v.n);

    /* Escaped keys are compared decoded. */
    assert_int_equal(vp_json_get(S(obj), "escaped", &v), 1);
    assert_memory_equal(v.p, "true", v.n);
    assert_int_equal(vp_json_get(S(obj), "last", &v), 1);
    assert_memory_equal(v.p, "null", v.n);

    v.p = (const char *)1;
    assert_int_equal(vp_json_get(S(obj), "absent", &v), 0);
    assert_null(v.p);
    assert_int_equal(vp_json_get(S(obj), "correlatio", &v), 0);
    assert_int_equal(vp_json_get(S("[1, 2]"), "a", &v), 0);
    assert_int_equal(vp_json_get(S("\"str\""), "a", &v), 0);
    assert_int_equal(vp_json_get(S(""), "a", &v), 0);
    assert_int_equal(vp_json_get(S("{}"), "a", &v), 0);
    assert_int_equal(vp_json_get(S("  { \"a\" :\n5 } "), "a", &v), 1);
    assert_memory_equal(v.p, "5", v.n);
    /* Malformed: the members before the damage are still found. */
    assert_int_equal(vp_json_get(S("{\"a\": 1, \"b\" 2, \"c\": 3}"), "a", &v), 1);
    assert_int_equal(vp_json_get(S("{\"a\": 1, \"b\" 2, \"c\": 3}"), "c", &v), 0);
    assert_int_equal(vp_json_get(S("{\"a\": 1, \"b\": [1, 2"), "b", &v), 0);
}

static void test_get_many(void **state)
{
    const char *obj = "{\"device\": 0, \"stream\": 7, \"correlation\": 99, \"stream\": 8, "
                      "\"bytes\": 4096}";
    const char *const keys[] = {"correlation", "stream", "missing", "device", "bytes"};
    vp_span vals[5];
    (void)state;

    assert_int_equal(vp_json_get_many(S(obj), keys, 5, vals), 4);
    assert_memory_equal(vals[0].p, "99", vals[0].n);
    assert_int_equal(vals[0].n, 2);
    /* The first occurrence of a repeated key wins. */
    assert_memory_equal(vals[1].p, "7", vals[1].n);
    assert_int_equal(vals[1].n, 1);
    assert_null(vals[2].p);
    assert_int_equal(vals[2].n, 0);
    assert_memory_equal(vals[3].p, "0", vals[3].n);
    assert_memory_equal(vals[4].p, "4096", vals[4].n);
    assert_int_equal(vals[4].n, 4);

    /* All found: stops early; none asked: 0. */
    assert_int_equal(vp_json_get_many(S(obj), keys, 2, vals), 2);
    assert_int_equal(vp_json_get_many(S(obj), keys, 0, vals), 0);
    /* Not an object: every value is absent. */
    vals[0].p = obj;
    assert_int_equal(vp_json_get_many(S("[]"), keys, 1, vals), 0);
    assert_null(vals[0].p);
}

/* An absent member (p == NULL, as the reader leaves ev.args when an event
 * has none) is a valid argument everywhere: found by fuzz_trace, where
 * vp_json_get_many on a NULL span did pointer arithmetic on NULL (UBSan). */
static void test_absent_span(void **state)
{
    vp_span none = {NULL, 0};
    const char *const keys[] = {"correlation"};
    vp_span vals[1] = {{"x", 1}};
    int64_t x = 7;
    double d = 7;
    vp_buf b = {0};
    (void)state;

    assert_int_equal(vp_json_get_many(none, keys, 1, vals), 0);
    assert_null(vals[0].p);
    assert_int_equal(vp_json_get(none, "correlation", vals), 0);
    assert_int_equal(vp_json_int(none, &x), -1);
    assert_int_equal(vp_json_us_to_ns(none, &x), -1);
    assert_int_equal(x, 7);
    assert_int_equal(vp_json_double(none, &d), -1);
    assert_int_equal(vp_json_unescape(none, &b), 0);
    assert_int_equal(b.len, 0);
    assert_true(vp_json_str_eq(none, ""));
    assert_false(vp_json_str_eq(none, "a"));
    assert_false(vp_json_is_string(none));
    vp_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_us_to_ns_integers),
        cmocka_unit_test(test_us_to_ns_decimals),
        cmocka_unit_test(test_us_to_ns_rounding),
        cmocka_unit_test(test_us_to_ns_exponents),
        cmocka_unit_test(test_us_to_ns_strings),
        cmocka_unit_test(test_us_to_ns_invalid),
        cmocka_unit_test(test_json_int),
        cmocka_unit_test(test_json_int_every_length),
        cmocka_unit_test(test_json_double),
        cmocka_unit_test(test_unescape),
        cmocka_unit_test(test_unescape_reuses_buffer),
        cmocka_unit_test(test_str_eq),
        cmocka_unit_test(test_string),
        cmocka_unit_test(test_string_too_long),
        cmocka_unit_test(test_skip_ok),
        cmocka_unit_test(test_skip_more),
        cmocka_unit_test(test_skip_err),
        cmocka_unit_test(test_skip_depth),
        cmocka_unit_test(test_get),
        cmocka_unit_test(test_get_many),
        cmocka_unit_test(test_absent_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
