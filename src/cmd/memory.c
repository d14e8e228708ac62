/* vprof memory: CUDA memory snapshots, traces' [memory] events, memory
 * timelines and Ascend memory files: the input told from its content and
 * read by the library (vprof/memdoc.h), shown by the memory views
 * (vprof/memview.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/inputs.h"
#include "cli/scale.h"
#include "vprof/error.h"
#include "vprof/memview.h"
#include "vprof/units.h"
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
    VP_OPERANDS_USAGE
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
    "  --leaks            also list allocations made after the warm-up (the first\n"
    "                     quarter of the recorded time) and still alive at the end,\n"
    "                     per site\n"
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

/* The options that only a snapshot's stacks can answer. */
static int memory_inputs(const mem_opts *o, char *const *inputs, size_t n);

static int wants_stacks(const mem_opts *o)
{
    return o->v.by_site || o->v.stack_depth != 1 || o->v.all_frames || o->v.leaks;
}

#define NEEDS_SNAPSHOT "--by site, --stack, --all-frames and --leaks need a snapshot"

/* The chart of d into path; an exit status. */
static int write_plot(const char *path, const vp_memdoc *d)
{
    vp_outfile of;
    FILE *f = vp_outfile_open(&of, path);
    const char *base = strrchr(d->name, '/');
    char title[512];
    snprintf(title, sizeof title, "vprof memory: %s", base ? base + 1 : d->name);
    return vp_outfile_close(&of, vp_memview_plot_doc(f, d, title));
}

/* The chart (--plot) and the tables of what d holds. */
static int emit(const mem_opts *o, const vp_memdoc *d)
{
    int rc = VP_EXIT_OK;
    if (o->plot && d->kind == VP_MEMDOC_ASCEND) {
        int any = 0;
        for (size_t r = 0; r < d->nranks; r++)
            any |= d->ranks[r].has_rec;
        if (!any) {
            fprintf(stderr, "vprof: memory: --plot needs memory_record.csv\n");
            return VP_EXIT_INPUT;
        }
    }
    if (o->plot && (rc = write_plot(o->plot, d)) != VP_EXIT_OK)
        return rc;
    vp_table *tables[5];
    size_t nt = vp_memview_doc(d, &o->v, tables);
    rc = vp_emit_tables(&o->common, tables, nt, "vprof.memory/2");
    for (size_t i = 0; i < nt; i++)
        vp_table_free(tables[i]);
    return rc;
}

/* An input vp_memdoc_open told, read; an exit status after printing
 * what failed. */
static int read_doc(const mem_opts *o, vp_memdoc *d)
{
    int keep = o->v.timeline ? VP_MEM_POINTS_ALL
               : o->plot     ? VP_MEM_POINTS_CHART
                             : VP_MEM_POINTS_NONE;
    vp_memdoc_read_opts ro = {o->common.partial, keep, !o->v.timeline, o->v.device};
    vp_error err = {0};
    if (vp_memdoc_read(d, &ro, &err) == 0)
        return VP_EXIT_OK;
    if (err.status == VP_EXIT_USAGE)
        fprintf(stderr, "vprof: memory: %s\n", err.msg);
    else
        vp_error_print(&err);
    return err.status;
}

/* ---- several traces: partial results (cli/scale.h, docs/partials.md) ---- */

typedef struct mem_parts {
    const mem_opts *o;
    vp_memevents *m;     /* the merge of the inputs so far */
} mem_parts;

static int mem_analyse(void *ctx, const char *input, size_t i, vp_buf *out)
{
    const mem_parts *c = ctx;
    vp_error err = {0};
    vp_memdoc d;
    int rc = VP_EXIT_INPUT;
    (void)i;
    if (vp_memdoc_open(input, &d, &err) != 0)
        vp_error_print(&err);
    else if (d.kind != VP_MEMDOC_TRACE)
        rc = vp_usage_error("memory", "%s is %s: only traces are read several at a time (a "
                            "snapshot or a memory timeline is read alone)", input,
                            vp_memdoc_kind_name(d.kind));
    else if ((rc = read_doc(c->o, &d)) == VP_EXIT_OK)
        vp_memevents_save(d.events, out);
    vp_memdoc_free(&d);
    return rc;
}

static int report_traces(const mem_opts *o, char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n && !vp_reducing; i++) {
        if (strcmp(inputs[i], "-") == 0)
            return vp_usage_error("memory", "standard input is read alone, not among several inputs");
        if (vp_memdoc_is_ascend(inputs[i]))
            return vp_usage_error("memory", "%s is an Ascend profile: only traces are read several "
                                            "at a time", inputs[i]);
    }
    mem_parts c = {o, vp_memevents_new(0)};
    vp_parts parts = {.cmd = "memory", .model = c.m, .analyse = mem_analyse, .ctx = &c};
    int rc = vp_parts_run(&o->common, &parts, inputs, n);
    if (rc == VP_EXIT_OK) {
        vp_memevents_finish(c.m);
        vp_memdoc d = {.kind = VP_MEMDOC_TRACE, .path = inputs[0], .name = inputs[0],
                       .events = c.m};
        rc = emit(o, &d);
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
    long long v;
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
            if (strcmp(optarg, "tensor") == 0 || strcmp(optarg, "site") == 0)
                o.common.lead = o.v.by_site ? "sites_at_peak" : NULL;
            else
                return vp_usage_error("memory", "--by takes 'tensor' or 'site', not '%s'", optarg);
            break;
        case OPT_STACK:
            if (vp_parse_count(optarg, 1, 1000, &v) != 0)
                return vp_usage_error("memory", "--stack needs a frame count from 1 to 1000, not '%s'", optarg);
            o.v.stack_depth = (int)v;
            break;
        case OPT_ALL_FRAMES:
            o.v.all_frames = 1;
            break;
        case OPT_LEAKS:
            o.v.leaks = 1;
            o.common.lead = "leaks";
            break;
        case OPT_TIMELINE:
            o.v.timeline = 1;
            break;
        case OPT_PLOT:
            o.plot = optarg;
            vp_cli_output("--plot", optarg);
            break;
        case OPT_DEVICE:
            if (vp_parse_count(optarg, 0, 65535, &v) != 0)
                return vp_usage_error("memory", "--device needs a device ordinal, not '%s'", optarg);
            o.v.device = (int)v;
            break;
        default:
            return vp_usage_error("memory", "unexpected option");
        }
    }
    o.v.top = o.common.top;
    if (o.v.timeline && wants_stacks(&o))
        return vp_options_conflict("memory", "--timeline",
                                   o.v.by_site ? "--by site" : o.v.leaks ? "--leaks"
                                   : o.v.all_frames ? "--all-frames" : "--stack",
                                   "--timeline prints the bytes after every event instead of "
                                   "the summary that these shape");
    if (optind >= argc)
        return vp_usage_error("memory", "no input given (a snapshot, a trace or a memory timeline)");
    if (vp_reducing)
        return memory_inputs(&o, argv + optind, (size_t)(argc - optind));
    vp_inputs in;
    if ((status = vp_inputs_resolve("memory", argv + optind, (size_t)(argc - optind), &in)) != 0)
        return status;
    status = memory_inputs(&o, in.paths, in.n);
    vp_inputs_free(&in);
    return status;
}

/* The operands, resolved (cli/inputs.h): a directory of traces is
 * several traces. */
static int memory_inputs(const mem_opts *o, char *const *inputs, size_t n)
{
    /* Several traces, or partial results, take the path of the other
     * multi-file commands; one input stays the single-input report (the
     * timeline and the plot need one trace's points). */
    if (n > 1 || o->common.save_part || o->common.mpi || vp_reducing) {
        if (o->v.timeline || o->plot)
            return vp_usage_error("memory", "--timeline and --plot read one trace, not several "
                                            "(nor with --save-part or --mpi)");
        if (wants_stacks(o))
            return vp_usage_error("memory", "%s, which is read alone", NEEDS_SNAPSHOT);
        return report_traces(o, inputs, n);
    }
    const char *path = inputs[0];
    vp_error err = {0};
    vp_memdoc d;
    int rc;
    if (vp_memdoc_open(path, &d, &err) != 0) {
        vp_error_print(&err);
        rc = VP_EXIT_INPUT;
    } else if (d.kind != VP_MEMDOC_SNAPSHOT && wants_stacks(o)) {
        rc = vp_usage_error("memory", "%s: %s is %s, which has no stacks", NEEDS_SNAPSHOT, path,
                            vp_memdoc_kind_name(d.kind));
    } else if ((rc = read_doc(o, &d)) == VP_EXIT_OK) {
        rc = emit(o, &d);
    }
    vp_memdoc_free(&d);
    return rc;
}
