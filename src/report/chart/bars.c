/* SVG horizontal bar charts: plain, stacked and diverging (vprof/plot.h).
 *
 * One bar per row, its label on the left, the axis on top.  The numbers
 * are the caller's: a chart only places them, and each segment carries
 * its value as a <title>, which browsers show on hover. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vprof/plot.h"

#define W 900
#define LABEL_W 300   /* room for the bar labels */
#define MR 20
#define MT 34         /* the axis labels, above the bars */
#define ROW 18        /* one bar's height with its gap */
#define BAR 13
#define LEGEND 22
#define LABEL_CHARS 40  /* a longer label is cut, whole in its title */

/* buf: 72 bytes at least. */
static void human(char *buf, size_t n, vp_col_type unit, double v)
{
    char tmp[64];
    double a = fabs(v);
    switch (unit) {
    case VP_COL_NS:
    case VP_COL_NS_F:
        vp_human_ns(tmp, sizeof tmp, a);
        break;
    case VP_COL_BYTES:
        vp_human_bytes(tmp, sizeof tmp, a);
        break;
    case VP_COL_PERCENT:
        snprintf(tmp, sizeof tmp, "%.1f%%", a);
        break;
    default:
        snprintf(tmp, sizeof tmp, "%.3g", a);
    }
    snprintf(buf, n, "%s%s", v < 0 ? "-" : "", tmp);
}

/* A label cut to LABEL_CHARS characters (UTF-8 aware), with an ellipsis. */
static void cut_label(FILE *out, const char *s)
{
    size_t chars = 0, i = 0;
    for (; s[i] && chars < LABEL_CHARS; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            chars++;
    while (s[i] && ((unsigned char)s[i] & 0xc0) == 0x80)
        i++;
    if (!s[i]) {
        vp_svg_text(out, s);
        return;
    }
    char buf[4 * LABEL_CHARS + 8];
    memcpy(buf, s, i);
    strcpy(buf + i, "\xe2\x80\xa6");
    vp_svg_text(out, buf);
}

int vp_bars_svg(FILE *out, const vp_bar_chart *c)
{
    size_t k = c->nseries ? c->nseries : 1;
    double lo = 0, hi = 0;
    for (size_t b = 0; b < c->nbars; b++) {
        double pos = 0, neg = 0;
        for (size_t s = 0; s < k; s++) {
            double v = c->values[b * k + s];
            if (!isfinite(v))
                continue;
            if (v > 0)
                pos += v;
            else
                neg += v;
        }
        if (pos > hi)
            hi = pos;
        if (neg < lo)
            lo = neg;
    }
    if (hi <= lo)
        hi = lo + 1;
    double step = vp_plot_nice_step(hi - lo, 6);
    lo = step * floor(lo / step);
    hi = step * ceil(hi / step);
    int legend = k > 1 ? LEGEND : 0;
    int h = MT + legend + (int)c->nbars * ROW + 8;
    double pw = W - LABEL_W - MR;
#define PX(v) (LABEL_W + ((v) - lo) / (hi - lo) * pw)
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\" fill=\"currentColor\" "
                 "role=\"img\">\n",
            W, h, W, h);
    if (c->title) {
        fputs("<title>", out);
        vp_svg_text(out, c->title);
        fputs("</title>\n", out);
    }
    /* 130 px a legend entry, more for a long name (step_trace_time's
     * "Communication(Not Overlapped)"), at about 6.5 px a character */
    double lx = LABEL_W;
    for (size_t s = 0; k > 1 && s < k; s++) {
        if (s) {
            double w = 30 + 6.5 * (double)strlen(c->series[s - 1]);
            lx += w > 130 ? w : 130;
        }
        double x = lx;
        fprintf(out, "<rect x=\"%.0f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, 4,
                vp_plot_palette[s % VP_PLOT_COLORS]);
        fprintf(out, "<text x=\"%.0f\" y=\"14\">", x + 16);
        vp_svg_text(out, c->series[s]);
        fputs("</text>\n", out);
    }
    int top = legend + MT;
    for (double v = lo; v <= hi + step * 1e-9; v += step) {
        char lab[72];
        human(lab, sizeof lab, c->unit, fabs(v) < step * 1e-9 ? 0 : v);
        double x = PX(v);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"currentColor\" "
                     "stroke-opacity=\"%s\"/>",
                x, top - 6, x, h - 8, fabs(v) < step * 1e-9 ? "0.6" : "0.15");
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, top - 10, lab);
    }
    for (size_t b = 0; b < c->nbars; b++) {
        double y = top + (double)b * ROW;
        fprintf(out, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\"><title>", LABEL_W - 6, y + BAR - 3);
        vp_svg_text(out, c->labels[b]);
        fputs("</title>", out);
        cut_label(out, c->labels[b]);
        fputs("</text>\n", out);
        double pos = 0, neg = 0;
        for (size_t s = 0; s < k; s++) {
            double v = c->values[b * k + s];
            if (!isfinite(v) || v == 0)
                continue;
            double from = v > 0 ? pos : neg + v;
            if (v > 0)
                pos += v;
            else
                neg += v;
            const char *color = c->sign_colors && k == 1 ? (v > 0 ? "#d62728" : "#2ca02c")
                                                         : vp_plot_palette[s % VP_PLOT_COLORS];
            char lab[72];
            human(lab, sizeof lab, c->unit, v);
            fprintf(out, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>",
                    PX(from), y, PX(from + fabs(v)) - PX(from), BAR, color);
            vp_svg_text(out, c->labels[b]);
            if (k > 1) {
                fputs(": ", out);
                vp_svg_text(out, c->series[s]);
            }
            fprintf(out, " %s</title></rect>\n", lab);
        }
    }
#undef PX
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
