/* The tables of an Ascend run: step_trace_time (rank and stage rows) and
 * the communication analyzer's operations, bandwidths and links. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_tables.h"
#include "vprof/util.h"

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

vp_table *vp_stt_table(const vp_stt *s, const vp_stt_stage_result *st, const char *source)
{
    vp_table *t = vp_table_new("step_trace_time");
    vp_table_add_col(t, "Step", VP_COL_INT, 0);
    vp_table_add_col(t, "Type", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Index", VP_COL_TEXT, 0);
    for (int c = 0; c < VP_STT_COUNT; c++)
        vp_table_add_col(t, vp_stt_names[c], VP_COL_NS, 0);
    for (size_t i = 0; i < st->ndiffer; i++) {
        const vp_stt_differ *d = &st->differ[i];
        vp_table_add_note(t, "step %ld stage %s: %s is %lld ns, but the maximum of its "
                             "ranks is %lld ns",
                          d->step, d->index, vp_stt_names[d->column], (long long)d->value,
                          (long long)d->max);
    }
    if (st->added == VP_STT_STAGES_FROM_GROUPS)
        vp_table_add_note(t, "stage rows: the element-wise maximum of each pipeline stage's rank "
                             "rows; %zu stage%s of %zu pipeline%s from %s (msprof-analyze's rule: "
                             "pp groups chain the pipelines, the other groups holding at most one "
                             "rank of each pipeline are merged into stages)%s",
                          st->nstages, st->nstages == 1 ? "" : "s", st->npipelines,
                          st->npipelines == 1 ? "" : "s",
                          s->groups_from == VP_ASC_GROUPS_COMM_GROUP
                              ? "communication_group.json's comm_group_parallel_info"
                              : "profiler_metadata.json's parallel groups",
                          st->any_rest ? "; Index () holds the ranks no stage group names" : "");
    else if (st->added == VP_STT_STAGES_ALL_RANKS)
        vp_table_add_note(t, "stage rows: the element-wise maximum of the ranks' rows of each "
                             "step (msprof-analyze's cluster rule, all ranks as one stage)");
    for (size_t i = 0; i < s->n; i++)
        put_row(t, &s->rows[i]);
    if (st->checked && !st->ndiffer)
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

void vp_hccl_tables(const vp_hccl *h, int have_comm, int have_matrix, vp_table **tables,
                     size_t *n)
{
    if (have_comm) {
        tables[(*n)++] = ops_table(h);
        tables[(*n)++] = bandwidth_table(h);
    }
    if (have_matrix)
        tables[(*n)++] = links_table(h);
}
