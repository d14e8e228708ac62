/* MFU of a run (vprof/runstats.h): the model's FLOPs per token times the
 * tokens a GPU processes per second, over its peak. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/flops.h"
#include "vprof/mfu.h"
#include "vprof/runstats.h"
#include "vprof/stats.h"
#include "vprof/trace.h"
#include "vprof/tracepass.h"
#include "vprof/util.h"

int vp_run_add_mfu(vp_run *r, const vp_run_mfu_opts *o, vp_error *err)
{
    if (o->tokens_per_step <= 0 || o->seq_len <= 0) {
        vp_error_set(err, VP_EXIT_USAGE, "%s",
                     vp_diag_hint_or(VP_HINT_MFU_TOKENS, "MFU from a model needs the tokens of "
                                                         "one step (all ranks) and per sequence"));
        return -1;
    }
    double step = vp_run_mfu_step(r);
    char why[400];
    if (!(step > 0) && vp_run_why_absent(r, "mfu", why, sizeof why)) {
        vp_error_set(err, VP_EXIT_INPUT, "MFU needs the step time: %s", why);
        return -1;
    }
    if (!(step > 0)) {
        vp_error_set(err, VP_EXIT_USAGE,
                     "MFU needs the step time, and the trace has no ProfilerStep#N annotations%s",
                     vp_diag_hint(VP_HINT_MFU_STEP_TIME));
        return -1;
    }
    double peak = o->peak_tflops;
    if (peak <= 0) {
        const vp_peak *row;
        peak = vp_peak_find(vp_run_device(r), VP_DTYPE_BF16, &row);
        if (!(peak > 0)) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "no dense BF16 peak known for the accelerator '%s'%s",
                         vp_run_device(r)[0] ? vp_run_device(r) : "(no deviceProperties)",
                         vp_diag_hint(VP_HINT_MFU_PEAK));
            return -1;
        }
    }
    long world = vp_world_size(o->world_size, vp_run_world(r),
                               (long)vp_run_find(r, "ranks")->value, NULL);
    if (world <= 0)
        world = 1;
    vp_model m;
    if (vp_model_load(o->model, &m, err) != 0 || vp_model_check(&m, err) != 0)
        return -1;
    double tokens_per_gpu = vp_mfu_tokens_per_gpu(o->tokens_per_step, step / 1e9, world);
    vp_flops full, causal;
    vp_model_flops(&m, VP_ATTN_FULL, o->seq_len, o->seq_len * o->seq_len, &full);
    vp_model_flops(&m, VP_ATTN_CAUSAL, o->seq_len, o->seq_len * o->seq_len, &causal);
    vp_run_set(r, "tflops", tokens_per_gpu * full.total / 1e12);
    vp_run_set(r, "mfu", vp_mfu_pct(tokens_per_gpu, full.total, peak) / 100);
    vp_run_set(r, "mfu.causal", vp_mfu_pct(tokens_per_gpu, causal.total, peak) / 100);
    return 0;
}

long vp_world_size(long flag, long distributed, long ranks, vp_world_from *from)
{
    vp_world_from f = VP_WORLD_UNKNOWN;
    long w = 0;
    if (flag > 0)
        f = VP_WORLD_FLAG, w = flag;
    else if (distributed > 0)
        f = VP_WORLD_DISTRIBUTED, w = distributed;
    else if (ranks > 0)
        f = VP_WORLD_RANKS, w = ranks;
    if (from)
        *from = f;
    return w;
}

void vp_step_times_add(vp_step_times *s, long number, int64_t dur, int used)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->st[i].number == number) {
            if (dur > s->st[i].dur)
                s->st[i].dur = dur;
            s->st[i].used |= used;
            return;
        }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->st = vp_realloc(s->st, s->cap * sizeof *s->st);
    }
    s->st[s->n++] = (vp_step_time){number, dur, used};
}

void vp_step_times_free(vp_step_times *s)
{
    free(s->st);
    memset(s, 0, sizeof *s);
}

double vp_mfu_step_median(const vp_step_times *s, size_t *counted, long *first_out)
{
    int64_t *d = vp_malloc((s->n ? s->n : 1) * sizeof *d);
    size_t k = 0;
    long first = -1;
    for (size_t i = 0; i < s->n; i++)
        if (s->st[i].used) {
            if (first < 0)
                first = (long)i;
            d[k++] = s->st[i].dur;
        }
    int out = 0;
    if (k >= 3) {
        int64_t *rest = vp_malloc((k - 1) * sizeof *rest);
        memcpy(rest, d + 1, (k - 1) * sizeof *rest);
        vp_summary sum;
        vp_summarize(rest, k - 1, &sum);
        free(rest);
        out = fabs((double)d[0] - sum.median) > 0.2 * sum.median;
    }
    vp_summary sum;
    vp_summarize(d + out, k - (size_t)out, &sum);
    free(d);
    if (counted)
        *counted = k - (size_t)out;
    if (first_out)
        *first_out = out ? first : -1;
    return k ? sum.median : 0;
}

static int is_step_event(const vp_event *ev)
{
    return ev->ph == 'X' && ev->name.n > 13 && memcmp(ev->name.p, "ProfilerStep#", 13) == 0;
}

/* Only the ProfilerStep slices: the step times need no launch. */
static void take_step(void *steps, const vp_event *ev)
{
    if (is_step_event(ev))
        vp_steps_observe(steps, ev);
}

int vp_mfu_read_trace(vp_mfu_traces *m, const char *path, const vp_step_range *range, int partial,
                      vp_error *err)
{
    vp_steps *steps = vp_steps_new();
    vp_trace_pass p;
    vp_trace_pass_opts o = {.partial = partial, .range = range, .steps = steps, .rank = -1};
    int rc = vp_trace_pass_read(&p, path, &o, take_step, steps, err);
    vp_trace *t = p.trace;
    if (rc == 0) {
        vp_step_range all = {0};
        if (!range)
            vp_steps_select(steps, &all);   /* every step counts */
        size_t n = p.nsteps;
        for (size_t i = 0; i < n; i++) {
            int64_t a, b;
            int used = vp_steps_window(steps, i, &a, &b) == 1;
            vp_step_times_add(&m->steps, vp_steps_number(steps, i), b - a, used);
        }
        if (m->ranks == 0) {
            m->nsteps_first = n;
            m->first_name = vp_strdup(vp_trace_name(t));
        }
        m->ranks++;
        const char *name = vp_trace_name(t);
        const cJSON *meta = vp_trace_meta(t);
        const cJSON *di = cJSON_GetObjectItemCaseSensitive(meta, "distributedInfo");
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(di, "world_size");
        if (cJSON_IsNumber(ws) && ws->valuedouble >= 1 && (long)ws->valuedouble > m->world)
            m->world = (long)ws->valuedouble;
        const char *key = "deviceProperties";
        const cJSON *devs = vp_meta_devices(meta, &key);
        const cJSON *dname = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(devs, 0), "name");
        if (cJSON_IsString(dname) && !m->device) {
            m->device = vp_strdup(dname->valuestring);
            const cJSON *d;
            cJSON_ArrayForEach(d, devs) {
                const cJSON *nm = cJSON_GetObjectItemCaseSensitive(d, "name");
                if (cJSON_IsString(nm) && strcmp(nm->valuestring, dname->valuestring) != 0) {
                    vp_warn("%s: %s lists different devices (%s, %s): the first is "
                            "used; %s chooses", name, key, dname->valuestring, nm->valuestring,
                            vp_diag_hint_or(VP_HINT_OPT_GPU, "the caller"));
                    break;
                }
            }
        }
    }
    vp_trace_pass_close(&p);
    vp_steps_free(steps);
    return rc < 0 ? -1 : 0;
}

void vp_mfu_traces_free(vp_mfu_traces *m)
{
    vp_step_times_free(&m->steps);
    free(m->device);
    free(m->first_name);
    memset(m, 0, sizeof *m);
}

double vp_mfu_tokens_per_gpu(double tokens_per_step, double step_s, long world)
{
    return tokens_per_step / step_s / (double)world;
}

double vp_mfu_pct(double tokens_per_gpu, double flops_per_token, double peak_tflops)
{
    return 100 * (tokens_per_gpu * flops_per_token) / (peak_tflops * 1e12);
}

static double median_of(double *v, size_t n)
{
    /* Few values (log lines): insertion sort. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int vp_mfu_log_rates(const vp_trainlog *log, const char *path, long world_flag,
                     int64_t tokens_per_step, int64_t global_batch, int64_t seq_len,
                     vp_mfu_log *out, vp_error *err)
{
    memset(out, 0, sizeof *out);
    long world = vp_world_size(world_flag, (long)log->world_size, 0, &out->world_from);
    out->world = world;
    out->tokens_per_gpu = vp_malloc((log->n + 1) * sizeof *out->tokens_per_gpu);
    double *times = vp_malloc((log->n + 1) * sizeof *times);
    double *toks = vp_malloc((log->n + 1) * sizeof *toks);
    size_t nt = 0, nk = 0;
    int rc = 0;
    for (size_t i = 0; i < log->n && rc == 0; i++) {
        const vp_iter_rec *rec = &log->recs[i];
        double tok = NAN;
        int need_world = 0;
        if (!isnan(rec->tokens_per_s)) {
            if (rec->tokens_per_gpu)
                tok = rec->tokens_per_s;
            else if (world > 0)
                tok = rec->tokens_per_s / (double)world;
            else
                need_world = 1;
        } else if (!isnan(rec->time_s) && rec->time_s > 0) {
            int64_t per_step = tokens_per_step;
            if (!per_step) {
                int64_t gbs = global_batch              ? global_batch
                              : rec->global_batch > 0 ? rec->global_batch
                                                      : log->global_batch;
                int64_t seq = seq_len ? seq_len : log->seq_length;
                if (gbs > 0 && seq > 0)
                    per_step = gbs * seq;
            }
            if (per_step && world > 0) {
                tok = vp_mfu_tokens_per_gpu((double)per_step, rec->time_s, world);
            } else if (!per_step) {
                vp_error_set(err, VP_EXIT_USAGE,
                             "%s:%ld: tokens per iteration unknown: give %s, or %s and %s", path,
                             rec->line,
                             vp_diag_hint_or(VP_HINT_OPT_TOKENS_PER_STEP, "tokens_per_step"),
                             vp_diag_hint_or(VP_HINT_OPT_GLOBAL_BATCH, "global_batch"),
                             vp_diag_hint_or(VP_HINT_OPT_SEQ_LEN, "seq_len"));
                rc = -1;
            } else {
                need_world = 1;
            }
        }
        if (need_world) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "%s: the log does not say how many GPUs ran the job: give %s", path,
                         vp_diag_hint_or(VP_HINT_OPT_WORLD_SIZE, "world_flag"));
            rc = -1;
        }
        if (!isnan(rec->time_s))
            times[nt++] = rec->time_s;
        out->tokens_per_gpu[i] = tok;
        if (!isnan(tok))
            toks[nk++] = tok;
    }
    out->step_time = nt ? median_of(times, nt) : NAN;
    out->median_tokens = nk ? median_of(toks, nk) : NAN;
    out->rated = nk;
    free(times);
    free(toks);
    if (rc == 0 && !nk) {
        vp_error_set(err, VP_EXIT_USAGE,
                     "%s: no iteration lines with a time or a throughput (docs/mfu.md lists the "
                     "forms read)",
                     path);
        rc = -1;
    }
    return rc;
}

void vp_mfu_log_free(vp_mfu_log *l)
{
    free(l->tokens_per_gpu);
    memset(l, 0, sizeof *l);
}

int vp_mfu_read_traces(vp_mfu_traces *t, char *const *paths, size_t n,
                       const vp_step_range *range, int partial, vp_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (vp_mfu_read_trace(t, paths[i], range, partial, err) != 0) {
            vp_mfu_traces_free(t);
            return -1;
        }
    return 0;
}

size_t vp_step_times_used(const vp_step_times *s)
{
    size_t used = 0;
    for (size_t i = 0; i < s->n; i++)
        used += s->st[i].used != 0;
    return used;
}
