/* libFuzzer target for the streaming trace reader (src/trace/reader.c) over
 * the byte source (src/io/source.c), plain and gzip.
 *
 * The input is written to a memfd and read back through vp_trace_open on
 * /proc/self/fd/N, so the real path runs: source, chunks, carry buffer,
 * skip facts, error location by re-reading.  The fuzz build's source has
 * no thread and 1 KiB chunks (tests/fuzz/CMakeLists.txt, VP_SOURCE_INLINE
 * in src/io/source.c): an input costs about a millisecond of CPU, where a
 * thread per read cost ASan most of it.  Each input is read up to four
 * ways and the results are cross-checked:
 *
 *   A  the bytes as they are (input starting with 1f 8b takes the gzip
 *      path, so the inflater and the member logic get fuzzed too);
 *   B  the same text after enough leading whitespace that the chunk
 *      boundary (VP_SOURCE_CHUNK) falls inside it, at a position chosen
 *      from the input: same result and the same events as A;
 *   C  the text gzip-compressed: same result and events as A;
 *   D  that gzip stream cut short, with --partial: the events are a
 *      prefix of A's.
 *
 * Every event is also fed to the analyses that consume events (steps,
 * classification) and its args are queried. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>

#include "vprof/classify.h"
#include "vprof/error.h"
#include "vprof/source.h"
#include "vprof/steps.h"
#include "vprof/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define CHECK(c) \
    do { \
        if (!(c)) { \
            fprintf(stderr, "fuzz_trace: check failed: %s (line %d)\n", #c, __LINE__); \
            abort(); \
        } \
    } while (0)

#define MAX_EVENTS (1u << 16)

typedef struct run {
    int rc;
    size_t n;
    uint64_t *hash;   /* per event */
    int truncated;
    char *meta;
} run;

static int fd_plain = -1, fd_gzip = -1;
static char path_plain[64], path_gzip[64];
static char *pad;   /* VP_SOURCE_CHUNK bytes of whitespace */

static int make_fd(const char *name, char *path, size_t n)
{
    int fd = memfd_create(name, 0);
    if (fd < 0) {
        /* No memfd: an unlinked temporary file works the same way. */
        char tmpl[] = "/tmp/vprof-fuzz-XXXXXX";
        fd = mkstemp(tmpl);
        if (fd < 0) {
            perror("fuzz_trace: no memfd and no temporary file");
            abort();
        }
        unlink(tmpl);
    }
    snprintf(path, n, "/proc/self/fd/%d", fd);
    return fd;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    vp_quiet = 1;
    fd_plain = make_fd("vprof-fuzz-plain", path_plain, sizeof path_plain);
    fd_gzip = make_fd("vprof-fuzz-gzip", path_gzip, sizeof path_gzip);
    pad = malloc(VP_SOURCE_CHUNK);
    CHECK(pad);
    for (size_t i = 0; i < VP_SOURCE_CHUNK; i++)
        pad[i] = i % 61 == 60 ? '\n' : ' ';
    return 0;
}

static void put(int fd, const void *a, size_t an, const void *b, size_t bn)
{
    CHECK(ftruncate(fd, 0) == 0);
    if (an)
        CHECK(pwrite(fd, a, an, 0) == (ssize_t)an);
    if (bn)
        CHECK(pwrite(fd, b, bn, (off_t)an) == (ssize_t)bn);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t fnv_span(uint64_t h, vp_span s)
{
    h = fnv(h, &s.n, sizeof s.n);
    return s.p ? fnv(h, s.p, s.n) : fnv(h, "\xff", 1);
}

/* Reads path; base is subtracted from event offsets.  When deep, events
 * also go through the analyses and the span queries. */
static void read_run(const char *path, int partial, uint64_t base, int deep, run *r)
{
    vp_trace_opts opts = {.partial = partial};
    vp_error err = {0};
    vp_event ev;
    vp_steps *steps = deep ? vp_steps_new() : NULL;

    uint64_t *hash = r->hash;   /* the caller's, reused from input to input */
    memset(r, 0, sizeof *r);
    r->hash = hash;
    vp_trace *t = vp_trace_open(path, &opts, &err);
    if (!t) {
        /* Only a gzip stream can fail this early. */
        r->rc = -1;
        CHECK(err.status == VP_EXIT_INPUT && err.msg[0]);
        vp_steps_free(steps);
        return;
    }
    if (deep)
        (void)vp_trace_meta(t);   /* early: must stay valid and grow */
    while ((r->rc = vp_trace_next(t, &ev, &err)) == 1) {
        CHECK(ev.raw.p && ev.raw.n >= 2 && ev.raw.p[0] == '{' && ev.raw.p[ev.raw.n - 1] == '}');
        CHECK(ev.offset >= base);
        uint64_t h = 0xcbf29ce484222325ULL;
        h = fnv(h, &ev.ph, 1);
        h = fnv_span(h, ev.name);
        h = fnv_span(h, ev.cat);
        h = fnv_span(h, ev.pid);
        h = fnv_span(h, ev.tid);
        h = fnv_span(h, ev.id);
        h = fnv_span(h, ev.args);
        h = fnv_span(h, ev.raw);
        int64_t f[4] = {ev.has_ts ? ev.ts : 0, ev.has_dur ? ev.dur : 0,
                        (int64_t)ev.has_ts * 2 + ev.has_dur, (int64_t)(ev.offset - base)};
        h = fnv(h, f, sizeof f);
        if (r->n < MAX_EVENTS)
            r->hash[r->n] = h;
        r->n++;
        if (deep) {
            static const char *const keys[] = {"correlation", "stream", "External id", "bytes"};
            vp_span vals[4];
            int64_t x;
            double d;
            vp_json_get_many(ev.args, keys, 4, vals);
            for (int i = 0; i < 4; i++)
                if (vals[i].p) {
                    (void)vp_json_int(vals[i], &x);
                    (void)vp_json_double(vals[i], &d);
                }
            if (ev.pid.p)
                (void)vp_json_int(ev.pid, &x);
            if (ev.tid.p)
                (void)vp_json_int(ev.tid, &x);
            vp_gpu_kind k = vp_gpu_kind_of(ev.cat);
            (void)vp_classify(k, ev.name.p ? ev.name.p : "", ev.name.n);
            (void)vp_is_launch_category(ev.cat);
            vp_steps_observe(steps, &ev);
        }
    }
    if (r->rc < 0) {
        CHECK(err.status == VP_EXIT_INPUT && err.msg[0]);
        vp_error again = {0};
        CHECK(vp_trace_next(t, &ev, &again) == -1);
        CHECK(strcmp(again.msg, err.msg) == 0);
    } else {
        CHECK(vp_trace_next(t, &ev, &err) == 0);
    }
    const vp_trace_stats *st = vp_trace_get_stats(t);
    CHECK(st->events == r->n);
    r->truncated = st->truncated;
    r->meta = cJSON_PrintUnformatted(vp_trace_meta(t));
    if (deep) {
        static const char *const specs[] = {":", "-1", ":-1", "1:3"};
        for (int i = 0; i < 4; i++) {
            vp_step_range range;
            CHECK(vp_step_range_parse(specs[i], &range) == 0);
            size_t sel = vp_steps_select(steps, &range);
            CHECK(sel <= vp_steps_count(steps));
            (void)vp_steps_selected(steps, 1);
        }
        vp_steps_free(steps);
    }
    vp_trace_close(t);
}

static void run_free(run *r)
{
    free(r->meta);
    r->meta = NULL;
}

/* b read the same trace as a. */
static void same(const run *a, const run *b)
{
    CHECK(a->rc == b->rc);
    CHECK(a->n == b->n);
    for (size_t i = 0; i < a->n && i < MAX_EVENTS; i++)
        CHECK(a->hash[i] == b->hash[i]);
    if (a->rc == 0) {
        CHECK(a->truncated == b->truncated);
        CHECK((a->meta == NULL) == (b->meta == NULL));
        if (a->meta)
            CHECK(strcmp(a->meta, b->meta) == 0);
    }
}

/* One deflater for the whole run: a fresh one per input cost more than
 * the reads (its tables land on new pages under ASan's quarantine). */
static z_stream zs;
static int zs_ready;

static unsigned char *gzip(const uint8_t *data, size_t size, size_t *out_len)
{
    if (!zs_ready) {
        CHECK(deflateInit2(&zs, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
        zs_ready = 1;
    }
    CHECK(deflateReset(&zs) == Z_OK);
    size_t cap = deflateBound(&zs, (uLong)size) + 64;
    unsigned char *out = malloc(cap);
    CHECK(out);
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)size;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    *out_len = cap - zs.avail_out;
    return out;
}

/* Per-event hashes of the four reads, allocated once. */
static uint64_t hash_a[MAX_EVENTS], hash_b[MAX_EVENTS], hash_c[MAX_EVENTS], hash_d[MAX_EVENTS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run a = {.hash = hash_a}, b = {.hash = hash_b}, c = {.hash = hash_c}, d = {.hash = hash_d};
    uint64_t h = fnv(0xcbf29ce484222325ULL, data, size);
    int is_gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;

    /* The fuzz build's source holds 1 MiB (src/io/source.c). */
    if (size > (1u << 20) - VP_SOURCE_CHUNK)
        return 0;
    /* A: as it is. */
    put(fd_plain, data, size, NULL, 0);
    read_run(path_plain, 0, 0, 1, &a);
    if (is_gzip) {
        /* The same gzip input with --partial: never worse. */
        read_run(path_plain, 1, 0, 0, &b);
        CHECK(b.n >= a.n);
        for (size_t i = 0; i < a.n && i < MAX_EVENTS; i++)
            CHECK(a.hash[i] == b.hash[i]);
        run_free(&b);
        run_free(&a);
        return 0;
    }

    /* B: the chunk boundary at byte k of the input (0 <= k < chunk). The
     * fuzz build's chunk is 1 KiB (tests/fuzz/CMakeLists.txt), so the
     * padding is cheap and every input gets this run. */
    {
        size_t span = size < VP_SOURCE_CHUNK ? size : VP_SOURCE_CHUNK - 1;
        size_t k = (size_t)(h % (span + 1));
        size_t npad = VP_SOURCE_CHUNK - k;
        put(fd_plain, pad, npad, data, size);
        read_run(path_plain, 0, npad, 0, &b);
        same(&a, &b);
        run_free(&b);
    }

    /* C: gzip-compressed. */
    size_t zn;
    unsigned char *z = gzip(data, size, &zn);
    put(fd_gzip, z, zn, NULL, 0);
    read_run(path_gzip, 0, 0, 0, &c);
    same(&a, &c);
    run_free(&c);

    /* D: the gzip stream cut short, read with --partial. */
    size_t cut = (size_t)((h >> 20) % zn);
    put(fd_gzip, z, cut, NULL, 0);
    read_run(path_gzip, 1, 0, 0, &d);
    CHECK(d.n <= a.n || a.rc < 0);
    for (size_t i = 0; i < d.n && i < a.n && i < MAX_EVENTS; i++)
        CHECK(a.hash[i] == d.hash[i]);
    run_free(&d);

    free(z);
    run_free(&a);
    return 0;
}
