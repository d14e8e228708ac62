/* What a number measures and how it reads, for whoever shows it: a table
 * column's type (vprof/table.h) and a run metric's unit
 * (vprof/runstats.h) are the same, so the analyses can say it without
 * knowing about tables. */
#ifndef VPROF_UNITS_H
#define VPROF_UNITS_H

#include <stddef.h>

typedef enum vp_col_type {
    VP_COL_TEXT,     /* string */
    VP_COL_INT,      /* int64 count or id */
    VP_COL_NS,       /* int64 nanoseconds; header gains " (ns)" in raw formats */
    VP_COL_NS_F,     /* double nanoseconds (averages, medians, deviations) */
    VP_COL_BYTES,    /* int64 bytes; header gains " (B)" in raw formats */
    VP_COL_PERCENT,  /* double, 0..100; header gains " (%)" in raw formats */
    VP_COL_RATIO,    /* double, plain number */
    VP_COL_CLOCK,    /* int64 timestamp on the input's own clock (epoch us or
                      * ns, the title names which): csv, tsv and json only,
                      * where a program may join on it; table and md leave
                      * it out, a person reads the time since the start of
                      * the input in a column beside it instead */
} vp_col_type;

/* Human renderings used by the table formatter, exposed for tests and for
 * messages: "1.23 ms", "4.50 GiB". buf must hold at least 32 bytes. */
void vp_human_ns(char *buf, size_t n, double ns);
void vp_human_bytes(char *buf, size_t n, double bytes);

/* "%.*f" of v, never "-0" or "-0.00". */
void vp_fmt_fixed(char *buf, size_t n, int decimals, double v);
/* Drops the sign of a printed number that reads as zero ("-0.0"). */
void vp_drop_negative_zero(char *s);

/* Numbers as people write them on a command line or in a setting, the
 * whole string read: 0, else -1 (the caller says which value was wrong).
 * A whole number from min to max ("12"). */
int vp_parse_count(const char *s, long long min, long long max, long long *out);
/* A finite number above 0 ("1.5", "2e3"). */
int vp_parse_positive(const char *s, double *out);
/* Seconds above 0, with an optional unit: "1.82", "1.82s", "1820ms",
 * "1820 us". */
int vp_parse_seconds(const char *s, double *out);

#endif
