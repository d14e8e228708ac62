/* The trace pass of vprof ops (vprof/ops.h): one file's CPU slices made
 * into per-thread trees as torch's profiler makes them, summed per row.
 *
 * The slices of a file are held until it ends (32-40 bytes each): Kineto
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

enum { K_OP, K_CALL, K_MOD };   /* K_MOD: an nn.Module frame (--by module) */

/* A CPU slice, held until its file ends. */
typedef struct slice {
    int64_t ts, end;
    int64_t corr;       /* a runtime call's correlation id; -1: none */
    uint32_t name;      /* K_OP: the model's name; K_CALL: calls[] (the row name in rname) */
    uint32_t rname;     /* the row's name when it is a row, else UINT32_MAX */
    uint32_t shape;
    uint32_t thread;
    uint32_t order;     /* its place in the file: torch's sort is stable */
    uint8_t kind;
} slice;

/* GPU work: duration per correlation id. */
typedef struct gpu_work {
    int64_t corr, dur;
} gpu_work;

typedef struct file_pass {
    vp_ops *m;
    size_t file;
    vp_strmap *threads, *calls;  /* "pid tid" -> index + 1; runtime call and module names */
    slice *s;
    size_t n, cap;
    gpu_work *g;
    size_t ng, capg;
    vp_steps *steps;
    vp_buf tmp;
    vp_buf last_thread;  /* the "pid tid" of the last slice held, and its index */
    uint32_t last_tid;
    uint64_t ops, no_dur;
} file_pass;

/* What a closed slice hands to its parent (and what the parent needs to
 * fold an only child of its own name into itself, as torch's
 * _remove_dup_nodes does). */
typedef struct closed {
    uint32_t row;       /* UINT32_MAX: not counted */
    uint32_t name;
    uint8_t kind;
    int64_t dur, child_cpu, self_gpu, gpu_total;
} closed;

typedef struct frame {
    const slice *sl;
    int64_t child_cpu;  /* the children's durations */
    int64_t self_gpu;   /* GPU work of its own runtime calls */
    int64_t child_gpu;  /* GPU Total of its operator children */
    int64_t gpu_in;     /* GPU work launched inside it */
    int64_t mod_cpu;    /* the durations of its nearest nn.Module descendants */
    int64_t mod_gpu;    /* the GPU work launched inside those */
    size_t nchild;
    closed last;        /* its last child */
} frame;

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
        if (fp->ng == fp->capg) {
            fp->capg = fp->capg ? fp->capg * 2 : 4096;
            fp->g = vp_realloc(fp->g, fp->capg * sizeof *fp->g);
        }
        fp->g[fp->ng++] = (gpu_work){corr, ev->dur};
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

static int cmp_slice(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_gpu(const void *a, const void *b)
{
    const gpu_work *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

/* The GPU time of the work of correlation id corr (g sorted by corr). */
static int64_t gpu_of(const file_pass *fp, int64_t corr)
{
    if (corr < 0)
        return 0;
    size_t lo = 0, hi = fp->ng;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (fp->g[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t sum = 0;
    for (; lo < fp->ng && fp->g[lo].corr == corr; lo++)
        sum += fp->g[lo].dur;
    return sum;
}

static int counted(const file_pass *fp, const slice *s)
{
    if (!fp->steps)
        return 1;
    long at = vp_steps_at(fp->steps, s->ts);
    int64_t a, b;
    return at >= 0 && vp_steps_window(fp->steps, (size_t)at, &a, &b) == 1;
}

static void add_row(vp_ops *m, uint32_t row, int sign, int64_t dur, int64_t self_cpu,
                    int64_t self_gpu, int64_t gpu_total)
{
    vp_op_row *r = &m->rows[row];
    r->calls += sign;
    r->cpu_total += sign * dur;
    r->self_cpu += sign * self_cpu;
    r->self_gpu += sign * self_gpu;
    r->gpu_total += sign * gpu_total;
}

/* The row name of module frame s: the names of the modules that hold it
 * (stack[0..depth)) and its own, without "nn.Module: ", joined by ".". */
static uint32_t module_path(file_pass *fp, const frame *stack, size_t depth, const slice *s)
{
    static const size_t skip = sizeof "nn.Module: " - 1;
    fp->tmp.len = 0;
    for (size_t i = 0; i <= depth; i++) {
        const slice *x = i < depth ? stack[i].sl : s;
        if (x->kind != K_MOD)
            continue;
        size_t n;
        const char *name = vp_strmap_key(fp->calls, x->name, &n);
        if (fp->tmp.len)
            vp_buf_putc(&fp->tmp, '.');
        vp_buf_append(&fp->tmp, name + skip, n - skip);
    }
    return vp_ops_name(fp->m, fp->tmp.data, fp->tmp.len);
}

/* Closes the top frame: its row gets its sums; its parent, the frame. */
static void close_frame(file_pass *fp, frame *stack, size_t *depth)
{
    frame *f = &stack[--*depth];
    const slice *s = f->sl;
    int64_t dur = s->end - s->ts, child_cpu = f->child_cpu;
    int64_t launched = s->kind == K_CALL ? gpu_of(fp, s->corr) + f->self_gpu + f->child_gpu : 0;
    int64_t self_gpu = f->self_gpu, gpu_total = f->self_gpu + f->child_gpu;
    if (s->kind == K_CALL)
        self_gpu = gpu_total = 0;   /* its work is its operator's */
    int64_t gpu_in = f->gpu_in + (s->kind == K_CALL ? gpu_of(fp, s->corr) : 0);
    if (s->kind == K_MOD) {
        /* TensorBoard's module view: self = not inside a child module */
        child_cpu = f->mod_cpu;
        self_gpu = gpu_in - f->mod_gpu;
        gpu_total = gpu_in;
    } else if (f->nchild == 1 && f->last.kind == s->kind && f->last.name == s->name) {
        /* An only child of the same name is folded into its parent. */
        if (f->last.row != UINT32_MAX)
            add_row(fp->m, f->last.row, -1, f->last.dur, f->last.dur - f->last.child_cpu,
                    f->last.self_gpu, f->last.gpu_total);
        child_cpu = f->last.child_cpu;
        if (s->kind == K_OP)
            self_gpu = f->last.self_gpu, gpu_total = f->last.gpu_total;
    }
    uint32_t row = UINT32_MAX;
    uint32_t rname = s->kind == K_MOD ? module_path(fp, stack, *depth, s) : s->rname;
    if (rname != UINT32_MAX && counted(fp, s)) {
        row = vp_ops_row(fp->m, rname, s->shape,
                         fp->m->o.dims & VP_ODIM_RANK ? (int32_t)fp->file : 0);
        add_row(fp->m, row, 1, dur, dur - child_cpu, self_gpu, gpu_total);
    }
    if (*depth == 0)
        return;
    frame *p = &stack[*depth - 1];
    p->child_cpu += dur;
    p->nchild++;
    p->last = (closed){row, s->name, s->kind, dur, child_cpu, self_gpu, gpu_total};
    if (s->kind == K_CALL)
        p->self_gpu += launched;
    else
        p->child_gpu += gpu_total;
    p->gpu_in += gpu_in;
    p->mod_cpu += s->kind == K_MOD ? dur : f->mod_cpu;
    p->mod_gpu += s->kind == K_MOD ? gpu_in : f->mod_gpu;
}

/* The trees of the held slices, thread by thread. */
static void build_trees(file_pass *fp)
{
    if (fp->n)
        qsort(fp->s, fp->n, sizeof *fp->s, cmp_slice);
    if (fp->ng)
        qsort(fp->g, fp->ng, sizeof *fp->g, cmp_gpu);
    frame *stack = NULL;
    size_t depth = 0, cap = 0;
    for (size_t i = 0; i <= fp->n; i++) {
        const slice *s = i < fp->n ? &fp->s[i] : NULL;
        while (depth > 0) {
            const slice *top = stack[depth - 1].sl;
            if (s && s->thread == top->thread && s->ts < top->end && s->end <= top->end)
                break;
            close_frame(fp, stack, &depth);
        }
        if (!s)
            break;
        if (depth == cap) {
            cap = cap ? cap * 2 : 64;
            stack = vp_realloc(stack, cap * sizeof *stack);
        }
        stack[depth++] = (frame){.sl = s, .last = {.row = UINT32_MAX}};
    }
    free(stack);
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
        build_trees(&fp);
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
            st->truncated ? " (truncated)" : "", (unsigned long long)fp.ops, fp.n, fp.ng);
    }
    vp_trace_close(t);
    vp_steps_free(fp.steps);
    vp_strmap_free(fp.threads);
    vp_strmap_free(fp.calls);
    vp_buf_free(&fp.tmp);
    vp_buf_free(&fp.last_thread);
    free(fp.s);
    free(fp.g);
    return status;
}
