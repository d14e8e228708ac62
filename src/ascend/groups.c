/* Parallel groups (profiler_metadata.json, communication_group.json) and
 * the pipeline stages msprof-analyze derives from them. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ascend/jsonfile.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_groups.h"
#include "vprof/util.h"

/* The non-negative integers of a JSON array (numbers, or numeric strings
 * as some writers give rank_set); *n of them. */
static long *rank_list(const cJSON *a, size_t *n)
{
    long *r = vp_malloc(((size_t)cJSON_GetArraySize(a) + 1) * sizeof *r);
    size_t m = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (cJSON_IsNumber(x) && x->valuedouble >= 0) {
            r[m++] = (long)x->valuedouble;
        } else if (cJSON_IsString(x) && x->valuestring[0]) {
            char *end;
            long v = strtol(x->valuestring, &end, 10);
            if (!*end && v >= 0)
                r[m++] = v;
        }
    }
    *n = m;
    return r;
}

int vp_asc_read_groups(const char *path, vp_stt *s, vp_error *err)
{
    cJSON *j = vp_asc_load_json(path);
    if (!cJSON_IsObject(j)) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: not a JSON object (profiler_metadata.json)", path);
        cJSON_Delete(j);
        return -1;
    }
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(j, "parallel_group_info");
    const cJSON *g;
    cJSON_ArrayForEach(g, info) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(g, "group_name");
        const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(g, "global_ranks");
        if (!g->string || !cJSON_IsString(name) || !cJSON_IsArray(ranks))
            continue;
        size_t n;
        long *r = rank_list(ranks, &n);
        if (vp_asc_add_group(s, g->string, name->valuestring, r, n) && !s->groups_from)
            s->groups_from = VP_ASC_GROUPS_METADATA;
        free(r);
    }
    cJSON_Delete(j);
    return 0;
}

static const char *str_item(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int vp_asc_read_comm_groups(const char *path, vp_stt *s, vp_error *err)
{
    cJSON *j = vp_asc_load_json(path);
    if (!cJSON_IsObject(j)) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: not a JSON object (communication_group.json)",
                     path);
        cJSON_Delete(j);
        return -1;
    }
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(j, "comm_group_parallel_info");
    const cJSON *g;
    cJSON_ArrayForEach(g, info)
    {
        const char *type = str_item(g, "type"), *pg = str_item(g, "pg_name");
        const char *id = str_item(g, "group_name");
        const cJSON *set = cJSON_GetObjectItemCaseSensitive(g, "rank_set");
        if (!id)
            id = str_item(g, "group_id");
        if (!type || !id || !cJSON_IsArray(set))
            continue;
        int pp = pg && (pg[0] == 'p' || pg[0] == 'P') && (pg[1] == 'p' || pg[1] == 'P');
        const char *name;
        if (strcmp(type, "p2p") == 0 && pp)
            name = pg;              /* a pipeline's point-to-point group */
        else if (strcmp(type, "collective") == 0)
            name = pp || !pg || !pg[0] ? "collective" : pg;   /* never taken for a pp group */
        else
            continue;
        size_t n;
        long *r = rank_list(set, &n);
        if (vp_asc_add_group(s, id, name, r, n) && !s->groups_from)
            s->groups_from = VP_ASC_GROUPS_COMM_GROUP;
        free(r);
    }
    cJSON_Delete(j);
    return 0;
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

int vp_asc_run_comm_groups(const char *path, const vp_asc_run *run, vp_stt *s, vp_error *err)
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
    int rc = f ? vp_asc_read_comm_groups(f, s, err) : 0;
    free(f);
    return rc;
}
