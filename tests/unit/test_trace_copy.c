/* Unit tests for src/trace/copy.c, the writer of the traces commands
 * write beside their tables (counters, sequences --trace-out): the
 * layout, args added with or without args present, appended events,
 * Python's float text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/trace_copy.h"
#include "vprof/util.h"

#include "tmppath.h"

static void check_double(double v, const char *want)
{
    vp_buf b = {0};
    vp_trace_copy_double(&b, v);
    assert_string_equal(vp_buf_cstr(&b), want);
    vp_buf_free(&b);
}

static void test_double_as_python(void **state)
{
    (void)state;
    /* what Python's json.dumps writes for these floats */
    check_double(0.0, "0.0");
    check_double(3.0, "3.0");
    check_double(-2.0, "-2.0");
    check_double(0.25, "0.25");
    check_double(0.1, "0.1");
    check_double(1e-05, "1e-05");
    check_double(1e22, "1e+22");
    check_double(0.00048828125, "0.00048828125");
    check_double(960.2344322344322, "960.2344322344322");
}

static void mark_all(void *ctx, vp_sink *s, const vp_event *ev, int64_t idx)
{
    (void)ctx;
    char m[32];
    int n = snprintf(m, sizeof m, "\"i\": %lld", (long long)idx);
    vp_trace_copy_with_arg(s, ev, m, (size_t)n);
}

static void append_one(void *ctx, vp_trace_out *o)
{
    (void)ctx;
    vp_trace_out_next(o);
    vp_sink_puts(o->sink, "{\"ph\": \"C\"}");
}

static char *copy_of(const char *text, const vp_trace_copy_ops *ops)
{
    char dir[256], in[300], out[300];
    assert_int_equal(test_file_make(dir, sizeof dir, in, sizeof in, "vp-copy", text), 0);
    snprintf(out, sizeof out, "%s/o.json", dir);
    vp_error err = {0};
    assert_int_equal(vp_trace_copy(in, out, ops, &err), VP_EXIT_OK);
    FILE *f = fopen(out, "rb");
    assert_non_null(f);
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    unlink(out);
    test_file_remove(dir, in);
    return buf;
}

static void test_copy_layout(void **state)
{
    (void)state;
    vp_trace_copy_ops ops = {.event = mark_all, .tail = append_one};
    const char *got = copy_of(
        "{\"displayTimeUnit\": \"ms\", \"traceEvents\": ["
        "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"args\":{\"k\":1}},"
        "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":1},"
        "{\"ph\":\"i\",\"name\":\"c\",\"ts\":3,\"args\":{ }}], \"x\": [1, 2]}", &ops);
    assert_string_equal(got,
        "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"args\":{\"k\":1, \"i\": 0}},\n"
        "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":1, \"args\": {\"i\": 1}},\n"
        "{\"ph\":\"i\",\"name\":\"c\",\"ts\":3,\"args\":{ \"i\": 2}},\n"
        "{\"ph\": \"C\"}\n"
        "],\n\"displayTimeUnit\": \"ms\",\n\"x\": [1,2]\n}\n");
}

static void test_copy_no_events(void **state)
{
    (void)state;
    vp_trace_copy_ops plain = {0}, tail = {.tail = append_one};
    assert_string_equal(copy_of("{\"traceEvents\": []}", &plain), "{\"traceEvents\": [\n\n]\n}\n");
    assert_string_equal(copy_of("{\"traceEvents\": []}", &tail),
                        "{\"traceEvents\": [\n{\"ph\": \"C\"}\n]\n}\n");
}

static void test_copy_bad_input(void **state)
{
    (void)state;
    char dir[256], in[300], out[300];
    assert_int_equal(test_file_make(dir, sizeof dir, in, sizeof in, "vp-copy",
                                    "{\"traceEvents\": [{\"ph\":"), 0);
    snprintf(out, sizeof out, "%s/o.json", dir);
    vp_trace_copy_ops ops = {0};
    vp_error err = {0};
    assert_int_equal(vp_trace_copy(in, out, &ops, &err), VP_EXIT_INPUT);
    assert_int_equal(access(out, F_OK), -1);   /* nothing left under the name */
    test_file_remove(dir, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_double_as_python),
        cmocka_unit_test(test_copy_layout),
        cmocka_unit_test(test_copy_no_events),
        cmocka_unit_test(test_copy_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
