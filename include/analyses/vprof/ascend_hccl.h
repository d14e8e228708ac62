/* communication.json and communication_matrix.json: msprof's
 * communication analysis per rank, and its cluster form.  Sizes and times
 * stay in msprof's decimal MB and ms so that bandwidths read exactly as
 * msprof-analyze prints them. */
#ifndef VPROF_ASCEND_HCCL_H
#define VPROF_ASCEND_HCCL_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"

enum { VP_HCCL_RDMA, VP_HCCL_HCCS, VP_HCCL_PCIE, VP_HCCL_SDMA, VP_HCCL_SIO, VP_HCCL_TRANSPORTS };
extern const char *const vp_hccl_transport_names[VP_HCCL_TRANSPORTS];

typedef struct vp_hccl_bw {
    double size_mb, time_ms;         /* decimal MB (10^6 B), ms */
    double bandwidth;                /* GB/s: as written, else size / time */
    double large_ratio;              /* share of packets above the large-packet size */
    int64_t packets;                 /* from Size Distribution */
    int has_ratio;                   /* large_ratio known (written, or from packets) */
} vp_hccl_bw;

typedef struct vp_hccl_op {
    char *step;                      /* "step2" */
    char *kind;                      /* "collective", "p2p", or a cluster group "(0, 1, ...)" */
    char *name;                      /* "hcom_allReduce__483_2", "Total Op Info" */
    char *group;                     /* the hash after '@', "" when none */
    long rank;                       /* cluster files: the rank; else -1 */
    int total;                       /* the "Total Op Info" summary */
    int64_t start;                   /* ns; -1 when absent */
    double elapse, transit, wait, sync, idle;   /* ms */
    double wait_ratio, sync_ratio;
    vp_hccl_bw bw[VP_HCCL_TRANSPORTS];
    unsigned bw_have;                /* bit per transport present */
    /* the merged Size Distribution per transport: sizes (MB) and counts */
    double *dist_size[VP_HCCL_TRANSPORTS];
    int64_t *dist_count[VP_HCCL_TRANSPORTS];
    double *dist_ms[VP_HCCL_TRANSPORTS];
    size_t ndist[VP_HCCL_TRANSPORTS];
} vp_hccl_op;

typedef struct vp_hccl_link {
    char *step, *kind, *op;
    long src, dst;                   /* global ranks */
    char transport[16];              /* LOCAL, HCCS, RDMA, PCIE, SIO, SDMA */
    double size_mb, time_ms, bandwidth;
} vp_hccl_link;

typedef struct vp_hccl {
    vp_hccl_op *ops;
    size_t nops, cap_ops;
    vp_hccl_link *links;
    size_t nlinks, cap_links;
} vp_hccl;

/* Reads communication.json (step -> collective|p2p -> op -> info) or its
 * cluster form (group -> step -> op -> rank -> info); appends to h. */
int vp_hccl_read_comm(const char *path, vp_hccl *h, vp_error *err);
/* Reads communication_matrix.json or its cluster form. */
int vp_hccl_read_matrix(const char *path, vp_hccl *h, vp_error *err);
void vp_hccl_free(vp_hccl *h);

/* Packets above this many MB are large: 0.5 MB on RDMA, 32 MB on HCCS,
 * PCIE, SIO and SDMA (msprof's communication analyzer). */
double vp_hccl_large_mb(int transport);

/* The large-packet share of a Size Distribution. */
double vp_hccl_large_ratio(int transport, const double *size_mb, const int64_t *count, size_t n);

#endif
