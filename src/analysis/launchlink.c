/* Correlation id -> launching call: an open-addressing hash map. */
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/launchlink.h"
#include "vprof/util.h"

typedef struct slot {
    int64_t corr;
    vp_launch_call call;
    int used;
} slot;

struct vp_launchlink {
    slot *slots;
    size_t cap, count;
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

vp_launchlink *vp_launchlink_new(void)
{
    return vp_calloc(1, sizeof(vp_launchlink));
}

void vp_launchlink_free(vp_launchlink *l)
{
    if (!l)
        return;
    free(l->slots);
    free(l);
}

static slot *find(const vp_launchlink *l, int64_t corr)
{
    size_t mask = l->cap - 1, i = mix((uint64_t)corr) & mask;
    while (l->slots[i].used && l->slots[i].corr != corr)
        i = (i + 1) & mask;
    return &l->slots[i];
}

static void grow(vp_launchlink *l)
{
    slot *old = l->slots;
    size_t n = l->cap;
    l->cap = n ? n * 2 : 1024;
    l->slots = vp_calloc(l->cap, sizeof *l->slots);
    for (size_t i = 0; i < n; i++)
        if (old[i].used)
            *find(l, old[i].corr) = old[i];
    free(old);
}

void vp_launchlink_put(vp_launchlink *l, int64_t corr, const vp_launch_call *call)
{
    if ((l->count + 1) * 4 > l->cap * 3)
        grow(l);
    slot *s = find(l, corr);
    if (!s->used) {
        s->used = 1;
        s->corr = corr;
        s->call = *call;
        l->count++;
    } else if (call->ts < s->call.ts) {
        s->call = *call;   /* several CPU events share an id: the first launched it */
    }
}

int vp_launchlink_get(const vp_launchlink *l, int64_t corr, vp_launch_call *out)
{
    if (!l->cap)
        return 0;
    const slot *s = find(l, corr);
    if (!s->used)
        return 0;
    *out = s->call;
    return 1;
}

size_t vp_launchlink_count(const vp_launchlink *l)
{
    return l->count;
}
