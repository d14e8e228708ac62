/* VeOmni's own MFU, from the EnvironMeter metrics of its log. */
#include <math.h>
#include <stdlib.h>

#include "vprof/mfu_view.h"
#include "vprof/stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

vp_table *vp_mfu_veomni_table(const vp_trainlog *log, const char *path)
{
    static const char *const sources[] = {"log lines", "a W&B CSV export", "a W&B JSON export"};
    vp_table *t = vp_table_new("log_mfu");
    vp_table_add_col(t, "Step", VP_COL_INT, 0);
    vp_table_add_col(t, "Line", VP_COL_INT, 0);
    vp_table_add_col(t, "Achieved (TFLOP/s)", VP_COL_RATIO, 3);
    vp_table_add_col(t, "Promised (TFLOP/s)", VP_COL_RATIO, 3);
    vp_table_add_col(t, "MFU (%)", VP_COL_RATIO, 2);
    vp_table_add_col(t, "Logged MFU (%)", VP_COL_RATIO, 2);
    double *mfu = malloc((log->n ? log->n : 1) * sizeof *mfu);
    size_t n = 0;
    for (size_t i = 0; i < log->n; i++) {
        const vp_iter_rec *r = &log->recs[i];
        if (isnan(r->flops_achieved) || isnan(r->flops_promised))
            continue;
        size_t row = vp_table_add_row(t);
        if (r->iteration >= 0)
            vp_table_set_int(t, row, 0, r->iteration);
        vp_table_set_int(t, row, 1, r->line);
        vp_table_set_double(t, row, 2, r->flops_achieved);
        vp_table_set_double(t, row, 3, r->flops_promised);
        if (r->flops_promised > 0) {
            mfu[n] = 100 * r->flops_achieved / r->flops_promised;
            vp_table_set_double(t, row, 4, mfu[n++]);
        }
        if (!isnan(r->log_mfu))
            vp_table_set_double(t, row, 5, 100 * r->log_mfu);
    }
    vp_table_add_note(t, "source: VeOmni's EnvironMeter metrics in %s %s (%s): MFU = "
                         "flops_achieved(T) / flops_promised(T), the job's achieved TFLOP/s "
                         "over the peak of all its devices; no model needed",
                      sources[log->source], path, log->source == VP_LOGSRC_JSON ? "elements" : "lines");
    if (n) {
        qsort(mfu, n, sizeof *mfu, cmp_double);
        double med = n % 2 ? mfu[n / 2] : (mfu[n / 2 - 1] + mfu[n / 2]) / 2;
        vp_table_add_note(t, "median MFU over %zu steps: %.2f%%", n, med);
    }
    free(mfu);
    return t;
}
