/* Kernel grouping, samples and medians: the model of vprof/kernels.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_files.h"
#include "vprof/ascend_db.h"
#include "vprof/ascend_summaries.h"
#include "vprof/ascend_tracks.h"
#include "vprof/gpupass.h"
#include "vprof/gpuwork.h"
#include "vprof/kernels.h"
#include "vprof/npu_task.h"
#include "vprof/part.h"
#include "vprof/rank.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"

/* A kernel kept for --steps until its launch is known.  An Ascend task
 * has no launch: its start time (ts) decides, or its Step Id. */
typedef struct vp_kpending {
    int64_t dur;
    int64_t ts;        /* Ascend: start (trace) or Step Id (CSV); INT64_MIN = none */
    uint32_t group;
    uint32_t corr;     /* UINT32_MAX = none */
} pending;

/* A kernel grouped by class whose class waits for its launching op
 * (VP_GPU_F_UNDECIDED): its group's key but for the class, settled at the
 * file's end from the resolved GPU work. */
typedef struct vp_kdefer {
    vp_kgroup_key key;
    int64_t dur;
    size_t gpu;        /* its index in the file's vp_gpuwork, before resolve */
    uint32_t corr;     /* UINT32_MAX = none */
} deferred;

void vp_kernels_init(vp_kernels *k, const vp_kernels_opts *o)
{
    memset(k, 0, sizeof *k);
    k->o = *o;
    k->names = vp_strmap_new();
    k->strs = vp_strmap_new();
    k->rank_override = -1;
}

void vp_kernels_free(vp_kernels *k)
{
    for (size_t i = 0; i < k->ngroups; i++)
        free(k->groups[i].samples);
    for (size_t i = 0; i < k->nnames; i++)
        free(k->knames[i].text);
    free(k->groups);
    free(k->knames);
    free(k->gindex);
    free(k->pend);
    free(k->defer);
    free(k->ranks);
    free(k->merged);
    for (size_t i = 0; i < k->nfiles; i++)
        free(k->paths[i]);
    free(k->paths);
    vp_strmap_free(k->names);
    vp_strmap_free(k->strs);
    for (size_t i = 0; i < k->nstr; i++)
        free(k->str[i]);
    free(k->str);
    vp_npu_tracks_free(k->npu);
    memset(k, 0, sizeof *k);
}

static void add_sample(vp_kgroup *g, int64_t v)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 4;
        g->samples = vp_realloc(g->samples, g->cap * sizeof *g->samples);
    }
    g->samples[g->n++] = v;
}

void vp_kernels_add(vp_kernels *k, uint32_t group, int64_t dur)
{
    add_sample(&k->groups[group], dur);
}

void vp_kernels_add_aggregate(vp_kernels *k, uint32_t group, int64_t count, int64_t total,
                              int64_t min, int64_t max)
{
    vp_kgroup *g = &k->groups[group];
    if (g->agg_n == 0 || min < g->agg_min)
        g->agg_min = min;
    if (g->agg_n == 0 || max > g->agg_max)
        g->agg_max = max;
    g->agg_n += count;
    g->agg_total += total;
}

/* A kernel's duration: every one kept, or with totals_only its group's
 * sums alone. */
static void keep(vp_kernels *k, uint32_t group, int64_t dur)
{
    if (k->o.totals_only)
        vp_kernels_add_aggregate(k, group, 1, dur, dur, dur);
    else
        add_sample(&k->groups[group], dur);
}

/* A name is classified when it is first seen: names repeat millions of
 * times and the rules scan them. */
uint32_t vp_kernels_name(vp_kernels *k, const char *name, size_t len, vp_kclass cls,
                         vp_gpu_kind kind)
{
    int inserted;
    void **slot = vp_strmap_upsert(k->names, name, len, &inserted);
    if (!inserted)
        return (uint32_t)((uintptr_t)*slot - 1);
    if (k->nnames == k->cap_names) {
        k->cap_names = k->cap_names ? k->cap_names * 2 : 256;
        k->knames = vp_realloc(k->knames, k->cap_names * sizeof *k->knames);
    }
    vp_kname *kn = &k->knames[k->nnames];
    kn->text = vp_strndup(name, len);
    kn->len = len;
    int decided;
    kn->cls = cls == VP_CLASS_COUNT ? vp_classify_rules(k->o.classes, kind, name, len, &decided)
                                    : cls;
    kn->kept = 1;
    if (k->o.filter && regexec(k->o.filter, kn->text, 0, NULL, 0) != 0)
        kn->kept = 0;
    if (k->o.exclude && regexec(k->o.exclude, kn->text, 0, NULL, 0) == 0)
        kn->kept = 0;
    kn->group = UINT32_MAX;
    *slot = (void *)(uintptr_t)(k->nnames + 1);
    return (uint32_t)k->nnames++;
}

static int32_t intern(vp_kernels *k, const char *s, size_t n)
{
    if (!n)
        return 0;
    int inserted;
    void **slot = vp_strmap_upsert(k->strs, s, n, &inserted);
    if (inserted) {
        if (k->nstr == 0) {
            k->str = vp_realloc(k->str, sizeof *k->str);
            k->str[k->nstr++] = vp_strdup("");
        }
        k->str = vp_realloc(k->str, (k->nstr + 1) * sizeof *k->str);
        k->str[k->nstr] = vp_strndup(s, n);
        *slot = (void *)(uintptr_t)k->nstr++;
    }
    return (int32_t)(uintptr_t)*slot;
}

static uint32_t new_group(vp_kernels *k, const vp_kgroup_key *key)
{
    if (k->ngroups == k->cap_groups) {
        k->cap_groups = k->cap_groups ? k->cap_groups * 2 : 256;
        k->groups = vp_realloc(k->groups, k->cap_groups * sizeof *k->groups);
    }
    vp_kgroup *g = &k->groups[k->ngroups];
    memset(g, 0, sizeof *g);
    g->key = *key;
    return (uint32_t)k->ngroups++;
}

static void gindex_insert(vp_kernels *k, uint32_t gi);

static void gindex_grow(vp_kernels *k)
{
    free(k->gindex);
    k->gcap = k->gcap ? k->gcap * 2 : 1024;
    k->gindex = vp_malloc(k->gcap * sizeof *k->gindex);
    memset(k->gindex, 0xFF, k->gcap * sizeof *k->gindex);
    for (size_t i = 0; i < k->ngroups; i++)
        gindex_insert(k, (uint32_t)i);
}

static void gindex_insert(vp_kernels *k, uint32_t gi)
{
    size_t mask = k->gcap - 1;
    size_t i = vp_hash_bytes(&k->groups[gi].key, sizeof(vp_kgroup_key)) & mask;
    while (k->gindex[i] != UINT32_MAX)
        i = (i + 1) & mask;
    k->gindex[i] = gi;
}

static uint32_t group_of(vp_kernels *k, const vp_kgroup_key *key)
{
    /* kernels come in runs of one group (a rank's compute kernels): the
     * last one's is compared before the key is hashed */
    if (k->glast && memcmp(&k->groups[k->glast - 1].key, key, sizeof *key) == 0)
        return k->glast - 1;
    if ((k->ngroups + 1) * 2 > k->gcap)
        gindex_grow(k);
    size_t mask = k->gcap - 1;
    size_t i = vp_hash_bytes(key, sizeof *key) & mask;
    while (k->gindex[i] != UINT32_MAX) {
        if (memcmp(&k->groups[k->gindex[i]].key, key, sizeof *key) == 0) {
            k->glast = k->gindex[i] + 1;
            return k->gindex[i];
        }
        i = (i + 1) & mask;
    }
    uint32_t gi = new_group(k, key);
    k->gindex[i] = gi;
    k->glast = gi + 1;
    return gi;
}

static int64_t span_int(vp_span v, int64_t fallback)
{
    int64_t x;
    return v.p && vp_json_int(v, &x) == 0 ? x : fallback;
}

typedef struct file_counts {
    uint64_t kernels, no_dur;
} file_counts;

/* The key of a kernel of class cls, in a model with dimensions (name
 * ni: UINT32_MAX when the model does not group by name). */
static vp_kgroup_key key_in_dims(vp_kernels *k, size_t file, uint32_t ni, vp_kclass cls,
                                 int64_t pid, int64_t device, int64_t stream, int32_t type,
                                 int32_t core)
{
    unsigned dims = k->o.dims;
    vp_kgroup_key key = {.name = k->o.by_name ? ni : UINT32_MAX};
    if (dims & VP_KDIM_CLASS)
        key.cls = (int32_t)cls;
    if (dims & VP_KDIM_RANK) {
        key.file = (int32_t)file;
        if (k->merged[file] && pid >= 0)
            key.mrank = (int32_t)(pid / k->merged[file] + 1);
    }
    if (dims & VP_KDIM_DEVICE)
        key.device = device;
    if (dims & VP_KDIM_STREAM)
        key.stream = stream;
    if (dims & VP_KDIM_TYPE)
        key.type = type;
    if (dims & VP_KDIM_CORE)
        key.core = core;
    return key;
}

static uint32_t group_in_dims(vp_kernels *k, size_t file, uint32_t ni, vp_kclass cls, int64_t pid,
                              int64_t device, int64_t stream, int32_t type, int32_t core)
{
    vp_kgroup_key key = key_in_dims(k, file, ni, cls, pid, device, stream, type, core);
    return group_of(k, &key);
}

static void defer(vp_kernels *k, const vp_kgroup_key *key, int64_t dur, size_t gpu, int64_t corr)
{
    if (k->ndefer == k->cap_defer) {
        k->cap_defer = k->cap_defer ? k->cap_defer * 2 : 1024;
        k->defer = vp_realloc(k->defer, k->cap_defer * sizeof *k->defer);
    }
    k->defer[k->ndefer++] = (deferred){
        .key = *key,
        .dur = dur,
        .gpu = gpu,
        .corr = corr >= 0 && corr < UINT32_MAX ? (uint32_t)corr : UINT32_MAX,
    };
}

uint32_t vp_kernels_group(vp_kernels *k, size_t file, uint32_t ni, int64_t pid, int64_t device,
                          int64_t stream, int32_t type, int32_t core)
{
    vp_kname *kn = &k->knames[ni];
    if (k->o.dims == 0) {
        if (kn->group == UINT32_MAX) {
            vp_kgroup_key key = {.name = ni};
            kn->group = new_group(k, &key);
        }
        return kn->group;
    }
    return group_in_dims(k, file, ni, kn->cls, pid, device, stream, type, core);
}

static void hold(vp_kernels *k, int64_t dur, int64_t ts, uint32_t gi, int64_t corr)
{
    if (k->npend == k->cap_pend) {
        k->cap_pend = k->cap_pend ? k->cap_pend * 2 : 4096;
        k->pend = vp_realloc(k->pend, k->cap_pend * sizeof *k->pend);
    }
    k->pend[k->npend++] = (pending){
        .dur = dur,
        .ts = ts,
        .group = gi,
        .corr = corr >= 0 && corr < UINT32_MAX ? (uint32_t)corr : UINT32_MAX,
    };
}

/* A model whose groups need each kernel's name: grouped or filtered by
 * it. */
static int needs_names(const vp_kernels *k)
{
    return k->o.dims == 0 || k->o.by_name || k->o.filter || k->o.exclude;
}

/* The args asked of Ascend tasks for the device and stream groupings
 * and steps, in the order of vp_gpu_args' (a GPU kernel's). */
VP_JSON_KEYSET(npu_set, "Stream Id", "correlation", "device")

/* A kernel counted (ph X, with dur, kept), of name ni (UINT32_MAX: not
 * looked up, the model does not need it) and class cls; npu: an Ascend
 * task, of core type core; gpu: its index in the pass's GPU work when its
 * class waits for its launching op, else -1. */
static void add_event(vp_kernels *k, size_t file, const vp_event *ev, uint32_t ni, vp_kclass cls,
                      int npu, vp_span core, int steps, long gpu, file_counts *fc)
{
    fc->kernels++;
    unsigned dims = k->o.dims;
    vp_span vals[4] = {{0}};
    if (dims & (VP_KDIM_DEVICE | VP_KDIM_STREAM) || steps) {
        if (ev->args.p)
            vp_json_get_keyset(ev->args, npu ? &npu_set : vp_gpu_args(), vals);
    }
    /* pid, device and stream are parsed only for the groupings that use
     * them: the default (by name) is the hot path. */
    uint32_t gi;
    if (dims == 0) {
        gi = vp_kernels_group(k, file, ni, -1, -1, -1, 0, 0);
    } else {
        int64_t pid = dims & VP_KDIM_DEVICE || (dims & VP_KDIM_RANK && k->merged[file])
                          ? span_int(ev->pid, -1) : -1;
        vp_kgroup_key key =
            key_in_dims(k, file, ni, cls, pid, dims & VP_KDIM_DEVICE ? span_int(vals[2], pid) : -1,
                        dims & VP_KDIM_STREAM ? span_int(vals[0], span_int(ev->tid, -1)) : -1, 0,
                        intern(k, core.p, core.n));
        if (gpu >= 0 && dims & VP_KDIM_CLASS) {
            defer(k, &key, ev->dur, (size_t)gpu, span_int(vals[1], -1));
            return;
        }
        gi = group_of(k, &key);
    }
    if (!steps) {
        keep(k, gi, ev->dur);
        return;
    }
    hold(k, ev->dur, npu ? ev->ts : INT64_MIN, gi, npu ? -1 : span_int(vals[1], -1));
}

/* kind: ev's, of its cat; cls: VP_CLASS_COUNT, or its class when the
 * caller knows it (then ev is a GPU event with dur).  steps: the kernels
 * are held until the file's steps are known.  gpu: the index of ev's GPU
 * event when its launching op may yet make it communication, else -1. */
static void take_event(vp_kernels *k, size_t file, const vp_event *ev, vp_gpu_kind kind,
                       vp_kclass cls, int steps, long gpu, file_counts *fc)
{
    vp_span core = {0};
    int npu = 0;
    if (kind == VP_GPU_NONE) {
        if (ev->ph == 'M') {
            vp_npu_tracks_observe(k->npu, ev);
            return;
        }
        if (ev->ph != 'X' || ev->cat.n != 0 || vp_npu_role_of(k->npu, ev) != VP_NPU_HARDWARE)
            return;
        vp_span v = {0};
        if (ev->args.p)
            vp_json_get(ev->args, "Task Type", &v);
        core = vp_npu_task_type(v);
        vp_npu_task task = vp_npu_task_of(core.p, core.n, ev->name.p, ev->name.n);
        cls = task.cls;
        kind = task.kind;
        npu = 1;
        if (kind == VP_GPU_NONE)
            return;
    }
    if (!(k->o.kinds & (1u << kind)) || ev->ph != 'X')
        return;
    if (!ev->has_dur) {
        fc->no_dur++;
        return;
    }
    if (!npu && cls != VP_CLASS_COUNT && !needs_names(k)) {
        add_event(k, file, ev, UINT32_MAX, cls, 0, core, steps, gpu, fc);
        return;
    }
    uint32_t ni = vp_kernels_name(k, ev->name.p, ev->name.n, npu ? cls : VP_CLASS_COUNT, kind);
    vp_kname *kn = &k->knames[ni];
    /* the event's class where its GPU event has one (its args may have
     * said more than its name) */
    if (kn->kept)
        add_event(k, file, ev, ni, cls != VP_CLASS_COUNT ? cls : kn->cls, npu, core, steps, gpu,
                  fc);
}

/* Adds the kernels of one file held for --steps: those of the steps
 * selected. */
static void resolve_steps(vp_kernels *k, vp_steps *steps)
{
    for (size_t i = 0; i < k->npend; i++) {
        pending *p = &k->pend[i];
        int64_t a, b;
        long at;
        if (p->ts != INT64_MIN) {
            /* An Ascend task: the step whose window holds its start. */
            if ((at = vp_steps_at(steps, p->ts)) >= 0 &&
                vp_steps_window(steps, (size_t)at, &a, &b) == 1)
                keep(k, p->group, p->dur);
        } else if (p->corr != UINT32_MAX && vp_steps_selected(steps, p->corr)) {
            keep(k, p->group, p->dur);
        }
    }
    k->npend = 0;
}

static size_t new_file(vp_kernels *k, const char *path)
{
    k->ranks = vp_realloc(k->ranks, (k->nfiles + 1) * sizeof *k->ranks);
    k->merged = vp_realloc(k->merged, (k->nfiles + 1) * sizeof *k->merged);
    k->paths = vp_realloc(k->paths, (k->nfiles + 1) * sizeof *k->paths);
    k->ranks[k->nfiles] = -1;
    k->merged[k->nfiles] = 0;
    k->paths[k->nfiles] = vp_strdup(path);
    return k->nfiles++;
}

void vp_kernels_trace_begin(vp_kernels_trace *t, vp_kernels *k, const char *path,
                            const vp_trace_pass *pass)
{
    memset(t, 0, sizeof *t);
    t->k = k;
    t->file = new_file(k, path);
    t->pass = pass;
    vp_npu_tracks_free(k->npu);
    k->npu = vp_npu_tracks_new();
}

/* Apart from the observers, which most events leave at once and which
 * then need no stack frame. */
static __attribute__((noinline)) void trace_take(vp_kernels_trace *t, const vp_event *ev,
                                                 vp_gpu_kind kind, vp_kclass cls, long gpu)
{
    if (!t->started) {
        /* the metadata before the first event tells a merged trace */
        t->started = 1;
        t->k->merged[t->file] = vp_rank_merged_pids(vp_trace_meta(t->pass->trace));
    }
    file_counts fc = {0, 0};
    take_event(t->k, t->file, ev, kind, cls, t->k->o.steps != NULL, gpu, &fc);
    t->kernels += fc.kernels;
    t->no_dur += fc.no_dur;
}

void vp_kernels_trace_observe(void *ctx, const vp_event *ev)
{
    vp_kernels_trace *t = ctx;
    vp_gpu_kind kind = vp_gpu_kind_of(ev->cat);
    /* take_event's first tests: a CPU event counts only as an Ascend
     * track's metadata or task */
    if (kind == VP_GPU_NONE && t->started && ev->ph != 'M' && (ev->ph != 'X' || ev->cat.n))
        return;
    trace_take(t, ev, kind, VP_CLASS_COUNT, -1);
}

void vp_kernels_trace_observe_gpu(vp_kernels_trace *t, const vp_event *ev, const vp_gpuwork *w,
                                  long gi)
{
    const vp_gpu_ev *g = gi >= 0 ? &w->ev[gi] : NULL;
    /* an Ascend task's kind and class are its Task Type's, not its cat's */
    if (g && !(g->flags & VP_GPU_F_BY_TIME))
        trace_take(t, ev, (vp_gpu_kind)g->kind, (vp_kclass)g->cls,
                   g->flags & VP_GPU_F_UNDECIDED ? gi : -1);
    else
        vp_kernels_trace_observe(t, ev);
}

/* The deferred kernels of the file: each in the group of the class its
 * GPU event has after resolve (communication when its launcher said so). */
static void settle_deferred(vp_kernels *k, const vp_gpuwork *w, const vp_steps *steps)
{
    vp_gpu_remap map = {0};
    for (size_t i = 0; i < k->ndefer; i++) {
        deferred *d = &k->defer[i];
        long at = vp_gpuwork_index_after(w, &map, d->gpu);
        if (at < 0)
            continue;
        if (steps && (d->corr == UINT32_MAX || !vp_steps_selected(steps, d->corr)))
            continue;
        d->key.cls = (int32_t)w->ev[at].cls;
        keep(k, group_of(k, &d->key), d->dur);
    }
    k->ndefer = 0;
}

void vp_kernels_trace_end(vp_kernels_trace *t, const vp_gpuwork *w)
{
    if (t->pass->steps)
        resolve_steps(t->k, t->pass->steps);
    if (w)
        settle_deferred(t->k, w, t->k->o.steps ? t->pass->steps : NULL);
    t->k->ndefer = 0;
    t->k->ranks[t->file] = t->pass->rank;
}

static void gpu_observe(void *ctx, vp_gpuwork *w, long gi, const vp_event *ev)
{
    vp_kernels_trace_observe_gpu(ctx, ev, w, gi);
}

static int read_trace(vp_kernels *k, const char *path, vp_error *err)
{
    /* Grouped by class, through the GPU work's pass: a kernel's launching
     * op is evidence of communication too, as comm, steps and summary
     * read it (docs/classification.md).  Otherwise the name is enough and
     * the lighter trace pass does. */
    int by_class = (k->o.dims & VP_KDIM_CLASS) != 0;
    vp_gpu_pass gp;
    memset(&gp, 0, sizeof gp);
    vp_trace_pass *p = &gp.pass;
    vp_trace_pass_opts o = {.partial = k->o.partial, .range = k->o.steps,
                            .position = (long)(k->pos0 + k->nfiles), .rank = k->rank_override,
                            .classes = k->o.classes};
    vp_kernels_trace tr;
    vp_kernels_trace_begin(&tr, k, path, p);
    int rc = by_class ? vp_gpu_pass_read(&gp, path, &o, gpu_observe, &tr, err)
                      : vp_trace_pass_read(p, path, &o, vp_kernels_trace_observe, &tr, err);
    if (rc == 0) {
        vp_trace_pass_warn(p, &(vp_trace_pass_warnings){
                                  .no_steps_kept = ", so no kernel is kept",
                                  .skipped = tr.no_dur,
                                  .skipped_what = "kernel events without \"dur\"",
                                  .utf8 = 1,
                              });
        vp_kernels_trace_end(&tr, by_class ? &gp.w : NULL);
        size_t file = tr.file;
        const char *name = vp_trace_name(p->trace);
        const vp_trace_stats *st = vp_trace_get_stats(p->trace);
        if (k->merged[file])
            vp_trace_pass_say(k->o.say, "%s: merged trace: the rank of an event is its pid / %ld",
                              name, k->merged[file]);
        else
            vp_trace_pass_say(k->o.say,
                              "%s: rank %ld (from %s); read %llu events in %llu bytes%s, counted "
                              "%llu kernels",
                              name, k->ranks[file], vp_rank_source_name(p->rank_from),
                              (unsigned long long)st->events, (unsigned long long)st->bytes,
                              st->truncated ? " (truncated)" : "", (unsigned long long)tr.kernels);
    }
    if (by_class)
        vp_gpu_pass_close(&gp);
    else
        vp_trace_pass_close(p);
    return rc == 0 ? VP_EXIT_OK : VP_EXIT_INPUT;
}

/* kernel_details.csv / op_summary rows as kernels, into each model of
 * the reading (one reading of the file for them all). */
typedef vp_kernels_rows csv_ctx;

void vp_kernels_rows_take(void *ctx, const vp_asc_kernel *r)
{
    csv_ctx *cc = ctx;
    size_t tn = strlen(r->core);
    vp_npu_task task = vp_npu_task_of(r->core, tn, r->name, strlen(r->name));
    for (size_t m = 0; m < cc->nk; m++) {
        vp_kernels *k = cc->ks[m];
        if (!(k->o.kinds & (1u << task.kind)))
            continue;
        uint32_t ni = vp_kernels_name(k, r->name, strlen(r->name), task.cls, VP_GPU_KERNEL);
        if (!k->knames[ni].kept)
            continue;
        cc->rows[m]++;
        uint32_t gi = vp_kernels_group(k, cc->file[m], ni, -1, r->device, r->stream,
                                       intern(k, r->type, strlen(r->type)),
                                       intern(k, r->core, tn));
        if (k->o.steps)
            hold(k, r->dur, r->step >= 0 ? r->step : INT64_MIN, gi, -1);
        else
            keep(k, gi, r->dur);
    }
}

/* op_statistic.csv rows: the op type is the name (the file lists no op
 * names), the core type the core. */
static void take_opstat(void *ctx, const vp_asc_opstat *o)
{
    csv_ctx *cc = ctx;
    size_t tn = strlen(o->core), yn = strlen(o->type);
    vp_npu_task task = vp_npu_task_of(o->core, tn, o->type, yn);
    for (size_t m = 0; m < cc->nk; m++) {
        vp_kernels *k = cc->ks[m];
        if (!(k->o.kinds & (1u << task.kind)))
            continue;
        uint32_t ni = vp_kernels_name(k, o->type, yn, task.cls, VP_GPU_KERNEL);
        if (!k->knames[ni].kept)
            continue;
        cc->rows[m]++;
        uint32_t gi = vp_kernels_group(k, cc->file[m], ni, -1, o->device, -1,
                                       intern(k, o->type, yn), intern(k, o->core, tn));
        /* A missing min or max: the average is the best bound there is. */
        int64_t avg = o->total / o->count;
        vp_kernels_add_aggregate(k, gi, o->count, o->total, o->min >= 0 ? o->min : avg,
                                 o->max >= 0 ? o->max : avg);
    }
}

/* Steps on Step Id: the same slice over the step numbers present. */
static void resolve_csv_steps(vp_kernels *k, const char *path)
{
    long *v = vp_malloc((k->npend ? k->npend : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < k->npend; i++)
        if (k->pend[i].ts != INT64_MIN)
            v[n++] = (long)k->pend[i].ts;
    size_t m = vp_step_ids_distinct(v, n), a, b;
    vp_step_range_slice(k->o.steps, v, m, &a, &b);
    if (m == 0)
        vp_warn("%s: --steps: no Step Id column, so no kernel is kept", path);
    else if (a >= b)
        vp_warn("%s: --steps selects none of the steps present (Step Id %ld to %ld)", path, v[0],
                v[m - 1]);
    for (size_t i = 0; i < k->npend; i++) {
        pending *p = &k->pend[i];
        for (size_t j = a; j < b && j < m; j++)
            if (p->ts == v[j])
                keep(k, p->group, p->dur);
    }
    k->npend = 0;
    free(v);
}

/* The end of reading a CSV: its rank (the override, else its position,
 * unless the rows told one), the rows skipped, what was read. */
static int csv_done(vp_kernels *k, size_t file, const char *path, uint64_t skipped,
                    const char *skipped_why, uint64_t rows, const char *rows_what)
{
    if (k->ranks[file] < 0)
        k->ranks[file] = k->rank_override >= 0 ? k->rank_override : (long)(k->pos0 + file);
    if (skipped)
        vp_warn("%s: %llu rows %s were skipped", path, (unsigned long long)skipped, skipped_why);
    vp_trace_pass_say(k->o.say, "%s: rank %ld; %llu %s rows", path, k->ranks[file],
                      (unsigned long long)rows, rows_what);
    return VP_EXIT_OK;
}

static csv_ctx csv_begin(vp_kernels *const *ks, size_t nk, const char *path)
{
    csv_ctx cc = {ks, nk < VP_KERNELS_TEE ? nk : VP_KERNELS_TEE, {0}, {0}};
    for (size_t m = 0; m < cc.nk; m++)
        cc.file[m] = new_file(ks[m], path);
    return cc;
}

void vp_kernels_rows_begin(vp_kernels_rows *rows, vp_kernels *const *ks, size_t nk,
                           const char *path, long rank)
{
    for (size_t m = 0; m < nk && m < VP_KERNELS_TEE; m++)
        ks[m]->rank_override = rank;
    *rows = csv_begin(ks, nk, path);
}

void vp_kernels_rows_end(vp_kernels_rows *cc, const char *path, uint64_t skipped)
{
    for (size_t m = 0; m < cc->nk; m++) {
        vp_kernels *k = cc->ks[m];
        if (k->o.steps)
            resolve_csv_steps(k, path);
        /* the skipped rows are said once */
        csv_done(k, cc->file[m], path, m ? 0 : skipped, "without a duration", cc->rows[m],
                 "kernel");
        k->rank_override = -1;
    }
}

/* kind: VP_ASC_DB or VP_ASC_KERNELS when a scan told, else
 * VP_ASC_UNKNOWN (the file's first bytes tell). */
static int read_csv(vp_kernels *const *ks, size_t nk, const char *path, vp_asc_file kind,
                    long rank, vp_error *err)
{
    csv_ctx cc;
    vp_kernels_rows_begin(&cc, ks, nk, path, rank);
    uint64_t skipped = 0;
    int rc = kind == VP_ASC_DB ? vp_asc_db_read_kernels(path, vp_kernels_rows_take, &cc,
                                                        &skipped, err)
             : kind == VP_ASC_KERNELS
                 ? vp_asc_read_kernels_csv(path, vp_kernels_rows_take, &cc, &skipped, err)
                 : vp_asc_read_kernels(path, vp_kernels_rows_take, &cc, &skipped, err);
    if (rc != 0) {
        for (size_t m = 0; m < cc.nk; m++)
            ks[m]->rank_override = -1;
        return VP_EXIT_INPUT;
    }
    vp_kernels_rows_end(&cc, path, skipped);
    return VP_EXIT_OK;
}

/* op_statistic.csv: per op type and core type, counted by the profiler.
 * It has no steps, so a step range keeps none of it (as for a kernel CSV
 * without Step Id). */
static int read_opstat(vp_kernels *const *ks, size_t nk, const char *path, vp_error *err)
{
    csv_ctx cc = csv_begin(ks, nk, path);
    uint64_t skipped = 0;
    if (ks[0]->o.steps)
        vp_warn("%s: --steps: op_statistic.csv has no steps, so none of its rows is kept",
                path);
    else if (vp_asc_read_opstat(path, take_opstat, &cc, &skipped, err) != 0)
        return VP_EXIT_INPUT;
    for (size_t m = 0; m < cc.nk; m++)
        csv_done(ks[m], cc.file[m], path, m ? 0 : skipped, "without a count or a total time",
                 cc.rows[m], "op_statistic");
    return VP_EXIT_OK;
}

const char *vp_kernels_asc_file(const vp_asc_rank *r, vp_error *err)
{
    vp_error need = {0};
    const char *f = vp_asc_need(r, VP_ASC_KERNELS, VP_ASC_TRACE, &need);
    if (!f)
        f = r->files[VP_ASC_OP_STATISTIC];
    if (!f)
        *err = need;
    return f;
}

int vp_kernels_read_asc_rank(vp_kernels *const *ks, size_t nk, const vp_asc_rank *r,
                             const char **trace, vp_error *err)
{
    *trace = NULL;
    const char *f = vp_kernels_asc_file(r, err);
    if (!f)
        return VP_EXIT_INPUT;
    if (f == r->files[VP_ASC_TRACE]) {
        *trace = f;
        return VP_EXIT_OK;
    }
    if (f != r->files[VP_ASC_OP_STATISTIC])
        return read_csv(ks, nk, f, f == r->files[VP_ASC_DB] ? VP_ASC_DB : VP_ASC_KERNELS,
                        r->rank, err);
    for (size_t m = 0; m < nk; m++)
        ks[m]->rank_override = r->rank;
    int status = read_opstat(ks, nk, f, err);
    for (size_t m = 0; m < nk; m++)
        ks[m]->rank_override = -1;
    return status;
}

/* An Ascend directory: per rank kernel_details.csv (op_summary), else
 * its trace, else its DB, else op_statistic.csv (aggregates only). */
static int read_ascend_dir(vp_kernels *k, const char *path, vp_error *err)
{
    vp_asc_run run;
    if (vp_asc_scan_ranks(path, &run, "kernels needs kernel_details.csv or trace_view.json",
                          err) != 0)
        return VP_EXIT_INPUT;
    int status = VP_EXIT_OK;
    for (size_t i = 0; i < run.n && status == VP_EXIT_OK; i++) {
        const char *trace;
        status = vp_kernels_read_asc_rank(&k, 1, &run.ranks[i], &trace, err);
        if (status == VP_EXIT_OK && trace) {
            k->rank_override = run.ranks[i].rank;
            status = read_trace(k, trace, err);
            k->rank_override = -1;
        }
    }
    vp_asc_run_free(&run);
    return status;
}

int vp_kernels_read(vp_kernels *k, const char *input, size_t position, vp_error *err)
{
    k->pos0 = position;
    if (vp_asc_is_dir(input))
        return read_ascend_dir(k, input, err);
    vp_asc_file kind = strcmp(input, "-") == 0 ? VP_ASC_UNKNOWN : vp_asc_sniff(input);
    if (kind == VP_ASC_KERNELS || kind == VP_ASC_DB)
        return read_csv(&k, 1, input, kind, -1, err);
    if (kind == VP_ASC_OP_STATISTIC)
        return read_opstat(&k, 1, input, err);
    if (kind != VP_ASC_UNKNOWN && kind != VP_ASC_TRACE) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: a %s has no kernels (kernels reads traces, kernel_details.csv, "
                     "op_summary and op_statistic CSVs)",
                     input, vp_asc_file_name(kind));
        return VP_EXIT_INPUT;
    }
    return read_trace(k, input, err);
}

/* The partial result (docs/partials.md, "kernels"): the files (rank,
 * merged-trace pids, path), the interned Ascend strings, the kernel names
 * and the groups with every sample, in the order they were first seen:
 * merged in input order they give the groups, and the samples in each,
 * in the order one process reading the files in turn gives them. */
void vp_kernels_save(const vp_kernels *k, vp_buf *b)
{
    vp_put_u64(b, k->nfiles);
    for (size_t i = 0; i < k->nfiles; i++) {
        vp_put_i64(b, k->ranks[i]);
        vp_put_i64(b, k->merged[i]);
        vp_put_str(b, k->paths[i], strlen(k->paths[i]));
    }
    vp_put_u64(b, k->nstr ? k->nstr - 1 : 0);
    for (size_t i = 1; i < k->nstr; i++)
        vp_put_str(b, k->str[i], strlen(k->str[i]));
    vp_put_u64(b, k->nnames);
    for (size_t i = 0; i < k->nnames; i++) {
        vp_put_str(b, k->knames[i].text, k->knames[i].len);
        vp_put_u64(b, (uint64_t)k->knames[i].cls);
    }
    vp_put_u64(b, k->ngroups);
    for (size_t i = 0; i < k->ngroups; i++) {
        const vp_kgroup *g = &k->groups[i];
        vp_put_u64(b, g->key.name == UINT32_MAX ? 0 : (uint64_t)g->key.name + 1);
        vp_put_u64(b, (uint64_t)g->key.file);
        vp_put_i64(b, g->key.device);
        vp_put_i64(b, g->key.stream);
        vp_put_u64(b, (uint64_t)g->key.cls);
        vp_put_u64(b, (uint64_t)g->key.mrank);
        vp_put_u64(b, (uint64_t)g->key.type);
        vp_put_u64(b, (uint64_t)g->key.core);
        vp_put_u64(b, g->n);
        for (size_t j = 0; j < g->n; j++)
            vp_put_i64(b, g->samples[j]);
        vp_put_i64(b, g->agg_n);
        if (g->agg_n) {
            vp_put_i64(b, g->agg_total);
            vp_put_i64(b, g->agg_min);
            vp_put_i64(b, g->agg_max);
        }
    }
}

int vp_kernels_merge(vp_kernels *k, const void *p, size_t n, vp_error *err)
{
    vp_rd r;
    vp_rd_init(&r, p, n);
    size_t base = k->nfiles;
    size_t nf = vp_get_count(&r, 3);
    const char *nul = NULL;   /* what held a NUL byte */
    for (size_t i = 0; i < nf; i++) {
        long rank = (long)vp_get_i64(&r), merged = (long)vp_get_i64(&r);
        size_t len;
        const char *path = vp_get_cstr(&r, &len);
        if (!path) {
            nul = "a file's path";
            r.bad = 1;
            r.p = r.end;   /* nothing more is read */
            break;
        }
        char *tmp = vp_strndup(path, len);
        size_t f = new_file(k, tmp);
        free(tmp);
        k->ranks[f] = rank;
        k->merged[f] = merged;
    }
    size_t ns = vp_get_count(&r, 1);
    int32_t *smap = vp_malloc((ns + 1) * sizeof *smap);
    smap[0] = 0;
    for (size_t i = 0; i < ns; i++) {
        size_t len;
        const char *t = vp_get_cstr(&r, &len);
        if (!t) {
            nul = "an Ascend op type or core";
            r.bad = 1;
            r.p = r.end;
            ns = i;
            break;
        }
        smap[i + 1] = intern(k, t, len);
    }
    size_t nn = vp_get_count(&r, 2);
    uint32_t *nmap = vp_malloc((nn ? nn : 1) * sizeof *nmap);
    for (size_t i = 0; i < nn; i++) {
        size_t len;
        const char *t = vp_get_str(&r, &len);
        uint64_t cls = vp_get_u64(&r);
        nmap[i] = vp_kernels_name(k, t, len,
                                  cls < VP_CLASS_COUNT ? (vp_kclass)cls : VP_CLASS_COMPUTE,
                                  VP_GPU_KERNEL);
    }
    size_t ng = vp_get_count(&r, 9);
    for (size_t i = 0; i < ng && !r.bad; i++) {
        uint64_t name = vp_get_u64(&r), file = vp_get_u64(&r);
        vp_kgroup_key key = {.device = vp_get_i64(&r), .stream = vp_get_i64(&r)};
        key.cls = (int32_t)vp_get_u64(&r);
        key.mrank = (int32_t)vp_get_u64(&r);
        uint64_t type = vp_get_u64(&r), core = vp_get_u64(&r);
        size_t cnt = vp_get_count(&r, 1);
        if (name > nn || file >= (nf ? nf : 1) || type > ns || core > ns) {
            r.bad = 1;
            break;
        }
        key.name = name ? nmap[name - 1] : UINT32_MAX;
        key.file = k->o.dims & VP_KDIM_RANK ? (int32_t)(base + file) : 0;
        key.type = smap[type];
        key.core = smap[core];
        uint32_t gi;
        if (k->o.dims == 0) {
            if (key.name == UINT32_MAX) {
                r.bad = 1;
                break;
            }
            vp_kname *kn = &k->knames[key.name];
            if (kn->group == UINT32_MAX)
                kn->group = new_group(k, &key);
            gi = kn->group;
        } else {
            gi = group_of(k, &key);
        }
        vp_kgroup *g = &k->groups[gi];
        for (size_t j = 0; j < cnt; j++)
            add_sample(g, vp_get_i64(&r));
        int64_t an = vp_get_i64(&r);
        if (an < 0) {
            r.bad = 1;
        } else if (an > 0) {
            int64_t at = vp_get_i64(&r), amin = vp_get_i64(&r), amax = vp_get_i64(&r);
            vp_kernels_add_aggregate(k, gi, an, at, amin, amax);
        }
    }
    free(smap);
    free(nmap);
    if (nul) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "damaged kernels partial result: %s holds a NUL byte", nul);
        return -1;
    }
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged kernels partial result");
        return -1;
    }
    return 0;
}

/* Adds aggregated instances to a summary of samples: count, total, min,
 * max and mean stay exact; the median is left at the mean (for sorting
 * only: it is not shown). */
static void add_aggregate_sum(vp_summary *s, int64_t n, int64_t total, int64_t min, int64_t max)
{
    if (!n)
        return;
    if (s->n == 0 || min < s->min)
        s->min = min;
    if (s->n == 0 || max > s->max)
        s->max = max;
    s->n += n;
    s->total += total;
    s->mean = (double)s->total / (double)s->n;
    s->median = s->mean;
    s->stddev = 0;
}

static vp_ksort sort_key;
static const vp_kernels *sort_ctx;

static int cmp_group(const void *a, const void *b)
{
    const vp_kgroup *x = a, *y = b;
    const char *tx = x->key.name == UINT32_MAX ? "" : sort_ctx->knames[x->key.name].text;
    const char *ty = y->key.name == UINT32_MAX ? "" : sort_ctx->knames[y->key.name].text;
    int c = 0;
    switch (sort_key) {
    case VP_KSORT_COUNT: c = (y->sum.n > x->sum.n) - (y->sum.n < x->sum.n); break;
    case VP_KSORT_AVG: c = (y->sum.mean > x->sum.mean) - (y->sum.mean < x->sum.mean); break;
    case VP_KSORT_MED: c = (y->sum.median > x->sum.median) - (y->sum.median < x->sum.median); break;
    case VP_KSORT_MAX: c = (y->sum.max > x->sum.max) - (y->sum.max < x->sum.max); break;
    case VP_KSORT_NAME: break;
    default: c = (y->sum.total > x->sum.total) - (y->sum.total < x->sum.total); break;
    }
    if (c)
        return c;
    if (sort_key != VP_KSORT_NAME && y->sum.total != x->sum.total)
        return (y->sum.total > x->sum.total) - (y->sum.total < x->sum.total);
    c = strcmp(tx, ty);
    if (c)
        return c;
    if (x->key.core != y->key.core)
        return strcmp(sort_ctx->str[x->key.core], sort_ctx->str[y->key.core]);
    if (x->key.type != y->key.type)
        return strcmp(sort_ctx->str[x->key.type], sort_ctx->str[y->key.type]);
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    if (x->key.device != y->key.device)
        return (x->key.device > y->key.device) - (x->key.device < y->key.device);
    if (x->key.stream != y->key.stream)
        return (x->key.stream > y->key.stream) - (x->key.stream < y->key.stream);
    return (x->key.cls > y->key.cls) - (x->key.cls < y->key.cls);
}

void vp_kernels_finish(vp_kernels *k, vp_ksort key)
{
    size_t n = 0;
    int64_t grand = 0;
    for (size_t i = 0; i < k->ngroups; i++) {
        vp_kgroup *g = &k->groups[i];
        if (!g->n && !g->agg_n) {
            free(g->samples);
            continue;
        }
        g->rank = g->key.mrank                         ? g->key.mrank - 1
                  : (size_t)g->key.file < k->nfiles ? k->ranks[g->key.file]
                                                     : -1;   /* filled kernel by kernel */
        vp_summarize(g->samples, g->n, &g->sum);
        add_aggregate_sum(&g->sum, g->agg_n, g->agg_total, g->agg_min, g->agg_max);
        grand += g->sum.total;
        k->groups[n++] = *g;
    }
    k->ngroups = n;
    k->grand = grand;
    /* The group index and the names' groups point at the old places. */
    free(k->gindex);
    k->gindex = NULL;
    k->gcap = 0;
    k->glast = 0;
    for (size_t i = 0; i < k->nnames; i++)
        k->knames[i].group = UINT32_MAX;
    sort_key = key;
    sort_ctx = k;
    if (n)
        qsort(k->groups, n, sizeof *k->groups, cmp_group);
}

void vp_kernels_fold(const vp_kernels *k, size_t from, vp_summary *s, int *exact)
{
    size_t total = 0;
    for (size_t i = from; i < k->ngroups; i++)
        total += k->groups[i].n;
    int64_t *all = vp_malloc((total ? total : 1) * sizeof *all);
    size_t w = 0;
    for (size_t i = from; i < k->ngroups; i++) {
        if (k->groups[i].n)   /* aggregated groups have no samples */
            memcpy(all + w, k->groups[i].samples, k->groups[i].n * sizeof *all);
        w += k->groups[i].n;
    }
    vp_summarize(all, total, s);
    free(all);
    *exact = 1;
    for (size_t i = from; i < k->ngroups; i++) {
        const vp_kgroup *g = &k->groups[i];
        add_aggregate_sum(s, g->agg_n, g->agg_total, g->agg_min, g->agg_max);
        *exact &= g->agg_n == 0;
    }
}
