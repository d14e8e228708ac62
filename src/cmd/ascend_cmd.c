/* Ascend tables shared by vprof comm and vprof steps. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/ascend_cmd.h"
#include "vprof/util.h"

asc_arg asc_arg_of(const char *path)
{
    asc_arg a = {0, VP_ASC_TRACE};
    if (vp_asc_is_dir(path)) {
        a.is_dir = 1;
        a.kind = VP_ASC_UNKNOWN;
        return a;
    }
    if (strcmp(path, "-") == 0)
        return a;
    vp_asc_file k = vp_asc_sniff(path);
    if (k != VP_ASC_UNKNOWN)
        a.kind = k;
    return a;
}

int asc_read_comm_groups(const char *path, const vp_asc_run *run, vp_stt *s)
{
    /* the cluster files' folder, else the run's cluster_analysis_output */
    char *f = NULL;
    for (int k = 0; k < 2 && !f; k++) {
        vp_buf b = {0};
        if (k == 0 && run->has_cluster && run->cluster.dir)
            vp_buf_printf(&b, "%s/communication_group.json", run->cluster.dir);
        else if (k == 1)
            vp_buf_printf(&b, "%s/cluster_analysis_output/communication_group.json", path);
        if (b.len && access(vp_buf_cstr(&b), R_OK) == 0)
            f = vp_strdup(vp_buf_cstr(&b));
        vp_buf_free(&b);
    }
    int st = VP_EXIT_OK;
    vp_error err = {0};
    if (f && vp_asc_read_comm_groups(f, s, &err) != 0) {
        vp_error_print(&err);
        st = VP_EXIT_INPUT;
    }
    free(f);
    return st;
}

/* A stage row's order: its first rank ("()", the ranks of no stage, last). */
static long stage_key(const vp_stt_row *r)
{
    long first;
    if (!r->index || vp_stt_parse_index(r->index, &first, 1) < 1)
        return LONG_MAX;
    return first;
}

static int cmp_stt(const void *a, const void *b)
{
    const vp_stt_row *x = a, *y = b;
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    if (x->is_stage != y->is_stage)
        return x->is_stage - y->is_stage;
    if (x->is_stage) {
        long kx = stage_key(x), ky = stage_key(y);
        if (kx != ky)
            return (kx > ky) - (kx < ky);
        return strcmp(x->index ? x->index : "", y->index ? y->index : "");
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* msprof-analyze's Index of a stage: "(0, 1, 2, 3)", "(5,)". */
static char *index_text(const long *ranks, size_t n)
{
    vp_buf b = {0};
    vp_buf_putc(&b, '(');
    for (size_t k = 0; k < n; k++)
        vp_buf_printf(&b, "%s%ld", k ? ", " : "", ranks[k]);
    if (n == 1)
        vp_buf_putc(&b, ',');   /* Python's one-element tuple, as msprof-analyze prints it */
    vp_buf_putc(&b, ')');
    char *t = vp_strdup(vp_buf_cstr(&b));
    vp_buf_free(&b);
    return t;
}

/* Stage rows from the parallel groups: per step, one per stage, and one
 * with Index "()" for the ranks no stage holds (msprof-analyze groups
 * those under an empty tuple).  0 when the groups give no stage. */
static int add_pipeline_stages(vp_stt *s, vp_table *t)
{
    vp_asc_stages st;
    size_t chains = vp_asc_stages_of(s->groups, s->ngroups, &st);
    if (!chains || !st.n) {
        vp_asc_stages_free(&st);
        return 0;
    }
    size_t n0 = s->n;
    long *rest = vp_malloc((n0 ? n0 : 1) * sizeof *rest);
    int any_rest = 0;
    for (size_t i = 0; i < n0; i++) {
        long step = s->rows[i].step;
        size_t j = 0;
        while (j < i && s->rows[j].step != step)
            j++;
        if (j < i || s->rows[i].is_stage)
            continue;
        for (size_t k = 0; k < st.n; k++) {
            vp_stt_row m;
            const long *ranks = st.ranks + st.first[k];
            size_t nr = st.first[k + 1] - st.first[k];
            if (vp_stt_stage(s, step, ranks, nr, &m)) {
                vp_stt_row *r = vp_stt_add(s);
                *r = m;
                r->index = index_text(ranks, nr);
            }
        }
        /* the step's ranks in no stage */
        size_t nrest = 0;
        for (size_t q = 0; q < n0; q++) {
            const vp_stt_row *r = &s->rows[q];
            if (r->is_stage || r->step != step)
                continue;
            size_t k = 0;
            while (k < st.first[st.n] && st.ranks[k] != r->rank)
                k++;
            if (k == st.first[st.n])
                rest[nrest++] = r->rank;
        }
        vp_stt_row m;
        if (nrest && vp_stt_stage(s, step, rest, nrest, &m)) {
            vp_stt_row *r = vp_stt_add(s);
            *r = m;
            r->index = vp_strdup("()");
            any_rest = 1;
        }
    }
    free(rest);
    vp_table_add_note(t, "stage rows: the element-wise maximum of each pipeline stage's rank "
                         "rows; %zu stage%s of %zu pipeline%s from %s (msprof-analyze's rule: "
                         "pp groups chain the pipelines, the other groups holding at most one "
                         "rank of each pipeline are merged into stages)%s",
                      st.n, st.n == 1 ? "" : "s", chains, chains == 1 ? "" : "s",
                      s->groups_from == VP_ASC_GROUPS_COMM_GROUP
                          ? "communication_group.json's comm_group_parallel_info"
                          : "profiler_metadata.json's parallel groups",
                      any_rest ? "; Index () holds the ranks no stage group names" : "");
    vp_asc_stages_free(&st);
    return 1;
}

static void put_row(vp_table *t, const vp_stt_row *r)
{
    size_t row = vp_table_add_row(t);
    if (r->step >= 0)
        vp_table_set_int(t, row, 0, r->step);
    vp_table_set_text(t, row, 1, r->is_stage ? "stage" : "rank");
    if (r->is_stage) {
        vp_table_set_text(t, row, 2, r->index ? r->index : "");
    } else {
        char b[32];
        snprintf(b, sizeof b, "%ld", r->rank);
        vp_table_set_text(t, row, 2, b);
    }
    for (int c = 0; c < VP_STT_COUNT; c++)
        if (r->have & (1u << c))
            vp_table_set_int(t, row, 3 + c, r->v[c]);
}

vp_table *asc_stt_table(vp_stt *s, int add_stage, const char *source)
{
    vp_table *t = vp_table_new("step_trace_time");
    vp_table_add_col(t, "Step", VP_COL_INT, 0);
    vp_table_add_col(t, "Type", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Index", VP_COL_TEXT, 0);
    for (int c = 0; c < VP_STT_COUNT; c++)
        vp_table_add_col(t, vp_stt_names[c], VP_COL_NS, 0);

    int has_stage = 0;
    size_t nranks = 0;
    long *seen = vp_malloc((s->n ? s->n : 1) * sizeof *seen);
    for (size_t i = 0; i < s->n; i++) {
        has_stage |= s->rows[i].is_stage;
        if (s->rows[i].is_stage)
            continue;
        size_t k = 0;
        while (k < nranks && seen[k] != s->rows[i].rank)
            k++;
        if (k == nranks)
            seen[nranks++] = s->rows[i].rank;
    }
    /* Stage rows of a cluster file: each must be its ranks' maxima. */
    size_t checked = 0, differ = 0;
    for (size_t i = 0; i < s->n; i++) {
        vp_stt_row *r = &s->rows[i];
        long ranks[4096];
        int n;
        vp_stt_row m;
        if (!r->is_stage || !r->index || (n = vp_stt_parse_index(r->index, ranks, 4096)) <= 0 ||
            n > 4096 || !vp_stt_stage(s, r->step, ranks, (size_t)n, &m))
            continue;
        checked++;
        for (int c = 0; c < VP_STT_COUNT; c++)
            if ((r->have & m.have & (1u << c)) && r->v[c] != m.v[c]) {
                differ++;
                vp_table_add_note(t, "step %ld stage %s: %s is %lld ns, but the maximum of its "
                                     "ranks is %lld ns",
                                  r->step, r->index, vp_stt_names[c], (long long)r->v[c],
                                  (long long)m.v[c]);
            }
    }
    if (add_stage && !has_stage && nranks > 1 && s->ngroups && add_pipeline_stages(s, t)) {
        /* stages from the parallel groups */
    } else if (add_stage && !has_stage && nranks > 1) {
        size_t n0 = s->n;
        vp_buf idx = {0};
        vp_buf_putc(&idx, '(');
        for (size_t k = 0; k < nranks; k++)
            vp_buf_printf(&idx, "%s%ld", k ? ", " : "", seen[k]);
        vp_buf_putc(&idx, ')');
        for (size_t i = 0; i < n0; i++) {
            long step = s->rows[i].step;
            size_t j = 0;
            while (j < i && s->rows[j].step != step)
                j++;
            if (j < i)
                continue;
            vp_stt_row m;
            if (vp_stt_stage(s, step, NULL, 0, &m)) {
                vp_stt_row *r = vp_stt_add(s);
                *r = m;
                r->index = vp_strdup(vp_buf_cstr(&idx));
            }
        }
        vp_buf_free(&idx);
        vp_table_add_note(t, "stage rows: the element-wise maximum of the ranks' rows of each "
                             "step (msprof-analyze's cluster rule, all ranks as one stage)");
    }
    if (s->n)
        qsort(s->rows, s->n, sizeof *s->rows, cmp_stt);
    for (size_t i = 0; i < s->n; i++)
        put_row(t, &s->rows[i]);
    free(seen);
    if (checked && !differ)
        vp_table_add_note(t, "stage rows: each equals the element-wise maximum of its ranks' "
                             "rows (checked)");
    if (s->note)
        vp_table_add_note(t, "%s", s->note);
    else if (source)
        vp_table_add_note(t, "%s", source);
    if (s->n == 0)
        vp_table_add_note(t, "no step_trace_time rows");
    return t;
}

static int64_t ms_ns(double ms)
{
    return (int64_t)llround(ms * 1e6);
}

static int64_t mb_bytes(double mb)
{
    return (int64_t)llround(mb * 1e6);
}

/* Per (rank, step, kind, transport): the sums over the operations. */
typedef struct bw_sum {
    long rank;
    const char *step, *kind;
    int transport;
    double size, time;
    int64_t ops;
    double *dsize;
    int64_t *dcount;
    size_t nd, capd;
} bw_sum;

static void add_dist(bw_sum *b, double size, int64_t count)
{
    for (size_t i = 0; i < b->nd; i++)
        if (b->dsize[i] == size) {
            b->dcount[i] += count;
            return;
        }
    if (b->nd == b->capd) {
        b->capd = b->capd ? b->capd * 2 : 8;
        b->dsize = vp_realloc(b->dsize, b->capd * sizeof *b->dsize);
        b->dcount = vp_realloc(b->dcount, b->capd * sizeof *b->dcount);
    }
    b->dsize[b->nd] = size;
    b->dcount[b->nd++] = count;
}

static vp_table *ops_table(const vp_hccl *h)
{
    vp_table *t = vp_table_new("hccl_ops");
    static const char *const cols[] = {"Rank", "Step", "Kind", "Op", "Group"};
    for (int i = 0; i < 5; i++)
        vp_table_add_col(t, cols[i], i == 0 ? VP_COL_INT : VP_COL_TEXT, 0);
    vp_table_add_col(t, "Elapse", VP_COL_NS, 0);
    vp_table_add_col(t, "Transit", VP_COL_NS, 0);
    vp_table_add_col(t, "Wait", VP_COL_NS, 0);
    vp_table_add_col(t, "Synchronization", VP_COL_NS, 0);
    vp_table_add_col(t, "Idle", VP_COL_NS, 0);
    vp_table_add_col(t, "Wait Ratio", VP_COL_RATIO, 4);
    vp_table_add_col(t, "Sync Ratio", VP_COL_RATIO, 4);
    for (size_t i = 0; i < h->nops; i++) {
        const vp_hccl_op *op = &h->ops[i];
        size_t r = vp_table_add_row(t);
        if (op->rank >= 0)
            vp_table_set_int(t, r, 0, op->rank);
        vp_table_set_text(t, r, 1, op->step);
        vp_table_set_text(t, r, 2, op->kind);
        vp_table_set_text(t, r, 3, op->name);
        vp_table_set_text(t, r, 4, op->group);
        vp_table_set_int(t, r, 5, ms_ns(op->elapse));
        vp_table_set_int(t, r, 6, ms_ns(op->transit));
        vp_table_set_int(t, r, 7, ms_ns(op->wait));
        vp_table_set_int(t, r, 8, ms_ns(op->sync));
        vp_table_set_int(t, r, 9, ms_ns(op->idle));
        vp_table_set_double(t, r, 10, op->wait_ratio);
        vp_table_set_double(t, r, 11, op->sync_ratio);
    }
    vp_table_add_note(t, "msprof's communication analyzer (communication.json): Elapse = last "
                         "task end - first task start; Idle = Elapse - Transit - Wait; Wait "
                         "Ratio = Wait / (Wait + Transit); Sync Ratio = Synchronization / "
                         "(Synchronization + Transit)");
    if (h->nops == 0)
        vp_table_add_note(t, "no communication operations");
    return t;
}

static vp_table *bandwidth_table(const vp_hccl *h)
{
    bw_sum *sums = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < h->nops; i++) {
        const vp_hccl_op *op = &h->ops[i];
        if (op->total)
            continue;
        for (int k = 0; k < VP_HCCL_TRANSPORTS; k++) {
            if (!(op->bw_have & (1u << k)))
                continue;
            size_t j = 0;
            while (j < n && !(sums[j].rank == op->rank && sums[j].transport == k &&
                              strcmp(sums[j].step, op->step) == 0 &&
                              strcmp(sums[j].kind, op->kind) == 0))
                j++;
            if (j == n) {
                if (n == cap) {
                    cap = cap ? cap * 2 : 16;
                    sums = vp_realloc(sums, cap * sizeof *sums);
                }
                memset(&sums[n], 0, sizeof sums[n]);
                sums[n].rank = op->rank;
                sums[n].step = op->step;
                sums[n].kind = op->kind;
                sums[n].transport = k;
                n++;
            }
            bw_sum *b = &sums[j];
            b->size += op->bw[k].size_mb;
            b->time += op->bw[k].time_ms;
            if (op->bw[k].time_ms > 0)
                b->ops++;
            for (size_t d = 0; d < op->ndist[k]; d++)
                add_dist(b, op->dist_size[k][d], op->dist_count[k][d]);
        }
    }
    vp_table *t = vp_table_new("hccl_bandwidth");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Step", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Kind", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Transport", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Ops", VP_COL_INT, 0);
    vp_table_add_col(t, "Transit Size", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Transit Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Bandwidth (GB/s)", VP_COL_RATIO, 4);
    vp_table_add_col(t, "Packets", VP_COL_INT, 0);
    vp_table_add_col(t, "Large Packet Ratio", VP_COL_RATIO, 4);
    for (size_t j = 0; j < n; j++) {
        bw_sum *b = &sums[j];
        if (b->size == 0 && b->time == 0) {
            free(b->dsize);
            free(b->dcount);
            continue;
        }
        size_t r = vp_table_add_row(t);
        if (b->rank >= 0)
            vp_table_set_int(t, r, 0, b->rank);
        vp_table_set_text(t, r, 1, b->step);
        vp_table_set_text(t, r, 2, b->kind);
        vp_table_set_text(t, r, 3, vp_hccl_transport_names[b->transport]);
        vp_table_set_int(t, r, 4, b->ops);
        vp_table_set_int(t, r, 5, mb_bytes(b->size));
        vp_table_set_int(t, r, 6, ms_ns(b->time));
        if (b->time > 0)
            vp_table_set_double(t, r, 7, b->size / b->time);
        int64_t packets = 0;
        for (size_t d = 0; d < b->nd; d++)
            packets += b->dcount[d];
        if (packets) {
            vp_table_set_int(t, r, 8, packets);
            vp_table_set_double(t, r, 9,
                                vp_hccl_large_ratio(b->transport, b->dsize, b->dcount, b->nd));
        }
        free(b->dsize);
        free(b->dcount);
    }
    free(sums);
    vp_table_add_note(t, "per transport, summed over the operations: Bandwidth = Transit Size "
                         "(MB, 10^6 B) / Transit Time (ms) = GB/s; Large Packet Ratio = share of "
                         "packets above 0.5 MB (RDMA) or 32 MB (HCCS, PCIE, SIO, SDMA); SDMA "
                         "adds up HCCS, PCIE and SIO");
    if (vp_table_rows(t) == 0)
        vp_table_add_note(t, "no transfers");
    return t;
}

typedef struct link_sum {
    const char *step, *kind, *transport;
    long src, dst;
    double size, time;
    int64_t ops;
} link_sum;

static int cmp_link(const void *a, const void *b)
{
    const link_sum *x = a, *y = b;
    int c = strcmp(x->step, y->step);
    if (c)
        return c;
    if ((c = strcmp(x->kind, y->kind)))
        return c;
    if (x->src != y->src)
        return (x->src > y->src) - (x->src < y->src);
    if (x->dst != y->dst)
        return (x->dst > y->dst) - (x->dst < y->dst);
    return strcmp(x->transport, y->transport);
}

static vp_table *links_table(const vp_hccl *h)
{
    link_sum *sums = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < h->nlinks; i++) {
        const vp_hccl_link *l = &h->links[i];
        if (strcmp(l->op, "Total Op Info") == 0)
            continue;
        size_t j = 0;
        while (j < n && !(sums[j].src == l->src && sums[j].dst == l->dst &&
                          strcmp(sums[j].transport, l->transport) == 0 &&
                          strcmp(sums[j].step, l->step) == 0 && strcmp(sums[j].kind, l->kind) == 0))
            j++;
        if (j == n) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                sums = vp_realloc(sums, cap * sizeof *sums);
            }
            sums[n++] = (link_sum){l->step, l->kind, l->transport, l->src, l->dst, 0, 0, 0};
        }
        sums[j].size += l->size_mb;
        sums[j].time += l->time_ms;
        sums[j].ops++;
    }
    if (n)
        qsort(sums, n, sizeof *sums, cmp_link);
    vp_table *t = vp_table_new("hccl_links");
    vp_table_add_col(t, "Step", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Kind", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Src", VP_COL_INT, 0);
    vp_table_add_col(t, "Dst", VP_COL_INT, 0);
    vp_table_add_col(t, "Transport", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Ops", VP_COL_INT, 0);
    vp_table_add_col(t, "Transit Size", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Transit Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Bandwidth (GB/s)", VP_COL_RATIO, 4);
    for (size_t j = 0; j < n; j++) {
        size_t r = vp_table_add_row(t);
        vp_table_set_text(t, r, 0, sums[j].step);
        vp_table_set_text(t, r, 1, sums[j].kind);
        vp_table_set_int(t, r, 2, sums[j].src);
        vp_table_set_int(t, r, 3, sums[j].dst);
        vp_table_set_text(t, r, 4, sums[j].transport);
        vp_table_set_int(t, r, 5, sums[j].ops);
        vp_table_set_int(t, r, 6, mb_bytes(sums[j].size));
        vp_table_set_int(t, r, 7, ms_ns(sums[j].time));
        if (sums[j].time > 0)
            vp_table_set_double(t, r, 8, sums[j].size / sums[j].time);
    }
    free(sums);
    vp_table_add_note(t, "communication_matrix.json per link (global ranks), summed over the "
                         "operations; Bandwidth = Transit Size (MB) / Transit Time (ms)");
    return t;
}

void asc_hccl_tables(const vp_hccl *h, int have_comm, int have_matrix, vp_table **tables,
                     size_t *n)
{
    if (have_comm) {
        tables[(*n)++] = ops_table(h);
        tables[(*n)++] = bandwidth_table(h);
    }
    if (have_matrix)
        tables[(*n)++] = links_table(h);
}
