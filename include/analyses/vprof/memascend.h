/* Ascend memory (docs/ascend.md): each rank's memory_record.csv,
 * operator_memory.csv and npu_module_mem.csv, read from a profile
 * directory or one file, and the operators holding the most at each
 * allocator's peak. */
#ifndef VPROF_MEMASCEND_H
#define VPROF_MEMASCEND_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/ascend_files.h"
#include "vprof/ascend_memory.h"
#include "vprof/error.h"

typedef struct vp_asc_rankmem {
    long rank;
    vp_asc_mem rec, mod;           /* memory_record.csv, npu_module_mem.csv */
    vp_asc_opmem *ops;             /* operator_memory.csv */
    size_t nops;
    int has_rec, has_mod, has_ops;
} vp_asc_rankmem;

/* A directory (every rank's memory files; is_dir) or one file of the kind
 * given, as rank 0.  0, or -1 with err set. */
int vp_asc_rankmem_load(const char *path, int is_dir, vp_asc_file kind, vp_asc_rankmem **out,
                        size_t *n, vp_error *err);
/* One rank's memory files (those it has) into *out, zeroed by the
 * caller; 0, or -1 with err set (free *out either way). */
int vp_asc_rankmem_load_rank(const vp_asc_rank *r, vp_asc_rankmem *out, vp_error *err);
void vp_asc_rankmem_free(vp_asc_rankmem *in, size_t n);

/* The operators alive at an allocator's peak (component "PTA": aten::,
 * "GE": cann::, "": the others) in operator_memory.csv: the peak is the
 * row with the highest Allocation Total Allocated (the earliest on a tie),
 * the blocks alive then were allocated by then and released after it (or
 * never); summed per operator, most bytes first, then by name. */
typedef struct vp_asc_opsum {
    const char *name;              /* the row's, owned by the rows */
    int64_t bytes, blocks;
} vp_asc_opsum;

/* 0 when the component has no row with allocation totals; else 1, with
 * the peak's total and time and *sums (malloc'ed) of *nsums operators. */
int vp_asc_ops_at_peak(const vp_asc_opmem *rows, size_t n, const char *component,
                       int64_t *peak_total, int64_t *peak_ts, vp_asc_opsum **sums, size_t *nsums);

#endif
