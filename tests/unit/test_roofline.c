/* Unit tests for src/analysis/roofline/roofline_model.c and roofline.c: each cost
 * model on shapes computed by hand (docs/roofline.md has the formulas),
 * including broadcasting, causal attention, grouped and transposed
 * convolutions and FP8 GEMMs; the three checks of TraceLens's reference
 * CSVs that ../shared/reference/roofline.md works out; the peaks by
 * device name and dtype; a row's figures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/roofline.h"

#define BF "\"c10::BFloat16\""

static vp_rl_cost cost(const char *name, const char *dims, const char *types, const char *conc)
{
    vp_rl_cost c;
    const char *why = NULL;
    if (vp_rl_cost_of(name, dims, types, conc, &c, &why) != 0)
        fail_msg("%s %s: no cost (%s)", name, dims, why ? why : "?");
    return c;
}

static void expect(const char *name, const char *dims, const char *types, const char *conc,
                   double flops, double bytes, vp_rl_family fam, vp_rl_prec prec)
{
    vp_rl_cost c = cost(name, dims, types, conc);
    if (c.flops != flops || c.bytes != bytes || c.family != fam || c.prec != prec)
        fail_msg("%s %s: flops %.17g bytes %.17g family %d prec %d; expected %.17g %.17g %d %d",
                 name, dims, c.flops, c.bytes, c.family, c.prec, flops, bytes, fam, prec);
}

static void refuse(const char *name, const char *dims, const char *types, const char *conc,
                   const char *why_expected)
{
    vp_rl_cost c;
    const char *why = NULL;
    assert_int_equal(vp_rl_cost_of(name, dims, types, conc, &c, &why), -1);
    assert_string_equal(why, why_expected);
}

static void test_gemm(void **state)
{
    (void)state;
    /* mm: 2MNK; A, B, C at their dtype */
    expect("aten::mm", "[[1024, 4096], [4096, 512]]", "[" BF ", " BF "]", NULL,
           2.0 * 1024 * 4096 * 512, (1024.0 * 4096 + 4096.0 * 512 + 1024.0 * 512) * 2, VP_RL_GEMM,
           VP_RL_BF16);
    /* addmm with a [N] bias: + MN FLOPs, + N elements (TraceLens's Falconsai
     * GEMM.csv: M=788, N=768, K=768 -> 0.930167808 GFLOPS, 3.43505859375 MiB) */
    expect("aten::addmm", "[[768], [788, 768], [768, 768], [], []]",
           "[" BF ", " BF ", " BF ", \"Scalar\", \"Scalar\"]", NULL, 930167808.0,
           3.43505859375 * 1048576, VP_RL_GEMM, VP_RL_BF16);
    /* bmm: per batch */
    expect("aten::bmm", "[[8, 64, 32], [8, 32, 16]]", "[\"float\", \"float\"]", NULL,
           8 * 2.0 * 64 * 16 * 32, 8 * (64.0 * 32 + 32 * 16 + 64 * 16) * 4, VP_RL_GEMM, VP_RL_FP32);
    /* baddbmm with a full (B, M, N) bias: its own size, once */
    expect("aten::baddbmm", "[[8, 64, 16], [8, 64, 32], [8, 32, 16], [], []]",
           "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL,
           8 * (2.0 * 64 * 16 * 32 + 64 * 16), 8 * (64.0 * 32 + 32 * 16 + 64 * 16) * 4 + 8 * 64 * 16 * 4.0,
           VP_RL_GEMM, VP_RL_FP32);
    /* FP8 _scaled_mm: 1-byte inputs, 2-byte output, scales not counted */
    expect("aten::_scaled_mm", "[[256, 512], [512, 128], [], [], [], [], [], []]",
           "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"\", \"\", "
           "\"\", \"\"]",
           NULL, 2.0 * 256 * 128 * 512, 256.0 * 512 + 512.0 * 128 + 256.0 * 128 * 2, VP_RL_GEMM,
           VP_RL_FP8);
    /* with a bias (index 4) */
    expect("aten::_scaled_mm", "[[256, 512], [512, 128], [], [], [128], [], [], []]",
           "[\"c10::Float8_e5m2\", \"c10::Float8_e4m3fn\", \"float\", \"float\", " BF
           ", \"\", \"\", \"\"]",
           NULL, 2.0 * 256 * 128 * 512 + 256.0 * 128,
           256.0 * 512 + 512.0 * 128 + 256.0 * 128 * 2 + 128 * 2, VP_RL_GEMM, VP_RL_FP8);
    /* int8 in, int32 out */
    expect("aten::_int_mm", "[[32, 64], [64, 16]]", "[\"signed char\", \"signed char\"]", NULL,
           2.0 * 32 * 16 * 64, 32.0 * 64 + 64 * 16 + 32 * 16 * 4, VP_RL_GEMM, VP_RL_INT8);
    /* addmv: 2MN + M, bias and output M each */
    expect("aten::addmv", "[[100], [100, 300], [300], [], []]",
           "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, 2.0 * 100 * 300 + 100,
           (100.0 * 300 + 300 + 100 + 100) * 4, VP_RL_GEMM, VP_RL_FP32);
    refuse("aten::mm", "[[1024, 4096]]", "[" BF "]", NULL, "not two 2-D matrices");
    refuse("aten::linear", "[[2, 3], [3, 3]]", "[]", NULL, "no model");
    assert_int_equal(vp_rl_family_of("aten::matmul"), VP_RL_NONE);
}

static void test_attention(void **state)
{
    (void)state;
    const char *qkv = "[[4, 12, 197, 64], [4, 12, 197, 64], [4, 12, 197, 64], [], [], [], []]";
    const char *t = "[" BF ", " BF ", " BF ", \"Scalar\", \"bool\", \"bool\", \"\"]";
    /* TraceLens's Falconsai SDPA_fwd.csv: 0.476884992 GFLOPS, 4.6171875 MiB */
    expect("aten::_scaled_dot_product_flash_attention", qkv, t,
           "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"\"]", 476884992.0,
           4.6171875 * 1048576, VP_RL_ATTN_FWD, VP_RL_BF16);
    /* causal (concrete input 4) halves the FLOPs, not the bytes */
    expect("aten::_scaled_dot_product_flash_attention", qkv, t,
           "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"\"]", 476884992.0 / 2,
           4.6171875 * 1048576, VP_RL_ATTN_FWD, VP_RL_BF16);
    /* flash-attn's layout is (B, N, H, d): causal at 5 */
    expect("flash_attn::_flash_attn_forward",
           "[[2, 1024, 8, 128], [2, 1024, 8, 128], [2, 1024, 8, 128], [], [], []]",
           "[" BF ", " BF ", " BF ", \"Scalar\", \"Scalar\", \"bool\"]",
           "[\"\", \"\", \"\", \"0.0\", \"0.088\", \"True\"]",
           2.0 * 2 * 8 * 1024 * 1024 * 256 / 2, 4.0 * 2 * 1024 * 8 * 128 * 2, VP_RL_ATTN_FWD,
           VP_RL_BF16);
    /* TraceLens's compare_test SDPA_bwd.csv: B=512, H=16, N=176, d=64,
     * 162.40345088 GFLOPS (5 products of 2BHN^2d, flash), 1232 MiB (7 tensors) */
    const char *bq = "[[512, 16, 176, 64], [512, 16, 176, 64], [512, 16, 176, 64], "
                     "[512, 16, 176, 64], [512, 16, 176, 64], [512, 16, 176], [], [], [], [], [], [], "
                     "[], [], []]";
    const char *bt = "[" BF ", " BF ", " BF ", " BF ", " BF ", \"float\"]";
    expect("aten::_scaled_dot_product_flash_attention_backward", bq, bt,
           "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"176\", \"176\", \"0.\", \"False\"]",
           162.40345088e9, 1232.0 * 1048576, VP_RL_ATTN_BWD, VP_RL_BF16);
    /* efficient attention does not recompute QK^T: 4 products */
    expect("aten::_scaled_dot_product_efficient_attention_backward", bq, bt,
           "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.\", \"\", \"False\"]",
           162.40345088e9 * 4 / 5, 1232.0 * 1048576, VP_RL_ATTN_BWD, VP_RL_BF16);
    /* grouped-query attention: K, V with 2 heads for 8 query heads; the
     * backward sums dK, dV over the 4 query heads of each */
    double B = 1, Hq = 8, Hkv = 2, N = 256, d = 64, mm = 2 * B * Hq * N * N;
    expect("aten::_flash_attention_backward",
           "[[1, 256, 8, 64], [1, 256, 8, 64], [1, 256, 2, 64], [1, 256, 2, 64], [1, 256, 8, 64]]",
           "[" BF ", " BF ", " BF ", " BF ", " BF "]",
           "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.\", \"True\"]",
           (5 * mm * d + 2 * B * N * d * (Hq / Hkv - 1)) / 2,
           (2 * (B * N * Hq * d) + 2 * (B * N * Hkv * d) + 2 * (B * N * Hkv * d) + B * N * Hq * d) * 2,
           VP_RL_ATTN_BWD, VP_RL_BF16);
    /* xformers' mask type: 1 (causal from the top left) halves */
    expect("aten::_efficient_attention_forward",
           "[[1, 128, 4, 32], [1, 128, 4, 32], [1, 128, 4, 32], [], [], [], [], [], [], []]",
           "[\"float\", \"float\", \"float\"]",
           "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"0.\", \"1\"]",
           2.0 * 4 * 128 * 128 * 64 / 2, 4.0 * 128 * 4 * 32 * 4, VP_RL_ATTN_FWD, VP_RL_FP32);
    refuse("aten::_scaled_dot_product_flash_attention", "[[4, 197, 64]]", "[]", NULL,
           "Q, K, V are not 4-D");
}

static void test_conv(void **state)
{
    (void)state;
    /* TraceLens's Falconsai CONV_fwd.csv: x (4,3,224,224), w (768,3,16,16),
     * stride 16 -> 0.924844032 GFLOPS, 3.421875 MiB without the bias; vprof
     * counts the bias TraceLens's parser never sees (docs/roofline.md) */
    const char *d = "[[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], [], [], []]";
    const char *t = "[" BF ", " BF ", " BF "]";
    expect("aten::convolution", d, t,
           "[\"\", \"\", \"\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]",
           924844032.0 + 4 * 768 * 14 * 14, 3.421875 * 1048576 + 768 * 2, VP_RL_CONV_FWD,
           VP_RL_BF16);
    /* grouped: 4 groups of 8 input channels, 3x3, padding 1 */
    expect("aten::convolution", "[[2, 32, 56, 56], [64, 8, 3, 3], [], [], [], [], [], [], []]",
           "[" BF ", " BF ", \"\"]",
           "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"4\"]",
           2.0 * (2 * 64 * 56 * 56) * (8 * 9), (2.0 * 32 * 56 * 56 + 64 * 8 * 9 + 2 * 64 * 56 * 56) * 2,
           VP_RL_CONV_FWD, VP_RL_BF16);
    /* strided, dilated, one padding value for both dims: out = (56 + 2 - 2*2 - 1)/2 + 1 = 27 */
    expect("aten::convolution", "[[1, 16, 56, 56], [32, 16, 3, 3], [], [], [], [], [], [], []]",
           "[\"float\", \"float\", \"\"]",
           "[\"\", \"\", \"\", \"[2]\", \"[1]\", \"[2]\", \"False\", \"[0]\", \"1\"]",
           2.0 * (32 * 27 * 27) * (16 * 9), (16.0 * 56 * 56 + 32 * 16 * 9 + 32 * 27 * 27) * 4,
           VP_RL_CONV_FWD, VP_RL_FP32);
    /* transposed: w (C_in, C_out/groups, k, k); out = (8-1)*2 - 2 + 3 + 1 = 16 */
    expect("aten::convolution", "[[1, 16, 8, 8], [16, 8, 4, 4], [], [], [], [], [], [], []]",
           "[\"float\", \"float\", \"\"]",
           "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[0, 0]\", \"1\"]",
           2.0 * (16 * 8 * 8) * (8 * 16), (16.0 * 64 + 16 * 8 * 16 + 8 * 16 * 16) * 4,
           VP_RL_CONV_FWD, VP_RL_FP32);
    /* TraceLens's resnet CONV_bwd.csv: x = out = (10,64,56,56), w (64,64,3,3)
     * bf16 -> 4.62422016 GFLOPS, 15.453125 MiB: dX and dW, each reading
     * and writing its three tensors */
    const char *bd = "[[10, 64, 56, 56], [10, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], "
                     "[], []]";
    const char *bc = "[\"\", \"\", \"\", \"[]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", "
                     "\"[0, 0]\", \"1\", \"[True, True, False]\"]";
    expect("aten::convolution_backward", bd, "[" BF ", " BF ", " BF "]", bc, 4.62422016e9,
           15.453125 * 1048576, VP_RL_CONV_BWD, VP_RL_BF16);
    /* the first layer needs no input gradient: output_mask says so */
    const char *bc1 = "[\"\", \"\", \"\", \"[]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", "
                      "\"[0, 0]\", \"1\", \"[False, True, False]\"]";
    expect("aten::convolution_backward", bd, "[" BF ", " BF ", " BF "]", bc1,
           4.62422016e9 / 2, 15.453125 * 1048576 / 2, VP_RL_CONV_BWD, VP_RL_BF16);
}

static void test_elementwise(void **state)
{
    (void)state;
    /* TraceLens's Falconsai BinaryElementwise: (4,197,768) + (1,197,768):
     * 0.000605184 GFLOPS, 2.59716796875 MiB; each input at its own size */
    expect("aten::add", "[[4, 197, 768], [1, 197, 768], []]", "[" BF ", " BF ", \"Scalar\"]",
           "[\"\", \"\", \"1\"]", 605184, 2.59716796875 * 1048576, VP_RL_ELEMENTWISE, VP_RL_BF16);
    /* broadcasting both ways: (8,1,16) * (1,4,1) -> (8,4,16) */
    expect("aten::mul", "[[8, 1, 16], [1, 4, 1]]", "[\"float\", \"float\"]", NULL, 8 * 4 * 16,
           (128.0 + 4 + 512) * 4, VP_RL_ELEMENTWISE, VP_RL_FP32);
    /* a Python scalar: shape (), 4 bytes (TraceLens's "Scalar") */
    expect("aten::mul", "[[1024], []]", "[" BF ", \"Scalar\"]", NULL, 1024,
           1024.0 * 2 + 4 + 1024 * 2, VP_RL_ELEMENTWISE, VP_RL_BF16);
    /* mixed dtypes: the output at the wider */
    expect("aten::add", "[[64], [64], []]", "[" BF ", \"float\", \"Scalar\"]", NULL, 64,
           64.0 * 2 + 64 * 4 + 64 * 4, VP_RL_ELEMENTWISE, VP_RL_BF16);
    refuse("aten::add", "[[3, 4], [5, 4], []]", "[\"float\", \"float\"]", NULL,
           "the shapes do not broadcast");
    /* dtype conversion: copy_(dst bf16, src fp32) */
    expect("aten::copy_", "[[1024, 16], [1024, 16], []]", "[" BF ", \"float\", \"bool\"]", NULL,
           16384, 16384.0 * 4 + 16384 * 2, VP_RL_ELEMENTWISE, VP_RL_BF16);
    /* a broadcasting copy reads the source once */
    expect("aten::copy_", "[[8, 1024], [1024], []]", "[\"float\", \"float\", \"bool\"]", NULL,
           8192, 1024.0 * 4 + 8192 * 4, VP_RL_ELEMENTWISE, VP_RL_FP32);
    expect("aten::silu", "[[2, 4096]]", "[\"c10::Half\"]", NULL, 8192, 8192.0 * 4,
           VP_RL_ELEMENTWISE, VP_RL_FP16);
    expect("aten::fill_", "[[100], []]", "[\"float\", \"Scalar\"]", NULL, 100, 400,
           VP_RL_ELEMENTWISE, VP_RL_FP32);
}

static void test_reduce_norm_softmax_embedding(void **state)
{
    (void)state;
    /* over the last dim: the output is one per row */
    expect("aten::sum", "[[8, 1024], [], [], []]", "[\"float\", \"\", \"bool\", \"\"]",
           "[\"\", \"[-1]\", \"False\", \"\"]", 8192, (8192.0 + 8) * 4, VP_RL_REDUCE, VP_RL_FP32);
    /* every dim */
    expect("aten::mean", "[[8, 1024], []]", "[\"float\", \"\"]", NULL, 8192, (8192.0 + 1) * 4,
           VP_RL_REDUCE, VP_RL_FP32);
    expect("aten::cumsum", "[[8, 1024], [], []]", "[\"float\", \"\", \"\"]",
           "[\"\", \"1\", \"\"]", 8192, 2 * 8192.0 * 4, VP_RL_REDUCE, VP_RL_FP32);
    /* max of two tensors is costed as elementwise (both inputs, the
     * output), listed with the reductions as TraceLens lists it */
    expect("aten::max", "[[16], [16]]", "[\"float\", \"float\"]", NULL, 16, 3 * 16 * 4.0,
           VP_RL_REDUCE, VP_RL_FP32);
    /* TraceLens's Falconsai Normalization.csv: layer_norm (4,197,768) bf16
     * -> 3030528 FLOPs, 2.3173828125 MiB */
    expect("aten::layer_norm", "[[4, 197, 768], [], [768], [768], [], []]",
           "[" BF ", \"\", " BF ", " BF ", \"Scalar\", \"Scalar\"]",
           "[\"\", \"[768]\", \"\", \"\", \"1e-05\", \"True\"]", 3030528, 2.3173828125 * 1048576,
           VP_RL_NORM_FWD, VP_RL_BF16);
    /* batch norm in eval mode: no statistics computed, none written */
    double N = 2.0 * 64 * 8 * 8, C = 64;
    expect("aten::native_batch_norm", "[[2, 64, 8, 8], [64], [64], [64], [64], [], [], []]",
           "[\"float\", \"float\", \"float\", \"float\", \"float\", \"bool\", \"double\", \"double\"]",
           "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]", 6 * C + 2 * N,
           2 * N * 4 + 4 * C * 4, VP_RL_NORM_FWD, VP_RL_FP32);
    /* RMSNorm: (N/C)(2C + 2) + 2N with a weight */
    expect("aten::_fused_rms_norm", "[[4, 4096], [], [4096], []]", "[" BF ", \"\", " BF ", \"\"]",
           "[\"\", \"[4096]\", \"\", \"1e-06\"]", 4.0 * (2 * 4096 + 2) + 2 * 16384,
           2 * 16384.0 * 2 + 4096 * 2, VP_RL_NORM_FWD, VP_RL_BF16);
    expect("aten::_softmax", "[[4, 128], [], []]", "[\"c10::Half\", \"\", \"bool\"]",
           "[\"\", \"-1\", \"False\"]", 5 * 512, 512.0 * 2 * 2, VP_RL_SOFTMAX, VP_RL_FP16);
    /* half_to_float: the output is FP32 */
    expect("aten::_softmax", "[[4, 128], [], []]", "[\"c10::Half\", \"\", \"bool\"]",
           "[\"\", \"-1\", \"True\"]", 5 * 512, 512.0 * 2 + 512 * 4, VP_RL_SOFTMAX, VP_RL_FP16);
    /* embedding: the indices and one row per index read, written: no FLOPs */
    expect("aten::embedding", "[[50000, 768], [8, 512], [], [], []]",
           "[" BF ", \"long int\", \"\", \"\", \"\"]", "[\"\", \"\", \"-1\", \"False\", \"False\"]",
           0, 4096.0 * 8 + 2 * 4096.0 * 768 * 2, VP_RL_EMBEDDING, VP_RL_BF16);
}

static void test_peaks(void **state)
{
    (void)state;
    const vp_peak *h100 = vp_peak_lookup("NVIDIA H100 80GB HBM3");
    vp_rl_cost mx = {.family = VP_RL_GEMM, .prec = VP_RL_BF16, .matrix = 1};
    assert_true(vp_rl_peak_tflops(h100, &mx, 0) == 989);
    mx.prec = VP_RL_FP8;
    assert_true(vp_rl_peak_tflops(h100, &mx, 0) == 1979);
    mx.prec = VP_RL_FP32;
    assert_true(vp_rl_peak_tflops(h100, &mx, 0) == 67);
    assert_true(vp_rl_peak_tflops(h100, &mx, 1) == 494.5);
    mx.prec = VP_RL_FP64;
    assert_true(vp_rl_peak_tflops(h100, &mx, 0) == 67);
    vp_rl_cost vec = {.family = VP_RL_ELEMENTWISE, .prec = VP_RL_BF16};
    assert_true(vp_rl_peak_tflops(h100, &vec, 0) == 67);
    vec.prec = VP_RL_FP64;
    assert_true(vp_rl_peak_tflops(h100, &vec, 0) == 34);
    vec.prec = VP_RL_PREC_NONE;
    assert_true(vp_rl_peak_tflops(h100, &vec, 0) == 0);
    /* AMD's FP32 matrix peak is above its vector one */
    mx.prec = VP_RL_FP32;
    assert_true(vp_rl_peak_tflops(vp_peak_lookup("AMD Instinct MI210"), &mx, 0) == 45.3);
    assert_true(vp_rl_peak_tflops(vp_peak_lookup("AMD Instinct MI300X"), &mx, 1) == 653.7);

    /* bandwidth, memory variants by name */
    static const struct {
        const char *name, *device;
        double tbs;
    } bw[] = {
        {"NVIDIA A100-SXM4-80GB", "A100", 2.039}, {"NVIDIA A100-SXM4-40GB", "A100", 1.555},
        {"NVIDIA A100 80GB PCIe", "A100", 1.935}, {"NVIDIA A100-PCIE-40GB", "A100", 1.555},
        {"NVIDIA H100 80GB HBM3", "H100 SXM", 3.35}, {"NVIDIA H100 PCIe", "H100 PCIe", 2.0},
        {"NVIDIA H200", "H200 SXM", 4.8}, {"NVIDIA H800", "H800 SXM", 3.35},
        {"NVIDIA L4", "L4", 0.3}, {"NVIDIA L40S", "L40S", 0.864}, {"NVIDIA L40", "L40", 0.864},
        {"NVIDIA A10", "A10", 0.6}, {"Tesla T4", "T4", 0.32}, {"Tesla V100-SXM2-32GB", "V100", 0.9},
        {"NVIDIA B200", "B200", 8.0}, {"NVIDIA GB200", "GB200", 8.0},
        {"AMD Instinct MI210", "MI210", 1.6}, {"AMD Instinct MI250X", "MI250X (one GCD)", 1.6},
        {"AMD Instinct MI300X", "MI300X", 5.3}, {"AMD Instinct MI325X", "MI325X", 6.0},
        {"NVIDIA A10G", "A10G", 0}, {"Ascend910B3", "Ascend 910B3", 0},
    };
    for (size_t i = 0; i < sizeof bw / sizeof *bw; i++) {
        const vp_peak *p = vp_peak_lookup(bw[i].name);
        const char *src;
        if (!p || strcmp(p->device, bw[i].device) != 0)
            fail_msg("%s: matched %s", bw[i].name, p ? p->device : "nothing");
        double t = vp_peak_tbs(bw[i].name, p, &src);
        if (t != bw[i].tbs || (t > 0) != (src != NULL))
            fail_msg("%s: %g TB/s (%s), expected %g", bw[i].name, t, src ? src : "-", bw[i].tbs);
    }
    assert_true(vp_peak_lookup("Tesla T4")->tflops[VP_DTYPE_FP16] == 65);
    assert_true(vp_peak_lookup("NVIDIA L4")->tflops[VP_DTYPE_BF16] == 121);
    assert_true(vp_peak_lookup("NVIDIA A10")->tflops[VP_DTYPE_TF32] == 62.5);
    assert_string_equal(vp_dtype_name(VP_DTYPE_FP64_MX), "fp64 matrix");
}

static void test_figures(void **state)
{
    (void)state;
    /* a GEMM of 34.36 GFLOP in 100 us on an H100: compute-bound, 34.75 % */
    vp_rl_row r = {.calls = 2, .kernel_ns = 200000, .peak_tflops = 989, .peak_tbs = 3.35};
    r.cost = cost("aten::mm", "[[1024, 4096], [4096, 4096]]", "[" BF ", " BF "]", NULL);
    vp_rl_figures f;
    vp_rl_row_figures(&r, &f);
    double flops = 2.0 * 1024 * 4096 * 4096, bytes = (1024.0 * 4096 * 2 + 4096.0 * 4096) * 2;
    assert_true(fabs(f.tflops - flops / 100e-6 / 1e12) < 1e-9);
    assert_true(fabs(f.tbs - bytes / 100e-6 / 1e12) < 1e-12);
    assert_true(fabs(f.intensity - flops / bytes) < 1e-12);
    assert_int_equal(f.compute_bound, 1);
    assert_true(f.roof == 989);
    assert_true(fabs(f.pct - 100 * (flops / 989e12) / 100e-6) < 1e-9);
    /* an add: memory-bound, the roof intensity x bandwidth */
    r.cost = cost("aten::add", "[[1048576], [1048576], []]", "[\"float\", \"float\", \"Scalar\"]",
                  NULL);
    r.calls = 1;
    r.kernel_ns = 10000;
    r.peak_tflops = 67;
    vp_rl_row_figures(&r, &f);
    assert_int_equal(f.compute_bound, 0);
    assert_true(fabs(f.roof - 3.35 / 12) < 1e-12);
    assert_true(fabs(f.pct - 100 * (12.0 * 1048576 / 3.35e12) / 10e-6) < 1e-9);
    /* no peak: rates, no roof */
    r.peak_tbs = 0;
    vp_rl_row_figures(&r, &f);
    assert_true(f.tbs > 0 && f.pct == -1 && f.compute_bound == -1);
}

/* The time-weighted roofline of a family.  A 1000^3 FP16 GEMM is 2e9
 * FLOPs and 6e6 bytes: at 1000 TFLOP/s and 1 TB/s, 6 us of memory time,
 * 6 % of 100 us and 3 % of 200 us: (6 x 100 + 3 x 200) / 300 = 4 %; the
 * row without a peak and the add are left out. */
static void test_weighted(void **state)
{
    (void)state;
    vp_rl_row rows[4] = {
        {.calls = 1, .kernel_ns = 100000, .peak_tflops = 1000, .peak_tbs = 1},
        {.calls = 1, .kernel_ns = 200000, .peak_tflops = 1000, .peak_tbs = 1},
        {.calls = 1, .kernel_ns = 500000, .peak_tflops = 0, .peak_tbs = 1},
        {.calls = 1, .kernel_ns = 900000, .peak_tflops = 1000, .peak_tbs = 1},
    };
    rows[0].cost = cost("aten::mm", "[[1000, 1000], [1000, 1000]]", "[\"c10::Half\", \"c10::Half\"]", NULL);
    rows[1].cost = rows[0].cost;
    rows[2].cost = rows[0].cost;
    rows[3].cost = cost("aten::add", "[[10], [10]]", "[\"float\", \"float\"]", NULL);
    vp_roofline r = {.rows = rows, .nrows = 4};
    assert_true(fabs(vp_roofline_weighted_pct(&r, VP_RL_MASK_GEMM) - 4.0) < 1e-9);
    assert_true(vp_roofline_weighted_pct(&r, VP_RL_MASK_ATTENTION) == -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_attention),
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_reduce_norm_softmax_embedding),
        cmocka_unit_test(test_peaks),
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_weighted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
