/* Whether a command's trace files can be ranks of one run.
 *
 * Several files given to summary, comm or steps are summed as the ranks of
 * one run.  distributedInfo says which rank a file is, but not which run:
 * files of different runs (a directory of yesterday's and today's trace,
 * two single-GPU runs) would be summed as "2 ranks" without a word.  Each
 * file's reading keeps what the trace says of where and when it was
 * recorded, and the command judges them all together once merged:
 *
 * - when: ranks of one run record at the same time (every collective
 *   waits for all of them), so the files' windows on the wall clock
 *   (baseTimeNanoseconds + ts, or ts since the epoch) overlap; windows
 *   more than VP_ORIGIN_GAP_NS apart are separate runs (the allowance
 *   covers hosts' clocks that disagree);
 * - where: the accelerator deviceProperties names; ranks of one run on
 *   different kinds of device are rare enough to say so;
 * - distributedInfo.world_size, where two files give different ones.
 *
 * A trace whose times are not on the wall clock (ts from 0, no
 * baseTimeNanoseconds) says nothing of when. */
#ifndef VPROF_ORIGIN_H
#define VPROF_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/part.h"
#include "vprof/tracepass.h"
#include "vprof/util.h"

#define VP_ORIGIN_GAP_NS 60000000000LL   /* 60 s */

typedef struct vp_origin {
    char *name;          /* the file's name in messages */
    int64_t first, last; /* its window on the wall clock, ns since the epoch; first > last: unknown */
    long rank;           /* distributedInfo.rank, -1: none */
    long world;          /* distributedInfo.world_size, 0: none */
    char *device;        /* deviceProperties[0].name, "" when none */
} vp_origin;

typedef struct vp_origins {
    vp_origin *o;
    size_t n;
} vp_origins;

void vp_origins_init(vp_origins *s);
void vp_origins_free(vp_origins *s);
/* A trace read whole by p (before vp_trace_pass_close). */
void vp_origins_add(vp_origins *s, const vp_trace_pass *p);
/* In partial results: the files in order; merge appends, bad on damage. */
void vp_origins_save(const vp_origins *s, vp_buf *b);
void vp_origins_merge(vp_origins *s, vp_rd *d);
/* 1 with what tells the files apart in msg (one sentence, no newline),
 * when they cannot all be ranks of one run; else 0.  Fewer than two
 * files: 0. */
int vp_origins_apart(const vp_origins *s, vp_buf *msg);
/* The same through vp_warn, prefixed "cmd: ", ending with what the
 * command did with them ("their figures are summed as N ranks"). */
void vp_origins_warn(const vp_origins *s, const char *cmd);

#endif
