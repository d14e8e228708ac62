/* The merge engine's working parts (vprof/merge.h is its one public
 * header), shared by the files of src/merge only.  What each file does:
 *
 *   merge.c      the entry: options, checks, pre-pass, output, tail
 *   scan.c       the pre-pass: rank, base, first ts, step window, collectives
 *   align.c      the clock: each input's shift, --align collective offsets
 *   copy.c       one input copied to the output, event by event
 *   rewrite.c    one event's pid, flow/async id and ts rewritten; the filters
 *   procnames.c  process_name/process_sort_index, held to the input's end
 *   meta.c       the top-level metadata, spooled, and the output's tail
 *   parts.c      -j workers and gzip members: an input copied into a part
 *   peers.c      MPI processes: shares of the inputs sent to process 0
 *   options.c    the option syntaxes (vprof/merge.h)
 *
 * One merge and the inputs it copies are the state every step reads and
 * writes; they are one struct each rather than one per file, because the
 * steps run interleaved on the same input. */
#ifndef VPROF_MERGE_INT_H
#define VPROF_MERGE_INT_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "vprof/error.h"
#include "vprof/json.h"
#include "vprof/merge.h"
#include "vprof/part.h"
#include "vprof/rank.h"
#include "vprof/sink.h"
#include "vprof/steps.h"
#include "vprof/trace.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

enum {
    ALIGN_AUTO = VP_ALIGN_AUTO,
    ALIGN_NONE = VP_ALIGN_NONE,
    ALIGN_BASE = VP_ALIGN_BASE,
    ALIGN_START = VP_ALIGN_START,
    ALIGN_COLLECTIVE = VP_ALIGN_COLLECTIVE,
};

/* One process of the input being copied. */
typedef struct proc {
    vp_buf key;        /* raw pid text ("" when the event had none) */
    char *name_ev;     /* raw text of its last process_name event, or NULL */
    size_t name_len;
    char *sort_ev;     /* raw text of its last process_sort_index event */
    size_t sort_len;
    int64_t sort_key;  /* original sort index, else the numeric pid */
    int has_sort_key;
    uint32_t index;    /* new pid = rank * 1000 + index */
} proc;

typedef struct coll_end {
    uint64_t name;     /* hash of the kernel name */
    uint32_t occurrence;
    int64_t ts, end;
} coll_end;

typedef struct gpu_step {
    long number;
    int64_t start, end;
} gpu_step;

typedef struct input {
    const char *arg;
    const char *path;
    long rank;
    int rank_explicit;
    vp_rank_source rank_from;
    int known;         /* rank and base below are final (pre-pass or end of input) */
    int has_base;
    int64_t base;
    int scanned;
    int64_t min_ts;
    int has_min;
    int has_steps_window;
    int64_t steps_start, steps_end;
    coll_end *colls;
    size_t ncolls;
    int64_t coll_offset;
    size_t coll_matched;
    int64_t shift;     /* ns added to every ts */
    int done, skipped;
    uint64_t events_read, events_written;
    int truncated;
    /* its top-level metadata, as JSON text (NULL: absent) */
    char *meta_dp, *meta_di, *meta_unit;
} input;

typedef struct merge {
    const char *output;
    int align;
    long coll_n;
    struct vp_kclass_rules *classes;   /* which kernels are collectives (vprof/classify.h) */
    const long (*ranks)[2];
    size_t nranks;
    vp_step_range steps;
    int has_steps;
    int has_w0, has_w1;
    int64_t w0, w1;
    char *const *drop, *const *keep;
    size_t ndrop, nkeep;
    int partial;
    long jobs;         /* -j: 0 = one per online core */
    const vp_merge_peers *peers;
    const vp_merge_hooks *hooks;

    /* parts (-j, gzip output): each input is copied into a part of its
     * own, a temporary file, and the parts appended in input order */
    int part_mode;
    int progress;      /* the reader's progress bar (not in workers) */
    int guess_own;     /* a worker that does not know the merged clock yet
                          assumes its input's own base (shift 0); the
                          parent checks the shift and copies it again if not */
    const char *part_dir;
    char *part_dir_buf;
    int *part_fd;      /* by input: its part file, -1 when none */
    /* a process other than peer 0: its parts are kept (fd and report, by
     * input) until they are sent to process 0 */
    int keeping;
    int *kept_fd;
    vp_buf *kept;

    input *in;
    size_t nin;
    vp_sink *sink;
    vp_sink_opts sink_opts;
    int any_written;   /* an event was written: the next needs a comma */
    int out_base_set;
    int64_t out_base;
    int any_base;
    char *time_unit;
    char *output_name;
    FILE *spool_dp, *spool_di, *spool_info;  /* per-rank metadata, kept on disk */
    int first_dp, first_di, first_info;

    /* the input being copied */
    vp_strmap *pid_map;    /* raw pid text -> index + 1 into procs */
    proc *procs;
    size_t nprocs, cap_procs;
    uint32_t last_proc;    /* cache: consecutive events share a pid */
    int has_last;
    vp_buf ebuf;           /* replacement texts of one event */
    vp_buf scratch;
    vp_error err;
} merge;

/* What copying one input into a part found: sent by a worker to its
 * parent, or kept by the parent for an input it copies itself. */
typedef struct part_res {
    int status;          /* 0, or the exit status of the error in msg */
    char *msg;
    uint64_t len;        /* bytes of the part file */
    uint64_t bytes;      /* of JSON text in it */
} part_res;

/* merge.c: a warning through the caller's hook. */
void vp_mg_warn(const merge *m, vp_merge_warning what, const char *path, long long a, long long b);

/* rewrite.c */
int vp_mg_rank_wanted(const merge *m, long r);
/* Forgets the processes of the input copied before. */
void vp_mg_procs_reset(merge *m);
/* ",\n" before every event but the first. */
void vp_mg_separator(merge *m);
int64_t vp_mg_new_pid(const input *in, const proc *p);
int vp_mg_write_rewritten(merge *m, input *in, vp_span raw, vp_span pid, vp_span id, char ph,
                          int has_ts, int64_t ts, const vp_tw_edit *extra, size_t nextra);
int vp_mg_name_is(vp_span name, const char *lit);
/* ts + dur (dur when positive). */
int64_t vp_mg_event_end(const vp_event *ev);
/* One event of in: filtered, then written rewritten (0), or -1 with m->err. */
int vp_mg_take_event(merge *m, input *in, const vp_event *ev);

/* procnames.c: the held process metadata of in, written at its end. */
int vp_mg_finish_procs(merge *m, input *in);

/* meta.c */
int vp_mg_meta_base(vp_trace *t, int64_t *base);
void vp_mg_keep_meta(input *in, const cJSON *meta);
void vp_mg_accept_input(merge *m, input *in);
int vp_mg_write_tail(merge *m);

/* scan.c: in read whole ahead of its copy; 0, or -1 with m->err. */
int vp_mg_scan_input(merge *m, input *in, long position);

/* align.c */
/* Orders collectives by kernel name (hash), then occurrence. */
int vp_mg_cmp_coll_key(const void *a, const void *b);
void vp_mg_collective_offsets(merge *m, input *ref);
/* The ns added to every ts of in. */
int64_t vp_mg_shift_of(const merge *m, const input *in);

/* copy.c */
int vp_mg_is_stdin(const input *in);
/* -1 with m->err when an input before in, merged, has its rank. */
int vp_mg_check_duplicate_now(merge *m, const input *in);
void vp_mg_report_input(const input *in, vp_merge_rank *r);
int vp_mg_copy_input(merge *m, input *in, long position);

/* parts.c */
int vp_mg_part_file(merge *m);
int vp_mg_get_res(vp_rd *r, part_res *res, input *in);
int vp_mg_take_part(merge *m, size_t i, int part, const part_res *res);
int vp_mg_part_again(merge *m, size_t i);
int vp_mg_run_parts(merge *m, long jobs, size_t first, size_t last);

/* peers.c */
/* The first input of process r's share. */
size_t vp_mg_share_start(size_t n, int r, int size);
int vp_mg_send_share(merge *m, long jobs, size_t first, size_t last);
int vp_mg_receive_shares(merge *m);

#endif
