/* Chrome-trace writing helpers (see vprof/trace_writer.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/trace_writer.h"

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when it is not one:
 * overlong forms, surrogates and code points above U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    unsigned cp = c & (0x3F >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void vp_tw_string(vp_buf *out, const char *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p, *end = s + n;
    vp_buf_reserve(out, n + 2);
    vp_buf_putc(out, '"');
    while (s < end) {
        const unsigned char *q = s;
        while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
            q++;
        vp_buf_append(out, s, (size_t)(q - s));
        s = q;
        if (s == end)
            break;
        unsigned c = *s;
        if (c == '"' || c == '\\') {
            vp_buf_putc(out, '\\');
            vp_buf_putc(out, (char)c);
            s++;
        } else if (c < 0x20) {
            static const char short_esc[] = "btnvfr";
            if (c >= '\b' && c <= '\r' && c != '\v') {
                vp_buf_putc(out, '\\');
                vp_buf_putc(out, short_esc[c - '\b']);
            } else {
                vp_buf_printf(out, "\\u%04x", c);
            }
            s++;
        } else {
            size_t len = utf8_len(s, end);
            if (len) {
                vp_buf_append(out, s, len);
                s += len;
            } else {
                vp_buf_append(out, "\xEF\xBF\xBD", 3);
                s++;
            }
        }
    }
    vp_buf_putc(out, '"');
}

void vp_tw_us(vp_buf *out, int64_t ns)
{
    /* Work on the magnitude as unsigned: -INT64_MIN does not fit. */
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    unsigned frac = (unsigned)(mag % 1000);
    if (ns < 0)
        vp_buf_putc(out, '-');
    vp_buf_u64(out, mag / 1000);
    if (frac) {
        char f[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10)};
        vp_buf_append(out, f, sizeof f);
    }
}

static int cmp_edit(const void *a, const void *b)
{
    const vp_tw_edit *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

int vp_tw_splice(vp_sink *s, vp_span raw, vp_tw_edit *edits, size_t n)
{
    /* a few edits, in place (an insertion sort: the order qsort gives
     * distinct places, and equal ones kept in the caller's order) */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cmp_edit(&edits[j - 1], &edits[j]) > 0; j--) {
            vp_tw_edit t = edits[j];
            edits[j] = edits[j - 1];
            edits[j - 1] = t;
        }
    const char *p = raw.p;
    for (size_t i = 0; i < n; i++) {
        vp_sink_write(s, p, (size_t)(edits[i].at - p));
        vp_sink_write(s, edits[i].text, edits[i].text_len);
        p = edits[i].at + edits[i].len;
    }
    return vp_sink_write(s, p, (size_t)(raw.p + raw.n - p));
}

void vp_tw_rank_id(vp_span id, long rank, vp_buf *out)
{
    vp_span digits = id;
    int quoted = vp_json_is_string(id);
    if (quoted) {
        digits.p++;
        digits.n -= 2;
    }
    /* At most 10 digits and no leading zero (unless "0"): then the text is
     * the canonical form of a value below 10^10, and the value check
     * below decides. */
    int integer = digits.n > 0 && digits.n <= 10 && !(digits.n > 1 && digits.p[0] == '0');
    uint64_t v = 0;
    for (size_t i = 0; integer && i < digits.n; i++) {
        if (digits.p[i] < '0' || digits.p[i] > '9')
            integer = 0;
        else
            v = v * 10 + (uint64_t)(digits.p[i] - '0');
    }
    if (integer && v < (UINT64_C(1) << 32) && rank >= 0 && rank < (1L << 21)) {
        uint64_t nv = ((uint64_t)rank << 32) + v;
        if (quoted)
            vp_buf_putc(out, '"');
        vp_buf_u64(out, nv);
        if (quoted)
            vp_buf_putc(out, '"');
        return;
    }
    char prefix[32];
    int plen = snprintf(prefix, sizeof prefix, "r%ld:", rank);
    vp_buf b = {0};
    vp_buf_append(&b, prefix, (size_t)plen);
    if (quoted) {
        vp_buf tmp = {0};
        vp_json_unescape(id, &tmp);
        vp_buf_append(&b, tmp.data, tmp.len);
        vp_buf_free(&tmp);
    } else {
        vp_buf_append(&b, id.p, id.n);
    }
    vp_tw_string(out, b.data, b.len);
    vp_buf_free(&b);
}
