/* Small helpers every module uses: checked allocation, a growable byte
 * buffer, and a string-keyed hash map. */
#ifndef VPROF_UTIL_H
#define VPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Allocation failure is not an input error: it aborts with a message. */
void *vp_malloc(size_t n);
void *vp_calloc(size_t count, size_t size);
void *vp_realloc(void *p, size_t n);
char *vp_strdup(const char *s);
char *vp_strndup(const char *s, size_t n);

/* Growable byte buffer; data is always NUL-terminated when len > 0 or
 * after vp_buf_cstr. */
typedef struct vp_buf {
    char *data;
    size_t len, cap;
} vp_buf;

void vp_buf_reserve(vp_buf *b, size_t extra);
void vp_buf_append(vp_buf *b, const void *p, size_t n);
void vp_buf_putc(vp_buf *b, char c);
void vp_buf_printf(vp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends v in decimal, as printf's "%llu" and "%lld" write it, without
 * printf's cost (merge writes one or more numbers per event). */
void vp_buf_u64(vp_buf *b, uint64_t v);
void vp_buf_i64(vp_buf *b, int64_t v);
const char *vp_buf_cstr(vp_buf *b);
void vp_buf_free(vp_buf *b);

/* Open-addressing map from byte strings to a caller-owned pointer.  Keys
 * are copied into the map's own storage. */
typedef struct vp_strmap vp_strmap;

vp_strmap *vp_strmap_new(void);
void vp_strmap_free(vp_strmap *m);
/* Returns the slot of key, inserting it with value NULL when absent
 * (*inserted says which). The slot stays valid until the next insert. */
void **vp_strmap_upsert(vp_strmap *m, const char *key, size_t len, int *inserted);
void *vp_strmap_get(const vp_strmap *m, const char *key, size_t len);
size_t vp_strmap_count(const vp_strmap *m);
/* Iteration in insertion order: i from 0 to count-1. */
const char *vp_strmap_key(const vp_strmap *m, size_t i, size_t *len);
void *vp_strmap_value(const vp_strmap *m, size_t i);

uint64_t vp_hash_bytes(const void *p, size_t n);

/* The characters of n bytes of UTF-8: the bytes that are not continuation
 * bytes (10 in the top two bits).  Error columns and display widths count
 * these; invalid sequences count as what their bytes say. */
size_t vp_utf8_chars(const char *p, size_t n);

/* Sorts n items by merging the ascending runs they hold, pairwise, pass
 * after pass (log2 runs passes): descends(ctx, i) says whether item i
 * comes before item i - 1 (a run starts there); merge(ctx, lo, mid, hi)
 * merges the sorted items [lo, mid) and [mid, hi) into place (stable when
 * it keeps the first run's first on ties). */
void vp_sort_runs(size_t n, int (*descends)(void *ctx, size_t i),
                  void (*merge)(void *ctx, size_t lo, size_t mid, size_t hi), void *ctx);

#endif
