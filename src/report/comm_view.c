/* The tables of vprof comm (vprof/comm_view.h). */
#include <stdlib.h>

#include "vprof/comm_view.h"

static double pct(int64_t num, int64_t den)
{
    return den > 0 ? 100.0 * (double)num / (double)den : 0.0;
}

enum { C_RANK, C_SPAN, C_COMP, C_COMM, C_OVER, C_EXPOSED, C_FREE, C_IDLE, C_OVER_PCT, C_EXP_PCT };

vp_table *vp_comm_rank_table(const vp_comm *c, int selected_steps)
{
    static const vp_col_spec cols[] = {
        {"Rank", VP_COL_INT, 0}, {"Span", VP_COL_NS, 0}, {"Computing", VP_COL_NS, 0},
        {"Communication", VP_COL_NS, 0}, {"Overlapped", VP_COL_NS, 0},
        {"Comm Exposed", VP_COL_NS, 0}, {"Free", VP_COL_NS, 0}, {"Idle", VP_COL_NS, 0},
        {"Overlap", VP_COL_PERCENT, 2}, {"Exposed/Step", VP_COL_PERCENT, 2},
    };
    vp_table *t = vp_table_new_cols("comm", cols, sizeof cols / sizeof *cols);
    for (size_t i = 0; i < c->nranks; i++) {
        const vp_comm_rank *r = &c->ranks[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, C_RANK, r->rank);
        vp_table_set_int(t, row, C_SPAN, r->t.span);
        vp_table_set_int(t, row, C_COMP, r->t.compute);
        vp_table_set_int(t, row, C_COMM, r->t.comm);
        vp_table_set_int(t, row, C_OVER, r->t.overlap);
        vp_table_set_int(t, row, C_EXPOSED, r->t.exposed);
        vp_table_set_int(t, row, C_FREE, r->t.free);
        vp_table_set_int(t, row, C_IDLE, r->t.idle);
        if (r->t.comm > 0)
            vp_table_set_double(t, row, C_OVER_PCT, pct(r->t.overlap, r->t.comm));
        int unseen = r->t.comm == 0 && r->world > 1 && r->gpu_events;   /* note below */
        if (r->step_time > 0 && !unseen)
            vp_table_set_double(t, row, C_EXP_PCT, pct(r->step_exposed, r->step_time));
        if (r->gpu_events == 0)
            vp_table_add_note(t, "rank %ld: no GPU work%s: every time is 0 and the percentages are "
                                 "empty",
                              r->rank, selected_steps ? " in the selected steps" : " in the trace");
        else if (r->t.comm == 0 && r->world > 1)
            vp_table_add_note(t, "rank %ld: distributedInfo says world_size %ld, but no kernel is "
                                 "communication by the rules of docs/classification.md: its "
                                 "communication is of a kind they do not know, and every "
                                 "communication figure here is unknown, not 0%s",
                              r->rank, r->world, vp_diag_hint(VP_HINT_COMM_KERNELS));
        else if (r->t.comm == 0)
            vp_table_add_note(t, "rank %ld: no communication kernels, so Overlap is empty (HTA "
                                 "prints NaN)",
                              r->rank);
    }
    vp_table_add_note(t, "Overlap = Overlapped / Communication (HTA's comp_comm_overlap_pctg); "
                         "Comm Exposed = Communication(Not Overlapped); Exposed/Step: %s",
                      c->nranks && c->ranks[0].nsteps
                          ? "the Comm Exposed inside the steps' windows, over their wall time"
                          : "Comm Exposed over the GPU span");
    return t;
}

/* HTA's kernel-type names of a combination of classes, in its order. */
static void combination_name(unsigned m, char *out, size_t cap)
{
    static const char *const names[3] = {"COMPUTATION", "COMMUNICATION", "MEMORY"};
    size_t n = 0;
    out[0] = 0;
    for (int k = 0; k < 3; k++)
        if (m >> k & 1)
            n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s",
                                  n ? " overlapping " : "", names[k]);
}

vp_table *vp_comm_overlaps_table(const vp_comm *c)
{
    static const vp_col_spec cols[] = {
        {"Rank", VP_COL_INT, 0}, {"Kernel Type", VP_COL_TEXT, 0}, {"Time", VP_COL_NS, 0},
        {"Share", VP_COL_PERCENT, 2}, {"Instant Only", VP_COL_INT, 0},
    };
    vp_table *t = vp_table_new_cols("overlaps", cols, sizeof cols / sizeof *cols);
    for (size_t i = 0; i < c->nranks; i++) {
        const vp_comm_rank *r = &c->ranks[i];
        int64_t all = 0;
        for (unsigned m = 1; m < 8; m++)
            all += r->class_time[m];
        for (unsigned m = 1; m < 8; m++) {
            int instant = r->class_instants >> m & 1;
            if (r->class_time[m] <= 0 && !instant)
                continue;
            char name[64];
            combination_name(m, name, sizeof name);
            size_t row = vp_table_add_row(t);
            vp_table_set_int(t, row, 0, r->rank);
            vp_table_set_text(t, row, 1, name);
            vp_table_set_int(t, row, 2, r->class_time[m]);
            if (all > 0)
                vp_table_set_double(t, row, 3, pct(r->class_time[m], all));
            vp_table_set_int(t, row, 4, instant);
        }
    }
    vp_table_add_note(t, "Time: of exactly these classes running, of their interval unions (HTA's "
                         "kernel-type table of get_gpu_kernel_breakdown, per rank); Share: of "
                         "|compute ∪ communication ∪ memory|; Instant Only 1: the combination holds "
                         "at instants only, where one class ends as another starts (HTA lists it "
                         "with 0 us where its sort puts the start first)");
    return t;
}

/* min / median / max over ranks of each time, with the ranks at the ends. */
vp_table *vp_comm_spread_table(vp_comm *c)
{
    static const vp_col_spec cols[] = {
        {"Metric", VP_COL_TEXT, 0}, {"Min", VP_COL_NS, 0}, {"Median", VP_COL_NS_F, 1},
        {"Max", VP_COL_NS, 0}, {"Min Rank", VP_COL_INT, 0}, {"Max Rank", VP_COL_INT, 0},
    };
    vp_table *t = vp_table_new_cols("spread", cols, sizeof cols / sizeof *cols);
    static const char *const metrics[VP_COMM_METRICS] = {
        "Span", "Computing", "Communication", "Overlapped", "Comm Exposed", "Free", "Idle"};
    for (int m = 0; m < VP_COMM_METRICS; m++) {
        vp_comm_spread s;
        vp_comm_spread_of(c, m, &s);
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, metrics[m]);
        vp_table_set_int(t, row, 1, s.min);
        vp_table_set_double(t, row, 2, s.median);
        vp_table_set_int(t, row, 3, s.max);
        vp_table_set_int(t, row, 4, c->ranks[s.min_rank].rank);
        vp_table_set_int(t, row, 5, c->ranks[s.max_rank].rank);
    }
    vp_comm_slowest sl;
    if (vp_comm_slowest_rank(c, &sl))
        vp_table_add_note(t, "slowest rank: %ld (it waited least in the collectives of the %zu "
                             "steps of table stragglers: the others wait for it, which shows as "
                             "their Comm Exposed; rank %ld waited most)",
                          c->ranks[sl.rank].rank, sl.steps, c->ranks[sl.waiter].rank);
    else
        vp_table_add_note(t, "no slowest rank: no step has communication kernels on every rank "
                             "(table stragglers)");
    return t;
}

vp_table *vp_comm_straggler_table(vp_comm *c)
{
    static const vp_col_spec cols[] = {
        {"Step", VP_COL_INT, 0}, {"Collectives", VP_COL_INT, 0}, {"Straggler", VP_COL_INT, 0},
        {"Its Wait", VP_COL_NS, 0}, {"Max Wait", VP_COL_NS, 0}, {"Waiting Rank", VP_COL_INT, 0},
    };
    vp_table *t = vp_table_new_cols("stragglers", cols, sizeof cols / sizeof *cols);
    vp_comm_straggler *rows;
    size_t uneven, n = vp_comm_stragglers(c, &rows, &uneven);
    for (size_t i = 0; i < n; i++) {
        const vp_comm_straggler *s = &rows[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_int(t, row, 0, s->step);
        vp_table_set_int(t, row, 1, (int64_t)s->collectives);
        vp_table_set_int(t, row, 2, c->ranks[s->straggler].rank);
        vp_table_set_int(t, row, 3, s->its_wait);
        vp_table_set_int(t, row, 4, s->max_wait);
        vp_table_set_int(t, row, 5, c->ranks[s->waiter].rank);
    }
    free(rows);
    if (uneven)
        vp_table_add_note(t, "%zu steps have a different number of collectives on different ranks: "
                             "only the first ones common to all were matched",
                          uneven);
    if (vp_table_rows(t) == 0)
        vp_table_add_note(t, "no step has communication kernels on every rank");
    return t;
}

vp_table *vp_comm_collective_table(vp_comm *c, long top)
{
    static const vp_col_spec cols[] = {
        {"Collective", VP_COL_TEXT, 0}, {"Group", VP_COL_TEXT, 0}, {"Size", VP_COL_INT, 0},
        {"Stream", VP_COL_INT, 0}, {"Count", VP_COL_INT, 0}, {"Total Time", VP_COL_NS, 0},
        {"Exposed", VP_COL_NS, 0}, {"Bytes", VP_COL_BYTES, 0}, {"Algbw (GB/s)", VP_COL_RATIO, 2},
        {"Busbw (GB/s)", VP_COL_RATIO, 2},
    };
    vp_table *t = vp_table_new_cols("collectives", cols, sizeof cols / sizeof *cols);
    vp_comm_sort_groups(c);
    size_t shown = top > 0 && (size_t)top < c->ngroups ? (size_t)top : c->ngroups;
    int64_t unsized = 0;
    for (size_t i = 0; i < c->ngroups; i++)
        unsized += c->groups[i].count - c->groups[i].sized_count;
    for (size_t i = 0; i < shown; i++) {
        const vp_comm_group *g = &c->groups[i];
        size_t row = vp_table_add_row(t);
        vp_table_set_text(t, row, 0, vp_coll_name(g->type));
        if (g->pg >= 0) {
            size_t len;
            const char *k = vp_strmap_key(c->pgs, (size_t)g->pg, &len);
            vp_table_set_textn(t, row, 1, k, len);
        }
        if (g->group >= 1)
            vp_table_set_int(t, row, 2, g->group);
        vp_table_set_int(t, row, 3, g->stream);
        vp_table_set_int(t, row, 4, g->count);
        vp_table_set_int(t, row, 5, g->total);
        vp_table_set_int(t, row, 6, g->exposed);
        if (g->sized_count)
            vp_table_set_int(t, row, 7, g->sized_bytes);
        double algbw, busbw;
        int bw = vp_comm_bandwidth(g, &algbw, &busbw);
        if (bw >= 1)
            vp_table_set_double(t, row, 8, algbw);
        if (bw == 2)
            vp_table_set_double(t, row, 9, busbw);
    }
    if (shown < c->ngroups)
        vp_table_add_note(t, "%zu more rows (--top %ld)", c->ngroups - shown, top);
    if (c->ngroups == 0)
        vp_table_add_note(t, "no communication kernels in the input (the rules: docs/classification.md)");
    else if (unsized)
        vp_table_add_note(t, "%lld kernels carry no message size (In/Out msg nelems and dtype, on "
                             "the kernel or its record_param_comms): Bytes and bandwidths count "
                             "the others",
                          (long long)unsized);
    vp_table_add_note(t, "Count and times are summed over ranks; Exposed: the part of each "
                         "kernel not hidden by compute kernels; Busbw = Algbw x nccl-tests factor "
                         "(docs/comm.md)");
    return t;
}
