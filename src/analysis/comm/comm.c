/* Communication against computation (vprof/comm.h): collectives from
 * kernel and record_param_comms arguments, exposed time, bus bandwidth,
 * the spread over ranks and the straggler of each step. */
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_partial.h"
#include "vprof/classify.h"
#include "vprof/comm.h"
#include "vprof/json.h"

/* What a communication kernel (or its record_param_comms op) says. */
typedef struct coll_info {
    vp_coll type;
    int32_t pg;        /* interned process group name, -1: none */
    int64_t bytes;     /* -1: unknown */
    int64_t group;     /* group size, -1: unknown */
    size_t at;         /* a kernel's: its index in the GPU work when comm saw it (the
                        * event's aux is its reader's: comm may ride on another's pass) */
} coll_info;

/* A record_param_comms CPU op: its window and what it says. */
typedef struct rpc {
    int64_t start, end;
    coll_info info;
} rpc;

/* The records of the trace being read. */
typedef struct file_colls {
    coll_info *ci;     /* the communication kernels', in the order they came */
    size_t cap_ci;
    rpc *rpcs;
    size_t cap_rpc;
} file_colls;

void vp_comm_init(vp_comm *c)
{
    memset(c, 0, sizeof *c);
    c->pgs = vp_strmap_new();
    c->file = vp_calloc(1, sizeof(file_colls));
}

void vp_comm_free(vp_comm *c)
{
    for (size_t i = 0; i < c->nranks; i++) {
        free(c->ranks[i].sc);
        free(c->ranks[i].path);
    }
    free(c->ranks);
    vp_stt_free(&c->stt);
    vp_hccl_free(&c->hccl);
    free(c->groups);
    file_colls *f = c->file;
    if (f) {
        free(f->ci);
        free(f->rpcs);
        free(f);
    }
    vp_strmap_free(c->pgs);
    vp_origins_free(&c->origins);
    memset(c, 0, sizeof *c);
}

vp_comm_rank *vp_comm_new_rank(vp_comm *c)
{
    if (c->nranks == c->cap_ranks) {
        c->cap_ranks = c->cap_ranks ? c->cap_ranks * 2 : 8;
        c->ranks = vp_realloc(c->ranks, c->cap_ranks * sizeof *c->ranks);
    }
    vp_comm_rank *r = &c->ranks[c->nranks++];
    memset(r, 0, sizeof *r);
    return r;
}

static int64_t span_int(vp_span v, int64_t fallback)
{
    int64_t x;
    return v.p && vp_json_int(v, &x) == 0 ? x : fallback;
}

static int32_t intern(vp_comm *c, const char *s, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(c->pgs, s, n, &inserted);
    if (inserted)
        *slot = (void *)(uintptr_t)vp_strmap_count(c->pgs);
    return (int32_t)((uintptr_t)*slot - 1);
}

/* The args asked of collectives, prepared once: c10d's (Kineto copies
 * them onto NCCL kernels and record_param_comms ops) and HCCL's. */
VP_JSON_KEYSET(coll_set, "Collective name", "In msg nelems", "Out msg nelems", "dtype", "Group size",
               "Process Group Name", "Process Group Ranks")
VP_JSON_KEYSET(hccl_set, "count", "data_type", "rank_size")

/* Reads the c10d arguments of a collective.  Returns 1 when any was
 * there. */
static int parse_coll_args(vp_comm *c, vp_span args, coll_info *ci)
{
    vp_span v[7] = {{0}};
    if (!args.p || vp_json_get_keyset(args, &coll_set, v) == 0)
        return 0;
    int any = 0;
    if (v[0].p && vp_json_is_string(v[0])) {
        vp_coll t = vp_coll_from_arg(v[0].p + 1, v[0].n - 2);
        if (t != VP_COLL_UNKNOWN)
            ci->type = t;
        any = 1;
    }
    int64_t in = span_int(v[1], -1), out = span_int(v[2], -1);
    int size = v[3].p && vp_json_is_string(v[3]) ? vp_dtype_size(v[3].p + 1, v[3].n - 2) : 0;
    int64_t n = in > out ? in : out;
    if (n >= 0 && size > 0) {
        ci->bytes = n * size;
        any = 1;
    }
    int64_t g = span_int(v[4], -1);
    if (g < 1 && v[6].p && vp_json_is_string(v[6]) && v[6].n > 4) {
        /* "[0, 1, 2]": count the elements. */
        g = 1;
        for (size_t i = 1; i + 1 < v[6].n; i++)
            g += v[6].p[i] == ',';
    }
    if (g >= 1) {
        ci->group = g;
        any = 1;
    }
    if (v[5].p && vp_json_is_string(v[5])) {
        ci->pg = intern(c, v[5].p + 1, v[5].n - 2);
        any = 1;
    }
    return any;
}

/* Bytes per element of an HCCL data type (FP16, BF16, FP32, INT8 ...). */
static int hccl_dtype_size(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int size;
    } map[] = {{"INT8", 1},  {"UINT8", 1},  {"FP16", 2},   {"BFP16", 2},  {"BF16", 2},
               {"INT16", 2}, {"UINT16", 2}, {"FP32", 4},   {"INT32", 4},  {"UINT32", 4},
               {"FP64", 8},  {"INT64", 8},  {"UINT64", 8}, {"INT128", 16}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strlen(map[i].name) == n && memcmp(map[i].name, s, n) == 0)
            return map[i].size;
    return 0;
}

/* An HCCL operation of an Ascend trace's Communication process: count,
 * data_type, rank_size.  HCCL's count is per rank: all-gather and
 * reduce-scatter buffers are count x ranks (nccl-tests' S). */
static void parse_hccl_args(vp_span args, coll_info *ci)
{
    vp_span v[3] = {{0}};
    if (!args.p || vp_json_get_keyset(args, &hccl_set, v) == 0)
        return;
    int64_t count = span_int(v[0], -1), ranks = span_int(v[2], -1);
    int size = vp_json_is_string(v[1]) ? hccl_dtype_size(v[1].p + 1, v[1].n - 2) : 0;
    if (ranks >= 1)
        ci->group = ranks;
    if (count >= 0 && size > 0) {
        ci->bytes = count * size;
        if ((ci->type == VP_COLL_ALLGATHER || ci->type == VP_COLL_REDUCESCATTER) && ranks >= 1)
            ci->bytes *= ranks;
    }
}

/* Apart from vp_comm_observe, which every event of a trace goes through
 * and which then needs no stack frame: a communication kernel's record,
 * and a record_param_comms call's. */
static __attribute__((noinline)) void observe_kernel(vp_comm *c, const vp_gpu_ev *g,
                                                     long gpu_index, const vp_event *ev)
{
    file_colls *f = c->file;
    if (c->file_colls == f->cap_ci) {
        f->cap_ci = f->cap_ci ? f->cap_ci * 2 : 256;
        f->ci = vp_realloc(f->ci, f->cap_ci * sizeof *f->ci);
    }
    coll_info *ci = &f->ci[c->file_colls];
    *ci = (coll_info){vp_coll_from_kernel(ev->name.p, ev->name.n), -1, -1, -1,
                      (size_t)gpu_index};
    if (g->flags & VP_GPU_F_BY_TIME)
        parse_hccl_args(ev->args, ci);
    else
        parse_coll_args(c, ev->args, ci);
    c->file_colls++;
}

static __attribute__((noinline)) void observe_rpc(vp_comm *c, const vp_event *ev)
{
    file_colls *f = c->file;
    coll_info ci = {VP_COLL_UNKNOWN, -1, -1, -1, 0};
    if (!parse_coll_args(c, ev->args, &ci))
        return;
    if (c->file_rpcs == f->cap_rpc) {
        f->cap_rpc = f->cap_rpc ? f->cap_rpc * 2 : 256;
        f->rpcs = vp_realloc(f->rpcs, f->cap_rpc * sizeof *f->rpcs);
    }
    f->rpcs[c->file_rpcs++] = (rpc){ev->ts, ev->ts + (ev->has_dur ? ev->dur : 0), ci};
}

void vp_comm_observe(void *ctx, vp_gpuwork *w, long gpu_index, const vp_event *ev)
{
    vp_comm *c = ctx;
    if (gpu_index >= 0) {
        const vp_gpu_ev *g = &w->ev[gpu_index];
        /* a kernel no rule decided may be made communication by its
         * launching op at the end (vprof/gpuwork.h): noted when the trace
         * gave a collective op before it, as Kineto writes the ops before
         * the GPU work; next_coll skips the ones that stay compute */
        if (g->cls == VP_CLASS_COMM || ((g->flags & VP_GPU_F_UNDECIDED) && w->ncoll))
            observe_kernel(c, g, gpu_index, ev);
        return;
    }
    if (ev->ph == 'X' && ev->has_ts && ev->name.n == 18 &&
        memcmp(ev->name.p, "record_param_comms", 18) == 0)
        observe_rpc(c, ev);
}

/* The next communication kernel's record and its event after
 * vp_gpuwork_resolve, which keeps the events' order and says which it
 * dropped; NULL after the last.  k: the next record; post: the index
 * after resolve of the event that was at pre. */
typedef struct coll_walk {
    size_t k;
    vp_gpu_remap map;
} coll_walk;

static vp_gpu_ev *next_coll(const vp_comm *c, vp_gpuwork *w, coll_walk *it, coll_info **ci)
{
    const file_colls *f = c->file;
    while (it->k < c->file_colls) {
        *ci = &f->ci[it->k++];
        long at = vp_gpuwork_index_after(w, &it->map, (*ci)->at);
        if (at >= 0 && w->ev[at].cls == VP_CLASS_COMM)
            return &w->ev[at];
    }
    return NULL;
}

static int cmp_rpc(const void *a, const void *b)
{
    const rpc *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Fills what a kernel's own args lack from the record_param_comms op whose
 * window holds the kernel's launch call (the innermost when nested). */
static void join_rpc(vp_comm *c, vp_gpuwork *w)
{
    file_colls *f = c->file;
    size_t nrpc = c->file_rpcs;
    if (!nrpc)
        return;
    qsort(f->rpcs, nrpc, sizeof *f->rpcs, cmp_rpc);
    coll_walk it = {0};
    coll_info *ci;
    for (vp_gpu_ev *g; (g = next_coll(c, w, &it, &ci));) {
        int64_t ts;
        if (ci->bytes >= 0 && ci->group >= 1 && ci->type != VP_COLL_UNKNOWN)
            continue;
        if (g->corr < 0 || !vp_steps_launch(w->steps, g->corr, &ts, NULL))
            continue;
        size_t lo = 0, hi = nrpc;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (f->rpcs[mid].start <= ts)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k-- > 0 && lo - k <= 8;) {
            const rpc *r = &f->rpcs[k];
            if (ts < r->end) {
                if (ci->type == VP_COLL_UNKNOWN || r->info.type == VP_COLL_ALLTOALL)
                    ci->type = r->info.type;
                if (ci->bytes < 0)
                    ci->bytes = r->info.bytes;
                if (ci->group < 1)
                    ci->group = r->info.group;
                if (ci->pg < 0)
                    ci->pg = r->info.pg;
                break;
            }
        }
    }
}

static vp_comm_group *group_of(vp_comm *c, vp_coll type, int32_t pg, int64_t group,
                               int32_t stream)
{
    for (size_t i = 0; i < c->ngroups; i++) {
        vp_comm_group *g = &c->groups[i];
        if (g->type == type && g->pg == pg && g->group == group && g->stream == stream)
            return g;
    }
    if (c->ngroups == c->cap_groups) {
        c->cap_groups = c->cap_groups ? c->cap_groups * 2 : 16;
        c->groups = vp_realloc(c->groups, c->cap_groups * sizeof *c->groups);
    }
    vp_comm_group *g = &c->groups[c->ngroups++];
    memset(g, 0, sizeof *g);
    g->type = type;
    g->pg = pg;
    g->group = group;
    g->stream = stream;
    return g;
}

void vp_comm_add_rank(vp_comm *c, vp_gpuwork *w, vp_comm_rank *rr, int selected_only)
{
    join_rpc(c, w);
    vp_gpu_sets sets;
    vp_gpu_sets_init(&sets);
    vp_gpu_measure(&sets, w->ev, NULL, w->n, &rr->t);
    vp_gpu_class_times(&sets, rr->class_time, &rr->class_instants);
    rr->gpu_events = w->n;

    /* Step time: the selected steps' windows, and the exposed time inside
     * them; else the GPU span and all the exposed time. */
    rr->step_exposed = vp_gpu_step_exposed(&sets, w->steps, !selected_only, &rr->step_time,
                                           &rr->nsteps);
    if (!rr->nsteps) {
        rr->step_time = rr->t.span;
        rr->step_exposed = rr->t.exposed;
    }

    coll_walk it = {0};
    coll_info *ci;
    for (const vp_gpu_ev *g; (g = next_coll(c, w, &it, &ci));) {
        vp_comm_group *cg = group_of(c, ci->type, ci->pg, ci->group, g->stream);
        int64_t dur = g->end - g->start;
        int64_t hidden = vp_ivset_measure_in(&sets.comp, g->start, g->end);
        cg->count++;
        cg->total += dur;
        cg->exposed += dur - hidden;
        if (ci->bytes >= 0) {
            cg->sized_bytes += ci->bytes;
            cg->sized_time += dur;
            cg->sized_count++;
        }
        if (g->step >= 0) {
            if (rr->nsc == rr->cap_sc) {
                rr->cap_sc = rr->cap_sc ? rr->cap_sc * 2 : 64;
                rr->sc = vp_realloc(rr->sc, rr->cap_sc * sizeof *rr->sc);
            }
            rr->sc[rr->nsc++] = (vp_comm_step_coll){vp_steps_number(w->steps, (size_t)g->step),
                                                    g->start, dur};
        }
    }
    vp_gpu_sets_free(&sets);
    c->file_colls = c->file_rpcs = 0;
}

/* The payload (docs/partials.md, "comm"): per rank its totals and the
 * communication kernels of each step, the process group names in the
 * order they were first seen (the collectives table sorts on it), and the
 * groups in the order they were first seen; the step_trace_time rows
 * (computed from Ascend traces, or read from step_trace_time.csv, cluster
 * files and DBs) with their parallel groups; communication.json's
 * operations and communication_matrix.json's links (version 2); each rank's
 * exposed time inside its steps and its world size (version 3); each
 * rank's time per combination of classes (version 4); where and when each
 * trace was recorded (version 5, vprof/origin.h). */
void vp_comm_save(const vp_comm *c, vp_buf *b)
{
    vp_put_u64(b, c->nranks);
    for (size_t i = 0; i < c->nranks; i++) {
        const vp_comm_rank *r = &c->ranks[i];
        vp_put_i64(b, r->rank);
        vp_put_str(b, r->path, strlen(r->path));
        vp_gpu_totals_put(b, &r->t);
        vp_put_i64(b, r->step_time);
        vp_put_i64(b, r->step_exposed);
        vp_put_i64(b, (int64_t)r->nsteps);
        vp_put_i64(b, (int64_t)r->gpu_events);
        vp_put_i64(b, r->world);
        for (int m = 1; m < 8; m++)
            vp_put_i64(b, r->class_time[m]);
        vp_put_u64(b, r->class_instants);
        vp_put_u64(b, r->nsc);
        for (size_t k = 0; k < r->nsc; k++) {
            vp_put_i64(b, r->sc[k].step);
            vp_put_i64(b, r->sc[k].start);
            vp_put_i64(b, r->sc[k].dur);
        }
    }
    size_t npg = vp_strmap_count(c->pgs);
    vp_put_u64(b, npg);
    for (size_t i = 0; i < npg; i++) {
        size_t len;
        const char *k = vp_strmap_key(c->pgs, i, &len);
        vp_put_str(b, k, len);
    }
    vp_put_u64(b, c->ngroups);
    for (size_t i = 0; i < c->ngroups; i++) {
        const vp_comm_group *g = &c->groups[i];
        vp_put_u64(b, (uint64_t)g->type);
        vp_put_i64(b, g->pg);
        vp_put_i64(b, g->group);
        vp_put_i64(b, g->stream);
        const int64_t v[] = {g->count, g->total, g->exposed, g->sized_bytes, g->sized_time,
                             g->sized_count};
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            vp_put_i64(b, v[k]);
    }
    vp_stt_save(&c->stt, c->stt_source, b);
    vp_hccl_save(&c->hccl, c->have_comm_json, c->have_matrix, b);
    vp_origins_save(&c->origins, b);
}

/* A damaged partial's sums may overflow: they wrap, never undefined. */
static void add_to(int64_t *x, int64_t v)
{
    *x = (int64_t)((uint64_t)*x + (uint64_t)v);
}

int vp_comm_merge(vp_comm *c, const void *p, size_t n, vp_error *err)
{
    vp_rd r;
    vp_rd_init(&r, p, n);
    size_t nr = vp_get_count(&r, 20);
    for (size_t i = 0; i < nr && !r.bad; i++) {
        vp_comm_rank *rr = vp_comm_new_rank(c);
        rr->rank = (long)vp_get_i64(&r);
        size_t len;
        const char *path = vp_get_cstr(&r, &len);
        rr->path = vp_strndup(path ? path : "", len);
        vp_gpu_totals_get(&r, &rr->t);
        rr->step_time = vp_get_i64(&r);
        rr->step_exposed = vp_get_i64(&r);
        rr->nsteps = (size_t)vp_get_i64(&r);
        rr->gpu_events = (uint64_t)vp_get_i64(&r);
        rr->world = (long)vp_get_i64(&r);
        for (int m = 1; m < 8; m++)
            rr->class_time[m] = vp_get_i64(&r);
        rr->class_instants = (unsigned)vp_get_u64(&r) & 0xfe;
        size_t nsc = vp_get_count(&r, 3);
        rr->sc = vp_malloc((nsc ? nsc : 1) * sizeof *rr->sc);
        rr->nsc = rr->cap_sc = nsc;
        for (size_t k = 0; k < nsc; k++) {
            rr->sc[k].step = (long)vp_get_i64(&r);
            rr->sc[k].start = vp_get_i64(&r);
            rr->sc[k].dur = vp_get_i64(&r);
        }
    }
    size_t npg = vp_get_count(&r, 1);
    int32_t *pgmap = vp_malloc((npg ? npg : 1) * sizeof *pgmap);
    for (size_t i = 0; i < npg; i++) {
        size_t len;
        const char *k = vp_get_cstr(&r, &len);
        pgmap[i] = intern(c, k ? k : "", len);
    }
    size_t ng = vp_get_count(&r, 10);
    for (size_t i = 0; i < ng && !r.bad; i++) {
        uint64_t type = vp_get_u64(&r);
        int64_t pg = vp_get_i64(&r);
        int64_t group = vp_get_i64(&r);
        int32_t stream = (int32_t)vp_get_i64(&r);
        if (pg >= (int64_t)npg || pg < -1) {
            r.bad = 1;
            break;
        }
        vp_comm_group *g = group_of(c, (vp_coll)type, pg >= 0 ? pgmap[pg] : -1, group, stream);
        int64_t *sums[] = {&g->count, &g->total, &g->exposed, &g->sized_bytes, &g->sized_time,
                           &g->sized_count};
        for (size_t k = 0; k < sizeof sums / sizeof *sums; k++)
            add_to(sums[k], vp_get_i64(&r));
    }
    free(pgmap);
    if (!r.bad)
        vp_stt_merge(&c->stt, &c->stt_source, &r);
    if (!r.bad)
        vp_hccl_merge(&c->hccl, &c->have_comm_json, &c->have_matrix, &r);
    if (!r.bad)
        vp_origins_merge(&c->origins, &r);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged comm partial result");
        return -1;
    }
    return 0;
}

static int cmp_group(const void *a, const void *b)
{
    const vp_comm_group *x = a, *y = b;
    if (x->total != y->total)
        return (y->total > x->total) - (y->total < x->total);
    if (x->type != y->type)
        return (x->type > y->type) - (x->type < y->type);
    if (x->pg != y->pg)
        return (x->pg > y->pg) - (x->pg < y->pg);
    if (x->group != y->group)
        return (x->group > y->group) - (x->group < y->group);
    return (x->stream > y->stream) - (x->stream < y->stream);
}

void vp_comm_sort_groups(vp_comm *c)
{
    if (c->ngroups)
        qsort(c->groups, c->ngroups, sizeof *c->groups, cmp_group);
}

int vp_comm_bandwidth(const vp_comm_group *g, double *algbw, double *busbw)
{
    if (!g->sized_count || g->sized_time <= 0)
        return 0;
    *algbw = (double)g->sized_bytes / (double)g->sized_time; /* B/ns = GB/s */
    double f = vp_coll_bus_factor(g->type, g->group);
    if (f < 0)
        return 1;
    *busbw = *algbw * f;
    return 2;
}

int64_t vp_comm_metric(const vp_gpu_totals *x, int m)
{
    int64_t vals[VP_COMM_METRICS] = {x->span, x->compute, x->comm, x->overlap,
                                     x->exposed, x->free, x->idle};
    return vals[m];
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void vp_comm_spread_of(const vp_comm *c, int m, vp_comm_spread *out)
{
    size_t n = c->nranks, lo = 0, hi = 0;
    int64_t *v = vp_malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        v[i] = vp_comm_metric(&c->ranks[i].t, m);
        if (v[i] < vp_comm_metric(&c->ranks[lo].t, m))
            lo = i;
        if (v[i] > vp_comm_metric(&c->ranks[hi].t, m))
            hi = i;
    }
    qsort(v, n, sizeof *v, cmp_i64);
    out->min = v[0];
    out->max = v[n - 1];
    out->median = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
    out->min_rank = lo;
    out->max_rank = hi;
    free(v);
}

static int cmp_sc(const void *a, const void *b)
{
    const vp_comm_step_coll *x = a, *y = b;
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    return (x->start > y->start) - (x->start < y->start);
}

/* The straggler rows, and each rank's wait summed over them (total, when
 * not NULL: nranks of them, zeroed here). */
static size_t straggler_walk(vp_comm *c, vp_comm_straggler **rows, size_t *uneven,
                             int64_t *total)
{
    size_t n = c->nranks, nrows = 0, cap = 0;
    vp_comm_straggler *out = NULL;
    size_t *pos = vp_calloc(n ? n : 1, sizeof *pos);
    size_t *ends = vp_calloc(n ? n : 1, sizeof *ends);
    int64_t *wait = vp_calloc(n ? n : 1, sizeof *wait);
    for (size_t i = 0; i < n; i++)
        if (c->ranks[i].nsc)
            qsort(c->ranks[i].sc, c->ranks[i].nsc, sizeof *c->ranks[i].sc, cmp_sc);
    *uneven = 0;
    if (total)
        memset(total, 0, n * sizeof *total);
    while (n) {
        /* The next step present on every rank. */
        long step = -1;
        int done = 0;
        for (size_t i = 0; i < n; i++) {
            vp_comm_rank *r = &c->ranks[i];
            if (pos[i] >= r->nsc) {
                done = 1;
                break;
            }
            if (r->sc[pos[i]].step > step)
                step = r->sc[pos[i]].step;
        }
        if (done)
            break;
        size_t cnt = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            vp_comm_rank *r = &c->ranks[i];
            while (pos[i] < r->nsc && r->sc[pos[i]].step < step)
                pos[i]++;
            size_t e = pos[i];
            while (e < r->nsc && r->sc[e].step == step)
                e++;
            ends[i] = e;
            if (e - pos[i] < cnt)
                cnt = e - pos[i];
        }
        int all_same = 1;
        for (size_t i = 0; i < n; i++)
            all_same &= ends[i] - pos[i] == cnt;
        if (!all_same)
            ++*uneven;
        if (cnt > 0) {
            memset(wait, 0, n * sizeof *wait);
            for (size_t k = 0; k < cnt; k++) {
                int64_t mn = INT64_MAX;
                for (size_t i = 0; i < n; i++)
                    if (c->ranks[i].sc[pos[i] + k].dur < mn)
                        mn = c->ranks[i].sc[pos[i] + k].dur;
                for (size_t i = 0; i < n; i++)
                    wait[i] += c->ranks[i].sc[pos[i] + k].dur - mn;
            }
            size_t s = 0, wmax = 0;
            for (size_t i = 1; i < n; i++) {
                if (wait[i] < wait[s] || (wait[i] == wait[s] && c->ranks[i].rank < c->ranks[s].rank))
                    s = i;
                if (wait[i] > wait[wmax] ||
                    (wait[i] == wait[wmax] && c->ranks[i].rank < c->ranks[wmax].rank))
                    wmax = i;
            }
            if (nrows == cap) {
                cap = cap ? cap * 2 : 16;
                out = vp_realloc(out, cap * sizeof *out);
            }
            out[nrows++] = (vp_comm_straggler){step, cnt, s, wmax, wait[s], wait[wmax]};
            for (size_t i = 0; total && i < n; i++)
                total[i] += wait[i];
        }
        for (size_t i = 0; i < n; i++)
            pos[i] = ends[i];
    }
    free(pos);
    free(ends);
    free(wait);
    *rows = out;
    return nrows;
}

size_t vp_comm_stragglers(vp_comm *c, vp_comm_straggler **rows, size_t *uneven)
{
    return straggler_walk(c, rows, uneven, NULL);
}

int vp_comm_slowest_rank(vp_comm *c, vp_comm_slowest *out)
{
    size_t n = c->nranks, uneven;
    int64_t *total = vp_calloc(n ? n : 1, sizeof *total);
    vp_comm_straggler *rows;
    size_t nrows = straggler_walk(c, &rows, &uneven, total);
    free(rows);
    memset(out, 0, sizeof *out);
    out->steps = nrows;
    for (size_t i = 1; nrows && i < n; i++) {
        long ri = c->ranks[i].rank;
        if (total[i] < total[out->rank] ||
            (total[i] == total[out->rank] && ri < c->ranks[out->rank].rank))
            out->rank = i;
        if (total[i] > total[out->waiter] ||
            (total[i] == total[out->waiter] && ri < c->ranks[out->waiter].rank))
            out->waiter = i;
    }
    if (nrows) {
        out->wait = total[out->rank];
        out->max_wait = total[out->waiter];
    }
    free(total);
    return nrows > 0;
}

int vp_comm_read_hccl(vp_comm *c, const char *path, int matrix, long rank, vp_error *err)
{
    if (matrix) {
        c->have_matrix = 1;
        return vp_hccl_read_matrix(path, &c->hccl, err);
    }
    size_t first = c->hccl.nops;
    int rc = vp_hccl_read_comm(path, &c->hccl, err);
    for (size_t i = first; i < c->hccl.nops; i++)
        if (c->hccl.ops[i].rank < 0)
            c->hccl.ops[i].rank = rank;
    c->have_comm_json = 1;
    return rc;
}

vp_comm_rank *vp_comm_add_file(vp_comm *c, vp_gpuwork *w, const char *path, long rank, long world,
                               int selected_only)
{
    vp_comm_rank *r = vp_comm_new_rank(c);
    r->path = vp_strdup(path);
    r->rank = rank;
    r->world = world;
    vp_comm_add_rank(c, w, r, selected_only);
    return r;
}
