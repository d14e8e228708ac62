/* The launches and api passes behind summary's call findings. */
#include <string.h>

#include "cmd/callfacts_cli.h"
#include "vprof/error.h"
#include "vprof/part.h"

struct vp_calls_part {
    vp_launches_opts lo;
    vp_evsum_opts ao;
    vp_launches l;
    vp_evsum api;
    int unread;             /* inputs neither analysis read */
};

vp_calls_part *vp_calls_part_new(const vp_common_opts *common)
{
    vp_calls_part *c = vp_calloc(1, sizeof *c);
    const vp_step_range *steps = common->has_steps ? &common->steps : NULL;
    /* HTA's cutoffs, as vprof launches; no per-launch rows */
    c->lo = (vp_launches_opts){.runtime_cutoff = 50000, .delay_cutoff = 100000, .steps = steps,
                               .keep = 0, .partial = common->partial};
    c->ao = (vp_evsum_opts){.family = VP_EVSUM_API, .steps = steps, .partial = common->partial};
    vp_launches_init(&c->l, &c->lo);
    vp_evsum_init(&c->api, &c->ao);
    return c;
}

void vp_calls_part_free(vp_calls_part *c)
{
    if (!c)
        return;
    vp_launches_free(&c->l);
    vp_evsum_free(&c->api);
    free(c);
}

/* varint unread inputs, then the launches partial and the api one, each
 * behind its length. */
static void put_all(vp_buf *out, int unread, const vp_launches *l, const vp_evsum *api)
{
    vp_buf b = {0};
    vp_put_u64(out, (uint64_t)unread);
    vp_launches_save(l, &b);
    vp_put_str(out, b.data ? b.data : "", b.len);
    b.len = 0;
    vp_evsum_save(api, &b);
    vp_put_str(out, b.data ? b.data : "", b.len);
    vp_buf_free(&b);
}

void vp_calls_part_analyse(const vp_calls_part *c, const char *input, size_t i, vp_buf *out)
{
    vp_launches l;
    vp_evsum api;
    vp_launches_init(&l, &c->lo);
    vp_evsum_init(&api, &c->ao);
    vp_error err = {0};
    /* the run's own pass has said what this input holds (steps missing,
     * truncation): the same warnings twice more would only repeat it */
    int quiet = vp_quiet;
    vp_quiet = 1;
    int ok = vp_launches_read(&l, input, i, &err) == VP_EXIT_OK &&
             vp_evsum_read(&api, input, i, &err) == VP_EXIT_OK;
    vp_quiet = quiet;
    if (!ok) {
        vp_launches_free(&l);
        vp_evsum_free(&api);
        vp_launches_init(&l, &c->lo);
        vp_evsum_init(&api, &c->ao);
    }
    put_all(out, !ok, &l, &api);
    vp_launches_free(&l);
    vp_evsum_free(&api);
}

void vp_calls_part_merge(vp_calls_part *c, struct vp_rd *r, vp_error *err)
{
    c->unread += (int)vp_get_u64(r);
    size_t ln, an;
    const char *lp = vp_get_str(r, &ln), *ap = vp_get_str(r, &an);
    if (r->bad || vp_launches_merge(&c->l, lp, ln, err) != 0 ||
        vp_evsum_merge(&c->api, ap, an, err) != 0)
        r->bad = 1;
}

void vp_calls_part_save(const vp_calls_part *c, vp_buf *out)
{
    put_all(out, c->unread, &c->l, &c->api);
}

int vp_calls_part_facts(vp_calls_part *c, vp_call_facts *out)
{
    if (c->unread)
        return -1;
    vp_launches_finish(&c->l);
    vp_evsum_finish(&c->api);
    vp_call_facts_of(&c->l, &c->api, c->lo.steps != NULL, out);
    return 0;
}
