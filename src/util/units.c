/* Numbers as people read them: the table formatter's human units, which
 * the analyses' messages (findings, gates) use too. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/units.h"

void vp_drop_negative_zero(char *s)
{
    if (s[0] == '-' && s[strspn(s + 1, "0.") + 1] == '\0')
        memmove(s, s + 1, strlen(s));
}

void vp_fmt_fixed(char *buf, size_t n, int decimals, double v)
{
    snprintf(buf, n, "%.*f", decimals, v);
    vp_drop_negative_zero(buf);
}

/* Three significant digits in the largest unit that keeps the value at
 * least 1: each step up divides by base, and a value that would round up
 * to base (999.5 ns) moves to the next unit, so "1000 ns" never appears.
 * The first unit counts whole things (ns, bytes) and has no decimals. */
static void fmt_scaled(char *buf, size_t n, double v, double base,
                       const char *const *units, size_t nunits)
{
    char num[400];   /* %f of the largest double */
    size_t u = 0;
    int decimals;

    if (!isfinite(v)) {
        snprintf(buf, n, "-");
        return;
    }
    while (u + 1 < nunits && fabs(v) >= base - 0.5) {
        v /= base;
        u++;
    }
    if (u == 0 || fabs(v) >= 99.95)
        decimals = 0;
    else
        decimals = fabs(v) < 9.995 ? 2 : 1;
    vp_fmt_fixed(num, sizeof(num), decimals, v);
    snprintf(buf, n, "%s %s", num, units[u]);
}

void vp_human_ns(char *buf, size_t n, double ns)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};

    fmt_scaled(buf, n, ns, 1000, units, 4);
}

void vp_human_bytes(char *buf, size_t n, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};

    fmt_scaled(buf, n, bytes, 1024, units, 5);
}

int vp_parse_count(const char *s, long long min, long long max, long long *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (e == s || *e || errno || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* The number at the start of s, above 0 and finite; *end after it. */
static int positive_prefix(const char *s, double *out, char **end)
{
    errno = 0;
    double v = strtod(s, end);
    if (*end == s || errno || !(v > 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int vp_parse_positive(const char *s, double *out)
{
    char *e;
    return positive_prefix(s, out, &e) != 0 || *e ? -1 : 0;
}

int vp_parse_seconds(const char *s, double *out)
{
    char *e;
    double v;
    if (positive_prefix(s, &v, &e) != 0)
        return -1;
    e += strspn(e, " ");
    double scale = strcmp(e, "ms") == 0 ? 1e-3 : strcmp(e, "us") == 0 ? 1e-6 : 1;
    if (*e && strcmp(e, "s") != 0 && scale == 1)
        return -1;
    *out = v * scale;
    return 0;
}
