/* The roofline table (docs/roofline.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/plot.h"
#include "vprof/roofline_view.h"
#include "vprof/units.h"

enum { C_NAME, C_CAT, C_DIMS, C_TYPES };

vp_table *vp_roofline_table(const vp_roofline *r, long top)
{
    vp_table *t = vp_table_new("roofline");
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Category", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Input Dims", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Input Type", VP_COL_TEXT, 0);
    int rank_col = r->o.by_rank ? vp_table_add_col(t, "Rank", VP_COL_INT, 0) : -1;
    int c = vp_table_add_col(t, "Calls", VP_COL_INT, 0);
    vp_table_add_col(t, "Kernel Time", VP_COL_NS, 0);
    vp_table_add_col(t, "GFLOP", VP_COL_RATIO, VP_DECIMALS_EXACT);
    vp_table_add_col(t, "Bytes", VP_COL_BYTES, 0);
    vp_table_add_col(t, "FLOP/Byte", VP_COL_RATIO, 3);
    /* six decimals: an elementwise op runs at a few GFLOP/s */
    vp_table_add_col(t, "TFLOP/s", VP_COL_RATIO, 6);
    vp_table_add_col(t, "TB/s", VP_COL_RATIO, 6);
    vp_table_add_col(t, "Peak TFLOP/s", VP_COL_RATIO, 2);
    vp_table_add_col(t, "Peak TB/s", VP_COL_RATIO, 3);
    vp_table_add_col(t, "Roofline", VP_COL_PERCENT, 2);
    vp_table_add_col(t, "Bound", VP_COL_TEXT, 0);
    size_t n = r->nrows, shown = top > 0 && (size_t)top < n ? (size_t)top : n;
    for (size_t i = 0; i < shown; i++) {
        const vp_rl_row *x = &r->rows[i];
        vp_rl_figures f;
        vp_rl_row_figures(x, &f);
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, C_NAME, x->name);
        vp_table_set_text(t, row, C_CAT, vp_rl_family_name(x->cost.family));
        vp_table_set_text(t, row, C_DIMS, x->dims);
        vp_table_set_text(t, row, C_TYPES, x->types);
        if (rank_col >= 0)
            vp_table_set_int(t, row, rank_col, x->rank);
        vp_table_set_int(t, row, c, x->calls);
        vp_table_set_int(t, row, c + 1, x->kernel_ns);
        if (x->cost.family == VP_RL_NONE) {
            vp_table_set_text(t, row, c + 10, x->why ? x->why : "no model");
            continue;
        }
        vp_table_set_double(t, row, c + 2, x->cost.flops / 1e9);
        if (x->cost.bytes >= 0)
            vp_table_set_int(t, row, c + 3, (int64_t)x->cost.bytes);
        if (f.intensity >= 0)
            vp_table_set_double(t, row, c + 4, f.intensity);
        if (f.tflops >= 0)
            vp_table_set_double(t, row, c + 5, f.tflops);
        if (f.tbs >= 0)
            vp_table_set_double(t, row, c + 6, f.tbs);
        if (x->peak_tflops > 0)
            vp_table_set_double(t, row, c + 7, x->peak_tflops);
        if (x->peak_tbs > 0)
            vp_table_set_double(t, row, c + 8, x->peak_tbs);
        if (f.pct >= 0)
            vp_table_set_double(t, row, c + 9, f.pct);
        if (f.compute_bound >= 0)
            vp_table_set_text(t, row, c + 10, f.compute_bound ? "compute" : "memory");
    }
    if (shown < n) {
        int64_t calls = 0, ns = 0;
        for (size_t i = shown; i < n; i++)
            calls += r->rows[i].calls, ns += r->rows[i].kernel_ns;
        size_t row = vp_table_add_row(t);
        char label[64];
        snprintf(label, sizeof label, "(others: %zu rows)", n - shown);
        vp_table_set_text(t, row, C_NAME, label);
        vp_table_set_int(t, row, c, calls);
        vp_table_set_int(t, row, c + 1, ns);
    }
    return t;
}

/* What the table alone cannot say: no shapes, no device, the coverage. */
void vp_roofline_notes(vp_table *t, const vp_roofline *r, int has_steps)
{
    const char *steps = has_steps ? " (with --steps)" : "";
    if (!r->dims_seen) {
        vp_table_add_note(t, "no Input Dims: record with record_shapes=True (torch.profiler."
                             "profile(record_shapes=True)); no operator can be costed");
        return;
    }
    if (!r->gpu) {
        vp_table_add_note(t, "no GPU work (kernels, memcpys, memsets) in the input%s: nothing "
                             "to put against a roof", steps);
        return;
    }
    if (r->nrows == 0) {
        vp_table_add_note(t, "no operator launched GPU work in the input%s", steps);
        return;
    }
    double share = r->gpu_ns > 0 ? 100.0 * (double)r->modelled_ns / (double)r->gpu_ns : 0;
    vp_table_add_note(t, "%.1f%% of the operators' kernel time is in operators with a model",
                      share);
    if (r->o.peak_tflops > 0 && r->o.peak_tbs > 0)
        return;
    if (!r->device[0])
        vp_table_add_note(t, "no device name (deviceProperties): give --gpu NAME, or "
                             "--peak-tflops and --peak-tbs, for the roofline columns");
    else if (!r->peak)
        vp_table_add_note(t, "device \"%s\" is not in the peak table: give --gpu NAME, or "
                             "--peak-tflops and --peak-tbs, for the roofline columns",
                          r->device);
    else
        vp_table_add_note(t, "peaks: %s (\"%s\" matched in \"%s\"), dense; TFLOP/s from %s; "
                             "TB/s %s%s",
                          r->peak->device, r->peak->key, r->device, r->peak->source,
                          r->tbs > 0 ? "from " : "not known: give --peak-tbs",
                          r->tbs > 0 ? (r->tbs_source ? r->tbs_source : "") : "");
    double gemm = vp_roofline_weighted_pct(r, VP_RL_MASK_GEMM),
           attn = vp_roofline_weighted_pct(r, VP_RL_MASK_ATTENTION);
    if (gemm >= 0 || attn >= 0) {
        char g[32] = "-", a[32] = "-";
        if (gemm >= 0)
            snprintf(g, sizeof g, "%.2f%%", gemm);
        if (attn >= 0)
            snprintf(a, sizeof a, "%.2f%%", attn);
        vp_table_add_note(t, "roofline, weighted by kernel time: GEMM %s, attention %s", g, a);
    }
    int above = 0, fp32_above = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        vp_rl_figures f;
        vp_rl_row_figures(&r->rows[i], &f);
        const vp_rl_cost *cost = &r->rows[i].cost;
        above |= f.pct > 100;
        fp32_above |= f.pct > 100 && cost->matrix && cost->prec == VP_RL_FP32;
    }
    if (fp32_above && !r->o.tf32 && r->o.peak_tflops <= 0)
        vp_table_add_note(t, "FP32 matrix work above the FP32 peak ran on TF32 tensor cores "
                             "(allow_tf32): give --tf32");
    if (above)
        vp_table_add_note(t, "some rows are above 100%% of the roof: their model counts more "
                             "work than the kernels did (docs/roofline.md), or the peak is not "
                             "the device's");
}


/* ---- the chart ---- */

enum { RW = 900, RH = 520, RML = 70, RMR = 30, RMT = 60, RMB = 50 };

typedef struct logframe {
    double lx0, lx1, ly0, ly1;   /* log10 of the axes' ends */
} logframe;

static double lpx(const logframe *f, double x)
{
    return RML + (log10(x) - f->lx0) / (f->lx1 - f->lx0) * (RW - RML - RMR);
}

static double lpy(const logframe *f, double y)
{
    return RH - RMB - (log10(y) - f->ly0) / (f->ly1 - f->ly0) * (RH - RMT - RMB);
}

/* A decade's label as a person reads it: 0.001 ... 1 ... 10000. */
static void decade(char *buf, size_t n, int e)
{
    snprintf(buf, n, "%g", pow(10, e));
}

/* One roof: bandwidth B (TB/s) up to the ridge P/B, then the peak P
 * (TFLOP/s), clipped to the frame; a dashed line down from the ridge. */
static void roof(FILE *out, const logframe *f, double P, double B, const char *color)
{
    double x0 = pow(10, f->lx0), x1 = pow(10, f->lx1), ridge = P / B;
    double xa = x0, ya = B * x0;
    if (ya < pow(10, f->ly0)) {   /* the slope enters the frame at its bottom */
        ya = pow(10, f->ly0);
        xa = ya / B;
    }
    fprintf(out, "<polyline class=\"roof\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                 "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
            color, lpx(f, xa), lpy(f, ya), lpx(f, ridge), lpy(f, P), lpx(f, x1), lpy(f, P));
    fprintf(out, "<line class=\"ridge\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%d\" "
                 "stroke=\"%s\" stroke-dasharray=\"4 3\"/>\n",
            lpx(f, ridge), lpy(f, P), lpx(f, ridge), RH - RMB, color);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" text-anchor=\"end\">%.4g TFLOP/s, "
                 "%.4g TB/s; ridge %.4g FLOP/Byte</text>\n",
            (double)(RW - RMR - 4), lpy(f, P) + 14, color, P, B, ridge);
}

int vp_roofline_svg(FILE *out, const vp_roofline *r, const char *title)
{
    double xmin = 0, xmax = 0, ymin = 0, ymax = 0, tmax = 0;
    double peaks[8];
    size_t npeaks = 0, npts = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const vp_rl_row *x = &r->rows[i];
        vp_rl_figures f;
        vp_rl_row_figures(x, &f);
        if (f.intensity <= 0 || f.tflops <= 0)
            continue;
        if (!npts++) {
            xmin = xmax = f.intensity;
            ymin = ymax = f.tflops;
        }
        xmin = f.intensity < xmin ? f.intensity : xmin;
        xmax = f.intensity > xmax ? f.intensity : xmax;
        ymin = f.tflops < ymin ? f.tflops : ymin;
        ymax = f.tflops > ymax ? f.tflops : ymax;
        tmax = (double)x->kernel_ns > tmax ? (double)x->kernel_ns : tmax;
        if (x->peak_tflops > 0 && x->peak_tbs > 0) {
            size_t k = 0;
            while (k < npeaks && peaks[k] != x->peak_tflops)
                k++;
            if (k == npeaks && npeaks < sizeof peaks / sizeof *peaks)
                peaks[npeaks++] = x->peak_tflops;
        }
    }
    if (!npts)
        return 1;   /* nothing to draw: no row with FLOPs, bytes and time */
    double tbs = 0;
    for (size_t i = 0; i < r->nrows && !tbs; i++)
        tbs = r->rows[i].peak_tbs;
    for (size_t k = 0; k < npeaks; k++) {
        double ridge = peaks[k] / tbs;
        xmin = ridge < xmin ? ridge : xmin;
        xmax = ridge > xmax ? ridge : xmax;
        ymax = peaks[k] > ymax ? peaks[k] : ymax;
    }
    logframe lf = {floor(log10(xmin)), ceil(log10(xmax)), floor(log10(ymin)), ceil(log10(ymax))};
    if (lf.lx1 <= lf.lx0)
        lf.lx1 = lf.lx0 + 1;
    if (lf.ly1 <= lf.ly0)
        lf.ly1 = lf.ly0 + 1;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"roofline\" width=\"%d\" "
                 "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
                 "font-size=\"12\">\n", RW, RH, RW, RH);
    fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", RW, RH);
    fputs("<text x=\"70\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", out);
    vp_svg_text(out, title);
    fputs("</text>\n", out);
    char lab[32];
    for (int e = (int)lf.lx0; e <= (int)lf.lx1; e++) {
        double x = lpx(&lf, pow(10, e));
        decade(lab, sizeof lab, e);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>\n"
                     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                x, RMT, x, RH - RMB, x, RH - RMB + 16, lab);
    }
    for (int e = (int)lf.ly0; e <= (int)lf.ly1; e++) {
        double y = lpy(&lf, pow(10, e));
        decade(lab, sizeof lab, e);
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                RML, y, RW - RMR, y, RML - 6, y + 4, lab);
    }
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                 "stroke=\"#888\"/>\n", RML, RMT, RW - RML - RMR, RH - RMT - RMB);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity "
                 "(FLOP/Byte, log)</text>\n", RML + (RW - RML - RMR) / 2, RH - 14);
    fprintf(out, "<text x=\"16\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">"
                 "achieved TFLOP/s (log)</text>\n", RMT + (RH - RMT - RMB) / 2,
            RMT + (RH - RMT - RMB) / 2);
    for (size_t k = 0; k < npeaks; k++)
        roof(out, &lf, peaks[k], tbs, "#555");
    if (!npeaks)
        fprintf(out, "<text x=\"%d\" y=\"%d\">no roofs: the device's peaks are not known</text>\n",
                RML + 8, RMT + 16);
    /* The points, the most time last (on top), each with what it is. */
    for (size_t i = r->nrows; i-- > 0;) {
        const vp_rl_row *x = &r->rows[i];
        vp_rl_figures f;
        vp_rl_row_figures(x, &f);
        if (f.intensity <= 0 || f.tflops <= 0)
            continue;
        int fam = x->cost.family == VP_RL_GEMM ? 0
                  : x->cost.family == VP_RL_ATTN_FWD || x->cost.family == VP_RL_ATTN_BWD ? 1
                  : f.compute_bound == 1 ? 2 : 3;
        double rad = 3 + 15 * sqrt((double)x->kernel_ns / tmax);
        char t[32];
        vp_human_ns(t, sizeof t, (double)x->kernel_ns);
        fprintf(out, "<circle class=\"op\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
                     "fill-opacity=\"0.6\" stroke=\"%s\"><title>",
                lpx(&lf, f.intensity), lpy(&lf, f.tflops), rad, vp_plot_palette[fam],
                vp_plot_palette[fam]);
        vp_svg_text(out, x->name);
        fputc(' ', out);
        vp_svg_text(out, x->dims ? x->dims : "");
        fprintf(out, ": %.4g TFLOP/s, %.4g FLOP/Byte, ", f.tflops, f.intensity);
        if (f.pct >= 0)
            fprintf(out, "%.1f%% of its roofline, ", f.pct);
        fprintf(out, "%s in %lld call%s</title></circle>\n", t, (long long)x->calls,
                x->calls == 1 ? "" : "s");
    }
    static const char *const legend[] = {"GEMM", "attention", "other, compute-bound",
                                         "other, memory-bound"};
    for (int k = 0; k < 4; k++) {
        double lx = RML + k * 170.0;
        fprintf(out, "<circle cx=\"%.0f\" cy=\"42\" r=\"5\" fill=\"%s\" fill-opacity=\"0.6\"/>"
                     "<text x=\"%.0f\" y=\"46\">%s</text>\n",
                lx + 6, vp_plot_palette[k], lx + 16, legend[k]);
    }
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
