/* The HTML page of vprof report (see vprof/html.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/html.h"
#include "vprof/plot.h"
#include "vprof/util.h"

#define CELL_BUF 400

/* Light by default, dark where the system asks; on paper: black on white,
 * no navigation, a chart or a table row never cut by a page break. */
static const char css[] =
    ":root{--fg:#1b1f24;--bg:#fff;--mute:#5b6470;--line:#d0d7de;--head:#f3f5f7;--warn:#fff4e5;}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--mute:#9aa5b1;"
    "--line:#30363d;--head:#161b22;--warn:#2b2111;}}\n"
    "body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;"
    "max-width:1100px;padding:0 16px 40px}\n"
    "h1{font-size:22px;margin:18px 0 2px}h2{font-size:18px;border-bottom:1px solid var(--line);"
    "padding-bottom:4px;margin-top:28px}h3{font-size:15px;margin:18px 0 6px}\n"
    ".sub,.note,figcaption{color:var(--mute)}nav a{margin-right:12px}a{color:#0969da}\n"
    "table{border-collapse:collapse;margin:6px 0;font-size:12.5px}th,td{border:1px solid var(--line);"
    "padding:2px 7px;text-align:right;vertical-align:top}th{background:var(--head);cursor:pointer}\n"
    "td.t{text-align:left;max-width:520px;overflow-wrap:anywhere}\n"
    ".wide{overflow-x:auto}figure{margin:10px 0}svg.chart{max-width:100%;height:auto}\n"
    "ol.findings li{background:var(--warn);margin:6px 0;padding:6px 10px;border-radius:4px}\n"
    "#ranks{margin:8px 0}\n"
    "@page{size:A4;margin:12mm}\n"
    "@media print{body{max-width:none;font-size:11px;color:#000;"
    "background:#fff}nav,#ranks{display:none}figure,tr{break-inside:avoid}"
    "section{break-before:auto}h2,h3{break-after:avoid}.wide{overflow:visible}}\n";

/* Sorting by a header's column (numbers by the raw value in data-v), and
 * one rank at a time for the rows that carry data-rank.  Without it the
 * tables keep the order the command prints and every rank shows. */
static const char script[] =
    "(function(){\n"
    "document.querySelectorAll('table.sortable th').forEach(function(th,i){\n"
    " th.addEventListener('click',function(){\n"
    "  var tb=th.closest('table').tBodies[0],rows=Array.prototype.slice.call(tb.rows);\n"
    "  var up=th.getAttribute('aria-sort')!=='ascending';\n"
    "  th.closest('tr').querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});\n"
    "  th.setAttribute('aria-sort',up?'ascending':'descending');\n"
    "  function key(r){var c=r.cells[i];if(!c)return '';var v=c.getAttribute('data-v');"
    "return v===null?c.textContent:parseFloat(v);}\n"
    "  rows.sort(function(a,b){var x=key(a),y=key(b);var d=(typeof x==='number'&&typeof y==="
    "'number')?x-y:String(x).localeCompare(String(y));return up?d:-d;});\n"
    "  rows.forEach(function(r){tb.appendChild(r);});\n"
    " });\n"
    "});\n"
    "var sel=document.getElementById('rank-select');\n"
    "if(sel){var seen={};document.querySelectorAll('tr[data-rank]').forEach(function(r){\n"
    " var k=r.getAttribute('data-rank');if(!seen[k]){seen[k]=1;var o=document.createElement('option');"
    "o.value=k;o.textContent='rank '+k;sel.appendChild(o);}});\n"
    " if(Object.keys(seen).length>1){document.getElementById('ranks').hidden=false;}\n"
    " sel.addEventListener('change',function(){var v=sel.value;"
    "document.querySelectorAll('tr[data-rank]').forEach(function(r){"
    "r.hidden=!(v==='all'||r.getAttribute('data-rank')===v);});});}\n"
    "})();\n";

void vp_html_begin(FILE *out, const char *title, const char *subtitle, const char *const *nav_ids,
                   const char *const *nav_titles, size_t n)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"color-scheme\" content=\"light dark\">\n<title>",
          out);
    vp_svg_text(out, title);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>", css);
    vp_svg_text(out, title);
    fputs("</h1>\n", out);
    if (subtitle) {
        fputs("<p class=\"sub\">", out);
        vp_svg_text(out, subtitle);
        fputs("</p>\n", out);
    }
    if (n) {
        fputs("<nav>", out);
        for (size_t i = 0; i < n; i++) {
            fputs("<a href=\"#", out);
            vp_svg_text(out, nav_ids[i]);
            fputs("\">", out);
            vp_svg_text(out, nav_titles[i]);
            fputs("</a>", out);
        }
        fputs("</nav>\n", out);
    }
    /* Shown by the script when the page has rows of several ranks. */
    fputs("<div id=\"ranks\" hidden><label>Ranks shown: <select id=\"rank-select\">"
          "<option value=\"all\">all</option></select></label></div>\n</header>\n",
          out);
}

void vp_html_section(FILE *out, const char *id, const char *title)
{
    fputs("<section id=\"", out);
    vp_svg_text(out, id);
    fputs("\">\n<h2>", out);
    vp_svg_text(out, title);
    fputs("</h2>\n", out);
}

void vp_html_section_end(FILE *out)
{
    fputs("</section>\n", out);
}

void vp_html_heading(FILE *out, const char *text)
{
    fputs("<h3>", out);
    vp_svg_text(out, text);
    fputs("</h3>\n", out);
}

void vp_html_para(FILE *out, const char *text)
{
    fputs("<p>", out);
    vp_svg_text(out, text);
    fputs("</p>\n", out);
}

static int is_number_col(vp_col_type type)
{
    return type != VP_COL_TEXT;
}

void vp_html_table(FILE *out, const vp_table *t, size_t max_rows, const char *more_cmd)
{
    int ncols = vp_table_cols(t), rank_col = vp_table_find_col(t, "Rank");
    size_t nrows = vp_table_rows(t), shown = max_rows && nrows > max_rows ? max_rows : nrows;
    char buf[CELL_BUF];
    fputs("<div class=\"wide\"><table class=\"sortable\" data-table=\"", out);
    vp_svg_text(out, vp_table_name(t));
    fputs("\">\n<thead><tr>", out);
    for (int c = 0; c < ncols; c++) {
        /* A clock is for programs joining on it (table.h): not for a page. */
        if (vp_table_col_type(t, c) == VP_COL_CLOCK)
            continue;
        fputs("<th scope=\"col\">", out);
        vp_svg_text(out, vp_table_col_title(t, c));
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t r = 0; r < shown; r++) {
        double rank;
        if (rank_col >= 0 && vp_table_cell_number(t, r, rank_col, &rank))
            fprintf(out, "<tr data-rank=\"%.0f\">", rank);
        else
            fputs("<tr>", out);
        for (int c = 0; c < ncols; c++) {
            vp_col_type type = vp_table_col_type(t, c);
            if (type == VP_COL_CLOCK)
                continue;
            double v;
            const char *text = vp_table_cell_human(t, r, c, buf, sizeof buf);
            if (is_number_col(type) && vp_table_cell_number(t, r, c, &v))
                fprintf(out, "<td data-v=\"%.17g\" title=\"%.17g\">", v, v);
            else
                fputs(is_number_col(type) ? "<td>" : "<td class=\"t\">", out);
            vp_svg_text(out, text);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n", out);
    if (shown < nrows) {
        fprintf(out, "<p class=\"note\">%zu more rows: ", nrows - shown);
        vp_svg_text(out, more_cmd ? more_cmd : "the command line tool");
        fputs(" prints them all.</p>\n", out);
    }
    for (size_t i = 0; i < vp_table_nnotes(t); i++) {
        fputs("<p class=\"note\">", out);
        vp_svg_text(out, vp_table_note(t, i));
        fputs("</p>\n", out);
    }
}

void vp_html_findings(FILE *out, const vp_table *f)
{
    int what = vp_table_find_col(f, "Finding"), ev = vp_table_find_col(f, "Evidence"),
        sug = vp_table_find_col(f, "Suggestion"), rule = vp_table_find_col(f, "Rule");
    char buf[CELL_BUF];
    if (!vp_table_rows(f) || what < 0) {
        fputs("<p>No finding: every rule's threshold holds (vprof summary --list-thresholds).</p>\n",
              out);
        return;
    }
    fputs("<ol class=\"findings\">\n", out);
    for (size_t r = 0; r < vp_table_rows(f); r++) {
        fputs("<li><strong>", out);
        vp_svg_text(out, vp_table_cell_human(f, r, what, buf, sizeof buf));
        fputs("</strong>", out);
        if (rule >= 0) {
            fputs(" <span class=\"note\">[", out);
            vp_svg_text(out, vp_table_cell_human(f, r, rule, buf, sizeof buf));
            fputs("]</span>", out);
        }
        if (ev >= 0) {
            fputs("<br>Evidence: ", out);
            vp_svg_text(out, vp_table_cell_human(f, r, ev, buf, sizeof buf));
        }
        if (sug >= 0) {
            fputs("<br>Try: ", out);
            vp_svg_text(out, vp_table_cell_human(f, r, sug, buf, sizeof buf));
        }
        fputs("</li>\n", out);
    }
    fputs("</ol>\n", out);
}

void vp_html_figure_begin(FILE *out, const char *caption)
{
    fputs("<figure>\n", out);
    if (caption) {
        fputs("<figcaption>", out);
        vp_svg_text(out, caption);
        fputs("</figcaption>\n", out);
    }
}

void vp_html_figure_end(FILE *out)
{
    fputs("</figure>\n", out);
}

/* "Rank 0 · Step 551": a number says which column it is from, a text
 * (a kernel's name) reads alone. */
static char *bar_label(const vp_table *t, size_t r, const int *cols, size_t n)
{
    vp_buf b = {0};
    char buf[CELL_BUF];
    for (size_t i = 0; i < n; i++) {
        const char *v = vp_table_cell_human(t, r, cols[i], buf, sizeof buf);
        vp_buf_printf(&b, "%s", i ? " \xc2\xb7 " : "");
        if (vp_table_col_type(t, cols[i]) != VP_COL_TEXT)
            vp_buf_printf(&b, "%s ", vp_table_col_title(t, cols[i]));
        vp_buf_printf(&b, "%s", v);
    }
    vp_buf_cstr(&b);
    return b.data;
}

int vp_html_chart(FILE *out, const vp_table *t, const char *title, const char *const *label_cols,
                  size_t nlabels, const char *const *value_cols, size_t nvalues, size_t max_bars,
                  int sign_colors)
{
    int lc[4], vc[8];
    const char *series[8];
    size_t nl = 0, nv = 0, nbars = vp_table_rows(t);
    for (size_t i = 0; i < nlabels && nl < 4; i++)
        if ((lc[nl] = vp_table_find_col(t, label_cols[i])) >= 0)
            nl++;
    for (size_t i = 0; i < nvalues && nv < 8; i++)
        if ((vc[nv] = vp_table_find_col(t, value_cols[i])) >= 0)
            series[nv++] = value_cols[i];
    if (max_bars && nbars > max_bars)
        nbars = max_bars;
    if (!nbars || !nv || !nl)
        return -1;
    char **labels = vp_calloc(nbars, sizeof *labels);
    double *values = vp_calloc(nbars * nv, sizeof *values);
    for (size_t r = 0; r < nbars; r++) {
        labels[r] = bar_label(t, r, lc, nl);
        for (size_t s = 0; s < nv; s++)
            if (!vp_table_cell_number(t, r, vc[s], &values[r * nv + s]))
                values[r * nv + s] = 0;
    }
    vp_bar_chart c = {title, series, nv, (const char *const *)labels, nbars, values,
                      vp_table_col_type(t, vc[0]), sign_colors};
    vp_html_figure_begin(out, title);
    vp_bars_svg(out, &c);
    vp_html_figure_end(out);
    for (size_t r = 0; r < nbars; r++)
        free(labels[r]);
    free(labels);
    free(values);
    return 0;
}

int vp_html_end(FILE *out)
{
    fprintf(out, "<script>\n%s</script>\n", script);
    fputs("<footer class=\"note\"><p>Written by vprof report; every number is also in "
          "<code>vprof report -f json</code>.</p></footer>\n</body>\n</html>\n",
          out);
    return ferror(out) ? -1 : 0;
}
