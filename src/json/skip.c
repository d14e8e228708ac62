/* Skipping an object or array by a bitmap walk (scan.h's skip_container):
 * 64 bytes at a time, the bytes are classified into bitmaps (quotes,
 * backslashes, whitespace, structural characters, bytes that no JSON text
 * holds outside a string); the backslash runs and quotes give the bytes
 * inside strings; then one walk over the structural positions (brackets,
 * ':', ',', the opening quote of each string, the first byte of each
 * number or literal) checks the grammar that json.c's skip_slow checks.
 *
 * The walk is an acceptor only: it says where the value ends when
 * skip_slow would accept it with that span, and gives up (NULL) on
 * anything else: malformed text, a byte no JSON holds outside a string,
 * nesting past the limit, the end of the buffer before the value's end.
 * skip_slow then runs from the value's start and gives today's
 * answer and error message, so every variant gives the same results.
 *
 * Equivalence with skip_slow: outside strings, skip_slow accepts only
 * whitespace, the six structural characters, quotes and runs of
 * [0-9A-Za-z+.-] (numbers and literals); a byte outside those classes is
 * an error there and makes the walk give up.  So between two structural
 * positions there is only whitespace, string contents or the rest of a
 * number, and the sequence of structural positions is the sequence of
 * tokens skip_slow sees.  Inside strings, a backslash escapes the next
 * byte whatever it is (as vp_json_string_scan does): a quote is escaped
 * when an odd run of backslashes comes before it. */
#include <stdint.h>
#include <string.h>

#include "scan.h"
#include "vprof/json.h"

/* On AVX2 and NEON (two nibble-table lookups classify a vector).  SSE2
 * has no byte shuffle, and classifying by compares cost more than the
 * walk saved (docs/PERFORMANCE.md): it keeps skip_slow, as scalar does. */
#if VP_SCAN_X86 || VP_SCAN_NEON

/* One 64-byte block, a bit per byte (bit i = byte i). */
typedef struct block_masks {
    uint64_t quote, backslash, ws, structural, not_allowed;
} block_masks;

#define EVEN_BITS 0x5555555555555555ULL
#define ODD_BITS 0xAAAAAAAAAAAAAAAAULL

/* The bytes escaped by a backslash: each one after an odd run of
 * backslashes.  *carry is 1 when bit 0 is escaped by a run at the end of
 * the previous block, and is set likewise for the next block.  A run's
 * length is odd when its start and the byte after it differ in parity:
 * adding a run's start bit to the run carries to the byte after it. */
static inline uint64_t escaped_bytes(uint64_t bs, uint64_t *carry)
{
    uint64_t in = *carry;
    if (!(bs | in))
        return 0;
    bs &= ~in;   /* an escaped backslash starts no run */
    uint64_t starts = bs & ~(bs << 1);
    uint64_t after_even = (bs + (starts & EVEN_BITS)) & ~bs;
    uint64_t sum_odd;
    *carry = __builtin_add_overflow(bs, starts & ODD_BITS, &sum_odd);
    uint64_t after_odd = sum_odd & ~bs;
    return in | (after_even & ODD_BITS) | (after_odd & EVEN_BITS);
}

#if VP_SCAN_NEON
/* Bit i set when an odd number of bits at or below i are set (AVX2
 * multiplies instead, below). */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}
#endif

/* First bytes a number or literal may start with in skip_slow. */
static int scalar_first(unsigned c)
{
    return (c - '0') < 10 || c == '-' || c == 't' || c == 'f' || c == 'n' || c == 'N' || c == 'I';
}

/* The grammar as a table: the state (times 256) plus a structural
 * position's byte gives the next state (times 256), or one of the actions
 * below.  States O_* are inside an object, A_* inside an array. */
enum walk_state {
    O_KEY_OR_CLOSE, /* after '{' */
    O_KEY,          /* after ',' */
    O_COLON,        /* after a member name */
    O_VALUE,        /* after ':' */
    O_AFTER,        /* after a member's value */
    A_VALUE_OR_CLOSE, /* after '[' */
    A_VALUE,        /* after ',' */
    A_AFTER,        /* after an element */
    W_STATES
};
/* A push also says what it opens (W_ARRAY) and where it stands (W_IN_ARRAY),
 * so that the walk needs no other copy of the state. */
enum {
    W_PUSH = 0x800,
    W_ARRAY = 1,
    W_IN_ARRAY = 2,
    W_POP = 0xA00,
    W_GIVE_UP = 0xB00
};

static uint16_t walk_table[W_STATES * 256];

__attribute__((constructor)) static void build_walk_table(void)
{
    for (unsigned st = 0; st < W_STATES; st++) {
        int object = st <= O_AFTER;
        int value = st == O_VALUE || st == A_VALUE || st == A_VALUE_OR_CLOSE;
        unsigned after = (object ? O_AFTER : A_AFTER) << 8;
        for (unsigned c = 0; c < 256; c++) {
            unsigned e = W_GIVE_UP;
            if (value && (c == '{' || c == '['))
                e = W_PUSH | (c == '[' ? W_ARRAY : 0) | (object ? 0 : W_IN_ARRAY);
            else if (value && (c == '"' || scalar_first(c)))
                e = after;
            else if ((st == O_KEY_OR_CLOSE || st == O_KEY) && c == '"')
                e = O_COLON << 8;
            else if (st == O_COLON && c == ':')
                e = O_VALUE << 8;
            else if ((st == O_AFTER || st == A_AFTER) && c == ',')
                e = (object ? O_KEY : A_VALUE) << 8;
            else if ((st == O_KEY_OR_CLOSE || st == O_AFTER) && c == '}')
                e = W_POP;
            else if ((st == A_VALUE_OR_CLOSE || st == A_AFTER) && c == ']')
                e = W_POP;
            walk_table[st * 256 + c] = (uint16_t)e;
        }
    }
}

/* The walk over one block's structural positions (tokens); *st, *n and
 * stack (the state to return to after each open bracket) carry over
 * blocks.  Returns the position past the value's closing bracket, NULL to
 * go on with the next block, or gives up by setting *st to W_GIVE_UP.
 * The state is replaced by the table's entry at once, the one copy of
 * it a token costs: an action's entry holds what the action needs. */
__attribute__((always_inline)) static inline const char *
walk_tokens(const char *base, uint64_t tokens, unsigned *st, int *n, uint16_t *stack, int depth)
{
    uint64_t s = *st;   /* 64 bits, as i: no extension a token */
    while (tokens) {
        uint64_t i = (uint64_t)__builtin_ctzll(tokens);
        tokens &= tokens - 1;
        s = walk_table[s + (unsigned char)base[i]];
        if (__builtin_expect(s < W_PUSH, 1))
            continue;
        if (s == W_POP) {
            if (--*n == 0) {
                *st = (unsigned)s;
                return base + i + 1;
            }
            s = stack[*n];
        } else if (s == W_GIVE_UP || depth + *n + 1 > VP_JSON_MAX_DEPTH) {
            *st = W_GIVE_UP;   /* skip_slow words the error */
            return NULL;
        } else {
            stack[(*n)++] = (uint16_t)(s & W_IN_ARRAY ? A_AFTER << 8 : O_AFTER << 8);
            s = s & W_ARRAY ? A_VALUE_OR_CLOSE << 8 : O_KEY_OR_CLOSE << 8;
        }
    }
    *st = (unsigned)s;
    return NULL;
}

/* The walk over the whole value at start ('{' or '['), blocks classified
 * by CLASSIFY; expanded once per instruction set below.  NAME is the
 * scanner's skip_container; NAME##_reach also says, when it gives up,
 * how far it read (the facts scan's budget for walks that fail). */
#define DEFINE_SKIP_CONTAINER(NAME, TARGET, CLASSIFY, PREFIX_XOR)                                          \
    TARGET static inline __attribute__((always_inline)) const char *NAME##_reach(               \
        const char *start, const char *end, int depth, const char **reached)                     \
    {                                                                                            \
        /* Strings longer than vprof's limit are skip_slow's to refuse. */                       \
        const char *limit = (size_t)(end - start) > VP_JSON_MAX_STRING                           \
                                ? start + VP_JSON_MAX_STRING                                     \
                                : end;                                                           \
        uint16_t stack[VP_JSON_MAX_DEPTH];                                                       \
        char last[64];                                                                           \
        /* As if inside an array: the value's bracket is its first token. */                     \
        unsigned state = A_VALUE << 8;                                                           \
        int sp = 0;                                                                              \
        uint64_t esc_carry = 0, string_carry = 0, scalar_carry = 0;                              \
        for (const char *base = start; base < limit; base += 64) {                               \
            /* The last, partial block: a copy padded with spaces, so that                       \
             * no load crosses the buffer's end. */                                              \
            const char *block = base;                                                            \
            if (limit - base < 64) {                                                             \
                memcpy(last, base, (size_t)(limit - base));                                      \
                memset(last + (limit - base), ' ', (size_t)(64 - (limit - base)));               \
                block = last;                                                                    \
            }                                                                                    \
            block_masks m;                                                                       \
            CLASSIFY(block, &m);                                                                 \
            uint64_t quotes = m.quote & ~escaped_bytes(m.backslash, &esc_carry);                 \
            /* Inside a string: from its opening quote up to its closing one. */                 \
            uint64_t inside = PREFIX_XOR(quotes) ^ string_carry;                                 \
            string_carry = (uint64_t)((int64_t)inside >> 63);                                    \
            uint64_t outside = ~inside;                                                          \
            /* Numbers and literals (and bytes no JSON holds, refused below). */                 \
            uint64_t scalar = outside & ~(m.ws | m.structural | m.quote);                        \
            uint64_t scalar_starts = scalar & ~((scalar << 1) | scalar_carry);                   \
            scalar_carry = scalar >> 63;                                                         \
            uint64_t bad = outside & m.not_allowed;                                              \
            uint64_t tokens = (m.structural & outside) | (quotes & inside) | scalar_starts;      \
            if (bad)                                                                             \
                tokens &= (bad & (0 - bad)) - 1;   /* those before the first bad byte */         \
            const char *stop = walk_tokens(block, tokens, &state, &sp, stack, depth);            \
            if (stop)                                                                            \
                return base + (stop - block);                                                    \
            if (state == W_GIVE_UP || bad) {                                                     \
                *reached = limit - base < 64 ? limit : base + 64;                                \
                return NULL;                                                                     \
            }                                                                                    \
        }                                                                                        \
        *reached = limit;                                                                        \
        return NULL;                                                                             \
    }                                                                                            \
    TARGET const char *NAME(const char *start, const char *end, int depth)                      \
    {                                                                                            \
        const char *reached;                                                                     \
        return NAME##_reach(start, end, depth, &reached);                                        \
    }


/* Skip facts (vprof/json.h, vp_json_facts_scan): a scan of a chunk of a
 * stream for the value of each event's "args" member, the one container
 * Kineto writes in an event and most of what the parser would otherwise
 * walk itself.  A candidate is a '{' or '[' right after the eight bytes
 * `"args": ` (Kineto's form) or the seven `"args":` (json.dumps's compact
 * one); the stream's last eight bytes carry to the next chunk, so a
 * candidate at a chunk's start is seen too.  Each candidate is given to
 * the walk above with the arguments vp_json_skip would give it there (the
 * chunk's end, the caller's nesting base); what the walk accepts becomes
 * a fact, and the scan goes on past the value's end.
 *
 * A fact is the walk's own answer, true wherever it stands: the scan
 * needs no idea of the document (strings, depth), and a candidate that is
 * not an event's args (inside a string, in a top-level member) only costs
 * its walk, as the parser never asks at that offset.  Looking for one
 * byte and checking eight before it costs a fifth of tracking strings and
 * depth through every block.  Walks that fail (an args cut by the chunk's
 * end, malformed text) may overlap when candidates nest, so their bytes
 * are counted: past the chunk's length (plus 64 KiB) in failed walks the
 * chunk gets no more facts, and the scan stays linear. */
#define DEFINE_FACTS_SCAN(NAME, TARGET, OPENS, WALK)                                                \
    TARGET void NAME(vp_json_facts *st, const char *data, size_t len, vp_buf *out)                  \
    {                                                                                               \
        const char *p = data, *end = data + len;                                                    \
        uint64_t tail = st->tail;                                                                   \
        int64_t budget = len < UINT32_MAX ? (int64_t)len + 65536 : -1;                              \
        /* Room for the facts and one more, the terminator. */                                      \
        out->len = 0;                                                                               \
        vp_buf_reserve(out, 64 * sizeof(vp_json_fact));                                             \
        size_t nf = 0, capf = (out->cap - 1) / sizeof(vp_json_fact) - 1;                            \
        vp_json_fact *facts = (vp_json_fact *)(void *)out->data;                                    \
        char last[64];                                                                              \
        while (p < end && budget >= 0) {                                                            \
            const char *block = p, *next = p + 64;                                                  \
            if (end - p < 64) {                                                                     \
                size_t n = (size_t)(end - p);                                                       \
                memcpy(last, p, n);                                                                 \
                memset(last + n, ' ', 64 - n);                                                      \
                block = last;                                                                       \
                next = end;                                                                         \
            }                                                                                       \
            uint64_t opens = OPENS(block);                                                          \
            while (opens) {                                                                         \
                const char *at = p + __builtin_ctzll(opens);                                        \
                opens &= opens - 1;                                                                 \
                if (!args_key_at(data, at, tail))                                                   \
                    continue;                                                                       \
                const char *reached = at, *stop = WALK(at, end, st->skip_depth, &reached);          \
                if (!stop) {                                                                        \
                    budget -= reached - at;                                                         \
                    if (budget < 0)                                                                 \
                        break;                                                                      \
                    continue;                                                                       \
                }                                                                                   \
                if (nf == capf) {                                                                   \
                    out->len = nf * sizeof *facts;                                                  \
                    vp_buf_reserve(out, capf * sizeof *facts);                                      \
                    capf = (out->cap - 1) / sizeof *facts - 1;                                      \
                    facts = (vp_json_fact *)(void *)out->data;                                      \
                }                                                                                   \
                facts[nf].off = (uint32_t)(at - data);                                              \
                facts[nf].len = (uint32_t)(stop - at);                                              \
                if (++nf == VP_JSON_FACTS_MAX)                                                      \
                    budget = -1;                                                                    \
                /* on past the value: its bytes hold no other candidate */                          \
                next = stop;                                                                        \
                break;                                                                              \
            }                                                                                       \
            p = next;                                                                               \
        }                                                                                           \
        st->tail = bytes_before(data, len, tail);                                                   \
        /* The terminator: no chunk offset reaches it. */                                           \
        facts[nf].off = UINT32_MAX;                                                                 \
        facts[nf].len = 0;                                                                          \
        out->len = (nf + 1) * sizeof *facts;                                                        \
    }

/* The eight bytes before data + i as one little-endian word (the last
 * byte highest), the stream's earlier bytes (tail) where the chunk has
 * fewer. */
static inline uint64_t bytes_before(const char *data, size_t i, uint64_t tail)
{
    uint64_t w;
    if (i >= 8) {
        memcpy(&w, data + i - 8, 8);
        return w;
    }
    if (i == 0)
        return tail;
    w = 0;
    memcpy(&w, data, i);
    return tail >> (8 * i) | w << (8 * (8 - i));
}

/* Whether the bytes before at are `"args": ` or `"args":`. */
static inline int args_key_at(const char *data, const char *at, uint64_t tail)
{
    static const char spaced[8] = "\"args\": ", compact[8] = "\"args\":";
    uint64_t w = bytes_before(data, (size_t)(at - data), tail), a, b;
    memcpy(&a, spaced, 8);
    memcpy(&b, compact, 8);   /* seven bytes and a zero: the top byte of w >> 8 */
    return w == a || w >> 8 == b;
}

#endif

#if VP_SCAN_X86
/* Whitespace: the byte equals the table's entry at its low nibble. */
#define WS_TABLE 0x20, 0, 0, 0, 0, 0, 0, 0, 0, '\t', '\n', 0, 0, '\r', 0, 0
/* Bytes allowed outside strings (whitespace, structural, quote, number
 * and literal characters): those whose entries in the low-nibble and the
 * high-nibble table share a bit.  Bit 1: high nibble 0, low 9 A D (tab,
 * newline, return); 2: high 2, low 0 2 B C D E (space " + , - .); 4: high
 * 3, low 0-A (digits, ':'); 8: high 4 and 6, low 1-F (A-O, a-o); 16: high
 * 5 and 7, low 0-B and D (P-Z, p-z, [ ] { }). */
#define ALLOWED_LO 0x16, 0x1C, 0x1E, 0x1C, 0x1C, 0x1C, 0x1C, 0x1C, 0x1C, 0x1D, 0x1D, 0x1A, 0x0A, \
                   0x1B, 0x0A, 0x08
#define ALLOWED_HI 0x01, 0, 0x02, 0x04, 0x08, 0x10, 0x08, 0x10, 0, 0, 0, 0, 0, 0, 0, 0

__attribute__((target("avx2"))) static inline void classify32_avx2(const char *p, uint64_t *q,
                                                                   uint64_t *bs, uint64_t *ws,
                                                                   uint64_t *st, uint64_t *na)
{
    const __m256i ws_table = _mm256_setr_epi8(WS_TABLE, WS_TABLE);
    /* Structural: the byte with 0x20 set ('[' -> '{', ']' -> '}') equals
     * the entry; 0x0c and 0x1a match too, but they are not allowed. */
    const __m256i st_table = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ':', '{', ',', '}', 0, 0,
                                              0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ':', '{', ',', '}', 0, 0);
    const __m256i lo_table = _mm256_setr_epi8(ALLOWED_LO, ALLOWED_LO);
    const __m256i hi_table = _mm256_setr_epi8(ALLOWED_HI, ALLOWED_HI);
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), _mm256_set1_epi8(0x0f));
    __m256i allowed = _mm256_and_si256(_mm256_shuffle_epi8(lo_table, x),
                                       _mm256_shuffle_epi8(hi_table, hi));
    *q = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('"')));
    *bs = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\\')));
    *ws = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(ws_table, x), x));
    *st = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
        _mm256_shuffle_epi8(st_table, x), _mm256_or_si256(x, _mm256_set1_epi8(0x20))));
    *na = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(allowed, _mm256_setzero_si256()));
}

__attribute__((target("avx2"))) static inline void classify_avx2(const char *p, block_masks *m)
{
    uint64_t q0, b0, w0, s0, n0, q1, b1, w1, s1, n1;
    classify32_avx2(p, &q0, &b0, &w0, &s0, &n0);
    classify32_avx2(p + 32, &q1, &b1, &w1, &s1, &n1);
    m->quote = q0 | q1 << 32;
    m->backslash = b0 | b1 << 32;
    m->ws = w0 | w1 << 32;
    m->structural = s0 | s1 << 32;
    m->not_allowed = n0 | n1 << 32;
}

/* AVX2 machines have carry-less multiplication and BMI1 (scan.c
 * checks): the prefix XOR is a multiplication by all ones. */
__attribute__((target("avx2,pclmul"))) static inline uint64_t prefix_xor_clmul(uint64_t x)
{
    return (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0));
}

DEFINE_SKIP_CONTAINER(vp_skip_container_avx2, __attribute__((target("avx2,pclmul,bmi"))),
                      classify_avx2, prefix_xor_clmul)

/* For the facts scan: '{' or '[' (the byte with 0x20 set: '[' is '{'
 * less 0x20). */
__attribute__((target("avx2"))) static inline uint64_t opens_avx2(const char *p)
{
    uint64_t m[2];
    for (int h = 0; h < 2; h++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * h));
        __m256i x20 = _mm256_or_si256(x, _mm256_set1_epi8(0x20));
        m[h] = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x20, _mm256_set1_epi8('{')));
    }
    return m[0] | m[1] << 32;
}

DEFINE_FACTS_SCAN(vp_json_facts_avx2, __attribute__((target("avx2,pclmul,bmi"))), opens_avx2,
                  vp_skip_container_avx2_reach)
#endif

#if VP_SCAN_NEON
/* NEON: the same nibble tables as AVX2 (vqtbl1q_u8 looks up 16 bytes;
 * indices are masked to a nibble first), and a 64-bit mask from four
 * compare results: each byte keeps its lane's bit, then pairwise sums. */
static const uint8_t ws_table_neon[16] = {0x20, 0, 0, 0, 0, 0, 0, 0, 0, '\t', '\n', 0, 0, '\r', 0, 0};
static const uint8_t st_table_neon[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ':', '{', ',', '}', 0, 0};
static const uint8_t lo_table_neon[16] = {0x16, 0x1C, 0x1E, 0x1C, 0x1C, 0x1C, 0x1C, 0x1C,
                                          0x1C, 0x1D, 0x1D, 0x1A, 0x0A, 0x1B, 0x0A, 0x08};
static const uint8_t hi_table_neon[16] = {0x01, 0, 0x02, 0x04, 0x08, 0x10, 0x08, 0x10,
                                          0, 0, 0, 0, 0, 0, 0, 0};

static inline uint64_t mask64_neon(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d)
{
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t w = vld1q_u8(weights);
    uint8x16_t ab = vpaddq_u8(vandq_u8(a, w), vandq_u8(b, w));
    uint8x16_t cd = vpaddq_u8(vandq_u8(c, w), vandq_u8(d, w));
    uint8x16_t s = vpaddq_u8(ab, cd);
    s = vpaddq_u8(s, s);
    return vgetq_lane_u64(vreinterpretq_u64_u8(s), 0);
}

static inline void classify_neon(const char *p, block_masks *m)
{
    const uint8x16_t ws_t = vld1q_u8(ws_table_neon), st_t = vld1q_u8(st_table_neon);
    const uint8x16_t lo_t = vld1q_u8(lo_table_neon), hi_t = vld1q_u8(hi_table_neon);
    uint8x16_t q[4], bs[4], ws[4], st[4], na[4];
    for (int i = 0; i < 4; i++) {
        uint8x16_t x = vld1q_u8((const uint8_t *)p + 16 * i);
        uint8x16_t lo = vandq_u8(x, vdupq_n_u8(0x0f));
        q[i] = vceqq_u8(x, vdupq_n_u8('"'));
        bs[i] = vceqq_u8(x, vdupq_n_u8('\\'));
        ws[i] = vceqq_u8(vqtbl1q_u8(ws_t, lo), x);
        st[i] = vceqq_u8(vqtbl1q_u8(st_t, lo), vorrq_u8(x, vdupq_n_u8(0x20)));
        na[i] = vceqq_u8(vandq_u8(vqtbl1q_u8(lo_t, lo), vqtbl1q_u8(hi_t, vshrq_n_u8(x, 4))),
                         vdupq_n_u8(0));
    }
    m->quote = mask64_neon(q[0], q[1], q[2], q[3]);
    m->backslash = mask64_neon(bs[0], bs[1], bs[2], bs[3]);
    m->ws = mask64_neon(ws[0], ws[1], ws[2], ws[3]);
    m->structural = mask64_neon(st[0], st[1], st[2], st[3]);
    m->not_allowed = mask64_neon(na[0], na[1], na[2], na[3]);
}

DEFINE_SKIP_CONTAINER(vp_skip_container_neon, , classify_neon, prefix_xor)

static inline uint64_t opens_neon(const char *p)
{
    uint8x16_t mo[4];
    for (int i = 0; i < 4; i++) {
        uint8x16_t x = vld1q_u8((const uint8_t *)p + 16 * i);
        mo[i] = vceqq_u8(vorrq_u8(x, vdupq_n_u8(0x20)), vdupq_n_u8('{'));
    }
    return mask64_neon(mo[0], mo[1], mo[2], mo[3]);
}

DEFINE_FACTS_SCAN(vp_json_facts_neon, , opens_neon, vp_skip_container_neon_reach)
#endif

int vp_json_facts_init(vp_json_facts *st, int skip_depth)
{
    memset(st, 0, sizeof *st);
    st->scan = vp_scan.facts;
    st->skip_depth = skip_depth;
    return st->scan != NULL;
}
