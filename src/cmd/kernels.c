/* vprof kernels: where GPU time went, per kernel name (and rank, device,
 * stream or class), with the columns of `nsys stats -r cuda_gpu_kern_sum`. */
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/scale.h"
#include "vprof/kernels.h"
#include "vprof/kernels_view.h"
#include "vprof/util.h"

const char cmd_kernels_usage[] =
    "usage: vprof kernels [options] TRACE...\n"
    "\n"
    "Where GPU time went, per kernel: one row per kernel name with the columns of\n"
    "`nsys stats --report cuda_gpu_kern_sum`. Several traces (a file is a rank) give\n"
    "one combined table; --by rank splits it. TRACE is a Chrome/Kineto trace, plain or\n"
    "gzip, or - for standard input.\n"
    "\n"
    VP_OPERANDS_USAGE
    "\n"
    "Ascend profiles (docs/ascend.md): a *_ascend_pt directory (or a folder of them, a\n"
    "PROF_* directory), kernel_details.csv, op_summary_*.csv, op_statistic.csv (per op\n"
    "type, no Med/StdDev) or trace_view.json. Their\n"
    "device tasks are the kernels; --by type (the op type) and --by core (AI_CORE,\n"
    "AI_VECTOR_CORE, MIX_AIC, MIX_AIV, AI_CPU, HCCL, DSA_SQE ...) group them; without\n"
    "name in the list, the rows are per type and/or core alone.\n"
    "\n"
    "  --include KINDS    also count memcpy, memset and/or sync events (comma list)\n"
    "  --by DIMS          group by name (default), and/or class, stream, rank, device,\n"
    "                     type, core (Ascend)\n"
    "                     (comma list; the columns come before Name in that order)\n"
    VP_TOP_USAGE
    "  --sort KEY         total (default), count, avg, med, max or name\n"
    "  --filter REGEX     keep kernels whose name matches (POSIX extended regex)\n"
    "  --exclude REGEX    drop kernels whose name matches\n"
    VP_STEPS_USAGE
    VP_CLASS_USAGE
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --full-names   never shorten kernel names in the table format\n"
    "      --partial      accept a truncated trace, with a warning saying how much was read\n"
    "  -v, --verbose      say which rank each file is, and why, and what was read\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    VP_SCALE_USAGE
    "  -h, --help         this help\n"
    "\n"
    "Columns: Time (%) is the row's share of the listed total; Total, Avg, Med (exact\n"
    "median), Min, Max and StdDev (sample standard deviation, 0 for one instance) are\n"
    "nanoseconds. Classes: docs/kernels.md.\n"
    "\n"
    "Examples:\n"
    "  vprof kernels trace.json.gz\n"
    "  vprof kernels -f csv --by rank rank*.json.gz > kernels.csv\n"
    "  zcat trace.json.gz | vprof kernels --top 20 -\n";

enum {
    OPT_INCLUDE = VP_OPT_FIRST_CMD,
    OPT_BY,
    OPT_SORT,
    OPT_FILTER,
    OPT_EXCLUDE,
};

/* The command: its options and the model they shape. */
typedef struct kernels {
    vp_common_opts common;
    vp_kernels_opts o;
    char dim_order[7]; /* the --by columns in their order (vprof/kernels_view.h) */
    int ndims;
    vp_ksort sort;
    regex_t filter, exclude;
    int has_filter, has_exclude;
    vp_kernels result; /* the inputs merged so far */
} kernels;

static int parse_include(kernels *k, const char *arg)
{
    char *copy = vp_strdup(arg), *save = NULL;
    int ok = 1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "memcpy") == 0)
            k->o.kinds |= 1u << VP_GPU_MEMCPY;
        else if (strcmp(tok, "memset") == 0)
            k->o.kinds |= 1u << VP_GPU_MEMSET;
        else if (strcmp(tok, "sync") == 0)
            k->o.kinds |= 1u << VP_GPU_SYNC;
        else if (strcmp(tok, "kernel") == 0)
            ;
        else {
            vp_usage_error("kernels", "--include: unknown kind '%s' (memcpy, memset, sync)", tok);
            ok = 0;
            break;
        }
    }
    free(copy);
    return ok ? 0 : -1;
}

static int parse_by(kernels *k, const char *arg)
{
    char *copy = vp_strdup(arg), *save = NULL;
    int ok = 1;
    k->o.dims = 0;
    k->ndims = 0;
    int named = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned bit;
        char c;
        if (strcmp(tok, "name") == 0) {
            named = 1;
            continue;
        }
        if (strcmp(tok, "type") == 0)
            bit = VP_KDIM_TYPE, c = 'y';
        else if (strcmp(tok, "core") == 0)
            bit = VP_KDIM_CORE, c = 'k';
        else if (strcmp(tok, "class") == 0)
            bit = VP_KDIM_CLASS, c = 'c';
        else if (strcmp(tok, "stream") == 0)
            bit = VP_KDIM_STREAM, c = 's';
        else if (strcmp(tok, "rank") == 0)
            bit = VP_KDIM_RANK, c = 'r';
        else if (strcmp(tok, "device") == 0)
            bit = VP_KDIM_DEVICE, c = 'd';
        else {
            vp_usage_error("kernels",
                           "--by: unknown grouping '%s' (name, class, stream, rank, device, type, "
                           "core)",
                           tok);
            ok = 0;
            break;
        }
        if (!(k->o.dims & bit)) {
            k->o.dims |= bit;
            k->dim_order[k->ndims++] = c;
        }
    }
    free(copy);
    /* class, stream, type and core are what a row totals: without name
     * in the list, one row per class (stream, op type, core), as nsys'
     * per-stream and msprof's per-type summaries have it.  rank and
     * device split the table by input instead, so alone they keep a row
     * per kernel name (docs/kernels.md, "Grouping"). */
    k->o.by_name = named || !(k->o.dims & VP_KDIM_TOTALS);
    return ok ? 0 : -1;
}

static int parse_sort(kernels *k, const char *arg)
{
    static const char *const keys[] = {"total", "count", "avg", "med", "max", "name"};
    for (int i = 0; i < 6; i++)
        if (strcmp(arg, keys[i]) == 0) {
            k->sort = (vp_ksort)i;
            return 0;
        }
    vp_usage_error("kernels", "--sort: unknown key '%s' (total, count, avg, med, max, name)", arg);
    return -1;
}

static int compile(regex_t *re, const char *pattern, const char *opt)
{
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[200];
        regerror(rc, re, msg, sizeof msg);
        vp_usage_error("kernels", "%s '%s': %s", opt, pattern, msg);
        return -1;
    }
    return 0;
}

int cmd_kernels(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_STEPS_LONGOPT,
        VP_CLASS_LONGOPTS,
        VP_SCALE_LONGOPTS,
        {"include", required_argument, 0, OPT_INCLUDE},
        {"by", required_argument, 0, OPT_BY},
        {"sort", required_argument, 0, OPT_SORT},
        {"filter", required_argument, 0, OPT_FILTER},
        {"exclude", required_argument, 0, OPT_EXCLUDE},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("kernels");
    kernels k;
    memset(&k, 0, sizeof k);
    vp_common_init(&k.common);
    k.o.kinds = 1u << VP_GPU_KERNEL;
    k.o.by_name = 1;
    int c, status = VP_EXIT_USAGE;
    optind = 1;
    while ((c = vp_getopt(&k.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        switch (c) {
        case OPT_INCLUDE:
            if (parse_include(&k, optarg) != 0)
                goto out;
            break;
        case OPT_BY:
            if (parse_by(&k, optarg) != 0)
                goto out;
            break;
        case OPT_SORT:
            if (parse_sort(&k, optarg) != 0)
                goto out;
            break;
        case OPT_FILTER:
            if (k.has_filter)
                regfree(&k.filter);
            k.has_filter = 0;
            if (compile(&k.filter, optarg, "--filter") != 0)
                goto out;
            k.has_filter = 1;
            break;
        case OPT_EXCLUDE:
            if (k.has_exclude)
                regfree(&k.exclude);
            k.has_exclude = 0;
            if (compile(&k.exclude, optarg, "--exclude") != 0)
                goto out;
            k.has_exclude = 1;
            break;
        default:
            vp_usage_error("kernels", "unexpected option");
            goto out;
        }
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (optind >= argc) {
        vp_usage_error("kernels", "no trace given (a file, or - for standard input)");
        goto out;
    }
    k.o.filter = k.has_filter ? &k.filter : NULL;
    k.o.exclude = k.has_exclude ? &k.exclude : NULL;
    k.o.steps = k.common.has_steps ? &k.common.steps : NULL;
    k.o.partial = k.common.partial;
    k.o.classes = k.common.classes;
    k.o.say = k.common.verbose ? vp_verbose_say : NULL;
    vp_kernels_init(&k.result, &k.o);
    vp_parts parts = {.cmd = "kernels", .opts = &k.o, .model = &k.result};
    status = vp_parts_run(&k.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status != VP_EXIT_OK) {
        if (status == VP_PARTS_DONE)
            status = VP_EXIT_OK;
        goto out;
    }
    const vp_kernels *r = &k.result;
    if (k.o.dims & VP_KDIM_RANK) {
        for (size_t i = 0; i < r->nfiles; i++)
            for (size_t j = 0; j < i; j++)
                if (r->ranks[i] == r->ranks[j] && !r->merged[i] && !r->merged[j])
                    vp_warn("%s and %s both are rank %ld: their rows are added together",
                            r->paths[j], r->paths[i], r->ranks[i]);
    }
    vp_kernels_finish(&k.result, k.sort);
    k.dim_order[k.ndims] = '\0';
    vp_table *t = vp_kernels_table(&k.result, k.dim_order, k.common.top);
    if (vp_table_rows(t) == 0)
        vp_table_add_note(t, "no GPU kernels in the input%s",
                          k.common.has_steps ? " (with --steps)" : "");
    if ((k.has_filter || k.has_exclude) && vp_table_rows(t) > 0) {
        /* Time (%) is a share of the rows listed, as in nsys: say so when
         * the rows are not all the kernels (csv has no notes: stderr). */
        char total[32];
        vp_human_ns(total, sizeof total, (double)k.result.grand);
        const char *opts = k.has_filter && k.has_exclude ? "--filter and --exclude"
                           : k.has_filter                ? "--filter"
                                                         : "--exclude";
        if (k.common.format == VP_FMT_CSV || k.common.format == VP_FMT_TSV) {
            if (!vp_quiet)
                fprintf(stderr, "vprof: kernels: note: Time (%%) is each row's share of the "
                                "%s of kernel time that %s keeps, not of all kernel time\n",
                        total, opts);
        } else {
            vp_table_add_note(t, "Time (%%) is each row's share of the %s of kernel time "
                                 "that %s keeps, not of all kernel time",
                              total, opts);
        }
    }
    status = vp_emit_tables(&k.common, &t, 1, "vprof.kernels/1");
    vp_table_free(t);
out:
    vp_kernels_free(&k.result);
    if (k.has_filter)
        regfree(&k.filter);
    if (k.has_exclude)
        regfree(&k.exclude);
    return status;
}
