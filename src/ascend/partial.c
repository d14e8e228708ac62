/* step_trace_time rows and the communication analyzer's records in
 * partial results (vprof/part.h), for the commands that run per file and
 * merge: vprof steps and vprof comm. */
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_partial.h"
#include "vprof/util.h"

const char *vp_stt_trace_source(int slices)
{
    return slices ? "from trace_view.json's Overlap Analysis slices (torch_npu's "
                    "step_trace_time)"
                  : "from the device tasks and HCCL operations of the trace "
                    "(msprof's overlap definitions)";
}

const char *vp_stt_csv_source(void)
{
    return "read from step_trace_time.csv";
}

const char *vp_stt_cluster_source(void)
{
    return "read from cluster_step_trace_time.csv";
}

/* A source's code in partials: 0 none, 1 slices, 2 device tasks, 3
 * step_trace_time.csv, 4 cluster_step_trace_time.csv. */
static uint64_t source_code(const char *source)
{
    return !source                             ? 0
           : source == vp_stt_trace_source(1) ? 1
           : source == vp_stt_trace_source(0) ? 2
           : source == vp_stt_csv_source()    ? 3
           : source == vp_stt_cluster_source() ? 4
                                                : 3;
}

void vp_stt_save(const vp_stt *s, const char *source, vp_buf *b)
{
    vp_put_u64(b, source_code(source));
    vp_put_u64(b, s->n);
    for (size_t i = 0; i < s->n; i++) {
        const vp_stt_row *r = &s->rows[i];
        vp_put_i64(b, r->step);
        vp_put_u64(b, (uint64_t)r->is_stage);
        vp_put_i64(b, r->rank);
        vp_put_u64(b, r->index ? 1 : 0);
        if (r->index)
            vp_put_str(b, r->index, strlen(r->index));
        vp_put_i64(b, r->device);
        for (int k = 0; k < VP_STT_COUNT; k++)
            vp_put_i64(b, r->v[k]);
        vp_put_u64(b, r->have);
    }
    /* version 2: the note of DB rows, the parallel groups */
    vp_put_u64(b, s->note ? 1 : 0);
    if (s->note)
        vp_put_str(b, s->note, strlen(s->note));
    vp_put_u64(b, (uint64_t)s->groups_from);
    vp_put_u64(b, s->ngroups);
    for (size_t i = 0; i < s->ngroups; i++) {
        const vp_asc_pgroup *g = &s->groups[i];
        vp_put_str(b, g->id, strlen(g->id));
        vp_put_str(b, g->name, strlen(g->name));
        vp_put_u64(b, g->n);
        for (size_t k = 0; k < g->n; k++)
            vp_put_i64(b, g->ranks[k]);
    }
}

int vp_stt_merge(vp_stt *s, const char **source, vp_rd *r)
{
    uint64_t src = vp_get_u64(r);
    /* In input order, as the commands set it reading: a trace's and a
     * cluster file's source replace the one before, step_trace_time.csv's
     * is taken when there is none. */
    if (src == 1 || src == 2)
        *source = vp_stt_trace_source(src == 1);
    else if (src == 3 && !*source)
        *source = vp_stt_csv_source();
    else if (src == 4)
        *source = vp_stt_cluster_source();
    else if (src > 4)
        r->bad = 1;
    size_t n = vp_get_count(r, 5 + VP_STT_COUNT);
    for (size_t i = 0; i < n && !r->bad; i++) {
        vp_stt_row *row = vp_stt_add(s);
        row->step = (long)vp_get_i64(r);
        row->is_stage = vp_get_u64(r) != 0;
        row->rank = (long)vp_get_i64(r);
        if (vp_get_u64(r))
            row->index = vp_get_cstr_dup(r);
        row->device = vp_get_i64(r);
        for (int k = 0; k < VP_STT_COUNT; k++)
            row->v[k] = vp_get_i64(r);
        row->have = (unsigned)vp_get_u64(r);
    }
    if (vp_get_u64(r)) {
        char *note = vp_get_cstr_dup(r);
        if (note) {
            free(s->note_own);
            s->note = s->note_own = note;
        }
    }
    uint64_t from = vp_get_u64(r);
    if (from > VP_ASC_GROUPS_COMM_GROUP)
        r->bad = 1;
    else if (!s->groups_from)
        s->groups_from = (int)from;
    size_t ng = vp_get_count(r, 3);
    for (size_t i = 0; i < ng && !r->bad; i++) {
        char *id = vp_get_cstr_dup(r), *name = vp_get_cstr_dup(r);
        size_t nr = vp_get_count(r, 1);
        long *ranks = vp_malloc((nr + 1) * sizeof *ranks);
        for (size_t k = 0; k < nr; k++)
            ranks[k] = (long)vp_get_i64(r);
        if (!r->bad)
            vp_asc_add_group(s, id, name, ranks, nr);
        free(ranks);
        free(id);
        free(name);
    }
    return r->bad ? -1 : 0;
}

/* ---- communication.json and communication_matrix.json in partials ---- */

static void put_cstr(vp_buf *b, const char *s)
{
    vp_put_str(b, s ? s : "", s ? strlen(s) : 0);
}

void vp_hccl_save(const vp_hccl *h, int have_comm, int have_matrix, vp_buf *b)
{
    vp_put_u64(b, (uint64_t)(have_comm ? 1 : 0) | (have_matrix ? 2 : 0));
    vp_put_u64(b, h->nops);
    for (size_t i = 0; i < h->nops; i++) {
        const vp_hccl_op *op = &h->ops[i];
        put_cstr(b, op->step);
        put_cstr(b, op->kind);
        put_cstr(b, op->name);
        put_cstr(b, op->group);
        vp_put_i64(b, op->rank);
        vp_put_u64(b, (uint64_t)op->total);
        vp_put_i64(b, op->start);
        const double v[] = {op->elapse, op->transit, op->wait, op->sync, op->idle,
                            op->wait_ratio, op->sync_ratio};
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            vp_put_f64(b, v[k]);
        vp_put_u64(b, op->bw_have);
        for (int k = 0; k < VP_HCCL_TRANSPORTS; k++) {
            if (!(op->bw_have & (1u << k)))
                continue;
            const vp_hccl_bw *w = &op->bw[k];
            vp_put_f64(b, w->size_mb);
            vp_put_f64(b, w->time_ms);
            vp_put_f64(b, w->bandwidth);
            vp_put_f64(b, w->large_ratio);
            vp_put_i64(b, w->packets);
            vp_put_u64(b, (uint64_t)w->has_ratio);
        }
        for (int k = 0; k < VP_HCCL_TRANSPORTS; k++) {
            vp_put_u64(b, op->ndist[k]);
            for (size_t d = 0; d < op->ndist[k]; d++) {
                vp_put_f64(b, op->dist_size[k][d]);
                vp_put_i64(b, op->dist_count[k][d]);
                vp_put_f64(b, op->dist_ms[k][d]);
            }
        }
    }
    vp_put_u64(b, h->nlinks);
    for (size_t i = 0; i < h->nlinks; i++) {
        const vp_hccl_link *l = &h->links[i];
        put_cstr(b, l->step);
        put_cstr(b, l->kind);
        put_cstr(b, l->op);
        vp_put_i64(b, l->src);
        vp_put_i64(b, l->dst);
        put_cstr(b, l->transport);
        vp_put_f64(b, l->size_mb);
        vp_put_f64(b, l->time_ms);
        vp_put_f64(b, l->bandwidth);
    }
}

int vp_hccl_merge(vp_hccl *h, int *have_comm, int *have_matrix, vp_rd *r)
{
    uint64_t flags = vp_get_u64(r);
    if (flags > 3)
        r->bad = 1;
    *have_comm |= (flags & 1) != 0;
    *have_matrix |= (flags & 2) != 0;
    size_t n = vp_get_count(r, 4 + 3 + 7 * 8 + 1 + VP_HCCL_TRANSPORTS);
    for (size_t i = 0; i < n && !r->bad; i++) {
        if (h->nops == h->cap_ops) {
            h->cap_ops = h->cap_ops ? h->cap_ops * 2 : 64;
            h->ops = vp_realloc(h->ops, h->cap_ops * sizeof *h->ops);
        }
        vp_hccl_op *op = &h->ops[h->nops++];
        memset(op, 0, sizeof *op);
        op->step = vp_get_cstr_dup(r);
        op->kind = vp_get_cstr_dup(r);
        op->name = vp_get_cstr_dup(r);
        op->group = vp_get_cstr_dup(r);
        op->rank = (long)vp_get_i64(r);
        op->total = vp_get_u64(r) != 0;
        op->start = vp_get_i64(r);
        double *v[] = {&op->elapse, &op->transit, &op->wait, &op->sync, &op->idle,
                       &op->wait_ratio, &op->sync_ratio};
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            *v[k] = vp_get_f64(r);
        uint64_t have = vp_get_u64(r);
        if (have >> VP_HCCL_TRANSPORTS)
            r->bad = 1;
        op->bw_have = (unsigned)have;
        for (int k = 0; k < VP_HCCL_TRANSPORTS && !r->bad; k++) {
            if (!(op->bw_have & (1u << k)))
                continue;
            vp_hccl_bw *w = &op->bw[k];
            w->size_mb = vp_get_f64(r);
            w->time_ms = vp_get_f64(r);
            w->bandwidth = vp_get_f64(r);
            w->large_ratio = vp_get_f64(r);
            w->packets = vp_get_i64(r);
            w->has_ratio = vp_get_u64(r) != 0;
        }
        for (int k = 0; k < VP_HCCL_TRANSPORTS && !r->bad; k++) {
            size_t nd = vp_get_count(r, 17);
            if (!nd)
                continue;
            op->dist_size[k] = vp_malloc(nd * sizeof(double));
            op->dist_count[k] = vp_malloc(nd * sizeof(int64_t));
            op->dist_ms[k] = vp_malloc(nd * sizeof(double));
            for (size_t d = 0; d < nd; d++) {
                op->dist_size[k][d] = vp_get_f64(r);
                op->dist_count[k][d] = vp_get_i64(r);
                op->dist_ms[k][d] = vp_get_f64(r);
            }
            op->ndist[k] = nd;
        }
    }
    n = r->bad ? 0 : vp_get_count(r, 6 + 3 * 8);
    for (size_t i = 0; i < n && !r->bad; i++) {
        if (h->nlinks == h->cap_links) {
            h->cap_links = h->cap_links ? h->cap_links * 2 : 64;
            h->links = vp_realloc(h->links, h->cap_links * sizeof *h->links);
        }
        vp_hccl_link *l = &h->links[h->nlinks++];
        memset(l, 0, sizeof *l);
        l->step = vp_get_cstr_dup(r);
        l->kind = vp_get_cstr_dup(r);
        l->op = vp_get_cstr_dup(r);
        l->src = (long)vp_get_i64(r);
        l->dst = (long)vp_get_i64(r);
        size_t len;
        const char *t = vp_get_cstr(r, &len);
        if (!t || len >= sizeof l->transport)
            r->bad = 1;
        else
            memcpy(l->transport, t, len);
        l->size_mb = vp_get_f64(r);
        l->time_ms = vp_get_f64(r);
        l->bandwidth = vp_get_f64(r);
    }
    return r->bad ? -1 : 0;
}
