/* step_trace_time from a trace: Overlap Analysis slices or device work
 * per step.  See vp_stt_from_work in vprof/ascend_stepwork.h. */
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_stepwork.h"
#include "vprof/ascend_tracks.h"
#include "vprof/classify.h"
#include "vprof/util.h"

/* The step index a time falls in: -1 = none, which drops it when the
 * trace has steps. */
static long step_of(vp_gpuwork *w, size_t nsteps, int64_t ts)
{
    return nsteps ? vp_steps_at(w->steps, ts) : 0;
}

int vp_stt_from_work(vp_gpuwork *w, long rank, int selected_only, vp_stt *out)
{
    size_t nsteps = vp_steps_count(w->steps);
    size_t nrows = nsteps ? nsteps : 1;
    int use_slices = w->nslices > 0;
    vp_stt_row *rows = vp_calloc(nrows, sizeof *rows);
    int64_t *first = vp_malloc(nrows * sizeof *first), *last = vp_malloc(nrows * sizeof *last);
    int64_t *work0 = vp_malloc(nrows * sizeof *work0);
    for (size_t i = 0; i < nrows; i++) {
        first[i] = work0[i] = INT64_MAX;
        last[i] = INT64_MIN;
    }
    /* Bubble and the first compute/communication start, from the work. */
    size_t *cnt = vp_calloc(nrows + 1, sizeof *cnt);
    for (size_t i = 0; i < w->n; i++) {
        const vp_gpu_ev *g = &w->ev[i];
        long s = nsteps ? g->step : 0;
        if (s < 0)
            continue;
        cnt[s + 1]++;
        if (g->flags & VP_GPU_F_RECEIVE)
            rows[s].v[VP_STT_BUBBLE] += g->end - g->start;
        if ((g->cls == VP_CLASS_COMPUTE || g->cls == VP_CLASS_COMM) && g->start < work0[s])
            work0[s] = g->start;
    }
    int64_t (*ps)[VP_OVL_COUNT] = vp_calloc(nrows, sizeof *ps);
    if (use_slices) {
        for (size_t i = 0; i < w->nslices; i++) {
            const vp_npu_slice *sl = &w->slices[i];
            long s = step_of(w, nsteps, sl->start);
            if (s < 0)
                continue;
            static const int col[VP_OVL_COUNT] = {VP_STT_COMPUTING, VP_STT_COMMUNICATION,
                                                  VP_STT_NOT_OVERLAPPED, VP_STT_FREE};
            ps[s][sl->kind] += sl->dur_ps;
            rows[s].v[col[sl->kind]] = (ps[s][sl->kind] + 500) / 1000;
            if (sl->start < first[s])
                first[s] = sl->start;
            if (sl->end > last[s])
                last[s] = sl->end;
            if (sl->kind <= VP_OVL_COMMUNICATION && sl->start < work0[s])
                work0[s] = sl->start;
        }
    } else {
        /* Group the events by step (a counting sort of indices), then
         * measure each group as `vprof comm` does. */
        for (size_t s = 1; s <= nrows; s++)
            cnt[s] += cnt[s - 1];
        uint32_t *idx = vp_malloc((w->n ? w->n : 1) * sizeof *idx);
        size_t *pos = vp_malloc(nrows * sizeof *pos);
        memcpy(pos, cnt, nrows * sizeof *pos);
        for (size_t i = 0; i < w->n; i++) {
            long s = nsteps ? w->ev[i].step : 0;
            if (s >= 0)
                idx[pos[s]++] = (uint32_t)i;
        }
        vp_gpu_sets sets;
        vp_gpu_sets_init(&sets);
        for (size_t s = 0; s < nrows; s++) {
            vp_gpu_totals t;
            size_t a = cnt[s], b = cnt[s + 1];
            vp_gpu_measure(&sets, w->ev, idx + a, b - a, &t);
            rows[s].v[VP_STT_COMPUTING] = t.compute;
            rows[s].v[VP_STT_COMMUNICATION] = t.comm;
            rows[s].v[VP_STT_NOT_OVERLAPPED] = t.exposed;
            rows[s].v[VP_STT_FREE] = t.free;
            if (b > a) {
                first[s] = t.first;
                last[s] = t.last;
            }
        }
        vp_gpu_sets_free(&sets);
        free(idx);
        free(pos);
    }
    for (size_t s = 0; s < nrows; s++) {
        int64_t a, b;
        if (nsteps && first[s] == INT64_MAX && work0[s] == INT64_MAX)
            continue;   /* a step with no device work: msprof writes no row */
        if (nsteps && selected_only && vp_steps_window(w->steps, s, &a, &b) != 1)
            continue;
        vp_stt_row *r = vp_stt_add(out);
        *r = rows[s];
        r->step = nsteps ? vp_steps_number(w->steps, s) : -1;
        r->rank = rank;
        r->device = -1;
        int64_t *v = r->v;
        v[VP_STT_OVERLAPPED] = v[VP_STT_COMMUNICATION] - v[VP_STT_NOT_OVERLAPPED];
        v[VP_STT_STAGE] = (first[s] < last[s] ? last[s] - first[s] : 0) - v[VP_STT_BUBBLE];
        v[VP_STT_EXCL_RECEIVE] = v[VP_STT_NOT_OVERLAPPED] > v[VP_STT_BUBBLE]
                                     ? v[VP_STT_NOT_OVERLAPPED] - v[VP_STT_BUBBLE]
                                     : 0;
        r->have = (1u << VP_STT_PREPARING) - 1;
        if (nsteps && work0[s] != INT64_MAX && vp_steps_window(w->steps, s, &a, &b) >= 0) {
            v[VP_STT_PREPARING] = work0[s] - a;
            r->have |= 1u << VP_STT_PREPARING;
        }
    }
    free(rows);
    free(ps);
    free(first);
    free(last);
    free(work0);
    free(cnt);
    return use_slices;
}
