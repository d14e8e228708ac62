/* vprof memory: CUDA memory snapshots, traces' [memory] events, memory
 * timelines and Ascend memory files: the input told from its content,
 * read by the library (vprof/memsnap.h, memevents.h, memtimeline.h,
 * memascend.h), shown by the memory views (vprof/memview.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/ascend_cmd.h"
#include "cmd/cli.h"
#include "cmd/scale.h"
#include "vprof/error.h"
#include "vprof/memview.h"
#include "vprof/trace.h"
#include "vprof/util.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_memory_tables[] = {
    {"state", "snapshot: the allocator per device when it was taken"},
    {"peak", "snapshot: the peak of active bytes per device"},
    {"top_at_peak", "snapshot: the largest allocations alive at the peak"},
    {"sites_at_peak", "snapshot, --by site: the bytes alive at the peak per site"},
    {"oom", "snapshot: out-of-memory events"},
    {"leaks", "snapshot, --leaks: allocations made during the trace and alive at its end"},
    {"memory", "trace: peak allocated and reserved per device"},
    {"out_of_memory", "trace: [OutOfMemory] events"},
    {"npu_memory", "Ascend: peak allocated and reserved per component"},
    {"operators_at_peak", "Ascend: the operators holding the most at each peak"},
    {"npu_module_mem", "Ascend: the driver modules' reservations"},
    {"categories", "memory timeline: bytes per category at the peak"},
    {"timeline", "--timeline: bytes after every event"},
    {NULL, NULL},
};

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
    "      --table NAME   state (default), peak, top_at_peak, sites_at_peak, oom, leaks,\n"
    "                     memory, out_of_memory, npu_memory, operators_at_peak,\n"
    "                     npu_module_mem, categories, timeline, or list (what each holds):\n"
    "                     print that table alone; csv and tsv print one table, the first of\n"
    "                     these that the output has unless --table names one\n"
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
    vp_memview_opts v;
    const char *plot;
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

/* The options that only a snapshot's stacks can answer. */
static int wants_stacks(const mem_opts *o)
{
    return o->v.by_site || o->v.stack_depth != 1 || o->v.all_frames || o->v.leaks;
}

#define NEEDS_SNAPSHOT "--by site, --stack, --all-frames and --leaks need a snapshot"

enum { PLOT_SNAPSHOT, PLOT_TRACE, PLOT_ASCEND, PLOT_TIMELINE };

/* The chart of what (n: Ascend ranks) into path; an exit status. */
static int write_plot(const char *path, const char *input, int kind, const void *what, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "vprof: cannot write %s: %s\n", path, strerror(errno));
        return VP_EXIT_INPUT;
    }
    const char *base = strrchr(input, '/');
    char title[512];
    snprintf(title, sizeof title, "vprof memory: %s", base ? base + 1 : input);
    int rc = kind == PLOT_SNAPSHOT ? vp_memview_plot_snapshot(f, what, title)
           : kind == PLOT_TRACE    ? vp_memview_plot_trace(f, what, title)
           : kind == PLOT_ASCEND   ? vp_memview_plot_ascend(f, what, n, title)
                                   : vp_memview_plot_memtimeline(f, what, title);
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0) {
        fprintf(stderr, "vprof: cannot write %s: %s\n", path, strerror(errno));
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

/* tables[0..nt) written unless rc already failed, and freed. */
static int emit(const mem_opts *o, int rc, vp_table **tables, size_t nt)
{
    if (rc == VP_EXIT_OK)
        rc = vp_emit_tables(&o->common, tables, nt, "vprof.memory/1");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
    return rc;
}

/* A trace's [memory] events; NULL after printing the error. */
static vp_memevents *trace_peaks(const mem_opts *o, const char *file, const char *path)
{
    vp_error err = {0};
    vp_trace_opts topts = {.partial = o->common.partial, .progress = 1, .name = path};
    vp_memevents *m =
        vp_memevents_read(file, &topts, o->v.timeline || o->plot, !o->v.timeline, &err);
    if (!m) {
        vp_error_print(&err);
        return NULL;
    }
    if (m->bad)
        vp_warn("%s: %llu [memory] events without Device Type, Device Id, Bytes and the totals "
                "were skipped", path, (unsigned long long)m->bad);
    return m;
}

/* The tables (and the plot) of a trace's, or several traces', memory
 * events; m is finished. */
static int emit_trace(const mem_opts *o, const vp_memevents *m, const char *path)
{
    int rc = o->plot ? write_plot(o->plot, path, PLOT_TRACE, m, 0) : VP_EXIT_OK;
    vp_table *tables[5];
    return emit(o, rc, tables, vp_memview_trace(m, &o->v, tables));
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

/* An Ascend directory (every rank's memory files) or one of the files. */
static int report_ascend(const mem_opts *o, const char *path, int is_dir, vp_asc_file kind)
{
    vp_asc_rankmem *in;
    size_t nin;
    vp_error err = {0};
    if (vp_asc_rankmem_load(path, is_dir, kind, &in, &nin, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    int rc = VP_EXIT_OK;
    if (o->plot) {
        int any = 0;
        for (size_t r = 0; r < nin; r++)
            any |= in[r].has_rec;
        if (!any) {
            fprintf(stderr, "vprof: memory: --plot needs memory_record.csv\n");
            rc = VP_EXIT_INPUT;
        } else {
            rc = write_plot(o->plot, path, PLOT_ASCEND, in, nin);
        }
    }
    vp_table *tables[5];
    size_t nt = rc == VP_EXIT_OK ? vp_memview_ascend(in, nin, &o->v, tables) : 0;
    rc = emit(o, rc, tables, nt);
    vp_asc_rankmem_free(in, nin);
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
    int rc = o->plot ? write_plot(o->plot, path, PLOT_TIMELINE, &tl, 0) : VP_EXIT_OK;
    vp_table *t = vp_memview_memtimeline(&tl, &o->v);
    rc = emit(o, rc, &t, 1);
    vp_memtimeline_free(&tl);
    return rc;
}

/* The snapshot path: data holds the decompressed pickle when the file was
 * gzip, else the file is read directly. */
static int report_snapshot(const mem_opts *o, const char *file, const vp_buf *data,
                           const char *path)
{
    vp_error err = {0};
    vp_memsnap *s = data ? vp_memsnap_load_mem(data->data, data->len, path, &err)
                         : vp_memsnap_load(file, &err);
    if (!s) {
        vp_error_print(&err);
        return err.status ? err.status : VP_EXIT_INPUT;
    }
    if (o->v.device >= 0 && !vp_memsnap_device(s, o->v.device)) {
        fprintf(stderr, "vprof: memory: %s has no device %d (it has %zu device%s with data)\n", path,
                o->v.device, s->ndevices, s->ndevices == 1 ? "" : "s");
        vp_memsnap_free(s);
        return VP_EXIT_USAGE;
    }
    int rc = o->plot ? write_plot(o->plot, path, PLOT_SNAPSHOT, s, 0) : VP_EXIT_OK;
    vp_table *tables[5];
    size_t nt = rc == VP_EXIT_OK ? vp_memview_snapshot(s, &o->v, tables) : 0;
    rc = emit(o, rc, tables, nt);
    vp_memsnap_free(s);
    return rc;
}

/* ---- several traces: partial results (cmd/scale.h, docs/partials.md) ---- */

typedef struct mem_parts {
    const mem_opts *o;
    vp_memevents *m;     /* the merge of the inputs so far */
} mem_parts;

static int mem_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    const mem_parts *c = ctx;
    vp_error err = {0};
    vp_mem_input kind;
    vp_buf whole = {0};
    int gz;
    (void)i;
    if (vp_mem_sniff(input, 0, &kind, &whole, &gz, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    vp_buf_free(&whole);
    if (kind != VP_MEM_TRACE)
        return vp_usage_error("memory", "%s is a %s: only traces are read several at a time "
                                        "(a snapshot or a memory timeline is read alone)",
                              input, kind == VP_MEM_SNAPSHOT ? "snapshot" : "memory timeline");
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
        VP_TABLE_LONGOPT,
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
    mem_opts o = {.v = {.top = 10, .stack_depth = 1, .device = -1}};
    vp_common_init(&o.common);
    int c, status;
    long v;
    optind = 1;
    o.common.top = o.v.top;
    while ((c = vp_getopt(&o.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) !=
           VP_OPT_END) {
        if (c == VP_OPT_EXIT)
            return status;
        switch (c) {
        case OPT_BY:
            if (strcmp(optarg, "site") == 0)
                o.v.by_site = 1;
            else if (strcmp(optarg, "tensor") == 0)
                o.v.by_site = 0;
            else
                return vp_usage_error("memory", "--by takes 'tensor' or 'site', not '%s'", optarg);
            break;
        case OPT_STACK:
            if (parse_count(optarg, 1, 1000, &v) < 0)
                return vp_usage_error("memory", "--stack needs a frame count from 1 to 1000, not '%s'", optarg);
            o.v.stack_depth = (int)v;
            break;
        case OPT_ALL_FRAMES:
            o.v.all_frames = 1;
            break;
        case OPT_LEAKS:
            o.v.leaks = 1;
            break;
        case OPT_TIMELINE:
            o.v.timeline = 1;
            break;
        case OPT_PLOT:
            o.plot = optarg;
            break;
        case OPT_DEVICE:
            if (parse_count(optarg, 0, 65535, &v) < 0)
                return vp_usage_error("memory", "--device needs a device ordinal, not '%s'", optarg);
            o.v.device = (int)v;
            break;
        default:
            return vp_usage_error("memory", "unexpected option");
        }
    }
    o.v.top = o.common.top;
    if (optind >= argc)
        return vp_usage_error("memory", "no input given (a snapshot, a trace or a memory timeline)");
    /* Several traces, or partial results, take the path of the other
     * multi-file commands; one input stays the single-input report (the
     * timeline and the plot need one trace's points). */
    if (argc - optind > 1 || o.common.save_part || o.common.mpi || vp_reducing) {
        if (o.v.timeline || o.plot)
            return vp_usage_error("memory", "--timeline and --plot read one trace, not several "
                                            "(nor with --save-part or --mpi)");
        if (wants_stacks(&o))
            return vp_usage_error("memory", "%s, which is read alone", NEEDS_SNAPSHOT);
        return report_traces(&o, argv + optind, (size_t)(argc - optind));
    }
    const char *path = argv[optind];

    vp_error err = {0};
    char *spooled = NULL;
    asc_arg aa = asc_arg_of(path);
    if (aa.is_dir || aa.kind == VP_ASC_MEMORY_RECORD || aa.kind == VP_ASC_OPERATOR_MEMORY ||
        aa.kind == VP_ASC_MODULE_MEM) {
        if (wants_stacks(&o))
            return vp_usage_error("memory", "%s: %s is an Ascend profile, which has no stacks",
                                  NEEDS_SNAPSHOT, path);
        return report_ascend(&o, path, aa.is_dir, aa.kind);
    }
    if (strcmp(path, "-") == 0) {
        if (!(spooled = vp_mem_spool_stdin(&err))) {
            vp_error_print(&err);
            return VP_EXIT_INPUT;
        }
    }
    const char *name = spooled ? "standard input" : path;
    vp_mem_input kind;
    vp_buf whole = {0};
    int gz = 0, rc;
    if (vp_mem_sniff(spooled ? spooled : path, spooled != NULL, &kind, &whole, &gz, &err) != 0) {
        vp_error_print(&err);
        rc = VP_EXIT_INPUT;
    } else if (kind != VP_MEM_SNAPSHOT && wants_stacks(&o)) {
        rc = vp_usage_error("memory", "%s: %s is a %s, which has no stacks", NEEDS_SNAPSHOT, path,
                            kind == VP_MEM_TRACE ? "trace" : "memory timeline");
    } else if (kind == VP_MEM_TRACE) {
        rc = report_trace(&o, spooled ? spooled : path, name);
    } else if (kind == VP_MEM_TIMELINE) {
        rc = report_timeline(&o, whole.data, whole.len, name);
    } else {
        rc = report_snapshot(&o, path, gz || spooled ? &whole : NULL, name);
    }
    vp_buf_free(&whole);
    if (spooled) {
        unlink(spooled);
        free(spooled);
    }
    return rc;
}

