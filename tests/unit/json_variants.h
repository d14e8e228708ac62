/* Shared by the scanner variants' unit tests (test_json_scan.c,
 * test_json_skip.c): run a scanning call under every variant the CPU has
 * and require scalar's answer, to the offset and message of an error. */
#ifndef VPROF_TEST_JSON_VARIANTS_H
#define VPROF_TEST_JSON_VARIANTS_H

/* Those the CPU lacks are skipped: x86-64 runs the first three, arm64
 * (scripts/cross-check-arm64, under qemu) scalar and neon. */
static const char *const variants[] = {"scalar", "sse2", "avx2", "neon"};
#define NVARIANTS 4

/* What one call returned, for comparing variants. */
typedef struct outcome {
    int r;
    size_t consumed, start, n;
    unsigned flags;
    size_t where;
    char what[160];
} outcome;

__attribute__((unused)) static outcome string_outcome(const char *buf, size_t len)
{
    outcome o;
    memset(&o, 0, sizeof o);
    const char *p = buf;
    vp_span s = {0};
    vp_json_fail fail = {0};
    o.r = vp_json_string(&p, buf + len, &s, &o.flags, &fail);
    if (o.r == VP_JSON_OK) {
        o.consumed = (size_t)(p - buf);
        o.start = (size_t)(s.p - buf);
        o.n = s.n;
    } else {
        o.flags = 0;
    }
    return o;
}

/* The depth skip_outcome passes (the enclosing levels already open). */
static int skip_depth;

__attribute__((unused)) static outcome skip_outcome(const char *buf, size_t len)
{
    outcome o;
    memset(&o, 0, sizeof o);
    const char *p = buf;
    vp_span s = {0};
    vp_json_fail fail = {0};
    o.r = vp_json_skip(&p, buf + len, skip_depth, &s, &fail);
    if (o.r == VP_JSON_OK) {
        o.consumed = (size_t)(p - buf);
        o.start = (size_t)(s.p - buf);
        o.n = s.n;
    } else if (o.r == VP_JSON_ERR) {
        o.where = (size_t)(fail.where - buf);
        snprintf(o.what, sizeof o.what, "%s", fail.what);
    }
    return o;
}

static void same(const outcome *a, const outcome *b, const char *variant, const char *what,
                 size_t pos, size_t len)
{
    if (a->r != b->r || a->consumed != b->consumed || a->start != b->start || a->n != b->n ||
        a->flags != b->flags || a->where != b->where || strcmp(a->what, b->what) != 0)
        fail_msg("%s: %s at %zu, length %zu: r %d/%d consumed %zu/%zu n %zu/%zu flags %u/%u "
                 "where %zu/%zu '%s'/'%s'",
                 variant, what, pos, len, a->r, b->r, a->consumed, b->consumed, a->n, b->n,
                 a->flags, b->flags, a->where, b->where, a->what, b->what);
}

/* Runs f on buf[0, len) under every variant; all must match scalar.
 * Returns scalar's outcome. The buffer is a heap copy of exactly len
 * bytes, so that ASan catches a read past the end. */
__attribute__((unused)) static outcome all_variants(outcome (*f)(const char *, size_t), const char *text, size_t len,
                            const char *what, size_t pos)
{
    char *buf = malloc(len ? len : 1);
    assert_non_null(buf);
    memcpy(buf, text, len);
    assert_int_equal(vp_json_set_scanner("scalar"), 0);
    outcome want = f(buf, len);
    for (int v = 1; v < NVARIANTS; v++) {
        if (vp_json_set_scanner(variants[v]) != 0)
            continue;   /* not on this CPU */
        outcome got = f(buf, len);
        same(&want, &got, variants[v], what, pos, len);
    }
    free(buf);
    return want;
}

static const char *saved;

static int setup(void **state)
{
    (void)state;
    saved = vp_json_scanner();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    vp_json_set_scanner(saved);
    return 0;
}

#endif
