/* Byte sources: a file or standard input, plain or gzip, delivered as a
 * sequence of uncompressed chunks.
 *
 * Compression is detected from the magic bytes, never the name.
 * Concatenated gzip members are one stream.  A reader thread (reading, and
 * inflating with ISA-L when built with it, zlib otherwise) runs ahead of the
 * consumer through a small ring of buffers, so that on two cores inflate
 * and parse overlap. */
#ifndef VPROF_SOURCE_H
#define VPROF_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/util.h"

typedef struct vp_source vp_source;

typedef struct vp_chunk {
    const char *data;
    size_t len;
    uint64_t offset;       /* uncompressed offset of data[0] */
    uint64_t comp_offset;  /* input bytes consumed when this chunk was complete */
    const void *aux;       /* what the hook attached (vp_source_open_hooked), */
    size_t aux_len;        /* valid while the chunk is held; NULL without a hook */
} vp_chunk;

/* Opens path ("-" = standard input).  Returns NULL with err set (exit
 * status 3) when it cannot be opened. */
vp_source *vp_source_open(const char *path, vp_error *err);

/* A hook run for each chunk once it is filled, before the consumer gets
 * it: on the reader thread, so that work done there overlaps the
 * consumer's (the trace reader's skip facts).  aux belongs to the chunk's
 * buffer and is reused from chunk to chunk: the hook sets its contents,
 * the consumer reads them as chunk->aux.  Chunks are hooked in stream
 * order, all on one thread; the fuzz build, which has no thread, runs the
 * hook inline too.  The source frees aux; ctx stays the caller's and must
 * outlive the source. */
typedef void (*vp_source_hook)(void *ctx, const char *data, size_t len, vp_buf *aux);
vp_source *vp_source_open_hooked(const char *path, vp_source_hook hook, void *ctx, vp_error *err);

/* Hands over the next chunk; the previous one is released.  Returns 1 with
 * a chunk, 0 at the end of the input, -1 with err set (a read error, a
 * corrupt or truncated gzip stream).  After -1 or 0 it keeps returning the
 * same. */
int vp_source_next(vp_source *s, vp_chunk *chunk, vp_error *err);

/* The name used in messages: the path, or "standard input". */
const char *vp_source_name(const vp_source *s);
int vp_source_is_gzip(const vp_source *s);
/* Size of the input file in bytes (compressed size for gzip), or 0 when
 * unknown (a pipe): for progress reporting. */
uint64_t vp_source_input_size(const vp_source *s);
/* Input bytes consumed so far (by the reader thread). */
uint64_t vp_source_input_pos(const vp_source *s);

/* After vp_source_next failed: 1 when the failure was a gzip stream that
 * ends inside a member (what --partial may accept), 0 otherwise. */
int vp_source_truncated(const vp_source *s);

void vp_source_close(vp_source *s);

/* Size of the chunks a source delivers (the last may be shorter).  The
 * fuzz build makes it small: chunk boundaries everywhere, little memory
 * to allocate and fill per input. */
#ifndef VP_SOURCE_CHUNK
#define VP_SOURCE_CHUNK (1u << 20)
#endif

/* Finds line and column (1-based) of an uncompressed offset by reading the
 * input again from the start.  Returns 0 on success, -1 when the input
 * cannot be re-read (standard input) or is shorter. */
int vp_source_locate(const char *path, uint64_t offset, uint64_t *line, uint64_t *col);

#endif
