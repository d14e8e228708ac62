/* JSON scanning over a contiguous buffer: the pieces the streaming trace
 * reader is built from, and lazy queries on the spans it hands out.
 *
 * A span is the raw text of a value as it appears in the input (a string
 * span excludes the quotes and is still escaped).  Nothing is decoded
 * until asked for.  Every function is bounded by [p, end): none reads past
 * end, and the ones that can run out of input say so with VP_JSON_MORE,
 * so that a caller holding only part of a document can fetch more and
 * retry from the value's start. */
#ifndef VPROF_JSON_H
#define VPROF_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vprof/util.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct vp_span {
    const char *p;
    size_t n;
} vp_span;

/* Results of the scanning functions. */
enum {
    VP_JSON_OK = 0,
    VP_JSON_MORE = 1,   /* the buffer ended inside the value */
    VP_JSON_ERR = -1,   /* malformed; *where and the message tell */
};

/* Bounds that no input can exceed (DESIGN.md: every parser is bounded). */
#define VP_JSON_MAX_DEPTH 128
#define VP_JSON_MAX_STRING (16u << 20)

typedef struct vp_json_fail {
    const char *where;  /* the offending byte (or end) */
    char what[160];     /* "expected ',' or '}' after an object member, found 'x'" */
} vp_json_fail;

/* Non-zero when the scanner variant in use is SSE2 or better (set at
 * start-up): the inline functions below may then test 16 bytes at once. */
/* _Bool: the compiler knows stores through int and unsigned pointers
 * (flags, outputs) cannot change it, and need not load it again. */
extern _Bool vp_json_vector16;

/* Whitespace: inline for the common cases of none, one space, and a
 * newline with indentation shorter than 16 bytes; a scan for longer runs. */
const char *vp_json_ws_run(const char *p, const char *end);
static inline const char *vp_json_ws(const char *p, const char *end)
{
    if (p < end && (unsigned char)*p <= ' ') {
        if (*p == ' ' && p + 1 < end && (unsigned char)p[1] > ' ')
            return p + 1;
#if defined(__SSE2__)
        if (vp_json_vector16 && end - p >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
            __m128i w = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')),
                             _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
                _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')),
                             _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))));
            unsigned m = ~(unsigned)_mm_movemask_epi8(w) & 0xffff;
            if (m)
                return p + __builtin_ctz(m);
        }
#endif
        return vp_json_ws_run(p, end);
    }
    return p;
}

/* The scanner variant in use: "scalar", "sse2", "avx2" or "neon", all giving the
 * same results.  Chosen at start-up: the environment variable VPROF_SIMD
 * when it names one the CPU has, else the fastest the CPU has. */
const char *vp_json_scanner(void);
/* Switches variant (tests): 0, or -1 when unknown or not on this CPU. */
int vp_json_set_scanner(const char *name);

/* Fills fail with "expected <expected>, found <the byte at where>" (or
 * "the end of the input") and returns VP_JSON_ERR. */
int vp_json_fail_at(vp_json_fail *fail, const char *where, const char *end, const char *expected);

/* Scans a string whose opening quote is at *p; on OK, *p is past the
 * closing quote and out spans the contents. flags gets VP_STR_ESCAPED when
 * it holds a backslash and VP_STR_NONASCII when it holds a byte >= 0x80. */
enum { VP_STR_ESCAPED = 1, VP_STR_NONASCII = 2 };
int vp_json_string_scan(const char **p, const char *end, vp_span *out, unsigned *flags,
                        vp_json_fail *fail);
/* Inline: most strings (member names, short values) end within 16 bytes,
 * one vector test without a call; the variant's scan does the rest. */
static inline int vp_json_string(const char **pp, const char *end, vp_span *out,
                                 unsigned *flags, vp_json_fail *fail)
{
#if defined(__SSE2__)
    const char *start = *pp + 1;
    if (vp_json_vector16 && end - start >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)start);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
        unsigned high = (unsigned)_mm_movemask_epi8(x);
        /* Names of 16 to 31 bytes (most operators') too, without the call */
        if (!m && end - start >= 32) {
            __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(start + 16));
            m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(y, _mm_set1_epi8('"')),
                                                         _mm_cmpeq_epi8(y, _mm_set1_epi8('\\'))))
                << 16;
            high |= (unsigned)_mm_movemask_epi8(y) << 16;
        }
        if (m) {
            unsigned i = (unsigned)__builtin_ctz(m);
            if (start[i] == '"') {
                out->p = start;
                out->n = i;
                *flags = (high & ((1u << i) - 1)) ? VP_STR_NONASCII : 0;
                *pp = start + i + 1;
                return VP_JSON_OK;
            }
        }
    }
#endif
    /* Through a copy: a caller's cursor whose address no call takes can
     * live in a register (the reader's event loop keeps its own there;
     * vp_json_skip does the same). */
    const char *p = *pp;
    int r = vp_json_string_scan(&p, end, out, flags, fail);
    *pp = p;
    return r;
}

/* A member name and its colon, *p at the opening quote: on OK, key spans
 * the name, *p is just past the ':'.  Inline: the reader runs it for every
 * member of every event. */
static inline int vp_json_member(const char **pp, const char *end, vp_span *key,
                                 unsigned *flags, vp_json_fail *fail)
{
    const char *p = *pp;
    int r = vp_json_string(&p, end, key, flags, fail);
    if (r != VP_JSON_OK)
        return r;
    p = vp_json_ws(p, end);
    if (p == end)
        return VP_JSON_MORE;
    if (*p != ':')
        return vp_json_fail_at(fail, p, end, "':' after a member name");
    *pp = p + 1;
    return VP_JSON_OK;
}


/* Bytes that numbers and literals are made of, [0-9A-Za-z+.-]: 1, else 0. */
extern const uint8_t vp_json_scalar_char[256];

static inline uint64_t vp_json_load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint32_t vp_json_load32(const char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* How many of the eight bytes of w (loaded little-endian: the first byte
 * lowest) are ASCII digits before the first that is not; 8 when all are.
 * A digit's high nibble is 3, and adding 6 keeps it 3; a carry out of a
 * byte >= 0xFA reaches only the bytes after it, past the first non-digit. */
static inline unsigned vp_json_digit_run8(uint64_t w)
{
    uint64_t nd = ((w & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL) |
                  (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL);
    return nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
}

/* The number the first n (1..8) bytes of w spell, when they are digits:
 * shifted to the top so that zero bytes stand for leading zeros (the
 * borrows of the bytes after them go out at the top), then pairs, quads
 * and the eight (SWAR). */
static inline uint64_t vp_json_digits_value(uint64_t w, unsigned n)
{
    w = (w - 0x3030303030303030ULL) << (8 * (8 - n));
    w = w * 10 + (w >> 8);
    return (((w & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
            (((w >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >> 32;
}

static const uint64_t vp_json_pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                          100000000};

/* The largest integer microseconds whose nanoseconds, rounded up, fit
 * in int64 (x * 1000 + 1000 <= INT64_MAX). */
#define VP_JSON_US_MAX 9223372036854774ULL

/* vp_json_us_to_ns (below) on a number at *pp in the buffer, for its
 * common forms only: 1 with *pp past the number, or 0 (nothing moved)
 * when the caller must skip the value and use vp_json_us_to_ns. */
int vp_json_us_to_ns_at_general(const char **pp, const char *end, int64_t *out);

/* vp_json_us_to_ns_at_general for what Kineto writes (1699999999123.456,
 * 12.345, 3): [-], 1-16 integer digits, and '.' with 0-3 decimals, which
 * need no rounding; the same answer, in fewer instructions, or 0 (nothing
 * moved) for the general form to decide.  Only with 32 bytes left, so
 * that the loads (at most 26 bytes on) need no bounds. */
static inline int vp_json_us_to_ns_short(const char **pp, const char *end, int64_t *out)
{
    const char *p = *pp;
    if (end - p < 32)
        return 0;
    int neg = *p == '-';
    p += neg;
    uint64_t w = vp_json_load64(p);
    unsigned n = vp_json_digit_run8(w);
    if (n == 0)
        return 0;
    uint64_t x = vp_json_digits_value(w, n);
    p += n;
    if (n == 8) {
        w = vp_json_load64(p);
        n = vp_json_digit_run8(w);
        if (n) {
            x = x * vp_json_pow10[n] + vp_json_digits_value(w, n);
            p += n;
            if (n == 8 && ((unsigned)(*p - '0') < 10 || x > VP_JSON_US_MAX))
                return 0;
        }
    }
    uint64_t frac = 0;
    if (*p == '.') {
        w = vp_json_load64(p + 1);
        n = vp_json_digit_run8(w);
        if (n > 3)   /* a fourth decimal rounds */
            return 0;
        /* The decimals' values in the low bytes, missing ones zero: a
         * borrow out of the byte after the last digit goes up, masked off. */
        w = (w - 0x303030u) & ((1ULL << (8 * n)) - 1);
        frac = (w & 0xff) * 100 + ((w >> 8) & 0xff) * 10 + (w >> 16);
        p += 1 + n;
    }
    /* It ends where vp_json_skip would end it. */
    if (vp_json_scalar_char[(unsigned char)*p])
        return 0;
    x = x * 1000 + frac;
    *out = neg ? -(int64_t)x : (int64_t)x;
    *pp = p;
    return 1;
}

static inline int vp_json_us_to_ns_at(const char **pp, const char *end, int64_t *out)
{
    return vp_json_us_to_ns_short(pp, end, out) || vp_json_us_to_ns_at_general(pp, end, out);
}

/* vp_json_skip of a number, *pp at its first byte (a digit or '-'): up
 * to the first byte that no number or literal holds.  Inline for pid,
 * tid and ids: a word of digits, then the rest byte by byte. */
static inline int vp_json_skip_number(const char **pp, const char *end, vp_span *out)
{
    const char *p = *pp, *q = p + 1;
    if (end - q >= 8)
        q += vp_json_digit_run8(vp_json_load64(q));
    while (q < end && vp_json_scalar_char[(unsigned char)*q])
        q++;
    if (q == end)
        return VP_JSON_MORE;
    out->p = p;
    out->n = (size_t)(q - p);
    *pp = q;
    return VP_JSON_OK;
}

/* Skips one value starting at *p (after whitespace); on OK *p is just past
 * it and out spans its text. Objects and arrays are checked structurally
 * (brackets match, strings terminate, members separated) without decoding
 * anything; depth counts the enclosing levels already open. */
int vp_json_skip_scan(const char **p, const char *end, int depth, vp_span *out,
                      vp_json_fail *fail);
/* Through a copy, as vp_json_string: the caller's cursor stays in a
 * register. */
static inline int vp_json_skip(const char **pp, const char *end, int depth, vp_span *out,
                               vp_json_fail *fail)
{
    const char *p = *pp;
    int r = vp_json_skip_scan(&p, end, depth, out, fail);
    *pp = p;
    return r;
}

/* Skip facts: vp_json_skip's answers for the values of the events'
 * "args" members in a stream, found ahead of time (by the trace reader's
 * source thread, so that the parser need not walk them).  A stream is
 * scanned chunk after chunk; an object or array written right after
 * `"args": ` or `"args":` that ends inside its chunk gets a fact, unless
 * it lies inside an earlier fact's span, past the chunk's budget for
 * failed walks or its VP_JSON_FACTS_MAX facts, or nests deeper than the
 * walk goes.  A fact {off, len} means exactly: vp_json_skip at data +
 * off, with end data + len_of_chunk and depth skip_depth, returns OK with
 * a span of len bytes.  It is the bitmap walk's own answer there, so it
 * holds wherever it is asked, whatever surrounds it (an "args" key
 * elsewhere, a name ending in an escaped `\"args`): malformed input can
 * only leave facts out.  Only the variants with a walk (AVX2, NEON) make
 * facts; elsewhere vp_json_facts_init returns 0. */
typedef struct vp_json_fact {
    uint32_t off, len;
} vp_json_fact;

typedef struct vp_json_facts vp_json_facts;
struct vp_json_facts {
    void (*scan)(vp_json_facts *st, const char *data, size_t len, vp_buf *out);
    uint64_t tail;     /* the stream's last eight bytes so far, the last highest */
    int skip_depth;
};

/* At most this many facts a chunk (a bound on the memory: 256 KiB). */
#define VP_JSON_FACTS_MAX 32768

/* Starts a stream with the scanner variant in use: 1, or 0 (st unusable)
 * when the variant has no walk. */
int vp_json_facts_init(vp_json_facts *st, int skip_depth);
/* The next chunk (len < 4 GiB) of the stream: out (reused from chunk to
 * chunk) is set to its facts in increasing offset order, followed by a
 * terminator whose off is UINT32_MAX. */
static inline void vp_json_facts_scan(vp_json_facts *st, const char *data, size_t len, vp_buf *out)
{
    st->scan(st, data, len, out);
}

/* Queries on a span holding an object ("{...}"): finds the member named
 * key and spans its value. Returns 1 when found, 0 when not (or the span
 * is not an object). Keys with escapes are compared after decoding. */
int vp_json_get(vp_span obj, const char *key, vp_span *val);

/* Finds several members in one pass over obj: vals[i] spans the value of
 * keys[i], or has p == NULL when absent.  Returns how many were found. */
int vp_json_get_many(vp_span obj, const char *const *keys, size_t nkeys, vp_span *vals);

/* Keys asked for often (a per-event lookup), prepared once: each key as
 * the sixteen bytes its member name starts with (quotes included), so
 * that a member is matched with two masked compares instead of being
 * decoded first; a key longer than fourteen bytes compares the rest of
 * its name apart. */
#define VP_JSON_KEYSET_MAX 16
typedef struct vp_json_keyset {
    const char *const *keys;
    size_t n;
    int words;   /* every key has its bytes below: none has a quote,
                    backslash or control byte */
    size_t len[VP_JSON_KEYSET_MAX];
    uint64_t pat[VP_JSON_KEYSET_MAX][2], mask[VP_JSON_KEYSET_MAX][2];
    /* with words: bit i of by_len[l] when key i is l (< 15) bytes long,
     * of longer when it is longer */
    uint16_t by_len[15], longer;
} vp_json_keyset;

/* keys must outlive ks; beyond VP_JSON_KEYSET_MAX of them, or with a key
 * that is not a word (a quote, backslash or control byte), it compares as
 * vp_json_get_many does. */
void vp_json_keyset_init(vp_json_keyset *ks, const char *const *keys, size_t nkeys);
/* A file's keyset `name` of the keys given (string literals), built
 * before main: the keys array name##_keys, the set, its constructor. */
#define VP_JSON_KEYSET(name, ...)                                                              \
    static const char *const name##_keys[] = {__VA_ARGS__};                                    \
    static vp_json_keyset name;                                                                \
    __attribute__((constructor)) static void name##_build(void)                                \
    {                                                                                          \
        vp_json_keyset_init(&name, name##_keys, sizeof name##_keys / sizeof *name##_keys);   \
    }
/* vp_json_get_many(obj, ks->keys, ks->n, vals), with the same answer. */
int vp_json_get_keyset(vp_span obj, const vp_json_keyset *ks, vp_span *vals);

/* Number conversions of a value span. A string holding a number is
 * accepted too ("1704161511420306.491", "0x1a"). Return 0 on success, -1
 * when the span is not such a number or it does not fit. */
int vp_json_int(vp_span v, int64_t *out);
int vp_json_double(vp_span v, double *out);
/* Decimal microseconds (text) to integer nanoseconds, exactly: digits
 * beyond the nanosecond are rounded half away from zero. Exponents are
 * accepted. */
int vp_json_us_to_ns(vp_span v, int64_t *out);
/* The same on a number at *pp in the buffer: vp_json_us_to_ns_at, above. */

/* Decodes a string value span (with or without its quotes) into buf:
 * escapes resolved, invalid UTF-8 and lone surrogates replaced by U+FFFD.
 * Returns the number of replacements made. */
size_t vp_json_unescape(vp_span s, vp_buf *buf);

/* True when the span is a JSON string (quoted). */
static inline int vp_json_is_string(vp_span v)
{
    return v.n >= 2 && v.p[0] == '"';
}

/* Compares a decoded-or-raw string span to a C string. */
int vp_json_str_eq(vp_span s, const char *lit);

#endif
