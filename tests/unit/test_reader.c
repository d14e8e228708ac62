/* Unit tests for src/trace/reader.c: both trace forms, top-level keys,
 * repairs of cut traces, elements straddling chunk boundaries, typed
 * fields, and the exact error messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <zlib.h>

#include "vprof/error.h"
#include "vprof/source.h"
#include "vprof/trace.h"
#include "vprof/util.h"

#include "tmppath.h"

static char tmpdir[256];

/* The diagnostics the reader emitted, and hints as a front end spells
 * them: the reader's messages keep a place for them. */
static char warned[1024];
static int nwarned;

static void keep_warning(void *ctx, vp_diag_kind kind, const char *msg)
{
    (void)ctx;
    assert_int_equal(kind, VP_DIAG_WARNING);
    snprintf(warned, sizeof warned, "%s", msg);
    nwarned++;
}

static const char *cli_hint(void *ctx, vp_hint code)
{
    (void)ctx;
    return code == VP_HINT_PARTIAL_RETRY ? "; --partial uses them"
           : code == VP_HINT_PARTIAL_USED ? "--partial: " : NULL;
}

static int setup(void **state)
{
    (void)state;
    vp_diag_install(&(vp_diag_handler){.emit = keep_warning, .hint = cli_hint});
    return mkdtemp(test_tmp_template(tmpdir, sizeof tmpdir, "vprof-test-reader")) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[512];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
    static char buf[4][512];
    static int i;
    char *p = buf[i++ % 4];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void write_gzip(const char *path, const void *data, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 1, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *out = vp_malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    write_file(path, out, cap - z.avail_out);
    deflateEnd(&z);
    free(out);
}

/* An event copied out of the reader (its spans die at the next call). */
typedef struct rec {
    char ph;
    char *name, *cat, *pid, *tid, *id, *args, *raw;
    int has_pid, has_args;
    int64_t ts, dur;
    int has_ts, has_dur;
    uint64_t offset;
} rec;

typedef struct result {
    rec *ev;
    size_t n, cap;
    int rc;
    vp_error err;
    vp_trace_stats stats;
    char *meta;    /* unformatted JSON of vp_trace_meta */
} result;

static char *dup_span(vp_span s)
{
    return s.p ? vp_strndup(s.p, s.n) : NULL;
}

static void read_trace(const char *path, int partial, result *r)
{
    vp_trace_opts opts = {.partial = partial};
    vp_event ev;

    memset(r, 0, sizeof *r);
    vp_trace *t = vp_trace_open(path, &opts, &r->err);
    if (!t) {
        r->rc = -2;
        return;
    }
    while ((r->rc = vp_trace_next(t, &ev, &r->err)) == 1) {
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 64;
            r->ev = vp_realloc(r->ev, r->cap * sizeof *r->ev);
        }
        rec *e = &r->ev[r->n++];
        memset(e, 0, sizeof *e);
        e->ph = ev.ph;
        e->name = vp_strndup(ev.name.p ? ev.name.p : "", ev.name.n);
        e->cat = vp_strndup(ev.cat.p ? ev.cat.p : "", ev.cat.n);
        e->pid = dup_span(ev.pid);
        e->tid = dup_span(ev.tid);
        e->id = dup_span(ev.id);
        e->args = dup_span(ev.args);
        e->raw = dup_span(ev.raw);
        e->has_pid = ev.pid.p != NULL;
        e->has_args = ev.args.p != NULL;
        e->ts = ev.ts;
        e->dur = ev.dur;
        e->has_ts = ev.has_ts;
        e->has_dur = ev.has_dur;
        e->offset = ev.offset;
    }
    if (r->rc < 0) {
        /* The failure repeats. */
        vp_error again = {0};
        assert_int_equal(vp_trace_next(t, &ev, &again), -1);
        assert_string_equal(again.msg, r->err.msg);
    } else {
        assert_int_equal(vp_trace_next(t, &ev, &r->err), 0);
    }
    r->stats = *vp_trace_get_stats(t);
    r->meta = cJSON_PrintUnformatted(vp_trace_meta(t));
    vp_trace_close(t);
}

static void result_free(result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        rec *e = &r->ev[i];
        free(e->name);
        free(e->cat);
        free(e->pid);
        free(e->tid);
        free(e->id);
        free(e->args);
        free(e->raw);
    }
    free(r->ev);
    free(r->meta);
    memset(r, 0, sizeof *r);
}

/* Reads text as a file named name. */
static void read_text(const char *name, const char *text, int partial, result *r)
{
    write_file(path_of(name), text, strlen(text));
    read_trace(path_of(name), partial, r);
}

static void expect_ok(const char *text, size_t nevents)
{
    result r;
    read_text("ok.json", text, 0, &r);
    if (r.rc != 0)
        fail_msg("%s: %s", text, r.err.msg);
    assert_int_equal(r.n, nevents);
    assert_int_equal(r.stats.events, nevents);
    assert_int_equal(r.stats.truncated, 0);
    result_free(&r);
}

/* Expects the error msg, where FILE stands for the path. */
static void expect_error(const char *text, const char *msg)
{
    result r;
    char want[2048];
    const char *path = path_of("err.json");
    read_text("err.json", text, 0, &r);
    if (r.rc != -1)
        fail_msg("%s: rc %d, want an error", text, r.rc);
    assert_int_equal(r.err.status, VP_EXIT_INPUT);
    assert_true(strncmp(msg, "FILE", 4) == 0);
    snprintf(want, sizeof want, "%s%s", path, msg + 4);
    assert_string_equal(r.err.msg, want);
    result_free(&r);
}

static void test_array_form(void **state)
{
    const char *text =
        "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
        "\"ts\": 1712195495519689.047, \"dur\": 12.77012757357446, \"id\": 26, "
        "\"args\": {\"correlation\": 42, \"stream\": 7}},\n"
        " {\"name\": \"torch_to_npu\", \"ph\": \"s\", \"id\": \"0x1a\", \"pid\": \"Spans\", "
        "\"tid\": \"\", \"ts\": \"1704161511420306.491\", \"cat\": \"async_npu\"},\n"
        " {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 3, \"args\": {\"name\": \"CANN\"}}]";
    result r;
    (void)state;

    read_text("array.json", text, 0, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 3);
    rec *e = &r.ev[0];
    assert_int_equal(e->ph, 'X');
    assert_string_equal(e->name, "gemm");
    assert_string_equal(e->cat, "kernel");
    assert_string_equal(e->pid, "0");
    assert_string_equal(e->tid, "7");
    assert_string_equal(e->id, "26");
    assert_string_equal(e->args, "{\"correlation\": 42, \"stream\": 7}");
    assert_true(e->has_ts && e->has_dur);
    assert_int_equal(e->ts, 1712195495519689047LL);
    assert_int_equal(e->dur, 12770);
    assert_int_equal(e->offset, 1);
    assert_int_equal(strlen(e->raw), strchr(text, '\n') - text - 2);
    assert_memory_equal(e->raw, text + 1, strlen(e->raw));

    e = &r.ev[1];
    assert_int_equal(e->ph, 's');
    assert_string_equal(e->pid, "\"Spans\"");
    assert_string_equal(e->tid, "\"\"");
    assert_string_equal(e->id, "\"0x1a\"");
    assert_int_equal(e->ts, 1704161511420306491LL);
    assert_true(e->has_ts);
    assert_false(e->has_dur);
    assert_false(e->has_args);
    assert_int_equal(e->offset, strchr(text, '\n') - text + 2);

    /* An Ascend M event: no ts, no cat. */
    e = &r.ev[2];
    assert_int_equal(e->ph, 'M');
    assert_false(e->has_ts);
    assert_false(e->has_dur);
    assert_string_equal(e->cat, "");
    assert_null(e->tid);
    assert_null(e->id);
    assert_string_equal(e->args, "{\"name\": \"CANN\"}");
    assert_int_equal(r.stats.bytes, strlen(text));
    assert_int_equal(r.stats.bad_utf8, 0);
    assert_string_equal(r.meta, "{}");
    result_free(&r);
}

static void test_object_form_keys(void **state)
{
    result r;
    (void)state;

    /* Current Kineto: metadata before the events, some after. */
    read_text("obj.json",
              "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"H100\"}],\n"
              "  \"baseTimeNanoseconds\": 1711964646000000000,\n  \"traceEvents\": [\n"
              "  {\"ph\": \"X\", \"name\": \"a\", \"ts\": 4461299882853.096, \"dur\": 1.001},\n"
              "  {\"ph\": \"i\", \"name\": \"Record Window End\", \"pid\": \"\", \"tid\": \"\", \"ts\": 5, \"s\": \"g\"}\n"
              "  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8},\n"
              "  \"traceName\": \"libkineto_activities_1.json\"\n}\n",
              0, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.ev[0].ts, 4461299882853096LL);
    assert_int_equal(r.ev[0].dur, 1001);
    assert_int_equal(r.ev[1].ph, 'i');
    assert_int_equal(r.ev[1].ts, 5000);
    assert_string_equal(
        r.meta,
        "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"H100\"}],"
        "\"baseTimeNanoseconds\":1.711964646e+18,\"distributedInfo\":{\"backend\":\"nccl\","
        "\"rank\":3,\"world_size\":8},\"traceName\":\"libkineto_activities_1.json\"}");
    result_free(&r);

    /* 2024-era traces: everything after the events; an escaped key. */
    read_text("obj2.json",
              "{\"trace\\u0045vents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1}],"
              "\"displayTimeUnit\":\"ns\",\"INFO\":[\"a\",\"b\"]}",
              0, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 1);
    assert_string_equal(r.meta, "{\"displayTimeUnit\":\"ns\",\"INFO\":[\"a\",\"b\"]}");
    result_free(&r);

    /* No traceEvents at all, or an empty object: valid JSON, not a trace
     * (an empty table, or summary's all-clear, would read it as one). */
#define NOT_A_TRACE                                                                        \
    "FILE: not a Chrome trace: a JSON object without \"traceEvents\" (a trace is "          \
    "{\"traceEvents\": [...]} or an array of events)"
    expect_error("{\"distributedInfo\": {\"rank\": 0}}", NOT_A_TRACE);
    expect_error("{\"foo\":[1]}", NOT_A_TRACE);
    expect_error("{}", NOT_A_TRACE);
    expect_error(" \n{ } \n", NOT_A_TRACE);
    /* a pickle (PROTO 4): a memory snapshot; without a front end's hint the
     * message names no command */
    expect_error("\x80\x04\x95\x10",
                 "FILE: byte 0 (line 1, column 1): this is a CUDA memory snapshot (a Python "
                 "pickle), not a trace");
    expect_ok("{\"traceEvents\": []}", 0);
    expect_ok("\xEF\xBB\xBF{\"traceEvents\": [{}]}", 1);   /* byte order mark */
    expect_ok("[]", 0);
    expect_ok("[{}, {}]", 2);
}

/* vp_trace_meta asked for before the end: the object handed out stays
 * valid and ends up complete. */
static void test_meta_early(void **state)
{
    const char *text = "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\"}], "
                       "\"distributedInfo\": {\"rank\": 5}, \"trace\\u004eame\": \"n\"}";
    vp_error err = {0};
    vp_event ev;
    char *s;
    (void)state;

    write_file(path_of("meta.json"), text, strlen(text));
    vp_trace *t = vp_trace_open(path_of("meta.json"), NULL, &err);
    assert_non_null(t);
    const cJSON *early = vp_trace_meta(t);
    s = cJSON_PrintUnformatted(early);
    assert_string_equal(s, "{}");
    free(s);
    assert_int_equal(vp_trace_next(t, &ev, &err), 1);
    s = cJSON_PrintUnformatted(vp_trace_meta(t));
    assert_string_equal(s, "{\"schemaVersion\":1}");
    free(s);
    assert_int_equal(vp_trace_next(t, &ev, &err), 0);
    assert_ptr_equal(vp_trace_meta(t), early);
    s = cJSON_PrintUnformatted(early);
    assert_string_equal(s, "{\"schemaVersion\":1,\"distributedInfo\":{\"rank\":5},\"traceName\":\"n\"}");
    free(s);
    vp_trace_close(t);
}

/* What a profiler that died leaves behind: the viewer's repairs. */
static void test_array_repairs(void **state)
{
    (void)state;
    expect_ok("[{\"ph\": \"X\"}, {\"ph\": \"i\"}", 2);       /* no closing ']' */
    expect_ok("[{\"ph\": \"X\"}, {\"ph\": \"i\"},\n", 2);    /* trailing comma */
    expect_ok("[{\"ph\": \"X\"}, {\"ph\": \"i\"}, ]", 2);    /* trailing comma, closed */
    expect_ok("[", 0);
    expect_ok("[\n\n", 0);
}

static void test_truncated(void **state)
{
    result r;
    (void)state;

    /* Inside an event: an error for both forms. */
    expect_error("[{\"ph\": \"X\"}, {\"ph\": \"X\", \"na",
                 "FILE: byte 14 (line 1, column 15): the input ends at byte 29, inside the event "
                 "that starts here (a truncated file? events read: 1; --partial uses them)");
    /* The object form may not end inside traceEvents ... */
    expect_error("{\"traceEvents\": [{\"ph\": \"X\"}, {\"ph\": \"i\"},",
                 "FILE: byte 42 (line 1, column 43): the input ends inside \"traceEvents\" "
                 "(no closing ']') (a truncated file? events read: 2; --partial uses them)");
    expect_error("{\"traceEvents\": [{\"ph\": \"X\"}",
                 "FILE: byte 28 (line 1, column 29): the input ends inside \"traceEvents\" "
                 "(no closing ']') (a truncated file? events read: 1; --partial uses them)");
    /* ... or before its closing brace. */
    expect_error("{\"traceEvents\": [{\"ph\": \"X\"}]",
                 "FILE: byte 29 (line 1, column 30): the input ends before the end of the "
                 "trace (no closing '}') (a truncated file? events read: 1; --partial uses "
                 "them)");
    expect_error("{\"traceEvents\": [], \"traceName\": \"x",
                 "FILE: byte 33 (line 1, column 34): the input ends before the end of the "
                 "trace (no closing '}') (a truncated file? events read: 0; --partial uses "
                 "them)");
    expect_error("", "FILE: empty input: expected a trace ('{' or '[')");
    expect_error(" \n ", "FILE: empty input: expected a trace ('{' or '[')");

    /* --partial accepts them, says so in the stats, and keeps what was
     * read. */
    read_text("partial.json", "{\"traceEvents\": [{\"ph\": \"X\"}, {\"ph\": \"i\"},", 1, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.stats.truncated, 1);
    result_free(&r);
    read_text("partial.json", "[{\"ph\": \"X\"}, {\"ph\": \"X\", \"na", 1, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.stats.truncated, 1);
    result_free(&r);
    /* An untruncated trace read with --partial is not marked. */
    read_text("partial.json", "{\"traceEvents\": [{\"ph\": \"X\"}]}", 1, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.stats.truncated, 0);
    result_free(&r);
}

/* The library prints nothing and names no option: the warning goes to the
 * installed handler, with the front end's hint where it has one. */
static void test_diagnostics(void **state)
{
    result r;
    char want[1024];
    (void)state;
    nwarned = 0;
    read_text("partial.json", "[{\"ph\": \"X\"}, {\"ph\": \"X\", \"na", 1, &r);
    result_free(&r);
    assert_int_equal(nwarned, 1);
    snprintf(want, sizeof want,
             "%s: byte 14: the input ends at byte 29, inside the event that starts here; "
             "--partial: using the 1 events before it", path_of("partial.json"));
    assert_string_equal(warned, want);

    /* Without a front end's hints the messages read without them. */
    vp_diag_install(&(vp_diag_handler){.emit = keep_warning});
    read_text("partial.json", "[{\"ph\": \"X\"}, {\"ph\": \"X\", \"na", 1, &r);
    result_free(&r);
    assert_int_equal(nwarned, 2);
    snprintf(want, sizeof want,
             "%s: byte 14: the input ends at byte 29, inside the event that starts here; "
             "using the 1 events before it", path_of("partial.json"));
    assert_string_equal(warned, want);
    read_text("err.json", "[{\"ph\": \"X\"}, {\"ph\": \"X\", \"na", 0, &r);
    snprintf(want, sizeof want,
             "%s: byte 14 (line 1, column 15): the input ends at byte 29, inside the event "
             "that starts here (a truncated file? events read: 1)", path_of("err.json"));
    assert_string_equal(r.err.msg, want);
    result_free(&r);

    /* No handler: the diagnostic is dropped, nothing printed. */
    vp_diag_install(NULL);
    read_text("partial.json", "[{\"ph\": \"X\"}, {\"ph\": \"X\", \"na", 1, &r);
    result_free(&r);
    assert_int_equal(nwarned, 2);
    vp_diag_install(&(vp_diag_handler){.emit = keep_warning, .hint = cli_hint});
}

static void test_error_messages(void **state)
{
    (void)state;
    expect_error("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 2}, 5]}",
                 "FILE: byte 69 (line 1, column 70): expected an event object '{', found '5'");
    expect_error("\n\n  x", "FILE: byte 4 (line 3, column 3): expected a trace: '{' (object "
                            "form) or '[' (array form), found 'x'");
    expect_error("[{\"ph\": \"X\"}\n {\"ph\": \"X\"}]",
                 "FILE: byte 14 (line 2, column 2): expected ',' or ']' after an event, found '{'");
    expect_error("[{\"ph\": 5}]",
                 "FILE: byte 8 (line 1, column 9): expected a string for \"ph\", found '5'");
    expect_error("[{\"name\": null}]",
                 "FILE: byte 10 (line 1, column 11): expected a string for \"name\", found 'n'");
    /* The key as written in each of the reader's ways to a member: its
     * eight-byte form, a space before the colon, fewer than nine bytes left. */
    expect_error("[{\"cat\": 7}]",
                 "FILE: byte 9 (line 1, column 10): expected a string for \"cat\", found '7'");
    expect_error("[{\"name\" : 5}]",
                 "FILE: byte 11 (line 1, column 12): expected a string for \"name\", found '5'");
    expect_error("[{\"ph\":5}]",
                 "FILE: byte 7 (line 1, column 8): expected a string for \"ph\", found '5'");
    /* An error in an event after a ',' (taken in the comma's step) */
    expect_error("[{\"ph\": \"X\"}, {\"ph\": 5}]",
                 "FILE: byte 21 (line 1, column 22): expected a string for \"ph\", found '5'");
    expect_error("[{\"ts\": \"abc\"}]",
                 "FILE: byte 8 (line 1, column 9): expected a number of microseconds for "
                 "\"ts\", found \"abc\"");
    expect_error("[{\"ph\": \"X\", \"dur\": true}]",
                 "FILE: byte 20 (line 1, column 21): expected a number of microseconds for "
                 "\"dur\", found true");
    expect_error("[{\"ph\" \"X\"}]",
                 "FILE: byte 7 (line 1, column 8): expected ':' after a member name, found '\"'");
    expect_error("[{ph: 1}]",
                 "FILE: byte 2 (line 1, column 3): expected a member name (a string) in an "
                 "event, found 'p'");
    expect_error("[{\"ph\": \"X\" \"a\": 1}]",
                 "FILE: byte 12 (line 1, column 13): expected ',' or '}' after an event "
                 "member, found '\"'");
    expect_error("[{\"args\": {\"a\": 1 \"b\": 2}}]",
                 "FILE: byte 18 (line 1, column 19): expected ',' or '}' after an object "
                 "member, found '\"'");
    expect_error("[] x", "FILE: byte 3 (line 1, column 4): expected the end of the input after "
                         "the trace, found 'x'");
    expect_error("{\"traceEvents\": []} {}",
                 "FILE: byte 20 (line 1, column 21): expected the end of the input after the "
                 "trace, found '{'");
    expect_error("{\"traceEvents\": {}}", "FILE: byte 16 (line 1, column 17): expected '[' to "
                                          "open the \"traceEvents\" array, found '{'");
    expect_error("{\"a\": 1 \"b\": 2}", "FILE: byte 8 (line 1, column 9): expected ',' or '}' "
                                         "after a top-level member, found '\"'");
    expect_error("{1: 2}", "FILE: byte 1 (line 1, column 2): expected a top-level member name "
                           "(a string), found '1'");
    expect_error("{\"a\" 1}",
                 "FILE: byte 5 (line 1, column 6): expected ':' after a member name, found '1'");
    expect_error("[{}, \x01]", "FILE: byte 5 (line 1, column 6): expected an event object '{', "
                               "found byte 0x01");
    /* Columns count characters, not bytes. */
    expect_error("[{\"name\": \"\xC3\xA9\xE2\x82\xAC\"} x]",
                 "FILE: byte 19 (line 1, column 17): expected ',' or ']' after an event, "
                 "found 'x'");
}

static void test_depth_limit(void **state)
{
    char text[1024];
    size_t n = 0;
    (void)state;

    /* An event at depth 2: args may nest 126 more levels. */
    n += (size_t)snprintf(text + n, sizeof text - n, "[{\"args\": ");
    for (int i = 0; i < 126; i++)
        text[n++] = '[';
    for (int i = 0; i < 126; i++)
        text[n++] = ']';
    n += (size_t)snprintf(text + n, sizeof text - n, "}]");
    expect_ok(text, 1);

    n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "[{\"args\": ");
    for (int i = 0; i < 127; i++)
        text[n++] = '[';
    for (int i = 0; i < 127; i++)
        text[n++] = ']';
    n += (size_t)snprintf(text + n, sizeof text - n, "}]");
    expect_error(text, "FILE: byte 136 (line 1, column 137): nesting deeper than 128 levels "
                       "(vprof's limit)");
}

static void test_fields(void **state)
{
    result r;
    (void)state;

    read_text("fields.json",
              "[{\"ph\":\"X\",\"name\":\"a\\u00e9\\n\\\"q\\\"\",\"cat\":\"c\\/d\",\"ts\":\"12.5\",\"dur\":0},"
              "{\"ph\":\"B\",\"ts\":-3},"
              "{\"ph\":\"E\",\"dur\":7.0005e0},"
              "{\"ph\":\"C\",\"pid\":\"PyTorch Profiler\",\"tid\":-1,\"cat\":null,\"ts\":1e-3},"
              "{\"ph\":\"\",\"name\":\"\",\"cat\":\"\"},"
              "{\"ph\":\"Xtra\",\"name\":\"x\",\"ts\":7,\"ts\":8,\"unknown\":{\"nested\":[1,{\"a\":\"b\"}]}},"
              "{\"ph\":\"X\",\"id\":123456789012345678901234567890,\"args\":{}}]",
              0, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 7);
    assert_string_equal(r.ev[0].name, "a\xC3\xA9\n\"q\"");
    assert_string_equal(r.ev[0].cat, "c/d");
    assert_int_equal(r.ev[0].ts, 12500);
    assert_true(r.ev[0].has_dur);
    assert_int_equal(r.ev[0].dur, 0);
    assert_int_equal(r.ev[1].ph, 'B');
    assert_int_equal(r.ev[1].ts, -3000);
    assert_false(r.ev[1].has_dur);
    assert_string_equal(r.ev[1].name, "");
    assert_false(r.ev[2].has_ts);
    assert_true(r.ev[2].has_dur);
    assert_int_equal(r.ev[2].dur, 7001);
    assert_string_equal(r.ev[3].pid, "\"PyTorch Profiler\"");
    assert_string_equal(r.ev[3].tid, "-1");
    assert_string_equal(r.ev[3].cat, "");
    assert_int_equal(r.ev[3].ts, 1);
    assert_int_equal(r.ev[4].ph, 0);
    assert_int_equal(r.ev[5].ph, 'X');
    assert_int_equal(r.ev[5].ts, 8000);   /* a repeated member: the last wins */
    /* Integers beyond int64 stay text. */
    assert_string_equal(r.ev[6].id, "123456789012345678901234567890");
    assert_string_equal(r.ev[6].args, "{}");
    assert_int_equal(r.stats.bad_utf8, 0);
    result_free(&r);
}

/* The members read by an eight-byte compare ("ph":, with or without the
 * space after it), the one-byte "ph" and the ", \"" separator, beside
 * the forms that must take the general way: a space before the colon,
 * an escaped or near-miss name, two spaces, a "ph" that is not one plain
 * byte, a name too close to the end for a word. */
static void test_member_forms(void **state)
{
    result r;
    (void)state;

    read_text("forms.json",
              "[{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":4,\"name\":\"n\",\"cat\":\"c\","
              "\"id\":5,\"args\":{}},\n"
              "{\"ph\" : \"Y\", \"pid\"\t: 7, \"ts\"\n:1.5},\n"
              "{\"p\\u0068\": \"Z\", \"ph\":  \"B\", \"phx\": \"Q\", \"pi\": 9, \"PID\": 8, "
              "\"pid\":   \"p\"},\n"
              "{\"ph\": \"\\\"\", \"names\": \"no\", \"name\": \"\", \"tsx\": 1, \"ts\": -2.0005, "
              "\"arg\": 1, \"args\": [1], \"i\": 0, \"id\": \"x\"},\n"
              "{\"ph\": \"XY\",\"dur\": 0.0004,  \"tid\": \"t\" ,\"cat\":\"k\"},\n"
              "{\"ph\":\"\x7f\",\"cat\":null},\n"
              "{\"ph\": \"\"},{\"id\":1}",
              0, &r);
    /* Every field of every event: NULL for an absent pid, tid, id, args. */
    static const struct {
        char ph;
        const char *name, *cat, *pid, *tid, *id, *args;
        int has_ts, has_dur;
        int64_t ts, dur;
    } want[] = {
        {'X', "n", "c", "1", "2", "5", "{}", 1, 1, 3000, 4000},
        {'Y', "", "", "7", NULL, NULL, NULL, 1, 0, 1500, 0},
        /* an escaped name is not a common one, nor are "pi" and "PID" */
        {'B', "", "", "\"p\"", NULL, NULL, NULL, 0, 0, 0, 0},
        /* "ph": the raw first byte, as ever */
        {'\\', "", "", NULL, NULL, "\"x\"", "[1]", 1, 0, -2001, 0},
        {'X', "", "k", NULL, "\"t\"", NULL, NULL, 0, 1, 0, 0},
        {0x7f, "", "", NULL, NULL, NULL, NULL, 0, 0, 0, 0},
        {0, "", "", NULL, NULL, NULL, NULL, 0, 0, 0, 0},
        {0, "", "", NULL, NULL, "1", NULL, 0, 0, 0, 0},
    };
    if (r.rc != 0)
        fail_msg("%s", r.err.msg);
    assert_int_equal(r.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < r.n; i++) {
        const rec *e = &r.ev[i];
        const char *got[] = {e->name, e->cat, e->pid, e->tid, e->id, e->args};
        const char *exp[] = {want[i].name, want[i].cat, want[i].pid,
                             want[i].tid,  want[i].id,  want[i].args};
        assert_int_equal(e->ph, want[i].ph);
        for (size_t f = 0; f < 6; f++) {
            if (!exp[f] || !got[f])
                assert_ptr_equal(got[f], exp[f]);
            else if (strcmp(got[f], exp[f]) != 0)
                fail_msg("event %zu field %zu: %s, want %s", i, f, got[f], exp[f]);
        }
        assert_int_equal(e->has_ts, want[i].has_ts);
        assert_int_equal(e->has_dur, want[i].has_dur);
        if (e->has_ts)
            assert_int_equal(e->ts, want[i].ts);
        if (e->has_dur)
            assert_int_equal(e->dur, want[i].dur);
    }
    result_free(&r);
}

static void test_bad_utf8(void **state)
{
    result r;
    (void)state;

    read_text("utf8.json",
              "[{\"ph\":\"X\",\"name\":\"bad\xff" "byte\",\"cat\":\"k\xc0\xaf\"},"
              "{\"ph\":\"X\",\"name\":\"lone \\ud800 surrogate\"},"
              "{\"ph\":\"X\",\"name\":\"fine \xc3\xa9\",\"args\":{\"x\":\"\xff\xff\"}}]",
              0, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 3);
    assert_string_equal(r.ev[0].name, "bad\xEF\xBF\xBD" "byte");
    assert_string_equal(r.ev[0].cat, "k\xEF\xBF\xBD\xEF\xBF\xBD");
    assert_string_equal(r.ev[1].name, "lone \xEF\xBF\xBD surrogate");
    assert_string_equal(r.ev[2].name, "fine \xc3\xa9");
    /* Names and categories count; args are not decoded. */
    assert_int_equal(r.stats.bad_utf8, 4);
    result_free(&r);
}

/* An event that exercises every field, for the straddling tests (with
 * Kineto's line breaks after its '{' and between members). */
static const char TARGET[] =
    "{\n    \"ph\": \"X\", \"cat\": \"kernel\", "
    "\"name\": \"void gemm<\\\"f16\\\">(\xC3\xA9\\u20ac)\", "
    "\"pid\": \"Spans\", \"tid\": 7,\n    \"ts\": 1712195495519689.047, "
    "\"dur\": 12.77012757357446,\n    \"id\": \"0x1a\", "
    "\"args\": {\"correlation\": 424242, \"grid\": [1, 2, 3], \"nested\": {\"s\": \"}]\\\"\"}}}";
#define TARGET_NAME "void gemm<\"f16\">(\xC3\xA9\xE2\x82\xAC)"
#define TARGET_ARGS "{\"correlation\": 424242, \"grid\": [1, 2, 3], \"nested\": {\"s\": \"}]\\\"\"}}"

/* Builds a trace in which TARGET starts at byte `at`, preceded by numbered
 * filler events and followed by more of them; object form puts metadata
 * after the events. Returns the text; *nfill gets the fillers before. */
static char *build_trace(size_t at, int object_form, size_t *nfill, size_t *nafter)
{
    vp_buf b = {0};
    size_t i = 0;
    vp_buf_printf(&b, object_form ? "{\"schemaVersion\": 1, \"traceEvents\": [" : "[");
    /* Fillers of about 4 KiB, then one whose padding lands TARGET at `at`. */
    for (;;) {
        size_t fixed = 80;   /* the filler's text without its padding, at most */
        if (b.len + 4096 + 2 * fixed >= at)
            break;
        vp_buf_printf(&b, "{\"ph\": \"X\", \"name\": \"fill\", \"ts\": %zu, \"args\": {\"pad\": \"", i);
        for (size_t k = 0; k < 4000; k++)
            vp_buf_putc(&b, (char)('a' + k % 26));
        vp_buf_printf(&b, "\"}},\n");
        i++;
    }
    char head[128];
    int hn = snprintf(head, sizeof head,
                      "{\"ph\": \"X\", \"name\": \"fill\", \"ts\": %zu, \"args\": {\"pad\": \"", i);
    const char *tail = "\"}},";
    assert_true(b.len + (size_t)hn + strlen(tail) <= at);
    size_t pad = at - b.len - (size_t)hn - strlen(tail);
    vp_buf_append(&b, head, (size_t)hn);
    for (size_t k = 0; k < pad; k++)
        vp_buf_putc(&b, 'p');
    vp_buf_printf(&b, "%s", tail);
    i++;
    assert_int_equal(b.len, at);
    *nfill = i;
    vp_buf_append(&b, TARGET, sizeof TARGET - 1);
    /* After the target, a few small events and (object form) metadata. */
    /* The compact form too ("ph":"i"), and Kineto's ",\n  {" */
    for (size_t k = 0; k < 5; k++)
        vp_buf_printf(&b, k % 2 ? ",\n{\"ph\":\"i\",\"name\":\"after\",\"ts\":%zu}"
                                : ",\n  {\"ph\": \"i\", \"name\": \"after\", \"ts\": %zu}",
                      1000 + k);
    *nafter = 5;
    if (object_form)
        vp_buf_printf(&b, "], \"distributedInfo\": {\"rank\": 3, \"pg_config\": [{\"ranks\": [0, 1]}]}, "
                          "\"traceName\": \"t\\u00e9\"}\n");
    else
        vp_buf_printf(&b, "]\n");
    vp_buf_cstr(&b);
    return b.data;
}

static void check_straddle(const char *path, size_t at, int object_form, size_t nfill,
                           size_t nafter, size_t len)
{
    result r;
    read_trace(path, 0, &r);
    if (r.rc != 0)
        fail_msg("at %zu: %s", at, r.err.msg);
    assert_int_equal(r.n, nfill + 1 + nafter);
    for (size_t i = 0; i < nfill; i++) {
        assert_int_equal(r.ev[i].ph, 'X');
        assert_string_equal(r.ev[i].name, "fill");
        assert_int_equal(r.ev[i].ts, (int64_t)i * 1000);
        assert_true(r.ev[i].has_args);
    }
    rec *e = &r.ev[nfill];
    if (e->offset != at)
        fail_msg("target at %zu reported at %llu", at, (unsigned long long)e->offset);
    assert_int_equal(e->ph, 'X');
    assert_string_equal(e->cat, "kernel");
    assert_string_equal(e->name, TARGET_NAME);
    assert_string_equal(e->pid, "\"Spans\"");
    assert_string_equal(e->tid, "7");
    assert_string_equal(e->id, "\"0x1a\"");
    assert_string_equal(e->args, TARGET_ARGS);
    assert_string_equal(e->raw, TARGET);
    assert_int_equal(e->ts, 1712195495519689047LL);
    assert_int_equal(e->dur, 12770);
    for (size_t k = 0; k < nafter; k++) {
        e = &r.ev[nfill + 1 + k];
        assert_int_equal(e->ph, 'i');
        assert_string_equal(e->name, "after");
        assert_int_equal(e->ts, (int64_t)(1000 + k) * 1000);
    }
    if (object_form)
        assert_string_equal(r.meta, "{\"schemaVersion\":1,\"distributedInfo\":{\"rank\":3,"
                                    "\"pg_config\":[{\"ranks\":[0,1]}]},\"traceName\":\"t\xC3\xA9\"}");
    else
        assert_string_equal(r.meta, "{}");
    assert_int_equal(r.stats.bytes, len);
    assert_int_equal(r.stats.events, r.n);
    result_free(&r);
}

/* The chunk boundary (VP_SOURCE_CHUNK) falls at every byte of an event,
 * of the events after it, and of the metadata after the events. */
static void test_straddle_every_offset(void **state)
{
    long span = (long)(sizeof TARGET - 1) + 5 * 45 + 140;
    (void)state;
    for (int form = 0; form < 2; form++) {
        for (long k = -3; k <= span; k++) {
            size_t at = (size_t)((long)VP_SOURCE_CHUNK - k);
            size_t nfill, nafter;
            char *text = build_trace(at, form, &nfill, &nafter);
            size_t len = strlen(text);
            if (len <= VP_SOURCE_CHUNK) {
                free(text);
                continue;   /* the boundary is past the end */
            }
            write_file(path_of("straddle.json"), text, len);
            check_straddle(path_of("straddle.json"), at, form, nfill, nafter, len);
            /* The gzip path hands out the same chunks: a sample of it. */
            if (k % 23 == 0) {
                write_gzip(path_of("straddle.json.gz"), text, len);
                check_straddle(path_of("straddle.json.gz"), at, form, nfill, nafter, len);
            }
            free(text);
        }
    }
}

/* Events longer than the carry's first step (4 KiB, reader.c), each at
 * several offsets: one that the carry's second step holds, one that
 * takes a few doublings, and a 3 MiB args string held in the carry
 * across four chunks. */
static void test_event_larger_than_chunk(void **state)
{
    static const size_t bigs[] = {5000, 40000, 3 * VP_SOURCE_CHUNK + 333};
    static const size_t starts[] = {1, 1000, VP_SOURCE_CHUNK - 20, VP_SOURCE_CHUNK + 7};
    (void)state;

    const size_t nstarts = sizeof starts / sizeof starts[0];

    for (size_t i = 0; i < nstarts * sizeof bigs / sizeof bigs[0]; i++) {
        size_t big = bigs[i / nstarts], start = starts[i % nstarts];
        vp_buf b = {0};
        vp_buf_putc(&b, '[');
        if (start > 1) {
            vp_buf_printf(&b, "{\"name\": \"lead\", \"args\": {\"p\": \"");
            while (b.len < start - 4)
                vp_buf_putc(&b, 'l');
            vp_buf_printf(&b, "\"}}, ");
        }
        size_t at = b.len;
        size_t nlead = at > 1 ? 1 : 0;
        vp_buf_printf(&b, "{\"ph\": \"X\", \"name\": \"big\", \"args\": {\"s\": \"");
        size_t sstart = b.len;
        for (size_t k = 0; k < big; k++)
            vp_buf_putc(&b, (char)('A' + k % 23));
        vp_buf_printf(&b, "\", \"n\": 5}, \"ts\": 17.5}, {\"ph\": \"i\", \"name\": \"next\", \"ts\": 1}]");
        vp_buf_cstr(&b);
        write_file(path_of("big.json"), b.data, b.len);
        for (int gz = 0; gz < 2; gz++) {
            const char *path = path_of(gz ? "big.json.gz" : "big.json");
            if (gz)
                write_gzip(path, b.data, b.len);
            result r;
            read_trace(path, 0, &r);
            if (r.rc != 0)
                fail_msg("%s", r.err.msg);
            assert_int_equal(r.n, nlead + 2);
            rec *e = &r.ev[nlead];
            assert_int_equal(e->offset, at);
            assert_string_equal(e->name, "big");
            assert_int_equal(e->ts, 17500);
            assert_int_equal(strlen(e->args), big + 17);
            assert_memory_equal(e->args + 7, b.data + sstart, big);
            assert_string_equal(e->args + 7 + big, "\", \"n\": 5}");
            assert_string_equal(r.ev[nlead + 1].name, "next");
            assert_int_equal(r.stats.bytes, b.len);
            result_free(&r);
        }
        vp_buf_free(&b);
    }
}

/* Many events that each straddle, with whitespace between them: the
 * boundary falls in every kind of place across six chunks. */
static void test_many_chunks(void **state)
{
    vp_buf b = {0};
    size_t n = 0;
    (void)state;

    vp_buf_printf(&b, "{\"traceEvents\": [\n");
    while (b.len < 6 * VP_SOURCE_CHUNK + 1000) {
        vp_buf_printf(&b, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%zu\", \"pid\": %zu, "
                          "\"tid\": \"t%zu\", \"ts\": %zu.%03zu, \"dur\": %zu, \"args\": "
                          "{\"External id\": %zu, \"Input Dims\": [[%zu, 3], []]}}",
                      n == 0 ? "" : n % 3 == 0 ? "," : n % 3 == 1 ? ",\n  " : ",\n", n, n % 7,
                      n % 5, n, n % 1000, n % 97, n, n);
        for (size_t k = 0; k < n % 11; k++)
            vp_buf_putc(&b, ' ');
        n++;
    }
    vp_buf_printf(&b, "\n], \"traceName\": \"big\"}");
    for (int gz = 0; gz < 2; gz++) {
        const char *path = path_of(gz ? "many.json.gz" : "many.json");
        if (gz)
            write_gzip(path, b.data, b.len);
        else
            write_file(path, b.data, b.len);
        vp_trace *t = vp_trace_open(path, NULL, &(vp_error){0});
        assert_non_null(t);
        vp_event ev;
        vp_error err = {0};
        size_t i = 0;
        uint64_t last = 0;
        int r;
        while ((r = vp_trace_next(t, &ev, &err)) == 1) {
            char want[32];
            snprintf(want, sizeof want, "op%zu", i);
            assert_int_equal(ev.name.n, strlen(want));
            assert_memory_equal(ev.name.p, want, ev.name.n);
            assert_int_equal(ev.ts, (int64_t)(i * 1000 + i % 1000));
            assert_int_equal(ev.dur, (int64_t)(i % 97) * 1000);
            assert_memory_equal(b.data + ev.offset, ev.raw.p, ev.raw.n);
            assert_true(ev.offset > last || i == 0);
            last = ev.offset;
            vp_span v;
            int64_t x;
            assert_int_equal(vp_json_get(ev.args, "External id", &v), 1);
            assert_int_equal(vp_json_int(v, &x), 0);
            assert_int_equal(x, (int64_t)i);
            i++;
        }
        if (r != 0)
            fail_msg("%s", err.msg);
        assert_int_equal(i, n);
        assert_int_equal(vp_trace_get_stats(t)->bytes, b.len);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(vp_trace_meta(t), "traceName");
        assert_true(cJSON_IsString(name));
        assert_string_equal(name->valuestring, "big");
        vp_trace_close(t);
    }
    vp_buf_free(&b);
}

/* Errors in gzip input name both offsets; a cut gzip stream is partial
 * data for --partial. */
static void test_gzip_errors(void **state)
{
    const char *text = "{\"traceEvents\": [{\"ph\": \"X\"},\n x]}";
    result r;
    char want[1024];
    (void)state;

    write_gzip(path_of("e.json.gz"), text, strlen(text));
    read_trace(path_of("e.json.gz"), 0, &r);
    assert_int_equal(r.rc, -1);
    FILE *f = fopen(path_of("e.json.gz"), "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long zn = ftell(f);
    fclose(f);
    snprintf(want, sizeof want,
             "%s: uncompressed byte 31 (line 2, column 2), compressed byte %ld: expected an "
             "event object '{', found 'x'",
             path_of("e.json.gz"), zn);
    assert_string_equal(r.err.msg, want);
    result_free(&r);

    /* A gzip stream cut in the middle of the events. */
    vp_buf b = {0};
    vp_buf_printf(&b, "{\"traceEvents\": [");
    for (size_t i = 0; i < 200000; i++)
        vp_buf_printf(&b, "%s{\"ph\": \"X\", \"name\": \"e%zu\", \"ts\": %zu}", i ? ", " : "", i,
                      i * 7919 % 100003);
    vp_buf_printf(&b, "]}");
    write_gzip(path_of("cut.json.gz"), b.data, b.len);
    f = fopen(path_of("cut.json.gz"), "rb");
    assert_non_null(f);
    unsigned char *z = vp_malloc((size_t)b.len);
    size_t zlen = fread(z, 1, b.len, f);
    fclose(f);
    write_file(path_of("cut.json.gz"), z, zlen / 2);
    read_trace(path_of("cut.json.gz"), 0, &r);
    assert_int_equal(r.rc, -1);
    assert_non_null(strstr(r.err.msg, "truncated gzip stream"));
    assert_true(r.n > 0);
    size_t without = r.n;
    result_free(&r);
    read_trace(path_of("cut.json.gz"), 1, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.stats.truncated, 1);
    assert_true(r.n >= without);
    assert_true(r.n > 50000 && r.n < 200000);
    for (size_t i = 0; i < r.n; i++) {
        char want_name[32];
        snprintf(want_name, sizeof want_name, "e%zu", i);
        assert_string_equal(r.ev[i].name, want_name);
    }
    result_free(&r);
    free(z);
    vp_buf_free(&b);

    /* Unopenable. */
    vp_error err = {0};
    assert_null(vp_trace_open(path_of("missing.json"), NULL, &err));
    assert_int_equal(err.status, VP_EXIT_INPUT);
}

/* The real traces of ../shared (skipped when absent): event counts and
 * sizes from SOURCE.md. */
static void test_real_traces(void **state)
{
    static const struct {
        const char *path;
        uint64_t events, bytes;
    } traces[] = {
        {"trace_compare/base/base.json.gz", 33, 11239},
        {"trace_compare/test/test.json.gz", 34, 11495},
        {"cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 30, 25192},
        {"amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 220, 66897},
        {"critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 1408, 319512},
        {"rank_non_gpu/rank_non_gpu.json.gz", 2467, 1043422},
        {"trace_filter/sampled_rank-0.json.gz", 4855, 1759570},
        {"nccl_parser_config/nccl_data.json.gz", 40573, 9778890},
    };
    const char *shared = getenv("VPROF_SHARED");  /* ctest sets it to ../shared */
    (void)state;
    if (!shared)
        skip();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/fixtures/real/hta/tests/data", shared);
    FILE *probe = fopen(dir, "r");
    if (!probe)
        skip();
    fclose(probe);
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, traces[i].path);
        vp_error err = {0};
        vp_trace *t = vp_trace_open(path, NULL, &err);
        if (!t)
            fail_msg("%s", err.msg);
        vp_event ev;
        int r;
        while ((r = vp_trace_next(t, &ev, &err)) == 1)
            ;
        if (r != 0)
            fail_msg("%s", err.msg);
        assert_int_equal(vp_trace_get_stats(t)->events, traces[i].events);
        assert_int_equal(vp_trace_get_stats(t)->bytes, traces[i].bytes);
        vp_trace_close(t);
    }
}

static int same_span(vp_span a, vp_span b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0) && !a.p == !b.p;
}

/* Reads path twice in step, with and without skip facts: the same events
 * (every field, every span's text, the offsets).  Returns the facts
 * used; *objects counts the args objects. */
static uint64_t facts_agree(const char *path, uint64_t *objects)
{
    vp_error err = {0};
    vp_trace_prepass = 0;
    vp_trace *plain = vp_trace_open(path, NULL, &err);
    vp_trace_prepass = 1;
    vp_trace *known = vp_trace_open(path, NULL, &err);
    assert_non_null(plain);
    assert_non_null(known);
    vp_event a, b;
    int ra, rb;
    *objects = 0;
    while ((ra = vp_trace_next(plain, &a, &err)) == 1) {
        rb = vp_trace_next(known, &b, &err);
        assert_int_equal(rb, 1);
        assert_int_equal(a.ph, b.ph);
        assert_true(same_span(a.name, b.name) && same_span(a.cat, b.cat));
        assert_true(same_span(a.pid, b.pid) && same_span(a.tid, b.tid) && same_span(a.id, b.id));
        assert_true(same_span(a.args, b.args) && same_span(a.raw, b.raw));
        assert_true(a.ts == b.ts && a.dur == b.dur && a.has_ts == b.has_ts &&
                    a.has_dur == b.has_dur && a.offset == b.offset);
        *objects += a.args.p && a.args.p[0] == '{';
    }
    assert_int_equal(ra, 0);
    assert_int_equal(vp_trace_next(known, &b, &err), 0);
    assert_int_equal(vp_trace_get_stats(plain)->known_skips, 0);
    assert_int_equal(vp_trace_get_stats(plain)->bytes, vp_trace_get_stats(known)->bytes);
    uint64_t used = vp_trace_get_stats(known)->known_skips;
    vp_trace_close(plain);
    vp_trace_close(known);
    return used;
}

/* Skip facts (reader.c) change nothing the reader delivers, on the real
 * traces of tests/data; they are used for every args object outside the
 * carry (one element a chunk boundary at most), and only by the
 * variants with a walk. */
static void test_skip_facts(void **state)
{
    static const struct {
        const char *path;
        uint64_t objects;
    } traces[] = {
        {"hta/amd_trace.json.gz", 173},
        {"hta/event_sync_trace.json.gz", 69},
        {"hta/trace_filter_rank-0.json.gz", 4855},
        {"hta/trace_filter_rank-1.json.gz", 4720},
    };
    const char *data = getenv("VPROF_TEST_DATA");
    (void)state;
    assert_non_null(data);
    const char *saved = vp_json_scanner();
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", data, traces[i].path);
        uint64_t objects;
        assert_int_equal(vp_json_set_scanner("scalar"), 0);
        assert_int_equal(facts_agree(path, &objects), 0);
        assert_int_equal(objects, traces[i].objects);
        const char *walker = vp_json_set_scanner("avx2") == 0   ? "avx2"
                             : vp_json_set_scanner("neon") == 0 ? "neon"
                                                                : NULL;
        if (!walker)
            continue;
        /* amd_trace and event_sync_trace are one chunk each, the
         * trace_filter ranks two: the event on their boundary is parsed
         * in the carry */
        uint64_t used = facts_agree(path, &objects);
        assert_int_equal(used, objects - (i >= 2));
    }
    vp_json_set_scanner(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_form),
        cmocka_unit_test(test_object_form_keys),
        cmocka_unit_test(test_meta_early),
        cmocka_unit_test(test_array_repairs),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_diagnostics),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_member_forms),
        cmocka_unit_test(test_bad_utf8),
        cmocka_unit_test(test_straddle_every_offset),
        cmocka_unit_test(test_event_larger_than_chunk),
        cmocka_unit_test(test_many_chunks),
        cmocka_unit_test(test_gzip_errors),
        cmocka_unit_test(test_real_traces),
        cmocka_unit_test(test_skip_facts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
