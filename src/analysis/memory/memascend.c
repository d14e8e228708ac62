/* Ascend memory files per rank, and the operators at each allocator's
 * peak (vprof/memascend.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/memascend.h"
#include "vprof/util.h"

static int read_one(vp_asc_rankmem *in, vp_asc_file kind, const char *path, vp_error *err)
{
    if (kind == VP_ASC_MEMORY_RECORD) {
        in->has_rec = 1;
        return vp_asc_read_memory(path, &in->rec, err);
    }
    if (kind == VP_ASC_MODULE_MEM) {
        in->has_mod = 1;
        return vp_asc_read_memory(path, &in->mod, err);
    }
    if (kind == VP_ASC_OPERATOR_MEMORY) {
        in->has_ops = 1;
        return vp_asc_read_opmem(path, &in->ops, &in->nops, err);
    }
    return 0;
}

int vp_asc_rankmem_load_rank(const vp_asc_rank *r, vp_asc_rankmem *out, vp_error *err)
{
    static const vp_asc_file kinds[] = {VP_ASC_MEMORY_RECORD, VP_ASC_OPERATOR_MEMORY,
                                        VP_ASC_MODULE_MEM};
    out->rank = r->rank;
    int rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++)
        if (r->files[kinds[k]])
            rc = read_one(out, kinds[k], r->files[kinds[k]], err);
    return rc;
}

int vp_asc_rankmem_load(const char *path, int is_dir, vp_asc_file kind, vp_asc_rankmem **out,
                        size_t *n, vp_error *err)
{
    vp_asc_rankmem *in;
    size_t nin = 0;
    int rc = 0;
    if (!is_dir) {
        in = vp_calloc(1, sizeof *in);
        nin = 1;
        rc = read_one(&in[0], kind, path, err);
    } else {
        vp_asc_run run;
        if (vp_asc_scan(path, &run, err) != 0)
            return -1;
        in = vp_calloc(run.n ? run.n : 1, sizeof *in);
        for (size_t i = 0; i < run.n && rc == 0; i++) {
            vp_asc_rank *r = &run.ranks[i];
            in[nin].rank = r->rank;
            if (!r->files[VP_ASC_MEMORY_RECORD] && !r->files[VP_ASC_OPERATOR_MEMORY] &&
                !r->files[VP_ASC_MODULE_MEM]) {
                vp_error_set(err, VP_EXIT_INPUT, "%s: no memory_record.csv, operator_memory.csv or "
                                                 "npu_module_mem.csv (profile with profile_memory=True)",
                             r->dir);
                rc = -1;
                break;
            }
            rc = vp_asc_rankmem_load_rank(r, &in[nin], err);
            nin++;
        }
        if (run.n == 0 && rc == 0) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: no rank directory with memory files", path);
            rc = -1;
        }
        vp_asc_run_free(&run);
    }
    if (rc != 0) {
        vp_asc_rankmem_free(in, nin);
        return -1;
    }
    *out = in;
    *n = nin;
    return 0;
}

void vp_asc_rankmem_free(vp_asc_rankmem *in, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        vp_asc_mem_free(&in[r].rec);
        vp_asc_mem_free(&in[r].mod);
        vp_asc_opmem_free(in[r].ops, in[r].nops);
    }
    free(in);
}

static int cmp_opsum(const void *a, const void *b)
{
    const vp_asc_opsum *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->name, y->name);
}

int vp_asc_ops_at_peak(const vp_asc_opmem *v, size_t n, const char *component,
                       int64_t *peak_total, int64_t *peak_ts, vp_asc_opsum **out, size_t *nout)
{
    size_t peak = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (strcmp(vp_asc_opmem_component(v[i].name), component) == 0 && v[i].total_alloc >= 0 &&
            v[i].alloc >= 0 &&
            (peak == SIZE_MAX || v[i].total_alloc > v[peak].total_alloc ||
             (v[i].total_alloc == v[peak].total_alloc && v[i].alloc < v[peak].alloc)))
            peak = i;
    if (peak == SIZE_MAX)
        return 0;
    int64_t at = v[peak].alloc;
    vp_asc_opsum *sums = vp_calloc(n ? n : 1, sizeof *sums);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(vp_asc_opmem_component(v[i].name), component) != 0 || v[i].size <= 0)
            continue;
        if (!((v[i].alloc < 0 || v[i].alloc <= at) && (v[i].release < 0 || v[i].release > at)))
            continue;
        size_t j = 0;
        while (j < ns && strcmp(sums[j].name, v[i].name) != 0)
            j++;
        if (j == ns)
            sums[ns++] = (vp_asc_opsum){v[i].name, 0, 0};
        sums[j].bytes += v[i].size;
        sums[j].blocks++;
    }
    if (ns)
        qsort(sums, ns, sizeof *sums, cmp_opsum);
    *peak_total = v[peak].total_alloc;
    *peak_ts = at;
    *out = sums;
    *nout = ns;
    return 1;
}
