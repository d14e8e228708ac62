/* Rank detection: the trace's own word first, then the file name. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "vprof/rank.h"

long vp_rank_from_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (const char *p = base; *p; p++) {
        if (strncasecmp(p, "rank", 4) != 0)
            continue;
        const char *d = p + 4;
        if (*d == '-' || *d == '_')
            d++;
        if (!isdigit((unsigned char)*d))
            continue;
        long r = 0;
        while (isdigit((unsigned char)*d) && r < 100000000)
            r = r * 10 + (*d++ - '0');
        return r;
    }
    return -1;
}

long vp_rank_world_size(const cJSON *meta)
{
    const cJSON *di = meta ? cJSON_GetObjectItemCaseSensitive(meta, "distributedInfo") : NULL;
    const cJSON *ws = di ? cJSON_GetObjectItemCaseSensitive(di, "world_size") : NULL;
    return cJSON_IsNumber(ws) && ws->valuedouble >= 1 && ws->valuedouble < 1e9
               ? (long)ws->valuedouble
               : 0;
}

long vp_rank_detect(const cJSON *meta, const char *path, long position, vp_rank_source *source)
{
    const cJSON *di = meta ? cJSON_GetObjectItemCaseSensitive(meta, "distributedInfo") : NULL;
    const cJSON *r = di ? cJSON_GetObjectItemCaseSensitive(di, "rank") : NULL;
    if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < 1e9) {
        *source = VP_RANK_DISTRIBUTED_INFO;
        return (long)r->valuedouble;
    }
    long n = vp_rank_from_name(path);
    if (n >= 0) {
        *source = VP_RANK_FILE_NAME;
        return n;
    }
    *source = VP_RANK_POSITION;
    return position;
}

const char *vp_rank_source_name(vp_rank_source s)
{
    switch (s) {
    case VP_RANK_DISTRIBUTED_INFO: return "distributedInfo.rank";
    case VP_RANK_FILE_NAME: return "the file name";
    default: return "its position on the command line";
    }
}

long vp_rank_merged_pids(const cJSON *meta)
{
    const cJSON *vm = meta ? cJSON_GetObjectItemCaseSensitive(meta, "vprofMerge") : NULL;
    const cJSON *n = vm ? cJSON_GetObjectItemCaseSensitive(vm, "pidsPerRank") : NULL;
    if (cJSON_IsNumber(n) && n->valuedouble >= 1 && n->valuedouble < 1e9)
        return (long)n->valuedouble;
    return 0;
}
