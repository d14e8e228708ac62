/* GPU activity kinds and kernel classes, by category first, then name. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/classify.h"
#include "vprof/util.h"

static int span_is(vp_span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

static int starts(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s, lit, m) == 0;
}

static int contains(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    if (m > n)
        return 0;
    for (size_t i = 0; i + m <= n; i++) {
        const char *hit = memchr(s + i, lit[0], n - m + 1 - i);
        if (!hit)
            return 0;
        if (memcmp(hit, lit, m) == 0)
            return 1;
        i = (size_t)(hit - s);
    }
    return 0;
}

vp_gpu_kind vp_gpu_kind_of(vp_span cat)
{
    switch (cat.n) {
    case 6:
        if (span_is(cat, "kernel") || span_is(cat, "Kernel"))
            return VP_GPU_KERNEL;
        if (span_is(cat, "Memcpy") || span_is(cat, "Memset"))
            return cat.p[4] == 'p' ? VP_GPU_MEMCPY : VP_GPU_MEMSET;
        break;
    case 9:
        if (span_is(cat, "cuda_sync"))
            return VP_GPU_SYNC;
        break;
    case 10:
        if (span_is(cat, "gpu_memcpy"))
            return VP_GPU_MEMCPY;
        if (span_is(cat, "gpu_memset"))
            return VP_GPU_MEMSET;
        break;
    case 15:
        if (span_is(cat, "mtia_ccp_events"))
            return VP_GPU_KERNEL;
        break;
    }
    return VP_GPU_NONE;
}

/* The rule table (docs/classification.md).  The first rule that matches
 * decides; the compute exceptions come before the families they belong
 * to.  Each row says what it reads: the kernel's name, the name of the
 * CPU op that launched it, or the kernel's args.  The names are the
 * libraries' own, as their sources define the kernels and the demangled
 * names appear in Kineto traces ("void deep_ep::internode::dispatch<...>(...)"). */
static const vp_comm_rule rules[] = {
    /* DeepEP's layout and bookkeeping kernels compute locally, before any
     * exchange: the token counts per rank and expert. */
    {"DeepEP layout (local)", VP_EVID_NAME, VP_MATCH_CONTAINS, "get_dispatch_layout",
     VP_CLASS_COMPUTE},
    {"DeepEP layout (local)", VP_EVID_NAME, VP_MATCH_CONTAINS, "deep_ep::layout::", VP_CLASS_COMPUTE},
    /* NCCL (ncclKernel_*, ncclDevKernel_*), RCCL (which keeps NCCL's names) */
    {"NCCL/RCCL", VP_EVID_NAME, VP_MATCH_PREFIX, "nccl", VP_CLASS_COMM},
    {"NCCL/RCCL", VP_EVID_NAME, VP_MATCH_PREFIX, "rccl", VP_CLASS_COMM},
    {"NCCL/RCCL", VP_EVID_NAME, VP_MATCH_CONTAINS, "ncclKernel", VP_CLASS_COMM},
    {"NCCL/RCCL", VP_EVID_NAME, VP_MATCH_CONTAINS, "ncclDevKernel", VP_CLASS_COMM},
    /* MSCCL (mscclKernel_*) and MSCCL++ (namespace mscclpp) */
    {"MSCCL/MSCCL++", VP_EVID_NAME, VP_MATCH_PREFIX, "msccl", VP_CLASS_COMM},
    {"MSCCL/MSCCL++", VP_EVID_NAME, VP_MATCH_CONTAINS, "mscclpp::", VP_CLASS_COMM},
    /* HCCL (Ascend) */
    {"HCCL", VP_EVID_NAME, VP_MATCH_PREFIX, "hccl", VP_CLASS_COMM},
    {"HCCL", VP_EVID_NAME, VP_MATCH_PREFIX, "Hccl", VP_CLASS_COMM},
    /* NVSHMEM's own kernels (nvshmemi_*, nvshmemx_*) */
    {"NVSHMEM", VP_EVID_NAME, VP_MATCH_CONTAINS, "nvshmem", VP_CLASS_COMM},
    /* DeepEP: intranode (NVLink), internode (RDMA + NVLink), low-latency
     * dispatch, combine and their notify/cached_notify kernels; the
     * namespace dpsk::ep is DeepSeek's name for the same library */
    {"DeepEP", VP_EVID_NAME, VP_MATCH_CONTAINS, "deep_ep::intranode::", VP_CLASS_COMM},
    {"DeepEP", VP_EVID_NAME, VP_MATCH_CONTAINS, "deep_ep::internode", VP_CLASS_COMM},
    {"DeepEP", VP_EVID_NAME, VP_MATCH_CONTAINS, "dpsk::ep::intranode::", VP_CLASS_COMM},
    {"DeepEP", VP_EVID_NAME, VP_MATCH_CONTAINS, "dpsk::ep::internode", VP_CLASS_COMM},
    /* PyTorch symmetric memory (c10d::symmetric_memory::*: multimem,
     * one-shot and two-shot all-reduce, all-gather, barriers), and the
     * same algorithms' kernels elsewhere (Triton, FlashInfer) */
    {"symmetric memory", VP_EVID_NAME, VP_MATCH_CONTAINS, "symmetric_memory::", VP_CLASS_COMM},
    {"symmetric memory", VP_EVID_NAME, VP_MATCH_CONTAINS, "multimem_all_reduce", VP_CLASS_COMM},
    {"symmetric memory", VP_EVID_NAME, VP_MATCH_CONTAINS, "multimem_all_gather", VP_CLASS_COMM},
    {"symmetric memory", VP_EVID_NAME, VP_MATCH_CONTAINS, "multimem_one_shot", VP_CLASS_COMM},
    {"symmetric memory", VP_EVID_NAME, VP_MATCH_CONTAINS, "one_shot_all_reduce", VP_CLASS_COMM},
    {"symmetric memory", VP_EVID_NAME, VP_MATCH_CONTAINS, "two_shot_all_reduce", VP_CLASS_COMM},
    /* vLLM's and SGLang's custom all-reduce (cross_device_reduce_1stage,
     * _2stage), vLLM's quick all-reduce on ROCm */
    {"vLLM/SGLang custom all-reduce", VP_EVID_NAME, VP_MATCH_CONTAINS, "cross_device_reduce",
     VP_CLASS_COMM},
    {"vLLM/SGLang custom all-reduce", VP_EVID_NAME, VP_MATCH_CONTAINS, "quickreduce::",
     VP_CLASS_COMM},
    /* TensorRT-LLM's custom all-reduce (oneShotAllReduceKernel,
     * twoShotAllReduceKernel, the fused ones), also in SGLang's trt_reduce */
    {"TensorRT-LLM custom all-reduce", VP_EVID_NAME, VP_MATCH_CONTAINS, "ShotAllReduce",
     VP_CLASS_COMM},
    {"TensorRT-LLM custom all-reduce", VP_EVID_NAME, VP_MATCH_CONTAINS, "allreduce_fusion_kernel",
     VP_CLASS_COMM},
    {"TensorRT-LLM custom all-reduce", VP_EVID_NAME, VP_MATCH_CONTAINS, "allReduceFusionKernel",
     VP_CLASS_COMM},
    /* oneCCL (Intel GPUs) */
    {"oneCCL", VP_EVID_NAME, VP_MATCH_PREFIX, "oneccl", VP_CLASS_COMM},
    {"oneCCL", VP_EVID_NAME, VP_MATCH_CONTAINS, "ccl::", VP_CLASS_COMM},
    /* the kernel's args: Kineto writes the collective of a communication
     * kernel ("Collective name", with its message sizes) */
    {"args", VP_EVID_ARGS, VP_MATCH_KEY, "Collective name", VP_CLASS_COMM},
    /* the CPU op that launched the kernel (through the correlation id) */
    {"c10d", VP_EVID_LAUNCHER, VP_MATCH_PREFIX, "c10d::", VP_CLASS_COMM},
    {"c10d", VP_EVID_LAUNCHER, VP_MATCH_PREFIX, "_c10d_functional::", VP_CLASS_COMM},
    {"c10d", VP_EVID_LAUNCHER, VP_MATCH_PREFIX, "c10d_functional::", VP_CLASS_COMM},
    {"c10d", VP_EVID_LAUNCHER, VP_MATCH_PREFIX, "nccl:", VP_CLASS_COMM},
    {"c10d", VP_EVID_LAUNCHER, VP_MATCH_PREFIX, "record_param_comms", VP_CLASS_COMM},
    {"vLLM", VP_EVID_LAUNCHER, VP_MATCH_PREFIX, "vllm::all_reduce", VP_CLASS_COMM},
    {"vLLM", VP_EVID_LAUNCHER, VP_MATCH_PREFIX, "_C_custom_ar::all_reduce", VP_CLASS_COMM},
    {"symmetric memory", VP_EVID_LAUNCHER, VP_MATCH_PREFIX, "symm_mem::", VP_CLASS_COMM},
};

const vp_comm_rule *vp_comm_rules(size_t *n)
{
    *n = sizeof rules / sizeof *rules;
    return rules;
}

/* A name rule's test; "void " and other return types before a demangled
 * name do not hide a prefix: it may follow the last space before the
 * first '(' or '<'. */
static int rule_matches(const vp_comm_rule *r, const char *s, size_t n)
{
    if (r->how == VP_MATCH_CONTAINS)
        return contains(s, n, r->pattern);
    if (starts(s, n, r->pattern))
        return 1;
    size_t head = 0;
    while (head < n && s[head] != '(' && s[head] != '<')
        head++;
    for (size_t i = head; i > 0; i--)
        if (s[i - 1] == ' ')
            return starts(s + i, n - i, r->pattern);
    return 0;
}

static vp_kclass by_rules(vp_evidence ev, const char *s, size_t n, int *matched)
{
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (rules[i].evidence == ev && rule_matches(&rules[i], s, n)) {
            *matched = 1;
            return rules[i].cls;
        }
    *matched = 0;
    return VP_CLASS_COMPUTE;
}

int vp_collective_op(const char *name, size_t n)
{
    int matched;
    return by_rules(VP_EVID_LAUNCHER, name, n, &matched) == VP_CLASS_COMM && matched;
}

struct vp_kclass_rules {
    regex_t re[2];   /* VP_CLASS_COMPUTE's, VP_CLASS_COMM's */
    int have[2];
    char *buf;       /* a name, NUL-terminated for regexec */
    size_t cap;
};

vp_kclass_rules *vp_kclass_rules_new(void)
{
    return vp_calloc(1, sizeof(vp_kclass_rules));
}

int vp_kclass_rules_set(vp_kclass_rules *r, vp_kclass cls, const char *regex, vp_error *err)
{
    int i = cls == VP_CLASS_COMM;
    if (cls != VP_CLASS_COMM && cls != VP_CLASS_COMPUTE) {
        vp_error_set(err, VP_EXIT_USAGE, "a kernel rule sets communication or compute");
        return -1;
    }
    if (r->have[i])
        regfree(&r->re[i]);
    r->have[i] = 0;
    int rc = regcomp(&r->re[i], regex, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &r->re[i], msg, sizeof msg);
        vp_error_set(err, VP_EXIT_USAGE, "bad regular expression '%s': %s", regex, msg);
        regfree(&r->re[i]);
        return -1;
    }
    r->have[i] = 1;
    return 0;
}

void vp_kclass_rules_free(vp_kclass_rules *r)
{
    if (!r)
        return;
    for (int i = 0; i < 2; i++)
        if (r->have[i])
            regfree(&r->re[i]);
    free(r->buf);
    free(r);
}

/* -1: no override matches; else the class. */
static int overridden(vp_kclass_rules *r, const char *name, size_t n)
{
    if (!r || (!r->have[0] && !r->have[1]))
        return -1;
    if (n + 1 > r->cap) {
        r->cap = 2 * (n + 1);
        r->buf = vp_realloc(r->buf, r->cap);
    }
    memcpy(r->buf, name, n);
    r->buf[n] = '\0';
    if (r->have[0] && regexec(&r->re[0], r->buf, 0, NULL, 0) == 0)
        return VP_CLASS_COMPUTE;
    if (r->have[1] && regexec(&r->re[1], r->buf, 0, NULL, 0) == 0)
        return VP_CLASS_COMM;
    return -1;
}

vp_kclass vp_classify_rules(vp_kclass_rules *r, vp_gpu_kind kind, const char *name, size_t n,
                            int *decided)
{
    int matched;
    *decided = 1;
    switch (kind) {
    case VP_GPU_MEMCPY:
    case VP_GPU_MEMSET:
        return VP_CLASS_MEMORY;
    case VP_GPU_SYNC:
        return VP_CLASS_SYNC;
    default:
        break;
    }
    int o = overridden(r, name, n);
    if (o >= 0)
        return (vp_kclass)o;
    vp_kclass c = by_rules(VP_EVID_NAME, name, n, &matched);
    if (matched)
        return c;
    /* Kernels named like copies (some back ends report DMA as kernels). */
    if (starts(name, n, "Memcpy") || starts(name, n, "Memset") || starts(name, n, "hipMemcpy") ||
        starts(name, n, "hipMemset") || starts(name, n, "dma"))
        return VP_CLASS_MEMORY;
    *decided = 0;   /* compute for want of evidence: the args and the launcher may say more */
    return VP_CLASS_COMPUTE;
}

vp_kclass vp_classify(vp_gpu_kind kind, const char *name, size_t n)
{
    int decided;
    return vp_classify_rules(NULL, kind, name, n, &decided);
}

vp_kclass vp_npu_classify(const char *type, size_t tn, const char *name, size_t n)
{
    if (type && tn) {
        if ((tn == 4 && memcmp(type, "HCCL", 4) == 0) || starts(type, tn, "HCCL_"))
            return VP_CLASS_COMM;
        if (contains(type, tn, "SDMA") || contains(type, tn, "PCIE_DMA") ||
            contains(type, tn, "MEMCPY"))
            return VP_CLASS_MEMORY;
        if (contains(type, tn, "EVENT_RECORD") || contains(type, tn, "EVENT_WAIT") ||
            contains(type, tn, "NOTIFY_RECORD") || contains(type, tn, "NOTIFY_WAIT"))
            return VP_CLASS_SYNC;
    }
    if (starts(name, n, "hcom_") || starts(name, n, "hccl") || starts(name, n, "Hccl"))
        return VP_CLASS_COMM;
    return VP_CLASS_COMPUTE;
}

const char *vp_kclass_name(vp_kclass c)
{
    static const char *const names[] = {"compute", "communication", "memory", "sync"};
    return (unsigned)c < VP_CLASS_COUNT ? names[c] : "?";
}

static int ends(vp_span s, const char *lit)
{
    size_t m = strlen(lit);
    return s.n > m && memcmp(s.p + s.n - m, lit, m) == 0;
}

/* RUNTIME, DRIVER or OTHER: the launching calls' categories, asked of
 * every event by the correlation joins. */
static vp_ev_kind launch_kind(vp_span cat)
{
    if (span_is(cat, "cuda_runtime") || span_is(cat, "Runtime") || ends(cat, "_runtime"))
        return VP_EV_RUNTIME;
    if (ends(cat, "_driver"))   /* cuda_driver, xpu_driver ... */
        return VP_EV_DRIVER;
    return VP_EV_OTHER;
}

vp_ev_kind vp_event_kind(vp_span cat, vp_span name)
{
    if (name.n == 8 && memcmp(name.p, "[memory]", 8) == 0)
        return VP_EV_MEMORY;
    switch (vp_gpu_kind_of(cat)) {
    case VP_GPU_KERNEL:
        return VP_EV_KERNEL;
    case VP_GPU_MEMCPY:
        return VP_EV_MEMCPY;
    case VP_GPU_MEMSET:
        return VP_EV_MEMSET;
    case VP_GPU_SYNC:
        return VP_EV_SYNC;
    case VP_GPU_NONE:
        break;
    }
    if (span_is(cat, "cpu_op") || span_is(cat, "Operator"))
        return VP_EV_CPU_OP;
    if (span_is(cat, "user_annotation"))
        return VP_EV_ANNOTATION;
    if (span_is(cat, "gpu_user_annotation"))
        return VP_EV_GPU_ANNOTATION;
    if (span_is(cat, "python_function"))
        return VP_EV_PYTHON;
    return launch_kind(cat);
}

int vp_ev_is_op(vp_ev_kind k)
{
    return k == VP_EV_CPU_OP || k == VP_EV_ANNOTATION;
}

int vp_is_launch_category(vp_span cat)
{
    return launch_kind(cat) != VP_EV_OTHER;
}

int vp_is_autograd_op(vp_span name)
{
    static const char wrapper[] = "autograd::engine::evaluate_function:";
    if (starts(name.p, name.n, wrapper) || span_is(name, "torch::autograd::AccumulateGrad"))
        return 1;
    /* <Function>Backward<N>: the node's class name, N its version */
    size_t n = name.n;
    while (n > 0 && name.p[n - 1] >= '0' && name.p[n - 1] <= '9')
        n--;
    return n > 8 && memcmp(name.p + n - 8, "Backward", 8) == 0 &&
           memchr(name.p, ' ', n) == NULL;
}
