/* Model FLOPs of decoder-only transformers, and the accelerator peaks
 * they are divided by (MFU).
 *
 * A model is described by the keys of a Hugging Face config.json: dense
 * decoders with grouped-query attention and SwiGLU MLPs (Llama, Qwen2,
 * Qwen2.5, Qwen3, Mistral), mixtures of experts (Mixtral, Qwen-MoE,
 * DeepSeek-V2/V3 with multi-head latent attention, shared experts and
 * leading dense layers), tied or untied embeddings.
 *
 * FLOPs follow the common convention of PaLM (Appendix B), nanoGPT,
 * Megatron-LM and VeOmni: every weight of a matrix multiply costs 6 FLOPs
 * per token (2 forward, 2 for the input gradient, 2 for the weight
 * gradient); the lm_head counts, the embedding lookup does not; norms,
 * biases, rotary embeddings, softmax and activations are ignored.  The
 * attention score term (QK^T and AV) depends on the documents' lengths:
 * per document of s tokens it is 6*n_q*(d_qk + d_v)*s^2 per layer
 * ("full": the whole square, as PaLM, nanoGPT and VeOmni count it) or half
 * that ("causal": as Megatron-LM counts it since 2025-03). */
#ifndef VPROF_FLOPS_H
#define VPROF_FLOPS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"

typedef struct vp_model {
    char type[32];          /* config.json model_type; "" when none */
    int64_t hidden;         /* hidden_size */
    int64_t layers;         /* num_hidden_layers */
    int64_t heads;          /* num_attention_heads */
    int64_t kv_heads;       /* num_key_value_heads (0: = heads) */
    int64_t head_dim;       /* head_dim (0: hidden / heads) */
    int64_t ffn;            /* intermediate_size of a dense MLP (Mixtral: of an expert) */
    int64_t vocab;          /* vocab_size */
    int tied;               /* tie_word_embeddings: the lm_head is the input embedding */
    int qkv_bias;           /* q, k and v projections have biases (Qwen2, attention_bias) */
    int o_bias;             /* the output projection has one too (attention_bias) */
    int qk_norm;            /* per-head RMSNorm of q and k (Qwen3) */
    int plain_mlp;          /* up/down MLP of 2 matrices instead of SwiGLU's 3 */

    /* Mixture of experts: experts == 0 means a dense model. */
    int64_t experts;        /* routed experts per MoE layer */
    int64_t top_k;          /* experts per token */
    int64_t moe_ffn;        /* intermediate size of one routed expert */
    int64_t shared_ffn;     /* intermediate size of the shared experts together */
    int shared_gate;        /* the shared experts have a scalar sigmoid gate (Qwen2-MoE) */
    int router_bias;        /* the router has a per-expert score bias (DeepSeek-V3) */
    int64_t moe_layers;     /* layers with a MoE block; 0: all but the first_dense */
    int64_t first_dense;    /* leading dense layers (first_k_dense_replace) */

    /* Multi-head latent attention (DeepSeek-V2/V3): used when kv_lora_rank > 0. */
    int64_t q_lora_rank;    /* 0: q is projected directly */
    int64_t kv_lora_rank;
    int64_t qk_nope_dim;
    int64_t qk_rope_dim;
    int64_t v_head_dim;

    int64_t mtp_layers;     /* multi-token-prediction modules (num_nextn_predict_layers) */
    int64_t sliding_window; /* attention window when the config enables one; 0: none
                             * (the FLOPs still count full attention: a caller warns) */
} vp_model;

/* Reads a config.json document.  Keys it does not know are ignored; keys it
 * needs but that are absent stay 0, for flags to supply (vp_model_check
 * names them).  Returns 0, or -1 with err set (status 3) when the text is
 * not a JSON object or a known key has a value of the wrong kind. */
int vp_model_parse(const char *text, size_t len, const char *name, vp_model *m, vp_error *err);
int vp_model_load(const char *path, vp_model *m, vp_error *err);

/* Fills the defaults that follow from other keys (head_dim, kv_heads,
 * moe_layers) and checks that the model is complete and consistent.
 * Returns 0, or -1 with err set (status 2) naming the missing config key
 * and the flag that supplies it. */
int vp_model_check(vp_model *m, vp_error *err);

/* The integer fields a front end may give apart from a config. */
typedef enum vp_model_field {
    VP_MF_HIDDEN, VP_MF_LAYERS, VP_MF_HEADS, VP_MF_KV_HEADS, VP_MF_HEAD_DIM, VP_MF_FFN,
    VP_MF_VOCAB, VP_MF_EXPERTS, VP_MF_TOP_K, VP_MF_MOE_FFN, VP_MF_SHARED_FFN,
    VP_MF_DENSE_LAYERS,     /* first_dense: moe_layers is derived again from it */
    VP_MF_COUNT,
} vp_model_field;

typedef struct vp_model_given {
    int64_t value[VP_MF_COUNT];
    unsigned set;           /* bit f: value[f] given */
    int tied, plain_mlp;    /* -1: as the config says */
} vp_model_given;

/* The model of the config at path (NULL: none, the given values alone)
 * with the given values over it, checked (vp_model_check).  -1 with err
 * set: status 3 when the config cannot be read, 2 when the model is
 * incomplete. */
int vp_model_build(const char *path, const vp_model_given *g, vp_model *m, vp_error *err);

/* Parameter counts, exact.  "total" is every weight of the main model:
 * input embedding, lm_head (unless tied), attention, MLPs or experts,
 * routers, norms, biases; the multi-token-prediction module is counted
 * apart, in "mtp" (its own weights, without the embedding and head it
 * shares with the main model). */
typedef struct vp_params {
    int64_t total;
    int64_t active;         /* per token: top_k routed experts of each MoE layer */
    int64_t embedding;      /* the input embedding, vocab * hidden */
    int64_t lm_head;        /* 0 when tied */
    int64_t attention;      /* projections and their biases, all layers */
    int64_t mlp;            /* dense MLPs, experts, shared experts, routers, all layers */
    int64_t mlp_active;
    int64_t norms;          /* every norm weight: per layer, q/k norms (Qwen3), the
                             * low-rank norms of MLA, the final one */
    int64_t mtp;
    int64_t matmul;         /* N: weights of matrix multiplies one token goes
                             * through, the lm_head included even when tied */
} vp_params;

void vp_model_params(const vp_model *m, vp_params *p);

typedef enum vp_attn_conv {
    VP_ATTN_FULL,           /* the whole s^2 (PaLM, nanoGPT, VeOmni) */
    VP_ATTN_CAUSAL,         /* s^2 / 2 (Megatron-LM since 2025-03) */
} vp_attn_conv;

/* FLOPs per token, forward and backward, averaged over the documents of a
 * batch: tokens = sum of their lengths, sq_sum = sum of their squares (one
 * document of s tokens: tokens = s, sq_sum = s^2; packed documents count
 * each on its own). */
typedef struct vp_flops {
    double dense;           /* 6 x the layers' matmul weights (attention projections, MLPs, routers) */
    double attention;       /* the score term, QK^T and AV */
    double lm_head;         /* 6 x vocab x hidden */
    double total;
} vp_flops;

void vp_model_flops(const vp_model *m, vp_attn_conv conv, double tokens, double sq_sum,
                    vp_flops *f);

/* Activation recomputation, for hardware FLOPs utilization (HFU): "full"
 * runs every layer's forward pass again (dense and attention terms x 4/3;
 * the lm_head is outside the recomputed layers), "selective" only the core
 * attention (attention term x 4/3). */
typedef enum vp_recompute {
    VP_RECOMPUTE_NONE,
    VP_RECOMPUTE_SELECTIVE,
    VP_RECOMPUTE_FULL,
} vp_recompute;

/* FLOPs per token the hardware executes, recomputation included. */
double vp_flops_hardware(const vp_flops *f, vp_recompute r);

/* Accelerator peaks: dense throughput (no sparsity), TFLOP/s (INT8: TOPS).
 * The first three are the tensor-core peaks vprof mfu divides by; the
 * rest serve vprof roofline: FP32 and FP64 are the non-tensor (vector)
 * peaks, TF32 and FP64_MX the tensor/matrix ones, FP32_MX AMD's FP32
 * matrix peak (NVIDIA has none apart from TF32: 0). */
typedef enum vp_dtype {
    VP_DTYPE_BF16, VP_DTYPE_FP16, VP_DTYPE_FP8,
    VP_DTYPE_FP32, VP_DTYPE_TF32, VP_DTYPE_FP32_MX, VP_DTYPE_FP64, VP_DTYPE_FP64_MX,
    VP_DTYPE_INT8,
    VP_DTYPE_COUNT
} vp_dtype;

typedef struct vp_peak {
    const char *key;        /* the substring matched in the device name */
    const char *device;     /* what the entry stands for, e.g. "H100 SXM" */
    double tflops[VP_DTYPE_COUNT]; /* per vp_dtype; 0 when not known or not supported */
    const char *source;     /* where the figure comes from */
    double tbs;             /* memory bandwidth, TB/s (10^12 bytes/s); 0 when not known */
    const char *tbs_source; /* where the FP32/FP64/TF32/INT8 and bandwidth figures come from */
} vp_peak;

/* The entry for a device name (deviceProperties[].name, or --gpu), matched
 * case-insensitively, most specific key first: "NVIDIA H100 PCIe" is the
 * H100 PCIe, not the H100; "L40S" is not the L40; "910B3" is not "910B".
 * NULL when no entry matches. */
const vp_peak *vp_peak_lookup(const char *device_name);

/* All entries, in matching order, ended by an entry whose key is NULL. */
const vp_peak *vp_peak_table(void);

/* The dense peak of device_name for d (TFLOP/s, > 0); 0 when the table has
 * the device but not that peak; -1 when it has no such device.  *row: the
 * entry matched, NULL when none. */
double vp_peak_find(const char *device_name, vp_dtype d, const vp_peak **row);

/* The memory bandwidth of device_name (TB/s) where its entry is row:
 * the entry's, or that of a memory variant the name names (an A100 with
 * 80 GB has HBM2e at 2.039 TB/s, the 40 GB one HBM2 at 1.555); 0 when
 * not known.  *source: where the figure comes from. */
double vp_peak_tbs(const char *device_name, const vp_peak *row, const char **source);

/* "bf16", "fp16", "fp8" (the dtypes vprof mfu takes); -1 otherwise. */
int vp_dtype_parse(const char *s, vp_dtype *out);
/* Every vp_dtype's name: "bf16" ... "fp64 matrix", "int8". */
const char *vp_dtype_name(vp_dtype d);

#endif
