/* Partial results ("vpart", docs/partials.md): what a command keeps of
 * some of its input files, in a compact, versioned byte form, so that
 * worker processes, MPI processes and Slurm job array tasks can analyse
 * files apart and one process can merge what they found.
 *
 * The encoding is made of unsigned LEB128 varints (integers), zigzag
 * varints (signed integers), IEEE doubles as 8 little-endian bytes, and
 * strings as a varint length and the bytes.  A reader never trusts a
 * length: every count is checked against the bytes that remain, so a
 * damaged partial is an error, never an overrun or a huge allocation. */
#ifndef VPROF_PART_H
#define VPROF_PART_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/util.h"

/* The format of the header (below); a command's payload has a version of
 * its own, kept in the header too. */
#define VP_PART_VERSION 1

void vp_put_u64(vp_buf *b, uint64_t v);
void vp_put_i64(vp_buf *b, int64_t v);
void vp_put_f64(vp_buf *b, double v);
void vp_put_str(vp_buf *b, const char *s, size_t n);

/* A cursor over a partial.  The getters return 0 (or an empty string)
 * once the bytes run out or a value is malformed, and set bad; check it
 * (vp_rd_ok) before trusting what was read. */
typedef struct vp_rd {
    const unsigned char *p, *end;
    int bad;
} vp_rd;

void vp_rd_init(vp_rd *r, const void *p, size_t n);
uint64_t vp_get_u64(vp_rd *r);
int64_t vp_get_i64(vp_rd *r);
double vp_get_f64(vp_rd *r);
/* A string: points into the partial (not NUL-terminated). */
const char *vp_get_str(vp_rd *r, size_t *n);
/* A string that a model keeps as a C string (a name, a path): one with a
 * NUL inside would be saved up to that NUL, so it would not save back to
 * the same bytes, and no input vprof reads gives one.  It is damage: NULL,
 * with *n 0 and r bad. */
const char *vp_get_cstr(vp_rd *r, size_t *n);
/* vp_get_cstr's string as a new C string (vp_strndup); NULL when r is
 * bad, before or by this string. */
char *vp_get_cstr_dup(vp_rd *r);
/* A count of items that take at least min_bytes each: bad when the rest
 * of the partial cannot hold that many, which bounds any allocation. */
size_t vp_get_count(vp_rd *r, size_t min_bytes);
/* 1 when nothing was malformed and every byte was read. */
int vp_rd_done(const vp_rd *r);

/* The header of a partial result: the command that made it, the version
 * of that command's payload, and the options that shaped it (a reduce
 * refuses to merge partials whose headers differ). */
typedef struct vp_part_header {
    char command[32];
    uint64_t payload_version;
    vp_buf options;       /* NUL-separated arguments */
    uint64_t inputs;      /* input files the payload covers */
} vp_part_header;

/* Appends a header followed by the payload of n bytes. */
void vp_part_write(vp_buf *out, const vp_part_header *h, const void *payload, size_t n);

/* Reads a header from data (n bytes, a whole .vpart file) and points
 * *payload at what follows it.  -1 with err set (status 3) when the bytes
 * are not a partial of a version this build reads.  h->options must be
 * freed (vp_buf_free). name is the file's name in messages. */
int vp_part_read(const char *name, const void *data, size_t n, vp_part_header *h,
                 const void **payload, size_t *payload_n, vp_error *err);

#endif
