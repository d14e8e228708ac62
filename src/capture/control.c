/* The capture-range state machine (see vprof/capture.h).
 *
 * Capture runs while three things hold: the range condition (always for
 * "all"; between cudaProfilerStart and Stop; while a range named NAME is
 * open on some thread), the delay has passed, and the duration, counted
 * from the first start, has not. Once the duration is over, or the process
 * exits, it never starts again. */
#include <string.h>

#include "vprof/capture.h"

static vp_ctl_action settle(vp_cap_ctl *ctl, int64_t now)
{
    if (!ctl->done && ctl->duration_ns > 0 && ctl->started_at >= 0 &&
        now - ctl->started_at >= ctl->duration_ns)
        ctl->done = 1;
    int want = !ctl->done && ctl->open && now - ctl->t0 >= ctl->delay_ns;
    if (want == ctl->capturing)
        return VP_CTL_NONE;
    ctl->capturing = want;
    if (want) {
        if (ctl->started_at < 0)
            ctl->started_at = now;
        return VP_CTL_START;
    }
    return VP_CTL_STOP;
}

vp_ctl_action vp_cap_ctl_init(vp_cap_ctl *ctl, const vp_cap_config *c, int64_t now)
{
    memset(ctl, 0, sizeof *ctl);
    ctl->range = c->range;
    ctl->name = c->range_name;
    ctl->delay_ns = c->delay_ns;
    ctl->duration_ns = c->duration_ns;
    ctl->t0 = now;
    ctl->started_at = -1;
    ctl->open = c->range == VP_RANGE_ALL;
    return settle(ctl, now);
}

static vp_ctl_thread *thread_of(vp_cap_ctl *ctl, uint64_t tid, int create)
{
    for (int i = 0; i < ctl->nthreads; i++)
        if (ctl->threads[i].tid == tid)
            return &ctl->threads[i];
    if (!create)
        return NULL;
    /* A thread with no open push can give its slot to a newcomer. */
    for (int i = 0; i < ctl->nthreads; i++)
        if (ctl->threads[i].depth == 0) {
            ctl->threads[i].tid = tid;
            ctl->threads[i].match = 0;
            return &ctl->threads[i];
        }
    if (ctl->nthreads == VP_CTL_MAX_THREADS) {
        ctl->overflow = 1;
        return NULL;
    }
    vp_ctl_thread *t = &ctl->threads[ctl->nthreads++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

static void nvtx_push(vp_cap_ctl *ctl, uint64_t tid, uint64_t id, const char *name)
{
    int match = name && ctl->name && strcmp(name, ctl->name) == 0;
    if (id) {  /* nvtxRangeStart: not nested, closed by id from any thread */
        if (!match)
            return;
        if (ctl->nids == VP_CTL_MAX_IDS) {
            ctl->overflow = 1;
            return;
        }
        ctl->ids[ctl->nids++] = id;
        ctl->named_open++;
        return;
    }
    vp_ctl_thread *t = thread_of(ctl, tid, 1);
    if (!t)
        return;
    if (t->depth < VP_CTL_MAX_DEPTH && match) {
        t->match |= UINT64_C(1) << t->depth;
        ctl->named_open++;
    } else if (t->depth >= VP_CTL_MAX_DEPTH) {
        ctl->overflow = 1;
    }
    t->depth++;
}

static void nvtx_pop(vp_cap_ctl *ctl, uint64_t tid)
{
    vp_ctl_thread *t = thread_of(ctl, tid, 0);
    if (!t || t->depth == 0)
        return;  /* a pop without a push: NVTX itself ignores it */
    t->depth--;
    if (t->depth < VP_CTL_MAX_DEPTH && (t->match >> t->depth & 1)) {
        t->match &= ~(UINT64_C(1) << t->depth);
        ctl->named_open--;
    }
}

static void nvtx_end(vp_cap_ctl *ctl, uint64_t id)
{
    for (int i = 0; i < ctl->nids; i++)
        if (ctl->ids[i] == id) {
            ctl->ids[i] = ctl->ids[--ctl->nids];
            ctl->named_open--;
            return;
        }
}

vp_ctl_action vp_cap_ctl_event(vp_cap_ctl *ctl, vp_ctl_event ev, int64_t now, uint64_t tid,
                               uint64_t id, const char *name)
{
    switch (ev) {
    case VP_CTL_TICK:
        break;
    case VP_CTL_PROFILER_START:
        if (ctl->range == VP_RANGE_PROFILER_API)
            ctl->open = 1;
        break;
    case VP_CTL_PROFILER_STOP:
        if (ctl->range == VP_RANGE_PROFILER_API)
            ctl->open = 0;
        break;
    case VP_CTL_NVTX_PUSH:
        if (ctl->range == VP_RANGE_NVTX) {
            nvtx_push(ctl, tid, id, name);
            ctl->open = ctl->named_open > 0;
        }
        break;
    case VP_CTL_NVTX_POP:
        if (ctl->range == VP_RANGE_NVTX) {
            nvtx_pop(ctl, tid);
            ctl->open = ctl->named_open > 0;
        }
        break;
    case VP_CTL_NVTX_END:
        if (ctl->range == VP_RANGE_NVTX) {
            nvtx_end(ctl, id);
            ctl->open = ctl->named_open > 0;
        }
        break;
    case VP_CTL_EXIT:
        ctl->done = 1;
        break;
    }
    return settle(ctl, now);
}

int64_t vp_cap_ctl_deadline(const vp_cap_ctl *ctl)
{
    if (ctl->done)
        return INT64_MAX;
    if (ctl->capturing)
        return ctl->duration_ns > 0 ? ctl->started_at + ctl->duration_ns : INT64_MAX;
    if (ctl->open && ctl->delay_ns > 0)
        return ctl->t0 + ctl->delay_ns;
    return INT64_MAX;
}
