/* vprof report's Ascend profile directories (vprof/report_run.h): rank by
 * rank, each file read once.  A rank's trace is the run metrics' reading
 * (vp_run_add_ascend_rank), on which steps' breakdown and step_trace_time
 * ride, comm's ranks and collectives (vprof comm DIR's tables), and
 * kernels' operators and classes when the trace is what
 * vprof kernels reads for the rank; else kernels' file (kernel_details.csv,
 * op_summary, the DB, op_statistic.csv) is read once for both kernel
 * models, and steps' step_trace_time.csv for the step_trace_time rows.
 * communication.json and communication_matrix.json, which nothing else
 * reads, are comm's HCCL tables (vp_comm_read_hccl, as vprof comm's).
 * A rank's memory files are read once: memory_record.csv's PTA peaks are
 * the run's memory metrics, and the first profile's files are vprof
 * memory DIR's, kept (ascmem) and carried in the partial. */
#include <stdlib.h>
#include <string.h>

#include "vprof/rank.h"
#include "vprof/ascend_csvwork.h"
#include "vprof/ascend_db.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_groups.h"
#include "vprof/ascend_partial.h"
#include "vprof/ascend_stepwork.h"
#include "vprof/ascend_summaries.h"
#include "vprof/ascend_tracks.h"
#include "vprof/gpupass.h"
#include "vprof/memascend.h"
#include "vprof/part.h"
#include "vprof/report_run.h"
#include "vprof/runstats_ascend.h"

typedef struct asc_riding {
    vp_report_run *r;
    const char *path;                /* the trace */
    int kernels;                     /* the trace is kernels' file for the rank */
    vp_kernels_trace ops, classes;
} asc_riding;

static void asc_begin(void *ctx, const vp_gpu_pass *p, const char *path)
{
    asc_riding *g = ctx;
    g->path = path;
    if (!g->kernels)
        return;
    vp_kernels_trace_begin(&g->ops, &g->r->ops, path, &p->pass);
    vp_kernels_trace_begin(&g->classes, &g->r->classes, path, &p->pass);
}

static void asc_observe(void *ctx, vp_gpuwork *w, long gi, const vp_event *ev)
{
    asc_riding *g = ctx;
    vp_breakdown_observe(&g->r->b, w, gi, ev);
    vp_comm_observe(&g->r->m, w, gi, ev);
    if (g->kernels) {
        vp_kernels_trace_observe(&g->ops, ev);
        vp_kernels_trace_observe(&g->classes, ev);
    }
}

/* What vprof steps does with an Ascend trace: its step_trace_time rows
 * from the device work, then the steps' breakdown; and vprof comm: the
 * rank's row and its HCCL operations as collectives. */
static void asc_done(void *ctx, vp_gpu_pass *p)
{
    asc_riding *g = ctx;
    vp_breakdown *b = &g->r->b;
    int sel = g->r->o.steps_given;
    if (vp_npu_tracks_seen(p->w.npu) || p->w.nslices) {
        int slices = vp_stt_from_work(&p->w, p->pass.rank, sel, &b->stt);
        b->stt_source = vp_stt_trace_source(slices);
    }
    vp_breakdown_add_steps(b, &p->w, p->pass.rank, sel);
    vp_comm_add_file(&g->r->m, &p->w, g->path, p->pass.rank,
                     vp_rank_world_size(vp_trace_meta(p->pass.trace)), sel);
    if (g->kernels) {
        vp_kernels_trace_end(&g->ops, NULL);
        vp_kernels_trace_end(&g->classes, NULL);
    }
}

/* A rank without a trace: its DB, else its kernel_details.csv, read once
 * for the run's metrics, kernels' models when the file is theirs too
 * (vp_kernels_asc_file), and, from a DB that is the rank's
 * step_trace_time too, its rows from the same device work. */
typedef struct asc_file {
    vp_report_run *r;
    const vp_asc_rank *k;
    vp_kernels_rows rows;
    vp_asc_csv_work csv;
    int stt;                         /* the DB's step_trace_time rows, from its work */
} asc_file;

static void file_row(void *ctx, const vp_asc_kernel *row)
{
    asc_file *f = ctx;
    vp_kernels_rows_take(&f->rows, row);
    vp_asc_csv_work_take(&f->csv, row);
}

static void db_device(void *ctx, int64_t device, size_t ndevices, vp_gpuwork *w,
                      const char *const *names)
{
    asc_file *f = ctx;
    vp_report_run *r = f->r;
    vp_run_add_db_device(r->run, f->k->rank, &r->o, device, ndevices, w, names);
    if (f->stt)   /* w resolved by the run, as vp_asc_db_stt resolves it */
        vp_asc_db_stt_work(w, device, ndevices, f->k->rank, r->o.steps_given, &r->b.stt);
}

static int read_file(vp_report_run *r, const vp_asc_rank *k, const char *path, int kernels,
                     int stt, vp_error *err)
{
    vp_kernels *ks[2] = {&r->ops, &r->classes};
    asc_file f = {.r = r, .k = k, .stt = stt};
    uint64_t skipped = 0;
    int rc;
    if (kernels)
        vp_kernels_rows_begin(&f.rows, ks, 2, path, k->rank);
    if (path == k->files[VP_ASC_DB]) {
        rc = vp_asc_db_read(path, kernels ? vp_kernels_rows_take : NULL, &f.rows, &skipped,
                            db_device, &f, err);
    } else {   /* kernel_details.csv: always kernels' file when it is the run's */
        vp_asc_csv_work_begin(&f.csv);
        rc = vp_asc_read_kernels_csv(path, file_row, &f, &skipped, err);
        f.csv.skipped = skipped;
        if (rc == 0)
            vp_asc_csv_work_end(&f.csv, r->o.steps_given ? &r->o.steps : NULL, path);
    }
    if (kernels && rc == 0)
        vp_kernels_rows_end(&f.rows, path, skipped);
    else if (kernels)
        vp_kernels_rows_end(&f.rows, path, 0);   /* the models' state back; err says why */
    if (rc == 0 && path != k->files[VP_ASC_DB])
        vp_run_add_csv_work(r->run, k, &f.csv, &r->o);
    if (path != k->files[VP_ASC_DB])
        vp_asc_csv_work_free(&f.csv);
    if (rc == 0 && stt) {
        r->b.stt.note = vp_asc_db_stt_note;
        if (!r->b.stt_source)
            r->b.stt_source = vp_stt_csv_source();
    }
    return rc;
}

/* One rank, each of its files read once: the run's metrics from its
 * trace with the riders, else from its DB or kernel_details.csv with
 * kernels' models and step_trace_time on the same reading when it is
 * their file; kernels' own file when it is another; comm's
 * communication.json and communication_matrix.json; the
 * step_trace_time.csv steps reads when there is no trace. */
static int read_rank(vp_report_run *r, const vp_asc_rank *k, size_t j, vp_error *err)
{
    vp_kernels *ks[2] = {&r->ops, &r->classes};
    const char *trace = k->files[VP_ASC_TRACE], *runf = vp_run_ascend_file(k);
    const char *kfile = vp_kernels_asc_file(k, err);
    if (!kfile)
        return -1;
    vp_error none = {0};
    const char *stt = trace ? NULL : vp_asc_need(k, VP_ASC_STEP_TRACE, VP_ASC_UNKNOWN, &none);
    int shared = runf && !trace && kfile == runf;
    const char *ktrace = NULL;
    if (!shared && vp_kernels_read_asc_rank(ks, 2, k, &ktrace, err) != VP_EXIT_OK)
        return -1;
    if (k->metadata && vp_asc_read_groups(k->metadata, &r->b.stt, err) != 0)
        return -1;
    int rc;
    if (runf && !trace) {
        int stt_here = stt && stt == runf;
        vp_run_ascend_begin(r->run);
        rc = read_file(r, k, runf, shared, stt_here, err);
        if (stt_here)
            stt = NULL;
    } else {
        asc_riding g = {.r = r, .kernels = ktrace != NULL};
        vp_gpu_pass_rider rider = {asc_begin, asc_observe, asc_done, &g};
        const vp_gpu_pass_rider *was = trace ? vp_gpu_pass_ride(&rider) : NULL;
        rc = vp_run_add_ascend_rank(r->run, k, (long)j, &r->o, err);
        if (trace)
            vp_gpu_pass_ride(was);
    }
    if (rc == 0 && k->files[VP_ASC_COMM])
        rc = vp_comm_read_hccl(&r->m, k->files[VP_ASC_COMM], 0, k->rank, err);
    if (rc == 0 && k->files[VP_ASC_MATRIX])
        rc = vp_comm_read_hccl(&r->m, k->files[VP_ASC_MATRIX], 1, k->rank, err);
    if (rc != 0 || !stt)
        return rc;   /* without one, steps would fail: no step_trace_time rows */
    if (vp_stt_read_csv(stt, k->rank, &r->b.stt, err) != 0)   /* a DB was runf */
        return -1;
    if (!r->b.stt_source)
        r->b.stt_source = vp_stt_csv_source();
    return 0;
}

/* A rank's memory files, once: the run's peaks from memory_record.csv,
 * and all of them kept for the Memory page when dir is given. */
static int read_memory(vp_report_run *r, const vp_asc_rank *k, const char *dir, vp_error *err)
{
    if (!k->files[VP_ASC_MEMORY_RECORD] && !k->files[VP_ASC_OPERATOR_MEMORY] &&
        !k->files[VP_ASC_MODULE_MEM])
        return 0;
    vp_asc_rankmem *m = vp_calloc(1, sizeof *m);
    int rc = vp_asc_rankmem_load_rank(k, m, err);
    if (rc == 0 && m->has_rec)
        vp_run_add_npu_memory(r->run, &m->rec);
    if (rc != 0 || !dir) {
        vp_asc_rankmem_free(m, 1);
        return rc;
    }
    if (!r->ascmem_path)
        r->ascmem_path = vp_strdup(dir);
    r->ascmem = vp_realloc(r->ascmem, (r->nascmem + 1) * sizeof *r->ascmem);
    r->ascmem[r->nascmem++] = *m;
    free(m);
    return 0;
}

int vp_report_run_read_ascend(vp_report_run *r, const char *dir, vp_error *err)
{
    vp_asc_run run;
    if (vp_run_scan_ascend(dir, &run, err) != 0)
        return -1;
    int rc = 0;
    int keep = r->ascmem_path == NULL;   /* no earlier input had memory files */
    for (size_t j = 0; j < run.n && rc == 0; j++) {
        rc = read_rank(r, &run.ranks[j], j, err);
        if (rc == 0)
            rc = read_memory(r, &run.ranks[j], keep ? dir : NULL, err);
    }
    if (rc == 0 && run.n > 1 && !r->b.stt.ngroups)
        rc = vp_asc_run_comm_groups(dir, &run, &r->b.stt, err);
    vp_asc_run_free(&run);
    return rc;
}

/* ---- the partial of ascmem (docs/partials.md, "report") ---- */

static void save_mem(vp_buf *out, const vp_asc_mem *m)
{
    vp_put_u64(out, m->n);
    for (size_t i = 0; i < m->n; i++) {
        const vp_asc_mem_series *s = &m->s[i];
        vp_put_str(out, s->component, strlen(s->component));
        vp_put_str(out, s->device, strlen(s->device));
        vp_put_u64(out, s->peak_alloc);
        vp_put_u64(out, s->peak_reserved);
        vp_put_u64(out, s->n);
        for (size_t k = 0; k < s->n; k++) {
            vp_put_i64(out, s->p[k].ts);
            vp_put_i64(out, s->p[k].allocated);
            vp_put_i64(out, s->p[k].reserved);
            vp_put_i64(out, s->p[k].active);
        }
    }
}

void vp_report_run_save_ascmem(const vp_report_run *r, vp_buf *out)
{
    const char *path = r->ascmem_path ? r->ascmem_path : "";
    vp_put_u64(out, r->ascmem_path != NULL);
    if (!r->ascmem_path)
        return;
    vp_put_str(out, path, strlen(path));
    vp_put_u64(out, r->nascmem);
    for (size_t i = 0; i < r->nascmem; i++) {
        const vp_asc_rankmem *m = &r->ascmem[i];
        vp_put_i64(out, m->rank);
        vp_put_u64(out, (uint64_t)(m->has_rec | m->has_mod << 1 | m->has_ops << 2));
        save_mem(out, &m->rec);
        save_mem(out, &m->mod);
        vp_put_u64(out, m->nops);
        for (size_t k = 0; k < m->nops; k++) {
            const vp_asc_opmem *o = &m->ops[k];
            vp_put_str(out, o->name, strlen(o->name));
            vp_put_str(out, o->device, strlen(o->device));
            vp_put_i64(out, o->size);
            vp_put_i64(out, o->alloc);
            vp_put_i64(out, o->release);
            vp_put_i64(out, o->total_alloc);
        }
    }
}

static int merge_mem(vp_rd *rd, vp_asc_mem *m)
{
    size_t n = vp_get_count(rd, 5);
    if (rd->bad)
        return -1;
    m->s = vp_calloc(n ? n : 1, sizeof *m->s);
    m->cap = n;
    for (size_t i = 0; i < n && !rd->bad; i++) {
        vp_asc_mem_series *s = &m->s[m->n++];
        s->component = vp_get_cstr_dup(rd);
        s->device = vp_get_cstr_dup(rd);
        s->peak_alloc = vp_get_u64(rd);
        s->peak_reserved = vp_get_u64(rd);
        size_t np = vp_get_count(rd, 4);
        if (rd->bad || !s->component || !s->device)
            return -1;
        s->p = vp_malloc((np ? np : 1) * sizeof *s->p);
        s->cap = np;
        for (size_t k = 0; k < np; k++) {
            vp_asc_mem_point *q = &s->p[s->n++];
            q->ts = vp_get_i64(rd);
            q->allocated = vp_get_i64(rd);
            q->reserved = vp_get_i64(rd);
            q->active = vp_get_i64(rd);
        }
        /* a peak is one of the points, or the views would read past them */
        if (np ? s->peak_alloc >= np || s->peak_reserved >= np
               : s->peak_alloc || s->peak_reserved)
            return -1;
    }
    return rd->bad ? -1 : 0;
}

static int merge_rank(vp_rd *rd, vp_asc_rankmem *m)
{
    m->rank = (long)vp_get_i64(rd);
    uint64_t has = vp_get_u64(rd);
    if (has > 7)
        return -1;
    m->has_rec = (int)(has & 1);
    m->has_mod = (int)(has >> 1 & 1);
    m->has_ops = (int)(has >> 2 & 1);
    if (merge_mem(rd, &m->rec) != 0 || merge_mem(rd, &m->mod) != 0)
        return -1;
    size_t n = vp_get_count(rd, 6);
    if (rd->bad)
        return -1;
    m->ops = vp_calloc(n ? n : 1, sizeof *m->ops);
    for (size_t k = 0; k < n && !rd->bad; k++) {
        vp_asc_opmem *o = &m->ops[m->nops++];
        o->name = vp_get_cstr_dup(rd);
        o->device = vp_get_cstr_dup(rd);
        o->size = vp_get_i64(rd);
        o->alloc = vp_get_i64(rd);
        o->release = vp_get_i64(rd);
        o->total_alloc = vp_get_i64(rd);
        if (!o->name || !o->device)
            return -1;
    }
    return rd->bad ? -1 : 0;
}

int vp_report_run_merge_ascmem(vp_report_run *r, vp_rd *rd)
{
    uint64_t has = vp_get_u64(rd);
    if (rd->bad || has > 1)
        return -1;
    if (!has)
        return 0;
    vp_report_run one;
    memset(&one, 0, sizeof one);
    one.ascmem_path = vp_get_cstr_dup(rd);
    size_t n = vp_get_count(rd, 5);
    int rc = one.ascmem_path && !rd->bad ? 0 : -1;
    if (rc == 0)
        one.ascmem = vp_calloc(n ? n : 1, sizeof *one.ascmem);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = merge_rank(rd, &one.ascmem[one.nascmem++]);
    if (rc == 0 && !r->ascmem_path) {   /* an earlier input's comes first */
        r->ascmem = one.ascmem;
        r->nascmem = one.nascmem;
        r->ascmem_path = one.ascmem_path;
        return 0;
    }
    vp_report_run_free_ascmem(&one);
    return rc;
}

void vp_report_run_free_ascmem(vp_report_run *r)
{
    vp_asc_rankmem_free(r->ascmem, r->nascmem);
    free(r->ascmem_path);
    r->ascmem = NULL;
    r->nascmem = 0;
    r->ascmem_path = NULL;
}
