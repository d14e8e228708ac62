/* The recorded window of a snapshot: where it starts (the origin of the
 * times a person reads) and where its warm-up ends (the leak rule). */
#include <stdint.h>

#include "vprof/memsnap.h"

int vp_ms_start_time(const vp_memsnap *s, int64_t *t0_us)
{
    int found = 0;
    for (size_t d = 0; d < s->ndevices; d++)
        for (size_t i = 0; i < s->devices[d].nevents; i++) {
            const vp_ms_event *e = &s->devices[d].events[i];
            if (e->has_time && (!found || e->time_us < *t0_us)) {
                *t0_us = e->time_us;
                found = 1;
            }
        }
    return found;
}

size_t vp_ms_warmup_end(const vp_ms_device *dev)
{
    int64_t first = 0, last = 0;
    int timed = 0;
    for (size_t i = 0; i < dev->nevents; i++) {
        const vp_ms_event *e = &dev->events[i];
        if (!e->has_time)
            continue;
        if (!timed || e->time_us < first)
            first = e->time_us;
        if (!timed || e->time_us > last)
            last = e->time_us;
        timed = 1;
    }
    if (!timed || last == first)
        return dev->nevents / 4;   /* no clock to go by: a quarter of the entries */
    /* The first entry past the first quarter of the time; an untimed entry
     * goes with the timed one before it. */
    int64_t cut = first + (last - first) / 4;
    size_t i = 0;
    for (int64_t now = first; i < dev->nevents; i++) {
        if (dev->events[i].has_time)
            now = dev->events[i].time_us;
        if (now > cut)
            break;
    }
    return i;
}
