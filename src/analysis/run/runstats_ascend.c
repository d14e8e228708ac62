/* A run's Ascend inputs (vprof/runstats.h): a profile directory's ranks,
 * each from its trace_view.json (the run's trace pass, runstats.c), else
 * its DB export, else its kernel_details.csv, and its memory_record.csv's
 * peaks; an SQLite export given alone. */
#include <stdio.h>
#include <string.h>

#include "analysis/run/runstats_int.h"
#include "vprof/ascend_csvwork.h"
#include "vprof/ascend_db.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_memory.h"
#include "vprof/runstats_ascend.h"

/* An SQLite export (msprof_*.db, ascend_pytorch_profiler_N.db): each
 * device's tasks and HCCL operations, with their names (STRING_IDS), as
 * a trace's; steps from STEP_TIME.  A DB of several devices gives each
 * device as a rank, as steps and comm do. */
typedef struct db_ctx {
    vp_run *r;
    long rank;
    const vp_run_opts *o;
} db_ctx;

void vp_run_add_db_device(vp_run *r, long rank, const vp_run_opts *o, int64_t device,
                          size_t ndevices, vp_gpuwork *w, const char *const *names)
{
    r->ascend = 1;
    for (size_t i = 0; i < w->n; i++) {
        vp_gpu_ev *g = &w->ev[i];
        if (g->kind == VP_GPU_KERNEL)
            g->aux = vp_run_kernel_index(r, (vp_span){names[i], strlen(names[i])}, g->cls);
    }
    vp_run_account_work(r, w, 0, ndevices > 1 ? (long)device : rank, device, o);
}

static void add_db_device(void *ctx, int64_t device, size_t ndevices, vp_gpuwork *w,
                          const char *const *names)
{
    db_ctx *c = ctx;
    vp_run_add_db_device(c->r, c->rank, c->o, device, ndevices, w, names);
}

int vp_run_add_db(vp_run *r, const char *path, long rank, const vp_run_opts *o, vp_error *err)
{
    db_ctx c = {r, rank, o};
    r->ascend = 1;
    return vp_asc_db_work(path, add_db_device, &c, err);
}

/* A rank directory with neither trace_view.json nor a DB export: its
 * kernel_details.csv's tasks as its device work (vprof/ascend_csvwork.h),
 * its Step Ids as its steps, which have no time. */
void vp_run_add_csv_work(vp_run *r, const vp_asc_rank *k, vp_asc_csv_work *c,
                         const vp_run_opts *o)
{
    const char *path = k->files[VP_ASC_KERNELS];
    vp_gpuwork *w = &c->w;
    r->ascend = 1;
    for (size_t i = 0; i < w->n; i++)
        if (w->ev[i].kind == VP_GPU_KERNEL)
            w->ev[i].aux = vp_run_kernel_index(r, (vp_span){c->names[i], strlen(c->names[i])},
                                               w->ev[i].cls);
    vp_run_account_work(r, w, 1, k->rank, 0, o);
    for (size_t i = 0; i < c->nsteps; i++)
        vp_run_add_step(r, c->steps[i], 0);
    if (!r->untimed)
        r->untimed = vp_strdup(k->dir);
    if (c->no_start)
        vp_warn("%s: %llu tasks without a Start Time were left out", path,
                (unsigned long long)c->no_start);
    if (c->skipped)
        vp_warn("%s: %llu rows without a duration were skipped", path,
                (unsigned long long)c->skipped);
}

static int add_csv(vp_run *r, const vp_asc_rank *k, const vp_run_opts *o, vp_error *err)
{
    vp_asc_csv_work c;
    int rc = vp_asc_csv_work_read(k->files[VP_ASC_KERNELS], o->steps_given ? &o->steps : NULL,
                                  &c, err);
    if (rc == 0)
        vp_run_add_csv_work(r, k, &c, o);
    vp_asc_csv_work_free(&c);
    return rc;
}

/* torch_npu's caching allocator (PTA in memory_record.csv) is what the
 * [memory] events of a CUDA trace describe: its peaks are the run's. */
void vp_run_add_npu_memory(vp_run *r, const vp_asc_mem *m)
{
    for (size_t i = 0; i < m->n; i++) {
        const vp_asc_mem_series *s = &m->s[i];
        if (strcmp(s->component, "PTA") != 0 || !s->n)
            continue;
        r->have_mem = 1;
        int64_t a = s->p[s->peak_alloc].allocated, v = s->p[s->peak_reserved].reserved;
        if (a > r->peak_alloc)
            r->peak_alloc = a;
        if (v > r->peak_reserved)
            r->peak_reserved = v;
    }
}

static int add_npu_memory(vp_run *r, const char *path, vp_error *err)
{
    vp_asc_mem m = {0};
    int rc = vp_asc_read_memory(path, &m, err);
    if (rc == 0)
        vp_run_add_npu_memory(r, &m);
    vp_asc_mem_free(&m);
    return rc;
}

void vp_run_ascend_begin(vp_run *r)
{
    r->ascend = 1;
}

const char *vp_run_ascend_file(const vp_asc_rank *k)
{
    if (k->files[VP_ASC_TRACE])
        return k->files[VP_ASC_TRACE];
    return k->files[VP_ASC_DB] ? k->files[VP_ASC_DB] : k->files[VP_ASC_KERNELS];
}

int vp_run_add_ascend_rank(vp_run *r, const vp_asc_rank *k, long position, const vp_run_opts *o,
                           vp_error *err)
{
    vp_run_ascend_begin(r);
    const char *f = vp_run_ascend_file(k);
    if (f && f == k->files[VP_ASC_TRACE])
        return vp_run_add_trace(r, f, position, k->rank, o, NULL, err);
    if (f && f == k->files[VP_ASC_DB])
        return vp_run_add_db(r, f, k->rank, o, err);
    if (f)
        return add_csv(r, k, o, err);
    vp_error_set(err, VP_EXIT_INPUT, "%s: no trace_view.json (msprof_*.json), DB export "
                                     "nor kernel_details.csv (op_summary_*.csv): a run's "
                                     "metrics are read from the device tasks",
                 k->dir);
    return -1;
}

int vp_run_scan_ascend(const char *path, vp_asc_run *run, vp_error *err)
{
    if (vp_asc_scan_once(path, run, err) != 0)
        return -1;
    if (run->n)
        return 0;
    /* msprof-analyze's output alone: its per-rank step_trace_time and
     * communication have no device task to take the run's metrics
     * from, so say what it holds and which commands read it. */
    vp_buf held = {0};
    int cluster = 1;   /* cluster_step_trace_time.csv, cluster_communication*.json only */
    for (int k = 0; k < VP_ASC_FILE_COUNT; k++)
        if (run->has_cluster && run->cluster.files[k]) {
            const char *f = strrchr(run->cluster.files[k], '/');
            vp_buf_printf(&held, "%s%s", held.len ? ", " : "", f ? f + 1 : run->cluster.files[k]);
            cluster &= k == VP_ASC_STEP_TRACE || k == VP_ASC_COMM || k == VP_ASC_MATRIX;
        }
    if (held.len && cluster)
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: no rank directory, only msprof-analyze's cluster files (%s): a run's "
                     "metrics need each rank's trace_view.json, DB export or kernel_details.csv "
                     "(give the directory that holds the *_ascend_pt ranks); vprof steps and "
                     "vprof comm read the cluster files",
                     path, vp_buf_cstr(&held));
    else if (held.len)
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: no rank directory: %s not in one (a *_ascend_pt directory with "
                     "ASCEND_PROFILER_OUTPUT/, or a PROF_* directory); give a trace or DB export "
                     "as a file",
                     path, vp_buf_cstr(&held));
    else
        vp_error_set(err, VP_EXIT_INPUT, "%s: no rank directory (a run's metrics need each "
                                         "rank's trace_view.json or kernel_details.csv)",
                     path);
    vp_buf_free(&held);
    vp_asc_run_free(run);
    return -1;
}

int vp_run_add_ascend_dir(vp_run *r, const char *path, const vp_run_opts *o, vp_error *err)
{
    vp_asc_run run;
    if (vp_run_scan_ascend(path, &run, err) != 0) {
        r->ascend = 1;
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < run.n && rc == 0; i++) {
        const vp_asc_rank *k = &run.ranks[i];
        rc = vp_run_add_ascend_rank(r, k, (long)i, o, err);
        if (rc == 0 && k->files[VP_ASC_MEMORY_RECORD])
            rc = add_npu_memory(r, k->files[VP_ASC_MEMORY_RECORD], err);
    }
    r->ascend = 1;
    vp_asc_run_free(&run);
    return rc;
}
