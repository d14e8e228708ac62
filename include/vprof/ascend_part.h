/* step_trace_time rows and communication.json / communication_matrix.json
 * records in partial results (vprof/part.h, docs/partials.md): the
 * encoding comm's and steps' payloads share for their Ascend part. */
#ifndef VPROF_ASCEND_PART_H
#define VPROF_ASCEND_PART_H

#include "vprof/ascend.h"
#include "vprof/part.h"

/* Where step_trace_time rows came from, as the note under their table
 * says it (slices: a trace's Overlap Analysis slices, else its device
 * tasks).  Partials carry the source as a code, so these addresses are
 * what save recognises. */
const char *vp_stt_source_trace(int slices);
const char *vp_stt_source_csv(void);
const char *vp_stt_source_cluster(void);

/* The rows and parallel groups with their source; merge appends the rows
 * and sets *source as reading the files in input order would.  -1 (and
 * r->bad) on a malformed partial. */
void vp_stt_save(const vp_stt *s, const char *source, vp_buf *b);
int vp_stt_merge(vp_stt *s, const char **source, vp_rd *r);

/* Whether each kind of file was read, the operations and the links;
 * merge appends them (NULL strings come back as ""). */
void vp_hccl_save(const vp_hccl *h, int have_comm, int have_matrix, vp_buf *b);
int vp_hccl_merge(vp_hccl *h, int *have_comm, int *have_matrix, vp_rd *r);

#endif
