/* Which rank a trace file belongs to. */
#ifndef VPROF_RANK_H
#define VPROF_RANK_H

typedef struct cJSON cJSON;

typedef enum vp_rank_source {
    VP_RANK_DISTRIBUTED_INFO,  /* the trace's distributedInfo.rank */
    VP_RANK_FILE_NAME,         /* rank-3, rank3, _rank_3, rank3_... in the file name */
    VP_RANK_POSITION,          /* the file's position on the command line */
} vp_rank_source;

/* distributedInfo.rank from the trace's top level, else the file name,
 * else position.  Returns the rank and sets *source. */
long vp_rank_detect(const cJSON *meta, const char *path, long position, vp_rank_source *source);

/* The rank a file name names ("rank" then optional '-' or '_', then
 * digits, in the last path component, case-insensitive), or -1. */
long vp_rank_from_name(const char *path);

const char *vp_rank_source_name(vp_rank_source s);

/* distributedInfo.world_size from the trace's top level: the ranks the
 * run had, 0 when it does not say. */
long vp_rank_world_size(const cJSON *meta);

/* A trace written by `vprof merge` holds several ranks and announces, in
 * its top-level "vprofMerge" member (ahead of the events), how many pids
 * each rank has: the rank of an event is then pid / that number.  Returns
 * it, or 0 for any other trace. */
long vp_rank_merged_pids(const cJSON *meta);

#endif
