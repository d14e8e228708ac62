/* Stage rows of step_trace_time, as msprof-analyze makes them: checked
 * when a cluster file gave them, else added from the parallel groups or
 * over all ranks. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_groups.h"
#include "vprof/ascend_stage_rows.h"
#include "vprof/util.h"

/* A stage row's order: its first rank ("()", the ranks of no stage, last). */
static long stage_key(const vp_stt_row *r)
{
    long first;
    if (!r->index || vp_stt_parse_index(r->index, &first, 1) < 1)
        return LONG_MAX;
    return first;
}

static int cmp_stt(const void *a, const void *b)
{
    const vp_stt_row *x = a, *y = b;
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    if (x->is_stage != y->is_stage)
        return x->is_stage - y->is_stage;
    if (x->is_stage) {
        long kx = stage_key(x), ky = stage_key(y);
        if (kx != ky)
            return (kx > ky) - (kx < ky);
        return strcmp(x->index ? x->index : "", y->index ? y->index : "");
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* msprof-analyze's Index of a stage: "(0, 1, 2, 3)", "(5,)". */
static char *index_text(const long *ranks, size_t n)
{
    vp_buf b = {0};
    vp_buf_putc(&b, '(');
    for (size_t k = 0; k < n; k++)
        vp_buf_printf(&b, "%s%ld", k ? ", " : "", ranks[k]);
    if (n == 1)
        vp_buf_putc(&b, ',');   /* Python's one-element tuple, as msprof-analyze prints it */
    vp_buf_putc(&b, ')');
    char *t = vp_strdup(vp_buf_cstr(&b));
    vp_buf_free(&b);
    return t;
}

/* Stage rows from the parallel groups: per step, one per stage, and one
 * with Index "()" for the ranks no stage holds (msprof-analyze groups
 * those under an empty tuple).  0 when the groups give no stage. */
static int add_pipeline_stages(vp_stt *s, vp_stt_stage_result *out)
{
    vp_asc_stages st;
    size_t chains = vp_asc_stages_of(s->groups, s->ngroups, &st);
    if (!chains || !st.n) {
        vp_asc_stages_free(&st);
        return 0;
    }
    size_t n0 = s->n;
    long *rest = vp_malloc((n0 ? n0 : 1) * sizeof *rest);
    int any_rest = 0;
    for (size_t i = 0; i < n0; i++) {
        long step = s->rows[i].step;
        size_t j = 0;
        while (j < i && s->rows[j].step != step)
            j++;
        if (j < i || s->rows[i].is_stage)
            continue;
        for (size_t k = 0; k < st.n; k++) {
            vp_stt_row m;
            const long *ranks = st.ranks + st.first[k];
            size_t nr = st.first[k + 1] - st.first[k];
            if (vp_stt_stage(s, step, ranks, nr, &m)) {
                vp_stt_row *r = vp_stt_add(s);
                *r = m;
                r->index = index_text(ranks, nr);
            }
        }
        /* the step's ranks in no stage */
        size_t nrest = 0;
        for (size_t q = 0; q < n0; q++) {
            const vp_stt_row *r = &s->rows[q];
            if (r->is_stage || r->step != step)
                continue;
            size_t k = 0;
            while (k < st.first[st.n] && st.ranks[k] != r->rank)
                k++;
            if (k == st.first[st.n])
                rest[nrest++] = r->rank;
        }
        vp_stt_row m;
        if (nrest && vp_stt_stage(s, step, rest, nrest, &m)) {
            vp_stt_row *r = vp_stt_add(s);
            *r = m;
            r->index = vp_strdup("()");
            any_rest = 1;
        }
    }
    free(rest);
    out->added = VP_STT_STAGES_FROM_GROUPS;
    out->nstages = st.n;
    out->npipelines = chains;
    out->any_rest = any_rest;
    vp_asc_stages_free(&st);
    return 1;
}

void vp_stt_stage_rows(vp_stt *s, int add_stage, vp_stt_stage_result *out)
{
    memset(out, 0, sizeof *out);
    int has_stage = 0;
    size_t nranks = 0;
    long *seen = vp_malloc((s->n ? s->n : 1) * sizeof *seen);
    for (size_t i = 0; i < s->n; i++) {
        has_stage |= s->rows[i].is_stage;
        if (s->rows[i].is_stage)
            continue;
        size_t k = 0;
        while (k < nranks && seen[k] != s->rows[i].rank)
            k++;
        if (k == nranks)
            seen[nranks++] = s->rows[i].rank;
    }
    /* Stage rows of a cluster file: each must be its ranks' maxima. */
    size_t cap = 0;
    for (size_t i = 0; i < s->n; i++) {
        vp_stt_row *r = &s->rows[i];
        long ranks[4096];
        int n;
        vp_stt_row m;
        if (!r->is_stage || !r->index || (n = vp_stt_parse_index(r->index, ranks, 4096)) <= 0 ||
            n > 4096 || !vp_stt_stage(s, r->step, ranks, (size_t)n, &m))
            continue;
        out->checked++;
        for (int c = 0; c < VP_STT_COUNT; c++)
            if ((r->have & m.have & (1u << c)) && r->v[c] != m.v[c]) {
                if (out->ndiffer == cap) {
                    cap = cap ? cap * 2 : 8;
                    out->differ = vp_realloc(out->differ, cap * sizeof *out->differ);
                }
                out->differ[out->ndiffer++] = (vp_stt_differ){
                    .step = r->step, .index = r->index, .column = c, .value = r->v[c],
                    .max = m.v[c]};
            }
    }
    if (add_stage && !has_stage && nranks > 1 && s->ngroups && add_pipeline_stages(s, out)) {
        /* stages from the parallel groups */
    } else if (add_stage && !has_stage && nranks > 1) {
        size_t n0 = s->n;
        vp_buf idx = {0};
        vp_buf_putc(&idx, '(');
        for (size_t k = 0; k < nranks; k++)
            vp_buf_printf(&idx, "%s%ld", k ? ", " : "", seen[k]);
        vp_buf_putc(&idx, ')');
        for (size_t i = 0; i < n0; i++) {
            long step = s->rows[i].step;
            size_t j = 0;
            while (j < i && s->rows[j].step != step)
                j++;
            if (j < i)
                continue;
            vp_stt_row m;
            if (vp_stt_stage(s, step, NULL, 0, &m)) {
                vp_stt_row *r = vp_stt_add(s);
                *r = m;
                r->index = vp_strdup(vp_buf_cstr(&idx));
            }
        }
        vp_buf_free(&idx);
        out->added = VP_STT_STAGES_ALL_RANKS;
    }
    if (s->n)
        qsort(s->rows, s->n, sizeof *s->rows, cmp_stt);
    free(seen);
}

void vp_stt_stage_result_free(vp_stt_stage_result *r)
{
    free(r->differ);
    memset(r, 0, sizeof *r);
}
