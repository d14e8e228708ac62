/* Unit tests for vprof report's page parts: src/report/chart/bars.c (the bar
 * charts of the SVG module) and src/report/page/html.c (tables, findings,
 * charts from a table's columns), and the table read-back of table.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/html.h"
#include "vprof/plot.h"
#include "vprof/table.h"

/* Static: gcc 12 at -O2 takes the memstream's buffer for a dead local. */
static char *text;
static size_t len;

static FILE *capture(void)
{
    text = NULL;
    len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    return f;
}

static char *done(FILE *f)
{
    assert_int_equal(fclose(f), 0);
    return text;
}

static void assert_has(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("missing: %s\nin: %.2000s", needle, hay);
}

/* +2 us and -1 us, one series coloured by sign: the axis runs from -1 us
 * to 2 us in steps of 0.5 us over 580 px from x=300, so zero is at
 * 300 + 580/3 = 493.3; the gain runs right of it (386.7 px), the loss
 * left (193.3 px, from x=300). */
static void test_bars_diverging(void **state)
{
    (void)state;
    const char *labels[] = {"slower<kernel>", "faster"};
    const char *series[] = {"Delta"};
    double v[] = {2000, -1000};
    vp_bar_chart c = {"changes", series, 1, labels, 2, v, VP_COL_NS, 1};
    FILE *f = capture();
    assert_int_equal(vp_bars_svg(f, &c), 0);
    char *s = done(f);
    assert_has(s, "<rect x=\"493.3\" y=\"34\" width=\"386.7\" height=\"13\" fill=\"#d62728\">"
                  "<title>slower&lt;kernel&gt; 2.00 us</title></rect>");
    assert_has(s, "<rect x=\"300.0\" y=\"52\" width=\"193.3\" height=\"13\" fill=\"#2ca02c\">"
                  "<title>faster -1.00 us</title></rect>");
    assert_has(s, "<text x=\"493.3\" y=\"24\" text-anchor=\"middle\">0 ns</text>");
    assert_null(strstr(s, "<?xml"));   /* inlined in HTML as is */
    free(s);
}

/* Two series stacked: the second segment starts where the first ends,
 * and a legend (22 px) pushes the bars down. */
static void test_bars_stacked(void **state)
{
    (void)state;
    const char *labels[] = {"step 1"};
    const char *series[] = {"Compute", "Idle"};
    double v[] = {30, 30};
    vp_bar_chart c = {NULL, series, 2, labels, 1, v, VP_COL_PERCENT, 0};
    FILE *f = capture();
    assert_int_equal(vp_bars_svg(f, &c), 0);
    char *s = done(f);
    /* 0..60 % in steps of 10: 30 % is 290 px of 580 */
    assert_has(s, "<rect x=\"300.0\" y=\"56\" width=\"290.0\" height=\"13\" fill=\"#1f77b4\">"
                  "<title>step 1: Compute 30.0%</title></rect>");
    assert_has(s, "<rect x=\"590.0\" y=\"56\" width=\"290.0\" height=\"13\" fill=\"#d62728\">"
                  "<title>step 1: Idle 30.0%</title></rect>");
    assert_has(s, ">Compute</text>");
    /* legend entries 130 px apart */
    assert_has(s, "<rect x=\"430\" y=\"4\" width=\"12\" height=\"12\" fill=\"#d62728\"/>");
    free(s);
}

/* A legend entry after a long name (step_trace_time's) moves over by
 * 30 px and 6.5 px a character, not the 130 px the short ones take. */
static void test_bars_long_legend(void **state)
{
    (void)state;
    const char *labels[] = {"Step 1"};
    const char *series[] = {"Computing", "Communication(Not Overlapped)", "Free"};
    double v[] = {1, 2, 3};
    vp_bar_chart c = {NULL, series, 3, labels, 1, v, VP_COL_NS, 0};
    FILE *f = capture();
    assert_int_equal(vp_bars_svg(f, &c), 0);
    char *s = done(f);
    /* 300 + 130, then + 30 + 6.5 * 29 = 218.5 */
    assert_has(s, "<text x=\"446\" y=\"14\">Communication(Not Overlapped)</text>");
    assert_has(s, "<rect x=\"648\" y=\"4\" width=\"12\" height=\"12\" fill=\"#2ca02c\"/>");
    free(s);
}

static vp_table *sample(void)
{
    vp_table *t = vp_table_new("k");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Start", VP_COL_CLOCK, 0);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    for (int i = 0; i < 3; i++) {
        size_t r = vp_table_add_row(t);
        vp_table_set_int(t, r, 0, i);
        vp_table_set_int(t, r, 1, 1700000000000000LL);
        vp_table_set_int(t, r, 2, 1500 * (i + 1));
        vp_table_set_text(t, r, 3, i ? "b" : "a<&>\"");
    }
    vp_table_add_note(t, "a note & more");
    return t;
}

/* Human cells, raw value as title and sort key, the rank on the row, no
 * clock column, escaping, rows past max_rows counted, notes. */
static void test_html_table(void **state)
{
    (void)state;
    vp_table *t = sample();
    FILE *f = capture();
    vp_html_table(f, t, 2, "vprof kernels");
    char *s = done(f);
    assert_has(s, "<thead><tr><th scope=\"col\">Rank</th><th scope=\"col\">Total Time</th>"
                  "<th scope=\"col\">Name</th></tr></thead>");
    assert_has(s, "<tr data-rank=\"0\"><td data-v=\"0\" title=\"0\">0</td>"
                  "<td data-v=\"1500\" title=\"1500\">1.50 us</td>"
                  "<td class=\"t\">a&lt;&amp;&gt;&quot;</td></tr>");
    assert_null(strstr(s, "data-rank=\"2\""));
    assert_has(s, "<p class=\"note\">1 more rows: vprof kernels prints them all.</p>");
    assert_has(s, "<p class=\"note\">a note &amp; more</p>");
    assert_null(strstr(s, "1700000000000000"));
    free(s);
    vp_table_free(t);
}

/* A chart of a table's columns: labels from the named columns, a column
 * that is not there left out; none at all draws nothing. */
static void test_html_chart(void **state)
{
    (void)state;
    vp_table *t = sample();
    const char *label[] = {"Rank", "Name"}, *vals[] = {"Total Time", "Missing"};
    FILE *f = capture();
    assert_int_equal(vp_html_chart(f, t, "time", label, 2, vals, 2, 2, 0), 0);
    const char *none[] = {"Nothing"};
    assert_int_equal(vp_html_chart(f, t, "none", label, 2, none, 1, 0, 0), -1);
    char *s = done(f);
    assert_has(s, "<figure>\n<figcaption>time</figcaption>\n<svg ");
    assert_has(s, "<title>Rank 0 \xc2\xb7 a&lt;&amp;&gt;&quot; 1.50 us</title>");
    assert_has(s, "<title>Rank 1 \xc2\xb7 b 3.00 us</title>");
    assert_null(strstr(s, "Rank 2"));   /* max_bars 2 */
    assert_null(strstr(s, "none"));
    free(s);
    vp_table_free(t);
}

static void test_html_findings(void **state)
{
    (void)state;
    vp_table *t = vp_table_new("findings");
    vp_table_add_col(t, "Rule", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Finding", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Evidence", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Suggestion", VP_COL_TEXT, 0);
    FILE *f = capture();
    vp_html_findings(f, t);
    size_t r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "idle");
    vp_table_set_text(t, r, 1, "GPU idle 53%");
    vp_table_set_text(t, r, 2, "idle > 20%");
    vp_table_set_text(t, r, 3, "overlap");
    vp_html_findings(f, t);
    char *s = done(f);
    assert_has(s, "<p>No finding: every rule's threshold holds");
    assert_has(s, "<li><strong>GPU idle 53%</strong> <span class=\"note\">[idle]</span>"
                  "<br>Evidence: idle &gt; 20%<br>Try: overlap</li>");
    free(s);
    vp_table_free(t);
}

/* The whole document: one head, the nav, the script, the end. */
static void test_html_document(void **state)
{
    (void)state;
    const char *ids[] = {"overview"}, *titles[] = {"Overview"};
    FILE *f = capture();
    vp_html_begin(f, "vprof report: a&b", NULL, ids, titles, 1);
    vp_html_section(f, "overview", "Overview");
    vp_html_section_end(f);
    assert_int_equal(vp_html_end(f), 0);
    char *s = done(f);
    assert_int_equal(strncmp(s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n", 40), 0);
    assert_has(s, "<title>vprof report: a&amp;b</title>");
    assert_has(s, "<nav><a href=\"#overview\">Overview</a></nav>");
    assert_has(s, "<section id=\"overview\">\n<h2>Overview</h2>\n</section>\n");
    assert_has(s, "prefers-color-scheme:dark");
    assert_has(s, "@page{size:A4");
    assert_null(strstr(s, "http://"));
    assert_null(strstr(s, "https://"));
    assert_has(s, "</script>\n");
    assert_int_equal(strcmp(s + strlen(s) - 16, "</body>\n</html>\n"), 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bars_diverging), cmocka_unit_test(test_bars_stacked),
        cmocka_unit_test(test_bars_long_legend),
        cmocka_unit_test(test_html_table),     cmocka_unit_test(test_html_chart),
        cmocka_unit_test(test_html_findings),  cmocka_unit_test(test_html_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
