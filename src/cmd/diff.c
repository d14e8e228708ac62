/* vprof diff: what got slower between two runs, and a CI gate. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/gatecli.h"
#include "cli/inputs.h"
#include "cli/runopts.h"
#include "vprof/diff_view.h"
#include "vprof/runstats.h"
#include "vprof/table.h"
#include "vprof/util.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_diff_tables[] = {
    {"kernels", "per kernel: base, new and the change"},
    {"runs", "what differs about the runs themselves: devices, world size, steps, schema"},
    {"classes", "per kernel class: base, new and the change"},
    {"metrics", "every metric: base, new and the change"},
    {"gates", "with --fail-if: each gate and whether it held"},
    {NULL, NULL},
};

const char cmd_diff_usage[] =
    "usage: vprof diff [options] BASE NEW\n"
    "\n"
    "What changed from the BASE run to the NEW one: first what the runs were\n"
    "(device, GPUs, compute capability, world size, ranks, steps, trace schema;\n"
    "a warning names what differs); per kernel the total time, instances and the\n"
    "change, sorted by the size of the change, kernels that appear or disappear\n"
    "marked, names that differ only in literals (<128, 64> -> <256, 64>, 2ul ->\n"
    "5ul) paired in one row; per kernel class; and every run metric (step time,\n"
    "GPU shares, exposed communication, peak memory, MFU ...), percentages\n"
    "changing in points (pp). BASE and NEW are a trace each, or a directory of\n"
    "a run's rank traces (*.json, *.json.gz, *.gz). --fail-if turns the diff\n"
    "into a CI gate: exit status 1 when one holds.\n"
    "\n"
    "  --fail-if EXPR       fail (exit 1) when EXPR holds, e.g. 'step.median > +5%',\n"
    "                       'kernel:flash_fwd.* > +10%' (repeatable; docs/ci.md)\n"
    "  --min-delta TIME     hide kernels whose total changed by less (e.g. 50us)\n"
    "  --top N              keep the N largest kernel changes (per rank with --by rank)\n"
    "  --by rank            a row block per rank: the base's and the new run's traces\n"
    "                       of one rank compared (gates still judge the whole run)\n"
    "      --exact-names    match kernels by their exact names only: no pairing of\n"
    "                       names that differ in literals (docs/ci.md)\n"
    VP_RUN_USAGE
    "  -j, --jobs N         read N files at a time in worker processes (default: one per\n"
    "                       online core); the output is the same for every N\n"
    "  -f, --format FMT     table (default), csv, tsv, json, md; or github, junit for\n"
    "                       the gates alone, as CI systems read them\n"
    "  -o, --output FILE    write there instead of standard output\n"
    "      --table NAME     kernels (default), runs, classes, metrics, gates, or list (what\n"
    "                       each holds): print that table alone; csv and tsv print one table,\n"
    "                       the first of these that the output has unless --table names one\n"
    "      --full-names     never shorten kernel names in the table format\n"
    "      --partial        accept truncated traces, with a warning\n"
    "  -q, --quiet          no warnings, no progress bar\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit status: 0 ok, 1 a --fail-if gate held, 2 usage error (a malformed\n"
    "expression is shown with a caret under the fault), 3 bad input.\n"
    "\n"
    "Examples:\n"
    "  vprof diff base.json.gz new.json.gz\n"
    "  vprof diff --fail-if 'step.median > +5%' --fail-if 'kernel:flash_fwd.* > +10%' base/ new/\n";

enum { OPT_FAIL_IF = VP_OPT_FIRST_CMD, OPT_MIN_DELTA, OPT_BY, OPT_EXACT_NAMES };

/* --by rank: each side's files as runs of their own, paired by rank. */
typedef struct rank_runs {
    vp_run **runs;
    long *ranks;
    size_t n;
} rank_runs;

static int read_each(const vp_run_cli *ro, const vp_common_opts *common, char **paths, size_t n,
                     rank_runs *out, int *status)
{
    out->runs = vp_calloc(n ? n : 1, sizeof *out->runs);
    out->ranks = vp_calloc(n ? n : 1, sizeof *out->ranks);
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        if (!(out->runs[i] = vp_run_cli_read(ro, common, &paths[i], 1, status)))
            return -1;
        out->ranks[i] = vp_run_rank(out->runs[i], 0);
    }
    return 0;
}

static void free_each(rank_runs *r)
{
    for (size_t i = 0; i < r->n; i++)
        vp_run_free(r->runs[i]);
    free(r->runs);
    free(r->ranks);
}

static int parse_time(const char *arg, int64_t *out)
{
    char *end;
    double v = strtod(arg, &end);
    double scale = 1;
    if (end == arg || v < 0)
        return -1;
    if (!strcmp(end, "") || !strcmp(end, "ns"))
        scale = 1;
    else if (!strcmp(end, "us"))
        scale = 1e3;
    else if (!strcmp(end, "ms"))
        scale = 1e6;
    else if (!strcmp(end, "s"))
        scale = 1e9;
    else
        return -1;
    *out = (int64_t)(v * scale);
    return 0;
}

static int gate_format(void *gates, const char *name)
{
    return vp_gate_format(gates, name);
}

int cmd_diff(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TABLE_LONGOPT,
        VP_RUN_LONGOPTS,
        {"fail-if", required_argument, 0, OPT_FAIL_IF},
        {"min-delta", required_argument, 0, OPT_MIN_DELTA},
        VP_TOP_LONGOPT,
        {"by", required_argument, 0, OPT_BY},
        {"exact-names", no_argument, 0, OPT_EXACT_NAMES},
        {"jobs", required_argument, 0, 'j'},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("diff");
    vp_common_opts common;
    vp_common_init(&common);
    vp_run_cli ro;
    vp_run_cli_init(&ro, "diff");
    vp_gate_list gates = {0};
    vp_diff_kernel_opts ko = {0};
    int c, status = VP_EXIT_USAGE, by_rank = 0;
    vp_run *base = NULL, *now = NULL;
    vp_inputs bp = {0}, np = {0};
    optind = 1;
    common.own_format = gate_format;
    common.own_format_ctx = &gates;
    while ((c = vp_getopt(&common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        int h = vp_run_option(&ro, "diff", c, optarg);
        if (h < 0)
            goto out;
        if (h == 1)
            continue;
        switch (c) {
        case OPT_FAIL_IF:
            if (vp_gate_list_add(&gates, "diff", "fail-if", optarg) != 0)
                goto out;
            vp_run_cli_gate(&ro, optarg);
            break;
        case OPT_BY:
            if (strcmp(optarg, "rank") != 0) {
                vp_usage_error("diff", "--by: only 'rank' (pairs the runs' rank traces), found '%s'", optarg);
                goto out;
            }
            by_rank = 1;
            break;
        case OPT_MIN_DELTA:
            if (parse_time(optarg, &ko.min_delta) != 0) {
                vp_usage_error("diff", "--min-delta: expected a time like 50us or 2ms, found '%s'", optarg);
                goto out;
            }
            break;
        case OPT_EXACT_NAMES:
            ko.exact_names = 1;
            break;
        default:
            vp_usage_error("diff", "unexpected option");
            goto out;
        }
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (argc - optind != 2) {
        vp_usage_error("diff", "expected BASE and NEW (a trace or a directory of rank traces each), "
                               "found %d argument%s", argc - optind, argc - optind == 1 ? "" : "s");
        goto out;
    }
    if (gates.ci_format && !gates.n) {
        vp_usage_error("diff", "-f github and -f junit report gates: give --fail-if");
        goto out;
    }
    /* each side on its own: BASE and NEW may be one run (a diff of zero) */
    if ((status = vp_inputs_resolve("diff", argv + optind, 1, &bp)) != 0 ||
        (status = vp_inputs_resolve("diff", argv + optind + 1, 1, &np)) != 0)
        goto out;
    if (!(base = vp_run_cli_read(&ro, &common, bp.paths, bp.n, &status)) ||
        !(now = vp_run_cli_read(&ro, &common, np.paths, np.n, &status)))
        goto out;

    /* What the runs were comes first: a diff across devices or step
     * counts compares more than the code change. */
    vp_buf differs = {0};
    vp_table *runs = vp_diff_runs_table(base, now, &differs);
    if (differs.len)
        vp_warn("diff: the runs differ in %s", differs.data);
    vp_buf_free(&differs);

    vp_verdict *v = NULL;
    vp_gate_result *res = NULL;
    long failed = 0;
    if (gates.n && (failed = vp_gate_list_eval(&gates, "diff", base, now, &v, &res)) < 0) {
        status = VP_EXIT_USAGE;
        goto out;
    }
    if (gates.ci_format) {
        status = vp_gate_emit_ci(&gates, &common, "vprof diff", v, gates.n);
    } else {
        vp_table *all[5], **t = all + 1;
        size_t nt = 0, hidden = 0, ambiguous = 0;
        all[0] = runs;
        runs = NULL;
        ko.top = common.top;
        int raw = common.format == VP_FMT_CSV || common.format == VP_FMT_TSV ||
                  common.format == VP_FMT_JSON;
        t[0] = vp_diff_kernel_table(by_rank);
        t[1] = vp_diff_class_table(by_rank);
        t[2] = vp_diff_metric_table(by_rank, raw);
        nt = 3;
        if (!by_rank) {
            hidden = vp_diff_kernel_rows(t[0], base, now, -1, &ko, &ambiguous);
            vp_diff_class_rows(t[1], base, now, -1);
            vp_diff_metric_rows(t[2], base, now, -1, raw);
        } else {
            rank_runs rb = {0}, rn = {0};
            if (read_each(&ro, &common, bp.paths, bp.n, &rb, &status) == 0 &&
                read_each(&ro, &common, np.paths, np.n, &rn, &status) == 0) {
                for (size_t i = 0; i < rb.n; i++) {
                    size_t j = 0;
                    while (j < rn.n && rn.ranks[j] != rb.ranks[i])
                        j++;
                    if (j == rn.n) {
                        vp_table_add_note(t[0], "rank %ld is only in the base run", rb.ranks[i]);
                        continue;
                    }
                    hidden += vp_diff_kernel_rows(t[0], rb.runs[i], rn.runs[j], rb.ranks[i], &ko,
                                                  &ambiguous);
                    vp_diff_class_rows(t[1], rb.runs[i], rn.runs[j], rb.ranks[i]);
                    vp_diff_metric_rows(t[2], rb.runs[i], rn.runs[j], rb.ranks[i], raw);
                }
                for (size_t j = 0; j < rn.n; j++) {
                    size_t i = 0;
                    while (i < rb.n && rb.ranks[i] != rn.ranks[j])
                        i++;
                    if (i == rb.n)
                        vp_table_add_note(t[0], "rank %ld is only in the new run", rn.ranks[j]);
                }
            } else {
                nt = 0;
            }
            free_each(&rb);
            free_each(&rn);
        }
        if (ambiguous)
            vp_table_add_note(t[0], "%zu kernels not paired: their names differ only in literals "
                                    "but several of one run share that form (docs/ci.md)",
                              ambiguous);
        if (hidden)
            vp_table_add_note(t[0], "%zu kernels with smaller changes not shown (--min-delta, --top)",
                              hidden);
        vp_table_add_note(t[1], "kernels only (memcpy, memset and sync are in the metrics)");
        vp_table_add_note(t[2], "Delta: new - base, in percentage points (pp) for a percentage; "
                                "Relative: of the base value, none for a percentage");
        if (gates.n)
            t[nt++] = vp_verdict_table(v, gates.n);
        if (nt)
            status = vp_emit_tables(&common, all, nt + 1, "vprof.diff/2");
        for (size_t i = 0; i < (nt ? nt : 3) + 1; i++)
            vp_table_free(all[i]);
    }
    if (status == VP_EXIT_OK && failed > 0) {
        for (size_t i = 0; i < gates.n; i++)
            if (v[i].failed)
                fprintf(stderr, "vprof: diff: gate failed: %s: %s\n", v[i].gate, v[i].detail);
        status = VP_EXIT_GATE;
    }
    vp_gate_verdicts_free(v, res);
    vp_table_free(runs);
out:
    vp_run_free(base);
    vp_run_free(now);
    vp_inputs_free(&bp);
    vp_inputs_free(&np);
    vp_gate_list_free(&gates);
    return status;
}
