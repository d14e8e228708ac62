/* The option syntaxes of merge (vprof/merge.h), for every front end. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vprof/ascend_files.h"
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

int vp_merge_parse_list(const char *arg, char ***out, size_t *n)
{
    char *copy = vp_strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        *out = vp_realloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = vp_strdup(tok);
    }
    free(copy);
    return *n ? 0 : -1;
}

static vp_merge_input *add_input(vp_merge_inputs *l, const char *arg, char *path)
{
    l->paths = vp_realloc(l->paths, (l->n + 1) * sizeof *l->paths);
    l->paths[l->n] = path;
    l->in = vp_realloc(l->in, (l->n + 1) * sizeof *l->in);
    vp_merge_input *in = &l->in[l->n++];
    memset(in, 0, sizeof *in);
    in->arg = arg ? arg : path;
    in->path = path;
    return in;
}

void vp_merge_inputs_add(vp_merge_inputs *l, const char *arg)
{
    long rank;
    char *path;
    if (vp_merge_parse_input(arg, &path, &rank) == 0) {
        vp_merge_input *in = add_input(l, arg, path);
        in->rank = rank;
        in->rank_explicit = 1;
    } else {
        add_input(l, arg, path);
    }
}

int vp_merge_inputs_add_ascend(vp_merge_inputs *l, const char *dir, vp_error *err)
{
    vp_asc_run run;
    if (vp_asc_scan(dir, &run, err) != 0)
        return -1;
    int st = 0;
    for (size_t k = 0; k < run.n && st == 0; k++) {
        if (!vp_asc_need(&run.ranks[k], VP_ASC_TRACE, VP_ASC_UNKNOWN, err)) {
            st = -1;
            break;
        }
        vp_merge_input *in = add_input(l, NULL, vp_strdup(run.ranks[k].files[VP_ASC_TRACE]));
        in->rank = run.ranks[k].rank;
        in->rank_explicit = 1;
    }
    if (st == 0 && run.n == 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: no rank directory with a trace_view.json", dir);
        st = -1;
    }
    vp_asc_run_free(&run);
    return st;
}

void vp_merge_inputs_free(vp_merge_inputs *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    free(l->in);
    memset(l, 0, sizeof *l);
}
