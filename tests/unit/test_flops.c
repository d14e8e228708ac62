/* Unit tests for src/flops/model.c and peak.c: exact parameter counts of
 * four public models from their own config.json, the Llama-3-8B worked
 * example of ../shared/reference/mfu.md, and the peak table's matching. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/flops.h"

static void load(const char *file, vp_model *m)
{
    const char *dir = getenv("VPROF_TEST_DATA");
    char path[1024];
    vp_error err = {0};
    snprintf(path, sizeof path, "%s/models/%s", dir ? dir : "tests/data", file);
    if (vp_model_load(path, m, &err) != 0)
        fail_msg("%s", err.msg);
    if (vp_model_check(m, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Rounded to a tenth of a GFLOP, as the worked example prints. */
static double g1(double flops)
{
    return round(flops / 1e8) / 10;
}

static void test_llama3_8b(void **state)
{
    vp_model m;
    vp_params p;
    vp_flops full, causal;
    (void)state;
    load("llama-3-8b.json", &m);
    vp_model_params(&m, &p);
    assert_int_equal(p.total, 8030261248LL);
    assert_int_equal(p.matmul, 7504658432LL);   /* 7.505 B without the input embedding */
    assert_int_equal(p.total - p.embedding, 7504924672LL);  /* norms too: still 7.505 B */
    assert_int_equal(p.active, p.total);
    assert_int_equal(p.lm_head, 128256LL * 4096);
    assert_int_equal(p.mtp, 0);

    /* One 8192-token document. */
    vp_model_flops(&m, VP_ATTN_FULL, 8192, 8192.0 * 8192, &full);
    vp_model_flops(&m, VP_ATTN_CAUSAL, 8192, 8192.0 * 8192, &causal);
    assert_true(g1(full.total) == 57.9);
    assert_true(g1(causal.total) == 51.5);
    assert_true(fabs(full.dense + full.lm_head - 6.0 * 7504658432LL) < 1);
    assert_true(fabs(full.attention - 1572864.0 * 8192) < 1);
    assert_true(fabs(causal.attention * 2 - full.attention) < 1);
    /* MFU at 9000 tokens/s/GPU on an H100 SXM (989 TFLOP/s). */
    assert_true(round(1000 * full.total * 9000 / 989e12) == 527);
    assert_true(round(1000 * causal.total * 9000 / 989e12) == 468);

    /* Eight 1024-token documents packed into 8192. */
    vp_model_flops(&m, VP_ATTN_FULL, 8192, 8 * 1024.0 * 1024, &full);
    vp_model_flops(&m, VP_ATTN_CAUSAL, 8192, 8 * 1024.0 * 1024, &causal);
    assert_true(g1(full.total) == 46.6);
    assert_true(g1(causal.total) == 45.8);

    /* 1 x 4096 and 1 x 32768 of the same table. */
    vp_model_flops(&m, VP_ATTN_CAUSAL, 4096, 4096.0 * 4096, &causal);
    assert_true(round(causal.total / 1e7) == 4825);
    vp_model_flops(&m, VP_ATTN_FULL, 32768, 32768.0 * 32768, &full);
    assert_true(round(full.total / 1e7) == 9657);
}

static void test_qwen25_7b(void **state)
{
    vp_model m;
    vp_params p;
    (void)state;
    load("qwen2.5-7b.json", &m);
    assert_true(m.qkv_bias);
    assert_false(m.o_bias);
    assert_int_equal(m.sliding_window, 0);   /* use_sliding_window: false */
    vp_model_params(&m, &p);
    assert_int_equal(p.total, 7615616512LL);
}

static void test_mixtral(void **state)
{
    vp_model m;
    vp_params p;
    (void)state;
    load("mixtral-8x7b.json", &m);
    assert_int_equal(m.experts, 8);
    assert_int_equal(m.moe_ffn, 14336);
    assert_int_equal(m.moe_layers, 32);
    vp_model_params(&m, &p);
    assert_int_equal(p.total, 46702792704LL);
    assert_int_equal(p.active, 12879925248LL);
}

static void test_deepseek_v3(void **state)
{
    vp_model m;
    vp_params p;
    (void)state;
    load("deepseek-v3.json", &m);
    assert_int_equal(m.moe_layers, 58);
    assert_int_equal(m.shared_ffn, 2048);
    assert_true(m.router_bias);
    vp_model_params(&m, &p);
    assert_int_equal(p.total, 671026419200LL);      /* "671B total" */
    assert_int_equal(p.active, 37552297472LL);
    assert_int_equal(p.active - p.embedding, 36625618432LL);  /* "37B activated" */
    assert_int_equal(p.mtp, 11610068224LL);
    assert_int_equal(llround((double)p.total / 1e9), 671);
}

static void test_flags_alone_and_missing_keys(void **state)
{
    vp_model m;
    vp_error err = {0};
    const char *cfg = "{\"model_type\": \"somethingnew\", \"hidden_size\": 4096, "
                      "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, "
                      "\"intermediate_size\": 14336}";
    (void)state;
    assert_int_equal(vp_model_parse(cfg, strlen(cfg), "c.json", &m, &err), 0);
    assert_int_equal(vp_model_check(&m, &err), -1);
    assert_int_equal(err.status, VP_EXIT_USAGE);
    /* The library names no flag; the CLI's hint adds " or with --vocab". */
    assert_string_equal(err.msg, "the model has no vocab_size: give it in the config");
    m.vocab = 32000;
    memset(&err, 0, sizeof err);
    assert_int_equal(vp_model_check(&m, &err), 0);
    assert_int_equal(m.kv_heads, 32);
    assert_int_equal(m.head_dim, 128);

    /* A wrong kind of value is an input error naming the key. */
    const char *bad = "{\"hidden_size\": \"4096\"}";
    memset(&err, 0, sizeof err);
    assert_int_equal(vp_model_parse(bad, strlen(bad), "b.json", &m, &err), -1);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    assert_non_null(strstr(err.msg, "hidden_size"));
    memset(&err, 0, sizeof err);
    assert_int_equal(vp_model_parse("[1]", 3, "a.json", &m, &err), -1);
    memset(&err, 0, sizeof err);
    assert_int_equal(vp_model_parse("{\"a\":", 5, "t.json", &m, &err), -1);
    assert_int_equal(err.status, VP_EXIT_INPUT);
}

static void test_qwen_moe_layers_and_tied(void **state)
{
    vp_model m;
    vp_error err = {0};
    vp_params p;
    /* Qwen-MoE style: a shared expert with a gate, every second layer MoE,
     * layer 1 forced dense; tied embeddings. */
    const char *cfg = "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, "
                      "\"num_hidden_layers\": 6, \"num_attention_heads\": 4, "
                      "\"num_key_value_heads\": 2, \"intermediate_size\": 128, "
                      "\"vocab_size\": 1000, \"num_experts\": 4, \"num_experts_per_tok\": 2, "
                      "\"moe_intermediate_size\": 32, \"shared_expert_intermediate_size\": 96, "
                      "\"decoder_sparse_step\": 2, \"mlp_only_layers\": [1], "
                      "\"tie_word_embeddings\": true}";
    (void)state;
    assert_int_equal(vp_model_parse(cfg, strlen(cfg), "q.json", &m, &err), 0);
    assert_int_equal(vp_model_check(&m, &err), 0);
    assert_int_equal(m.moe_layers, 2);   /* layers 3 and 5 */
    vp_model_params(&m, &p);
    int64_t h = 64, attn = h * 64 + 2 * h * 32 + 64 * h + 64 + 2 * 32;
    int64_t dense = 3 * h * 128, moe_common = h * 4 + 3 * h * 96 + h;
    int64_t expert = 3 * h * 32;
    assert_int_equal(p.lm_head, 0);
    assert_int_equal(p.total, 1000 * h + 6 * attn + 4 * dense + 2 * (moe_common + 4 * expert) +
                                  6 * 2 * h + h);
    assert_int_equal(p.active, p.total - 2 * 2 * expert);
    /* Tied: the lm_head still costs its FLOPs. */
    assert_int_equal(p.matmul, 6 * (attn - 64 - 64) + 4 * dense + 2 * (moe_common + 2 * expert) +
                                   1000 * h);
}

static void test_hfu(void **state)
{
    vp_flops f = {.dense = 30, .attention = 9, .lm_head = 3, .total = 42};
    (void)state;
    assert_true(vp_flops_hardware(&f, VP_RECOMPUTE_NONE) == 42);
    assert_true(vp_flops_hardware(&f, VP_RECOMPUTE_SELECTIVE) == 45);
    assert_true(vp_flops_hardware(&f, VP_RECOMPUTE_FULL) == 55);
}

static void test_peaks(void **state)
{
    static const struct {
        const char *name;
        const char *device;
        double bf16;
    } cases[] = {
        {"NVIDIA H100 80GB HBM3", "H100 SXM", 989},
        {"NVIDIA H100 PCIe", "H100 PCIe", 756},
        {"NVIDIA H100 NVL", "H100 NVL", 835},
        {"NVIDIA H200", "H200 SXM", 989},
        {"NVIDIA H200 NVL", "H200 NVL", 836},
        {"NVIDIA H20", "H20", 148},
        {"NVIDIA H800", "H800 SXM", 989},
        {"NVIDIA H800 PCIe", "H800 PCIe", 756},
        {"NVIDIA L40S", "L40S", 362.05},
        {"NVIDIA L40", "L40", 181.05},
        {"NVIDIA A100-PG509-200", "A100", 312},
        {"NVIDIA A100-SXM4-80GB", "A100", 312},
        {"NVIDIA A800-SXM4-80GB", "A800", 312},
        {"NVIDIA B200", "B200", 2250},
        {"NVIDIA GB200", "GB200", 2500},
        {"AMD Instinct MI300X", "MI300X", 1307.4},
        {"Ascend910B3", "Ascend 910B3", 294.9},
        {"Ascend910B1", "Ascend 910B1", 373.9},
        {"Ascend910_9392", "Ascend 910_93 (A3, one die)", 353.9},
        {"h100 sxm", "H100 SXM", 989},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const vp_peak *p = vp_peak_lookup(cases[i].name);
        if (!p)
            fail_msg("no entry for %s", cases[i].name);
        if (strcmp(p->device, cases[i].device) != 0 || p->tflops[VP_DTYPE_BF16] != cases[i].bf16)
            fail_msg("%s: got %s %g", cases[i].name, p->device, p->tflops[VP_DTYPE_BF16]);
        assert_non_null(p->source);
    }
    assert_null(vp_peak_lookup("AMD Radeon Graphics"));
    assert_null(vp_peak_lookup("ARTEMIS"));
    const vp_peak *v = vp_peak_lookup("Tesla V100-SXM2-32GB");
    assert_non_null(v);
    assert_true(v->tflops[VP_DTYPE_BF16] == 0 && v->tflops[VP_DTYPE_FP16] == 125);
    assert_true(vp_peak_lookup("H100")->tflops[VP_DTYPE_FP8] == 1979);

    /* A key that is a substring of a later key would shadow it. */
    const vp_peak *t = vp_peak_table();
    for (size_t i = 0; t[i].key; i++)
        for (size_t j = i + 1; t[j].key; j++)
            if (strstr(t[j].key, t[i].key))
                fail_msg("key %s comes before the more specific %s", t[i].key, t[j].key);

    vp_dtype d;
    assert_int_equal(vp_dtype_parse("FP8", &d), 0);
    assert_int_equal(d, VP_DTYPE_FP8);
    assert_int_equal(vp_dtype_parse("int8", &d), -1);
    assert_string_equal(vp_dtype_name(VP_DTYPE_BF16), "bf16");
}

/* One lookup for vprof mfu and the run metrics: the peak, 0 for a device
 * without that dtype's peak, -1 for one not in the table. */
static void test_peak_find(void **state)
{
    const vp_peak *row;
    (void)state;
    assert_true(vp_peak_find("NVIDIA H100 80GB HBM3", VP_DTYPE_BF16, &row) == 989);
    assert_string_equal(row->device, "H100 SXM");
    assert_true(vp_peak_find("NVIDIA H100 PCIe", VP_DTYPE_FP8, &row) == 1513);
    assert_true(vp_peak_find("Tesla V100-SXM2-32GB", VP_DTYPE_BF16, &row) == 0);
    assert_string_equal(row->device, "V100");
    assert_true(vp_peak_find("Tesla V100-SXM2-32GB", VP_DTYPE_FP16, &row) == 125);
    assert_true(vp_peak_find("A100", VP_DTYPE_FP8, &row) == 0);
    assert_true(vp_peak_find("ARTEMIS", VP_DTYPE_BF16, &row) == -1);
    assert_null(row);
    assert_true(vp_peak_find(NULL, VP_DTYPE_BF16, &row) == -1);
    assert_null(row);
}

/* A config with values given over it, and a model from given values alone. */
static void test_model_build(void **state)
{
    const char *dir = getenv("VPROF_TEST_DATA");
    char path[1024];
    vp_model m;
    vp_error err = {0};
    (void)state;
    snprintf(path, sizeof path, "%s/models/llama-3-8b.json", dir ? dir : "tests/data");
    vp_model_given g = {.tied = -1, .plain_mlp = -1};
    assert_int_equal(vp_model_build(path, &g, &m, &err), 0);
    assert_true(m.hidden == 4096 && m.layers == 32 && m.kv_heads == 8 && m.ffn == 14336);
    assert_true(m.head_dim == 128 && m.tied == 0 && m.plain_mlp == 0);

    g.value[VP_MF_LAYERS] = 16;
    g.value[VP_MF_KV_HEADS] = 32;
    g.set = 1u << VP_MF_LAYERS | 1u << VP_MF_KV_HEADS;
    g.tied = 1;
    g.plain_mlp = 1;
    assert_int_equal(vp_model_build(path, &g, &m, &err), 0);
    assert_true(m.hidden == 4096 && m.layers == 16 && m.kv_heads == 32 && m.vocab == 128256);
    assert_true(m.tied == 1 && m.plain_mlp == 1);

    vp_model_given alone = {.tied = -1, .plain_mlp = -1};
    alone.value[VP_MF_HIDDEN] = 1024;
    alone.value[VP_MF_LAYERS] = 4;
    alone.value[VP_MF_HEADS] = 8;
    alone.value[VP_MF_FFN] = 4096;
    alone.value[VP_MF_VOCAB] = 32000;
    alone.set = 1u << VP_MF_HIDDEN | 1u << VP_MF_LAYERS | 1u << VP_MF_HEADS | 1u << VP_MF_FFN |
                1u << VP_MF_VOCAB;
    assert_int_equal(vp_model_build(NULL, &alone, &m, &err), 0);
    assert_true(m.hidden == 1024 && m.kv_heads == 8 && m.head_dim == 128 && m.experts == 0);

    alone.set &= ~(1u << VP_MF_VOCAB);
    assert_int_equal(vp_model_build(NULL, &alone, &m, &err), -1);
    assert_int_equal(err.status, VP_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "vocab_size"));

    vp_error missing = {0};
    assert_int_equal(vp_model_build("no/such/config.json", &g, &m, &missing), -1);
    assert_int_equal(missing.status, VP_EXIT_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama3_8b),
        cmocka_unit_test(test_qwen25_7b),
        cmocka_unit_test(test_mixtral),
        cmocka_unit_test(test_deepseek_v3),
        cmocka_unit_test(test_flags_alone_and_missing_keys),
        cmocka_unit_test(test_qwen_moe_layers_and_tied),
        cmocka_unit_test(test_hfu),
        cmocka_unit_test(test_peaks),
        cmocka_unit_test(test_peak_find),
        cmocka_unit_test(test_model_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
