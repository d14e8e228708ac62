/* The tables of vprof mfu. */
#include <math.h>
#include <string.h>

#include "vprof/mfu_view.h"
#include "vprof/util.h"

static void add_param_row(vp_table *t, const char *what, int64_t v)
{
    size_t r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, what);
    vp_table_set_int(t, r, 1, v);
}

vp_table *vp_mfu_model_table(const vp_model *md, const char *source)
{
    vp_params p;
    vp_model_params(md, &p);
    vp_table *t = vp_table_new("model");
    vp_table_add_col(t, "Parameters", VP_COL_TEXT, 0);
    vp_table_add_col(t, "Count", VP_COL_INT, 0);
    add_param_row(t, "total", p.total);
    add_param_row(t, "total without input embedding", p.total - p.embedding);
    if (md->experts) {
        add_param_row(t, "active per token", p.active);
        add_param_row(t, "active without input embedding", p.active - p.embedding);
    }
    add_param_row(t, "input embedding", p.embedding);
    add_param_row(t, "lm_head", p.lm_head);
    add_param_row(t, "attention", p.attention);
    add_param_row(t, md->experts ? "MLP and experts" : "MLP", p.mlp);
    add_param_row(t, "norms", p.norms);
    add_param_row(t, "matmul weights per token (N)", p.matmul);
    if (md->mtp_layers)
        add_param_row(t, "MTP module (not in total)", p.mtp);

    vp_buf b = {0};
    vp_buf_printf(&b, "%s: %s", source ? source : "model from flags",
                  md->type[0] ? md->type : "no model_type");
    vp_buf_printf(&b, ", %lld layers, hidden %lld, %lld heads", (long long)md->layers,
                  (long long)md->hidden, (long long)md->heads);
    if (md->kv_lora_rank)
        vp_buf_printf(&b, " (MLA)");
    else
        vp_buf_printf(&b, " (%lld KV, head dim %lld)", (long long)md->kv_heads,
                      (long long)md->head_dim);
    if (md->experts)
        vp_buf_printf(&b, ", %lld experts, top %lld, %lld MoE layers", (long long)md->experts,
                      (long long)md->top_k, (long long)md->moe_layers);
    vp_buf_printf(&b, ", %s embeddings", md->tied ? "tied" : "untied");
    vp_table_add_note(t, "%s", vp_buf_cstr(&b));
    vp_buf_free(&b);
    if (md->experts)
        vp_table_add_note(t, "active: each MoE layer's router, shared experts and %lld of its "
                          "%lld routed experts", (long long)md->top_k, (long long)md->experts);
    if (md->mtp_layers)
        vp_table_add_note(t, "MTP: its own weights, without the embedding and head it shares "
                          "with the main model; not in the FLOPs");
    return t;
}

vp_table *vp_mfu_flops_table(const vp_flops flops[2], int conv)
{
    vp_table *t = vp_table_new("flops");
    vp_table_add_col(t, "Term", VP_COL_TEXT, 0);
    int cols[2] = {-1, -1};
    if (conv & VP_CONV_FULL)
        cols[0] = vp_table_add_col(t, "Full GFLOP/token", VP_COL_RATIO, 3);
    if (conv & VP_CONV_CAUSAL)
        cols[1] = vp_table_add_col(t, "Causal GFLOP/token", VP_COL_RATIO, 3);
    static const char *const terms[] = {"dense matmuls", "attention", "lm_head", "total"};
    for (int i = 0; i < 4; i++) {
        size_t r = vp_table_add_row(t);
        vp_table_set_text(t, r, 0, terms[i]);
        for (int c = 0; c < 2; c++) {
            if (cols[c] < 0)
                continue;
            const vp_flops *f = &flops[c];
            double v = i == 0 ? f->dense : i == 1 ? f->attention : i == 2 ? f->lm_head : f->total;
            vp_table_set_double(t, r, cols[c], v / 1e9);
        }
    }
    return t;
}

vp_table *vp_mfu_steps_table(const vp_step_times *s, long first_out)
{
    vp_table *t = vp_table_new("steps");
    vp_table_add_col(t, "Step", VP_COL_INT, 0);
    vp_table_add_col(t, "Duration", VP_COL_NS, 0);
    vp_table_add_col(t, "Used", VP_COL_TEXT, 0);
    for (size_t i = 0; i < s->n; i++) {
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 0, s->st[i].number);
        vp_table_set_int(t, row, 1, s->st[i].dur);
        vp_table_set_text(t, row, 2, !s->st[i].used             ? "no (not in --steps)"
                                     : (long)i == first_out ? "no (first step, outlier)"
                                                            : "yes");
    }
    return t;
}

vp_table *vp_mfu_log_table(const vp_trainlog *log, const vp_mfu_log *rates,
                           const vp_flops flops[2], int conv, double peak_tflops)
{
    vp_table *t = vp_table_new("iterations");
    int c_it = vp_table_add_col(t, "Iteration", VP_COL_INT, 0);
    int c_time = vp_table_add_col(t, "Step Time", VP_COL_NS_F, 0);
    int c_tok = vp_table_add_col(t, "Tokens/s/GPU", VP_COL_INT, 0);
    int c_log = vp_table_add_col(t, "Log TFLOP/s/GPU", VP_COL_RATIO, 1);
    int c_tf[2] = {-1, -1}, c_mfu[2] = {-1, -1};
    if (conv & VP_CONV_FULL)
        c_tf[0] = vp_table_add_col(t, "Full TFLOP/s/GPU", VP_COL_RATIO, 1);
    if (conv & VP_CONV_CAUSAL)
        c_tf[1] = vp_table_add_col(t, "Causal TFLOP/s/GPU", VP_COL_RATIO, 1);
    int cmp = conv & VP_CONV_CAUSAL ? 1 : 0;
    int c_diff = vp_table_add_col(t, "Log vs vprof", VP_COL_PERCENT, 2);
    if (conv & VP_CONV_FULL)
        c_mfu[0] = vp_table_add_col(t, "Full MFU", VP_COL_PERCENT, 1);
    if (conv & VP_CONV_CAUSAL)
        c_mfu[1] = vp_table_add_col(t, "Causal MFU", VP_COL_PERCENT, 1);
    size_t have_log_tflops = 0;
    for (size_t i = 0; i < log->n; i++) {
        const vp_iter_rec *rec = &log->recs[i];
        double tok = rates->tokens_per_gpu[i];
        size_t row = vp_table_add_row(t);
        if (rec->iteration >= 0)
            vp_table_set_int(t, row, c_it, rec->iteration);
        if (!isnan(rec->time_s))
            vp_table_set_double(t, row, c_time, rec->time_s * 1e9);
        if (!isnan(rec->tflops)) {
            vp_table_set_double(t, row, c_log, rec->tflops);
            have_log_tflops++;
        }
        if (isnan(tok))
            continue;
        vp_table_set_double(t, row, c_tok, tok);
        for (int c = 0; c < 2; c++) {
            if (c_tf[c] < 0)
                continue;
            double tf = tok * flops[c].total;
            vp_table_set_double(t, row, c_tf[c], tf / 1e12);
            vp_table_set_double(t, row, c_mfu[c], vp_mfu_pct(tok, flops[c].total, peak_tflops));
            if (c == cmp && !isnan(rec->tflops))
                vp_table_set_double(t, row, c_diff, 100 * (rec->tflops * 1e12 - tf) / tf);
        }
    }
    if (have_log_tflops)
        vp_table_add_note(t, "Log vs vprof: the log's own TFLOP/s/GPU against vprof's %s figure "
                          "(Megatron-LM counts %s)", cmp ? "causal" : "full",
                          cmp ? "causal attention since 2025-03, the full square before"
                              : "causal attention since 2025-03");
    return t;
}

vp_table *vp_mfu_rate_table(const vp_mfu_rate *r, const vp_flops flops[2], int conv,
                            const char *notes)
{
    vp_table *t = vp_table_new("mfu");
    int c_conv = vp_table_add_col(t, "Convention", VP_COL_TEXT, 0);
    int c_time = vp_table_add_col(t, "Step Time", VP_COL_NS_F, 0);
    int c_tok = vp_table_add_col(t, "Tokens/s/GPU", VP_COL_INT, 0);
    int c_gf = vp_table_add_col(t, "GFLOP/token", VP_COL_RATIO, 3);
    int c_tf = vp_table_add_col(t, "TFLOP/s/GPU", VP_COL_RATIO, 1);
    int c_peak = vp_table_add_col(t, "Peak TFLOP/s", VP_COL_RATIO, 2);
    int c_mfu = vp_table_add_col(t, "MFU", VP_COL_PERCENT, 1);
    int c_hfu = r->recompute != VP_RECOMPUTE_NONE ? vp_table_add_col(t, "HFU", VP_COL_PERCENT, 1)
                                                  : -1;
    static const char *const names[] = {"full", "causal"};
    for (int c = 0; c < 2; c++) {
        if (!(conv & (1 << c)))
            continue;
        size_t row = vp_table_add_row(t);
        const vp_flops *f = &flops[c];
        double achieved = r->tokens_per_gpu * f->total;
        vp_table_set_text(t, row, c_conv, names[c]);
        if (!isnan(r->step_time))
            vp_table_set_double(t, row, c_time, r->step_time * 1e9);
        vp_table_set_double(t, row, c_tok, r->tokens_per_gpu);
        vp_table_set_double(t, row, c_gf, f->total / 1e9);
        vp_table_set_double(t, row, c_tf, achieved / 1e12);
        vp_table_set_double(t, row, c_peak, r->peak_tflops);
        vp_table_set_double(t, row, c_mfu, vp_mfu_pct(r->tokens_per_gpu, f->total, r->peak_tflops));
        if (c_hfu >= 0)
            vp_table_set_double(t, row, c_hfu,
                                100 * r->tokens_per_gpu * vp_flops_hardware(f, r->recompute) /
                                    (r->peak_tflops * 1e12));
    }
    /* One note per line of the collected notes. */
    for (const char *s = notes; *s;) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n)
            vp_table_add_note(t, "%.*s", (int)n, s);
        s += n + (e != NULL);
    }
    if (r->peak_note)
        vp_table_add_note(t, "%s", r->peak_note);
    for (int c = 0; c < 2; c++)
        if ((conv & (1 << c)) && r->tokens_per_gpu * flops[c].total > r->peak_tflops * 1e12) {
            vp_warn("MFU above 100%%: the tokens per step, the world size, the model or the peak "
                    "are not this run's");
            break;
        }
    if (r->recompute != VP_RECOMPUTE_NONE)
        vp_table_add_note(t, "HFU counts the %s recomputation as work done", r->recompute ==
                          VP_RECOMPUTE_FULL ? "full (every layer's forward)"
                                            : "selective (core attention)");
    return t;
}

size_t vp_mfu_tables(const vp_mfu_job *j, const vp_mfu_result *r, vp_table *out[VP_MFU_TABLES])
{
    size_t n = 0;
    if (r->veomni)
        out[n++] = vp_mfu_veomni_table(&r->log, j->log_path);
    if (r->veomni_only)
        return n;
    out[n++] = vp_mfu_model_table(&r->model, j->model_path);
    vp_table *flops = out[n++] = vp_mfu_flops_table(r->flops, j->convs);
    vp_table_add_note(flops, "%s", r->lengths_note);
    if (j->convs == (VP_CONV_FULL | VP_CONV_CAUSAL))
        vp_table_add_note(flops, "full: the whole s^2 per document (PaLM, nanoGPT, VeOmni); "
                          "causal: s^2/2 (Megatron-LM since 2025-03)");
    if (!r->has_rate)
        return n;
    if (r->has_log)
        out[n++] = vp_mfu_log_table(&r->log, &r->log_rates, r->flops, j->convs, r->peak);
    else if (r->steps.n)
        out[n++] = vp_mfu_steps_table(&r->steps, r->first_out);
    vp_mfu_rate rv = {r->step_time, r->tokens_per_gpu, r->peak, j->recompute, r->peak_note};
    out[n++] = vp_mfu_rate_table(&rv, r->flops, j->convs, r->notes.data);
    return n;
}
