/* One input of `vprof memory`, whatever it holds: a CUDA memory snapshot,
 * a trace's [memory] events, an export_memory_timeline output, or Ascend
 * memory files (a profile directory or one of its CSVs).  Told from the
 * path and the content (vp_mem_sniff), then read into its model; the
 * views are vprof/memview.h's. */
#ifndef VPROF_MEMDOC_H
#define VPROF_MEMDOC_H

#include <stddef.h>

#include "vprof/error.h"
#include "vprof/memascend.h"
#include "vprof/memevents.h"
#include "vprof/memsnap.h"
#include "vprof/memtimeline.h"
#include "vprof/util.h"

typedef enum vp_memdoc_kind {
    VP_MEMDOC_SNAPSHOT,
    VP_MEMDOC_TRACE,
    VP_MEMDOC_TIMELINE,
    VP_MEMDOC_ASCEND,
} vp_memdoc_kind;

typedef struct vp_memdoc {
    vp_memdoc_kind kind;
    const char *path;           /* as given */
    const char *name;           /* in messages: the path, or "standard input" */
    /* what vp_memdoc_open found */
    int is_dir;                 /* Ascend: a profile directory */
    vp_asc_file asc_kind;       /* Ascend: the file's kind */
    char *spooled;              /* standard input copied here (unlinked when freed) */
    vp_buf whole;               /* the input, when it had to be held */
    int gz;
    /* what vp_memdoc_read made, by kind */
    vp_memsnap *snap;
    vp_memevents *events;
    vp_memtimeline timeline;
    vp_asc_rankmem *ranks;
    size_t nranks;
} vp_memdoc;

/* Whether path is an Ascend profile or one of its memory files. */
int vp_memdoc_is_ascend(const char *path);

/* What path ("-": standard input, spooled) is, reading no more than it
 * must.  0, or -1 with err set; free d either way. */
int vp_memdoc_open(const char *path, vp_memdoc *d, vp_error *err);

/* "a snapshot", "a trace", "a memory timeline", "an Ascend profile". */
const char *vp_memdoc_kind_name(vp_memdoc_kind k);

typedef struct vp_memdoc_read_opts {
    int partial;                /* a truncated trace read in part */
    int keep_points;            /* a trace's points over time: VP_MEM_POINTS_ALL for a
                                 * timeline, VP_MEM_POINTS_CHART for a chart */
    int find_ops;               /* the CPU op at each trace peak */
    int device;                 /* a snapshot must have this device; -1: any */
} vp_memdoc_read_opts;

/* Reads the input vp_memdoc_open told.  0, or -1 with err set: status 2
 * when the snapshot lacks the device asked for, else the input's. */
int vp_memdoc_read(vp_memdoc *d, const vp_memdoc_read_opts *o, vp_error *err);
void vp_memdoc_free(vp_memdoc *d);

#endif
