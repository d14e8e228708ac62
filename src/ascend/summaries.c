/* The CSV summaries of an Ascend profile: kernel_details / op_summary,
 * op_statistic, step_trace_time; an SQLite export is handed to db.c.
 * Columns are found by name (every header generation), cells through the
 * CSV reader's number rules (trailing TABs, N/A). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_db.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_summaries.h"
#include "vprof/csv.h"
#include "vprof/util.h"

/* ---- kernel_details.csv / op_summary_*.csv ---- */

int vp_asc_read_kernels(const char *path, void (*fn)(void *ctx, const vp_asc_kernel *k), void *ctx,
                        uint64_t *skipped, vp_error *err)
{
    if (vp_asc_sniff(path) == VP_ASC_DB)
        return vp_asc_db_read_kernels(path, fn, ctx, skipped, err);
    return vp_asc_read_kernels_csv(path, fn, ctx, skipped, err);
}

int vp_asc_read_kernels_csv(const char *path, void (*fn)(void *ctx, const vp_asc_kernel *k),
                            void *ctx, uint64_t *skipped, vp_error *err)
{
    static const char *const c_name[] = {"Name", "Op Name", NULL};
    static const char *const c_type[] = {"Type", "OP Type", NULL};
    static const char *const c_core[] = {"Accelerator Core", "Task Type", NULL};
    static const char *const c_start[] = {"Start Time(us)", "Task Start Time(us)", NULL};
    static const char *const c_dur[] = {"Duration(us)", "Task Duration(us)", NULL};
    static const char *const c_wait[] = {"Wait Time(us)", "Task Wait Time(us)", NULL};
    static const char *const c_step[] = {"Step Id", NULL};
    static const char *const c_stream[] = {"Stream ID", "Stream Id", NULL};
    static const char *const c_dev[] = {"Device_id", "Device ID", NULL};
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    int i_name = vp_csv_col(c, c_name), i_type = vp_csv_col(c, c_type);
    int i_core = vp_csv_col(c, c_core), i_start = vp_csv_col(c, c_start);
    int i_dur = vp_csv_col(c, c_dur), i_wait = vp_csv_col(c, c_wait);
    int i_step = vp_csv_col(c, c_step), i_stream = vp_csv_col(c, c_stream);
    int i_dev = vp_csv_col(c, c_dev);
    if (i_name < 0 || i_dur < 0) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: not a kernel_details.csv or op_summary CSV: no %s column",
                     vp_csv_name(c), i_name < 0 ? "Name (or Op Name)" : "Duration(us) (or Task Duration(us))");
        vp_csv_close(c);
        return -1;
    }
    int r;
    *skipped = 0;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_kernel k;
        int64_t x;
        if (vp_csv_us(vp_csv_field(c, i_dur), &k.dur) != 0) {
            (*skipped)++;
            continue;
        }
        k.name = vp_csv_str(c, i_name);
        k.type = vp_csv_str(c, i_type);
        k.core = vp_csv_str(c, i_core);
        k.step = vp_csv_int(vp_csv_field(c, i_step), &x) == 0 ? (long)x : -1;
        k.start = vp_csv_us(vp_csv_field(c, i_start), &x) == 0 ? x : -1;
        k.wait = vp_csv_us(vp_csv_field(c, i_wait), &x) == 0 ? x : -1;
        k.stream = vp_csv_int(vp_csv_field(c, i_stream), &x) == 0 ? x : -1;
        k.device = vp_csv_int(vp_csv_field(c, i_dev), &x) == 0 ? x : -1;
        fn(ctx, &k);
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}

/* ---- op_statistic.csv ---- */

int vp_asc_read_opstat(const char *path, void (*fn)(void *ctx, const vp_asc_opstat *o), void *ctx,
                       uint64_t *skipped, vp_error *err)
{
    static const char *const c_type[] = {"OP Type", "Op Type", "Type", NULL};
    static const char *const c_core[] = {"Core Type", "Task Type", "Accelerator Core", NULL};
    static const char *const c_count[] = {"Count", NULL};
    static const char *const c_total[] = {"Total Time(us)", NULL};
    static const char *const c_min[] = {"Min Time(us)", NULL};
    static const char *const c_max[] = {"Max Time(us)", NULL};
    static const char *const c_ratio[] = {"Ratio(%)", NULL};
    static const char *const c_dev[] = {"Device_id", "Device ID", NULL};
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    int i_type = vp_csv_col(c, c_type), i_core = vp_csv_col(c, c_core);
    int i_count = vp_csv_col(c, c_count), i_total = vp_csv_col(c, c_total);
    int i_min = vp_csv_col(c, c_min), i_max = vp_csv_col(c, c_max);
    int i_ratio = vp_csv_col(c, c_ratio), i_dev = vp_csv_col(c, c_dev);
    if (i_type < 0 || i_count < 0 || i_total < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: not an op_statistic CSV: no %s column",
                     vp_csv_name(c),
                     i_type < 0 ? "OP Type" : i_count < 0 ? "Count" : "Total Time(us)");
        vp_csv_close(c);
        return -1;
    }
    int r;
    *skipped = 0;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_opstat o;
        int64_t x;
        double d;
        if (vp_csv_int(vp_csv_field(c, i_count), &o.count) != 0 || o.count <= 0 ||
            vp_csv_us(vp_csv_field(c, i_total), &o.total) != 0) {
            (*skipped)++;
            continue;
        }
        o.type = vp_csv_str(c, i_type);
        o.core = vp_csv_str(c, i_core);
        o.min = vp_csv_us(vp_csv_field(c, i_min), &x) == 0 ? x : -1;
        o.max = vp_csv_us(vp_csv_field(c, i_max), &x) == 0 ? x : -1;
        o.ratio = vp_csv_num(vp_csv_field(c, i_ratio), &d) == 0 ? d : NAN;
        o.device = vp_csv_int(vp_csv_field(c, i_dev), &x) == 0 ? x : -1;
        fn(ctx, &o);
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}

/* ---- api_statistic.csv ---- */

/* Cell i of the current row as ns (us exactly) or, with us == 0, as an
 * integer; 0, or -1 with err naming the line and the column. */
static int apistat_cell(vp_csv *c, int i, const char *col, int us, int64_t *out, vp_error *err)
{
    vp_span f = vp_csv_field(c, i);
    int q = us ? vp_csv_us(f, out) : vp_csv_int(f, out);
    if (q == 0 && *out >= (us ? 0 : 1))
        return 0;
    vp_error_set(err, VP_EXIT_INPUT, "%s: line %llu: %s %s: '%s'", vp_csv_name(c),
                 (unsigned long long)vp_csv_line(c), col,
                 q > 0 ? "is missing" : q < 0 ? "is not a number" : "is out of range",
                 vp_csv_str(c, i));
    return -1;
}

int vp_asc_read_apistat(const char *path, void (*fn)(void *ctx, const vp_asc_apistat *a),
                        void *ctx, vp_error *err)
{
    static const char *const cols[][2] = {
        {"API Name", NULL}, {"Time(us)", NULL}, {"Count", NULL}, {"Min(us)", NULL},
        {"Max(us)", NULL},  {"Variance", NULL}, {"Level", NULL},
    };
    enum { NAME, TIME, COUNT, MIN, MAX, VAR, LEVEL, NCOLS };
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    int ix[NCOLS];
    for (int k = 0; k < NCOLS; k++) {
        ix[k] = vp_csv_col(c, cols[k]);
        if (ix[k] < 0 && k != LEVEL) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: not an api_statistic CSV: no %s column",
                         vp_csv_name(c), cols[k][0]);
            vp_csv_close(c);
            return -1;
        }
    }
    int r;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_apistat a;
        double var;
        a.name = vp_csv_str(c, ix[NAME]);
        a.level = ix[LEVEL] >= 0 ? vp_csv_str(c, ix[LEVEL]) : "";
        if (!*a.name) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: line %llu: API Name is empty", vp_csv_name(c),
                         (unsigned long long)vp_csv_line(c));
            r = -1;
            break;
        }
        if (apistat_cell(c, ix[TIME], "Time(us)", 1, &a.total, err) != 0 ||
            apistat_cell(c, ix[COUNT], "Count", 0, &a.count, err) != 0 ||
            apistat_cell(c, ix[MIN], "Min(us)", 1, &a.min, err) != 0 ||
            apistat_cell(c, ix[MAX], "Max(us)", 1, &a.max, err) != 0) {
            r = -1;
            break;
        }
        int q = vp_csv_num(vp_csv_field(c, ix[VAR]), &var);
        if (q != 0 || !(var >= 0 && var < HUGE_VAL) || a.min > a.max) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: line %llu: %s: '%s'", vp_csv_name(c),
                         (unsigned long long)vp_csv_line(c),
                         q > 0   ? "Variance is missing"
                         : q < 0 ? "Variance is not a number"
                         : a.min > a.max ? "Min(us) is above Max(us)"
                                         : "Variance is out of range",
                         a.min > a.max && q == 0 ? vp_csv_str(c, ix[MIN]) : vp_csv_str(c, ix[VAR]));
            r = -1;
            break;
        }
        /* one call varies by nothing, whatever the rounding wrote */
        a.variance = a.count > 1 ? var * 1e6 : 0.0;
        fn(ctx, &a);
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}

/* ---- step_trace_time.csv ---- */

int vp_stt_read(const char *path, long default_rank, vp_stt *out, vp_error *err)
{
    if (vp_asc_sniff(path) == VP_ASC_DB)
        return vp_asc_db_stt(path, default_rank, NULL, out, err);
    return vp_stt_read_csv(path, default_rank, out, err);
}

int vp_stt_read_csv(const char *path, long default_rank, vp_stt *out, vp_error *err)
{
    static const char *const c_step[] = {"Step", NULL};
    static const char *const c_type[] = {"Type", NULL};
    static const char *const c_index[] = {"Index", NULL};
    static const char *const c_dev[] = {"Device_id", NULL};
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    int i_step = vp_csv_col(c, c_step), i_type = vp_csv_col(c, c_type);
    int i_index = vp_csv_col(c, c_index), i_dev = vp_csv_col(c, c_dev);
    int iv[VP_STT_COUNT];
    for (int k = 0; k < VP_STT_COUNT; k++) {
        const char *names[] = {vp_stt_names[k], NULL};
        iv[k] = vp_csv_col(c, names);
    }
    if (iv[VP_STT_COMPUTING] < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: not a step_trace_time.csv: no Computing column",
                     vp_csv_name(c));
        vp_csv_close(c);
        return -1;
    }
    int r;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_stt_row *row = vp_stt_add(out);
        int64_t x;
        if (vp_csv_int(vp_csv_field(c, i_step), &x) == 0)
            row->step = (long)x;
        if (vp_csv_int(vp_csv_field(c, i_dev), &x) == 0)
            row->device = x;
        row->rank = default_rank;
        if (i_type >= 0) {
            const char *type = vp_csv_str(c, i_type);
            const char *index = vp_csv_str(c, i_index);
            if (strcmp(type, "stage") == 0) {
                row->is_stage = 1;
                row->rank = -1;
                row->index = vp_strdup(index);
            } else if (vp_csv_int(vp_csv_field(c, i_index), &x) == 0) {
                row->rank = (long)x;
            }
        }
        for (int k = 0; k < VP_STT_COUNT; k++) {
            int q = vp_csv_us(vp_csv_field(c, iv[k]), &row->v[k]);
            if (q == 0) {
                row->have |= 1u << k;
            } else if (q < 0) {
                vp_error_set(err, VP_EXIT_INPUT, "%s: line %llu: %s is not a number: '%s'",
                             vp_csv_name(c), (unsigned long long)vp_csv_line(c), vp_stt_names[k],
                             vp_csv_str(c, iv[k]));
                vp_csv_close(c);
                return -1;
            }
        }
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}
