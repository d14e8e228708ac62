/* The tables and charts of `vprof memory` (docs/memory.md): each memory
 * model (a snapshot, a trace's [memory] events, an export_memory_timeline
 * output, Ascend memory files) as vp_tables and SVG. */
#ifndef VPROF_MEMVIEW_H
#define VPROF_MEMVIEW_H

#include <stddef.h>
#include <stdio.h>

#include "vprof/memascend.h"
#include "vprof/memdoc.h"
#include "vprof/memevents.h"
#include "vprof/memsnap.h"
#include "vprof/memtimeline.h"
#include "vprof/table.h"

typedef struct vp_memview_opts {
    long top;            /* rows per device in the top tables; 0 = all */
    int by_site;         /* the allocations at the peak summed per site */
    int stack_depth;     /* frames that make a site */
    int all_frames;      /* C++ and unnamed frames count too */
    int leaks;           /* also the leak candidates, per site */
    int timeline;        /* the points over time instead of the summary */
    int device;          /* only this device; -1 = all */
} vp_memview_opts;

/* Each fills tables[] (room for 5) and returns how many it made. */
size_t vp_memview_snapshot(const vp_memsnap *s, const vp_memview_opts *o, vp_table **tables);
size_t vp_memview_trace(const vp_memevents *m, const vp_memview_opts *o, vp_table **tables);
size_t vp_memview_ascend(const vp_asc_rankmem *in, size_t nin, const vp_memview_opts *o,
                         vp_table **tables);
vp_table *vp_memview_memtimeline(const vp_memtimeline *tl, const vp_memview_opts *o);

/* Active or allocated (solid) and reserved (dashed) bytes over time, the
 * peaks marked.  0, or -1 on a write error. */
int vp_memview_plot_snapshot(FILE *out, const vp_memsnap *s, const char *title);
int vp_memview_plot_trace(FILE *out, const vp_memevents *m, const char *title);
int vp_memview_plot_ascend(FILE *out, const vp_asc_rankmem *in, size_t nin, const char *title);
int vp_memview_plot_memtimeline(FILE *out, const vp_memtimeline *tl, const char *title);

/* The tables, or the chart, of any input vp_memdoc_read read. */
size_t vp_memview_doc(const vp_memdoc *d, const vp_memview_opts *o, vp_table **tables);
int vp_memview_plot_doc(FILE *out, const vp_memdoc *d, const char *title);

#endif
