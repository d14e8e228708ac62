/* communication.json and communication_matrix.json (msprof's
 * communication analyzer, per rank and in msprof-analyze's cluster form).
 * Small documents: read whole with cJSON. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_hccl.h"
#include "vprof/source.h"
#include "vprof/util.h"

const char *const vp_hccl_transport_names[VP_HCCL_TRANSPORTS] = {"RDMA", "HCCS", "PCIE", "SDMA",
                                                                 "SIO"};

/* Documents larger than this are refused (real ones are kilobytes to a
 * few megabytes). */
#define HCCL_MAX_DOC (512u << 20)

static cJSON *load(const char *path, vp_error *err)
{
    vp_source *src = vp_source_open(path, err);
    if (!src)
        return NULL;
    vp_buf b = {0};
    vp_chunk ch;
    int r;
    while ((r = vp_source_next(src, &ch, err)) == 1) {
        if (b.len + ch.len > HCCL_MAX_DOC) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: larger than %u MiB", path, HCCL_MAX_DOC >> 20);
            r = -1;
            break;
        }
        vp_buf_append(&b, ch.data, ch.len);
    }
    vp_source_close(src);
    cJSON *j = NULL;
    if (r == 0) {
        j = b.len ? cJSON_ParseWithLength(b.data, b.len) : NULL;
        if (!j || !cJSON_IsObject(j)) {
            const char *at = j ? NULL : cJSON_GetErrorPtr();
            if (at && at >= b.data && at <= b.data + b.len)
                vp_error_set(err, VP_EXIT_INPUT, "%s: invalid JSON near byte %zu", path,
                             (size_t)(at - b.data));
            else
                vp_error_set(err, VP_EXIT_INPUT, "%s: expected a JSON object", path);
            cJSON_Delete(j);
            j = NULL;
        }
    }
    vp_buf_free(&b);
    return j;
}

static double num(const cJSON *o, const char *key, int *found)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v)) {
        if (found)
            *found = 1;
        return v->valuedouble;
    }
    if (found)
        *found = 0;
    return 0;
}

static int transport_index(const char *s)
{
    for (int k = 0; k < VP_HCCL_TRANSPORTS; k++)
        if (strcmp(s, vp_hccl_transport_names[k]) == 0)
            return k;
    return -1;
}

double vp_hccl_large_mb(int transport)
{
    return transport == VP_HCCL_RDMA ? 0.5 : 32.0;
}

double vp_hccl_large_ratio(int transport, const double *size_mb, const int64_t *count, size_t n)
{
    int64_t all = 0, large = 0;
    for (size_t i = 0; i < n; i++) {
        all += count[i];
        if (size_mb[i] > vp_hccl_large_mb(transport))
            large += count[i];
    }
    return all ? (double)large / (double)all : 0.0;
}

static void split_name(const char *key, char **name, char **group)
{
    const char *at = strrchr(key, '@');
    if (at) {
        *name = vp_strndup(key, (size_t)(at - key));
        *group = vp_strdup(at + 1);
    } else {
        *name = vp_strdup(key);
        *group = vp_strdup("");
    }
}

static vp_hccl_op *new_op(vp_hccl *h)
{
    if (h->nops == h->cap_ops) {
        h->cap_ops = h->cap_ops ? h->cap_ops * 2 : 64;
        h->ops = vp_realloc(h->ops, h->cap_ops * sizeof *h->ops);
    }
    vp_hccl_op *op = &h->ops[h->nops++];
    memset(op, 0, sizeof *op);
    op->rank = -1;
    op->start = -1;
    return op;
}

static void read_op(vp_hccl *h, const char *step, const char *kind, const char *key, long rank,
                    const cJSON *info)
{
    const cJSON *ti = cJSON_GetObjectItemCaseSensitive(info, "Communication Time Info");
    const cJSON *bi = cJSON_GetObjectItemCaseSensitive(info, "Communication Bandwidth Info");
    if (!cJSON_IsObject(ti))
        return;
    vp_hccl_op *op = new_op(h);
    op->step = vp_strdup(step);
    op->kind = vp_strdup(kind);
    split_name(key, &op->name, &op->group);
    op->rank = rank;
    op->total = strcmp(key, "Total Op Info") == 0;
    int f;
    double start = num(ti, "Start Timestamp(us)", &f);
    if (f)
        op->start = (int64_t)llround(start * 1000.0);
    op->elapse = num(ti, "Elapse Time(ms)", NULL);
    op->transit = num(ti, "Transit Time(ms)", NULL);
    op->wait = num(ti, "Wait Time(ms)", NULL);
    op->sync = num(ti, "Synchronization Time(ms)", NULL);
    op->idle = num(ti, "Idle Time(ms)", NULL);
    op->wait_ratio = num(ti, "Wait Time Ratio", NULL);
    op->sync_ratio = num(ti, "Synchronization Time Ratio", NULL);
    const cJSON *tr;
    cJSON_ArrayForEach(tr, bi)
    {
        int k = tr->string ? transport_index(tr->string) : -1;
        if (k < 0 || !cJSON_IsObject(tr))
            continue;
        vp_hccl_bw *b = &op->bw[k];
        op->bw_have |= 1u << k;
        b->size_mb = num(tr, "Transit Size(MB)", NULL);
        b->time_ms = num(tr, "Transit Time(ms)", NULL);
        b->bandwidth = num(tr, "Bandwidth(GB/s)", &f);
        if (!f)
            b->bandwidth = b->time_ms > 0 ? b->size_mb / b->time_ms : 0;
        const cJSON *sd = cJSON_GetObjectItemCaseSensitive(tr, "Size Distribution");
        size_t n = (size_t)cJSON_GetArraySize(sd);
        if (n) {
            op->dist_size[k] = vp_malloc(n * sizeof(double));
            op->dist_count[k] = vp_malloc(n * sizeof(int64_t));
            op->dist_ms[k] = vp_malloc(n * sizeof(double));
        }
        size_t m = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, sd)
        {
            const cJSON *cnt = cJSON_GetArrayItem(e, 0), *ms = cJSON_GetArrayItem(e, 1);
            if (!e->string || !cJSON_IsNumber(cnt))
                continue;
            op->dist_size[k][m] = strtod(e->string, NULL);
            op->dist_count[k][m] = (int64_t)cnt->valuedouble;
            op->dist_ms[k][m] = cJSON_IsNumber(ms) ? ms->valuedouble : 0;
            b->packets += op->dist_count[k][m];
            m++;
        }
        op->ndist[k] = m;
        b->large_ratio = num(tr, "Large Packet Ratio", &f);
        b->has_ratio = f;
        if (!f && m) {
            b->large_ratio = vp_hccl_large_ratio(k, op->dist_size[k], op->dist_count[k], m);
            b->has_ratio = 1;
        }
    }
}

/* A group level ({"collective": {...}, "p2p": {...}}) is per rank; a
 * top level keyed "p2p" / "(0, 1, ...)" whose values are steps is the
 * cluster form. */
static int is_cluster(const cJSON *root)
{
    const cJSON *first = root->child;
    if (!first || !first->string)
        return 0;
    return first->string[0] == '(' ||
           (strcmp(first->string, "p2p") == 0 && cJSON_IsObject(first->child) &&
            first->child->string && strncmp(first->child->string, "step", 4) == 0);
}

int vp_hccl_read_comm(const char *path, vp_hccl *h, vp_error *err)
{
    cJSON *root = load(path, err);
    if (!root)
        return -1;
    const cJSON *a, *b, *c, *d;
    if (is_cluster(root)) {
        cJSON_ArrayForEach(a, root)           /* group */
            cJSON_ArrayForEach(b, a)          /* step */
                cJSON_ArrayForEach(c, b)      /* op */
                    cJSON_ArrayForEach(d, c)  /* rank */
                    {
                        char *e;
                        long rank = d->string ? strtol(d->string, &e, 10) : -1;
                        read_op(h, b->string, a->string, c->string, rank, d);
                    }
    } else {
        cJSON_ArrayForEach(a, root)           /* step */
            cJSON_ArrayForEach(b, a)          /* collective | p2p */
                cJSON_ArrayForEach(c, b)      /* op */
                    read_op(h, a->string, b->string, c->string, -1, c);
    }
    cJSON_Delete(root);
    return 0;
}

static void read_links(vp_hccl *h, const char *step, const char *kind, const char *op,
                       const cJSON *links)
{
    const cJSON *l;
    cJSON_ArrayForEach(l, links)
    {
        if (!l->string || !cJSON_IsObject(l))
            continue;
        char *dash;
        long src = strtol(l->string, &dash, 10);
        if (*dash != '-')
            continue;
        long dst = strtol(dash + 1, NULL, 10);
        if (h->nlinks == h->cap_links) {
            h->cap_links = h->cap_links ? h->cap_links * 2 : 64;
            h->links = vp_realloc(h->links, h->cap_links * sizeof *h->links);
        }
        vp_hccl_link *k = &h->links[h->nlinks++];
        memset(k, 0, sizeof *k);
        k->step = vp_strdup(step);
        k->kind = vp_strdup(kind);
        k->op = vp_strdup(op);
        k->src = src;
        k->dst = dst;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(l, "Transport Type");
        snprintf(k->transport, sizeof k->transport, "%s", cJSON_IsString(t) ? t->valuestring : "");
        k->size_mb = num(l, "Transit Size(MB)", NULL);
        k->time_ms = num(l, "Transit Time(ms)", NULL);
        int f;
        k->bandwidth = num(l, "Bandwidth(GB/s)", &f);
        if (!f)
            k->bandwidth = k->time_ms > 0 ? k->size_mb / k->time_ms : 0;
    }
}

int vp_hccl_read_matrix(const char *path, vp_hccl *h, vp_error *err)
{
    cJSON *root = load(path, err);
    if (!root)
        return -1;
    const cJSON *a, *b, *c;
    /* Both forms have three levels above the links: step/kind/op per rank,
     * group/step/op in the cluster file. */
    int cluster = is_cluster(root);
    cJSON_ArrayForEach(a, root)
        cJSON_ArrayForEach(b, a)
            cJSON_ArrayForEach(c, b)
                read_links(h, cluster ? b->string : a->string, cluster ? a->string : b->string,
                           c->string, c);
    cJSON_Delete(root);
    return 0;
}

void vp_hccl_free(vp_hccl *h)
{
    for (size_t i = 0; i < h->nops; i++) {
        vp_hccl_op *op = &h->ops[i];
        free(op->step);
        free(op->kind);
        free(op->name);
        free(op->group);
        for (int k = 0; k < VP_HCCL_TRANSPORTS; k++) {
            free(op->dist_size[k]);
            free(op->dist_count[k]);
            free(op->dist_ms[k]);
        }
    }
    for (size_t i = 0; i < h->nlinks; i++) {
        free(h->links[i].step);
        free(h->links[i].kind);
        free(h->links[i].op);
    }
    free(h->ops);
    free(h->links);
    memset(h, 0, sizeof *h);
}
