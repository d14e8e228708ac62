/* Ascend profile directories and files, found by content.  See
 * vprof/ascend_files.h and docs/ascend.md. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ascend/jsonfile.h"
#include "vprof/ascend_files.h"
#include "vprof/json.h"
#include "vprof/rank.h"
#include "vprof/source.h"
#include "vprof/util.h"

static const char *const file_names[VP_ASC_FILE_COUNT] = {
    "?", "trace_view.json", "kernel_details.csv", "op_statistic.csv", "step_trace_time.csv",
    "communication.json", "communication_matrix.json", "memory_record.csv",
    "operator_memory.csv", "npu_module_mem.csv", "ascend_pytorch_profiler.db",
    "api_statistic.csv",
};

const char *vp_asc_file_name(vp_asc_file k)
{
    return (unsigned)k < VP_ASC_FILE_COUNT ? file_names[k] : "?";
}

int vp_asc_is_dir(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int has(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    if (m > n)
        return 0;
    for (size_t i = 0; i + m <= n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, m) == 0)
            return 1;
    return 0;
}

/* The kind of a CSV from its header line. */
static vp_asc_file csv_kind(const char *h, size_t n)
{
    if (has(h, n, "Computing") && has(h, n, "Communication(Not Overlapped)"))
        return VP_ASC_STEP_TRACE;
    if ((has(h, n, "Accelerator Core") || has(h, n, "Task Type")) &&
        (has(h, n, "Duration(us)")))
        return VP_ASC_KERNELS;
    if (has(h, n, "OP Type") && has(h, n, "Core Type") && has(h, n, "Total Time(us)"))
        return VP_ASC_OP_STATISTIC;
    if (has(h, n, "Allocation Time(us)") && has(h, n, "Size(KB)"))
        return VP_ASC_OPERATOR_MEMORY;
    if (has(h, n, "Component") && has(h, n, "Total Allocated("))
        return VP_ASC_MEMORY_RECORD;
    if (has(h, n, "Component") && has(h, n, "Total Reserved("))
        return VP_ASC_MODULE_MEM;
    if (has(h, n, "API Name") && has(h, n, "Variance"))
        return VP_ASC_API_STATISTIC;
    return VP_ASC_UNKNOWN;
}

vp_asc_file vp_asc_sniff(const char *path)
{
    vp_error err = {0};
    vp_source *src = vp_source_open(path, &err);
    if (!src)
        return VP_ASC_UNKNOWN;
    vp_chunk ch;
    vp_asc_file k = VP_ASC_UNKNOWN;
    if (vp_source_next(src, &ch, &err) == 1) {
        const char *p = ch.data, *end = ch.data + ch.len;
        if (ch.len >= 16 && memcmp(p, "SQLite format 3", 16) == 0) {
            k = VP_ASC_DB;
        } else {
            if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
                p += 3;
            p = vp_json_ws(p, end);
            size_t n = (size_t)(end - p);
            if (p < end && *p == '[') {
                k = VP_ASC_TRACE;
            } else if (p < end && *p == '{') {
                if (has(p, n, "\"traceEvents\""))
                    k = VP_ASC_TRACE;
                else if (has(p, n, "\"Communication Time Info\""))
                    k = VP_ASC_COMM;
                else if (has(p, n, "\"Transport Type\""))
                    k = VP_ASC_MATRIX;
            } else {
                const char *nl = memchr(p, '\n', n);
                k = csv_kind(p, nl ? (size_t)(nl - p) : n);
            }
        }
    }
    vp_source_close(src);
    return k;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = vp_malloc(a + b + 2);
    memcpy(s, dir, a);
    size_t k = a;
    if (a && dir[a - 1] != '/')
        s[k++] = '/';
    memcpy(s + k, name, b + 1);
    return s;
}

static const char *base_name(const char *path, char *buf, size_t n)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t i = len;
    while (i > 0 && path[i - 1] != '/')
        i--;
    size_t m = len - i < n - 1 ? len - i : n - 1;
    memcpy(buf, path + i, m);
    buf[m] = '\0';
    return buf;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory, sorted by name (no dot files). */
static char **list_dir(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **v = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 32;
            v = vp_realloc(v, cap * sizeof *v);
        }
        v[(*n)++] = vp_strdup(e->d_name);
    }
    closedir(d);
    if (*n)
        qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Files of each kind in dir, by content.  A later name (sorted) replaces
 * an earlier one of the same kind: msprof-analyze too takes the largest
 * msprof_{timestamp}.json.  analysis.db (communication only) never
 * replaces the profiler's own DB.  Returns how many were found. */
static int collect(const char *dir, vp_asc_rank *r)
{
    size_t n;
    char **v = list_dir(dir, &n);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        char *path = join(dir, v[i]);
        vp_asc_file k = VP_ASC_UNKNOWN;
        if (is_file(path) && (ends_with(v[i], ".json") || ends_with(v[i], ".csv") ||
                              ends_with(v[i], ".db") || ends_with(v[i], ".gz")))
            k = vp_asc_sniff(path);
        /* msprof's step_trace_{ts}.json and other timelines are traces too;
         * only msprof_*.json and trace_view.json are the whole timeline. */
        if (k == VP_ASC_TRACE && !(strncmp(v[i], "trace_view", 10) == 0 ||
                                   strncmp(v[i], "msprof_", 7) == 0))
            k = VP_ASC_UNKNOWN;
        if (k == VP_ASC_DB && r->files[k] && strcmp(v[i], "analysis.db") == 0)
            k = VP_ASC_UNKNOWN;
        if (k != VP_ASC_UNKNOWN) {
            free(r->files[k]);
            r->files[k] = path;
            found++;
        } else {
            free(path);
        }
    }
    free_list(v, n);
    return found;
}

cJSON *vp_asc_load_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    vp_buf b = {0};
    char tmp[8192];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0 && b.len < (16u << 20))
        vp_buf_append(&b, tmp, k);
    fclose(f);
    cJSON *j = b.len ? cJSON_ParseWithLength(b.data, b.len) : NULL;
    vp_buf_free(&b);
    return j;
}

/* The rank from profiler_info_{rank}.json (rank_id, else the suffix) or
 * profiler_metadata.json (distributed_args.rank). */
static void find_rank(const char *dir, vp_asc_rank *r)
{
    size_t n;
    char **v = list_dir(dir, &n);
    for (size_t i = 0; i < n && r->rank < 0; i++) {
        if (strncmp(v[i], "profiler_info", 13) != 0 || !ends_with(v[i], ".json"))
            continue;
        char *path = join(dir, v[i]);
        cJSON *j = vp_asc_load_json(path);
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "rank_id");
        if (cJSON_IsNumber(id) && id->valuedouble >= 0) {
            r->rank = (long)id->valuedouble;
            r->rank_from = "profiler_info";
        } else if (v[i][13] == '_') {
            char *e;
            long x = strtol(v[i] + 14, &e, 10);
            if (e != v[i] + 14 && strcmp(e, ".json") == 0) {
                r->rank = x;
                r->rank_from = "profiler_info";
            }
        }
        cJSON_Delete(j);
        free(path);
    }
    if (r->rank < 0) {
        char *path = join(dir, "profiler_metadata.json");
        cJSON *j = vp_asc_load_json(path);
        const cJSON *da = cJSON_GetObjectItemCaseSensitive(j, "distributed_args");
        const cJSON *rk = cJSON_GetObjectItemCaseSensitive(da, "rank");
        if (cJSON_IsNumber(rk) && rk->valuedouble >= 0) {
            r->rank = (long)rk->valuedouble;
            r->rank_from = "profiler_metadata";
        }
        cJSON_Delete(j);
        free(path);
    }
    free_list(v, n);
}

static vp_asc_rank *add_rank(vp_asc_run *run, const char *dir)
{
    run->ranks = vp_realloc(run->ranks, (run->n + 1) * sizeof *run->ranks);
    vp_asc_rank *r = &run->ranks[run->n++];
    memset(r, 0, sizeof *r);
    r->dir = vp_strdup(dir);
    r->rank = -1;
    return r;
}

static void drop_last(vp_asc_run *run)
{
    vp_asc_rank *r = &run->ranks[--run->n];
    free(r->dir);
    free(r->metadata);
    for (int k = 0; k < VP_ASC_FILE_COUNT; k++)
        free(r->files[k]);
}

static const char *const out_list =
    "trace_view.json, kernel_details.csv, step_trace_time.csv, communication.json, "
    "communication_matrix.json, memory_record.csv, operator_memory.csv, npu_module_mem.csv";

/* One rank directory: *_ascend_pt (ASCEND_PROFILER_OUTPUT inside) or a
 * PROF_* directory (mindstudio_profiler_output inside).  0 or -1. */
static int scan_rank(const char *dir, vp_asc_run *run, vp_error *err)
{
    char *out = join(dir, "ASCEND_PROFILER_OUTPUT");
    char *ms = join(dir, "mindstudio_profiler_output");
    char *an = join(dir, "analyze");
    int rc = 0;
    vp_asc_rank *r = add_rank(run, dir);
    if (vp_asc_is_dir(out)) {
        if (collect(out, r) == 0) {
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: ASCEND_PROFILER_OUTPUT/ is empty or holds none of %s: the "
                         "profiler stopped before exporting (parse it again with "
                         "torch_npu.profiler.profiler.analyse)",
                         dir, out_list);
            rc = -1;
        }
        find_rank(dir, r);
        char *meta = join(dir, "profiler_metadata.json");
        if (is_file(meta))
            r->metadata = meta;
        else
            free(meta);
    } else if (vp_asc_is_dir(ms)) {
        if (collect(ms, r) == 0) {
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: mindstudio_profiler_output/ holds none of msprof_*.json, "
                         "op_summary_*.csv, step_trace_time, communication*.json: export it "
                         "with msprof --export=on --output=%s",
                         dir, dir);
            rc = -1;
        }
        if (vp_asc_is_dir(an))
            collect(an, r);
    } else {
        char b[256];
        base_name(dir, b, sizeof b);
        if (strncmp(b, "PROF_", 5) == 0)
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: no mindstudio_profiler_output/: msprof collected but did not "
                         "export this directory (run msprof --export=on --output=%s)",
                         dir, dir);
        else
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: no ASCEND_PROFILER_OUTPUT/: the profiler has not parsed this "
                         "directory yet (it was stopped early, or parsing is still running; "
                         "parse it with torch_npu.profiler.profiler.analyse)",
                         dir);
        rc = -1;
    }
    if (rc == 0 && r->rank < 0) {
        long x = vp_rank_from_name(dir);
        if (x >= 0) {
            r->rank = x;
            r->rank_from = "directory name";
        }
    }
    if (rc != 0)
        drop_last(run);
    free(out);
    free(ms);
    free(an);
    return rc;
}

static int is_rank_dir_name(const char *b)
{
    return ends_with(b, "_ascend_pt") || ends_with(b, "_ascend_ms") || strncmp(b, "PROF_", 5) == 0;
}

static int cmp_rank(const void *a, const void *b)
{
    const vp_asc_rank *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return strcmp(x->dir, y->dir);
}

int vp_asc_scan(const char *path, vp_asc_run *run, vp_error *err)
{
    memset(run, 0, sizeof *run);
    run->cluster.rank = -1;
    char b[256];
    base_name(path, b, sizeof b);
    char *out = join(path, "ASCEND_PROFILER_OUTPUT");
    char *ms = join(path, "mindstudio_profiler_output");
    int rc = 0;
    if (is_rank_dir_name(b) || vp_asc_is_dir(out) || vp_asc_is_dir(ms)) {
        rc = scan_rank(path, run, err);
    } else if (strcmp(b, "ASCEND_PROFILER_OUTPUT") == 0 ||
               strcmp(b, "mindstudio_profiler_output") == 0) {
        vp_asc_rank *r = add_rank(run, path);
        if (collect(path, r) == 0) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: empty, or none of %s", path, out_list);
            drop_last(run);
            rc = -1;
        } else {
            char *parent = join(path, "..");
            find_rank(parent, r);
            free(parent);
        }
    } else {
        /* A folder of ranks, a cluster_analysis_output, or both. */
        vp_asc_rank probe = {0};
        probe.rank = -1;
        if (collect(path, &probe) > 0) {
            run->cluster = probe;
            run->cluster.dir = vp_strdup(path);
            run->has_cluster = 1;
        }
        size_t n;
        char **v = list_dir(path, &n);
        for (size_t i = 0; i < n && rc == 0; i++) {
            char *sub = join(path, v[i]);
            if (!vp_asc_is_dir(sub)) {
                free(sub);
                continue;
            }
            char *subout = join(sub, "ASCEND_PROFILER_OUTPUT");
            if (is_rank_dir_name(v[i]) || vp_asc_is_dir(subout)) {
                rc = scan_rank(sub, run, err);
            } else if (strcmp(v[i], "cluster_analysis_output") == 0 && !run->has_cluster) {
                run->cluster.rank = -1;
                if (collect(sub, &run->cluster) > 0) {
                    run->cluster.dir = vp_strdup(sub);
                    run->has_cluster = 1;
                }
            }
            free(subout);
            free(sub);
        }
        free_list(v, n);
        if (rc == 0 && run->n == 0 && !run->has_cluster) {
            vp_error_set(err, VP_EXIT_INPUT,
                         "%s: is a directory that holds no trace (*.json, *.json.gz) and no Ascend profile (a "
                         "*_ascend_pt directory with ASCEND_PROFILER_OUTPUT/, a folder of them, a "
                         "PROF_* directory, or msprof-analyze's cluster_analysis_output)",
                         path);
            rc = -1;
        }
    }
    free(out);
    free(ms);
    if (rc != 0) {
        vp_asc_run_free(run);
        return -1;
    }
    /* Ranks nobody named take their position, after the named ones. */
    long next = 0;
    for (size_t i = 0; i < run->n; i++)
        if (run->ranks[i].rank >= next)
            next = run->ranks[i].rank + 1;
    for (size_t i = 0; i < run->n; i++)
        if (run->ranks[i].rank < 0) {
            run->ranks[i].rank = run->n == 1 ? 0 : next++;
            run->ranks[i].rank_from = "position";
        }
    if (run->n > 1)
        qsort(run->ranks, run->n, sizeof *run->ranks, cmp_rank);
    return 0;
}

int vp_asc_scan_ranks(const char *path, vp_asc_run *run, const char *needs, vp_error *err)
{
    if (vp_asc_scan(path, run, err) != 0)
        return -1;
    if (run->n > 0)
        return 0;
    vp_error_set(err, VP_EXIT_INPUT, "%s: no rank directory (%s)", path, needs);
    vp_asc_run_free(run);
    return -1;
}

void vp_asc_run_free(vp_asc_run *run)
{
    while (run->n)
        drop_last(run);
    free(run->ranks);
    free(run->cluster.dir);
    for (int k = 0; k < VP_ASC_FILE_COUNT; k++)
        free(run->cluster.files[k]);
    memset(run, 0, sizeof *run);
}

/* ---- one scan of a directory per command ---- */

typedef struct scan_memo {
    char *path;
    vp_asc_run run;
} scan_memo;

/* Per process: the worker pool forks its workers after the operands are
 * resolved, so a worker finds the scans of the resolution here. */
static scan_memo *memo;
static size_t nmemo;

static void copy_rank(vp_asc_rank *to, const vp_asc_rank *from)
{
    *to = *from;
    to->dir = from->dir ? vp_strdup(from->dir) : NULL;
    to->metadata = from->metadata ? vp_strdup(from->metadata) : NULL;
    for (int k = 0; k < VP_ASC_FILE_COUNT; k++)
        to->files[k] = from->files[k] ? vp_strdup(from->files[k]) : NULL;
}

static void copy_run(vp_asc_run *to, const vp_asc_run *from)
{
    *to = *from;
    to->ranks = vp_malloc((from->n ? from->n : 1) * sizeof *to->ranks);
    for (size_t i = 0; i < from->n; i++)
        copy_rank(&to->ranks[i], &from->ranks[i]);
    copy_rank(&to->cluster, &from->cluster);
}

int vp_asc_scan_once(const char *path, vp_asc_run *run, vp_error *err)
{
    for (size_t i = 0; i < nmemo; i++)
        if (strcmp(memo[i].path, path) == 0) {
            copy_run(run, &memo[i].run);
            return 0;
        }
    if (vp_asc_scan(path, run, err) != 0)
        return -1;
    memo = vp_realloc(memo, (nmemo + 1) * sizeof *memo);
    memo[nmemo].path = vp_strdup(path);
    copy_run(&memo[nmemo++].run, run);
    return 0;
}

void vp_asc_scan_forget(void)
{
    for (size_t i = 0; i < nmemo; i++) {
        free(memo[i].path);
        vp_asc_run_free(&memo[i].run);
    }
    free(memo);
    memo = NULL;
    nmemo = 0;
}

const char *vp_asc_need(const vp_asc_rank *r, vp_asc_file k, vp_asc_file k2, vp_error *err)
{
    if (r->files[k])
        return r->files[k];
    if (k2 != VP_ASC_UNKNOWN && r->files[k2])
        return r->files[k2];
    /* torch_npu's export_type=db (or msprof --type=db) writes no text:
     * its DB stands in for the kernel and step_trace_time tables. */
    int db_has = k == VP_ASC_KERNELS || k == VP_ASC_STEP_TRACE || k2 == VP_ASC_KERNELS ||
                 k2 == VP_ASC_STEP_TRACE;
    if (db_has && r->files[VP_ASC_DB])
        return r->files[VP_ASC_DB];
    if (k2 != VP_ASC_UNKNOWN)
        vp_error_set(err, VP_EXIT_INPUT, "%s: neither %s nor %s found%s", r->dir,
                     vp_asc_file_name(k), vp_asc_file_name(k2),
                     db_has ? " (nor an SQLite export)" : "");
    else
        vp_error_set(err, VP_EXIT_INPUT, "%s: no %s found", r->dir, vp_asc_file_name(k));
    return NULL;
}
