/* Operands with globs, expanded by each process of a shared job
 * (vprof/exec.h). */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vprof/exec.h"

char **vp_operands_expand(char *const *inputs, size_t n, int local, size_t *nout, vp_error *err)
{
    glob_t g;
    memset(&g, 0, sizeof g);
    int flags = 0;
    size_t *end = vp_calloc(n ? n : 1, sizeof *end);   /* of each operand's matches */
    for (size_t i = 0; i < n; i++) {
        end[i] = g.gl_pathc;
        if (access(inputs[i], F_OK) == 0 || !strpbrk(inputs[i], "*?["))
            continue;
        size_t before = g.gl_pathc;
        int gr = glob(inputs[i], flags, NULL, &g);
        if (local && (gr == GLOB_NOMATCH || (gr == 0 && g.gl_pathc == before))) {
            end[i] = g.gl_pathc;   /* this node may have none of them */
            continue;
        }
        if (gr != 0 || g.gl_pathc == before) {
            vp_error_set(err, VP_EXIT_INPUT, "%s: no file matches", inputs[i]);
            free(end);
            if (flags)
                globfree(&g);
            return NULL;
        }
        flags = GLOB_APPEND;
        end[i] = g.gl_pathc;
    }
    /* gl_pathv moves while glob appends: the list is built after */
    char **list = vp_calloc(n + g.gl_pathc + 1, sizeof *list);
    size_t nl = 0, at = 0;
    for (size_t i = 0; i < n; i++) {
        if (end[i] == at) {
            /* local: a file named that this node does not have is another
             * node's (and a glob that matched nothing here) */
            if (!local || access(inputs[i], F_OK) == 0)
                list[nl++] = vp_strdup(inputs[i]);
        }
        for (; at < end[i]; at++)
            list[nl++] = vp_strdup(g.gl_pathv[at]);
    }
    free(end);
    if (flags)
        globfree(&g);
    *nout = nl;
    return list;
}

void vp_operands_free(char **list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        free(list[i]);
    free(list);
}
