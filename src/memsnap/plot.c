/* The SVG chart of `vprof memory --plot`.
 *
 * Plain SVG 1.1 with inline attributes only (no scripts, no external
 * fonts or styles), so that a browser shows the file as is and it can be
 * attached to a bug report.  A trace of millions of events is decimated
 * to the minimum and maximum per pixel column, which keeps every spike
 * visible. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/memsnap.h"
#include "vprof/table.h"
#include "vprof/util.h"

#define W 1000
#define H 500
#define ML 90      /* margins: room for the y labels */
#define MR 30
#define MT 60
#define MB 50

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

typedef struct series {
    const vp_ms_device *dev;
    int64_t *active, *reserved;  /* dev->nevents + 1 points */
    vp_ms_stats st;
} series;

static void xml_text(FILE *out, const char *s)
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

/* x of point k (0 = before the first event) in axis units. */
static double point_x(const series *sr, size_t k, int use_time, int64_t t0)
{
    const vp_ms_device *d = sr->dev;
    if (!use_time)
        return (double)k - 1.0;
    if (d->nevents == 0)
        return 0.0;
    int64_t t = k == 0 ? d->events[0].time_us : d->events[k - 1].time_us;
    return (double)(t - t0) / 1e6;
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double range, int n)
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

static void polyline(FILE *out, const series *sr, const int64_t *y, size_t npts, int use_time,
                     int64_t t0, double x0, double x1, double ymax, const char *color, int dashed)
{
    double pw = W - ML - MR, ph = H - MT - MB;
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"", color,
            dashed ? "1.2" : "1.6", dashed ? " stroke-dasharray=\"5,3\"" : "");
#define PX(x) (ML + ((x) - x0) / (x1 - x0) * pw)
#define PY(v) (MT + ph - (double)(v) / ymax * ph)
    if (sr->dev->nevents == 0) {
        /* No trace: the state was flat at the snapshot's value. */
        fprintf(out, "%.1f,%.1f %.1f,%.1f", (double)ML, PY(y[0]), (double)(W - MR), PY(y[0]));
    } else {
        /* A step function, decimated to min/max per pixel column. */
        long col = -1;
        int64_t lo = 0, hi = 0, last = y[0];
        double prev_px = PX(point_x(sr, 0, use_time, t0));
        fprintf(out, "%.1f,%.1f", prev_px, PY(y[0]));
        for (size_t k = 1; k < npts; k++) {
            double px = PX(point_x(sr, k, use_time, t0));
            long c = (long)px;
            if (c != col) {
                if (col >= 0 && hi != lo)
                    fprintf(out, " %.1f,%.1f %.1f,%.1f", prev_px, PY(lo), prev_px, PY(hi));
                if (col >= 0)
                    fprintf(out, " %.1f,%.1f", prev_px, PY(last));
                fprintf(out, " %.1f,%.1f", px, PY(last));   /* the step's run */
                col = c;
                lo = hi = y[k];
                prev_px = px;
            }
            if (y[k] < lo)
                lo = y[k];
            if (y[k] > hi)
                hi = y[k];
            last = y[k];
        }
        if (hi != lo)
            fprintf(out, " %.1f,%.1f %.1f,%.1f", prev_px, PY(lo), prev_px, PY(hi));
        fprintf(out, " %.1f,%.1f", prev_px, PY(last));
        if (!use_time)
            fprintf(out, " %.1f,%.1f", PX(x1), PY(last));
    }
    fputs("\"/>\n", out);
}

int vp_ms_plot_svg(FILE *out, const vp_memsnap *s, const char *title)
{
    size_t n = s->ndevices;
    series *sr = vp_calloc(n ? n : 1, sizeof *sr);
    int use_time = 1, any_events = 0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    size_t maxev = 0;
    double ymax = 1;
    for (size_t i = 0; i < n; i++) {
        sr[i].dev = &s->devices[i];
        vp_ms_device_stats(s, sr[i].dev, &sr[i].st);
        vp_ms_timeline(s, sr[i].dev, &sr[i].active, &sr[i].reserved);
        for (size_t k = 0; k < sr[i].dev->nevents; k++) {
            const vp_ms_event *e = &sr[i].dev->events[k];
            any_events = 1;
            if (!e->has_time) {
                use_time = 0;
                continue;
            }
            if (e->time_us < t0)
                t0 = e->time_us;
            if (e->time_us > t1)
                t1 = e->time_us;
        }
        if (sr[i].dev->nevents > maxev)
            maxev = sr[i].dev->nevents;
        for (size_t k = 0; k <= sr[i].dev->nevents; k++) {
            if ((double)sr[i].active[k] > ymax)
                ymax = (double)sr[i].active[k];
            if ((double)sr[i].reserved[k] > ymax)
                ymax = (double)sr[i].reserved[k];
        }
    }
    if (!any_events || t1 <= t0)
        use_time = 0;
    double x0 = use_time ? 0 : -1, x1 = use_time ? (double)(t1 - t0) / 1e6 : (double)maxev;
    if (x1 <= x0)
        x1 = x0 + 1;
    double ystep = nice_step(ymax, 5);
    ymax = ystep * (double)(long)(ymax / ystep + 0.999);
    if (ymax <= 0)
        ymax = 1;

    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    fputs("<text x=\"90\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", out);
    xml_text(out, title);
    fputs("</text>\n", out);

    /* Axes and grid. */
    double pw = W - ML - MR, ph = H - MT - MB;
    for (double v = 0; v <= ymax * 1.0001; v += ystep) {
        char lab[32];
        vp_human_bytes(lab, sizeof lab, v);
        double y = MT + ph - v / ymax * ph;
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, y,
                W - MR, y);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", ML - 6, y + 4, lab);
    }
    double xstep = nice_step(x1 - x0, 8);
    for (double v = xstep * (double)(long)(x0 / xstep); v <= x1 * 1.0001; v += xstep) {
        if (v < x0)
            continue;
        double x = ML + (v - x0) / (x1 - x0) * pw;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>\n", x, MT, x,
                H - MB);
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, H - MB + 16, v);
    }
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n",
            ML, MT, pw, ph);
    fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", ML + pw / 2, H - 12,
            use_time ? "time since the first event (s)" : "trace event index");

    for (size_t i = 0; i < n; i++) {
        const char *color = palette[i % (sizeof palette / sizeof palette[0])];
        size_t npts = sr[i].dev->nevents + 1;
        polyline(out, &sr[i], sr[i].reserved, npts, use_time, t0, x0, x1, ymax, color, 1);
        polyline(out, &sr[i], sr[i].active, npts, use_time, t0, x0, x1, ymax, color, 0);
        /* The peak: a dot and its value. */
        const vp_ms_stats *st = &sr[i].st;
        double px = sr[i].dev->nevents ? point_x(&sr[i], (size_t)(st->peak_index + 1), use_time, t0) : x0;
        double x = ML + (px - x0) / (x1 - x0) * pw;
        double y = MT + ph - (double)st->peak_active / ymax * ph;
        char lab[32];
        vp_human_bytes(lab, sizeof lab, (double)st->peak_active);
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x, y, color);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\"%s>peak %s (device %d, event %ld)</text>\n",
                x + (x > ML + pw * 0.6 ? -8 : 8), y - 8, color,
                x > ML + pw * 0.6 ? " text-anchor=\"end\"" : "", lab, sr[i].dev->id, st->peak_index);
        /* Legend. */
        double lx = ML + (double)i * 190;
        fprintf(out, "<line x1=\"%.0f\" y1=\"40\" x2=\"%.0f\" y2=\"40\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                lx, lx + 20, color);
        fprintf(out, "<text x=\"%.0f\" y=\"44\">device %d active, - - reserved</text>\n", lx + 24,
                sr[i].dev->id);
        free(sr[i].active);
        free(sr[i].reserved);
    }
    if (n == 0)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no device in this snapshot</text>\n",
                ML + pw / 2, MT + ph / 2);
    fputs("</svg>\n", out);
    free(sr);
    return ferror(out) ? -1 : 0;
}
