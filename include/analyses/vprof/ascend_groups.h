/* Parallel groups and pipeline stages of an Ascend run: read from
 * profiler_metadata.json or communication_group.json into a vp_stt, and
 * the stages msprof-analyze derives from them. */
#ifndef VPROF_ASCEND_GROUPS_H
#define VPROF_ASCEND_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/ascend_stt.h"
#include "vprof/error.h"

/* Adds the parallel groups of a profiler_metadata.json to s->groups; a
 * group already there (the same id: every rank's file lists the groups
 * it is in) is kept once.  A file without parallel_group_info adds none.
 * 0, or -1 with err when the file is not JSON. */
int vp_asc_read_groups(const char *path, vp_stt *s, vp_error *err);

/* Adds the groups of msprof-analyze's communication_group.json
 * (cluster_analysis_output/) from its comm_group_parallel_info list
 * (type, rank_set, group_name, group_id, pg_name), as msprof-analyze's
 * stage analysis takes them: a "p2p" group whose pg_name starts with "pp"
 * is a pipeline's point-to-point group, every "collective" group is a
 * candidate stage group, other p2p groups are left out.  A file without
 * comm_group_parallel_info (the older form: collective and p2p lists
 * only) adds none.  0, or -1 with err when the file is not JSON. */
int vp_asc_read_comm_groups(const char *path, vp_stt *s, vp_error *err);

/* The communication_group.json of a run (vp_asc_scan of path): in its
 * cluster files' folder, else in path/cluster_analysis_output; none
 * there adds nothing.  0, or -1 with err when the file is not JSON. */
struct vp_asc_run;
int vp_asc_run_comm_groups(const char *path, const struct vp_asc_run *run, vp_stt *s,
                           vp_error *err);

/* Pipeline stages from parallel groups, msprof-analyze's rule: groups
 * whose name starts with "pp" (any case: pp, pp_new_stream) are the
 * point-to-point groups of pipelines, and those that share ranks are
 * chained into one pipeline; every other group that holds at most one rank
 * of each pipeline is a stage group, and stage groups that share ranks are
 * merged (union-find).  Stage i is ranks[first[i] .. first[i + 1]),
 * ascending; stages are ordered by their smallest rank.  Returns the
 * number of pipelines: 0 when no group is a pp group, and then no stage. */
typedef struct vp_asc_stages {
    long *ranks;
    size_t *first;           /* n + 1 offsets */
    size_t n;
} vp_asc_stages;
size_t vp_asc_stages_of(const vp_asc_pgroup *g, size_t n, vp_asc_stages *out);
void vp_asc_stages_free(vp_asc_stages *st);

#endif
