/* libFuzzer target for the JSON scanning primitives (src/json/json.c).
 *
 * The input is copied into a buffer of exactly its size, so that ASan
 * catches any read past the end.  Every primitive runs over it: the
 * structural skip at several depths, the string scanner, member lookup
 * and the number and string conversions, with cross-checks between them
 * (a skip that succeeds spans text inside the buffer; a value found by
 * vp_json_get is one that vp_json_skip accepts in full, and every scanner
 * variant skips as the scalar code does). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/json.h"
#include "vprof/util.h"

#define CHECK(c) \
    do { \
        if (!(c)) \
            abort(); \
    } while (0)

static void conversions(vp_span v, vp_buf *b)
{
    int64_t i, ns;
    double d;
    if (vp_json_int(v, &i) == 0 && vp_json_us_to_ns(v, &ns) == 0) {
        /* An integer number of microseconds converts exactly. */
        if (i > -9223372036854775LL && i < 9223372036854775LL)
            CHECK(ns == i * 1000);
    }
    (void)vp_json_double(v, &d);
    size_t bad = vp_json_unescape(v, b);
    CHECK(bad <= v.n);
    CHECK(b->len <= 3 * v.n + 3);
    (void)vp_json_str_eq(v, "traceEvents");
}

/* The skip under every scanner variant gives scalar's answer: the same
 * span, or the same error at the same byte with the same message (the
 * vector variants skip objects and arrays by a bitmap walk). */
static void variants_agree(const char *buf, const char *end)
{
    static const char *const names[] = {"sse2", "avx2", "neon"};
    const char *chosen = vp_json_scanner();
    vp_json_fail want_fail, got_fail;
    vp_span want, got;
    for (int depth = 0; depth <= 2; depth += 2) {
        CHECK(vp_json_set_scanner("scalar") == 0);
        const char *wp = buf;
        int wr = vp_json_skip(&wp, end, depth, &want, &want_fail);
        for (size_t v = 0; v < sizeof names / sizeof names[0]; v++) {
            if (vp_json_set_scanner(names[v]) != 0)
                continue;
            const char *gp = buf;
            int gr = vp_json_skip(&gp, end, depth, &got, &got_fail);
            CHECK(gr == wr && gp == wp);
            if (wr == VP_JSON_OK)
                CHECK(got.p == want.p && got.n == want.n);
            if (wr == VP_JSON_ERR)
                CHECK(got_fail.where == want_fail.where &&
                      strcmp(got_fail.what, want_fail.what) == 0);
        }
    }
    CHECK(vp_json_set_scanner(chosen) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    const char *end;
    vp_buf b = {0};
    vp_json_fail fail;
    vp_span out;

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    end = buf + size;

    variants_agree(buf, end);

    /* Skip a sequence of values, as the reader does at the top level. */
    for (int depth = 0; depth <= 2; depth += 2) {
        const char *p = buf;
        for (int k = 0; k < 64; k++) {
            const char *before = p;
            int r = vp_json_skip(&p, end, depth, &out, &fail);
            if (r == VP_JSON_OK) {
                CHECK(out.p >= buf && out.p + out.n <= end && out.n > 0);
                CHECK(p == out.p + out.n && p > before);
                conversions(out, &b);
                /* A whole value re-skips to the same span. */
                const char *q = out.p;
                vp_span again;
                CHECK(vp_json_skip(&q, out.p + out.n + (p < end), depth, &again, &fail) ==
                          VP_JSON_OK ||
                      p == end);
                p = vp_json_ws(p, end);
                if (p < end && (*p == ',' || *p == ':'))
                    p++;
            } else {
                CHECK(p == before);
                if (r == VP_JSON_ERR)
                    CHECK(fail.where >= buf && fail.where <= end);
                break;
            }
        }
    }

    /* Strings from every quote. */
    for (const char *q = memchr(buf, '"', size); q; q = memchr(q + 1, '"', (size_t)(end - q - 1))) {
        const char *p = q;
        unsigned fl;
        vp_span s;
        if (vp_json_string(&p, end, &s, &fl, &fail) == VP_JSON_OK) {
            CHECK(s.p == q + 1 && p == s.p + s.n + 1 && p <= end);
            CHECK(((fl & VP_STR_ESCAPED) != 0) == (memchr(s.p, '\\', s.n) != NULL));
            vp_json_unescape(s, &b);
        }
        if (q + 1 >= end)
            break;
    }

    /* Member lookup on the whole input as an object. */
    static const char *const keys[] = {"ph", "name", "ts", "dur", "args", "correlation", ""};
    vp_span vals[7];
    int found = vp_json_get_many((vp_span){buf, size}, keys, 7, vals);
    CHECK(found >= 0 && found <= 7);
    for (int i = 0; i < 7; i++) {
        if (!vals[i].p)
            continue;
        CHECK(vals[i].p >= buf && vals[i].p + vals[i].n <= end);
        conversions(vals[i], &b);
        vp_span one;
        CHECK(vp_json_get((vp_span){buf, size}, keys[i], &one) == 1);
        CHECK(one.p == vals[i].p && one.n == vals[i].n);
    }
    /* And the conversions on the raw input. */
    conversions((vp_span){buf, size}, &b);

    vp_buf_free(&b);
    free(buf);
    return 0;
}
