/* The safe pickle decoder: values, memo sharing, refused opcodes, and
 * every kind of bad input ending in a clean error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vprof/pickle.h"
#include "vprof/util.h"

static vp_pk_doc *decode(const void *p, size_t n, vp_error *err)
{
    memset(err, 0, sizeof *err);
    return vp_pk_decode(p, n, "t.pkl", err);
}

/* Decodes and returns the repr of the root ("" and the error on failure). */
static char *repr_of(const void *p, size_t n, vp_error *err)
{
    vp_pk_doc *d = decode(p, n, err);
    vp_buf b = {0};
    if (d) {
        vp_pk_repr(&b, vp_pk_root(d), 100);
        vp_pk_doc_free(d);
    }
    char *s = vp_strdup(b.len ? vp_buf_cstr(&b) : "");
    vp_buf_free(&b);
    return s;
}

static void expect_repr(const char *bytes, size_t n, const char *want)
{
    vp_error err;
    char *got = repr_of(bytes, n, &err);
    if (err.status)
        fail_msg("unexpected error: %s", err.msg);
    assert_string_equal(got, want);
    free(got);
}

static void expect_error(const char *bytes, size_t n, const char *want)
{
    vp_error err;
    vp_pk_doc *d = decode(bytes, n, &err);
    assert_null(d);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    assert_string_equal(err.msg, want);
}

#define P(lit) lit, sizeof(lit) - 1

static void test_scalars(void **state)
{
    (void)state;
    /* (1, 300, -1, 2**31, True, False, None) at protocol 2 */
    expect_repr(P("\x80\x02(K\x01M,\x01J\xff\xff\xff\xff\x8a\x05\x00\x00\x00\x80\x00\x88\x89Nt."),
                "(1, 300, -1, 2147483648, True, False, None)");
    /* LONG1 of 8 bytes (the C++ writer's fixed width), negative, and 0 bytes */
    expect_repr(P("\x80\x02\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f\x8a\x01\xff\x8a\x00\x87."),
                "(9223372036854775807, -1, 0)");
    /* BINFLOAT is big-endian: 0.5 */
    expect_repr(P("\x80\x04G\x3f\xe0\x00\x00\x00\x00\x00\x00."), "0.5");
    /* strings, short and long form, with a quote and a byte over 0x7f */
    expect_repr(P("\x80\x04\x8c\x03" "a'b" "X\x02\x00\x00\x00\xc3\xa9\x86."), "('a\\'b', '\xc3\xa9')");
}

static void test_containers(void **state)
{
    (void)state;
    /* Python's layout: memoized before filling, MARK ... SETITEMS */
    expect_repr(P("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x01" "a\x94K\x01\x8c\x01" "b\x94]\x94K\x02" "au."),
                "{'a': 1, 'b': [2]}");
    /* SETITEM, EMPTY_TUPLE, TUPLE1, empty MARK SETITEMS (a dict of exactly 1000 items ends so) */
    expect_repr(P("\x80\x02}q\x00X\x01\x00\x00\x00k)sX\x01\x00\x00\x00tK\x07\x85s(u."),
                "{'k': (), 't': (7,)}");
    /* C++ layout: MARK even when empty, memoized after completion */
    expect_repr(P("\x80\x02](eq\x00](h\x00h\x00" "eq\x01."), "[[], []]");
}

static void test_memo_shares(void **state)
{
    (void)state;
    /* [d, d] where d = {'x': 1}: both items are the same container */
    static const char p[] = "\x80\x04](}\x94\x8c\x01x\x94K\x01sh\x00" "e.";
    vp_error err;
    vp_pk_doc *d = decode(p, sizeof p - 1, &err);
    assert_non_null(d);
    const vp_pk *root = vp_pk_root(d);
    assert_int_equal(vp_pk_count(root), 2);
    assert_ptr_equal(vp_pk_item(root, 0)->u.seq, vp_pk_item(root, 1)->u.seq);
    assert_int_equal(vp_pk_int(vp_pk_dict_get(vp_pk_item(root, 1), "x"), -5), 1);
    assert_null(vp_pk_dict_get(vp_pk_item(root, 1), "y"));
    assert_int_equal(vp_pk_protocol(d), 4);
    vp_pk_doc_free(d);
}

static void test_big_batches(void **state)
{
    (void)state;
    /* A list of 2500 ints in batches of 1000, as Python writes it. */
    vp_buf b = {0};
    vp_buf_append(&b, "\x80\x04]\x94", 4);
    for (int i = 0; i < 2500; i++) {
        if (i % 1000 == 0)
            vp_buf_putc(&b, '(');
        vp_buf_append(&b, "M", 1);
        vp_buf_putc(&b, (char)(i & 0xff));
        vp_buf_putc(&b, (char)(i >> 8));
        if (i % 1000 == 999 || i == 2499)
            vp_buf_putc(&b, 'e');
    }
    vp_buf_putc(&b, '.');
    vp_error err;
    vp_pk_doc *d = decode(b.data, b.len, &err);
    assert_non_null(d);
    const vp_pk *root = vp_pk_root(d);
    assert_int_equal(vp_pk_count(root), 2500);
    for (size_t i = 0; i < 2500; i++)
        assert_int_equal(vp_pk_int(vp_pk_item(root, i), -1), (int64_t)i);
    vp_pk_doc_free(d);
    vp_buf_free(&b);
}

static void test_refused_opcodes(void **state)
{
    (void)state;
    static const struct { char op; const char *name; } refused[] = {
        {'c', "GLOBAL"}, {(char)0x93, "STACK_GLOBAL"}, {'R', "REDUCE"}, {'b', "BUILD"},
        {'i', "INST"}, {'o', "OBJ"}, {(char)0x81, "NEWOBJ"}, {(char)0x92, "NEWOBJ_EX"},
        {'P', "PERSID"}, {'Q', "BINPERSID"}, {(char)0x82, "EXT1"}, {(char)0x83, "EXT2"},
        {(char)0x84, "EXT4"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char p[] = {(char)0x80, 4, 'N', refused[i].op, '.'};
        char want[256];
        snprintf(want, sizeof want,
                 "t.pkl: byte 3: pickle opcode %s refused: snapshots never need it, and running it could execute code",
                 refused[i].name);
        expect_error(p, sizeof p, want);
    }
    /* What os.system pickles to: the GLOBAL comes first and stops everything. */
    expect_error(P("\x80\x02" "cposix\nsystem\nq\x00."),
                 "t.pkl: byte 2: pickle opcode GLOBAL refused: snapshots never need it, and running it could execute code");
    /* Data opcodes that snapshots never use are refused too, differently. */
    expect_error(P("\x80\x02I1\n."), "t.pkl: byte 2: pickle opcode INT not supported: snapshots never use it");
    expect_error(P("\x80\x05\x97."), "t.pkl: byte 2: pickle opcode NEXT_BUFFER not supported: snapshots never use it");
    expect_error(P("\x80\x02\xff."), "t.pkl: byte 2: not a pickle opcode: 0xff");
}

static void test_bad_headers(void **state)
{
    (void)state;
    expect_error("", 0, "t.pkl: byte 0: not a pickle: the input is empty");
    expect_error(P("{}"), "t.pkl: byte 0: not a pickle: it does not start with PROTO (0x80)");
    expect_error(P("\x80\x01N."), "t.pkl: byte 0: pickle protocol 1 not supported (2 to 5 are)");
    expect_error(P("\x80\x06N."), "t.pkl: byte 0: pickle protocol 6 not supported (2 to 5 are)");
    expect_error(P("\x80\x02N\x80\x02."), "t.pkl: byte 3: PROTO in the middle of a pickle");
}

static void test_bad_structure(void **state)
{
    (void)state;
    expect_error(P("\x80\x02h\x00."), "t.pkl: byte 2: memo index 0 out of range (0 entries)");
    expect_error(P("\x80\x02Nq\x00j\x05\x00\x00\x00."), "t.pkl: byte 5: memo index 5 out of range (1 entries)");
    expect_error(P("\x80\x02Nq\x07."), "t.pkl: byte 3: memo index 7 skips ahead of the 0 entries stored so far");
    expect_error(P("\x80\x02X\xff\xff\x00\x00" "abc."),
                 "t.pkl: byte 2: BINUNICODE length 65535 runs past the end of the input (4 bytes left)");
    expect_error(P("\x80\x04\x8c\x09" "abc"),
                 "t.pkl: byte 2: SHORT_BINUNICODE length 9 runs past the end of the input (3 bytes left)");
    expect_error(P("\x80\x04\x95\xff\x00\x00\x00\x00\x00\x00\x00N."),
                 "t.pkl: byte 2: truncated pickle: FRAME of 255 bytes, 2 left");
    expect_error(P("\x80\x04\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01."),
                 "t.pkl: byte 2: LONG1 of 9 bytes: integers beyond 64 bits are not supported");
    expect_error(P("\x80\x02."), "t.pkl: byte 2: STOP with an empty stack");
    expect_error(P("\x80\x02N"), "t.pkl: byte 3: truncated pickle: the input ends before STOP");
    expect_error(P("\x80\x02J\x01\x00"), "t.pkl: byte 2: truncated pickle: BININT needs 4 bytes, 2 left");
    expect_error(P("\x80\x02Ne."), "t.pkl: byte 3: APPENDS without a MARK");
    expect_error(P("\x80\x02(Ne."), "t.pkl: byte 4: APPENDS with no container below its MARK");
    expect_error(P("\x80\x02N(Ne."), "t.pkl: byte 5: APPENDS on something that is not a list");
    expect_error(P("\x80\x02}(Nu."), "t.pkl: byte 5: SETITEMS with an odd number of items (1)");
    expect_error(P("\x80\x02]NNs."), "t.pkl: byte 5: SETITEM on something that is not a dict");
    expect_error(P("\x80\x02]a."), "t.pkl: byte 3: APPEND with too few items on the stack");
    expect_error(P("\x80\x02N\x86."), "t.pkl: byte 3: TUPLE2 with too few items on the stack");
}

static void test_deep_nesting(void **state)
{
    (void)state;
    /* 100,000 nested lists: [[[[...]]]] built with EMPTY_LIST ... APPEND */
    enum { N = 100000 };
    vp_buf b = {0};
    vp_buf_append(&b, "\x80\x02", 2);
    for (int i = 0; i < N; i++)
        vp_buf_putc(&b, ']');
    for (int i = 0; i < N - 1; i++)
        vp_buf_putc(&b, 'a');
    vp_buf_putc(&b, '.');
    vp_error err;
    assert_null(decode(b.data, b.len, &err));
    assert_string_equal(err.msg, "t.pkl: byte 101001: containers nested deeper than 1000 levels");
    /* 100,000 MARKs */
    b.len = 2;
    for (int i = 0; i < N; i++)
        vp_buf_putc(&b, '(');
    assert_null(decode(b.data, b.len, &err));
    assert_string_equal(err.msg, "t.pkl: byte 1002: MARKs nested deeper than 1000 levels");
    /* A list that contains itself, appended again and again, is a cycle:
     * bounded by the same rule. */
    b.len = 0;
    vp_buf_append(&b, "\x80\x04]\x94", 4);
    for (int i = 0; i < 2000; i++)
        vp_buf_append(&b, "h\x00" "a", 3);
    vp_buf_putc(&b, '.');
    assert_null(decode(b.data, b.len, &err));
    assert_string_equal(err.msg, "t.pkl: byte 3003: containers nested deeper than 1000 levels");
    vp_buf_free(&b);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    vp_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        vp_buf_append(&b, chunk, n);
    fclose(f);
    *len = b.len;
    return b.data;
}

static const char *data_dir(void)
{
    const char *d = getenv("VPROF_TEST_DATA");
    return d ? d : "tests/data";
}

/* Every prefix of a real snapshot is a clean error, never a crash (the
 * sanitizer build checks the "never"). */
static void test_truncated_everywhere(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/memsnap/t24_no_trace_minimal.pickle", data_dir());
    size_t len;
    char *data = read_file(path, &len);
    assert_non_null(data);
    assert_int_equal(len, 5299);
    vp_error err;
    vp_pk_doc *whole = decode(data, len, &err);
    assert_non_null(whole);
    vp_pk_doc_free(whole);
    for (size_t n = 0; n < len; n++) {
        /* An exact copy, so that the sanitizer sees any read past n. */
        char *prefix = vp_malloc(n ? n : 1);
        memcpy(prefix, data, n);
        vp_pk_doc *d = decode(prefix, n, &err);
        if (d)
            fail_msg("prefix of %zu bytes decoded", n);
        assert_int_equal(err.status, VP_EXIT_INPUT);
        assert_non_null(strstr(err.msg, "t.pkl: byte "));
        free(prefix);
    }
    free(data);
}

/* The synthetic variants (protocols 2, 3, 5, the C++ writer's layout)
 * decode to the very tree of their protocol-4 source. */
static void test_variants_equal_source(void **state)
{
    (void)state;
    const char *shared = getenv("VPROF_SHARED");
    if (!shared)
        skip();
    static const char *const pairs[][2] = {
        {"synthetic/memsnap/small_python_proto2.pickle", "real/memsnap/t24_cs336_small_from_start.pickle"},
        {"synthetic/memsnap/small_python_proto3.pickle", "real/memsnap/t24_cs336_small_from_start.pickle"},
        {"synthetic/memsnap/small_python_proto5.pickle", "real/memsnap/t24_cs336_small_from_start.pickle"},
        {"synthetic/memsnap/small_cpp_pickler_style_proto2.pickle", "real/memsnap/t24_cs336_small_from_start.pickle"},
        {"synthetic/memsnap/t20_oom_cpp_pickler_style_proto2.pickle", "real/memsnap/t20_flexgen_oom_snapshot.pickle"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/fixtures/%s", shared, pairs[i][0]);
        snprintf(b, sizeof b, "%s/fixtures/%s", shared, pairs[i][1]);
        size_t la = 0, lb = 0;
        char *da = read_file(a, &la), *db = read_file(b, &lb);
        if (!da || !db) {
            free(da);
            free(db);
            skip();
        }
        vp_error err;
        char *ra = repr_of(da, la, &err);
        assert_int_equal(err.status, 0);
        char *rb = repr_of(db, lb, &err);
        assert_int_equal(err.status, 0);
        assert_true(strlen(ra) > 10000);
        if (strcmp(ra, rb) != 0)
            fail_msg("%s decodes differently from %s", pairs[i][0], pairs[i][1]);
        free(ra);
        free(rb);
        free(da);
        free(db);
    }
}

static void test_opcode_names(void **state)
{
    (void)state;
    assert_string_equal(vp_pk_opcode_name('c'), "GLOBAL");
    assert_string_equal(vp_pk_opcode_name(0x94), "MEMOIZE");
    assert_null(vp_pk_opcode_name(0xff));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_containers),
        cmocka_unit_test(test_memo_shares),
        cmocka_unit_test(test_big_batches),
        cmocka_unit_test(test_refused_opcodes),
        cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_bad_structure),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_variants_equal_source),
        cmocka_unit_test(test_opcode_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
