/* The tables of a vp_comm (vprof comm's output, docs/comm.md). */
#ifndef VPROF_COMM_VIEW_H
#define VPROF_COMM_VIEW_H

#include "vprof/comm.h"
#include "vprof/table.h"

/* "comm": a row per rank.  selected_steps: the notes speak of the
 * selected steps. */
vp_table *vp_comm_rank_table(const vp_comm *c, int selected_steps);
/* "collectives": sorts the groups; top > 0 keeps that many rows. */
vp_table *vp_comm_collective_table(vp_comm *c, long top);
/* "overlaps": per rank, the time of each combination of compute,
 * communication and memory work (vp_gpu_class_times), named as HTA names
 * its kernel types; printed when --table names it. */
vp_table *vp_comm_overlaps_table(const vp_comm *c);
/* "spread" and "stragglers", for two ranks or more. */
vp_table *vp_comm_spread_table(vp_comm *c);
vp_table *vp_comm_straggler_table(vp_comm *c);

#endif
