/* The step_trace_time model: per-rank and stage rows of msprof's
 * step_trace_time table (ns), with the parallel groups that define the
 * stages.  Filled by vp_stt_read (ascend_summaries.h), vp_stt_from_work
 * (ascend_stepwork.h) and vp_asc_db_stt (ascend_db.h). */
#ifndef VPROF_ASCEND_STT_H
#define VPROF_ASCEND_STT_H

#include <stddef.h>
#include <stdint.h>

enum {
    VP_STT_COMPUTING,
    VP_STT_NOT_OVERLAPPED,   /* Communication(Not Overlapped) */
    VP_STT_OVERLAPPED,
    VP_STT_COMMUNICATION,
    VP_STT_FREE,
    VP_STT_STAGE,
    VP_STT_BUBBLE,
    VP_STT_EXCL_RECEIVE,     /* Communication(Not Overlapped and Exclude Receive) */
    VP_STT_PREPARING,
    VP_STT_COUNT,
};
extern const char *const vp_stt_names[VP_STT_COUNT];

typedef struct vp_stt_row {
    long step;               /* -1: no step */
    int is_stage;            /* a cluster "stage" row */
    long rank;               /* rank row: the rank; -1 for stage rows */
    char *index;             /* stage rows: "(0, 1, 2, 3)"; NULL otherwise */
    int64_t device;          /* Device_id, -1 when absent */
    int64_t v[VP_STT_COUNT]; /* ns */
    unsigned have;           /* bit per column present */
} vp_stt_row;

/* A parallel group of profiler_metadata.json's parallel_group_info. */
typedef struct vp_asc_pgroup {
    char *id;                /* the key: the group's hash name */
    char *name;              /* group_name: tp, pp, dp, pp_new_stream ... */
    long *ranks;             /* global_ranks */
    size_t n;
} vp_asc_pgroup;

typedef struct vp_stt {
    vp_stt_row *rows;
    size_t n, cap;
    const char *note;        /* where DB rows came from (static text, or note_own), NULL */
    char *note_own;          /* a note read back from a partial result (owned) */
    vp_asc_pgroup *groups;   /* the ranks' parallel groups, for stage rows */
    size_t ngroups;
    int groups_from;         /* VP_ASC_GROUPS_*: the file the groups came from */
} vp_stt;

enum { VP_ASC_GROUPS_NONE, VP_ASC_GROUPS_METADATA, VP_ASC_GROUPS_COMM_GROUP };

vp_stt_row *vp_stt_add(vp_stt *s);
void vp_stt_free(vp_stt *s);

/* The element-wise maximum of the rank rows of one step whose rank is in
 * ranks[0..n) (all rank rows of the step when ranks is NULL), as
 * msprof-analyze's stage rows.  0 when no row matched. */
int vp_stt_stage(const vp_stt *s, long step, const long *ranks, size_t n, vp_stt_row *out);

/* Adds one parallel group (copied) unless a group with the same id is
 * there; 1 when added. */
int vp_asc_add_group(vp_stt *s, const char *id, const char *name, const long *ranks, size_t n);

/* Parses a stage Index "(0, 1, 2)" into ranks (at most cap); returns the
 * count, or -1 when it is not such a tuple. */
int vp_stt_parse_index(const char *index, long *ranks, size_t cap);

#endif
