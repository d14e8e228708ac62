/* One self-contained HTML page of tables and charts (vprof report).
 *
 * Everything inline: the stylesheet (light and dark themes by
 * prefers-color-scheme, A4 print rules), the SVG charts of vprof/plot.h,
 * and a small script that only sorts tables and shows one rank at a time.
 * Nothing is fetched: no URL in any src, href of a stylesheet or url().
 * With JavaScript off the page reads the same, every row shown.
 *
 * Tables are vp_tables as the other formats print them: cells in human
 * units ("1.23 ms"), the raw number kept for sorting and as each cell's
 * hover title; a chart draws columns of a table beside that table. */
#ifndef VPROF_HTML_H
#define VPROF_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "vprof/table.h"

/* The document's head and the opening of its body: title (the <title> and
 * the heading) and subtitle (a line under it, may be NULL).  nav: the ids
 * and titles of the sections, n of them, as links on top. */
void vp_html_begin(FILE *out, const char *title, const char *subtitle, const char *const *nav_ids,
                   const char *const *nav_titles, size_t n);
/* A <section id=...> with its heading; vp_html_section_end closes it. */
void vp_html_section(FILE *out, const char *id, const char *title);
void vp_html_section_end(FILE *out);
/* A sub-heading and a paragraph of text (escaped). */
void vp_html_heading(FILE *out, const char *text);
void vp_html_para(FILE *out, const char *text);

/* A table, sortable by clicking a header; at most max_rows rows (0: all),
 * the rest counted in a line under it that names more_cmd, the command
 * that prints them all.  The table's notes follow it.  Rows of a table
 * with a "Rank" column carry it, for the rank switch. */
void vp_html_table(FILE *out, const vp_table *t, size_t max_rows, const char *more_cmd);

/* The findings table of vprof summary (Rule, Finding, Evidence,
 * Suggestion) as a list; none: a line saying every rule holds. */
void vp_html_findings(FILE *out, const vp_table *findings);

/* A bar chart of table t: a bar per row (at most max_bars), labelled by
 * the columns label_cols (titles; several read "Rank 0 · Step 5"), its
 * segments the columns value_cols (titles, nvalues of them, stacked);
 * sign_colors: one signed column as a diverging chart.  A column not in
 * the table is left out; returns 0 when a chart was drawn, -1 when none
 * (no rows, no value column). */
int vp_html_chart(FILE *out, const vp_table *t, const char *title, const char *const *label_cols,
                  size_t nlabels, const char *const *value_cols, size_t nvalues, size_t max_bars,
                  int sign_colors);

/* An SVG chart written by the caller goes between these: a <figure>
 * with a caption, kept whole on a printed page. */
void vp_html_figure_begin(FILE *out, const char *caption);
void vp_html_figure_end(FILE *out);

/* The script and the end of the document.  Returns 0, or -1 when a write
 * failed (ferror). */
int vp_html_end(FILE *out);

#endif
