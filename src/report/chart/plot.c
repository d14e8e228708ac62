/* SVG step charts of bytes over time (see vprof/plot.h). */
#include <stdio.h>
#include <stdlib.h>

#include "vprof/plot.h"
#include "vprof/table.h"

#define W 1000
#define H 500
#define ML 90      /* margins: room for the y labels */
#define MR 30
#define MT 60
#define MB 50

const char *const vp_plot_palette[VP_PLOT_COLORS] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

void vp_svg_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, out);
        }
    }
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about n ticks. */
double vp_plot_nice_step(double range, int n)
{
    double raw = range / n, p = 1;
    while (p * 10 <= raw)
        p *= 10;
    while (p > raw)
        p /= 10;
    if (raw / p >= 5)
        return 5 * p;
    if (raw / p >= 2)
        return 2 * p;
    return p;
}

typedef struct frame {
    double x0, x1, ymax;
} frame;

static double px(const frame *f, double x)
{
    return ML + (x - f->x0) / (f->x1 - f->x0) * (W - ML - MR);
}

static double py(const frame *f, double v)
{
    double ph = H - MT - MB;
    return MT + ph - v / f->ymax * ph;
}

/* One step function, decimated to min/max per pixel column. */
static void polyline(FILE *out, const frame *f, const vp_plot_series *s, const int64_t *y,
                     const char *color, int dashed)
{
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"", color,
            dashed ? "1.2" : "1.6", dashed ? " stroke-dasharray=\"5,3\"" : "");
    long col = -1;
    int64_t lo = y[0], hi = y[0], last = y[0];
    double prev = px(f, s->x[0]);
    fprintf(out, "%.1f,%.1f", prev, py(f, (double)y[0]));
    for (size_t k = 1; k < s->n; k++) {
        double x = px(f, s->x[k]);
        long c = (long)x;
        if (c != col) {
            if (col >= 0 && hi != lo)
                fprintf(out, " %.1f,%.1f %.1f,%.1f", prev, py(f, (double)lo), prev, py(f, (double)hi));
            if (col >= 0)
                fprintf(out, " %.1f,%.1f", prev, py(f, (double)last));
            fprintf(out, " %.1f,%.1f", x, py(f, (double)last));  /* the step's run */
            col = c;
            lo = hi = y[k];
            prev = x;
        }
        if (y[k] < lo)
            lo = y[k];
        if (y[k] > hi)
            hi = y[k];
        last = y[k];
    }
    if (hi != lo)
        fprintf(out, " %.1f,%.1f %.1f,%.1f", prev, py(f, (double)lo), prev, py(f, (double)hi));
    fprintf(out, " %.1f,%.1f %.1f,%.1f", prev, py(f, (double)last), px(f, f->x1),
            py(f, (double)last));
    fputs("\"/>\n", out);
}

int vp_plot_svg(FILE *out, const char *title, const char *x_label, const char *legend_suffix,
                const vp_plot_series *series, size_t n)
{
    frame f = {0, 0, 1};
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        const vp_plot_series *s = &series[i];
        for (size_t k = 0; k < s->n; k++) {
            if (first || s->x[k] < f.x0)
                f.x0 = s->x[k];
            if (first || s->x[k] > f.x1)
                f.x1 = s->x[k];
            first = 0;
            if ((double)s->solid[k] > f.ymax)
                f.ymax = (double)s->solid[k];
            if (s->dashed && (double)s->dashed[k] > f.ymax)
                f.ymax = (double)s->dashed[k];
        }
    }
    if (f.x1 <= f.x0)
        f.x1 = f.x0 + 1;
    /* Steps that are round in the unit the labels use (KiB, MiB, GiB). */
    double unit = 1;
    while (f.ymax / unit >= 1024)
        unit *= 1024;
    double ystep = vp_plot_nice_step(f.ymax / unit, 5) * unit;
    f.ymax = ystep * (double)(long)(f.ymax / ystep + 0.999);
    if (f.ymax <= 0)
        f.ymax = 1;

    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    fputs("<text x=\"90\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", out);
    vp_svg_text(out, title);
    fputs("</text>\n", out);

    /* Axes and grid. */
    double pw = W - ML - MR, ph = H - MT - MB;
    for (double v = 0; v <= f.ymax * 1.0001; v += ystep) {
        char lab[32];
        vp_human_bytes(lab, sizeof lab, v);
        double y = py(&f, v);
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, y,
                W - MR, y);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", ML - 6, y + 4, lab);
    }
    double xstep = vp_plot_nice_step(f.x1 - f.x0, 8);
    for (double v = xstep * (double)(long)(f.x0 / xstep); v <= f.x1 * 1.0001; v += xstep) {
        if (v < f.x0)
            continue;
        double x = px(&f, v);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>\n", x, MT, x,
                H - MB);
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, H - MB + 16, v);
    }
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n",
            ML, MT, pw, ph);
    fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", ML + pw / 2, H - 12);
    vp_svg_text(out, x_label);
    fputs("</text>\n", out);

    for (size_t i = 0; i < n; i++) {
        const vp_plot_series *s = &series[i];
        const char *color = vp_plot_palette[i % VP_PLOT_COLORS];
        if (s->dashed)
            polyline(out, &f, s, s->dashed, color, 1);
        polyline(out, &f, s, s->solid, color, 0);
        /* The peak: a dot and its value. */
        double x = px(&f, s->x[s->peak]), y = py(&f, (double)s->solid[s->peak]);
        int left = x > ML + pw * 0.6;
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x, y, color);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\"%s>", x + (left ? -8 : 8), y - 8, color,
                left ? " text-anchor=\"end\"" : "");
        vp_svg_text(out, s->peak_label);
        fputs("</text>\n", out);
        /* Legend. */
        double lx = ML + (double)i * 190;
        fprintf(out, "<line x1=\"%.0f\" y1=\"40\" x2=\"%.0f\" y2=\"40\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                lx, lx + 20, color);
        fprintf(out, "<text x=\"%.0f\" y=\"44\">", lx + 24);
        vp_svg_text(out, s->label);
        fputc(' ', out);
        vp_svg_text(out, legend_suffix);
        fputs("</text>\n", out);
    }
    if (n == 0)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no device with data</text>\n",
                ML + pw / 2, MT + ph / 2);
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}

void vp_plot_series_free(vp_plot_series *series, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free((void *)series[i].label);
        free((void *)series[i].peak_label);
        free((void *)series[i].x);
        free((void *)series[i].solid);
        free((void *)series[i].dashed);
    }
    free(series);
}
