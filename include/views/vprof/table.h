/* The table model every subcommand fills and every formatter prints.
 *
 * A table has typed columns and rows of cells.  The type decides how a
 * value is shown: humans get units ("1.23 ms", "4.5 GiB", "45.2%"),
 * machines (csv, tsv, json) get raw numbers in the unit the header names,
 * e.g. "Total Time (ns)".  A subcommand never formats numbers itself.  A
 * VP_COL_CLOCK column (a time as the input recorded it) is for machines
 * only: table and md leave it out. */
#ifndef VPROF_TABLE_H
#define VPROF_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vprof/units.h"

typedef enum vp_format {
    VP_FMT_TABLE,
    VP_FMT_CSV,
    VP_FMT_TSV,
    VP_FMT_JSON,
    VP_FMT_MD,
} vp_format;

typedef struct vp_table vp_table;

/* name: a short identifier ("kernels"), used as the JSON key and the title
 * line of the human formats. */
vp_table *vp_table_new(const char *name);
void vp_table_free(vp_table *t);

/* Adds a column and returns its index.  title is the bare title ("Total
 * Time"); the raw-format header is derived from the type.  decimals is the
 * number of digits after the point that raw formats print for the double
 * types (nsys prints 1), ignored for the others; VP_DECIMALS_EXACT: the
 * shortest text that reads back as the same double (a peer's full
 * precision, HTA's CSV files). */
#define VP_DECIMALS_EXACT (-1)
int vp_table_add_col(vp_table *t, const char *title, vp_col_type type, int decimals);

/* A table's columns as data: vp_table_new_cols makes the table with
 * cols[0..n) added in order (their indices are their positions). */
typedef struct vp_col_spec {
    const char *title;
    vp_col_type type;
    int decimals;
} vp_col_spec;
vp_table *vp_table_new_cols(const char *name, const vp_col_spec *cols, size_t n);

/* Starts a new row (all cells empty) and returns its index. */
size_t vp_table_add_row(vp_table *t);

/* Cell setters; an unset cell prints as empty (csv), "-" (table) or null
 * (json).  Text is copied. */
void vp_table_set_text(vp_table *t, size_t row, int col, const char *s);
void vp_table_set_textn(vp_table *t, size_t row, int col, const char *s, size_t n);
void vp_table_set_int(vp_table *t, size_t row, int col, int64_t v);
void vp_table_set_double(vp_table *t, size_t row, int col, double v);

const char *vp_table_name(const vp_table *t);
size_t vp_table_rows(const vp_table *t);
int vp_table_cols(const vp_table *t);

/* A note printed under the human formats and as "notes" in json
 * (e.g. "3 kernel events without dur were skipped"). */
void vp_table_add_note(vp_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reading a table back, for a front end that lays it out itself (the
 * HTML page of vprof report): a column's bare title and type, a cell as
 * the human formats print it ("1.23 ms", "-" when empty; buf holds at
 * least 400 bytes), a cell's number (0 when it has none: empty, text or
 * not finite), the notes, the column of a title (-1: none). */
const char *vp_table_col_title(const vp_table *t, int col);
vp_col_type vp_table_col_type(const vp_table *t, int col);
const char *vp_table_cell_human(const vp_table *t, size_t row, int col, char *buf, size_t n);
int vp_table_cell_number(const vp_table *t, size_t row, int col, double *out);
size_t vp_table_nnotes(const vp_table *t);
const char *vp_table_note(const vp_table *t, size_t i);
int vp_table_find_col(const vp_table *t, const char *title);
/* Renames a table: two commands' tables of one name side by side in one
 * JSON object (vprof report's baseline_metrics beside metrics). */
void vp_table_set_name(vp_table *t, const char *name);

typedef struct vp_format_opts {
    vp_format format;
    int width;        /* terminal width for VP_FMT_TABLE; 0 = no limit */
    int full_names;   /* never shorten text cells */
    int color;        /* ANSI bold headers in VP_FMT_TABLE */
    const char *schema; /* json: value of the top-level "schema" key, e.g. "vprof.kernels/1" */
} vp_format_opts;

/* Writes tables to out in the chosen format.  Several tables: human
 * formats separate them with a blank line; csv/tsv print each with its
 * header, separated by a blank line (which a spreadsheet reads as one
 * table with stray rows: vprof's CLI passes one, vp_emit_tables); json writes one object
 * {"schema":..., "tables": {name: {"columns":[...], "rows":[[...]...],
 * "notes":[...]}}}.  Returns 0, or -1 with errno set on a write error. */
int vp_table_write(FILE *out, vp_table *const *tables, size_t ntables, const vp_format_opts *opts);

/* Parses "table", "csv", "tsv", "json", "md"; returns -1 when unknown. */
int vp_format_parse(const char *s, vp_format *out);

#endif
