/* Unit tests for the scanner variants (src/json/scan.c): every variant the
 * CPU has must give the scalar code's answer on strings, whitespace runs
 * and skipped values placed at every offset of 16- and 32-byte blocks and
 * cut at every byte, and on escapes and invalid UTF-8 at every position
 * of a block (NEON too, on arm64 under qemu).  Also the fast decimal path of vp_json_us_to_ns, its in-place
 * form vp_json_us_to_ns_at (its digit runs read a word at a time, at every
 * offset and cut at every byte), the skip of numbers, and the inline
 * whitespace test of vp_json_ws. */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vprof/json.h"
#include "vprof/source.h"

#include "json_variants.h"

static void test_variant_names(void **state)
{
    (void)state;
    assert_int_equal(vp_json_set_scanner("scalar"), 0);
    assert_string_equal(vp_json_scanner(), "scalar");
    assert_int_equal(vp_json_set_scanner("no-such-isa"), -1);
    assert_string_equal(vp_json_scanner(), "scalar");   /* unchanged */
#if defined(__x86_64__)
    assert_int_equal(vp_json_set_scanner("sse2"), 0);   /* every x86-64 */
    assert_string_equal(vp_json_scanner(), "sse2");
    assert_int_equal(vp_json_set_scanner("neon"), -1);
#endif
#if defined(__aarch64__)
    assert_int_equal(vp_json_set_scanner("neon"), 0);   /* every AArch64 CPU */
    assert_string_equal(vp_json_scanner(), "neon");
    assert_int_equal(vp_json_set_scanner("sse2"), -1);
#endif
}

/* A string of len bytes closing at every position 0..79, with the input
 * cut at every byte: the quote lands on every lane of a 16- and 32-byte
 * block, and the end of the input too. */
static void test_string_quote_every_position(void **state)
{
    (void)state;
    char text[128];
    for (size_t q = 0; q < 80; q++) {
        text[0] = '"';
        for (size_t i = 0; i < q; i++)
            text[1 + i] = (char)('a' + i % 26);
        text[1 + q] = '"';
        memcpy(text + 2 + q, ", \"x\": 1}", 9);
        size_t full = 2 + q + 9;
        for (size_t len = 1; len <= full; len++) {
            outcome o = all_variants(string_outcome, text, len, "quote", q);
            if (len >= q + 2) {
                assert_int_equal(o.r, VP_JSON_OK);
                assert_int_equal(o.n, q);
                assert_int_equal(o.consumed, q + 2);
                assert_int_equal(o.flags, 0);
            } else {
                assert_int_equal(o.r, VP_JSON_MORE);
            }
        }
    }
}

/* An escape (\" , \\ , \u00e9) at every position of a 70-byte string. */
static void test_string_escape_every_position(void **state)
{
    (void)state;
    static const char *const escapes[] = {"\\\"", "\\\\", "\\u00e9", "\\n"};
    char text[128];
    for (size_t e = 0; e < 4; e++) {
        size_t el = strlen(escapes[e]);
        for (size_t at = 0; at < 70; at++) {
            size_t n = 0;
            text[n++] = '"';
            for (size_t i = 0; i < at; i++)
                text[n++] = 'b';
            memcpy(text + n, escapes[e], el);
            n += el;
            while (n < 72)
                text[n++] = 'c';
            text[n++] = '"';
            text[n++] = '}';
            outcome o = all_variants(string_outcome, text, n, "escape", at);
            assert_int_equal(o.r, VP_JSON_OK);
            assert_int_equal(o.n, n - 3);
            assert_int_equal(o.flags, VP_STR_ESCAPED);
            /* Cut right after the backslash: more input is needed. */
            o = all_variants(string_outcome, text, 2 + at, "cut escape", at);
            assert_int_equal(o.r, VP_JSON_MORE);
        }
    }
}

/* A byte >= 0x80 (0xff: invalid UTF-8) at every position before and
 * after the closing quote: only those before it set VP_STR_NONASCII. */
static void test_string_nonascii_every_position(void **state)
{
    (void)state;
    char text[128];
    for (size_t q = 0; q < 70; q += 3) {
        for (size_t at = 0; at < 100; at++) {
            memset(text, 'z', sizeof text);
            text[0] = '"';
            text[1 + q] = '"';
            if (at != q)
                text[1 + at] = (char)0xff;
            outcome o = all_variants(string_outcome, text, sizeof text, "0xff", at);
            assert_int_equal(o.r, VP_JSON_OK);
            assert_int_equal(o.n, q);
            assert_int_equal(o.flags, at < q ? VP_STR_NONASCII : 0);
        }
    }
}

/* Runs of whitespace of every length 0..80 (all four kinds) before a
 * value, and objects and arrays cut at every byte: skip agrees across
 * variants, errors with the same offset and message. */
static void test_skip_ws_runs_and_cuts(void **state)
{
    (void)state;
    static const char ws[] = " \n\r\t";
    char text[512];
    for (size_t run = 0; run <= 80; run++) {
        size_t n = 0;
        text[n++] = '{';
        for (size_t i = 0; i < run; i++)
            text[n++] = ws[i % 4];
        n += (size_t)sprintf(text + n, "\"k\":");
        for (size_t i = 0; i < run; i++)
            text[n++] = ws[(i + 1) % 4];
        n += (size_t)sprintf(text + n, "[1, \"a\\\"b\", {\"c\": null}]");
        for (size_t i = 0; i < run; i++)
            text[n++] = ws[(i + 2) % 4];
        text[n++] = '}';
        text[n++] = ',';
        for (size_t len = 0; len <= n; len++) {
            outcome o = all_variants(skip_outcome, text, len, "ws run", run);
            if (len < n - 1)
                assert_int_equal(o.r, VP_JSON_MORE);   /* a cut object needs more */
            else
                assert_int_equal(o.r, VP_JSON_OK);
        }
    }
}

/* Malformed values whose fault sits at every offset of a block: the same
 * message and offset from every variant. */
static void test_skip_errors_every_position(void **state)
{
    (void)state;
    static const char *const faults[] = {"\"a\" \"b\"", "1 2", "\"a\": x", "]"};
    char text[160];
    for (size_t f = 0; f < 4; f++) {
        for (size_t pad = 0; pad < 40; pad++) {
            size_t n = 0;
            text[n++] = '[';
            for (size_t i = 0; i < pad; i++)
                text[n++] = i % 7 == 6 ? '\n' : ' ';
            n += (size_t)sprintf(text + n, "{\"name%zu\": %s}]", pad, faults[f]);
            outcome o = all_variants(skip_outcome, text, n, "fault", pad);
            assert_int_equal(o.r, VP_JSON_ERR);
        }
    }
    /* The message itself, once. */
    outcome o = all_variants(skip_outcome, "{\"a\"  \"b\"}", 10, "message", 0);
    assert_int_equal(o.where, 6);
    assert_string_equal(o.what, "expected ':' after a member name, found '\"'");
}

static void ns_ok(const char *text, int64_t want)
{
    int64_t got = 12345;
    vp_span v = {text, strlen(text)};
    if (vp_json_us_to_ns(v, &got) != 0)
        fail_msg("vp_json_us_to_ns(%s) failed", text);
    if (got != want)
        fail_msg("vp_json_us_to_ns(%s) = %lld, want %lld", text, (long long)got, (long long)want);
}

/* The forms the fast path takes, and its edges: 16 integer digits, the
 * first dropped digit rounding, the bound where the exact path takes
 * over. */
static void test_us_to_ns_fast_forms(void **state)
{
    (void)state;
    ns_ok("1712195495519836.506", 1712195495519836506LL);
    ns_ok("1669783687464181", 1669783687464181000LL);
    ns_ok("26.338", 26338);
    ns_ok("26.3385", 26339);
    ns_ok("26.33849999", 26338);
    ns_ok("1.9995", 2000);
    ns_ok("-0.0005", -1);
    ns_ok("-0.0004", 0);
    ns_ok("0.5", 500);
    ns_ok("7.", 7000);
    ns_ok("0000000000000000000012", 12000);   /* exact path: 22 digits */
    ns_ok("9223372036854774", 9223372036854774000LL);
    ns_ok("9223372036854775.807", INT64_MAX);  /* past the fast bound */
    int64_t x;
    vp_span big = {"9223372036854775.808", 20};
    assert_int_equal(vp_json_us_to_ns(big, &x), -1);
    vp_span e = {"1.5e3", 5};
    assert_int_equal(vp_json_us_to_ns(e, &x), 0);
    assert_int_equal(x, 1500000);
}

/* The inline whitespace test of vp_json_ws (16 bytes at a time in the
 * vector variants): runs of every length 0..40 of all four kinds, starting
 * at every offset of a 32-byte block, the buffer cut at every byte. */
static void test_ws_inline_every_length(void **state)
{
    (void)state;
    static const char ws[] = " \n\r\t";
    char text[128];
    for (size_t v = 0; v < NVARIANTS; v++) {
        if (vp_json_set_scanner(variants[v]) != 0)
            continue;
        for (size_t off = 0; off < 33; off++)
            for (size_t run = 0; run <= 40; run++) {
                memset(text, 'x', sizeof text);
                for (size_t i = 0; i < run; i++)
                    text[off + i] = ws[(i * 3 + off) % 4];
                for (size_t len = off; len <= off + run + 2; len++) {
                    const char *want = text + (off + run < len ? off + run : len);
                    const char *got = vp_json_ws(text + off, text + len);
                    if (got != want)
                        fail_msg("%s: ws run %zu at %zu cut at %zu: %td, want %td", variants[v],
                                 run, off, len, got - text, want - text);
                }
            }
    }
    vp_json_set_scanner("scalar");
}

/* vp_json_us_to_ns_at (ts/dur read in place) against skipping the value
 * and converting the span: the same nanoseconds and the same end when it
 * takes the number, nothing moved or written when it declines, for
 * numbers of every length placed at every offset of a 32-byte block
 * (the eight-digit loads straddle it) and cut at every byte. */
static void test_us_to_ns_at_agrees_with_skip(void **state)
{
    (void)state;
    static const char *const numbers[] = {
        "0", "7", "19", "-3", "229253", "1669783687464200", "1712195495519836.506",
        "26.3385", "1.9995", "-0.0005", "7.", "12345678", "123456789", "12345678901234567",
        "9223372036854775.807", "1.5e3", "1e3", "-", "0x1a", "00012", "3.14159265358979",
        /* the word-at-a-time runs: integer parts of 7, 8, 9, 15 and 16
         * digits, fractions of 1-9 digits, rounding on the fourth */
        "4458676388329.618", "1234567.5", "12345678.25", "1234567890.0625", "123456789012345.1",
        "1234567890123456", "1234567890123456.9995", "0.12345678", "0.123456789", "5.00050000",
        "0.9995", "99999999.99950", "-4458676388329.618", "-12345678.12345678", "1.2345e3"};
    static const char *const after[] = {",", "}", " ", "\n", "e5", "x", "", ".5", "]", "\""};
    char text[128];
    size_t taken = 0;
    for (size_t v = 0; v < NVARIANTS; v++) {
        if (vp_json_set_scanner(variants[v]) != 0)
            continue;
        for (size_t a = 0; a < sizeof numbers / sizeof numbers[0]; a++)
            for (size_t b = 0; b < sizeof after / sizeof after[0]; b++)
                for (size_t off = 0; off < 33; off++) {
                    memset(text, ' ', off);
                    int n = snprintf(text + off, sizeof text - off, "%s%s", numbers[a], after[b]);
                    size_t full = off + (size_t)n;
                    for (size_t len = off; len <= full; len++) {
                        /* a buffer of exactly len bytes: ASan sees a
                         * word read past its end */
                        char *buf = malloc(len ? len : 1);
                        memcpy(buf, text, len);
                        const char *end = buf + len;
                        const char *p = buf + off;
                        int64_t ns = 12345;
                        int took = vp_json_us_to_ns_at(&p, end, &ns);
                        const char *q = buf + off;
                        vp_span s;
                        vp_json_fail fail;
                        int r = vp_json_skip(&q, end, 0, &s, &fail);
                        if (!took) {
                            assert_ptr_equal(p, buf + off);
                            assert_int_equal(ns, 12345);
                            free(buf);
                            continue;
                        }
                        taken++;
                        int64_t want = 0, exact = 0;
                        assert_int_equal(r, VP_JSON_OK);
                        assert_ptr_equal(p, q);
                        assert_int_equal(vp_json_us_to_ns(s, &want), 0);
                        /* the number quoted goes the exact (digit string) way */
                        char quoted[64];
                        int qn = snprintf(quoted, sizeof quoted, "\"%.*s\"", (int)s.n, s.p);
                        assert_int_equal(vp_json_us_to_ns((vp_span){quoted, (size_t)qn}, &exact), 0);
                        if (ns != want || ns != exact)
                            fail_msg("%s%s at %zu cut %zu: %lld, want %lld (exact %lld)", numbers[a],
                                     after[b], off, len, (long long)ns, (long long)want,
                                     (long long)exact);
                        free(buf);
                    }
                }
    }
    assert_true(taken > 1000);   /* the common forms do go the fast way */
    vp_json_set_scanner("scalar");
}


/* One number at p: vp_json_us_to_ns_short against the general form on
 * the same buffer and against the exact decimal path (the number quoted):
 * when it takes the number, the same end and the same nanoseconds; when
 * it declines, nothing moved or written.  Returns whether it took it. */
static int short_agrees(const char *p, const char *end, const char *what)
{
    const char *a = p, *b = p;
    int64_t x = 12345, y = 0, exact = 0;
    if (!vp_json_us_to_ns_short(&a, end, &x)) {
        assert_ptr_equal(a, p);
        assert_int_equal(x, 12345);
        return 0;
    }
    if (!vp_json_us_to_ns_at_general(&b, end, &y) || a != b || x != y)
        fail_msg("%s: short %lld to +%td, general %lld to +%td", what, (long long)x, a - p,
                 (long long)y, b - p);
    char quoted[64];
    int qn = snprintf(quoted, sizeof quoted, "\"%.*s\"", (int)(a - p), p);
    assert_int_equal(vp_json_us_to_ns((vp_span){quoted, (size_t)qn}, &exact), 0);
    if (x != exact)
        fail_msg("%s: short %lld, exact %lld", what, (long long)x, (long long)exact);
    return 1;
}

/* The short forms, spelled out byte by byte: -?[0-9]{1,16}(.[0-9]{0,3})?
 * then a byte no number holds, at most 9223372036854774 whole. */
static int is_short_form(const char *s)
{
    s += *s == '-';
    int nd = 0;
    uint64_t x = 0;
    for (; *s >= '0' && *s <= '9'; s++, nd++)
        x = nd < 17 ? x * 10 + (uint64_t)(*s - '0') : x;
    if (nd == 0 || nd > 16 || x > 9223372036854774ULL)
        return 0;
    if (*s == '.') {
        int nf = 0;
        for (s++; *s >= '0' && *s <= '9'; s++)
            nf++;
        if (nf > 3)
            return 0;
    }
    return !((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
             *s == '+' || *s == '-' || *s == '.');
}

/* Generated forms: every integer digit count 1-20 (all nines, a one and
 * zeros, leading zeros, mixed), none to five decimals ending in 4, 5 or 9
 * (the rounding digit), '-' and "-0", exponents, then each terminator,
 * in a buffer of exactly the bytes up to every cut (ASan sees a load past
 * its end) and with 40 bytes of room. */
static void test_us_to_ns_short_generated(void **state)
{
    (void)state;
    static const char *const fracs[] = {"", ".", ".5", ".05", ".123", ".999", ".0004",
                                        ".1235", ".99995", ".00049", ".12345"};
    static const char *const exps[] = {"", "e3", "E-2", "e+1"};
    static const char *const after[] = {",", "}", " ", "\n", "]", "\"", "x", "e", ".", "0"};
    size_t taken = 0, roomy = 0, want = 0;
    char text[128], num[64];
    for (int neg = 0; neg < 2; neg++)
        for (int nd = 1; nd <= 20; nd++)
            for (int form = 0; form < 4; form++) {
                char ip[24];
                for (int i = 0; i < nd; i++)
                    ip[i] = form == 0   ? '9'
                            : form == 1 ? (i ? '0' : '1')
                            : form == 2 ? (i < nd - 1 ? '0' : '7')
                                        : (char)('0' + (i * 7 + 3) % 10);
                ip[nd] = 0;
                for (size_t f = 0; f < sizeof fracs / sizeof fracs[0]; f++)
                    for (size_t e = 0; e < sizeof exps / sizeof exps[0]; e++) {
                        snprintf(num, sizeof num, "%s%s%s%s", neg ? "-" : "", ip, fracs[f], exps[e]);
                        for (size_t b = 0; b < sizeof after / sizeof after[0]; b++) {
                            int n = snprintf(text, sizeof text, "%s%s", num, after[b]);
                            memset(text + n, ' ', 40);
                            size_t full = (size_t)n + 40;
                            /* every cut for one terminator, room for all */
                            for (size_t len = b ? full : 0; len <= full; len++) {
                                char *buf = malloc(len ? len : 1);
                                memcpy(buf, text, len);
                                int took = short_agrees(buf, buf + len, text);
                                if (len == full) {
                                    roomy += (size_t)took;
                                    want += (size_t)is_short_form(text);
                                }
                                taken += (size_t)took;
                                free(buf);
                            }
                        }
                    }
            }
    /* with room, exactly the short forms go the short way; cut, fewer */
    assert_int_equal(roomy, want);
    assert_true(want > 1000 && taken > want);
    const char *kineto[] = {"1699999999123.456,", "12.345}", "3,", "-0,", "0.5,"};
    for (size_t i = 0; i < sizeof kineto / sizeof kineto[0]; i++) {
        snprintf(text, sizeof text, "%s%40s", kineto[i], "");
        assert_int_equal(short_agrees(text, text + strlen(text), kineto[i]), 1);
    }
}

/* Each JSON file (plain or gzip) of the test data and, where they are
 * there, the shared real fixtures, whole, to fixture_fn. */
static void (*fixture_fn)(const char *path, const char *data, const char *end);

static int each_fixture(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || !((n > 5 && strcmp(path + n - 5, ".json") == 0) ||
                           (n > 8 && strcmp(path + n - 8, ".json.gz") == 0)))
        return 0;
    vp_error err = {0};
    vp_source *s = vp_source_open(path, &err);
    assert_non_null(s);
    vp_buf all = {0};
    vp_chunk c;
    while (vp_source_next(s, &c, &err) == 1)
        vp_buf_append(&all, c.data, c.len);
    vp_source_close(s);
    if (all.len)
        fixture_fn(path, all.data, all.data + all.len);
    vp_buf_free(&all);
    return 0;
}

static void walk_fixtures(void (*fn)(const char *, const char *, const char *))
{
    fixture_fn = fn;
    const char *data = getenv("VPROF_TEST_DATA");
    if (!data)
        skip();
    assert_int_equal(nftw(data, each_fixture, 16, FTW_PHYS), 0);
    const char *shared = getenv("VPROF_SHARED");
    char real[4096];
    if (shared && snprintf(real, sizeof real, "%s/fixtures/real", shared) < (int)sizeof real &&
        access(real, R_OK) == 0)
        assert_int_equal(nftw(real, each_fixture, 16, FTW_PHYS), 0);
}

/* Each value of a member named name (quoted, as "ts") in [p, end). */
static void each_member(const char *p, const char *end, const char *name,
                        void (*fn)(const char *path, const char *at, const char *end),
                        const char *path)
{
    size_t k = strlen(name);
    for (; p < end; p++) {
        p = memchr(p, '"', (size_t)(end - p));
        if (!p)
            break;
        if ((size_t)(end - p) < k || memcmp(p, name, k) != 0)
            continue;
        const char *q = vp_json_ws(p + k, end);
        if (q == end || *q != ':')
            continue;
        fn(path, vp_json_ws(q + 1, end), end);
    }
}

/* Every ts and dur value of the fixtures, read where it stands. */
static size_t fixture_numbers, fixture_taken;

static void one_time(const char *path, const char *at, const char *end)
{
    fixture_numbers++;
    fixture_taken += (size_t)short_agrees(at, end, path);
}

static void fixture_times(const char *path, const char *data, const char *end)
{
    each_member(data, end, "\"ts\"", one_time, path);
    each_member(data, end, "\"dur\"", one_time, path);
}

static void test_us_to_ns_short_fixtures(void **state)
{
    (void)state;
    walk_fixtures(fixture_times);
    assert_true(fixture_numbers > 10000);
    /* nearly all of them are Kineto's short forms */
    assert_true(fixture_taken > fixture_numbers * 9 / 10);
    print_message("%zu ts/dur values, %zu read the short way\n", fixture_numbers, fixture_taken);
}

/* vp_json_get_keyset against vp_json_get_many (the general comparison)
 * on one object: the same count and the same spans. */
static const char *const set_keys[][3] = {
    {"correlation"}, {"stream", "correlation", "device"}, {"Task Type", "Stream Id"},
    {"correlation", "correlation"}, {"Collective name", "correlation"}, {"a\"b", "x"}};
static const size_t set_n[] = {1, 3, 2, 2, 2, 2};
#define NSETS (sizeof set_n / sizeof set_n[0])
static vp_json_keyset sets[NSETS];
static size_t sets_found;

static void keyset_agrees(vp_span obj, const char *what)
{
    for (size_t s = 0; s < NSETS; s++) {
        vp_span a[3], b[3];
        int na = vp_json_get_keyset(obj, &sets[s], a);
        int nb = vp_json_get_many(obj, set_keys[s], set_n[s], b);
        if (na != nb)
            fail_msg("%s: set %zu found %d, general %d", what, s, na, nb);
        for (size_t i = 0; i < set_n[s]; i++)
            if (a[i].p != b[i].p || a[i].n != b[i].n)
                fail_msg("%s: set %zu key %zu differs", what, s, i);
        sets_found += (size_t)na;
    }
}

static void init_sets(void)
{
    for (size_t s = 0; s < NSETS; s++)
        vp_json_keyset_init(&sets[s], set_keys[s], set_n[s]);
    assert_int_equal(sets[0].words, 1);
    assert_int_equal(sets[4].words, 1);   /* "Collective name": 15 bytes, compared on */
    assert_int_equal(sets[5].words, 0);   /* a quote */
}

static size_t fixture_args;

static void one_args(const char *path, const char *at, const char *end)
{
    vp_span v;
    vp_json_fail fail;
    const char *q = at;
    if (vp_json_skip(&q, end, 0, &v, &fail) != VP_JSON_OK)
        return;
    fixture_args++;
    keyset_agrees(v, path);
    /* one in 256 cut short at every byte of its first 64 */
    for (size_t n = 0; fixture_args % 256 == 1 && n < v.n && n < 64; n++) {
        char *cut = malloc(n ? n : 1);
        memcpy(cut, v.p, n);
        keyset_agrees((vp_span){cut, n}, path);
        free(cut);
    }
}

static void fixture_args_of(const char *path, const char *data, const char *end)
{
    each_member(data, end, "\"args\"", one_args, path);
}

/* Every args object of the fixtures, whole and cut. */
static void test_keyset_fixtures(void **state)
{
    (void)state;
    init_sets();
    sets_found = 0;
    walk_fixtures(fixture_args_of);
    assert_true(fixture_args > 10000);
    assert_true(sets_found > fixture_args);
    print_message("%zu args objects, %zu members found\n", fixture_args, sets_found);
}

/* The cases that could tell the word compare from decoding the names:
 * the value each key finds, exactly. */
static void test_keyset_cases(void **state)
{
    (void)state;
    init_sets();
    static const struct {
        const char *obj;
        const char *want;   /* the "correlation" value, NULL when none */
    } cases[] = {
        {"{\"correlation\": 7, \"correlation\": 8}", "7"},           /* the first of two */
        {"{\"correl\\u0061tion\": 5, \"correlation\": 6}", "5"},     /* escaped, first */
        {"{\"correlation\": 6, \"correl\\u0061tion\": 5}", "6"},
        {"{\"a\": {\"correlation\": 1}, \"b\": 2}", NULL},          /* nested: not a member */
        {"{\"a\": {\"correlation\": 1}, \"correlation\": 3}", "3"},
        {"{\"a\": [\"correlation\", 1], \"correlation\": 4}", "4"},
        {"{\"x\": \"\\\"correlation\\\": 9\", \"correlation\": 2}", "2"},  /* inside a string */
        {"{\"correlationx\": 1, \"correlation\": 10}", "10"},
        {"{\"correlation\" : 11}", "11"},
        {"{\"correlation\"x 12, \"correlation\": 13}", NULL},        /* broken: stops */
        {"{\"correlation\": }", NULL},
        {"{\"correlation\":-14}", "-14"},
        {"[\"correlation\", 15]", NULL},
        {"{\"External id\": 13,      \"device\": 2, \"stream\": 0,      \"correlation\": 118, "
         "\"kind\": \"Dispatch Kernel\"}",
         "118"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char buf[256];
        /* at the end of its buffer and with room after it */
        for (int room = 0; room < 2; room++) {
            size_t n = strlen(cases[c].obj);
            memcpy(buf, cases[c].obj, n);
            memset(buf + n, ' ', 32);
            vp_span obj = {buf, n};
            vp_span v;
            int got = vp_json_get_keyset(obj, &sets[0], &v);
            if (!cases[c].want) {
                assert_int_equal(got, 0);
            } else {
                assert_int_equal(got, 1);
                assert_int_equal(v.n, strlen(cases[c].want));
                assert_memory_equal(v.p, cases[c].want, v.n);
            }
            keyset_agrees(obj, cases[c].obj);
            char *exact = malloc(n);
            memcpy(exact, cases[c].obj, n);
            for (size_t cut = 0; cut <= n; cut++)
                keyset_agrees((vp_span){exact, cut}, cases[c].obj);
            free(exact);
            (void)room;
        }
    }
    /* duplicate keys in the set: each occurrence fills the next */
    vp_span two[2];
    const char *dup = "{\"correlation\": 1, \"correlation\": 2}";
    assert_int_equal(vp_json_get_keyset((vp_span){dup, strlen(dup)}, &sets[3], two), 2);
    assert_memory_equal(two[0].p, "1", 1);
    assert_memory_equal(two[1].p, "2", 1);
}

/* get_members' answer worked out the plain way: each name scanned and
 * compared as decoded (vp_json_str_eq), each value skipped, the walk
 * stopping where it stops. */
static int members_reference(vp_span obj, const char *const *keys, size_t nkeys, vp_span *vals)
{
    vp_json_fail fail;
    size_t found = 0;
    memset(vals, 0, nkeys * sizeof *vals);
    const char *end = obj.p + obj.n, *p = vp_json_ws(obj.p, end);
    /* not an object: no members */
    p = p < end && *p == '{' ? vp_json_ws(p + 1, end) : end;
    while (p < end && *p == '"') {
        vp_span k, v;
        unsigned fl;
        if (vp_json_string(&p, end, &k, &fl, &fail) != VP_JSON_OK)
            break;
        p = vp_json_ws(p, end);
        if (p == end || *p != ':')
            break;
        p++;
        if (vp_json_skip(&p, end, 1, &v, &fail) != VP_JSON_OK)
            break;
        for (size_t i = 0; i < nkeys; i++)
            if (!vals[i].p && vp_json_str_eq(k, keys[i])) {
                vals[i] = v;
                found++;
                break;
            }
        if (found == nkeys)
            break;
        p = vp_json_ws(p, end);
        if (p == end || *p != ',')
            break;
        p = vp_json_ws(p + 1, end);
    }
    return (int)found;
}

/* Keys of every length around the sixteen bytes a keyset compares at
 * once (names of 14 bytes fill them with their quotes; longer ones are
 * compared on), the empty key, and one twice. */
static const char *const long_keys[] = {
    "correlation",      "stream",           "device",
    "Total Allocated",  "Total Reserved",   "abcdefghijklmnop",
    "abcdefghijklmnopq", "a_key_of_thirty_bytes_long_xyz", "",
    "correlation"};
#define NLONG (sizeof long_keys / sizeof long_keys[0])

static void append(char *buf, size_t *n, const char *t)
{
    size_t l = strlen(t);
    memcpy(buf + *n, t, l);
    *n += l;
}

/* A member name for the generated objects: a key, a key with one byte
 * escaped, a key one byte short or long or changed at its sixteenth
 * byte, a name with an escaped quote or a non-ASCII byte, or a long one. */
static void random_name(char *buf, size_t *n)
{
    const char *k = long_keys[rand() % NLONG];
    size_t kl = strlen(k);
    char t[80];
    append(buf, n, "\"");
    switch (rand() % 9) {
    case 0:
    case 1:
    case 2:
        append(buf, n, k);
        break;
    case 3:   /* one byte as \u00XX */
        if (kl) {
            size_t at = (size_t)rand() % kl;
            memcpy(t, k, at);
            snprintf(t + at, sizeof t - at, "\\u%04x%s", (unsigned char)k[at], k + at + 1);
            append(buf, n, t);
        }
        break;
    case 4:   /* one short */
        snprintf(t, sizeof t, "%.*s", kl ? (int)kl - 1 : 0, k);
        append(buf, n, t);
        break;
    case 5:   /* one long */
        snprintf(t, sizeof t, "%s%c", k, "xq\"\\"[rand() % 2]);
        append(buf, n, t);
        break;
    case 6:   /* changed at one byte (the 15th to 17th of the name most often) */
        if (kl) {
            snprintf(t, sizeof t, "%s", k);
            size_t at = rand() % 2 && kl > 16 ? 14 + (size_t)rand() % 3 : (size_t)rand() % kl;
            t[at] = t[at] == 'z' ? 'y' : 'z';
            append(buf, n, t);
        }
        break;
    case 7:
        append(buf, n, (const char *[]){"a\\\"b", "caf\xc3\xa9", "x\\\\", "Ev Idx", "Bytes"}[rand() % 5]);
        break;
    default:
        append(buf, n, "a name longer than the others here, forty");
        break;
    }
    append(buf, n, "\"");
}

static const char *const member_values[] = {
    "0", "23", "2006935929", "12782141440", "123456789012345", "1234567890123456",
    "12345678901234567", "-1", "-", "9.888889", "1e5", "12x", "\"0x0\"", "\"Dispatch Kernel\"",
    "\"abcdefghijklmn\"", "\"abcdefghijklmno\"", "\"a\\\"b\"", "\"\"", "[1068, 1, 1]",
    "{\"correlation\": 5}", "true", "null", "\"correlation\""};
static const char *const after_name[] = {": ", ":", " : ", ":  ", ":\n"};
static const char *const between[] = {", ", ",", ",      ", ",\n      ", " , ", ",  "};
static const char *const opening[] = {"{", "{ ", "{\n      "};
static const char *const closing[] = {"}", " }", "\n    }"};

/* keysets (and vp_json_get_many, which does not use a keyset's words)
 * against members_reference, under every variant */
static size_t members_compared, members_found;

static void members_agree(vp_span obj, const char *what)
{
    static const size_t counts[] = {NLONG, 3, 1, 5};
    static const size_t firsts[] = {0, 0, 3, 4};
    for (size_t s = 0; s < 4; s++) {
        const char *const *keys = long_keys + firsts[s];
        size_t nk = counts[s];
        vp_json_keyset ks;
        vp_json_keyset_init(&ks, keys, nk);
        assert_int_equal(ks.words, 1);
        vp_span want[NLONG], a[NLONG], b[NLONG];
        int nw = members_reference(obj, keys, nk, want);
        int na = vp_json_get_keyset(obj, &ks, a);
        int nb = vp_json_get_many(obj, keys, nk, b);
        if (na != nw || nb != nw)
            fail_msg("%s: %s: set %zu: keyset %d, get_many %d, reference %d (%.*s)", vp_json_scanner(),
                     what, s, na, nb, nw, (int)obj.n, obj.p);
        for (size_t i = 0; i < nk; i++)
            if (a[i].p != want[i].p || a[i].n != want[i].n || b[i].p != want[i].p ||
                b[i].n != want[i].n)
                fail_msg("%s: %s: set %zu key %zu (%s) differs (%.*s)", vp_json_scanner(), what, s,
                         i, keys[i], (int)obj.n, obj.p);
        members_compared++;
        members_found += (size_t)nw;
    }
}

/* Generated objects of Kineto's forms and others: names around the
 * sixteen bytes, escaped names, duplicates, every kind of value, the
 * separators with and without whitespace, one byte of some broken; each
 * at the end of its heap buffer, and one in eight cut at every length. */
static void test_keyset_generated(void **state)
{
    (void)state;
    members_compared = members_found = 0;
    size_t ran = 0;
    for (size_t v = 0; v < NVARIANTS; v++) {
        if (vp_json_set_scanner(variants[v]) != 0)
            continue;
        ran++;
        srand(1600);
        for (int t = 0; t < 6000; t++) {
            char buf[1024];
            size_t n = 0;
            append(buf, &n, opening[rand() % 3]);
            int members = rand() % 9;
            for (int m = 0; m < members; m++) {
                if (m)
                    append(buf, &n, rand() % 3 ? ", " : between[rand() % 6]);
                random_name(buf, &n);
                append(buf, &n, rand() % 3 ? ": " : after_name[rand() % 5]);
                append(buf, &n, member_values[rand() % (sizeof member_values / sizeof member_values[0])]);
            }
            append(buf, &n, closing[rand() % 3]);
            if (t % 5 == 4) {   /* one byte broken */
                static const char breaks[] = "\":,}{[\\ a0";
                buf[rand() % n] = breaks[rand() % (sizeof breaks - 1)];
            }
            char *exact = malloc(n);
            memcpy(exact, buf, n);
            members_agree((vp_span){exact, n}, "generated");
            for (size_t cut = 0; t % 8 == 0 && cut < n; cut++)
                members_agree((vp_span){exact, cut}, "generated, cut");
            free(exact);
        }
    }
    vp_json_set_scanner(saved);
    assert_true(ran >= 1);
    assert_true(members_found > members_compared / 2);
    print_message("%zu lookups, %zu members found\n", members_compared, members_found);
}

/* The exact values found by names of 14, 15, 16 and 17 bytes, a long
 * name matching a key's first sixteen bytes only, and an escaped long
 * key, under every variant. */
static void test_keyset_long_keys(void **state)
{
    (void)state;
    static const char *const keys[] = {"Total Reserved", "Total Allocated", "abcdefghijklmnop",
                                       "abcdefghijklmnopq"};
    static const struct {
        const char *obj;
        const char *want[4];
    } cases[] = {
        {"{\"Ev Idx\": 42070, \"Bytes\": 5242880, \"Total Allocated\": 5435638784, "
         "\"Total Reserved\": 12782141440}",
         {"12782141440", "5435638784", NULL, NULL}},
        {"{\"Total Allocatedx\": 1, \"Total Allocate\": 2, \"Total Allocated\": 3}", {NULL, "3", NULL, NULL}},
        {"{\"abcdefghijklmnopq\": 1, \"abcdefghijklmnop\": 2}", {NULL, NULL, "2", "1"}},
        {"{\"abcdefghijklmnopz\": 1, \"abcdefghijklmnoz\": 2, \"abcdefghijklmnop\": 3}", {NULL, NULL, "3", NULL}},
        {"{\"Total \\u0041llocated\": \"a\", \"Total Allocated\": 4}", {NULL, "\"a\"", NULL, NULL}},
        {"{\"abcdefghijklmnop\\u0071\": [1], \"abcdefghijklmnopq\": 2}", {NULL, NULL, NULL, "[1]"}},
        {"{\"Total Reserved\":7,\"Total Reserved\":8}", {"7", NULL, NULL, NULL}},
        /* a name without its opening quote stops the walk */
        {"{\"Ev Idx\": 1, x\": 5, \"Total Reserved\": 3, \"Total Allocated\": 4}", {NULL, NULL, NULL, NULL}},
        {"{\"Bytes\": -8, \"Total Allocated\": -0, \"Total Reserved\": 0\n    }", {"0", "-0", NULL, NULL}},
    };
    vp_json_keyset ks;
    vp_json_keyset_init(&ks, keys, 4);
    assert_int_equal(ks.words, 1);
    for (size_t v = 0; v < NVARIANTS; v++) {
        if (vp_json_set_scanner(variants[v]) != 0)
            continue;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            size_t n = strlen(cases[c].obj);
            char *exact = malloc(n);
            memcpy(exact, cases[c].obj, n);
            vp_span got[4];
            int found = vp_json_get_keyset((vp_span){exact, n}, &ks, got), want_found = 0;
            for (size_t i = 0; i < 4; i++) {
                const char *w = cases[c].want[i];
                want_found += w != NULL;
                if (!w ? got[i].p != NULL
                       : !got[i].p || got[i].n != strlen(w) || memcmp(got[i].p, w, got[i].n) != 0)
                    fail_msg("%s: case %zu key %s: got %.*s", variants[v], c, keys[i],
                             got[i].p ? (int)got[i].n : 4, got[i].p ? got[i].p : "none");
            }
            assert_int_equal(found, want_found);
            free(exact);
        }
    }
    vp_json_set_scanner(saved);
}

/* vp_json_digit_run8 against counting byte by byte: every byte value
 * after a run of every length 0..7 (0xFA-0xFF carry out of their byte
 * when 6 is added: only into the bytes after them), digits after it. */
static void test_digit_run8_every_byte(void **state)
{
    (void)state;
    for (unsigned run = 0; run < 8; run++)
        for (unsigned c = 0; c < 256; c++) {
            char b[8];
            for (unsigned i = 0; i < 8; i++)
                b[i] = (char)('0' + (i * 7 + c) % 10);
            b[run] = (char)c;
            unsigned want = 0;
            while (want < 8 && b[want] >= '0' && b[want] <= '9')
                want++;
            unsigned got = vp_json_digit_run8(vp_json_load64(b));
            if (got != want)
                fail_msg("run %u then byte 0x%02x: %u, want %u", run, c, got, want);
        }
}

/* Numbers skipped (pid, tid, ids; vp_json_skip and its inline
 * vp_json_skip_number): runs of 1..20 digits, then a letter, a '.', or
 * the end of the number, at every offset of a 32-byte block and cut at
 * every byte (exact-size buffers), against a byte-by-byte scan. */
static void test_skip_number_every_length(void **state)
{
    (void)state;
    static const char *const tails[] = {",", "}", " ", "e5,", ".25]", "x\"", "-1,", ":"};
    char text[96];
    size_t checked = 0;
    for (size_t digits = 1; digits <= 20; digits++)
        for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++)
            for (size_t off = 0; off < 33; off++)
                for (int neg = 0; neg < 2; neg++) {
                    memset(text, ' ', off);
                    size_t n = off;
                    if (neg)
                        text[n++] = '-';
                    for (size_t i = 0; i < digits; i++)
                        text[n++] = (char)('0' + (i * 3 + off) % 10);
                    n += (size_t)sprintf(text + n, "%s", tails[t]);
                    /* where a byte-by-byte scan of [0-9A-Za-z+.-] stops */
                    size_t stop = off + 1;
                    while (stop < n && (isalnum((unsigned char)text[stop]) ||
                                        text[stop] == '+' || text[stop] == '-' || text[stop] == '.'))
                        stop++;
                    for (size_t len = off; len <= n; len++) {
                        char *buf = malloc(len ? len : 1);
                        memcpy(buf, text, len);
                        const char *p = buf, *q = buf + off;
                        vp_span s = {0}, s2 = {0};
                        vp_json_fail fail;
                        int r = vp_json_skip(&p, buf + len, 0, &s, &fail);
                        int r2 = len > off ? vp_json_skip_number(&q, buf + len, &s2) : VP_JSON_MORE;
                        if (len <= stop) {
                            assert_int_equal(r, VP_JSON_MORE);
                            assert_int_equal(r2, VP_JSON_MORE);
                        } else {
                            assert_int_equal(r, VP_JSON_OK);
                            assert_int_equal(r2, VP_JSON_OK);
                            assert_ptr_equal(s.p, buf + off);
                            assert_int_equal(s.n, stop - off);
                            assert_ptr_equal(p, buf + stop);
                            assert_ptr_equal(q, buf + stop);
                            assert_ptr_equal(s2.p, s.p);
                            assert_int_equal(s2.n, s.n);
                            checked++;
                        }
                        free(buf);
                    }
                }
    assert_int_equal(checked, 20 * 8 * 33 * 2);   /* each cut after its end */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variant_names),
        cmocka_unit_test(test_string_quote_every_position),
        cmocka_unit_test(test_string_escape_every_position),
        cmocka_unit_test(test_string_nonascii_every_position),
        cmocka_unit_test(test_skip_ws_runs_and_cuts),
        cmocka_unit_test(test_skip_errors_every_position),
        cmocka_unit_test(test_us_to_ns_fast_forms),
        cmocka_unit_test(test_ws_inline_every_length),
        cmocka_unit_test(test_us_to_ns_at_agrees_with_skip),
        cmocka_unit_test(test_us_to_ns_short_generated),
        cmocka_unit_test(test_us_to_ns_short_fixtures),
        cmocka_unit_test(test_keyset_cases),
        cmocka_unit_test(test_keyset_fixtures),
        cmocka_unit_test(test_keyset_generated),
        cmocka_unit_test(test_keyset_long_keys),
        cmocka_unit_test(test_digit_run8_every_byte),
        cmocka_unit_test(test_skip_number_every_length),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
