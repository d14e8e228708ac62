/* The natural merge sort that vprof's logs and lists share (vprof/util.h,
 * vp_sort_runs): they arrive in a few ascending runs (a thread's
 * operators then its runtime calls, one thread's launches after
 * another's), so a pass or two of pairwise merges sorts them. */
#include <stdlib.h>

#include "vprof/util.h"

void vp_sort_runs(size_t n, int (*descends)(void *ctx, size_t i),
                  void (*merge)(void *ctx, size_t lo, size_t mid, size_t hi), void *ctx)
{
    size_t nrun = 1;
    for (size_t i = 1; i < n; i++)
        nrun += descends(ctx, i) != 0;
    if (nrun < 2)
        return;
    size_t *run = vp_malloc((nrun + 1) * sizeof *run), k = 0;
    run[k++] = 0;
    for (size_t i = 1; i < n; i++)
        if (descends(ctx, i))
            run[k++] = i;
    run[k] = n;
    while (nrun > 1) {
        size_t out = 0;
        for (size_t r = 0; r < nrun; r += 2) {
            if (r + 1 < nrun)
                merge(ctx, run[r], run[r + 1], run[r + 2]);
            run[out++] = run[r];
        }
        run[out] = n;
        nrun = out;
    }
    free(run);
}
