/* PyTorch CUDA memory snapshots (`torch.cuda.memory._dump_snapshot`
 * pickles) and their analyses.
 *
 * A vp_memsnap is the snapshot reduced to typed arrays: segments and their
 * blocks as they were when the snapshot was taken, and per device the
 * allocator's trace (alloc, free_requested, free_completed, segment_*,
 * snapshot, oom ...).  Stacks are interned: an event or block carries a
 * stack id, and identical stacks (real files share them through the pickle
 * memo) are stored once.  Every schema era is read: torch 2.0 block
 * `history`, 2.1+ block addresses and frames, `time_us`, the bare segment
 * list of `torch.cuda.memory_snapshot()`, expandable segments, `oom`
 * entries, torch_npu files.  Unknown keys are ignored.
 *
 * The analyses follow the definitions validated in the project's
 * reference (memsnap.md section 6): sizes are requested bytes, the peak is
 * the maximum of an alloc/free_completed replay stacked on the baseline of
 * allocations older than the trace, as PyTorch's MemoryViz computes it. */
#ifndef VPROF_MEMSNAP_H
#define VPROF_MEMSNAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vprof/error.h"
#include "vprof/pickle.h"
#include "vprof/util.h"

typedef enum vp_ms_action {
    VP_MS_ALLOC,
    VP_MS_FREE_REQUESTED,
    VP_MS_FREE_COMPLETED,
    VP_MS_SEGMENT_ALLOC,
    VP_MS_SEGMENT_FREE,
    VP_MS_SEGMENT_MAP,
    VP_MS_SEGMENT_UNMAP,
    VP_MS_SNAPSHOT,
    VP_MS_OOM,
    VP_MS_OTHER,        /* annotate and actions newer than vprof */
    VP_MS_NACTIONS
} vp_ms_action;

/* The action's name as the snapshot writes it ("other" for VP_MS_OTHER). */
const char *vp_ms_action_name(int action);

typedef enum vp_ms_block_state {
    VP_MS_INACTIVE,
    VP_MS_ACTIVE_ALLOCATED,
    VP_MS_ACTIVE_PENDING_FREE,
} vp_ms_block_state;

/* No stack recorded (no `frames` key, or an empty list). */
#define VP_MS_NO_STACK 0u

typedef struct vp_ms_frame {
    const char *filename;   /* NUL-terminated, as written (may be "??" or "") */
    const char *name;
    int64_t line;
} vp_ms_frame;

typedef struct vp_ms_event {
    uint64_t addr;          /* for VP_MS_OOM: the device_free bytes */
    int64_t size;
    int64_t time_us;        /* valid when has_time */
    uint32_t stack;
    uint8_t action;         /* vp_ms_action */
    uint8_t has_time;
} vp_ms_event;

typedef struct vp_ms_block {
    uint64_t addr;          /* computed from the segment for torch 2.0 files */
    int64_t size;           /* rounded */
    int64_t requested;
    uint32_t stack;
    uint8_t state;          /* vp_ms_block_state */
} vp_ms_block;

typedef struct vp_ms_segment {
    int device;
    uint64_t addr;
    int64_t total_size;
    int64_t stream;
    size_t first_block, nblocks;   /* in vp_memsnap.blocks */
    uint32_t stack;
    uint8_t small;          /* segment_type 'small' */
    uint8_t expandable;
    uint8_t private_pool;   /* segment_pool_id other than (0, 0) */
} vp_ms_segment;

typedef struct vp_ms_device {
    int id;
    vp_ms_event *events;
    size_t nevents;
    size_t first_segment, nsegments;   /* segments are sorted by device */
} vp_ms_device;

typedef struct vp_memsnap {
    int protocol;           /* pickle protocol */
    int list_form;          /* top level was a list of segments */
    int torch20;            /* blocks carried `history` (torch 2.0) */
    vp_ms_device *devices;  /* sorted by id; only devices with segments or events */
    size_t ndevices;
    vp_ms_segment *segments;
    size_t nsegments;
    vp_ms_block *blocks;
    size_t nblocks;
    vp_ms_frame *frames;
    size_t nframes;
    /* Stack s (1-based; 0 = none) is frames stack_frames[stack_first[s] ..
     * stack_first[s] + stack_len[s]), innermost first. */
    uint32_t *stack_first, *stack_len, *stack_frames;
    size_t nstacks;
    struct vp_ms_internal *in;   /* interning tables, string storage */
} vp_memsnap;

/* Reads a snapshot file ("-" = stdin): decodes the pickle and builds the
 * model.  Errors ("FILE: byte N: ...", "FILE: not a memory snapshot: ...")
 * have status VP_EXIT_INPUT. */
vp_memsnap *vp_memsnap_load(const char *path, vp_error *err);
/* The same from bytes in memory. */
vp_memsnap *vp_memsnap_load_mem(const void *data, size_t len, const char *name, vp_error *err);
/* The same from an already decoded value. */
vp_memsnap *vp_memsnap_from_pickle(const vp_pk *root, int protocol, const char *name, vp_error *err);
void vp_memsnap_free(vp_memsnap *s);

const vp_ms_device *vp_memsnap_device(const vp_memsnap *s, int id);

/* ---- analyses, per device ---- */

typedef struct vp_ms_stats {
    int device;
    size_t trace_entries;
    size_t actions[VP_MS_NACTIONS];
    size_t segments, blocks;
    /* State when the snapshot was taken. */
    int64_t reserved;             /* sum of segment total_size */
    int64_t allocated;            /* rounded size of active_allocated blocks */
    int64_t requested;            /* requested size of active_allocated blocks */
    int64_t pending_free;         /* active_pending_free blocks */
    int64_t inactive;             /* free bytes inside segments */
    int64_t largest_inactive;
    size_t inactive_blocks;
    int64_t rounding_waste;       /* allocated - requested */
    double fragmentation;         /* 1 - largest_inactive / inactive; 0 without free bytes */
    /* Replay of the trace. */
    int64_t baseline;             /* bytes alive before recording started */
    int64_t final_active;
    int64_t peak_active;
    long peak_index;              /* event index of the peak; -1 = before the first event */
    int peak_has_time;
    int64_t peak_time_us;
    int64_t peak_reserved;
    int64_t reserved_at_start;
    long peak_reserved_index;
    size_t ooms;
} vp_ms_stats;

void vp_ms_device_stats(const vp_memsnap *s, const vp_ms_device *dev, vp_ms_stats *out);

/* A live allocation. */
typedef struct vp_ms_live {
    uint64_t addr;
    int64_t size;                 /* requested bytes */
    uint32_t stack;
    long alloc_index;             /* the alloc event; -1 = allocated before the trace */
} vp_ms_live;

/* Allocations alive right after event `index` (-1: before the first event;
 * use stats.peak_index for the peak), largest first; equal sizes in the
 * order PyTorch's viewer lists them: allocations older than the trace
 * (those freed inside it, then the snapshot's blocks), then the trace's
 * allocations by event index.  Returns the count; *out is malloc'ed (free it). */
size_t vp_ms_live_at(const vp_memsnap *s, const vp_ms_device *dev, long index, vp_ms_live **out);

/* The start of the snapshot, the origin of the times a person reads: the
 * earliest time_us of any trace entry on any device.  Returns 0 when no
 * entry has a time. */
int vp_ms_start_time(const vp_memsnap *s, int64_t *t0_us);

/* The index of dev's first trace entry after its warm-up.  A snapshot
 * records no steps, so the warm-up is the first quarter of the recorded
 * time (from dev's earliest to its latest timed entry; an entry at the
 * quarter mark is in it), or of the entries when none has a time or all
 * have the same. */
size_t vp_ms_warmup_end(const vp_ms_device *dev);

/* The leak candidates: allocations made after the warm-up
 * (vp_ms_warmup_end) and still alive at the end of the recorded window, by
 * a call path that still makes such allocations in the second half of the
 * entries after the warm-up (state made once and constant since is not a
 * leak), largest first, equal sizes by event index.  Never one made during
 * the warm-up or before the trace started (the model's parameters, the
 * optimizer's state: the baseline). */
size_t vp_ms_leaks(const vp_memsnap *s, const vp_ms_device *dev, vp_ms_live **out);

/* Active and reserved bytes after every event: arrays of dev->nevents + 1,
 * element 0 being the state before the first event.  Caller frees both. */
void vp_ms_timeline(const vp_memsnap *s, const vp_ms_device *dev, int64_t **active, int64_t **reserved);

/* ---- stacks and sites ---- */

/* Frame filtering: by default only Python frames (a filename ending in
 * ".py") count; with all_frames, every frame that PyTorch's viewer shows
 * (it hides the unwinder, the program's entry and CPython's interpreter
 * loop) except the caching allocator's own frames. */
int vp_ms_frame_shown(const vp_ms_frame *f, int all_frames);

/* Writes "file.py:line:name" for the first `depth` shown frames of a stack
 * (basenames, joined by " < "), into buf.  Returns the number of frames
 * written; 0 (and an empty string) when none is shown. */
size_t vp_ms_site(const vp_memsnap *s, uint32_t stack, int depth, int all_frames,
                  char *buf, size_t bufsize);

/* Allocations summed per site (vp_ms_site of their stack, "" when no
 * frame is shown): bytes and count, most bytes first, then most
 * allocations, then by site. */
typedef struct vp_ms_site_sum {
    const char *site;             /* owned by the vp_ms_sites */
    int64_t bytes;
    int64_t count;
} vp_ms_site_sum;

typedef struct vp_ms_sites {
    vp_ms_site_sum *sums;
    size_t n;
    vp_strmap *keys;
} vp_ms_sites;

void vp_ms_group_by_site(const vp_memsnap *s, const vp_ms_live *lv, size_t n, int depth,
                         int all_frames, vp_ms_sites *out);
void vp_ms_sites_free(vp_ms_sites *sites);

/* The longest site text vp_ms_site writes, with its NUL. */
#define VP_MS_SITE_MAX 8192

/* ---- inputs ---- */

/* What `vprof memory` is given, told from its first bytes: a snapshot is
 * a pickle (first byte PROTO, 0x80), "[[" starts an
 * export_memory_timeline output, anything else is taken for a Chrome
 * trace.  The whole (decompressed) input is appended to whole when it has
 * to be held: a timeline, a gzip snapshot, any snapshot with hold; else
 * only the first chunk is read.  *gz: the input is gzip.  0, or -1 with
 * err set. */
typedef enum { VP_MEM_SNAPSHOT, VP_MEM_TRACE, VP_MEM_TIMELINE } vp_mem_input;
int vp_mem_sniff(const char *path, int hold, vp_mem_input *kind, vp_buf *whole, int *gz,
                 vp_error *err);

/* Standard input copied into a new temporary file, whose path is
 * returned (malloc'ed; the caller unlinks it); NULL with err set. */
char *vp_mem_spool_stdin(vp_error *err);

#endif
