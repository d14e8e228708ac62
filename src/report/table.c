/* The table model and its formatters.
 *
 * Cells are stored column by column, so that a column added after rows
 * exist simply gets empty cells, and each cell keeps the kind of value it
 * was given (int, double or text): the column type decides how it is
 * shown, converting between int and double where the two differ.
 *
 * Machine formats (csv, tsv, json) print raw numbers in the unit of the
 * header; human formats (table, md) print units.  No formatter ever prints
 * NaN or infinity: such a cell reads as empty (csv, tsv), "-" (table, md)
 * or null (json), like a cell that was never set. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/table.h"
#include "vprof/util.h"

enum cell_kind { CELL_EMPTY, CELL_INT, CELL_DOUBLE, CELL_TEXT };

typedef struct cell {
    unsigned char kind;
    union {
        int64_t i;
        double d;
        char *s;
    } v;
} cell;

typedef struct column {
    char *title;
    vp_col_type type;
    int decimals;
    cell *cells;        /* rows_cap of them, the first nrows in use */
} column;

struct vp_table {
    char *name;
    column *cols;
    int ncols, cols_cap;
    size_t nrows, rows_cap;
    char **notes;
    size_t nnotes;
};

/* The minimum width a shortened name keeps: less would not identify it. */
#define MIN_NAME_WIDTH 20
#define ELLIPSIS "\xe2\x80\xa6"   /* U+2026, one column wide */
/* Room for any double in "%.17f": 309 integer digits, sign, point, 17. */
#define NUM_BUF 400

/* ---- model ----------------------------------------------------------- */

vp_table *vp_table_new(const char *name)
{
    vp_table *t = vp_calloc(1, sizeof(*t));

    t->name = vp_strdup(name ? name : "");
    return t;
}

static void cell_clear(cell *c)
{
    if (c->kind == CELL_TEXT)
        free(c->v.s);
    c->kind = CELL_EMPTY;
}

void vp_table_free(vp_table *t)
{
    size_t r;
    int c;

    if (t == NULL)
        return;
    for (c = 0; c < t->ncols; c++) {
        for (r = 0; r < t->nrows; r++)
            cell_clear(&t->cols[c].cells[r]);
        free(t->cols[c].cells);
        free(t->cols[c].title);
    }
    for (r = 0; r < t->nnotes; r++)
        free(t->notes[r]);
    free(t->notes);
    free(t->cols);
    free(t->name);
    free(t);
}

int vp_table_add_col(vp_table *t, const char *title, vp_col_type type, int decimals)
{
    column *col;

    if (t->ncols == t->cols_cap) {
        t->cols_cap = t->cols_cap ? t->cols_cap * 2 : 8;
        t->cols = vp_realloc(t->cols, (size_t)t->cols_cap * sizeof(*t->cols));
    }
    col = &t->cols[t->ncols];
    col->title = vp_strdup(title ? title : "");
    col->type = type;
    /* More than 17 digits only print binary noise. */
    col->decimals = decimals == VP_DECIMALS_EXACT ? decimals : decimals < 0 ? 0 : decimals > 17 ? 17 : decimals;
    col->cells = vp_calloc(t->rows_cap, sizeof(*col->cells));
    return t->ncols++;
}

vp_table *vp_table_new_cols(const char *name, const vp_col_spec *cols, size_t n)
{
    vp_table *t = vp_table_new(name);
    for (size_t i = 0; i < n; i++)
        vp_table_add_col(t, cols[i].title, cols[i].type, cols[i].decimals);
    return t;
}

size_t vp_table_add_row(vp_table *t)
{
    int c;

    if (t->nrows == t->rows_cap) {
        t->rows_cap = t->rows_cap ? t->rows_cap * 2 : 16;
        for (c = 0; c < t->ncols; c++)
            t->cols[c].cells = vp_realloc(t->cols[c].cells,
                                          t->rows_cap * sizeof(cell));
    }
    for (c = 0; c < t->ncols; c++)
        t->cols[c].cells[t->nrows].kind = CELL_EMPTY;
    return t->nrows++;
}

/* Indexing outside the table is a bug in the caller, never bad input. */
static cell *cell_at(vp_table *t, size_t row, int col)
{
    if (row >= t->nrows || col < 0 || col >= t->ncols) {
        fprintf(stderr, "vprof: internal error: cell (%zu, %d) outside table %s\n",
                row, col, t->name);
        abort();
    }
    return &t->cols[col].cells[row];
}

void vp_table_set_textn(vp_table *t, size_t row, int col, const char *s, size_t n)
{
    cell *c = cell_at(t, row, col);

    cell_clear(c);
    if (s == NULL)
        return;
    c->kind = CELL_TEXT;
    c->v.s = vp_strndup(s, n);
}

void vp_table_set_text(vp_table *t, size_t row, int col, const char *s)
{
    vp_table_set_textn(t, row, col, s, s ? strlen(s) : 0);
}

void vp_table_set_int(vp_table *t, size_t row, int col, int64_t v)
{
    cell *c = cell_at(t, row, col);

    cell_clear(c);
    c->kind = CELL_INT;
    c->v.i = v;
}

void vp_table_set_double(vp_table *t, size_t row, int col, double v)
{
    cell *c = cell_at(t, row, col);

    cell_clear(c);
    c->kind = CELL_DOUBLE;
    c->v.d = v;
}

const char *vp_table_name(const vp_table *t)
{
    return t->name;
}

size_t vp_table_rows(const vp_table *t)
{
    return t->nrows;
}

int vp_table_cols(const vp_table *t)
{
    return t->ncols;
}

void vp_table_add_note(vp_table *t, const char *fmt, ...)
{
    va_list ap;
    char *note;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    note = vp_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(note, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->notes = vp_realloc(t->notes, (t->nnotes + 1) * sizeof(*t->notes));
    t->notes[t->nnotes++] = note;
}

int vp_format_parse(const char *s, vp_format *out)
{
    static const struct {
        const char *name;
        vp_format format;
    } names[] = {
        {"table", VP_FMT_TABLE}, {"csv", VP_FMT_CSV}, {"tsv", VP_FMT_TSV},
        {"json", VP_FMT_JSON}, {"md", VP_FMT_MD},
    };
    size_t i;

    for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].format;
            return 0;
        }
    }
    return -1;
}

/* ---- number rendering ------------------------------------------------ */

static int is_integral(vp_col_type type)
{
    return type == VP_COL_INT || type == VP_COL_NS || type == VP_COL_BYTES ||
           type == VP_COL_CLOCK;
}

/* The cell as an int64; 0 when it has no finite value in range. */
static int cell_int(const cell *c, int64_t *out)
{
    if (c->kind == CELL_INT) {
        *out = c->v.i;
        return 1;
    }
    /* 2^63 is exact as a double; anything at or past it does not fit. */
    if (c->kind == CELL_DOUBLE && isfinite(c->v.d) &&
        fabs(c->v.d) < 9223372036854775808.0) {
        *out = (int64_t)llround(c->v.d);
        return 1;
    }
    return 0;
}

/* The cell as a finite double; 0 when it has none. */
static int cell_double(const cell *c, double *out)
{
    if (c->kind == CELL_INT) {
        *out = (double)c->v.i;
        return 1;
    }
    if (c->kind == CELL_DOUBLE && isfinite(c->v.d)) {
        *out = c->v.d;
        return 1;
    }
    return 0;
}

/* "-0.0" (from -0.0 itself or a small negative rounded away) reads as a
 * sign error to anyone diffing outputs: print it unsigned. */
/* The shortest "%.Ng" that reads back as the same double. */
static void fmt_shortest(char *buf, size_t n, double v)
{
    int prec;

    if (v == 0)
        v = 0;  /* -0 becomes 0 */
    for (prec = 15; prec < 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
    snprintf(buf, n, "%.17g", v);
}

/* "-1,234,567"; buf must hold 27 bytes (INT64_MIN with its commas). */
static void fmt_thousands(char *buf, int64_t v)
{
    char digits[24];
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    size_t len, i, o = 0;

    len = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, u);
    if (v < 0)
        buf[o++] = '-';
    for (i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

/* A number in a text column: there is no type to go by. */
static const char *untyped_value(const cell *c, char *buf, size_t n)
{
    if (c->kind == CELL_INT)
        snprintf(buf, n, "%" PRId64, c->v.i);
    else if (isfinite(c->v.d))
        fmt_shortest(buf, n, c->v.d);
    else
        return NULL;
    return buf;
}

/* The csv/tsv rendering of a cell, NULL for an empty field. */
static const char *raw_value(const column *col, const cell *c, char *buf, size_t n)
{
    int64_t i;
    double d;

    if (c->kind == CELL_EMPTY)
        return NULL;
    if (c->kind == CELL_TEXT)
        return c->v.s;
    if (col->type == VP_COL_TEXT)
        return untyped_value(c, buf, n);
    if (is_integral(col->type)) {
        if (!cell_int(c, &i))
            return NULL;
        snprintf(buf, n, "%" PRId64, i);
        return buf;
    }
    if (!cell_double(c, &d))
        return NULL;
    if (col->decimals == VP_DECIMALS_EXACT)
        fmt_shortest(buf, n, d);
    else
        vp_fmt_fixed(buf, n, col->decimals, d);
    return buf;
}

/* The table/md rendering of a cell; "-" when it has no value. */
static const char *human_value(const column *col, const cell *c, char *buf, size_t n)
{
    const char *s = NULL;
    int64_t i;
    double d;

    if (c->kind == CELL_TEXT)
        return c->v.s;
    if (c->kind == CELL_EMPTY)
        return "-";
    switch (col->type) {
    case VP_COL_TEXT:
        s = untyped_value(c, buf, n);
        break;
    case VP_COL_INT:
    case VP_COL_CLOCK:
        if (cell_int(c, &i)) {
            fmt_thousands(buf, i);
            s = buf;
        }
        break;
    case VP_COL_NS:
    case VP_COL_NS_F:
        if (cell_double(c, &d)) {
            vp_human_ns(buf, n, d);
            s = buf;
        }
        break;
    case VP_COL_BYTES:
        if (cell_double(c, &d)) {
            vp_human_bytes(buf, n, d);
            s = buf;
        }
        break;
    case VP_COL_PERCENT:
        if (cell_double(c, &d)) {
            vp_fmt_fixed(buf, n - 1, 1, d);
            strcat(buf, "%");
            s = buf;
        }
        break;
    case VP_COL_RATIO:
        if (cell_double(c, &d)) {
            /* Three significant digits, but never an exponent for the
             * thousands a peak TFLOP/s or a bandwidth reaches. */
            if (d >= 1000 || d <= -1000)
                vp_fmt_fixed(buf, n, 0, d);
            else
                snprintf(buf, n, "%.3g", d);
            vp_drop_negative_zero(buf);
            s = buf;
        }
        break;
    }
    return s ? s : "-";
}

/* ---- reading a table back (the HTML page, its charts) ---------------- */

const char *vp_table_col_title(const vp_table *t, int col)
{
    return t->cols[col].title;
}

vp_col_type vp_table_col_type(const vp_table *t, int col)
{
    return t->cols[col].type;
}

const char *vp_table_cell_human(const vp_table *t, size_t row, int col, char *buf, size_t n)
{
    return human_value(&t->cols[col], &t->cols[col].cells[row], buf, n);
}

int vp_table_cell_number(const vp_table *t, size_t row, int col, double *out)
{
    return cell_double(&t->cols[col].cells[row], out);
}

size_t vp_table_nnotes(const vp_table *t)
{
    return t->nnotes;
}

const char *vp_table_note(const vp_table *t, size_t i)
{
    return t->notes[i];
}

void vp_table_set_name(vp_table *t, const char *name)
{
    free(t->name);
    t->name = vp_strdup(name);
}

int vp_table_find_col(const vp_table *t, const char *title)
{
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c].title, title) == 0)
            return c;
    return -1;
}

static const char *unit_suffix(vp_col_type type)
{
    switch (type) {
    case VP_COL_NS:
    case VP_COL_NS_F:
        return " (ns)";
    case VP_COL_BYTES:
        return " (B)";
    case VP_COL_PERCENT:
        return " (%)";
    default:
        return "";
    }
}

/* The header of the raw formats: title plus unit, e.g. "Total Time (ns)". */
static const char *raw_header(const column *col, vp_buf *b)
{
    b->len = 0;
    vp_buf_printf(b, "%s%s", col->title, unit_suffix(col->type));
    return b->data;
}

/* ---- csv and tsv ----------------------------------------------------- */

/* RFC 4180: a field with a comma, quote, CR or LF is quoted, and quotes
 * inside it doubled. */
static void csv_field(FILE *out, const char *s)
{
    const char *q;

    if (s[strcspn(s, ",\"\r\n")] == '\0') {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    while ((q = strchr(s, '"')) != NULL) {
        fwrite(s, 1, (size_t)(q - s) + 1, out);
        fputc('"', out);
        s = q + 1;
    }
    fputs(s, out);
    fputc('"', out);
}

/* TSV has no quoting, so a tab, CR or LF inside a field would split it:
 * each is written as a space instead. */
static void tsv_field(FILE *out, const char *s)
{
    size_t n;

    for (;;) {
        n = strcspn(s, "\t\r\n");
        fwrite(s, 1, n, out);
        if (s[n] == '\0')
            return;
        fputc(' ', out);
        s += n + 1;
    }
}

static void write_delimited(FILE *out, const vp_table *t, int tsv)
{
    void (*field)(FILE *, const char *) = tsv ? tsv_field : csv_field;
    char sep = tsv ? '\t' : ',';
    vp_buf hdr = {0};
    char buf[NUM_BUF];
    const char *s;
    size_t r;
    int c;

    for (c = 0; c < t->ncols; c++) {
        if (c)
            fputc(sep, out);
        field(out, raw_header(&t->cols[c], &hdr));
    }
    fputc('\n', out);
    vp_buf_free(&hdr);
    for (r = 0; r < t->nrows; r++) {
        for (c = 0; c < t->ncols; c++) {
            if (c)
                fputc(sep, out);
            s = raw_value(&t->cols[c], &t->cols[c].cells[r], buf, sizeof(buf));
            if (s)
                field(out, s);
        }
        fputc('\n', out);
    }
}

/* ---- json ------------------------------------------------------------ */

/* Length of the well-formed UTF-8 sequence at p (1 to 4 bytes), or 0 when
 * there is none: a stray continuation byte, an overlong form, a surrogate,
 * a code point past U+10FFFF or a sequence cut short. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n, i;

    if (p[0] < 0x80)
        return 1;
    if (p[0] < 0xC2 || p[0] > 0xF4)
        return 0;
    if (p[0] < 0xE0) {
        n = 2;
    } else if (p[0] < 0xF0) {
        n = 3;
        if (p[0] == 0xE0)
            lo = 0xA0;      /* overlong */
        else if (p[0] == 0xED)
            hi = 0x9F;      /* surrogates */
    } else {
        n = 4;
        if (p[0] == 0xF0)
            lo = 0x90;      /* overlong */
        else if (p[0] == 0xF4)
            hi = 0x8F;      /* past U+10FFFF */
    }
    /* The NUL terminator fails these checks, so a cut sequence stops here. */
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* A JSON string.  Bytes that are not UTF-8 become U+FFFD each, so the
 * output is valid JSON whatever a trace put into its names. */
static void json_string(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str, *run = s;
    size_t n;

    fputc('"', out);
    while (*s) {
        if (*s >= 0x20 && *s != '"' && *s != '\\' && *s < 0x80) {
            s++;
            continue;
        }
        n = *s >= 0x80 ? utf8_len(s) : 0;
        if (n > 0) {
            s += n;
            continue;
        }
        fwrite(run, 1, (size_t)(s - run), out);
        switch (*s) {
        case '"':  fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*s < 0x20)
                fprintf(out, "\\u%04x", *s);
            else
                fputs("\xef\xbf\xbd", out);
        }
        run = ++s;
    }
    fwrite(run, 1, (size_t)(s - run), out);
    fputc('"', out);
}

/* The column's unit for json readers.  NS and NS_F are both "ns": they
 * differ only in whether values can have fractions, which the numbers
 * themselves show. */
static const char *json_type(vp_col_type type)
{
    switch (type) {
    case VP_COL_TEXT:    return "text";
    case VP_COL_INT:
    case VP_COL_CLOCK:   return "int";   /* its title names the clock */
    case VP_COL_NS:
    case VP_COL_NS_F:    return "ns";
    case VP_COL_BYTES:   return "bytes";
    case VP_COL_PERCENT: return "percent";
    case VP_COL_RATIO:   return "ratio";
    }
    return "text";
}

static void json_value(FILE *out, const column *col, const cell *c)
{
    char buf[NUM_BUF];
    int64_t i;
    double d;

    if (c->kind == CELL_TEXT) {
        json_string(out, c->v.s);
    } else if (c->kind == CELL_INT && !is_integral(col->type)) {
        fprintf(out, "%" PRId64, c->v.i);    /* exact, and a number anyway */
    } else if (is_integral(col->type) && cell_int(c, &i)) {
        fprintf(out, "%" PRId64, i);
    } else if (!is_integral(col->type) && cell_double(c, &d)) {
        fmt_shortest(buf, sizeof(buf), d);
        fputs(buf, out);
    } else {
        fputs("null", out);
    }
}

static void write_json_table(FILE *out, const vp_table *t)
{
    vp_buf hdr = {0};
    size_t r;
    int c;

    json_string(out, t->name);
    fputs(":{\"columns\":[", out);
    for (c = 0; c < t->ncols; c++) {
        fputs(c ? ",{\"name\":" : "{\"name\":", out);
        json_string(out, raw_header(&t->cols[c], &hdr));
        fprintf(out, ",\"type\":\"%s\"}", json_type(t->cols[c].type));
    }
    vp_buf_free(&hdr);
    fputs("],\"rows\":[", out);
    for (r = 0; r < t->nrows; r++) {
        fputs(r ? ",[" : "[", out);
        for (c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', out);
            json_value(out, &t->cols[c], &t->cols[c].cells[r]);
        }
        fputc(']', out);
    }
    fputs("],\"notes\":[", out);
    for (r = 0; r < t->nnotes; r++) {
        if (r)
            fputc(',', out);
        json_string(out, t->notes[r]);
    }
    fputs("]}", out);
}

static void write_json(FILE *out, vp_table *const *tables, size_t n, const char *schema)
{
    size_t i;

    fputc('{', out);
    if (schema) {
        fputs("\"schema\":", out);
        json_string(out, schema);
        fputc(',', out);
    }
    fputs("\"tables\":{", out);
    for (i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        write_json_table(out, tables[i]);
    }
    fputs("}}\n", out);
}

/* ---- human formats: table and md ------------------------------------- */

/* Display columns of UTF-8 text: one per code point (vp_utf8_chars), which
 * is right for the ASCII and Latin text kernel names are made of. */
static size_t dwidth(const char *s)
{
    return vp_utf8_chars(s, strlen(s));
}

/* Byte length of the longest prefix of s that is at most cols wide. */
static size_t prefix_bytes(const char *s, size_t cols)
{
    size_t i = 0, w = 0;

    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && w++ == cols)
            break;
    }
    return i;
}

/* Where the parameter list that ends s starts, or 0 when s does not end
 * in a balanced "(...)" or nothing would be left before it. */
static size_t params_start(const char *s, size_t len)
{
    int depth = 0;
    size_t i = len;

    if (len == 0 || s[len - 1] != ')')
        return 0;
    while (i-- > 0) {
        if (s[i] == ')')
            depth++;
        else if (s[i] == '(' && --depth == 0)
            return i;
    }
    return 0;
}

/* The name without what every kernel shares: the "void " return type. */
static const char *skip_return_type(const char *s)
{
    return strncmp(s, "void ", 5) == 0 ? s + 5 : s;
}

/* s[0..len) with the arguments of every outermost template ("<...>")
 * written "<…>": they repeat what the name says, at great length. */
static void collapse_templates(vp_buf *b, const char *s, size_t len)
{
    int depth = 0;

    for (size_t i = 0; i < len; i++) {
        /* "operator<" and "operator<<" are names, not templates */
        if (s[i] == '<' && !(i >= 8 && strncmp(s + i - 8, "operator", 8) == 0)) {
            if (depth++ == 0)
                vp_buf_append(b, "<" ELLIPSIS, strlen("<" ELLIPSIS));
            continue;
        }
        if (s[i] == '>' && depth > 0) {
            if (--depth == 0)
                vp_buf_putc(b, '>');
            continue;
        }
        if (depth == 0)
            vp_buf_putc(b, s[i]);
    }
}

/* Where the last "::" outside brackets ends, 0 when there is none: the
 * namespaces and classes before it are shared by many kernels
 * ("at::native::", "at::native::(anonymous namespace)::"). */
static size_t last_scope_end(const char *s, size_t len)
{
    int depth = 0;
    size_t end = 0;

    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] == '<' || s[i] == '(')
            depth++;
        else if ((s[i] == '>' || s[i] == ')') && depth > 0)
            depth--;
        else if (depth == 0 && s[i] == ':' && s[i + 1] == ':')
            end = i + 2;
    }
    return end;
}

/* s[0..len) cut to max columns, keeping its start, with an ellipsis. */
static void cut_end(vp_buf *b, const char *s, size_t len, size_t max)
{
    if (vp_utf8_chars(s, len) <= max) {
        vp_buf_append(b, s, len);
        return;
    }
    len = prefix_bytes(s, max - 1);
    while (len > 0 && s[len - 1] == ' ')
        len--;
    vp_buf_append(b, s, len);
    vp_buf_append(b, ELLIPSIS, strlen(ELLIPSIS));
}

/* Fits a C++ kernel name into max display columns.  What goes first is
 * what tells kernels apart least: the "void " return type every kernel
 * has, then the parameter list, which repeats the template arguments,
 * then the template arguments, then the namespaces; what is still too
 * long keeps its start and ends in an ellipsis.  (grid_fit cuts
 * elsewhere when two names still read the same.) */
static char *shorten_name(const char *s, size_t max)
{
    vp_buf b = {0};
    size_t len, open;

    s = skip_return_type(s);
    len = strlen(s);
    if (vp_utf8_chars(s, len) <= max)
        return vp_strdup(s);
    if ((open = params_start(s, len)) > 0) {
        if (vp_utf8_chars(s, open) + 3 <= max) {
            vp_buf_append(&b, s, open);
            vp_buf_append(&b, "(" ELLIPSIS ")", strlen("(" ELLIPSIS ")"));
            return b.data;
        }
        len = open;
        if (vp_utf8_chars(s, len) + 1 <= max) {   /* the name whole, its parameters cut */
            vp_buf_append(&b, s, len);
            vp_buf_append(&b, ELLIPSIS, strlen(ELLIPSIS));
            return b.data;
        }
    }
    vp_buf t = {0};
    collapse_templates(&t, s, len);
    const char *c = t.data ? t.data : "";
    size_t clen = t.len, scope = last_scope_end(c, clen);
    if (vp_utf8_chars(c, clen) > max && scope > 0) {
        /* "at::native::…vectorized_elementwise_kernel<…>": the first
         * namespace says whose kernel it is, the rest goes */
        size_t first = last_scope_end(c, scope - 2) == 0 ? scope : 0;
        const char *colons = strstr(c, "::");
        size_t head = first ? 0 : (size_t)(colons - c) + 2;
        vp_buf u = {0};
        vp_buf_append(&u, c, head);
        if (head)
            vp_buf_append(&u, ELLIPSIS, strlen(ELLIPSIS));
        vp_buf_append(&u, c + scope, clen - scope);
        if (vp_utf8_chars(u.data, u.len) > max) {
            u.len = 0;      /* the kernel's own name says more than the namespace */
            vp_buf_append(&u, c + scope, clen - scope);
        }
        vp_buf_free(&t);
        t = u;
        c = t.data;
        clen = t.len;
    }
    cut_end(&b, c, clen, max);
    vp_buf_free(&t);
    return b.data;
}

/* Longest common prefix of a and b, in bytes. */
static size_t common_prefix(const char *a, const char *b)
{
    size_t i = 0;

    while (a[i] && a[i] == b[i])
        i++;
    return i;
}

/* A name as the disambiguation reads it, from most to least shortened:
 * 2 without return type, parameters and scopes ("vectorized_elementwise_
 * kernel<4, ...>"), 1 without return type and parameters, 0 without the
 * return type.  Into b; returns its text. */
static const char *name_form(const char *full, int level, vp_buf *b)
{
    const char *s = skip_return_type(full);
    size_t len = strlen(s), open, scope;

    b->len = 0;
    if (level >= 1 && (open = params_start(s, len)) > 0)
        len = open;
    if (level >= 2 && (scope = last_scope_end(s, len)) > 0) {
        s += scope;
        len -= scope;
    }
    vp_buf_append(b, s, len);
    return vp_buf_cstr(b);
}

/* s from byte at, at most cols columns, ending in an ellipsis when cut. */
static void window(vp_buf *b, const char *s, size_t at, size_t cols)
{
    while (at > 0 && ((unsigned char)s[at] & 0xC0) == 0x80)
        at--;
    cut_end(b, s + at, strlen(s + at), cols);
}

/* A name that read the same as another shortened one: its start, then
 * the parts where it differs from the names nearest to it (bytes d1 <= d2
 * of s; d1 == d2: one part), cut to max columns. */
static char *shorten_at(const char *s, size_t d1, size_t d2, size_t max)
{
    vp_buf b = {0};
    size_t len = strlen(s);

    if (vp_utf8_chars(s, len) <= max)
        return vp_strdup(s);
    int two = d2 > d1 + 4 && max >= 16;
    size_t head = two ? max / 6 : max / 3;
    size_t at2 = d2 > 3 ? d2 - 3 : 0;
    if (!two && vp_utf8_chars(s, at2) <= head + 1) {
        cut_end(&b, s, len, max);
        return b.data;
    }
    vp_buf_append(&b, s, prefix_bytes(s, head));
    vp_buf_append(&b, ELLIPSIS, strlen(ELLIPSIS));
    if (two) {
        size_t seg = (max - head - 2) / 2, at1 = d1 > 2 ? d1 - 2 : 0;
        vp_buf part = {0};
        window(&part, s, at1, seg + 1);
        /* the first part ends at its own ellipsis or, whole, gets one */
        size_t plen = part.len;
        if (plen >= strlen(ELLIPSIS) && strcmp(part.data + plen - strlen(ELLIPSIS), ELLIPSIS) == 0)
            vp_buf_append(&b, part.data, plen);
        else {
            vp_buf_append(&b, part.data, plen);
            vp_buf_append(&b, ELLIPSIS, strlen(ELLIPSIS));
        }
        vp_buf_free(&part);
        window(&b, s, at2, max - dwidth(vp_buf_cstr(&b)));
    } else {
        window(&b, s, at2, max - head - 1);
    }
    return b.data;
}

/* "…" and the last max - 1 columns of s. */
static char *keep_end(const char *s, size_t max)
{
    size_t cols = vp_utf8_chars(s, strlen(s));
    vp_buf b = {0};

    if (cols <= max)
        return vp_strdup(s);
    vp_buf_append(&b, ELLIPSIS, strlen(ELLIPSIS));
    const char *tail = s + prefix_bytes(s, cols - (max - 1));
    vp_buf_append(&b, tail, strlen(tail));
    return b.data;
}

/* 1 when rows i and j print the same text for different names. */
static int clash(char *const *shown, char *const *full, size_t i, size_t j)
{
    return j != i && strcmp(shown[i], shown[j]) == 0 && strcmp(full[i], full[j]) != 0;
}

/* Names that differ must not read the same once shortened: each row of a
 * group that does is cut again around where it differs from the others
 * (in the most shortened form that still tells them apart), and again
 * while some still collide; the last resort is the name's end. */
static void keep_apart(char **shown, char *const *full, size_t n, size_t max)
{
    vp_buf x = {0}, y = {0};
    char **next = vp_calloc(n ? n : 1, sizeof *next);
    size_t *hi = vp_calloc(n ? n : 1, sizeof *hi), *lo = vp_calloc(n ? n : 1, sizeof *lo);

    for (int pass = 0; pass < 8; pass++) {
        int again = 0;
        for (size_t i = 0; i < n; i++) {
            int level = 3;
            for (size_t j = 0; j < n; j++) {
                if (!clash(shown, full, i, j))
                    continue;
                int l = 2;
                while (l > 0 && strcmp(name_form(full[i], l, &x), name_form(full[j], l, &y)) == 0)
                    l--;
                if (l < level)
                    level = l;
            }
            if (level == 3)
                continue;
            again = 1;
            /* where it differs from its nearest names: first among all
             * rows (parts there set it apart from the others cut there
             * too), then also where it differs from those it still reads
             * like; the two farthest of those points, when apart */
            for (size_t j = 0; j < n; j++) {
                if (pass == 0 ? j == i || strcmp(full[i], full[j]) == 0
                              : !clash(shown, full, i, j))
                    continue;
                const char *a = name_form(full[i], level, &x);
                const char *b = name_form(full[j], level, &y);
                size_t p = common_prefix(a, b);
                if (a[p] == b[p])
                    continue;   /* the same in this form: no help */
                if (p > hi[i] + 4) {
                    lo[i] = hi[i];
                    hi[i] = p;
                } else if (p > hi[i]) {
                    hi[i] = p;
                } else if (p + 4 < hi[i] && (p > lo[i] || pass > 0)) {
                    lo[i] = p;   /* one it still reads like wins */
                }
            }
            size_t d2 = hi[i], d1 = lo[i] ? lo[i] : hi[i];
            const char *form = name_form(full[i], level, &x);
            next[i] = shorten_at(form, d1, d2, max);
            if (strcmp(next[i], shown[i]) == 0) {
                /* no progress, or going round: the end of the name
                 * without its parameters (they repeat the template
                 * arguments), or with them when that is all that differs */
                free(next[i]);
                next[i] = keep_end(name_form(full[i], level > 1 ? 1 : level, &x), max);
            }
        }
        for (size_t i = 0; i < n; i++)
            if (next[i]) {
                free(shown[i]);
                shown[i] = next[i];
                next[i] = NULL;
            }
        if (!again)
            break;
    }
    /* The last resort: wider, until they differ (at worst the whole
     * names, which do) */
    for (size_t w = max + 4, again = 1; again; w += 4) {
        again = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if (clash(shown, full, i, j)) {
                    next[i] = shorten_name(full[i], w);
                    again = 1;
                    break;
                }
        for (size_t i = 0; i < n; i++)
            if (next[i]) {
                free(shown[i]);
                shown[i] = next[i];
                next[i] = NULL;
            }
    }
    free(next);
    free(hi);
    free(lo);
    vp_buf_free(&x);
    vp_buf_free(&y);
}

/* Markdown: '|' would end the cell; backslash, backquote, '*', '_', '<',
 * '[' and ']' would start code, emphasis, HTML or links, and C++ names
 * are full of them.  A backslash makes each literal. */
static void md_escape(vp_buf *b, const char *s)
{
    for (; *s; s++) {
        if (strchr("|\\`*_<[]", *s))
            vp_buf_putc(b, '\\');
        vp_buf_putc(b, *s);
    }
}

/* The human formats are aligned, so every cell is rendered before the
 * first is printed: text[0] is the header row, text[r + 1] row r. */
typedef struct grid {
    int md;
    size_t nrows;
    int ncols;
    char **text;        /* (nrows + 1) * ncols strings */
    size_t *width;      /* display width of each column */
} grid;

static char **grid_at(const grid *g, size_t row, int col)
{
    return &g->text[row * (size_t)g->ncols + (size_t)col];
}

/* A cell's text for a human format: control characters (tabs, newlines,
 * escapes) would break the alignment or the terminal, and become spaces. */
static char *human_cell(const char *s, int md)
{
    vp_buf b = {0};
    char *p;

    if (md)
        md_escape(&b, s);
    else
        vp_buf_append(&b, s, strlen(s));
    if (!b.data)
        return vp_strdup("");   /* an empty cell: the buffer was never grown */
    for (p = b.data; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return b.data;
}

/* Shortens the name column, the last text one, so that lines fit in
 * width, though never below MIN_NAME_WIDTH. */
static void grid_fit(grid *g, const vp_table *t, int width)
{
    size_t others = 0, limit, r;
    int c, name = -1;

    for (c = t->ncols - 1; c >= 0 && name < 0; c--)
        if (t->cols[c].type == VP_COL_TEXT)
            name = c;
    if (name < 0)
        return;
    for (c = 0; c < g->ncols; c++)
        others += c == name ? 0 : g->width[c] + 2;
    limit = (size_t)width > others + MIN_NAME_WIDTH ? (size_t)width - others
                                                    : MIN_NAME_WIDTH;
    if (g->width[name] <= limit)
        return;
    g->width[name] = dwidth(*grid_at(g, 0, name));
    char **full = vp_malloc((g->nrows ? g->nrows : 1) * sizeof *full);
    char **shown = vp_malloc((g->nrows ? g->nrows : 1) * sizeof *shown);
    for (r = 1; r <= g->nrows; r++) {
        char *s = *grid_at(g, r, name);

        full[r - 1] = s;
        shown[r - 1] = dwidth(s) > limit ? shorten_name(s, limit) : vp_strdup(s);
    }
    keep_apart(shown, full, g->nrows, limit);
    for (r = 1; r <= g->nrows; r++) {
        char **s = grid_at(g, r, name);

        free(*s);
        *s = shown[r - 1];
        if (dwidth(*s) > g->width[name])
            g->width[name] = dwidth(*s);
    }
    free(full);
    free(shown);
}

static void grid_build(grid *g, const vp_table *t, const vp_format_opts *opts)
{
    char buf[NUM_BUF];
    size_t r, w;
    int c;

    g->md = opts->format == VP_FMT_MD;
    g->nrows = t->nrows;
    g->ncols = t->ncols;
    g->text = vp_calloc((t->nrows + 1) * (size_t)t->ncols, sizeof(char *));
    g->width = vp_calloc((size_t)t->ncols, sizeof(size_t));
    for (c = 0; c < t->ncols; c++) {
        const column *col = &t->cols[c];

        *grid_at(g, 0, c) = human_cell(col->title, g->md);
        for (r = 0; r < t->nrows; r++)
            *grid_at(g, r + 1, c) =
                human_cell(human_value(col, &col->cells[r], buf, sizeof(buf)), g->md);
        for (r = 0; r <= t->nrows; r++) {
            w = dwidth(*grid_at(g, r, c));
            if (w > g->width[c])
                g->width[c] = w;
        }
    }
    if (!g->md && opts->width > 0 && !opts->full_names)
        grid_fit(g, t, opts->width);
}

static void grid_free(grid *g)
{
    size_t i;

    for (i = 0; i < (g->nrows + 1) * (size_t)g->ncols; i++)
        free(g->text[i]);
    free(g->text);
    free(g->width);
}

static void pad(vp_buf *b, size_t n, char c)
{
    vp_buf_reserve(b, n);
    memset(b->data + b->len, c, n);
    b->len += n;
    b->data[b->len] = '\0';
}

/* One line, without its newline.  The table format aligns it: numbers to
 * the right, text to the left, no trailing padding after the last cell.
 * Markdown is left unpadded, since renderers align it anyway and kernel
 * names would pad every row to the longest. */
static void grid_line(vp_buf *b, const grid *g, const vp_table *t, size_t row)
{
    int c;

    b->len = 0;
    if (g->md)
        vp_buf_append(b, "| ", 2);
    for (c = 0; c < g->ncols; c++) {
        const char *s = *grid_at(g, row, c);
        size_t fill = g->md ? 0 : g->width[c] - dwidth(s);
        int right = t->cols[c].type != VP_COL_TEXT;

        if (c)
            vp_buf_append(b, g->md ? " | " : "  ", g->md ? 3 : 2);
        if (right)
            pad(b, fill, ' ');
        vp_buf_append(b, s, strlen(s));
        if (!right && c + 1 < g->ncols)
            pad(b, fill, ' ');
    }
    if (g->md)
        vp_buf_append(b, " |", 2);
}

/* The line under the header: dashes as wide as each column in the table
 * format, the alignment row ("---:" for numbers) in md. */
static void grid_rule(vp_buf *b, const grid *g, const vp_table *t)
{
    int c;

    b->len = 0;
    for (c = 0; c < g->ncols; c++) {
        if (g->md) {
            const char *align = t->cols[c].type != VP_COL_TEXT ? "| ---: " : "| --- ";

            vp_buf_append(b, align, strlen(align));
        } else {
            if (c)
                vp_buf_append(b, "  ", 2);
            pad(b, g->width[c], '-');
        }
    }
    if (g->md)
        vp_buf_putc(b, '|');
}

/* The columns a person reads: t's less its VP_COL_CLOCK ones.  The copy
 * shares t's cells; free only its cols. */
static vp_table human_columns(const vp_table *t)
{
    vp_table shown = *t;

    shown.cols = vp_malloc((size_t)(t->ncols ? t->ncols : 1) * sizeof(*shown.cols));
    shown.ncols = 0;
    for (int c = 0; c < t->ncols; c++)
        if (t->cols[c].type != VP_COL_CLOCK)
            shown.cols[shown.ncols++] = t->cols[c];
    return shown;
}

static void write_human(FILE *out, const vp_table *all, const vp_format_opts *opts)
{
    int bold = opts->color && opts->format == VP_FMT_TABLE;
    vp_buf line = {0};
    grid g;
    size_t r;
    vp_table shown = human_columns(all);
    const vp_table *t = &shown;

    grid_build(&g, t, opts);
    if (g.ncols > 0) {
        grid_line(&line, &g, t, 0);
        fprintf(out, bold ? "\033[1m%s\033[0m\n" : "%s\n", vp_buf_cstr(&line));
        grid_rule(&line, &g, t);
        fprintf(out, "%s\n", vp_buf_cstr(&line));
        for (r = 1; r <= g.nrows; r++) {
            grid_line(&line, &g, t, r);
            fprintf(out, "%s\n", vp_buf_cstr(&line));
        }
    }
    /* In md a blank line ends the table, and a list keeps notes apart. */
    if (g.md && t->nnotes > 0)
        fputc('\n', out);
    for (r = 0; r < t->nnotes; r++) {
        char *note = human_cell(t->notes[r], g.md);

        fprintf(out, "%snote: %s\n", g.md ? "- " : "", note);
        free(note);
    }
    vp_buf_free(&line);
    grid_free(&g);
    free(shown.cols);
}

/* ---- entry point ----------------------------------------------------- */

int vp_table_write(FILE *out, vp_table *const *tables, size_t ntables, const vp_format_opts *opts)
{
    static const vp_format_opts defaults = {VP_FMT_TABLE, 0, 0, 0, NULL};
    size_t i;

    if (opts == NULL)
        opts = &defaults;
    errno = 0;
    if (opts->format == VP_FMT_JSON) {
        write_json(out, tables, ntables, opts->schema);
    } else {
        for (i = 0; i < ntables; i++) {
            if (i)
                fputc('\n', out);
            if (ntables > 1 && opts->format == VP_FMT_TABLE)
                fprintf(out, "== %s ==\n", tables[i]->name);
            else if (ntables > 1 && opts->format == VP_FMT_MD)
                fprintf(out, "### %s\n\n", tables[i]->name);
            if (opts->format == VP_FMT_CSV || opts->format == VP_FMT_TSV)
                write_delimited(out, tables[i], opts->format == VP_FMT_TSV);
            else
                write_human(out, tables[i], opts);
        }
    }
    if (fflush(out) == EOF || ferror(out)) {
        if (errno == 0)
            errno = EIO;
        return -1;
    }
    return 0;
}
