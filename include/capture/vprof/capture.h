/* Capture: the CUDA-independent parts of `vprof record` and of the CUPTI
 * shim libvprof-cupti.so.
 *
 *   config   the VPROF_* environment that `vprof record` sets and the shim
 *            reads (one struct, parsed from and printed to the environment,
 *            so that both sides agree by construction);
 *   control  the capture-range state machine (all, cudaProfilerApi,
 *            nvtx:NAME, delay, duration): events in, start/stop out;
 *   pool     a bounded pool of activity buffers and the thread that
 *            consumes full ones, so memory stays bounded on long runs;
 *   writer   activity records (this header's own small structs, filled by
 *            the shim from CUPTI's) to a Kineto-compatible Chrome trace,
 *            streamed: an event is written when its record arrives.
 *
 * Nothing here includes a CUDA header; the unit tests drive all of it with
 * records built by hand. Times are CUPTI timestamps: integer nanoseconds of
 * CLOCK_REALTIME (Unix epoch) on Linux. */
#ifndef VPROF_CAPTURE_H
#define VPROF_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"
#include "vprof/sink.h"
#include "vprof/util.h"

/* ---- config: the VPROF_* environment ---------------------------------- */

/* What is recorded: one bit per group of CUPTI activity kinds. */
enum {
    VP_CAP_KERNEL = 1 << 0,    /* CONCURRENT_KERNEL (never the serialising KERNEL) */
    VP_CAP_MEMCPY = 1 << 1,    /* MEMCPY, MEMCPY2 (peer to peer) */
    VP_CAP_MEMSET = 1 << 2,
    VP_CAP_SYNC = 1 << 3,      /* SYNCHRONIZATION */
    VP_CAP_RUNTIME = 1 << 4,   /* runtime API calls */
    VP_CAP_DRIVER = 1 << 5,    /* driver API calls */
    VP_CAP_OVERHEAD = 1 << 6,  /* CUPTI's and the driver's overhead */
    VP_CAP_NVTX = 1 << 7,      /* NVTX ranges (opt-in: see docs/record.md) */
    VP_CAP_DEFAULT_KINDS = 0x7f,
};

typedef enum vp_cap_range {
    VP_RANGE_ALL,              /* from the first CUDA call to exit */
    VP_RANGE_PROFILER_API,     /* between cudaProfilerStart and cudaProfilerStop */
    VP_RANGE_NVTX,             /* inside an NVTX range named range_name */
} vp_cap_range;

#define VP_CAP_MAX_RANKS 64    /* ranges in a --ranks list */

typedef struct vp_cap_config {
    char *output_dir;          /* VPROF_OUTPUT_DIR, default "." */
    unsigned kinds;            /* VPROF_KINDS */
    vp_cap_range range;        /* VPROF_CAPTURE_RANGE: all | cudaProfilerApi | nvtx:NAME */
    char *range_name;          /* the NAME of nvtx:NAME */
    int64_t delay_ns;          /* VPROF_DELAY: seconds from CUDA init, 0 = none */
    int64_t duration_ns;       /* VPROF_DURATION: seconds of capture, 0 = no limit */
    int nranks;                /* VPROF_RANKS: only these ranks record; 0 = all */
    long rank_lo[VP_CAP_MAX_RANKS], rank_hi[VP_CAP_MAX_RANKS];
    size_t buffer_size;        /* VPROF_BUFFER_SIZE: bytes per activity buffer */
    size_t pool_size;          /* VPROF_BUFFER_POOL: bytes of buffers at most */
    int flush_ms;              /* VPROF_FLUSH_MS: CUPTI's periodic flush, 0 = off */
    int gzip;                  /* VPROF_GZIP: 1 = .json.gz (default), 0 = .json */
    int quiet;                 /* VPROF_QUIET: nothing on stderr but errors */
} vp_cap_config;

#define VP_CAP_DEFAULT_BUFFER_SIZE ((size_t)4 << 20)
#define VP_CAP_DEFAULT_POOL_SIZE ((size_t)64 << 20)
#define VP_CAP_DEFAULT_FLUSH_MS 500

/* The variables, for help texts and --print-env; NULL-terminated. */
extern const char *const vp_cap_env_names[];

/* An environment lookup (getenv, or a test's table). */
typedef const char *(*vp_getenv_fn)(void *ctx, const char *name);

void vp_cap_config_init(vp_cap_config *c);
void vp_cap_config_free(vp_cap_config *c);

/* Fills c from the VPROF_* variables that lookup finds; unset ones keep
 * their defaults. Returns 0, or -1 with err naming the variable and what is
 * wrong with its value (status VP_EXIT_USAGE). */
int vp_cap_config_from_env(vp_cap_config *c, vp_getenv_fn lookup, void *ctx, vp_error *err);

/* The option parsers that the environment and `vprof record` share; each
 * returns 0, or -1 with err saying what was expected (status
 * VP_EXIT_USAGE). what names the option or variable in the message. */
int vp_cap_parse_kinds(const char *s, unsigned *kinds, const char *what, vp_error *err);
int vp_cap_parse_range(const char *s, vp_cap_range *range, char **name, const char *what,
                       vp_error *err);
/* Seconds as decimal text ("2", "0.25", "1.5s", "250ms"), exactly, to ns. */
int vp_cap_parse_seconds(const char *s, int64_t *ns, const char *what, vp_error *err);
/* "0,3,8-15": ranges of non-negative ranks. */
int vp_cap_parse_ranks(const char *s, vp_cap_config *c, const char *what, vp_error *err);
/* Bytes with an optional K, M or G suffix (powers of 1024). */
int vp_cap_parse_size(const char *s, size_t *bytes, const char *what, vp_error *err);

/* Appends "NAME=VALUE\n" for every variable whose value differs from the
 * default (VPROF_OUTPUT_DIR always), in vp_cap_env_names order. */
void vp_cap_config_to_env(const vp_cap_config *c, vp_buf *out);

/* The text forms used by --print-env and the trace's metadata. */
void vp_cap_kinds_text(unsigned kinds, vp_buf *out);   /* "kernel,memcpy,..." */
void vp_cap_range_text(const vp_cap_config *c, vp_buf *out);  /* "all", "nvtx:NAME" */

/* The process's rank from the launcher's variables: RANK (torchrun),
 * OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH, Intel MPI),
 * SLURM_PROCID (srun), first found; -1 when none is set or valid. The
 * world size likewise from WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE,
 * SLURM_NTASKS. */
long vp_cap_env_rank(vp_getenv_fn lookup, void *ctx);
long vp_cap_env_world_size(vp_getenv_fn lookup, void *ctx);

/* 1 when rank (-1 = unknown, taken as 0) is one the config records. */
int vp_cap_rank_selected(const vp_cap_config *c, long rank);

/* The trace file: DIR/vprof_rank<R>_<pid>.pt.trace.json[.gz], rank 0 when
 * unknown. Appended to out (NUL-terminated). */
void vp_cap_output_path(const vp_cap_config *c, long rank, long pid, vp_buf *out);

/* ---- control: the capture-range state machine ------------------------- */

typedef enum vp_ctl_event {
    VP_CTL_TICK,               /* time passed (delay and duration deadlines) */
    VP_CTL_PROFILER_START,     /* cudaProfilerStart / cuProfilerStart */
    VP_CTL_PROFILER_STOP,
    VP_CTL_NVTX_PUSH,          /* a range opened on thread tid (push, or start with id) */
    VP_CTL_NVTX_POP,           /* the innermost range of tid closed (pop) */
    VP_CTL_NVTX_END,           /* the range with id closed (nvtxRangeEnd) */
    VP_CTL_EXIT,               /* the process is ending: stop for good */
} vp_ctl_event;

typedef enum vp_ctl_action {
    VP_CTL_NONE,
    VP_CTL_START,              /* enable the activity kinds */
    VP_CTL_STOP,               /* disable them (and flush) */
} vp_ctl_action;

#define VP_CTL_MAX_THREADS 256  /* threads tracked for nvtx:NAME push/pop */
#define VP_CTL_MAX_DEPTH 64     /* push depth tracked per thread */
#define VP_CTL_MAX_IDS 64       /* open start/end ranges of NAME */

typedef struct vp_ctl_thread {
    uint64_t tid;
    int depth;                 /* open pushes */
    uint64_t match;            /* bit d: the push at depth d is named NAME */
} vp_ctl_thread;

typedef struct vp_cap_ctl {
    vp_cap_range range;
    const char *name;          /* nvtx:NAME, borrowed from the config */
    int64_t delay_ns, duration_ns;
    int64_t t0;                /* init time */
    int64_t started_at;        /* first start, -1 before */
    int open;                  /* the range condition holds (always for ALL) */
    int capturing;
    int done;                  /* duration over or exit: never again */
    int overflow;              /* nvtx tracking ran out of room: logged once */
    vp_ctl_thread threads[VP_CTL_MAX_THREADS];
    int nthreads;
    uint64_t ids[VP_CTL_MAX_IDS];
    int nids;
    int named_open;            /* ranges named NAME open now, all threads */
} vp_cap_ctl;

/* Starts the machine at time now; returns VP_CTL_START when capture
 * begins at once (range all, no delay). */
vp_ctl_action vp_cap_ctl_init(vp_cap_ctl *ctl, const vp_cap_config *c, int64_t now);

/* Feeds one event at time now. tid is the thread (NVTX events), id the
 * start/end range id (NVTX_PUSH of nvtxRangeStart, NVTX_END; 0 for
 * push/pop), name the range's message (NVTX_PUSH; NULL when it has none).
 * Returns what the caller must do to the recording. */
vp_ctl_action vp_cap_ctl_event(vp_cap_ctl *ctl, vp_ctl_event ev, int64_t now, uint64_t tid,
                               uint64_t id, const char *name);

/* The next time a VP_CTL_TICK can change something, or INT64_MAX. */
int64_t vp_cap_ctl_deadline(const vp_cap_ctl *ctl);

/* ---- pool: bounded activity buffers and their consumer thread --------- */

typedef struct vp_cap_pool vp_cap_pool;

/* Consumes one full buffer (valid bytes of records), on the pool's thread. */
typedef void (*vp_cap_consume_fn)(void *ctx, uint8_t *buf, size_t valid);
/* Called on the pool's thread at least every tick_ms, between buffers. */
typedef void (*vp_cap_tick_fn)(void *ctx);

/* At most max_bytes / buf_size buffers (at least 2) of buf_size bytes,
 * 8-byte aligned, allocated on demand and reused. Starts the thread.
 * NULL when the thread cannot be started. */
vp_cap_pool *vp_cap_pool_new(size_t buf_size, size_t max_bytes, vp_cap_consume_fn consume,
                             vp_cap_tick_fn tick, void *ctx, int tick_ms);

/* An empty buffer, or NULL when all are in use for wait_ms (0: do not
 * wait) -- the caller then drops records, and the pool counts the
 * refusal. Any thread but the pool's. */
uint8_t *vp_cap_pool_get(vp_cap_pool *p, size_t *size, int wait_ms);

/* Hands a full buffer to the thread (valid 0: straight back to the free
 * list). Any thread; never blocks on the consumer. */
void vp_cap_pool_put(vp_cap_pool *p, uint8_t *buf, size_t valid);

/* Waits until every buffer handed over so far has been consumed. Not from
 * the pool's thread. */
void vp_cap_pool_drain(vp_cap_pool *p);

typedef struct vp_cap_pool_stats {
    size_t buffers;            /* allocated now */
    size_t max_buffers;        /* the bound */
    uint64_t consumed;         /* buffers consumed */
    uint64_t refused;          /* requests refused: pool exhausted */
} vp_cap_pool_stats;

void vp_cap_pool_stats_get(vp_cap_pool *p, vp_cap_pool_stats *st);

/* Drains, stops the thread and frees everything. NULL is accepted. */
void vp_cap_pool_free(vp_cap_pool *p);

/* ---- records: what the shim decodes from CUPTI's structs -------------- */

#define VP_CAP_NONE32 UINT32_MAX  /* an absent stream, event or device */

typedef struct vp_cap_kernel {
    uint64_t start, end;
    uint32_t device, context, stream, correlation;
    int32_t grid[3], block[3];
    uint32_t registers;        /* per thread */
    int32_t static_shared, dynamic_shared;  /* bytes per block */
    uint32_t graph_id;         /* 0 = not launched from a graph */
    uint64_t graph_node;
    const char *name;          /* as CUPTI gives it (mangled); NULL = unknown */
} vp_cap_kernel;

typedef struct vp_cap_memcpy {
    uint64_t start, end, bytes;
    uint32_t device, context, stream, correlation;
    uint8_t copy_kind;         /* CUpti_ActivityMemcpyKind: 1 HtoD ... 10 PtoP */
    uint8_t src_kind, dst_kind;  /* CUpti_ActivityMemoryKind: 1 Pageable ... */
} vp_cap_memcpy;

typedef struct vp_cap_memset {
    uint64_t start, end, bytes;
    uint32_t device, context, stream, correlation;
    uint16_t mem_kind;         /* CUpti_ActivityMemoryKind */
} vp_cap_memset;

typedef struct vp_cap_api {
    uint64_t start, end;
    uint32_t pid, tid, correlation, cbid;
    int driver;                /* 1 = driver API, 0 = runtime API */
} vp_cap_api;

typedef struct vp_cap_sync {
    uint64_t start, end;
    uint32_t context, stream;  /* stream VP_CAP_NONE32: not a stream sync */
    uint32_t correlation;
    uint32_t event;            /* CUDA event id, VP_CAP_NONE32 when none */
    int type;                  /* CUpti_ActivitySynchronizationType: 1 event, 2 stream wait
                                * event, 3 stream, 4 context */
} vp_cap_sync;

typedef struct vp_cap_overhead {
    uint64_t start, end;
    uint32_t kind;             /* CUpti_ActivityOverheadKind */
    uint32_t tid;              /* thread when the overhead is a thread's, else 0 */
} vp_cap_overhead;

enum { VP_MARK_INSTANT = 1, VP_MARK_START = 2, VP_MARK_END = 4 };  /* CUPTI's flag values */

typedef struct vp_cap_marker {
    uint64_t ts;
    uint32_t id;               /* pairs a START with its END */
    uint32_t pid, tid;
    unsigned flags;            /* VP_MARK_* */
    const char *name;          /* START and INSTANT; NULL on END */
    const char *domain;        /* NULL = the default domain */
} vp_cap_marker;

typedef struct vp_cap_device {
    uint32_t id;
    const char *name;
    uint64_t total_mem;
    uint32_t cc_major, cc_minor;
    uint32_t max_threads_per_block, max_threads_per_sm;
    uint32_t regs_per_block, regs_per_sm;
    uint32_t warp_size;
    uint32_t shared_per_block, shared_per_sm, shared_per_block_optin;
    uint32_t num_sms;
} vp_cap_device;

/* ---- writer: records to a Kineto-compatible Chrome trace -------------- */

typedef struct vp_cap_writer vp_cap_writer;

/* The name of a runtime (driver 0) or driver (1) API callback id as CUPTI
 * spells it ("cudaLaunchKernel_v7000"), or NULL. */
typedef const char *(*vp_cap_api_name_fn)(void *ctx, int driver, uint32_t cbid);
/* A demangled copy of a kernel name (malloc'ed), or NULL to keep it. */
typedef char *(*vp_cap_demangle_fn)(const char *mangled);

typedef struct vp_cap_meta {
    int64_t base_ns;           /* baseTimeNanoseconds: vp_cap_base_time(start) */
    uint32_t pid;              /* the host process */
    const char *process_name;  /* its command name (/proc/self/comm) */
    long rank, world_size;     /* -1 = unknown: no distributedInfo */
    vp_cap_api_name_fn api_name;
    void *api_name_ctx;
    vp_cap_demangle_fn demangle;
} vp_cap_meta;

/* Kineto's time base: the start floored to 7,889,238-second periods, so
 * relative microsecond times keep their nanoseconds exact in a double. */
int64_t vp_cap_base_time(int64_t start_ns);

/* Kineto's label of an API callback name: a trailing "_v" and four or
 * more digits removed ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel"),
 * "_v2" kept. Appended to out. */
void vp_cap_api_label(const char *name, vp_buf *out);

/* 1 when an API call of that label launches GPU work that the trace links
 * to it with an ac2g flow: kernel and graph launches, memcpy, memset. */
int vp_cap_api_launches(const char *label);

/* Demangles with the C++ runtime's __cxa_demangle when the process has
 * one loaded, else returns NULL. */
char *vp_cap_demangle(const char *mangled);

/* Writes the trace's opening (schemaVersion, distributedInfo,
 * displayTimeUnit, baseTimeNanoseconds, "traceEvents":[) to s, which the
 * writer then owns until vp_cap_writer_finish. */
vp_cap_writer *vp_cap_writer_open(vp_sink *s, const vp_cap_meta *meta);

/* One record each: its event (and flow end) written at once, in arrival
 * order; nothing is held but names and the sets of rows seen. */
void vp_cap_write_kernel(vp_cap_writer *w, const vp_cap_kernel *k);
void vp_cap_write_memcpy(vp_cap_writer *w, const vp_cap_memcpy *m);
void vp_cap_write_memset(vp_cap_writer *w, const vp_cap_memset *m);
void vp_cap_write_api(vp_cap_writer *w, const vp_cap_api *a);
void vp_cap_write_sync(vp_cap_writer *w, const vp_cap_sync *s);
void vp_cap_write_overhead(vp_cap_writer *w, const vp_cap_overhead *o);
/* A START is held (by id) until its END, then written as one slice; an
 * END without a START is counted and dropped. */
void vp_cap_write_marker(vp_cap_writer *w, const vp_cap_marker *m);
/* Device properties and context-to-device links: kept for the end. */
void vp_cap_add_device(vp_cap_writer *w, const vp_cap_device *d);
void vp_cap_add_context(vp_cap_writer *w, uint32_t context, uint32_t device);
/* A host thread's name ("pt_main_thread"), for its thread_name row. */
void vp_cap_add_thread_name(vp_cap_writer *w, uint32_t tid, const char *name);

/* The host threads seen so far (API and marker records), for the caller
 * to name; returns the count and sets *tids (valid until the next write). */
size_t vp_cap_threads(const vp_cap_writer *w, const uint32_t **tids);

typedef struct vp_cap_stats {
    uint64_t dropped;          /* records CUPTI dropped (cuptiActivityGetNumDroppedRecords) */
    uint64_t refused;          /* buffer requests refused: pool full */
    const char *capture;       /* "all", "cudaProfilerApi", "nvtx:NAME" */
    const char *versions[8];   /* top-level string metadata: key, value, ..., NULL */
} vp_cap_stats;

/* Writes the metadata events (process and thread names, labels, sort
 * indexes), unclosed NVTX ranges (as slices ending at the last time seen),
 * "Record Window End", deviceProperties, the version strings, the
 * vprofRecord object (records written, dropped, capture range) and
 * traceName; then closes the sink. Frees w. Returns 0, or -1 with err. */
int vp_cap_writer_finish(vp_cap_writer *w, const vp_cap_stats *st, const char *trace_name,
                         vp_error *err);

/* Events written so far (the metadata events not counted). */
uint64_t vp_cap_writer_events(const vp_cap_writer *w);

/* Frees w and aborts its sink (no file). NULL is accepted. */
void vp_cap_writer_abort(vp_cap_writer *w);

#endif
