/* Per-name statistics of runtime calls, copies and ranges: the model of
 * vprof/evsum.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/evsum.h"
#include "vprof/part.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"

void vp_evsum_init(vp_evsum *s, const vp_evsum_opts *o)
{
    memset(s, 0, sizeof *s);
    s->o = *o;
    s->strs = vp_strmap_new();
    s->keys = vp_strmap_new();
}

void vp_evsum_free(vp_evsum *s)
{
    for (size_t i = 0; i < s->nstr; i++)
        free(s->str[i]);
    free(s->str);
    for (size_t i = 0; i < s->ngroups; i++) {
        free(s->groups[i].dur);
        free(s->groups[i].bytes);
    }
    free(s->groups);
    vp_strmap_free(s->strs);
    vp_strmap_free(s->keys);
    memset(s, 0, sizeof *s);
}

static uint32_t intern(vp_evsum *s, const char *p, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(s->strs, p, n, &inserted);
    if (inserted) {
        s->str = vp_realloc(s->str, (s->nstr + 1) * sizeof *s->str);
        s->str[s->nstr] = vp_strndup(p, n);
        *slot = (void *)(uintptr_t)++s->nstr;
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

static vp_evgroup *group(vp_evsum *s, uint32_t name, uint32_t cat)
{
    uint32_t key[2] = {name, cat};
    int inserted;
    void **slot = vp_strmap_upsert(s->keys, (const char *)key, sizeof key, &inserted);
    if (inserted) {
        if (s->ngroups == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 64;
            s->groups = vp_realloc(s->groups, s->cap * sizeof *s->groups);
        }
        vp_evgroup *g = &s->groups[s->ngroups];
        memset(g, 0, sizeof *g);
        g->name = name;
        g->cat = cat;
        *slot = (void *)(uintptr_t)++s->ngroups;
    }
    return &s->groups[(uintptr_t)*slot - 1];
}

static void push(int64_t **v, size_t *n, size_t *cap, int64_t x)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *v = vp_realloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = x;
}

const char *vp_copy_kind(const char *name, size_t n, size_t *len)
{
    /* "Memcpy HtoD (Pageable -> Device)": the word after "Memcpy " */
    if (n > 7 && memcmp(name, "Memcpy ", 7) == 0) {
        size_t k = 7;
        while (k < n && name[k] != ' ' && name[k] != '(')
            k++;
        if (k > 7) {
            *len = k - 7;
            return name + 7;
        }
    }
    *len = 5;
    return "other";
}

static int is_range(vp_span cat)
{
    return (cat.n == 15 && memcmp(cat.p, "user_annotation", 15) == 0) ||
           (cat.n == 19 && memcmp(cat.p, "gpu_user_annotation", 19) == 0);
}

static void take_event(void *ctx, const vp_event *ev)
{
    vp_evsum *s = ctx;
    if (ev->ph != 'X')
        return;
    vp_gpu_kind kind = VP_GPU_NONE;
    switch (s->o.family) {
    case VP_EVSUM_API:
        if (!vp_is_launch_category(ev->cat))
            return;
        break;
    case VP_EVSUM_COPIES:
        kind = vp_gpu_kind_of(ev->cat);
        if (kind != VP_GPU_MEMCPY && kind != VP_GPU_MEMSET)
            return;
        break;
    case VP_EVSUM_RANGES:
        if (!is_range(ev->cat))
            return;
        break;
    }
    if (!ev->has_dur) {
        s->no_dur++;
        return;
    }
    vp_evgroup *g;
    if (s->o.family == VP_EVSUM_COPIES) {
        size_t n;
        const char *k = kind == VP_GPU_MEMSET ? "memset" : vp_copy_kind(ev->name.p, ev->name.n, &n);
        g = group(s, intern(s, k, kind == VP_GPU_MEMSET ? 6 : n), UINT32_MAX);
        vp_span v;
        int64_t bytes;
        if (ev->args.p && vp_json_get(ev->args, "bytes", &v) && vp_json_int(v, &bytes) == 0 &&
            bytes >= 0)
            push(&g->bytes, &g->nbytes, &g->capb, bytes);
    } else {
        uint32_t cat = s->o.family == VP_EVSUM_RANGES ? intern(s, ev->cat.p, ev->cat.n) : UINT32_MAX;
        g = group(s, intern(s, ev->name.p, ev->name.n), cat);
    }
    push(&g->dur, &g->n, &g->cap, ev->dur);
}

int vp_evsum_read(vp_evsum *s, const char *path, vp_error *err)
{
    vp_trace_pass p;
    vp_trace_pass_opts o = {.partial = s->o.partial, .rank = -1};
    int r = vp_trace_pass_read(&p, path, &o, take_event, s, err);
    if (p.trace)
        s->nfiles++;   /* opened, read whole or not */
    if (r == 0)
        vp_trace_pass_say(s->o.say, "%s: read %llu events", vp_trace_name(p.trace),
                          (unsigned long long)vp_trace_get_stats(p.trace)->events);
    vp_trace_pass_close(&p);
    return r == 0 ? VP_EXIT_OK : VP_EXIT_INPUT;
}

/* The partial: files, skipped events, strings, then the groups with every
 * sample, in the order first seen. */
void vp_evsum_save(const vp_evsum *s, vp_buf *b)
{
    vp_put_u64(b, s->nfiles);
    vp_put_i64(b, s->no_dur);
    vp_put_u64(b, s->nstr);
    for (size_t i = 0; i < s->nstr; i++)
        vp_put_str(b, s->str[i], strlen(s->str[i]));
    vp_put_u64(b, s->ngroups);
    for (size_t i = 0; i < s->ngroups; i++) {
        const vp_evgroup *g = &s->groups[i];
        vp_put_u64(b, g->name);
        vp_put_u64(b, g->cat == UINT32_MAX ? 0 : (uint64_t)g->cat + 1);
        vp_put_u64(b, g->n);
        for (size_t j = 0; j < g->n; j++)
            vp_put_i64(b, g->dur[j]);
        vp_put_u64(b, g->nbytes);
        for (size_t j = 0; j < g->nbytes; j++)
            vp_put_i64(b, g->bytes[j]);
    }
}

int vp_evsum_merge(vp_evsum *s, const void *p, size_t n, vp_error *err)
{
    vp_rd r;
    vp_rd_init(&r, p, n);
    s->nfiles += (size_t)vp_get_u64(&r);
    s->no_dur += vp_get_i64(&r);
    size_t ns = vp_get_count(&r, 1);
    uint32_t *map = vp_malloc((ns ? ns : 1) * sizeof *map);
    for (size_t i = 0; i < ns && !r.bad; i++) {
        size_t len;
        const char *t = vp_get_str(&r, &len);
        map[i] = t ? intern(s, t, len) : 0;
    }
    size_t ng = vp_get_count(&r, 4);
    for (size_t i = 0; i < ng && !r.bad; i++) {
        uint64_t name = vp_get_u64(&r), cat = vp_get_u64(&r);
        if (name >= ns || cat > ns) {
            r.bad = 1;
            break;
        }
        vp_evgroup *g = group(s, map[name], cat ? map[cat - 1] : UINT32_MAX);
        size_t nd = vp_get_count(&r, 1);
        for (size_t j = 0; j < nd && !r.bad; j++)
            push(&g->dur, &g->n, &g->cap, vp_get_i64(&r));
        size_t nb = vp_get_count(&r, 1);
        for (size_t j = 0; j < nb && !r.bad; j++)
            push(&g->bytes, &g->nbytes, &g->capb, vp_get_i64(&r));
    }
    free(map);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged partial result");
        return -1;
    }
    return 0;
}

static const vp_evsum *sort_ctx;

static int cmp_group(const void *a, const void *b)
{
    const vp_evgroup *x = a, *y = b;
    if (x->d.total != y->d.total)
        return (y->d.total > x->d.total) - (y->d.total < x->d.total);
    int c = strcmp(sort_ctx->str[x->name], sort_ctx->str[y->name]);
    if (c || x->cat == y->cat || x->cat == UINT32_MAX || y->cat == UINT32_MAX)
        return c;
    return strcmp(sort_ctx->str[x->cat], sort_ctx->str[y->cat]);
}

void vp_evsum_finish(vp_evsum *s)
{
    s->grand = 0;
    for (size_t i = 0; i < s->ngroups; i++) {
        vp_evgroup *g = &s->groups[i];
        vp_summarize(g->dur, g->n, &g->d);
        vp_summarize(g->bytes, g->nbytes, &g->b);
        s->grand += g->d.total;
    }
    sort_ctx = s;
    if (s->ngroups)
        qsort(s->groups, s->ngroups, sizeof *s->groups, cmp_group);
    vp_strmap_free(s->keys);   /* it points at the old places */
    s->keys = vp_strmap_new();
}
