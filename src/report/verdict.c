/* Gate outcomes as a table, GitHub annotations or JUnit XML. */
#include <stdio.h>
#include <string.h>

#include "vprof/verdict.h"

vp_table *vp_verdict_table(const vp_verdict *v, size_t n)
{
    vp_table *t = vp_table_new("gates");
    vp_table_add_col(t, "Gate", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Kind", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Result", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Detail", VP_COL_TEXT, 0);
    for (size_t i = 0; i < n; i++) {
        size_t r = vp_table_add_row(t);
        vp_table_set_text(t, r, 0, v[i].gate);
        vp_table_set_text(t, r, 1, v[i].kind);
        vp_table_set_text(t, r, 2, v[i].failed ? "FAIL" : "pass");
        vp_table_set_text(t, r, 3, v[i].detail);
    }
    return t;
}

/* Workflow command data: %, CR and LF are escaped; properties also : and ,. */
static void gh_escape(FILE *out, const char *s, int property)
{
    for (; *s; s++) {
        switch (*s) {
        case '%': fputs("%25", out); break;
        case '\r': fputs("%0D", out); break;
        case '\n': fputs("%0A", out); break;
        case ':': fputs(property ? "%3A" : ":", out); break;
        case ',': fputs(property ? "%2C" : ",", out); break;
        default: fputc(*s, out);
        }
    }
}

int vp_verdict_github(FILE *out, const char *tool, const vp_verdict *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "::%s title=", v[i].failed ? "error" : "notice");
        char title[96];
        snprintf(title, sizeof title, "%s %s %s", tool, v[i].kind, v[i].failed ? "failed" : "passed");
        gh_escape(out, title, 1);
        fputs("::", out);
        gh_escape(out, v[i].gate, 0);
        fputs(": ", out);
        gh_escape(out, v[i].detail, 0);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

static void xml_escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if (c >= 0x20 || c == '\t' || c == '\n')
                fputc(c, out);  /* other control characters are not allowed in XML 1.0 */
        }
    }
}

int vp_verdict_junit(FILE *out, const char *tool, const vp_verdict *v, size_t n)
{
    size_t failures = 0;
    for (size_t i = 0; i < n; i++)
        failures += (size_t)v[i].failed;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites tests=\"%zu\" failures=\"%zu\">\n", n, failures);
    fputs("  <testsuite name=\"", out);
    xml_escape(out, tool);
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", n, failures);
    for (size_t i = 0; i < n; i++) {
        fputs("    <testcase classname=\"", out);
        xml_escape(out, tool);
        fputc('.', out);
        xml_escape(out, v[i].kind);
        fputs("\" name=\"", out);
        xml_escape(out, v[i].gate);
        if (!v[i].failed) {
            fputs("\">\n      <system-out>", out);
            xml_escape(out, v[i].detail);
            fputs("</system-out>\n    </testcase>\n", out);
            continue;
        }
        fputs("\">\n      <failure message=\"", out);
        xml_escape(out, v[i].detail);
        fputs("\" type=\"gate\"/>\n    </testcase>\n", out);
    }
    fputs("  </testsuite>\n</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
