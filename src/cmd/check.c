/* vprof check: gates on one run, for CI. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/gatecli.h"
#include "cli/runopts.h"
#include "vprof/runstats.h"
#include "vprof/source.h"
#include "vprof/util.h"

const char cmd_check_usage[] =
    "usage: vprof check [options] TRACE...\n"
    "\n"
    "Gates on one run, for CI: each --expect must hold and each --fail-if must\n"
    "not; with --baseline, no metric may be worse than the baseline's by more\n"
    "than --tolerance. Exit status 1 when a gate fails, each failure printed\n"
    "with its measured values. Several traces are the ranks of one run.\n"
    "\n"
    VP_OPERANDS_USAGE
    "\n"
    "  --expect EXPR        must hold, e.g. 'comm.exposed_pct <= 30', 'mfu >= 0.40'\n"
    "  --fail-if EXPR       must not hold (repeatable, both; the language: docs/ci.md)\n"
    "  --baseline FILE      the output of vprof summary -f json for a reference run:\n"
    "                       signed values (+5%) compare against it, and --tolerance\n"
    "                       applies to every metric that has a worse direction\n"
    "  --tolerance PCT      how much worse than the baseline a metric may be (default 5%)\n"
    "  --list-metrics       print the metric names, units and meanings, and exit\n"
    VP_RUN_USAGE
    VP_SCALE_USAGE
    "  -f, --format FMT     table (default), csv, tsv, json, md, github (::error\n"
    "                       annotations), junit (a JUnit XML report)\n"
    "  -o, --output FILE    write there instead of standard output\n"
    "      --partial        accept truncated traces, with a warning\n"
    "  -q, --quiet          no warnings, no progress bar\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit status: 0 every gate holds, 1 a gate failed, 2 usage error (a malformed\n"
    "expression is shown with a caret under the fault), 3 bad input.\n"
    "\n"
    "Examples:\n"
    "  vprof check --expect 'comm.exposed_pct <= 30' --expect 'step.median < 700ms' run.json.gz\n"
    "  vprof check --baseline baseline.json --tolerance 5% -f github new.json.gz\n";

enum { OPT_EXPECT = VP_OPT_FIRST_CMD, OPT_FAIL_IF, OPT_BASELINE, OPT_TOLERANCE, OPT_LIST };

static void list_metrics(void)
{
    for (const vp_metric *m = vp_run_metric_catalogue(); m->name; m++)
        printf("%-22s %-8s %-6s %s\n", m->name, vp_metric_unit_name(m->unit),
               m->worse > 0 ? "lower" : m->worse < 0 ? "higher" : "-", m->what);
    printf("%-22s %-8s %-6s %s\n", "kernel:REGEX", "ns", "lower",
           "total time of the kernels whose name matches REGEX (POSIX extended)");
    printf("\n(the third column: which way is better, for --baseline)\n");
}

/* A baseline: the metrics table of `vprof summary -f json`. */
static vp_run *read_baseline(const char *path, int *status)
{
    vp_error err = {0};
    vp_source *src = vp_source_open(path, &err);
    vp_buf text = {0};
    vp_chunk ch;
    int r = 0;
    if (src) {
        while ((r = vp_source_next(src, &ch, &err)) == 1)
            vp_buf_append(&text, ch.data, ch.len);
        vp_source_close(src);
    }
    if (!src || r < 0) {
        vp_error_print(&err);
        vp_buf_free(&text);
        *status = VP_EXIT_INPUT;
        return NULL;
    }
    cJSON *root = cJSON_ParseWithLength(text.data ? text.data : "", text.len);
    vp_buf_free(&text);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "tables"), "metrics"),
        "rows");
    if (!root || !cJSON_IsString(schema) || strncmp(schema->valuestring, "vprof.summary/", 14) != 0 ||
        !cJSON_IsArray(rows)) {
        fprintf(stderr, "vprof: %s: not a baseline: expected the output of vprof summary -f json "
                        "(schema vprof.summary/1 with a metrics table)\n", path);
        cJSON_Delete(root);
        *status = VP_EXIT_INPUT;
        return NULL;
    }
    vp_run *b = vp_run_new();
    const cJSON *row;
    cJSON_ArrayForEach(row, rows) {
        const cJSON *name = cJSON_GetArrayItem(row, 0), *value = cJSON_GetArrayItem(row, 1);
        if (!cJSON_IsString(name) || !cJSON_IsNumber(value))
            continue;
        for (const vp_metric *m = vp_run_metric_catalogue(); m->name; m++)
            if (strcmp(m->name, name->valuestring) == 0)
                vp_run_set(b, m->name, value->valuedouble);  /* unknown names: a newer vprof's */
    }
    cJSON_Delete(root);
    return b;
}

/* --tolerance: every metric with a direction may be worse by this fraction. */
static size_t baseline_gates(const vp_run *base, const vp_run *now, double tol, vp_verdict **v,
                             char ***texts, size_t *nfail)
{
    size_t n = 0;
    *v = NULL;
    *texts = NULL;
    *nfail = 0;
    for (size_t i = 0; i < vp_run_nmetrics(base); i++) {
        const vp_metric *b = vp_run_metric(base, i);
        const vp_metric *m = vp_run_find(now, b->name);
        if (!b->worse)
            continue;
        char *gate = vp_malloc(96), *detail = vp_malloc(256);
        snprintf(gate, 96, "%s within %g%% of the baseline", b->name, tol * 100);
        int failed;
        if (!m) {
            failed = 1;
            snprintf(detail, 256, "%s is in the baseline but not in this run", b->name);
        } else if (vp_metric_on_device(b->name) && !vp_run_has_device_work(now)) {
            failed = 1;   /* zeros that measure nothing would pass as better */
            snprintf(detail, 256, "%s: the run has no GPU/NPU activity (no kernel, memory copy "
                                  "or collective in the counted events): nothing to judge",
                     b->name);
        } else {
            double change = b->value != 0 ? (m->value - b->value) / fabs(b->value)
                                          : (m->value == b->value ? 0 : (m->value > 0 ? INFINITY : -INFINITY));
            double worse = b->worse > 0 ? change : -change;
            failed = worse > tol;
            char was[48], is[48];
            vp_metric_format(was, sizeof was, b->unit, b->value);
            vp_metric_format(is, sizeof is, b->unit, m->value);
            if (isfinite(change))
                snprintf(detail, 256, "baseline %s, now %s (%+.2f %%)", was, is, change * 100);
            else
                snprintf(detail, 256, "baseline %s, now %s", was, is);
        }
        *v = vp_realloc(*v, (n + 1) * sizeof **v);
        *texts = vp_realloc(*texts, (2 * n + 2) * sizeof **texts);
        (*texts)[2 * n] = gate;
        (*texts)[2 * n + 1] = detail;
        (*v)[n] = (vp_verdict){gate, "baseline", failed, detail};
        *nfail += (size_t)failed;
        n++;
    }
    return n;
}

static int gate_format(void *gates, const char *name)
{
    return vp_gate_format(gates, name);
}

int cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_RUN_LONGOPTS,
        {"expect", required_argument, 0, OPT_EXPECT},
        {"fail-if", required_argument, 0, OPT_FAIL_IF},
        {"baseline", required_argument, 0, OPT_BASELINE},
        {"tolerance", required_argument, 0, OPT_TOLERANCE},
        {"list-metrics", no_argument, 0, OPT_LIST},
        VP_SCALE_LONGOPTS,
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find("check");
    vp_common_opts common;
    vp_common_init(&common);
    vp_run_cli ro;
    vp_run_cli_init(&ro, "check");
    vp_gate_list gates = {0};
    const char *baseline = NULL;
    double tol = 0.05;
    int tol_given = 0;
    int c, status = VP_EXIT_USAGE;
    vp_run *base = NULL, *now = NULL;
    vp_verdict *all = NULL, *v = NULL, *bv = NULL;
    vp_gate_result *res = NULL;
    char **texts = NULL;
    size_t nb = 0;
    optind = 1;
    common.own_format = gate_format;
    common.own_format_ctx = &gates;
    while ((c = vp_getopt(&common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        status = VP_EXIT_USAGE;
        int h = vp_run_option(&ro, "check", c, optarg);
        if (h < 0)
            goto out;
        if (h == 1)
            continue;
        switch (c) {
        case OPT_EXPECT:
        case OPT_FAIL_IF:
            if (vp_gate_list_add(&gates, "check", c == OPT_EXPECT ? "expect" : "fail-if", optarg) != 0)
                goto out;
            vp_run_cli_gate(&ro, optarg);
            break;
        case OPT_BASELINE:
            baseline = optarg;
            vp_cli_input("--baseline", optarg);
            break;
        case OPT_TOLERANCE: {
            char *e;
            tol_given = 1;
            tol = strtod(optarg, &e) / 100;
            if (e == optarg || (strcmp(e, "%") != 0 && *e) || tol < 0) {
                vp_usage_error("check", "--tolerance: expected a percentage like 5%%, found '%s'", optarg);
                goto out;
            }
            break;
        }
        case OPT_LIST:
            list_metrics();
            status = VP_EXIT_OK;
            goto out;
        default:
            vp_usage_error("check", "unexpected option");
            goto out;
        }
    }
    if (c == VP_OPT_EXIT)
        goto out;
    status = VP_EXIT_USAGE;
    if (optind >= argc) {
        vp_usage_error("check", "no trace given (a file, or - for standard input)");
        goto out;
    }
    if (tol_given && !baseline) {
        vp_usage_error("check", "--tolerance needs --baseline (it is how much worse than the "
                                "baseline a metric may be)");
        goto out;
    }
    if (!gates.n && !baseline) {
        vp_usage_error("check", "nothing to check: give --expect, --fail-if or --baseline");
        goto out;
    }
    if (baseline && !(base = read_baseline(baseline, &status)))
        goto out;
    if (!(now = vp_run_cli_read(&ro, &common, argv + optind, (size_t)(argc - optind), &status)))
        goto out;
    long failed = gates.n ? vp_gate_list_eval(&gates, "check", base, now, &v, &res) : 0;
    if (failed < 0) {
        status = VP_EXIT_USAGE;
        goto out;
    }
    size_t bfail = 0;
    if (base)
        nb = baseline_gates(base, now, tol, &bv, &texts, &bfail);
    size_t n = gates.n + nb;
    all = vp_calloc(n ? n : 1, sizeof *all);
    if (gates.n)
        memcpy(all, v, gates.n * sizeof *all);
    if (nb)
        memcpy(all + gates.n, bv, nb * sizeof *all);
    if (gates.ci_format) {
        status = vp_gate_emit_ci(&gates, &common, "vprof check", all, n);
    } else {
        vp_table *t = vp_verdict_table(all, n);
        status = vp_emit_tables(&common, &t, 1, "vprof.check/1");
        vp_table_free(t);
    }
    if (status == VP_EXIT_OK && (failed > 0 || bfail > 0)) {
        for (size_t i = 0; i < n; i++)
            if (all[i].failed)
                fprintf(stderr, "vprof: check: gate failed: %s: %s\n", all[i].gate, all[i].detail);
        status = VP_EXIT_GATE;
    }
out:
    for (size_t i = 0; i < 2 * nb; i++)
        free(texts[i]);
    free(texts);
    free(bv);
    free(all);
    vp_gate_verdicts_free(v, res);
    vp_run_free(base);
    vp_run_free(now);
    vp_gate_list_free(&gates);
    return status;
}
