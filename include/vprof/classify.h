/* What kind of GPU activity an event is, and which class a kernel falls in.
 * The rules are documented in docs/kernels.md ("Classes"); change both
 * together. */
#ifndef VPROF_CLASSIFY_H
#define VPROF_CLASSIFY_H

#include <stddef.h>

#include "vprof/json.h"

typedef enum vp_gpu_kind {
    VP_GPU_NONE = 0,   /* not GPU activity (CPU ops, annotations, flows ...) */
    VP_GPU_KERNEL,     /* cat kernel, Kernel (2021 Kineto), mtia_ccp_events */
    VP_GPU_MEMCPY,     /* gpu_memcpy, Memcpy */
    VP_GPU_MEMSET,     /* gpu_memset, Memset */
    VP_GPU_SYNC,       /* cuda_sync */
} vp_gpu_kind;

typedef enum vp_kclass {
    VP_CLASS_COMPUTE,
    VP_CLASS_COMM,
    VP_CLASS_MEMORY,
    VP_CLASS_SYNC,
    VP_CLASS_COUNT,
} vp_kclass;

vp_gpu_kind vp_gpu_kind_of(vp_span cat);
vp_kclass vp_classify(vp_gpu_kind kind, const char *name, size_t n);
const char *vp_kclass_name(vp_kclass c);

/* The class of an Ascend device task from its Task Type (trace_view.json
 * "Task Type", kernel_details "Accelerator Core"), or its name when the
 * type says nothing: communication for HCCL tasks and hcom_* operations;
 * memory for SDMA, PCIE_DMA and MEMCPY tasks; sync for event and notify
 * record/wait tasks; compute for the rest (AI_CORE, AI_VECTOR_CORE,
 * MIX_AIC, MIX_AIV, AI_CPU, DSA_SQE, FFTS_PLUS, Other ...).  type may be
 * NULL. */
vp_kclass vp_npu_classify(const char *type, size_t tn, const char *name, size_t n);

/* True for CPU-side events that launch GPU work and carry the CUDA
 * correlation id in args (cuda_runtime, cuda_driver, Runtime, and the
 * *_runtime categories of other back ends). */
int vp_is_launch_category(vp_span cat);

#endif
