/* GPU events as intervals, their steps, and the shared time breakdown. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_tracks.h"
#include "vprof/classify.h"
#include "vprof/gpuwork.h"
#include "vprof/npu_task.h"
#include "vprof/util.h"

void vp_gpuwork_init(vp_gpuwork *w)
{
    memset(w, 0, sizeof *w);
    w->steps = vp_steps_new();
    w->names = vp_strmap_new();
    w->npu = vp_npu_tracks_new();
}

void vp_gpuwork_free(vp_gpuwork *w)
{
    free(w->ev);
    free(w->slices);
    free(w->dropped);
    free(w->coll);
    free(w->inner);
    vp_npu_tracks_free(w->npu);
    vp_steps_free(w->steps);
    vp_strmap_free(w->names);
    memset(w, 0, sizeof *w);
}

/* The args asked of every device task and GPU event, prepared once. */
VP_JSON_KEYSET(npu_set, "Task Type", "Stream Id")
VP_JSON_KEYSET(gpu_set, "stream", "correlation", "device", "Collective name")

const vp_json_keyset *vp_gpu_args(void)
{
    return &gpu_set;
}

static int64_t span_int(vp_span v, int64_t fallback)
{
    int64_t x;
    return v.p && vp_json_int(v, &x) == 0 ? x : fallback;
}

/* Classes are decided once per distinct name: names repeat millions of
 * times and the communication test scans the whole name.  *decided: 0
 * for a kernel that is compute for want of evidence. */
static vp_kclass class_of(vp_gpuwork *w, vp_gpu_kind kind, const vp_event *ev, int *decided)
{
    if (kind != VP_GPU_KERNEL)
        return vp_classify_rules(w->rules, kind, ev->name.p, ev->name.n, decided);
    int inserted;
    void **slot = vp_strmap_upsert(w->names, ev->name.p, ev->name.n, &inserted);
    if (inserted) {
        vp_kclass c = vp_classify_rules(w->rules, kind, ev->name.p, ev->name.n, decided);
        *slot = (void *)(uintptr_t)(1 + c + (*decided ? 0 : VP_CLASS_COUNT));
    }
    uintptr_t v = (uintptr_t)*slot - 1;
    *decided = v < VP_CLASS_COUNT;
    return (vp_kclass)(v % VP_CLASS_COUNT);
}

static void add_window(vp_thread_window **v, size_t *n, size_t *cap, vp_thread_window x)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *v = vp_realloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = x;
}

/* A CPU op: a collective's window, or an op inside one seen before. */
static void observe_cpu_op(vp_gpuwork *w, const vp_event *ev)
{
    if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur || vp_is_launch_category(ev->cat))
        return;
    vp_thread_window x = {ev->ts, ev->ts + ev->dur, vp_steps_thread_key(ev->tid)};
    if (vp_collective_op(ev->name.p, ev->name.n)) {
        add_window(&w->coll, &w->ncoll, &w->cap_coll, x);
        return;
    }
    /* the latest collectives, newest first (ops come parent first); a
     * bounded look, so that a thread without collectives costs each of its
     * ops a few comparisons, not one per collective of the trace */
    for (size_t i = w->ncoll, looked = 0; i > 0 && looked < 16; i--, looked++) {
        const vp_thread_window *c = &w->coll[i - 1];
        if (c->tid != x.tid)
            continue;
        if (x.start >= c->start && x.start < c->end) {
            add_window(&w->inner, &w->ninner, &w->cap_inner, x);
            return;
        }
    }
}

/* The device of a GPU event: args.device (dev), else its pid, as
 * kernels --by device groups them; VP_GPU_DEVICE_NONE when neither is a
 * small number. */
static uint8_t device_of(vp_span dev, vp_span pid)
{
    int64_t d = span_int(dev, span_int(pid, -1));
    return d >= 0 && d < VP_GPU_DEVICE_NONE ? (uint8_t)d : VP_GPU_DEVICE_NONE;
}

static vp_gpu_ev *append(vp_gpuwork *w)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 4096;
        w->ev = vp_realloc(w->ev, w->cap * sizeof *w->ev);
    }
    return &w->ev[w->n];
}

/* An Ascend trace's device task or communication operation; -1 when ev
 * is neither (an Overlap Analysis slice is kept aside). */
static long observe_npu(vp_gpuwork *w, const vp_event *ev, vp_npu_role role)
{
    if (role == VP_NPU_OVERLAP) {
        int k = vp_npu_overlap_kind(ev->name);
        if (k < 0 || !ev->has_ts || !ev->has_dur)
            return -1;
        if (w->nslices == w->cap_slices) {
            w->cap_slices = w->cap_slices ? w->cap_slices * 2 : 1024;
            w->slices = vp_realloc(w->slices, w->cap_slices * sizeof *w->slices);
        }
        vp_span d;
        double us;
        int64_t ps = ev->dur * 1000;
        if (vp_json_get(ev->raw, "dur", &d) && vp_json_double(d, &us) == 0)
            ps = llround(us * 1e6);
        w->slices[w->nslices++] = (vp_npu_slice){ev->ts, ev->ts + ev->dur, ps, k};
        return -1;
    }
    if (role != VP_NPU_HARDWARE && role != VP_NPU_COMM_OP)
        return -1;
    if (!ev->has_dur || !ev->has_ts) {
        w->no_dur++;
        return -1;
    }
    vp_span vals[2] = {{0}};
    if (ev->args.p)
        vp_json_get_keyset(ev->args, &npu_set, vals);
    vp_kclass cls = VP_CLASS_COMM;
    uint8_t flags = VP_GPU_F_BY_TIME;
    vp_gpu_kind kind = VP_GPU_KERNEL;
    if (role == VP_NPU_HARDWARE) {
        vp_span ty = vp_npu_task_type(vals[0]);
        vp_npu_task task = vp_npu_task_of(ty.p, ty.n, ev->name.p, ev->name.n);
        cls = task.cls;
        kind = task.kind;
        if (cls == VP_CLASS_COMM)
            flags |= VP_GPU_F_NPU_TASK_COMM;
    } else {
        w->npu_ops++;
    }
    if (cls == VP_CLASS_COMM && ev->name.n >= 12 && memcmp(ev->name.p, "hcom_receive", 12) == 0)
        flags |= VP_GPU_F_RECEIVE;
    int64_t stream = span_int(vals[1], -2);
    if (stream == -2)
        stream = span_int(ev->tid, -1);
    vp_gpu_ev *g = append(w);
    g->start = ev->ts;
    g->end = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    g->corr = -1;
    g->stream = stream >= INT32_MIN && stream <= INT32_MAX ? (int32_t)stream : -1;
    g->step = -1;
    g->cls = (uint8_t)cls;
    g->kind = (uint8_t)kind;
    g->flags = flags;
    g->device = VP_GPU_DEVICE_NONE;   /* one device per Ascend trace: its rank's */
    g->aux = UINT32_MAX;
    return (long)w->n++;
}

long vp_gpuwork_observe(vp_gpuwork *w, const vp_event *ev)
{
    vp_gpu_kind kind = vp_gpu_kind_of(ev->cat);
    if (kind == VP_GPU_NONE && ev->ph == 'M') {
        vp_npu_tracks_observe(w->npu, ev);
        return -1;
    }
    if (kind == VP_GPU_NONE && ev->ph == 'X' && ev->cat.n == 0) {
        vp_npu_role role = vp_npu_role_of(w->npu, ev);
        if (role != VP_NPU_UNKNOWN && role != VP_NPU_OTHER)
            return observe_npu(w, ev, role);
    }
    if (kind == VP_GPU_NONE || ev->ph != 'X') {
        vp_steps_observe(w->steps, ev);
        if (kind == VP_GPU_NONE)
            observe_cpu_op(w, ev);
        return -1;
    }
    if (!ev->has_dur || !ev->has_ts) {
        w->no_dur++;
        return -1;
    }
    vp_span vals[4] = {{0}};
    if (ev->args.p)
        vp_json_get_keyset(ev->args, &gpu_set, vals);
    int64_t stream = span_int(vals[0], -2);
    if (stream == -2)
        stream = span_int(ev->tid, -1);
    if (kind == VP_GPU_SYNC && stream < 0) {
        w->no_stream++;
        return -1;
    }
    vp_gpu_ev *g = append(w);
    g->start = ev->ts;
    g->end = ev->ts + (ev->dur > 0 ? ev->dur : 0);
    g->corr = span_int(vals[1], -1);
    g->stream = stream >= INT32_MIN && stream <= INT32_MAX ? (int32_t)stream : -1;
    g->step = -1;
    int decided;
    g->cls = (uint8_t)class_of(w, kind, ev, &decided);
    g->kind = (uint8_t)kind;
    g->flags = 0;
    if (!decided && vals[3].p)   /* its args name a collective */
        g->cls = VP_CLASS_COMM;
    else if (!decided)
        g->flags = VP_GPU_F_UNDECIDED;
    g->device = device_of(vals[2], ev->pid);
    g->aux = UINT32_MAX;
    return (long)w->n++;
}

static void drop(vp_gpuwork *w, size_t i)
{
    if (!w->dropped)
        w->dropped = vp_calloc(w->n / 64 + 1, sizeof *w->dropped);
    w->dropped[i / 64] |= (uint64_t)1 << (i % 64);
}

static int cmp_window(const void *a, const void *b)
{
    const vp_thread_window *x = a, *y = b;
    if (x->tid != y->tid)
        return (x->tid > y->tid) - (x->tid < y->tid);
    return (x->start > y->start) - (x->start < y->start);
}

/* Sorts windows by thread and start and merges the ones that overlap on
 * a thread: a union per thread.  Returns how many are left. */
static size_t union_windows(vp_thread_window *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_window);
    size_t out = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].tid == v[out].tid && v[i].start <= v[out].end) {
            if (v[i].end > v[out].end)
                v[out].end = v[i].end;
        } else {
            v[++out] = v[i];
        }
    }
    return out + 1;
}

/* 1 when a window of thread tid holds ts (windows as union_windows left them). */
static int in_windows(const vp_thread_window *v, size_t n, uint32_t tid, int64_t ts)
{
    size_t lo = 0, hi = n;   /* the first window after (tid, ts) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].tid < tid || (v[mid].tid == tid && v[mid].start <= ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && v[lo - 1].tid == tid && ts < v[lo - 1].end;
}

/* The launching-op evidence: a kernel that nothing else made
 * communication is, when the call that launched it ran inside a
 * collective CPU op on its thread and not inside another op nested in
 * that collective. */
static void classify_by_launcher(vp_gpuwork *w)
{
    if (!w->ncoll)
        return;
    w->ncoll = union_windows(w->coll, w->ncoll);
    w->ninner = union_windows(w->inner, w->ninner);
    for (size_t i = 0; i < w->n; i++) {
        vp_gpu_ev *g = &w->ev[i];
        int64_t ts;
        uint32_t tid;
        if (!(g->flags & VP_GPU_F_UNDECIDED) || g->corr < 0 ||
            !vp_steps_launch_thread(w->steps, g->corr, &ts, &tid))
            continue;
        if (in_windows(w->coll, w->ncoll, tid, ts) && !in_windows(w->inner, w->ninner, tid, ts)) {
            g->cls = VP_CLASS_COMM;
            g->flags = (uint8_t)((g->flags & ~VP_GPU_F_UNDECIDED) | VP_GPU_F_BY_LAUNCHER);
            w->by_launcher++;
        }
    }
}

size_t vp_gpuwork_resolve(vp_gpuwork *w, const vp_step_range *range)
{
    classify_by_launcher(w);
    size_t nsteps = vp_steps_count(w->steps);
    size_t chosen = range ? vp_steps_select(w->steps, range) : nsteps;
    size_t out = 0;
    w->unlaunched = 0;
    free(w->dropped);
    w->dropped = NULL;
    for (size_t i = 0; i < w->n; i++) {
        vp_gpu_ev *g = &w->ev[i];
        int64_t ts;
        long step = -1;
        if ((g->flags & VP_GPU_F_NPU_TASK_COMM) && w->npu_ops) {
            drop(w, i);
            continue;
        }
        if (nsteps && (g->flags & VP_GPU_F_BY_TIME))
            step = vp_steps_at(w->steps, g->start);
        else if (nsteps && g->corr >= 0 && vp_steps_launch(w->steps, g->corr, &ts, NULL))
            step = vp_steps_at(w->steps, ts);
        g->step = (int32_t)step;
        if (step < 0)
            w->unlaunched++;
        if (range) {
            int64_t a, b;
            if (step < 0 || vp_steps_window(w->steps, (size_t)step, &a, &b) != 1) {
                drop(w, i);
                continue;
            }
        }
        w->ev[out++] = *g;
    }
    w->n = out;
    return chosen;
}

void vp_gpu_sets_init(vp_gpu_sets *s)
{
    vp_ivset_init(&s->comp);
    vp_ivset_init(&s->comm);
    vp_ivset_init(&s->mem);
    vp_ivset_init(&s->sync);
    vp_ivset_init(&s->hidden);
    s->have_hidden = 0;
}

void vp_gpu_sets_free(vp_gpu_sets *s)
{
    vp_ivset_free(&s->comp);
    vp_ivset_free(&s->comm);
    vp_ivset_free(&s->mem);
    vp_ivset_free(&s->sync);
    vp_ivset_free(&s->hidden);
}

/* |s[0] ∪ ... ∪ s[n-1]| of normalized sets, by a k-way merge on starts
 * with a running end. */
static int64_t union_measure(vp_ivset **s, int n)
{
    size_t pos[4] = {0};
    int64_t m = 0, cur_s = 0, cur_e = 0;
    int open = 0;
    for (int i = 0; i < n; i++)
        vp_ivset_normalize(s[i]);
    for (;;) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (pos[i] < s[i]->n &&
                (best < 0 || s[i]->v[pos[i]].start < s[best]->v[pos[best]].start))
                best = i;
        if (best < 0)
            break;
        const vp_ival *x = &s[best]->v[pos[best]++];
        if (open && x->start <= cur_e) {
            if (x->end > cur_e)
                cur_e = x->end;
        } else {
            if (open)
                m += cur_e - cur_s;
            cur_s = x->start;
            cur_e = x->end;
            open = 1;
        }
    }
    if (open)
        m += cur_e - cur_s;
    return m;
}

void vp_gpu_measure(vp_gpu_sets *s, const vp_gpu_ev *ev, const uint32_t *idx, size_t n,
                    vp_gpu_totals *t)
{
    memset(t, 0, sizeof *t);
    s->have_hidden = 0;
    vp_ivset_clear(&s->comp);
    vp_ivset_clear(&s->comm);
    vp_ivset_clear(&s->mem);
    vp_ivset_clear(&s->sync);
    for (size_t i = 0; i < n; i++) {
        const vp_gpu_ev *g = &ev[idx ? idx[i] : i];
        vp_ivset *dst;
        switch (g->cls) {
        case VP_CLASS_COMPUTE: dst = &s->comp; break;
        case VP_CLASS_COMM: dst = &s->comm; break;
        case VP_CLASS_MEMORY: dst = &s->mem; break;
        default: dst = &s->sync; break;
        }
        if (t->events == 0 || g->start < t->first)
            t->first = g->start;
        if (t->events == 0 || g->end > t->last)
            t->last = g->end;
        t->events++;
        t->kernels += g->kind == VP_GPU_KERNEL;
        vp_ivset_add(dst, g->start, g->end);
    }
    /* Unions of classes are measured by merging, never built: a trace of
     * a million kernels would need 16 MB per union. */
    vp_ivset *cc[2] = {&s->comp, &s->comm};
    vp_ivset *ccm[3] = {&s->comp, &s->comm, &s->mem};
    vp_ivset *every[4] = {&s->comp, &s->comm, &s->mem, &s->sync};
    int64_t m_cc = union_measure(cc, 2), m_ccm = union_measure(ccm, 3);
    t->span = t->last - t->first;
    t->busy = union_measure(every, 4);
    t->idle = t->span - t->busy;
    t->compute = vp_ivset_measure(&s->comp);
    t->comm = vp_ivset_measure(&s->comm);
    t->overlap = vp_ivset_intersect_measure(&s->comp, &s->comm);
    t->exposed = t->comm - t->overlap;
    t->memory = vp_ivset_measure(&s->mem);
    t->memory_exposed = m_ccm - m_cc;
    t->free = t->span - m_cc;
    t->non_compute = t->span - t->compute - t->idle;
}

void vp_gpu_class_times(vp_gpu_sets *s, int64_t t[8], unsigned *instants)
{
    /* One sweep over the three unions' edges: between two edge times the
     * combination is constant.  Unions are disjoint and non-adjacent, so
     * at one time a class either starts, ends or neither. */
    vp_ivset *set[3] = {&s->comp, &s->comm, &s->mem};
    size_t pos[3] = {0};
    unsigned live = 0, seen = 0;
    int64_t at = 0;
    memset(t, 0, 8 * sizeof *t);
    for (int k = 0; k < 3; k++)
        vp_ivset_normalize(set[k]);
    for (;;) {
        int64_t next = INT64_MAX;
        for (int k = 0; k < 3; k++) {
            if (pos[k] >= set[k]->n)
                continue;
            const vp_ival *x = &set[k]->v[pos[k]];
            int64_t e = live >> k & 1 ? x->end : x->start;
            if (e < next)
                next = e;
        }
        if (next == INT64_MAX)
            break;
        if (live)
            t[live] += next - at;
        unsigned starting = 0, ending = 0;
        for (int k = 0; k < 3; k++) {
            if (pos[k] >= set[k]->n)
                continue;
            const vp_ival *x = &set[k]->v[pos[k]];
            if (live >> k & 1 && x->end == next) {
                ending |= 1u << k;
                pos[k]++;
            } else if (!(live >> k & 1) && x->start == next) {
                starting |= 1u << k;
            }
        }
        /* A class ending as another starts: the combination of both holds
         * for no time. */
        if (starting && ending)
            seen |= 1u << (live | starting);
        live = (live & ~ending) | starting;
        at = next;
    }
    for (unsigned m = 1; m < 8; m++)
        if (t[m] > 0)
            seen &= ~(1u << m);
    *instants = seen & ~1u;
}

int64_t vp_gpu_exposed_in(vp_gpu_sets *s, int64_t start, int64_t end)
{
    if (!s->have_hidden) {
        vp_ivset_clear(&s->hidden);
        vp_ivset_intersect(&s->comp, &s->comm, &s->hidden);
        s->have_hidden = 1;
    }
    return vp_ivset_measure_in(&s->comm, start, end) - vp_ivset_measure_in(&s->hidden, start, end);
}

int64_t vp_gpu_step_exposed(vp_gpu_sets *s, vp_steps *st, int all, int64_t *wall,
                            size_t *nsteps)
{
    size_t n = vp_steps_count(st);
    int64_t exposed = 0;
    *wall = 0;
    *nsteps = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t a, b;
        if (vp_steps_window(st, i, &a, &b) == 1 || all) {
            *wall += b - a;
            exposed += vp_gpu_exposed_in(s, a, b);
            ++*nsteps;
        }
    }
    return exposed;
}

void vp_gpu_totals_put(vp_buf *b, const vp_gpu_totals *t)
{
    const int64_t v[] = {t->first, t->last, t->span, t->busy, t->idle, t->compute, t->comm,
                         t->overlap, t->exposed, t->memory, t->memory_exposed, t->free,
                         t->non_compute, (int64_t)t->events, (int64_t)t->kernels};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        vp_put_i64(b, v[k]);
}

void vp_gpu_totals_get(vp_rd *r, vp_gpu_totals *t)
{
    int64_t *v[] = {&t->first, &t->last, &t->span, &t->busy, &t->idle, &t->compute, &t->comm,
                    &t->overlap, &t->exposed, &t->memory, &t->memory_exposed, &t->free,
                    &t->non_compute};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        *v[k] = vp_get_i64(r);
    t->events = (uint64_t)vp_get_i64(r);
    t->kernels = (uint64_t)vp_get_i64(r);
}
