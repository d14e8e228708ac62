/* The tracks of an Ascend trace (trace_view.json): what each process and
 * thread holds, from its metadata or, when unnamed, from its events. */
#ifndef VPROF_ASCEND_TRACKS_H
#define VPROF_ASCEND_TRACKS_H

#include "vprof/trace.h"

/* What a track of an Ascend trace holds, from its process_name (and, for
 * the communication process, its thread_name). */
typedef enum vp_npu_role {
    VP_NPU_UNKNOWN = 0,
    VP_NPU_HARDWARE,         /* "Ascend Hardware": device tasks per stream */
    VP_NPU_COMM_OP,          /* "Communication"/"HCCL", thread "Group ... Communication" */
    VP_NPU_COMM_TASK,        /* the same process, thread "Plane N": HCCL's small tasks */
    VP_NPU_OVERLAP,          /* "Overlap Analysis" */
    VP_NPU_OTHER,            /* another named process (Python, CANN, counters ...) */
} vp_npu_role;

typedef struct vp_npu_tracks vp_npu_tracks;

vp_npu_tracks *vp_npu_tracks_new(void);
void vp_npu_tracks_free(vp_npu_tracks *t);

/* Takes process_name and thread_name metadata events; returns 1 when ev
 * was one. */
int vp_npu_tracks_observe(vp_npu_tracks *t, const vp_event *ev);

/* The role of an event's track.  A track named by no metadata is told by
 * the event itself: an uncategorised slice with a "Task Type" argument is
 * a hardware task, with "alg_type" or "rank_size" a communication op, with
 * "notify_id" or "transport type" a communication task; a slice named
 * Computing, Communication, Communication(Not Overlapped) or Free with
 * neither category nor arguments an overlap slice. */
vp_npu_role vp_npu_role_of(vp_npu_tracks *t, const vp_event *ev);

/* 1 once any Ascend track (hardware, communication, overlap) was seen. */
int vp_npu_tracks_seen(const vp_npu_tracks *t);

/* Overlap Analysis slice kinds (by name). */
enum { VP_OVL_COMPUTING, VP_OVL_COMMUNICATION, VP_OVL_NOT_OVERLAPPED, VP_OVL_FREE, VP_OVL_COUNT };
/* The kind of an Overlap Analysis slice name, or -1. */
int vp_npu_overlap_kind(vp_span name);

#endif
