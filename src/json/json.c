/* JSON scanning primitives: strings, structural skipping, member lookup,
 * exact number conversion and string decoding.  See vprof/json.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "vprof/json.h"

static const char *describe(const char *p, const char *end, char *buf, size_t n)
{
    if (p >= end)
        return "the end of the input";
    unsigned char c = (unsigned char)*p;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02x", c);
    return buf;
}

int vp_json_fail_at(vp_json_fail *fail, const char *where, const char *end, const char *expected)
{
    char b[32];
    fail->where = where;
    snprintf(fail->what, sizeof fail->what, "expected %s, found %s", expected,
             describe(where, end, b, sizeof b));
    return VP_JSON_ERR;
}

int vp_json_string_scan(const char **pp, const char *end, vp_span *out, unsigned *flags,
                        vp_json_fail *fail)
{
    const char *start = *pp + 1;   /* past the opening quote */
    const char *p = start;
    const char *limit = end;
    unsigned fl = 0;
    int long_string = 0;
    if ((size_t)(end - start) > VP_JSON_MAX_STRING) {
        limit = start + VP_JSON_MAX_STRING;
        long_string = 1;
    }
    unsigned high = 0;
    for (;;) {
        p = vp_scan.string(p, limit, &high);
        if (p >= limit)
            goto out_of_input;
        if (*p == '"')
            break;
        /* A backslash: the next byte is escaped, whatever it is. */
        fl |= VP_STR_ESCAPED;
        if (p + 1 >= limit)
            goto out_of_input;
        p += 2;
    }
    if (high)
        fl |= VP_STR_NONASCII;
    out->p = start;
    out->n = (size_t)(p - start);
    *flags = fl;
    *pp = p + 1;
    return VP_JSON_OK;
out_of_input:
    /* Past the limit, more input cannot help: the string is too long. */
    if (long_string) {
        fail->where = start - 1;
        snprintf(fail->what, sizeof fail->what,
                 "a string longer than %u MiB (vprof's limit)", VP_JSON_MAX_STRING >> 20);
        return VP_JSON_ERR;
    }
    return VP_JSON_MORE;
}

const char *vp_json_ws_run(const char *p, const char *end)
{
    /* Mostly one space before a value, else a newline and indentation
     * (shorter than 16 bytes: one vector test, no call). */
    if (p + 1 < end && (unsigned char)p[1] > ' ')
        return *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' ? p + 1 : p;
#if VP_SCAN_X86
    if (vp_json_vector16 && end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i w = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))));
        unsigned m = ~(unsigned)_mm_movemask_epi8(w) & 0xffff;
        if (m)
            return p + __builtin_ctz(m);
    }
#endif
    return vp_scan.ws(p, end);
}

/* Characters of numbers and literals: [0-9a-zA-Z+-.]. */
const uint8_t vp_json_scalar_char[256] = {
    ['+'] = 1, ['-'] = 1, ['.'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
    ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
    ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
    ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1,
};

static inline int is_scalar_char(unsigned char c)
{
    return vp_json_scalar_char[c];
}

/* A number or literal: scans its characters. */
static int skip_scalar(const char **pp, const char *end, vp_json_fail *fail)
{
    const char *p = *pp;
    unsigned char c = (unsigned char)*p;
    if (!((c >= '0' && c <= '9') || c == '-' || c == 't' || c == 'f' || c == 'n' ||
          c == 'N' || c == 'I'))
        return vp_json_fail_at(fail, p, end, "a JSON value");
    while (p < end && is_scalar_char((unsigned char)*p))
        p++;
    if (p == end)
        return VP_JSON_MORE;
    *pp = p;
    return VP_JSON_OK;
}

/* After '{' or ',' inside an object: a key string and its colon. */
static int skip_key(const char **pp, const char *end, vp_json_fail *fail)
{
    const char *p = vp_json_ws(*pp, end);
    if (p == end)
        return VP_JSON_MORE;
    if (*p != '"')
        return vp_json_fail_at(fail, p, end, "a member name (a string)");
    vp_span s;
    unsigned fl;
    int r = vp_json_member(&p, end, &s, &fl, fail);
    if (r == VP_JSON_OK)
        *pp = p;
    return r;
}

__attribute__((noinline)) static int skip_slow(const char **pp, const char *end, int depth,
                                               vp_span *out, vp_json_fail *fail);

int vp_json_skip_scan(const char **pp, const char *end, int depth, vp_span *out,
                      vp_json_fail *fail)
{
    /* Most values skipped are numbers and strings (pid, tid, ids): no
     * bracket stack needed. */
    const char *p = vp_json_ws(*pp, end);
    if (p < end && ((unsigned)(*p - '0') < 10 || *p == '-')) {
        /* Only an answer moves *pp: a number cut by the end of the buffer
         * is read again from the same place when more input comes. */
        int r = vp_json_skip_number(&p, end, out);
        if (r == VP_JSON_OK)
            *pp = p;
        return r;
    }
    if (p < end && *p == '"') {
        vp_span s;
        unsigned fl;
        const char *q = p;
        int r = vp_json_string(&q, end, &s, &fl, fail);
        if (r != VP_JSON_OK)
            return r;
        out->p = p;
        out->n = (size_t)(q - p);
        *pp = q;
        return VP_JSON_OK;
    }
    return skip_slow(pp, end, depth, out, fail);
}

static int skip_slow(const char **pp, const char *end, int depth, vp_span *out, vp_json_fail *fail)
{
    char stack[VP_JSON_MAX_DEPTH];
    int sp = 0;
    const char *p = vp_json_ws(*pp, end);
    const char *start = p;
    int r;
    /* Objects and arrays: the variant's bitmap walk when it has one; it
     * accepts exactly what this loop accepts, and leaves the rest (errors,
     * the end of the buffer) to it. */
    if (vp_scan.skip_container && p < end && (*p == '{' || *p == '[')) {
        const char *stop = vp_scan.skip_container(p, end, depth);
        if (stop) {
            out->p = start;
            out->n = (size_t)(stop - start);
            *pp = stop;
            return VP_JSON_OK;
        }
    }
    for (;;) {
        /* Expecting a value. */
        p = vp_json_ws(p, end);
        if (p == end)
            return VP_JSON_MORE;
        char c = *p;
        if (c == '{' || c == '[') {
            if (depth + sp + 1 > VP_JSON_MAX_DEPTH) {
                fail->where = p;
                snprintf(fail->what, sizeof fail->what,
                         "nesting deeper than %d levels (vprof's limit)", VP_JSON_MAX_DEPTH);
                return VP_JSON_ERR;
            }
            stack[sp++] = c;
            p = vp_json_ws(p + 1, end);
            if (p == end)
                return VP_JSON_MORE;
            if (*p == (c == '{' ? '}' : ']')) {
                p++;
                sp--;
                goto after_value;
            }
            if (c == '{' && (r = skip_key(&p, end, fail)) != VP_JSON_OK)
                return r;
            continue;
        }
        if (c == '"') {
            vp_span s;
            unsigned fl;
            if ((r = vp_json_string(&p, end, &s, &fl, fail)) != VP_JSON_OK)
                return r;
        } else if ((r = skip_scalar(&p, end, fail)) != VP_JSON_OK) {
            return r;
        }
    after_value:
        if (sp == 0)
            break;
        p = vp_json_ws(p, end);
        if (p == end)
            return VP_JSON_MORE;
        char close = stack[sp - 1] == '{' ? '}' : ']';
        if (*p == ',') {
            p++;
            if (stack[sp - 1] == '{' && (r = skip_key(&p, end, fail)) != VP_JSON_OK)
                return r;
            continue;
        }
        if (*p == close) {
            p++;
            sp--;
            goto after_value;
        }
        return vp_json_fail_at(fail, p, end,
                     stack[sp - 1] == '{' ? "',' or '}' after an object member"
                                          : "',' or ']' after an array element");
    }
    out->p = start;
    out->n = (size_t)(p - start);
    *pp = p;
    return VP_JSON_OK;
}

int vp_json_str_eq(vp_span s, const char *lit)
{
    if (!s.p)   /* an absent value reads as empty */
        return lit[0] == 0;
    if (vp_json_is_string(s)) {
        s.p++;
        s.n -= 2;
    }
    size_t n = strlen(lit);
    if (s.n == n && memcmp(s.p, lit, n) == 0)
        return 1;
    if (!memchr(s.p, '\\', s.n))
        return 0;
    vp_buf b = {0};
    vp_json_unescape(s, &b);
    int eq = b.len == n && memcmp(b.data, lit, n) == 0;
    vp_buf_free(&b);
    return eq;
}

void vp_json_keyset_init(vp_json_keyset *ks, const char *const *keys, size_t nkeys)
{
    memset(ks, 0, sizeof *ks);
    ks->keys = keys;
    ks->n = nkeys;
    ks->words = nkeys <= VP_JSON_KEYSET_MAX;   /* more: the general comparison */
    for (size_t i = 0; i < nkeys && i < VP_JSON_KEYSET_MAX; i++) {
        size_t kl = ks->len[i] = strlen(keys[i]);
        unsigned char t[16] = {0}, m[16] = {0};
        int ok = 1;
        for (size_t j = 0; ok && j < kl; j++) {
            unsigned char ch = (unsigned char)keys[i][j];
            ok = ch != '"' && ch != '\\' && ch >= 0x20;
            if (j < 15)
                t[j + 1] = ch;
        }
        if (!ok) {
            ks->words = 0;
            continue;
        }
        /* The member name's first sixteen bytes, quotes included; past
         * them a longer name's last bytes and quote are compared apart. */
        t[0] = '"';
        if (kl <= 14)
            t[kl + 1] = '"';
        memset(m, 0xff, kl + 2 < 16 ? kl + 2 : 16);
        memcpy(ks->pat[i], t, 16);
        memcpy(ks->mask[i], m, 16);
        if (kl < 15)
            ks->by_len[kl] |= (uint16_t)(1u << i);
        else
            ks->longer |= (uint16_t)(1u << i);
    }
}

/* Whether the member name at p (16 bytes or more before end) is key i
 * of ks (a word): its first sixteen bytes, masked, and for a key longer
 * than fourteen bytes the rest of it and the closing quote. */
static inline int name_is_key(const vp_json_keyset *ks, unsigned i, const char *p, const char *end,
                              uint64_t a, uint64_t b)
{
    size_t kl = ks->len[i];
    if ((a & ks->mask[i][0]) != ks->pat[i][0] || (b & ks->mask[i][1]) != ks->pat[i][1])
        return 0;
    if (kl <= 14)
        return 1;
    if ((size_t)(end - p) < kl + 2 || p[kl + 1] != '"')
        return 0;
    for (size_t j = 15; j < kl; j++)   /* a few bytes: no call */
        if (p[j + 1] != ks->keys[i][j])
            return 0;
    return 1;
}

#if defined(__SSE2__)
/* Where the string at p (16 bytes or more before end) ends, from one
 * vector test: the offset of its closing quote (1..15), or 0 when a
 * backslash comes first or neither is in the sixteen bytes. */
static inline unsigned string_end16(const char *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    unsigned quotes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"'))) & ~1u;
    unsigned slashes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
    unsigned at = (unsigned)__builtin_ctz(quotes | 0x10000);
    return at < 16 && !(slashes & ((1u << at) - 1)) ? at : 0;
}

/* get_members' way for the members Kineto writes, "name": value, with
 * ks->words and 16-byte vectors: from p (a member's opening quote), the
 * members whose name has no escape and ends within sixteen bytes (or is
 * one of the longer keys), a colon and one space, a value of [-] and
 * 1-15 digits or a string of at most 14 bytes without escapes, and then
 * a comma before the next name, or the closing '}' (whitespace around).
 * The keys they name are taken (vals, *unfound, *found) as get_members
 * takes them, and the values are spanned as vp_json_skip spans them.
 * Returns where it stopped: the '}', a member not of this form, for the
 * general way to read, or anywhere once every key is found. */
static const char *kineto_members(const vp_json_keyset *ks, const char *p, const char *end,
                                  vp_span *vals, unsigned *unfound_io, size_t *found_io)
{
    unsigned unfound = *unfound_io;
    size_t found = *found_io;
    while (end - p >= 16) {
        const char *m = p;
        unsigned at = string_end16(p), cand;
        size_t hit = ks->n;
        if (at)
            cand = unfound & ks->by_len[at - 1];
        else
            cand = unfound & ks->longer;   /* a name of 15 bytes or more, or escaped */
        if (cand) {
            /* the name's bytes against the keys', quotes included */
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
            unsigned want = at ? (2u << at) - 1 : 0xffff;
            for (; cand; cand &= cand - 1) {
                unsigned i = (unsigned)__builtin_ctz(cand);
                __m128i k = _mm_loadu_si128((const __m128i *)(const void *)ks->pat[i]);
                if (((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, k)) & want) == want &&
                    (at || name_is_key(ks, i, p, end, vp_json_load64(p), vp_json_load64(p + 8)))) {
                    hit = i;
                    break;
                }
            }
        }
        if (at)
            p += at + 1;
        else if (hit < ks->n)
            p += ks->len[hit] + 2;
        else
            break;   /* a long name that is none of the keys, or escaped */
        if (end - p < 4 || (vp_json_load32(p) & 0xFFFF) != (':' | ' ' << 8)) {
            p = m;
            break;
        }
        p += 2;
        /* a number: [-] and 1-15 digits */
        vp_span v = {p, 0};
        const char *d = p + (*p == '-');
        size_t nd = 0;
        if (end - d < 16) {
            /* the last member: its value is a number, or the general way's */
            while (nd < (size_t)(end - d) - 1 && (unsigned)(d[nd] - '0') < 10)
                nd++;
        } else if (*p == '"') {
            v.n = (at = string_end16(p)) ? at + 1 : 0;
        } else {
            /* the bytes are signed: those >= 0x80 are below '0' */
            __m128i y = _mm_loadu_si128((const __m128i *)(const void *)d);
            __m128i g = _mm_and_si128(_mm_cmpgt_epi8(y, _mm_set1_epi8('0' - 1)),
                                      _mm_cmplt_epi8(y, _mm_set1_epi8('9' + 1)));
            nd = (unsigned)__builtin_ctz(~(unsigned)_mm_movemask_epi8(g));   /* 16: all are */
            if (nd == 16)
                nd = 0;
        }
        if (nd)
            v.n = (size_t)(d - p) + nd;
        if (!v.n) {
            p = m;
            break;
        }
        p += v.n;   /* at most end (a number leaves a byte: the tests below see) */
        /* then the end of the object, or the next name: most often `, "`,
         * three bytes of one load */
        const char *q = p;
        if (end - q >= 4 && (vp_json_load32(q) & 0xFFFFFF) == (',' | ' ' << 8 | '"' << 16)) {
            q += 2;
        } else {
            /* whitespace before the closing '}' of pretty-printed args
             * is short and near end: byte by byte */
            while (q < end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t'))
                q++;
            if (q < end && *q == ',') {
                q = vp_json_ws(q + 1, end);
                if (q == end || *q != '"') {
                    p = m;
                    break;
                }
            } else if (q == end || *q != '}') {
                p = m;
                break;
            }
        }
        p = q;
        if (hit < ks->n) {
            vals[hit] = v;
            if (++found == ks->n)
                break;
            unfound &= ~(1u << hit);
        }
        if (*p == '}')
            break;
    }
    *unfound_io = unfound;
    *found_io = found;
    return p;
}
#endif

/* The rare cases of get_members, out of line so that its position stays
 * in a register: a member name vp_json_string scans (flags to *fl), and
 * a value vp_json_skip skips; each returns the position past it, or NULL
 * where the walk stops. */
static __attribute__((noinline)) const char *name_scan(const char *p, const char *end, vp_span *k,
                                                       unsigned *fl)
{
    vp_json_fail fail;
    return vp_json_string(&p, end, k, fl, &fail) == VP_JSON_OK ? p : NULL;
}

static __attribute__((noinline)) const char *value_skip(const char *p, const char *end, vp_span *v)
{
    vp_json_fail fail;
    return vp_json_skip(&p, end, 1, v, &fail) == VP_JSON_OK ? p : NULL;
}

/* Which key the name k (flags fl) is, decoded when it holds an escape:
 * the first not yet found that it names, or ks->n. */
static __attribute__((noinline)) size_t name_key(const vp_json_keyset *ks, const vp_span *vals,
                                                 vp_span k, unsigned fl)
{
    for (size_t i = 0; i < ks->n; i++) {
        if (vals[i].p)
            continue;
        size_t kl = i < VP_JSON_KEYSET_MAX ? ks->len[i] : strlen(ks->keys[i]);
        if ((k.n == kl && memcmp(k.p, ks->keys[i], kl) == 0) ||
            ((fl & VP_STR_ESCAPED) && vp_json_str_eq(k, ks->keys[i])))
            return i;
    }
    return ks->n;
}

/* One pass over the members of obj for the keys of ks.  With ks->words
 * (no key has a quote, backslash or control byte), a member whose name
 * has sixteen bytes of obj is first tested against each key not yet
 * found by those sixteen bytes (quotes included, masked) and, for a key
 * longer than fourteen bytes, the rest; a name that matches none and has
 * no escape is none of them.  A member that matches takes the first key
 * not yet found that it names, as the general comparison (decoding the
 * name) does.  Members of Kineto's form take kineto_members' way. */
static int get_members(vp_span obj, const vp_json_keyset *ks, vp_span *vals)
{
    size_t nkeys = ks->n;
    for (size_t i = 0; i < nkeys; i++)
        vals[i].p = NULL, vals[i].n = 0;
    if (!obj.p)   /* an absent member (e.g. an event without args) */
        return 0;
    /* the keys not yet found, when they are words (at most 16 of them) */
    const int words = ks->words;
    unsigned unfound = words ? (unsigned)((1ULL << nkeys) - 1) : 0;
#if defined(__SSE2__)
    const int vector = words && vp_json_vector16;
#endif
    size_t found = 0;
    const char *p = obj.p, *end = obj.p + obj.n;
    p = vp_json_ws(p, end);
    if (p == end || *p != '{')
        return 0;
    p = vp_json_ws(p + 1, end);
    while (p < end && *p == '"') {
#if defined(__SSE2__)
        if (vector) {
            p = kineto_members(ks, p, end, vals, &unfound, &found);
            if (found == nkeys || !(p < end && *p == '"'))
                break;
        }
#endif
        vp_span k, v;
        unsigned fl = 0;
        size_t hit = nkeys;
        const char *q;
        int checked = words && end - p >= 16;
        if (checked) {
            uint64_t a = vp_json_load64(p), b = vp_json_load64(p + 8);
            for (unsigned m = unfound; m; m &= m - 1) {
                unsigned i = (unsigned)__builtin_ctz(m);
                if (name_is_key(ks, i, p, end, a, b)) {
                    hit = i;
                    break;
                }
            }
        }
        if (hit < nkeys)
            p += ks->len[hit] + 2;
        else if (!(p = name_scan(p, end, &k, &fl)))
            break;
        p = vp_json_ws(p, end);
        if (p == end || *p != ':')
            break;
        /* vp_json_skip's number case without its call: most args values
         * are numbers (ids, sizes, counters) */
        p = vp_json_ws(p + 1, end);
        q = p;
        if (p < end && ((unsigned)(*p - '0') < 10 || *p == '-')) {
            if (vp_json_skip_number(&q, end, &v) != VP_JSON_OK)
                break;
            p = q;
        } else if (!(p = value_skip(p, end, &v))) {
            break;
        }
        if (hit == nkeys && (!checked || (fl & VP_STR_ESCAPED)))
            hit = name_key(ks, vals, k, fl);
        if (hit < nkeys) {
            vals[hit] = v;
            if (++found == nkeys)
                break;
            unfound &= ~(1u << (hit & 31));
        }
        p = vp_json_ws(p, end);
        if (p == end || *p != ',')
            break;
        p = vp_json_ws(p + 1, end);
    }
    return (int)found;
}

int vp_json_get_keyset(vp_span obj, const vp_json_keyset *ks, vp_span *vals)
{
    return get_members(obj, ks, vals);
}

int vp_json_get_many(vp_span obj, const char *const *keys, size_t nkeys, vp_span *vals)
{
    /* The keys' lengths, measured once; no words (building them costs
     * more than one object's members save: callers that ask often keep a
     * vp_json_keyset). */
    vp_json_keyset ks;
    ks.keys = keys;
    ks.words = 0;
    ks.n = nkeys;
    for (size_t i = 0; i < nkeys && i < VP_JSON_KEYSET_MAX; i++)
        ks.len[i] = strlen(keys[i]);
    return get_members(obj, &ks, vals);
}

int vp_json_get(vp_span obj, const char *key, vp_span *val)
{
    return vp_json_get_many(obj, &key, 1, val);
}

/* Strips the quotes of a string span. */
static vp_span unquote(vp_span v)
{
    if (vp_json_is_string(v)) {
        v.p++;
        v.n -= 2;
    }
    return v;
}

static int decimal_to_int(vp_span v, int scale, int64_t *out, int *inexact);

/* The value of eight ASCII digits loaded little-endian (the first digit
 * in the lowest byte): pairs of digits into bytes, then the four pairs
 * weighted and summed in the high half of two multiplications. */
static inline uint64_t eight_digits(uint64_t w)
{
    const uint64_t lo = 0x000000FF000000FFULL;
    w -= 0x3030303030303030ULL;
    w = w * 10 + (w >> 8);
    return (((w & lo) * (100 + (1000000ULL << 32))) +
            (((w >> 16) & lo) * (1 + (10000ULL << 32)))) >> 32;
}

/* vp_json_int past its common form: signs, hex, quotes, decimals,
 * exponents, overflow.  Apart, so that the common form needs no frame. */
static __attribute__((noinline)) int int_general(vp_span v, int64_t *out)
{
    v = unquote(v);
    if (!v.p)
        return -1;
    const char *p = v.p, *end = v.p + v.n;
    if (p == end)
        return -1;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        uint64_t x = 0;
        p += 2;
        if (end - p > 16)
            return -1;
        for (; p < end; p++) {
            int d;
            char c = *p;
            if (c >= '0' && c <= '9')
                d = c - '0';
            else if (c >= 'a' && c <= 'f')
                d = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F')
                d = c - 'A' + 10;
            else
                return -1;
            x = x * 16 + (uint64_t)d;
        }
        if (x > (uint64_t)INT64_MAX)
            return -1;
        *out = neg ? -(int64_t)x : (int64_t)x;
        return 0;
    }
    const char *digits = p;
    uint64_t x = 0;
    /* 18 digits cannot overflow (10^18 < 2^63): no check until then */
    const char *safe = end - p > 18 ? p + 18 : end;
    /* eight digits at a time while eight remain: sizes and addresses
     * ([memory] events) have ten to fifteen */
    while (safe - p >= 8) {
        uint64_t w = vp_json_load64(p);
        if (vp_json_digit_run8(w) != 8)
            break;
        x = x * 100000000u + eight_digits(w);
        p += 8;
    }
    for (; p < safe && (unsigned)(*p - '0') < 10; p++)
        x = x * 10 + (uint64_t)(*p - '0');
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, (uint64_t)(*p - '0'), &x))
            return -1;
    }
    if (p == digits)
        return -1;
    if (p < end) {
        /* 7.0 and 1e3 are integers, 7.5 and 7.0004 are not: the exact
         * decimal path decides. */
        int inexact;
        int64_t y;
        if (decimal_to_int(v, 0, &y, &inexact) != 0 || inexact)
            return -1;
        *out = y;
        return 0;
    }
    if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? (int64_t)(0 - x) : (int64_t)x;
    return 0;
}

int vp_json_int(vp_span v, int64_t *out)
{
    /* Most are 1-16 plain digits (ids, sizes, counters), which cannot
     * overflow: read without int_general's checks, eight at a time from
     * eight (the last eight, then the first ones before them). */
    if (v.n - 1 < 16 && (unsigned)(v.p[0] - '0') < 10) {
        const char *p = v.p;
        size_t n = v.n;
        if (n >= 8) {
            uint64_t lo = vp_json_load64(p + n - 8);
            if (vp_json_digit_run8(lo) == 8) {
                uint64_t x = eight_digits(lo);
                if (n > 8) {
                    uint64_t hi = vp_json_load64(p);
                    if (vp_json_digit_run8(hi) < n - 8)
                        return int_general(v, out);
                    x += vp_json_digits_value(hi, (unsigned)(n - 8)) * 100000000u;
                }
                *out = (int64_t)x;
                return 0;
            }
        } else {
            uint64_t x = 0;
            size_t i = 0;
            for (; i < n && (unsigned)(p[i] - '0') < 10; i++)
                x = x * 10 + (uint64_t)(p[i] - '0');
            if (i == n) {
                *out = (int64_t)x;
                return 0;
            }
        }
    }
    return int_general(v, out);
}

int vp_json_double(vp_span v, double *out)
{
    v = unquote(v);
    char buf[64];
    if (v.n == 0 || v.n >= sizeof buf)
        return -1;
    memcpy(buf, v.p, v.n);
    buf[v.n] = 0;
    char *e;
    double d = strtod(buf, &e);
    if (*e || !isfinite(d))
        return -1;
    *out = d;
    return 0;
}

/* Decimal text times 10^scale to an integer, rounded half away from zero;
 * *inexact says whether any non-zero digit was rounded off. */
static int decimal_to_int(vp_span v, int scale, int64_t *out, int *inexact)
{
    v = unquote(v);
    if (!v.p)
        return -1;
    const char *p = v.p, *end = v.p + v.n;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    /* Significant digits (leading zeros dropped) and where the point is. */
    char dig[40];
    int nd = 0, point = 0, seen_digit = 0, dropped = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        seen_digit = 1;
        if (nd == 0 && *p == '0')
            continue;
        if (nd < (int)sizeof dig)
            dig[nd++] = *p;
        else
            return -1;  /* more than 40 integer digits cannot fit */
        point++;
    }
    if (p < end && *p == '.') {
        p++;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            seen_digit = 1;
            if (nd == 0 && *p == '0') {
                point--;
                continue;
            }
            if (nd < (int)sizeof dig)
                dig[nd++] = *p;  /* digits past the 40th cannot reach a nanosecond */
            else if (*p != '0')
                dropped = 1;
        }
    }
    if (!seen_digit)
        return -1;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < end && (*p == '-' || *p == '+'))
            eneg = *p++ == '-';
        int e = 0;
        const char *ed = p;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (e < 10000)
                e = e * 10 + (*p - '0');
        if (p == ed)
            return -1;
        point += eneg ? -e : e;
    }
    if (p != end)
        return -1;
    /* value = 0.dig * 10^point us = 0.dig * 10^(point+scale) ns (scale 3):
     * the integer nanoseconds are the first point+scale digits, the next
     * one rounds. */
    int keep = point + scale;
    *inexact = dropped;
    for (int i = keep < 0 ? 0 : keep; i < nd; i++)
        if (dig[i] != '0')
            *inexact = 1;
    uint64_t x = 0;
    for (int i = 0; i < keep; i++) {
        uint64_t d = i < nd ? (uint64_t)(dig[i] - '0') : 0;
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, d, &x))
            return -1;
    }
    if (keep >= 0 && keep < nd && dig[keep] >= '5')
        x++;
    if (x > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)x : (int64_t)x;
    return 0;
}


/* The forms Kineto writes, [-]digits[.digits] with at most 16 integer
 * digits, straight to nanoseconds: where the form stopped (the caller
 * decides whether the number ended there), or NULL when it is not one of
 * these forms; decimal_to_int gives the same answer on them.  *out is
 * written even when the caller then refuses the form: pass a temporary.
 * Digit runs are read a word at a time where eight bytes are left before
 * end (a timestamp's 16 integer digits in two words, its fraction in
 * one), a byte at a time after that. */
static inline const char *plain_us_to_ns(const char *p, const char *end, int64_t *out)
{
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    const char *digits = p;
    uint64_t x = 0;
    if (end - p >= 8) {
        uint64_t w = vp_json_load64(p);
        unsigned n = vp_json_digit_run8(w);
        if (n == 0)
            return NULL;
        x = vp_json_digits_value(w, n);
        p += n;
        if (n == 8 && end - p >= 8) {
            w = vp_json_load64(p);
            n = vp_json_digit_run8(w);
            if (n) {
                x = x * vp_json_pow10[n] + vp_json_digits_value(w, n);
                p += n;
            }
        }
    }
    /* Near end, and past 16 digits (then wraps, refused below). */
    while (p < end && (unsigned)(*p - '0') < 10)
        x = x * 10 + (uint64_t)(*p++ - '0');
    /* 16 digits hold today's absolute microseconds; the bound keeps
     * x * 1000 + 1000 inside int64. */
    if (p == digits || p - digits > 16 || x > VP_JSON_US_MAX)
        return NULL;
    /* The first three decimals, and half away from zero: the first
     * dropped digit decides. */
    uint64_t frac = 0;
    if (p < end && *p == '.') {
        p++;
        int nf = 0;
        if (end - p >= 8) {
            uint64_t w = vp_json_load64(p);
            unsigned n = vp_json_digit_run8(w);
            if (n == 0) {
                /* "7." */
            } else if (n <= 3) {
                frac = vp_json_digits_value(w, n) * vp_json_pow10[3 - n];
            } else {
                frac = vp_json_digits_value(w, 3) + (((w >> 24) & 0xff) >= '5');
            }
            p += n;
            nf = n < 8 ? 3 : 4;   /* only more digits can follow eight */
        }
        for (; p < end && (unsigned)(*p - '0') < 10; p++, nf++) {
            if (nf < 3)
                frac = frac * 10 + (uint64_t)(*p - '0');
            else if (nf == 3 && *p >= '5')
                frac++;
        }
        for (int i = nf; i < 3; i++)
            frac *= 10;
    }
    x = x * 1000 + frac;
    *out = neg ? -(int64_t)x : (int64_t)x;
    return p;
}

int vp_json_us_to_ns(vp_span v, int64_t *out)
{
    int64_t ns;
    if (v.p && v.n && v.p[0] != '"' && plain_us_to_ns(v.p, v.p + v.n, &ns) == v.p + v.n) {
        *out = ns;
        return 0;
    }
    int inexact;
    return decimal_to_int(v, 3, out, &inexact);
}

int vp_json_us_to_ns_at_general(const char **pp, const char *end, int64_t *out)
{
    /* The number ends where vp_json_skip would end it: at a byte that
     * cannot be part of a number or literal, before the end. */
    int64_t ns;
    const char *q = plain_us_to_ns(*pp, end, &ns);
    if (!q || q == end || is_scalar_char((unsigned char)*q))
        return 0;
    *out = ns;
    *pp = q;
    return 1;
}

static void put_utf8(vp_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    vp_buf_append(b, u, n);
}

#define REPLACEMENT 0xFFFD

/* Length of a valid UTF-8 sequence at p, or 0 when it is not one. */
static size_t utf8_valid(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    uint32_t cp, min;
    if (c < 0xC2 || c > 0xF4)
        return 0;
    if (c < 0xE0) {
        n = 2;
        cp = c & 0x1F;
        min = 0x80;
    } else if (c < 0xF0) {
        n = 3;
        cp = c & 0x0F;
        min = 0x800;
    } else {
        n = 4;
        cp = c & 0x07;
        min = 0x10000;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

static int hex4(const char *p, const char *end, uint32_t *out)
{
    if (end - p < 4)
        return -1;
    uint32_t x = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        x <<= 4;
        if (c >= '0' && c <= '9')
            x |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            x |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            x |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = x;
    return 0;
}

size_t vp_json_unescape(vp_span s, vp_buf *b)
{
    s = unquote(s);
    if (!s.p)
        s.p = "", s.n = 0;   /* an absent value decodes as empty */
    const char *p = s.p, *end = s.p + s.n;
    size_t bad = 0;
    b->len = 0;
    vp_buf_reserve(b, s.n + 1);
    while (p < end) {
        const char *q = p;
        while (q < end && *q != '\\' && (unsigned char)*q < 0x80)
            q++;
        vp_buf_append(b, p, (size_t)(q - p));
        p = q;
        if (p == end)
            break;
        if (*p != '\\') {
            size_t n = utf8_valid((const unsigned char *)p, (const unsigned char *)end);
            if (n) {
                vp_buf_append(b, p, n);
                p += n;
            } else {
                put_utf8(b, REPLACEMENT);
                bad++;
                p++;
            }
            continue;
        }
        if (p + 1 >= end) {
            put_utf8(b, REPLACEMENT);
            bad++;
            break;
        }
        char e = p[1];
        p += 2;
        switch (e) {
        case '"': vp_buf_putc(b, '"'); break;
        case '\\': vp_buf_putc(b, '\\'); break;
        case '/': vp_buf_putc(b, '/'); break;
        case 'b': vp_buf_putc(b, '\b'); break;
        case 'f': vp_buf_putc(b, '\f'); break;
        case 'n': vp_buf_putc(b, '\n'); break;
        case 'r': vp_buf_putc(b, '\r'); break;
        case 't': vp_buf_putc(b, '\t'); break;
        case 'u': {
            uint32_t cp;
            if (hex4(p, end, &cp) != 0) {
                put_utf8(b, REPLACEMENT);
                bad++;
                break;
            }
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, end, &lo) == 0 &&
                    lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                } else {
                    cp = REPLACEMENT;
                    bad++;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = REPLACEMENT;
                bad++;
            }
            put_utf8(b, cp);
            break;
        }
        default:
            /* An unknown escape: keep the character, as lenient readers do. */
            put_utf8(b, REPLACEMENT);
            bad++;
            break;
        }
    }
    vp_buf_cstr(b);
    return bad;
}
