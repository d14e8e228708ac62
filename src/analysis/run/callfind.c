/* Findings over launches and API calls (vprof/callfind.h). */
#include <stdio.h>
#include <string.h>

#include "vprof/callfind.h"
#include "vprof/units.h"

void vp_call_facts_of(const vp_launches *l, const vp_evsum *api, int in_steps,
                      vp_call_facts *out)
{
    memset(out, 0, sizeof *out);
    out->in_steps = in_steps;
    if (l) {
        out->have_launches = 1;
        for (size_t i = 0; i < l->nfiles; i++) {
            out->launches += l->files[i].launches;
            out->launch_bound += l->files[i].launch_bound;
            out->short_gpu += l->files[i].short_gpu;
        }
    }
    if (!api)
        return;
    out->have_api = 1;
    /* groups are sorted by total: the first that launches nothing */
    for (size_t i = 0; i < api->ngroups; i++) {
        const vp_evgroup *g = &api->groups[i];
        const char *name = api->str[g->name];
        if (strstr(name, "Launch"))
            continue;
        snprintf(out->api, sizeof out->api, "%s", name);
        out->api_pct = api->grand ? 100.0 * (double)g->d.total / (double)api->grand : 0.0;
        out->api_total = g->d.total;
        out->api_calls = g->d.n;
        break;
    }
}

void vp_call_facts_edges(const vp_calledges *e, vp_call_facts *out)
{
    out->have_edges = 1;
    int64_t grand = 0, best = -1;
    size_t n = vp_strmap_count(e->names);
    for (size_t i = 0; i < n; i++) {
        const vp_edge_name *v = &e->v[i];
        size_t len;
        const char *name = vp_strmap_key(e->names, i, &len);
        grand += v->time[VP_EDGE_PROGRAM];
        int64_t left = 0, left_calls = 0;
        for (int k = VP_EDGE_PROGRAM + 1; k < VP_EDGE_COUNT; k++) {
            if (k == VP_EDGE_OUTSIDE_STEPS && out->in_steps)
                continue;   /* --steps: vprof api does not count them either */
            out->edge_time[k] += v->time[k];
            out->edge_calls[k] += v->calls[k];
            left += v->time[k];
            left_calls += v->calls[k];
        }
        if (left_calls && left > out->edge_top_time && !strstr(name, "Launch")) {
            snprintf(out->edge_top, sizeof out->edge_top, "%.*s", (int)len, name);
            out->edge_top_time = left;
            out->edge_top_calls = left_calls;
        }
        /* the first name of the most time wins a tie (strmap order: first sight) */
        if (!strstr(name, "Launch") && v->calls[VP_EDGE_PROGRAM] &&
            v->time[VP_EDGE_PROGRAM] > best) {
            best = v->time[VP_EDGE_PROGRAM];
            snprintf(out->prog_api, sizeof out->prog_api, "%.*s", (int)len, name);
            out->prog_total = v->time[VP_EDGE_PROGRAM];
            out->prog_calls = v->calls[VP_EDGE_PROGRAM];
        }
    }
    out->prog_pct = grand > 0 && best >= 0 ? 100.0 * (double)best / (double)grand : 0.0;
    for (int k = VP_EDGE_PROGRAM + 1; k < VP_EDGE_COUNT; k++)
        out->edges_left += out->edge_calls[k];
}

/* What to do about a call that holds the host, by what it is. */
static const char *api_advice(const char *name)
{
    if (strstr(name, "Synchronize") || strstr(name, "Query") || strcmp(name, "cudaMemcpy") == 0)
        return "the host waits for the GPU: remove .item(), .cpu(), .tolist() and printing of "
               "tensors from the steps, use non_blocking copies from pinned memory";
    if (strstr(name, "Malloc") || strstr(name, "Free") || strstr(name, "MemAlloc") ||
        strstr(name, "MemFree"))
        return "allocations inside the steps: keep the caching allocator warm (no "
               "torch.cuda.empty_cache() in the loop, stable shapes, PYTORCH_CUDA_ALLOC_CONF="
               "expandable_segments:True)";
    return "see which operators make these calls (vprof ops --runtime) and move them out of "
           "the steps";
}

double vp_call_launch_bound_pct(const vp_call_facts *c)
{
    return c->launches ? 100.0 * (double)c->launch_bound / (double)c->launches : 0;
}

/* api_share over the program's calls: what it measured, then what it
 * left out as the profiler's edges. */
static void edge_evidence(const vp_call_facts *c, const char *where, vp_finding *f)
{
    char t[32];
    vp_human_ns(t, sizeof t, (double)c->prog_total);
    snprintf(f->what, sizeof f->what, "%.100s dominates the CPU's runtime API time",
             c->prog_api);
    int k = snprintf(f->evidence, sizeof f->evidence,
                     "%s: %.1f%% of the program's runtime API time %s, %s (%lld ns) in %lld "
                     "calls", c->prog_api, c->prog_pct, where, t, (long long)c->prog_total,
                     (long long)c->prog_calls);
    if (k < 0 || (size_t)k >= sizeof f->evidence)
        return;
    k += snprintf(f->evidence + k, sizeof f->evidence - (size_t)k,
                  "; left out as the profiler's edges (vprof api counts them):");
    const char *sep = " ";
    for (int e = VP_EDGE_PROGRAM + 1; e < VP_EDGE_COUNT; e++) {
        if (!c->edge_calls[e] || (size_t)k >= sizeof f->evidence)
            continue;
        vp_human_ns(t, sizeof t, (double)c->edge_time[e]);
        k += snprintf(f->evidence + k, sizeof f->evidence - (size_t)k, "%s%lld call%s %s (%s)",
                      sep, (long long)c->edge_calls[e], c->edge_calls[e] == 1 ? "" : "s",
                      vp_calledge_name(e), t);
        sep = ", ";
    }
    if (c->edge_top[0] && (size_t)k < sizeof f->evidence) {
        vp_human_ns(t, sizeof t, (double)c->edge_top_time);
        snprintf(f->evidence + k, sizeof f->evidence - (size_t)k, ", the most %s: %lld call%s, %s",
                 c->edge_top, (long long)c->edge_top_calls, c->edge_top_calls == 1 ? "" : "s", t);
    }
}

size_t vp_call_findings(const vp_call_facts *c, const vp_threshold *th, vp_finding *out,
                        size_t n, size_t max)
{
    const char *where = c->in_steps ? "inside the counted steps" : "in the traces";
    vp_finding *f;
    double share = vp_call_launch_bound_pct(c);
    if (c->have_launches && c->launches && share > vp_threshold_get(th, "launch_bound") &&
        (f = vp_finding_add(out, &n, max, "launch_bound",
                 "fewer, larger kernels (fusion, torch.compile) or CUDA graphs, so that launches "
                 "keep ahead of the GPU; and what holds the launching thread (syncs, Python "
                 "overhead)"))) {
        snprintf(f->what, sizeof f->what, "launch-bound: the GPU waits for short work to be "
                                          "launched");
        snprintf(f->evidence, sizeof f->evidence,
                 "%lld of %lld launches %s (%.1f%%) ran shorter on the GPU than their call "
                 "took and started within one call's time of it: the GPU had nothing queued "
                 "(vprof launches: Launch-Bound); %lld ran shorter than their call (Short GPU "
                 "Work)",
                 (long long)c->launch_bound, (long long)c->launches, where, share,
                 (long long)c->short_gpu);
    }
    if (c->have_edges && c->edges_left) {
        if (c->prog_api[0] && c->prog_pct > vp_threshold_get(th, "api_share") &&
            (f = vp_finding_add(out, &n, max, "api_share", api_advice(c->prog_api))))
            edge_evidence(c, where, f);
    } else if (c->have_api && c->api[0] && c->api_pct > vp_threshold_get(th, "api_share") &&
               (f = vp_finding_add(out, &n, max, "api_share", api_advice(c->api)))) {
        char t[32];
        vp_human_ns(t, sizeof t, (double)c->api_total);
        snprintf(f->what, sizeof f->what, "%.100s dominates the CPU's runtime API time", c->api);
        snprintf(f->evidence, sizeof f->evidence,
                 "%s: %.1f%% of the runtime API time %s, %s (%lld ns) in %lld calls (vprof "
                 "api: Time (%%), Total Time, Num Calls)",
                 c->api, c->api_pct, where, t, (long long)c->api_total, (long long)c->api_calls);
    }
    return n;
}
