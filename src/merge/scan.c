/* Merge: the pre-pass.  --steps and --align start|collective need what a
 * whole input holds (its first timestamp, its step window, its collective
 * kernels) before its first event can be written, so such inputs are read
 * once through the trace pass before they are copied; the others are not
 * read twice (see copy.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge_int.h"
#include "vprof/classify.h"
#include "vprof/gpupass.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"
#include "vprof/util.h"

static int cmp_coll_ts(const void *a, const void *b)
{
    const coll_end *x = a, *y = b;
    if (x->ts != y->ts)
        return (x->ts > y->ts) - (x->ts < y->ts);
    return (x->end > y->end) - (x->end < y->end);
}

/* What scan_input gathers from the events of one input. */
typedef struct scan {
    merge *m;
    input *in;
    int steps;            /* a step range was given */
    gpu_step *gsteps;     /* the gpu_user_annotation copies of the steps */
    size_t ngsteps, cap_g, cap_c;
    long *gpu;            /* per collective candidate: its GPU event while its launcher
                           * may yet decide, else -1 */
} scan;

static void scan_event(void *ctx, const vp_event *ev)
{
    scan *sc = ctx;
    input *in = sc->in;
    if (ev->ph == 'M' || !ev->has_ts)
        return;
    if (!in->has_min || ev->ts < in->min_ts) {
        in->min_ts = ev->ts;
        in->has_min = 1;
    }
    long num;
    if (sc->steps && ev->ph == 'X' && vp_mg_name_is(ev->cat, "gpu_user_annotation") &&
        vp_step_number(ev->name, &num)) {
        if (sc->ngsteps == sc->cap_g) {
            sc->cap_g = sc->cap_g ? sc->cap_g * 2 : 16;
            sc->gsteps = vp_realloc(sc->gsteps, sc->cap_g * sizeof *sc->gsteps);
        }
        sc->gsteps[sc->ngsteps++] = (gpu_step){num, ev->ts, vp_mg_event_end(ev)};
    }
}

/* --align collective: the pass over the GPU work, whose kernels are
 * collectives by the evidence comm uses (name, args, launching op:
 * docs/classification.md).  A kernel that only its launcher can make one
 * is kept as a candidate, and decided once the pass has resolved it. */
static void scan_gpu_event(void *ctx, vp_gpuwork *w, long gi, const vp_event *ev)
{
    scan *sc = ctx;
    input *in = sc->in;
    scan_event(ctx, ev);
    if (gi < 0 || w->ev[gi].kind != VP_GPU_KERNEL || ev->ph != 'X' || !ev->has_dur)
        return;
    const vp_gpu_ev *g = &w->ev[gi];
    if (g->cls != VP_CLASS_COMM && !(g->flags & VP_GPU_F_UNDECIDED))
        return;
    if (in->ncolls == sc->cap_c) {
        sc->cap_c = sc->cap_c ? sc->cap_c * 2 : 256;
        in->colls = vp_realloc(in->colls, sc->cap_c * sizeof *in->colls);
        sc->gpu = vp_realloc(sc->gpu, sc->cap_c * sizeof *sc->gpu);
    }
    sc->gpu[in->ncolls] = g->cls == VP_CLASS_COMM ? -1 : gi;
    in->colls[in->ncolls++] =
        (coll_end){vp_hash_bytes(ev->name.p, ev->name.n), 0, ev->ts, vp_mg_event_end(ev)};
}

/* The candidates that resolve made communication stay, with those of
 * the name or args; a kernel resolve dropped (outside --steps) keeps the
 * class it had, compute. */
static void keep_collectives(scan *sc, const vp_gpuwork *w)
{
    input *in = sc->in;
    size_t kept = 0;
    vp_gpu_remap map = {0};
    for (size_t i = 0; i < in->ncolls; i++) {
        long gi = sc->gpu[i];
        if (gi >= 0) {
            long at = vp_gpuwork_index_after(w, &map, (size_t)gi);
            if (at < 0 || w->ev[at].cls != VP_CLASS_COMM)
                continue;
        }
        in->colls[kept++] = in->colls[i];
    }
    in->ncolls = kept;
}

/* The window of the steps selected: from the first one's start to the last
 * one's end, CPU or GPU copy, whichever is wider; start after end when
 * none is selected. */
static void steps_window(input *in, vp_steps *steps, size_t nsteps, const scan *sc)
{
    int64_t s0 = 0, s1 = 0;
    int found = 0;
    for (size_t i = 0; i < nsteps; i++) {
        int64_t a, b;
        if (vp_steps_window(steps, i, &a, &b) != 1)
            continue;
        long num = vp_steps_number(steps, i);
        /* The GPU work of a step runs after its CPU window; Kineto's
         * gpu_user_annotation copy of the step spans it. */
        for (size_t g = 0; g < sc->ngsteps; g++)
            if (sc->gsteps[g].number == num) {
                if (sc->gsteps[g].start < a)
                    a = sc->gsteps[g].start;
                if (sc->gsteps[g].end > b)
                    b = sc->gsteps[g].end;
            }
        if (!found || a < s0)
            s0 = a;
        if (!found || b > s1)
            s1 = b;
        found = 1;
    }
    in->has_steps_window = 1;
    if (found) {
        in->steps_start = s0;
        in->steps_end = s1;
    } else {
        /* an empty window: start after end */
        in->steps_start = 1;
        in->steps_end = 0;
    }
}

/* Reads a whole input for what must be known before its first event is
 * written: rank, clock base, first timestamp, step window, collectives. */
int vp_mg_scan_input(merge *m, input *in, long position)
{
    vp_error err = {0};
    if (strcmp(in->path, "-") == 0) {
        vp_error_set(&m->err, VP_EXIT_USAGE,
                     "standard input can be merged only when it needs a single reading: not with "
                     "--steps or --align start|collective, nor to a non-regular output when its "
                     "rank or clock base comes after its events (give the rank as -@RANK)");
        return -1;
    }
    vp_gpu_pass gp;
    memset(&gp, 0, sizeof gp);
    vp_trace_pass *pp = &gp.pass;
    vp_trace_pass_opts o = {.partial = m->partial, .no_progress = !m->progress,
                            .range = m->has_steps ? &m->steps : NULL, .position = position,
                            .rank = -1, .classes = m->classes};
    scan sc = {.m = m, .in = in, .steps = m->has_steps};
    in->has_min = 0;
    in->ncolls = 0;
    int coll = m->align == ALIGN_COLLECTIVE;
    int rc = coll ? vp_gpu_pass_read(&gp, in->path, &o, scan_gpu_event, &sc, &err)
                  : vp_trace_pass_read(pp, in->path, &o, scan_event, &sc, &err);
    if (rc != 0) {
        vp_error_set(&m->err, err.status, "%s", err.msg);
        free(sc.gsteps);
        free(sc.gpu);
        if (coll)
            vp_gpu_pass_close(&gp);
        else
            vp_trace_pass_close(pp);
        return -1;
    }
    if (coll)
        keep_collectives(&sc, &gp.w);
    free(sc.gpu);
    if (!in->rank_explicit) {
        in->rank = pp->rank;
        in->rank_from = pp->rank_from;
    }
    in->has_base = vp_mg_meta_base(pp->trace, &in->base);
    in->known = 1;
    in->scanned = 1;
    if (m->has_steps && pp->steps) {   /* the GPU pass has steps without a range too */
        steps_window(in, pp->steps, pp->nsteps, &sc);
        vp_trace_pass_warn(pp, &(vp_trace_pass_warnings){
                                   .no_steps_kept = ": only its metadata events are kept",
                                   .none_selected_kept = ": only its metadata events are kept",
                               });
    }
    free(sc.gsteps);
    if (in->ncolls) {
        qsort(in->colls, in->ncolls, sizeof *in->colls, cmp_coll_ts);
        /* Number each kernel name's occurrences: the k-th all-reduce of a
         * rank matches the k-th of the others. */
        if (in->ncolls > (size_t)m->coll_n)
            in->ncolls = (size_t)m->coll_n;
        for (size_t i = 0; i < in->ncolls; i++) {
            uint32_t occ = 0;
            for (size_t j = 0; j < i; j++)
                occ += in->colls[j].name == in->colls[i].name;
            in->colls[i].occurrence = occ;
        }
        qsort(in->colls, in->ncolls, sizeof *in->colls, vp_mg_cmp_coll_key);
    }
    if (coll)
        vp_gpu_pass_close(&gp);
    else
        vp_trace_pass_close(pp);
    return 0;
}
