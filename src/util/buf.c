/* Growable byte buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/util.h"

/* Makes room for extra more bytes plus the terminating NUL. */
void vp_buf_reserve(vp_buf *b, size_t extra)
{
    size_t need, cap;

    if (extra > (size_t)-1 - b->len - 1) {
        fputs("vprof: out of memory\n", stderr);
        abort();
    }
    need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    /* Doubling keeps appends amortised O(1). */
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > (size_t)-1 / 2 ? need : cap * 2;
    b->data = vp_realloc(b->data, cap);
    b->cap = cap;
}

void vp_buf_append(vp_buf *b, const void *p, size_t n)
{
    vp_buf_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void vp_buf_putc(vp_buf *b, char c)
{
    vp_buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void vp_buf_u64(vp_buf *b, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    vp_buf_append(b, digits + sizeof digits - n, n);
}

void vp_buf_i64(vp_buf *b, int64_t v)
{
    if (v < 0)
        vp_buf_putc(b, '-');
    /* the magnitude as unsigned: -INT64_MIN does not fit */
    vp_buf_u64(b, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void vp_buf_printf(vp_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    /* Try the space already there first: most calls fit. */
    vp_buf_reserve(b, 64);
    va_start(ap, fmt);
    n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        /* Only an invalid format can get here; keep the buffer as it was. */
        b->data[b->len] = '\0';
        return;
    }
    if ((size_t)n >= b->cap - b->len) {
        vp_buf_reserve(b, (size_t)n);
        va_start(ap, fmt);
        vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

const char *vp_buf_cstr(vp_buf *b)
{
    vp_buf_reserve(b, 0);
    b->data[b->len] = '\0';
    return b->data;
}

void vp_buf_free(vp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
