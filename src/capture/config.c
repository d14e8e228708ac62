/* The VPROF_* environment shared by `vprof record` and libvprof-cupti.so
 * (see vprof/capture.h): parsing, printing, ranks and the output name. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/capture.h"

const char *const vp_cap_env_names[] = {
    "VPROF_OUTPUT_DIR", "VPROF_KINDS", "VPROF_CAPTURE_RANGE", "VPROF_DELAY",
    "VPROF_DURATION", "VPROF_RANKS", "VPROF_BUFFER_SIZE", "VPROF_BUFFER_POOL",
    "VPROF_FLUSH_MS", "VPROF_GZIP", "VPROF_QUIET", NULL,
};

static const struct {
    const char *name;
    unsigned bit;
} kind_names[] = {
    {"kernel", VP_CAP_KERNEL}, {"memcpy", VP_CAP_MEMCPY},   {"memset", VP_CAP_MEMSET},
    {"sync", VP_CAP_SYNC},     {"runtime", VP_CAP_RUNTIME}, {"driver", VP_CAP_DRIVER},
    {"overhead", VP_CAP_OVERHEAD}, {"nvtx", VP_CAP_NVTX},
};
#define NKINDS (sizeof kind_names / sizeof kind_names[0])

void vp_cap_config_init(vp_cap_config *c)
{
    memset(c, 0, sizeof *c);
    c->output_dir = vp_strdup(".");
    c->kinds = VP_CAP_DEFAULT_KINDS;
    c->range = VP_RANGE_ALL;
    c->buffer_size = VP_CAP_DEFAULT_BUFFER_SIZE;
    c->pool_size = VP_CAP_DEFAULT_POOL_SIZE;
    c->flush_ms = VP_CAP_DEFAULT_FLUSH_MS;
    c->gzip = 1;
}

void vp_cap_config_free(vp_cap_config *c)
{
    free(c->output_dir);
    free(c->range_name);
    c->output_dir = c->range_name = NULL;
}

int vp_cap_parse_kinds(const char *s, unsigned *kinds, const char *what, vp_error *err)
{
    unsigned k = 0;
    const char *p = s;
    /* "default" and "all" are spelled out for scripts that build lists. */
    if (strcmp(s, "default") == 0) {
        *kinds = VP_CAP_DEFAULT_KINDS;
        return 0;
    }
    if (strcmp(s, "all") == 0) {
        *kinds = VP_CAP_DEFAULT_KINDS | VP_CAP_NVTX;
        return 0;
    }
    for (;;) {
        size_t n = strcspn(p, ",");
        size_t i;
        for (i = 0; i < NKINDS; i++)
            if (strlen(kind_names[i].name) == n && memcmp(kind_names[i].name, p, n) == 0)
                break;
        if (i == NKINDS) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "%s: unknown kind '%.*s' (kernel, memcpy, memset, sync, runtime, driver, "
                         "overhead, nvtx; or default, all)",
                         what, (int)n, p);
            return -1;
        }
        k |= kind_names[i].bit;
        if (p[n] == 0)
            break;
        p += n + 1;
    }
    *kinds = k;
    return 0;
}

int vp_cap_parse_range(const char *s, vp_cap_range *range, char **name, const char *what,
                       vp_error *err)
{
    if (strcmp(s, "all") == 0 || strcmp(s, "none") == 0) {
        *range = VP_RANGE_ALL;
    } else if (strcmp(s, "cudaProfilerApi") == 0) {
        *range = VP_RANGE_PROFILER_API;
    } else if (strncmp(s, "nvtx:", 5) == 0 && s[5]) {
        *range = VP_RANGE_NVTX;
        free(*name);
        *name = vp_strdup(s + 5);
        return 0;
    } else {
        vp_error_set(err, VP_EXIT_USAGE, "%s: '%s' is not a capture range (all, cudaProfilerApi, nvtx:NAME)",
                     what, s);
        return -1;
    }
    free(*name);
    *name = NULL;
    return 0;
}

int vp_cap_parse_seconds(const char *s, int64_t *ns, const char *what, vp_error *err)
{
    /* Integer and fraction digits separately: "0.1" must be exactly
     * 100000000 ns, which a double does not promise. */
    const char *p = s;
    int64_t whole = 0, frac = 0;
    int digits = 0, fdigits = 0;
    while (*p >= '0' && *p <= '9') {
        if (whole > (INT64_MAX / 1000000000 - 9) / 10)
            goto bad;
        whole = whole * 10 + (*p++ - '0');
        digits++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (fdigits < 9) {
                frac = frac * 10 + (*p - '0');
                fdigits++;
            }
            p++;
            digits++;
        }
    }
    if (digits == 0)
        goto bad;
    for (int i = fdigits; i < 9; i++)
        frac *= 10;
    int64_t v = whole * 1000000000 + frac;
    if (strcmp(p, "ms") == 0)
        v /= 1000;
    else if (*p && strcmp(p, "s") != 0)
        goto bad;
    *ns = v;
    return 0;
bad:
    vp_error_set(err, VP_EXIT_USAGE, "%s: '%s' is not a time in seconds (e.g. 10, 2.5, 500ms)", what, s);
    return -1;
}

static int parse_long(const char **pp, long *v)
{
    const char *p = *pp;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    char *end;
    long x = strtol(p, &end, 10);
    if (errno || x < 0)
        return -1;
    *v = x;
    *pp = end;
    return 0;
}

int vp_cap_parse_ranks(const char *s, vp_cap_config *c, const char *what, vp_error *err)
{
    const char *p = s;
    int n = 0;
    for (;;) {
        long lo, hi;
        if (n == VP_CAP_MAX_RANKS || parse_long(&p, &lo) != 0)
            goto bad;
        hi = lo;
        if (*p == '-') {
            p++;
            if (parse_long(&p, &hi) != 0 || hi < lo)
                goto bad;
        }
        c->rank_lo[n] = lo;
        c->rank_hi[n] = hi;
        n++;
        if (*p == 0)
            break;
        if (*p != ',')
            goto bad;
        p++;
    }
    c->nranks = n;
    return 0;
bad:
    vp_error_set(err, VP_EXIT_USAGE, "%s: '%s' is not a rank list (e.g. 0,3,8-15; at most %d items)",
                 what, s, VP_CAP_MAX_RANKS);
    return -1;
}

int vp_cap_parse_size(const char *s, size_t *bytes, const char *what, vp_error *err)
{
    const char *p = s;
    long v;
    if (parse_long(&p, &v) != 0)
        goto bad;
    size_t shift = 0;
    if (*p == 'K' || *p == 'k')
        shift = 10, p++;
    else if (*p == 'M' || *p == 'm')
        shift = 20, p++;
    else if (*p == 'G' || *p == 'g')
        shift = 30, p++;
    if (*p == 'B' || *p == 'b')
        p++;
    /* Below 64 KiB a buffer holds too few records to be worth a callback;
     * above 1 TiB is a typo. */
    if (*p || v == 0 || (uint64_t)v > (UINT64_C(1) << 40) >> shift ||
        ((uint64_t)v << shift) < (UINT64_C(64) << 10))
        goto bad;
    *bytes = (size_t)((uint64_t)v << shift);
    return 0;
bad:
    vp_error_set(err, VP_EXIT_USAGE, "%s: '%s' is not a size from 64K to 1T (e.g. 8M)", what, s);
    return -1;
}

static int parse_bool(const char *s, int *v, const char *what, vp_error *err)
{
    if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "on") || !strcmp(s, "true")) {
        *v = 1;
        return 0;
    }
    if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "off") || !strcmp(s, "false") || !*s) {
        *v = 0;
        return 0;
    }
    vp_error_set(err, VP_EXIT_USAGE, "%s: '%s' is not 0 or 1", what, s);
    return -1;
}

int vp_cap_config_from_env(vp_cap_config *c, vp_getenv_fn lookup, void *ctx, vp_error *err)
{
    const char *v;
    if ((v = lookup(ctx, "VPROF_OUTPUT_DIR")) && *v) {
        free(c->output_dir);
        c->output_dir = vp_strdup(v);
    }
    if ((v = lookup(ctx, "VPROF_KINDS")) && *v &&
        vp_cap_parse_kinds(v, &c->kinds, "VPROF_KINDS", err) != 0)
        return -1;
    if ((v = lookup(ctx, "VPROF_CAPTURE_RANGE")) && *v &&
        vp_cap_parse_range(v, &c->range, &c->range_name, "VPROF_CAPTURE_RANGE", err) != 0)
        return -1;
    if ((v = lookup(ctx, "VPROF_DELAY")) && *v &&
        vp_cap_parse_seconds(v, &c->delay_ns, "VPROF_DELAY", err) != 0)
        return -1;
    if ((v = lookup(ctx, "VPROF_DURATION")) && *v &&
        vp_cap_parse_seconds(v, &c->duration_ns, "VPROF_DURATION", err) != 0)
        return -1;
    if ((v = lookup(ctx, "VPROF_RANKS")) && *v && vp_cap_parse_ranks(v, c, "VPROF_RANKS", err) != 0)
        return -1;
    if ((v = lookup(ctx, "VPROF_BUFFER_SIZE")) && *v &&
        vp_cap_parse_size(v, &c->buffer_size, "VPROF_BUFFER_SIZE", err) != 0)
        return -1;
    if ((v = lookup(ctx, "VPROF_BUFFER_POOL")) && *v &&
        vp_cap_parse_size(v, &c->pool_size, "VPROF_BUFFER_POOL", err) != 0)
        return -1;
    if ((v = lookup(ctx, "VPROF_FLUSH_MS")) && *v) {
        const char *p = v;
        long ms;
        if (parse_long(&p, &ms) != 0 || *p || ms > 3600000) {
            vp_error_set(err, VP_EXIT_USAGE, "VPROF_FLUSH_MS: '%s' is not milliseconds (0 to 3600000)", v);
            return -1;
        }
        c->flush_ms = (int)ms;
    }
    if ((v = lookup(ctx, "VPROF_GZIP")) && parse_bool(v, &c->gzip, "VPROF_GZIP", err) != 0)
        return -1;
    if ((v = lookup(ctx, "VPROF_QUIET")) && parse_bool(v, &c->quiet, "VPROF_QUIET", err) != 0)
        return -1;
    if (c->pool_size < 2 * c->buffer_size)
        c->pool_size = 2 * c->buffer_size;
    return 0;
}

void vp_cap_kinds_text(unsigned kinds, vp_buf *out)
{
    int first = 1;
    for (size_t i = 0; i < NKINDS; i++) {
        if (!(kinds & kind_names[i].bit))
            continue;
        if (!first)
            vp_buf_putc(out, ',');
        vp_buf_append(out, kind_names[i].name, strlen(kind_names[i].name));
        first = 0;
    }
    vp_buf_cstr(out);
}

void vp_cap_range_text(const vp_cap_config *c, vp_buf *out)
{
    switch (c->range) {
    case VP_RANGE_ALL:
        vp_buf_printf(out, "all");
        break;
    case VP_RANGE_PROFILER_API:
        vp_buf_printf(out, "cudaProfilerApi");
        break;
    case VP_RANGE_NVTX:
        vp_buf_printf(out, "nvtx:%s", c->range_name ? c->range_name : "");
        break;
    }
}

static void seconds_text(int64_t ns, vp_buf *out)
{
    vp_buf_printf(out, "%lld", (long long)(ns / 1000000000));
    int64_t frac = ns % 1000000000;
    if (frac) {
        char d[16];
        int n = snprintf(d, sizeof d, "%09lld", (long long)frac);
        while (n > 0 && d[n - 1] == '0')
            n--;
        vp_buf_printf(out, ".%.*s", n, d);
    }
}

static void size_text(size_t v, vp_buf *out)
{
    if (v % ((size_t)1 << 30) == 0)
        vp_buf_printf(out, "%zuG", v >> 30);
    else if (v % ((size_t)1 << 20) == 0)
        vp_buf_printf(out, "%zuM", v >> 20);
    else if (v % ((size_t)1 << 10) == 0)
        vp_buf_printf(out, "%zuK", v >> 10);
    else
        vp_buf_printf(out, "%zu", v);
}

void vp_cap_config_to_env(const vp_cap_config *c, vp_buf *out)
{
    vp_buf_printf(out, "VPROF_OUTPUT_DIR=%s\n", c->output_dir);
    if (c->kinds != VP_CAP_DEFAULT_KINDS) {
        vp_buf_printf(out, "VPROF_KINDS=");
        vp_cap_kinds_text(c->kinds, out);
        vp_buf_putc(out, '\n');
    }
    if (c->range != VP_RANGE_ALL) {
        vp_buf_printf(out, "VPROF_CAPTURE_RANGE=");
        vp_cap_range_text(c, out);
        vp_buf_putc(out, '\n');
    }
    if (c->delay_ns) {
        vp_buf_printf(out, "VPROF_DELAY=");
        seconds_text(c->delay_ns, out);
        vp_buf_putc(out, '\n');
    }
    if (c->duration_ns) {
        vp_buf_printf(out, "VPROF_DURATION=");
        seconds_text(c->duration_ns, out);
        vp_buf_putc(out, '\n');
    }
    if (c->nranks) {
        vp_buf_printf(out, "VPROF_RANKS=");
        for (int i = 0; i < c->nranks; i++) {
            vp_buf_printf(out, "%s%ld", i ? "," : "", c->rank_lo[i]);
            if (c->rank_hi[i] != c->rank_lo[i])
                vp_buf_printf(out, "-%ld", c->rank_hi[i]);
        }
        vp_buf_putc(out, '\n');
    }
    if (c->buffer_size != VP_CAP_DEFAULT_BUFFER_SIZE) {
        vp_buf_printf(out, "VPROF_BUFFER_SIZE=");
        size_text(c->buffer_size, out);
        vp_buf_putc(out, '\n');
    }
    if (c->pool_size != VP_CAP_DEFAULT_POOL_SIZE) {
        vp_buf_printf(out, "VPROF_BUFFER_POOL=");
        size_text(c->pool_size, out);
        vp_buf_putc(out, '\n');
    }
    if (c->flush_ms != VP_CAP_DEFAULT_FLUSH_MS)
        vp_buf_printf(out, "VPROF_FLUSH_MS=%d\n", c->flush_ms);
    if (!c->gzip)
        vp_buf_printf(out, "VPROF_GZIP=0\n");
    if (c->quiet)
        vp_buf_printf(out, "VPROF_QUIET=1\n");
    vp_buf_cstr(out);
}

static long env_long(vp_getenv_fn lookup, void *ctx, const char *const *names)
{
    for (; *names; names++) {
        const char *v = lookup(ctx, *names);
        if (!v || !*v)
            continue;
        const char *p = v;
        long x;
        if (parse_long(&p, &x) == 0 && *p == 0)
            return x;
    }
    return -1;
}

long vp_cap_env_rank(vp_getenv_fn lookup, void *ctx)
{
    static const char *const names[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", NULL};
    return env_long(lookup, ctx, names);
}

long vp_cap_env_world_size(vp_getenv_fn lookup, void *ctx)
{
    static const char *const names[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
                                        NULL};
    return env_long(lookup, ctx, names);
}

int vp_cap_rank_selected(const vp_cap_config *c, long rank)
{
    if (c->nranks == 0)
        return 1;
    if (rank < 0)
        rank = 0;
    for (int i = 0; i < c->nranks; i++)
        if (rank >= c->rank_lo[i] && rank <= c->rank_hi[i])
            return 1;
    return 0;
}

void vp_cap_output_path(const vp_cap_config *c, long rank, long pid, vp_buf *out)
{
    const char *dir = c->output_dir && *c->output_dir ? c->output_dir : ".";
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    vp_buf_printf(out, "%.*s/vprof_rank%ld_%ld.pt.trace.json%s", (int)n, dir, rank < 0 ? 0 : rank, pid,
                  c->gzip ? ".gz" : "");
}
