/* Kernel sequences under an operator (vprof/sequences.h).  The slices
 * nest by vprof ops' walk (analysis/ops_tree.h); GPU work is found through
 * the correlation join (vprof/corrjoin.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ops/ops_tree.h"
#include "analysis/sequences/sequences_int.h"
#include "vprof/classify.h"
#include "vprof/json.h"
#include "vprof/corrjoin.h"
#include "vprof/sequences.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"
#include "vprof/util.h"

typedef struct gpu_rec {
    int64_t ts, dur;
    uint32_t name;
} gpu_rec;

/* A slice named like the operator, and the GPU events under it (only
 * these need the count, not every slice). */
typedef struct cand {
    uint32_t slice, nk;
} cand;

typedef struct seq_pass {
    vp_sequences *q;
    vp_strmap *threads, *names;
    char **name_list;
    size_t nnames;
    slice *s;
    size_t n, cap;
    gpu_rec *g;
    size_t ng, capg;
    vp_corrjoin *gpu;       /* correlation id -> index into g */
    int64_t *corrs;         /* the slices' correlation ids (most slices have none) */
    size_t ncorrs, cap_corrs;
    vp_steps *steps;        /* the pass's, with --steps */
    /* with keep_marks: each slice's (by its order) and GPU event's index
     * among the file's events */
    int64_t nevents;
    int64_t *slice_ev, *gpu_ev;
    size_t slice_ev_cap, gpu_ev_cap;
    /* per slice, after the walk (32 bits: a file holds fewer than 2^32
     * slices, as their order says, and GPU events) */
    int32_t *depth;
    uint32_t *sub_end;      /* one past its last descendant */
    size_t *stack, nstack, cap_stack, last_open;   /* the open slices */
    uint32_t *stack_nk;     /* per open slice: the GPU events under it so far */
    const char *match;      /* per name: whether it names the operator */
    cand *cands;            /* the slices so named, with their GPU events */
    size_t ncands, cap_cands;
} seq_pass;

static uint32_t intern(seq_pass *p, const char *s, size_t n)
{
    int inserted;
    void **slot = vp_strmap_upsert(p->names, s, n, &inserted);
    if (inserted) {
        p->name_list = vp_realloc(p->name_list, (p->nnames + 1) * sizeof *p->name_list);
        p->name_list[p->nnames] = vp_strndup(s, n);
        *slot = (void *)(uintptr_t)++p->nnames;
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

static uint32_t thread_of(seq_pass *p, const vp_event *ev)
{
    char key[256];
    int k = snprintf(key, sizeof key, "%.*s %.*s", (int)(ev->pid.p ? ev->pid.n : 0),
                     ev->pid.p ? ev->pid.p : "", (int)(ev->tid.p ? ev->tid.n : 0),
                     ev->tid.p ? ev->tid.p : "");
    size_t len = k < 0 ? 0 : (size_t)k < sizeof key ? (size_t)k : sizeof key - 1;
    int inserted;
    void **slot = vp_strmap_upsert(p->threads, key, len, &inserted);
    if (inserted)
        *slot = (void *)(uintptr_t)vp_strmap_count(p->threads);
    return (uint32_t)((uintptr_t)*slot - 1);
}

/* Remembers where in the file item i (a slice or a GPU event) is. */
static void note_index(int64_t **arr, size_t *cap, size_t i, int64_t ev)
{
    if (i >= *cap) {
        *cap = *cap ? *cap * 2 : 4096;
        *arr = vp_realloc(*arr, *cap * sizeof **arr);
    }
    (*arr)[i] = ev;
}

/* The correlation id of slice s, -1 when none. */
static int64_t corr_of(const seq_pass *p, const slice *s)
{
    return s->corr == UINT32_MAX ? -1 : p->corrs[s->corr];
}

static void take_event(void *ctx, const vp_event *ev)
{
    seq_pass *p = ctx;
    int64_t idx = p->nevents++;
    if (ev->ph != 'X' || !ev->has_ts)
        return;
    vp_span v;
    int64_t stream = -1, corr;
    if (ev->args.p && vp_json_get(ev->args, "stream", &v) && vp_json_int(v, &stream) != 0)
        stream = -1;
    int has_corr = vp_gpu_correlation(ev, &corr);
    int64_t dur = ev->has_dur && ev->dur > 0 ? ev->dur : 0;
    if (stream != -1) {   /* GPU work, as HTA tells it: a stream */
        if (!has_corr)
            return;
        if (p->ng == p->capg) {
            p->capg = p->capg ? p->capg * 2 : 4096;
            p->g = vp_realloc(p->g, p->capg * sizeof *p->g);
        }
        if (p->q->o.keep_marks)
            note_index(&p->gpu_ev, &p->gpu_ev_cap, p->ng, idx);
        p->g[p->ng] = (gpu_rec){ev->ts, dur, intern(p, ev->name.p, ev->name.n)};
        vp_corrjoin_work(p->gpu, corr, (int64_t)p->ng++);
        return;
    }
    if (vp_gpu_kind_of(ev->cat) != VP_GPU_NONE)
        return;
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 4096;
        p->s = vp_realloc(p->s, p->cap * sizeof *p->s);
    }
    if (p->q->o.keep_marks)
        note_index(&p->slice_ev, &p->slice_ev_cap, p->n, idx);
    uint32_t corr_at = UINT32_MAX;
    if (has_corr) {
        if (p->ncorrs == p->cap_corrs) {
            p->cap_corrs = p->cap_corrs ? p->cap_corrs * 2 : 4096;
            p->corrs = vp_realloc(p->corrs, p->cap_corrs * sizeof *p->corrs);
        }
        corr_at = (uint32_t)p->ncorrs;
        p->corrs[p->ncorrs++] = corr;
    }
    p->s[p->n] = (slice){
        .ts = ev->ts, .end = ev->ts + dur, .corr = corr_at,
        .name = intern(p, ev->name.p, ev->name.n), .thread = thread_of(p, ev),
        .order = (uint32_t)p->n,
    };
    p->n++;
}

static void walk_open(void *ctx, size_t i, size_t depth)
{
    seq_pass *p = ctx;
    size_t n;
    vp_corrjoin_work_records(p->gpu, corr_of(p, &p->s[i]), &n);
    p->depth[i] = (int32_t)depth;
    if (p->nstack == p->cap_stack) {
        p->cap_stack = p->cap_stack ? p->cap_stack * 2 : 64;
        p->stack = vp_realloc(p->stack, p->cap_stack * sizeof *p->stack);
        p->stack_nk = vp_realloc(p->stack_nk, p->cap_stack * sizeof *p->stack_nk);
    }
    p->stack_nk[p->nstack] = (uint32_t)n;
    p->stack[p->nstack++] = i;
    p->last_open = i;
}

static void walk_close(void *ctx, size_t i, size_t depth)
{
    seq_pass *p = ctx;
    (void)depth;
    p->sub_end[i] = (uint32_t)(p->last_open + 1);
    uint32_t nk = p->stack_nk[--p->nstack];
    if (p->nstack)
        p->stack_nk[p->nstack - 1] += nk;
    if (p->match[p->s[i].name]) {
        if (p->ncands == p->cap_cands) {
            p->cap_cands = p->cap_cands ? p->cap_cands * 2 : 1024;
            p->cands = vp_realloc(p->cands, p->cap_cands * sizeof *p->cands);
        }
        p->cands[p->ncands++] = (cand){(uint32_t)i, nk};
    }
}

static int name_starts(const seq_pass *p, uint32_t name, const char *prefix)
{
    return strncmp(p->name_list[name], prefix, strlen(prefix)) == 0;
}

/* HTA's CallGraph links the backward thread to the main one when the rank
 * has exactly one thread holding a ProfilerStep# slice and one other
 * holding autograd:: slices: the backward thread's top slices inside a
 * "## backward ##" annotation of the main thread (else a ProfilerStep#)
 * become its children, so they and theirs sit deeper. */
static void link_backward(seq_pass *p)
{
    size_t nthreads = vp_strmap_count(p->threads);
    int *label = vp_calloc(nthreads + 1, sizeof *label);   /* 1 main, 2 bwd */
    for (size_t i = 0; i < p->n; i++)
        if (name_starts(p, p->s[i].name, "ProfilerStep#"))
            label[p->s[i].thread] = 1;
    for (size_t i = 0; i < p->n; i++)
        if (label[p->s[i].thread] != 1 && strstr(p->name_list[p->s[i].name], "autograd::"))
            label[p->s[i].thread] = 2;
    size_t nmain = 0, nbwd = 0, main_t = 0, bwd_t = 0;
    for (size_t t = 0; t < nthreads; t++) {
        if (label[t] == 1)
            nmain++, main_t = t;
        if (label[t] == 2)
            nbwd++, bwd_t = t;
    }
    free(label);
    if (nmain != 1 || nbwd != 1)
        return;
    const char *annot = "## backward ##";
    int found = 0;
    for (size_t i = 0; i < p->n && !found; i++)
        found = p->s[i].thread == main_t && name_starts(p, p->s[i].name, annot);
    if (!found)
        annot = "ProfilerStep#";
    for (size_t a = 0; a < p->n; a++) {
        const slice *an = &p->s[a];
        if (an->thread != main_t || !name_starts(p, an->name, annot))
            continue;
        for (size_t i = 0; i < p->n; i++) {
            const slice *b = &p->s[i];
            if (b->thread != bwd_t || p->depth[i] != 0 || b->ts < an->ts || b->end > an->end)
                continue;
            int32_t shift = p->depth[a] + 1;
            for (size_t j = i; j < p->sub_end[i]; j++)
                p->depth[j] += shift;
        }
    }
}

static int counted(const seq_pass *p, const slice *s)
{
    if (!p->steps)
        return 1;
    long at = vp_steps_at(p->steps, s->ts);
    int64_t a, b;
    return at >= 0 && vp_steps_window(p->steps, (size_t)at, &a, &b) == 1;
}

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    return (x->slice > y->slice) - (x->slice < y->slice);
}

static int cmp_gpu(const void *a, const void *b)
{
    const gpu_rec *x = a, *y = b;
    if (x->ts != y->ts)
        return (x->ts > y->ts) - (x->ts < y->ts);
    return (x > y) - (x < y);
}

static void add_mark(vp_sequences *q, int64_t event, size_t row)
{
    if (q->nmarks == q->cap_marks) {
        q->cap_marks = q->cap_marks ? q->cap_marks * 2 : 1024;
        q->marks = vp_realloc(q->marks, q->cap_marks * sizeof *q->marks);
    }
    q->marks[q->nmarks++] = (vp_sequence_mark){event, (uint32_t)row};
}

/* With keep_marks, every event of root r's instance (HTA's
 * pattern_occurrences: the root, the slices under it, their GPU events)
 * marked with its pattern's row (the row's index before the sort). */
static void mark_instance(seq_pass *p, size_t r, size_t row)
{
    for (size_t j = r; j < p->sub_end[r]; j++) {
        add_mark(p->q, p->slice_ev[p->s[j].order], row);
        size_t n;
        const vp_corr_work *w = vp_corrjoin_work_records(p->gpu, corr_of(p, &p->s[j]), &n);
        for (size_t m = 0; m < n; m++)
            add_mark(p->q, p->gpu_ev[w[m].dur], row);
    }
}

/* Adds root r's pattern to the rows. */
static void add_root(seq_pass *p, vp_strmap *rows, size_t r, gpu_rec *scratch, vp_buf *pat)
{
    size_t k = 0;
    int64_t gpu_dur = 0;
    for (size_t j = r; j < p->sub_end[r]; j++) {
        size_t n;
        const vp_corr_work *w = vp_corrjoin_work_records(p->gpu, corr_of(p, &p->s[j]), &n);
        for (size_t m = 0; m < n; m++) {
            scratch[k++] = p->g[w[m].dur];
            gpu_dur += p->g[w[m].dur].dur;
        }
    }
    /* in start order; the index keeps the order of equal starts */
    qsort(scratch, k, sizeof *scratch, cmp_gpu);
    pat->len = 0;
    const char *root = p->name_list[p->s[r].name];
    vp_buf_append(pat, root, strlen(root));
    for (size_t m = 0; m < k; m++) {
        const char *nm = p->name_list[scratch[m].name];
        vp_buf_putc(pat, '|');
        vp_buf_append(pat, nm, strlen(nm));
    }
    vp_sequences *q = p->q;
    int inserted;
    void **slot = vp_strmap_upsert(rows, pat->data, pat->len, &inserted);
    if (inserted) {
        q->rows = vp_realloc(q->rows, (q->nrows + 1) * sizeof *q->rows);
        q->rows[q->nrows] = (vp_sequence){vp_strndup(pat->data, pat->len), 0, 0, 0};
        *slot = (void *)(uintptr_t)++q->nrows;
    }
    vp_sequence *row = &q->rows[(uintptr_t)*slot - 1];
    if (q->o.keep_marks)
        mark_instance(p, r, (uintptr_t)*slot - 1);
    row->count++;
    row->gpu_dur += gpu_dur;
    row->cpu_dur += p->s[r].end - p->s[r].ts;
    q->roots++;
}


static void find_patterns(seq_pass *p)
{
    vp_sequences *q = p->q;
    size_t n = p->n;
    char *match = vp_calloc(p->nnames + 1, 1);
    for (size_t i = 0; i < p->nnames; i++)
        match[i] = strstr(p->name_list[i], q->o.op) != NULL;
    p->match = match;
    ops_sort_slices(p->s, n);
    /* after the sort, whose index arrays are freed by now */
    p->depth = vp_malloc((n + 1) * sizeof *p->depth);
    p->sub_end = vp_malloc((n + 1) * sizeof *p->sub_end);
    slice_walk w = {walk_open, walk_close, p};
    ops_walk_slices(p->s, n, &w);
    link_backward(p);
    /* in the slices' order (the walk closed them children first) */
    qsort(p->cands, p->ncands, sizeof *p->cands, cmp_cand);
    q->min_depth = -1;
    for (size_t c = 0; c < p->ncands; c++) {
        size_t i = p->cands[c].slice;
        if (counted(p, &p->s[i])) {
            q->candidates++;
            if (q->min_depth < 0 || p->depth[i] < q->min_depth)
                q->min_depth = p->depth[i];
        }
    }
    vp_strmap *rows = vp_strmap_new();
    gpu_rec *scratch = vp_malloc((p->ng + 1) * sizeof *scratch);
    vp_buf pat = {0};
    for (size_t c = 0; c < p->ncands; c++) {
        size_t i = p->cands[c].slice;
        if (counted(p, &p->s[i]) && p->depth[i] == q->min_depth && (int64_t)p->cands[c].nk >= q->o.min_len)
            add_root(p, rows, i, scratch, &pat);
    }
    vp_buf_free(&pat);
    free(scratch);
    vp_strmap_free(rows);
    free(match);
    if (q->nrows)
        vp_sequences_sort_rows(q);
}

void vp_sequences_init(vp_sequences *q, const vp_sequences_opts *o)
{
    memset(q, 0, sizeof *q);
    q->o = *o;
    q->min_depth = -1;
}

void vp_sequences_free(vp_sequences *q)
{
    for (size_t i = 0; i < q->nrows; i++)
        free(q->rows[i].pattern);
    free(q->rows);
    free(q->marks);
    memset(q, 0, sizeof *q);
}

int vp_sequences_read(vp_sequences *q, const char *path, vp_error *err)
{
    seq_pass p = {.q = q, .threads = vp_strmap_new(), .names = vp_strmap_new(),
                  .gpu = vp_corrjoin_new()};
    vp_trace_pass tp;
    vp_trace_pass_opts po = {.partial = q->o.partial, .range = q->o.steps, .rank = -1};
    int r = vp_trace_pass_read(&tp, path, &po, take_event, &p, err);
    if (r == 0) {
        p.steps = tp.steps;
        vp_trace_pass_warn(&tp, &(vp_trace_pass_warnings){
                                    .no_steps_kept = ", so no operator is counted"});
        find_patterns(&p);
        vp_trace_pass_say(q->o.say, "%s: %zu CPU slices, %zu GPU events; %lld slices named "
                          "like '%s' (shallowest depth %ld), %lld of them with >= %ld GPU events",
                          vp_trace_name(tp.trace), p.n, p.ng, (long long)q->candidates, q->o.op,
                          q->min_depth, (long long)q->roots, q->o.min_len);
    }
    for (size_t i = 0; i < p.nnames; i++)
        free(p.name_list[i]);
    free(p.name_list);
    free(p.s);
    free(p.corrs);
    free(p.g);
    free(p.slice_ev);
    free(p.gpu_ev);
    free(p.depth);
    free(p.sub_end);
    free(p.stack_nk);
    free(p.cands);
    free(p.stack);
    vp_corrjoin_free(p.gpu);
    vp_strmap_free(p.threads);
    vp_strmap_free(p.names);
    vp_trace_pass_close(&tp);
    return r == 0 ? VP_EXIT_OK : VP_EXIT_INPUT;
}
