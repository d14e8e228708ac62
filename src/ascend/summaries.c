/* The CSV summaries of an Ascend profile: kernel_details / op_summary,
 * step_trace_time, memory_record, npu_module_mem, operator_memory.
 * Columns are found by name (every header generation), cells through the
 * CSV reader's number rules (trailing TABs, N/A). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend.h"
#include "vprof/csv.h"
#include "vprof/util.h"

/* ---- kernel_details.csv / op_summary_*.csv ---- */

int vp_asc_read_kernels(const char *path, void (*fn)(void *ctx, const vp_asc_kernel *k), void *ctx,
                        uint64_t *skipped, vp_error *err)
{
    static const char *const c_name[] = {"Name", "Op Name", NULL};
    static const char *const c_type[] = {"Type", "OP Type", NULL};
    static const char *const c_core[] = {"Accelerator Core", "Task Type", NULL};
    static const char *const c_start[] = {"Start Time(us)", "Task Start Time(us)", NULL};
    static const char *const c_dur[] = {"Duration(us)", "Task Duration(us)", NULL};
    static const char *const c_wait[] = {"Wait Time(us)", "Task Wait Time(us)", NULL};
    static const char *const c_step[] = {"Step Id", NULL};
    static const char *const c_stream[] = {"Stream ID", "Stream Id", NULL};
    static const char *const c_dev[] = {"Device_id", "Device ID", NULL};
    if (vp_asc_sniff(path) == VP_ASC_DB)
        return vp_asc_db_read_kernels(path, fn, ctx, skipped, err);
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    int i_name = vp_csv_col(c, c_name), i_type = vp_csv_col(c, c_type);
    int i_core = vp_csv_col(c, c_core), i_start = vp_csv_col(c, c_start);
    int i_dur = vp_csv_col(c, c_dur), i_wait = vp_csv_col(c, c_wait);
    int i_step = vp_csv_col(c, c_step), i_stream = vp_csv_col(c, c_stream);
    int i_dev = vp_csv_col(c, c_dev);
    if (i_name < 0 || i_dur < 0) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: not a kernel_details.csv or op_summary CSV: no %s column",
                     vp_csv_name(c), i_name < 0 ? "Name (or Op Name)" : "Duration(us) (or Task Duration(us))");
        vp_csv_close(c);
        return -1;
    }
    int r;
    *skipped = 0;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_kernel k;
        int64_t x;
        if (vp_csv_us(vp_csv_field(c, i_dur), &k.dur) != 0) {
            (*skipped)++;
            continue;
        }
        k.name = vp_csv_str(c, i_name);
        k.type = vp_csv_str(c, i_type);
        k.core = vp_csv_str(c, i_core);
        k.step = vp_csv_int(vp_csv_field(c, i_step), &x) == 0 ? (long)x : -1;
        k.start = vp_csv_us(vp_csv_field(c, i_start), &x) == 0 ? x : -1;
        k.wait = vp_csv_us(vp_csv_field(c, i_wait), &x) == 0 ? x : -1;
        k.stream = vp_csv_int(vp_csv_field(c, i_stream), &x) == 0 ? x : -1;
        k.device = vp_csv_int(vp_csv_field(c, i_dev), &x) == 0 ? x : -1;
        fn(ctx, &k);
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}

/* ---- op_statistic.csv ---- */

int vp_asc_read_opstat(const char *path, void (*fn)(void *ctx, const vp_asc_opstat *o), void *ctx,
                       uint64_t *skipped, vp_error *err)
{
    static const char *const c_type[] = {"OP Type", "Op Type", "Type", NULL};
    static const char *const c_core[] = {"Core Type", "Task Type", "Accelerator Core", NULL};
    static const char *const c_count[] = {"Count", NULL};
    static const char *const c_total[] = {"Total Time(us)", NULL};
    static const char *const c_min[] = {"Min Time(us)", NULL};
    static const char *const c_max[] = {"Max Time(us)", NULL};
    static const char *const c_ratio[] = {"Ratio(%)", NULL};
    static const char *const c_dev[] = {"Device_id", "Device ID", NULL};
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    int i_type = vp_csv_col(c, c_type), i_core = vp_csv_col(c, c_core);
    int i_count = vp_csv_col(c, c_count), i_total = vp_csv_col(c, c_total);
    int i_min = vp_csv_col(c, c_min), i_max = vp_csv_col(c, c_max);
    int i_ratio = vp_csv_col(c, c_ratio), i_dev = vp_csv_col(c, c_dev);
    if (i_type < 0 || i_count < 0 || i_total < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: not an op_statistic CSV: no %s column",
                     vp_csv_name(c),
                     i_type < 0 ? "OP Type" : i_count < 0 ? "Count" : "Total Time(us)");
        vp_csv_close(c);
        return -1;
    }
    int r;
    *skipped = 0;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_opstat o;
        int64_t x;
        double d;
        if (vp_csv_int(vp_csv_field(c, i_count), &o.count) != 0 || o.count <= 0 ||
            vp_csv_us(vp_csv_field(c, i_total), &o.total) != 0) {
            (*skipped)++;
            continue;
        }
        o.type = vp_csv_str(c, i_type);
        o.core = vp_csv_str(c, i_core);
        o.min = vp_csv_us(vp_csv_field(c, i_min), &x) == 0 ? x : -1;
        o.max = vp_csv_us(vp_csv_field(c, i_max), &x) == 0 ? x : -1;
        o.ratio = vp_csv_num(vp_csv_field(c, i_ratio), &d) == 0 ? d : NAN;
        o.device = vp_csv_int(vp_csv_field(c, i_dev), &x) == 0 ? x : -1;
        fn(ctx, &o);
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}

/* ---- step_trace_time.csv ---- */

const char *const vp_stt_names[VP_STT_COUNT] = {
    "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free",
    "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing",
};

vp_stt_row *vp_stt_add(vp_stt *s)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->rows = vp_realloc(s->rows, s->cap * sizeof *s->rows);
    }
    vp_stt_row *r = &s->rows[s->n++];
    memset(r, 0, sizeof *r);
    r->step = -1;
    r->rank = -1;
    r->device = -1;
    return r;
}

void vp_stt_free(vp_stt *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->rows[i].index);
    free(s->rows);
    for (size_t i = 0; i < s->ngroups; i++) {
        free(s->groups[i].id);
        free(s->groups[i].name);
        free(s->groups[i].ranks);
    }
    free(s->groups);
    free(s->note_own);
    memset(s, 0, sizeof *s);
}

int vp_stt_read(const char *path, long default_rank, vp_stt *out, vp_error *err)
{
    static const char *const c_step[] = {"Step", NULL};
    static const char *const c_type[] = {"Type", NULL};
    static const char *const c_index[] = {"Index", NULL};
    static const char *const c_dev[] = {"Device_id", NULL};
    if (vp_asc_sniff(path) == VP_ASC_DB)
        return vp_asc_db_stt(path, default_rank, NULL, out, err);
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    int i_step = vp_csv_col(c, c_step), i_type = vp_csv_col(c, c_type);
    int i_index = vp_csv_col(c, c_index), i_dev = vp_csv_col(c, c_dev);
    int iv[VP_STT_COUNT];
    for (int k = 0; k < VP_STT_COUNT; k++) {
        const char *names[] = {vp_stt_names[k], NULL};
        iv[k] = vp_csv_col(c, names);
    }
    if (iv[VP_STT_COMPUTING] < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: not a step_trace_time.csv: no Computing column",
                     vp_csv_name(c));
        vp_csv_close(c);
        return -1;
    }
    int r;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_stt_row *row = vp_stt_add(out);
        int64_t x;
        if (vp_csv_int(vp_csv_field(c, i_step), &x) == 0)
            row->step = (long)x;
        if (vp_csv_int(vp_csv_field(c, i_dev), &x) == 0)
            row->device = x;
        row->rank = default_rank;
        if (i_type >= 0) {
            const char *type = vp_csv_str(c, i_type);
            const char *index = vp_csv_str(c, i_index);
            if (strcmp(type, "stage") == 0) {
                row->is_stage = 1;
                row->rank = -1;
                row->index = vp_strdup(index);
            } else if (vp_csv_int(vp_csv_field(c, i_index), &x) == 0) {
                row->rank = (long)x;
            }
        }
        for (int k = 0; k < VP_STT_COUNT; k++) {
            int q = vp_csv_us(vp_csv_field(c, iv[k]), &row->v[k]);
            if (q == 0) {
                row->have |= 1u << k;
            } else if (q < 0) {
                vp_error_set(err, VP_EXIT_INPUT, "%s: line %llu: %s is not a number: '%s'",
                             vp_csv_name(c), (unsigned long long)vp_csv_line(c), vp_stt_names[k],
                             vp_csv_str(c, iv[k]));
                vp_csv_close(c);
                return -1;
            }
        }
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}

int vp_stt_parse_index(const char *index, long *ranks, size_t cap)
{
    const char *p = index;
    while (*p == ' ')
        p++;
    if (*p != '(' && *p != '[')
        return -1;
    p++;
    size_t n = 0;
    for (;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == ')' || *p == ']')
            return (int)n;
        char *e;
        long x = strtol(p, &e, 10);
        if (e == p)
            return -1;
        if (n < cap)
            ranks[n] = x;
        n++;
        p = e;
    }
}

int vp_stt_stage(const vp_stt *s, long step, const long *ranks, size_t n, vp_stt_row *out)
{
    memset(out, 0, sizeof *out);
    out->step = step;
    out->is_stage = 1;
    out->rank = -1;
    out->device = -1;
    int found = 0;
    for (size_t i = 0; i < s->n; i++) {
        const vp_stt_row *r = &s->rows[i];
        if (r->is_stage || r->step != step)
            continue;
        if (ranks) {
            size_t k = 0;
            while (k < n && ranks[k] != r->rank)
                k++;
            if (k == n)
                continue;
        }
        for (int c = 0; c < VP_STT_COUNT; c++) {
            if (!(r->have & (1u << c)))
                continue;
            if (!(out->have & (1u << c)) || r->v[c] > out->v[c])
                out->v[c] = r->v[c];
            out->have |= 1u << c;
        }
        found = 1;
    }
    return found;
}

/* ---- pipeline stages from parallel groups ---- */

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static size_t uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

static void uf_union(size_t *parent, size_t a, size_t b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a != b)
        parent[a > b ? a : b] = a < b ? a : b;
}

static int is_pp(const char *name)
{
    return (name[0] == 'p' || name[0] == 'P') && (name[1] == 'p' || name[1] == 'P');
}

/* The index of rank x in the sorted distinct ranks. */
static size_t rank_pos(const long *all, size_t n, long x)
{
    const long *p = bsearch(&x, all, n, sizeof *all, cmp_long);
    return (size_t)(p - all);
}

size_t vp_asc_stages_of(const vp_asc_pgroup *g, size_t n, vp_asc_stages *out)
{
    memset(out, 0, sizeof *out);
    out->first = vp_malloc(sizeof *out->first);
    out->first[0] = 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += g[i].n;
    long *all = vp_malloc((total ? total : 1) * sizeof *all);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < g[i].n; k++)
            all[m++] = g[i].ranks[k];
    if (m)
        qsort(all, m, sizeof *all, cmp_long);
    size_t d = 0;
    for (size_t i = 0; i < m; i++)
        if (d == 0 || all[d - 1] != all[i])
            all[d++] = all[i];
    /* Pipelines: the pp groups, chained where they share ranks. */
    size_t *chain = vp_malloc((d ? d : 1) * sizeof *chain);
    size_t *stage = vp_malloc((d ? d : 1) * sizeof *stage);
    unsigned char *in_chain = vp_calloc(d ? d : 1, 1), *in_stage = vp_calloc(d ? d : 1, 1);
    for (size_t i = 0; i < d; i++)
        chain[i] = stage[i] = i;
    size_t npp = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_pp(g[i].name) || !g[i].n)
            continue;
        npp++;
        size_t a = rank_pos(all, d, g[i].ranks[0]);
        for (size_t k = 0; k < g[i].n; k++) {
            size_t b = rank_pos(all, d, g[i].ranks[k]);
            in_chain[b] = 1;
            uf_union(chain, a, b);
        }
    }
    size_t nchains = 0;
    for (size_t i = 0; i < d; i++)
        nchains += in_chain[i] && uf_find(chain, i) == i;
    /* Stage groups: the other groups with at most one rank of each
     * pipeline (a group spanning stages of a pipeline, like tp-pp's
     * default group or the embedding group, says nothing of a stage). */
    size_t *roots = vp_malloc((d ? d : 1) * sizeof *roots);
    for (size_t i = 0; i < n && npp; i++) {
        if (is_pp(g[i].name) || !g[i].n)
            continue;
        size_t nr = 0;
        int valid = 1;
        for (size_t k = 0; k < g[i].n && valid; k++) {
            size_t b = rank_pos(all, d, g[i].ranks[k]);
            if (!in_chain[b])
                continue;
            size_t root = uf_find(chain, b);
            for (size_t q = 0; q < nr; q++)
                if (roots[q] == root)
                    valid = 0;
            roots[nr++] = root;
        }
        if (!valid)
            continue;
        size_t a = rank_pos(all, d, g[i].ranks[0]);
        for (size_t k = 0; k < g[i].n; k++) {
            size_t b = rank_pos(all, d, g[i].ranks[k]);
            in_stage[b] = 1;
            uf_union(stage, a, b);
        }
    }
    /* Each root is its component's smallest rank (uf_union keeps the
     * smaller index), so walking the ranks in order meets the stages in
     * the order of their smallest rank. */
    out->ranks = vp_malloc((d ? d : 1) * sizeof *out->ranks);
    size_t w = 0;
    for (size_t i = 0; i < d; i++) {
        if (!in_stage[i] || uf_find(stage, i) != i)
            continue;
        for (size_t j = i; j < d; j++)
            if (in_stage[j] && uf_find(stage, j) == i)
                out->ranks[w++] = all[j];
        out->first = vp_realloc(out->first, (out->n + 2) * sizeof *out->first);
        out->first[++out->n] = w;
    }
    free(roots);
    free(in_chain);
    free(in_stage);
    free(chain);
    free(stage);
    free(all);
    return nchains;
}

void vp_asc_stages_free(vp_asc_stages *st)
{
    free(st->ranks);
    free(st->first);
    memset(st, 0, sizeof *st);
}

/* ---- memory_record.csv, npu_module_mem.csv ---- */

/* Bytes of a size cell in the unit of its column: MB and KB are binary,
 * as torch_npu divides by 1024. */
static int size_cell(vp_span f, double unit, int64_t *out)
{
    double v;
    int q = vp_csv_num(f, &v);
    if (q != 0)
        return q;
    *out = (int64_t)llround(v * unit);
    return 0;
}

static int size_col(vp_csv *c, const char *stem, double *unit)
{
    char mb[64], kb[64], b[64];
    snprintf(mb, sizeof mb, "%s(MB)", stem);
    snprintf(kb, sizeof kb, "%s(KB)", stem);
    snprintf(b, sizeof b, "%s(B)", stem);
    const char *l1[] = {mb, NULL}, *l2[] = {kb, NULL}, *l3[] = {b, NULL};
    int i;
    if ((i = vp_csv_col(c, l1)) >= 0)
        *unit = 1048576.0;
    else if ((i = vp_csv_col(c, l2)) >= 0)
        *unit = 1024.0;
    else if ((i = vp_csv_col(c, l3)) >= 0)
        *unit = 1.0;
    return i;
}

static vp_asc_mem_series *series_of(vp_asc_mem *m, const char *comp, const char *dev)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->s[i].component, comp) == 0 && strcmp(m->s[i].device, dev) == 0)
            return &m->s[i];
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->s = vp_realloc(m->s, m->cap * sizeof *m->s);
    }
    vp_asc_mem_series *s = &m->s[m->n++];
    memset(s, 0, sizeof *s);
    s->component = vp_strdup(comp);
    s->device = vp_strdup(dev);
    return s;
}

int vp_asc_read_memory(const char *path, vp_asc_mem *m, vp_error *err)
{
    static const char *const c_comp[] = {"Component", NULL};
    static const char *const c_ts[] = {"Timestamp(us)", NULL};
    static const char *const c_dev[] = {"Device Type", "Device", NULL};
    static const char *const c_devid[] = {"Device_id", NULL};
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    double u_alloc = 0, u_res = 0, u_act = 0;
    int i_comp = vp_csv_col(c, c_comp), i_ts = vp_csv_col(c, c_ts);
    int i_dev = vp_csv_col(c, c_dev), i_devid = vp_csv_col(c, c_devid);
    int i_alloc = size_col(c, "Total Allocated", &u_alloc);
    int i_res = size_col(c, "Total Reserved", &u_res);
    int i_act = size_col(c, "Total Active", &u_act);
    if (i_comp < 0 || i_ts < 0 || i_res < 0) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: not a memory_record.csv or npu_module_mem.csv: needs Component, "
                     "Timestamp(us) and Total Reserved(MB|KB)",
                     vp_csv_name(c));
        vp_csv_close(c);
        return -1;
    }
    int r;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_mem_point p = {-1, -1, -1, -1};
        if (vp_csv_us(vp_csv_field(c, i_ts), &p.ts) != 0)
            continue;
        if (size_cell(vp_csv_field(c, i_alloc), u_alloc, &p.allocated) != 0)
            p.allocated = -1;
        if (size_cell(vp_csv_field(c, i_res), u_res, &p.reserved) != 0 || p.reserved < 0)
            p.reserved = -1;
        if (size_cell(vp_csv_field(c, i_act), u_act, &p.active) != 0)
            p.active = -1;
        char dev[64];
        const char *d = vp_csv_str(c, i_dev);
        if (!*d && i_devid >= 0) {
            snprintf(dev, sizeof dev, "NPU:%s", vp_csv_str(c, i_devid));
            d = dev;
        }
        vp_asc_mem_series *s = series_of(m, vp_csv_str(c, i_comp), d);
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 64;
            s->p = vp_realloc(s->p, s->cap * sizeof *s->p);
        }
        s->p[s->n] = p;
        if (p.allocated > s->p[s->peak_alloc].allocated)
            s->peak_alloc = s->n;
        if (p.reserved > s->p[s->peak_reserved].reserved)
            s->peak_reserved = s->n;
        s->n++;
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}

void vp_asc_mem_free(vp_asc_mem *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->s[i].component);
        free(m->s[i].device);
        free(m->s[i].p);
    }
    free(m->s);
    memset(m, 0, sizeof *m);
}

/* ---- operator_memory.csv ---- */

int vp_asc_read_opmem(const char *path, vp_asc_opmem **rows, size_t *n, vp_error *err)
{
    static const char *const c_name[] = {"Name", NULL};
    static const char *const c_alloc[] = {"Allocation Time(us)", NULL};
    static const char *const c_rel[] = {"Release Time(us)", NULL};
    static const char *const c_dev[] = {"Device Type", "Device", NULL};
    vp_csv *c = vp_csv_open(path, err);
    *rows = NULL;
    *n = 0;
    if (!c)
        return -1;
    double unit = 0;
    int i_name = vp_csv_col(c, c_name), i_size = size_col(c, "Size", &unit);
    int i_alloc = vp_csv_col(c, c_alloc), i_rel = vp_csv_col(c, c_rel);
    int i_dev = vp_csv_col(c, c_dev);
    double u_total = 0;
    int i_total = size_col(c, "Allocation Total Allocated", &u_total);
    if (i_name < 0 || i_size < 0 || i_alloc < 0) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: not an operator_memory.csv: needs Name, Size(KB) and Allocation "
                     "Time(us)",
                     vp_csv_name(c));
        vp_csv_close(c);
        return -1;
    }
    size_t cap = 0;
    int r;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_opmem o;
        if (size_cell(vp_csv_field(c, i_size), unit, &o.size) != 0)
            continue;
        if (vp_csv_us(vp_csv_field(c, i_alloc), &o.alloc) != 0)
            o.alloc = -1;
        if (vp_csv_us(vp_csv_field(c, i_rel), &o.release) != 0)
            o.release = -1;
        if (size_cell(vp_csv_field(c, i_total), u_total, &o.total_alloc) != 0)
            o.total_alloc = -1;
        o.name = vp_strdup(vp_csv_str(c, i_name));
        o.device = vp_strdup(vp_csv_str(c, i_dev));
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            *rows = vp_realloc(*rows, cap * sizeof **rows);
        }
        (*rows)[(*n)++] = o;
    }
    vp_csv_close(c);
    if (r < 0) {
        vp_asc_opmem_free(*rows, *n);
        *rows = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

void vp_asc_opmem_free(vp_asc_opmem *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].name);
        free(rows[i].device);
    }
    free(rows);
}

const char *vp_asc_opmem_component(const char *name)
{
    if (strncmp(name, "aten::", 6) == 0)
        return "PTA";
    if (strncmp(name, "cann::", 6) == 0)
        return "GE";
    return "";
}
