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

/* A CPU slice of vprof sequences, held until its file ends: 32 bytes. */
typedef struct slice {
    int64_t ts, end;
    uint32_t corr;      /* a runtime call's correlation id, by its index in
                           the pass's list; UINT32_MAX: none */
    uint32_t name;
    uint32_t thread;
    uint32_t order;     /* its place in the file: torch's sort is stable */
} slice;

/* vprof ops' held slice, in its thread's list: 32 bytes where a slice
 * takes 48 (the thread is the list's, the file order the place in it,
 * the row name follows from the name and kind). */
typedef struct oslice {
    int64_t ts, end;
    int64_t x;          /* K_CALL: the correlation id (-1: none); K_OP: the input dims */
    uint32_t name;      /* K_OP: the model's name; K_CALL, K_MOD: calls[] */
    uint8_t kind;
} oslice;

/* One thread's slices in file order, sorted when the file ends. */
typedef struct othread {
    oslice *v;
    size_t n, cap;
} othread;

/* The last names read, by a cheap hash of their bytes: index + 1 and
 * length of an interned name equal to those bytes (no hash of the whole
 * name, no map probe, for the few hundred names a trace repeats). */
enum { OPS_NCACHE = 1024 };
typedef struct name_cache {
    uint32_t idx[OPS_NCACHE], len[OPS_NCACHE];
} name_cache;

/* vprof/ops.h's vp_ops_file */
typedef struct vp_ops_file {
    vp_ops *m;
    size_t file;
    vp_strmap *threads, *calls;  /* "pid tid" -> index + 1; runtime call and module names */
    uint32_t *call_row;  /* per calls[] entry: its row name (--runtime), else UINT32_MAX */
    othread *t;          /* per thread */
    size_t nt, held;
    vp_corrjoin *gpu;   /* kernels, memcpys, memsets by correlation id */
    vp_steps *steps;
    vp_buf tmp;
    vp_buf last_thread;  /* the "pid tid" of the last slice held, and its index */
    uint32_t last_tid;
    uint64_t ops, no_dur;
    name_cache op_names, call_names;
    uint8_t *owner;     /* per model name, with o.owns: 0 not asked yet, 1 no, 2 owns */
    size_t nowner;
} file_pass;

/* One nesting rule for vprof ops and vprof sequences: a slice (sorted
 * after top, on its thread) is inside top when it starts before top's end
 * and ends by it. */
static inline int ops_nests(int64_t ts, int64_t end, int64_t top_end)
{
    return ts < top_end && end <= top_end;
}

/* Sorts slices as torch does: per thread, by start, the longer first at
 * equal starts, then in file order (ops_sort.c: by thread, then merging
 * the runs the file holds). */
void ops_sort_slices(slice *s, size_t n);

/* Walks sorted slices as trees, one per thread: a slice is inside the open
 * one above it when it starts before that one's end and ends by it.
 * open(ctx, i, depth) as slice i opens (depth 0: a root), close(ctx, i,
 * depth) as it closes, after its children.  vprof sequences' walk; vprof
 * ops walks its per-thread lists with the same rule (ops_nests). */
typedef struct slice_walk {
    void (*open)(void *ctx, size_t i, size_t depth);
    void (*close)(void *ctx, size_t i, size_t depth);
    void *ctx;
} slice_walk;
void ops_walk_slices(const slice *s, size_t n, const slice_walk *w);

/* Sorts one thread's slices as torch does (by start, the longer first
 * at equal starts, then in file order), merging the ascending runs they
 * hold in place (ops_sort.c). */
void ops_sort_thread(othread *t);

/* Sorts the held slices and adds every tree's operators to fp->m's rows. */
void ops_build_trees(file_pass *fp);

#endif
