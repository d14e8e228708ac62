/* `vprof memory --plot` for snapshots: each device's replayed active and
 * reserved bytes as a vprof/plot.h chart, over time_us where every event
 * has it, else over the event index.  A view: src/memsnap/ replays, this
 * draws. */
#include <stdio.h>
#include <stdlib.h>

#include "vprof/memsnap.h"
#include "vprof/plot.h"
#include "vprof/units.h"
#include "vprof/util.h"

int vp_ms_plot_svg(FILE *out, const vp_memsnap *s, const char *title)
{
    size_t n = s->ndevices;
    int use_time = 0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const vp_ms_device *d = &s->devices[i];
        for (size_t k = 0; k < d->nevents; k++) {
            use_time = 1;
            if (!d->events[k].has_time)
                goto by_index;
            if (d->events[k].time_us < t0)
                t0 = d->events[k].time_us;
            if (d->events[k].time_us > t1)
                t1 = d->events[k].time_us;
        }
    }
    if (t1 <= t0)
    by_index:
        use_time = 0;

    vp_plot_series *sr = vp_calloc(n ? n : 1, sizeof *sr);
    for (size_t i = 0; i < n; i++) {
        const vp_ms_device *d = &s->devices[i];
        vp_ms_stats st;
        vp_ms_device_stats(s, d, &st);
        int64_t *active, *reserved;
        vp_ms_timeline(s, d, &active, &reserved);
        /* Point k is the state after event k - 1; point 0, before any. */
        double *x = vp_malloc((d->nevents + 1) * sizeof *x);
        for (size_t k = 0; k <= d->nevents; k++) {
            if (!use_time)
                x[k] = (double)k - 1.0;
            else
                x[k] = (double)(d->events[k ? k - 1 : 0].time_us - t0) / 1e6;
        }
        char lab[32], *label = vp_malloc(32), *peak = vp_malloc(96);
        vp_human_bytes(lab, sizeof lab, (double)st.peak_active);
        snprintf(label, 32, "device %d", d->id);
        snprintf(peak, 96, "peak %s (device %d, event %ld)", lab, d->id, st.peak_index);
        sr[i] = (vp_plot_series){
            .label = label,
            .n = d->nevents + 1,
            .x = x,
            .solid = active,
            .dashed = reserved,
            .peak = d->nevents ? (size_t)(st.peak_index + 1) : 0,
            .peak_label = peak,
        };
    }
    int rc = vp_plot_svg(out, title,
                         use_time ? "time since the first event (s)" : "trace event index",
                         "active, - - reserved", sr, n);
    vp_plot_series_free(sr, n);
    return rc;
}
