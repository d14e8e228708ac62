/* W&B metrics exports of VeOmni's EnvironMeter (vprof/trainlog.h): a CSV
 * with a header row, or a JSON array of objects. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/trainlog.h"
#include "vprof/util.h"

enum { COL_STEP, COL_ACHIEVED, COL_PROMISED, COL_MFU, COL_NONE };

/* What a column or member name holds: VeOmni's names, bare or behind a
 * prefix ("efficiency/", a W&B chart's "run - "), and W&B's step. */
static int column_of(const char *s, size_t n)
{
    static const char *const tails[] = {"flops_achieved(T)", "flops_promised(T)", "mfu"};
    static const int kinds[] = {COL_ACHIEVED, COL_PROMISED, COL_MFU};
    if ((n == 5 && memcmp(s, "_step", 5) == 0) || (n == 4 && memcmp(s, "Step", 4) == 0) ||
        (n == 4 && memcmp(s, "step", 4) == 0) || (n == 11 && memcmp(s, "global_step", 11) == 0))
        return COL_STEP;
    for (int i = 0; i < 3; i++) {
        size_t m = strlen(tails[i]);
        if (n >= m && memcmp(s + n - m, tails[i], m) == 0 &&
            (n == m || s[n - m - 1] == '/' || s[n - m - 1] == ' '))
            return kinds[i];
    }
    return COL_NONE;
}

/* The next comma-separated field of [*p, end), quotes removed (a quoted
 * field holds no quote of its own in these exports). */
static int next_field(const char **p, const char *end, const char **s, size_t *n)
{
    if (*p > end)
        return 0;
    const char *q = *p;
    if (q < end && *q == '"') {
        const char *close = memchr(q + 1, '"', (size_t)(end - q - 1));
        if (!close)
            return 0;
        *s = q + 1;
        *n = (size_t)(close - q - 1);
        q = close + 1;
        while (q < end && *q != ',')
            q++;
    } else {
        *s = q;
        while (q < end && *q != ',')
            q++;
        *n = (size_t)(q - *s);
    }
    *p = q + 1;
    return 1;
}

int vp_trainlog_csv_header(const char *line, size_t len, vp_log_cols *cols)
{
    const char *p = line, *end = line + len, *s;
    size_t n;
    int i = 0;
    *cols = (vp_log_cols){-1, -1, -1, -1};
    if (!memchr(line, ',', len))
        return 0;
    for (; next_field(&p, end, &s, &n); i++) {
        switch (column_of(s, n)) {
        case COL_STEP: cols->step = i; break;
        case COL_ACHIEVED: cols->achieved = i; break;
        case COL_PROMISED: cols->promised = i; break;
        case COL_MFU: cols->mfu = i; break;
        default: break;
        }
    }
    return cols->achieved >= 0;
}

static double number(const char *s, size_t n)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return NAN;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *e;
    double v = strtod(buf, &e);
    return *e || e == buf || !isfinite(v) ? NAN : v;
}

int vp_trainlog_csv_row(const vp_log_cols *cols, const char *line, size_t len, vp_iter_rec *rec)
{
    const char *p = line, *end = line + len, *s;
    size_t n;
    vp_iter_rec_init(rec);
    for (int i = 0; next_field(&p, end, &s, &n); i++) {
        double v = number(s, n);
        if (i == cols->step && !isnan(v))
            rec->iteration = (long)v;
        else if (i == cols->achieved)
            rec->flops_achieved = v;
        else if (i == cols->promised)
            rec->flops_promised = v;
        else if (i == cols->mfu)
            rec->log_mfu = v;
    }
    /* W&B leaves a metric empty in the rows of steps that did not log it */
    if (isnan(rec->flops_achieved))
        return 0;
    rec->kind = VP_LOG_GENERIC;
    return 1;
}

int vp_trainlog_json(const char *text, size_t len, const char *path, vp_trainlog *log,
                     vp_error *err)
{
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc || !cJSON_IsArray(doc)) {
        size_t at = 0;
        const char *where = cJSON_GetErrorPtr();
        if (!doc && where && where >= text && where <= text + len)
            at = (size_t)(where - text);
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: byte %zu: not a JSON array of metric objects (a W&B export)", path, at);
        cJSON_Delete(doc);
        return -1;
    }
    log->source = VP_LOGSRC_JSON;
    long i = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, doc)
    {
        i++;
        if (!cJSON_IsObject(o))
            continue;
        vp_iter_rec rec;
        vp_iter_rec_init(&rec);
        const cJSON *m;
        cJSON_ArrayForEach(m, o)
        {
            if (!cJSON_IsNumber(m) || !m->string)
                continue;
            switch (column_of(m->string, strlen(m->string))) {
            case COL_STEP: rec.iteration = (long)m->valuedouble; break;
            case COL_ACHIEVED: rec.flops_achieved = m->valuedouble; break;
            case COL_PROMISED: rec.flops_promised = m->valuedouble; break;
            case COL_MFU: rec.log_mfu = m->valuedouble; break;
            default: break;
            }
        }
        if (isnan(rec.flops_achieved))
            continue;
        rec.kind = VP_LOG_GENERIC;
        rec.line = i;
        vp_trainlog_add(log, &rec);
    }
    log->lines = i;
    cJSON_Delete(doc);
    return 0;
}
