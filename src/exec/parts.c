/* The driver of partial results (vprof/parts.h). */
#include <stdlib.h>
#include <string.h>

#include "vprof/exec.h"
#include "vprof/partfile.h"
#include "vprof/parts.h"

static void report(const vp_parts_job *j, const vp_error *err)
{
    if (j->hooks.report)
        j->hooks.report(j->hooks.ctx, err);
}

int vp_parts_each(const vp_parts_job *j)
{
    return j->save_part && strstr(j->save_part, "%i") != NULL;
}

static vp_part_kind kind_of(const vp_parts_job *j)
{
    vp_part_kind k = {j->command, j->a->version, j->options, j->noptions};
    return k;
}

static int write_part(const vp_parts_job *j, size_t index, const void *payload, size_t n,
                      uint64_t inputs)
{
    vp_part_kind k = kind_of(j);
    char *path = vp_part_path(j->save_part, j->rank, index);
    vp_error err = {0};
    int st = VP_EXIT_OK;
    if (vp_part_save(path, &k, inputs, payload, n, &err) != 0) {
        report(j, &err);
        st = VP_EXIT_INPUT;
    }
    free(path);
    return st;
}

/* Input i's partial at its turn: written to its own file, or merged. */
static int take(const vp_parts_job *j, const char *input, size_t i, const void *part, size_t n)
{
    if (vp_parts_each(j))
        return write_part(j, i, part, n, 1);
    vp_error err = {0};
    if (j->a->merge(j->model, part, n, &err) != 0) {
        vp_error shown = {0};
        vp_error_set(&shown, VP_EXIT_INPUT, "%s: %s: %s", j->command, input, err.msg);
        report(j, &shown);
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

int vp_parts_save(const vp_parts_job *j, uint64_t inputs)
{
    vp_buf payload = {0};
    j->a->save(j->model, &payload);
    int st = write_part(j, 0, payload.data, payload.len, inputs);
    vp_buf_free(&payload);
    return st;
}

/* ---- analysing inputs on the pool ---- */

typedef struct pooled {
    const vp_parts_job *j;
    char *const *inputs;
} pooled;

/* Input i read alone into a model of its own, saved as its partial. */
static int read_one(const vp_parts_job *j, const char *input, size_t i, vp_buf *out)
{
    void *one = j->a->new_model(j->opts);
    vp_error err = {0};
    int st = j->a->read(one, j->opts, input, i, &err);
    if (st == VP_EXIT_OK)
        j->a->save(one, out);
    else
        report(j, &err);
    j->a->free_model(one);
    return st;
}

static int pooled_work(void *ctx, size_t i, int worker, vp_buf *out)
{
    (void)worker;
    const pooled *x = ctx;
    if (x->j->analyse)
        return x->j->analyse(x->j->ctx, x->inputs[i], i, out);
    return read_one(x->j, x->inputs[i], i, out);
}

/* Input i's result at its turn: the worker's messages handed over, then
 * its partial taken. */
static int pooled_take(void *ctx, size_t i, const vp_pool_result *r)
{
    const pooled *x = ctx;
    const vp_parts_job *j = x->j;
    if (r->worker) {
        if (r->nmsg && j->hooks.echo)
            j->hooks.echo(j->hooks.ctx, r->msg, r->nmsg);
        if (!r->ok) {
            vp_error err = {0};
            if (r->signal)
                vp_error_set(&err, VP_EXIT_INPUT,
                             "%s: %s: the worker process %ld died of signal %d (%s)", j->command,
                             x->inputs[i], r->pid, r->signal, strsignal(r->signal));
            else
                vp_error_set(&err, VP_EXIT_INPUT,
                             "%s: %s: the worker process %ld failed without a result",
                             j->command, x->inputs[i], r->pid);
            report(j, &err);
            return VP_EXIT_INPUT;
        }
    }
    if (r->status != VP_EXIT_OK)
        return r->status;
    return take(j, x->inputs[i], i, r->data, r->n);
}

int vp_parts_analyse(const vp_parts_job *j, long jobs, char *const *inputs, size_t first,
                     size_t last)
{
    pooled x = {j, inputs};
    vp_pool pool = {pooled_work, pooled_take, NULL, &x};
    vp_error err = {0};
    int st = vp_pool_run(&pool, jobs, first, last, &err);
    if (err.status) {
        vp_error shown = {0};
        vp_error_set(&shown, err.status, "%s: %s", j->command, err.msg);
        report(j, &shown);
    }
    return st;
}

/* ---- reading partial files ---- */

static int take_loaded(void *ctx, const char *path, size_t i, const void *payload, size_t n)
{
    return take(ctx, path, i, payload, n);
}

int vp_parts_reduce(const vp_parts_job *j, char *const *paths, size_t n)
{
    vp_part_kind k = kind_of(j);
    vp_error err = {0};
    int st = vp_part_load_each(&k, paths, n, take_loaded, (void *)j, &err);
    if (err.status)
        report(j, &err);
    return st;
}
