/* GPU activity kinds and kernel classes, by category first, then name. */
#include <string.h>

#include "vprof/classify.h"

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

vp_kclass vp_classify(vp_gpu_kind kind, const char *name, size_t n)
{
    switch (kind) {
    case VP_GPU_MEMCPY:
    case VP_GPU_MEMSET:
        return VP_CLASS_MEMORY;
    case VP_GPU_SYNC:
        return VP_CLASS_SYNC;
    default:
        break;
    }
    /* Collective libraries: NCCL (ncclKernel_*, ncclDevKernel_*), RCCL
     * (which keeps NCCL's names), HCCL, and the c10d/NVSHMEM all-to-all
     * kernels. */
    if (starts(name, n, "nccl") || starts(name, n, "rccl") || starts(name, n, "hccl") ||
        starts(name, n, "Hccl") || contains(name, n, "ncclKernel") ||
        contains(name, n, "ncclDevKernel"))
        return VP_CLASS_COMM;
    /* Kernels named like copies (some back ends report DMA as kernels). */
    if (starts(name, n, "Memcpy") || starts(name, n, "Memset") || starts(name, n, "hipMemcpy") ||
        starts(name, n, "hipMemset") || starts(name, n, "dma"))
        return VP_CLASS_MEMORY;
    return VP_CLASS_COMPUTE;
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
