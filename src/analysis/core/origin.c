/* Whether trace files can be ranks of one run (vprof/origin.h). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vprof/error.h"
#include "vprof/origin.h"
#include "vprof/rank.h"
#include "vprof/trace.h"

/* Before 2000-01-01 a ts in ns is not a time since the epoch: a trace that
 * counts from its own start (or from 0) says nothing of when. */
#define EPOCH_2000_NS 946684800000000000LL

void vp_origins_init(vp_origins *s)
{
    memset(s, 0, sizeof *s);
}

void vp_origins_free(vp_origins *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->o[i].name);
        free(s->o[i].device);
    }
    free(s->o);
    memset(s, 0, sizeof *s);
}

static vp_origin *append(vp_origins *s)
{
    s->o = vp_realloc(s->o, (s->n + 1) * sizeof *s->o);
    vp_origin *o = &s->o[s->n++];
    memset(o, 0, sizeof *o);
    o->first = 1;   /* unknown */
    o->rank = -1;
    return o;
}

void vp_origins_add(vp_origins *s, const vp_trace_pass *p)
{
    vp_origin *o = append(s);
    o->name = vp_strdup(vp_trace_name(p->trace));
    const cJSON *meta = vp_trace_meta(p->trace);
    const cJSON *di = meta ? cJSON_GetObjectItemCaseSensitive(meta, "distributedInfo") : NULL;
    const cJSON *r = di ? cJSON_GetObjectItemCaseSensitive(di, "rank") : NULL;
    if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < 1e9)
        o->rank = (long)r->valuedouble;
    o->world = vp_rank_world_size(meta);
    const cJSON *dp = vp_meta_devices(meta, NULL);
    const cJSON *name = dp ? cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(dp, 0), "name")
                           : NULL;
    o->device = vp_strdup(cJSON_IsString(name) ? name->valuestring : "");
    if (p->ts_first > p->ts_last)
        return;
    /* Kineto since 2023 counts ts from baseTimeNanoseconds; before, from
     * the epoch.  A base or a ts that does not fit is no clock. */
    int64_t base = 0, first, last;
    if (vp_trace_meta_int(p->trace, "baseTimeNanoseconds", &base) && base < 0)
        return;
    if (__builtin_add_overflow(base, p->ts_first, &first) ||
        __builtin_add_overflow(base, p->ts_last, &last) || first < EPOCH_2000_NS)
        return;
    o->first = first;
    o->last = last;
}

void vp_origins_save(const vp_origins *s, vp_buf *b)
{
    vp_put_u64(b, s->n);
    for (size_t i = 0; i < s->n; i++) {
        const vp_origin *o = &s->o[i];
        vp_put_str(b, o->name, strlen(o->name));
        vp_put_i64(b, o->first);
        vp_put_i64(b, o->last);
        vp_put_i64(b, o->rank);
        vp_put_i64(b, o->world);
        vp_put_str(b, o->device, strlen(o->device));
    }
}

void vp_origins_merge(vp_origins *s, vp_rd *d)
{
    size_t n = vp_get_count(d, 6);
    for (size_t i = 0; i < n && !d->bad; i++) {
        char *name = vp_get_cstr_dup(d);
        int64_t first = vp_get_i64(d), last = vp_get_i64(d);
        int64_t rank = vp_get_i64(d), world = vp_get_i64(d);
        char *device = vp_get_cstr_dup(d);
        if (d->bad || rank < -1 || rank >= 1000000000 || world < 0 || world >= 1000000000) {
            d->bad = 1;
            free(name);
            free(device);
            break;
        }
        vp_origin *o = append(s);
        *o = (vp_origin){name, first, last, (long)rank, (long)world, device};
    }
}

static int known(const vp_origin *o)
{
    return o->first <= o->last;
}

/* A file with a clock, sorted by the start of its window. */
typedef struct timed {
    int64_t first, last;
    size_t i;
} timed;

static int cmp_first(const void *a, const void *b)
{
    const timed *x = a, *y = b;
    if (x->first != y->first)
        return (x->first > y->first) - (x->first < y->first);
    return (x->i > y->i) - (x->i < y->i);
}

/* "a", "a and b", "a, b and c", "a, b, c and 4 more" */
static void put_names(vp_buf *msg, const vp_origins *s, const size_t *idx, size_t n)
{
    size_t shown = n > 4 ? 3 : n;
    for (size_t i = 0; i < shown; i++)
        vp_buf_printf(msg, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", s->o[idx[i]].name);
    if (shown < n)
        vp_buf_printf(msg, " and %zu more", n - shown);
}

static void put_utc(vp_buf *msg, int64_t ns)
{
    time_t t = (time_t)(ns / 1000000000);
    struct tm tm;
    char when[32];
    if (gmtime_r(&t, &tm) && strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm))
        vp_buf_printf(msg, "%s UTC", when);
    else
        vp_buf_printf(msg, "%lld ns since the epoch", (long long)ns);
}

/* The files with a clock, in windows more than the allowance apart: one
 * group per window, the windows of a group overlapping (or nearly). */
static int apart_in_time(const vp_origins *s, vp_buf *msg)
{
    timed *t = vp_malloc((s->n ? s->n : 1) * sizeof *t);
    size_t *idx = vp_malloc((s->n ? s->n : 1) * sizeof *idx), m = 0;
    for (size_t i = 0; i < s->n; i++)
        if (known(&s->o[i]))
            t[m++] = (timed){s->o[i].first, s->o[i].last, i};
    qsort(t, m, sizeof *t, cmp_first);
    size_t groups = 0;
    for (size_t i = 0, j; i < m; i = j, groups++) {
        int64_t end = t[i].last;
        for (j = i + 1; j < m && t[j].first - end <= VP_ORIGIN_GAP_NS; j++)
            if (t[j].last > end)
                end = t[j].last;
    }
    if (groups >= 2) {
        size_t g = 0;
        for (size_t i = 0, j; i < m; i = j, g++) {
            int64_t end = t[i].last;
            idx[0] = t[i].i;
            for (j = i + 1; j < m && t[j].first - end <= VP_ORIGIN_GAP_NS; j++) {
                idx[j - i] = t[j].i;
                if (t[j].last > end)
                    end = t[j].last;
            }
            vp_buf_printf(msg, "%s", g == 0 ? "" : ", ");
            put_names(msg, s, idx, j - i);
            vp_buf_printf(msg, g == 0 ? " recorded from " : " from ");
            put_utc(msg, t[i].first);
        }
        vp_buf_printf(msg, " (the ranks of one run record at the same time)");
    }
    free(t);
    free(idx);
    return groups >= 2;
}

/* The files grouped by their device, in the order first seen, when two
 * name different ones. */
static int apart_by_device(const vp_origins *s, vp_buf *msg)
{
    const char *one = NULL;
    int differ = 0;
    for (size_t i = 0; i < s->n && !differ; i++)
        if (s->o[i].device[0]) {
            if (!one)
                one = s->o[i].device;
            else
                differ = strcmp(s->o[i].device, one) != 0;
        }
    if (!differ)
        return 0;
    size_t *idx = vp_malloc(s->n * sizeof *idx);
    char *done = vp_malloc(s->n);
    memset(done, 0, s->n);
    int g = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (done[i] || !s->o[i].device[0])
            continue;
        size_t m = 0;
        for (size_t j = i; j < s->n; j++)
            if (!done[j] && strcmp(s->o[j].device, s->o[i].device) == 0) {
                idx[m++] = j;
                done[j] = 1;
            }
        vp_buf_printf(msg, "%s", g++ ? ", " : "");
        put_names(msg, s, idx, m);
        vp_buf_printf(msg, g == 1 ? " ran on %s" : " on %s", s->o[i].device);
    }
    free(idx);
    free(done);
    return 1;
}

static int apart_by_world(const vp_origins *s, vp_buf *msg)
{
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++)
            if (s->o[i].world && s->o[j].world && s->o[i].world != s->o[j].world) {
                vp_buf_printf(msg, "%s says world_size %ld, %s world_size %ld", s->o[i].name,
                              s->o[i].world, s->o[j].name, s->o[j].world);
                return 1;
            }
    return 0;
}

int vp_origins_apart(const vp_origins *s, vp_buf *msg)
{
    if (s->n < 2)
        return 0;
    size_t start = msg->len;
    vp_buf_printf(msg, "the %zu traces look like separate runs, not ranks of one: ", s->n);
    if (!apart_in_time(s, msg) && !apart_by_device(s, msg) && !apart_by_world(s, msg)) {
        msg->len = start;
        if (msg->data)
            msg->data[start] = '\0';
        return 0;
    }
    size_t none = 0;
    for (size_t i = 0; i < s->n; i++)
        none += s->o[i].rank < 0;
    if (none == s->n) {
        vp_buf_printf(msg, "; none has distributedInfo.rank");
    } else if (none) {
        vp_buf_printf(msg, "; ");
        size_t *idx = vp_malloc(none * sizeof *idx), m = 0;
        for (size_t i = 0; i < s->n; i++)
            if (s->o[i].rank < 0)
                idx[m++] = i;
        put_names(msg, s, idx, m);
        free(idx);
        vp_buf_printf(msg, " %s no distributedInfo.rank", none == 1 ? "has" : "have");
    }
    return 1;
}

void vp_origins_warn(const vp_origins *s, const char *cmd)
{
    vp_buf msg = {0};
    if (vp_origins_apart(s, &msg))
        vp_warn("%s: %s; yet they are read as the %zu ranks of one run", cmd,
                vp_buf_cstr(&msg), s->n);
    vp_buf_free(&msg);
}
