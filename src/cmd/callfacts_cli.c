/* The launches and api passes behind summary's call findings. */
#include <string.h>

#include "cmd/callfacts_cli.h"
#include "cmd/scale.h"
#include "vprof/error.h"
#include "vprof/part.h"

typedef struct calls_ctx {
    vp_launches_opts lo;
    vp_evsum_opts ao;
    vp_launches l;
    vp_evsum api;
} calls_ctx;

/* One input's partial: the launches partial, then the api one, each
 * behind its length. */
static void put_both(vp_buf *out, const vp_launches *l, const vp_evsum *api)
{
    vp_buf b = {0};
    vp_launches_save(l, &b);
    vp_put_str(out, b.data ? b.data : "", b.len);
    b.len = 0;
    vp_evsum_save(api, &b);
    vp_put_str(out, b.data ? b.data : "", b.len);
    vp_buf_free(&b);
}

static int calls_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    calls_ctx *c = ctx;
    vp_launches l;
    vp_evsum api;
    vp_launches_init(&l, &c->lo);
    vp_evsum_init(&api, &c->ao);
    vp_error err = {0};
    int status = vp_launches_read(&l, input, i, &err);
    if (status == VP_EXIT_OK)
        status = vp_evsum_read(&api, input, i, &err);
    if (status == VP_EXIT_OK)
        put_both(out, &l, &api);
    vp_launches_free(&l);
    vp_evsum_free(&api);
    return status;
}

static int calls_merge(void *ctx, const void *p, size_t n, vp_error *err)
{
    calls_ctx *c = ctx;
    vp_rd r;
    vp_rd_init(&r, p, n);
    size_t ln, an;
    const char *lp = vp_get_str(&r, &ln), *ap = vp_get_str(&r, &an);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged partial result");
        return -1;
    }
    if (vp_launches_merge(&c->l, lp, ln, err) != 0)
        return -1;
    return vp_evsum_merge(&c->api, ap, an, err);
}

static void calls_save(void *ctx, vp_buf *out)
{
    calls_ctx *c = ctx;
    put_both(out, &c->l, &c->api);
}

int vp_call_facts_read(const vp_common_opts *common, char *const *inputs, size_t n,
                       vp_call_facts *out)
{
    calls_ctx c;
    memset(&c, 0, sizeof c);
    const vp_step_range *steps = common->has_steps ? &common->steps : NULL;
    /* HTA's cutoffs, as vprof launches; no per-launch rows */
    c.lo = (vp_launches_opts){.runtime_cutoff = 50000, .delay_cutoff = 100000, .steps = steps,
                              .keep = 0, .partial = common->partial};
    c.ao = (vp_evsum_opts){.family = VP_EVSUM_API, .steps = steps, .partial = common->partial};
    vp_launches_init(&c.l, &c.lo);
    vp_evsum_init(&c.api, &c.ao);
    /* quietly, one worker per core as summary's own pass, no partial files */
    vp_common_opts o = *common;
    o.save_part = NULL;
    o.verbose = 0;
    vp_parts parts = {"summary-calls", 1, calls_analyse, calls_merge, calls_save, &c};
    /* the run's own pass has said what these traces hold (steps missing,
     * truncation): the same warnings twice more would only repeat it */
    int quiet = vp_quiet;
    vp_quiet = 1;
    int status = vp_parts_run(&o, &parts, inputs, n);
    vp_quiet = quiet;
    if (status == VP_EXIT_OK) {
        vp_launches_finish(&c.l);
        vp_evsum_finish(&c.api);
        vp_call_facts_of(&c.l, &c.api, steps != NULL, out);
    }
    vp_launches_free(&c.l);
    vp_evsum_free(&c.api);
    return status == VP_EXIT_OK ? 0 : -1;
}
