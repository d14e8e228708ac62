/* Collective operations of NCCL/RCCL/HCCL kernels: their type, message
 * element sizes, and the bus-bandwidth factors of nccl-tests
 * (doc/PERFORMANCE.md there; docs/comm.md here). */
#ifndef VPROF_COLLECTIVE_H
#define VPROF_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

typedef enum vp_coll {
    VP_COLL_UNKNOWN = 0,
    VP_COLL_ALLREDUCE,
    VP_COLL_ALLGATHER,
    VP_COLL_REDUCESCATTER,
    VP_COLL_ALLTOALL,
    VP_COLL_BROADCAST,
    VP_COLL_REDUCE,
    VP_COLL_SEND,
    VP_COLL_RECV,
    VP_COLL_SENDRECV,
    VP_COLL_BARRIER,
    VP_COLL_COUNT,
} vp_coll;

/* From a kernel name: ncclKernel_<Coll>_..., ncclDevKernel_<Coll>_...
 * (RCCL keeps these names), or an HCCL operation hcom_<coll>_...
 * (hcom_allReduce__483_2, hcom_receive__822_0); UNKNOWN when the name
 * says nothing. */
vp_coll vp_coll_from_kernel(const char *name, size_t n);

/* From a `Collective name` argument (PyTorch's c10d names: allreduce,
 * all_reduce, _allgather_base, allgather_into_tensor_coalesced,
 * reduce_scatter_tensor, all_to_all, alltoall_base, broadcast, send, recv,
 * barrier ...); UNKNOWN when not recognised. */
vp_coll vp_coll_from_arg(const char *s, size_t n);

/* "AllReduce", "AllGather", ... "Other" for UNKNOWN. */
const char *vp_coll_name(vp_coll c);

/* nccl-tests' busbw / algbw for a group of n ranks: 2(n-1)/n for
 * all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for
 * broadcast, reduce and point-to-point.  Returns < 0 when unknown (no
 * group size, or an unknown or barrier collective). */
double vp_coll_bus_factor(vp_coll c, int64_t n);

/* Bytes per element of a c10 scalar type name as Kineto writes `dtype`
 * ("Float", "BFloat16", "Half", "Long", "Byte", "Float8_e4m3fn" ...), or 0
 * when unknown. */
int vp_dtype_size(const char *s, size_t n);

#endif
