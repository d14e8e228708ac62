/* Kernels of two runs matched by name for `vprof diff`.
 *
 * A kernel recompiled with other literal template arguments (a tile size
 * `<128, 64>` -> `<256, 64>`, an unrolling `2ul` -> `5ul`) has another
 * name, yet is the same kernel to its user.  Names are matched exactly
 * first; what is left on each side (kernels only one run has) is matched
 * by the name's literal-free form (vp_kname_key), one to one: a key that
 * several leftover names of one run share is ambiguous, and none of its
 * names is paired (docs/ci.md "Kernel names"). */
#ifndef VPROF_KPAIR_H
#define VPROF_KPAIR_H

#include <stddef.h>

#include "vprof/runstats.h"
#include "vprof/util.h"

/* The name with each literal replaced by '#': a number that is a token of
 * its own (digits not preceded by a letter, digit or '_' and not followed
 * by one after its suffix: 128, -1, 2ul, 0x1F, 1.5f, 1e-3) and the words
 * true and false.  Digits inside identifiers (volta_sgemm_128x64_nn) stay:
 * they name another kernel, not an argument. */
void vp_kname_key(const char *name, vp_buf *out);

/* Two names with the same key shown as one: the common text once, each
 * literal that differs as OLD->NEW: `k<128->256, 64>(int)`. */
void vp_kname_merged(const char *base, const char *now, vp_buf *out);

typedef struct vp_kpair {
    long base, now;    /* indices of vp_run_kernel in each run; -1: none (new, gone) */
    int paired;        /* 1: names differ only in literals */
} vp_kpair;

/* Every kernel with instances in either run, matched: exact names, then
 * (unless exact_only) pairs by key.  *ambiguous: leftover kernels left
 * unpaired because their key is shared.  Returns the count; *out is
 * the caller's to free. */
size_t vp_kernel_pairs(const vp_run *base, const vp_run *now, int exact_only, vp_kpair **out,
                       size_t *ambiguous);

#endif
