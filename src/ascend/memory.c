/* memory_record.csv, npu_module_mem.csv and operator_memory.csv.
 * Columns are found by name (every header generation), cells through the
 * CSV reader's number rules (trailing TABs, N/A). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_memory.h"
#include "vprof/csv.h"
#include "vprof/util.h"

/* ---- memory_record.csv, npu_module_mem.csv ---- */

/* Bytes of a size cell in the unit of its column: MB and KB are binary,
 * as torch_npu divides by 1024. */
static int size_cell(vp_span f, double unit, int64_t *out)
{
    double v;
    int q = vp_csv_num(f, &v);
    if (q != 0)
        return q;
    *out = (int64_t)llround(v * unit);
    return 0;
}

static int size_col(vp_csv *c, const char *stem, double *unit)
{
    char mb[64], kb[64], b[64];
    snprintf(mb, sizeof mb, "%s(MB)", stem);
    snprintf(kb, sizeof kb, "%s(KB)", stem);
    snprintf(b, sizeof b, "%s(B)", stem);
    const char *l1[] = {mb, NULL}, *l2[] = {kb, NULL}, *l3[] = {b, NULL};
    int i;
    if ((i = vp_csv_col(c, l1)) >= 0)
        *unit = 1048576.0;
    else if ((i = vp_csv_col(c, l2)) >= 0)
        *unit = 1024.0;
    else if ((i = vp_csv_col(c, l3)) >= 0)
        *unit = 1.0;
    return i;
}

static vp_asc_mem_series *series_of(vp_asc_mem *m, const char *comp, const char *dev)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->s[i].component, comp) == 0 && strcmp(m->s[i].device, dev) == 0)
            return &m->s[i];
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->s = vp_realloc(m->s, m->cap * sizeof *m->s);
    }
    vp_asc_mem_series *s = &m->s[m->n++];
    memset(s, 0, sizeof *s);
    s->component = vp_strdup(comp);
    s->device = vp_strdup(dev);
    return s;
}

int vp_asc_read_memory(const char *path, vp_asc_mem *m, vp_error *err)
{
    static const char *const c_comp[] = {"Component", NULL};
    static const char *const c_ts[] = {"Timestamp(us)", NULL};
    static const char *const c_dev[] = {"Device Type", "Device", NULL};
    static const char *const c_devid[] = {"Device_id", NULL};
    vp_csv *c = vp_csv_open(path, err);
    if (!c)
        return -1;
    double u_alloc = 0, u_res = 0, u_act = 0;
    int i_comp = vp_csv_col(c, c_comp), i_ts = vp_csv_col(c, c_ts);
    int i_dev = vp_csv_col(c, c_dev), i_devid = vp_csv_col(c, c_devid);
    int i_alloc = size_col(c, "Total Allocated", &u_alloc);
    int i_res = size_col(c, "Total Reserved", &u_res);
    int i_act = size_col(c, "Total Active", &u_act);
    if (i_comp < 0 || i_ts < 0 || i_res < 0) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: not a memory_record.csv or npu_module_mem.csv: needs Component, "
                     "Timestamp(us) and Total Reserved(MB|KB)",
                     vp_csv_name(c));
        vp_csv_close(c);
        return -1;
    }
    int r;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_mem_point p = {-1, -1, -1, -1};
        if (vp_csv_us(vp_csv_field(c, i_ts), &p.ts) != 0)
            continue;
        if (size_cell(vp_csv_field(c, i_alloc), u_alloc, &p.allocated) != 0)
            p.allocated = -1;
        if (size_cell(vp_csv_field(c, i_res), u_res, &p.reserved) != 0 || p.reserved < 0)
            p.reserved = -1;
        if (size_cell(vp_csv_field(c, i_act), u_act, &p.active) != 0)
            p.active = -1;
        char dev[64];
        const char *d = vp_csv_str(c, i_dev);
        if (!*d && i_devid >= 0) {
            snprintf(dev, sizeof dev, "NPU:%s", vp_csv_str(c, i_devid));
            d = dev;
        }
        vp_asc_mem_series *s = series_of(m, vp_csv_str(c, i_comp), d);
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 64;
            s->p = vp_realloc(s->p, s->cap * sizeof *s->p);
        }
        s->p[s->n] = p;
        if (p.allocated > s->p[s->peak_alloc].allocated)
            s->peak_alloc = s->n;
        if (p.reserved > s->p[s->peak_reserved].reserved)
            s->peak_reserved = s->n;
        s->n++;
    }
    vp_csv_close(c);
    return r < 0 ? -1 : 0;
}

void vp_asc_mem_free(vp_asc_mem *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->s[i].component);
        free(m->s[i].device);
        free(m->s[i].p);
    }
    free(m->s);
    memset(m, 0, sizeof *m);
}

/* ---- operator_memory.csv ---- */

int vp_asc_read_opmem(const char *path, vp_asc_opmem **rows, size_t *n, vp_error *err)
{
    static const char *const c_name[] = {"Name", NULL};
    static const char *const c_alloc[] = {"Allocation Time(us)", NULL};
    static const char *const c_rel[] = {"Release Time(us)", NULL};
    static const char *const c_dev[] = {"Device Type", "Device", NULL};
    vp_csv *c = vp_csv_open(path, err);
    *rows = NULL;
    *n = 0;
    if (!c)
        return -1;
    double unit = 0;
    int i_name = vp_csv_col(c, c_name), i_size = size_col(c, "Size", &unit);
    int i_alloc = vp_csv_col(c, c_alloc), i_rel = vp_csv_col(c, c_rel);
    int i_dev = vp_csv_col(c, c_dev);
    double u_total = 0;
    int i_total = size_col(c, "Allocation Total Allocated", &u_total);
    if (i_name < 0 || i_size < 0 || i_alloc < 0) {
        vp_error_set(err, VP_EXIT_INPUT,
                     "%s: not an operator_memory.csv: needs Name, Size(KB) and Allocation "
                     "Time(us)",
                     vp_csv_name(c));
        vp_csv_close(c);
        return -1;
    }
    size_t cap = 0;
    int r;
    while ((r = vp_csv_next(c, err)) == 1) {
        vp_asc_opmem o;
        if (size_cell(vp_csv_field(c, i_size), unit, &o.size) != 0)
            continue;
        if (vp_csv_us(vp_csv_field(c, i_alloc), &o.alloc) != 0)
            o.alloc = -1;
        if (vp_csv_us(vp_csv_field(c, i_rel), &o.release) != 0)
            o.release = -1;
        if (size_cell(vp_csv_field(c, i_total), u_total, &o.total_alloc) != 0)
            o.total_alloc = -1;
        o.name = vp_strdup(vp_csv_str(c, i_name));
        o.device = vp_strdup(vp_csv_str(c, i_dev));
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            *rows = vp_realloc(*rows, cap * sizeof **rows);
        }
        (*rows)[(*n)++] = o;
    }
    vp_csv_close(c);
    if (r < 0) {
        vp_asc_opmem_free(*rows, *n);
        *rows = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

void vp_asc_opmem_free(vp_asc_opmem *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].name);
        free(rows[i].device);
    }
    free(rows);
}

const char *vp_asc_opmem_component(const char *name)
{
    if (strncmp(name, "aten::", 6) == 0)
        return "PTA";
    if (strncmp(name, "cann::", 6) == 0)
        return "GE";
    return "";
}
