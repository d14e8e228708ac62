/* step_trace_time rows and the communication analyzer's records in
 * partial results (vprof/part.h): what vprof steps and vprof comm save
 * per file and merge. */
#ifndef VPROF_ASCEND_PARTIAL_H
#define VPROF_ASCEND_PARTIAL_H

#include "vprof/ascend_hccl.h"
#include "vprof/ascend_stt.h"
#include "vprof/part.h"
#include "vprof/util.h"

/* Where rows came from, as a table note: computed from a trace (slices:
 * from Overlap Analysis slices, else from the device tasks), read from
 * step_trace_time.csv (and DBs) or from cluster_step_trace_time.csv.
 * Partials store which one, so they are compared by address. */
const char *vp_stt_trace_source(int slices);
const char *vp_stt_csv_source(void);
const char *vp_stt_cluster_source(void);

/* The rows with their source; merge appends the rows and sets *source
 * when the partial has one.  0, or -1 when the partial is bad. */
void vp_stt_save(const vp_stt *s, const char *source, vp_buf *b);
int vp_stt_merge(vp_stt *s, const char **source, vp_rd *r);

/* Whether each kind of file was read, the operations and the links;
 * merge appends them (NULL strings come back as ""). */
void vp_hccl_save(const vp_hccl *h, int have_comm, int have_matrix, vp_buf *b);
int vp_hccl_merge(vp_hccl *h, int *have_comm, int *have_matrix, vp_rd *r);

#endif
