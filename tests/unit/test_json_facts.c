/* Unit tests for the skip facts (vp_json_facts_scan, src/json/skip.c).
 *
 * The property every test checks: for each fact {off, len} of a chunk,
 * vp_json_skip at chunk + off, with the chunk's end and depth 2, returns
 * OK with a span of len bytes, under the variant that made the fact and
 * under scalar (skip_slow, no walk).  Beyond that, on documents built
 * here, the facts are exactly the containers written after `"args": ` or
 * `"args":` that end inside their chunk (none for a value cut by a
 * chunk's end, none for other members' containers or an escaped "args"
 * in a string), with the chunk cut at every byte (the key before a value
 * in the previous chunk) and escapes and quotes on every lane of a
 * 64-byte block; on the real traces of tests/data (and ../shared when
 * present) cut at many places, every args object inside a chunk has its
 * fact; malformed text at every byte gets only true facts; the nesting
 * limit is the parser's; failed walks are bounded. */
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
#include "vprof/source.h"
#include "vprof/trace.h"

#include "json_variants.h"

/* The variant that makes facts on this CPU (avx2, neon), or NULL. */
static const char *walker(void)
{
    for (int v = NVARIANTS - 1; v > 0; v--)
        if (vp_json_set_scanner(variants[v]) == 0 && vp_scan.facts)
            return variants[v];
    return NULL;
}

typedef struct val {
    size_t off, len;
} val;

/* vp_json_skip at chunk + off under the named variant: its span's length,
 * or (size_t)-1 when it does not answer OK with a span starting there. */
static size_t skip_len(const char *variant, const char *chunk, size_t n, size_t off)
{
    assert_int_equal(vp_json_set_scanner(variant), 0);
    const char *p = chunk + off;
    vp_span s = {0};
    vp_json_fail fail = {0};
    int r = vp_json_skip(&p, chunk + n, 2, &s, &fail);
    if (r != VP_JSON_OK || s.p != chunk + off || p != s.p + s.n)
        return (size_t)-1;
    return s.n;
}

typedef struct scan_result {
    size_t facts;      /* facts made */
    size_t expected;   /* values of the list that lay inside a chunk */
} scan_result;

/* Scans doc cut at cuts[] (increasing), each chunk a heap copy of exactly
 * its bytes (ASan sees an over-read).  Checks every fact against
 * vp_json_skip.  With exact, the facts must be exactly the values of
 * vals[] that lie inside a chunk; otherwise they must include them. */
static scan_result scan_cut(const char *doc, size_t len, const size_t *cuts, size_t ncuts,
                            const val *vals, size_t nvals, int exact)
{
    const char *variant = walker();
    scan_result res = {0, 0};
    vp_json_facts st;
    assert_int_equal(vp_json_facts_init(&st, 2), 1);
    vp_buf out = {0};
    size_t start = 0, vi = 0;
    for (size_t c = 0; c <= ncuts; c++) {
        size_t stop = c < ncuts ? cuts[c] : len;
        size_t n = stop - start;
        char *chunk = malloc(n ? n : 1);
        assert_non_null(chunk);
        memcpy(chunk, doc + start, n);
        vp_json_facts_scan(&st, chunk, n, &out);
        const vp_json_fact *f = (const vp_json_fact *)(const void *)out.data;
        assert_int_equal(out.len % sizeof *f, 0);
        size_t nf = out.len / sizeof *f - 1;
        assert_int_equal(f[nf].off, UINT32_MAX);
        for (size_t i = 0; i < nf; i++) {
            if (i)
                assert_true(f[i].off > f[i - 1].off);
            assert_true(f[i].off < n && f[i].len <= n - f[i].off);
            size_t want = skip_len(variant, chunk, n, f[i].off);
            if (want != f[i].len)
                fail_msg("fact at %zu (chunk at %zu): length %u, vp_json_skip says %zd",
                         start + f[i].off, start, f[i].len, (ssize_t)want);
            assert_int_equal(skip_len("scalar", chunk, n, f[i].off), f[i].len);
        }
        /* The listed values inside this chunk, against the facts. */
        size_t fi = 0, inside = 0;
        while (vi < nvals && vals[vi].off < stop) {
            const val *v = &vals[vi++];
            if (v->off < start || v->off + v->len > stop)
                continue;
            inside++;
            while (fi < nf && f[fi].off < v->off - start)
                fi++;
            if (fi == nf || f[fi].off != v->off - start || f[fi].len != v->len)
                fail_msg("no fact for the value at %zu (length %zu) in the chunk [%zu, %zu)",
                         v->off, v->len, start, stop);
        }
        if (exact && inside != nf)
            fail_msg("chunk [%zu, %zu): %zu facts for %zu values", start, stop, nf, inside);
        res.facts += nf;
        res.expected += inside;
        free(chunk);
        start = stop;
    }
    vp_buf_free(&out);
    return res;
}

/* Only AVX2 and NEON have a walk, so only they make facts. */
static void test_variants(void **state)
{
    (void)state;
    vp_json_facts st;
    assert_int_equal(vp_json_set_scanner("scalar"), 0);
    assert_int_equal(vp_json_facts_init(&st, 2), 0);
#if defined(__x86_64__)
    assert_int_equal(vp_json_set_scanner("sse2"), 0);
    assert_int_equal(vp_json_facts_init(&st, 2), 0);
    if (vp_json_set_scanner("avx2") == 0)
        assert_int_equal(vp_json_facts_init(&st, 2), 1);
#elif defined(__aarch64__)
    assert_int_equal(vp_json_set_scanner("neon"), 0);
    assert_int_equal(vp_json_facts_init(&st, 2), 1);
#endif
}

/* A document and its member-level containers, built piece by piece. */
typedef struct doc {
    vp_buf text;
    val vals[16];
    size_t nvals;
} doc;

static void put(doc *d, const char *s)
{
    vp_buf_append(&d->text, s, strlen(s));
}

static void put_val(doc *d, const char *s)
{
    d->vals[d->nvals].off = d->text.len;
    d->vals[d->nvals].len = strlen(s);
    d->nvals++;
    put(d, s);
}

/* Three events whose strings hold brackets, quotes and backslash runs
 * (in names, in args, as keys) and an escaped `\"args\": {` in a name, a
 * filler of fill bytes first so that they land on every lane of a block;
 * args written both ways (`"args": ` and `"args":`) and other members'
 * containers (no facts: the parser skips them itself); in the object
 * form, top-level members after the events, one of them "args" (a fact
 * the parser never asks for, true all the same). */
static void build_doc(doc *d, size_t fill, int array_form)
{
    memset(d, 0, sizeof *d);
    put(d, array_form ? "[\n" : "{\"traceEvents\": [\n");
    put(d, "{\"ph\": \"X\", \"name\": \"");
    for (size_t i = 0; i < fill; i++)
        put(d, i % 7 == 3 ? "\\\\" : "f");
    put(d, "a{[\\\"}]\\\\ \\\"args\\\": {\", \"args\": ");
    put_val(d, "{\"s\": \"x\\\"}{\\\\\", \"n\": [1, {\"k\": \"]\"}], \"e\": \"\\\\\\\\\", "
               "\"\\\"{\": -1.5e3, \"t\": true}");
    put(d, ", \"ts\": 1},\n{\"name\": \"q\\\\\", \"x\": ");
    put(d, "[1, 2, \"]\", null]");
    put(d, ", \"args\":");
    put_val(d, "{}");
    put(d, "},\n{\"args\": ");
    put_val(d, "{\"deep\": {\"a\": [[], {\"b\": \"\\\\\\\"\"}]}}");
    put(d, ", \"ph\": \"i\", \"empty\": ");
    put(d, "[]");
    put(d, "}\n]");
    if (array_form) {
        put(d, "\n");
    } else {
        put(d, ", \"meta\": {\"k\": [1, \"{\"]}, \"args\": ");
        put_val(d, "[[0, \"]\"]]");
        put(d, "}\n");
    }
}

/* Two chunks cut at every byte, every filler length, both forms: the
 * facts are exactly the args values inside a chunk. */
static void test_every_cut(void **state)
{
    (void)state;
    if (!walker())
        skip();
    for (int form = 0; form < 2; form++) {
        for (size_t fill = 0; fill <= 70; fill++) {
            doc d;
            build_doc(&d, fill, form);
            size_t len = d.text.len;
            /* uncut: the three events' args, and the top-level one */
            scan_result r = scan_cut(d.text.data, len, NULL, 0, d.vals, d.nvals, 1);
            assert_int_equal(r.facts, form == 0 ? 4 : 3);
            for (size_t cut = 0; cut <= len; cut++)
                scan_cut(d.text.data, len, &cut, 1, d.vals, d.nvals, 1);
            /* three chunks, the middle one short: values end at its edges,
             * keys lie across two cuts */
            for (size_t cut = 0; cut + 9 <= len; cut += 3) {
                size_t cuts[2] = {cut, cut + 9};
                scan_cut(d.text.data, len, cuts, 2, d.vals, d.nvals, 1);
            }
            for (size_t cut = 0; cut + 3 <= len; cut++) {
                size_t cuts[2] = {cut, cut + 3};
                scan_cut(d.text.data, len, cuts, 2, d.vals, d.nvals, 1);
            }
            vp_buf_free(&d.text);
        }
    }
}

/* Malformed text: each byte replaced by each of a set of troublemakers
 * (cut there and elsewhere): every fact made is still vp_json_skip's
 * answer, and the values the change did not touch keep their facts
 * (those before it in the same chunk: the scan cannot have lost its way
 * yet). */
static void test_malformed_every_byte(void **state)
{
    static const char bad[] = {'"', '\\', '{', '}', '[', ']', ',', ':', 'x', ' ', 1, (char)0xC3};
    (void)state;
    if (!walker())
        skip();
    doc d;
    build_doc(&d, 5, 0);
    size_t len = d.text.len, total = 0;
    char *m = malloc(len);
    assert_non_null(m);
    for (size_t i = 0; i < len; i++) {
        for (size_t b = 0; b < sizeof bad; b++) {
            if (d.text.data[i] == bad[b])
                continue;
            memcpy(m, d.text.data, len);
            m[i] = bad[b];
            /* the values wholly before the change */
            size_t nv = 0;
            while (nv < d.nvals && d.vals[nv].off + d.vals[nv].len <= i)
                nv++;
            size_t cuts[2] = {len / 3, 2 * len / 3};
            total += scan_cut(m, len, cuts, 2, d.vals, nv, 0).facts;
            size_t at = i + 1;
            total += scan_cut(m, len, &at, 1, d.vals, nv, 0).facts;
        }
    }
    /* mostly still whole documents: most facts survive */
    assert_true(total > len * (sizeof bad - 1) * 2 * 2);
    free(m);
    vp_buf_free(&d.text);
}

/* The nesting limit is the parser's (base 2, VP_JSON_MAX_DEPTH): args
 * holding 125 levels of arrays are the deepest skipped; at 126 there is
 * no fact and vp_json_skip's error stands; the next event's args still
 * get theirs. */
static void test_nesting_limit(void **state)
{
    (void)state;
    if (!walker())
        skip();
    for (int k = 124; k <= 127; k++) {
        doc d;
        memset(&d, 0, sizeof d);
        put(&d, "[{\"args\": ");
        vp_buf deep = {0};
        vp_buf_append(&deep, "{\"a\": ", 6);
        for (int i = 0; i < k; i++)
            vp_buf_putc(&deep, '[');
        for (int i = 0; i < k; i++)
            vp_buf_putc(&deep, ']');
        vp_buf_putc(&deep, '}');
        int ok = 2 + 1 + k <= VP_JSON_MAX_DEPTH;
        if (ok) {
            put_val(&d, vp_buf_cstr(&deep));
        } else {
            put(&d, vp_buf_cstr(&deep));
        }
        put(&d, "},\n{\"args\": ");
        put_val(&d, "{\"b\": [2]}");
        put(&d, "}]\n");
        scan_result r = scan_cut(d.text.data, d.text.len, NULL, 0, d.vals, d.nvals, 1);
        assert_int_equal(r.facts, ok ? 2 : 1);
        if (!ok) {
            const char *p = d.text.data + 10;
            vp_span s;
            vp_json_fail fail = {0};
            assert_int_equal(vp_json_skip(&p, d.text.data + d.text.len, 2, &s, &fail),
                             VP_JSON_ERR);
            assert_string_equal(fail.what, "nesting deeper than 128 levels (vprof's limit)");
        }
        vp_buf_free(&deep);
        vp_buf_free(&d.text);
    }
}

/* Walks that fail are bounded: args nested 100 deep, each level a
 * candidate whose walk reads on to a bad byte 20 KB later, cost more
 * failed-walk bytes than the chunk's length and 64 KiB, so the chunk
 * gets no fact after them, not even for the good args that follows; the
 * next chunk starts afresh and gets its own. */
static void test_failed_walks_bounded(void **state)
{
    (void)state;
    if (!walker())
        skip();
    doc d;
    memset(&d, 0, sizeof d);
    put(&d, "[");
    for (int i = 0; i < 100; i++)
        put(&d, "{\"args\": ");
    put(&d, "{");
    for (int i = 0; i < 2000; i++)
        put(&d, "\"k\": 123, ");
    put(&d, "x}]}, {\"args\": {\"good\": 1}},\n");
    size_t cut = d.text.len;
    put(&d, "{\"args\": ");
    put_val(&d, "{\"good\": 2}");
    put(&d, "}]\n");
    scan_result r = scan_cut(d.text.data, d.text.len, &cut, 1, d.vals, d.nvals, 1);
    assert_int_equal(r.facts, 1);
    /* the same good args alone in its chunk does get a fact */
    const char *good = strstr(d.text.data, "x}]}, ") + 6;
    size_t at = (size_t)(good - d.text.data);
    val v = {at + 9, 11};
    size_t cuts[2] = {at, cut};
    r = scan_cut(d.text.data, d.text.len, cuts, 2, &v, 1, 0);
    assert_int_equal(r.facts, 2);
    vp_buf_free(&d.text);
}

/* More member values in one chunk than VP_JSON_FACTS_MAX: the first
 * that many get facts, the rest none (the parser skips them itself). */
static void test_facts_bound(void **state)
{
    (void)state;
    if (!walker())
        skip();
    vp_buf text = {0};
    size_t n = VP_JSON_FACTS_MAX + 1000;
    vp_buf_putc(&text, '[');
    for (size_t i = 0; i < n; i++)
        vp_buf_append(&text, i ? ",{\"args\":{}}" : "{\"args\":{}}", i ? 12 : 11);
    vp_buf_putc(&text, ']');
    scan_result r = scan_cut(text.data, text.len, NULL, 0, NULL, 0, 0);
    assert_int_equal(r.facts, VP_JSON_FACTS_MAX);
    vp_buf_free(&text);
}

/* The whole uncompressed text of a file. */
static void read_all(const char *path, vp_buf *b)
{
    vp_error err = {0};
    vp_source *s = vp_source_open(path, &err);
    if (!s)
        fail_msg("%s", err.msg);
    vp_chunk ch;
    int r;
    while ((r = vp_source_next(s, &ch, &err)) == 1)
        vp_buf_append(b, ch.data, ch.len);
    if (r < 0)
        fail_msg("%s", err.msg);
    vp_source_close(s);
}

/* The args objects of a trace as the reader sees them (with no facts). */
static val *args_of(const char *path, size_t *n)
{
    vp_error err = {0};
    int saved_prepass = vp_trace_prepass;
    vp_trace_prepass = 0;
    vp_trace *t = vp_trace_open(path, NULL, &err);
    vp_trace_prepass = saved_prepass;
    if (!t)
        fail_msg("%s", err.msg);
    vp_event ev;
    size_t cap = 1024;
    val *v = malloc(cap * sizeof *v);
    assert_non_null(v);
    *n = 0;
    int r;
    while ((r = vp_trace_next(t, &ev, &err)) == 1) {
        if (!ev.args.p || ev.args.p[0] != '{')
            continue;
        if (*n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[*n].off = (size_t)ev.offset + (size_t)(ev.args.p - ev.raw.p);
        v[(*n)++].len = ev.args.n;
    }
    if (r != 0)
        fail_msg("%s", err.msg);
    vp_trace_close(t);
    return v;
}

/* One real trace in chunks of several fixed sizes and at pseudo-random
 * places. */
static void check_trace(const char *path)
{
    vp_buf text = {0};
    read_all(path, &text);
    size_t nargs;
    val *args = args_of(path, &nargs);
    assert_true(nargs > 0);
    static const size_t sizes[] = {4096, 65536 + 13, 1u << 20};
    size_t maxcuts = text.len / 200 + 2;
    size_t *cuts = malloc(maxcuts * sizeof *cuts);
    assert_non_null(cuts);
    for (size_t s = 0; s <= sizeof sizes / sizeof sizes[0]; s++) {
        size_t nc = 0;
        uint64_t x = 0x9E3779B97F4A7C15ULL + s;
        for (size_t at = 0;;) {
            if (s < sizeof sizes / sizeof sizes[0]) {
                at += sizes[s];
            } else {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                at += 1 + (size_t)(x >> 33) % 6000;
            }
            if (at >= text.len || nc == maxcuts)
                break;
            cuts[nc++] = at;
        }
        scan_result r = scan_cut(text.data, text.len, cuts, nc, args, nargs, 0);
        /* only the args cut by a chunk's end lack a fact: at most one a cut */
        assert_true(r.expected + nc >= nargs);
        assert_true(r.facts >= r.expected);
    }
    free(cuts);
    free(args);
    vp_buf_free(&text);
}

static void test_real_traces(void **state)
{
    static const char *const mine[] = {"hta/amd_trace.json.gz", "hta/event_sync_trace.json.gz",
                                       "hta/trace_filter_rank-0.json.gz",
                                       "hta/trace_filter_rank-1.json.gz", "synthetic/mixed.json"};
    static const char *const shared[] = {
        "critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
        "rank_non_gpu/rank_non_gpu.json.gz",
        "nccl_parser_config/nccl_data.json.gz",
    };
    (void)state;
    if (!walker())
        skip();
    const char *data = getenv("VPROF_TEST_DATA");
    assert_non_null(data);
    char path[1024];
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", data, mine[i]);
        check_trace(path);
    }
    const char *sh = getenv("VPROF_SHARED");
    for (size_t i = 0; sh && i < sizeof shared / sizeof shared[0]; i++) {
        snprintf(path, sizeof path, "%s/fixtures/real/hta/tests/data/%s", sh, shared[i]);
        FILE *probe = fopen(path, "r");
        if (!probe)
            continue;
        fclose(probe);
        check_trace(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_every_cut),
        cmocka_unit_test(test_malformed_every_byte),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_failed_walks_bounded),
        cmocka_unit_test(test_facts_bound),
        cmocka_unit_test(test_real_traces),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
