/* vprof mfu: model FLOPs utilization from a trace, a training log, or
 * numbers given on the command line. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "vprof/flops.h"
#include "vprof/mfu.h"
#include "vprof/mfu_view.h"
#include "vprof/stats.h"
#include "vprof/steps.h"
#include "vprof/table.h"
#include "vprof/trace.h"
#include "vprof/trainlog.h"
#include "vprof/util.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_mfu_tables[] = {
    {"mfu", "TFLOP/s and MFU (with a step time, a trace or a log)"},
    {"flops", "FLOPs per token, per part of the model"},
    {"model", "the model's shape as read from config.json"},
    {"steps", "per step of a trace: time and MFU"},
    {"iterations", "per iteration of a training log"},
    {NULL, NULL},
};

const char cmd_mfu_usage[] =
    "usage: vprof mfu [options] [TRACE...]\n"
    "\n"
    "Model FLOPs utilization: the model's parameters and FLOPs per token, and with a\n"
    "step time the achieved TFLOP/s per GPU and MFU. The model comes from a Hugging\n"
    "Face config.json; the step time from TRACE's ProfilerStep#N spans (median; several\n"
    "traces are the ranks of one run: a step takes its longest rank's time), a\n"
    "training log (--log) or --step-time; the accelerator from the trace's\n"
    "deviceProperties, --gpu or --peak-tflops.\n"
    "\n"
    "Model:\n"
    "  --model FILE         config.json (dense GQA/SwiGLU, MoE, DeepSeek MLA)\n"
    "  --hidden N, --layers N, --heads N, --kv-heads N, --head-dim N, --ffn N,\n"
    "  --vocab N, --experts N, --top-k N, --moe-ffn N, --shared-ffn N,\n"
    "  --dense-layers N     override the config's values (or describe a model alone)\n"
    "  --tied, --untied     the lm_head is (not) the input embedding\n"
    "  --mlp gated|plain    SwiGLU's 3 matrices (default) or 2\n"
    "Work per step:\n"
    "  --seq-len N          tokens per sequence, one document each (whole context)\n"
    "  --seqlens FILE       the real document lengths (packed batches), numbers\n"
    "                       separated by spaces, commas or newlines; '#' comments\n"
    "  --tokens-per-step N  tokens per optimizer step, all ranks together\n"
    "  --global-batch N     sequences per step (tokens per step = N x --seq-len)\n"
    "Time and hardware:\n"
    "  --step-time T        seconds per step (\"1.82\", \"1.82s\" or \"1820ms\")\n"
    "  --tokens-per-sec N   measured tokens per second per GPU (no step time needed)\n"
    "  --log FILE           Megatron-LM / MindSpeed-LLM or key=value training log\n"
    "  --steps A:B          which ProfilerStep#N of TRACE to use (as vprof kernels)\n"
    VP_WORLD_SIZE_USAGE
    "  --gpu NAME           the accelerator, e.g. \"H100 SXM\", \"910B3\" (see docs/mfu.md)\n"
    "  --peak-tflops X      dense peak TFLOP/s per device, instead of the table\n"
    "  --dtype D            bf16 (default), fp16 or fp8 peak\n"
    "Counting:\n"
    "  --convention C       full, causal, or both (default): attention over the whole\n"
    "                       square (PaLM, nanoGPT, VeOmni) or causal (Megatron-LM)\n"
    "  --recompute R        none (default), selective or full: also print HFU\n"
    "  -f, --format FMT     table (default), csv, tsv, json, md\n"
    "  -o, --output FILE    write there instead of standard output\n"
    "      --table NAME     mfu (default), flops, model, steps, iterations, or list (what\n"
    "                       each holds): print that table alone; csv and tsv print one\n"
    "                       table, the first of these that the output has unless --table\n"
    "                       names one\n"
    "      --partial        accept a truncated trace, with a warning\n"
    "  -v, --verbose        say what was read\n"
    "  -q, --quiet          no warnings, no progress bar\n"
    "  -h, --help           this help\n"
    "\n"
    "Examples:\n"
    "  vprof mfu --model config.json --seq-len 8192\n"
    "  vprof mfu trace.json.gz --model config.json --seq-len 8192 --tokens-per-step 1048576\n"
    "  vprof mfu --log megatron.log --model config.json --gpu H100\n";

enum {
    OPT_MODEL = VP_OPT_FIRST_CMD,
    OPT_HIDDEN, OPT_LAYERS, OPT_HEADS, OPT_KV_HEADS, OPT_HEAD_DIM, OPT_FFN, OPT_VOCAB,
    OPT_EXPERTS, OPT_TOP_K, OPT_MOE_FFN, OPT_SHARED_FFN, OPT_DENSE_LAYERS,
    OPT_TIED, OPT_UNTIED, OPT_MLP,
    OPT_SEQ_LEN, OPT_SEQLENS, OPT_TOKENS_PER_STEP, OPT_GLOBAL_BATCH,
    OPT_STEP_TIME, OPT_TOKENS_PER_SEC, OPT_LOG, OPT_WORLD_SIZE,
    OPT_GPU, OPT_PEAK, OPT_DTYPE, OPT_CONVENTION, OPT_RECOMPUTE,
};

/* The model flags, in vp_model_field order. */
static const char *const model_flags[VP_MF_COUNT] = {
    "--hidden", "--layers", "--heads", "--kv-heads", "--head-dim", "--ffn", "--vocab",
    "--experts", "--top-k", "--moe-ffn", "--shared-ffn", "--dense-layers",
};

typedef struct mfu {
    vp_common_opts common;
    const char *model_path, *log_path, *seqlens_path, *gpu, *trace_path;
    vp_model_given given;
    int64_t seq_len, tokens_per_step, global_batch, world_size;
    double step_time, tokens_per_sec, peak;
    vp_dtype dtype;
    int convs;              /* CONV_* bits */
    vp_recompute recompute;
    vp_step_range steps;
    int has_steps;

    vp_model model;
    double tokens, sq_sum;  /* of the documents the attention term is averaged over */
    vp_flops flops[2];      /* full, causal */
    const char *peak_what;  /* for the note: where the peak comes from */
    char peak_note[512];
    char lengths_note[512];
} mfu;

/* ---- option values ------------------------------------------------------ */

static int parse_count(const char *opt, const char *arg, int64_t *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(arg, &e, 10);
    if (*e || e == arg || errno || v <= 0) {
        vp_usage_error("mfu", "%s: expected a positive whole number, found '%s'", opt, arg);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_positive(const char *opt, const char *arg, double *out)
{
    char *e;
    errno = 0;
    double v = strtod(arg, &e);
    if (*e || e == arg || errno || !(v > 0) || !isfinite(v)) {
        vp_usage_error("mfu", "%s: expected a positive number, found '%s'", opt, arg);
        return -1;
    }
    *out = v;
    return 0;
}

/* "1.82", "1.82s", "1820ms", "1820 ms". */
static int parse_seconds(const char *arg, double *out)
{
    char *e;
    errno = 0;
    double v = strtod(arg, &e);
    while (*e == ' ')
        e++;
    double scale = 1;
    if (strcmp(e, "ms") == 0)
        scale = 1e-3;
    else if (strcmp(e, "us") == 0)
        scale = 1e-6;
    else if (*e && strcmp(e, "s") != 0)
        e = NULL;
    if (!e || e == arg || errno || !(v > 0) || !isfinite(v)) {
        vp_usage_error("mfu", "--step-time: expected seconds (\"1.82\", \"1.82s\" or \"1820ms\"), "
                       "found '%s'", arg);
        return -1;
    }
    *out = v * scale;
    return 0;
}

/* ---- the model ---------------------------------------------------------- */

static int build_model(mfu *m)
{
    vp_error err = {0};
    if (!m->model_path && !m->given.set)
        return vp_usage_error("mfu", "no model: give --model config.json, or describe it with "
                              "--hidden, --layers, --heads, --ffn and --vocab");
    if (vp_model_build(m->model_path, &m->given, &m->model, &err) == 0)
        return VP_EXIT_OK;
    if (err.status == VP_EXIT_USAGE)
        return vp_usage_error("mfu", "%s", err.msg);
    vp_error_print(&err);
    return err.status;
}

/* ---- the rate: trace, log or flags -------------------------------------- */

typedef struct rate {
    double step_time;       /* median seconds per step; NAN when not known */
    double tokens_per_gpu;  /* tokens per second per GPU */
    int64_t tokens_per_step;
    int64_t world_size;
    vp_table *steps;        /* the steps or iterations table */
} rate;

/* The steps table, and the step time into r: vprof/mfu.h's median. */
static int steps_median(const vp_mfu_traces *tr, const char *what, rate *r, vp_buf *note)
{
    const vp_step_times *s = &tr->steps;
    if (s->n == 0)
        return vp_usage_error("mfu", "%s has no ProfilerStep#N annotations: give the step time "
                              "with --step-time", what);
    if (vp_step_times_used(s) == 0)
        return vp_usage_error("mfu", "--steps selects none of the steps in %s (ProfilerStep#%ld to "
                              "#%ld)", what, s->st[0].number, s->st[s->n - 1].number);
    size_t counted;
    long out;
    double median = vp_mfu_step_median(s, &counted, &out);
    r->step_time = median / 1e9;
    r->steps = vp_mfu_steps_table(s, out);
    vp_buf_printf(note, "step time: median of %zu ProfilerStep spans in %s", counted, what);
    if (out >= 0)
        vp_buf_printf(note, " (the first, #%ld, is an outlier and left out)", s->st[out].number);
    return VP_EXIT_OK;
}

/* Reads the traces (the ranks of one run): their steps, deviceProperties
 * and distributedInfo. */
static int read_traces(mfu *m, char *const *paths, size_t n, rate *r, vp_buf *notes,
                       char **device)
{
    vp_mfu_traces tr = {0};
    vp_error err = {0};
    if (vp_mfu_read_traces(&tr, paths, n, m->has_steps ? &m->steps : NULL, m->common.partial,
                           &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    int status = VP_EXIT_OK;
    char what[64];
    snprintf(what, sizeof what, "%zu traces", n);
    vp_world_from from;
    r->world_size = vp_world_size(m->world_size, tr.world, tr.ranks, &from);
    if (from == VP_WORLD_FLAG)
        vp_buf_printf(notes, "world size: %lld (--world-size)\n", (long long)r->world_size);
    else if (from == VP_WORLD_DISTRIBUTED)
        vp_buf_printf(notes, "world size: %lld (distributedInfo.world_size)\n",
                      (long long)r->world_size);
    else if (n == 1)
        vp_buf_printf(notes, "world size: 1 (no distributedInfo: a single process; "
                      "--world-size says otherwise)\n");
    else
        vp_buf_printf(notes, "world size: %lld (the traces read, no distributedInfo; "
                      "--world-size says otherwise)\n", (long long)r->world_size);
    *device = tr.device;
    tr.device = NULL;
    const char *name = n == 1 ? tr.first_name : what;
    if (m->step_time) {
        r->step_time = m->step_time;
        vp_buf_printf(notes, "step time: --step-time (the trace's steps are listed)\n");
        vp_buf b = {0};
        rate tmp = {0};
        if (tr.steps.n && steps_median(&tr, name, &tmp, &b) == VP_EXIT_OK)
            r->steps = tmp.steps;
        vp_buf_free(&b);
    } else if (!m->tokens_per_sec) {
        vp_buf b = {0};
        status = steps_median(&tr, name, r, &b);
        if (status == VP_EXIT_OK)
            vp_buf_printf(notes, "%s\n", vp_buf_cstr(&b));
        vp_buf_free(&b);
    }
    vp_mfu_traces_free(&tr);
    return status;
}

/* ---- the peak ------------------------------------------------------------ */

static int resolve_peak(mfu *m, const char *device)
{
    if (m->peak) {
        snprintf(m->peak_note, sizeof m->peak_note, "peak: %g TFLOP/s per device (--peak-tflops)",
                 m->peak);
        return VP_EXIT_OK;
    }
    const char *name = m->gpu ? m->gpu : device;
    const char *from = m->gpu ? "--gpu" : "deviceProperties";
    if (!name)
        return vp_usage_error("mfu", "the accelerator is not known%s: give --gpu NAME (e.g. "
                              "\"H100 SXM\") or --peak-tflops N",
                              m->trace_path ? " (the trace has no deviceProperties)" : "");
    const vp_peak *p;
    double v = vp_peak_find(name, m->dtype, &p);
    if (!p)
        return vp_usage_error("mfu", "'%s' (%s) is not in vprof's peak table: give its dense "
                              "peak with --peak-tflops N", name, from);
    if (!(v > 0))
        return vp_usage_error("mfu", "no dense %s peak known for the %s: give --peak-tflops N%s",
                              vp_dtype_name(m->dtype), p->device,
                              m->dtype == VP_DTYPE_BF16 && p->tflops[VP_DTYPE_FP16] > 0
                                  ? " or --dtype fp16" : "");
    m->peak = v;
    snprintf(m->peak_note, sizeof m->peak_note,
             "peak: %g TFLOP/s dense %s per device, %s (%s); \"%s\" matched in \"%s\" (%s)", v,
             vp_dtype_name(m->dtype), p->device, p->source, p->key, name, from);
    return VP_EXIT_OK;
}

/* Log mode: the iterations table, the medians into r. */
static int log_rates(mfu *m, const vp_trainlog *log, rate *r, vp_buf *notes, vp_table **table)
{
    vp_mfu_log lr;
    vp_error err = {0};
    if (vp_mfu_log_rates(log, m->log_path, (long)m->world_size, m->tokens_per_step,
                         m->global_batch, m->seq_len, &lr, &err) != 0) {
        vp_mfu_log_free(&lr);
        return vp_usage_error("mfu", "%s", err.msg);
    }
    *table = vp_mfu_log_table(log, &lr, m->flops, m->convs, m->peak);
    r->step_time = lr.step_time;
    r->tokens_per_gpu = lr.median_tokens;
    r->world_size = lr.world;
    vp_buf_printf(notes, "tokens/s/GPU: median of %zu iterations in %s\n", lr.rated, m->log_path);
    if (lr.world > 0)
        vp_buf_printf(notes, "world size: %lld (%s)\n", (long long)lr.world,
                      lr.world_from == VP_WORLD_FLAG ? "--world-size" : "the log's world_size");
    vp_mfu_log_free(&lr);
    return VP_EXIT_OK;
}

/* ---- the command ----------------------------------------------------------- */

/* The documents the attention term is averaged over: --seqlens, or one
 * sequence of --seq-len (or the log's seq_length) tokens. */
static int lengths(mfu *m, const vp_trainlog *log)
{
    int64_t seq = m->seq_len ? m->seq_len : log ? log->seq_length : -1;
    if (m->seqlens_path) {
        vp_error err = {0};
        int64_t docs;
        if (vp_seqlens_read(m->seqlens_path, &m->tokens, &m->sq_sum, &docs, &err) != 0) {
            vp_error_print(&err);
            return err.status;
        }
        snprintf(m->lengths_note, sizeof m->lengths_note,
                 "attention per document: %lld documents in %s, %.0f tokens, mean length %.1f",
                 (long long)docs, m->seqlens_path, m->tokens, m->tokens / (double)docs);
        if (!m->tokens_per_step && !m->global_batch && !m->tokens_per_sec)
            m->tokens_per_step = (int64_t)m->tokens;
        return VP_EXIT_OK;
    }
    if (seq <= 0)
        return vp_usage_error("mfu", "the sequence length is not known: give --seq-len N (tokens "
                              "per sequence) or --seqlens FILE (document lengths)");
    m->tokens = (double)seq;
    m->sq_sum = (double)seq * (double)seq;
    snprintf(m->lengths_note, sizeof m->lengths_note,
             "attention over whole sequences of %lld tokens%s, one document each (--seqlens "
             "gives real document lengths)", (long long)seq,
             m->seq_len ? "" : " (the log's seq_length)");
    return VP_EXIT_OK;
}

static void flops_notes(const mfu *m, vp_table *t)
{
    vp_table_add_note(t, "%s", m->lengths_note);
    if (m->convs == (VP_CONV_FULL | VP_CONV_CAUSAL))
        vp_table_add_note(t, "full: the whole s^2 per document (PaLM, nanoGPT, VeOmni); causal: "
                          "s^2/2 (Megatron-LM since 2025-03)");
    if (m->model.sliding_window && m->model.sliding_window < (int64_t)(m->sq_sum / m->tokens))
        vp_warn("the config has a sliding window of %lld tokens; vprof counts full attention",
                (long long)m->model.sliding_window);
}

static int parse_choice(const char *opt, const char *arg, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    vp_buf b = {0};
    for (int i = 0; i < n; i++)
        vp_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
    vp_usage_error("mfu", "%s: unknown value '%s' (%s)", opt, arg, vp_buf_cstr(&b));
    vp_buf_free(&b);
    return -1;
}

int cmd_mfu(int argc, char **argv)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TABLE_LONGOPT,
        {"model", required_argument, 0, OPT_MODEL},
        {"hidden", required_argument, 0, OPT_HIDDEN},
        {"layers", required_argument, 0, OPT_LAYERS},
        {"heads", required_argument, 0, OPT_HEADS},
        {"kv-heads", required_argument, 0, OPT_KV_HEADS},
        {"head-dim", required_argument, 0, OPT_HEAD_DIM},
        {"ffn", required_argument, 0, OPT_FFN},
        {"vocab", required_argument, 0, OPT_VOCAB},
        {"experts", required_argument, 0, OPT_EXPERTS},
        {"top-k", required_argument, 0, OPT_TOP_K},
        {"moe-ffn", required_argument, 0, OPT_MOE_FFN},
        {"shared-ffn", required_argument, 0, OPT_SHARED_FFN},
        {"dense-layers", required_argument, 0, OPT_DENSE_LAYERS},
        {"tied", no_argument, 0, OPT_TIED},
        {"untied", no_argument, 0, OPT_UNTIED},
        {"mlp", required_argument, 0, OPT_MLP},
        {"seq-len", required_argument, 0, OPT_SEQ_LEN},
        {"seqlens", required_argument, 0, OPT_SEQLENS},
        {"tokens-per-step", required_argument, 0, OPT_TOKENS_PER_STEP},
        {"global-batch", required_argument, 0, OPT_GLOBAL_BATCH},
        {"step-time", required_argument, 0, OPT_STEP_TIME},
        {"tokens-per-sec", required_argument, 0, OPT_TOKENS_PER_SEC},
        {"log", required_argument, 0, OPT_LOG},
        VP_STEPS_LONGOPT,
        {"world-size", required_argument, 0, OPT_WORLD_SIZE},
        {"gpu", required_argument, 0, OPT_GPU},
        {"peak-tflops", required_argument, 0, OPT_PEAK},
        {"dtype", required_argument, 0, OPT_DTYPE},
        {"convention", required_argument, 0, OPT_CONVENTION},
        {"recompute", required_argument, 0, OPT_RECOMPUTE},
        {0, 0, 0, 0},
    };
    static const char *const mlps[] = {"gated", "plain"};
    static const char *const convs[] = {"full", "causal", "both"};
    static const char *const recomputes[] = {"none", "selective", "full"};
    const vp_cmd *self = vp_cmd_find("mfu");
    mfu m;
    memset(&m, 0, sizeof m);
    vp_common_init(&m.common);
    m.given.tied = m.given.plain_mlp = -1;
    m.convs = VP_CONV_FULL | VP_CONV_CAUSAL;
    vp_trainlog log = {0};
    int have_log = 0;
    vp_table *tables[4] = {0};
    size_t ntables = 0;
    char *device = NULL;
    vp_buf notes = {0};
    int c, k, status = VP_EXIT_USAGE;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:qvh", longopts, NULL)) != -1) {
        int h = vp_common_option(&m.common, self, c, optarg);
        if (h == 2) {
            status = VP_EXIT_OK;
            goto out;
        }
        if (h < 0)
            goto out;
        if (h == 1)
            continue;
        if (c >= OPT_HIDDEN && c <= OPT_DENSE_LAYERS) {
            int f = c - OPT_HIDDEN;
            if (parse_count(model_flags[f], optarg, &m.given.value[f]) != 0)
                goto out;
            m.given.set |= 1u << f;
            continue;
        }
        switch (c) {
        case OPT_MODEL: m.model_path = optarg; break;
        case OPT_TIED: m.given.tied = 1; break;
        case OPT_UNTIED: m.given.tied = 0; break;
        case OPT_MLP:
            if ((k = parse_choice("--mlp", optarg, mlps, 2)) < 0)
                goto out;
            m.given.plain_mlp = k;
            break;
        case OPT_SEQ_LEN:
            if (parse_count("--seq-len", optarg, &m.seq_len) != 0)
                goto out;
            break;
        case OPT_SEQLENS: m.seqlens_path = optarg; break;
        case OPT_TOKENS_PER_STEP:
            if (parse_count("--tokens-per-step", optarg, &m.tokens_per_step) != 0)
                goto out;
            break;
        case OPT_GLOBAL_BATCH:
            if (parse_count("--global-batch", optarg, &m.global_batch) != 0)
                goto out;
            break;
        case OPT_STEP_TIME:
            if (parse_seconds(optarg, &m.step_time) != 0)
                goto out;
            break;
        case OPT_TOKENS_PER_SEC:
            if (parse_positive("--tokens-per-sec", optarg, &m.tokens_per_sec) != 0)
                goto out;
            break;
        case OPT_LOG: m.log_path = optarg; break;
        case OPT_WORLD_SIZE:
            if (parse_count("--world-size", optarg, &m.world_size) != 0)
                goto out;
            break;
        case OPT_GPU: m.gpu = optarg; break;
        case OPT_PEAK:
            if (parse_positive("--peak-tflops", optarg, &m.peak) != 0)
                goto out;
            break;
        case OPT_DTYPE:
            if (vp_dtype_parse(optarg, &m.dtype) != 0) {
                vp_usage_error("mfu", "--dtype: unknown value '%s' (bf16, fp16, fp8)", optarg);
                goto out;
            }
            break;
        case OPT_CONVENTION:
            if ((k = parse_choice("--convention", optarg, convs, 3)) < 0)
                goto out;
            m.convs = k == 0 ? VP_CONV_FULL : k == 1 ? VP_CONV_CAUSAL : VP_CONV_FULL | VP_CONV_CAUSAL;
            break;
        case OPT_RECOMPUTE:
            if ((k = parse_choice("--recompute", optarg, recomputes, 3)) < 0)
                goto out;
            m.recompute = (vp_recompute)k;
            break;
        default:
            vp_usage_error("mfu", "unexpected option");
            goto out;
        }
    }
    m.steps = m.common.steps;
    m.has_steps = m.common.has_steps;
    if (optind < argc)
        m.trace_path = argv[optind];
    if (m.trace_path && m.log_path) {
        vp_usage_error("mfu", "a trace or --log, not both");
        goto out;
    }
    if (m.seq_len && m.seqlens_path) {
        vp_usage_error("mfu", "--seq-len or --seqlens, not both");
        goto out;
    }
    if (m.tokens_per_step && m.global_batch) {
        vp_usage_error("mfu", "--tokens-per-step or --global-batch, not both");
        goto out;
    }
    if (m.tokens_per_sec && (m.step_time || m.log_path)) {
        vp_usage_error("mfu", "--tokens-per-sec replaces the step time: not with %s",
                       m.log_path ? "--log" : "--step-time");
        goto out;
    }
    if (m.has_steps && !m.trace_path) {
        vp_usage_error("mfu", "--steps selects steps of a trace, and no trace is given");
        goto out;
    }

    if ((status = build_model(&m)) != VP_EXIT_OK)
        goto out;
    if (m.log_path) {
        vp_error err = {0};
        if (vp_trainlog_read(m.log_path, &log, &err) != 0) {
            vp_error_print(&err);
            status = err.status;
            goto out;
        }
        have_log = 1;
    }
    if ((status = lengths(&m, have_log ? &log : NULL)) != VP_EXIT_OK)
        goto out;
    vp_model_flops(&m.model, VP_ATTN_FULL, m.tokens, m.sq_sum, &m.flops[0]);
    vp_model_flops(&m.model, VP_ATTN_CAUSAL, m.tokens, m.sq_sum, &m.flops[1]);
    tables[ntables++] = vp_mfu_model_table(&m.model, m.model_path);
    tables[ntables++] = vp_mfu_flops_table(m.flops, m.convs);
    flops_notes(&m, tables[ntables - 1]);

    int rate_mode = m.trace_path || m.log_path || m.step_time || m.tokens_per_sec;
    if (!rate_mode) {
        if (m.recompute != VP_RECOMPUTE_NONE || m.peak || m.gpu)
            vp_warn("no step time (a trace, --log, --step-time or --tokens-per-sec): the model "
                    "alone is printed");
        status = vp_emit_tables(&m.common, tables, ntables, "vprof.mfu/1");
        goto out;
    }

    rate r = {.step_time = NAN, .tokens_per_gpu = NAN};
    if (m.trace_path && (status = read_traces(&m, argv + optind, (size_t)(argc - optind), &r,
                                              &notes, &device)) != VP_EXIT_OK) {
        if (r.steps)
            vp_table_free(r.steps);
        goto out;
    }
    if ((status = resolve_peak(&m, device)) != VP_EXIT_OK) {
        vp_table_free(r.steps);
        goto out;
    }
    if (have_log) {
        if ((status = log_rates(&m, &log, &r, &notes, &tables[ntables])) != VP_EXIT_OK)
            goto out;
        ntables++;
    } else {
        if (r.steps)
            tables[ntables++] = r.steps;
        if (m.tokens_per_sec) {
            r.tokens_per_gpu = m.tokens_per_sec;
            vp_buf_printf(&notes, "tokens/s/GPU: --tokens-per-sec\n");
        } else {
            if (!m.trace_path) {
                r.step_time = m.step_time;
                if (!m.world_size) {
                    status = vp_usage_error("mfu", "the number of GPUs is not known: give "
                                            "--world-size");
                    goto out;
                }
                r.world_size = m.world_size;
            }
            int64_t per_step = m.tokens_per_step;
            if (!per_step && m.global_batch)
                per_step = m.global_batch * (int64_t)m.tokens;
            if (!per_step) {
                status = vp_usage_error("mfu", "tokens per step not known: give "
                                        "--tokens-per-step, or --global-batch with --seq-len");
                goto out;
            }
            r.tokens_per_step = per_step;
            r.tokens_per_gpu = vp_mfu_tokens_per_gpu((double)per_step, r.step_time, r.world_size);
            vp_buf_printf(&notes, "tokens per step: %lld (%s)\n", (long long)per_step,
                          m.tokens_per_step ? "--tokens-per-step"
                          : m.global_batch  ? "--global-batch x --seq-len"
                                            : "the sum of --seqlens");
        }
    }
    vp_mfu_rate rv = {r.step_time, r.tokens_per_gpu, m.peak, m.recompute, m.peak_note};
    tables[ntables++] = vp_mfu_rate_table(&rv, m.flops, m.convs, vp_buf_cstr(&notes));
    status = vp_emit_tables(&m.common, tables, ntables, "vprof.mfu/1");
out:
    for (size_t i = 0; i < ntables; i++)
        vp_table_free(tables[i]);
    if (have_log)
        vp_trainlog_free(&log);
    free(device);
    vp_buf_free(&notes);
    return status;
}
