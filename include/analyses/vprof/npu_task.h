/* The one rule for an Ascend device task (docs/ascend.md), wherever it is
 * read from: a trace's "Ascend Hardware" slice, a kernel_details.csv or
 * op_summary row, a TASK row of a DB export.  Its class comes from its
 * Task Type (Accelerator Core), or its name when the type says nothing
 * (vp_npu_classify); the kind of GPU work it stands for from the class. */
#ifndef VPROF_NPU_TASK_H
#define VPROF_NPU_TASK_H

#include <stddef.h>

#include "vprof/classify.h"
#include "vprof/json.h"

typedef struct vp_npu_task {
    vp_kclass cls;
    vp_gpu_kind kind;
} vp_npu_task;

/* type may be NULL or empty. */
vp_npu_task vp_npu_task_of(const char *type, size_t tn, const char *name, size_t n);

/* Memory tasks are copies, sync tasks syncs, every other task a kernel. */
vp_gpu_kind vp_npu_task_kind(vp_kclass cls);

/* A trace event's "Task Type" argument (the value's span, {0} when
 * absent) as text: without its quotes, empty unless it is a string. */
vp_span vp_npu_task_type(vp_span value);

#endif
