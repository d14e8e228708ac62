/* The tables of an Ascend run (docs/ascend.md): step_trace_time, and the
 * communication analyzer's operations, bandwidths and links. */
#ifndef VPROF_ASCEND_TABLES_H
#define VPROF_ASCEND_TABLES_H

#include <stddef.h>

#include "vprof/ascend_hccl.h"
#include "vprof/ascend_stage_rows.h"
#include "vprof/ascend_stt.h"
#include "vprof/table.h"

/* "Step, Type, Index, <columns>" of rows already ordered by
 * vp_stt_stage_rows, with notes: the stage rows that differ from their
 * ranks' maxima, how stage rows were added, that they were checked, and
 * where the rows came from (s->note, else source). */
vp_table *vp_stt_table(const vp_stt *s, const vp_stt_stage_result *st, const char *source);

/* The tables of communication.json (per operation; per transport) and of
 * communication_matrix.json (per link), appended to tables[*n]. */
void vp_hccl_tables(const vp_hccl *h, int have_comm, int have_matrix, vp_table **tables,
                    size_t *n);

#endif
