/* Byte-class scans for the JSON module (see scan.h): scalar, SSE2 and
 * AVX2 on x86-64, NEON on arm64.  Every scan reads only inside [p, end): the vector loops stop a
 * full vector before the end and the scalar code finishes the tail, so
 * no load ever crosses the caller's bound (ASan and valgrind see no
 * over-read, and a chunk at the end of a mapping is safe). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "vprof/json.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the word-at-a-time string scan assumes a little-endian machine"
#endif

#define VP_X86 VP_SCAN_X86

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

static inline int is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Bytes of x equal to the byte in b (b = byte * ONES): the lowest set
 * high bit is exact; higher ones may be false positives. */
static inline uint64_t match_byte(uint64_t x, uint64_t b)
{
    uint64_t y = x ^ b;
    return (y - ONES) & ~y & HIGHS;
}

static const char *string_scalar(const char *p, const char *limit, unsigned *high)
{
    uint64_t h = 0;
    while (p + 8 <= limit) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t m = match_byte(w, '"' * ONES) | match_byte(w, '\\' * ONES);
        if (m) {
            unsigned idx = (unsigned)__builtin_ctzll(m) >> 3;
            if (idx)
                h |= w & (HIGHS >> (64 - 8 * idx));
            *high |= h != 0;
            return p + idx;
        }
        h |= w & HIGHS;
        p += 8;
    }
    while (p < limit && *p != '"' && *p != '\\') {
        h |= (unsigned char)*p & 0x80;
        p++;
    }
    *high |= h != 0;
    return p;
}

static const char *ws_scalar(const char *p, const char *end)
{
    while (p < end && is_ws((unsigned char)*p))
        p++;
    return p;
}

#if VP_X86
static const char *string_sse2(const char *p, const char *limit, unsigned *high)
{
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    __m128i seen = _mm_setzero_si128();
    while (limit - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)));
        if (m) {
            unsigned before = (1u << __builtin_ctz(m)) - 1;
            *high |= ((unsigned)_mm_movemask_epi8(_mm_or_si128(seen, x)) & before) |
                     (unsigned)_mm_movemask_epi8(seen);
            return p + __builtin_ctz(m);
        }
        seen = _mm_or_si128(seen, x);
        p += 16;
    }
    *high |= (unsigned)_mm_movemask_epi8(seen);
    return string_scalar(p, limit, high);
}

/* Whitespace bytes of x, one bit each. */
static inline unsigned ws_mask_sse2(__m128i x)
{
    __m128i w = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))));
    return (unsigned)_mm_movemask_epi8(w);
}

static const char *ws_sse2(const char *p, const char *end)
{
    while (end - p >= 16) {
        unsigned m = ~ws_mask_sse2(_mm_loadu_si128((const __m128i *)(const void *)p)) & 0xffff;
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
    return ws_scalar(p, end);
}

__attribute__((target("avx2"))) static const char *string_avx2(const char *p, const char *limit,
                                                               unsigned *high)
{
    const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\');
    __m256i seen = _mm256_setzero_si256();
    while (limit - p >= 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
        unsigned m = (unsigned)_mm256_movemask_epi8(
            _mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, bslash)));
        if (m) {
            unsigned i = (unsigned)__builtin_ctz(m);
            unsigned before = i ? 0xffffffffu >> (32 - i) : 0;
            *high |= ((unsigned)_mm256_movemask_epi8(_mm256_or_si256(seen, x)) & before) |
                     (unsigned)_mm256_movemask_epi8(seen);
            return p + i;
        }
        seen = _mm256_or_si256(seen, x);
        p += 32;
    }
    *high |= (unsigned)_mm256_movemask_epi8(seen);
    return string_sse2(p, limit, high);
}

__attribute__((target("avx2"))) static const char *ws_avx2(const char *p, const char *end)
{
    while (end - p >= 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i w = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(' ')),
                            _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\n'))),
            _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\r')),
                            _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\t'))));
        unsigned m = ~(unsigned)_mm256_movemask_epi8(w);
        if (m)
            return p + __builtin_ctz(m);
        p += 32;
    }
    return ws_sse2(p, end);
}
#endif

#if VP_SCAN_NEON
/* NEON has no movemask: narrowing each 16-bit lane of a compare result
 * by 4 bits keeps 4 bits per byte, a 64-bit mask whose trailing zeros
 * divided by 4 give the first matching byte. */
static inline uint64_t nibble_mask(uint8x16_t cmp)
{
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(cmp), 4)), 0);
}

static const char *string_neon(const char *p, const char *limit, unsigned *high)
{
    const uint8x16_t quote = vdupq_n_u8('"'), bslash = vdupq_n_u8('\\');
    uint8x16_t seen = vdupq_n_u8(0);
    while (limit - p >= 16) {
        uint8x16_t x = vld1q_u8((const uint8_t *)p);
        uint64_t m = nibble_mask(vorrq_u8(vceqq_u8(x, quote), vceqq_u8(x, bslash)));
        if (m) {
            unsigned i = (unsigned)__builtin_ctzll(m) >> 2;
            uint64_t before = i ? ~0ULL >> (64 - 4 * i) : 0;
            /* Bytes >= 0x80: their top bit, compared as signed < 0. */
            uint64_t h = nibble_mask(vreinterpretq_u8_s8(
                vshrq_n_s8(vreinterpretq_s8_u8(vorrq_u8(seen, x)), 7)));
            uint64_t hs = nibble_mask(vreinterpretq_u8_s8(
                vshrq_n_s8(vreinterpretq_s8_u8(seen), 7)));
            *high |= ((h & before) | hs) != 0;
            return p + i;
        }
        seen = vorrq_u8(seen, x);
        p += 16;
    }
    *high |= vmaxvq_u8(seen) >= 0x80;
    return string_scalar(p, limit, high);
}

static const char *ws_neon(const char *p, const char *end)
{
    while (end - p >= 16) {
        uint8x16_t x = vld1q_u8((const uint8_t *)p);
        uint8x16_t w = vorrq_u8(vorrq_u8(vceqq_u8(x, vdupq_n_u8(' ')), vceqq_u8(x, vdupq_n_u8('\n'))),
                                vorrq_u8(vceqq_u8(x, vdupq_n_u8('\r')), vceqq_u8(x, vdupq_n_u8('\t'))));
        uint64_t m = ~nibble_mask(w);
        if (m)
            return p + (__builtin_ctzll(m) >> 2);
        p += 16;
    }
    return ws_scalar(p, end);
}
#endif

static const vp_scan_ops variants[] = {
    {string_scalar, ws_scalar, NULL, NULL, "scalar", 0},
#if VP_X86
    {string_sse2, ws_sse2, NULL, NULL, "sse2", 1},
    {string_avx2, ws_avx2, vp_skip_container_avx2, vp_json_facts_avx2, "avx2", 1},
#endif
#if VP_SCAN_NEON
    {string_neon, ws_neon, vp_skip_container_neon, vp_json_facts_neon, "neon", 0},
#endif
};

vp_scan_ops vp_scan = {string_scalar, ws_scalar, NULL, NULL, "scalar", 0};
_Bool vp_json_vector16 = 0;

static int cpu_has(const char *name)
{
#if VP_X86
    if (strcmp(name, "sse2") == 0)
        return 1;   /* part of x86-64 */
    if (strcmp(name, "avx2") == 0) {
        __builtin_cpu_init();
        /* and carry-less multiplication and BMI1 (blsr, tzcnt: three
         * instructions fewer a token of the walk), which the bitmap walk
         * uses (every AVX2 CPU has both) */
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
               __builtin_cpu_supports("bmi");
    }
#endif
#if VP_SCAN_NEON
    if (strcmp(name, "neon") == 0)
        return 1;   /* Advanced SIMD is part of every AArch64 CPU */
#endif
    return strcmp(name, "scalar") == 0;
}

int vp_json_set_scanner(const char *name)
{
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        if (strcmp(variants[i].name, name) == 0 && cpu_has(name)) {
            vp_scan = variants[i];
            vp_json_vector16 = variants[i].vector != 0;
            return 0;
        }
    return -1;
}

const char *vp_json_scanner(void)
{
    return vp_scan.name;
}

/* Chosen before main: the best variant the CPU has, unless VPROF_SIMD
 * names one (CI runs every test under each). */
__attribute__((constructor)) static void choose_scanner(void)
{
    const char *want = getenv("VPROF_SIMD");
    if (want && *want && strcmp(want, "auto") != 0 && vp_json_set_scanner(want) == 0)
        return;
    for (size_t i = sizeof variants / sizeof variants[0]; i-- > 0;)
        if (vp_json_set_scanner(variants[i].name) == 0)
            return;
}
