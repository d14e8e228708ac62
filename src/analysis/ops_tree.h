/* The private part of vprof ops' trace pass (ops_read.c takes the
 * events, ops_tree.c makes the held slices into torch's operator trees). */
#ifndef VPROF_ANALYSIS_OPS_TREE_H
#define VPROF_ANALYSIS_OPS_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/corrjoin.h"
#include "vprof/ops.h"
#include "vprof/steps.h"
#include "vprof/util.h"

enum { K_OP, K_CALL, K_MOD };   /* K_MOD: an nn.Module frame (--by module) */

/* A CPU slice, held until its file ends. */
typedef struct slice {
    int64_t ts, end;
    int64_t corr;       /* a runtime call's correlation id; -1: none */
    uint32_t name;      /* K_OP: the model's name; K_CALL: calls[] (the row name in rname) */
    uint32_t rname;     /* the row's name when it is a row, else UINT32_MAX */
    uint32_t shape;
    uint32_t thread;
    uint32_t order;     /* its place in the file: torch's sort is stable */
    uint8_t kind;
} slice;

typedef struct file_pass {
    vp_ops *m;
    size_t file;
    vp_strmap *threads, *calls;  /* "pid tid" -> index + 1; runtime call and module names */
    slice *s;
    size_t n, cap;
    vp_corrjoin *gpu;   /* kernels, memcpys, memsets by correlation id */
    vp_steps *steps;
    vp_buf tmp;
    vp_buf last_thread;  /* the "pid tid" of the last slice held, and its index */
    uint32_t last_tid;
    uint64_t ops, no_dur;
} file_pass;

/* Sorts slices as torch does: per thread, by start, the longer first at
 * equal starts, then in file order (ops_sort.c: by thread, then merging
 * the runs the file holds). */
void ops_sort_slices(slice *s, size_t n);

/* Walks sorted slices as trees, one per thread: a slice is inside the open
 * one above it when it starts before that one's end and ends by it.
 * open(ctx, i, depth) as slice i opens (depth 0: a root), close(ctx, i,
 * depth) as it closes, after its children.  Used by vprof ops and vprof
 * sequences (one nesting rule for both). */
typedef struct slice_walk {
    void (*open)(void *ctx, size_t i, size_t depth);
    void (*close)(void *ctx, size_t i, size_t depth);
    void *ctx;
} slice_walk;
void ops_walk_slices(const slice *s, size_t n, const slice_walk *w);

/* Sorts the held slices and GPU work and adds every tree's operators to
 * fp->m's rows. */
void ops_build_trees(file_pass *fp);

#endif
