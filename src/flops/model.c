/* Models from config.json: parameter counts and FLOPs per token. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/flops.h"
#include "vprof/util.h"

/* config.json files are a few KB; a bigger file is not one. */
#define MAX_CONFIG (4u << 20)

static int type_is(const vp_model *m, const char *t)
{
    return strcmp(m->type, t) == 0;
}

/* An integer member; a JSON null reads as absent (DeepSeek-V2-Lite's
 * q_lora_rank).  Returns -1 with err set when present but not a whole
 * non-negative number. */
static int get_int(const cJSON *root, const char *key, int64_t *out, const char *name,
                   vp_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    if (d < 0 || d != floor(d) || d > 9.0e15) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: \"%s\" must be a non-negative integer", name, key);
        return -1;
    }
    *out = (int64_t)d;
    return 0;
}

static int get_bool(const cJSON *root, const char *key, int *out, const char *name,
                    vp_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsBool(v)) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: \"%s\" must be true or false", name, key);
        return -1;
    }
    *out = cJSON_IsTrue(v);
    return 0;
}

static const char *get_str(const cJSON *root, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Qwen-MoE places a MoE block in layer i when (i + 1) % decoder_sparse_step
 * == 0 and i is not in mlp_only_layers; DeepSeek when i >= first_k_dense_replace
 * and i % moe_layer_freq == 0.  Only the uncommon cases need counting here:
 * with a step of 1 and no exceptions vp_model_check derives the count. */
static int count_moe_layers(const cJSON *root, vp_model *m, const char *name, vp_error *err)
{
    int64_t step = 1, freq = 1;
    if (get_int(root, "decoder_sparse_step", &step, name, err) ||
        get_int(root, "moe_layer_freq", &freq, name, err))
        return -1;
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(root, "mlp_only_layers");
    int has_only = cJSON_IsArray(only) && cJSON_GetArraySize(only) > 0;
    if (step <= 1 && freq <= 1 && !has_only)
        return 0;
    if (!m->layers) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: a MoE layer pattern without num_hidden_layers",
                     name);
        return -1;
    }
    int64_t n = 0;
    for (int64_t i = 0; i < m->layers; i++) {
        int moe = i >= m->first_dense && (step <= 1 || (i + 1) % step == 0) &&
                  (freq <= 1 || i % freq == 0);
        const cJSON *e;
        cJSON_ArrayForEach(e, only) {
            if (cJSON_IsNumber(e) && e->valuedouble == (double)i)
                moe = 0;
        }
        n += moe;
    }
    m->moe_layers = n;
    return 0;
}

int vp_model_parse(const char *text, size_t len, const char *name, vp_model *m, vp_error *err)
{
    memset(m, 0, sizeof *m);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root || !cJSON_IsObject(root)) {
        const char *at = cJSON_GetErrorPtr();
        if (root || !at || at < text || at > text + len)
            vp_error_set(err, VP_EXIT_INPUT, "%s: not a JSON object (a config.json is expected)",
                         name);
        else
            vp_error_set(err, VP_EXIT_INPUT, "%s: invalid JSON at byte %zu", name,
                         (size_t)(at - text));
        cJSON_Delete(root);
        return -1;
    }
    int rc = -1;
    const char *type = get_str(root, "model_type");
    if (type)
        snprintf(m->type, sizeof m->type, "%s", type);

    int64_t n_shared = 0, moe_ffn = 0, shared_ffn = 0, window = 0;
    int attention_bias = 0, use_window = 1;
    if (get_int(root, "hidden_size", &m->hidden, name, err) ||
        get_int(root, "num_hidden_layers", &m->layers, name, err) ||
        get_int(root, "num_attention_heads", &m->heads, name, err) ||
        get_int(root, "num_key_value_heads", &m->kv_heads, name, err) ||
        get_int(root, "head_dim", &m->head_dim, name, err) ||
        get_int(root, "intermediate_size", &m->ffn, name, err) ||
        get_int(root, "vocab_size", &m->vocab, name, err) ||
        get_bool(root, "tie_word_embeddings", &m->tied, name, err) ||
        get_bool(root, "attention_bias", &attention_bias, name, err) ||
        get_int(root, "num_experts_per_tok", &m->top_k, name, err) ||
        get_int(root, "moe_intermediate_size", &moe_ffn, name, err) ||
        get_int(root, "shared_expert_intermediate_size", &shared_ffn, name, err) ||
        get_int(root, "n_shared_experts", &n_shared, name, err) ||
        get_int(root, "first_k_dense_replace", &m->first_dense, name, err) ||
        get_int(root, "q_lora_rank", &m->q_lora_rank, name, err) ||
        get_int(root, "kv_lora_rank", &m->kv_lora_rank, name, err) ||
        get_int(root, "qk_nope_head_dim", &m->qk_nope_dim, name, err) ||
        get_int(root, "qk_rope_head_dim", &m->qk_rope_dim, name, err) ||
        get_int(root, "v_head_dim", &m->v_head_dim, name, err) ||
        get_int(root, "num_nextn_predict_layers", &m->mtp_layers, name, err) ||
        get_int(root, "sliding_window", &window, name, err) ||
        get_bool(root, "use_sliding_window", &use_window, name, err))
        goto out;
    /* Three spellings of one thing: Mixtral, Qwen-MoE, DeepSeek. */
    static const char *const expert_keys[] = {"num_local_experts", "num_experts",
                                              "n_routed_experts"};
    for (size_t i = 0; i < 3 && !m->experts; i++)
        if (get_int(root, expert_keys[i], &m->experts, name, err))
            goto out;

    /* Qwen2's q, k and v projections always have biases (not a config key). */
    m->qkv_bias = attention_bias || type_is(m, "qwen2") || type_is(m, "qwen2_moe");
    m->o_bias = attention_bias;
    m->qk_norm = type_is(m, "qwen3") || type_is(m, "qwen3_moe");
    if (m->experts) {
        /* Mixtral's experts have intermediate_size; the others say moe_intermediate_size. */
        m->moe_ffn = moe_ffn ? moe_ffn : m->ffn;
        m->shared_ffn = shared_ffn ? shared_ffn : n_shared * m->moe_ffn;
        m->shared_gate = shared_ffn > 0;
        const char *method = get_str(root, "topk_method");
        m->router_bias = method && strcmp(method, "noaux_tc") == 0;
        if (count_moe_layers(root, m, name, err))
            goto out;
    }
    m->sliding_window = use_window ? window : 0;
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

int vp_model_load(const char *path, vp_model *m, vp_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    vp_buf b = {0};
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > MAX_CONFIG) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: larger than %u MiB, not a config.json", path,
                         MAX_CONFIG >> 20);
            break;
        }
        vp_buf_append(&b, chunk, n);
    }
    int bad = ferror(f);
    fclose(f);
    int rc = -1;
    if (bad)
        vp_error_set(err, VP_EXIT_INPUT, "cannot read %s", path);
    else if (!err->status)
        rc = vp_model_parse(b.data ? b.data : "", b.len, path, m, err);
    vp_buf_free(&b);
    return rc;
}

int vp_model_check(vp_model *m, vp_error *err)
{
    static const struct {
        size_t off;
        const char *key;
        vp_hint how;
    } need[] = {
        {offsetof(vp_model, hidden), "hidden_size", VP_HINT_GIVE_HIDDEN},
        {offsetof(vp_model, layers), "num_hidden_layers", VP_HINT_GIVE_LAYERS},
        {offsetof(vp_model, heads), "num_attention_heads", VP_HINT_GIVE_HEADS},
        {offsetof(vp_model, vocab), "vocab_size", VP_HINT_GIVE_VOCAB},
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        if (*(const int64_t *)((const char *)m + need[i].off) == 0) {
            vp_error_set(err, VP_EXIT_USAGE, "the model has no %s: give it in the config%s",
                         need[i].key, vp_diag_hint(need[i].how));
            return -1;
        }
    }
    if (!m->kv_heads)
        m->kv_heads = m->heads;
    if (m->kv_lora_rank) {
        if (!m->qk_nope_dim || !m->qk_rope_dim || !m->v_head_dim) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "an MLA model (kv_lora_rank) needs qk_nope_head_dim, qk_rope_head_dim "
                         "and v_head_dim in its config");
            return -1;
        }
    } else {
        if (!m->head_dim) {
            if (m->hidden % m->heads) {
                vp_error_set(err, VP_EXIT_USAGE,
                             "hidden_size %lld is not a multiple of num_attention_heads %lld: "
                             "give head_dim in the config%s",
                             (long long)m->hidden, (long long)m->heads,
                             vp_diag_hint(VP_HINT_GIVE_HEAD_DIM));
                return -1;
            }
            m->head_dim = m->hidden / m->heads;
        }
        if (m->heads % m->kv_heads) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "num_attention_heads %lld is not a multiple of num_key_value_heads %lld",
                         (long long)m->heads, (long long)m->kv_heads);
            return -1;
        }
    }
    if (m->experts) {
        if (!m->top_k) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "a MoE model needs num_experts_per_tok: give it in the config%s",
                         vp_diag_hint(VP_HINT_GIVE_TOP_K));
            return -1;
        }
        if (m->top_k > m->experts) {
            vp_error_set(err, VP_EXIT_USAGE, "%lld experts per token but only %lld experts",
                         (long long)m->top_k, (long long)m->experts);
            return -1;
        }
        if (!m->moe_ffn) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "a MoE model needs moe_intermediate_size (or intermediate_size): "
                         "give it in the config%s", vp_diag_hint(VP_HINT_GIVE_MOE_FFN));
            return -1;
        }
        if (m->first_dense > m->layers) {
            vp_error_set(err, VP_EXIT_USAGE, "first_k_dense_replace %lld exceeds the %lld layers",
                         (long long)m->first_dense, (long long)m->layers);
            return -1;
        }
        if (!m->moe_layers)
            m->moe_layers = m->layers - m->first_dense;
        if (m->moe_layers > m->layers) {
            vp_error_set(err, VP_EXIT_USAGE, "%lld MoE layers but only %lld layers",
                         (long long)m->moe_layers, (long long)m->layers);
            return -1;
        }
    } else {
        m->moe_layers = 0;
    }
    if (m->layers > m->moe_layers && !m->ffn) {
        vp_error_set(err, VP_EXIT_USAGE,
                     "the model has no intermediate_size: give it in the config%s",
                     vp_diag_hint(VP_HINT_GIVE_FFN));
        return -1;
    }
    return 0;
}

/* One layer's attention: projection weights (no biases), and the parts
 * that are no matmul. */
typedef struct attn_parts {
    int64_t matmul, bias, norms;
} attn_parts;

static attn_parts attention_parts(const vp_model *m)
{
    attn_parts a = {0};
    int64_t h = m->hidden, n = m->heads;
    if (m->kv_lora_rank) {
        int64_t qk = m->qk_nope_dim + m->qk_rope_dim;
        if (m->q_lora_rank) {
            a.matmul += h * m->q_lora_rank + m->q_lora_rank * n * qk;
            a.norms += m->q_lora_rank;
        } else {
            a.matmul += h * n * qk;
        }
        a.matmul += h * (m->kv_lora_rank + m->qk_rope_dim) +
                    m->kv_lora_rank * n * (m->qk_nope_dim + m->v_head_dim);
        a.norms += m->kv_lora_rank;
        a.matmul += n * m->v_head_dim * h;
        if (m->o_bias)
            a.bias += h;
        return a;
    }
    int64_t d = m->head_dim, q = n * d, kv = m->kv_heads * d;
    a.matmul = h * q + 2 * h * kv + q * h;
    if (m->qkv_bias)
        a.bias += q + 2 * kv;
    if (m->o_bias)
        a.bias += h;
    if (m->qk_norm)
        a.norms += 2 * d;
    return a;
}

static int64_t mlp_matrices(const vp_model *m)
{
    return m->plain_mlp ? 2 : 3;
}

/* A MoE block: all its weights, and those one token goes through. */
static void moe_block(const vp_model *m, int64_t *all, int64_t *active)
{
    int64_t h = m->hidden, per_expert = mlp_matrices(m) * h * m->moe_ffn;
    int64_t common = h * m->experts + mlp_matrices(m) * h * m->shared_ffn;
    if (m->shared_gate)
        common += h;
    int64_t bias = m->router_bias ? m->experts : 0;
    *all = common + bias + m->experts * per_expert;
    *active = common + m->top_k * per_expert;   /* matmul weights only */
}

void vp_model_params(const vp_model *m, vp_params *p)
{
    memset(p, 0, sizeof *p);
    int64_t h = m->hidden, dense_layers = m->layers - m->moe_layers;
    attn_parts a = attention_parts(m);
    int64_t dense_mlp = mlp_matrices(m) * h * m->ffn, moe_all = 0, moe_active = 0;
    if (m->moe_layers)
        moe_block(m, &moe_all, &moe_active);
    int64_t router_bias = m->router_bias ? m->experts : 0;

    p->embedding = m->vocab * h;
    p->lm_head = m->tied ? 0 : m->vocab * h;
    p->attention = m->layers * (a.matmul + a.bias);
    p->mlp = dense_layers * dense_mlp + m->moe_layers * moe_all;
    p->mlp_active = dense_layers * dense_mlp + m->moe_layers * (moe_active + router_bias);
    p->norms = m->layers * (2 * h + a.norms) + h;
    p->total = p->embedding + p->lm_head + p->attention + p->mlp + p->norms;
    p->active = p->total - p->mlp + p->mlp_active;
    p->matmul = m->layers * a.matmul + dense_layers * dense_mlp + m->moe_layers * moe_active +
                m->vocab * h;
    if (m->mtp_layers) {
        /* DeepSeek-V3's module: norms of the hidden state and of the next
         * token's embedding, their joint projection 2h -> h, one decoder
         * layer (MoE when the model has experts), the head's norm.  The
         * embedding and the head itself are the main model's. */
        int64_t block = m->experts ? moe_all : dense_mlp;
        int64_t one = 2 * h + 2 * h * h + a.matmul + a.bias + a.norms + 2 * h + block + h;
        p->mtp = m->mtp_layers * one;
    }
}

void vp_model_flops(const vp_model *m, vp_attn_conv conv, double tokens, double sq_sum,
                    vp_flops *f)
{
    vp_params p;
    vp_model_params(m, &p);
    double head = (double)m->vocab * (double)m->hidden;
    f->lm_head = 6.0 * head;
    f->dense = 6.0 * ((double)p.matmul - head);
    /* Per layer and document of s tokens: QK^T is 2*n*d_qk*s^2 FLOPs
     * forward and AV 2*n*d_v*s^2; backward doubles both. */
    double dqk, dv;
    if (m->kv_lora_rank) {
        dqk = (double)(m->qk_nope_dim + m->qk_rope_dim);
        dv = (double)m->v_head_dim;
    } else {
        dqk = dv = (double)m->head_dim;
    }
    double per_pair = 6.0 * (double)m->heads * (dqk + dv) * (double)m->layers;
    if (conv == VP_ATTN_CAUSAL)
        per_pair /= 2;
    f->attention = tokens > 0 ? per_pair * sq_sum / tokens : 0;
    f->total = f->dense + f->attention + f->lm_head;
}

double vp_flops_hardware(const vp_flops *f, vp_recompute r)
{
    switch (r) {
    case VP_RECOMPUTE_FULL:
        return f->total + (f->dense + f->attention) / 3;
    case VP_RECOMPUTE_SELECTIVE:
        return f->total + f->attention / 3;
    default:
        return f->total;
    }
}

int vp_model_build(const char *path, const vp_model_given *g, vp_model *m, vp_error *err)
{
    static const size_t field[VP_MF_COUNT] = {
        offsetof(vp_model, hidden), offsetof(vp_model, layers), offsetof(vp_model, heads),
        offsetof(vp_model, kv_heads), offsetof(vp_model, head_dim), offsetof(vp_model, ffn),
        offsetof(vp_model, vocab), offsetof(vp_model, experts), offsetof(vp_model, top_k),
        offsetof(vp_model, moe_ffn), offsetof(vp_model, shared_ffn),
        offsetof(vp_model, first_dense),
    };
    if (path) {
        if (vp_model_load(path, m, err) != 0)
            return -1;
    } else {
        memset(m, 0, sizeof *m);
    }
    for (int f = 0; f < VP_MF_COUNT; f++)
        if (g->set & (1u << f))
            *(int64_t *)((char *)m + field[f]) = g->value[f];
    if (g->set & (1u << VP_MF_DENSE_LAYERS))
        m->moe_layers = 0;
    if (g->tied >= 0)
        m->tied = g->tied;
    if (g->plain_mlp >= 0)
        m->plain_mlp = g->plain_mlp;
    return vp_model_check(m, err);
}
