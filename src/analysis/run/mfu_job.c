/* vprof mfu's question in one call (vprof/mfu_job.h): the job checked,
 * the model built, the documents' lengths, the FLOPs, then the rate from
 * traces, a training log or the values given, and the peak. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/mfu_job.h"

/* What the caller set, as its front end names it (else the field). */
#define OPT(code, field) vp_diag_hint_or(VP_HINT_OPT_##code, field)

static int usage(vp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(vp_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vp_error_vset(err, VP_EXIT_USAGE, fmt, ap);
    va_end(ap);
    return -1;
}

/* The combinations that contradict themselves. */
static int check_job(const vp_mfu_job *j, vp_error *err)
{
    if (j->ntraces && j->log_path)
        return usage(err, "a trace or %s, not both", OPT(LOG, "log_path"));
    if (j->seq_len && j->seqlens_path)
        return usage(err, "%s or %s, not both", OPT(SEQ_LEN, "seq_len"),
                     OPT(SEQLENS, "seqlens_path"));
    if (j->tokens_per_step && j->global_batch)
        return usage(err, "%s or %s, not both", OPT(TOKENS_PER_STEP, "tokens_per_step"),
                     OPT(GLOBAL_BATCH, "global_batch"));
    if (j->tokens_per_sec && (j->step_time || j->log_path))
        return usage(err, "%s replaces the step time: not with %s",
                     OPT(TOKENS_PER_SEC, "tokens_per_sec"),
                     j->log_path ? OPT(LOG, "log_path") : OPT(STEP_TIME, "step_time"));
    if (j->steps && !j->ntraces)
        return usage(err, "%s selects steps of a trace, and no trace is given",
                     OPT(STEPS, "steps"));
    return 0;
}

static int build_model(const vp_mfu_job *j, vp_model *m, vp_error *err)
{
    if (!j->model_path && !j->given.set)
        return usage(err, "%s", vp_diag_hint_or(VP_HINT_MFU_NO_MODEL,
                                                "no model: give a config or its values"));
    return vp_model_build(j->model_path, &j->given, m, err);
}

/* The documents the attention term is averaged over: the document
 * lengths, or one sequence of seq_len (or the log's seq_length) tokens.
 * *per_step: the tokens of a step, given or, when nothing else says,
 * the lengths' sum. */
static int lengths(const vp_mfu_job *j, vp_mfu_result *r, int64_t *per_step, vp_error *err)
{
    int64_t seq = j->seq_len ? j->seq_len : r->has_log ? r->log.seq_length : -1;
    if (j->seqlens_path) {
        int64_t docs;
        if (vp_seqlens_read(j->seqlens_path, &r->tokens, &r->sq_sum, &docs, err) != 0)
            return -1;
        snprintf(r->lengths_note, sizeof r->lengths_note,
                 "attention per document: %lld documents in %s, %.0f tokens, mean length %.1f",
                 (long long)docs, j->seqlens_path, r->tokens, r->tokens / (double)docs);
        if (!j->tokens_per_step && !j->global_batch && !j->tokens_per_sec)
            *per_step = (int64_t)r->tokens;
        return 0;
    }
    if (seq <= 0)
        return usage(err, "the sequence length is not known: give %s N (tokens per sequence) or "
                     "%s FILE (document lengths)", OPT(SEQ_LEN, "seq_len"),
                     OPT(SEQLENS, "seqlens_path"));
    r->tokens = (double)seq;
    r->sq_sum = (double)seq * (double)seq;
    snprintf(r->lengths_note, sizeof r->lengths_note,
             "attention over whole sequences of %lld tokens%s, one document each (%s gives real "
             "document lengths)", (long long)seq, j->seq_len ? "" : " (the log's seq_length)",
             OPT(SEQLENS, "seqlens_path"));
    return 0;
}

/* The step time: vprof/mfu.h's median of the used steps. */
static int steps_median(vp_mfu_result *r, const char *what, vp_buf *note, vp_error *err)
{
    const vp_step_times *s = &r->steps;
    if (s->n == 0)
        return usage(err, "%s has no ProfilerStep#N annotations: give the step time with %s",
                     what, OPT(STEP_TIME, "step_time"));
    if (vp_step_times_used(s) == 0)
        return usage(err, "%s selects none of the steps in %s (ProfilerStep#%ld to #%ld)",
                     OPT(STEPS, "steps"), what, s->st[0].number, s->st[s->n - 1].number);
    size_t counted;
    r->step_time = vp_mfu_step_median(s, &counted, &r->first_out) / 1e9;
    vp_buf_printf(note, "step time: median of %zu ProfilerStep spans in %s", counted, what);
    if (r->first_out >= 0)
        vp_buf_printf(note, " (the first, #%ld, is an outlier and left out)",
                      s->st[r->first_out].number);
    return 0;
}

/* The traces (the ranks of one run): their steps, deviceProperties and
 * distributedInfo.  *device: the first deviceProperties name. */
static int read_traces(const vp_mfu_job *j, vp_mfu_result *r, long *world, char **device,
                       vp_error *err)
{
    vp_mfu_traces tr = {0};
    if (vp_mfu_read_traces(&tr, j->traces, j->ntraces, j->steps, j->partial, err) != 0) {
        err->status = VP_EXIT_INPUT;
        return -1;
    }
    vp_world_from from;
    *world = vp_world_size((long)j->world_size, tr.world, tr.ranks, &from);
    const char *flag = OPT(WORLD_SIZE, "world_size");
    if (from == VP_WORLD_FLAG)
        vp_buf_printf(&r->notes, "world size: %ld (%s)\n", *world, flag);
    else if (from == VP_WORLD_DISTRIBUTED)
        vp_buf_printf(&r->notes, "world size: %ld (distributedInfo.world_size)\n", *world);
    else if (j->ntraces == 1)
        vp_buf_printf(&r->notes, "world size: 1 (no distributedInfo: a single process; "
                      "%s says otherwise)\n", flag);
    else
        vp_buf_printf(&r->notes, "world size: %ld (the traces read, no distributedInfo; "
                      "%s says otherwise)\n", *world, flag);
    *device = tr.device;
    tr.device = NULL;
    char what[64];
    snprintf(what, sizeof what, "%zu traces", j->ntraces);
    const char *name = j->ntraces == 1 ? tr.first_name : what;
    r->steps = tr.steps;
    tr.steps = (vp_step_times){0};
    int rc = 0;
    vp_buf b = {0};
    if (j->step_time) {
        vp_buf_printf(&r->notes, "step time: %s (the trace's steps are listed)\n",
                      OPT(STEP_TIME, "step_time"));
        vp_error ignored = {0};
        if (!r->steps.n || steps_median(r, name, &b, &ignored) != 0)
            r->steps.n = 0;   /* nothing to list */
        r->step_time = j->step_time;
    } else if (!j->tokens_per_sec) {
        rc = steps_median(r, name, &b, err);
        if (rc == 0)
            vp_buf_printf(&r->notes, "%s\n", vp_buf_cstr(&b));
    } else {
        r->steps.n = 0;   /* the rate is given: no steps to list */
    }
    vp_buf_free(&b);
    vp_mfu_traces_free(&tr);
    return rc;
}

static int resolve_peak(const vp_mfu_job *j, vp_mfu_result *r, const char *device, vp_error *err)
{
    const char *flag = OPT(PEAK, "peak");
    if (j->peak) {
        r->peak = j->peak;
        snprintf(r->peak_note, sizeof r->peak_note, "peak: %g TFLOP/s per device (%s)", j->peak,
                 flag);
        return 0;
    }
    const char *name = j->gpu ? j->gpu : device;
    const char *from = j->gpu ? OPT(GPU, "gpu") : "deviceProperties";
    if (!name)
        return usage(err, "the accelerator is not known%s: give %s NAME (e.g. \"H100 SXM\") or "
                     "%s N", j->ntraces ? " (the trace has no deviceProperties)" : "",
                     OPT(GPU, "gpu"), flag);
    const vp_peak *p;
    double v = vp_peak_find(name, j->dtype, &p);
    if (!p)
        return usage(err, "'%s' (%s) is not in vprof's peak table: give its dense peak with %s N",
                     name, from, flag);
    if (!(v > 0)) {
        int fp16 = j->dtype == VP_DTYPE_BF16 && p->tflops[VP_DTYPE_FP16] > 0;
        return usage(err, "no dense %s peak known for the %s: give %s N%s%s%s",
                     vp_dtype_name(j->dtype), p->device, flag, fp16 ? " or " : "",
                     fp16 ? OPT(DTYPE, "dtype") : "", fp16 ? " fp16" : "");
    }
    r->peak = v;
    snprintf(r->peak_note, sizeof r->peak_note,
             "peak: %g TFLOP/s dense %s per device, %s (%s); \"%s\" matched in \"%s\" (%s)", v,
             vp_dtype_name(j->dtype), p->device, p->source, p->key, name, from);
    return 0;
}

/* The rate of a training log's iterations (their medians). */
static int log_rate(const vp_mfu_job *j, vp_mfu_result *r, int64_t per_step, vp_error *err)
{
    vp_mfu_log *lr = &r->log_rates;
    if (vp_mfu_log_rates(&r->log, j->log_path, (long)j->world_size, per_step,
                         j->global_batch, j->seq_len, lr, err) != 0)
        return -1;
    r->step_time = lr->step_time;
    r->tokens_per_gpu = lr->median_tokens;
    vp_buf_printf(&r->notes, "tokens/s/GPU: median of %zu iterations in %s\n", lr->rated,
                  j->log_path);
    if (lr->world > 0)
        vp_buf_printf(&r->notes, "world size: %lld (%s)\n", (long long)lr->world,
                      lr->world_from == VP_WORLD_FLAG ? OPT(WORLD_SIZE, "world_size")
                                                      : "the log's world_size");
    return 0;
}

/* The rate from the values given: the tokens of a step over its time. */
static int given_rate(const vp_mfu_job *j, vp_mfu_result *r, long world, int64_t per_step,
                      vp_error *err)
{
    if (j->tokens_per_sec) {
        r->tokens_per_gpu = j->tokens_per_sec;
        vp_buf_printf(&r->notes, "tokens/s/GPU: %s\n", OPT(TOKENS_PER_SEC, "tokens_per_sec"));
        return 0;
    }
    if (!j->ntraces) {
        r->step_time = j->step_time;
        if (!j->world_size)
            return usage(err, "the number of GPUs is not known: give %s",
                         OPT(WORLD_SIZE, "world_size"));
        world = (long)j->world_size;
    }
    if (!per_step && j->global_batch)
        per_step = j->global_batch * (int64_t)r->tokens;
    const char *tps = OPT(TOKENS_PER_STEP, "tokens_per_step");
    const char *gb = OPT(GLOBAL_BATCH, "global_batch"), *sl = OPT(SEQ_LEN, "seq_len");
    if (!per_step)
        return usage(err, "tokens per step not known: give %s, or %s with %s", tps, gb, sl);
    r->tokens_per_gpu = vp_mfu_tokens_per_gpu((double)per_step, r->step_time, world);
    vp_buf_printf(&r->notes, "tokens per step: %lld (", (long long)per_step);
    if (j->tokens_per_step)
        vp_buf_printf(&r->notes, "%s)\n", tps);
    else if (j->global_batch)
        vp_buf_printf(&r->notes, "%s x %s)\n", gb, sl);
    else
        vp_buf_printf(&r->notes, "the sum of %s)\n", OPT(SEQLENS, "seqlens_path"));
    return 0;
}

int vp_mfu_compute(const vp_mfu_job *j, vp_mfu_result *r, vp_error *err)
{
    memset(r, 0, sizeof *r);
    r->first_out = -1;
    r->step_time = r->tokens_per_gpu = NAN;
    int64_t per_step = j->tokens_per_step;
    if (check_job(j, err) != 0)
        return -1;
    if (j->log_path) {
        if (vp_trainlog_read(j->log_path, &r->log, err) != 0)
            return -1;
        r->has_log = 1;
        /* VeOmni's EnvironMeter logged its own FLOPs and peak: that is an
         * MFU without a model (the view says whose) */
        r->veomni = r->log.veomni > 0;
        if (r->veomni && !j->model_path && !j->given.set) {
            r->veomni_only = 1;
            return 0;
        }
    }
    if (build_model(j, &r->model, err) != 0)
        return -1;
    if (lengths(j, r, &per_step, err) != 0)
        return -1;
    vp_model_flops(&r->model, VP_ATTN_FULL, r->tokens, r->sq_sum, &r->flops[0]);
    vp_model_flops(&r->model, VP_ATTN_CAUSAL, r->tokens, r->sq_sum, &r->flops[1]);
    if (r->model.sliding_window && r->model.sliding_window < (int64_t)(r->sq_sum / r->tokens))
        vp_warn("the config has a sliding window of %lld tokens; vprof counts full attention",
                (long long)r->model.sliding_window);

    if (!j->ntraces && !j->log_path && !j->step_time && !j->tokens_per_sec) {
        if (j->recompute != VP_RECOMPUTE_NONE || j->peak || j->gpu)
            vp_warn("no step time (a trace, %s, %s or %s): the model alone is printed",
                    OPT(LOG, "log_path"), OPT(STEP_TIME, "step_time"),
                    OPT(TOKENS_PER_SEC, "tokens_per_sec"));
        return 0;
    }
    r->has_rate = 1;
    long world = 0;
    char *device = NULL;
    int rc = j->ntraces ? read_traces(j, r, &world, &device, err) : 0;
    if (rc == 0)
        rc = resolve_peak(j, r, device, err);
    free(device);
    if (rc == 0)
        rc = r->has_log ? log_rate(j, r, per_step, err) : given_rate(j, r, world, per_step, err);
    vp_buf_cstr(&r->notes);   /* a C string from here on, for the view */
    return rc;
}

void vp_mfu_result_free(vp_mfu_result *r)
{
    vp_step_times_free(&r->steps);
    if (r->has_log)
        vp_trainlog_free(&r->log);
    vp_mfu_log_free(&r->log_rates);
    vp_buf_free(&r->notes);
}
