/* export_memory_timeline output: parse, replay per category, find the peak. */
#include <stdlib.h>
#include <string.h>

#include "vprof/json.h"
#include "vprof/memtimeline.h"
#include "vprof/util.h"

const char *const vp_memcat_names[VP_MEMCAT_COUNT] = {
    "parameter", "optimizer state", "input", "temporary",
    "activation", "gradient", "autograd detail", "unknown",
};

typedef struct cursor {
    const char *p, *start, *end;
    const char *name;
    vp_error *err;
} cursor;

static int fail(cursor *c, const char *what)
{
    vp_error_set(c->err, VP_EXIT_INPUT, "%s: byte %zu: %s", c->name, (size_t)(c->p - c->start),
                 what);
    return -1;
}

static int expect(cursor *c, char ch, const char *what)
{
    c->p = vp_json_ws(c->p, c->end);
    if (c->p == c->end || *c->p != ch)
        return fail(c, what);
    c->p++;
    return 0;
}

/* After an element of a list: 1 = another follows, 0 = the list ended. */
static int next(cursor *c)
{
    c->p = vp_json_ws(c->p, c->end);
    if (c->p < c->end && *c->p == ',') {
        c->p++;
        return 1;
    }
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return 0;
    }
    fail(c, "expected ',' or ']' in a list");
    return -1;
}

static int empty_list(cursor *c)
{
    c->p = vp_json_ws(c->p, c->end);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return 1;
    }
    return 0;
}

/* A number: integers exactly; microsecond floats to ns when us is set. */
static int number(cursor *c, int us, int64_t *out)
{
    vp_span v;
    vp_json_fail jf;
    c->p = vp_json_ws(c->p, c->end);
    const char *at = c->p;
    if (vp_json_skip(&c->p, c->end, 2, &v, &jf) != VP_JSON_OK ||
        (us ? vp_json_us_to_ns(v, out) : vp_json_int(v, out)) != 0) {
        c->p = at;
        return fail(c, "expected a number");
    }
    return 0;
}

int vp_memtimeline_detect(const char *data, size_t len)
{
    const char *p = vp_json_ws(data, data + len);
    if (p == data + len || *p != '[')
        return 0;
    p = vp_json_ws(p + 1, data + len);
    return p < data + len && *p == '[';
}

typedef struct entry {
    int64_t t, bytes;
    int cat;
    size_t order;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->order > y->order) - (x->order < y->order);
}

static void push(vp_memtimeline *t, size_t *cap, int64_t ts, const int64_t *cat)
{
    if (t->n == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        t->ts = vp_realloc(t->ts, *cap * sizeof *t->ts);
        t->total = vp_realloc(t->total, *cap * sizeof *t->total);
    }
    int64_t sum = 0;
    for (int k = 0; k < VP_MEMCAT_COUNT; k++) {
        sum += cat[k];
        if (cat[k] > t->cat_peak[k])
            t->cat_peak[k] = cat[k];
    }
    t->ts[t->n] = ts;
    t->total[t->n] = sum;
    if (t->n == 0 || sum > t->total[t->peak]) {
        t->peak = t->n;
        memcpy(t->at_peak, cat, sizeof t->at_peak);
    }
    t->n++;
}

static int parse_raw(cursor *c, vp_memtimeline *t)
{
    entry *e = NULL;
    size_t n = 0, cap = 0;
    int more = 1;
    while (more) {
        int64_t v[4];
        if (expect(c, '[', "expected an entry [t_ns, action, bytes, category]") != 0)
            goto bad;
        for (int i = 0; i < 4; i++) {
            if (number(c, 0, &v[i]) != 0)
                goto bad;
            if (i < 3 && expect(c, ',', "expected ',' in an entry of 4 numbers") != 0)
                goto bad;
        }
        if (expect(c, ']', "expected ']' after an entry's 4 numbers") != 0)
            goto bad;
        if (v[3] < 0 || v[3] >= VP_MEMCAT_COUNT) {
            fail(c, "a category outside 0..7");
            goto bad;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            e = vp_realloc(e, cap * sizeof *e);
        }
        e[n] = (entry){v[0], v[2], (int)v[3], n};
        n++;
        if ((more = next(c)) < 0)
            goto bad;
    }
    if (n)
        qsort(e, n, sizeof *e, cmp_entry);
    int64_t cat[VP_MEMCAT_COUNT] = {0};
    size_t pcap = 0;
    for (size_t i = 0; i < n; i++) {
        cat[e[i].cat] += e[i].bytes;
        push(t, &pcap, e[i].t, cat);
    }
    free(e);
    return 0;
bad:
    free(e);
    return -1;
}

static int parse_pair(cursor *c, vp_memtimeline *t)
{
    /* times first: keep them, then the sizes pair up with them. */
    int64_t *times = NULL;
    size_t nt = 0, cap = 0, pcap = 0, k = 0;
    int more = !empty_list(c);
    while (more) {
        if (nt == cap) {
            cap = cap ? cap * 2 : 1024;
            times = vp_realloc(times, cap * sizeof *times);
        }
        if (number(c, 1, &times[nt]) != 0)
            goto bad;
        nt++;
        if ((more = next(c)) < 0)
            goto bad;
    }
    if (expect(c, ',', "expected ',' then the sizes after the times") != 0 ||
        expect(c, '[', "expected the list of sizes") != 0)
        goto bad;
    more = !empty_list(c);
    while (more) {
        int64_t v[VP_MEMCAT_COUNT + 1];
        if (expect(c, '[', "expected a list of 9 sizes") != 0)
            goto bad;
        for (int i = 0; i <= VP_MEMCAT_COUNT; i++) {
            if (number(c, 0, &v[i]) != 0)
                goto bad;
            if (i < VP_MEMCAT_COUNT && expect(c, ',', "expected ',' in a list of 9 sizes") != 0)
                goto bad;
        }
        if (expect(c, ']', "expected ']' after 9 sizes") != 0)
            goto bad;
        if (k >= nt) {
            fail(c, "more sizes than times");
            goto bad;
        }
        push(t, &pcap, times[k++], v + 1);
        if ((more = next(c)) < 0)
            goto bad;
    }
    if (k != nt) {
        fail(c, "fewer sizes than times");
        goto bad;
    }
    free(times);
    return expect(c, ']', "expected ']' closing the [times, sizes] pair");
bad:
    free(times);
    return -1;
}

int vp_memtimeline_parse(const char *data, size_t len, const char *name, vp_memtimeline *t,
                         vp_error *err)
{
    memset(t, 0, sizeof *t);
    cursor c = {data, data, data + len, name, err};
    if (expect(&c, '[', "expected '[' opening a memory timeline") != 0 ||
        expect(&c, '[', "expected '[' opening a memory timeline's first list") != 0)
        return -1;
    /* The raw form's first element is an entry of 4 numbers followed by
     * another entry; the pair's is the list of times followed by a list of
     * lists. Look past the first inner list to tell. */
    const char *inner = c.p;
    vp_span first;
    vp_json_fail jf;
    const char *q = c.p - 1;
    if (vp_json_skip(&q, c.end, 1, &first, &jf) != VP_JSON_OK)
        return fail(&c, "a memory timeline's first list does not end");
    q = vp_json_ws(q, c.end);
    int pair = 0;
    if (q < c.end && *q == ',') {
        q = vp_json_ws(q + 1, c.end);
        if (q < c.end && *q == '[') {
            q = vp_json_ws(q + 1, c.end);
            pair = q < c.end && (*q == '[' || *q == ']');
        }
    }
    int rc;
    if (pair) {
        rc = parse_pair(&c, t);
    } else {
        c.p = inner - 1;
        t->raw = 1;
        rc = parse_raw(&c, t);
    }
    if (rc == 0) {
        c.p = vp_json_ws(c.p, c.end);
        if (c.p != c.end)
            rc = fail(&c, "expected the end of the input after the memory timeline");
    }
    if (rc != 0)
        vp_memtimeline_free(t);
    return rc;
}

void vp_memtimeline_free(vp_memtimeline *t)
{
    free(t->ts);
    free(t->total);
    t->ts = t->total = NULL;
    t->n = 0;
}
