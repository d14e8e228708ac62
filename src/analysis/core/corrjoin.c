/* The correlation join (vprof/corrjoin.h): two logs, not a hash map.
 *
 * A trace has a launching call and a piece of GPU work per kernel, so a
 * join of a large trace holds millions of ids, far more than the caches:
 * a hash map then pays a cache miss for every record and every lookup (in
 * `vprof comm` on a real-shaped trace, 21 % of the samples were the map's
 * probes).  Here each side is appended as it is read (sequential writes,
 * no rehashing), sorted by id once at the first question, and searched by
 * galloping from the previous answer.  CUPTI hands out correlation ids in
 * launch order, and both the calls and the GPU work come roughly in time
 * order, so the sort is mostly a check that the log is in order already,
 * and the lookups, which also come in roughly ascending ids, read memory
 * in order.  Records made after a question are taken too: the next
 * question sorts again. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/corrjoin.h"
#include "vprof/util.h"

#define NONE INT64_MIN      /* the id that is none */
#define NO_CALL INT64_MAX   /* the start of a call that is none */

/* Both records start with the id: the sort and the search read it there. */
_Static_assert(offsetof(vp_corr_work, corr) == 0, "the id first");
typedef struct call_rec {
    int64_t id, ts, dur;
    uint32_t api;
} call_rec;

/* A call of a join that keeps no api (vp_corrjoin_new_unnamed): 24 bytes,
 * not 32, for the launch log that steps keep of every runtime call. */
typedef struct call_rec24 {
    int64_t id, ts, dur;
} call_rec24;

typedef vp_corr_work work_rec;   /* {id, value}: GPU time, or a caller's index */

/* Records of one size, appended; `ready`: sorted by id (and, for a log
 * that folds, one record an id). */
typedef struct rec_log {
    char *v;
    size_t size, n, cap;
    int folds;       /* an id's records become one (calls) */
    int ready;
    size_t finger;   /* the last answer: where the next search starts */
} rec_log;

struct vp_corrjoin {
    rec_log calls, works;
    size_t works_taken;
};

static int64_t id_in(const char *v, size_t size, size_t i)
{
    int64_t id;
    memcpy(&id, v + i * size, sizeof id);
    return id;
}

static int64_t id_at(const rec_log *l, size_t i)
{
    return id_in(l->v, l->size, i);
}

static void *rec_at(const rec_log *l, size_t i)
{
    return l->v + i * l->size;
}

static void *log_append(rec_log *l, int64_t id)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->v = vp_realloc(l->v, l->cap * l->size);
    }
    if (l->n && (l->folds ? id <= id_at(l, l->n - 1) : id < id_at(l, l->n - 1)))
        l->ready = 0;
    else if (!l->n)
        l->ready = 1;
    return rec_at(l, l->n++);
}

/* One record copied: the records are 16 or 32 bytes, and a memcpy call
 * per record (its size known only at run time) cost more than the merge. */
static void copy_rec(char *dst, const char *src, size_t sz)
{
    if (sz == sizeof(call_rec))
        memcpy(dst, src, sizeof(call_rec));
    else if (sz == sizeof(call_rec24))
        memcpy(dst, src, sizeof(call_rec24));
    else if (sz == sizeof(work_rec))
        memcpy(dst, src, sizeof(work_rec));
    else
        memcpy(dst, src, sz);
}

/* Merges the sorted runs [lo, mid) and [mid, hi) of v in place through a
 * copy of the shorter one in *tmp (grown as needed), stably: of equal
 * ids, those of the first run stay first. */
static void merge_runs(char *v, size_t sz, size_t lo, size_t mid, size_t hi, char **tmp,
                       size_t *tcap)
{
    if (id_in(v, sz, mid - 1) <= id_in(v, sz, mid))
        return;
    size_t na = mid - lo, nb = hi - mid, nt = na < nb ? na : nb;
    if (nt > *tcap) {
        *tmp = vp_realloc(*tmp, nt * sz);
        *tcap = nt;
    }
    char *t = *tmp;
    if (na <= nb) {   /* the first run aside, merged forwards */
        memcpy(t, v + lo * sz, na * sz);
        size_t i = 0, j = mid, k = lo;
        while (i < na && j < hi) {
            if (id_in(v, sz, j) < id_in(t, sz, i))
                copy_rec(v + k++ * sz, v + j++ * sz, sz);
            else
                copy_rec(v + k++ * sz, t + i++ * sz, sz);
        }
        memcpy(v + k * sz, t + i * sz, (na - i) * sz);   /* the second's rest is in place */
    } else {          /* the second run aside, merged backwards */
        memcpy(t, v + mid * sz, nb * sz);
        size_t i = mid, j = nb, k = hi;
        while (i > lo && j > 0) {
            if (id_in(t, sz, j - 1) < id_in(v, sz, i - 1))
                copy_rec(v + --k * sz, v + --i * sz, sz);
            else
                copy_rec(v + --k * sz, t + --j * sz, sz);
        }
        memcpy(v + lo * sz, t, j * sz);   /* the first's rest is in place */
    }
}

typedef struct log_sorting {
    rec_log *l;
    char *tmp;
    size_t tcap;
} log_sorting;

static int log_descends(void *ctx, size_t i)
{
    const rec_log *l = ((log_sorting *)ctx)->l;
    return id_at(l, i) < id_at(l, i - 1);
}

static void log_merge(void *ctx, size_t lo, size_t mid, size_t hi)
{
    log_sorting *s = ctx;
    merge_runs(s->l->v, s->l->size, lo, mid, hi, &s->tmp, &s->tcap);
}

/* Stable sort by id, merging the ascending runs the log holds pairwise (vp_sort_runs)
 * (stable so that of an id's records the first read comes first: a tie
 * between calls keeps the first).  The logs come in few runs (the
 * launches of one thread after another's), so this is a pass or two,
 * and the copy aside is the shorter run of each merge, not the log. */
static void log_sort(rec_log *l)
{
    log_sorting s = {l, NULL, 0};
    vp_sort_runs(l->n, log_descends, log_merge, &s);
    free(s.tmp);
}

/* Sorts the log and, with fold, folds each id's records into its first;
 * without, an id's records stay side by side in the order recorded. */
static void log_prepare(rec_log *l, void (*fold)(void *into, const void *rec))
{
    if (!l->ready && l->n) {
        log_sort(l);
        if (!fold) {
            l->ready = 1;
            l->finger = 0;
            return;
        }
        size_t out = 0;
        for (size_t i = 0; i < l->n; i++) {
            if (out && id_at(l, out - 1) == id_at(l, i))
                fold(rec_at(l, out - 1), rec_at(l, i));
            else if (out++ != i)
                memcpy(rec_at(l, out - 1), rec_at(l, i), l->size);
        }
        l->n = out;
    }
    l->ready = 1;
    l->finger = 0;
}

/* The first record with an id >= key in [lo, hi), galloping up from lo. */
static size_t gallop_up(const rec_log *l, size_t lo, size_t hi, int64_t key)
{
    size_t stride = 1, below = lo;
    while (lo < hi && id_at(l, lo) < key) {
        below = lo + 1;
        lo = hi - lo > stride ? lo + stride : hi;
        stride *= 2;
    }
    while (below < lo) {   /* the answer is in [below, lo] */
        size_t mid = below + (lo - below) / 2;
        if (id_at(l, mid) < key)
            below = mid + 1;
        else
            lo = mid;
    }
    return lo;
}

/* The first record of key, or NULL; l must be ready.  The finger is
 * always the first of a run, so a search from it finds the first too. */
static void *log_find(rec_log *l, int64_t key)
{
    if (!l->n)
        return NULL;
    size_t f = l->finger, i;
    if (id_at(l, f) <= key) {
        i = gallop_up(l, f, l->n, key);
    } else {   /* behind the finger: gallop down past key, then up */
        size_t stride = 1, lo = f;
        while (lo > 0 && id_at(l, lo) >= key) {   /* >=: to the start of key's run */
            lo = lo > stride ? lo - stride : 0;
            stride *= 2;
        }
        i = gallop_up(l, lo, f, key);
    }
    if (i == l->n || id_at(l, i) != key)
        return NULL;
    l->finger = i;
    return rec_at(l, i);
}

/* Several CPU events share an id: the one that started first launched
 * the work (the sort is stable: of equal starts, the first read). */
static void fold_call(void *into, const void *rec)
{
    call_rec *a = into;
    const call_rec *b = rec;
    if (b->ts < a->ts)
        *a = *b;
}

static void fold_call24(void *into, const void *rec)
{
    call_rec24 *a = into;
    const call_rec24 *b = rec;
    if (b->ts < a->ts)
        *a = *b;
}

/* The questions are const to the callers: sorting and the finger are a
 * cache of what was recorded, not a change to it. */
static vp_corrjoin *ready(const vp_corrjoin *cj)
{
    vp_corrjoin *j = (vp_corrjoin *)cj;
    if (!j->calls.ready)
        log_prepare(&j->calls, j->calls.size == sizeof(call_rec) ? fold_call : fold_call24);
    if (!j->works.ready)
        log_prepare(&j->works, NULL);
    return j;
}

/* Asked of every launch and GPU event. */
VP_JSON_KEYSET(correlation_set, "correlation")

static int span_correlation(vp_span args, int64_t *corr)
{
    vp_span v;
    return args.p && vp_json_get_keyset(args, &correlation_set, &v) && vp_json_int(v, corr) == 0;
}

int vp_launch_correlation(const vp_event *ev, int64_t *corr)
{
    return ev->ph == 'X' && ev->has_ts && vp_is_launch_category(ev->cat) &&
           span_correlation(ev->args, corr);
}

int vp_gpu_correlation(const vp_event *ev, int64_t *corr)
{
    return span_correlation(ev->args, corr);
}

static vp_corrjoin *join_new(size_t call_size)
{
    vp_corrjoin *j = vp_calloc(1, sizeof *j);
    j->calls.size = call_size;
    j->works.size = sizeof(work_rec);
    j->calls.folds = 1;
    return j;
}

vp_corrjoin *vp_corrjoin_new(void)
{
    return join_new(sizeof(call_rec));
}

vp_corrjoin *vp_corrjoin_new_unnamed(void)
{
    return join_new(sizeof(call_rec24));
}

void vp_corrjoin_free(vp_corrjoin *j)
{
    if (!j)
        return;
    free(j->calls.v);
    free(j->works.v);
    free(j);
}

void vp_corrjoin_call(vp_corrjoin *j, int64_t corr, const vp_launch_call *call)
{
    if (corr == NONE || call->ts == NO_CALL)
        return;
    void *r = log_append(&j->calls, corr);
    if (j->calls.size == sizeof(call_rec))
        *(call_rec *)r = (call_rec){corr, call->ts, call->dur, call->api};
    else
        *(call_rec24 *)r = (call_rec24){corr, call->ts, call->dur};
}

void vp_corrjoin_work(vp_corrjoin *j, int64_t corr, int64_t dur)
{
    if (corr == NONE)
        return;
    work_rec *r = log_append(&j->works, corr);
    *r = (work_rec){.corr = corr, .dur = dur};
    j->works_taken++;
}

int vp_corrjoin_launcher(const vp_corrjoin *cj, int64_t corr, vp_launch_call *out)
{
    vp_corrjoin *j = ready(cj);
    const void *r = log_find(&j->calls, corr);
    if (!r)
        return 0;
    if (j->calls.size == sizeof(call_rec)) {
        const call_rec *c = r;
        *out = (vp_launch_call){c->ts, c->dur, c->api};
    } else {
        const call_rec24 *c = r;
        *out = (vp_launch_call){c->ts, c->dur, 0};
    }
    return 1;
}

const vp_corr_work *vp_corrjoin_work_records(const vp_corrjoin *cj, int64_t corr, size_t *n)
{
    rec_log *l = &ready(cj)->works;
    const work_rec *r = log_find(l, corr), *end = (const work_rec *)(l->v + l->n * l->size);
    *n = 0;
    while (r && r + *n < end && r[*n].corr == corr)
        ++*n;
    return r;
}

int64_t vp_corrjoin_gpu_time(const vp_corrjoin *cj, int64_t corr)
{
    size_t n;
    const vp_corr_work *w = vp_corrjoin_work_records(cj, corr, &n);
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += w[i].dur;
    return sum;
}

size_t vp_corrjoin_calls(const vp_corrjoin *cj)
{
    return ready(cj)->calls.n;
}

size_t vp_corrjoin_works(const vp_corrjoin *cj)
{
    return cj->works_taken;
}
