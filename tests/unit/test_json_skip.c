/* Unit tests for the bitmap walk that skips objects and arrays
 * (src/json/skip.c): on every variant the CPU has, vp_json_skip gives the
 * scalar code's answer (span, or error offset and message) with strings,
 * escapes, backslash runs, invalid UTF-8 and control characters at every
 * position of 16-, 32- and 64-byte blocks and across their edges, values
 * cut at every byte (the end of a chunk), and malformed text at every
 * offset.  The walk itself (vp_scan.skip_container) is called too, to show
 * that it accepts the well-formed values rather than leaving them all to
 * the scalar loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json/scan.h"
#include "vprof/json.h"

#include "json_variants.h"

/* How many variants with a walk accepted the value at text (well-formed,
 * at least 64 bytes), each ending where scalar's skip ends. */
static int walk_accepts(const char *text, size_t len, size_t want_n)
{
    int accepted = 0;
    for (int v = 1; v < NVARIANTS; v++) {
        if (vp_json_set_scanner(variants[v]) != 0 || !vp_scan.skip_container)
            continue;
        const char *stop = vp_scan.skip_container(text, text + len, 0);
        if (!stop)
            fail_msg("%s: the walk gave up on a well-formed value: %.*s", variants[v], (int)len, text);
        assert_int_equal((size_t)(stop - text), want_n);
        accepted++;
    }
    return accepted;
}

/* The variants with a walk on this CPU (avx2 on x86-64, neon on arm64). */
static int walkers(void)
{
    int n = 0;
    for (int v = 1; v < NVARIANTS; v++)
        if (vp_json_set_scanner(variants[v]) == 0 && vp_scan.skip_container)
            n++;
    return n;
}

/* AVX2 (where the CPU has it) and NEON walk; scalar and SSE2 do not. */
static void test_variants_have_walks(void **state)
{
    (void)state;
    assert_int_equal(vp_json_set_scanner("scalar"), 0);
    assert_null(vp_scan.skip_container);
#if defined(__x86_64__)
    assert_int_equal(vp_json_set_scanner("sse2"), 0);
    assert_null(vp_scan.skip_container);
    if (vp_json_set_scanner("avx2") == 0)
        assert_non_null(vp_scan.skip_container);
#elif defined(__aarch64__)
    assert_int_equal(vp_json_set_scanner("neon"), 0);
    assert_non_null(vp_scan.skip_container);
#endif
}

/* An args object like Kineto's, with a filler string of every length
 * 0..140 first, so that every later token lands on every lane of a 16-,
 * 32- and 64-byte block; followed by the event's rest. */
static void test_args_every_alignment(void **state)
{
    (void)state;
    static const char tail[] =
        "\", \"External id\": 3087, \"grid\": [108, 1, 1], \"nested\": {\"a\": [], \"b\": {}},"
        " \"ok\": true, \"none\": null, \"f\": -1.5e-3, \"s\": \"x\\\"y\\\\\"}, \"ph\": \"X\"}";
    char text[512];
    for (size_t fill = 0; fill <= 140; fill++) {
        size_t n = (size_t)sprintf(text, "{\"Ev Idx\": \"");
        memset(text + n, 'a' + (int)(fill % 26), fill);
        n += fill;
        memcpy(text + n, tail, sizeof tail - 1);
        n += sizeof tail - 1;
        outcome o = all_variants(skip_outcome, text, n, "args", fill);
        assert_int_equal(o.r, VP_JSON_OK);
        size_t want = n - strlen(", \"ph\": \"X\"}");
        assert_int_equal(o.n, want);
        assert_int_equal(walk_accepts(text, n, want), walkers());
    }
}

/* An escape at every position of a string spanning two 64-byte blocks:
 * the escaped quote must not close it, the escaped backslash must not
 * escape the closing quote. */
static void test_escape_every_position(void **state)
{
    (void)state;
    static const char *const escapes[] = {"\\\"", "\\\\", "\\u00e9", "\\/", "\\\"\\\""};
    char text[256];
    for (size_t e = 0; e < 5; e++) {
        for (size_t at = 0; at < 140; at++) {
            size_t n = (size_t)sprintf(text, "{\"k\": \"");
            memset(text + n, 'b', at);
            n += at;
            n += (size_t)sprintf(text + n, "%s", escapes[e]);
            while (n < 150)
                text[n++] = 'c';
            n += (size_t)sprintf(text + n, "\", \"j\": [1]}]");
            outcome o = all_variants(skip_outcome, text, n, "escape", at);
            assert_int_equal(o.r, VP_JSON_OK);
            assert_int_equal(o.n, n - 1);
            assert_int_equal(walk_accepts(text, n, n - 1), walkers());
        }
    }
}

/* Runs of 1..9 backslashes ending just before a quote, the run placed
 * across every offset around the 64-byte edge (and the 128-byte one): an
 * odd run escapes the quote (the string goes on to the next quote), an
 * even one does not. */
static void test_backslash_runs_across_edges(void **state)
{
    (void)state;
    char text[320];
    for (size_t run = 1; run <= 9; run++) {
        for (size_t at = 40; at < 140; at++) {
            size_t n = (size_t)sprintf(text, "[\"");
            while (n < at)
                text[n++] = 'x';
            for (size_t i = 0; i < run; i++)
                text[n++] = '\\';
            /* Odd: the quote is text, ", " too, and the string closes
             * at the quote after "y". */
            n += (size_t)sprintf(text + n, "\", \"y\", 2]");
            while (n < 200)
                text[n++] = ' ';
            text[n++] = ',';
            outcome o = all_variants(skip_outcome, text, n, "backslash run", at * 10 + run);
            if (run % 2 == 0) {
                assert_int_equal(o.r, VP_JSON_OK);
                assert_int_equal(o.n, at + run + 10);
                assert_int_equal(walk_accepts(text, n, o.n), walkers());
            } else {
                /* ["xx\", "  y  ", 2]: a bare y after the string. */
                assert_int_equal(o.r, VP_JSON_ERR);
                assert_int_equal(o.where, at + run + 4);
                assert_string_equal(o.what, "expected ',' or ']' after an array element, found 'y'");
            }
        }
    }
}

/* Invalid UTF-8, control characters and bytes >= 0x80 inside a string of
 * a skipped value, at every position: skipped like any text.  Outside a
 * string, the same bytes are errors with scalar's offset and message. */
static void test_odd_bytes_every_position(void **state)
{
    (void)state;
    static const unsigned char odd[] = {0xff, 0xc3, 0x80, 0x00, 0x01, 0x0c, 0x1a, 0x7f, '\t'};
    char text[256];
    for (size_t b = 0; b < sizeof odd; b++) {
        for (size_t at = 0; at < 130; at++) {
            size_t n = (size_t)sprintf(text, "{\"s\": \"");
            memset(text + n, 'q', 130);
            text[n + at] = (char)odd[b];
            n += 130;
            n += (size_t)sprintf(text + n, "\", \"t\": 5}  ");
            outcome o = all_variants(skip_outcome, text, n, "inside a string", at);
            assert_int_equal(o.r, VP_JSON_OK);
            assert_int_equal(o.n, n - 2);
            assert_int_equal(walk_accepts(text, n, n - 2), walkers());

            /* The same byte between members, before the 64-byte edge
             * and after it. */
            n = (size_t)sprintf(text, "{\"s\": \"");
            memset(text + n, 'q', at);
            n += at;
            n += (size_t)sprintf(text + n, "\",%c \"t\": 5}", odd[b]);
            while (n < 200)
                text[n++] = ' ';
            o = all_variants(skip_outcome, text, n, "outside a string", at);
            if (odd[b] == '\t') {
                assert_int_equal(o.r, VP_JSON_OK);
                continue;
            }
            assert_int_equal(o.r, VP_JSON_ERR);
            assert_int_equal(o.where, at + 9);
            char want[96];
            snprintf(want, sizeof want, "expected a member name (a string), found byte 0x%02x",
                     odd[b]);
            assert_string_equal(o.what, want);
        }
    }
}

/* A value cut at every byte, as at the end of a chunk: every variant
 * says more input is needed until the closing bracket is there. */
static void test_cut_at_every_byte(void **state)
{
    (void)state;
    static const char text[] =
        "{\"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, "
        "ncclWork*)\", \"grid\": [24, 1, 1], \"block\": [544, 1, 1], \"esc\": \"\\\\\\\"\", "
        "\"registers per thread\": 96, \"shared memory\": 0, \"blocks per SM\": 0.181818, "
        "\"warps per SM\": 3.093750, \"est. achieved occupancy %\": 0}";
    size_t n = sizeof text - 1;
    for (size_t len = 1; len <= n + 1; len++) {
        char buf[512];
        memcpy(buf, text, n);
        buf[n] = ',';
        outcome o = all_variants(skip_outcome, buf, len, "cut", len);
        assert_int_equal(o.r, len < n ? VP_JSON_MORE : VP_JSON_OK);
    }
}

/* A number after whitespace, cut by the end of the buffer: more input is
 * needed and nothing moved, so that the caller reads it again from the
 * same place (fuzz_json found the whitespace skipped on MORE). */
static void test_cut_number_keeps_place(void **state)
{
    (void)state;
    static const char *const texts[] = {" -92233720368547758", "  7", "\n\t12345678901", "-"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        const char *buf = texts[i], *p = buf;
        vp_span out;
        vp_json_fail fail;
        assert_int_equal(vp_json_skip(&p, buf + strlen(buf), 0, &out, &fail), VP_JSON_MORE);
        assert_ptr_equal(p, buf);
    }
    const char *buf = "  42,", *p = buf;
    vp_span out;
    vp_json_fail fail;
    assert_int_equal(vp_json_skip(&p, buf + 5, 0, &out, &fail), VP_JSON_OK);
    assert_ptr_equal(p, buf + 4);
    assert_ptr_equal(out.p, buf + 2);
    assert_int_equal(out.n, 2);
}

/* Every byte of a well-formed value replaced by each byte that matters to
 * the grammar or the classes, one at a time: every variant gives scalar's
 * span or error. */
static void test_single_byte_faults(void **state)
{
    (void)state;
    static const char text[] =
        "{\"External id\": 3087, \"Ev Idx\": 14, \"grid\": [108, 1, 1], \"s\": \"a\\\"b\\\\\","
        " \"o\": {\"x\": [true, false, null, -2.5E+3]}, \"u\": \"\xc3\xa9\", \"e\": \"\"}     ,";
    static const char swaps[] = "\"\\{}[]:, \n0-tnxI@#\x0c\x1a\xff";
    size_t n = sizeof text - 1;
    char buf[256];
    for (size_t i = 0; i < n; i++) {
        for (size_t s = 0; s < sizeof swaps - 1; s++) {
            memcpy(buf, text, n);
            buf[i] = swaps[s];
            all_variants(skip_outcome, buf, n, "fault", i * 100 + s);
        }
    }
}

/* Malformed args, with the exact message and offset the scalar loop gave
 * before the walk existed. */
static void test_malformed_args_messages(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t where;
        const char *what;
    } cases[] = {
        {"{\"External id\": 3087, \"Ev Idx\": 14,}                                                   ,",
         35, "expected a member name (a string), found '}'"},
        {"{\"External id\": 3087 \"Ev Idx\": 14}                                                    ,",
         21, "expected ',' or '}' after an object member, found '\"'"},
        {"{\"grid\": [108, 1, 1}, \"block\": [1, 1, 1]}                                            ,",
         19, "expected ',' or ']' after an array element, found '}'"},
        {"{\"name\": @bad, \"x\": 1}                                                               ,",
         9, "expected a JSON value, found '@'"},
        {"{\"a\" 1, \"b\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]}         ,",
         5, "expected ':' after a member name, found '1'"},
        {"{\"a\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,]}   ,",
         81, "expected a JSON value, found ']'"},
        {"{\"a\": 12x4!, \"b\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]}   ,",
         10, "expected ',' or '}' after an object member, found '!'"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        outcome o = all_variants(skip_outcome, cases[c].text, strlen(cases[c].text), "case", c);
        assert_int_equal(o.r, VP_JSON_ERR);
        assert_int_equal(o.where, cases[c].where);
        assert_string_equal(o.what, cases[c].what);
    }
}

/* Nesting at the limit and past it, with 0-2 levels already open:
 * arrays in objects, {"k":[{"k":[ ... 1 ... ]}]}. */
static void test_depth_limit(void **state)
{
    (void)state;
    char text[1024];
    for (int open = 120; open <= 130; open++) {
        size_t n = 0;
        for (int i = 0; i < open; i++)
            n += (size_t)sprintf(text + n, i % 2 ? "[" : "{\"k\":");
        text[n++] = '1';
        for (int i = open - 1; i >= 0; i--)
            text[n++] = i % 2 ? ']' : '}';
        text[n++] = ' ';
        for (skip_depth = 0; skip_depth <= 2; skip_depth++) {
            outcome o = all_variants(skip_outcome, text, n, "depth", (size_t)open);
            if (skip_depth + open > VP_JSON_MAX_DEPTH) {
                assert_int_equal(o.r, VP_JSON_ERR);
                assert_int_equal(o.where, (size_t)(VP_JSON_MAX_DEPTH - skip_depth) / 2 * 6 +
                                              ((VP_JSON_MAX_DEPTH - skip_depth) % 2 ? 5 : 0));
                assert_string_equal(o.what, "nesting deeper than 128 levels (vprof's limit)");
            } else {
                assert_int_equal(o.r, VP_JSON_OK);
                assert_int_equal(o.n, n - 1);
            }
        }
    }
    skip_depth = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_have_walks),
        cmocka_unit_test(test_args_every_alignment),
        cmocka_unit_test(test_escape_every_position),
        cmocka_unit_test(test_backslash_runs_across_edges),
        cmocka_unit_test(test_odd_bytes_every_position),
        cmocka_unit_test(test_cut_at_every_byte),
        cmocka_unit_test(test_cut_number_keeps_place),
        cmocka_unit_test(test_single_byte_faults),
        cmocka_unit_test(test_malformed_args_messages),
        cmocka_unit_test(test_depth_limit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
