/* Merge: the clock.  Every ts of an input moves by one shift onto the
 * merged clock: the difference of its baseTimeNanoseconds to the first
 * rank merged (base, the default), minus its first timestamp (start), or
 * that plus the median offset of the collective kernels it shares with
 * the first rank (collective: the k-th all-reduce of a rank ends when the
 * k-th of the others does). */
#include <stdint.h>
#include <stdlib.h>

#include "merge/merge_int.h"
#include "vprof/util.h"

int vp_mg_cmp_coll_key(const void *a, const void *b)
{
    const coll_end *x = a, *y = b;
    if (x->name != y->name)
        return (x->name > y->name) - (x->name < y->name);
    return (x->occurrence > y->occurrence) - (x->occurrence < y->occurrence);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Shifts of --align collective, against the first rank merged. */
void vp_mg_collective_offsets(merge *m, input *ref)
{
    int64_t *d = vp_malloc((size_t)m->coll_n * sizeof *d);
    int64_t rb = ref->has_base ? ref->base : 0;
    for (size_t i = 0; i < m->nin; i++) {
        input *in = &m->in[i];
        if (in->skipped || in == ref) {
            in->coll_matched = in == ref ? ref->ncolls : 0;
            continue;
        }
        int64_t ib = in->has_base ? in->base : 0;
        size_t n = 0;
        for (size_t k = 0; k < in->ncolls; k++) {
            coll_end *c = bsearch(&in->colls[k], ref->colls, ref->ncolls, sizeof *ref->colls,
                                  vp_mg_cmp_coll_key);
            if (c)
                d[n++] = (c->end + rb) - (in->colls[k].end + ib);
        }
        in->coll_matched = n;
        if (n) {
            qsort(d, n, sizeof *d, cmp_i64);
            in->coll_offset = n % 2 ? d[n / 2] : d[n / 2 - 1] + (d[n / 2] - d[n / 2 - 1]) / 2;
        } else {
            vp_mg_warn(m, VP_MERGE_NO_COLLECTIVE_MATCH, in->path, ref->rank, 0);
        }
    }
    free(d);
}

/* -- the main pass -------------------------------------------------------- */

int64_t vp_mg_shift_of(const merge *m, const input *in)
{
    int64_t b = in->has_base ? in->base : 0;
    switch (m->align) {
    case ALIGN_NONE:
        return 0;
    case ALIGN_START:
        return in->has_min ? -in->min_ts : 0;
    case ALIGN_COLLECTIVE:
        return b - m->out_base + in->coll_offset;
    default:
        return m->out_base_set ? b - m->out_base : 0;
    }
}
