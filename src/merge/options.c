/* The option syntaxes of merge (vprof/merge.h), for every front end. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vprof/json.h"
#include "vprof/merge.h"
#include "vprof/util.h"

static int parse_long_full(const char *s, const char *end, long *out)
{
    if (s == end)
        return -1;
    long v = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9' || v > 100000000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    *out = v;
    return 0;
}

int vp_merge_parse_ranks(const char *arg, long (**ranks)[2], size_t *nranks)
{
    const char *p = arg;
    while (*p) {
        const char *e = strchr(p, ',');
        if (!e)
            e = p + strlen(p);
        const char *dash = memchr(p, '-', (size_t)(e - p));
        long a, b;
        if (dash ? parse_long_full(p, dash, &a) || parse_long_full(dash + 1, e, &b) || b < a
                 : parse_long_full(p, e, &a))
            return -1;
        if (!dash)
            b = a;
        (*ranks) = vp_realloc((*ranks), ((*nranks) + 1) * sizeof *(*ranks));
        (*ranks)[(*nranks)][0] = a;
        (*ranks)[(*nranks)][1] = b;
        (*nranks)++;
        p = *e ? e + 1 : e;
    }
    return (*nranks) ? 0 : -1;
}

int vp_merge_parse_window(const char *arg, vp_merge_opts *o)
{
    const char *colon = strchr(arg, ':');
    if (!colon)
        return -1;
    if (colon > arg) {
        if (vp_json_us_to_ns((vp_span){arg, (size_t)(colon - arg)}, &o->w0) != 0)
            return -1;
        o->has_w0 = 1;
    }
    if (colon[1]) {
        if (vp_json_us_to_ns((vp_span){colon + 1, strlen(colon + 1)}, &o->w1) != 0)
            return -1;
        o->has_w1 = 1;
    }
    if (o->has_w0 && o->has_w1 && o->w1 < o->w0)
        return -1;
    return 0;
}

int vp_merge_parse_align(const char *arg, vp_merge_align *align, long *coll_n)
{
    if (strcmp(arg, "none") == 0)
        *align = VP_ALIGN_NONE;
    else if (strcmp(arg, "base") == 0)
        *align = VP_ALIGN_BASE;
    else if (strcmp(arg, "start") == 0)
        *align = VP_ALIGN_START;
    else if (strncmp(arg, "collective", 10) == 0 && (arg[10] == 0 || arg[10] == ':')) {
        *align = VP_ALIGN_COLLECTIVE;
        *coll_n = VP_MERGE_DEFAULT_COLLECTIVES;
        if (arg[10] == ':' &&
            (parse_long_full(arg + 11, arg + strlen(arg), coll_n) != 0 || *coll_n < 1))
            return -1;
    } else
        return -1;
    return 0;
}

/* Split when what follows the last '@' is a number and the whole
 * argument is not itself an existing file. */
int vp_merge_parse_input(const char *arg, char **path, long *rank)
{
    const char *at = strrchr(arg, '@');
    struct stat sb;
    if (at && at > arg && parse_long_full(at + 1, at + strlen(at), rank) == 0 && stat(arg, &sb) != 0) {
        *path = vp_strndup(arg, (size_t)(at - arg));
        return 0;
    }
    *path = vp_strdup(arg);
    return -1;
}
