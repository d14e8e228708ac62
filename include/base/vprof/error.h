/* Errors and exit statuses shared by every module and subcommand.
 *
 * A library function that can fail takes a vp_error * and returns non-zero
 * on failure, having filled it; only the subcommand decides to print and
 * exit.  Messages never end in a newline and never start with "vprof: ". */
#ifndef VPROF_ERROR_H
#define VPROF_ERROR_H

#include <stdarg.h>

enum {
    VP_EXIT_OK = 0,     /* success */
    VP_EXIT_GATE = 1,   /* a diff/check threshold failed */
    VP_EXIT_USAGE = 2,  /* bad command line */
    VP_EXIT_INPUT = 3,  /* unreadable or invalid input */
};

typedef struct vp_error {
    int status;         /* one of VP_EXIT_*, 0 while no error is set */
    char msg[1024];
} vp_error;

/* Sets the error unless one is already set: the first cause wins, since
 * later failures are usually consequences of it. */
void vp_error_set(vp_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vp_error_vset(vp_error *err, int status, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Prints "vprof: <msg>" to stderr. */
void vp_error_print(const vp_error *err);

/* Diagnostics: what a library function has to say besides its result (a
 * warning about input it read past, say).  The library prints nothing: it
 * hands each diagnostic to the handler the caller installed, and without
 * one the diagnostic is dropped.  Some diagnostics point at something only
 * the front end can name (a command-line option, a setting): the library
 * leaves a hint code there, and the front end's hint function says what
 * text stands for it (none: ""), so the library never names a flag. */
typedef enum vp_diag_kind {
    VP_DIAG_WARNING,
} vp_diag_kind;

typedef enum vp_hint {
    VP_HINT_PARTIAL_USED,     /* a truncated trace read in part, as asked */
    VP_HINT_PARTIAL_RETRY,    /* a truncated trace refused: how to read it in part */
    /* a model config without a field: how else to give it */
    VP_HINT_GIVE_HIDDEN,
    VP_HINT_GIVE_LAYERS,
    VP_HINT_GIVE_HEADS,
    VP_HINT_GIVE_VOCAB,
    VP_HINT_GIVE_HEAD_DIM,
    VP_HINT_GIVE_TOP_K,
    VP_HINT_GIVE_MOE_FFN,
    VP_HINT_GIVE_FFN,
    VP_HINT_MFU_TOKENS,       /* MFU from a model without the tokens per step and sequence */
    VP_HINT_MFU_STEP_TIME,    /* MFU without steps: the step time given instead */
    VP_HINT_MFU_PEAK,         /* no known peak: how to give it */
    VP_HINT_METRICS_LIST,     /* an unknown gate metric: where the metrics are listed */
    VP_HINT_METRIC_NEEDS,     /* a metric a run lacks: where what it needs is said */
    VP_HINT_BASE_RUN,         /* a gate on a change without a base run: how to give one */
    VP_HINT_MFU_NO_MODEL,     /* MFU without a model: how to give one */
    /* what the caller of vp_mfu_compute set (vprof/mfu_job.h), by its name */
    VP_HINT_OPT_LOG,
    VP_HINT_OPT_SEQ_LEN,
    VP_HINT_OPT_SEQLENS,
    VP_HINT_OPT_TOKENS_PER_STEP,
    VP_HINT_OPT_GLOBAL_BATCH,
    VP_HINT_OPT_TOKENS_PER_SEC,
    VP_HINT_OPT_STEP_TIME,
    VP_HINT_OPT_STEPS,
    VP_HINT_OPT_WORLD_SIZE,
    VP_HINT_OPT_PEAK,
    VP_HINT_OPT_GPU,
    VP_HINT_OPT_DTYPE,
    VP_HINT_MEMORY_SNAPSHOT,  /* a memory snapshot where a trace was expected: what reads it */
    VP_HINT_STEPS,            /* the option that selects steps (vp_steps_warn_none) */
    VP_HINT_COMM_KERNELS,     /* no communication found in a multi-rank run: how to name it */
    VP_HINT_COUNT,
} vp_hint;

typedef struct vp_diag_handler {
    void (*emit)(void *ctx, vp_diag_kind kind, const char *msg);
    const char *(*hint)(void *ctx, vp_hint code);   /* NULL: every hint is "" */
    void *ctx;
} vp_diag_handler;

/* Installs h (copied; NULL: none), for the whole process: set it before
 * any thread that may emit starts. */
void vp_diag_install(const vp_diag_handler *h);

/* The installed text of a hint, "" (or fallback) when none. */
const char *vp_diag_hint(vp_hint code);
const char *vp_diag_hint_or(vp_hint code, const char *fallback);

/* Emits a VP_DIAG_WARNING: msg is formatted without a trailing newline. */
void vp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The front end's -q, for the progress displays that still write to the
 * terminal themselves; warnings do not read it (the handler decides). */
extern int vp_quiet;

#endif
