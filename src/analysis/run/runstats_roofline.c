/* The run's operators, read in its own pass over each trace for the
 * roofline metrics (roofline.gemm_pct, roofline.attention_pct), summary's
 * far_under_roof finding and the report's roofline chart: vprof
 * roofline's model (vprof/roofline.h) fed event by event by the same
 * reading as the run's metrics, so that a trace is read once. */
#include <stdlib.h>
#include <string.h>

#include "analysis/run/runstats_int.h"

vp_ops_file *vp_run_roof_begin(vp_run *r, const char *path, long position, const vp_run_opts *o)
{
    if (!o->roofline)
        return NULL;
    if (!r->roof) {
        r->roof_steps = o->steps;
        vp_roofline_opts ro = {.steps = o->steps_given ? &r->roof_steps : NULL,
                               .partial = o->partial};
        vp_ops_opts oo;
        vp_roofline_ops_opts(&ro, &oo);
        r->roof = vp_malloc(sizeof *r->roof);
        vp_ops_init(r->roof, &oo);
    }
    return vp_ops_file_begin(r->roof, path, (size_t)(position < 0 ? 0 : position));
}

/* The partial (run version 11): 0, or 1 and the ops partial of vprof
 * roofline's reading. */
void vp_run_roof_save(const vp_run *r, vp_buf *b)
{
    vp_put_u64(b, r->roof != NULL);
    if (!r->roof)
        return;
    vp_buf part = {0};
    vp_ops_save(r->roof, &part);
    vp_put_str(b, part.data ? part.data : "", part.len);
    vp_buf_free(&part);
}

void vp_run_roof_merge(vp_run *r, vp_rd *d, vp_error *err)
{
    uint64_t has = vp_get_u64(d);
    if (d->bad || has > 1) {
        d->bad = 1;
        return;
    }
    if (!has)
        return;
    size_t n;
    const char *p = vp_get_str(d, &n);
    if (d->bad)
        return;
    if (!r->roof) {
        vp_ops_opts oo;
        vp_roofline_ops_opts(&(vp_roofline_opts){0}, &oo);
        r->roof = vp_malloc(sizeof *r->roof);
        vp_ops_init(r->roof, &oo);
    }
    if (vp_ops_merge(r->roof, p, n, err) != 0)
        d->bad = 1;
}

void vp_run_roof_finish(vp_run *r)
{
    if (!r->roof)
        return;
    if (r->rl_built)
        vp_roofline_free(&r->rl);
    vp_ops_finish(r->roof, VP_OSORT_GPU_TOTAL);
    vp_roofline_build(&r->rl, &(vp_roofline_opts){0}, r->roof, r->roof->device, VP_RLSORT_TIME);
    r->rl_built = 1;
    double g = vp_roofline_weighted_pct(&r->rl, VP_RL_MASK_GEMM),
           a = vp_roofline_weighted_pct(&r->rl, VP_RL_MASK_ATTENTION);
    if (g >= 0)
        vp_run_set(r, "roofline.gemm_pct", g);
    if (a >= 0)
        vp_run_set(r, "roofline.attention_pct", a);
}

void vp_run_roof_free(vp_run *r)
{
    if (r->rl_built)
        vp_roofline_free(&r->rl);
    if (r->roof)
        vp_ops_free(r->roof);
    free(r->roof);
}

const vp_roofline *vp_run_roofline(const vp_run *r)
{
    return r->rl_built ? &r->rl : NULL;
}
