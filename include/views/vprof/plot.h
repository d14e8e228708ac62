/* Self-contained SVG line charts of bytes over time (memory timelines).
 *
 * Plain SVG 1.1 with inline attributes only (no scripts, no external fonts
 * or styles), so that a browser shows the file as is and it can be attached
 * to a bug report.  Each series is a step function: its value holds from a
 * point to the next, and the last value to the end of the axis.  Millions of
 * points are decimated to the minimum and maximum per pixel column, which
 * keeps every spike visible. */
#ifndef VPROF_PLOT_H
#define VPROF_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vprof/memsnap.h"
#include "vprof/units.h"

typedef struct vp_plot_series {
    const char *label;        /* legend, e.g. "device 0" */
    size_t n;                 /* points (at least 1) */
    const double *x;          /* x of each point in axis units, ascending */
    const int64_t *solid;     /* bytes, drawn solid (active / allocated) */
    const int64_t *dashed;    /* bytes, drawn dashed (reserved); may be NULL */
    size_t peak;              /* the point marked with a dot */
    const char *peak_label;   /* text beside the dot */
} vp_plot_series;

/* Writes the chart. x_label names the x axis ("time since the first event
 * (s)"); legend_suffix follows each label ("active, - - reserved").
 * Returns 0, or -1 on a write error. */
int vp_plot_svg(FILE *out, const char *title, const char *x_label, const char *legend_suffix,
                const vp_plot_series *series, size_t n);

/* Text in SVG or HTML: <, >, & and " escaped, control characters dropped. */
void vp_svg_text(FILE *out, const char *s);

/* A round axis step (1, 2 or 5 times a power of ten) for about n ticks. */
double vp_plot_nice_step(double range, int n);

/* The series colours of every chart, in order. */
#define VP_PLOT_COLORS 8
extern const char *const vp_plot_palette[VP_PLOT_COLORS];

/* A horizontal bar chart: one bar per label, each of nseries segments
 * stacked (one series: plain bars).  Positive values stack right of zero,
 * negative ones left of it, so that signed changes read as a diverging
 * chart; sign_colors colours a one-series chart's bars by sign (red:
 * more, green: less) instead of by series.  Values are in unit (NS,
 * BYTES, PERCENT, RATIO: the axis and the hover titles read "1.2 ms").
 * Text uses currentColor so that the chart follows a page's theme; no
 * XML declaration, so that it can be inlined in HTML. */
typedef struct vp_bar_chart {
    const char *title;          /* the accessible name (<title>), may be NULL */
    const char *const *series;  /* nseries legend names */
    size_t nseries;
    const char *const *labels;  /* nbars */
    size_t nbars;
    const double *values;       /* nbars x nseries, bar by bar */
    vp_col_type unit;
    int sign_colors;
} vp_bar_chart;

/* Returns 0, or -1 on a write error. */
int vp_bars_svg(FILE *out, const vp_bar_chart *c);

/* Frees series[0..n) whose strings and arrays were malloc'ed, and the
 * array itself. */
void vp_plot_series_free(vp_plot_series *series, size_t n);

/* Writes a self-contained SVG chart of a snapshot's active (solid) and
 * reserved (dashed) bytes over the trace, one colour per device, the peak
 * of each device marked.  The x axis is time when every event has
 * time_us, else the event index.  title is shown on top (escaped).
 * Returns 0, or -1 on a write error. */
int vp_ms_plot_svg(FILE *out, const vp_memsnap *s, const char *title);

#endif
