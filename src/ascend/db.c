/* The SQLite exports of msprof (msprof_*.db) and torch_npu
 * (ascend_pytorch_profiler_N.db), and msprof's analysis.db, read through
 * libsqlite3 into the records the CSV readers fill (docs/ascend.md "DB
 * exports").  Opened read-only and immutable: vprof never writes, never
 * takes a lock, and SQLite's page cache is bounded (PRAGMA cache_size);
 * rows are stepped one at a time.
 *
 * The model, msprof's definitions (reference ascend.md 2.8, peers.md 2.1):
 *   compute task   a TASK row with a COMPUTE_TASK_INFO row (same
 *                  globalTaskId): kernel_details/op_summary's rows; name,
 *                  opType and taskType are STRING_IDS ids
 *   communication  a COMMUNICATION_OP row (an HCCL operation); the
 *                  COMMUNICATION_TASK_INFO rows are its small plane tasks,
 *                  which trace_view.json puts on "Plane N": not counted
 *   other tasks    the remaining TASK rows only stretch the span (Free =
 *                  [first task start, last task end] minus compute and
 *                  communication)
 *   steps          STEP_TIME(id, startNs, endNs) when present (torch_npu's
 *                  DB); a task belongs to the step whose window holds its
 *                  start. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_db.h"
#include "vprof/ascend_stepwork.h"
#include "vprof/classify.h"
#include "vprof/npu_task.h"
#include "vprof/util.h"

const char vp_asc_db_stt_note[] = "from the DB's TASK, COMPUTE_TASK_INFO and COMMUNICATION_OP "
                                  "tables (msprof's overlap definitions)";

void vp_asc_db_stt_work(vp_gpuwork *w, int64_t device, size_t ndevices, long rank,
                        int selected_only, vp_stt *out)
{
    size_t first = out->n;
    /* One device: the caller's rank; several (an msprof DB of a host):
     * each device is a rank. */
    vp_stt_from_work(w, ndevices > 1 ? (long)device : rank, selected_only, out);
    for (size_t r = first; r < out->n; r++)
        out->rows[r].device = device;
}

#if VPROF_HAVE_SQLITE
#include <sqlite3.h>

typedef struct db {
    sqlite3 *h;
    const char *path;
} db;

static int db_fail(db *d, vp_error *err, const char *what)
{
    vp_error_set(err, VP_EXIT_INPUT, "%s: SQLite: %s: %s", d->path, what,
                 d->h ? sqlite3_errmsg(d->h) : "cannot open");
    return -1;
}

/* "file:PATH?immutable=1" with PATH percent-encoded where a URI needs it. */
static char *uri_of(const char *path)
{
    vp_buf b = {0};
    vp_buf_printf(&b, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f)
            vp_buf_printf(&b, "%%%02X", *p);
        else
            vp_buf_putc(&b, (char)*p);
    }
    vp_buf_printf(&b, "?immutable=1");
    char *s = vp_strdup(vp_buf_cstr(&b));
    vp_buf_free(&b);
    return s;
}

static int db_open(db *d, const char *path, vp_error *err)
{
    d->path = path;
    d->h = NULL;
    char *uri = uri_of(path);
    int rc = sqlite3_open_v2(uri, &d->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        db_fail(d, err, "cannot open");
        sqlite3_close(d->h);
        d->h = NULL;
        return -1;
    }
    /* Bounded memory: a 2 MiB page cache, sorts spilled to disk. */
    sqlite3_exec(d->h, "PRAGMA cache_size=-2048; PRAGMA temp_store=FILE;", NULL, NULL, NULL);
    /* A file that is not a database fails on the first read. */
    if (sqlite3_exec(d->h, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
        db_fail(d, err, "not a readable database");
        sqlite3_close(d->h);
        d->h = NULL;
        return -1;
    }
    return 0;
}

static void db_close(db *d)
{
    sqlite3_close(d->h);
    d->h = NULL;
}

/* 1 when the table exists. */
static int has_table(db *d, const char *table)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->h, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1,
                           &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* 1 when table has the column. */
static int has_column(db *d, const char *table, const char *col)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->h, "SELECT 1 FROM pragma_table_info(?1) WHERE name=?2", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* What the file holds: 1 an msprof / torch_npu profile (TASK and
 * STRING_IDS), 2 analysis.db's StepTraceTime; -1 with err naming the file
 * and the tables looked for. */
static int db_kind(db *d, vp_error *err)
{
    if (has_table(d, "TASK") && has_table(d, "STRING_IDS"))
        return 1;
    if (has_table(d, "StepTraceTime"))
        return 2;
    vp_error_set(err, VP_EXIT_INPUT,
                 "%s: an SQLite database, but not an msprof or torch_npu export: no table TASK "
                 "with STRING_IDS (msprof_*.db, ascend_pytorch_profiler_N.db) nor StepTraceTime "
                 "(analysis.db)",
                 d->path);
    return -1;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

static int64_t col_int(sqlite3_stmt *st, int i, int64_t missing)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? missing : sqlite3_column_int64(st, i);
}

/* Step windows (STEP_TIME), sorted by start. */
typedef struct step_win {
    long id;
    int64_t start, end;
} step_win;

static int read_steps(db *d, step_win **out, size_t *n, vp_error *err)
{
    *out = NULL;
    *n = 0;
    if (!has_table(d, "STEP_TIME"))
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->h, "SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs", -1,
                           &st, NULL) != SQLITE_OK)
        return db_fail(d, err, "STEP_TIME");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            *out = vp_realloc(*out, cap * sizeof **out);
        }
        (*out)[(*n)++] = (step_win){(long)sqlite3_column_int64(st, 0),
                                   sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*out);
        *out = NULL;
        return db_fail(d, err, "STEP_TIME");
    }
    return 0;
}

/* The step whose [start, end) holds ts, -1 when none. */
static long step_at(const step_win *w, size_t n, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w[mid].start <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;)
        if (ts < w[i].end)
            return w[i].id;
    return -1;
}

/* Each compute task: name, op type, task type, start, end, wait, stream,
 * device (columns 0..7). */
static char *compute_sql(db *d)
{
    int wait = has_column(d, "COMPUTE_TASK_INFO", "waitNs");
    vp_buf b = {0};
    vp_buf_printf(&b,
                  "SELECT n.value, o.value, y.value, t.startNs, t.endNs, %s, t.streamId, "
                  "t.deviceId FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = "
                  "c.globalTaskId LEFT JOIN STRING_IDS n ON n.id = c.name LEFT JOIN STRING_IDS o "
                  "ON o.id = c.opType LEFT JOIN STRING_IDS y ON y.id = c.taskType ORDER BY "
                  "t.startNs, t.globalTaskId",
                  wait ? "c.waitNs" : "NULL");
    char *s = vp_strdup(vp_buf_cstr(&b));
    vp_buf_free(&b);
    return s;
}

/* Each communication operation: name, op type, start, end, wait, device. */
static char *comm_sql(db *d)
{
    int wait = has_column(d, "COMMUNICATION_OP", "waitNs");
    int type = has_column(d, "COMMUNICATION_OP", "opType");
    int dev = has_column(d, "COMMUNICATION_OP", "deviceId");
    vp_buf b = {0};
    vp_buf_printf(&b,
                  "SELECT n.value, %s, c.startNs, c.endNs, %s, %s FROM COMMUNICATION_OP c LEFT "
                  "JOIN STRING_IDS n ON n.id = c.opName %s ORDER BY c.startNs, c.opId",
                  type ? "y.value" : "NULL", wait ? "c.waitNs" : "NULL",
                  dev ? "c.deviceId" : "NULL",
                  type ? "LEFT JOIN STRING_IDS y ON y.id = c.opType" : "");
    char *s = vp_strdup(vp_buf_cstr(&b));
    vp_buf_free(&b);
    return s;
}

static int check_profile(db *d, vp_error *err)
{
    int k = db_kind(d, err);
    if (k < 0)
        return -1;
    if (k != 1 || !has_table(d, "COMPUTE_TASK_INFO")) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: %s, so it has no device tasks (no table %s)", d->path,
                     k == 2 ? "an analysis.db (communication and step_trace_time only)"
                            : "an msprof DB without compute tasks",
                     k == 2 ? "TASK" : "COMPUTE_TASK_INFO");
        return -1;
    }
    return 0;
}

/* Where the kernel fields are in a query's columns; -1: not there
 * (core then core_text, the others -1). */
typedef struct kernel_cols {
    int name, type, core, start, end, wait, stream, device;
    const char *core_text;
} kernel_cols;

static const kernel_cols COMPUTE_COLS = {0, 1, 2, 3, 4, 5, 6, 7, NULL};
static const kernel_cols COMM_COLS = {0, 1, -1, 2, 3, 4, -1, 5, "HCCL"};

/* Each row of sql (freed here) as a kernel to fn; a row without start or
 * end is counted in *skipped. */
static int kernel_rows(db *d, char *sql, const char *table, const kernel_cols *c,
                       const step_win *steps, size_t nsteps,
                       void (*fn)(void *ctx, const vp_asc_kernel *k), void *ctx, uint64_t *skipped,
                       vp_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(d->h, sql, -1, &st, NULL);
    free(sql);
    if (rc != SQLITE_OK)
        return db_fail(d, err, table);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, c->start) == SQLITE_NULL ||
            sqlite3_column_type(st, c->end) == SQLITE_NULL) {
            if (skipped)
                (*skipped)++;
            continue;
        }
        vp_asc_kernel k;
        k.name = col_text(st, c->name);
        k.type = col_text(st, c->type);
        k.core = c->core >= 0 ? col_text(st, c->core) : c->core_text;
        k.start = sqlite3_column_int64(st, c->start);
        k.dur = sqlite3_column_int64(st, c->end) - k.start;
        k.wait = col_int(st, c->wait, -1);
        k.stream = c->stream >= 0 ? col_int(st, c->stream, -1) : -1;
        k.device = col_int(st, c->device, -1);
        k.step = nsteps ? step_at(steps, nsteps, k.start) : -1;
        fn(ctx, &k);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(d, err, table);
}

int vp_asc_db_read_kernels(const char *path, void (*fn)(void *ctx, const vp_asc_kernel *k),
                           void *ctx, uint64_t *skipped, vp_error *err)
{
    return vp_asc_db_read(path, fn, ctx, skipped, NULL, NULL, err);
}

/* ---- step_trace_time ---- */

static void append_ev(vp_gpuwork *w, int64_t start, int64_t end, int64_t stream, vp_kclass cls,
                      uint8_t flags)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 1024;
        w->ev = vp_realloc(w->ev, w->cap * sizeof *w->ev);
    }
    vp_gpu_ev *g = &w->ev[w->n++];
    g->start = start;
    g->end = end > start ? end : start;
    g->corr = -1;
    g->stream = stream >= INT32_MIN && stream <= INT32_MAX ? (int32_t)stream : -1;
    g->step = -1;
    g->cls = (uint8_t)cls;
    g->kind = (uint8_t)vp_npu_task_kind(cls);
    g->flags = flags;
    g->device = VP_GPU_DEVICE_NONE;   /* the caller knows the device: one per work */
    g->aux = UINT32_MAX;
}

/* A ProfilerStep#id window, as the trace reader would deliver it. */
static void add_step(vp_gpuwork *w, const step_win *s)
{
    char name[48];
    int n = snprintf(name, sizeof name, "ProfilerStep#%ld", s->id);
    vp_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ph = 'X';
    ev.name = (vp_span){name, (size_t)n};
    ev.cat = (vp_span){"cpu_op", 6};
    ev.pid = (vp_span){"0", 1};
    ev.tid = (vp_span){"0", 1};
    ev.raw = (vp_span){"{}", 2};
    ev.ts = s->start;
    ev.dur = s->end - s->start;
    ev.has_ts = ev.has_dur = 1;
    vp_steps_observe(w->steps, &ev);
}

/* One device's work: compute tasks, communication operations, the other
 * tasks (span only). */
/* names: when not NULL, each appended event's name (owned, "" when none),
 * parallel to w->ev. */
static void add_name(char ***names, size_t n, const char *name)
{
    if (!names)
        return;
    *names = vp_realloc(*names, (n + 1) * sizeof **names);
    (*names)[n] = vp_strdup(name);
}

static int device_work(db *d, int64_t device, int have_ops, vp_gpuwork *w, char ***names,
                       vp_error *err)
{
    sqlite3_stmt *st;
    /* Every task, with its compute task type when it is one. */
    static const char *const q_tasks =
        "SELECT t.startNs, t.endNs, t.streamId, y.value, c.globalTaskId IS NOT NULL, "
        "n.value FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
        "LEFT JOIN STRING_IDS y ON y.id = c.taskType LEFT JOIN STRING_IDS n ON n.id = c.name "
        "WHERE t.deviceId IS ?1 ORDER BY t.startNs";
    if (sqlite3_prepare_v2(d->h, q_tasks, -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, err, "TASK");
    sqlite3_bind_int64(st, 1, device);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) == SQLITE_NULL || sqlite3_column_type(st, 1) == SQLITE_NULL)
            continue;
        vp_kclass cls = VP_CLASS_SYNC;
        if (sqlite3_column_int(st, 4)) {
            const char *ty = col_text(st, 3), *nm = col_text(st, 5);
            cls = vp_npu_task_of(ty, strlen(ty), nm, strlen(nm)).cls;
            if (cls == VP_CLASS_COMM)   /* an HCCL compute task: the operation counts */
                cls = VP_CLASS_SYNC;
        }
        append_ev(w, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                  col_int(st, 2, -1), cls, VP_GPU_F_BY_TIME);
        add_name(names, w->n - 1, col_text(st, 5));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, err, "TASK");
    if (!have_ops)
        return 0;
    int dev = has_column(d, "COMMUNICATION_OP", "deviceId");
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT c.startNs, c.endNs, n.value FROM COMMUNICATION_OP c LEFT JOIN STRING_IDS n "
             "ON n.id = c.opName%s ORDER BY c.startNs",
             dev ? " WHERE c.deviceId IS ?1" : "");
    if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(d, err, "COMMUNICATION_OP");
    if (dev)
        sqlite3_bind_int64(st, 1, device);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) == SQLITE_NULL || sqlite3_column_type(st, 1) == SQLITE_NULL)
            continue;
        const char *nm = col_text(st, 2);
        uint8_t flags = VP_GPU_F_BY_TIME;
        if (strncmp(nm, "hcom_receive", 12) == 0)
            flags |= VP_GPU_F_RECEIVE;
        append_ev(w, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), -1, VP_CLASS_COMM,
                  flags);
        add_name(names, w->n - 1, nm);
        w->npu_ops++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, err, "COMMUNICATION_OP");
    return 0;
}

/* One device's work, as the TASK tables give it, with the DB's steps
 * (w initialised here; the caller frees it, whatever the outcome). */
static int step_device_work(db *d, int64_t device, int have_ops, const step_win *steps,
                            size_t nsteps, vp_gpuwork *w, char ***names, vp_error *err)
{
    vp_gpuwork_init(w);
    for (size_t s = 0; s < nsteps; s++)
        add_step(w, &steps[s]);
    return device_work(d, device, have_ops, w, names, err);
}

/* What a profile DB holds to split into device work: its steps and the
 * devices of TASK, ascending (one device a rank in a host's DB).  On
 * failure what was read is left for the caller to free. */
static int read_profile(db *d, step_win **steps, size_t *nsteps, int64_t **devs, size_t *ndev,
                        vp_error *err)
{
    if (check_profile(d, err) != 0 || read_steps(d, steps, nsteps, err) != 0)
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->h, "SELECT DISTINCT deviceId FROM TASK ORDER BY deviceId", -1, &st,
                           NULL) != SQLITE_OK)
        return db_fail(d, err, "TASK");
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*ndev == cap) {
            cap = cap ? cap * 2 : 8;
            *devs = vp_realloc(*devs, cap * sizeof **devs);
        }
        (*devs)[(*ndev)++] = col_int(st, 0, -1);
    }
    sqlite3_finalize(st);
    return 0;
}

/* analysis.db's StepTraceTime: µs (the documentation says ms; the
 * values are the CSV's µs), one row per device and step. */
static int read_analysis_stt(db *d, long rank, vp_stt *out, vp_error *err)
{
    static const char *const cols[VP_STT_COUNT] = {
        "computing", "communication_not_overlapped", "overlapped", "communication", "free",
        "stage", "bubble", "communication_not_overlapped_and_exclude_receive", "preparing"};
    int have[VP_STT_COUNT];
    vp_buf b = {0};
    vp_buf_printf(&b, "SELECT %s, %s",
                  has_column(d, "StepTraceTime", "deviceId") ? "deviceId" : "NULL",
                  has_column(d, "StepTraceTime", "step") ? "step" : "NULL");
    for (int c = 0; c < VP_STT_COUNT; c++) {
        have[c] = has_column(d, "StepTraceTime", cols[c]);
        vp_buf_printf(&b, ", %s", have[c] ? cols[c] : "NULL");
    }
    vp_buf_printf(&b, " FROM StepTraceTime");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(d->h, vp_buf_cstr(&b), -1, &st, NULL);
    vp_buf_free(&b);
    if (rc != SQLITE_OK)
        return db_fail(d, err, "StepTraceTime");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        vp_stt_row *r = vp_stt_add(out);
        r->rank = rank;
        r->device = col_int(st, 0, -1);
        r->step = -1;
        const char *s = col_text(st, 1);
        while (*s && (*s < '0' || *s > '9'))
            s++;   /* "step2" or 2 */
        if (*s)
            r->step = strtol(s, NULL, 10);
        for (int c = 0; c < VP_STT_COUNT; c++) {
            if (!have[c] || sqlite3_column_type(st, 2 + c) == SQLITE_NULL)
                continue;
            r->v[c] = llround(sqlite3_column_double(st, 2 + c) * 1000.0);
            r->have |= 1u << c;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, err, "StepTraceTime");
    return 0;
}

int vp_asc_db_stt(const char *path, long rank, const vp_step_range *range, vp_stt *out,
                  vp_error *err)
{
    db d;
    if (db_open(&d, path, err) != 0)
        return -1;
    int ret = -1;
    step_win *steps = NULL;
    size_t nsteps = 0;
    int64_t *devs = NULL;
    size_t ndev = 0;
    int kind = db_kind(&d, err);
    if (kind < 0)
        goto out;
    if (kind == 2) {
        ret = read_analysis_stt(&d, rank, out, err);
        out->note = "read from analysis.db's StepTraceTime";
        goto out;
    }
    if (read_profile(&d, &steps, &nsteps, &devs, &ndev, err) != 0)
        goto out;
    int have_ops = has_table(&d, "COMMUNICATION_OP");
    for (size_t i = 0; i < ndev; i++) {
        vp_gpuwork w;
        if (step_device_work(&d, devs[i], have_ops, steps, nsteps, &w, NULL, err) != 0) {
            vp_gpuwork_free(&w);
            goto out;
        }
        vp_gpuwork_resolve(&w, range);
        vp_asc_db_stt_work(&w, devs[i], ndev, rank, range != NULL, out);
        vp_gpuwork_free(&w);
    }
    out->note = vp_asc_db_stt_note;
    ret = 0;
out:
    free(devs);
    free(steps);
    db_close(&d);
    return ret;
}

int vp_asc_db_work(const char *path, vp_asc_db_work_fn fn, void *ctx, vp_error *err)
{
    return vp_asc_db_read(path, NULL, NULL, NULL, fn, ctx, err);
}

int vp_asc_db_read(const char *path, void (*rows)(void *ctx, const vp_asc_kernel *k),
                   void *rows_ctx, uint64_t *skipped, vp_asc_db_work_fn fn, void *ctx,
                   vp_error *err)
{
    db d;
    if (db_open(&d, path, err) != 0)
        return -1;
    int ret = -1;
    step_win *steps = NULL;
    size_t nsteps = 0;
    int64_t *devs = NULL;
    size_t ndev = 0;
    if (skipped)
        *skipped = 0;
    if (fn ? read_profile(&d, &steps, &nsteps, &devs, &ndev, err) != 0
           : check_profile(&d, err) != 0 || read_steps(&d, &steps, &nsteps, err) != 0)
        goto out;
    int have_ops = has_table(&d, "COMMUNICATION_OP");
    /* The compute tasks, then the HCCL operations (kernel_details.csv's
     * HCCL rows). */
    if (rows && (kernel_rows(&d, compute_sql(&d), "COMPUTE_TASK_INFO", &COMPUTE_COLS, steps,
                             nsteps, rows, rows_ctx, skipped, err) != 0 ||
                 (have_ops && kernel_rows(&d, comm_sql(&d), "COMMUNICATION_OP", &COMM_COLS, steps,
                                          nsteps, rows, rows_ctx, skipped, err) != 0)))
        goto out;
    for (size_t i = 0; fn && i < ndev; i++) {
        vp_gpuwork w;
        char **names = NULL;
        int rc = step_device_work(&d, devs[i], have_ops, steps, nsteps, &w, &names, err);
        size_t nnames = w.n;   /* fn may drop events */
        if (rc == 0)
            fn(ctx, devs[i], ndev, &w, (const char *const *)names);
        for (size_t k = 0; k < nnames; k++)
            free(names[k]);
        free(names);
        vp_gpuwork_free(&w);
        if (rc != 0)
            goto out;
    }
    ret = 0;
out:
    free(devs);
    free(steps);
    db_close(&d);
    return ret;
}

int vp_asc_db_available(void)
{
    return 1;
}

#else /* !VPROF_HAVE_SQLITE */

static int no_sqlite(const char *path, vp_error *err)
{
    vp_error_set(err, VP_EXIT_INPUT,
                 "%s: an SQLite export, but this vprof was built without SQLite (install "
                 "libsqlite3-dev and rebuild, or export text: torch_npu export_type=text, "
                 "msprof --type=text)",
                 path);
    return -1;
}

int vp_asc_db_read_kernels(const char *path, void (*fn)(void *ctx, const vp_asc_kernel *k),
                           void *ctx, uint64_t *skipped, vp_error *err)
{
    (void)fn;
    (void)ctx;
    if (skipped)
        *skipped = 0;
    return no_sqlite(path, err);
}

int vp_asc_db_stt(const char *path, long rank, const vp_step_range *range, vp_stt *out,
                  vp_error *err)
{
    (void)rank;
    (void)range;
    (void)out;
    return no_sqlite(path, err);
}

int vp_asc_db_work(const char *path, vp_asc_db_work_fn fn, void *ctx, vp_error *err)
{
    return vp_asc_db_read(path, NULL, NULL, NULL, fn, ctx, err);
}

int vp_asc_db_read(const char *path, void (*rows)(void *ctx, const vp_asc_kernel *k),
                   void *rows_ctx, uint64_t *skipped, vp_asc_db_work_fn fn, void *ctx,
                   vp_error *err)
{
    (void)rows;
    (void)rows_ctx;
    (void)fn;
    (void)ctx;
    if (skipped)
        *skipped = 0;
    return no_sqlite(path, err);
}

int vp_asc_db_available(void)
{
    return 0;
}

#endif
