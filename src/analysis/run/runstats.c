/* A run's metrics: one streaming pass per trace file (see vprof/runstats.h).
 *
 * Everything per file is reduced before the next file is read: the GPU
 * events (40 bytes each, vprof/gpuwork.h) and the interval sets are freed,
 * only per-name kernel totals, per-step times and a few counters stay. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run/runstats_int.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_tracks.h"
#include "vprof/classify.h"
#include "vprof/gpupass.h"
#include "vprof/gpuwork.h"
#include "vprof/intervals.h"
#include "vprof/kernels.h"
#include "vprof/memevents.h"
#include "vprof/mfu.h"
#include "vprof/part.h"
#include "vprof/rank.h"
#include "vprof/runstats.h"
#include "vprof/stats.h"
#include "vprof/trace.h"
#include "vprof/util.h"

static const vp_metric catalogue[] = {
    {"ranks", 0, VP_COL_INT, 0, "trace files (ranks) read"},
    {"gpus", 0, VP_COL_INT, 0, "devices that ran GPU work (a kernel, memory copy or set) in the counted work; a device of each rank counts once"},
    {"steps", 0, VP_COL_INT, 0, "ProfilerStep#N steps counted (after --steps)"},
    {"step.median", 0, VP_COL_NS, +1, "median step time; a step's time is its longest rank's ProfilerStep duration"},
    {"step.mean", 0, VP_COL_NS, +1, "mean step time"},
    {"step.min", 0, VP_COL_NS, +1, "shortest step time"},
    {"step.max", 0, VP_COL_NS, +1, "longest step time"},
    {"step.spread_pct", 0, VP_COL_PERCENT, +1, "(longest - shortest) / median step time"},
    {"gpu.span", 0, VP_COL_NS, 0, "GPU span of the counted work, summed over ranks"},
    {"gpu.busy_pct", 0, VP_COL_PERCENT, -1, "union of all GPU work / GPU span"},
    {"gpu.compute_pct", 0, VP_COL_PERCENT, -1, "union of compute kernels / GPU span"},
    {"gpu.idle_pct", 0, VP_COL_PERCENT, +1, "GPU span - busy, over the span"},
    {"memcpy.pct", 0, VP_COL_PERCENT, +1, "union of memory copies and sets / GPU span"},
    {"comm.total", 0, VP_COL_NS, 0, "union of communication kernels, summed over ranks"},
    {"comm.exposed", 0, VP_COL_NS, +1, "communication not overlapped by compute, summed over ranks"},
    {"comm.exposed_pct", 0, VP_COL_PERCENT, +1, "exposed communication / GPU busy time"},
    {"comm.exposed_step_pct", 0, VP_COL_PERCENT, +1, "exposed communication inside the steps' windows / their wall time"},
    {"comm.overlap_pct", 0, VP_COL_PERCENT, -1, "communication overlapped by compute / communication (HTA's overlap %)"},
    {"kernels.count", 0, VP_COL_INT, 0, "kernel instances counted"},
    {"kernels.total", 0, VP_COL_NS, +1, "sum of kernel durations"},
    {"kernels.short_pct", 0, VP_COL_PERCENT, +1, "kernels that ran shorter than the CPU call that launched them"},
    {"dataloader.pct", 0, VP_COL_PERCENT, +1, "DataLoader __next__ time inside the steps / the steps' wall time"},
    {"sync.count", 0, VP_COL_INT, +1, "blocking host-device syncs inside the steps (cuda{Stream,Device,Event}Synchronize, synchronous cudaMemcpy)"},
    {"sync.time", 0, VP_COL_NS, +1, "time the host spent in those syncs: their durations, summed over ranks"},
    {"sync.step_pct", 0, VP_COL_PERCENT, +1, "the part of sync.time inside the steps' windows / their wall time"},
    {"gemm.fp32_pct", 0, VP_COL_PERCENT, +1, "FP32 GEMM time (sgemm, TF32 s1688/s16816 tensor-op GEMMs) / all GEMM time"},
    {"attention.pct", 0, VP_COL_PERCENT, +1, "attention-like kernels (softmax, attention, attn, fmha, flash, sdpa) / kernel time"},
    {"attention.flash", 0, VP_COL_INT, -1, "1 when a fused attention kernel ran (flash, fmha, efficient_attention), else 0"},
    {"rank.spread_pct", 0, VP_COL_PERCENT, +1, "(most - least) / median compute time over ranks"},
    {"memory.peak_allocated", 0, VP_COL_BYTES, +1, "highest Total Allocated of any GPU in [memory] events"},
    {"memory.peak_reserved", 0, VP_COL_BYTES, +1, "highest Total Reserved of any GPU in [memory] events"},
    {"launches.bound_pct", 0, VP_COL_PERCENT, +1, "launch-bound launches (GPU work shorter than its call, started within the call's duration of its end) / launches, as vprof launches' Launch-Bound"},
    {"api.top_pct", 0, VP_COL_PERCENT, +1, "the runtime API call with the most time that launches nothing: its share of all API time, vprof api's Time (%)"},
    {"mfu", 0, VP_COL_RATIO, -1, "model FLOPs utilization (0..1), full-square attention (--model)"},
    {"mfu.causal", 0, VP_COL_RATIO, -1, "model FLOPs utilization (0..1), causal attention (--model)"},
    {"tflops", 0, VP_COL_RATIO, -1, "achieved model TFLOP/s per GPU, full-square attention (--model)"},
    {"roofline.gemm_pct", 0, VP_COL_PERCENT, -1, "GEMMs' Roofline (%) weighted by their kernel time, as vprof roofline's note (summary and report; check and diff when a gate names it)"},
    {"roofline.attention_pct", 0, VP_COL_PERCENT, -1, "attention operators' Roofline (%) weighted by their kernel time (summary and report; check and diff when a gate names it)"},
    {NULL, 0, 0, 0, NULL},
};

const vp_metric *vp_run_metric_catalogue(void)
{
    return catalogue;
}



void vp_run_set(vp_run *r, const char *name, double value)
{
    for (size_t i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].name, name) == 0) {
            r->m[i].value = value;
            return;
        }
    for (const vp_metric *c = catalogue; c->name; c++)
        if (strcmp(c->name, name) == 0) {
            r->m = vp_realloc(r->m, (r->nm + 1) * sizeof *r->m);
            r->m[r->nm] = *c;
            r->m[r->nm++].value = value;
            return;
        }
    abort();  /* a name missing from the catalogue is a bug */
}

uint32_t vp_run_kernel_index(vp_run *r, vp_span name, int cls)
{
    return vp_kernels_name(&r->km, name.p, name.n, (vp_kclass)cls, VP_GPU_KERNEL);
}

/* The group of a kernel name: its totals are its aggregate. */
static vp_kgroup *kernel_group(vp_run *r, uint32_t name)
{
    uint32_t gi = vp_kernels_group(&r->km, 0, name, -1, -1, -1, 0, 0);
    return &r->km.groups[gi];
}

void vp_run_add_step(vp_run *r, long number, int64_t dur)
{
    vp_step_times_add(&r->steps, number, dur, 1);
}

static int span_is(vp_span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* Blocking calls that make the CPU wait for the GPU: CUDA's runtime
 * calls, and the same calls of CANN's AscendCL (the CANN track's slices
 * have no category). */
static int is_sync_call(const vp_event *ev)
{
    if (ev->cat.n == 0 && ev->name.n > 9 && memcmp(ev->name.p, "AscendCL@", 9) == 0)
        return span_is(ev->name, "AscendCL@aclrtSynchronizeStream") ||
               span_is(ev->name, "AscendCL@aclrtSynchronizeDevice") ||
               span_is(ev->name, "AscendCL@aclrtSynchronizeEvent") ||
               span_is(ev->name, "AscendCL@aclrtMemcpy");
    if (vp_event_kind(ev->cat, ev->name) != VP_EV_RUNTIME)
        return 0;
    return span_is(ev->name, "cudaStreamSynchronize") || span_is(ev->name, "cudaDeviceSynchronize") ||
           span_is(ev->name, "cudaEventSynchronize") || span_is(ev->name, "cudaMemcpy");
}


/* What a file's pass keeps besides its GPU work (vp_gpu_pass). */
typedef struct file_state {
    vp_run *r;
    vp_memevents *mem;
    vp_ivset data;
    int64_t *syncs;          /* start, duration of each blocking call */
    size_t nsync, capsync;
    vp_run_calls_file *calls;   /* the launches and api analyses of the same pass */
    vp_ops_file *ops;        /* the roofline's operators (vp_run_opts.roofline), or NULL */
} file_state;

static void read_device_properties(vp_run *r, const cJSON *meta)
{
    long world = vp_rank_world_size(meta);
    if (world > r->world)
        r->world = world;
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(meta, "schemaVersion");
    if (!r->schema && cJSON_IsNumber(sv) && sv->valuedouble >= 1)
        r->schema = (long)sv->valuedouble;
    const cJSON *dp = vp_meta_devices(meta, NULL);
    if (!dp || r->device[0])
        return;
    r->dp_seen = 1;
    r->listed = cJSON_GetArraySize(dp);
    const cJSON *first = cJSON_GetArrayItem(dp, 0);
    const cJSON *name = first ? cJSON_GetObjectItemCaseSensitive(first, "name") : NULL;
    if (cJSON_IsString(name))
        snprintf(r->device, sizeof r->device, "%s", name->valuestring);
    if (first)
        vp_meta_device_cc(first, &r->cc_major, &r->cc_minor);
}

/* Counts device of rank as one that ran GPU work, once. */
static void add_device(vp_run *r, long rank, long device)
{
    for (size_t i = 0; i < r->ndevs; i++)
        if (r->devs[2 * i] == rank && r->devs[2 * i + 1] == device)
            return;
    r->devs = vp_realloc(r->devs, 2 * (r->ndevs + 1) * sizeof *r->devs);
    r->devs[2 * r->ndevs] = rank;
    r->devs[2 * r->ndevs++ + 1] = device;
}

/* What a file's work adds to the run, once read: rank is its rank;
 * resolved: vp_gpu_pass resolved w's steps already; device: the device
 * that ran all of w (an Ascend rank's), -1: each event's own. */
static void account(vp_run *r, vp_gpuwork *w, int resolved, file_state *f, long rank,
                    long device, const vp_run_opts *o)
{
    r->rank_ids = vp_realloc(r->rank_ids, (r->nranks + 1) * sizeof *r->rank_ids);
    r->rank_ids[r->nranks] = rank;
    if (vp_npu_tracks_seen(w->npu))
        r->ascend = 1;
    /* Without --steps every piece of GPU work counts (a trace need not
     * have steps); the step times count every step either way. */
    if (!resolved)
        vp_gpuwork_resolve(w, o->steps_given ? &o->steps : NULL);
    vp_steps_select(w->steps, &o->steps);

    /* Steps: CPU durations of the selected ones, and their wall time. */
    size_t nsteps = vp_steps_count(w->steps);
    for (size_t i = 0; i < nsteps; i++) {
        int64_t a, b;
        if (vp_steps_window(w->steps, i, &a, &b) != 1)
            continue;
        vp_run_add_step(r, vp_steps_number(w->steps, i), b - a);
        r->step_wall += b - a;
        r->data += vp_ivset_measure_in(&f->data, a, b);
    }
    for (size_t i = 0; i < f->nsync; i++) {
        long s = vp_steps_at(w->steps, f->syncs[2 * i]);
        int64_t a, b;
        if (s >= 0 && vp_steps_window(w->steps, (size_t)s, &a, &b) == 1) {
            /* sync.step_pct counts the part inside its step: a share of the
             * steps' time over the same windows */
            int64_t end = f->syncs[2 * i] + f->syncs[2 * i + 1];
            r->syncs++;
            r->sync_time += f->syncs[2 * i + 1];
            r->sync_in_steps += (end < b ? end : b) - f->syncs[2 * i];
        }
    }

    /* The counted GPU work: time breakdown, kernels, launches. */
    vp_gpu_sets sets;
    vp_gpu_totals tot;
    vp_gpu_sets_init(&sets);
    vp_gpu_measure(&sets, w->ev, NULL, w->n, &tot);
    int64_t wall;
    size_t counted;
    r->step_exposed += vp_gpu_step_exposed(&sets, w->steps, 0, &wall, &counted);
    vp_gpu_sets_free(&sets);
    r->span += tot.span;
    r->busy += tot.busy;
    r->compute += tot.compute;
    r->comm += tot.comm;
    r->overlap += tot.overlap;
    r->exposed += tot.exposed;
    r->memory += tot.memory;
    r->rank_compute = vp_realloc(r->rank_compute, (r->nranks + 1) * sizeof *r->rank_compute);
    r->rank_compute[r->nranks++] = tot.compute;
    long last = -2;   /* events come in runs of one device: look the set up on a change */
    for (size_t i = 0; i < w->n; i++) {
        const vp_gpu_ev *g = &w->ev[i];
        long dev = device >= 0 ? device : g->device;
        if (dev != last)
            add_device(r, rank, last = dev);
        if (g->kind != VP_GPU_KERNEL || g->aux == UINT32_MAX)
            continue;
        int64_t dur = g->end - g->start;
        if (g->cls == VP_CLASS_COMM)   /* its args or its launcher may have said so */
            r->km.knames[g->aux].cls = VP_CLASS_COMM;
        vp_kernels_add_aggregate(&r->km, vp_kernels_group(&r->km, 0, g->aux, -1, -1, -1, 0, 0),
                                 1, dur, dur, dur);
        r->kernels++;
        int64_t lts, ldur;
        if (g->corr >= 0 && vp_steps_launch(w->steps, g->corr, &lts, &ldur) &&
            g->end - g->start < ldur)
            r->short_kernels++;
    }

    /* the peaks are the devices' in any order: f->mem stays unfinished,
     * as a caller's timeline (vp_run_add_trace) is finished once, with
     * the run's other inputs' */
    for (size_t i = 0; i < f->mem->ndevices; i++) {
        const vp_mem_device *d = &f->mem->devices[i];
        if (d->type == 0)
            continue;  /* the CPU allocator */
        r->have_mem = 1;
        r->mem_replayed |= d->replayed > 0;
        if (d->peak_alloc.allocated > r->peak_alloc)
            r->peak_alloc = d->peak_alloc.allocated;
        if (d->peak_reserved.reserved > r->peak_reserved)
            r->peak_reserved = d->peak_reserved.reserved;
    }
}

/* Every event the pass sees besides its GPU work: kernels by name, memory
 * events, data loading and synchronising calls. */
static void observe(void *ctx, vp_gpuwork *w, long gi, const vp_event *ev)
{
    file_state *f = ctx;
    vp_cp_steps_feed(&f->r->cps, ev);
    if (f->calls)
        vp_run_calls_observe(f->calls, gi >= 0 ? &w->ev[gi] : NULL, ev);
    if (f->ops)
        vp_ops_file_observe(f->ops, ev);
    /* every event: each one's ts moves the trace's start, which a
     * caller's timeline measures its times from */
    vp_memevents_observe(f->mem, ev);
    if (gi >= 0) {
        vp_gpu_ev *g = &w->ev[gi];
        if (g->kind == VP_GPU_KERNEL)
            g->aux = vp_run_kernel_index(f->r, ev->name, g->cls);
        return;
    }
    if (ev->ph == 'i' || ev->ph == 'I')
        return;
    if (ev->ph != 'X' || !ev->has_ts)
        return;
    if (ev->name.n > 21 && memcmp(ev->name.p, "enumerate(DataLoader)", 21) == 0 && ev->has_dur)
        vp_ivset_add(&f->data, ev->ts, ev->ts + ev->dur);
    else if (is_sync_call(ev)) {
        if (f->nsync == f->capsync) {
            f->capsync = f->capsync ? f->capsync * 2 : 64;
            f->syncs = vp_realloc(f->syncs, 2 * f->capsync * sizeof *f->syncs);
        }
        f->syncs[2 * f->nsync] = ev->ts;
        f->syncs[2 * f->nsync++ + 1] = ev->has_dur && ev->dur > 0 ? ev->dur : 0;
    }
}

int vp_run_add_trace(vp_run *r, const char *path, long position, long rank,
                     const vp_run_opts *o, vp_memevents *mem, vp_error *err)
{
    file_state f;
    memset(&f, 0, sizeof f);
    f.r = r;
    f.mem = mem ? mem : vp_memevents_new(0);
    vp_ivset_init(&f.data);
    f.calls = vp_run_calls_begin(&r->calls, path, position, o);
    f.ops = vp_run_roof_begin(r, path, position, o);
    vp_gpu_pass p;
    vp_trace_pass_opts po = {.partial = o->partial, .no_progress = !o->progress,
                             .range = o->steps_given ? &o->steps : NULL,
                             .position = position, .rank = rank, .classes = o->classes,
                             .window = 1};   /* vp_origins_add */
    if (o->critical_path)
        vp_cp_steps_begin(&r->cps);
    int rc = vp_gpu_pass_read(&p, path, &po, observe, &f, err);
    if (rc == 0) {
        vp_cp_steps_end(&r->cps, path, p.pass.rank);
        vp_origins_add(&r->origins, &p.pass);
        read_device_properties(r, vp_trace_meta(p.pass.trace));
        account(r, &p.w, 1, &f, p.pass.rank, -1, o);
        /* account selected the steps */
        vp_run_calls_end(&r->calls, f.calls, p.pass.rank, o->steps_given ? p.w.steps : NULL, &p.w);
    } else {
        vp_run_calls_free_file(f.calls);
    }
    if (f.ops)
        vp_ops_file_end(f.ops, &p.pass, rc == 0);
    vp_gpu_pass_close(&p);
    if (f.mem != mem)
        vp_memevents_free(f.mem);
    vp_ivset_free(&f.data);
    free(f.syncs);
    return rc;
}

void vp_run_account_work(vp_run *r, vp_gpuwork *w, int resolved, long rank, long device,
                         const vp_run_opts *o)
{
    file_state f;
    memset(&f, 0, sizeof f);
    f.r = r;
    f.mem = vp_memevents_new(0);
    vp_ivset_init(&f.data);
    account(r, w, resolved, &f, rank, device, o);
    vp_memevents_free(f.mem);
    vp_ivset_free(&f.data);
    r->calls.unread++;
}

int vp_run_add_file(vp_run *r, const char *path, long position, const vp_run_opts *o,
                    vp_error *err)
{
    if (vp_asc_is_dir(path))
        return vp_run_add_ascend_dir(r, path, o, err);
    if (strcmp(path, "-") != 0 && vp_asc_sniff(path) == VP_ASC_DB)
        return vp_run_add_db(r, path, position, o, err);
    return vp_run_add_trace(r, path, position, -1, o, NULL, err);
}

const vp_origins *vp_run_origins(const vp_run *r)
{
    return &r->origins;
}

int vp_run_is_ascend(const vp_run *r)
{
    return r->ascend;
}

/* lower holds a name in lower case (ASCII letters only, as strncasecmp
 * in the C locale compares them); lit is lower case. */
static int has_ci(const char *lower, const char *lit)
{
    return strstr(lower, lit) != NULL;
}

static int cmp_kernel(const void *a, const void *b)
{
    const vp_kernel_total *x = a, *y = b;
    if (x->total != y->total)
        return (y->total > x->total) - (y->total < x->total);
    return strcmp(x->name, y->name);
}

static int cmp_step_dur(const void *a, const void *b)
{
    const vp_step_time *x = a, *y = b;
    return (x->dur > y->dur) - (x->dur < y->dur);
}

/* acc += v for a quantity that cannot be negative (a duration, a count):
 * a negative v or an overflow can only come from a damaged partial. */
static void add_amount(vp_rd *d, int64_t *acc, int64_t v)
{
    if (v < 0 || __builtin_add_overflow(*acc, v, acc))
        d->bad = 1;
}

/* Sums over kernels in vp_run_finish: each total is valid, their sum may
 * still not fit; it saturates rather than wraps. */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

void vp_run_finish(vp_run *r)
{
    vp_run_set(r, "ranks", (double)r->nranks);
    if (!r->ascend || r->dp_seen)   /* no deviceProperties in an Ascend trace */
        vp_run_set(r, "gpus", (double)r->ndevs);
    vp_run_set(r, "steps", (double)r->steps.n);
    r->mfu_step = r->untimed ? 0 : vp_mfu_step_median(&r->steps, NULL, NULL);
    if (r->steps.n && !r->untimed) {
        int64_t *d = vp_malloc(r->steps.n * sizeof *d);
        for (size_t i = 0; i < r->steps.n; i++)
            d[i] = r->steps.st[i].dur;
        vp_summary s;
        vp_summarize(d, r->steps.n, &s);
        free(d);
        vp_run_set(r, "step.median", s.median);
        vp_run_set(r, "step.mean", s.mean);
        vp_run_set(r, "step.min", (double)s.min);
        vp_run_set(r, "step.max", (double)s.max);
        vp_run_set(r, "step.spread_pct", s.median > 0 ? 100.0 * (double)(s.max - s.min) / s.median : 0);
    }
    vp_run_set(r, "gpu.span", (double)r->span);
    vp_run_set(r, "gpu.busy_pct", pct(r->busy, r->span));
    vp_run_set(r, "gpu.compute_pct", pct(r->compute, r->span));
    vp_run_set(r, "gpu.idle_pct", pct(r->span - r->busy, r->span));
    vp_run_set(r, "memcpy.pct", pct(r->memory, r->span));
    /* A run of several ranks whose kernels the rules placed none of in
     * communication has communication they do not know: no comm.* metric
     * rather than zeros that would read as "nothing exposed". */
    if (!vp_run_comm_unseen(r)) {
        vp_run_set(r, "comm.total", (double)r->comm);
        vp_run_set(r, "comm.exposed", (double)r->exposed);
        vp_run_set(r, "comm.exposed_pct", pct(r->exposed, r->busy));
        if (r->step_wall && !r->untimed)
            vp_run_set(r, "comm.exposed_step_pct", pct(r->step_exposed, r->step_wall));
    }
    if (r->comm)
        vp_run_set(r, "comm.overlap_pct", pct(r->overlap, r->comm));
    vp_run_set(r, "kernels.count", (double)r->kernels);
    free(r->k);
    r->nk = r->km.nnames;
    r->k = vp_malloc((r->nk ? r->nk : 1) * sizeof *r->k);
    for (size_t i = 0; i < r->nk; i++) {
        const vp_kname *kn = &r->km.knames[i];
        const vp_kgroup *g = kn->group == UINT32_MAX ? NULL : &r->km.groups[kn->group];
        r->k[i] = (vp_kernel_total){kn->text, g ? g->agg_total : 0, g ? g->agg_n : 0,
                                    (int)kn->cls};
    }
    int64_t ktotal = 0, gemm = 0, fp32 = 0, attn = 0;
    int flash = 0;
    /* Each name lowered once, not compared case-blind at every offset
     * for each of the nine words (a few thousand names, up to kilobytes). */
    char *lower = NULL;
    size_t lower_cap = 0;
    for (size_t i = 0; i < r->nk; i++) {
        const vp_kernel_total *k = &r->k[i];
        size_t len = strlen(k->name);
        if (len + 1 > lower_cap) {
            lower_cap = 2 * (len + 1);
            lower = vp_realloc(lower, lower_cap);
        }
        for (size_t j = 0; j <= len; j++) {
            char c = k->name[j];
            lower[j] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
        }
        ktotal = sat_add(ktotal, k->total);
        if (has_ci(lower, "gemm")) {
            gemm = sat_add(gemm, k->total);
            if (has_ci(lower, "sgemm") || strstr(k->name, "s1688gemm") ||
                strstr(k->name, "s16816gemm") || has_ci(lower, "f32f32"))
                fp32 = sat_add(fp32, k->total);
        }
        int is_flash = has_ci(lower, "flash") || has_ci(lower, "fmha") ||
                       has_ci(lower, "efficient_attention");
        if (is_flash && k->count)
            flash = 1;
        if (is_flash || has_ci(lower, "softmax") || has_ci(lower, "attention") ||
            has_ci(lower, "attn") || has_ci(lower, "sdpa"))
            attn = sat_add(attn, k->total);
    }
    free(lower);
    vp_run_set(r, "kernels.total", (double)ktotal);
    /* An Ascend trace links no device task to the call that launched it
     * (its flows go to torch ops), so there is no launch to compare with. */
    if (!r->ascend)
        vp_run_set(r, "kernels.short_pct", pct(r->short_kernels, r->kernels));
    if (r->step_wall && !r->untimed) {
        vp_run_set(r, "dataloader.pct", pct(r->data, r->step_wall));
        vp_run_set(r, "sync.count", (double)r->syncs);
        vp_run_set(r, "sync.time", (double)r->sync_time);
        vp_run_set(r, "sync.step_pct", pct(r->sync_in_steps, r->step_wall));
    }
    if (gemm)
        vp_run_set(r, "gemm.fp32_pct", pct(fp32, gemm));
    vp_run_set(r, "attention.pct", pct(attn, ktotal));
    vp_run_set(r, "attention.flash", flash);
    if (r->nranks > 1) {
        int64_t *c = vp_malloc(r->nranks * sizeof *c);
        memcpy(c, r->rank_compute, r->nranks * sizeof *c);
        vp_summary s;
        vp_summarize(c, r->nranks, &s);
        free(c);
        vp_run_set(r, "rank.spread_pct", s.median > 0 ? 100.0 * (double)(s.max - s.min) / s.median : 0);
    }
    if (r->have_mem) {
        vp_run_set(r, "memory.peak_allocated", (double)r->peak_alloc);
        if (!r->mem_replayed)   /* else unknown: not the 0 it holds */
            vp_run_set(r, "memory.peak_reserved", (double)r->peak_reserved);
    }
    vp_run_calls_finish(r);
    vp_run_roof_finish(r);
    if (r->nk)
        qsort(r->k, r->nk, sizeof *r->k, cmp_kernel);
    if (r->steps.n)
        qsort(r->steps.st, r->steps.n, sizeof *r->steps.st, cmp_step_dur);
}

vp_run *vp_run_new(void)
{
    vp_run *r = vp_calloc(1, sizeof *r);
    r->cc_major = r->cc_minor = -1;
    vp_kernels_opts ko = {.kinds = 1u << VP_GPU_KERNEL, .by_name = 1};
    vp_kernels_init(&r->km, &ko);
    vp_run_calls_init(&r->calls);
    return r;
}

vp_run *vp_run_read(char *const *paths, size_t n, const vp_run_opts *o, vp_error *err)
{
    vp_run *r = vp_run_new();
    for (size_t i = 0; i < n; i++) {
        if (vp_run_add_file(r, paths[i], (long)i, o, err) != 0) {
            vp_run_free(r);
            return NULL;
        }
    }
    vp_run_finish(r);
    return r;
}

/* The partial result (docs/partials.md, "summary"): everything a run
 * keeps between its files, in the order it was first seen. */
void vp_run_save(const vp_run *r, vp_buf *b)
{
    vp_put_u64(b, r->km.nnames);
    for (size_t i = 0; i < r->km.nnames; i++) {
        const vp_kname *kn = &r->km.knames[i];
        const vp_kgroup *g = kn->group == UINT32_MAX ? NULL : &r->km.groups[kn->group];
        vp_put_str(b, kn->text, kn->len);
        vp_put_i64(b, g ? g->agg_total : 0);
        vp_put_i64(b, g ? g->agg_n : 0);
        vp_put_u64(b, (uint64_t)kn->cls);
    }
    vp_put_u64(b, r->steps.n);
    for (size_t i = 0; i < r->steps.n; i++) {
        vp_put_i64(b, r->steps.st[i].number);
        vp_put_i64(b, r->steps.st[i].dur);
    }
    vp_put_str(b, r->device, strlen(r->device));
    vp_put_u64(b, (uint64_t)r->dp_seen);
    vp_put_i64(b, r->listed);
    vp_put_i64(b, r->cc_major);
    vp_put_i64(b, r->cc_minor);
    vp_put_i64(b, r->schema);
    const int64_t sums[] = {r->span, r->busy, r->compute, r->comm, r->overlap, r->exposed,
                            r->memory, r->step_wall, r->data, r->kernels, r->short_kernels,
                            r->syncs, r->sync_time, r->step_exposed,
                            r->sync_in_steps};
    for (size_t i = 0; i < sizeof sums / sizeof *sums; i++)
        vp_put_i64(b, sums[i]);
    vp_put_u64(b, r->nranks);
    for (size_t i = 0; i < r->nranks; i++) {
        vp_put_i64(b, r->rank_ids[i]);
        vp_put_i64(b, r->rank_compute[i]);
    }
    vp_put_u64(b, (uint64_t)r->have_mem | (uint64_t)r->mem_replayed << 1);   /* bit 1: version 9 */
    vp_put_i64(b, r->peak_alloc);
    vp_put_i64(b, r->peak_reserved);
    vp_put_u64(b, (uint64_t)r->ascend);
    vp_put_i64(b, r->world);
    vp_put_u64(b, r->ndevs);   /* version 5 */
    for (size_t i = 0; i < 2 * r->ndevs; i++)
        vp_put_i64(b, r->devs[i]);
    const char *untimed = r->untimed ? r->untimed : "";
    vp_put_str(b, untimed, strlen(untimed));
    vp_cp_steps_save(&r->cps, b);   /* version 6 */
    vp_run_calls_save(&r->calls, b);   /* version 7 */
    vp_origins_save(&r->origins, b);   /* version 11 */
    vp_run_roof_save(r, b);   /* version 12 */
}

int vp_run_merge(vp_run *r, const void *p, size_t n, vp_error *err)
{
    vp_rd d;
    vp_rd_init(&d, p, n);
    size_t nk = vp_get_count(&d, 4);
    for (size_t i = 0; i < nk && !d.bad; i++) {
        vp_span name;
        name.p = vp_get_str(&d, &name.n);
        int64_t total = vp_get_i64(&d), count = vp_get_i64(&d);
        uint64_t cls = vp_get_u64(&d);
        /* names are C strings once kept: a NUL inside is damage, and
         * would make two kernels one after a save */
        if (d.bad || memchr(name.p, '\0', name.n)) {
            d.bad = 1;
            break;
        }
        vp_kgroup *g = kernel_group(r, vp_run_kernel_index(r, name, (int)(cls & 0xff)));
        add_amount(&d, &g->agg_total, total);
        add_amount(&d, &g->agg_n, count);
    }
    size_t nst = vp_get_count(&d, 2);
    for (size_t i = 0; i < nst && !d.bad; i++) {
        long number = (long)vp_get_i64(&d);
        int64_t dur = vp_get_i64(&d);
        if (dur < 0)
            d.bad = 1;
        else
            vp_run_add_step(r, number, dur);
    }
    size_t len;
    const char *dev = vp_get_cstr(&d, &len);
    int dp_seen = vp_get_u64(&d) != 0;
    int64_t listed = vp_get_i64(&d);
    int64_t major = vp_get_i64(&d), minor = vp_get_i64(&d), schema = vp_get_i64(&d);
    if (major < -1 || major >= 100 || minor < -1 || minor >= 100 || schema < 0 || listed < 0 ||
        listed > INT32_MAX)
        d.bad = 1;
    if (dev && !r->device[0] && dp_seen && len < sizeof r->device) {
        memcpy(r->device, dev, len);
        r->device[len] = '\0';
        r->listed = (int)listed;
        r->dp_seen = 1;
        r->cc_major = (int)major;
        r->cc_minor = (int)minor;
    }
    if (!r->schema)
        r->schema = (long)schema;
    int64_t *sums[] = {&r->span, &r->busy, &r->compute, &r->comm, &r->overlap, &r->exposed,
                       &r->memory, &r->step_wall, &r->data, &r->kernels, &r->short_kernels,
                       &r->syncs, &r->sync_time, &r->step_exposed,
                       &r->sync_in_steps};
    for (size_t i = 0; i < sizeof sums / sizeof *sums; i++)
        add_amount(&d, sums[i], vp_get_i64(&d));
    size_t nr = vp_get_count(&d, 2);
    r->rank_ids = vp_realloc(r->rank_ids, (r->nranks + nr + 1) * sizeof *r->rank_ids);
    r->rank_compute = vp_realloc(r->rank_compute, (r->nranks + nr + 1) * sizeof *r->rank_compute);
    for (size_t i = 0; i < nr; i++) {
        r->rank_ids[r->nranks] = (long)vp_get_i64(&d);
        r->rank_compute[r->nranks] = 0;
        add_amount(&d, &r->rank_compute[r->nranks++], vp_get_i64(&d));
    }
    uint64_t mem = vp_get_u64(&d);
    if (mem > 3)
        d.bad = 1;
    r->have_mem |= (int)(mem & 1);
    r->mem_replayed |= (int)(mem >> 1 & 1);
    int64_t pa = vp_get_i64(&d), pr = vp_get_i64(&d);
    if (pa > r->peak_alloc)
        r->peak_alloc = pa;
    if (pr > r->peak_reserved)
        r->peak_reserved = pr;
    if (vp_get_u64(&d))
        r->ascend = 1;
    long world = (long)vp_get_i64(&d);
    if (world > r->world)
        r->world = world;
    size_t ndevs = vp_get_count(&d, 2);
    for (size_t i = 0; i < ndevs && !d.bad; i++) {
        long rank = (long)vp_get_i64(&d), device = (long)vp_get_i64(&d);
        if (!d.bad)
            add_device(r, rank, device);
    }
    size_t ulen;
    const char *untimed = vp_get_str(&d, &ulen);
    if (!d.bad && memchr(untimed, '\0', ulen))
        d.bad = 1;
    else if (!d.bad && ulen && !r->untimed)
        r->untimed = vp_strndup(untimed, ulen);
    vp_cp_steps_merge(&r->cps, &d);
    if (!d.bad)
        vp_run_calls_merge(&r->calls, &d, err);
    if (!d.bad)
        vp_origins_merge(&r->origins, &d);
    if (!d.bad)
        vp_run_roof_merge(r, &d, err);
    if (!vp_rd_done(&d)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged summary partial result");
        return -1;
    }
    return 0;
}

void vp_run_free(vp_run *r)
{
    if (!r)
        return;
    vp_kernels_free(&r->km);
    free(r->k);
    free(r->m);
    vp_step_times_free(&r->steps);
    free(r->rank_compute);
    free(r->rank_ids);
    free(r->devs);
    free(r->untimed);
    vp_cp_steps_free(&r->cps);
    vp_run_calls_free(&r->calls);
    vp_origins_free(&r->origins);
    vp_run_roof_free(r);
    free(r);
}

void vp_metric_format(char *buf, size_t n, vp_col_type unit, double v)
{
    switch (unit) {
    case VP_COL_NS:
    case VP_COL_NS_F:
        vp_human_ns(buf, n, v);
        break;
    case VP_COL_BYTES:
        vp_human_bytes(buf, n, v);
        break;
    case VP_COL_PERCENT:
        snprintf(buf, n, "%.2f%%", v);
        break;
    case VP_COL_INT:
        snprintf(buf, n, "%.0f", v);
        break;
    default:
        snprintf(buf, n, "%.4g", v);
        break;
    }
}

void vp_metric_format_change(char *buf, size_t n, vp_col_type unit, double change)
{
    char mag[48];
    if (unit == VP_COL_PERCENT)   /* a change of a percentage is in points, not a percentage of it */
        snprintf(mag, sizeof mag, "%.2f pp", fabs(change));
    else
        vp_metric_format(mag, sizeof mag, unit, fabs(change));
    /* a change that reads as zero takes no sign: never "-0.00 pp" */
    snprintf(buf, n, "%s%s", !mag[strcspn(mag, "123456789")] ? "" : change < 0 ? "-" : "+", mag);
}

const char *vp_metric_unit_name(vp_col_type unit)
{
    switch (unit) {
    case VP_COL_NS:
    case VP_COL_NS_F: return "ns";
    case VP_COL_BYTES: return "bytes";
    case VP_COL_PERCENT: return "percent";
    case VP_COL_INT: return "count";
    case VP_COL_TEXT: return "text";
    default: return "ratio";
    }
}

size_t vp_run_nmetrics(const vp_run *r)
{
    return r->nm;
}

const vp_metric *vp_run_metric(const vp_run *r, size_t i)
{
    return i < r->nm ? &r->m[i] : NULL;
}

const vp_metric *vp_run_find(const vp_run *r, const char *name)
{
    for (size_t i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].name, name) == 0)
            return &r->m[i];
    return NULL;
}

size_t vp_run_nkernels(const vp_run *r)
{
    return r->nk;
}

const vp_kernel_total *vp_run_kernel(const vp_run *r, size_t i)
{
    return i < r->nk ? &r->k[i] : NULL;
}

int64_t vp_run_kernel_match(const vp_run *r, const regex_t *re, int64_t *count)
{
    int64_t total = 0, n = 0;
    for (size_t i = 0; i < r->nk; i++)
        if (regexec(re, r->k[i].name, 0, NULL, 0) == 0) {
            total += r->k[i].total;
            n += r->k[i].count;
        }
    if (count)
        *count = n;
    return total;
}

long vp_run_rank(const vp_run *r, size_t i)
{
    return r->rank_ids && i < r->nranks ? r->rank_ids[i] : (long)i;
}

const char *vp_run_device(const vp_run *r)
{
    return r->device;
}

/* From the metric, so that a baseline read back from JSON answers too. */
int vp_run_device_count(const vp_run *r)
{
    const vp_metric *m = vp_run_find(r, "gpus");
    return m ? (int)m->value : 0;
}

int vp_run_listed_devices(const vp_run *r)
{
    return r->listed;
}

double vp_run_mfu_step(const vp_run *r)
{
    return r->mfu_step;
}

long vp_run_world(const vp_run *r)
{
    return r->world;
}

int vp_run_compute_capability(const vp_run *r, int *major, int *minor)
{
    if (r->cc_major < 0)
        return 0;
    *major = r->cc_major;
    *minor = r->cc_minor;
    return 1;
}

long vp_run_schema(const vp_run *r)
{
    return r->schema;
}

/* The metrics a run of kernel_details.csv alone cannot measure: times of
 * steps, and what is measured against them or on the CPU. */
static int needs_step_times(const char *name)
{
    static const char *const names[] = {"step.median", "step.mean", "step.min", "step.max",
                                        "step.spread_pct", "comm.exposed_step_pct",
                                        "dataloader.pct", "sync.count", "sync.time",
                                        "sync.step_pct", "mfu", "mfu.causal", "tflops", NULL};
    for (const char *const *p = names; *p; p++)
        if (strcmp(name, *p) == 0)
            return 1;
    return 0;
}

const char *vp_run_untimed(const vp_run *r)
{
    return r->untimed;
}

int vp_run_comm_unseen(const vp_run *r)
{
    return r->world > 1 && r->comm == 0 && !r->ascend && (r->span > 0 || r->kernels > 0);
}

int vp_run_why_absent(const vp_run *r, const char *name, char *buf, size_t n)
{
    if (strncmp(name, "comm.", 5) == 0 && vp_run_comm_unseen(r) && !vp_run_find(r, name)) {
        snprintf(buf, n, "distributedInfo says world_size %ld, but no kernel is communication "
                         "by the rules of docs/classification.md: the run's communication is "
                         "of a kind they do not know%s",
                 r->world, vp_diag_hint(VP_HINT_COMM_KERNELS));
        return 1;
    }
    if (!r->untimed || !needs_step_times(name) || vp_run_find(r, name))
        return 0;
    snprintf(buf, n, "%s has no trace_view.json, whose ProfilerStep windows and CPU tracks give "
                     "step times, dataloader.pct and sync.* (its kernel_details.csv gives the "
                     "device metrics)",
             r->untimed);
    return 1;
}

int vp_metric_on_device(const char *name)
{
    static const char *const prefixes[] = {"gpu.", "comm.", "kernels.", "memcpy.", "gemm.",
                                           "attention.", "rank.spread", "roofline.", NULL};
    for (const char *const *p = prefixes; *p; p++)
        if (strncmp(name, *p, strlen(*p)) == 0)
            return 1;
    return 0;
}

/* From the metrics, so that a baseline read back from JSON answers too. */
const vp_cp_steps *vp_run_step_bounds(const vp_run *r)
{
    return &r->cps;
}

int vp_run_has_device_work(const vp_run *r)
{
    const vp_metric *span = vp_run_find(r, "gpu.span"), *k = vp_run_find(r, "kernels.count");
    return (span && span->value > 0) || (k && k->value > 0);
}
