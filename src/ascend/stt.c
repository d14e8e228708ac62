/* The step_trace_time model: rows, stage rows and the parallel groups
 * they are computed over.  It calls nothing else in src/ascend/: the
 * readers (summaries.c, db.c, stepwork.c, groups.c) call into it. */
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_stt.h"
#include "vprof/util.h"

const char *const vp_stt_names[VP_STT_COUNT] = {
    "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free",
    "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing",
};

vp_stt_row *vp_stt_add(vp_stt *s)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->rows = vp_realloc(s->rows, s->cap * sizeof *s->rows);
    }
    vp_stt_row *r = &s->rows[s->n++];
    memset(r, 0, sizeof *r);
    r->step = -1;
    r->rank = -1;
    r->device = -1;
    return r;
}

void vp_stt_free(vp_stt *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->rows[i].index);
    free(s->rows);
    for (size_t i = 0; i < s->ngroups; i++) {
        free(s->groups[i].id);
        free(s->groups[i].name);
        free(s->groups[i].ranks);
    }
    free(s->groups);
    free(s->note_own);
    memset(s, 0, sizeof *s);
}

int vp_stt_parse_index(const char *index, long *ranks, size_t cap)
{
    const char *p = index;
    while (*p == ' ')
        p++;
    if (*p != '(' && *p != '[')
        return -1;
    p++;
    size_t n = 0;
    for (;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == ')' || *p == ']')
            return (int)n;
        char *e;
        long x = strtol(p, &e, 10);
        if (e == p)
            return -1;
        if (n < cap)
            ranks[n] = x;
        n++;
        p = e;
    }
}

int vp_stt_stage(const vp_stt *s, long step, const long *ranks, size_t n, vp_stt_row *out)
{
    memset(out, 0, sizeof *out);
    out->step = step;
    out->is_stage = 1;
    out->rank = -1;
    out->device = -1;
    int found = 0;
    for (size_t i = 0; i < s->n; i++) {
        const vp_stt_row *r = &s->rows[i];
        if (r->is_stage || r->step != step)
            continue;
        if (ranks) {
            size_t k = 0;
            while (k < n && ranks[k] != r->rank)
                k++;
            if (k == n)
                continue;
        }
        for (int c = 0; c < VP_STT_COUNT; c++) {
            if (!(r->have & (1u << c)))
                continue;
            if (!(out->have & (1u << c)) || r->v[c] > out->v[c])
                out->v[c] = r->v[c];
            out->have |= 1u << c;
        }
        found = 1;
    }
    return found;
}

int vp_asc_add_group(vp_stt *s, const char *id, const char *name, const long *ranks, size_t n)
{
    for (size_t k = 0; k < s->ngroups; k++)
        if (strcmp(s->groups[k].id, id) == 0)
            return 0;
    s->groups = vp_realloc(s->groups, (s->ngroups + 1) * sizeof *s->groups);
    vp_asc_pgroup *pg = &s->groups[s->ngroups++];
    pg->id = vp_strdup(id);
    pg->name = vp_strdup(name);
    pg->n = n;
    pg->ranks = vp_malloc((n + 1) * sizeof *pg->ranks);
    if (n)
        memcpy(pg->ranks, ranks, n * sizeof *ranks);
    return 1;
}
