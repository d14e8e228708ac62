/* Activity records to a Kineto-compatible Chrome trace (see
 * vprof/capture.h and docs/record.md for the layout).
 *
 * The writer streams: each record becomes its event (and, for GPU work and
 * the API calls that launch it, an ac2g flow end) the moment it arrives,
 * so memory does not grow with the length of the run. Flows need no join:
 * the start is written with the API call and the end with the GPU record,
 * both keyed by the correlation id, in whatever order they come. What is
 * kept is small and bounded by the program, not the run: API labels,
 * demangled kernel names, the rows seen (for their names and sort
 * indexes), device properties, and NVTX ranges still open. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/capture.h"
#include "vprof/trace_writer.h"

/* Kineto's sort indexes and row offsets (reference/chrome-trace.md §6). */
#define GPU_SORT_BASE 5000000
#define OVERHEAD_SORT 0x100000A
#define SYNC_TID_OFFSET 1000000
#define NO_TID 0xFFFFFFFFu     /* tid -1: a device's rows without a stream */

typedef struct open_marker {
    uint32_t id, pid, tid;
    uint64_t ts;
    char *name, *domain;
} open_marker;

struct vp_cap_writer {
    vp_sink *sink;
    vp_cap_meta meta;
    char *process_name;
    vp_buf line;
    uint64_t events;
    int first;
    uint64_t min_ts, max_ts;     /* over all records, for metadata and the window end */
    char **labels[2];            /* API label per cbid: runtime, driver */
    size_t nlabels[2];
    vp_strmap *names;            /* kernel name -> its JSON string, quoted */
    vp_strmap *rows;             /* GPU (pid, tid) seen: 8-byte keys */
    vp_strmap *threads;          /* host tids seen: 4-byte keys -> name or NULL */
    uint32_t *tids;              /* the same, in arrival order, for vp_cap_threads */
    size_t ntids;
    int overhead_seen;
    vp_cap_device *devices;
    size_t ndevices;
    uint32_t (*contexts)[2];     /* context, device */
    size_t ncontexts;
    open_marker *markers;
    size_t nmarkers, cap_markers;
    uint64_t unmatched_markers;
};

int64_t vp_cap_base_time(int64_t start_ns)
{
    const int64_t period = INT64_C(7889238) * 1000000000;
    return start_ns - start_ns % period;
}

void vp_cap_api_label(const char *name, vp_buf *out)
{
    size_t n = strlen(name);
    size_t d = n;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (n - d >= 4 && d >= 2 && name[d - 1] == 'v' && name[d - 2] == '_')
        n = d - 2;
    vp_buf_append(out, name, n);
    vp_buf_cstr(out);
}

int vp_cap_api_launches(const char *label)
{
    static const char *const prefixes[] = {
        "cudaLaunch", "cuLaunch", "cudaGraphLaunch", "cuGraphLaunch", "cudaMemcpy",
        "cuMemcpy",   "cudaMemset", "cuMemset",    NULL,
    };
    for (const char *const *p = prefixes; *p; p++)
        if (strncmp(label, *p, strlen(*p)) == 0)
            return 1;
    return 0;
}

char *vp_cap_demangle(const char *mangled)
{
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    static demangle_fn fn;
    static int looked;
    if (!mangled || mangled[0] != '_' || mangled[1] != 'Z')
        return NULL;
    if (!looked) {
        /* The C++ runtime is in every process that has CUPTI loaded
         * (libcupti is C++); elsewhere names stay as they are. */
        void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
        memcpy(&fn, &sym, sizeof fn);
        looked = 1;
    }
    if (!fn)
        return NULL;
    int status = -1;
    char *out = fn(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

vp_cap_writer *vp_cap_writer_open(vp_sink *s, const vp_cap_meta *meta)
{
    vp_cap_writer *w = vp_calloc(1, sizeof *w);
    w->sink = s;
    w->meta = *meta;
    w->process_name = vp_strdup(meta->process_name ? meta->process_name : "");
    w->meta.process_name = w->process_name;
    w->first = 1;
    w->min_ts = UINT64_MAX;
    w->names = vp_strmap_new();
    w->rows = vp_strmap_new();
    w->threads = vp_strmap_new();
    vp_buf *b = &w->line;
    vp_buf_printf(b, "{\"schemaVersion\":1,");
    if (meta->rank >= 0) {
        vp_buf_printf(b, "\"distributedInfo\":{\"rank\":%ld", meta->rank);
        if (meta->world_size > 0)
            vp_buf_printf(b, ",\"world_size\":%ld", meta->world_size);
        vp_buf_printf(b, "},");
    }
    vp_buf_printf(b, "\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":%lld,\"traceEvents\":[",
                  (long long)meta->base_ns);
    vp_sink_write(s, b->data, b->len);
    b->len = 0;
    return w;
}

/* ---- small pieces of an event ---- */

static void begin(vp_cap_writer *w)
{
    w->line.len = 0;
    vp_buf_append(&w->line, w->first ? "\n" : ",\n", w->first ? 1 : 2);
    w->first = 0;
}

static void end(vp_cap_writer *w)
{
    vp_sink_write(w->sink, w->line.data, w->line.len);
    w->events++;
}

static void seen(vp_cap_writer *w, uint64_t start, uint64_t stop)
{
    if (start < w->min_ts)
        w->min_ts = start;
    if (stop > w->max_ts)
        w->max_ts = stop;
    if (start > w->max_ts)
        w->max_ts = start;
}

/* "ts":..,"dur":.. on the trace's base; Kineto clamps what precedes the
 * base to 0, and a record that ends before it starts lasts 0. */
static void times(vp_cap_writer *w, uint64_t start, uint64_t stop)
{
    int64_t rel = (int64_t)start - w->meta.base_ns;
    vp_buf_printf(&w->line, ",\"ts\":");
    vp_tw_us(&w->line, rel > 0 ? rel : 0);
    vp_buf_printf(&w->line, ",\"dur\":");
    vp_tw_us(&w->line, stop > start ? (int64_t)(stop - start) : 0);
    seen(w, start, stop);
}

static void ts_only(vp_cap_writer *w, uint64_t t)
{
    int64_t rel = (int64_t)t - w->meta.base_ns;
    vp_buf_printf(&w->line, ",\"ts\":");
    vp_tw_us(&w->line, rel > 0 ? rel : 0);
}

static void str(vp_buf *b, const char *s)
{
    vp_tw_string(b, s, strlen(s));
}

/* Signed JSON value of a tid: NO_TID is -1. */
static long long tid_value(uint32_t tid)
{
    return tid == NO_TID ? -1 : (long long)tid;
}

static void note_row(vp_cap_writer *w, uint32_t pid, uint32_t tid)
{
    unsigned char key[8];
    memcpy(key, &pid, 4);
    memcpy(key + 4, &tid, 4);
    int inserted;
    vp_strmap_upsert(w->rows, (const char *)key, sizeof key, &inserted);
}

static void note_thread(vp_cap_writer *w, uint32_t tid)
{
    int inserted;
    vp_strmap_upsert(w->threads, (const char *)&tid, sizeof tid, &inserted);
    if (inserted) {
        w->tids = vp_realloc(w->tids, (w->ntids + 1) * sizeof *w->tids);
        w->tids[w->ntids++] = tid;
    }
}

static void flow_end(vp_cap_writer *w, uint32_t corr, uint32_t pid, uint32_t tid, uint64_t ts)
{
    if (corr == 0)  /* device-launched work has no API call to come from */
        return;
    begin(w);
    vp_buf_printf(&w->line, "{\"ph\":\"f\",\"id\":%u,\"pid\":%u,\"tid\":%lld", corr, pid, tid_value(tid));
    ts_only(w, ts);
    vp_buf_printf(&w->line, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
    end(w);
}

static const vp_cap_device *device_of(const vp_cap_writer *w, uint32_t id)
{
    for (size_t i = 0; i < w->ndevices; i++)
        if (w->devices[i].id == id)
            return &w->devices[i];
    return NULL;
}

/* Six decimals (Kineto's occupancy hints) or up to 15 significant digits. */
static void double_text(vp_buf *b, double v, int fixed6)
{
    char tmp[64];
    if (fixed6)
        snprintf(tmp, sizeof tmp, "%.6f", v);
    else
        snprintf(tmp, sizeof tmp, "%.15g", v);
    vp_buf_append(b, tmp, strlen(tmp));
}

/* ---- records ---- */

static const char *kernel_name(vp_cap_writer *w, const char *mangled, size_t *len)
{
    if (!mangled)
        mangled = "unknown";
    size_t n = strlen(mangled);
    int inserted;
    void **slot = vp_strmap_upsert(w->names, mangled, n, &inserted);
    if (inserted) {
        char *dm = w->meta.demangle ? w->meta.demangle(mangled) : NULL;
        vp_buf b = {0};
        str(&b, dm ? dm : mangled);
        free(dm);
        *slot = (void *)vp_buf_cstr(&b);
    }
    *len = strlen(*slot);
    return *slot;
}

void vp_cap_write_kernel(vp_cap_writer *w, const vp_cap_kernel *k)
{
    size_t nlen;
    const char *name = kernel_name(w, k->name, &nlen);
    begin(w);
    vp_buf *b = &w->line;
    vp_buf_printf(b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":");
    vp_buf_append(b, name, nlen);
    vp_buf_printf(b, ",\"pid\":%u,\"tid\":%u", k->device, k->stream);
    times(w, k->start, k->end);
    vp_buf_printf(b,
                  ",\"args\":{\"device\":%u,\"context\":%u,\"stream\":%u,\"correlation\":%u,"
                  "\"registers per thread\":%u,\"shared memory\":%lld",
                  k->device, k->context, k->stream, k->correlation, k->registers,
                  (long long)k->static_shared + k->dynamic_shared);
    const vp_cap_device *d = device_of(w, k->device);
    if (d && d->num_sms > 0) {
        /* Kineto's two occupancy hints, from the launch shape alone. */
        double blocks = (double)k->grid[0] * k->grid[1] * k->grid[2];
        double threads = (double)k->block[0] * k->block[1] * k->block[2];
        uint32_t warp = d->warp_size ? d->warp_size : 32;
        double warps = blocks * (double)(((uint64_t)threads + warp - 1) / warp);
        vp_buf_printf(b, ",\"blocks per SM\":");
        double_text(b, blocks / d->num_sms, 1);
        vp_buf_printf(b, ",\"warps per SM\":");
        double_text(b, warps / d->num_sms, 1);
    }
    vp_buf_printf(b, ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d]", k->grid[0], k->grid[1], k->grid[2],
                  k->block[0], k->block[1], k->block[2]);
    if (k->graph_id)
        vp_buf_printf(b, ",\"graph id\":%u,\"graph node id\":%llu", k->graph_id,
                      (unsigned long long)k->graph_node);
    vp_buf_printf(b, "}}");
    end(w);
    note_row(w, k->device, k->stream);
    flow_end(w, k->correlation, k->device, k->stream, k->start);
}

static const char *memcpy_kind(unsigned k)
{
    static const char *const names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return k < sizeof names / sizeof names[0] ? names[k] : "Unknown";
}

static const char *memory_kind(unsigned k)
{
    static const char *const names[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                        "Array",   "Managed",  "Device Static", "Managed Static"};
    return k < sizeof names / sizeof names[0] ? names[k] : "Unknown";
}

/* The args every memcpy and memset carries, bandwidth in bytes/ns = GB/s. */
static void copy_args(vp_cap_writer *w, uint32_t device, uint32_t context, uint32_t stream,
                      uint32_t corr, uint64_t bytes, uint64_t start, uint64_t stop)
{
    vp_buf *b = &w->line;
    vp_buf_printf(b, ",\"args\":{\"device\":%u,\"context\":%u,\"stream\":%u,\"correlation\":%u,"
                     "\"bytes\":%llu,\"memory bandwidth (GB/s)\":",
                  device, context, stream, corr, (unsigned long long)bytes);
    uint64_t dur = stop > start ? stop - start : 0;
    if (dur)
        double_text(b, (double)bytes / (double)dur, 0);
    else
        vp_buf_putc(b, '0');
    vp_buf_printf(b, "}}");
}

/* A memcpy's or memset's event from its times on: the same fields for
 * both, as Kineto writes them, and the flow from its runtime call. */
static void copy_rest(vp_cap_writer *w, uint32_t device, uint32_t context, uint32_t stream,
                      uint32_t correlation, uint64_t bytes, uint64_t start, uint64_t stop)
{
    times(w, start, stop);
    copy_args(w, device, context, stream, correlation, bytes, start, stop);
    end(w);
    note_row(w, device, stream);
    flow_end(w, correlation, device, stream, start);
}

void vp_cap_write_memcpy(vp_cap_writer *w, const vp_cap_memcpy *m)
{
    begin(w);
    vp_buf_printf(&w->line, "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy %s (%s -> %s)\"",
                  memcpy_kind(m->copy_kind), memory_kind(m->src_kind), memory_kind(m->dst_kind));
    vp_buf_printf(&w->line, ",\"pid\":%u,\"tid\":%u", m->device, m->stream);
    copy_rest(w, m->device, m->context, m->stream, m->correlation, m->bytes, m->start, m->end);
}

void vp_cap_write_memset(vp_cap_writer *w, const vp_cap_memset *m)
{
    begin(w);
    vp_buf_printf(&w->line, "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (%s)\"",
                  memory_kind(m->mem_kind));
    vp_buf_printf(&w->line, ",\"pid\":%u,\"tid\":%u", m->device, m->stream);
    copy_rest(w, m->device, m->context, m->stream, m->correlation, m->bytes, m->start, m->end);
}

static const char *api_label(vp_cap_writer *w, int driver, uint32_t cbid)
{
    driver = driver ? 1 : 0;
    if (cbid >= w->nlabels[driver]) {
        size_t n = (size_t)cbid + 64;
        w->labels[driver] = vp_realloc(w->labels[driver], n * sizeof(char *));
        memset(w->labels[driver] + w->nlabels[driver], 0, (n - w->nlabels[driver]) * sizeof(char *));
        w->nlabels[driver] = n;
    }
    char **slot = &w->labels[driver][cbid];
    if (!*slot) {
        const char *raw = w->meta.api_name ? w->meta.api_name(w->meta.api_name_ctx, driver, cbid) : NULL;
        vp_buf b = {0};
        if (raw)
            vp_cap_api_label(raw, &b);
        else
            vp_buf_printf(&b, "%s API %u", driver ? "driver" : "runtime", cbid);
        *slot = (char *)vp_buf_cstr(&b);
    }
    return *slot;
}

void vp_cap_write_api(vp_cap_writer *w, const vp_cap_api *a)
{
    const char *label = api_label(w, a->driver, a->cbid);
    begin(w);
    vp_buf *b = &w->line;
    vp_buf_printf(b, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", a->driver ? "cuda_driver" : "cuda_runtime");
    str(b, label);
    vp_buf_printf(b, ",\"pid\":%u,\"tid\":%u", a->pid, a->tid);
    times(w, a->start, a->end);
    vp_buf_printf(b, ",\"args\":{\"cbid\":%u,\"correlation\":%u}}", a->cbid, a->correlation);
    end(w);
    note_thread(w, a->tid);
    if (a->correlation && vp_cap_api_launches(label)) {
        begin(w);
        vp_buf_printf(b, "{\"ph\":\"s\",\"id\":%u,\"pid\":%u,\"tid\":%u", a->correlation, a->pid, a->tid);
        ts_only(w, a->start);
        vp_buf_printf(b, ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
        end(w);
    }
}

static uint32_t context_device(const vp_cap_writer *w, uint32_t context)
{
    for (size_t i = 0; i < w->ncontexts; i++)
        if (w->contexts[i][0] == context)
            return w->contexts[i][1];
    return 0;  /* one device is the common case; docs/record.md says so */
}

void vp_cap_write_sync(vp_cap_writer *w, const vp_cap_sync *s)
{
    static const char *const names[] = {"Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync",
                                        "Context Sync"};
    const char *name = s->type >= 0 && s->type <= 4 ? names[s->type] : names[0];
    uint32_t device = context_device(w, s->context);
    int has_stream = s->stream != VP_CAP_NONE32;
    /* Kineto's rows: a stream sync on its own row beside the stream's
     * kernels (they overlap in time), a stream wait on the stream, the
     * rest on the device's row -1. */
    uint32_t tid = !has_stream ? NO_TID : s->type == 3 ? s->stream + SYNC_TID_OFFSET : s->stream;
    begin(w);
    vp_buf *b = &w->line;
    vp_buf_printf(b, "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"%s\",\"pid\":%u,\"tid\":%lld", name,
                  device, tid_value(tid));
    times(w, s->start, s->end);
    vp_buf_printf(b, ",\"args\":{\"cuda_sync_kind\":\"%s\"", name);
    if (s->event != VP_CAP_NONE32 && (s->type == 1 || s->type == 2))
        vp_buf_printf(b, ",\"wait_on_cuda_event_id\":%u", s->event);
    vp_buf_printf(b, ",\"stream\":%lld,\"correlation\":%u,\"device\":%u,\"context\":%u}}",
                  has_stream ? (long long)s->stream : -1LL, s->correlation, device, s->context);
    end(w);
    note_row(w, device, tid);
}

void vp_cap_write_overhead(vp_cap_writer *w, const vp_cap_overhead *o)
{
    static const char *const low[] = {"Unknown", "Driver Compiler"};
    static const char *const high[] = {NULL,
                                       "Buffer Flush",
                                       "Instrumentation",
                                       "Resource",
                                       "Runtime Triggered Module Loading",
                                       "Lazy Function Loading",
                                       "Command Buffer Full",
                                       "Activity Buffer Request",
                                       "UVM Activity Init"};
    const char *name = "Unknown";
    if (o->kind < 2)
        name = low[o->kind];
    else if ((o->kind & 0xFFFF) == 0 && (o->kind >> 16) < sizeof high / sizeof high[0])
        name = high[o->kind >> 16];
    begin(w);
    vp_buf_printf(&w->line, "{\"ph\":\"X\",\"cat\":\"overhead\",\"name\":\"%s\",\"pid\":-1,\"tid\":%u", name,
                  o->tid);
    times(w, o->start, o->end);
    vp_buf_printf(&w->line, "}");
    end(w);
    w->overhead_seen = 1;
}

static void marker_event(vp_cap_writer *w, const open_marker *m, uint64_t stop, int unclosed)
{
    begin(w);
    vp_buf *b = &w->line;
    vp_buf_printf(b, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":");
    str(b, m->name ? m->name : "");
    vp_buf_printf(b, ",\"pid\":%u,\"tid\":%u", m->pid, m->tid);
    times(w, m->ts, stop);
    if (m->domain || unclosed) {
        vp_buf_printf(b, ",\"args\":{");
        if (m->domain) {
            vp_buf_printf(b, "\"domain\":");
            str(b, m->domain);
        }
        if (unclosed)
            vp_buf_printf(b, "%s\"unclosed\":1", m->domain ? "," : "");
        vp_buf_putc(b, '}');
    }
    vp_buf_putc(b, '}');
    end(w);
    note_thread(w, m->tid);
}

void vp_cap_write_marker(vp_cap_writer *w, const vp_cap_marker *m)
{
    if (m->flags & VP_MARK_INSTANT) {
        begin(w);
        vp_buf *b = &w->line;
        vp_buf_printf(b, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"user_annotation\",\"name\":");
        str(b, m->name ? m->name : "");
        vp_buf_printf(b, ",\"pid\":%u,\"tid\":%u", m->pid, m->tid);
        ts_only(w, m->ts);
        seen(w, m->ts, m->ts);
        if (m->domain) {
            vp_buf_printf(b, ",\"args\":{\"domain\":");
            str(b, m->domain);
            vp_buf_putc(b, '}');
        }
        vp_buf_putc(b, '}');
        end(w);
        note_thread(w, m->tid);
        return;
    }
    if (m->flags & VP_MARK_START) {
        if (w->nmarkers == w->cap_markers) {
            w->cap_markers = w->cap_markers ? 2 * w->cap_markers : 16;
            w->markers = vp_realloc(w->markers, w->cap_markers * sizeof *w->markers);
        }
        open_marker *o = &w->markers[w->nmarkers++];
        o->id = m->id;
        o->pid = m->pid;
        o->tid = m->tid;
        o->ts = m->ts;
        o->name = vp_strdup(m->name ? m->name : "");
        o->domain = m->domain ? vp_strdup(m->domain) : NULL;
        seen(w, m->ts, m->ts);
        return;
    }
    if (m->flags & VP_MARK_END) {
        /* Search from the newest: ids are unique among open ranges, and a
         * push/pop stack closes the newest first. */
        for (size_t i = w->nmarkers; i-- > 0;) {
            if (w->markers[i].id != m->id)
                continue;
            open_marker o = w->markers[i];
            memmove(&w->markers[i], &w->markers[i + 1], (w->nmarkers - i - 1) * sizeof o);
            w->nmarkers--;
            marker_event(w, &o, m->ts, 0);
            free(o.name);
            free(o.domain);
            return;
        }
        w->unmatched_markers++;
    }
}

void vp_cap_add_device(vp_cap_writer *w, const vp_cap_device *d)
{
    for (size_t i = 0; i < w->ndevices; i++)
        if (w->devices[i].id == d->id)
            return;  /* CUPTI reports a device once per context */
    w->devices = vp_realloc(w->devices, (w->ndevices + 1) * sizeof *w->devices);
    vp_cap_device *c = &w->devices[w->ndevices++];
    *c = *d;
    c->name = vp_strdup(d->name ? d->name : "");
}

void vp_cap_add_context(vp_cap_writer *w, uint32_t context, uint32_t device)
{
    for (size_t i = 0; i < w->ncontexts; i++)
        if (w->contexts[i][0] == context) {
            w->contexts[i][1] = device;
            return;
        }
    w->contexts = vp_realloc(w->contexts, (w->ncontexts + 1) * sizeof *w->contexts);
    w->contexts[w->ncontexts][0] = context;
    w->contexts[w->ncontexts][1] = device;
    w->ncontexts++;
}

void vp_cap_add_thread_name(vp_cap_writer *w, uint32_t tid, const char *name)
{
    int inserted;
    void **slot = vp_strmap_upsert(w->threads, (const char *)&tid, sizeof tid, &inserted);
    if (inserted) {
        w->tids = vp_realloc(w->tids, (w->ntids + 1) * sizeof *w->tids);
        w->tids[w->ntids++] = tid;
    }
    free(*slot);
    *slot = vp_strdup(name);
}

size_t vp_cap_threads(const vp_cap_writer *w, const uint32_t **tids)
{
    *tids = w->tids;
    return w->ntids;
}

uint64_t vp_cap_writer_events(const vp_cap_writer *w)
{
    return w->events;
}

/* ---- the end ---- */

static void meta_event(vp_cap_writer *w, const char *what, long long pid, long long tid, const char *key,
                       const char *text, long long number)
{
    begin(w);
    vp_buf *b = &w->line;
    vp_buf_printf(b, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%lld,\"tid\":%lld", what, pid, tid);
    ts_only(w, w->min_ts == UINT64_MAX ? (uint64_t)w->meta.base_ns : w->min_ts);
    vp_buf_printf(b, ",\"args\":{\"%s\":", key);
    if (text)
        str(b, text);
    else
        vp_buf_printf(b, "%lld", number);
    vp_buf_printf(b, "}}");
    vp_sink_write(w->sink, b->data, b->len);  /* metadata: not counted in events */
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void write_metadata(vp_cap_writer *w)
{
    char text[256];
    /* The host process and its threads. */
    meta_event(w, "process_name", w->meta.pid, 0, "name", w->process_name, 0);
    meta_event(w, "process_labels", w->meta.pid, 0, "labels", "CPU", 0);
    meta_event(w, "process_sort_index", w->meta.pid, 0, "sort_index", NULL, w->meta.pid);
    for (size_t i = 0; i < w->ntids; i++) {
        uint32_t tid = w->tids[i];
        const char *name = vp_strmap_get(w->threads, (const char *)&tid, sizeof tid);
        snprintf(text, sizeof text, "thread %u (%s)", tid, name ? name : w->process_name);
        meta_event(w, "thread_name", w->meta.pid, tid, "name", text, 0);
        meta_event(w, "thread_sort_index", w->meta.pid, tid, "sort_index", NULL, tid);
    }
    /* GPU rows, by device then row; each device named like the process
     * (as Kineto does) and labelled "GPU n". */
    size_t n = vp_strmap_count(w->rows);
    uint64_t *keys = vp_malloc((n ? n : 1) * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *k = vp_strmap_key(w->rows, i, &len);
        uint32_t pid, tid;
        memcpy(&pid, k, 4);
        memcpy(&tid, k + 4, 4);
        /* Row -1 sorts first within its device. */
        keys[i] = (uint64_t)pid << 32 | (uint32_t)(tid + 1);
    }
    qsort(keys, n, sizeof *keys, cmp_u64);
    long long last = -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t pid = (uint32_t)(keys[i] >> 32), tid = (uint32_t)keys[i] - 1;
        if ((long long)pid != last) {
            snprintf(text, sizeof text, "GPU %u", pid);
            meta_event(w, "process_name", pid, 0, "name", w->process_name, 0);
            meta_event(w, "process_labels", pid, 0, "labels", text, 0);
            meta_event(w, "process_sort_index", pid, 0, "sort_index", NULL, GPU_SORT_BASE + (long long)pid);
            last = pid;
        }
        long long sort;
        if (tid == NO_TID) {
            snprintf(text, sizeof text, "Device %u", pid);
            sort = -1;
        } else if (tid >= SYNC_TID_OFFSET) {
            snprintf(text, sizeof text, "stream %u sync", tid - SYNC_TID_OFFSET);
            sort = tid;
        } else {
            snprintf(text, sizeof text, "stream %u ", tid);  /* Kineto's trailing space */
            sort = tid;
        }
        meta_event(w, "thread_name", pid, tid_value(tid), "name", text, 0);
        meta_event(w, "thread_sort_index", pid, tid_value(tid), "sort_index", NULL, sort);
    }
    free(keys);
    if (w->overhead_seen) {
        meta_event(w, "process_name", -1, 0, "name", "CUPTI overhead", 0);
        meta_event(w, "process_sort_index", -1, 0, "sort_index", NULL, OVERHEAD_SORT);
    }
}

static void write_devices(vp_cap_writer *w)
{
    vp_buf *b = &w->line;
    b->len = 0;
    vp_buf_printf(b, ",\"deviceProperties\":[");
    for (size_t i = 0; i < w->ndevices; i++) {
        const vp_cap_device *d = &w->devices[i];
        vp_buf_printf(b, "%s{\"id\":%u,\"name\":", i ? "," : "", d->id);
        str(b, d->name);
        vp_buf_printf(b,
                      ",\"totalGlobalMem\":%llu,\"computeMajor\":%u,\"computeMinor\":%u,"
                      "\"maxThreadsPerBlock\":%u,\"maxThreadsPerMultiprocessor\":%u,\"regsPerBlock\":%u,"
                      "\"regsPerMultiprocessor\":%u,\"warpSize\":%u,\"sharedMemPerBlock\":%u,"
                      "\"sharedMemPerMultiprocessor\":%u,\"numSms\":%u,\"sharedMemPerBlockOptin\":%u}",
                      (unsigned long long)d->total_mem, d->cc_major, d->cc_minor, d->max_threads_per_block,
                      d->max_threads_per_sm, d->regs_per_block, d->regs_per_sm, d->warp_size,
                      d->shared_per_block, d->shared_per_sm, d->num_sms, d->shared_per_block_optin);
    }
    vp_buf_putc(b, ']');
    vp_sink_write(w->sink, b->data, b->len);
}

static void writer_free(vp_cap_writer *w)
{
    for (int d = 0; d < 2; d++) {
        for (size_t i = 0; i < w->nlabels[d]; i++)
            free(w->labels[d][i]);
        free(w->labels[d]);
    }
    for (size_t i = 0; i < vp_strmap_count(w->names); i++)
        free(vp_strmap_value(w->names, i));
    vp_strmap_free(w->names);
    vp_strmap_free(w->rows);
    for (size_t i = 0; i < vp_strmap_count(w->threads); i++)
        free(vp_strmap_value(w->threads, i));
    vp_strmap_free(w->threads);
    free(w->tids);
    for (size_t i = 0; i < w->ndevices; i++)
        free((char *)w->devices[i].name);
    free(w->devices);
    free(w->contexts);
    for (size_t i = 0; i < w->nmarkers; i++) {
        free(w->markers[i].name);
        free(w->markers[i].domain);
    }
    free(w->markers);
    free(w->process_name);
    vp_buf_free(&w->line);
    free(w);
}

int vp_cap_writer_finish(vp_cap_writer *w, const vp_cap_stats *st, const char *trace_name, vp_error *err)
{
    /* Ranges still open at exit end with the last thing recorded. */
    uint64_t unclosed = w->nmarkers;
    for (size_t i = 0; i < w->nmarkers; i++) {
        marker_event(w, &w->markers[i], w->max_ts > w->markers[i].ts ? w->max_ts : w->markers[i].ts, 1);
        free(w->markers[i].name);
        free(w->markers[i].domain);
    }
    w->nmarkers = 0;
    write_metadata(w);
    begin(w);
    vp_buf_printf(&w->line, "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Record Window End\",\"pid\":\"\",\"tid\":\"\"");
    ts_only(w, w->max_ts ? w->max_ts : (uint64_t)w->meta.base_ns);
    vp_buf_printf(&w->line, "}\n]");
    vp_sink_write(w->sink, w->line.data, w->line.len);
    write_devices(w);
    vp_buf *b = &w->line;
    b->len = 0;
    for (int i = 0; st && i + 1 < 8 && st->versions[i] && st->versions[i + 1]; i += 2) {
        vp_buf_putc(b, ',');
        str(b, st->versions[i]);
        vp_buf_putc(b, ':');
        str(b, st->versions[i + 1]);
    }
    vp_buf_printf(b, ",\"vprofRecord\":{\"events\":%llu,\"droppedRecords\":%llu,\"refusedBuffers\":%llu,"
                     "\"unmatchedMarkers\":%llu,\"unclosedMarkers\":%llu,\"capture\":",
                  (unsigned long long)w->events, (unsigned long long)(st ? st->dropped : 0),
                  (unsigned long long)(st ? st->refused : 0), (unsigned long long)w->unmatched_markers,
                  (unsigned long long)unclosed);
    str(b, st && st->capture ? st->capture : "all");
    vp_buf_printf(b, "},\"traceName\":");
    str(b, trace_name ? trace_name : "");
    vp_buf_printf(b, "}\n");
    vp_sink_write(w->sink, b->data, b->len);
    vp_sink *s = w->sink;
    writer_free(w);
    return vp_sink_close(s, err);
}

void vp_cap_writer_abort(vp_cap_writer *w)
{
    if (!w)
        return;
    vp_sink_abort(w->sink);
    writer_free(w);
}
