/* The byte form of partial results (vprof/part.h, docs/partials.md). */
#include <string.h>

#include "vprof/part.h"
#include "vprof/util.h"

/* Eight bytes, like PNG's: a text-mode transfer that turns \n into \r\n
 * or stops at ^Z damages them visibly. */
static const char magic[8] = "VPART\r\n\x1a";

void vp_put_u64(vp_buf *b, uint64_t v)
{
    /* Straight into the buffer: a partial result is mostly these (each
     * kernel's times), and a copy through vp_buf_append cost twice the
     * encoding. */
    if (b->cap - b->len < 11)
        vp_buf_reserve(b, 10);
    unsigned char *out = (unsigned char *)b->data + b->len, *o = out;
    while (v >= 0x80) {
        *o++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *o++ = (unsigned char)v;
    *o = 0;   /* vp_buf keeps a terminator */
    b->len += (size_t)(o - out);
}

void vp_put_i64(vp_buf *b, int64_t v)
{
    /* zigzag: small magnitudes of either sign stay short */
    vp_put_u64(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void vp_put_f64(vp_buf *b, double v)
{
    uint64_t u;
    unsigned char tmp[8];
    memcpy(&u, &v, sizeof u);
    for (int i = 0; i < 8; i++)
        tmp[i] = (unsigned char)(u >> (8 * i));
    vp_buf_append(b, tmp, 8);
}

void vp_put_str(vp_buf *b, const char *s, size_t n)
{
    vp_put_u64(b, n);
    vp_buf_append(b, s, n);
}

void vp_rd_init(vp_rd *r, const void *p, size_t n)
{
    r->p = p;
    r->end = r->p + n;
    r->bad = 0;
}

uint64_t vp_get_u64(vp_rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            break;
        unsigned char c = *r->p++;
        /* the tenth byte has room for bit 63 only: more is not a uint64 */
        if (shift == 63 && (c & 0x7e))
            break;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    r->bad = 1;
    r->p = r->end;
    return 0;
}

int64_t vp_get_i64(vp_rd *r)
{
    uint64_t u = vp_get_u64(r);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

double vp_get_f64(vp_rd *r)
{
    double v = 0;
    if (r->end - r->p < 8) {
        r->bad = 1;
        r->p = r->end;
        return v;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    memcpy(&v, &u, sizeof v);
    return v;
}

const char *vp_get_str(vp_rd *r, size_t *n)
{
    uint64_t len = vp_get_u64(r);
    if (len > (uint64_t)(r->end - r->p)) {
        r->bad = 1;
        r->p = r->end;
        *n = 0;
        return "";
    }
    const char *s = (const char *)r->p;
    r->p += len;
    *n = (size_t)len;
    return s;
}

const char *vp_get_cstr(vp_rd *r, size_t *n)
{
    const char *s = vp_get_str(r, n);
    if (*n && memchr(s, '\0', *n)) {
        r->bad = 1;
        *n = 0;
        return NULL;
    }
    return s;
}

char *vp_get_cstr_dup(vp_rd *r)
{
    size_t n;
    const char *s = vp_get_cstr(r, &n);
    return r->bad ? NULL : vp_strndup(s, n);
}

size_t vp_get_count(vp_rd *r, size_t min_bytes)
{
    uint64_t n = vp_get_u64(r);
    if (min_bytes && n > (uint64_t)(r->end - r->p) / min_bytes) {
        r->bad = 1;
        r->p = r->end;
        return 0;
    }
    return (size_t)n;
}

int vp_rd_done(const vp_rd *r)
{
    return !r->bad && r->p == r->end;
}

void vp_part_write(vp_buf *out, const vp_part_header *h, const void *payload, size_t n)
{
    vp_buf_append(out, magic, sizeof magic);
    vp_put_u64(out, VP_PART_VERSION);
    vp_put_str(out, h->command, strlen(h->command));
    vp_put_u64(out, h->payload_version);
    size_t nopts = 0;
    for (size_t i = 0; i < h->options.len; i++)
        nopts += h->options.data[i] == '\0';
    vp_put_u64(out, nopts);
    for (size_t i = 0; i < h->options.len;) {
        size_t len = strlen(h->options.data + i);
        vp_put_str(out, h->options.data + i, len);
        i += len + 1;
    }
    vp_put_u64(out, h->inputs);
    vp_put_u64(out, n);
    vp_buf_append(out, payload, n);
}

int vp_part_read(const char *name, const void *data, size_t n, vp_part_header *h,
                 const void **payload, size_t *payload_n, vp_error *err)
{
    memset(h, 0, sizeof *h);
    if (n < sizeof magic || memcmp(data, magic, sizeof magic) != 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: not a vprof partial result (no VPART header)", name);
        return -1;
    }
    vp_rd r;
    vp_rd_init(&r, (const char *)data + sizeof magic, n - sizeof magic);
    uint64_t version = vp_get_u64(&r);
    if (!r.bad && version != VP_PART_VERSION) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: partial result format %llu, this vprof reads format %d (use the same "
                     "vprof version to save and reduce)",
                     name, (unsigned long long)version, VP_PART_VERSION);
        return -1;
    }
    size_t len;
    const char *cmd = vp_get_str(&r, &len);
    if (len >= sizeof h->command)
        r.bad = 1;
    else {
        memcpy(h->command, cmd, len);
        h->command[len] = '\0';
    }
    h->payload_version = vp_get_u64(&r);
    size_t nopts = vp_get_count(&r, 1);
    for (size_t i = 0; i < nopts && !r.bad; i++) {
        const char *s = vp_get_str(&r, &len);
        if (memchr(s, '\0', len))
            r.bad = 1;
        vp_buf_append(&h->options, s, len);
        vp_buf_putc(&h->options, '\0');
    }
    h->inputs = vp_get_u64(&r);
    uint64_t plen = vp_get_u64(&r);
    if (r.bad || plen != (uint64_t)(r.end - r.p)) {
        vp_buf_free(&h->options);
        vp_error_set(err, VP_EXIT_INPUT, "%s: damaged or truncated partial result (%zu bytes)",
                     name, n);
        return -1;
    }
    *payload = r.p;
    *payload_n = (size_t)plen;
    return 0;
}
