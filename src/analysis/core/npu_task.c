/* The Ascend device-task rule: class from Task Type, kind from class. */
#include "vprof/npu_task.h"

vp_gpu_kind vp_npu_task_kind(vp_kclass cls)
{
    return cls == VP_CLASS_MEMORY ? VP_GPU_MEMCPY : cls == VP_CLASS_SYNC ? VP_GPU_SYNC : VP_GPU_KERNEL;
}

vp_npu_task vp_npu_task_of(const char *type, size_t tn, const char *name, size_t n)
{
    vp_npu_task t;
    t.cls = vp_npu_classify(type, tn, name, n);
    t.kind = vp_npu_task_kind(t.cls);
    return t;
}

vp_span vp_npu_task_type(vp_span value)
{
    if (!vp_json_is_string(value))
        return (vp_span){0};
    return (vp_span){value.p + 1, value.n - 2};
}
