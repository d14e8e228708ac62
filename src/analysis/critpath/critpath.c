/* HTA's lightweight critical path (hta/analyzers/critical_path_analysis.py):
 * the window, the graph (critpath_graph.c, critpath_stack.c,
 * critpath_gpu.c), its longest path as networkx's dag_longest_path finds
 * it (ties included), and each edge's bound_by. */
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"

const char *vp_cp_edge_type_name(vp_cp_edge_type t)
{
    static const char *const n[] = {"critical_path_operator", "critical_path_dependency",
                                    "critical_path_kernel_launch_delay",
                                    "critical_path_kernel_kernel_delay",
                                    "critical_path_sync_dependency"};
    return (unsigned)t < 5 ? n[t] : "?";
}

const char *vp_cp_bound_name(vp_cp_bound b)
{
    static const char *const n[] = {"", "cpu_bound", "data_loading", "gpu_compute_bound",
                                    "gpu_communication_bound", "gpu_kernel_launch_overhead",
                                    "gpu_kernel_kernel_overhead"};
    return (unsigned)b < VP_CP_BOUND_COUNT ? n[b] : "?";
}

/* HTA escapes the data-loading names when it picks the graph's events:
 * a name containing one of them. */
int vp_cp_is_data_load(const vp_critpath *cp, const vp_cp_opts *o, const vp_cp_row *r)
{
    if (!o->data_load)
        return 0;
    for (const char *const *p = o->data_load; *p; p++)
        if (**p && strstr(cp->names[r->name], *p))
            return 1;
    return 0;
}

/* The N-th event (file order) whose name contains the annotation; the
 * whole trace for an empty annotation. */
static int find_window(vp_critpath *cp, const vp_cp_opts *o, const char *path, int64_t *idx,
                       vp_error *err)
{
    *idx = -1;
    const char *a = o->annotation ? o->annotation : "";
    cp->instances = 0;
    if (!*a) {
        for (size_t i = 0; i < cp->nrows; i++) {
            const vp_cp_row *r = &cp->rows[i];
            if (i == 0 || r->ts < cp->win_start)
                cp->win_start = r->ts;
            if (i == 0 || r->ts + r->dur > cp->win_end)
                cp->win_end = r->ts + r->dur;
        }
        if (cp->nrows == 0) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: no events with a duration: no critical path", path);
            return -1;
        }
        return 0;
    }
    int found = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        if (!strstr(cp->names[r->name], a))
            continue;
        if (cp->instances++ == o->instance) {
            cp->win_start = r->ts;
            cp->win_end = r->ts + r->dur;
            *idx = r->idx;
            found = 1;
        }
    }
    if (!found) {
        /* Count what HTA's last-step rule left out too: the trace has
         * them, and a user counting them would find more than we say. */
        long left_out = 0;
        for (size_t i = 0; cp->dropped_last_step && i < cp->ndropped_by_name; i++)
            if (cp->dropped_by_name[i] && strstr(cp->names[i], a))
                left_out += (long)cp->dropped_by_name[i];
        if (cp->instances == 0 && left_out == 0)
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: no event named like '%s' (the annotation): no window to analyse",
                         path, a);
        else if (left_out == 0)
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: %ld event%s named like '%s'; instance %ld (counted from 0) is not one",
                         path, cp->instances, cp->instances == 1 ? " is" : "s are", a, o->instance);
        else
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: %ld event%s named like '%s', %ld of them from the last step "
                         "(%s), which HTA's rule leaves out (it drops a trace's last "
                         "ProfilerStep); instance %ld (counted from 0) is not one of the %ld left",
                         path, cp->instances + left_out,
                         cp->instances + left_out == 1 ? " is" : "s are", a, left_out,
                         cp->dropped_step >= 0 ? cp->names[cp->dropped_step] : "?", o->instance,
                         cp->instances);
        return -1;
    }
    return 0;
}

/* HTA's clipped frame: CPU events starting in the window with a positive
 * duration; GPU events whose launching call is such an event; every
 * Stream Wait Event. */
static void clip(vp_cp_graph *g)
{
    const vp_critpath *cp = g->cp;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        int in = r->ts >= cp->win_start && r->ts <= cp->win_end && r->dur > 0;
        if (r->stream == -1) {
            if (in) {
                g->clipped[i] = 1;
                if (r->partner >= 0 && cp->rows[r->partner].stream != -1)
                    g->clipped[r->partner] = 1;
            }
        } else if (vp_cp_is_named(cp, r, "Stream Wait Event")) {
            g->clipped[i] = 1;
        }
    }
}

/* What HTA refuses: a sync edge between kernels of one stream, a cycle.
 * Negative spans (nanosecond rounding) weigh 0 in the graph. */
static int validate(vp_cp_graph *g, const char *path, vp_error *err)
{
    const vp_critpath *cp = g->cp;
    for (size_t e = 0; e < g->nedges; e++) {
        vp_cp_edge *ed = &g->edges[e];
        if (ed->weight <= -1)
            ed->gweight = 0;
        if (ed->type == VP_CP_SYNC) {
            int32_t a = cp->rows[g->nodes[ed->u].row].stream, b = cp->rows[g->nodes[ed->v].row].stream;
            if (a != -1 && a == b) {
                vp_error_set(err, VP_EXIT_INPUT,
                             "%s: a synchronisation between two kernels of stream %d (events %lld "
                             "and %lld): HTA refuses such a graph",
                             path, (int)a, (long long)cp->rows[g->nodes[ed->u].row].idx,
                             (long long)cp->rows[g->nodes[ed->v].row].idx);
                return -1;
            }
        }
    }
    return 0;
}

/* networkx's topological_sort (by generations, nodes in the order the
 * graph first saw them, successors in the order their edges were added)
 * then dag_longest_path: each node takes its first best predecessor, and
 * the path ends at the first node of greatest distance. */
static int longest_path(vp_cp_graph *g, int32_t **out, size_t *nout, const char *path, vp_error *err)
{
    size_t n = g->nnodes ? g->nnodes : 1;
    int32_t *indeg = vp_calloc(n, sizeof *indeg), *topo = vp_malloc(n * sizeof *topo);
    int64_t *dist = vp_malloc(n * sizeof *dist);
    int32_t *from = vp_malloc(n * sizeof *from);
    for (size_t e = 0; e < g->nedges; e++)
        indeg[g->edges[e].v]++;
    size_t nt = 0, gen = 0;
    for (size_t i = 0; i < g->norder; i++)
        if (indeg[g->order[i]] == 0)
            topo[nt++] = g->order[i];
    while (gen < nt) {
        size_t end = nt;
        for (; gen < end; gen++)
            for (int32_t e = g->out_head[topo[gen]]; e >= 0; e = g->edges[e].next_out)
                if (--indeg[g->edges[e].v] == 0)
                    topo[nt++] = g->edges[e].v;
    }
    int status = 0;
    if (nt != g->norder) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: the critical path graph has a cycle (%zu of %zu nodes "
                     "ordered): HTA refuses such a graph", path, nt, g->norder);
        status = -1;
        goto out;
    }
    size_t best = 0;
    for (size_t i = 0; i < nt; i++) {
        int32_t v = topo[i];
        int64_t d = 0;
        int32_t f = v;
        int any = 0;
        for (int32_t e = g->in_head[v]; e >= 0; e = g->edges[e].next_in) {
            int64_t c = dist[g->edges[e].u] + g->edges[e].gweight;
            if (!any || c > d) {
                d = c;
                f = g->edges[e].u;
                any = 1;
            }
        }
        if (d < 0) {
            d = 0;
            f = v;
        }
        dist[v] = d;
        from[v] = f;
        if (dist[v] > dist[topo[best]])
            best = i;
    }
    size_t len = 0;
    int32_t *p = vp_malloc(n * sizeof *p);
    if (nt) {
        int32_t v = topo[best], u = -1;
        while (u != v) {
            p[len++] = v;
            u = v;
            v = from[v];
        }
    }
    for (size_t i = 0; i < len / 2; i++) {
        int32_t t = p[i];
        p[i] = p[len - 1 - i];
        p[len - 1 - i] = t;
    }
    *out = p;
    *nout = len;
out:
    free(from);
    free(dist);
    free(topo);
    free(indeg);
    return status;
}

/* HTA's is_comm_kernel on the (shortened) name: nccl..., hip..., hccl...,
 * or containing ncclKernel. */
static int is_comm(const char *name)
{
    if (strncmp(name, "void ", 5) == 0)
        name += 5;
    return strncmp(name, "nccl", 4) == 0 || strncmp(name, "hip", 3) == 0 ||
           strncmp(name, "hccl", 4) == 0 || strstr(name, "ncclKernel");
}

static vp_cp_bound bound_of(const vp_critpath *cp, const vp_cp_opts *o, const vp_cp_step *s)
{
    switch (s->type) {
    case VP_CP_KERNEL_DELAY: return VP_CP_BOUND_KERNEL_GAP;
    case VP_CP_LAUNCH_DELAY: return VP_CP_BOUND_LAUNCH;
    case VP_CP_DEPENDENCY:
    case VP_CP_SYNC: return VP_CP_BOUND_NONE;
    default: break;
    }
    if (s->row < 0)   /* an edge HTA gives to the root: a CPU gap */
        return VP_CP_BOUND_CPU;
    const vp_cp_row *r = &cp->rows[s->row];
    if (r->stream < 0)
        return vp_cp_is_data_load(cp, o, r) ? VP_CP_BOUND_DATA_LOADING : VP_CP_BOUND_CPU;
    return is_comm(cp->names[r->name]) ? VP_CP_BOUND_GPU_COMM : VP_CP_BOUND_GPU_COMPUTE;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void take_path(vp_critpath *cp, vp_cp_graph *g, const vp_cp_opts *o, const int32_t *p, size_t n)
{
    cp->path_nodes = n;
    cp->npath = n ? n - 1 : 0;
    cp->path = vp_calloc(cp->npath + 1, sizeof *cp->path);
    for (size_t i = 0; i + 1 < n; i++) {
        int32_t e = g->out_head[p[i]];
        while (e >= 0 && g->edges[e].v != p[i + 1])
            e = g->edges[e].next_out;
        const vp_cp_edge *ed = &g->edges[e];
        vp_cp_step *s = &cp->path[i];
        s->begin_ts = g->nodes[ed->u].ts;
        s->end_ts = g->nodes[ed->v].ts;
        s->weight = ed->weight;
        s->from_row = g->nodes[ed->u].row;
        s->to_row = g->nodes[ed->v].row;
        s->from_start = g->nodes[ed->u].is_start;
        s->to_start = g->nodes[ed->v].is_start;
        s->type = (vp_cp_edge_type)ed->type;
        s->row = ed->attr >= 0 ? ed->attr : -1;
        if (ed->attr == -2)
            s->row = -1;
        s->bound = bound_of(cp, o, s);
        cp->bound_us[s->bound] += s->weight;
        cp->total_us += s->weight;
    }
    cp->critical_rows = vp_malloc((n + 1) * sizeof *cp->critical_rows);
    for (size_t i = 0; i < n; i++)
        cp->critical_rows[i] = g->nodes[p[i]].row;
    qsort(cp->critical_rows, n, sizeof *cp->critical_rows, cmp_i32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || cp->critical_rows[u - 1] != cp->critical_rows[i])
            cp->critical_rows[u++] = cp->critical_rows[i];
    cp->ncritical = u;
}

static void graph_free(vp_cp_graph *g)
{
    free(g->clipped);
    free(g->start_node);
    free(g->end_node);
    free(g->nodes);
    free(g->edges);
    free(g->out_head);
    free(g->out_tail);
    free(g->in_head);
    free(g->in_tail);
    free(g->order);
    free(g->seen);
}

/* The result of a previous window, before the next one. */
static void clear_result(vp_critpath *cp)
{
    free(cp->path);
    free(cp->critical_rows);
    cp->path = NULL;
    cp->critical_rows = NULL;
    cp->npath = cp->path_nodes = cp->ncritical = 0;
    cp->graph_nodes = cp->graph_edges = cp->nwarn_no_edge = 0;
    memset(cp->bound_us, 0, sizeof cp->bound_us);
    cp->total_us = 0;
}

/* The graph of the window found (win_start..win_end) and its path. */
static int window_path(vp_critpath *cp, const vp_cp_opts *o, const char *path, vp_error *err)
{
    vp_cp_graph g = {.cp = cp, .o = o};
    size_t n = cp->nrows + 1;
    g.clipped = vp_calloc(n, 1);
    g.start_node = vp_malloc(n * sizeof(int32_t));
    g.end_node = vp_malloc(n * sizeof(int32_t));
    for (size_t i = 0; i < n; i++)
        g.start_node[i] = g.end_node[i] = -1;
    clip(&g);
    vp_cp_make_nodes(&g);
    vp_cp_runtime_lock_edges(&g);
    vp_cp_call_stack_edges(&g);
    vp_cp_kernel_edges(&g);
    cp->graph_nodes = g.norder;
    cp->graph_edges = g.nedges;
    cp->nwarn_no_edge = g.no_edge;
    int status = VP_EXIT_OK;
    int32_t *p = NULL;
    size_t np = 0;
    if (validate(&g, path, err) != 0 || longest_path(&g, &p, &np, path, err) != 0) {
        status = VP_EXIT_INPUT;
    } else if (np < 2) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: the window [%lld us, %lld us] holds no operator, runtime call or kernel "
                     "joined to another: no critical path", path, (long long)cp->win_start,
                     (long long)cp->win_end);
        status = VP_EXIT_INPUT;
    } else {
        take_path(cp, &g, o, p, np);
    }
    free(p);
    graph_free(&g);
    return status;
}

int vp_critpath_window(vp_critpath *cp, const vp_cp_opts *o, const char *path, vp_error *err)
{
    int64_t idx;
    clear_result(cp);
    if (find_window(cp, o, path, &idx, err) != 0)
        return VP_EXIT_INPUT;
    return window_path(cp, o, path, err);
}

int vp_critpath_run(vp_critpath *cp, const char *path, const vp_cp_opts *o, vp_error *err)
{
    memset(cp, 0, sizeof *cp);
    int64_t idx;
    if (vp_cp_load(cp, path, o, 0, err) != VP_EXIT_OK)
        return VP_EXIT_INPUT;
    if (find_window(cp, o, path, &idx, err) != 0)
        return VP_EXIT_INPUT;
    if (cp->pruned && idx != cp->window_idx) {
        /* HTA's last-step rule left out an instance before the one assumed
         * while streaming: the window is another; read the trace whole */
        vp_critpath_free(cp);
        if (vp_cp_load(cp, path, o, 1, err) != VP_EXIT_OK ||
            find_window(cp, o, path, &idx, err) != 0)
            return VP_EXIT_INPUT;
    }
    return window_path(cp, o, path, err);
}

vp_cp_bound vp_critpath_top_bound(const vp_critpath *cp)
{
    vp_cp_bound best = VP_CP_BOUND_NONE;
    for (int b = 1; b < VP_CP_BOUND_COUNT; b++)
        if (cp->bound_us[b] > cp->bound_us[best] ||
            (cp->bound_us[b] == cp->bound_us[best] && cp->bound_us[b] > 0 &&
             strcmp(vp_cp_bound_name((vp_cp_bound)b), vp_cp_bound_name(best)) < 0))
            best = (vp_cp_bound)b;
    return best;
}

void vp_critpath_free(vp_critpath *cp)
{
    vp_cp_gpu_cache_free(cp);
    for (size_t i = 0; i < cp->nnames; i++)
        free(cp->names[i]);
    free(cp->names);
    vp_strmap_free(cp->intern);
    free(cp->rows);
    free(cp->dropped_by_name);
    free(cp->path);
    free(cp->critical_rows);
    memset(cp, 0, sizeof *cp);
}
