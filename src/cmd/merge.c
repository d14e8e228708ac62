/* vprof merge: the options, the merge engine (vprof/merge.h), and what it
 * did said on standard error.  --mpi shares the inputs among MPI
 * processes through cli/mpi.h, the only place the binary talks MPI. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/inputs.h"
#include "cli/mpi.h"
#include "vprof/ascend_files.h"
#include "vprof/merge.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

const char cmd_merge_usage[] =
    "usage: vprof merge -o OUTPUT [options] TRACE[@RANK]...\n"
    "\n"
    "Merges per-rank traces into one trace for Perfetto or chrome://tracing, streaming:\n"
    "memory does not grow with the number or the size of the inputs. Each rank keeps\n"
    "its own processes (pids R*1000+n, named \"rank R: <name>\", sorted by rank), flow\n"
    "and async ids are made unique per rank, every event keeps its fields. The rank of\n"
    "a file is distributedInfo.rank, else the file name (rank3, rank-3, rank_3), else\n"
    "its position; TRACE@RANK says it explicitly. An Ascend directory (a *_ascend_pt,\n"
    "a folder of them, a PROF_*) stands for each rank's trace_view.json, with the rank\n"
    "its profiler_info names (docs/ascend.md).\n"
    "\n"
    VP_OPERANDS_USAGE
    "\n"
    "  -o, --output FILE  the merged trace (required; - for standard output); gzip\n"
    "                     when FILE ends in .gz. Written under a temporary name and\n"
    "                     renamed at the end: a failed merge leaves nothing behind\n"
    "  -z, --gzip         gzip whatever the name\n"
    "      --level N      gzip level, 0 (fastest) to 9 (smallest); default 1\n"
    "      --align MODE   the clock of the merged timeline:\n"
    "                       base   ts moved onto one clock using each trace's\n"
    "                              baseTimeNanoseconds (default; equals none when\n"
    "                              no input has one)\n"
    "                       none   ts as recorded\n"
    "                       start  each rank starts at 0\n"
    "                       collective[:N]  shift each rank so that its first N\n"
    "                              (default 32) collective kernels end when rank\n"
    "                              0's matching ones do (median); prints the shifts;\n"
    "                              a kernel is a collective by its name, args or\n"
    "                              launching op, as in vprof comm\n"
    VP_CLASS_USAGE
    "      --ranks LIST   only these ranks, e.g. 0-3,8\n"
    "      --steps A:B    only events inside the ProfilerSteps A..B-1 of each rank\n"
    "                     (by time window, GPU work of those steps included; Python\n"
    "                     slice over the steps present, as in vprof kernels)\n"
    "      --window T0:T1 only events overlapping [T0, T1], microseconds on the\n"
    "                     merged clock (either bound may be left out)\n"
    "      --drop CATS    leave out events of these categories (comma list)\n"
    "      --keep CATS    keep only events of these categories\n"
    "      --partial      merge what can be read of a truncated input (said on stderr\n"
    "                     and in the output's vprofMergeInfo)\n"
    "  -j, --jobs N       copy N inputs at a time in worker processes (default: one\n"
    "                     per online core); the output is the same bytes for every N\n"
    "      --mpi          share the inputs among the MPI processes (mpirun); rank 0\n"
    "                     writes the output (an MPI build: vprof --version says)\n"
    "  -v, --verbose      say which rank each file is, and why\n"
    "  -q, --quiet        no warnings, no summary, no progress bar\n"
    "  -h, --help         this help\n"
    "\n"
    "Metadata events are always kept. Details: docs/merge.md.\n"
    "\n"
    "Examples:\n"
    "  vprof merge -o all.json.gz rank*.json.gz\n"
    "  vprof merge -o steps.json.gz --steps 5:7 --ranks 0-7 run/*.json.gz\n"
    "  vprof merge -o small.json.gz --drop python_function big.json.gz\n";

enum {
    OPT_LEVEL = VP_OPT_FIRST_CMD,
    OPT_ALIGN,
    OPT_RANKS,
    OPT_WINDOW,
    OPT_DROP,
    OPT_KEEP,
};

/* The command line, and what it owns. */
typedef struct cli {
    vp_merge_opts o;
    vp_merge_inputs in;
    long (*ranks)[2];
    size_t nranks;
    char **drop, **keep;
    size_t ndrop, nkeep;
    int gzip, level, has_level, verbose;
} cli;

static const char *rank_from(const vp_merge_rank *r)
{
    return r->rank_explicit ? "the command line" : r->rank_from;
}

static void say_input(void *ctx, const vp_merge_rank *r)
{
    if (!((cli *)ctx)->verbose)
        return;
    fprintf(stderr, "vprof: merge: %s: rank %ld (from %s)%s; %llu of %llu events written, "
                    "ts shifted by %lld ns\n",
            r->path, r->rank, rank_from(r), r->skipped ? ", not in --ranks" : "",
            (unsigned long long)r->events_written, (unsigned long long)r->events_read,
            (long long)r->shift);
}

static void say_recopy(void *ctx, const char *path)
{
    if (((cli *)ctx)->verbose)
        fprintf(stderr, "vprof: merge: %s: rank or clock base found after the events; "
                        "copying it again\n",
                path);
}

static void say_warning(void *ctx, vp_merge_warning what, const char *path, long long a, long long b)
{
    (void)ctx;
    (void)b;
    if (what == VP_MERGE_NO_COLLECTIVE_MATCH)
        vp_warn("%s: --align collective: no collective kernel matches rank %lld's; its clock "
                "is aligned with baseTimeNanoseconds only", path, a);
    else
        vp_warn("%s: truncated: merged the %lld events read before the end (--partial)", path, a);
}

static void echo(void *ctx, const char *text, size_t n)
{
    (void)ctx;
    fwrite(text, 1, n, stderr);
}

static void summary(const cli *c, const vp_merge_result *res)
{
    if (vp_quiet)
        return;
    size_t ranks = 0;
    uint64_t read = 0, written = 0;
    int truncated = 0;
    for (size_t i = 0; i < res->n; i++) {
        if (res->ranks[i].skipped)
            continue;
        ranks++;
        read += res->ranks[i].events_read;
        written += res->ranks[i].events_written;
        truncated |= res->ranks[i].truncated;
    }
    const char *clock;
    switch (c->o.align) {
    case VP_ALIGN_NONE: clock = "as recorded (--align none)"; break;
    case VP_ALIGN_START: clock = "each rank starts at 0 (--align start)"; break;
    case VP_ALIGN_COLLECTIVE: clock = "shifted to align collective kernels (--align collective)"; break;
    default:
        clock = res->any_base ? "one clock from baseTimeNanoseconds (--align base)"
                              : "as recorded: no input has baseTimeNanoseconds (--align base)";
    }
    fprintf(stderr, "vprof: merge: %zu rank%s, %llu of %llu events to %s%s; time: %s\n", ranks,
            ranks == 1 ? "" : "s", (unsigned long long)written, (unsigned long long)read,
            res->output_name, truncated ? " (partial: some inputs were truncated)" : "", clock);
    if (c->o.align == VP_ALIGN_COLLECTIVE) {
        for (size_t i = 0; i < res->n; i++) {
            const vp_merge_rank *r = &res->ranks[i];
            if (!r->skipped)
                fprintf(stderr, "vprof: merge: rank %ld: shifted by %+.3f us (%zu collectives matched)\n",
                        r->rank, (double)r->coll_offset / 1000.0, r->coll_matched);
        }
    }
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void cli_free(cli *c)
{
    vp_merge_inputs_free(&c->in);
    free(c->ranks);
    for (size_t i = 0; i < c->ndrop; i++)
        free(c->drop[i]);
    for (size_t i = 0; i < c->nkeep; i++)
        free(c->keep[i]);
    free(c->drop);
    free(c->keep);
}

/* One of merge's own options; 0, or -1 after a usage error. */
static int own_option(cli *c, int opt, const char *arg)
{
    switch (opt) {
    case 'z':
        c->gzip = 1;
        return 0;
    case OPT_LEVEL: {
        char *e;
        long l = strtol(arg, &e, 10);
        if (*e || e == arg || l < 0 || l > 9)
            return vp_usage_error("merge", "--level: expected 0 to 9, found '%s'", arg), -1;
        c->level = (int)l;
        c->has_level = 1;
        return 0;
    }
    case OPT_ALIGN:
        if (vp_merge_parse_align(arg, &c->o.align, &c->o.coll_n) == 0)
            return 0;
        vp_usage_error("merge", "--align: expected none, base, start or collective[:N], found '%s'", arg);
        return -1;
    case OPT_RANKS:
        if (vp_merge_parse_ranks(arg, &c->ranks, &c->nranks) == 0)
            return 0;
        vp_usage_error("merge", "--ranks: expected a list like 0-3,8, found '%s'", arg);
        return -1;
    case OPT_WINDOW:
        if (vp_merge_parse_window(arg, &c->o) == 0)
            return 0;
        vp_usage_error("merge", "--window: expected T0:T1 in microseconds (T0 <= T1), found '%s'", arg);
        return -1;
    case OPT_DROP:
        if (vp_merge_parse_list(arg, &c->drop, &c->ndrop) == 0)
            return 0;
        vp_usage_error("merge", "--drop: expected categories, found '%s'", arg);
        return -1;
    case OPT_KEEP:
        if (vp_merge_parse_list(arg, &c->keep, &c->nkeep) == 0)
            return 0;
        vp_usage_error("merge", "--keep: expected categories, found '%s'", arg);
        return -1;
    default:
        vp_usage_error("merge", "unexpected option");
        return -1;
    }
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},
        {"gzip", no_argument, 0, 'z'},
        {"level", required_argument, 0, OPT_LEVEL},
        {"align", required_argument, 0, OPT_ALIGN},
        {"ranks", required_argument, 0, OPT_RANKS},
        VP_CLASS_LONGOPTS,
        VP_STEPS_LONGOPT,
        {"window", required_argument, 0, OPT_WINDOW},
        {"drop", required_argument, 0, OPT_DROP},
        {"keep", required_argument, 0, OPT_KEEP},
        {"partial", no_argument, 0, VP_OPT_PARTIAL},
        {"jobs", required_argument, 0, 'j'},
        {"mpi", no_argument, 0, VP_OPT_MPI},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("merge");
    cli c;
    memset(&c, 0, sizeof c);
    vp_common_opts common;
    vp_common_init(&common);
    int opt, status = VP_EXIT_USAGE;
    char **operands = argv;
    size_t nops = 0;
    vp_inputs files = {0};
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:zj:qvh", longopts, NULL)) != -1) {
        int h = vp_common_option(&common, self, opt, optarg);
        if (h == 2)
            status = VP_EXIT_OK;
        if (h == 2 || h < 0 || (h == 0 && own_option(&c, opt, optarg) != 0))
            goto out;
    }
    /* only these clocks are refused (the message also names --steps, which has
     * always been let through) */
    if (common.mpi && (c.o.align == VP_ALIGN_START || c.o.align == VP_ALIGN_COLLECTIVE)) {
        vp_usage_error("merge", "--mpi does not take --steps or --align start|collective yet");
        goto out;
    }
    if (!common.output) {
        vp_usage_error("merge", "no output given (-o FILE, or -o - for standard output)");
        goto out;
    }
    if (optind >= argc) {
        vp_usage_error("merge", "no trace given");
        goto out;
    }
    operands = argv + optind;
    nops = (size_t)(argc - optind);
#if VPROF_HAVE_MPI
    if (common.mpi && !(operands = vp_mpi_expand("merge", 0, argv + optind, nops, &nops))) {
        status = VP_EXIT_INPUT;
        goto out;
    }
#endif
    if ((status = vp_inputs_resolve("merge", operands, nops, &files)) != 0)
        goto out;
    status = VP_EXIT_USAGE;
    for (size_t i = 0; i < files.n; i++) {
        if (common.mpi && strcmp(files.paths[i], "-") == 0) {
            vp_usage_error("merge", "--mpi cannot read standard input");
            goto out;
        }
        vp_error aerr = {0};
        if (!vp_asc_is_dir(files.paths[i]))
            vp_merge_inputs_add(&c.in, files.paths[i]);
        else if (vp_merge_inputs_add_ascend(&c.in, files.paths[i], &aerr) != 0) {
            vp_error_print(&aerr);
            status = VP_EXIT_INPUT;
            goto out;
        }
    }
    c.o.sink.gzip = c.gzip || ends_with(common.output, ".gz");
    c.o.sink.level = c.has_level ? c.level : VP_SINK_DEFAULT_LEVEL;
    if (c.has_level && !c.o.sink.gzip) {
        status = vp_usage_error("merge", "--level needs gzip output (-z or a name ending in .gz)");
        goto out;
    }
    c.o.output = common.output;
    c.o.ranks = (const long (*)[2])c.ranks;
    c.o.nranks = c.nranks;
    c.o.steps = common.has_steps ? &common.steps : NULL;
    c.o.drop = c.drop;
    c.o.ndrop = c.ndrop;
    c.o.keep = c.keep;
    c.o.nkeep = c.nkeep;
    c.o.partial = common.partial;
    c.o.classes = common.classes;
    c.o.progress = !vp_quiet;
    c.o.jobs = common.jobs;
    c.verbose = common.verbose;
    vp_merge_hooks hooks = {say_input, say_recopy, say_warning, echo, &c};
    c.o.hooks = &hooks;
#if VPROF_HAVE_MPI
    vp_merge_peers peers;
    if (common.mpi) {
        vp_mpi_peers(&peers);
        c.o.peers = &peers;
    }
#endif
    vp_merge_result res;
    vp_error err = {0};
    if (vp_merge_run(c.in.in, c.in.n, &c.o, &res, &err) != 0) {
        if (err.status == VP_EXIT_USAGE)
            status = vp_usage_error("merge", "%s", err.msg);
        else {
            vp_error_print(&err);
            status = err.status;
        }
#if VPROF_HAVE_MPI
        if (common.mpi)
            vp_mpi_abort("merge", status);
#endif
    } else {
        if (res.wrote)
            summary(&c, &res);
#if VPROF_HAVE_MPI
        if (common.mpi)
            vp_mpi_finish();
#endif
        status = VP_EXIT_OK;
    }
    vp_merge_result_free(&res);
out:
#if VPROF_HAVE_MPI
    if (common.mpi && operands != argv && operands != argv + optind)
        vp_mpi_list_free(operands, nops);
#endif
    cli_free(&c);
    vp_inputs_free(&files);
    return status;
}
