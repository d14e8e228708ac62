/* The memory views of any input (vprof/memdoc.h): each kind's own. */
#include "vprof/memview.h"

size_t vp_memview_doc(const vp_memdoc *d, const vp_memview_opts *o, vp_table **tables)
{
    switch (d->kind) {
    case VP_MEMDOC_SNAPSHOT:
        return vp_memview_snapshot(d->snap, o, tables);
    case VP_MEMDOC_TRACE:
        return vp_memview_trace(d->events, o, tables);
    case VP_MEMDOC_TIMELINE:
        tables[0] = vp_memview_memtimeline(&d->timeline, o);
        return 1;
    case VP_MEMDOC_ASCEND:
        break;
    }
    return vp_memview_ascend(d->ranks, d->nranks, o, tables);
}

int vp_memview_plot_doc(FILE *out, const vp_memdoc *d, const char *title)
{
    switch (d->kind) {
    case VP_MEMDOC_SNAPSHOT:
        return vp_memview_plot_snapshot(out, d->snap, title);
    case VP_MEMDOC_TRACE:
        return vp_memview_plot_trace(out, d->events, title);
    case VP_MEMDOC_TIMELINE:
        return vp_memview_plot_memtimeline(out, &d->timeline, title);
    case VP_MEMDOC_ASCEND:
        break;
    }
    return vp_memview_plot_ascend(out, d->ranks, d->nranks, title);
}
