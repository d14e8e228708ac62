/* libvprof-cupti.so: the CUPTI glue of `vprof record`.
 *
 * The CUDA driver loads this library while it initialises when
 * CUDA_INJECTION64_PATH names it, and calls InitializeInjection once. We
 * read the VPROF_* configuration, open the trace file, hand CUPTI buffers
 * from a bounded pool, and turn the records of each full buffer into
 * trace events on the pool's thread (vprof/capture.h has all of that, free
 * of CUDA); this file only translates CUPTI's structs and calls.
 *
 * Rule one: never harm the workload. Any failure says why on stderr, once,
 * and steps aside; InitializeInjection always reports success so that the
 * driver carries on; no callback blocks on our work; signal handlers are
 * installed only where the program left the default. */
/* dladdr and Dl_info. */
#define _GNU_SOURCE 1
#include <cupti.h>
#include <generated_nvtx_meta.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vprof/capture.h"

#define EXPORT __attribute__((visibility("default")))

/* The record structs of the CUPTI we are built against; only the fields
 * every version shares (the stable prefix, reference/cupti.md §3) are
 * read, and records are walked with cuptiActivityGetNextRecord, never by
 * sizeof. */
#if CUPTI_API_VERSION >= 130100
typedef CUpti_ActivityKernel11 kernel_rec;
#elif CUDA_VERSION >= 13000
typedef CUpti_ActivityKernel10 kernel_rec;
#elif CUDA_VERSION >= 12000
typedef CUpti_ActivityKernel9 kernel_rec;
#else
typedef CUpti_ActivityKernel4 kernel_rec;
#endif
#if CUDA_VERSION >= 13000
typedef CUpti_ActivityMemcpy6 memcpy_rec;
typedef CUpti_ActivityMemcpyPtoP4 p2p_rec;
typedef CUpti_ActivitySynchronization2 sync_rec;
typedef CUpti_ActivityOverhead3 overhead_rec;
typedef CUpti_ActivityDevice5 device_rec;
typedef CUpti_ActivityContext3 context_rec;
#else
typedef CUpti_ActivityMemcpy5 memcpy_rec;
typedef CUpti_ActivityMemcpyPtoP4 p2p_rec;
typedef CUpti_ActivitySynchronization sync_rec;
typedef CUpti_ActivityOverhead overhead_rec;
typedef CUpti_ActivityDevice4 device_rec;
typedef CUpti_ActivityContext context_rec;
#endif
typedef CUpti_ActivityMemset4 memset_rec;
typedef CUpti_ActivityMarker2 marker_rec;

/* Declining a buffer request is safe from CUPTI API version 27 (12.9). */
#define CUPTI_CAN_DECLINE 27
/* CUDA 13.0 GA's CUPTI crashed in NVTX injection (NVIDIA/NVTX#125);
 * 13.0 Update 1 says 130001. */
#define CUPTI_NVTX_BROKEN 130000

static struct {
    pthread_mutex_t mu;        /* init, shutdown, the writer and the control */
    int initialised;
    int active;                /* recording set up: callbacks registered */
    int finished;
    pid_t owner;               /* the process that opened the file */
    uint32_t cupti_version;
    vp_cap_config cfg;
    long rank, world;
    char *path;
    vp_cap_pool *pool;
    vp_cap_writer *writer;
    vp_cap_ctl ctl;
    unsigned enabled;          /* the VP_CAP_* kinds enabled now */
    CUpti_SubscriberHandle sub;
    int subscribed;
    atomic_ullong dropped;
    uint64_t clock_skew_init;  /* |cuptiGetTimestamp - CLOCK_REALTIME| at init, ns */
    sem_t sig_sem;             /* posted by the signal handler */
    volatile sig_atomic_t sig;
    uint32_t self_tid;         /* the pool thread, whose API calls are ours */
} g = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "vprof-cupti[%ld]: %s\n", (long)getpid(), msg);
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    if (g.cfg.quiet)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "vprof-cupti[%ld]: %s\n", (long)getpid(), msg);
}

static const char *cupti_error(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *env_lookup(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

/* ---- activity kinds ---- */

static const struct {
    unsigned bit;
    CUpti_ActivityKind kind;
} kind_map[] = {
    {VP_CAP_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
    {VP_CAP_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY},
    {VP_CAP_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2},
    {VP_CAP_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET},
    {VP_CAP_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
    {VP_CAP_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME},
    {VP_CAP_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER},
    {VP_CAP_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD},
    {VP_CAP_NVTX, CUPTI_ACTIVITY_KIND_MARKER},
};
#define NKINDMAP (sizeof kind_map / sizeof kind_map[0])

/* Enables or disables the configured kinds; returns the kinds that could
 * not be enabled, having said which and why once. */
static unsigned set_kinds(int on)
{
    unsigned failed = 0;
    CUptiResult why = CUPTI_SUCCESS;
    for (size_t i = 0; i < NKINDMAP; i++) {
        if (!(g.cfg.kinds & kind_map[i].bit))
            continue;
        CUptiResult r = on ? cuptiActivityEnable(kind_map[i].kind) : cuptiActivityDisable(kind_map[i].kind);
        if (r != CUPTI_SUCCESS && on) {
            failed |= kind_map[i].bit;
            why = r;
        }
    }
    g.enabled = on ? g.cfg.kinds & ~failed : 0;
    if (failed && g.enabled) {
        vp_buf names = {0};
        vp_cap_kinds_text(failed, &names);
        say("cannot record %s: %s; recording the rest", names.data, cupti_error(why));
        vp_buf_free(&names);
    } else if (failed) {
        say("CUPTI cannot record in this process: %s (no GPU or driver visible?)", cupti_error(why));
    }
    return failed;
}

/* Applies what the control decided; g.mu held. */
static void apply(vp_ctl_action a)
{
    if (a == VP_CTL_START) {
        set_kinds(1);
        if (g.cfg.range != VP_RANGE_ALL || g.cfg.delay_ns)
            note("capture started");
    } else if (a == VP_CTL_STOP) {
        set_kinds(0);
        /* Hand over what was recorded up to the stop; not forced, so the
         * records of work still running arrive with the next flush. */
        cuptiActivityFlushAll(0);
        note("capture stopped");
    }
}

/* ---- records ---- */

static void decode(CUpti_Activity *r)
{
    vp_cap_writer *w = g.writer;
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const kernel_rec *k = (const kernel_rec *)r;
        vp_cap_kernel x = {
            .start = k->start, .end = k->end, .device = k->deviceId, .context = k->contextId,
            .stream = k->streamId, .correlation = k->correlationId,
            .grid = {k->gridX, k->gridY, k->gridZ}, .block = {k->blockX, k->blockY, k->blockZ},
            .registers = k->registersPerThread, .static_shared = k->staticSharedMemory,
            .dynamic_shared = k->dynamicSharedMemory, .name = k->name,
#if CUDA_VERSION >= 11000
            .graph_id = k->graphId, .graph_node = k->graphNodeId,
#endif
        };
        vp_cap_add_context(w, k->contextId, k->deviceId);
        vp_cap_write_kernel(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const memcpy_rec *m = (const memcpy_rec *)r;
        vp_cap_memcpy x = {
            .start = m->start, .end = m->end, .bytes = m->bytes, .device = m->deviceId,
            .context = m->contextId, .stream = m->streamId, .correlation = m->correlationId,
            .copy_kind = m->copyKind, .src_kind = m->srcKind, .dst_kind = m->dstKind,
        };
        vp_cap_add_context(w, m->contextId, m->deviceId);
        vp_cap_write_memcpy(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const p2p_rec *m = (const p2p_rec *)r;
        vp_cap_memcpy x = {
            .start = m->start, .end = m->end, .bytes = m->bytes, .device = m->deviceId,
            .context = m->contextId, .stream = m->streamId, .correlation = m->correlationId,
            .copy_kind = m->copyKind, .src_kind = m->srcKind, .dst_kind = m->dstKind,
        };
        vp_cap_write_memcpy(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const memset_rec *m = (const memset_rec *)r;
        vp_cap_memset x = {
            .start = m->start, .end = m->end, .bytes = m->bytes, .device = m->deviceId,
            .context = m->contextId, .stream = m->streamId, .correlation = m->correlationId,
            .mem_kind = m->memoryKind,
        };
        vp_cap_add_context(w, m->contextId, m->deviceId);
        vp_cap_write_memset(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;
        if (a->threadId == g.self_tid)
            break;  /* our own flushes and queries are not the workload's */
        vp_cap_api x = {
            .start = a->start, .end = a->end, .pid = a->processId, .tid = a->threadId,
            .correlation = a->correlationId, .cbid = a->cbid,
            .driver = r->kind == CUPTI_ACTIVITY_KIND_DRIVER,
        };
        vp_cap_write_api(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const sync_rec *s = (const sync_rec *)r;
        vp_cap_sync x = {
            .start = s->start, .end = s->end, .context = s->contextId,
            .stream = s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? VP_CAP_NONE32 : s->streamId,
            .correlation = s->correlationId,
            .event = s->cudaEventId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? VP_CAP_NONE32 : s->cudaEventId,
            .type = (int)s->type,
        };
        vp_cap_write_sync(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const overhead_rec *o = (const overhead_rec *)r;
        vp_cap_overhead x = {
            .start = o->start, .end = o->end, .kind = (uint32_t)o->overheadKind,
            .tid = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o->objectId.pt.threadId : 0,
        };
        vp_cap_write_overhead(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        const marker_rec *m = (const marker_rec *)r;
        vp_cap_marker x = {
            .ts = m->timestamp, .id = m->id, .flags = (unsigned)m->flags & 7u,
            .pid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.processId : (uint32_t)getpid(),
            .tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0,
            .name = m->name, .domain = m->domain,
        };
        vp_cap_write_marker(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
        const device_rec *d = (const device_rec *)r;
        vp_cap_device x = {
            .id = d->id, .name = d->name, .total_mem = d->globalMemorySize,
            .cc_major = d->computeCapabilityMajor, .cc_minor = d->computeCapabilityMinor,
            .max_threads_per_block = d->maxThreadsPerBlock,
            .max_threads_per_sm = d->maxWarpsPerMultiprocessor * d->numThreadsPerWarp,
            .regs_per_block = d->maxRegistersPerBlock, .regs_per_sm = d->maxRegistersPerMultiprocessor,
            .warp_size = d->numThreadsPerWarp, .shared_per_block = d->maxSharedMemoryPerBlock,
            .shared_per_sm = d->maxSharedMemoryPerMultiprocessor,
            /* CUPTI's device record has no opt-in limit; the per-SM one
             * bounds it and is what Kineto's consumers compare with. */
            .shared_per_block_optin = d->maxSharedMemoryPerBlock,
            .num_sms = d->numMultiprocessors,
        };
        vp_cap_add_device(w, &x);
        break;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
        const context_rec *c = (const context_rec *)r;
        vp_cap_add_context(w, c->contextId, c->deviceId);
        break;
    }
    default:
        break;
    }
}

static void consume(void *ctx, uint8_t *buf, size_t valid)
{
    (void)ctx;
    if (!g.self_tid)
        g.self_tid = (uint32_t)syscall(SYS_gettid);
    pthread_mutex_lock(&g.mu);
    if (g.writer) {
        CUpti_Activity *r = NULL;
        while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS)
            decode(r);
    }
    pthread_mutex_unlock(&g.mu);
}

/* On the pool's thread, between buffers: the delay and duration. */
static void tick(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&g.mu);
    if (g.active && !g.finished) {
        int64_t now = realtime_ns();
        if (now >= vp_cap_ctl_deadline(&g.ctl))
            apply(vp_cap_ctl_event(&g.ctl, VP_CTL_TICK, now, 0, 0, NULL));
    }
    pthread_mutex_unlock(&g.mu);
}

static void CUPTIAPI on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    *buffer = vp_cap_pool_get(g.pool, size, g.cupti_version >= CUPTI_CAN_DECLINE ? 0 : 1000);
}

static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)size;
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        atomic_fetch_add(&g.dropped, (unsigned long long)dropped);
    vp_cap_pool_put(g.pool, buffer, valid);
}

static const char *api_name(void *ctx, int driver, uint32_t cbid)
{
    (void)ctx;
    const char *name = NULL;
    if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) !=
        CUPTI_SUCCESS)
        return NULL;
    return name;
}

/* ---- capture ranges: profiler API and NVTX callbacks ---- */

static const char *nvtx_message(const nvtxEventAttributes_t *a)
{
    if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII)
        return a->message.ascii;
    return NULL;
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    (void)ud;
    vp_ctl_event ev;
    uint64_t tid = 0, id = 0;
    const char *name = NULL;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *cd = data;
        /* Start once the call has returned, stop as it is entered: the
         * range holds exactly the work between the two calls. */
        int start = (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
                    (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
        if (start && cd->callbackSite != CUPTI_API_EXIT)
            return;
        if (!start && cd->callbackSite != CUPTI_API_ENTER)
            return;
        ev = start ? VP_CTL_PROFILER_START : VP_CTL_PROFILER_STOP;
    } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
        const CUpti_NvtxData *nd = data;
        tid = (uint64_t)syscall(SYS_gettid);
        switch (cbid) {
        case CUPTI_CBID_NVTX_nvtxRangePushA:
            ev = VP_CTL_NVTX_PUSH;
            name = ((const nvtxRangePushA_params *)nd->functionParams)->message;
            break;
        case CUPTI_CBID_NVTX_nvtxRangePushEx:
            ev = VP_CTL_NVTX_PUSH;
            name = nvtx_message(((const nvtxRangePushEx_params *)nd->functionParams)->eventAttrib);
            break;
        case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
            ev = VP_CTL_NVTX_PUSH;
            name = nvtx_message(((const nvtxDomainRangePushEx_params *)nd->functionParams)->core.eventAttrib);
            break;
        case CUPTI_CBID_NVTX_nvtxRangePop:
        case CUPTI_CBID_NVTX_nvtxDomainRangePop:
            ev = VP_CTL_NVTX_POP;
            break;
        case CUPTI_CBID_NVTX_nvtxRangeStartA:
        case CUPTI_CBID_NVTX_nvtxRangeStartEx:
        case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
            ev = VP_CTL_NVTX_PUSH;
            if (!nd->functionReturnValue)
                return;
            id = *(const nvtxRangeId_t *)nd->functionReturnValue;
            if (cbid == CUPTI_CBID_NVTX_nvtxRangeStartA)
                name = ((const nvtxRangeStartA_params *)nd->functionParams)->message;
            else if (cbid == CUPTI_CBID_NVTX_nvtxRangeStartEx)
                name = nvtx_message(((const nvtxRangeStartEx_params *)nd->functionParams)->eventAttrib);
            else
                name = nvtx_message(((const nvtxDomainRangeStartEx_params *)nd->functionParams)->core.eventAttrib);
            if (!id)
                return;
            break;
        case CUPTI_CBID_NVTX_nvtxRangeEnd:
            ev = VP_CTL_NVTX_END;
            id = ((const nvtxRangeEnd_params *)nd->functionParams)->id;
            break;
        case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
            ev = VP_CTL_NVTX_END;
            id = ((const nvtxDomainRangeEnd_params *)nd->functionParams)->core.id;
            break;
        default:
            return;
        }
    } else {
        return;
    }
    pthread_mutex_lock(&g.mu);
    if (g.active && !g.finished)
        apply(vp_cap_ctl_event(&g.ctl, ev, realtime_ns(), tid, id, name));
    pthread_mutex_unlock(&g.mu);
}

static int subscribe_ranges(void)
{
    CUptiResult r = cuptiSubscribe(&g.sub, on_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        say("cannot subscribe to CUPTI callbacks (%s): another CUPTI client (torch.profiler, Nsight) "
            "is in this process, and the capture range needs callbacks; not recording",
            cupti_error(r));
        return -1;
    }
    g.subscribed = 1;
    if (g.cfg.range == VP_RANGE_PROFILER_API) {
        cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
        cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
        cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
        cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
    } else {
        static const CUpti_CallbackId ids[] = {
            CUPTI_CBID_NVTX_nvtxRangePushA,        CUPTI_CBID_NVTX_nvtxRangePushEx,
            CUPTI_CBID_NVTX_nvtxDomainRangePushEx, CUPTI_CBID_NVTX_nvtxRangePop,
            CUPTI_CBID_NVTX_nvtxDomainRangePop,    CUPTI_CBID_NVTX_nvtxRangeStartA,
            CUPTI_CBID_NVTX_nvtxRangeStartEx,      CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,
            CUPTI_CBID_NVTX_nvtxRangeEnd,          CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
        };
        for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
            cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_NVTX, ids[i]);
    }
    return 0;
}

/* ---- the end: exit, signals, fork ---- */

static void read_comm(const char *path, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(out, (int)n, f))
        out[strcspn(out, "\n")] = 0;
    fclose(f);
}

static void finish(const char *why)
{
    pthread_mutex_lock(&g.mu);
    if (!g.active || g.finished || getpid() != g.owner) {
        pthread_mutex_unlock(&g.mu);
        return;
    }
    g.finished = 1;
    if (g.ctl.capturing)
        set_kinds(0);
    g.ctl.capturing = 0;
    pthread_mutex_unlock(&g.mu);
    /* Forced: buffers with records of unfinished work come back too. */
    CUptiResult fr = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (fr != CUPTI_SUCCESS)
        say("final flush failed: %s; the trace may miss its last records", cupti_error(fr));
    vp_cap_pool_drain(g.pool);

    pthread_mutex_lock(&g.mu);
    const uint32_t *tids;
    size_t n = vp_cap_threads(g.writer, &tids);
    for (size_t i = 0; i < n; i++) {
        char path[64], comm[64];
        snprintf(path, sizeof path, "/proc/self/task/%u/comm", tids[i]);
        read_comm(path, comm, sizeof comm);
        if (comm[0])
            vp_cap_add_thread_name(g.writer, tids[i], comm);
    }
    vp_cap_pool_stats ps;
    vp_cap_pool_stats_get(g.pool, &ps);
    uint64_t dropped = atomic_load(&g.dropped);
    uint64_t skew = 0, ts = 0;
    if (cuptiGetTimestamp(&ts) == CUPTI_SUCCESS)
        skew = (uint64_t)llabs((long long)((int64_t)ts - realtime_ns()));
    char version[32], skews[64], skew0[32];
    snprintf(version, sizeof version, "%u", g.cupti_version);
    snprintf(skew0, sizeof skew0, "%llu", (unsigned long long)g.clock_skew_init);
    snprintf(skews, sizeof skews, "%llu", (unsigned long long)skew);
    vp_buf capture = {0};
    vp_cap_range_text(&g.cfg, &capture);
    vp_cap_stats st = {
        .dropped = dropped, .refused = ps.refused, .capture = vp_buf_cstr(&capture),
        .versions = {"cupti_version", version, "vprof_clock_skew_init_ns", skew0, "vprof_clock_skew_exit_ns",
                     skews, NULL, NULL},
    };
    uint64_t events = vp_cap_writer_events(g.writer);
    vp_error err = {0};
    int rc = vp_cap_writer_finish(g.writer, &st, g.path, &err);
    g.writer = NULL;
    pthread_mutex_unlock(&g.mu);
    vp_buf_free(&capture);
    if (rc != 0) {
        say("%s", err.msg);
        return;
    }
    note("wrote %s (%llu events%s%s)", g.path, (unsigned long long)events, why ? ", " : "", why ? why : "");
    if (dropped || ps.refused)
        say("warning: CUPTI dropped %llu records (%llu buffer requests refused: the pool of %zu x %zu bytes "
            "was full; raise --buffer-pool)",
            (unsigned long long)dropped, (unsigned long long)ps.refused, ps.max_buffers, g.cfg.buffer_size);
}

static void at_exit(void)
{
    finish(NULL);
}

static void on_signal(int sig)
{
    g.sig = sig;
    sem_post(&g.sig_sem);  /* async-signal-safe; the work is done on a thread */
}

static void *signal_thread(void *arg)
{
    (void)arg;
    while (sem_wait(&g.sig_sem) != 0 && errno == EINTR)
        ;
    int sig = g.sig;
    finish(sig == SIGINT ? "interrupted" : "terminated");
    /* Then die of the signal, as the program would have. */
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    return NULL;
}

static void install_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    int any = 0;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* Only where the program kept the default: its own handler (Python's
         * KeyboardInterrupt) ends in exit(), which writes the trace. */
        if (sigaction(sigs[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue;
        if (!any && sem_init(&g.sig_sem, 0, 0) != 0)
            return;
        if (!any) {
            pthread_t t;
            sigset_t all, prev;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &prev);
            int r = pthread_create(&t, NULL, signal_thread, NULL);
            pthread_sigmask(SIG_SETMASK, &prev, NULL);
            if (r != 0)
                return;
            pthread_detach(t);
            any = 1;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* A forked child shares our file descriptor and temporary file but none of
 * our threads: it must never touch them. An exec'd child loads us afresh. */
static void after_fork_child(void)
{
    g.active = 0;
}

/* ---- setup ---- */

static vp_sink *open_sink(vp_error *err)
{
    /* vp_sink guards its temporary file with SIGINT/SIGTERM/SIGHUP
     * handlers: right for vprof, wrong inside someone else's program.
     * Keep the program's dispositions. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction old[3];
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], NULL, &old[i]);
    vp_sink_opts so = {.gzip = g.cfg.gzip, .level = VP_SINK_DEFAULT_LEVEL};
    vp_sink *s = vp_sink_open(g.path, &so, err);
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    return s;
}

static int setup(void)
{
    vp_error err = {0};
    vp_cap_config_init(&g.cfg);
    if (vp_cap_config_from_env(&g.cfg, env_lookup, NULL, &err) != 0) {
        say("%s; not recording", err.msg);
        return -1;
    }
    g.rank = vp_cap_env_rank(env_lookup, NULL);
    g.world = vp_cap_env_world_size(env_lookup, NULL);
    if (!vp_cap_rank_selected(&g.cfg, g.rank))
        return -1;  /* not one of --ranks: silently */
    if (cuptiGetVersion(&g.cupti_version) != CUPTI_SUCCESS)
        g.cupti_version = 0;
    cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);

    mkdir(g.cfg.output_dir, 0777);  /* vprof record made it; a launcher may not have */
    vp_buf path = {0};
    vp_cap_output_path(&g.cfg, g.rank, (long)getpid(), &path);
    g.path = (char *)vp_buf_cstr(&path);
    vp_sink *s = open_sink(&err);
    if (!s) {
        say("%s; not recording", err.msg);
        return -1;
    }
    char comm[64];
    read_comm("/proc/self/comm", comm, sizeof comm);
    int64_t now = realtime_ns();
    uint64_t cts = 0;
    if (cuptiGetTimestamp(&cts) == CUPTI_SUCCESS)
        g.clock_skew_init = (uint64_t)llabs((long long)((int64_t)cts - now));
    vp_cap_meta meta = {
        .base_ns = vp_cap_base_time(now), .pid = (uint32_t)getpid(), .process_name = comm,
        .rank = g.rank, .world_size = g.world, .api_name = api_name, .demangle = vp_cap_demangle,
    };
    g.writer = vp_cap_writer_open(s, &meta);
    g.pool = vp_cap_pool_new(g.cfg.buffer_size, g.cfg.pool_size, consume, tick, NULL, 100);
    if (!g.pool) {
        say("cannot start the buffer thread; not recording");
        vp_cap_writer_abort(g.writer);
        g.writer = NULL;
        return -1;
    }
    CUptiResult r = cuptiActivityRegisterCallbacks(on_request, on_complete);
    if (r != CUPTI_SUCCESS) {
        say("cannot register activity buffers: %s; not recording", cupti_error(r));
        goto fail;
    }
    if (g.cfg.range != VP_RANGE_ALL && subscribe_ranges() != 0)
        goto fail;
    /* Device properties and context-to-device links, whatever the range. */
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONTEXT);
    /* The calls Kineto drops as noise: frequent and launching nothing. */
    cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 0);
    cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute, 0);
    cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState, 0);
    cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent, 0);
    if (g.cfg.flush_ms > 0)
        cuptiActivityFlushPeriod((uint32_t)g.cfg.flush_ms);

    pthread_mutex_lock(&g.mu);
    g.owner = getpid();
    g.active = 1;
    apply(vp_cap_ctl_init(&g.ctl, &g.cfg, now));
    if (g.ctl.capturing && !g.enabled) {
        /* Nothing can be recorded: step aside rather than write an empty trace. */
        g.active = 0;
        pthread_mutex_unlock(&g.mu);
        say("not recording");
        goto fail;
    }
    pthread_mutex_unlock(&g.mu);
    atexit(at_exit);
    pthread_atfork(NULL, NULL, after_fork_child);
    install_signals();
    note("recording to %s", g.path);
    return 0;
fail:
    if (g.subscribed)
        cuptiUnsubscribe(g.sub);
    cuptiActivityFlushAll(0);
    vp_cap_writer_abort(g.writer);
    g.writer = NULL;
    return -1;
}

EXPORT int InitializeInjection(void)
{
    pthread_mutex_lock(&g.mu);
    int again = g.initialised;
    g.initialised = 1;
    pthread_mutex_unlock(&g.mu);
    if (!again)
        setup();
    /* Success whatever happened: a failed profiler must not fail CUDA. */
    return 1;
}

/* NVTX loads the library named by NVTX_INJECTION64_PATH and calls this;
 * `vprof record --nvtx` names us, and we hand over to CUPTI's own NVTX
 * injection (that is how CUPTI sees markers), refusing the CUPTI release
 * that crashed in it. */
EXPORT int InitializeInjectionNvtx2(void *get_export_table)
{
    uint32_t v = 0;
    if (cuptiGetVersion(&v) == CUPTI_SUCCESS && v == CUPTI_NVTX_BROKEN && !getenv("VPROF_NVTX_FORCE")) {
        say("NVTX capture is off: CUPTI API version %u (CUDA 13.0.0) crashes in NVTX injection "
            "(NVIDIA/NVTX#125); update CUDA, or set VPROF_NVTX_FORCE=1 to try anyway",
            v);
        return 0;
    }
    Dl_info info;
    void *sym = (void *)cuptiGetVersion;
    if (!dladdr(sym, &info) || !info.dli_fname) {
        say("cannot find libcupti for NVTX injection; NVTX capture is off");
        return 0;
    }
    void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    void *fn = h ? dlsym(h, "InitializeInjectionNvtx2") : NULL;
    if (!fn) {
        say("%s has no InitializeInjectionNvtx2; NVTX capture is off", info.dli_fname);
        return 0;
    }
    int (*init)(void *);
    memcpy(&init, &fn, sizeof init);
    return init(get_export_table);
}
