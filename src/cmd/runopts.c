/* Options shared by summary, diff and check (see runopts.h). */
#include <stdlib.h>
#include <string.h>

#include "cmd/callfacts_cli.h"
#include "cmd/runopts.h"
#include "cmd/scale.h"

void vp_run_cli_init(vp_run_cli *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->run.progress = 1;
}

static int number(const char *cmd, const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0)) {
        vp_usage_error(cmd, "%s: expected a positive number, found '%s'", opt, arg);
        return -1;
    }
    *out = v;
    return 1;
}

int vp_run_option(vp_run_cli *o, const char *cmd, int c, const char *arg)
{
    double v;
    switch (c) {
    case VP_OPT_RUN_MODEL:
        o->mfu.model = arg;
        return 1;
    case VP_OPT_RUN_TOKENS:
        return number(cmd, "--tokens-per-step", arg, &o->mfu.tokens_per_step);
    case VP_OPT_RUN_SEQLEN:
        return number(cmd, "--seq-len", arg, &o->mfu.seq_len);
    case VP_OPT_RUN_PEAK:
        return number(cmd, "--peak-tflops", arg, &o->mfu.peak_tflops);
    case VP_OPT_RUN_WORLD:
        if (number(cmd, "--world-size", arg, &v) < 0)
            return -1;
        o->mfu.world_size = (long)v;
        return 1;
    default:
        return 0;
    }
}

typedef struct run_ctx {
    vp_run *run;
    vp_run_opts opts;
    vp_calls_part *calls;   /* summary's call facts; NULL: none */
} run_ctx;

/* With calls, the partial is the run's behind its length, then the
 * calls'; without, the run's alone (as before). */
static void save_framed(const run_ctx *rc, const vp_run *run, const vp_calls_part *calls,
                        vp_buf *out)
{
    if (!rc->calls) {
        vp_run_save(run, out);
        return;
    }
    vp_buf b = {0};
    vp_run_save(run, &b);
    vp_put_str(out, b.data ? b.data : "", b.len);
    vp_buf_free(&b);
    vp_calls_part_save(calls, out);
}

static int run_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    const run_ctx *rc = ctx;
    vp_error err = {0};
    vp_run *one = vp_run_new();
    int st = VP_EXIT_OK;
    if (vp_run_add_file(one, input, (long)i, &rc->opts, &err) != 0) {
        vp_error_print(&err);
        st = err.status ? err.status : VP_EXIT_INPUT;
    } else if (!rc->calls) {
        vp_run_save(one, out);
    } else {
        vp_buf b = {0};
        vp_run_save(one, &b);
        vp_put_str(out, b.data ? b.data : "", b.len);
        vp_buf_free(&b);
        vp_calls_part_analyse(rc->calls, input, i, out);
    }
    vp_run_free(one);
    return st;
}

static int run_merge(void *ctx, const void *p, size_t n, vp_error *err)
{
    run_ctx *rc = ctx;
    if (!rc->calls)
        return vp_run_merge(rc->run, p, n, err);
    vp_rd r;
    vp_rd_init(&r, p, n);
    size_t rn;
    const char *rp = vp_get_str(&r, &rn);
    if (r.bad || vp_run_merge(rc->run, rp, rn, err) != 0)
        return -1;
    vp_calls_part_merge(rc->calls, &r, err);
    if (!vp_rd_done(&r)) {
        if (!err->status)
            vp_error_set(err, VP_EXIT_INPUT, "damaged partial result");
        return -1;
    }
    return 0;
}

static void run_save(void *ctx, vp_buf *out)
{
    const run_ctx *rc = ctx;
    save_framed(rc, rc->run, rc->calls, out);
}

vp_run *vp_run_cli_read(const vp_run_cli *o, const vp_common_opts *common, char *const *paths,
                        size_t n, int *status)
{
    run_ctx rc = {vp_run_new(), o->run, o->calls ? vp_calls_part_new(common) : NULL};
    rc.opts.steps = common->steps;
    rc.opts.steps_given = common->has_steps;
    rc.opts.partial = common->partial;
    /* a partial with the call facts is another payload */
    uint64_t version = VP_RUN_PART_VERSION + (o->calls ? 1000 : 0);
    vp_parts parts = {o->cmd, version, run_analyse, run_merge, run_save, &rc};
    int st = vp_parts_run(common, &parts, paths, n);
    if (o->calls) {
        *o->have_calls = st == VP_EXIT_OK && vp_calls_part_facts(rc.calls, o->calls) == 0;
        vp_calls_part_free(rc.calls);
    }
    if (st != VP_EXIT_OK) {
        vp_run_free(rc.run);
        *status = st == VP_PARTS_DONE ? VP_EXIT_OK : st;
        return NULL;
    }
    vp_run_finish(rc.run);
    vp_error err = {0};
    if (o->mfu.model && vp_run_add_mfu(rc.run, &o->mfu, &err) != 0) {
        vp_run_free(rc.run);
        vp_error_print(&err);
        *status = err.status ? err.status : VP_EXIT_INPUT;
        return NULL;
    }
    return rc.run;
}
