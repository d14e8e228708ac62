/* vprof memory: CUDA memory snapshots.
 *
 * Per device: the allocator's state when the snapshot was taken, the peak
 * of active bytes over the recorded trace and what was alive then, OOM
 * events, leak candidates, the timeline (as a table or an SVG chart).
 * The numbers are defined in include/vprof/memsnap.h and docs/memory.md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/ascend_cmd.h"
#include "cmd/cli.h"
#include "cmd/scale.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_memory.h"
#include "vprof/error.h"
#include "vprof/memevents.h"
#include "vprof/memsnap.h"
#include "vprof/memtimeline.h"
#include "vprof/plot.h"
#include "vprof/source.h"
#include "vprof/trace.h"
#include "vprof/table.h"
#include "vprof/util.h"

const char cmd_memory_usage[] =
    "usage: vprof memory [options] SNAPSHOT|TRACE...|TIMELINE\n"
    "\n"
    "Reads a CUDA memory snapshot (the pickle of torch.cuda.memory._dump_snapshot,\n"
    "or of torch.cuda.memory_snapshot()) and reports per device: the allocator's\n"
    "state when it was taken (reserved, allocated, free bytes inside segments,\n"
    "fragmentation), the peak of active bytes over the recorded trace with the\n"
    "largest allocations alive at that moment, and out-of-memory events.\n"
    "Sizes are requested bytes, as in PyTorch's memory viewer.  The pickle is\n"
    "decoded by vprof itself: nothing in it is ever executed.\n"
    "\n"
    "A Chrome/Kineto trace recorded with profile_memory=True gives, from its\n"
    "[memory] events, the peak allocated and reserved bytes per device with the\n"
    "time and the CPU op running then, and its [OutOfMemory] events.  The output\n"
    "of profiler.export_memory_timeline() (.raw.json.gz or .json.gz) gives the\n"
    "peak and the bytes per category (parameter, activation, gradient ...) then.\n"
    "Several traces (the ranks of a run, or a profiler schedule's cycles) give the\n"
    "peaks per device over all of them, read -j at a time (the same output for\n"
    "every -j); --timeline and --plot read one trace.\n"
    "The input kind is told from the content; plain or gzip; - is standard input.\n"
    "\n"
    "Ascend profiles (docs/ascend.md): a *_ascend_pt directory (or a folder of them)\n"
    "or its memory_record.csv, operator_memory.csv, npu_module_mem.csv: peak allocated\n"
    "and reserved per component (PTA, GE, APP ...) over time, the operators holding\n"
    "the most at each allocator's peak, the driver modules' reservations; --timeline\n"
    "and --plot as for CUDA.\n"
    "\n"
    "options:\n"
    "  --top N            rows per device in the top tables (default 10, 0 = all)\n"
    "  --by tensor|site   list the allocations alive at the peak (default), or\n"
    "                     sum them per allocation site\n"
    "  --stack N          frames that make a site (default 1: the innermost\n"
    "                     Python frame, file.py:line:function)\n"
    "  --all-frames       C++ and unnamed frames count too\n"
    "  --leaks            also list allocations made during the trace and still\n"
    "                     alive at its end, per site\n"
    "  --timeline         print active and reserved bytes after every trace event\n"
    "                     instead of the summary\n"
    "  --plot FILE.svg    also draw active and reserved bytes over the trace\n"
    "  --device N         only device N\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write the tables to FILE instead of standard output\n"
    "      --full-names   never shorten long text\n"
    "  -q, --quiet        no warnings\n"
    "  -h, --help         this help\n"
    VP_SCALE_USAGE
    "\n"
    "Exit status: 0 ok, 2 usage error, 3 unreadable or invalid input (also a\n"
    "pickle that asks to run code).\n"
    "\n"
    "Examples:\n"
    "  vprof memory snapshot.pickle\n"
    "  vprof memory --by site --top 20 snapshot.pickle\n"
    "  vprof memory --plot mem.svg trace.json.gz\n"
    "  vprof memory -j 8 run/rank*.json.gz\n";

enum {
    OPT_FIRST = VP_OPT_FIRST_CMD,
    OPT_BY,
    OPT_STACK,
    OPT_ALL_FRAMES,
    OPT_LEAKS,
    OPT_TIMELINE,
    OPT_PLOT,
    OPT_DEVICE,
};

typedef struct mem_opts {
    vp_common_opts common;
    long top;
    int by_site;
    int stack_depth;
    int all_frames;
    int leaks;
    int timeline;
    const char *plot;
    int device;          /* -1 = all */
} mem_opts;

static int parse_count(const char *arg, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

#define SITE_MAX 8192

/* The site of a stack, as the tables show it; "" when no frame is shown. */
static const char *site_of(const vp_memsnap *s, const mem_opts *o, uint32_t stack, char *buf)
{
    vp_ms_site(s, stack, o->stack_depth, o->all_frames, buf, SITE_MAX);
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

/* Allocations grouped by site: bytes, count, in the order of bytes. */
typedef struct site_sum {
    const char *site;
    int64_t bytes;
    int64_t count;
} site_sum;

static int cmp_site_sum(const void *a, const void *b)
{
    const site_sum *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->site, y->site);
}

static site_sum *group_by_site(const vp_memsnap *s, const mem_opts *o, const vp_ms_live *lv,
                               size_t n, size_t *nsums, vp_strmap **keep)
{
    vp_strmap *m = vp_strmap_new();
    site_sum *sums = NULL;
    size_t cnt = 0, cap = 0;
    char *buf = vp_malloc(SITE_MAX);
    for (size_t i = 0; i < n; i++) {
        const char *site = site_of(s, o, lv[i].stack, buf);
        int inserted;
        void **slot = vp_strmap_upsert(m, site, strlen(site), &inserted);
        if (inserted) {
            if (cnt == cap) {
                cap = cap ? cap * 2 : 64;
                sums = vp_realloc(sums, cap * sizeof *sums);
            }
            sums[cnt] = (site_sum){.bytes = 0, .count = 0};
            *slot = (void *)(uintptr_t)(cnt + 1);
            cnt++;
        }
        size_t k = (size_t)(uintptr_t)*slot - 1;
        sums[k].bytes += lv[i].size;
        sums[k].count++;
    }
    /* The map owns the key strings; point at them once it stops growing. */
    for (size_t i = 0; i < vp_strmap_count(m); i++) {
        size_t len;
        const char *key = vp_strmap_key(m, i, &len);
        sums[(size_t)(uintptr_t)vp_strmap_value(m, i) - 1].site = key;
    }
    free(buf);
    if (cnt)
        qsort(sums, cnt, sizeof *sums, cmp_site_sum);
    *nsums = cnt;
    *keep = m;
    return sums;
}

static int selected(const mem_opts *o, const vp_ms_device *d)
{
    return o->device < 0 || d->id == o->device;
}

/* ---- the tables ---- */

static vp_table *state_table(const vp_memsnap *s, const mem_opts *o, const vp_ms_stats *st)
{
    vp_table *t = vp_table_new("state");
    int c_dev = vp_table_add_col(t, "Device", VP_COL_INT, 0);
    int c_seg = vp_table_add_col(t, "Segments", VP_COL_INT, 0);
    int c_blk = vp_table_add_col(t, "Blocks", VP_COL_INT, 0);
    int c_res = vp_table_add_col(t, "Reserved", VP_COL_BYTES, 0);
    int c_all = vp_table_add_col(t, "Allocated", VP_COL_BYTES, 0);
    int c_req = vp_table_add_col(t, "Requested", VP_COL_BYTES, 0);
    int c_pend = vp_table_add_col(t, "Pending Free", VP_COL_BYTES, 0);
    int c_ina = vp_table_add_col(t, "Inactive", VP_COL_BYTES, 0);
    int c_big = vp_table_add_col(t, "Largest Inactive", VP_COL_BYTES, 0);
    int c_frag = vp_table_add_col(t, "Fragmentation", VP_COL_PERCENT, 1);
    int c_waste = vp_table_add_col(t, "Rounding Waste", VP_COL_BYTES, 0);
    for (size_t i = 0; i < s->ndevices; i++) {
        if (!selected(o, &s->devices[i]))
            continue;
        size_t r = vp_table_add_row(t);
        vp_table_set_int(t, r, c_dev, st[i].device);
        vp_table_set_int(t, r, c_seg, (int64_t)st[i].segments);
        vp_table_set_int(t, r, c_blk, (int64_t)st[i].blocks);
        vp_table_set_int(t, r, c_res, st[i].reserved);
        vp_table_set_int(t, r, c_all, st[i].allocated);
        vp_table_set_int(t, r, c_req, st[i].requested);
        vp_table_set_int(t, r, c_pend, st[i].pending_free);
        vp_table_set_int(t, r, c_ina, st[i].inactive);
        vp_table_set_int(t, r, c_big, st[i].largest_inactive);
        vp_table_set_double(t, r, c_frag, 100.0 * st[i].fragmentation);
        vp_table_set_int(t, r, c_waste, st[i].rounding_waste);
    }
    if (s->ndevices == 0)
        vp_table_add_note(t, "no device has segments or trace entries");
    return t;
}

static vp_table *peak_table(const vp_memsnap *s, const mem_opts *o, const vp_ms_stats *st)
{
    vp_table *t = vp_table_new("peak");
    int c_dev = vp_table_add_col(t, "Device", VP_COL_INT, 0);
    int c_ent = vp_table_add_col(t, "Trace Entries", VP_COL_INT, 0);
    int c_base = vp_table_add_col(t, "Baseline", VP_COL_BYTES, 0);
    int c_peak = vp_table_add_col(t, "Peak Active", VP_COL_BYTES, 0);
    int c_idx = vp_table_add_col(t, "Peak Event", VP_COL_INT, 0);
    int c_time = vp_table_add_col(t, "Peak Time (us)", VP_COL_INT, 0);
    int c_final = vp_table_add_col(t, "Final Active", VP_COL_BYTES, 0);
    int c_pres = vp_table_add_col(t, "Peak Reserved", VP_COL_BYTES, 0);
    int c_ooms = vp_table_add_col(t, "OOMs", VP_COL_INT, 0);
    int before = 0;
    for (size_t i = 0; i < s->ndevices; i++) {
        if (!selected(o, &s->devices[i]))
            continue;
        size_t r = vp_table_add_row(t);
        vp_table_set_int(t, r, c_dev, st[i].device);
        vp_table_set_int(t, r, c_ent, (int64_t)st[i].trace_entries);
        vp_table_set_int(t, r, c_base, st[i].baseline);
        vp_table_set_int(t, r, c_peak, st[i].peak_active);
        vp_table_set_int(t, r, c_idx, st[i].peak_index);
        if (st[i].peak_has_time)
            vp_table_set_int(t, r, c_time, st[i].peak_time_us);
        vp_table_set_int(t, r, c_final, st[i].final_active);
        vp_table_set_int(t, r, c_pres, st[i].peak_reserved);
        vp_table_set_int(t, r, c_ooms, (int64_t)st[i].ooms);
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
    vp_table *t = vp_table_new(o->by_site ? "sites_at_peak" : "top_at_peak");
    int c_dev = vp_table_add_col(t, "Device", VP_COL_INT, 0);
    int c_size = vp_table_add_col(t, o->by_site ? "Bytes" : "Size", VP_COL_BYTES, 0);
    int c_cnt = -1, c_addr = -1, c_ev = -1;
    if (o->by_site) {
        c_cnt = vp_table_add_col(t, "Allocations", VP_COL_INT, 0);
    } else {
        c_addr = vp_table_add_col(t, "Address", VP_COL_TEXT, 0);
        c_ev = vp_table_add_col(t, "Alloc Event", VP_COL_INT, 0);
    }
    int c_site = vp_table_add_col(t, "Site", VP_COL_TEXT, 0);
    char *buf = vp_malloc(SITE_MAX);
    int before = 0;
    for (size_t i = 0; i < s->ndevices; i++) {
        const vp_ms_device *d = &s->devices[i];
        if (!selected(o, d))
            continue;
        vp_ms_live *lv;
        size_t n = vp_ms_live_at(s, d, st[i].peak_index, &lv);
        if (o->by_site) {
            size_t ns;
            vp_strmap *keys;
            site_sum *sums = group_by_site(s, o, lv, n, &ns, &keys);
            for (int64_t k = 0; k < limit_rows(o, ns); k++) {
                size_t r = vp_table_add_row(t);
                vp_table_set_int(t, r, c_dev, d->id);
                vp_table_set_int(t, r, c_size, sums[k].bytes);
                vp_table_set_int(t, r, c_cnt, sums[k].count);
                set_site(t, r, c_site, sums[k].site);
            }
            free(sums);
            vp_strmap_free(keys);
        } else {
            for (int64_t k = 0; k < limit_rows(o, n); k++) {
                size_t r = vp_table_add_row(t);
                char addr[32];
                snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)lv[k].addr);
                vp_table_set_int(t, r, c_dev, d->id);
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
    vp_table *t = vp_table_new("leaks");
    int c_dev = vp_table_add_col(t, "Device", VP_COL_INT, 0);
    int c_bytes = vp_table_add_col(t, "Bytes", VP_COL_BYTES, 0);
    int c_cnt = vp_table_add_col(t, "Allocations", VP_COL_INT, 0);
    int c_site = vp_table_add_col(t, "Site", VP_COL_TEXT, 0);
    for (size_t i = 0; i < s->ndevices; i++) {
        const vp_ms_device *d = &s->devices[i];
        if (!selected(o, d))
            continue;
        vp_ms_live *lv;
        size_t n = vp_ms_leaks(s, d, &lv), ns;
        vp_strmap *keys;
        site_sum *sums = group_by_site(s, o, lv, n, &ns, &keys);
        for (int64_t k = 0; k < limit_rows(o, ns); k++) {
            size_t r = vp_table_add_row(t);
            vp_table_set_int(t, r, c_dev, d->id);
            vp_table_set_int(t, r, c_bytes, sums[k].bytes);
            vp_table_set_int(t, r, c_cnt, sums[k].count);
            set_site(t, r, c_site, sums[k].site);
        }
        free(sums);
        vp_strmap_free(keys);
        free(lv);
    }
    vp_table_add_note(t, "allocated during the trace and still alive at its end");
    return t;
}

static vp_table *oom_table(const vp_memsnap *s, const mem_opts *o)
{
    vp_table *t = vp_table_new("oom");
    int c_dev = vp_table_add_col(t, "Device", VP_COL_INT, 0);
    int c_ev = vp_table_add_col(t, "Event", VP_COL_INT, 0);
    int c_time = vp_table_add_col(t, "Time (us)", VP_COL_INT, 0);
    int c_req = vp_table_add_col(t, "Requested", VP_COL_BYTES, 0);
    int c_free = vp_table_add_col(t, "Device Free", VP_COL_BYTES, 0);
    int c_act = vp_table_add_col(t, "Active", VP_COL_BYTES, 0);
    int c_res = vp_table_add_col(t, "Reserved", VP_COL_BYTES, 0);
    int c_site = vp_table_add_col(t, "Site", VP_COL_TEXT, 0);
    char *buf = vp_malloc(SITE_MAX);
    for (size_t i = 0; i < s->ndevices; i++) {
        const vp_ms_device *d = &s->devices[i];
        if (!selected(o, d))
            continue;
        int64_t *active = NULL, *reserved = NULL;
        for (size_t k = 0; k < d->nevents; k++) {
            const vp_ms_event *e = &d->events[k];
            if (e->action != VP_MS_OOM)
                continue;
            if (!active)
                vp_ms_timeline(s, d, &active, &reserved);
            size_t r = vp_table_add_row(t);
            vp_table_set_int(t, r, c_dev, d->id);
            vp_table_set_int(t, r, c_ev, (int64_t)k);
            if (e->has_time)
                vp_table_set_int(t, r, c_time, e->time_us);
            vp_table_set_int(t, r, c_req, e->size);
            vp_table_set_int(t, r, c_free, (int64_t)e->addr);
            vp_table_set_int(t, r, c_act, active[k]);     /* just before it */
            vp_table_set_int(t, r, c_res, reserved[k]);
            set_site(t, r, c_site, site_of(s, o, e->stack, buf));
        }
        free(active);
        free(reserved);
    }
    free(buf);
    return t;
}

static vp_table *timeline_table(const vp_memsnap *s, const mem_opts *o)
{
    vp_table *t = vp_table_new("timeline");
    int c_dev = vp_table_add_col(t, "Device", VP_COL_INT, 0);
    int c_ev = vp_table_add_col(t, "Event", VP_COL_INT, 0);
    int c_time = vp_table_add_col(t, "Time (us)", VP_COL_INT, 0);
    int c_act = vp_table_add_col(t, "Action", VP_COL_TEXT, 0);
    int c_size = vp_table_add_col(t, "Size", VP_COL_BYTES, 0);
    int c_active = vp_table_add_col(t, "Active", VP_COL_BYTES, 0);
    int c_res = vp_table_add_col(t, "Reserved", VP_COL_BYTES, 0);
    for (size_t i = 0; i < s->ndevices; i++) {
        const vp_ms_device *d = &s->devices[i];
        if (!selected(o, d))
            continue;
        int64_t *active, *reserved;
        vp_ms_timeline(s, d, &active, &reserved);
        for (size_t k = 0; k <= d->nevents; k++) {
            size_t r = vp_table_add_row(t);
            vp_table_set_int(t, r, c_dev, d->id);
            vp_table_set_int(t, r, c_ev, (int64_t)k - 1);
            if (k == 0) {
                vp_table_set_text(t, r, c_act, "start");
            } else {
                const vp_ms_event *e = &d->events[k - 1];
                if (e->has_time)
                    vp_table_set_int(t, r, c_time, e->time_us);
                vp_table_set_text(t, r, c_act, vp_ms_action_name(e->action));
                vp_table_set_int(t, r, c_size, e->size);
            }
            vp_table_set_int(t, r, c_active, active[k]);
            vp_table_set_int(t, r, c_res, reserved[k]);
        }
        free(active);
        free(reserved);
    }
    vp_table_add_note(t, "Event -1 is the state before the first trace event");
    return t;
}

typedef int (*draw_fn)(FILE *out, const void *what, const char *title);

static int draw_snapshot(FILE *out, const void *what, const char *title)
{
    return vp_ms_plot_svg(out, what, title);
}

static int write_plot(const char *path, const char *input, draw_fn draw, const void *what)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "vprof: cannot write %s: %s\n", path, strerror(errno));
        return VP_EXIT_INPUT;
    }
    const char *base = strrchr(input, '/');
    char title[512];
    snprintf(title, sizeof title, "vprof memory: %s", base ? base + 1 : input);
    int rc = draw(f, what, title);
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0) {
        fprintf(stderr, "vprof: cannot write %s: %s\n", path, strerror(errno));
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

/* ---- traces: [memory] events ---- */

static int draw_trace(FILE *out, const void *what, const char *title)
{
    const vp_memevents *m = what;
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
    for (size_t i = 0; i < n; i++) {
        free((void *)sr[i].label);
        free((void *)sr[i].peak_label);
        free((void *)sr[i].x);
        free((void *)sr[i].solid);
        free((void *)sr[i].dashed);
    }
    free(sr);
    return rc;
}

static int trace_device_selected(const mem_opts *o, const vp_mem_device *d)
{
    return o->device < 0 || (d->type != 0 && d->id == o->device);
}

/* Reads the trace once for the peaks (and the points, if needed), then once
 * more for the CPU op running at each peak: holding every op of a long
 * trace to look one up later would cost memory in proportion to the trace.
 * NULL after printing the error. */
static vp_memevents *trace_peaks(const mem_opts *o, const char *file, const char *path)
{
    vp_error err = {0};
    vp_trace_opts topts = {.partial = o->common.partial, .progress = 1, .name = path};
    vp_trace *t = vp_trace_open(file, &topts, &err);
    if (!t) {
        vp_error_print(&err);
        return NULL;
    }
    vp_memevents *m = vp_memevents_new(o->timeline || o->plot);
    vp_event ev;
    int r;
    while ((r = vp_trace_next(t, &ev, &err)) == 1)
        vp_memevents_observe(m, &ev);
    vp_trace_close(t);
    if (r < 0) {
        vp_error_print(&err);
        vp_memevents_free(m);
        return NULL;
    }
    vp_memevents_finish(m);
    if (m->bad)
        vp_warn("%s: %llu [memory] events without Device Type, Device Id, Bytes and the totals "
                "were skipped", path, (unsigned long long)m->bad);

    vp_op_finder *ops = vp_calloc(m->ndevices ? m->ndevices : 1, sizeof *ops);
    for (size_t i = 0; i < m->ndevices; i++)
        ops[i] = (vp_op_finder){.pid = m->devices[i].peak_pid, .tid = m->devices[i].peak_tid,
                                .ts = m->devices[i].peak_alloc.ts};
    if (m->ndevices && !o->timeline) {
        t = vp_trace_open(file, &topts, &err);
        while (t && (r = vp_trace_next(t, &ev, &err)) == 1)
            for (size_t i = 0; i < m->ndevices; i++)
                vp_op_finder_observe(&ops[i], &ev);
        vp_trace_close(t);
    }
    for (size_t i = 0; i < m->ndevices; i++)
        m->devices[i].peak_op = ops[i].name;
    free(ops);
    return m;
}

/* The tables (and the plot) of a trace's, or several traces', memory
 * events; m is finished. */
static int emit_trace(const mem_opts *o, const vp_memevents *m, const char *path)
{
    int rc = VP_EXIT_OK;
    if (o->plot)
        rc = write_plot(o->plot, path, draw_trace, m);
    vp_table *tables[2];
    size_t nt = 0;
    if (o->timeline) {
        vp_table *tl = vp_table_new("timeline");
        vp_table_add_col(tl, "Device", VP_COL_TEXT, 0);
        vp_table_add_col(tl, "ts (ns)", VP_COL_INT, 0);
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
                vp_table_set_int(tl, row, 1, d->points[k].ts);
                vp_table_set_int(tl, row, 2, d->points[k].bytes);
                vp_table_set_int(tl, row, 3, d->points[k].allocated);
                vp_table_set_int(tl, row, 4, d->points[k].reserved);
            }
        }
        tables[nt++] = tl;
    } else {
        vp_table *st = vp_table_new("memory");
        vp_table_add_col(st, "Device", VP_COL_TEXT, 0);
        vp_table_add_col(st, "Events", VP_COL_INT, 0);
        vp_table_add_col(st, "Peak Allocated", VP_COL_BYTES, 0);
        vp_table_add_col(st, "Peak ts (ns)", VP_COL_INT, 0);
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
            vp_table_set_int(st, row, 3, d->peak_alloc.ts);
            if (d->peak_op)
                vp_table_set_text(st, row, 4, d->peak_op);
            vp_table_set_int(st, row, 5, d->peak_reserved.reserved);
            vp_table_set_int(st, row, 6, d->last.allocated);
            vp_table_set_int(st, row, 7, d->last.reserved);
        }
        if (m->ndevices == 0)
            vp_table_add_note(st, "no [memory] events: record with torch.profiler.profile(profile_memory=True)");
        tables[nt++] = st;
        if (m->nooms) {
            vp_table *oo = vp_table_new("out_of_memory");
            vp_table_add_col(oo, "Device", VP_COL_TEXT, 0);
            vp_table_add_col(oo, "ts (ns)", VP_COL_INT, 0);
            vp_table_add_col(oo, "Requested", VP_COL_BYTES, 0);
            vp_table_add_col(oo, "Allocated", VP_COL_BYTES, 0);
            vp_table_add_col(oo, "Reserved", VP_COL_BYTES, 0);
            for (size_t i = 0; i < m->nooms; i++) {
                char dev[32];
                vp_mem_device_name(m->ooms[i].type, m->ooms[i].id, dev, sizeof dev);
                size_t row = vp_table_add_row(oo);
                vp_table_set_text(oo, row, 0, dev);
                vp_table_set_int(oo, row, 1, m->ooms[i].ts);
                vp_table_set_int(oo, row, 2, m->ooms[i].bytes);
                vp_table_set_int(oo, row, 3, m->ooms[i].allocated);
                vp_table_set_int(oo, row, 4, m->ooms[i].reserved);
            }
            tables[nt++] = oo;
        }
    }
    if (rc == VP_EXIT_OK)
        rc = vp_emit_tables(&o->common, tables, nt, "vprof.memory/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
    return rc;
}

static int report_trace(const mem_opts *o, const char *file, const char *path)
{
    vp_memevents *m = trace_peaks(o, file, path);
    if (!m)
        return VP_EXIT_INPUT;
    int rc = emit_trace(o, m, path);
    vp_memevents_free(m);
    return rc;
}

/* ---- Ascend: memory_record.csv, operator_memory.csv, npu_module_mem.csv ---- */

typedef struct asc_mem_input {
    long rank;
    vp_asc_mem rec, mod;
    vp_asc_opmem *ops;
    size_t nops;
    int has_rec, has_mod, has_ops;
} asc_mem_input;

static int draw_ascend(FILE *out, const void *what, const char *title)
{
    const asc_mem_input *in = what;
    size_t nin = 0;
    while (in[nin].rank >= 0)
        nin++;
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
    for (size_t i = 0; i < n; i++) {
        free((void *)sr[i].label);
        free((void *)sr[i].peak_label);
        free((void *)sr[i].x);
        free((void *)sr[i].solid);
        free((void *)sr[i].dashed);
    }
    free(sr);
    return rc;
}

static int read_asc_mem(asc_mem_input *in, vp_asc_file kind, const char *path)
{
    vp_error err = {0};
    int rc = 0;
    if (kind == VP_ASC_MEMORY_RECORD) {
        rc = vp_asc_read_memory(path, &in->rec, &err);
        in->has_rec = 1;
    } else if (kind == VP_ASC_MODULE_MEM) {
        rc = vp_asc_read_memory(path, &in->mod, &err);
        in->has_mod = 1;
    } else if (kind == VP_ASC_OPERATOR_MEMORY) {
        rc = vp_asc_read_opmem(path, &in->ops, &in->nops, &err);
        in->has_ops = 1;
    }
    if (rc != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

static void put_bytes(vp_table *t, size_t row, int col, int64_t v)
{
    if (v >= 0)
        vp_table_set_int(t, row, col, v);
}

static vp_table *asc_record_table(const asc_mem_input *in, size_t nin, const char *name)
{
    vp_table *t = vp_table_new(name);
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Device", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Component", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Points", VP_COL_INT, 0);
    vp_table_add_col(t, "Peak Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Peak Allocated ts (ns)", VP_COL_INT, 0);
    vp_table_add_col(t, "Peak Reserved", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Peak Reserved ts (ns)", VP_COL_INT, 0);
    vp_table_add_col(t, "Final Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Final Reserved", VP_COL_BYTES, 0);
    int mod = strcmp(name, "npu_module_mem") == 0;
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
                vp_table_set_int(t, row, 5, pa->ts);
            }
            if (pr->reserved >= 0) {
                vp_table_set_int(t, row, 6, pr->reserved);
                vp_table_set_int(t, row, 7, pr->ts);
            }
            put_bytes(t, row, 8, s->p[s->n - 1].allocated);
            put_bytes(t, row, 9, s->p[s->n - 1].reserved);
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

typedef struct op_sum {
    const char *name;
    int64_t bytes, blocks;
} op_sum;

static int cmp_op_sum(const void *a, const void *b)
{
    const op_sum *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Per allocator (PTA: aten::, GE: cann::), its peak in operator_memory.csv
 * (the row with the highest Allocation Total Allocated, the earliest on a
 * tie) and the blocks alive then (allocated at or before it, released
 * after it or never), summed per operator. */
static vp_table *asc_ops_table(const mem_opts *o, const asc_mem_input *in, size_t nin)
{
    vp_table *t = vp_table_new("operators_at_peak");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Component", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Peak Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Peak ts (ns)", VP_COL_INT, 0);
    vp_table_add_col(t, "Operator", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Blocks", VP_COL_INT, 0);
    vp_table_add_col(t, "Size", VP_COL_BYTES, 0);
    static const char *const comps[] = {"PTA", "GE", ""};
    for (size_t r = 0; r < nin; r++) {
        const vp_asc_opmem *v = in[r].ops;
        size_t n = in[r].nops;
        for (int c = 0; c < 3; c++) {
            size_t peak = SIZE_MAX;
            for (size_t i = 0; i < n; i++)
                if (strcmp(vp_asc_opmem_component(v[i].name), comps[c]) == 0 &&
                    v[i].total_alloc >= 0 && v[i].alloc >= 0 &&
                    (peak == SIZE_MAX || v[i].total_alloc > v[peak].total_alloc ||
                     (v[i].total_alloc == v[peak].total_alloc && v[i].alloc < v[peak].alloc)))
                    peak = i;
            if (peak == SIZE_MAX)
                continue;
            int64_t at = v[peak].alloc;
            op_sum *sums = vp_calloc(n, sizeof *sums);
            size_t ns = 0;
            for (size_t i = 0; i < n; i++) {
                if (strcmp(vp_asc_opmem_component(v[i].name), comps[c]) != 0 || v[i].size <= 0)
                    continue;
                if (!((v[i].alloc < 0 || v[i].alloc <= at) && (v[i].release < 0 || v[i].release > at)))
                    continue;
                size_t j = 0;
                while (j < ns && strcmp(sums[j].name, v[i].name) != 0)
                    j++;
                if (j == ns)
                    sums[ns++] = (op_sum){v[i].name, 0, 0};
                sums[j].bytes += v[i].size;
                sums[j].blocks++;
            }
            if (ns)
                qsort(sums, ns, sizeof *sums, cmp_op_sum);
            size_t shown = o->top == 0 || (size_t)o->top > ns ? ns : (size_t)o->top;
            for (size_t j = 0; j < shown; j++) {
                size_t row = vp_table_add_row(t);
                vp_table_set_int(t, row, 0, in[r].rank);
                vp_table_set_text(t, row, 1, comps[c][0] ? comps[c] : "other");
                vp_table_set_int(t, row, 2, v[peak].total_alloc);
                vp_table_set_int(t, row, 3, at);
                vp_table_set_text(t, row, 4, sums[j].name);
                vp_table_set_int(t, row, 5, sums[j].blocks);
                vp_table_set_int(t, row, 6, sums[j].bytes);
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

static vp_table *asc_timeline_table(const asc_mem_input *in, size_t nin)
{
    vp_table *t = vp_table_new("timeline");
    vp_table_add_col(t, "Rank", VP_COL_INT, 0);
    vp_table_add_col(t, "Device", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Component", VP_COL_TEXT, 0);
    vp_table_add_col(t, "ts (ns)", VP_COL_INT, 0);
    vp_table_add_col(t, "Allocated", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Reserved", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Active", VP_COL_BYTES, 0);
    for (size_t r = 0; r < nin; r++)
        for (size_t i = 0; i < in[r].rec.n; i++) {
            const vp_asc_mem_series *s = &in[r].rec.s[i];
            for (size_t k = 0; k < s->n; k++) {
                size_t row = vp_table_add_row(t);
                vp_table_set_int(t, row, 0, in[r].rank);
                vp_table_set_text(t, row, 1, s->device);
                vp_table_set_text(t, row, 2, s->component);
                vp_table_set_int(t, row, 3, s->p[k].ts);
                put_bytes(t, row, 4, s->p[k].allocated);
                put_bytes(t, row, 5, s->p[k].reserved);
                put_bytes(t, row, 6, s->p[k].active);
            }
        }
    return t;
}

/* A directory (every rank's memory files) or one of the files. */
static int report_ascend(const mem_opts *o, const char *path, int is_dir, vp_asc_file kind)
{
    asc_mem_input *in = NULL;
    size_t nin = 0;
    int rc = VP_EXIT_OK;
    if (is_dir) {
        vp_error err = {0};
        vp_asc_run run;
        if (vp_asc_scan(path, &run, &err) != 0) {
            vp_error_print(&err);
            return VP_EXIT_INPUT;
        }
        in = vp_calloc(run.n + 1, sizeof *in);
        for (size_t i = 0; i < run.n && rc == VP_EXIT_OK; i++) {
            vp_asc_rank *r = &run.ranks[i];
            in[nin].rank = r->rank;
            if (!r->files[VP_ASC_MEMORY_RECORD] && !r->files[VP_ASC_OPERATOR_MEMORY] &&
                !r->files[VP_ASC_MODULE_MEM]) {
                fprintf(stderr, "vprof: %s: no memory_record.csv, operator_memory.csv or "
                                "npu_module_mem.csv (profile with profile_memory=True)\n",
                        r->dir);
                rc = VP_EXIT_INPUT;
                break;
            }
            static const vp_asc_file kinds[] = {VP_ASC_MEMORY_RECORD, VP_ASC_OPERATOR_MEMORY,
                                                VP_ASC_MODULE_MEM};
            for (int k = 0; k < 3 && rc == VP_EXIT_OK; k++)
                if (r->files[kinds[k]])
                    rc = read_asc_mem(&in[nin], kinds[k], r->files[kinds[k]]);
            nin++;
        }
        if (run.n == 0 && rc == VP_EXIT_OK) {
            fprintf(stderr, "vprof: %s: no rank directory with memory files\n", path);
            rc = VP_EXIT_INPUT;
        }
        vp_asc_run_free(&run);
    } else {
        in = vp_calloc(2, sizeof *in);
        in[0].rank = 0;
        nin = 1;
        rc = read_asc_mem(&in[0], kind, path);
    }
    in[nin].rank = -1;   /* the end, for the plot */
    if (rc == VP_EXIT_OK && o->plot) {
        int any = 0;
        for (size_t r = 0; r < nin; r++)
            any |= in[r].has_rec;
        if (!any) {
            fprintf(stderr, "vprof: memory: --plot needs memory_record.csv\n");
            rc = VP_EXIT_INPUT;
        } else {
            rc = write_plot(o->plot, path, draw_ascend, in);
        }
    }
    vp_table *tables[3];
    size_t nt = 0;
    int has_rec = 0, has_mod = 0, has_ops = 0;
    for (size_t r = 0; r < nin; r++) {
        has_rec |= in[r].has_rec;
        has_mod |= in[r].has_mod;
        has_ops |= in[r].has_ops;
    }
    if (rc == VP_EXIT_OK && o->timeline) {
        tables[nt++] = asc_timeline_table(in, nin);
    } else if (rc == VP_EXIT_OK) {
        if (has_rec)
            tables[nt++] = asc_record_table(in, nin, "npu_memory");
        if (has_ops)
            tables[nt++] = asc_ops_table(o, in, nin);
        if (has_mod)
            tables[nt++] = asc_record_table(in, nin, "npu_module_mem");
    }
    if (rc == VP_EXIT_OK)
        rc = vp_emit_tables(&o->common, tables, nt, "vprof.memory/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
    for (size_t r = 0; r < nin; r++) {
        vp_asc_mem_free(&in[r].rec);
        vp_asc_mem_free(&in[r].mod);
        vp_asc_opmem_free(in[r].ops, in[r].nops);
    }
    free(in);
    return rc;
}

/* ---- export_memory_timeline output ---- */

static int draw_timeline(FILE *out, const void *what, const char *title)
{
    const vp_memtimeline *tl = what;
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

static int report_timeline(const mem_opts *o, const char *data, size_t len, const char *path)
{
    vp_error err = {0};
    vp_memtimeline tl;
    if (vp_memtimeline_parse(data, len, path, &tl, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    int rc = VP_EXIT_OK;
    if (o->plot)
        rc = write_plot(o->plot, path, draw_timeline, &tl);
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
    if (rc == VP_EXIT_OK)
        rc = vp_emit_tables(&o->common, &t, 1, "vprof.memory/1");
    vp_table_free(t);
    vp_memtimeline_free(&tl);
    return rc;
}

/* ---- input ---- */

enum input_kind { IN_PICKLE, IN_TRACE, IN_TIMELINE };

/* Reads the input whole when it has to be held (a gzip pickle, a memory
 * timeline), else only its first chunk to tell what it is.  A snapshot is a
 * pickle (first byte PROTO, 0x80); "[[" starts an export_memory_timeline
 * output; anything else is taken for a Chrome trace. */
static int sniff(const char *path, int hold, enum input_kind *kind, vp_buf *whole, int *gz,
                 vp_error *err)
{
    vp_source *src = vp_source_open(path, err);
    if (!src)
        return -1;
    vp_chunk ch;
    int r = vp_source_next(src, &ch, err);
    *gz = vp_source_is_gzip(src);
    if (r < 0) {
        vp_source_close(src);
        return -1;
    }
    if (r == 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: empty input: expected a memory snapshot (a pickle) or a trace",
                     vp_source_name(src));
        vp_source_close(src);
        return -1;
    }
    if ((unsigned char)ch.data[0] == 0x80)
        *kind = IN_PICKLE;
    else if (vp_memtimeline_detect(ch.data, ch.len))
        *kind = IN_TIMELINE;
    else
        *kind = IN_TRACE;
    if ((*kind == IN_PICKLE && (*gz || hold)) || *kind == IN_TIMELINE) {
        do
            vp_buf_append(whole, ch.data, ch.len);
        while ((r = vp_source_next(src, &ch, err)) == 1);
    }
    vp_source_close(src);
    return r < 0 ? -1 : 0;
}

/* Standard input is copied to a temporary file first: a snapshot is read
 * whole anyway, and a trace is read twice. */
static char *spool_stdin(vp_error *err)
{
    const char *dir = getenv("TMPDIR");
    char *tmp = vp_malloc(4096);
    snprintf(tmp, 4096, "%s/vprof-memory-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot create a temporary file in %s: %s",
                     dir && *dir ? dir : "/tmp", strerror(errno));
        free(tmp);
        return NULL;
    }
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0 && write(fd, buf, (size_t)n) != n) {
            vp_error_set(err, VP_EXIT_INPUT, "cannot write the temporary file %s: %s", tmp,
                         strerror(errno));
            n = -1;
            break;
        }
    }
    if (n < 0 && !err->status)
        vp_error_set(err, VP_EXIT_INPUT, "standard input: cannot read: %s", strerror(errno));
    close(fd);
    if (n < 0) {
        unlink(tmp);
        free(tmp);
        return NULL;
    }
    return tmp;
}

static int report_snapshot(const mem_opts *opts, const char *file, const vp_buf *data,
                           const char *path);

/* ---- several traces: partial results (cmd/scale.h, docs/partials.md) ---- */

typedef struct mem_parts {
    const mem_opts *o;
    vp_memevents *m;     /* the merge of the inputs so far */
} mem_parts;

static int mem_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    const mem_parts *c = ctx;
    vp_error err = {0};
    enum input_kind kind;
    vp_buf whole = {0};
    int gz;
    (void)i;
    if (sniff(input, 0, &kind, &whole, &gz, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    vp_buf_free(&whole);
    if (kind != IN_TRACE)
        return vp_usage_error("memory", "%s is a %s: only traces are read several at a time "
                                        "(a snapshot or a memory timeline is read alone)",
                              input, kind == IN_PICKLE ? "snapshot" : "memory timeline");
    vp_memevents *m = trace_peaks(c->o, input, input);
    if (!m)
        return VP_EXIT_INPUT;
    vp_memevents_save(m, out);
    vp_memevents_free(m);
    return VP_EXIT_OK;
}

static int mem_merge(void *ctx, const void *p, size_t n, vp_error *err)
{
    mem_parts *c = ctx;
    return vp_memevents_merge(c->m, p, n, err);
}

static void mem_save(void *ctx, vp_buf *out)
{
    const mem_parts *c = ctx;
    vp_memevents_save(c->m, out);
}

static int report_traces(const mem_opts *o, char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n && !vp_reducing; i++) {
        if (strcmp(inputs[i], "-") == 0)
            return vp_usage_error("memory", "standard input is read alone, not among several inputs");
        asc_arg aa = asc_arg_of(inputs[i]);
        if (aa.is_dir || aa.kind == VP_ASC_MEMORY_RECORD || aa.kind == VP_ASC_OPERATOR_MEMORY ||
            aa.kind == VP_ASC_MODULE_MEM)
            return vp_usage_error("memory", "%s is an Ascend profile: only traces are read several "
                                            "at a time", inputs[i]);
    }
    mem_parts c = {o, vp_memevents_new(0)};
    vp_parts parts = {"memory", VP_MEMEVENTS_PART_VERSION, mem_analyse, mem_merge, mem_save, &c};
    int rc = vp_parts_run(&o->common, &parts, inputs, n);
    if (rc == VP_EXIT_OK) {
        vp_memevents_finish(c.m);
        rc = emit_trace(o, c.m, inputs[0]);
    } else if (rc == VP_PARTS_DONE) {
        rc = VP_EXIT_OK;
    }
    vp_memevents_free(c.m);
    return rc;
}

int cmd_memory(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        {"by", required_argument, 0, OPT_BY},
        {"stack", required_argument, 0, OPT_STACK},
        {"all-frames", no_argument, 0, OPT_ALL_FRAMES},
        {"leaks", no_argument, 0, OPT_LEAKS},
        {"timeline", no_argument, 0, OPT_TIMELINE},
        {"plot", required_argument, 0, OPT_PLOT},
        {"device", required_argument, 0, OPT_DEVICE},
        VP_SCALE_LONGOPTS,
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("memory");
    mem_opts o = {.top = 10, .stack_depth = 1, .device = -1};
    vp_common_init(&o.common);
    int c, status;
    long v;
    optind = 1;
    o.common.top = o.top;
    while ((c = vp_getopt(&o.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) !=
           VP_OPT_END) {
        if (c == VP_OPT_EXIT)
            return status;
        switch (c) {
        case OPT_BY:
            if (strcmp(optarg, "site") == 0)
                o.by_site = 1;
            else if (strcmp(optarg, "tensor") == 0)
                o.by_site = 0;
            else
                return vp_usage_error("memory", "--by takes 'tensor' or 'site', not '%s'", optarg);
            break;
        case OPT_STACK:
            if (parse_count(optarg, 1, 1000, &v) < 0)
                return vp_usage_error("memory", "--stack needs a frame count from 1 to 1000, not '%s'", optarg);
            o.stack_depth = (int)v;
            break;
        case OPT_ALL_FRAMES:
            o.all_frames = 1;
            break;
        case OPT_LEAKS:
            o.leaks = 1;
            break;
        case OPT_TIMELINE:
            o.timeline = 1;
            break;
        case OPT_PLOT:
            o.plot = optarg;
            break;
        case OPT_DEVICE:
            if (parse_count(optarg, 0, 65535, &v) < 0)
                return vp_usage_error("memory", "--device needs a device ordinal, not '%s'", optarg);
            o.device = (int)v;
            break;
        default:
            return vp_usage_error("memory", "unexpected option");
        }
    }
    o.top = o.common.top;
    if (optind >= argc)
        return vp_usage_error("memory", "no input given (a snapshot, a trace or a memory timeline)");
    /* Several traces, or partial results, take the path of the other
     * multi-file commands; one input stays the single-input report (the
     * timeline and the plot need one trace's points). */
    if (argc - optind > 1 || o.common.save_part || o.common.mpi || vp_reducing) {
        if (o.timeline || o.plot)
            return vp_usage_error("memory", "--timeline and --plot read one trace, not several "
                                            "(nor with --save-part or --mpi)");
        if (o.by_site || o.stack_depth != 1 || o.all_frames || o.leaks)
            return vp_usage_error("memory", "--by site, --stack, --all-frames and --leaks need a "
                                            "snapshot, which is read alone");
        return report_traces(&o, argv + optind, (size_t)(argc - optind));
    }
    const char *path = argv[optind];

    vp_error err = {0};
    char *spooled = NULL;
    asc_arg aa = asc_arg_of(path);
    if (aa.is_dir || aa.kind == VP_ASC_MEMORY_RECORD || aa.kind == VP_ASC_OPERATOR_MEMORY ||
        aa.kind == VP_ASC_MODULE_MEM) {
        if (o.by_site || o.stack_depth != 1 || o.all_frames || o.leaks)
            return vp_usage_error("memory", "--by site, --stack, --all-frames and --leaks need a "
                                            "snapshot: %s is an Ascend profile, which has no stacks",
                                  path);
        return report_ascend(&o, path, aa.is_dir, aa.kind);
    }
    if (strcmp(path, "-") == 0) {
        if (!(spooled = spool_stdin(&err))) {
            vp_error_print(&err);
            return VP_EXIT_INPUT;
        }
    }
    enum input_kind kind;
    vp_buf whole = {0};
    int gz = 0, rc;
    if (sniff(spooled ? spooled : path, spooled != NULL, &kind, &whole, &gz, &err) != 0) {
        vp_error_print(&err);
        rc = VP_EXIT_INPUT;
    } else if (kind != IN_PICKLE && (o.by_site || o.stack_depth != 1 || o.all_frames || o.leaks)) {
        rc = vp_usage_error("memory", "--by site, --stack, --all-frames and --leaks need a "
                                      "snapshot: %s is a %s, which has no stacks",
                            path, kind == IN_TRACE ? "trace" : "memory timeline");
    } else if (kind == IN_TRACE) {
        rc = report_trace(&o, spooled ? spooled : path, spooled ? "standard input" : path);
    } else if (kind == IN_TIMELINE) {
        rc = report_timeline(&o, whole.data, whole.len, spooled ? "standard input" : path);
    } else {
        rc = report_snapshot(&o, path, gz || spooled ? &whole : NULL,
                             spooled ? "standard input" : path);
    }
    vp_buf_free(&whole);
    if (spooled) {
        unlink(spooled);
        free(spooled);
    }
    return rc;
}

/* The snapshot path: data holds the decompressed pickle when the file was
 * gzip, else the file is read directly. */
static int report_snapshot(const mem_opts *opts, const char *file, const vp_buf *data,
                           const char *path)
{
    mem_opts o = *opts;
    vp_error err = {0};
    vp_memsnap *s = data ? vp_memsnap_load_mem(data->data, data->len, path, &err)
                         : vp_memsnap_load(file, &err);
    if (!s) {
        vp_error_print(&err);
        return err.status ? err.status : VP_EXIT_INPUT;
    }
    if (o.device >= 0 && !vp_memsnap_device(s, o.device)) {
        fprintf(stderr, "vprof: memory: %s has no device %d (it has %zu device%s with data)\n", path,
                o.device, s->ndevices, s->ndevices == 1 ? "" : "s");
        vp_memsnap_free(s);
        return VP_EXIT_USAGE;
    }

    int rc = VP_EXIT_OK;
    if (o.plot)
        rc = write_plot(o.plot, path, draw_snapshot, s);

    vp_table *tables[5];
    size_t nt = 0;
    if (rc == VP_EXIT_OK && o.timeline) {
        tables[nt++] = timeline_table(s, &o);
    } else if (rc == VP_EXIT_OK) {
        vp_ms_stats *st = vp_calloc(s->ndevices ? s->ndevices : 1, sizeof *st);
        size_t ooms = 0;
        for (size_t i = 0; i < s->ndevices; i++) {
            vp_ms_device_stats(s, &s->devices[i], &st[i]);
            if (selected(&o, &s->devices[i]))
                ooms += st[i].ooms;
        }
        tables[nt++] = state_table(s, &o, st);
        tables[nt++] = peak_table(s, &o, st);
        tables[nt++] = top_table(s, &o, st);
        if (ooms)
            tables[nt++] = oom_table(s, &o);
        if (o.leaks)
            tables[nt++] = leak_table(s, &o);
        free(st);
    }
    if (rc == VP_EXIT_OK)
        rc = vp_emit_tables(&o.common, tables, nt, "vprof.memory/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
    vp_memsnap_free(s);
    return rc;
}
