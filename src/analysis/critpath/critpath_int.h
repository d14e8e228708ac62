/* The critical path's working parts, shared by critpath*.c only. */
#ifndef VPROF_CRITPATH_INT_H
#define VPROF_CRITPATH_INT_H

#include <stdint.h>

#include "vprof/classify.h"
#include "vprof/critpath.h"

/* int64 -> row map (correlation ids); init(n) holds n keys. */
typedef struct vp_cp_imap {
    int64_t *keys;
    int32_t *vals;   /* -1 = empty, -2 = a key put with no row (get says -1) */
    size_t cap;
} vp_cp_imap;

void vp_cp_imap_init(vp_cp_imap *m, size_t n);
void vp_cp_imap_put(vp_cp_imap *m, int64_t k, int32_t v);
int32_t vp_cp_imap_get(const vp_cp_imap *m, int64_t k);
void vp_cp_imap_free(vp_cp_imap *m);

/* A point in time: the start or the end of an event (HTA's CPNode). */
typedef struct vp_cp_node {
    int64_t ts;
    int32_t row;
    uint8_t is_start;
    uint8_t blocking;   /* a synchronising runtime call: its span weighs 0 */
} vp_cp_node;

typedef struct vp_cp_edge {
    int32_t u, v;
    int64_t weight;      /* HTA's CPEdge.weight */
    int64_t gweight;     /* the graph's weight (negative spans count 0) */
    int32_t attr;        /* attributed row, -1 = HTA's root (-1), -2 = none */
    int32_t next_out, next_in;
    uint8_t type;
} vp_cp_edge;

typedef struct vp_cp_graph {
    vp_critpath *cp;
    const vp_cp_opts *o;
    uint8_t *clipped;            /* per row: in the window's frame */
    int32_t *start_node, *end_node;  /* per row, -1 */
    vp_cp_node *nodes;
    size_t nnodes;
    vp_cp_edge *edges;
    size_t nedges, cap;
    int32_t *out_head, *out_tail, *in_head, *in_tail;  /* per node, -1 */
    int32_t *order;              /* nodes in the order the graph first saw them */
    size_t norder;
    uint8_t *seen;
    size_t no_edge;              /* kernels with no edge into them */
} vp_cp_graph;

uint32_t vp_cp_intern(vp_critpath *cp, const char *s, size_t n);
/* whole: keep every row (no window assumed while streaming). */
int vp_cp_load(vp_critpath *cp, const char *path, const vp_cp_opts *o, int whole, vp_error *err);
/* A CPU-side ProfilerStep#N row: 1 with N. */
int vp_cp_is_step(const vp_critpath *cp, const vp_cp_row *r, long *number);
int vp_cp_is_named(const vp_critpath *cp, const vp_cp_row *r, const char *name);
int vp_cp_is_data_load(const vp_critpath *cp, const vp_cp_opts *o, const vp_cp_row *r);

/* Adds (or, as networkx does for an existing pair, updates) an edge; the
 * weight is dest.ts - src.ts unless the type or zero_weight says 0. */
int32_t vp_cp_add_edge(vp_cp_graph *g, int32_t u, int32_t v, vp_cp_edge_type type, int zero_weight);
/* HTA's _attribute_edge. */
void vp_cp_attribute(vp_cp_graph *g, int32_t e, int32_t src_parent);

void vp_cp_make_nodes(vp_cp_graph *g);
void vp_cp_runtime_lock_edges(vp_cp_graph *g);
int vp_cp_shares_lock(const vp_cp_graph *g, int32_t a, int32_t b);
void vp_cp_call_stack_edges(vp_cp_graph *g);
void vp_cp_kernel_edges(vp_cp_graph *g);
void vp_cp_gpu_cache_free(vp_critpath *cp);

#endif
