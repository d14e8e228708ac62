/* What kind of GPU activity an event is, and which class a kernel falls in.
 * The rules are documented in docs/classification.md (and the name rules'
 * summary in docs/kernels.md "Classes"); change them together. */
#ifndef VPROF_CLASSIFY_H
#define VPROF_CLASSIFY_H

#include <stddef.h>

#include "vprof/error.h"
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
const char *vp_kclass_name(vp_kclass c);

/* Communication by evidence (docs/classification.md).  A kernel is
 * communication when its name belongs to a collective library's family,
 * when its args name a collective, or when the CPU op that launched it
 * (through the correlation id) is a collective; the compute exceptions
 * (a library's local layout kernels) come first.  One table holds every
 * rule with the evidence it reads; the first rule that matches decides. */
typedef enum vp_evidence {
    VP_EVID_NAME,       /* the kernel's name */
    VP_EVID_ARGS,       /* a key of the kernel's args */
    VP_EVID_LAUNCHER,   /* the name of the CPU op that launched it */
} vp_evidence;

typedef enum vp_match {
    VP_MATCH_PREFIX,    /* the name starts with it (or its demangled name does, after
                           a return type such as "void ") */
    VP_MATCH_CONTAINS,
    VP_MATCH_KEY,       /* an args key */
} vp_match;

typedef struct vp_comm_rule {
    const char *family;
    vp_evidence evidence;
    vp_match how;
    const char *pattern;
    vp_kclass cls;
} vp_comm_rule;

/* The table, in the order its rules are tried. */
const vp_comm_rule *vp_comm_rules(size_t *n);

/* 1 when a CPU op of this name is a collective (a VP_EVID_LAUNCHER rule). */
int vp_collective_op(const char *name, size_t n);

/* A run's overrides of the table: POSIX extended regexes over kernel
 * names that make a kernel compute or communication whatever the rules
 * say (compute's first when both match).  Memcpy, memset and sync events
 * keep their classes. */
typedef struct vp_kclass_rules vp_kclass_rules;
vp_kclass_rules *vp_kclass_rules_new(void);
/* 0, or -1 with err set (status VP_EXIT_USAGE) for a bad regex; cls is
 * VP_CLASS_COMM or VP_CLASS_COMPUTE. */
int vp_kclass_rules_set(vp_kclass_rules *r, vp_kclass cls, const char *regex, vp_error *err);
void vp_kclass_rules_free(vp_kclass_rules *r);

/* The class of a GPU event by its kind, the overrides (r may be NULL)
 * and the name rules.  *decided is 0 when nothing decided it (a kernel
 * that is compute for want of evidence): its args and its launching op
 * may still make it communication. */
vp_kclass vp_classify_rules(vp_kclass_rules *r, vp_gpu_kind kind, const char *name, size_t n,
                            int *decided);
/* vp_classify_rules without overrides and without the answer of decided. */
vp_kclass vp_classify(vp_gpu_kind kind, const char *name, size_t n);

/* The class of an Ascend device task from its Task Type (trace_view.json
 * "Task Type", kernel_details "Accelerator Core"), or its name when the
 * type says nothing: communication for HCCL tasks and hcom_* operations;
 * memory for SDMA, PCIE_DMA and MEMCPY tasks; sync for event and notify
 * record/wait tasks; compute for the rest (AI_CORE, AI_VECTOR_CORE,
 * MIX_AIC, MIX_AIV, AI_CPU, DSA_SQE, FFTS_PLUS, Other ...).  type may be
 * NULL. */
vp_kclass vp_npu_classify(const char *type, size_t tn, const char *name, size_t n);

/* What a trace event is, for every Kineto dialect and back end: the one
 * place that reads categories (docs/trace-input.md, "Dialects").
 *
 *   kind              today's Kineto          torch 1.8-1.10     other back ends
 *   CPU_OP            cpu_op                  Operator
 *   ANNOTATION        user_annotation         (Operator)
 *   GPU_ANNOTATION    gpu_user_annotation
 *   PYTHON            python_function
 *   RUNTIME           cuda_runtime            Runtime            hip/xpu/mtia/privateuse1_runtime
 *   DRIVER            cuda_driver                                *_driver
 *   KERNEL            kernel                  Kernel             mtia_ccp_events
 *   MEMCPY, MEMSET    gpu_memcpy, gpu_memset  Memcpy, Memset
 *   SYNC              cuda_sync
 *   MEMORY            [memory] instants, whatever their category (cpu_instant_event
 *                     today, none in torch 1.8-1.10)
 *
 * ROCm traces use the CUDA names (HIP calls under cuda_runtime) or the
 * *_runtime form.  A ProfilerStep#N is an op or annotation by category; its
 * name makes it a step (vp_step_number). */
typedef enum vp_ev_kind {
    VP_EV_OTHER = 0,      /* flows, metadata, the Trace span, categories not known */
    VP_EV_CPU_OP,
    VP_EV_ANNOTATION,
    VP_EV_GPU_ANNOTATION,
    VP_EV_PYTHON,
    VP_EV_RUNTIME,
    VP_EV_DRIVER,
    VP_EV_KERNEL,
    VP_EV_MEMCPY,
    VP_EV_MEMSET,
    VP_EV_SYNC,
    VP_EV_MEMORY,
} vp_ev_kind;

vp_ev_kind vp_event_kind(vp_span cat, vp_span name);

/* CPU_OP or ANNOTATION: what the op tables, steps and the critical
 * path's call stacks read as operators. */
int vp_ev_is_op(vp_ev_kind k);

/* True for CPU-side events that launch GPU work and carry the CUDA
 * correlation id in args: RUNTIME and DRIVER. */
int vp_is_launch_category(vp_span cat);

/* Whether a CPU op is a node of the autograd engine, the backward pass:
 * autograd::engine::evaluate_function: wrappers (torch >= 1.11), and the
 * nodes themselves as torch 1.8-1.10 record them on the autograd thread
 * (CudnnConvolutionBackward, ReluBackward1, torch::autograd::AccumulateGrad). */
int vp_is_autograd_op(vp_span name);

#endif
