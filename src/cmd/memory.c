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

#include "cmd/cli.h"
#include "vprof/error.h"
#include "vprof/memsnap.h"
#include "vprof/table.h"
#include "vprof/util.h"

const char cmd_memory_usage[] =
    "usage: vprof memory [options] SNAPSHOT\n"
    "\n"
    "Reads a CUDA memory snapshot (the pickle of torch.cuda.memory._dump_snapshot,\n"
    "or of torch.cuda.memory_snapshot()) and reports per device: the allocator's\n"
    "state when it was taken (reserved, allocated, free bytes inside segments,\n"
    "fragmentation), the peak of active bytes over the recorded trace with the\n"
    "largest allocations alive at that moment, and out-of-memory events.\n"
    "Sizes are requested bytes, as in PyTorch's memory viewer.  The pickle is\n"
    "decoded by vprof itself: nothing in it is ever executed.\n"
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
    "\n"
    "Exit status: 0 ok, 2 usage error, 3 unreadable or invalid input (also a\n"
    "pickle that asks to run code).\n";

enum {
    OPT_TOP = VP_OPT_FIRST_CMD,
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

static int write_plot(const vp_memsnap *s, const char *path, const char *input)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "vprof: cannot write %s: %s\n", path, strerror(errno));
        return VP_EXIT_INPUT;
    }
    const char *base = strrchr(input, '/');
    char title[512];
    snprintf(title, sizeof title, "vprof memory: %s", base ? base + 1 : input);
    int rc = vp_ms_plot_svg(f, s, title);
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0) {
        fprintf(stderr, "vprof: cannot write %s: %s\n", path, strerror(errno));
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

/* ---- input ---- */

/* A snapshot is a pickle (first byte PROTO, 0x80).  Anything else will be
 * a Chrome trace with [memory] events once the trace reader is wired in. */
static vp_memsnap *load_input(const char *path, vp_error *err)
{
    if (strcmp(path, "-") == 0) {
        vp_buf b = {0};
        char chunk[65536];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
            vp_buf_append(&b, chunk, n);
        if (ferror(stdin)) {
            vp_error_set(err, VP_EXIT_INPUT, "cannot read (stdin): %s", strerror(errno));
            vp_buf_free(&b);
            return NULL;
        }
        vp_memsnap *s = NULL;
        if (b.len == 0 || (unsigned char)b.data[0] != 0x80)
            vp_error_set(err, VP_EXIT_INPUT, "memory: (stdin): not a pickle (trace input is not supported yet)");
        else
            s = vp_memsnap_load_mem(b.data, b.len, "(stdin)", err);
        vp_buf_free(&b);
        return s;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    unsigned char first = 0;
    ssize_t got;
    do
        got = read(fd, &first, 1);
    while (got < 0 && errno == EINTR);
    int read_errno = errno;
    close(fd);
    if (got < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot read %s: %s", path, strerror(read_errno));
        return NULL;
    }
    if (got == 0 || first != 0x80) {
        vp_error_set(err, VP_EXIT_INPUT, "memory: %s: not a pickle (trace input is not supported yet)", path);
        return NULL;
    }
    return vp_memsnap_load(path, err);
}

int cmd_memory(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        {"top", required_argument, 0, OPT_TOP},
        {"by", required_argument, 0, OPT_BY},
        {"stack", required_argument, 0, OPT_STACK},
        {"all-frames", no_argument, 0, OPT_ALL_FRAMES},
        {"leaks", no_argument, 0, OPT_LEAKS},
        {"timeline", no_argument, 0, OPT_TIMELINE},
        {"plot", required_argument, 0, OPT_PLOT},
        {"device", required_argument, 0, OPT_DEVICE},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("memory");
    mem_opts o = {.top = 10, .stack_depth = 1, .device = -1};
    vp_common_init(&o.common);
    int c;
    long v;
    optind = 1;
    while ((c = getopt_long(argc, argv, VP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        int rc = vp_common_option(&o.common, self, c, optarg);
        if (rc < 0)
            return VP_EXIT_USAGE;
        if (rc == 2)
            return VP_EXIT_OK;
        if (rc == 1)
            continue;
        switch (c) {
        case OPT_TOP:
            if (parse_count(optarg, 0, 1000000000, &o.top) < 0)
                return vp_usage_error("memory", "--top needs a count (0 = all), not '%s'", optarg);
            break;
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
    if (optind >= argc)
        return vp_usage_error("memory", "no snapshot given");
    if (argc - optind > 1)
        return vp_usage_error("memory", "one snapshot at a time (got %d files)", argc - optind);
    const char *path = argv[optind];

    vp_error err = {0};
    vp_memsnap *s = load_input(path, &err);
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
        rc = write_plot(s, o.plot, path);

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
