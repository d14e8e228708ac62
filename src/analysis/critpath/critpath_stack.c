/* The edges along each CPU thread's call stack (HTA's CallGraph /
 * CallStackGraph and CPGraph._construct_graph_from_call_stack): the
 * window's events of a thread nested by time, walked depth first; each
 * node with a begin/end pair joins the previous one. */
#include <stdlib.h>
#include <string.h>

#include "critpath_int.h"

/* One begin or end of an event on a thread (HTA's call_stack.Event). */
typedef struct sev {
    int64_t time, dur;
    int32_t row;
    int8_t type;    /* 1 start, -1 end */
} sev;

/* HTA's compare_events, case by case. */
static int cmp_sev(const void *a, const void *b)
{
    const sev *x = a, *y = b;
    if (x->row == y->row)
        return x->type == 1 ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->type == y->type) {
        if (x->type == 1) {
            if (x->dur == y->dur)
                return x->row < y->row ? -1 : 1;
            return x->dur < y->dur ? 1 : -1;
        }
        if (x->dur == y->dur)
            return x->row < y->row ? 1 : -1;
        return x->dur < y->dur ? -1 : 1;
    }
    if (x->dur > 0 && y->dur > 0)
        return x->type == 1 ? 1 : -1;
    if (x->dur == 0 && y->dur == 0)
        return x->row < y->row ? -1 : 1;
    return x->type == 1 ? -1 : 1;
}

/* The single thread, if exactly one, that holds cpu_op or user_annotation
 * events of the window whose name contains word. */
static int one_tid(const vp_cp_graph *g, const char *word, int64_t *tid)
{
    const vp_critpath *cp = g->cp;
    int found = 0;
    for (size_t i = 0; i < cp->nrows; i++) {
        const vp_cp_row *r = &cp->rows[i];
        if (!g->clipped[i] || !strstr(cp->names[r->name], word))
            continue;
        if (!vp_ev_is_op(r->kind))
            continue;
        if (found && *tid != r->tid)
            return 0;
        *tid = r->tid;
        found = 1;
    }
    return found;
}

typedef struct thread_walk {
    vp_cp_graph *g;
    int32_t last;        /* last node, -1 */
    int depth;           /* nodes open */
    int32_t last_parent; /* parent event of the last node visited */
} thread_walk;

static void enter(thread_walk *w, int32_t row, int32_t parent)
{
    vp_cp_graph *g = w->g;
    int32_t s = g->start_node[row];
    if (s < 0 || g->end_node[row] < 0)
        return;
    if (w->last >= 0 && !(vp_cp_shares_lock(g, w->last, s))) {
        int32_t e = vp_cp_add_edge(g, w->last, s, w->depth == 0 ? VP_CP_DEPENDENCY : VP_CP_OPERATOR, 0);
        vp_cp_attribute(g, e, w->last_parent);
    }
    w->last = s;
    w->last_parent = parent;
    w->depth++;
}

static void leave(thread_walk *w, int32_t row, int32_t parent)
{
    vp_cp_graph *g = w->g;
    int32_t s = g->start_node[row], en = g->end_node[row];
    if (s < 0 || en < 0)
        return;
    if (w->last >= 0 && !(vp_cp_shares_lock(g, w->last, en))) {
        int32_t e = vp_cp_add_edge(g, w->last, en, VP_CP_OPERATOR, g->nodes[s].blocking);
        vp_cp_attribute(g, e, w->last_parent);
    }
    w->last = en;
    w->last_parent = parent;
    w->depth--;
}

/* Nests one thread's events (rows[0..n)) and walks them depth first. */
static void walk_thread(vp_cp_graph *g, const int32_t *rows, size_t n)
{
    const vp_critpath *cp = g->cp;
    sev *ev = vp_malloc(2 * n * sizeof *ev);
    for (size_t i = 0; i < n; i++) {
        const vp_cp_row *r = &cp->rows[rows[i]];
        int64_t d = r->dur > 0 ? r->dur : 0;
        ev[2 * i] = (sev){r->ts, d, rows[i], 1};
        ev[2 * i + 1] = (sev){r->ts + d, d, rows[i], -1};
    }
    qsort(ev, 2 * n, sizeof *ev, cmp_sev);
    /* the tree: parent, first child, next sibling (by row) */
    int32_t *parent = vp_malloc((n + 1) * sizeof *parent);   /* by local index: the parent's row */
    int32_t *first = vp_malloc((n + 1) * sizeof *first), *next = vp_malloc((n + 1) * sizeof *next);
    int32_t *tail = vp_malloc((n + 1) * sizeof *tail), *local = vp_malloc((n + 1) * sizeof *local);
    int32_t *stack = vp_malloc((n + 1) * sizeof *stack);
    /* local index k of the k-th started event; 0 = the root */
    size_t nl = 1, depth = 0;
    first[0] = next[0] = tail[0] = -1;
    local[0] = -1;
    for (size_t i = 0; i < 2 * n; i++) {
        if (ev[i].type == 1) {
            int32_t p = depth ? stack[depth - 1] : 0;
            int32_t k = (int32_t)nl++;
            local[k] = ev[i].row;
            parent[k] = p ? local[p] : -1;
            first[k] = next[k] = tail[k] = -1;
            if (tail[p] >= 0)
                next[tail[p]] = k;
            else
                first[p] = k;
            tail[p] = k;
            stack[depth++] = k;
        } else if (depth) {
            depth--;
        }
    }
    /* depth first: enter a node, its children in order, leave it */
    thread_walk w = {g, -1, 0, -1};
    int32_t *cur = vp_malloc((nl + 1) * sizeof *cur);
    size_t sp = 0;
    stack[sp] = 0;
    cur[sp] = first[0];
    while (1) {
        int32_t c = cur[sp];
        if (c >= 0) {
            cur[sp] = next[c];
            enter(&w, local[c], parent[c]);
            stack[++sp] = c;
            cur[sp] = first[c];
        } else {
            if (sp == 0)
                break;
            int32_t k = stack[sp--];
            leave(&w, local[k], parent[k]);
        }
    }
    free(cur);
    free(stack);
    free(local);
    free(tail);
    free(next);
    free(first);
    free(parent);
    free(ev);
}

typedef struct thread_key {
    int64_t pid, tid;
    int32_t row;
} thread_key;

static int cmp_thread(const void *a, const void *b)
{
    const thread_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

void vp_cp_call_stack_edges(vp_cp_graph *g)
{
    const vp_critpath *cp = g->cp;
    /* the backward thread's events join the forward thread's stack */
    int64_t fwd = 0, bwd = 0;
    int remap = one_tid(g, "forward", &fwd) && one_tid(g, "autograd", &bwd) && fwd && bwd &&
                fwd != bwd;
    size_t n = 0;
    for (size_t i = 0; i < cp->nrows; i++)
        n += g->clipped[i];
    thread_key *k = vp_malloc((n + 1) * sizeof *k);
    n = 0;
    for (size_t i = 0; i < cp->nrows; i++)
        if (g->clipped[i]) {
            int64_t tid = cp->rows[i].tid;
            k[n++] = (thread_key){cp->rows[i].pid, remap && tid == bwd ? fwd : tid, (int32_t)i};
        }
    qsort(k, n, sizeof *k, cmp_thread);
    int32_t *rows = vp_malloc((n + 1) * sizeof *rows);
    for (size_t a = 0, b; a < n; a = b) {
        int cpu = 1;
        size_t m = 0;
        for (b = a; b < n && k[b].pid == k[a].pid && k[b].tid == k[a].tid; b++) {
            rows[m++] = k[b].row;
            if (cp->rows[k[b].row].stream >= 0)
                cpu = 0;
        }
        if (cpu)   /* HTA builds stacks for CPU threads only */
            walk_thread(g, rows, m);
    }
    free(rows);
    free(k);
}
