/* Iteration records from training logs: Megatron-LM and MindSpeed-LLM
 * iteration lines, and generic "key: value" / "key=value" metric lines.
 *
 * Megatron-LM prints, from the last rank, one line per log interval whose
 * fields are separated by " | ":
 *
 *   [2025-01-01 10:00:00] iteration       20/    1000 | consumed samples: 2560 |
 *   elapsed time per iteration (ms): 1820.4 | throughput per GPU (TFLOP/s/GPU): 463.2 |
 *   learning rate: ... | global batch size:   128 | lm loss: ... |
 *
 * (the throughput field only with --log-throughput), and at start-up its
 * arguments as "  name ....... value" lines, of which world_size,
 * seq_length and global_batch_size are kept.  MindSpeed-LLM runs
 * Megatron's training loop and prints the same lines.
 *
 * A generic line is any other line with a known key (docs/mfu.md lists
 * them): a step or iteration number, a step time (seconds, or
 * milliseconds when the key or the value says ms), tokens per second (per
 * GPU or for the whole job, by key), a TFLOP/s figure, a global batch size.
 * A line is a record when it gives a time or a throughput.
 *
 * VeOmni's EnvironMeter metrics (flops_achieved(T), flops_promised(T),
 * mfu, or with an "efficiency/" prefix) are read from such lines (its
 * dict printed or logged as JSON lines), from a W&B metrics export as CSV
 * (a header naming them, then a row per step) or as a JSON array of
 * objects (the whole file).  flops_achieved(T) is the job's TFLOP/s (the
 * sum over the data-parallel ranks), flops_promised(T) the peak of all
 * its devices: their ratio is VeOmni's MFU. */
#ifndef VPROF_TRAINLOG_H
#define VPROF_TRAINLOG_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"

typedef enum vp_log_kind {
    VP_LOG_NONE,
    VP_LOG_MEGATRON,
    VP_LOG_GENERIC,
} vp_log_kind;

/* One iteration line.  Absent numbers are NaN (doubles) or -1 (integers). */
typedef struct vp_iter_rec {
    vp_log_kind kind;
    long iteration;
    double time_s;          /* time of one iteration (step), seconds */
    double tflops;          /* the log's own achieved TFLOP/s per GPU */
    double tokens_per_s;
    int tokens_per_gpu;     /* tokens_per_s is per GPU, not for the whole job */
    int64_t global_batch;   /* samples per iteration */
    double flops_achieved;  /* VeOmni's flops_achieved(T): the job's TFLOP/s */
    double flops_promised;  /* VeOmni's flops_promised(T): the job's peak TFLOP/s */
    double log_mfu;         /* VeOmni's own mfu (0..1) */
    long line;              /* 1-based line number (JSON: 1-based element) */
} vp_iter_rec;

/* Where the records came from. */
typedef enum vp_log_source {
    VP_LOGSRC_LINES,        /* log lines (Megatron, key=value, dicts, JSON lines) */
    VP_LOGSRC_CSV,          /* a CSV export: a header, then rows */
    VP_LOGSRC_JSON,         /* a JSON array of metric objects */
} vp_log_source;

typedef struct vp_trainlog {
    vp_iter_rec *recs;
    size_t n, cap;
    int64_t world_size;     /* from the argument dump; -1 when absent */
    int64_t seq_length;
    int64_t global_batch;
    long lines;             /* lines read */
    vp_log_source source;
    size_t veomni;          /* records with flops_achieved(T) and flops_promised(T) */
} vp_trainlog;

/* Parses one line (without its newline).  Returns 1 and fills rec when the
 * line is an iteration record, 0 when not. */
int vp_trainlog_parse_line(const char *line, size_t len, vp_iter_rec *rec);

/* Reads a log file ("-" = standard input).  Lines longer than
 * VP_TRAINLOG_MAX_LINE are cut there.  Returns 0, or -1 with err set
 * (status 3) when the file cannot be read. */
int vp_trainlog_read(const char *path, vp_trainlog *log, vp_error *err);
void vp_trainlog_free(vp_trainlog *log);

#define VP_TRAINLOG_MAX_LINE 65536

/* The export forms (trainlog_export.c).  A CSV header: 1 when the line
 * names flops_achieved(T) among comma-separated column names (kept in
 * *cols); a row of it as a record; a JSON array document as records. */
typedef struct vp_log_cols {
    int step, achieved, promised, mfu;   /* column indexes; -1: absent */
} vp_log_cols;
int vp_trainlog_csv_header(const char *line, size_t len, vp_log_cols *cols);
int vp_trainlog_csv_row(const vp_log_cols *cols, const char *line, size_t len, vp_iter_rec *rec);
int vp_trainlog_json(const char *text, size_t len, const char *path, vp_trainlog *log,
                     vp_error *err);
/* Appends rec to log (counting VeOmni records). */
void vp_trainlog_add(vp_trainlog *log, const vp_iter_rec *rec);
/* Marks rec empty (every number absent). */
void vp_iter_rec_init(vp_iter_rec *rec);

#endif
