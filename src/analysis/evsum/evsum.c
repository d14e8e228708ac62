/* Per-name statistics of runtime calls, copies and ranges: the model of
 * vprof/evsum.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_files.h"
#include "vprof/ascend_summaries.h"
#include "vprof/classify.h"
#include "vprof/evsum.h"
#include "vprof/corrjoin.h"
#include "vprof/part.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"

/* An instance held until its file ends, for --steps or a rank (known
 * only then). */
typedef struct held {
    uint32_t name, cat;
    int64_t dur, bytes;     /* bytes -1: none */
    int64_t ts, corr;       /* corr -1: none */
} held;

/* What one file's pass keeps besides the groups. */
typedef struct file_pass {
    vp_evsum *s;
    held *h;
    size_t n, cap;
    /* Without holding and without a category (api, copies): the group of
     * each name, so that an instance costs one hash lookup (its name),
     * not two.  UINT32_MAX: not looked up yet. */
    uint32_t *group_of;
    size_t ngroup_of;
    int hold;               /* keep the instances until the file ends */
    vp_projfile *proj;      /* with opts.project */
} file_pass;

void vp_evsum_init(vp_evsum *s, const vp_evsum_opts *o)
{
    memset(s, 0, sizeof *s);
    s->o = *o;
    s->strs = vp_strmap_new();
    s->keys = vp_strmap_new();
    if (o->project && o->family == VP_EVSUM_RANGES) {
        s->proj = vp_malloc(sizeof *s->proj);
        vp_rangeproj_init(s->proj);
    }
}

void vp_evsum_free(vp_evsum *s)
{
    for (size_t i = 0; i < s->nstr; i++)
        free(s->str[i]);
    free(s->str);
    for (size_t i = 0; i < s->ngroups; i++) {
        free(s->groups[i].dur);
        free(s->groups[i].bytes);
        free(s->groups[i].agg);
    }
    free(s->groups);
    vp_strmap_free(s->strs);
    vp_strmap_free(s->keys);
    if (s->proj)
        vp_rangeproj_free(s->proj);
    free(s->proj);
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

static uint32_t group_index(vp_evsum *s, uint32_t name, uint32_t cat, long rank)
{
    int64_t key[3] = {name, cat, rank};
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
        g->rank = rank;
        *slot = (void *)(uintptr_t)++s->ngroups;
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

static vp_evgroup *group(vp_evsum *s, uint32_t name, uint32_t cat, long rank)
{
    uint32_t i = group_index(s, name, cat, rank);   /* first: it may move s->groups */
    return &s->groups[i];
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

/* An AscendCL call of an Ascend trace (trace_view.json's CANN process):
 * "AscendCL@aclnnMatmul", no category.  *name: what follows the '@'. */
static int ascendcl_call(const vp_event *ev, vp_span *name)
{
    static const char prefix[] = "AscendCL@";
    size_t n = sizeof prefix - 1;
    if (ev->cat.n != 0 || ev->name.n <= n || memcmp(ev->name.p, prefix, n) != 0)
        return 0;
    name->p = ev->name.p + n;
    name->n = ev->name.n - n;
    return 1;
}

static int is_range(vp_span cat)
{
    vp_ev_kind k = vp_event_kind(cat, (vp_span){"", 0});
    return k == VP_EV_ANNOTATION || k == VP_EV_GPU_ANNOTATION;
}

static void add_to(vp_evgroup *g, int64_t dur, int64_t bytes)
{
    push(&g->dur, &g->n, &g->cap, dur);
    if (bytes >= 0)
        push(&g->bytes, &g->nbytes, &g->capb, bytes);
}

static void push_agg(vp_evgroup *g, const vp_evagg *a)
{
    if (g->nagg == g->capagg) {
        g->capagg = g->capagg ? g->capagg * 2 : 4;
        g->agg = vp_realloc(g->agg, g->capagg * sizeof *g->agg);
    }
    g->agg[g->nagg++] = *a;
}

void vp_evsum_add_agg(vp_evsum *s, const char *name, const char *cat, long rank, const vp_evagg *a)
{
    uint32_t c = cat ? intern(s, cat, strlen(cat)) : UINT32_MAX;
    push_agg(group(s, intern(s, name, strlen(name)), c, rank), a);
}

/* api --by level: an event's level, its category, "acl" for AscendCL. */
static uint32_t api_level(vp_evsum *s, const vp_event *ev)
{
    if (!s->o.by_level)
        return UINT32_MAX;
    return ev->cat.n ? intern(s, ev->cat.p, ev->cat.n) : intern(s, "acl", 3);
}

static void add_instance(vp_evsum *s, uint32_t name, uint32_t cat, long rank, int64_t dur,
                         int64_t bytes)
{
    add_to(group(s, name, cat, rank), dur, bytes);
}

/* add_instance of an instance of no category and no rank, through the
 * pass's name -> group table. */
static void add_uncategorised(file_pass *fp, uint32_t name, int64_t dur, int64_t bytes)
{
    if (name >= fp->ngroup_of) {
        size_t n = fp->ngroup_of ? fp->ngroup_of : 64;
        while (n <= name)
            n *= 2;
        fp->group_of = vp_realloc(fp->group_of, n * sizeof *fp->group_of);
        memset(fp->group_of + fp->ngroup_of, 0xff, (n - fp->ngroup_of) * sizeof *fp->group_of);
        fp->ngroup_of = n;
    }
    if (fp->group_of[name] == UINT32_MAX)
        fp->group_of[name] = group_index(fp->s, name, UINT32_MAX, -1);
    add_to(&fp->s->groups[fp->group_of[name]], dur, bytes);   /* after: it may move them */
}

static void take_event(void *ctx, const vp_event *ev)
{
    file_pass *fp = ctx;
    vp_evsum *s = fp->s;
    if (fp->proj)
        vp_projfile_observe(fp->proj, ev);
    if (ev->ph != 'X')
        return;
    vp_gpu_kind kind = VP_GPU_NONE;
    vp_span ename = ev->name;
    switch (s->o.family) {
    case VP_EVSUM_API:
        if (!vp_is_launch_category(ev->cat) && !ascendcl_call(ev, &ename))
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
    uint32_t name, cat = UINT32_MAX;
    int64_t bytes = -1, corr = -1;
    if (s->o.family == VP_EVSUM_COPIES) {
        size_t n;
        const char *k = kind == VP_GPU_MEMSET ? "memset" : vp_copy_kind(ev->name.p, ev->name.n, &n);
        name = intern(s, k, kind == VP_GPU_MEMSET ? 6 : n);
        vp_span v;
        if (!(ev->args.p && vp_json_get(ev->args, "bytes", &v) && vp_json_int(v, &bytes) == 0 &&
              bytes >= 0))
            bytes = -1;
        if (s->o.steps && !vp_gpu_correlation(ev, &corr))
            corr = -1;
    } else {
        if (s->o.family == VP_EVSUM_RANGES)
            cat = intern(s, ev->cat.p, ev->cat.n);
        else
            cat = api_level(s, ev);
        name = intern(s, ename.p, ename.n);
    }
    if (!fp->hold) {
        if (cat == UINT32_MAX)
            add_uncategorised(fp, name, ev->dur, bytes);
        else
            add_instance(s, name, cat, -1, ev->dur, bytes);
        return;
    }
    if (fp->n == fp->cap) {
        fp->cap = fp->cap ? fp->cap * 2 : 1024;
        fp->h = vp_realloc(fp->h, fp->cap * sizeof *fp->h);
    }
    fp->h[fp->n++] = (held){name, cat, ev->dur, bytes, ev->ts, corr};
}

/* Whether a held instance is inside the selected steps: copies by their
 * launch, the rest by their start. */
static int in_steps(const vp_evsum *s, vp_steps *steps, const held *h)
{
    if (s->o.family == VP_EVSUM_COPIES)
        return h->corr >= 0 && vp_steps_selected(steps, h->corr);
    int64_t a, b;
    long at = vp_steps_at(steps, h->ts);
    return at >= 0 && vp_steps_window(steps, (size_t)at, &a, &b) == 1;
}

/* A file's held instances into the groups, once its steps are known
 * (selected) and its rank told. */
static void end_file(vp_evsum *s, file_pass *fp, vp_steps *steps, long rank)
{
    for (size_t i = 0; i < fp->n; i++)
        if (!steps || in_steps(s, steps, &fp->h[i]))
            add_instance(s, fp->h[i].name, fp->h[i].cat, rank, fp->h[i].dur, fp->h[i].bytes);
    if (fp->proj)
        vp_projfile_end(fp->proj, s->proj, rank, steps);
}

/* One trace; rank >= 0: its rank whatever it says (an Ascend rank's). */
static int read_trace(vp_evsum *s, const char *path, size_t position, long rank, vp_error *err)
{
    static const char *const none_kept[] = {", so no API call is kept", ", so no copy is kept",
                                            ", so no range is kept"};
    vp_trace_pass tp;
    vp_trace_pass_opts o = {.partial = s->o.partial, .range = s->o.steps,
                            .position = (long)position, .rank = rank};
    file_pass fp = {.s = s, .hold = s->o.steps || s->o.by_rank};
    fp.proj = s->proj ? vp_projfile_new() : NULL;
    int rc = vp_trace_pass_read(&tp, path, &o, take_event, &fp, err);
    if (tp.trace)
        s->nfiles++;
    if (rc == 0) {
        vp_trace_pass_warn(&tp, &(vp_trace_pass_warnings){.no_steps_kept = none_kept[s->o.family]});
        end_file(s, &fp, tp.steps, s->o.by_rank ? tp.rank : -1);
        vp_trace_pass_say(s->o.say, "%s: read %llu events", vp_trace_name(tp.trace),
                          (unsigned long long)vp_trace_get_stats(tp.trace)->events);
    }
    vp_trace_pass_close(&tp);
    vp_projfile_free(fp.proj);
    free(fp.h);
    free(fp.group_of);
    return rc == 0 ? VP_EXIT_OK : VP_EXIT_INPUT;
}

/* api_statistic.csv rows as pre-totalled parts. */
typedef struct apistat_ctx {
    vp_evsum *s;
    long rank;
    uint64_t rows;
} apistat_ctx;

static void take_apistat(void *ctx, const vp_asc_apistat *a)
{
    apistat_ctx *c = ctx;
    vp_evagg g = {a->count, a->total, a->min, a->max, a->variance * (double)a->count};
    vp_evsum_add_agg(c->s, a->name, c->s->o.by_level ? a->level : NULL, c->rank, &g);
    c->rows++;
}

static int read_apistat(vp_evsum *s, const char *path, long rank, vp_error *err)
{
    s->nfiles++;
    if (s->o.steps) {
        vp_warn("%s: --steps: api_statistic.csv has no steps, so none of its rows is kept", path);
        return VP_EXIT_OK;
    }
    apistat_ctx c = {s, s->o.by_rank ? rank : -1, 0};
    if (vp_asc_read_apistat(path, take_apistat, &c, err) != 0)
        return VP_EXIT_INPUT;
    vp_trace_pass_say(s->o.say, "%s: rank %ld; %llu api_statistic rows", path, rank,
                      (unsigned long long)c.rows);
    return VP_EXIT_OK;
}

/* An Ascend profile: per rank its api_statistic.csv (every level), else
 * its trace (AscendCL calls); with --steps the trace first (the CSV has
 * no steps). */
static int read_ascend_dir(vp_evsum *s, const char *path, size_t position, vp_error *err)
{
    vp_asc_run run;
    if (vp_asc_scan_ranks(path, &run, "api needs api_statistic.csv or trace_view.json", err) != 0)
        return VP_EXIT_INPUT;
    int status = VP_EXIT_OK;
    for (size_t i = 0; i < run.n && status == VP_EXIT_OK; i++) {
        const vp_asc_rank *r = &run.ranks[i];
        const char *csv = r->files[VP_ASC_API_STATISTIC], *trace = r->files[VP_ASC_TRACE];
        if (trace && (!csv || s->o.steps))
            status = read_trace(s, trace, position, r->rank, err);
        else if (csv)
            status = read_apistat(s, csv, r->rank, err);
        else {
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: neither api_statistic.csv nor a trace (trace_view.json, "
                         "msprof_*.json) found: api has no API calls to read",
                         r->dir);
            status = VP_EXIT_INPUT;
        }
    }
    vp_asc_run_free(&run);
    return status;
}

int vp_evsum_read(vp_evsum *s, const char *path, size_t position, vp_error *err)
{
    if (s->o.family == VP_EVSUM_API) {
        if (vp_asc_is_dir(path))
            return read_ascend_dir(s, path, position, err);
        if (strcmp(path, "-") != 0 && vp_asc_sniff(path) == VP_ASC_API_STATISTIC)
            return read_apistat(s, path, (long)position, err);
    }
    return read_trace(s, path, position, -1, err);
}

/* A file that another reader's pass reads (vprof/evsum.h): the same
 * take_event and end_file as vp_evsum_read; the steps, their selection
 * and their warning are that pass's. */
struct vp_evsum_file {
    file_pass fp;
};

vp_evsum_file *vp_evsum_file_begin(vp_evsum *s)
{
    vp_evsum_file *f = vp_calloc(1, sizeof *f);
    f->fp.s = s;
    f->fp.hold = s->o.steps || s->o.by_rank;
    f->fp.proj = s->proj ? vp_projfile_new() : NULL;
    return f;
}

void vp_evsum_file_observe(void *ctx, const vp_event *ev)
{
    vp_evsum_file *f = ctx;
    take_event(&f->fp, ev);
}

void vp_evsum_file_end(vp_evsum_file *f, vp_steps *steps, long rank)
{
    vp_evsum *s = f->fp.s;
    s->nfiles++;
    end_file(s, &f->fp, s->o.steps ? steps : NULL, s->o.by_rank ? rank : -1);
}

void vp_evsum_file_free(vp_evsum_file *f)
{
    if (!f)
        return;
    vp_projfile_free(f->fp.proj);
    free(f->fp.h);
    free(f->fp.group_of);
    free(f);
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
        vp_put_i64(b, g->rank);
        vp_put_u64(b, g->n);
        for (size_t j = 0; j < g->n; j++)
            vp_put_i64(b, g->dur[j]);
        vp_put_u64(b, g->nbytes);
        for (size_t j = 0; j < g->nbytes; j++)
            vp_put_i64(b, g->bytes[j]);
        vp_put_u64(b, g->nagg);
        for (size_t j = 0; j < g->nagg; j++) {
            const vp_evagg *a = &g->agg[j];
            vp_put_i64(b, a->n);
            vp_put_i64(b, a->total);
            vp_put_i64(b, a->min);
            vp_put_i64(b, a->max);
            vp_put_f64(b, a->m2);
        }
    }
    vp_put_u64(b, s->proj != NULL);
    if (s->proj)
        vp_rangeproj_save(s->proj, b);
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
        /* a name is a C string: one with a NUL byte would save back as
         * another (shorter) name (fuzz_part found it) */
        if (t && memchr(t, '\0', len)) {
            r.bad = 1;
            break;
        }
        map[i] = t ? intern(s, t, len) : 0;
    }
    size_t ng = vp_get_count(&r, 4);
    for (size_t i = 0; i < ng && !r.bad; i++) {
        uint64_t name = vp_get_u64(&r), cat = vp_get_u64(&r);
        if (name >= ns || cat > ns) {
            r.bad = 1;
            break;
        }
        long rank = (long)vp_get_i64(&r);
        vp_evgroup *g = group(s, map[name], cat ? map[cat - 1] : UINT32_MAX, rank);
        size_t nd = vp_get_count(&r, 1);
        for (size_t j = 0; j < nd && !r.bad; j++)
            push(&g->dur, &g->n, &g->cap, vp_get_i64(&r));
        size_t nb = vp_get_count(&r, 1);
        for (size_t j = 0; j < nb && !r.bad; j++)
            push(&g->bytes, &g->nbytes, &g->capb, vp_get_i64(&r));
        size_t na = vp_get_count(&r, 12);
        for (size_t j = 0; j < na && !r.bad; j++) {
            vp_evagg a;
            a.n = vp_get_i64(&r);
            a.total = vp_get_i64(&r);
            a.min = vp_get_i64(&r);
            a.max = vp_get_i64(&r);
            a.m2 = vp_get_f64(&r);
            /* what vp_asc_read_apistat lets through, nothing else */
            if (a.n < 1 || a.total < 0 || a.min < 0 || a.min > a.max || !(a.m2 >= 0) ||
                !isfinite(a.m2))
                r.bad = 1;
            else
                push_agg(g, &a);
        }
    }
    free(map);
    if (vp_get_u64(&r)) {
        /* read even when not wanted (reduce --table ranges), to check it */
        vp_rangeproj scratch;
        vp_rangeproj_init(&scratch);
        vp_rangeproj_load(s->proj ? s->proj : &scratch, &r);
        vp_rangeproj_free(&scratch);
    }
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
    if (c)
        return c;
    if (x->cat != y->cat && x->cat != UINT32_MAX && y->cat != UINT32_MAX &&
        (c = strcmp(sort_ctx->str[x->cat], sort_ctx->str[y->cat])) != 0)
        return c;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

void vp_evsum_finish(vp_evsum *s)
{
    s->grand = 0;
    for (size_t i = 0; i < s->ngroups; i++) {
        vp_evgroup *g = &s->groups[i];
        vp_summarize_with_aggs(g->dur, g->n, g->agg, g->nagg, &g->d);
        vp_summarize(g->bytes, g->nbytes, &g->b);
        s->grand += g->d.total;
    }
    sort_ctx = s;
    if (s->ngroups)
        qsort(s->groups, s->ngroups, sizeof *s->groups, cmp_group);
    vp_strmap_free(s->keys);   /* it points at the old places */
    s->keys = vp_strmap_new();
    if (s->proj)
        vp_rangeproj_finish(s->proj);
}
