/* The trace pass of vprof ops (vprof/ops.h): one file's CPU slices made
 * into per-thread trees as torch's profiler makes them, summed per row.
 *
 * The slices of a file are held until it ends (48 bytes each): Kineto
 * writes a thread's operators first and its runtime calls later, so no
 * thread arrives in time order and a stack alone cannot nest them.  The
 * held slices are freed after each file; what stays is one row per key. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/ops.h"
#include "vprof/rank.h"
#include "vprof/trace.h"
#include "analysis/ops_tree.h"

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

/* "Input Dims" as torch's str() of the list prints it: ", " between
 * items, no other blank. */
static uint32_t shape_of(file_pass *fp, vp_span args)
{
    vp_span v = {0};
    if (!args.p || vp_json_get(args, "Input Dims", &v) != 1 || !v.p || v.n == 0 || v.p[0] != '[')
        return 0;
    fp->m->dims_seen = 1;
    fp->tmp.len = 0;
    for (size_t i = 0; i < v.n; i++) {
        char c = v.p[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        vp_buf_putc(&fp->tmp, c);
        if (c == ',')
            vp_buf_putc(&fp->tmp, ' ');
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
    if (fp->n == fp->cap) {
        fp->cap = fp->cap ? fp->cap * 2 : 4096;
        fp->s = vp_realloc(fp->s, fp->cap * sizeof *fp->s);
    }
    slice *s = &fp->s[fp->n];
    s->ts = ev->ts;
    s->end = ev->ts + ev->dur;
    s->order = (uint32_t)fp->n++;
    s->kind = (uint8_t)kind;
    s->shape = 0;
    s->corr = -1;
    fp->tmp.len = 0;
    vp_buf_append(&fp->tmp, ev->pid.p ? ev->pid.p : "", ev->pid.p ? ev->pid.n : 0);
    vp_buf_putc(&fp->tmp, ' ');
    vp_buf_append(&fp->tmp, ev->tid.p ? ev->tid.p : "", ev->tid.p ? ev->tid.n : 0);
    /* Consecutive slices are mostly of one thread: no hash for them. */
    if (fp->last_thread.len != fp->tmp.len ||
        memcmp(fp->last_thread.data, fp->tmp.data, fp->tmp.len) != 0) {
        fp->last_thread.len = 0;
        vp_buf_append(&fp->last_thread, fp->tmp.data, fp->tmp.len);
        fp->last_tid = intern_local(fp->threads, fp->tmp.data, fp->tmp.len);
    }
    s->thread = fp->last_tid;
    if (kind == K_OP) {
        s->name = s->rname = vp_ops_name(m, ev->name.p, ev->name.n);
        if (m->o.dims & VP_ODIM_SHAPE)
            s->shape = shape_of(fp, ev->args);
        fp->ops++;
    } else if (kind == K_MOD) {
        s->name = intern_local(fp->calls, ev->name.p, ev->name.n);
        s->rname = UINT32_MAX;   /* its path, known when it closes */
        m->modules_seen = 1;
    } else {
        s->name = intern_local(fp->calls, ev->name.p, ev->name.n);
        s->rname = m->o.runtime ? vp_ops_name(m, ev->name.p, ev->name.n) : UINT32_MAX;
        s->corr = arg_int(ev->args, "correlation");
    }
    if (kind != K_MOD && (m->o.dims & VP_ODIM_MODULE))
        s->rname = UINT32_MAX;   /* the rows are modules */
}

static void take_event(file_pass *fp, const vp_event *ev)
{
    if (fp->steps)
        vp_steps_observe(fp->steps, ev);
    if (ev->ph != 'X')
        return;
    vp_gpu_kind gk = vp_gpu_kind_of(ev->cat);
    if (gk == VP_GPU_KERNEL || gk == VP_GPU_MEMCPY || gk == VP_GPU_MEMSET) {
        int64_t corr = arg_int(ev->args, "correlation");
        fp->m->gpu = 1;
        if (corr < 0 || !ev->has_dur)
            return;
        vp_corrmap_add(&fp->gpu, corr, ev->dur);
        return;
    }
    int kind;
    static const char module[] = "nn.Module: ";
    if ((fp->m->o.dims & VP_ODIM_MODULE) && span_is(ev->cat, "python_function") &&
        ev->name.n > sizeof module - 1 && memcmp(ev->name.p, module, sizeof module - 1) == 0)
        kind = K_MOD;
    else if (span_is(ev->cat, "cpu_op") || span_is(ev->cat, "Operator") ||
        span_is(ev->cat, "user_annotation") ||
        (fp->m->o.python && span_is(ev->cat, "python_function")))
        kind = K_OP;
    else if (vp_is_launch_category(ev->cat))
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

static void say(const vp_ops *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const vp_ops *m, const char *fmt, ...)
{
    if (!m->o.say)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    m->o.say(msg);
}

static void steps_warn(file_pass *fp, const char *path)
{
    size_t nsteps = vp_steps_count(fp->steps);
    size_t chosen = vp_steps_select(fp->steps, fp->m->o.steps);
    if (nsteps == 0)
        vp_warn("%s: --steps: the trace has no ProfilerStep#N annotations, so no operator is "
                "kept",
                path);
    else if (chosen == 0)
        vp_warn("%s: --steps selects none of the steps present (ProfilerStep#%ld to #%ld)", path,
                vp_steps_number(fp->steps, 0), vp_steps_number(fp->steps, nsteps - 1));
}

int vp_ops_read(vp_ops *m, const char *input, size_t position, vp_error *err)
{
    m->pos0 = position;
    vp_trace_opts topts = {.partial = m->o.partial, .progress = 1};
    vp_trace *t = vp_trace_open(input, &topts, err);
    if (!t)
        return VP_EXIT_INPUT;
    file_pass fp = {.m = m, .file = vp_ops_new_file(m, input)};
    fp.threads = vp_strmap_new();
    fp.calls = vp_strmap_new();
    fp.steps = m->o.steps ? vp_steps_new() : NULL;
    vp_event ev;
    int r;
    while ((r = vp_trace_next(t, &ev, err)) == 1)
        take_event(&fp, &ev);
    int status = VP_EXIT_OK;
    if (r < 0) {
        status = VP_EXIT_INPUT;
    } else {
        if (fp.steps)
            steps_warn(&fp, vp_trace_name(t));
        ops_build_trees(&fp);
        vp_rank_source rs;
        m->ranks[fp.file] = vp_rank_detect(vp_trace_meta(t), input, (long)position, &rs);
        const vp_trace_stats *st = vp_trace_get_stats(t);
        if (fp.no_dur)
            vp_warn("%s: %llu CPU slices without \"ts\" or \"dur\" were skipped",
                    vp_trace_name(t), (unsigned long long)fp.no_dur);
        if (st->bad_utf8)
            vp_warn("%s: %llu invalid UTF-8 sequences in names were replaced by U+FFFD",
                    vp_trace_name(t), (unsigned long long)st->bad_utf8);
        say(m, "%s: rank %ld (from %s); read %llu events in %llu bytes%s: %llu operators, %zu "
               "runtime calls and operators held, %zu GPU activities",
            vp_trace_name(t), m->ranks[fp.file], vp_rank_source_name(rs),
            (unsigned long long)st->events, (unsigned long long)st->bytes,
            st->truncated ? " (truncated)" : "", (unsigned long long)fp.ops, fp.n, fp.gpu.n);
    }
    vp_trace_close(t);
    vp_steps_free(fp.steps);
    vp_strmap_free(fp.threads);
    vp_strmap_free(fp.calls);
    vp_buf_free(&fp.tmp);
    vp_buf_free(&fp.last_thread);
    free(fp.s);
    vp_corrmap_free(&fp.gpu);
    return status;
}
