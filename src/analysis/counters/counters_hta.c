/* HTA's names in vprof counters (vprof/counters.h): the runtime calls
 * whose launches its queue length counts, and its copy kinds. */
#include <string.h>

#include "vprof/counters.h"

/* HTA's get_runtime_launch_events_mask (trace_symbol_table.py). */
static const char *const HTA_LAUNCH_CALLS[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
    "cudaMemcpyAsync", "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
    "hipMemcpyWithStream",
};

int vp_counters_hta_launch(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof HTA_LAUNCH_CALLS / sizeof *HTA_LAUNCH_CALLS; i++)
        if (strlen(HTA_LAUNCH_CALLS[i]) == n && memcmp(HTA_LAUNCH_CALLS[i], name, n) == 0)
            return 1;
    return 0;
}

static int starts(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && memcmp(s, lit, k) == 0;
}

static int contains(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, lit, k) == 0)
            return 1;
    return 0;
}

const char *vp_counters_copy_kind(const char *name, size_t n)
{
    static char kind[16];
    /* hta/utils/utils.py get_kernel_type: communication is tested first */
    if (starts(name, n, "nccl") || starts(name, n, "hip") || starts(name, n, "hccl") ||
        contains(name, n, "ncclKernel"))
        return NULL;
    if (starts(name, n, "Memset"))
        return "Memset";
    if (starts(name, n, "dma"))
        return "Memcpy Unknown";
    if (!starts(name, n, "Memcpy"))
        return NULL;
    size_t k = n < 11 ? n : 11;   /* len("Memcpy DtoH") */
    memcpy(kind, name, k);
    kind[k] = 0;
    return kind;
}

