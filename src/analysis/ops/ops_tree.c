/* The operator trees of vprof ops (vprof/ops.h), as torch's
 * EventList._build_tree makes them: per thread, sorted by start, longer
 * first; an only child of its parent's name folded into it
 * (_remove_dup_nodes); GPU work to the parent of the runtime call that
 * launched it; and, for --by module, the nn.Module frames' paths. */
#include <stdlib.h>
#include <string.h>

#include "analysis/ops/ops_tree.h"

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
    const oslice *sl;
    int64_t child_cpu;  /* the children's durations */
    int64_t self_gpu;   /* GPU work of its own runtime calls */
    int64_t child_gpu;  /* GPU Total of its operator children */
    int64_t gpu_in;     /* GPU work launched inside it */
    int64_t mod_cpu;    /* the durations of its nearest nn.Module descendants */
    int64_t mod_gpu;    /* the GPU work launched inside those */
    size_t nchild;
    closed last;        /* its last child */
    int owned;          /* inside an operator that owns its subtree (vp_ops_opts.owns) */
} frame;

static int counted(const file_pass *fp, const oslice *s)
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
static uint32_t module_path(file_pass *fp, const frame *stack, size_t depth, const oslice *s)
{
    static const size_t skip = sizeof "nn.Module: " - 1;
    fp->tmp.len = 0;
    for (size_t i = 0; i <= depth; i++) {
        const oslice *x = i < depth ? stack[i].sl : s;
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

/* The row name of s, UINT32_MAX when it is no row: an operator's own
 * name; a runtime call's with --runtime; a module frame's path; with
 * --by module, only the module frames. */
static uint32_t row_name(file_pass *fp, const frame *stack, size_t depth, const oslice *s)
{
    if (s->kind == K_MOD)
        return module_path(fp, stack, depth, s);
    if (fp->m->o.dims & VP_ODIM_MODULE)
        return UINT32_MAX;
    return s->kind == K_OP ? s->name : fp->call_row[s->name];
}

/* Closes the top frame: its row gets its sums; its parent, the frame. */
static void close_frame(file_pass *fp, frame *stack, size_t *depth)
{
    frame *f = &stack[--*depth];
    const oslice *s = f->sl;
    int64_t dur = s->end - s->ts, child_cpu = f->child_cpu;
    /* a runtime call's own launches, through its correlation id */
    int64_t own = s->kind == K_CALL ? vp_corrjoin_gpu_time(fp->gpu, s->x) : 0;
    int64_t launched = s->kind == K_CALL ? own + f->self_gpu + f->child_gpu : 0;
    int64_t self_gpu = f->self_gpu, gpu_total = f->self_gpu + f->child_gpu;
    if (s->kind == K_CALL)
        self_gpu = gpu_total = 0;   /* its work is its operator's */
    int64_t gpu_in = f->gpu_in + own;
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
    uint32_t rname = row_name(fp, stack, *depth, s);
    if (rname != UINT32_MAX && !f->owned && counted(fp, s)) {
        row = vp_ops_row(fp->m, rname, s->kind == K_OP ? (uint32_t)s->x : 0,
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

void ops_walk_slices(const slice *s, size_t n, const slice_walk *w)
{
    size_t *open = NULL, depth = 0, cap = 0;
    for (size_t i = 0; i <= n; i++) {
        const slice *x = i < n ? &s[i] : NULL;
        while (depth > 0) {
            const slice *top = &s[open[depth - 1]];
            if (x && x->thread == top->thread && ops_nests(x->ts, x->end, top->end))
                break;
            depth--;
            w->close(w->ctx, open[depth], depth);
        }
        if (!x)
            break;
        if (depth == cap) {
            cap = cap ? cap * 2 : 64;
            open = vp_realloc(open, cap * sizeof *open);
        }
        w->open(w->ctx, i, depth);
        open[depth++] = i;
    }
    free(open);
}

/* Whether operator slice s owns its subtree (o.owns), asked once per name. */
static int owns(file_pass *fp, const oslice *s)
{
    if (!fp->m->o.owns || s->kind != K_OP)
        return 0;
    if (s->name >= fp->nowner) {
        size_t n = fp->m->nnames;
        fp->owner = vp_realloc(fp->owner, n);
        memset(fp->owner + fp->nowner, 0, n - fp->nowner);
        fp->nowner = n;
    }
    if (!fp->owner[s->name])
        fp->owner[s->name] = fp->m->o.owns(fp->m->names[s->name]) ? 2 : 1;
    return fp->owner[s->name] == 2;
}

/* The trees of the held slices, thread by thread, each sorted first.  A
 * slice opens inside the open one above it when ops_nests says so; the
 * frames it does not nest in close first. */
void ops_build_trees(file_pass *fp)
{
    frame *stack = NULL;
    size_t depth = 0, cap = 0;
    for (size_t t = 0; t < fp->nt; t++) {
        othread *th = &fp->t[t];
        ops_sort_thread(th);
        for (size_t i = 0; i <= th->n; i++) {
            const oslice *x = i < th->n ? &th->v[i] : NULL;
            while (depth > 0 && !(x && ops_nests(x->ts, x->end, stack[depth - 1].sl->end)))
                close_frame(fp, stack, &depth);
            if (!x)
                break;
            if (depth == cap) {
                cap = cap ? cap * 2 : 64;
                stack = vp_realloc(stack, cap * sizeof *stack);
            }
            int owned = depth > 0 && (stack[depth - 1].owned || owns(fp, stack[depth - 1].sl));
            stack[depth++] = (frame){.sl = x, .last = {.row = UINT32_MAX}, .owned = owned};
        }
        free(th->v);
        th->v = NULL;
    }
    free(stack);
}
