/* kernel_details.csv's tasks as device work (vprof/ascend_csvwork.h). */
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_csvwork.h"
#include "vprof/ascend_summaries.h"
#include "vprof/npu_task.h"
#include "vprof/util.h"

void vp_asc_csv_work_take(void *ctx, const vp_asc_kernel *k)
{
    vp_asc_csv_work *c = ctx;
    vp_gpuwork *w = &c->w;
    if (k->start < 0) {
        c->no_start++;
        return;
    }
    size_t nn = strlen(k->name);
    vp_npu_task task = vp_npu_task_of(k->core, strlen(k->core), k->name, nn);
    if (w->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 256;
        w->ev = vp_realloc(w->ev, c->cap * sizeof *w->ev);
        w->cap = c->cap;
        c->names = vp_realloc(c->names, c->cap * sizeof *c->names);
        c->ids = vp_realloc(c->ids, c->cap * sizeof *c->ids);
    }
    uint8_t flags = VP_GPU_F_BY_TIME;
    if (task.cls == VP_CLASS_COMM && nn >= 12 && memcmp(k->name, "hcom_receive", 12) == 0)
        flags |= VP_GPU_F_RECEIVE;
    vp_gpu_ev *g = &w->ev[w->n];
    g->start = k->start;
    g->end = k->start + (k->dur > 0 ? k->dur : 0);
    g->corr = -1;
    g->stream = k->stream >= 0 && k->stream <= INT32_MAX ? (int32_t)k->stream : -1;
    g->step = -1;
    g->cls = (uint8_t)task.cls;
    g->kind = (uint8_t)task.kind;
    g->flags = flags;
    g->device = VP_GPU_DEVICE_NONE;   /* one device: the rank's */
    g->aux = UINT32_MAX;
    c->names[w->n] = vp_strndup(k->name, nn);
    c->ids[w->n++] = k->step;
}

/* Keeps the tasks of the Step Ids range selects; c->steps: those ids. */
static void select_steps(vp_asc_csv_work *c, const long *ids, const vp_step_range *range,
                         const char *path)
{
    vp_gpuwork *w = &c->w;
    long *v = vp_malloc((w->n ? w->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < w->n; i++)
        if (ids[i] >= 0)
            v[n++] = ids[i];
    size_t m = vp_step_ids_distinct(v, n), a = 0, b = m;
    if (range) {
        vp_step_range_slice(range, v, m, &a, &b);
        if (m == 0)
            vp_warn("%s: --steps: no Step Id column, so no task is kept", path);
        else if (a >= b)
            vp_warn("%s: --steps selects none of the steps present (Step Id %ld to %ld)", path,
                    v[0], v[m - 1]);
        size_t out = 0;
        for (size_t i = 0; i < w->n; i++) {
            int kept = 0;
            for (size_t j = a; j < b && !kept; j++)
                kept = ids[i] == v[j];
            if (!kept) {
                free(c->names[i]);
                continue;
            }
            c->names[out] = c->names[i];
            w->ev[out++] = w->ev[i];
        }
        w->n = out;
    }
    c->nsteps = b - a;
    memmove(v, v + a, c->nsteps * sizeof *v);
    c->steps = v;
}

void vp_asc_csv_work_begin(vp_asc_csv_work *out)
{
    memset(out, 0, sizeof *out);
    vp_gpuwork_init(&out->w);
}

void vp_asc_csv_work_end(vp_asc_csv_work *c, const vp_step_range *range, const char *path)
{
    select_steps(c, c->ids, range, path);
}

int vp_asc_csv_work_read(const char *path, const vp_step_range *range, vp_asc_csv_work *out,
                         vp_error *err)
{
    vp_asc_csv_work_begin(out);
    int rc = vp_asc_read_kernels(path, vp_asc_csv_work_take, out, &out->skipped, err);
    if (rc == 0)
        vp_asc_csv_work_end(out, range, path);
    return rc;
}

void vp_asc_csv_work_free(vp_asc_csv_work *c)
{
    for (size_t i = 0; i < c->w.n; i++)
        free(c->names[i]);
    free(c->ids);
    free(c->names);
    free(c->steps);
    vp_gpuwork_free(&c->w);
    memset(c, 0, sizeof *c);
}
