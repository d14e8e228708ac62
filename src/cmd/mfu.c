/* vprof mfu: model FLOPs utilization from a trace, a training log, or
 * numbers given on the command line. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/inputs.h"
#include "vprof/flops.h"
#include "vprof/mfu_job.h"
#include "vprof/mfu_view.h"
#include "vprof/units.h"
#include "vprof/util.h"

/* The tables, in the order csv and tsv choose from (vp_cmd.tables). */
const vp_table_doc cmd_mfu_tables[] = {
    {"mfu", "TFLOP/s and MFU (with a step time, a trace or a log)"},
    {"flops", "FLOPs per token, per part of the model"},
    {"model", "the model's shape as read from config.json"},
    {"steps", "per step of a trace: time and MFU"},
    {"iterations", "per iteration of a training log"},
    {"log_mfu", "per step, VeOmni's logged flops_achieved(T) / flops_promised(T)"},
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
    VP_OPERANDS_USAGE
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
    "  --log FILE           Megatron-LM / MindSpeed-LLM or key=value training log; a\n"
    "                       VeOmni log or W&B export (CSV, JSON) with flops_achieved(T)\n"
    "                       and flops_promised(T) gives MFU without --model\n"
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
    "      --table NAME     mfu (default), flops, model, steps, iterations, log_mfu, or\n"
    "                       list (what each holds): print that table alone; csv and tsv\n"
    "                       print one table, the first of these that the output has\n"
    "                       unless --table names one\n"
    "      --partial        accept a truncated trace, with a warning\n"
    "  -v, --verbose        say what was read\n"
    "  -q, --quiet          no warnings, no progress bar\n"
    "  -h, --help           this help\n"
    "\n"
    "Examples:\n"
    "  vprof mfu --model config.json --seq-len 8192\n"
    "  vprof mfu trace.json.gz --model config.json --seq-len 8192 --tokens-per-step 1048576\n"
    "  vprof mfu --log megatron.log --model config.json --gpu H100\n"
    "  vprof mfu --log wandb_history.csv\n";

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

/* ---- option values ------------------------------------------------------ */

static int parse_count(const char *opt, const char *arg, int64_t *out)
{
    long long v;
    if (vp_parse_count(arg, 1, INT64_MAX, &v) != 0)
        return vp_usage_error("mfu", "%s: expected a positive whole number, found '%s'", opt, arg);
    *out = v;
    return 0;
}

static int parse_positive(const char *opt, const char *arg, double *out)
{
    if (vp_parse_positive(arg, out) != 0)
        return vp_usage_error("mfu", "%s: expected a positive number, found '%s'", opt, arg);
    return 0;
}

static int parse_seconds(const char *arg, double *out)
{
    if (vp_parse_seconds(arg, out) != 0)
        return vp_usage_error("mfu", "--step-time: expected seconds (\"1.82\", \"1.82s\" or "
                              "\"1820ms\"), found '%s'", arg);
    return 0;
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
    vp_common_opts common;
    vp_common_init(&common);
    vp_mfu_job j = {.convs = VP_CONV_FULL | VP_CONV_CAUSAL};
    j.given.tied = j.given.plain_mlp = -1;
    int c, k;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:qvh", longopts, NULL)) != -1) {
        int h = vp_common_option(&common, self, c, optarg);
        if (h == 2 || h < 0)
            return h == 2 ? VP_EXIT_OK : VP_EXIT_USAGE;
        if (h == 1)
            continue;
        if (c >= OPT_HIDDEN && c <= OPT_DENSE_LAYERS) {
            int f = c - OPT_HIDDEN;
            if (parse_count(model_flags[f], optarg, &j.given.value[f]) != 0)
                return VP_EXIT_USAGE;
            j.given.set |= 1u << f;
            continue;
        }
        int bad = 0;
        switch (c) {
        case OPT_MODEL: j.model_path = optarg; vp_cli_input("--model", optarg); break;
        case OPT_TIED: j.given.tied = 1; break;
        case OPT_UNTIED: j.given.tied = 0; break;
        case OPT_MLP:
            bad = (k = parse_choice("--mlp", optarg, mlps, 2)) < 0;
            j.given.plain_mlp = k;
            break;
        case OPT_SEQ_LEN: bad = parse_count("--seq-len", optarg, &j.seq_len); break;
        case OPT_SEQLENS: j.seqlens_path = optarg; vp_cli_input("--seqlens", optarg); break;
        case OPT_TOKENS_PER_STEP:
            bad = parse_count("--tokens-per-step", optarg, &j.tokens_per_step);
            break;
        case OPT_GLOBAL_BATCH: bad = parse_count("--global-batch", optarg, &j.global_batch); break;
        case OPT_STEP_TIME: bad = parse_seconds(optarg, &j.step_time); break;
        case OPT_TOKENS_PER_SEC:
            bad = parse_positive("--tokens-per-sec", optarg, &j.tokens_per_sec);
            break;
        case OPT_LOG: j.log_path = optarg; vp_cli_input("--log", optarg); break;
        case OPT_WORLD_SIZE: bad = parse_count("--world-size", optarg, &j.world_size); break;
        case OPT_GPU: j.gpu = optarg; break;
        case OPT_PEAK: bad = parse_positive("--peak-tflops", optarg, &j.peak); break;
        case OPT_DTYPE:
            if ((bad = vp_dtype_parse(optarg, &j.dtype) != 0))
                vp_usage_error("mfu", "--dtype: unknown value '%s' (bf16, fp16, fp8)", optarg);
            break;
        case OPT_CONVENTION:
            bad = (k = parse_choice("--convention", optarg, convs, 3)) < 0;
            j.convs = k == 0 ? VP_CONV_FULL : k == 1 ? VP_CONV_CAUSAL
                                                     : VP_CONV_FULL | VP_CONV_CAUSAL;
            break;
        case OPT_RECOMPUTE:
            bad = (k = parse_choice("--recompute", optarg, recomputes, 3)) < 0;
            j.recompute = (vp_recompute)k;
            break;
        default:
            return vp_usage_error("mfu", "unexpected option");
        }
        if (bad)
            return VP_EXIT_USAGE;
    }
    j.steps = common.has_steps ? &common.steps : NULL;
    j.partial = common.partial;
    vp_inputs in;
    int status = vp_inputs_resolve("mfu", argv + optind, (size_t)(argc - optind), &in);
    if (status != 0)
        return status;
    j.traces = in.paths;
    j.ntraces = in.n;

    vp_mfu_result r;
    vp_error err = {0};
    if (vp_mfu_compute(&j, &r, &err) != 0) {
        if (err.status == VP_EXIT_USAGE)
            vp_usage_error("mfu", "%s", err.msg);
        else
            vp_error_print(&err);
        status = err.status;
    } else {
        vp_table *tables[VP_MFU_TABLES];
        size_t n = vp_mfu_tables(&j, &r, tables);
        status = vp_emit_tables(&common, tables, n, "vprof.mfu/1");
        for (size_t i = 0; i < n; i++)
            vp_table_free(tables[i]);
    }
    vp_mfu_result_free(&r);
    vp_inputs_free(&in);
    return status;
}
