/* The memory views (vprof/memview.h): snapshots, traces' [memory]
 * events, memory timelines and Ascend memory files as tables and SVG
 * charts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/memview.h"
#include "vprof/plot.h"
#include "vprof/table.h"
#include "vprof/util.h"

typedef vp_memview_opts mem_opts;

/* The site of a stack, as the tables show it; "" when no frame is shown. */
static const char *site_of(const vp_memsnap *s, const mem_opts *o, uint32_t stack, char *buf)
{
    vp_ms_site(s, stack, o->stack_depth, o->all_frames, buf, VP_MS_SITE_MAX);
    return buf;
}

static void set_site(vp_table *t, size_t row, int col, const char *site)
{
    if (*site)
        vp_table_set_text(t, row, col, site);
}

static int64_t limit_rows(const mem_opts *o, size_t n)
{
    return o->top == 0 || (size_t)o->top > n ? (int64_t)n : o->top;
}

static int selected(const mem_opts *o, const vp_ms_device *d)
{
    return o->device < 0 || d->id == o->device;
}

/* The devices o selects, in order: from i = 0, each call leaves i at the
 * device it returns (the loop adds one after it); NULL after the last. */
static const vp_ms_device *next_device(const vp_memsnap *s, const mem_opts *o, size_t *i)
{
    for (; *i < s->ndevices; ++*i)
        if (selected(o, &s->devices[*i]))
            return &s->devices[*i];
    return NULL;
}

/* ---- the tables ---- */

/* The origin of the times people read (vp_ms_start_time). */
static int64_t start_of(const vp_memsnap *s)
{
    int64_t t0 = 0;
    vp_ms_start_time(s, &t0);
    return t0;
}

/* A time twice, in columns c_abs and c_abs + 1: as the input recorded it
 * (a VP_COL_CLOCK column, for programs) and in ns since the input's start
 * (for people, in every format). */
static void set_times(vp_table *t, size_t row, int c_abs, int64_t recorded, int64_t since_ns)
{
    vp_table_set_int(t, row, c_abs, recorded);
    vp_table_set_int(t, row, c_abs + 1, since_ns);
}

/* A snapshot entry's time_us, since the snapshot's start t0. */
static void set_time(vp_table *t, size_t row, int c_abs, int64_t t0, int64_t time_us)
{
    set_times(t, row, c_abs, time_us, (time_us - t0) * 1000);
}

/* A table of the snapshot's devices, the device its first column. */
static vp_table *device_table(const char *name)
{
    vp_table *t = vp_table_new(name);
    vp_table_add_col(t, "Device", VP_COL_INT, 0);
    return t;
}

/* A new row of device id. */
static size_t device_row(vp_table *t, int64_t id)
{
    size_t r = vp_table_add_row(t);
    vp_table_set_int(t, r, 0, id);
    return r;
}

static vp_table *state_table(const vp_memsnap *s, const mem_opts *o, const vp_ms_stats *st)
{
    enum { C_SEG = 1, C_BLK, C_RES, C_ALL, C_REQ, C_PEND, C_INA, C_BIG, C_FRAG, C_WASTE };
    static const vp_col_spec cols[] = {
        {"Device", VP_COL_INT, 0}, {"Segments", VP_COL_INT, 0}, {"Blocks", VP_COL_INT, 0},
        {"Reserved", VP_COL_BYTES, 0}, {"Allocated", VP_COL_BYTES, 0},
        {"Requested", VP_COL_BYTES, 0}, {"Pending Free", VP_COL_BYTES, 0},
        {"Inactive", VP_COL_BYTES, 0}, {"Largest Inactive", VP_COL_BYTES, 0},
        {"Fragmentation", VP_COL_PERCENT, 1}, {"Rounding Waste", VP_COL_BYTES, 0},
    };
    vp_table *t = vp_table_new_cols("state", cols, sizeof cols / sizeof *cols);
    for (size_t i = 0; next_device(s, o, &i); i++) {
        size_t r = device_row(t, st[i].device);
        vp_table_set_int(t, r, C_SEG, (int64_t)st[i].segments);
        vp_table_set_int(t, r, C_BLK, (int64_t)st[i].blocks);
        vp_table_set_int(t, r, C_RES, st[i].reserved);
        vp_table_set_int(t, r, C_ALL, st[i].allocated);
        vp_table_set_int(t, r, C_REQ, st[i].requested);
        vp_table_set_int(t, r, C_PEND, st[i].pending_free);
        vp_table_set_int(t, r, C_INA, st[i].inactive);
        vp_table_set_int(t, r, C_BIG, st[i].largest_inactive);
        vp_table_set_double(t, r, C_FRAG, 100.0 * st[i].fragmentation);
        vp_table_set_int(t, r, C_WASTE, st[i].rounding_waste);
    }
    if (s->ndevices == 0)
        vp_table_add_note(t, "no device has segments or trace entries");
    return t;
}

static vp_table *peak_table(const vp_memsnap *s, const mem_opts *o, const vp_ms_stats *st)
{
    enum { C_ENT = 1, C_BASE, C_PEAK, C_IDX, C_TIME, C_SINCE, C_FINAL, C_PRES, C_OOMS };
    static const vp_col_spec cols[] = {
        {"Device", VP_COL_INT, 0}, {"Trace Entries", VP_COL_INT, 0}, {"Baseline", VP_COL_BYTES, 0},
        {"Peak Active", VP_COL_BYTES, 0}, {"Peak Event", VP_COL_INT, 0},
        {"Peak Time (us since epoch)", VP_COL_CLOCK, 0}, {"Peak Since Start", VP_COL_NS, 0},
        {"Final Active", VP_COL_BYTES, 0},
        {"Peak Reserved", VP_COL_BYTES, 0}, {"OOMs", VP_COL_INT, 0},
    };
    vp_table *t = vp_table_new_cols("peak", cols, sizeof cols / sizeof *cols);
    int64_t t0 = start_of(s);
    int before = 0;
    for (size_t i = 0; next_device(s, o, &i); i++) {
        size_t r = device_row(t, st[i].device);
        vp_table_set_int(t, r, C_ENT, (int64_t)st[i].trace_entries);
        vp_table_set_int(t, r, C_BASE, st[i].baseline);
        vp_table_set_int(t, r, C_PEAK, st[i].peak_active);
        vp_table_set_int(t, r, C_IDX, st[i].peak_index);
        if (st[i].peak_has_time)
            set_time(t, r, C_TIME, t0, st[i].peak_time_us);
        vp_table_set_int(t, r, C_FINAL, st[i].final_active);
        vp_table_set_int(t, r, C_PRES, st[i].peak_reserved);
        vp_table_set_int(t, r, C_OOMS, (int64_t)st[i].ooms);
        before |= st[i].peak_index < 0;
    }
    if (before)
        vp_table_add_note(t, "Peak Event -1: the peak is the state before the first trace event");
    if (s->list_form)
        vp_table_add_note(t, "a list of segments (torch.cuda.memory_snapshot()): no trace was recorded");
    return t;
}

static vp_table *top_table(const vp_memsnap *s, const mem_opts *o, const vp_ms_stats *st)
{
    vp_table *t = device_table(o->by_site ? "sites_at_peak" : "top_at_peak");
    int c_size = vp_table_add_col(t, o->by_site ? "Bytes" : "Size", VP_COL_BYTES, 0);
    int c_cnt = -1, c_addr = -1, c_ev = -1;
    if (o->by_site) {
        c_cnt = vp_table_add_col(t, "Allocations", VP_COL_INT, 0);
    } else {
        c_addr = vp_table_add_col(t, "Address", VP_COL_TEXT, 0);
        c_ev = vp_table_add_col(t, "Alloc Event", VP_COL_INT, 0);
    }
    int c_site = vp_table_add_col(t, "Site", VP_COL_TEXT, 0);
    char *buf = vp_malloc(VP_MS_SITE_MAX);
    int before = 0;
    const vp_ms_device *d;
    for (size_t i = 0; (d = next_device(s, o, &i)); i++) {
        vp_ms_live *lv;
        size_t n = vp_ms_live_at(s, d, st[i].peak_index, &lv);
        if (o->by_site) {
            vp_ms_sites g;
            vp_ms_group_by_site(s, lv, n, o->stack_depth, o->all_frames, &g);
            for (int64_t k = 0; k < limit_rows(o, g.n); k++) {
                size_t r = device_row(t, d->id);
                vp_table_set_int(t, r, c_size, g.sums[k].bytes);
                vp_table_set_int(t, r, c_cnt, g.sums[k].count);
                set_site(t, r, c_site, g.sums[k].site);
            }
            vp_ms_sites_free(&g);
        } else {
            for (int64_t k = 0; k < limit_rows(o, n); k++) {
                size_t r = device_row(t, d->id);
                char addr[32];
                snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)lv[k].addr);
                vp_table_set_int(t, r, c_size, lv[k].size);
                vp_table_set_text(t, r, c_addr, addr);
                if (lv[k].alloc_index >= 0)
                    vp_table_set_int(t, r, c_ev, lv[k].alloc_index);
                else
                    before = 1;
                set_site(t, r, c_site, site_of(s, o, lv[k].stack, buf));
            }
        }
        free(lv);
    }
    free(buf);
    if (before)
        vp_table_add_note(t, "no Alloc Event: allocated before the trace started");
    return t;
}

static vp_table *leak_table(const vp_memsnap *s, const mem_opts *o)
{
    enum { C_BYTES = 1, C_CNT, C_SITE };
    static const vp_col_spec cols[] = {
        {"Device", VP_COL_INT, 0}, {"Bytes", VP_COL_BYTES, 0}, {"Allocations", VP_COL_INT, 0},
        {"Site", VP_COL_TEXT, 0},
    };
    vp_table *t = vp_table_new_cols("leaks", cols, sizeof cols / sizeof *cols);
    const vp_ms_device *d;
    for (size_t i = 0; (d = next_device(s, o, &i)); i++) {
        vp_ms_live *lv;
        size_t n = vp_ms_leaks(s, d, &lv);
        vp_ms_sites g;
        vp_ms_group_by_site(s, lv, n, o->stack_depth, o->all_frames, &g);
        for (int64_t k = 0; k < limit_rows(o, g.n); k++) {
            size_t r = device_row(t, d->id);
            vp_table_set_int(t, r, C_BYTES, g.sums[k].bytes);
            vp_table_set_int(t, r, C_CNT, g.sums[k].count);
            set_site(t, r, C_SITE, g.sums[k].site);
        }
        vp_ms_sites_free(&g);
        free(lv);
    }
    vp_table_add_note(t, "allocated after the first quarter of the recorded time and still alive "
                         "at its end, by code that still adds such memory in the second half "
                         "of the entries after it (the baseline, the warm-up and state made "
                         "once, like an optimizer's, are never leaks)");
    return t;
}

static vp_table *oom_table(const vp_memsnap *s, const mem_opts *o)
{
    enum { C_EV = 1, C_TIME, C_SINCE, C_REQ, C_FREE, C_ACT, C_RES, C_SITE };
    static const vp_col_spec cols[] = {
        {"Device", VP_COL_INT, 0}, {"Event", VP_COL_INT, 0},
        {"Time (us since epoch)", VP_COL_CLOCK, 0}, {"Since Start", VP_COL_NS, 0},
        {"Requested", VP_COL_BYTES, 0}, {"Device Free", VP_COL_BYTES, 0},
        {"Active", VP_COL_BYTES, 0}, {"Reserved", VP_COL_BYTES, 0}, {"Site", VP_COL_TEXT, 0},
    };
    vp_table *t = vp_table_new_cols("oom", cols, sizeof cols / sizeof *cols);
    int64_t t0 = start_of(s);
    char *buf = vp_malloc(VP_MS_SITE_MAX);
    const vp_ms_device *d;
    for (size_t i = 0; (d = next_device(s, o, &i)); i++) {
        int64_t *active = NULL, *reserved = NULL;
        for (size_t k = 0; k < d->nevents; k++) {
            const vp_ms_event *e = &d->events[k];
            if (e->action != VP_MS_OOM)
                continue;
            if (!active)
                vp_ms_timeline(s, d, &active, &reserved);
            size_t r = device_row(t, d->id);
            vp_table_set_int(t, r, C_EV, (int64_t)k);
            if (e->has_time)
                set_time(t, r, C_TIME, t0, e->time_us);
            vp_table_set_int(t, r, C_REQ, e->size);
            vp_table_set_int(t, r, C_FREE, (int64_t)e->addr);
            vp_table_set_int(t, r, C_ACT, active[k]);     /* just before it */
            vp_table_set_int(t, r, C_RES, reserved[k]);
            set_site(t, r, C_SITE, site_of(s, o, e->stack, buf));
        }
        free(active);
        free(reserved);
    }
    free(buf);
    return t;
}

static vp_table *timeline_table(const vp_memsnap *s, const mem_opts *o)
{
    enum { C_EV = 1, C_TIME, C_SINCE, C_ACT, C_SIZE, C_ACTIVE, C_RES };
    static const vp_col_spec cols[] = {
        {"Device", VP_COL_INT, 0}, {"Event", VP_COL_INT, 0},
        {"Time (us since epoch)", VP_COL_CLOCK, 0}, {"Since Start", VP_COL_NS, 0},
        {"Action", VP_COL_TEXT, 0}, {"Size", VP_COL_BYTES, 0}, {"Active", VP_COL_BYTES, 0},
        {"Reserved", VP_COL_BYTES, 0},
    };
    vp_table *t = vp_table_new_cols("timeline", cols, sizeof cols / sizeof *cols);
    int64_t t0 = start_of(s);
    const vp_ms_device *d;
    for (size_t i = 0; (d = next_device(s, o, &i)); i++) {
        int64_t *active, *reserved;
        vp_ms_timeline(s, d, &active, &reserved);
        for (size_t k = 0; k <= d->nevents; k++) {
            size_t r = device_row(t, d->id);
            vp_table_set_int(t, r, C_EV, (int64_t)k - 1);
            if (k == 0) {
                vp_table_set_text(t, r, C_ACT, "start");
            } else {
                const vp_ms_event *e = &d->events[k - 1];
                if (e->has_time)
                    set_time(t, r, C_TIME, t0, e->time_us);
                vp_table_set_text(t, r, C_ACT, vp_ms_action_name(e->action));
                vp_table_set_int(t, r, C_SIZE, e->size);
            }
            vp_table_set_int(t, r, C_ACTIVE, active[k]);
            vp_table_set_int(t, r, C_RES, reserved[k]);
        }
        free(active);
        free(reserved);
    }
    vp_table_add_note(t, "Event -1 is the state before the first trace event");
    return t;
}

size_t vp_memview_snapshot(const vp_memsnap *s, const vp_memview_opts *o, vp_table **tables)
{
    size_t nt = 0;
    if (o->timeline) {
        tables[nt++] = timeline_table(s, o);
        return nt;
    }
    vp_ms_stats *st = vp_calloc(s->ndevices ? s->ndevices : 1, sizeof *st);
    size_t ooms = 0;
    for (size_t i = 0; i < s->ndevices; i++) {
        vp_ms_device_stats(s, &s->devices[i], &st[i]);
        if (selected(o, &s->devices[i]))
            ooms += st[i].ooms;
    }
    tables[nt++] = state_table(s, o, st);
    tables[nt++] = peak_table(s, o, st);
    tables[nt++] = top_table(s, o, st);
    if (ooms)
        tables[nt++] = oom_table(s, o);
    if (o->leaks)
        tables[nt++] = leak_table(s, o);
    free(st);
    return nt;
}

int vp_memview_plot_snapshot(FILE *out, const vp_memsnap *s, const char *title)
{
    return vp_ms_plot_svg(out, s, title);
}

/* ---- traces: [memory] events ---- */

int vp_memview_plot_trace(FILE *out, const vp_memevents *m, const char *title)
{
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < m->ndevices; i++)
        if (m->devices[i].npoints && m->devices[i].points[0].ts < t0)
            t0 = m->devices[i].points[0].ts;
    vp_plot_series *sr = vp_calloc(m->ndevices ? m->ndevices : 1, sizeof *sr);
    size_t n = 0;
    for (size_t i = 0; i < m->ndevices; i++) {
        const vp_mem_device *d = &m->devices[i];
        if (!d->npoints)
            continue;
        double *x = vp_malloc(d->npoints * sizeof *x);
        int64_t *a = vp_malloc(d->npoints * sizeof *a), *r = vp_malloc(d->npoints * sizeof *r);
        size_t peak = 0;
        for (size_t k = 0; k < d->npoints; k++) {
            x[k] = (double)(d->points[k].ts - t0) / 1e9;
            a[k] = d->points[k].allocated;
            r[k] = d->points[k].reserved;
            if (a[k] > a[peak])
                peak = k;
        }
        char *label = vp_malloc(48), *pl = vp_malloc(96), dev[32], b[32];
        vp_mem_device_name(d->type, d->id, dev, sizeof dev);
        vp_human_bytes(b, sizeof b, (double)a[peak]);
        snprintf(label, 48, "%s", dev);
        snprintf(pl, 96, "peak %s allocated (%s)", b, dev);
        sr[n++] = (vp_plot_series){label, d->npoints, x, a, r, peak, pl};
    }
    int rc = vp_plot_svg(out, title, "time since the first [memory] event (s)",
                         "allocated, - - reserved", sr, n);
    vp_plot_series_free(sr, n);
    return rc;
}

static int trace_device_selected(const mem_opts *o, const vp_mem_device *d)
{
    return o->device < 0 || (d->type != 0 && d->id == o->device);
}

/* A trace's time twice: ts as the trace has it (ns on its own clock, for
 * programs) and since the trace's start (its earliest event). */
static void set_trace_time(vp_table *t, size_t row, int c_abs, const vp_memevents *m, int64_t ts)
{
    set_times(t, row, c_abs, ts, ts - (m->has_start ? m->start : ts));
}

size_t vp_memview_trace(const vp_memevents *m, const vp_memview_opts *o, vp_table **tables)
{
    size_t nt = 0;
    if (o->timeline) {
        vp_table *tl = vp_table_new("timeline");
        vp_table_add_col(tl, "Device", VP_COL_TEXT, 0);
        vp_table_add_col(tl, "ts (ns)", VP_COL_CLOCK, 0);
        vp_table_add_col(tl, "Since Start", VP_COL_NS, 0);
        vp_table_add_col(tl, "Bytes", VP_COL_BYTES, 0);
        vp_table_add_col(tl, "Allocated", VP_COL_BYTES, 0);
        vp_table_add_col(tl, "Reserved", VP_COL_BYTES, 0);
        for (size_t i = 0; i < m->ndevices; i++) {
            const vp_mem_device *d = &m->devices[i];
            if (!trace_device_selected(o, d))
                continue;
            char dev[32];
            vp_mem_device_name(d->type, d->id, dev, sizeof dev);
            for (size_t k = 0; k < d->npoints; k++) {
                size_t row = vp_table_add_row(tl);
                vp_table_set_text(tl, row, 0, dev);
                set_trace_time(tl, row, 1, m, d->points[k].ts);
                vp_table_set_int(tl, row, 3, d->points[k].bytes);
                vp_table_set_int(tl, row, 4, d->points[k].allocated);
                vp_table_set_int(tl, row, 5, d->points[k].reserved);
            }
        }
        tables[nt++] = tl;
    } else {
        vp_table *st = vp_table_new("memory");
        int replayed = 0;
        vp_table_add_col(st, "Device", VP_COL_TEXT, 0);
        vp_table_add_col(st, "Events", VP_COL_INT, 0);
        vp_table_add_col(st, "Peak Allocated", VP_COL_BYTES, 0);
        vp_table_add_col(st, "Peak ts (ns)", VP_COL_CLOCK, 0);
        vp_table_add_col(st, "Peak Since Start", VP_COL_NS, 0);
        vp_table_add_col(st, "Peak Op", VP_COL_TEXT, 0);
        vp_table_add_col(st, "Peak Reserved", VP_COL_BYTES, 0);
        vp_table_add_col(st, "Final Allocated", VP_COL_BYTES, 0);
        vp_table_add_col(st, "Final Reserved", VP_COL_BYTES, 0);
        for (size_t i = 0; i < m->ndevices; i++) {
            const vp_mem_device *d = &m->devices[i];
            if (!trace_device_selected(o, d))
                continue;
            char dev[32];
            vp_mem_device_name(d->type, d->id, dev, sizeof dev);
            size_t row = vp_table_add_row(st);
            vp_table_set_text(st, row, 0, dev);
            vp_table_set_int(st, row, 1, (int64_t)(d->allocs + d->frees));
            vp_table_set_int(st, row, 2, d->peak_alloc.allocated);
            set_trace_time(st, row, 3, m, d->peak_alloc.ts);
            if (d->peak_op)
                vp_table_set_text(st, row, 5, d->peak_op);
            vp_table_set_int(st, row, 7, d->last.allocated);
            if (d->replayed) {   /* reserved unknown: left empty */
                replayed = 1;
                continue;
            }
            vp_table_set_int(st, row, 6, d->peak_reserved.reserved);
            vp_table_set_int(st, row, 8, d->last.reserved);
        }
        if (replayed)
            vp_table_add_note(st, "the [memory] events carry Bytes without the allocator's totals "
                                  "(torch 1.8-1.10): Allocated is the running sum of Bytes per "
                                  "device from 0 where the trace begins (memory held before the "
                                  "profiler started is not seen); Reserved is unknown");
        if (m->ndevices == 0)
            vp_table_add_note(st, "no [memory] events: record with torch.profiler.profile(profile_memory=True)");
        tables[nt++] = st;
        if (m->nooms) {
            vp_table *oo = vp_table_new("out_of_memory");
            vp_table_add_col(oo, "Device", VP_COL_TEXT, 0);
            vp_table_add_col(oo, "ts (ns)", VP_COL_CLOCK, 0);
            vp_table_add_col(oo, "Since Start", VP_COL_NS, 0);
            vp_table_add_col(oo, "Requested", VP_COL_BYTES, 0);
            vp_table_add_col(oo, "Allocated", VP_COL_BYTES, 0);
            vp_table_add_col(oo, "Reserved", VP_COL_BYTES, 0);
            for (size_t i = 0; i < m->nooms; i++) {
                char dev[32];
                vp_mem_device_name(m->ooms[i].type, m->ooms[i].id, dev, sizeof dev);
                size_t row = vp_table_add_row(oo);
                vp_table_set_text(oo, row, 0, dev);
                set_trace_time(oo, row, 1, m, m->ooms[i].ts);
                vp_table_set_int(oo, row, 3, m->ooms[i].bytes);
                vp_table_set_int(oo, row, 4, m->ooms[i].allocated);
                vp_table_set_int(oo, row, 5, m->ooms[i].reserved);
            }
            tables[nt++] = oo;
        }
    }
    return nt;
}

/* ---- Ascend: memory_record.csv, operator_memory.csv, npu_module_mem.csv ---- */

int vp_memview_plot_ascend(FILE *out, const vp_asc_rankmem *in, size_t nin, const char *title)
{
    int64_t t0 = INT64_MAX;
    size_t total = 0;
    for (size_t r = 0; r < nin; r++)
        for (size_t i = 0; i < in[r].rec.n; i++) {
            total++;
            if (in[r].rec.s[i].n && in[r].rec.s[i].p[0].ts < t0)
                t0 = in[r].rec.s[i].p[0].ts;
        }
    vp_plot_series *sr = vp_calloc(total ? total : 1, sizeof *sr);
    size_t n = 0;
    for (size_t r = 0; r < nin; r++)
        for (size_t i = 0; i < in[r].rec.n; i++) {
            const vp_asc_mem_series *s = &in[r].rec.s[i];
            if (!s->n)
                continue;
            /* APP rows have no allocated bytes: their reserved line is drawn solid. */
            int app = s->p[s->peak_alloc].allocated < 0;
            double *x = vp_malloc(s->n * sizeof *x);
            int64_t *a = vp_malloc(s->n * sizeof *a), *rs = vp_malloc(s->n * sizeof *rs);
            for (size_t k = 0; k < s->n; k++) {
                x[k] = (double)(s->p[k].ts - t0) / 1e9;
                rs[k] = s->p[k].reserved > 0 ? s->p[k].reserved : 0;
                a[k] = app ? rs[k] : (s->p[k].allocated > 0 ? s->p[k].allocated : 0);
            }
            size_t peak = app ? s->peak_reserved : s->peak_alloc;
            char *label = vp_malloc(96), *pl = vp_malloc(128), b[32];
            snprintf(label, 96, nin > 1 ? "rank %ld %s%s" : "%.0ld%s%s", nin > 1 ? in[r].rank : 0L,
                     s->component, app ? " (reserved)" : "");
            vp_human_bytes(b, sizeof b, (double)a[peak]);
            snprintf(pl, 128, "peak %s %s (%s)", b, app ? "reserved" : "allocated", s->component);
            sr[n++] = (vp_plot_series){label, s->n, x, a, app ? NULL : rs, peak, pl};
            if (app)
                free(rs);
        }
    int rc = vp_plot_svg(out, title, "time since the first memory_record row (s)",
                         "allocated, - - reserved", sr, n);
    vp_plot_series_free(sr, n);
    return rc;
}

/* The start of an Ascend memory file, the origin of its times: its
 * earliest row over all ranks (memory_record.csv's is the plot's origin
 * too).  Each file has its own, as they may come from different runs. */
static int64_t asc_series_start(const vp_asc_rankmem *in, size_t nin, int mod)
{
    int64_t t0 = INT64_MAX;
    for (size_t r = 0; r < nin; r++) {
        const vp_asc_mem *m = mod ? &in[r].mod : &in[r].rec;
        for (size_t i = 0; i < m->n; i++)
            for (size_t k = 0; k < m->s[i].n; k++)
                if (m->s[i].p[k].ts < t0)
                    t0 = m->s[i].p[k].ts;
    }
    return t0 == INT64_MAX ? 0 : t0;
}

/* operator_memory.csv's: its earliest allocation or release time. */
static int64_t asc_ops_start(const vp_asc_rankmem *in, size_t nin)
{
    int64_t t0 = INT64_MAX;
    for (size_t r = 0; r < nin; r++)
        for (size_t i = 0; i < in[r].nops; i++) {
            const vp_asc_opmem *v = &in[r].ops[i];
            if (v->alloc >= 0 && v->alloc < t0)
                t0 = v->alloc;
            if (v->release >= 0 && v->release < t0)
                t0 = v->release;
        }
    return t0 == INT64_MAX ? 0 : t0;
}

static void set_asc_time(vp_table *t, size_t row, int c_abs, int64_t t0, int64_t ts)
{
    set_times(t, row, c_abs, ts, ts - t0);
}

static void put_bytes(vp_table *t, size_t row, int col, int64_t v)
{
    if (v >= 0)
        vp_table_set_int(t, row, col, v);
}

static vp_table *asc_record_table(const vp_asc_rankmem *in, size_t nin, const char *name)
{
    vp_table *t = vp_table_new(name);
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Device", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Component", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Points", VP_COL_INT, 0);
    vp_table_add_col(t, "Peak Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Peak Allocated Time (ns since epoch)", VP_COL_CLOCK, 0);
    vp_table_add_col(t, "Peak Allocated Since Start", VP_COL_NS, 0);
    vp_table_add_col(t, "Peak Reserved", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Peak Reserved Time (ns since epoch)", VP_COL_CLOCK, 0);
    vp_table_add_col(t, "Peak Reserved Since Start", VP_COL_NS, 0);
    vp_table_add_col(t, "Final Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Final Reserved", VP_COL_BYTES, 0);
    int mod = strcmp(name, "npu_module_mem") == 0;
    int64_t t0 = asc_series_start(in, nin, mod);
    for (size_t r = 0; r < nin; r++) {
        const vp_asc_mem *m = mod ? &in[r].mod : &in[r].rec;
        for (size_t i = 0; i < m->n; i++) {
            const vp_asc_mem_series *s = &m->s[i];
            if (!s->n)
                continue;
            size_t row = vp_table_add_row(t);
            vp_table_set_int(t, row, 0, in[r].rank);
            vp_table_set_text(t, row, 1, s->device);
            vp_table_set_text(t, row, 2, s->component);
            vp_table_set_int(t, row, 3, (int64_t)s->n);
            const vp_asc_mem_point *pa = &s->p[s->peak_alloc], *pr = &s->p[s->peak_reserved];
            if (pa->allocated >= 0) {
                vp_table_set_int(t, row, 4, pa->allocated);
                set_asc_time(t, row, 5, t0, pa->ts);
            }
            if (pr->reserved >= 0) {
                vp_table_set_int(t, row, 7, pr->reserved);
                set_asc_time(t, row, 8, t0, pr->ts);
            }
            put_bytes(t, row, 10, s->p[s->n - 1].allocated);
            put_bytes(t, row, 11, s->p[s->n - 1].reserved);
        }
    }
    if (mod)
        vp_table_add_note(t, "npu_module_mem.csv: reservations of the driver's modules; -1 (only "
                             "a release seen) counts as missing");
    else
        vp_table_add_note(t, "memory_record.csv: PTA = torch_npu's caching allocator, GE = the "
                             "graph engine, PTA+GE = both, APP = the whole process (reserved "
                             "only); the earliest row wins a tie");
    return t;
}

/* Per allocator (PTA: aten::, GE: cann::), its peak in operator_memory.csv
 * (the row with the highest Allocation Total Allocated, the earliest on a
 * tie) and the blocks alive then (allocated at or before it, released
 * after it or never), summed per operator. */
static vp_table *asc_ops_table(const mem_opts *o, const vp_asc_rankmem *in, size_t nin)
{
    vp_table *t = vp_table_new("operators_at_peak");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Component", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Peak Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Peak Time (ns since epoch)", VP_COL_CLOCK, 0);
    vp_table_add_col(t, "Peak Since Start", VP_COL_NS, 0);
    vp_table_add_col(t, "Operator", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Blocks", VP_COL_INT, 0);
    vp_table_add_col(t, "Size", VP_COL_BYTES, 0);
    static const char *const comps[] = {"PTA", "GE", ""};
    int64_t t0 = asc_ops_start(in, nin);
    for (size_t r = 0; r < nin; r++) {
        const vp_asc_opmem *v = in[r].ops;
        size_t n = in[r].nops;
        for (int c = 0; c < 3; c++) {
            int64_t total, at;
            vp_asc_opsum *sums;
            size_t ns;
            if (!vp_asc_ops_at_peak(v, n, comps[c], &total, &at, &sums, &ns))
                continue;
            size_t shown = o->top == 0 || (size_t)o->top > ns ? ns : (size_t)o->top;
            for (size_t j = 0; j < shown; j++) {
                size_t row = vp_table_add_row(t);
                vp_table_set_int(t, row, 0, in[r].rank);
                vp_table_set_text(t, row, 1, comps[c][0] ? comps[c] : "other");
                vp_table_set_int(t, row, 2, total);
                set_asc_time(t, row, 3, t0, at);
                vp_table_set_text(t, row, 5, sums[j].name);
                vp_table_set_int(t, row, 6, sums[j].blocks);
                vp_table_set_int(t, row, 7, sums[j].bytes);
            }
            free(sums);
        }
    }
    vp_table_add_note(t, "operator_memory.csv: each allocator's peak is its row with the highest "
                         "Allocation Total Allocated; the blocks alive then (allocated by then, "
                         "released after), summed per operator; aten:: = PTA, cann:: = GE");
    if (vp_table_rows(t) == 0)
        vp_table_add_note(t, "no operator_memory.csv rows with allocation totals");
    return t;
}

static vp_table *asc_timeline_table(const vp_asc_rankmem *in, size_t nin)
{
    vp_table *t = vp_table_new("timeline");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Device", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Component", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Time (ns since epoch)", VP_COL_CLOCK, 0);
    vp_table_add_col(t, "Since Start", VP_COL_NS, 0);
    vp_table_add_col(t, "Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Reserved", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Active", VP_COL_BYTES, 0);
    int64_t t0 = asc_series_start(in, nin, 0);
    for (size_t r = 0; r < nin; r++)
        for (size_t i = 0; i < in[r].rec.n; i++) {
            const vp_asc_mem_series *s = &in[r].rec.s[i];
            for (size_t k = 0; k < s->n; k++) {
                size_t row = vp_table_add_row(t);
                vp_table_set_int(t, row, 0, in[r].rank);
                vp_table_set_text(t, row, 1, s->device);
                vp_table_set_text(t, row, 2, s->component);
                set_asc_time(t, row, 3, t0, s->p[k].ts);
                put_bytes(t, row, 5, s->p[k].allocated);
                put_bytes(t, row, 6, s->p[k].reserved);
                put_bytes(t, row, 7, s->p[k].active);
            }
        }
    return t;
}

size_t vp_memview_ascend(const vp_asc_rankmem *in, size_t nin, const vp_memview_opts *o,
                         vp_table **tables)
{
    size_t nt = 0;
    int has_rec = 0, has_mod = 0, has_ops = 0;
    for (size_t r = 0; r < nin; r++) {
        has_rec |= in[r].has_rec;
        has_mod |= in[r].has_mod;
        has_ops |= in[r].has_ops;
    }
    if (o->timeline) {
        tables[nt++] = asc_timeline_table(in, nin);
        return nt;
    }
    if (has_rec)
        tables[nt++] = asc_record_table(in, nin, "npu_memory");
    if (has_ops)
        tables[nt++] = asc_ops_table(o, in, nin);
    if (has_mod)
        tables[nt++] = asc_record_table(in, nin, "npu_module_mem");
    return nt;
}

/* ---- export_memory_timeline output ---- */

int vp_memview_plot_memtimeline(FILE *out, const vp_memtimeline *tl, const char *title)
{
    double *x = vp_malloc((tl->n ? tl->n : 1) * sizeof *x);
    int64_t t0 = INT64_MAX;
    for (size_t k = 0; k < tl->n; k++)
        if (tl->ts[k] >= 0 && tl->ts[k] < t0)
            t0 = tl->ts[k];
    for (size_t k = 0; k < tl->n; k++)
        x[k] = tl->ts[k] < 0 || t0 == INT64_MAX ? 0.0 : (double)(tl->ts[k] - t0) / 1e9;
    char b[32], pl[96];
    vp_human_bytes(b, sizeof b, tl->n ? (double)tl->total[tl->peak] : 0);
    snprintf(pl, sizeof pl, "peak %s", b);
    vp_plot_series sr = {"all categories", tl->n, x, tl->total, NULL, tl->peak, pl};
    int rc = vp_plot_svg(out, title, "time since profiling started (s)", "", &sr, tl->n ? 1 : 0);
    free(x);
    return rc;
}

vp_table *vp_memview_memtimeline(const vp_memtimeline *tlp, const vp_memview_opts *o)
{
    const vp_memtimeline tl = *tlp;
    vp_table *t;
    if (o->timeline) {
        t = vp_table_new("timeline");
        vp_table_add_col(t, "ts (ns)", VP_COL_INT, 0);
        vp_table_add_col(t, "Total", VP_COL_BYTES, 0);
        for (size_t k = 0; k < tl.n; k++) {
            size_t row = vp_table_add_row(t);
            vp_table_set_int(t, row, 0, tl.ts[k]);
            vp_table_set_int(t, row, 1, tl.total[k]);
        }
        vp_table_add_note(t, "ts -1: existed before profiling started");
    } else {
        t = vp_table_new("categories");
        vp_table_add_col(t, "Category", VP_COL_TEXT, 0);
        vp_table_add_col(t, "At Peak", VP_COL_BYTES, 0);
        vp_table_add_col(t, "Category Peak", VP_COL_BYTES, 0);
        int64_t total = 0;
        for (int k = 0; k < VP_MEMCAT_COUNT; k++) {
            size_t row = vp_table_add_row(t);
            vp_table_set_text(t, row, 0, vp_memcat_names[k]);
            vp_table_set_int(t, row, 1, tl.at_peak[k]);
            vp_table_set_int(t, row, 2, tl.cat_peak[k]);
            total += tl.at_peak[k];
        }
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, "total");
        vp_table_set_int(t, row, 1, total);
        if (tl.n)
            vp_table_add_note(t, "peak at ts %lld ns (point %zu of %zu, from %s)",
                              (long long)tl.ts[tl.peak], tl.peak + 1, tl.n,
                              tl.raw ? "the raw [t_ns, action, bytes, category] list"
                                     : "the [times, sizes] pair");
        else
            vp_table_add_note(t, "the memory timeline is empty");
    }
    return t;
}
