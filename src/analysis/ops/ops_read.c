/* The trace pass of vprof ops (vprof/ops.h): one file's CPU slices made
 * into per-thread trees as torch's profiler makes them, summed per row.
 *
 * The slices of a file are held until it ends, in one list per thread
 * (32 bytes each): Kineto writes a thread's operators first and its
 * runtime calls later, so no thread arrives in time order and a stack
 * alone cannot nest them.  The held slices are freed after each file;
 * what stays is one row per key. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "vprof/classify.h"
#include "vprof/ops.h"
#include "vprof/rank.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"
#include "analysis/ops/ops_tree.h"

static int span_is(vp_span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* torch drops these before it builds its tree (profiler_util.py,
 * _filter_name): profiler bookkeeping and trivial accessors. */
static int torch_filtered(vp_span name)
{
    static const char *const names[] = {
        "profiler::_record_function_enter", "profiler::_record_function_enter_new",
        "profiler::_record_function_exit", "aten::is_leaf", "aten::output_nr", "aten::_version",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (span_is(name, names[i]))
            return 1;
    return 0;
}

static uint32_t intern_local(vp_strmap *map, const char *s, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(map, s, n, &inserted);
    if (inserted)
        *slot = (void *)(uintptr_t)vp_strmap_count(map);
    return (uint32_t)((uintptr_t)*slot - 1);
}

/* A name's place in a name_cache (n > 0): its length and four of its
 * bytes, the end and middle ones, where the names of one trace differ
 * (most share their first bytes: "aten::", "cuda"); a collision costs
 * only a look-up in the map. */
static size_t cache_slot(const char *p, size_t n)
{
    size_t h = n * 40503u ^ (unsigned char)p[n - 1] ^ (size_t)(unsigned char)p[n / 2] << 5 ^
               (size_t)(unsigned char)p[n / 4] << 10 ^ (size_t)(unsigned char)p[n * 3 / 4] << 3;
    return h % OPS_NCACHE;
}

/* The model's name of an operator: vp_ops_name, whose answer depends only
 * on the bytes; the cache keeps the names that are their own row name
 * (not ProfilerStep#N), so a hit is the same name. */
static uint32_t op_name(file_pass *fp, const char *p, size_t n)
{
    vp_ops *m = fp->m;
    if (n == 0)
        return vp_ops_name(m, p, n);
    size_t k = cache_slot(p, n);
    name_cache *c = &fp->op_names;
    if (c->idx[k] && c->len[k] == n && memcmp(m->names[c->idx[k] - 1], p, n) == 0)
        return c->idx[k] - 1;
    uint32_t i = vp_ops_name(m, p, n);
    if (n <= UINT32_MAX && strlen(m->names[i]) == n && memcmp(m->names[i], p, n) == 0) {
        c->idx[k] = i + 1;
        c->len[k] = (uint32_t)n;
    }
    return i;
}

/* The index of a runtime call's or module's name in fp->calls, made when
 * new; *added says whether it was. */
static uint32_t call_name(file_pass *fp, const char *p, size_t n, int *added)
{
    *added = 0;
    size_t k = n ? cache_slot(p, n) : 0, len;
    name_cache *c = &fp->call_names;
    if (n && c->idx[k] && c->len[k] == n &&
        memcmp(vp_strmap_key(fp->calls, c->idx[k] - 1, &len), p, n) == 0)
        return c->idx[k] - 1;
    size_t before = vp_strmap_count(fp->calls);
    uint32_t i = intern_local(fp->calls, p, n);
    *added = vp_strmap_count(fp->calls) != before;
    if (n && n <= UINT32_MAX) {
        c->idx[k] = i + 1;
        c->len[k] = (uint32_t)n;
    }
    return i;
}

/* A JSON array's text as torch's str() of the list prints it: ", "
 * between items, no other blank outside strings ("long int" keeps its). */
/* Whether v is already as put_list prints it (as Kineto writes it): then
 * one copy does, not a byte at a time. */
static int canonical(vp_span v)
{
    int in_str = 0;
    for (size_t i = 0; i < v.n; i++) {
        char c = v.p[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == ',') {
            if (i + 1 >= v.n || v.p[i + 1] != ' ')
                return 0;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            return 0;
        }
    }
    return 1;
}

static void put_list(vp_buf *b, vp_span v)
{
    if (canonical(v)) {
        vp_buf_append(b, v.p, v.n);
        return;
    }
    int in_str = 0;
    for (size_t i = 0; i < v.n; i++) {
        char c = v.p[i];
        if (in_str) {
            vp_buf_putc(b, c);
            if (c == '\\' && i + 1 < v.n)
                vp_buf_putc(b, v.p[++i]);
            else if (c == '"')
                in_str = 0;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        vp_buf_putc(b, c);
        if (c == ',')
            vp_buf_putc(b, ' ');
        else if (c == '"')
            in_str = 1;
    }
}

/* The operator's "Input Dims" (and with VP_ODIM_ARGS its "Input type"
 * and "Concrete Inputs", after VP_OPS_ARGS_SEP each) as put_list prints
 * them, interned. */
static uint32_t shape_of(file_pass *fp, vp_span args)
{
    static const char *const keys[] = {"Input Dims", "Input type", "Concrete Inputs"};
    vp_span vals[3] = {{0}};
    int nkeys = fp->m->o.dims & VP_ODIM_ARGS ? 3 : 1;
    if (!args.p || vp_json_get_many(args, keys, (size_t)nkeys, vals) < 1)
        return 0;
    vp_span v = vals[0];
    if (!v.p || v.n == 0 || v.p[0] != '[')
        return 0;
    fp->m->dims_seen = 1;
    fp->tmp.len = 0;
    put_list(&fp->tmp, v);
    for (int k = 1; k < nkeys; k++) {
        vp_buf_putc(&fp->tmp, VP_OPS_ARGS_SEP);
        if (vals[k].p)
            put_list(&fp->tmp, vals[k]);
    }
    return vp_ops_shape(fp->m, fp->tmp.data, fp->tmp.len);
}

static int64_t arg_int(vp_span args, const char *key)
{
    vp_span v = {0};
    int64_t x;
    if (args.p && vp_json_get(args, key, &v) == 1 && v.p && vp_json_int(v, &x) == 0)
        return x;
    return -1;
}

static void hold(file_pass *fp, const vp_event *ev, int kind)
{
    vp_ops *m = fp->m;
    size_t np = ev->pid.p ? ev->pid.n : 0, nt = ev->tid.p ? ev->tid.n : 0;
    const char *lt = fp->last_thread.data;
    /* Consecutive slices are mostly of one thread: no key built, no hash
     * for them. */
    if (fp->last_thread.len != np + 1 + nt || lt[np] != ' ' ||
        (np && memcmp(lt, ev->pid.p, np) != 0) || (nt && memcmp(lt + np + 1, ev->tid.p, nt) != 0)) {
        vp_buf *k = &fp->last_thread;
        k->len = 0;
        vp_buf_append(k, np ? ev->pid.p : "", np);
        vp_buf_putc(k, ' ');
        vp_buf_append(k, nt ? ev->tid.p : "", nt);
        fp->last_tid = intern_local(fp->threads, k->data, k->len);
        if (fp->last_tid == fp->nt) {
            fp->t = vp_realloc(fp->t, (fp->nt + 1) * sizeof *fp->t);
            fp->t[fp->nt++] = (othread){0};
        }
    }
    othread *th = &fp->t[fp->last_tid];
    if (th->n == th->cap) {
        th->cap = th->cap ? th->cap * 2 : 256;
        th->v = vp_realloc(th->v, th->cap * sizeof *th->v);
    }
    oslice *s = &th->v[th->n++];
    fp->held++;
    s->ts = ev->ts;
    s->end = ev->ts + ev->dur;
    s->kind = (uint8_t)kind;
    s->x = kind == K_CALL ? -1 : 0;
    if (kind == K_OP) {
        s->name = op_name(fp, ev->name.p, ev->name.n);
        if (m->o.dims & VP_ODIM_SHAPE)
            s->x = shape_of(fp, ev->args);
        fp->ops++;
        return;
    }
    int added;
    s->name = call_name(fp, ev->name.p, ev->name.n, &added);
    if (added) {
        fp->call_row = vp_realloc(fp->call_row, (s->name + 1) * sizeof *fp->call_row);
        fp->call_row[s->name] = UINT32_MAX;
    }
    if (kind == K_MOD) {
        m->modules_seen = 1;
        return;
    }
    /* The row name is interned as the first call of the name is read:
     * the model's names keep the order of their first sight. */
    if (m->o.runtime && fp->call_row[s->name] == UINT32_MAX)
        fp->call_row[s->name] = vp_ops_name(m, ev->name.p, ev->name.n);
    s->x = arg_int(ev->args, "correlation");
}

static void take_event(void *ctx, const vp_event *ev)
{
    file_pass *fp = ctx;
    if (ev->ph != 'X')
        return;
    vp_gpu_kind gk = vp_gpu_kind_of(ev->cat);
    if (gk == VP_GPU_KERNEL || gk == VP_GPU_MEMCPY || gk == VP_GPU_MEMSET) {
        int64_t corr = arg_int(ev->args, "correlation");
        fp->m->gpu = 1;
        if (corr < 0 || !ev->has_dur)
            return;
        vp_corrjoin_work(fp->gpu, corr, ev->dur);
        return;
    }
    int kind;
    static const char module[] = "nn.Module: ";
    vp_ev_kind ek = vp_event_kind(ev->cat, ev->name);
    if ((fp->m->o.dims & VP_ODIM_MODULE) && ek == VP_EV_PYTHON &&
        ev->name.n > sizeof module - 1 && memcmp(ev->name.p, module, sizeof module - 1) == 0)
        kind = K_MOD;
    else if (vp_ev_is_op(ek) || (fp->m->o.python && ek == VP_EV_PYTHON))
        kind = K_OP;
    else if (ek == VP_EV_RUNTIME || ek == VP_EV_DRIVER)
        kind = K_CALL;
    else if (ev->cat.n == 0 && span_is(ev->pid, "\"CPU functions\""))
        kind = K_OP;   /* torch's legacy trace (without Kineto) */
    else
        return;
    if (!ev->has_ts || !ev->has_dur) {
        fp->no_dur++;
        return;
    }
    if (torch_filtered(ev->name))
        return;
    hold(fp, ev, kind);
}

/* The first device name of the first trace that has one. */
static void device_of(vp_ops *m, const cJSON *meta)
{
    const cJSON *dp = cJSON_GetObjectItemCaseSensitive(meta, "deviceProperties");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(dp, 0), "name");
    if (m->device[0] || !cJSON_IsString(name) || strlen(name->valuestring) >= sizeof m->device)
        return;
    strcpy(m->device, name->valuestring);
}

vp_ops_file *vp_ops_file_begin(vp_ops *m, const char *input, size_t position)
{
    m->pos0 = position;
    file_pass *fp = vp_calloc(1, sizeof *fp);
    fp->m = m;
    fp->file = vp_ops_new_file(m, input);
    fp->threads = vp_strmap_new();
    fp->calls = vp_strmap_new();
    fp->gpu = vp_corrjoin_new();
    return fp;
}

void vp_ops_file_observe(vp_ops_file *f, const vp_event *ev)
{
    take_event(f, ev);
}

static void file_free(file_pass *fp)
{
    vp_strmap_free(fp->threads);
    vp_strmap_free(fp->calls);
    vp_buf_free(&fp->tmp);
    vp_buf_free(&fp->last_thread);
    for (size_t t = 0; t < fp->nt; t++)
        free(fp->t[t].v);
    free(fp->t);
    free(fp->call_row);
    free(fp->owner);
    vp_corrjoin_free(fp->gpu);
    free(fp);
}

/* The file's trees, once its pass read it whole; steps: the pass's
 * selected steps with a range, else NULL. */
static void file_done(file_pass *fp, const vp_trace_pass *p, vp_steps *steps)
{
    vp_ops *m = fp->m;
    fp->steps = steps;
    ops_build_trees(fp);
    m->ranks[fp->file] = p->rank;
    device_of(m, vp_trace_meta(p->trace));
}

void vp_ops_file_end(vp_ops_file *f, const vp_trace_pass *p, int ok)
{
    if (ok)
        file_done(f, p, f->m->o.steps ? p->steps : NULL);
    file_free(f);
}

int vp_ops_read(vp_ops *m, const char *input, size_t position, vp_error *err)
{
    vp_trace_pass p;
    vp_trace_pass_opts o = {.partial = m->o.partial, .range = m->o.steps,
                            .position = (long)position, .rank = -1};
    file_pass *fp = vp_ops_file_begin(m, input, position);
    int status = VP_EXIT_OK;
    if (vp_trace_pass_read(&p, input, &o, take_event, fp, err) != 0) {
        status = VP_EXIT_INPUT;
    } else {
        vp_trace_pass_warn(&p, &(vp_trace_pass_warnings){
                                   .no_steps_kept = ", so no operator is kept",
                                   .skipped = fp->no_dur,
                                   .skipped_what = "CPU slices without \"ts\" or \"dur\"",
                                   .utf8 = 1,
                               });
        file_done(fp, &p, p.steps);
        const vp_trace_stats *st = vp_trace_get_stats(p.trace);
        vp_trace_pass_say(m->o.say,
                          "%s: rank %ld (from %s); read %llu events in %llu bytes%s: %llu "
                          "operators, %zu runtime calls and operators held, %zu GPU activities",
                          vp_trace_name(p.trace), p.rank, vp_rank_source_name(p.rank_from),
                          (unsigned long long)st->events, (unsigned long long)st->bytes,
                          st->truncated ? " (truncated)" : "", (unsigned long long)fp->ops,
                          fp->held, vp_corrjoin_works(fp->gpu));
    }
    vp_trace_pass_close(&p);
    file_free(fp);
    return status;
}
