/* Findings: rules with thresholds over a run's metrics (vprof/findings.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/callfind.h"
#include "vprof/classify.h"
#include "vprof/findings.h"
#include "vprof/roofline.h"
#include "vprof/util.h"

static const vp_threshold defaults[] = {
    {"attention", 20, "attention-like kernels above this share of kernel time (%), with no fused attention kernel"},
    {"exposed_comm", 30, "exposed communication above this share of GPU busy time (%)"},
    {"idle", 25, "GPU idle above this share of its span (%)"},
    {"dataloader", 10, "DataLoader time above this share of step time (%)"},
    {"syncs", 1, "at least this many blocking host-device syncs inside the steps"},
    {"fp32_gemm", 10, "FP32 GEMMs above this share of GEMM time (%)"},
    {"short_kernels", 50, "kernels shorter than their launch call above this share (%)"},
    {"rank_spread", 10, "compute time of the ranks spread above this share of its median (%)"},
    {"mfu", 0.40, "MFU below this (0..1; needs --model)"},
    {"launch_bound", 30, "launch-bound launches (short work the GPU waited for) above this share (%)"},
    {"api_share", 40, "one non-launch runtime API call above this share of API time (%)"},
    {"roofline", 30, "an operator and shape below this Roofline (%), as vprof roofline's"},
    {"roofline_share", 5, "... with at least this share of the operators' GPU time (%)"},
    {NULL, 0, NULL},
};

vp_threshold *vp_thresholds_new(void)
{
    vp_threshold *t = vp_malloc(sizeof defaults);
    memcpy(t, defaults, sizeof defaults);
    return t;
}

int vp_thresholds_set(vp_threshold *th, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq)
        return -1;
    char *end;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end)
        return -1;
    for (vp_threshold *t = th; t->name; t++)
        if (strlen(t->name) == (size_t)(eq - spec) && memcmp(t->name, spec, (size_t)(eq - spec)) == 0) {
            t->value = v;
            return 0;
        }
    return -1;
}

double vp_threshold_get(const vp_threshold *th, const char *name)
{
    for (const vp_threshold *t = th; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t->value;
    abort();  /* a rule asking for an unknown threshold is a bug */
}

static int get(const vp_run *r, const char *name, double *v)
{
    const vp_metric *m = vp_run_find(r, name);
    if (m)
        *v = m->value;
    return m != NULL;
}

vp_finding *vp_finding_add(vp_finding *out, size_t *n, size_t max, const char *rule,
                           const char *suggestion)
{
    if (*n >= max)
        return NULL;
    vp_finding *f = &out[(*n)++];
    memset(f, 0, sizeof *f);
    f->rule = rule;
    f->suggestion = suggestion;
    return f;
}

/* FP32 GEMMs: what to use instead depends on the tensor cores the device
 * has.  BF16 ones came with compute capability 8.0 (A100); a V100 (7.0)
 * or T4 (7.5) has FP16 ones only, which AMP's float16 autocast (with a
 * gradient scaler) uses; a device without deviceProperties is named as
 * unknown rather than guessed. */
static vp_finding *fp32_gemm_finding(const vp_run *r, double share, vp_finding *f)
{
    if (!f)
        return NULL;
    int major, minor;
    const char *dev = vp_run_device(r)[0] ? vp_run_device(r) : "the GPU";
    if (!vp_run_compute_capability(r, &major, &minor)) {
        f->suggestion = "check dtypes and autocast: BF16 GEMMs on devices with BF16 tensor cores "
                        "(compute capability 8.0 and later: A100, H100), FP16 with AMP "
                        "(autocast float16 and a gradient scaler) on older ones (V100, T4)";
        snprintf(f->what, sizeof f->what, "FP32 GEMMs where BF16 or FP16 is expected");
        snprintf(f->evidence, sizeof f->evidence,
                 "%.1f%% of GEMM time is in FP32 kernels (sgemm, TF32 s1688/s16816gemm); the "
                 "device is unknown (no compute capability in deviceProperties)", share);
    } else if (major >= 8) {
        f->suggestion = "check dtypes and autocast: bf16 GEMMs are several times faster than FP32 "
                        "or TF32 ones";
        snprintf(f->what, sizeof f->what, "FP32 GEMMs where BF16 is expected");
        snprintf(f->evidence, sizeof f->evidence,
                 "%.1f%% of GEMM time is in FP32 kernels (sgemm, TF32 s1688/s16816gemm) on %s "
                 "(compute capability %d.%d, BF16 tensor cores)", share, dev, major, minor);
    } else {
        f->suggestion = major >= 7
                            ? "use AMP with FP16 (autocast float16 and a gradient scaler): "
                              "FP16 tensor-core GEMMs are several times faster than FP32 ones; "
                              "this device has no BF16 tensor cores"
                            : "use AMP with FP16 (autocast float16 and a gradient scaler) where "
                              "the device computes FP16 fast; it has no tensor cores, BF16 none";
        snprintf(f->what, sizeof f->what, "FP32 GEMMs where FP16 (AMP) is expected");
        snprintf(f->evidence, sizeof f->evidence,
                 "%.1f%% of GEMM time is in FP32 kernels (sgemm) on %s (compute capability "
                 "%d.%d: no BF16 tensor cores)", share, dev, major, minor);
    }
    return f;
}

/* launch_bound and api_share (vprof/callfind.h): last, from the launches
 * and api analyses that the run's pass fed. */
static size_t call_findings(const vp_run *r, const vp_threshold *th, vp_finding *out, size_t n,
                            size_t max)
{
    vp_call_facts c;
    return vp_run_call_facts(r, &c) == 0 ? vp_call_findings(&c, th, out, n, max) : n;
}

/* The evidence of no_comm: the longest kernels, all of them compute for
 * want of evidence, one of which may be the communication. */
static void unplaced_kernels(const vp_run *r, char *buf, size_t n)
{
    int len = snprintf(buf, n, "distributedInfo says world_size %ld; no kernel is "
                               "communication by name, args or launching op; the longest "
                               "it could not place:", vp_run_world(r));
    size_t shown = 0;
    for (size_t i = 0; i < vp_run_nkernels(r) && shown < 3 && len > 0 && (size_t)len < n; i++) {
        const vp_kernel_total *k = vp_run_kernel(r, i);
        if (!k->count || k->cls != VP_CLASS_COMPUTE)
            continue;
        char t[32];
        vp_human_ns(t, sizeof t, (double)k->total);
        len += snprintf(buf + len, n - (size_t)len, "%s %.60s%s (%s)", shown ? "," : "",
                        k->name, strlen(k->name) > 60 ? "..." : "", t);
        shown++;
    }
}

/* far_under_roof: the rows of vprof roofline (by operator and shape, all
 * ranks) with a roof, below the roofline threshold and with at least
 * roofline_share of the operators' GPU time, the most time first.  The
 * figures shown are those compared: a row whose Roofline reads as the
 * threshold at one decimal is not below it.  Where nothing can be
 * judged, it says why: no_shapes (no Input Dims) and no_peaks (a device
 * without peaks), never silence read as "every operator near its roof". */
static size_t roofline_findings(const vp_run *r, const vp_threshold *th, vp_finding *out,
                                size_t n, size_t max)
{
    const vp_roofline *rl = vp_run_roofline(r);
    vp_finding *f;
    char t[32];
    if (!rl || vp_run_is_ascend(r) || !vp_run_has_device_work(r) || rl->gpu_ns <= 0)
        return n;
    double gpu = (double)rl->gpu_ns;
    if (!rl->dims_seen) {
        if ((f = vp_finding_add(out, &n, max, "no_shapes",
                                "record with record_shapes=True (torch.profiler.profile) to see "
                                "how close each operator runs to its roof (vprof roofline)"))) {
            vp_human_ns(t, sizeof t, gpu);
            snprintf(f->what, sizeof f->what,
                     "no Input Dims: how close the operators run to their roof is not known");
            double files = 0;
            get(r, "ranks", &files);
            snprintf(f->evidence, sizeof f->evidence,
                     "no operator of the %.0f trace file%s has Input Dims: the FLOPs and bytes "
                     "of the operators' %s of GPU time are unknown",
                     files, files == 1 ? "" : "s", t);
        }
        return n;
    }
    if (rl->modelled_ns <= 0)
        return n;
    if (!rl->peak) {
        if ((f = vp_finding_add(out, &n, max, "no_peaks",
                                "vprof roofline --gpu NAME, or --peak-tflops and --peak-tbs, "
                                "puts them against the device's roofs"))) {
            snprintf(f->what, sizeof f->what,
                     "the device's peaks are unknown: how close the operators run to their "
                     "roof is not known");
            int len = rl->device[0]
                          ? snprintf(f->evidence, sizeof f->evidence,
                                     "device \"%.80s\" is not in the peak table", rl->device)
                          : snprintf(f->evidence, sizeof f->evidence,
                                     "no device name in deviceProperties");
            snprintf(f->evidence + len, sizeof f->evidence - (size_t)len,
                     "; %.1f%% of the operators' GPU time is in operators with a model",
                     100.0 * (double)rl->modelled_ns / gpu);
        }
        return n;
    }
    double below = vp_threshold_get(th, "roofline"), share = vp_threshold_get(th, "roofline_share");
    size_t hits = 0;
    int64_t hit_ns = 0;
    int len = 0;
    f = NULL;
    for (size_t i = 0; i < rl->nrows; i++) {   /* by kernel time, the most first */
        const vp_rl_row *x = &rl->rows[i];
        vp_rl_figures fig;
        vp_rl_row_figures(x, &fig);
        double pct = round(fig.pct * 10) / 10, sh = round(1000.0 * (double)x->kernel_ns / gpu) / 10;
        if (fig.pct < 0 || pct >= below || sh < share)
            continue;
        if (!hits && !(f = vp_finding_add(out, &n, max, "far_under_roof",
                                          "vprof roofline lists every operator and shape: fuse "
                                          "memory-bound ones (torch.compile) and drop needless "
                                          "dtype conversions; give compute-bound ones shapes "
                                          "that tile well (multiples of 64), BF16 or FP8, fused "
                                          "kernels (FlashAttention)")))
            return n;
        hits++;
        hit_ns += x->kernel_ns;
        if (hits > 2 || len < 0 || (size_t)len >= sizeof f->evidence)
            continue;
        size_t dn = strlen(x->dims ? x->dims : "");
        len += snprintf(f->evidence + len, sizeof f->evidence - (size_t)len,
                        "%s%.60s %.48s%s: %.4g TFLOP/s, %.1f%% of its roofline (%s-bound), "
                        "%.1f%% of the operators' GPU time",
                        hits > 1 ? "; " : "", x->name, x->dims ? x->dims : "",
                        dn > 48 ? "..." : "", fig.tflops, pct,
                        fig.compute_bound ? "compute" : "memory", sh);
    }
    if (!hits)
        return n;
    if (hits > 2 && len > 0 && (size_t)len < sizeof f->evidence)
        snprintf(f->evidence + len, sizeof f->evidence - (size_t)len, "; %zu more", hits - 2);
    snprintf(f->what, sizeof f->what,
             "%zu operator shape%s far under %s roof: %.1f%% of the operators' GPU time below "
             "%g%% of the roofline",
             hits, hits == 1 ? "" : "s", hits == 1 ? "its" : "their",
             round(1000.0 * (double)hit_ns / gpu) / 10, below);
    return n;
}

size_t vp_findings(const vp_run *r, const vp_threshold *th, vp_finding *out, size_t max)
{
    size_t n = 0;
    /* An Ascend run is told in the names its users read in MindStudio
     * Insight: HCCL, AI Core, NPU, AscendCL. */
    int npu = vp_run_is_ascend(r);
    const char *dev = npu ? "NPU" : "GPU";
    double a = 0, b = 0, c = 0;
    char t1[32];
    vp_finding *f;

    /* First, and never a silent all-clear: a run without device work has
     * device metrics of 0 that no threshold should read as healthy. */
    if (!vp_run_has_device_work(r) &&
        (f = vp_finding_add(out, &n, max, "no_device",
                 npu ? "profile the NPU too (torch_npu.profiler with ProfilerActivity.NPU), "
                       "check that the model runs on the NPU, or count other steps"
                     : "profile the GPU too (torch.profiler with ProfilerActivity.CUDA), check "
                       "that the model runs on the GPU, or count other steps"))) {
        get(r, "ranks", &a);
        snprintf(f->what, sizeof f->what, "no %s activity: nothing on a device to judge", dev);
        snprintf(f->evidence, sizeof f->evidence,
                 "no kernel, memory copy or collective in the counted events of %.0f trace "
                 "file%s: the %s metrics are zeros that measure nothing",
                 a, a == 1 ? "" : "s", dev);
    }
    /* Never a silent all-clear either: ranks that ran with others and no
     * kernel the rules know as communication (vprof/runstats.h). */
    if (vp_run_comm_unseen(r) &&
        (f = vp_finding_add(out, &n, max, "no_comm",
                 "name the communication kernels (a library the rules of "
                 "docs/classification.md do not know) to count them as communication"))) {
        snprintf(f->what, sizeof f->what,
                 "no communication found in a run of %ld ranks: its exposed communication is "
                 "unknown, not 0", vp_run_world(r));
        unplaced_kernels(r, f->evidence, sizeof f->evidence);
    }
    if (get(r, "attention.pct", &a) && get(r, "attention.flash", &b) && b == 0 &&
        a > vp_threshold_get(th, "attention") &&
        (f = vp_finding_add(out, &n, max, "attention",
                 "check that FlashAttention is active (SDPA's flash or memory-efficient "
                 "backend, flash-attn, or a fused kernel of your framework)"))) {
        snprintf(f->what, sizeof f->what, "attention kernels dominate and no FlashAttention kernel ran");
        snprintf(f->evidence, sizeof f->evidence,
                 "attention-like kernels (softmax, attention, attn, sdpa) take %.1f%% of kernel "
                 "time; no kernel named flash, fmha or efficient_attention", a);
    }
    if (get(r, "comm.exposed_pct", &a) && a > vp_threshold_get(th, "exposed_comm") &&
        get(r, "comm.exposed", &b) &&
        (f = vp_finding_add(out, &n, max, "exposed_comm",
                 npu ? "overlap HCCL communication with compute: --overlap-grad-reduce and "
                       "--overlap-param-gather (Megatron/MindSpeed), async tensor/sequence "
                       "parallel, fewer or larger collectives"
                     : "overlap communication with compute: FSDP prefetch and reshard settings, "
                       "DDP bucket sizes, async tensor/sequence parallel, fewer or larger "
                       "collectives"))) {
        const char *comm = npu ? "HCCL communication" : "communication";
        const char *comp = npu ? "AI Core compute" : "compute";
        vp_human_ns(t1, sizeof t1, b);
        snprintf(f->what, sizeof f->what, "%s is exposed: %s does not hide it", comm, comp);
        if (get(r, "comm.exposed_step_pct", &c))
            snprintf(f->evidence, sizeof f->evidence,
                     "%s of %s not overlapped by compute (all ranks): %.1f%% of the %s's busy "
                     "time, %.1f%% of the steps' wall time", t1, comm, a, dev, c);
        else
            snprintf(f->evidence, sizeof f->evidence,
                     "%s of %s not overlapped by compute (all ranks): %.1f%% of the %s's busy "
                     "time", t1, comm, a, dev);
    }
    if (get(r, "gpu.idle_pct", &a) && a > vp_threshold_get(th, "idle") &&
        (f = vp_finding_add(out, &n, max, "idle",
                 npu ? "the CPU does not keep the NPU fed: cut operator dispatch overhead "
                       "(TASK_QUEUE_ENABLE, graph mode), syncs and data-loading stalls"
                     : "the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, "
                       "torch.compile), syncs and data-loading stalls"))) {
        double syncs = 0, shortk = 0;
        get(r, "sync.count", &syncs);
        snprintf(f->what, sizeof f->what, "the %s is idle for much of the run", dev);
        if (get(r, "kernels.short_pct", &shortk))
            snprintf(f->evidence, sizeof f->evidence,
                     "%s idle %.1f%% of its span; %.0f blocking syncs in the steps; %.1f%% of "
                     "the kernels ran shorter than their launch call", dev, a, syncs, shortk);
        else
            snprintf(f->evidence, sizeof f->evidence,
                     "%s idle %.1f%% of its span; %.0f blocking syncs in the steps", dev, a,
                     syncs);
    }
    if (get(r, "dataloader.pct", &a) && a > vp_threshold_get(th, "dataloader") &&
        (f = vp_finding_add(out, &n, max, "dataloader",
                 "more DataLoader workers, pin_memory and prefetch_factor, faster storage or a "
                 "preprocessed dataset"))) {
        snprintf(f->what, sizeof f->what, "data loading takes a large share of the steps");
        snprintf(f->evidence, sizeof f->evidence,
                 "enumerate(DataLoader) annotations cover %.1f%% of the steps' wall time", a);
    }
    if (get(r, "sync.count", &a) && a >= vp_threshold_get(th, "syncs") &&
        (f = vp_finding_add(out, &n, max, "syncs",
                 "remove .item(), .cpu(), .tolist() and printing of tensors from the training "
                 "loop; log asynchronously"))) {
        snprintf(f->what, sizeof f->what, "the host waits for the %s inside the steps", dev);
        int n_ev = 0;
        if (get(r, "sync.time", &b) && get(r, "sync.step_pct", &c)) {
            vp_human_ns(t1, sizeof t1, b);
            n_ev = snprintf(f->evidence, sizeof f->evidence,
                            "%s blocked in syncs, %.1f%% of the steps' wall time: ", t1, c);
        }
        snprintf(f->evidence + n_ev, sizeof f->evidence - (size_t)n_ev,
                 npu ? "%.0f blocking calls (aclrtSynchronizeStream, aclrtSynchronizeDevice, "
                       "aclrtSynchronizeEvent, synchronous aclrtMemcpy) inside the steps"
                     : "%.0f blocking calls (cudaStreamSynchronize, cudaDeviceSynchronize, "
                       "cudaEventSynchronize, synchronous cudaMemcpy) inside the steps",
                 a);
    }
    if (get(r, "gemm.fp32_pct", &a) && a > vp_threshold_get(th, "fp32_gemm"))
        f = fp32_gemm_finding(r, a, vp_finding_add(out, &n, max, "fp32_gemm", NULL));
    if (get(r, "kernels.short_pct", &a) && a > vp_threshold_get(th, "short_kernels") &&
        (f = vp_finding_add(out, &n, max, "short_kernels",
                 "launch overhead dominates: CUDA graphs, kernel fusion, torch.compile"))) {
        snprintf(f->what, sizeof f->what, "many kernels are shorter than their launch");
        snprintf(f->evidence, sizeof f->evidence,
                 "%.1f%% of the kernels ran for less time than the CPU call that launched them", a);
    }
    if (get(r, "rank.spread_pct", &a) && a > vp_threshold_get(th, "rank_spread") &&
        (f = vp_finding_add(out, &n, max, "rank_spread",
                 "balance the load: MoE routing and capacity, data sharding, sequence lengths "
                 "per rank"))) {
        snprintf(f->what, sizeof f->what, "the ranks do uneven amounts of work");
        snprintf(f->evidence, sizeof f->evidence,
                 "compute time differs by %.1f%% of its median between the ranks", a);
    }
    if (get(r, "mfu", &a) && a < vp_threshold_get(th, "mfu") &&
        (f = vp_finding_add(out, &n, max, "mfu",
                 "work through the findings above, largest measured cost first"))) {
        get(r, "tflops", &b);
        snprintf(f->what, sizeof f->what, "low model FLOPs utilization");
        snprintf(f->evidence, sizeof f->evidence, "MFU %.1f%% (%.1f TFLOP/s per %s)", a * 100, b,
                 dev);
    }
    n = call_findings(r, th, out, n, max);
    return roofline_findings(r, th, out, n, max);
}
