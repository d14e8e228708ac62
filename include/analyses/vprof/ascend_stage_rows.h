/* The stage rows of step_trace_time, msprof-analyze's way: a stage row
 * is the element-wise maximum of its ranks' rows in one step. */
#ifndef VPROF_ASCEND_STAGE_ROWS_H
#define VPROF_ASCEND_STAGE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/ascend_stt.h"

/* A stage row read from a cluster file that is not its ranks' maximum. */
typedef struct vp_stt_differ {
    long step;
    const char *index;       /* the row's Index (owned by the vp_stt) */
    int column;              /* VP_STT_* */
    int64_t value, max;      /* ns: as read, and the ranks' maximum */
} vp_stt_differ;

enum { VP_STT_STAGES_NONE, VP_STT_STAGES_FROM_GROUPS, VP_STT_STAGES_ALL_RANKS };

typedef struct vp_stt_stage_result {
    size_t checked;          /* stage rows read and compared with their ranks */
    vp_stt_differ *differ;
    size_t ndiffer;
    int added;               /* VP_STT_STAGES_*: the rows added, and how */
    size_t nstages, npipelines;   /* FROM_GROUPS: the stages of the groups */
    int any_rest;            /* FROM_GROUPS: an Index "()" row holds the ranks of no stage */
} vp_stt_stage_result;

/* Checks the stage rows s holds against their ranks' rows; with
 * add_stage, when it holds none and several ranks, adds one per step and
 * stage: the stages of s->groups (vp_asc_stages_of; an Index "()" row
 * for the ranks no stage holds), else all ranks as one stage.  Then sorts
 * the rows: by step, rank rows before stage rows, ranks ascending, stages
 * by their first rank.  out says what was found and done. */
void vp_stt_stage_rows(vp_stt *s, int add_stage, vp_stt_stage_result *out);
void vp_stt_stage_result_free(vp_stt_stage_result *r);

#endif
