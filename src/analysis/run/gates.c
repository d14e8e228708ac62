/* The gate language: parsing and evaluation (see vprof/gates.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/gates.h"
#include "vprof/util.h"

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int fail(char *msg, size_t n, size_t *pos, const char *text, const char *at,
                const char *what)
{
    snprintf(msg, n, "%s", what);
    *pos = (size_t)(at - text);
    return -1;
}

typedef struct unit_def {
    const char *name;
    vp_col_type kind;
    double scale;    /* to the metric's base unit (ns, bytes, percent) */
} unit_def;

static const unit_def units[] = {
    {"ns", VP_COL_NS, 1},          {"us", VP_COL_NS, 1e3},        {"\xc2\xb5s", VP_COL_NS, 1e3},
    {"ms", VP_COL_NS, 1e6},        {"s", VP_COL_NS, 1e9},         {"B", VP_COL_BYTES, 1},
    {"KiB", VP_COL_BYTES, 1024.0}, {"MiB", VP_COL_BYTES, 1048576.0},
    {"GiB", VP_COL_BYTES, 1073741824.0}, {"TiB", VP_COL_BYTES, 1099511627776.0},
    {"KB", VP_COL_BYTES, 1e3},     {"MB", VP_COL_BYTES, 1e6},     {"GB", VP_COL_BYTES, 1e9},
    {"TB", VP_COL_BYTES, 1e12},    {"%", VP_COL_PERCENT, 1},      {"pp", VP_COL_PERCENT, 1},
};

static const vp_metric *catalogued(const char *name, size_t n)
{
    for (const vp_metric *c = vp_run_metric_catalogue(); c->name; c++)
        if (strlen(c->name) == n && memcmp(c->name, name, n) == 0)
            return c;
    return NULL;
}

int vp_gate_parse(const char *text, vp_gate *g, char *msg, size_t msgn, size_t *pos)
{
    memset(g, 0, sizeof *g);
    const char *p = skip_ws(text);
    const char *m = p;
    if (strncmp(p, "kernel:", 7) == 0) {
        g->is_kernel = 1;
        m = p + 7;
        /* The regex runs to the last space before the operator. */
        const char *op = NULL;
        for (const char *q = m; *q; q++)
            if ((*q == '>' || *q == '<' || *q == '=' || *q == '!') && q > m && q[-1] == ' ')
                op = q;
        if (!op)
            return fail(msg, msgn, pos, text, text + strlen(text),
                        "expected an operator (> >= < <= == !=) after kernel:REGEX and a space");
        const char *e = op;
        while (e > m && e[-1] == ' ')
            e--;
        if (e == m)
            return fail(msg, msgn, pos, text, m, "expected a regular expression after kernel:");
        g->metric = vp_strndup(m, (size_t)(e - m));
        int rc = regcomp(&g->re, g->metric, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[128];
            regerror(rc, &g->re, why, sizeof why);
            free(g->metric);
            g->metric = NULL;
            char what[192];
            snprintf(what, sizeof what, "bad regular expression: %s", why);
            return fail(msg, msgn, pos, text, m, what);
        }
        g->unit = VP_COL_NS;
        p = op;
    } else {
        while (*p && (isalnum((unsigned char)*p) || *p == '.' || *p == '_'))
            p++;
        if (p == m)
            return fail(msg, msgn, pos, text, m, "expected a metric name or kernel:REGEX");
        const vp_metric *c = catalogued(m, (size_t)(p - m));
        if (!c) {
            char why[128];
            snprintf(why, sizeof why, "unknown metric%s", vp_diag_hint(VP_HINT_METRICS_LIST));
            return fail(msg, msgn, pos, text, m, why);
        }
        g->metric = vp_strndup(m, (size_t)(p - m));
        g->unit = c->unit;
        p = skip_ws(p);
    }
    if (p[0] == '>' && p[1] == '=')
        g->op = VP_GATE_GE, p += 2;
    else if (p[0] == '<' && p[1] == '=')
        g->op = VP_GATE_LE, p += 2;
    else if (p[0] == '=' && p[1] == '=')
        g->op = VP_GATE_EQ, p += 2;
    else if (p[0] == '!' && p[1] == '=')
        g->op = VP_GATE_NE, p += 2;
    else if (p[0] == '>')
        g->op = VP_GATE_GT, p += 1;
    else if (p[0] == '<')
        g->op = VP_GATE_LT, p += 1;
    else {
        vp_gate_free(g);
        return fail(msg, msgn, pos, text, p, "expected an operator: > >= < <= == !=");
    }
    p = skip_ws(p);
    int signed_value = *p == '+' || *p == '-';
    char *end;
    double v = strtod(p, &end);
    if (end == p || !isfinite(v)) {
        vp_gate_free(g);
        return fail(msg, msgn, pos, text, p, "expected a number");
    }
    const char *number = p;
    p = end;
    const char *u = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    size_t ulen = (size_t)(p - u);
    double scale = 1;
    /* A bare number against a time or a size has no safe reading: users
     * write `step.median < 700` meaning milliseconds, and the metric is in
     * nanoseconds. Zero alone means the same in every unit. */
    if (!ulen && v != 0 && (g->unit == VP_COL_NS || g->unit == VP_COL_BYTES)) {
        int n = (int)(u - number);
        char what[256];
        if (g->unit == VP_COL_NS)
            snprintf(what, sizeof what,
                     "'%.*s' is a time without a unit: write %.*sms, %.*sus, %.*sns or %.*ss", n,
                     number, n, number, n, number, n, number, n, number);
        else
            snprintf(what, sizeof what,
                     "'%.*s' is a size without a unit: write %.*sGiB, %.*sMiB, %.*sKiB or %.*sB", n,
                     number, n, number, n, number, n, number, n, number);
        vp_gate_free(g);
        return fail(msg, msgn, pos, text, number, what);
    }
    if (ulen) {
        const unit_def *d = NULL;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strlen(units[i].name) == ulen && memcmp(units[i].name, u, ulen) == 0)
                d = &units[i];
        if (!d) {
            vp_gate_free(g);
            return fail(msg, msgn, pos, text, u,
                        "unknown unit (ns us ms s, B KiB MiB GiB TiB KB MB GB TB, %)");
        }
        int points = ulen == 2 && memcmp(u, "pp", 2) == 0;
        if (points && g->unit != VP_COL_PERCENT) {
            vp_gate_free(g);
            return fail(msg, msgn, pos, text, u, "pp (percentage points) fits only a percent metric");
        } else if (points) {
            scale = 1;      /* points: +2pp is a change of 2, never relative */
        } else if (d->kind == VP_COL_PERCENT && signed_value) {
            g->mode = VP_GATE_RELATIVE;
            scale = 0.01;
        } else if (d->kind == VP_COL_PERCENT && g->unit == VP_COL_RATIO) {
            scale = 0.01;   /* mfu >= 40% is mfu >= 0.40 */
        } else if (d->kind != g->unit) {
            vp_gate_free(g);
            return fail(msg, msgn, pos, text, u, "this unit does not fit the metric's");
        } else {
            scale = d->scale;
        }
    }
    if (signed_value && g->mode != VP_GATE_RELATIVE)
        g->mode = VP_GATE_DELTA;
    g->value = v * scale;
    p = skip_ws(p);
    if (*p) {
        vp_gate_free(g);
        return fail(msg, msgn, pos, text, p, "unexpected text after the value");
    }
    g->text = vp_strdup(text);
    return 0;
}

void vp_gate_free(vp_gate *g)
{
    if (g->is_kernel && g->metric)
        regfree(&g->re);
    free(g->metric);
    free(g->text);
    memset(g, 0, sizeof *g);
}

int vp_gate_metric_value(const vp_gate *g, const vp_run *r, double *out)
{
    if (g->is_kernel) {
        *out = (double)vp_run_kernel_match(r, &g->re, NULL);
        return 1;
    }
    const vp_metric *m = vp_run_find(r, g->metric);
    if (!m)
        return 0;
    *out = m->value;
    return 1;
}

static int compare(double a, vp_gate_op op, double b)
{
    switch (op) {
    case VP_GATE_GT: return a > b;
    case VP_GATE_GE: return a >= b;
    case VP_GATE_LT: return a < b;
    case VP_GATE_LE: return a <= b;
    case VP_GATE_EQ: return a == b;
    default: return a != b;
    }
}

static const char *op_text(vp_gate_op op)
{
    static const char *const t[] = {">", ">=", "<", "<=", "==", "!="};
    return t[op];
}

int vp_gate_eval(const vp_gate *g, const vp_run *base, const vp_run *now, vp_gate_result *res,
                 char *msg, size_t msgn)
{
    memset(res, 0, sizeof *res);
    if (g->mode != VP_GATE_VALUE && !base) {
        snprintf(msg, msgn, "'%s' compares a change, which needs a base run%s", g->text,
                 vp_diag_hint(VP_HINT_BASE_RUN));
        return -1;
    }
    const char *label = g->is_kernel ? "kernel:" : "";
    int changes = base && g->mode != VP_GATE_VALUE;
    if ((g->is_kernel || vp_metric_on_device(g->metric)) &&
        (!vp_run_has_device_work(now) || (changes && !vp_run_has_device_work(base)))) {
        /* zeros that measure nothing must not pass a gate */
        res->missing = 1;
        snprintf(res->detail, sizeof res->detail,
                 "%s%s: %s has no GPU/NPU activity (no kernel, memory copy or collective in "
                 "the counted events): nothing to judge",
                 label, g->metric, vp_run_has_device_work(now) ? "the base run" : "the run");
        return 0;
    }
    if (!vp_gate_metric_value(g, now, &res->now) ||
        (base && g->mode != VP_GATE_VALUE && !vp_gate_metric_value(g, base, &res->base))) {
        res->missing = 1;
        int in_base = base && !vp_gate_metric_value(g, base, &res->base);
        char why[400];
        if (!g->is_kernel && vp_run_why_absent(in_base ? base : now, g->metric, why, sizeof why))
            snprintf(res->detail, sizeof res->detail, "%s is not available in %s: %s", g->metric,
                     in_base ? "the base run" : "the run", why);
        else
            snprintf(res->detail, sizeof res->detail, "%s%s is not available in %s%s", label,
                     g->metric, in_base ? "the base run" : "the run",
                     vp_diag_hint(VP_HINT_METRIC_NEEDS));
        return 0;
    }
    char a[48], b[48], lim[48];
    vp_metric_format(b, sizeof b, g->unit, res->now);
    if (g->mode == VP_GATE_VALUE) {
        res->cond = compare(res->now, g->op, g->value);
        vp_metric_format(lim, sizeof lim, g->unit, g->value);
        snprintf(res->detail, sizeof res->detail, "%s%s = %s (%s %s is %s)", label, g->metric, b,
                 op_text(g->op), lim, res->cond ? "true" : "false");
        return 0;
    }
    vp_metric_format(a, sizeof a, g->unit, res->base);
    double change;
    if (g->mode == VP_GATE_RELATIVE) {
        change = res->base != 0 ? (res->now - res->base) / fabs(res->base)
                                : (res->now == 0 ? 0 : (res->now > 0 ? INFINITY : -INFINITY));
        res->cond = compare(change, g->op, g->value);
        char rel[32];
        if (isfinite(change))
            snprintf(rel, sizeof rel, "%+.2f %%", change * 100);
        else
            snprintf(rel, sizeof rel, "from 0");
        snprintf(res->detail, sizeof res->detail, "%s%s %s -> %s (%s; %s %+g %% is %s)", label,
                 g->metric, a, b, rel, op_text(g->op), g->value * 100, res->cond ? "true" : "false");
    } else {
        change = res->now - res->base;
        res->cond = compare(change, g->op, g->value);
        char d[48];
        vp_metric_format_change(d, sizeof d, g->unit, change);
        vp_metric_format_change(lim, sizeof lim, g->unit, g->value);
        snprintf(res->detail, sizeof res->detail, "%s%s %s -> %s (change %s; %s %s is %s)",
                 label, g->metric, a, b, d, op_text(g->op), lim, res->cond ? "true" : "false");
    }
    return 0;
}
