/* The run as vprof report shows it (vprof/report_run.h): one reading of
 * each trace, the run metrics' own, with steps, comm, kernels and memory
 * riding on it. */
#include <stdlib.h>
#include <string.h>

#include "vprof/rank.h"
#include "vprof/ascend_files.h"
#include "vprof/gpupass.h"
#include "vprof/part.h"
#include "vprof/report_run.h"
#include "runstats_int.h"

void vp_report_run_init(vp_report_run *r, const vp_run_opts *o)
{
    memset(r, 0, sizeof *r);
    if (o)
        r->o = *o;
    r->run = vp_run_new();
    vp_breakdown_init(&r->b);
    vp_comm_init(&r->m);
    vp_kernels_opts ko = {
        .kinds = 1u << VP_GPU_KERNEL | 1u << VP_GPU_MEMCPY | 1u << VP_GPU_MEMSET |
                 1u << VP_GPU_SYNC,
        .dims = VP_KDIM_RANK | VP_KDIM_CLASS,
        .steps = r->o.steps_given ? &r->o.steps : NULL,
        .partial = r->o.partial,
        .totals_only = 1,
    };
    vp_kernels_init(&r->classes, &ko);
    vp_kernels_opts oo = {
        .kinds = ko.kinds,
        .dims = VP_KDIM_TYPE | VP_KDIM_CORE,
        .steps = ko.steps,
        .partial = r->o.partial,
    };
    vp_kernels_init(&r->ops, &oo);
}

void vp_report_run_free(vp_report_run *r)
{
    vp_run_free(r->run);
    vp_breakdown_free(&r->b);
    vp_comm_free(&r->m);
    vp_kernels_free(&r->classes);
    vp_kernels_free(&r->ops);
    vp_memevents_free(r->timeline);
    vp_report_run_free_ascmem(r);
}

/* One file's riders: each keeps its own map of the events it numbers
 * (the aux of a GPU event is the reader's). */
typedef struct riding {
    vp_report_run *r;
    const char *path;
    vp_kernels_trace kt;
} riding;

static void ride_begin(void *ctx, const vp_gpu_pass *p, const char *path)
{
    riding *g = ctx;
    g->path = path;
    vp_kernels_trace_begin(&g->kt, &g->r->classes, path, &p->pass);
}

static void ride_observe(void *ctx, vp_gpuwork *w, long gi, const vp_event *ev)
{
    riding *g = ctx;
    vp_breakdown_observe(&g->r->b, w, gi, ev);
    vp_comm_observe(&g->r->m, w, gi, ev);
    vp_kernels_trace_observe_gpu(&g->kt, ev, w, gi);
}

static void ride_done(void *ctx, vp_gpu_pass *p)
{
    riding *g = ctx;
    vp_report_run *r = g->r;
    int sel = r->o.steps_given;
    long world = vp_rank_world_size(vp_trace_meta(p->pass.trace));
    vp_breakdown_add_steps(&r->b, &p->w, p->pass.rank, sel);
    vp_breakdown_add_world(&r->b, &p->w, world);
    vp_comm_add_file(&r->m, &p->w, g->path, p->pass.rank, world, sel);
    vp_kernels_trace_end(&g->kt, &p->w);
}

/* The first input's [memory] events are the run's own, given points to
 * keep: one reading of each event's args gives both the run's peaks
 * (summary's memory table) and the timeline, so the two agree. */
int vp_report_run_read(vp_report_run *r, const char *input, size_t i, vp_error *err)
{
    int ascend = strcmp(input, "-") != 0 &&
                 (vp_asc_is_dir(input) || vp_asc_sniff(input) == VP_ASC_DB);
    int rc;
    if (ascend && vp_asc_is_dir(input)) {
        rc = vp_report_run_read_ascend(r, input, err);
    } else if (ascend) {
        rc = vp_run_add_file(r->run, input, (long)i, &r->o, err);
    } else {
        riding g = {.r = r};
        vp_gpu_pass_rider rider = {ride_begin, ride_observe, ride_done, &g};
        const vp_gpu_pass_rider *was = vp_gpu_pass_ride(&rider);
        vp_memevents *mem = i == 0 ? vp_memevents_new(VP_MEM_POINTS_CHART) : NULL;
        rc = vp_run_add_trace(r->run, input, (long)i, -1, &r->o, mem, err);
        vp_gpu_pass_ride(was);
        if (rc == 0 && mem && mem->events && !r->timeline) {
            r->timeline = mem;
            mem = NULL;
        }
        vp_memevents_free(mem);
    }
    if (rc == 0)
        return VP_EXIT_OK;
    if (!err->status)
        err->status = VP_EXIT_INPUT;
    return err->status;
}

/* ---- partials: each model's own, then the timeline's points ---- */

static void put_part(vp_buf *out, const vp_buf *part)
{
    vp_put_str(out, part->data ? part->data : "", part->len);
}

void vp_report_run_save(const vp_report_run *r, vp_buf *out)
{
    vp_buf p[5] = {{0}};
    vp_run_save(r->run, &p[0]);
    vp_breakdown_save(&r->b, &p[1]);
    vp_comm_save(&r->m, &p[2]);
    vp_kernels_save(&r->classes, &p[3]);
    vp_kernels_save(&r->ops, &p[4]);
    for (int k = 0; k < 5; k++) {
        put_part(out, &p[k]);
        vp_buf_free(&p[k]);
    }
    vp_report_run_save_ascmem(r, out);
    const vp_memevents *t = r->timeline;
    vp_put_u64(out, t != NULL);
    if (!t)
        return;
    vp_buf tp = {0};
    vp_memevents_save(t, &tp);
    put_part(out, &tp);
    vp_buf_free(&tp);
    vp_put_u64(out, t->ndevices);
    for (size_t d = 0; d < t->ndevices; d++) {
        const vp_mem_device *dv = &t->devices[d];
        vp_put_i64(out, dv->type);
        vp_put_i64(out, dv->id);
        vp_put_u64(out, dv->npoints);
        for (size_t k = 0; k < dv->npoints; k++) {
            const vp_mem_point *q = &dv->points[k];
            vp_put_i64(out, q->ts);
            vp_put_i64(out, q->bytes);
            vp_put_i64(out, q->allocated);
            vp_put_i64(out, q->reserved);
            vp_put_i64(out, q->order);
        }
    }
}

static int damaged(vp_error *err)
{
    vp_error_set(err, VP_EXIT_INPUT, "damaged report partial");
    return -1;
}

/* The points of a timeline partial, given to the devices its memevents
 * partial made. */
static int merge_points(vp_memevents *t, vp_rd *rd)
{
    size_t nd = vp_get_count(rd, 3);
    for (size_t d = 0; d < nd && !rd->bad; d++) {
        int type = (int)vp_get_i64(rd), id = (int)vp_get_i64(rd);
        size_t np = vp_get_count(rd, 5);
        vp_mem_device *dv = NULL;
        for (size_t k = 0; k < t->ndevices; k++)
            if (t->devices[k].type == type && t->devices[k].id == id)
                dv = &t->devices[k];
        if (!dv || dv->npoints)
            return -1;
        dv->points = vp_malloc((np ? np : 1) * sizeof *dv->points);
        dv->cap = np;
        for (size_t k = 0; k < np; k++) {
            vp_mem_point *q = &dv->points[dv->npoints++];
            q->ts = vp_get_i64(rd);
            q->bytes = vp_get_i64(rd);
            q->allocated = vp_get_i64(rd);
            q->reserved = vp_get_i64(rd);
            q->order = vp_get_i64(rd);
        }
    }
    return rd->bad ? -1 : 0;
}

int vp_report_run_merge(vp_report_run *r, const void *p, size_t n, vp_error *err)
{
    vp_rd rd;
    vp_rd_init(&rd, p, n);
    const char *s[5];
    size_t len[5];
    for (int k = 0; k < 5; k++)
        s[k] = vp_get_str(&rd, &len[k]);
    if (rd.bad)
        return damaged(err);
    if (vp_run_merge(r->run, s[0], len[0], err) != 0 ||
        vp_breakdown_merge(&r->b, s[1], len[1], err) != 0 ||
        vp_comm_merge(&r->m, s[2], len[2], err) != 0 ||
        vp_kernels_merge(&r->classes, s[3], len[3], err) != 0 ||
        vp_kernels_merge(&r->ops, s[4], len[4], err) != 0)
        return -1;
    if (vp_report_run_merge_ascmem(r, &rd) != 0)
        return damaged(err);
    uint64_t has = vp_get_u64(&rd);
    if (!has)
        return vp_rd_done(&rd) ? 0 : damaged(err);
    size_t tl;
    const char *ts = vp_get_str(&rd, &tl);
    vp_memevents *t = vp_memevents_new(VP_MEM_POINTS_CHART);
    if (rd.bad || vp_memevents_merge(t, ts, tl, err) != 0 || merge_points(t, &rd) != 0 ||
        !vp_rd_done(&rd)) {
        vp_memevents_free(t);
        return err->msg[0] ? -1 : damaged(err);
    }
    if (r->timeline)   /* an earlier input's comes first */
        vp_memevents_free(t);
    else
        r->timeline = t;
    return 0;
}

void vp_report_run_finish(vp_report_run *r)
{
    vp_run_finish(r->run);
    vp_kernels_finish(&r->classes, VP_KSORT_NAME);
    vp_kernels_finish(&r->ops, VP_KSORT_TOTAL);
    if (r->timeline)
        vp_memevents_finish(r->timeline);
}
