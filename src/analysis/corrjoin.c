/* The correlation join (vprof/corrjoin.h): an open-addressing hash map
 * from correlation id to both sides, one probe a record either way.
 *
 * Columns, not slots of a struct: the ids are probed alone (8 bytes a
 * slot in the probe's cache lines), and a column is made only when a
 * record needs it, so a join of one side pays for that side alone: the
 * GPU time for vprof ops, the calls for vprof launches.  A column made late starts at the value every slot
 * had implicitly (0; for ts, NO_CALL). */
#include <stdlib.h>

#include "vprof/classify.h"
#include "vprof/corrjoin.h"
#include "vprof/util.h"

#define EMPTY INT64_MIN     /* a free slot's key */
#define NO_CALL INT64_MAX   /* ts of a slot without a call */

struct vp_corrjoin {
    int64_t *keys;
    int64_t *gpu;           /* GPU time under the id; NULL until some is recorded */
    int64_t *ts;            /* the call's start, NO_CALL: none; NULL until a call */
    int64_t *dur;           /* NULL while every call's is 0 */
    uint32_t *api;          /* NULL while every call's is 0 */
    size_t cap, used;       /* slots, and slots holding an id */
    size_t calls, works;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static int span_correlation(vp_span args, int64_t *corr)
{
    vp_span v;
    return args.p && vp_json_get(args, "correlation", &v) && vp_json_int(v, corr) == 0;
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

vp_corrjoin *vp_corrjoin_new(void)
{
    return vp_calloc(1, sizeof(vp_corrjoin));
}

void vp_corrjoin_free(vp_corrjoin *j)
{
    if (!j)
        return;
    free(j->keys);
    free(j->gpu);
    free(j->ts);
    free(j->dur);
    free(j->api);
    free(j);
}

/* The slot of key, or the free slot where it would go. */
static size_t find(const vp_corrjoin *j, int64_t key)
{
    size_t mask = j->cap - 1, i = mix((uint64_t)key) & mask;
    while (j->keys[i] != EMPTY && j->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

static int64_t *new_i64(size_t n, int64_t fill)
{
    int64_t *v = fill ? vp_malloc(n * sizeof *v) : vp_calloc(n, sizeof *v);
    if (fill)
        for (size_t i = 0; i < n; i++)
            v[i] = fill;
    return v;
}

static void grow(vp_corrjoin *j)
{
    vp_corrjoin old = *j;
    j->cap = old.cap ? old.cap * 2 : 1024;
    j->keys = new_i64(j->cap, EMPTY);
    j->gpu = old.gpu ? new_i64(j->cap, 0) : NULL;
    j->ts = old.ts ? new_i64(j->cap, NO_CALL) : NULL;
    j->dur = old.dur ? new_i64(j->cap, 0) : NULL;
    j->api = old.api ? vp_calloc(j->cap, sizeof *j->api) : NULL;
    for (size_t i = 0; i < old.cap; i++) {
        if (old.keys[i] == EMPTY)
            continue;
        size_t k = find(j, old.keys[i]);
        j->keys[k] = old.keys[i];
        if (old.gpu)
            j->gpu[k] = old.gpu[i];
        if (old.ts)
            j->ts[k] = old.ts[i];
        if (old.dur)
            j->dur[k] = old.dur[i];
        if (old.api)
            j->api[k] = old.api[i];
    }
    free(old.keys);
    free(old.gpu);
    free(old.ts);
    free(old.dur);
    free(old.api);
}

/* The slot of key, made when new. */
static size_t upsert(vp_corrjoin *j, int64_t key)
{
    if ((j->used + 1) * 4 > j->cap * 3)
        grow(j);
    size_t i = find(j, key);
    if (j->keys[i] == EMPTY) {
        j->keys[i] = key;
        j->used++;
    }
    return i;
}

void vp_corrjoin_call(vp_corrjoin *j, int64_t corr, const vp_launch_call *call)
{
    if (corr == EMPTY)
        return;
    size_t i = upsert(j, corr);
    if (!j->ts)
        j->ts = new_i64(j->cap, NO_CALL);
    if (call->ts >= j->ts[i])
        return;   /* several CPU events share an id: the first launched it */
    if (j->ts[i] == NO_CALL)
        j->calls++;
    j->ts[i] = call->ts;
    if (call->dur && !j->dur)
        j->dur = new_i64(j->cap, 0);
    if (j->dur)
        j->dur[i] = call->dur;
    if (call->api && !j->api)
        j->api = vp_calloc(j->cap, sizeof *j->api);
    if (j->api)
        j->api[i] = call->api;
}

void vp_corrjoin_work(vp_corrjoin *j, int64_t corr, int64_t dur)
{
    if (corr == EMPTY)
        return;
    size_t i = upsert(j, corr);
    if (!j->gpu)
        j->gpu = new_i64(j->cap, 0);
    j->gpu[i] += dur;
    j->works++;
}

/* The slot of key, or SIZE_MAX. */
static size_t lookup(const vp_corrjoin *j, int64_t key)
{
    if (!j->cap || key == EMPTY)
        return SIZE_MAX;
    size_t i = find(j, key);
    return j->keys[i] == key ? i : SIZE_MAX;
}

int vp_corrjoin_launcher(const vp_corrjoin *j, int64_t corr, vp_launch_call *out)
{
    size_t i = lookup(j, corr);
    if (i == SIZE_MAX || !j->ts || j->ts[i] == NO_CALL)
        return 0;
    out->ts = j->ts[i];
    out->dur = j->dur ? j->dur[i] : 0;
    out->api = j->api ? j->api[i] : 0;
    return 1;
}

int64_t vp_corrjoin_gpu_time(const vp_corrjoin *j, int64_t corr)
{
    size_t i = lookup(j, corr);
    return i == SIZE_MAX || !j->gpu ? 0 : j->gpu[i];
}

size_t vp_corrjoin_calls(const vp_corrjoin *j)
{
    return j->calls;
}

size_t vp_corrjoin_works(const vp_corrjoin *j)
{
    return j->works;
}
