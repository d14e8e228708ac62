/* Unit tests for src/trace/writer.c, the pieces `vprof merge` writes
 * events with: escaping, exact microseconds, splicing, rank ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/sink.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

#include "tmppath.h"

static void check_string(const char *in, size_t n, const char *want)
{
    vp_buf b = {0};
    vp_tw_string(&b, in, n);
    assert_string_equal(vp_buf_cstr(&b), want);
    vp_buf_free(&b);
}

static void test_string_escapes(void **state)
{
    (void)state;
    check_string("plain", 5, "\"plain\"");
    check_string("", 0, "\"\"");
    check_string("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
    check_string("\n\t\r\b\f\x01\x1f\v", 8, "\"\\n\\t\\r\\b\\f\\u0001\\u001f\\u000b\"");
    check_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    check_string("x\0y", 3, "\"x\\u0000y\"");
}

static void test_string_bad_utf8(void **state)
{
    (void)state;
    /* a lone continuation byte, a truncated sequence, an overlong '/', a
     * surrogate, a code point above U+10FFFF: each byte that starts no
     * valid sequence becomes U+FFFD. */
    check_string("a\x80z", 3, "\"a\xef\xbf\xbdz\"");
    check_string("\xe2\x82", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
    check_string("\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
    check_string("\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    check_string("\xf4\x90\x80\x80", 4, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
}

static void check_us(int64_t ns, const char *want)
{
    vp_buf b = {0};
    vp_tw_us(&b, ns);
    assert_string_equal(vp_buf_cstr(&b), want);
    vp_buf_free(&b);
}

static void test_us(void **state)
{
    (void)state;
    check_us(0, "0");
    check_us(1000, "1");
    check_us(1, "0.001");
    check_us(12345, "12.345");
    check_us(-500, "-0.500");
    check_us(-2000, "-2");
    check_us(1712195495519689047LL, "1712195495519689.047");
    check_us(INT64_MIN, "-9223372036854775.808");
}

static void check_id(const char *id, long rank, const char *want)
{
    vp_span s = {id, strlen(id)};
    vp_buf b = {0};
    vp_tw_rank_id(s, rank, &b);
    assert_string_equal(vp_buf_cstr(&b), want);
    vp_buf_free(&b);
}

static void test_rank_id(void **state)
{
    (void)state;
    check_id("7", 0, "7");
    check_id("7", 1, "4294967303");
    check_id("\"7\"", 1, "\"4294967303\"");
    check_id("0", 3, "12884901888");
    check_id("4294967295", 1, "8589934591");
    /* outside the numeric namespace: a string with the rank */
    check_id("4294967296", 1, "\"r1:4294967296\"");
    check_id("1704161511422904204", 2, "\"r2:1704161511422904204\"");
    check_id("\"38654705663\"", 0, "\"r0:38654705663\"");
    check_id("\"0x1a\"", 5, "\"r5:0x1a\"");
    check_id("-1", 5, "\"r5:-1\"");
    check_id("007", 5, "\"r5:007\"");
    check_id("\"a\\\"b\"", 4, "\"r4:a\\\"b\"");
    check_id("1.5", 4, "\"r4:1.5\"");
    /* ranks whose ids would pass 2^53 keep the string form */
    check_id("7", 1L << 21, "\"r2097152:7\"");
    check_id("7", (1L << 21) - 1, "9007194959773703");
}

static void test_splice(void **state)
{
    (void)state;
    char path[512];
    int fd = mkstemp(test_tmp_template(path, sizeof path, "vprof-splice"));
    assert_true(fd >= 0);
    close(fd);
    vp_error err = {0};
    vp_sink_opts o = {0};
    vp_sink *s = vp_sink_open(path, &o, &err);
    assert_non_null(s);
    const char *raw = "{\"pid\": 12, \"ts\": 5, \"id\": 3}";
    vp_span r = {raw, strlen(raw)};
    /* given out of order, an insertion at the start, a replacement at the end */
    vp_tw_edit e[3] = {
        {strstr(raw, "3}"), 1, "\"x\"", 3},
        {strstr(raw, "12"), 2, "1000", 4},
        {raw + 1, 0, "\"k\": 1, ", 8},
    };
    vp_tw_splice(s, r, e, 3);
    vp_sink_write(s, "|", 1);
    vp_tw_splice(s, r, NULL, 0);
    assert_int_equal(vp_sink_close(s, &err), 0);
    FILE *f = fopen(path, "r");
    char got[256] = {0};
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    unlink(path);
    got[n] = 0;
    assert_string_equal(got, "{\"k\": 1, \"pid\": 1000, \"ts\": 5, \"id\": \"x\"}|{\"pid\": 12, \"ts\": 5, \"id\": 3}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_escapes),
        cmocka_unit_test(test_string_bad_utf8),
        cmocka_unit_test(test_us),
        cmocka_unit_test(test_rank_id),
        cmocka_unit_test(test_splice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
