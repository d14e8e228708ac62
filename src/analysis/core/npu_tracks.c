/* Which track of an Ascend trace holds what.  pids change encoding
 * between CANN versions (docs/ascend.md), so tracks are told by their
 * process_name and thread_name metadata, and by the events themselves
 * where no metadata names them. */
#include <stdlib.h>
#include <string.h>

#include "vprof/ascend_tracks.h"
#include "vprof/util.h"

struct vp_npu_tracks {
    vp_strmap *procs;     /* raw pid -> role + 1 */
    vp_strmap *threads;   /* raw pid NUL raw tid -> role + 1 (communication process) */
    vp_strmap *commpids;  /* pids of the Communication / HCCL process */
    int seen;
    vp_buf key, name;
};

vp_npu_tracks *vp_npu_tracks_new(void)
{
    vp_npu_tracks *t = vp_calloc(1, sizeof *t);
    t->procs = vp_strmap_new();
    t->threads = vp_strmap_new();
    t->commpids = vp_strmap_new();
    return t;
}

void vp_npu_tracks_free(vp_npu_tracks *t)
{
    if (!t)
        return;
    vp_strmap_free(t->procs);
    vp_strmap_free(t->threads);
    vp_strmap_free(t->commpids);
    vp_buf_free(&t->key);
    vp_buf_free(&t->name);
    free(t);
}

static int eq(const vp_buf *b, const char *lit)
{
    size_t n = strlen(lit);
    return b->len == n && memcmp(b->data, lit, n) == 0;
}

static int starts(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s, lit, m) == 0;
}

static int ends(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s + n - m, lit, m) == 0;
}

static void thread_key(vp_npu_tracks *t, const vp_event *ev)
{
    t->key.len = 0;
    vp_buf_append(&t->key, ev->pid.p, ev->pid.n);
    vp_buf_putc(&t->key, '\0');
    if (ev->tid.p)
        vp_buf_append(&t->key, ev->tid.p, ev->tid.n);
}

int vp_npu_tracks_observe(vp_npu_tracks *t, const vp_event *ev)
{
    if (ev->ph != 'M' || !ev->pid.p || !ev->args.p)
        return 0;
    int proc = vp_json_str_eq(ev->name, "process_name");
    int thread = !proc && vp_json_str_eq(ev->name, "thread_name");
    if (!proc && !thread)
        return 0;
    vp_span v;
    if (!vp_json_get(ev->args, "name", &v) || !vp_json_is_string(v))
        return 1;
    t->name.len = 0;
    vp_json_unescape(v, &t->name);
    int inserted;
    if (proc) {
        vp_npu_role r = VP_NPU_OTHER;
        if (eq(&t->name, "Ascend Hardware"))
            r = VP_NPU_HARDWARE;
        else if (eq(&t->name, "Overlap Analysis"))
            r = VP_NPU_OVERLAP;
        else if (eq(&t->name, "Communication") || eq(&t->name, "HCCL"))
            r = VP_NPU_COMM_OP;
        if (r == VP_NPU_COMM_OP)
            *vp_strmap_upsert(t->commpids, ev->pid.p, ev->pid.n, &inserted) = (void *)1;
        if (r != VP_NPU_OTHER)
            t->seen = 1;
        *vp_strmap_upsert(t->procs, ev->pid.p, ev->pid.n, &inserted) = (void *)(uintptr_t)(r + 1);
    } else {
        /* Threads of the communication process: "Group <name>
         * Communication" rows hold the operations, "Plane <n>" rows their
         * tasks.  Recorded for every process: the process_name may come
         * later. */
        vp_npu_role r = VP_NPU_UNKNOWN;
        if (starts(t->name.data, t->name.len, "Group") &&
            ends(t->name.data, t->name.len, "Communication"))
            r = VP_NPU_COMM_OP;
        else if (starts(t->name.data, t->name.len, "Plane"))
            r = VP_NPU_COMM_TASK;
        if (r != VP_NPU_UNKNOWN) {
            thread_key(t, ev);
            *vp_strmap_upsert(t->threads, t->key.data, t->key.len, &inserted) =
                (void *)(uintptr_t)(r + 1);
        }
    }
    return 1;
}

int vp_npu_overlap_kind(vp_span name)
{
    if (vp_json_str_eq(name, "Computing"))
        return VP_OVL_COMPUTING;
    if (vp_json_str_eq(name, "Communication"))
        return VP_OVL_COMMUNICATION;
    if (vp_json_str_eq(name, "Communication(Not Overlapped)"))
        return VP_OVL_NOT_OVERLAPPED;
    if (vp_json_str_eq(name, "Free"))
        return VP_OVL_FREE;
    return -1;
}

vp_npu_role vp_npu_role_of(vp_npu_tracks *t, const vp_event *ev)
{
    if (!ev->pid.p)
        return VP_NPU_UNKNOWN;
    void *p = vp_strmap_get(t->procs, ev->pid.p, ev->pid.n);
    vp_npu_role r = p ? (vp_npu_role)((uintptr_t)p - 1) : VP_NPU_UNKNOWN;
    if (r == VP_NPU_COMM_OP || r == VP_NPU_UNKNOWN) {
        thread_key(t, ev);
        void *q = vp_strmap_get(t->threads, t->key.data, t->key.len);
        if (q)
            return (vp_npu_role)((uintptr_t)q - 1);
        if (r == VP_NPU_COMM_OP) {
            /* A thread of the communication process that no metadata
             * named: tell op from task by the arguments. */
            vp_span v;
            if (ev->args.p && (vp_json_get(ev->args, "notify_id", &v) ||
                               vp_json_get(ev->args, "transport type", &v)))
                return VP_NPU_COMM_TASK;
            return VP_NPU_COMM_OP;
        }
    }
    if (r != VP_NPU_UNKNOWN)
        return r;
    /* No metadata: the event says what it is. Kineto events all have a
     * category; these tracks' slices have none. */
    if (ev->cat.n || ev->ph != 'X')
        return VP_NPU_UNKNOWN;
    vp_span v;
    if (!ev->args.p)
        r = vp_npu_overlap_kind(ev->name) >= 0 ? VP_NPU_OVERLAP : VP_NPU_UNKNOWN;
    else if (vp_json_get(ev->args, "Task Type", &v))
        r = VP_NPU_HARDWARE;
    else if (vp_json_get(ev->args, "notify_id", &v) || vp_json_get(ev->args, "transport type", &v))
        r = VP_NPU_COMM_TASK;
    else if (vp_json_get(ev->args, "alg_type", &v) || vp_json_get(ev->args, "rank_size", &v))
        r = VP_NPU_COMM_OP;
    if (r != VP_NPU_UNKNOWN)
        t->seen = 1;
    return r;
}

int vp_npu_tracks_seen(const vp_npu_tracks *t)
{
    return t->seen;
}
