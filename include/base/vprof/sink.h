/* Byte sinks: a streaming output file, plain or gzip, or standard output.
 *
 * A file is written under a temporary name in its target directory,
 * synced (fsync) and renamed onto the target only by vp_sink_close, so a failed or
 * interrupted run never leaves a partial output under the real name (and
 * never clobbers an existing one); vp_sink_abort, or SIGINT/SIGTERM,
 * removes the temporary file.  A target that exists and is not a regular
 * file (/dev/null, a pipe) is written in place.
 *
 * Gzip is one member whose deflate stream comes from ISA-L when vprof is
 * built with it (VPROF_HAVE_ISAL), zlib otherwise; vp_sink_end_member and
 * vp_sink_append make a file of several members (gzip reads them as one
 * stream), so that parts compressed apart can be joined without
 * recompressing them.
 *
 * A regular-file sink can go back: vp_sink_mark remembers a point of the
 * stream and vp_sink_rewind discards everything written after it.  For
 * gzip the mark ends a deflate block on a byte boundary and the rewind
 * truncates the file there and starts a fresh deflate stream; since a
 * fresh stream never refers back, the blocks before and after join into
 * one valid stream.  This lets a single-pass writer undo the output of an
 * input it has to read again, at no cost when it does not. */
#ifndef VPROF_SINK_H
#define VPROF_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"

typedef struct vp_sink vp_sink;

typedef struct vp_sink_opts {
    int gzip;     /* compress */
    int level;    /* 0 (fastest) to 9 (smallest); ISA-L has four levels: 0, 1, 2-4 -> 2, 5-9 -> 3 */
    void *deflate_state; /* NULL, or vp_sink_deflate_state_size() bytes, zeroed, for
                            ISA-L's stream state, outliving the sink: the tests
                            place it at chosen addresses (ISAL_PRIME in sink.c) */
} vp_sink_opts;

/* The bytes vp_sink_opts.deflate_state needs (0: zlib, which ignores it). */
size_t vp_sink_deflate_state_size(void);

#define VP_SINK_DEFAULT_LEVEL 1

typedef struct vp_sink_mark {
    uint64_t file_offset;  /* bytes in the file at the mark */
    uint64_t bytes;        /* uncompressed bytes at the mark */
    uint32_t crc;          /* CRC-32 of those bytes (gzip) */
    int member_start;      /* at the start of a gzip member: a rewind
                              starts it again, the same bytes as if it
                              had never been written */
} vp_sink_mark;

/* Opens path for writing ("-" = standard output).  NULL with err set
 * (exit status 3) when the temporary file cannot be created. */
vp_sink *vp_sink_open(const char *path, const vp_sink_opts *opts, vp_error *err);

/* A sink onto fd, an open regular file the caller owns (a temporary part
 * of a larger output): written from where fd is, can rewind, never
 * renamed nor closed by vp_sink_close.  name is for messages. */
vp_sink *vp_sink_open_fd(int fd, const char *name, const vp_sink_opts *opts, vp_error *err);

/* Ends the current gzip member (the next write starts a new one); for a
 * plain sink, hands the buffered bytes on.  0, or -1 once a write failed.
 * A mark made before it must not be rewound to after it. */
int vp_sink_end_member(vp_sink *s);

/* Ends the current member and copies len bytes of fd, from its offset 0,
 * unchanged into the output: for gzip, whole gzip members; bytes is what
 * they decompress to.  0, or -1 once a read or write failed. */
int vp_sink_append(vp_sink *s, int fd, uint64_t len, uint64_t bytes);

/* Buffered writes.  They return 0, or -1 once a write has failed; the
 * failure is reported by vp_sink_close. */
int vp_sink_write(vp_sink *s, const void *p, size_t n);
int vp_sink_puts(vp_sink *s, const char *str);
int vp_sink_printf(vp_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 when the sink can go back (a regular file), 0 otherwise. */
int vp_sink_can_rewind(const vp_sink *s);
/* Remembers the current point.  Returns 0, or -1 with err set. */
int vp_sink_mark_here(vp_sink *s, vp_sink_mark *m, vp_error *err);
/* Discards what was written after m.  Returns 0, or -1 with err set (the
 * sink cannot rewind, or the file could not be truncated). */
int vp_sink_rewind(vp_sink *s, const vp_sink_mark *m, vp_error *err);

/* Uncompressed bytes accepted so far. */
uint64_t vp_sink_bytes(const vp_sink *s);
/* The name for messages: the target path or "standard output". */
const char *vp_sink_name(const vp_sink *s);
/* "ISA-L", "zlib" or "none". */
const char *vp_sink_compressor(const vp_sink *s);

/* Finishes the stream, closes the file and renames it onto the target.
 * Returns 0, or -1 with err set (exit status 3), in which case the
 * temporary file is removed.  Frees s either way. */
int vp_sink_close(vp_sink *s, vp_error *err);

/* Removes the temporary file (what was written to standard output or a
 * special file stays).  Frees s; NULL is accepted. */
void vp_sink_abort(vp_sink *s);

/* A file a command names, for vp_outputs_check: what names it (an option,
 * "-o", "--trace-out"; NULL or "" for an operand) and its path. */
typedef struct vp_named_path {
    const char *what;
    const char *path;
} vp_named_path;

/* Refuses an output that is one of the inputs, before anything is
 * written: the rename that ends a sink would replace the input with the
 * output (a trace that took a cluster hour to record, gone to a table).
 * Files are compared by identity (device and inode, after following
 * symbolic links), so a hard link, a symbolic link and "./x" against "x"
 * are caught; a directory input stands for every file under it.  An
 * output that does not exist yet, "-" or one that is no regular file
 * (/dev/null, a pipe) replaces nothing.  Returns 0, or -1 with err set
 * (status 2) naming both. */
int vp_outputs_check(const vp_named_path *outs, size_t nout, const vp_named_path *ins,
                     size_t nin, vp_error *err);

#endif
