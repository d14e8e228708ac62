/* Launches joined with their calls, per-name samples, kept rows: the
 * model of vprof/launches.h.  Partial results are in launches_part.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/launches.h"
#include "vprof/corrjoin.h"
#include "vprof/tracepass.h"
#include "vprof/rank.h"
#include "vprof/trace.h"

void vp_launches_init(vp_launches *l, const vp_launches_opts *o)
{
    memset(l, 0, sizeof *l);
    l->o = *o;
    l->name_map = vp_strmap_new();
    l->group_map = vp_strmap_new();
}

void vp_launches_free(vp_launches *l)
{
    for (size_t i = 0; i < l->nnames; i++)
        free(l->names[i]);
    free(l->names);
    for (size_t i = 0; i < l->nfiles; i++)
        free(l->files[i].path);
    free(l->files);
    free(l->rows);
    for (size_t i = 0; i < l->ngroups; i++) {
        vp_lgroup *g = &l->groups[i];
        free(g->api_t);
        free(g->queue_t);
        free(g->kernel_t);
        free(g->total_t);
    }
    free(l->groups);
    vp_strmap_free(l->name_map);
    vp_strmap_free(l->group_map);
    memset(l, 0, sizeof *l);
}

uint32_t vp_launches_intern(vp_launches *l, const char *s, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(l->name_map, s, n, &inserted);
    if (inserted) {
        l->names = vp_realloc(l->names, (l->nnames + 1) * sizeof *l->names);
        l->names[l->nnames] = vp_strndup(s, n);
        *slot = (void *)(uintptr_t)++l->nnames;
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

size_t vp_launches_new_file(vp_launches *l, const char *path, long rank)
{
    l->files = vp_realloc(l->files, (l->nfiles + 1) * sizeof *l->files);
    vp_lfile *f = &l->files[l->nfiles];
    memset(f, 0, sizeof *f);
    f->path = vp_strdup(path);
    f->rank = rank;
    return l->nfiles++;
}

vp_lgroup *vp_launches_group(vp_launches *l, uint32_t api, uint32_t name)
{
    uint32_t key[2] = {api, name};
    int inserted;
    void **slot = vp_strmap_upsert(l->group_map, (const char *)key, sizeof key, &inserted);
    if (inserted) {
        if (l->ngroups == l->cap_groups) {
            l->cap_groups = l->cap_groups ? l->cap_groups * 2 : 64;
            l->groups = vp_realloc(l->groups, l->cap_groups * sizeof *l->groups);
        }
        vp_lgroup *g = &l->groups[l->ngroups];
        memset(g, 0, sizeof *g);
        g->api = api;
        g->name = name;
        *slot = (void *)(uintptr_t)++l->ngroups;
    }
    return &l->groups[(uintptr_t)*slot - 1];
}

void vp_lgroup_add(vp_lgroup *g, int64_t api, int64_t kernel, int64_t total)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 8;
        g->api_t = vp_realloc(g->api_t, g->cap * sizeof *g->api_t);
        g->kernel_t = vp_realloc(g->kernel_t, g->cap * sizeof *g->kernel_t);
        g->total_t = vp_realloc(g->total_t, g->cap * sizeof *g->total_t);
    }
    g->api_t[g->n] = api;
    g->kernel_t[g->n] = kernel;
    g->total_t[g->n++] = total;
}

void vp_lgroup_add_queue(vp_lgroup *g, int64_t queue)
{
    if (g->nq == g->capq) {
        g->capq = g->capq ? g->capq * 2 : 8;
        g->queue_t = vp_realloc(g->queue_t, g->capq * sizeof *g->queue_t);
    }
    g->queue_t[g->nq++] = queue;
}

static vp_lsort sort_key;

/* The order of the kept rows; ties by file (input order), GPU start and
 * correlation id, the same in every process. */
static int cmp_row(const void *a, const void *b)
{
    const vp_launch *x = a, *y = b;
    int64_t kx, ky;
    switch (sort_key) {
    case VP_LSORT_CPU: kx = y->cpu_dur, ky = x->cpu_dur; break;
    case VP_LSORT_GPU: kx = y->gpu_dur, ky = x->gpu_dur; break;
    case VP_LSORT_START: kx = x->cpu_ts, ky = y->cpu_ts; break;
    default: kx = y->delay, ky = x->delay; break;
    }
    if (sort_key == VP_LSORT_START && x->file != y->file)
        return (x->file > y->file) - (x->file < y->file);
    if (kx != ky)
        return (kx > ky) - (kx < ky);
    if (x->file != y->file)
        return (x->file > y->file) - (x->file < y->file);
    if (x->gpu_ts != y->gpu_ts)
        return (x->gpu_ts > y->gpu_ts) - (x->gpu_ts < y->gpu_ts);
    return (x->corr > y->corr) - (x->corr < y->corr);
}

static void prune_rows(vp_launches *l)
{
    sort_key = l->o.sort;
    if (l->nrows)
        qsort(l->rows, l->nrows, sizeof *l->rows, cmp_row);
    if (l->o.keep >= 0 && l->nrows > (size_t)l->o.keep)
        l->nrows = (size_t)l->o.keep;
}

void vp_launches_keep_row(vp_launches *l, const vp_launch *x)
{
    l->all_rows++;
    if (l->o.keep == 0)
        return;
    if (l->nrows == l->cap_rows) {
        /* Bounded by --top: sorting and cutting to keep rows when the
         * buffer holds twice that costs O(log keep) a row. */
        if (l->o.keep > 0 && l->nrows >= 2 * (size_t)l->o.keep) {
            prune_rows(l);
        } else {
            l->cap_rows = l->cap_rows ? l->cap_rows * 2 : 1024;
            l->rows = vp_realloc(l->rows, l->cap_rows * sizeof *l->rows);
        }
    }
    l->rows[l->nrows++] = *x;
}

void vp_launches_add(vp_launches *l, const vp_launch *x)
{
    vp_lfile *f = &l->files[x->file];
    int64_t cut = l->o.runtime_cutoff;
    f->launches++;
    f->runtime_over += x->cpu_dur > cut;
    f->delay_over += x->delay > l->o.delay_cutoff;
    f->short_gpu += x->cpu_dur <= cut && x->gpu_dur < x->cpu_dur;
    /* The GPU had nothing queued: the work started within one call's
     * time of the call's end, and ran for less than the call took. */
    f->launch_bound += x->gpu_dur < x->cpu_dur && x->delay < x->cpu_dur;
    f->cpu_total += x->cpu_dur;
    f->gpu_total += x->gpu_dur;
    f->delay_total += x->delay;
    if (x->delay > f->delay_max)
        f->delay_max = x->delay;
    if (x->kind == VP_GPU_KERNEL && !l->o.counts_only) {
        int64_t queue = x->gpu_ts - (x->cpu_ts + x->cpu_dur);
        int64_t past = queue + x->gpu_dur;   /* the kernel's end after the call's */
        vp_lgroup *g = vp_launches_group(l, x->api, x->name);
        vp_lgroup_add(g, x->cpu_dur, x->gpu_dur, x->cpu_dur + (past > 0 ? past : 0));
        if (queue > 0)   /* nsys reports no queue time where the kernel started first */
            vp_lgroup_add_queue(g, queue);
    }
    vp_launches_keep_row(l, x);
}

/* GPU work waiting, until the file's end, for its call (and steps). */
typedef struct gpu_work {
    int64_t corr, ts, dur;
    uint32_t name, kind;
} gpu_work;

struct vp_launches_file {
    vp_launches *l;
    size_t file;
    vp_corrjoin *calls;
    gpu_work *work;
    size_t nwork, cap_work;
};

vp_launches_file *vp_launches_file_begin(vp_launches *l, const char *path, long position)
{
    vp_launches_file *p = vp_calloc(1, sizeof *p);
    p->l = l;
    p->file = vp_launches_new_file(l, path, position);
    p->calls = vp_corrjoin_new();
    return p;
}

/* A name for a row or a group; none is kept when neither is (summary's
 * counts), which saves a hash lookup an event. */
static uint32_t name_of(vp_launches *l, vp_span s)
{
    return l->o.counts_only && l->o.keep == 0 ? UINT32_MAX : vp_launches_intern(l, s.p, s.n);
}

void vp_launches_file_work(vp_launches_file *p, const vp_event *ev, int64_t corr, int has_corr)
{
    vp_gpu_kind kind = vp_gpu_kind_of(ev->cat);
    if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur ||
        (kind != VP_GPU_KERNEL && kind != VP_GPU_MEMCPY && kind != VP_GPU_MEMSET))
        return;
    if (!has_corr) {
        p->l->files[p->file].unlaunched++;
        return;
    }
    if (p->nwork == p->cap_work) {
        p->cap_work = p->cap_work ? p->cap_work * 2 : 4096;
        p->work = vp_realloc(p->work, p->cap_work * sizeof *p->work);
    }
    p->work[p->nwork++] = (gpu_work){corr, ev->ts, ev->dur, name_of(p->l, ev->name), kind};
}

void vp_launches_file_observe(void *ctx, const vp_event *ev)
{
    vp_launches_file *p = ctx;
    int64_t corr;
    if (vp_launch_correlation(ev, &corr)) {
        vp_launch_call c = {ev->ts, ev->has_dur ? ev->dur : 0, name_of(p->l, ev->name)};
        vp_corrjoin_call(p->calls, corr, &c);
        return;
    }
    if (vp_gpu_kind_of(ev->cat) != VP_GPU_NONE) {
        /* read before the call: C leaves the order of its arguments open */
        int has_corr = vp_gpu_correlation(ev, &corr);
        vp_launches_file_work(p, ev, corr, has_corr);
    }
}

/* The call that launched corr: from the file's own join, or from the
 * steps that recorded the calls (the same join, without names). */
static int launcher(const vp_launches_file *p, const vp_steps *calls, int64_t corr,
                    vp_launch_call *c)
{
    if (!calls)
        return vp_corrjoin_launcher(p->calls, corr, c);
    c->api = UINT32_MAX;
    return vp_steps_launch(calls, corr, &c->ts, &c->dur);
}

void vp_launches_file_end(vp_launches_file *p, long rank, vp_steps *steps, const vp_steps *calls)
{
    vp_launches *l = p->l;
    l->files[p->file].rank = rank;
    for (size_t i = 0; i < p->nwork; i++) {
        const gpu_work *w = &p->work[i];
        vp_launch_call c;
        if (!launcher(p, calls, w->corr, &c)) {
            l->files[p->file].unlaunched++;
            continue;
        }
        if (steps && !vp_steps_selected(steps, w->corr))
            continue;
        int64_t delay = w->ts - (c.ts + c.dur);
        vp_launch x = {
            .corr = w->corr, .cpu_ts = c.ts, .gpu_ts = w->ts, .cpu_dur = c.dur,
            .gpu_dur = w->dur, .delay = delay > 0 ? delay : 0, .api = c.api, .name = w->name,
            .file = (uint32_t)p->file, .kind = w->kind,
        };
        vp_launches_add(l, &x);
    }
}

size_t vp_launches_file_calls(const vp_launches_file *p)
{
    return vp_corrjoin_calls(p->calls);
}

void vp_launches_file_free(vp_launches_file *p)
{
    if (!p)
        return;
    free(p->work);
    vp_corrjoin_free(p->calls);
    free(p);
}

int vp_launches_read(vp_launches *l, const char *path, size_t position, vp_error *err)
{
    vp_trace_pass tp;
    vp_trace_pass_opts o = {.partial = l->o.partial, .range = l->o.steps,
                            .position = (long)position, .rank = -1};
    vp_launches_file *p = vp_launches_file_begin(l, path, (long)position);
    int rc = vp_trace_pass_read(&tp, path, &o, vp_launches_file_observe, p, err);
    if (rc == 0) {
        vp_trace_pass_warn(&tp,
                           &(vp_trace_pass_warnings){.no_steps_kept = ", so no launch is kept"});
        vp_launches_file_end(p, tp.rank, tp.steps, NULL);
        const vp_lfile *f = &l->files[p->file];
        vp_trace_pass_say(l->o.say,
                          "%s: rank %ld (from %s); %zu launching calls, %lld launches, %lld GPU "
                          "events without a launching call",
                          vp_trace_name(tp.trace), f->rank, vp_rank_source_name(tp.rank_from),
                          vp_launches_file_calls(p), (long long)f->launches,
                          (long long)f->unlaunched);
    }
    vp_launches_file_free(p);
    vp_trace_pass_close(&tp);
    return rc == 0 ? VP_EXIT_OK : VP_EXIT_INPUT;
}

static const vp_launches *group_ctx;

/* By total kernel time; ties by kernel name, then API name. */
static int cmp_group(const void *a, const void *b)
{
    const vp_lgroup *x = a, *y = b;
    if (x->k.total != y->k.total)
        return (y->k.total > x->k.total) - (y->k.total < x->k.total);
    int c = strcmp(group_ctx->names[x->name], group_ctx->names[y->name]);
    return c ? c : strcmp(group_ctx->names[x->api], group_ctx->names[y->api]);
}

void vp_launches_finish(vp_launches *l)
{
    prune_rows(l);
    for (size_t i = 0; i < l->ngroups; i++) {
        vp_lgroup *g = &l->groups[i];
        vp_summarize(g->api_t, g->n, &g->a);
        vp_summarize(g->queue_t, g->nq, &g->q);
        vp_summarize(g->kernel_t, g->n, &g->k);
        vp_summarize(g->total_t, g->n, &g->t);
    }
    group_ctx = l;
    if (l->ngroups)
        qsort(l->groups, l->ngroups, sizeof *l->groups, cmp_group);
    /* the map points at the old places */
    vp_strmap_free(l->group_map);
    l->group_map = vp_strmap_new();
}
