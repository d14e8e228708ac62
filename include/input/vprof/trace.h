/* The streaming Chrome-trace reader: one event at a time, at constant
 * memory, from a plain or gzip file or standard input.
 *
 * Both top-level forms are read: {"traceEvents": [...], other keys before
 * or after} and a bare [...].  A bare array may end early or with a
 * trailing comma, as the Chrome viewer accepts; any other truncation is an
 * error unless opts.partial is set, which turns it into a warning saying
 * how much was read.
 *
 * Each event comes with its common fields typed (ph, name, cat, ts and dur
 * in exact integer nanoseconds) and everything else as raw JSON spans to
 * query lazily (vprof/json.h).  The spans point into the reader's buffers:
 * they are valid until the next call of vp_trace_next. */
#ifndef VPROF_TRACE_H
#define VPROF_TRACE_H

#include <stdint.h>

#include "vprof/error.h"
#include "vprof/json.h"

typedef struct cJSON cJSON;
typedef struct vp_trace vp_trace;

/* reader.c's parse_event clears each field by name: a new field goes there too. */
typedef struct vp_event {
    char ph;          /* phase character, 0 when absent */
    vp_span name;     /* decoded: escapes resolved, bad UTF-8 replaced */
    vp_span cat;      /* decoded; n == 0 when absent */
    vp_span pid;      /* raw value: a number or a quoted string; p == NULL when absent */
    vp_span tid;
    vp_span id;
    vp_span args;     /* raw object text "{...}"; p == NULL when absent */
    vp_span raw;      /* the whole event object */
    int64_t ts;       /* ns; valid when has_ts */
    int64_t dur;      /* ns; valid when has_dur */
    unsigned has_ts : 1;
    unsigned has_dur : 1;
    uint64_t offset;  /* uncompressed byte offset of the event's '{' */
} vp_event;

typedef struct vp_trace_opts {
    int partial;      /* accept a truncated input, with a warning */
    int progress;     /* draw a progress bar on stderr (when it is a terminal) */
    const char *name; /* the input's name in messages, when not its path
                         (a temporary copy of standard input) */
} vp_trace_opts;

typedef struct vp_trace_stats {
    uint64_t events;        /* events delivered */
    uint64_t bytes;         /* uncompressed bytes consumed */
    uint64_t bad_utf8;      /* replacement characters put into names and categories */
    int truncated;          /* the input ended early and opts.partial accepted it */
    uint64_t bad_meta;      /* top-level members whose value is not JSON (skipped) */
    uint64_t known_skips;   /* member values skipped by a skip fact (reader.c) */
} vp_trace_stats;

/* Whether readers opened from now on find skip facts on the source
 * thread (reader.c): 1 by default.  It moves the skipping of args to the
 * core that inflates, which pays when that core would idle; the results
 * are the same either way.  vp_pool_run turns it off while more jobs than
 * half the cores run (every core busy: the facts are extra work). */
extern int vp_trace_prepass;

/* Opens path ("-" = standard input). NULL with err set on failure. */
vp_trace *vp_trace_open(const char *path, const vp_trace_opts *opts, vp_error *err);

/* Returns 1 with the next event, 0 at the end of the trace, -1 with err
 * set (exit status 3): the message names the file, the byte offset in the
 * uncompressed stream (with line and column when the input can be read
 * again), the compressed offset for gzip input, what was expected and
 * what was found. */
int vp_trace_next(vp_trace *t, vp_event *ev, vp_error *err);

/* The top-level members other than traceEvents (deviceProperties,
 * distributedInfo, baseTimeNanoseconds, ...) as a cJSON object owned by the
 * reader.  Complete only after vp_trace_next returned 0: traces put some of
 * them after the events.  Never NULL. */
const cJSON *vp_trace_meta(vp_trace *t);

/* The accelerators the metadata lists: the deviceProperties array, or the
 * computeProperties one of torch 1.8's traces; NULL when neither is there.
 * *key (may be NULL) gets the member's name. */
const cJSON *vp_meta_devices(const cJSON *meta, const char **key);
/* A listed device's compute capability (computeMajor and computeMinor, or
 * computeProperties' major and minor): 1 with them, 0 when absent. */
int vp_meta_device_cc(const cJSON *dev, int *major, int *minor);

/* A top-level integer read exactly from the text (cJSON's doubles lose
 * digits beyond 2^53: baseTimeNanoseconds is about 1.7e18).  A quoted
 * number counts. 1 when found, 0 when absent or not an integer. */
int vp_trace_meta_int(vp_trace *t, const char *key, int64_t *out);

const vp_trace_stats *vp_trace_get_stats(const vp_trace *t);
const char *vp_trace_name(const vp_trace *t);
void vp_trace_close(vp_trace *t);

/* Events and top-level values larger than this are refused. */
#define VP_TRACE_MAX_ELEMENT (256u << 20)
/* Top-level values (metadata) larger than this are skipped, not kept. */
#define VP_TRACE_MAX_META (16u << 20)

#endif
