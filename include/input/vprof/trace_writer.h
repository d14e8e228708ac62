/* Writing Chrome-trace JSON: escaped strings, exact microsecond times,
 * events copied from the reader with some of their values replaced, and
 * the per-rank namespaces that `vprof merge` gives pids and ids.
 *
 * Events are not re-serialised: a copied event is the reader's raw text
 * with only the replaced spans changed, so every field a writer does not
 * know about (args, bp, s, cname, ...) survives byte for byte. */
#ifndef VPROF_TRACE_WRITER_H
#define VPROF_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/json.h"
#include "vprof/sink.h"
#include "vprof/util.h"

/* Appends p[0..n) as a quoted JSON string: '"', '\\' and control
 * characters escaped, invalid UTF-8 replaced by U+FFFD, so the output is
 * valid JSON whatever the bytes (file names included). */
void vp_tw_string(vp_buf *out, const char *p, size_t n);

/* Appends ns as decimal microseconds, exactly: "12" or "12.345" (three
 * decimals when ns is not a whole microsecond), "-0.500" for -500. */
void vp_tw_us(vp_buf *out, int64_t ns);

/* One replacement inside an event's raw text: the bytes [at, at + len)
 * become text[0..text_len).  len 0 inserts. */
typedef struct vp_tw_edit {
    const char *at;
    size_t len;
    const char *text;
    size_t text_len;
} vp_tw_edit;

/* Writes raw with the edits applied.  The edits must lie inside raw and
 * not overlap; they are applied in position order whatever their order in
 * the array (which is sorted in place).  Returns vp_sink_write's result. */
int vp_tw_splice(vp_sink *s, vp_span raw, vp_tw_edit *edits, size_t n);

/* Flow and async ids in a merged trace: each rank gets its own id space
 * so that arrows never join two ranks.  An integer id v (a JSON number or
 * a string of decimal digits) with 0 <= v < 2^32 becomes
 * rank * 2^32 + v, of the same JSON type, which stays below 2^53 (exact in
 * the viewers' doubles) for ranks below 2^21; anything else (larger,
 * negative, hex or other strings) becomes the string "r<rank>:<text>".
 * Appends the new id's JSON text to out. */
void vp_tw_rank_id(vp_span id, long rank, vp_buf *out);

/* Pids in a merged trace: rank R's processes are R * VP_MERGE_PIDS_PER_RANK
 * + 0, 1, ... in the order they first appear; a reader recovers the rank
 * by integer division (the merged file says so in its "vprofMerge"
 * member, ahead of the events). */
#define VP_MERGE_PIDS_PER_RANK 1000
/* The largest rank a merged trace can hold: pids and sort indexes stay
 * below 2^31. */
#define VP_MERGE_MAX_RANK (2147483647L / VP_MERGE_PIDS_PER_RANK - 1)

#endif
