/* The CPU side of HTA's critical path graph: a begin and an end node per
 * event, the edges between calls holding the CUDA runtime lock, and the
 * edges along each thread's call stack (HTA's CPGraph._create_event_nodes,
 * _construct_graph_from_cuda_runtime_events and
 * _construct_graph_from_call_stack). */
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"

static const char *const blocking_calls[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
    "cudaEventSynchronize",  "cudaMemcpy",            "cudaMemcpyAsync", NULL,
};

static int name_in(const vp_critpath *cp, const vp_cp_row *r, const char *const *list)
{
    for (; *list; list++)
        if (vp_cp_is_named(cp, r, *list))
            return 1;
    return 0;
}

/* HTA's cpu_op, cuda_runtime and cuda_driver, in every dialect. */
static int has_node_category(const vp_critpath *cp, const vp_cp_row *r)
{
    (void)cp;
    return r->kind == VP_EV_CPU_OP || r->kind == VP_EV_RUNTIME || r->kind == VP_EV_DRIVER;
}

static const vp_cp_node *sort_nodes;

/* By time, then event index; a start before the end of the same event. */
static int cmp_node(const void *a, const void *b)
{
    const vp_cp_node *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return (int)y->is_start - (int)x->is_start;
}

void vp_cp_make_nodes(vp_cp_graph *g)
{
    vp_critpath *cp = g->cp;
    size_t n = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        if (g->clipped[i] && (has_node_category(cp, r) || vp_cp_is_data_load(cp, g->o, r) ||
                              (r->stream != -1 && r->icorr >= 0)))
            n += 2;
    }
    g->nodes = vp_malloc((n ? n : 1) * sizeof *g->nodes);
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        if (!(g->clipped[i] && (has_node_category(cp, r) || vp_cp_is_data_load(cp, g->o, r) ||
                                (r->stream != -1 && r->icorr >= 0))))
            continue;
        uint8_t blocking = (uint8_t)name_in(cp, r, blocking_calls);
        g->nodes[g->nnodes++] = (vp_cp_node){r->ts, (int32_t)i, 1, blocking};
        g->nodes[g->nnodes++] = (vp_cp_node){r->ts + r->dur, (int32_t)i, 0, blocking};
    }
    sort_nodes = g->nodes;
    qsort(g->nodes, g->nnodes, sizeof *g->nodes, cmp_node);
    for (size_t k = 0; k < g->nnodes; k++) {
        if (g->nodes[k].is_start)
            g->start_node[g->nodes[k].row] = (int32_t)k;
        else
            g->end_node[g->nodes[k].row] = (int32_t)k;
    }
    size_t m = g->nnodes ? g->nnodes : 1;
    g->out_head = vp_malloc(m * sizeof(int32_t));
    g->out_tail = vp_malloc(m * sizeof(int32_t));
    g->in_head = vp_malloc(m * sizeof(int32_t));
    g->in_tail = vp_malloc(m * sizeof(int32_t));
    g->order = vp_malloc(m * sizeof(int32_t));
    g->seen = vp_calloc(m, 1);
    for (size_t k = 0; k < g->nnodes; k++)
        g->out_head[k] = g->out_tail[k] = g->in_head[k] = g->in_tail[k] = -1;
}

static void see(vp_cp_graph *g, int32_t n)
{
    if (!g->seen[n]) {
        g->seen[n] = 1;
        g->order[g->norder++] = n;
    }
}

int32_t vp_cp_add_edge(vp_cp_graph *g, int32_t u, int32_t v, vp_cp_edge_type type, int zero_weight)
{
    const vp_cp_node *s = &g->nodes[u], *d = &g->nodes[v];
    int64_t w = (type == VP_CP_DEPENDENCY || type == VP_CP_SYNC || zero_weight) ? 0 : d->ts - s->ts;
    see(g, u);
    see(g, v);
    for (int32_t e = g->out_head[u]; e >= 0; e = g->edges[e].next_out)
        if (g->edges[e].v == v) {   /* networkx replaces the attributes in place */
            g->edges[e].weight = g->edges[e].gweight = w;
            g->edges[e].type = (uint8_t)type;
            return e;
        }
    if (g->nedges == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 1024;
        g->edges = vp_realloc(g->edges, g->cap * sizeof *g->edges);
    }
    int32_t e = (int32_t)g->nedges++;
    g->edges[e] = (vp_cp_edge){u, v, w, w, -2, -1, -1, (uint8_t)type};
    if (g->out_tail[u] >= 0)
        g->edges[g->out_tail[u]].next_out = e;
    else
        g->out_head[u] = e;
    g->out_tail[u] = e;
    if (g->in_tail[v] >= 0)
        g->edges[g->in_tail[v]].next_in = e;
    else
        g->in_head[v] = e;
    g->in_tail[v] = e;
    return e;
}

/* Which event an op or kernel-gap edge belongs to: a start node's own
 * event; for an end to an end, the event ending; for an end to a start
 * (a gap between two children), their parent; a kernel gap to the kernel
 * before it. */
void vp_cp_attribute(vp_cp_graph *g, int32_t e, int32_t src_parent)
{
    vp_cp_edge *ed = &g->edges[e];
    if (ed->type != VP_CP_OPERATOR && ed->type != VP_CP_KERNEL_DELAY)
        return;
    const vp_cp_node *s = &g->nodes[ed->u], *d = &g->nodes[ed->v];
    if (ed->type == VP_CP_KERNEL_DELAY || s->is_start)
        ed->attr = s->row;
    else if (!d->is_start)
        ed->attr = d->row;
    else
        ed->attr = src_parent;
}

static const char *const lock_calls[] = {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync", NULL};

static int holds_lock(const vp_cp_graph *g, int32_t n)
{
    return name_in(g->cp, &g->cp->rows[g->nodes[n].row], lock_calls);
}

int vp_cp_shares_lock(const vp_cp_graph *g, int32_t a, int32_t b)
{
    return holds_lock(g, a) && holds_lock(g, b) && (g->nodes[a].is_start || !g->nodes[b].is_start);
}

/* Calls that take the runtime lock run one at a time, in the order they
 * end: each end waits for the starts before it and for the previous end. */
void vp_cp_runtime_lock_edges(vp_cp_graph *g)
{
    int32_t *starts = vp_malloc((g->nnodes + 1) * sizeof *starts);
    size_t ns = 0;
    int32_t last = -1;
    for (size_t k = 0; k < g->nnodes; k++) {
        int32_t n = (int32_t)k;
        if (!holds_lock(g, n))
            continue;
        if (g->nodes[n].is_start) {
            starts[ns++] = n;
        } else {
            while (ns) {
                int32_t p = starts[--ns];
                if (g->nodes[p].row == g->nodes[n].row)
                    vp_cp_attribute(g, vp_cp_add_edge(g, p, n, VP_CP_OPERATOR, 0), g->nodes[n].row);
                else
                    vp_cp_add_edge(g, p, n, VP_CP_DEPENDENCY, 0);
            }
            if (last >= 0 && !g->nodes[last].is_start)
                vp_cp_add_edge(g, last, n, VP_CP_DEPENDENCY, 0);
        }
        last = n;
    }
    free(starts);
}
