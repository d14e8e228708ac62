/* The per-file pass of every reader of events (vprof/tracepass.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vprof/tracepass.h"

int vp_trace_pass_read(vp_trace_pass *p, const char *path, const vp_trace_pass_opts *o,
                       vp_trace_pass_fn fn, void *ctx, vp_error *err)
{
    memset(p, 0, sizeof *p);
    p->has_range = o->range != NULL;
    p->steps = o->steps;
    if (!p->steps && o->range) {
        p->steps = vp_steps_new();
        p->own_steps = 1;
    }
    vp_trace_opts topts = {.partial = o->partial, .progress = !o->no_progress, .name = o->name};
    p->trace = vp_trace_open(path, &topts, err);
    if (!p->trace)
        return -1;
    vp_steps *feed = p->own_steps ? p->steps : NULL;
    vp_event ev;
    int r;
    p->ts_first = INT64_MAX;
    p->ts_last = INT64_MIN;
    while ((r = vp_trace_next(p->trace, &ev, err)) == 1) {
        if (o->window && ev.has_ts && ev.ph != 'M') {   /* the run's window (vprof/origin.h) */
            if (ev.ts < p->ts_first)
                p->ts_first = ev.ts;
            int64_t end = ev.has_dur && ev.dur > 0 ? ev.ts + ev.dur : ev.ts;
            if (end > p->ts_last)
                p->ts_last = end;
        }
        if (feed)
            vp_steps_observe(feed, &ev);
        fn(ctx, &ev);
    }
    if (r < 0)
        return -1;
    if (p->steps) {
        p->nsteps = vp_steps_count(p->steps);
        p->chosen = o->range ? vp_steps_select(p->steps, o->range) : p->nsteps;
    }
    p->rank = vp_rank_detect(vp_trace_meta(p->trace), path, o->position, &p->rank_from);
    if (o->rank >= 0)
        p->rank = o->rank;
    return 0;
}

void vp_trace_pass_warn(const vp_trace_pass *p, const vp_trace_pass_warnings *w)
{
    const char *name = vp_trace_name(p->trace);
    if (p->has_range && p->steps)
        vp_steps_warn_none(p->steps, p->chosen, name, w->no_steps_kept ? w->no_steps_kept : "",
                           w->none_selected_kept ? w->none_selected_kept : "");
    if (w->skipped)
        vp_warn("%s: %llu %s were skipped", name, (unsigned long long)w->skipped,
                w->skipped_what);
    const vp_trace_stats *st = vp_trace_get_stats(p->trace);
    if (w->utf8 && st->bad_utf8)
        vp_warn("%s: %llu invalid UTF-8 sequences in names were replaced by U+FFFD", name,
                (unsigned long long)st->bad_utf8);
}

void vp_trace_pass_say(vp_say_fn say, const char *fmt, ...)
{
    if (!say)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say(msg);
}

void vp_trace_pass_close(vp_trace_pass *p)
{
    if (p->own_steps)
        vp_steps_free(p->steps);
    p->steps = NULL;
    p->own_steps = 0;
    if (p->trace)
        vp_trace_close(p->trace);
    p->trace = NULL;
}
