/* The byte-class scans under the JSON module, many bytes at a time: one
 * implementation per instruction set (scalar, SSE2, AVX2, NEON), chosen once at
 * start-up, all giving the same answers.  Private to src/json/. */
#ifndef VPROF_JSON_SCAN_H
#define VPROF_JSON_SCAN_H

#include <stddef.h>

#include "vprof/json.h"

#if defined(__x86_64__)
#define VP_SCAN_X86 1
#include <immintrin.h>
#else
#define VP_SCAN_X86 0
#endif

#if defined(__aarch64__)
#define VP_SCAN_NEON 1
#include <arm_neon.h>
#else
#define VP_SCAN_NEON 0
#endif

typedef struct vp_scan_ops {
    /* The first '"' or '\\' in [p, limit), or limit; ORs into *high a
     * non-zero value when a byte >= 0x80 comes before it. */
    const char *(*string)(const char *p, const char *limit, unsigned *high);
    /* The first byte in [p, end) that is not JSON whitespace, or end. */
    const char *(*ws)(const char *p, const char *end);
    /* The end of the object or array at start (past its closing bracket)
     * when json.c's skip_slow would accept it with that span, else NULL
     * (skip_slow then decides, and words any error).  NULL where the
     * variant has no bitmap walk (scalar, SSE2). */
    const char *(*skip_container)(const char *start, const char *end, int depth);
    /* vp_json_facts_scan's scan, with this variant's walk; NULL where
     * there is no walk. */
    void (*facts)(vp_json_facts *st, const char *data, size_t len, vp_buf *out);
    const char *name;
    int vector;   /* SSE2 or better: callers may inline a 16-byte test (x86 only) */
} vp_scan_ops;

extern vp_scan_ops vp_scan;

/* skip.c: the bitmap walk, one per instruction set. */
const char *vp_skip_container_avx2(const char *start, const char *end, int depth);
const char *vp_skip_container_neon(const char *start, const char *end, int depth);
void vp_json_facts_avx2(vp_json_facts *st, const char *data, size_t len, vp_buf *out);
void vp_json_facts_neon(vp_json_facts *st, const char *data, size_t len, vp_buf *out);

#endif
