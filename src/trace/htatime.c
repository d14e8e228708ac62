/* Times as HTA reads them (see vprof/htatime.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/htatime.h"

/* A positive normal double as its bits: neighbours are the bits +-1, the
 * value is m * 2^e with the 53-bit significand m. */
static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static double double_of(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static int exponent_of(uint64_t b)
{
    return (int)((b >> 52) & 0x7ff) - 1075;
}

/* |c * 1000 - a| scaled by 2^-scale (scale <= c's exponent): exact, so
 * that candidates can be compared.  a < 2^62 and c >= 0.0009, so every
 * term fits 127 bits. */
static unsigned __int128 error_of(uint64_t c, uint64_t a, int scale)
{
    uint64_t m = (c & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
    unsigned __int128 x = (unsigned __int128)m * 1000u << (exponent_of(c) - scale);
    unsigned __int128 y = scale < 0 ? (unsigned __int128)a << -scale : (unsigned __int128)a >> scale;
    return x > y ? x - y : y - x;
}

double vp_hta_us(int64_t ns)
{
    if (ns % 1000 == 0)
        return (double)(ns / 1000);
    int neg = ns < 0;
    uint64_t a = neg ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    /* Python's float() of the decimal text is the double nearest a / 1000.
     * Two roundings ((double)a, then the division) land within two ulps of
     * it: the nearest of the five doubles around is the one, the even one
     * when a / 1000 lies halfway (x.125, x.375 ... at 1/4 us).  No long
     * double: valgrind's has a double's precision, and some ABIs' long
     * double is a double. */
    double d = (double)a / 1000.0;
    if (a >= (uint64_t)1 << 62)
        return neg ? -d : d;   /* past 4.6e15 us: not a time */
    uint64_t c = bits_of(d), best = c;
    int scale = exponent_of(c - 2);
    unsigned __int128 best_err = error_of(c, a, scale);
    for (uint64_t k = c - 2; k <= c + 2; k++) {
        unsigned __int128 err = error_of(k, a, scale);
        if (err < best_err || (err == best_err && (best & 1) && !(k & 1))) {
            best_err = err;
            best = k;
        }
    }
    return neg ? -double_of(best) : double_of(best);
}

void vp_hta_round(int64_t ts, int64_t dur, int64_t *start_us, int64_t *end_us)
{
    double t = vp_hta_us(ts);
    *start_us = (int64_t)ceil(t);
    *end_us = (int64_t)floor(t + vp_hta_us(dur));
}

int vp_hta_times_asked(void)
{
    const char *v = getenv("VPROF_HTA_TIMES");
    return v && strcmp(v, "1") == 0;
}
