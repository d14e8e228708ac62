/* Streaming RFC 4180 reader over a byte source.  See vprof/csv.h. */
#include <stdlib.h>
#include <string.h>

#include "vprof/csv.h"
#include "vprof/source.h"
#include "vprof/util.h"

struct vp_csv {
    vp_source *src;
    vp_chunk ch;
    size_t pos;           /* next byte of ch */
    int eof;
    char *name;
    uint64_t line;        /* current line number (1-based) */
    uint64_t row_line;    /* where the current row started */
    /* The current row: fields decoded into buf, each NUL-terminated,
     * starting at off[i]. */
    vp_buf buf;
    size_t *off;
    size_t nf, cap_off;
    /* The header, kept as its own copies. */
    char **cols;
    size_t ncols;
    int bom_checked;
};

/* The next byte, or -1 at the end; -2 on a read error. */
static int getbyte(vp_csv *c, vp_error *err)
{
    while (c->pos >= c->ch.len) {
        if (c->eof)
            return -1;
        int r = vp_source_next(c->src, &c->ch, err);
        if (r < 0)
            return -2;
        if (r == 0) {
            c->eof = 1;
            c->ch.len = 0;
            return -1;
        }
        c->pos = 0;
    }
    return (unsigned char)c->ch.data[c->pos++];
}

static void end_field(vp_csv *c)
{
    vp_buf_putc(&c->buf, '\0');
    if (c->nf == c->cap_off) {
        c->cap_off = c->cap_off ? c->cap_off * 2 : 64;
        c->off = vp_realloc(c->off, c->cap_off * sizeof *c->off);
    }
    c->nf++;
    c->off[c->nf] = c->buf.len;
}

/* Reads one record into buf/off.  1: a record, 0: end of input. */
static int read_record(vp_csv *c, vp_error *err)
{
    for (;;) {
        c->buf.len = 0;
        c->nf = 0;
        if (!c->cap_off) {
            c->cap_off = 64;
            c->off = vp_malloc(c->cap_off * sizeof *c->off);
        }
        c->off[0] = 0;
        c->row_line = c->line;
        int ch = getbyte(c, err);
        if (ch == -2)
            return -1;
        if (ch == -1)
            return 0;
        if (!c->bom_checked) {
            c->bom_checked = 1;
            if (ch == 0xEF) {
                int b2 = getbyte(c, err), b3 = getbyte(c, err);
                if (b2 == 0xBB && b3 == 0xBF) {
                    ch = getbyte(c, err);
                    if (ch < 0)
                        return ch == -2 ? -1 : 0;
                } else {
                    /* Not a BOM: keep the bytes as data. */
                    vp_buf_putc(&c->buf, (char)0xEF);
                    if (b2 >= 0)
                        vp_buf_putc(&c->buf, (char)b2);
                    if (b3 >= 0)
                        vp_buf_putc(&c->buf, (char)b3);
                    if (b2 < 0 || b3 < 0) {
                        end_field(c);
                        return 1;
                    }
                    ch = getbyte(c, err);
                }
            }
        }
        if (ch == '\n' || ch == '\r') {
            /* A blank line. */
            if (ch == '\n')
                c->line++;
            continue;
        }
        int quoted = 0, in_quotes = 0;
        for (;;) {
            if (ch == -2)
                return -1;
            if (in_quotes) {
                if (ch == -1) {
                    vp_error_set(err, VP_EXIT_INPUT,
                                 "%s: line %llu: a quoted field is not closed before the end of "
                                 "the file",
                                 c->name, (unsigned long long)c->row_line);
                    return -1;
                }
                if (ch == '"') {
                    int nx = getbyte(c, err);
                    if (nx == '"') {
                        vp_buf_putc(&c->buf, '"');
                    } else {
                        in_quotes = 0;
                        ch = nx;
                        continue;
                    }
                } else {
                    if (ch == '\n')
                        c->line++;
                    vp_buf_putc(&c->buf, (char)ch);
                }
                ch = getbyte(c, err);
                continue;
            }
            if (ch == -1 || ch == '\n' || ch == '\r') {
                end_field(c);
                if (ch == '\r') {
                    /* CRLF: swallow the LF. */
                    int nx = getbyte(c, err);
                    if (nx == '\n' || nx < 0) {
                        if (nx == -2)
                            return -1;
                    } else {
                        c->pos--;   /* a lone CR ends the line; give the byte back */
                    }
                }
                if (ch != -1)
                    c->line++;
                return 1;
            }
            if (ch == ',') {
                end_field(c);
                if (c->nf >= VP_CSV_MAX_FIELDS) {
                    vp_error_set(err, VP_EXIT_INPUT, "%s: line %llu: more than %u fields in a row",
                                 c->name, (unsigned long long)c->row_line, VP_CSV_MAX_FIELDS);
                    return -1;
                }
                quoted = 0;
            } else if (ch == '"' && !quoted && c->buf.len == c->off[c->nf]) {
                /* A quote opens a field only at its start; elsewhere it is
                 * data, as spreadsheets read it. */
                quoted = in_quotes = 1;
            } else {
                vp_buf_putc(&c->buf, (char)ch);
            }
            if (c->buf.len > VP_CSV_MAX_ROW) {
                vp_error_set(err, VP_EXIT_INPUT, "%s: line %llu: a row longer than %u bytes",
                             c->name, (unsigned long long)c->row_line, VP_CSV_MAX_ROW);
                return -1;
            }
            ch = getbyte(c, err);
        }
    }
}

static void trim(const char **p, size_t *n)
{
    while (*n && (**p == ' ' || **p == '\t' || **p == '\r' || **p == '\n'))
        (*p)++, (*n)--;
    while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t' || (*p)[*n - 1] == '\r' ||
                  (*p)[*n - 1] == '\n'))
        (*n)--;
}

vp_csv *vp_csv_open(const char *path, vp_error *err)
{
    vp_source *src = vp_source_open(path, err);
    if (!src)
        return NULL;
    vp_csv *c = vp_calloc(1, sizeof *c);
    c->src = src;
    c->name = vp_strdup(vp_source_name(src));
    c->line = 1;
    int r = read_record(c, err);
    if (r <= 0) {
        if (r == 0)
            vp_error_set(err, VP_EXIT_INPUT, "%s: empty file: expected a CSV header line",
                         c->name);
        vp_csv_close(c);
        return NULL;
    }
    c->ncols = c->nf;
    c->cols = vp_malloc(c->ncols * sizeof *c->cols);
    for (size_t i = 0; i < c->ncols; i++) {
        const char *p = c->buf.data + c->off[i];
        size_t n = c->off[i + 1] - c->off[i] - 1;
        trim(&p, &n);
        c->cols[i] = vp_strndup(p, n);
    }
    c->nf = 0;
    return c;
}

void vp_csv_close(vp_csv *c)
{
    if (!c)
        return;
    vp_source_close(c->src);
    for (size_t i = 0; i < c->ncols; i++)
        free(c->cols[i]);
    free(c->cols);
    free(c->off);
    vp_buf_free(&c->buf);
    free(c->name);
    free(c);
}

int vp_csv_next(vp_csv *c, vp_error *err)
{
    return read_record(c, err);
}

size_t vp_csv_ncols(const vp_csv *c)
{
    return c->ncols;
}

const char *vp_csv_colname(const vp_csv *c, size_t i)
{
    return i < c->ncols ? c->cols[i] : NULL;
}

int vp_csv_col(const vp_csv *c, const char *const *names)
{
    for (; *names; names++)
        for (size_t i = 0; i < c->ncols; i++)
            if (strcmp(c->cols[i], *names) == 0)
                return (int)i;
    return -1;
}

size_t vp_csv_nfields(const vp_csv *c)
{
    return c->nf;
}

vp_span vp_csv_field(const vp_csv *c, int i)
{
    if (i < 0 || (size_t)i >= c->nf)
        return (vp_span){"", 0};
    return (vp_span){c->buf.data + c->off[i], c->off[i + 1] - c->off[i] - 1};
}

const char *vp_csv_str(const vp_csv *c, int i)
{
    return vp_csv_field(c, i).p;
}

uint64_t vp_csv_line(const vp_csv *c)
{
    return c->row_line;
}

const char *vp_csv_name(const vp_csv *c)
{
    return c->name;
}

static int missing(const char *p, size_t n)
{
    return n == 0 || (n == 3 && memcmp(p, "N/A", 3) == 0) || (n == 2 && memcmp(p, "NA", 2) == 0) ||
           (n == 1 && *p == '-');
}

/* The field without its surrounding blanks, in *v: 1 when it says there is
 * no value (empty, N/A, NA, -), which every typed reader treats alike. */
static int field_value(vp_span f, vp_span *v)
{
    const char *p = f.p;
    size_t n = f.n;
    trim(&p, &n);
    *v = (vp_span){p, n};
    return missing(p, n);
}

int vp_csv_num(vp_span f, double *out)
{
    vp_span v;
    if (field_value(f, &v))
        return 1;
    return vp_json_double(v, out) == 0 ? 0 : -1;
}

int vp_csv_us(vp_span f, int64_t *ns)
{
    vp_span v;
    if (field_value(f, &v))
        return 1;
    return vp_json_us_to_ns(v, ns) == 0 ? 0 : -1;
}

int vp_csv_int(vp_span f, int64_t *out)
{
    vp_span v;
    if (field_value(f, &v))
        return 1;
    return vp_json_int(v, out) == 0 ? 0 : -1;
}
