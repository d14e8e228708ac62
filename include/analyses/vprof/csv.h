/* A streaming CSV reader (RFC 4180) for the summaries Ascend's profilers
 * write: kernel_details.csv, step_trace_time.csv, memory_record.csv ...
 *
 * One row at a time, at constant memory apart from the row itself, from a
 * plain or gzip file (vprof/source.h).  Quoted fields may hold commas,
 * doubled quotes and line breaks (operator_details.csv's Call Stack); CRLF
 * and LF line ends are both accepted; a UTF-8 byte-order mark is skipped.
 * Columns are found by their header name, never by position: the column
 * order changes between profiler versions.
 *
 * Numeric cells are read with vp_csv_num / vp_csv_us: they strip ASCII
 * whitespace inside the field (kernel_details' Start Time is written
 * "1736413971558972.912\t") and report "" and "N/A" as missing, never 0. */
#ifndef VPROF_CSV_H
#define VPROF_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/json.h"

typedef struct vp_csv vp_csv;

/* Opens path and reads its header row.  NULL with err set (exit status 3)
 * when the file cannot be read or has no header. */
vp_csv *vp_csv_open(const char *path, vp_error *err);
void vp_csv_close(vp_csv *c);

/* Reads the next data row: 1 with a row, 0 at the end, -1 with err set
 * (a read error; a quote left open at the end of the file).  Blank lines
 * are skipped. */
int vp_csv_next(vp_csv *c, vp_error *err);

/* The header: its number of columns and the i-th name. */
size_t vp_csv_ncols(const vp_csv *c);
const char *vp_csv_colname(const vp_csv *c, size_t i);

/* Index of the first header column named any of names (a NULL-terminated
 * list: the spellings of one column across versions, "Duration(us)",
 * "Task Duration(us)"), compared after trimming blanks; -1 when none. */
int vp_csv_col(const vp_csv *c, const char *const *names);

/* The current row's field i, unquoted (an absent field, in a row shorter
 * than the header, is empty).  Valid until the next vp_csv_next. */
vp_span vp_csv_field(const vp_csv *c, int i);
/* The same as a NUL-terminated string. */
const char *vp_csv_str(const vp_csv *c, int i);
size_t vp_csv_nfields(const vp_csv *c);

/* 1-based line number where the current row starts, for messages. */
uint64_t vp_csv_line(const vp_csv *c);
const char *vp_csv_name(const vp_csv *c);

/* Number conversions of a field, blanks trimmed.  0 with the value;
 * 1 when the field is missing ("", "N/A", "NA", "-"); -1 when it is text
 * that is not a number. vp_csv_us converts decimal microseconds to
 * integer nanoseconds exactly (vp_json_us_to_ns). */
int vp_csv_num(vp_span f, double *out);
int vp_csv_us(vp_span f, int64_t *ns);
int vp_csv_int(vp_span f, int64_t *out);

/* Bounds (DESIGN.md: every parser is bounded). */
#define VP_CSV_MAX_ROW (64u << 20)
#define VP_CSV_MAX_FIELDS 4096

#endif
