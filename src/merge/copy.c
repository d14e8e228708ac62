/* Merge: copying one input to the output, event by event.  The rank and
 * the clock base of an input may be written after its events; the copy
 * assumes what the head of the file suggests, checks at its end, and in
 * the rare case it was wrong rewinds the output to where the input began
 * (vprof/sink.h) and copies it again (or, on an output that cannot
 * rewind, reads the input once ahead, scan.c). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <string.h>

#include "merge/merge_int.h"
#include "vprof/rank.h"
#include "vprof/sink.h"
#include "vprof/trace.h"
#include "vprof/trace_writer.h"

int vp_mg_is_stdin(const input *in)
{
    return strcmp(in->path, "-") == 0;
}

static int check_duplicate(merge *m, const input *in)
{
    /* with parts, the parent checks each input at its turn */
    if (m->part_mode)
        return 0;
    return vp_mg_check_duplicate_now(m, in);
}

int vp_mg_check_duplicate_now(merge *m, const input *in)
{
    for (const input *o = m->in; o < in; o++)
        if (o->done && !o->skipped && o->rank == in->rank) {
            vp_error_set(&m->err, o->rank_explicit && in->rank_explicit ? VP_EXIT_USAGE : VP_EXIT_INPUT,
                         "%s and %s are both rank %ld (from %s and %s); give the ranks as FILE@RANK",
                         o->path, in->path, in->rank,
                         o->rank_explicit ? "the command line" : vp_rank_source_name(o->rank_from),
                         in->rank_explicit ? "the command line" : vp_rank_source_name(in->rank_from));
            return -1;
        }
    return 0;
}

void vp_mg_report_input(const input *in, vp_merge_rank *r)
{
    r->path = in->path;
    r->rank = in->rank;
    r->rank_explicit = in->rank_explicit;
    r->rank_from = vp_rank_source_name(in->rank_from);
    r->skipped = in->skipped;
    r->truncated = in->truncated;
    r->events_read = in->events_read;
    r->events_written = in->events_written;
    r->shift = in->shift;
    r->coll_offset = in->coll_offset;
    r->coll_matched = in->coll_matched;
}

int vp_mg_copy_input(merge *m, input *in, long position)
{
    vp_sink_mark mark;
    int can_rewind = vp_sink_can_rewind(m->sink);
    int saved_any = m->any_written;
    for (int attempt = 0;; attempt++) {
        if (can_rewind && vp_sink_mark_here(m->sink, &mark, &m->err) != 0)
            return -1;
        vp_error err = {0};
        vp_trace_opts topts = {.partial = m->partial, .progress = m->progress};
        vp_trace *t = vp_trace_open(in->path, &topts, &err);
        if (!t) {
            vp_error_set(&m->err, err.status, "%s", err.msg);
            return -1;
        }
        vp_event ev;
        int r = vp_trace_next(t, &ev, &err);
        const cJSON *meta = vp_trace_meta(t);
        int assumed_rank = 0, assumed_base = 0;
        if (!in->known) {
            if (!in->rank_explicit) {
                in->rank = vp_rank_detect(meta, in->path, position, &in->rank_from);
                assumed_rank = in->rank_from != VP_RANK_DISTRIBUTED_INFO;
            }
            in->has_base = vp_mg_meta_base(t, &in->base);
            /* No base ahead of the events: assume the one of the merged
             * clock (Kineto floors it to ~3 months: ranks share it).  A
             * worker that does not know the merged clock yet writes shift
             * 0 whatever the base (guess_own); its parent checks it. */
            if (m->guess_own) {
                assumed_base = 0;
            } else if (!in->has_base && m->out_base_set && m->out_base) {
                in->has_base = 1;
                in->base = m->out_base;
                assumed_base = 1;
            } else if (!in->has_base) {
                assumed_base = m->out_base_set;
            }
            if (m->align != ALIGN_AUTO && m->align != ALIGN_BASE)
                assumed_base = 0;
            if ((assumed_rank || assumed_base) && !can_rewind) {
                vp_trace_close(t);
                if (vp_mg_scan_input(m, in, position) != 0)
                    return -1;
                continue;
            }
        }
        if (in->rank > VP_MERGE_MAX_RANK) {
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: rank %ld is too large to merge (at most %ld)",
                         in->path, in->rank, VP_MERGE_MAX_RANK);
            vp_trace_close(t);
            return -1;
        }
        if (!assumed_rank && check_duplicate(m, in) != 0) {
            vp_trace_close(t);
            return -1;
        }
        int write = vp_mg_rank_wanted(m, in->rank);
        if (!write && !assumed_rank) {
            vp_trace_close(t);
            in->skipped = 1;
            in->done = 1;
            return 0;
        }
        in->shift = m->guess_own ? 0 : vp_mg_shift_of(m, in);
        in->events_read = in->events_written = 0;
        vp_mg_procs_reset(m);
        while (r == 1) {
            in->events_read++;
            if (write && vp_mg_take_event(m, in, &ev) != 0) {
                vp_trace_close(t);
                return -1;
            }
            r = vp_trace_next(t, &ev, &err);
        }
        if (r < 0) {
            vp_error_set(&m->err, err.status, "%s", err.msg);
            vp_trace_close(t);
            return -1;
        }
        meta = vp_trace_meta(t);
        in->truncated = vp_trace_get_stats(t)->truncated;
        int wrong = 0;
        if (!in->known) {
            long rank = in->rank;
            vp_rank_source from = in->rank_from;
            if (!in->rank_explicit)
                rank = vp_rank_detect(meta, in->path, position, &from);
            int64_t base = 0;
            int has_base = vp_mg_meta_base(t, &base);
            if (rank != in->rank || (assumed_base && (has_base ? base : 0) != (in->has_base ? in->base : 0)))
                wrong = 1;
            in->rank = rank;
            in->rank_from = from;
            in->has_base = has_base;
            in->base = base;
            in->known = 1;
        }
        if (wrong) {
            /* What the head suggested was not so: undo and copy again. */
            vp_trace_close(t);
            if (vp_mg_is_stdin(in)) {
                vp_error_set(&m->err, VP_EXIT_USAGE,
                             "standard input: its rank or clock base comes after its events and "
                             "differs from what merge assumed; give it as a file or as -@RANK");
                return -1;
            }
            if (m->hooks && m->hooks->recopy)
                m->hooks->recopy(m->hooks->ctx, in->path);
            if (vp_sink_rewind(m->sink, &mark, &m->err) != 0)
                return -1;
            m->any_written = saved_any;
            if (attempt > 2)
                return -1;
            continue;
        }
        if (check_duplicate(m, in) != 0) {
            vp_trace_close(t);
            return -1;
        }
        if (!write) {
            in->skipped = 1;
        } else {
            if (vp_mg_finish_procs(m, in) != 0) {
                vp_trace_close(t);
                return -1;
            }
            vp_mg_keep_meta(in, meta);
            if (!m->part_mode)
                vp_mg_accept_input(m, in);
            if (in->truncated)
                vp_mg_warn(m, VP_MERGE_TRUNCATED, in->path, (long long)in->events_read, 0);
        }
        if (m->hooks && m->hooks->input_done) {
            vp_merge_rank mr;
            vp_mg_report_input(in, &mr);
            m->hooks->input_done(m->hooks->ctx, &mr);
        }
        in->done = 1;
        vp_trace_close(t);
        return 0;
    }
}
