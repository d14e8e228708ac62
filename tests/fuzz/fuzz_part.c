/* libFuzzer target for partial results (src/util/part.c, docs/partials.md):
 * the header reader, and the summary/check (vp_run_merge), memory
 * (vp_memevents_merge), comm (vp_comm_merge), steps (vp_breakdown_merge)
 * and kernels (vp_kernels_merge) payloads: every command's merge that
 * `vprof reduce` runs on files anyone may hand it.
 *
 * The input is copied into a buffer of exactly its size, so that ASan
 * catches a read past the end.  Cross-checks: a header that reads back is
 * written again and reads back the same; a payload that merges into an
 * empty run is saved, merged into another, and saved the same again (the
 * merge of one partial is a fixed point), and the run's metrics compute
 * without undefined behaviour. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/breakdown.h"
#include "vprof/comm.h"
#include "vprof/kernels.h"
#include "vprof/memevents.h"
#include "vprof/part.h"
#include "vprof/runstats.h"
#include "vprof/util.h"

#define CHECK(c) \
    do { \
        if (!(c)) \
            abort(); \
    } while (0)

static void header_again(const vp_part_header *h, const void *payload, size_t n)
{
    vp_buf b = {0};
    vp_part_write(&b, h, payload, n);
    vp_part_header h2;
    const void *p2;
    size_t n2;
    vp_error err = {0};
    CHECK(vp_part_read("again", b.data, b.len, &h2, &p2, &n2, &err) == 0);
    CHECK(strcmp(h->command, h2.command) == 0);
    CHECK(h->payload_version == h2.payload_version && h->inputs == h2.inputs);
    CHECK(h->options.len == h2.options.len);
    CHECK(!h->options.len || memcmp(h->options.data, h2.options.data, h->options.len) == 0);
    CHECK(n == n2 && (!n || memcmp(payload, p2, n) == 0));
    vp_buf_free(&h2.options);
    vp_buf_free(&b);
}

static void run_payload(const void *payload, size_t n)
{
    vp_run *r = vp_run_new();
    vp_error err = {0};
    if (vp_run_merge(r, payload, n, &err) == 0) {
        vp_buf s1 = {0}, s2 = {0};
        vp_run_save(r, &s1);
        vp_run *again = vp_run_new();
        CHECK(vp_run_merge(again, s1.data, s1.len, &err) == 0);
        vp_run_save(again, &s2);
        CHECK(s1.len == s2.len && memcmp(s1.data, s2.data, s1.len) == 0);
        vp_run_finish(again);
        for (size_t i = 0; i < vp_run_nmetrics(again); i++)
            (void)vp_run_metric(again, i)->value;
        vp_run_free(again);
        vp_buf_free(&s1);
        vp_buf_free(&s2);
    } else {
        CHECK(err.status == 3);
    }
    vp_run_free(r);
}

static void memory_payload(const void *payload, size_t n)
{
    vp_memevents *m = vp_memevents_new(0);
    vp_error err = {0};
    if (vp_memevents_merge(m, payload, n, &err) == 0) {
        vp_buf s1 = {0}, s2 = {0};
        vp_memevents_save(m, &s1);
        vp_memevents *again = vp_memevents_new(0);
        CHECK(vp_memevents_merge(again, s1.data, s1.len, &err) == 0);
        vp_memevents_save(again, &s2);
        CHECK(s1.len == s2.len && memcmp(s1.data, s2.data, s1.len) == 0);
        vp_memevents_finish(again);
        vp_memevents_free(again);
        vp_buf_free(&s1);
        vp_buf_free(&s2);
    } else {
        CHECK(err.status == 3);
    }
    vp_memevents_free(m);
}

/* A payload merged into an empty model, saved, merged into another and
 * saved again: the same bytes (the merge of one partial is a fixed
 * point), or an input error. */
#define ROUND_TRIP(type, init, merge, save, free_) \
    do { \
        type m, again; \
        vp_error err = {0}; \
        init(&m); \
        if (merge(&m, payload, n, &err) == 0) { \
            vp_buf s1 = {0}, s2 = {0}; \
            save(&m, &s1); \
            init(&again); \
            CHECK(merge(&again, s1.data, s1.len, &err) == 0); \
            save(&again, &s2); \
            CHECK(s1.len == s2.len && memcmp(s1.data, s2.data, s1.len) == 0); \
            free_(&again); \
            vp_buf_free(&s1); \
            vp_buf_free(&s2); \
        } else { \
            CHECK(err.status == 3); \
        } \
        free_(&m); \
    } while (0)

static void comm_payload(const void *payload, size_t n)
{
    ROUND_TRIP(vp_comm, vp_comm_init, vp_comm_merge, vp_comm_save, vp_comm_free);
}

static void steps_payload(const void *payload, size_t n)
{
    ROUND_TRIP(vp_breakdown, vp_breakdown_init, vp_breakdown_merge, vp_breakdown_save,
               vp_breakdown_free);
}

/* kernels' model takes its grouping as options; every dimension and the
 * name, so that any group key a partial holds has a place. */
static void kernels_init(vp_kernels *k)
{
    static const vp_kernels_opts o = {
        .by_name = 1,
        .dims = VP_KDIM_CLASS | VP_KDIM_STREAM | VP_KDIM_RANK | VP_KDIM_DEVICE | VP_KDIM_TYPE |
                VP_KDIM_CORE,
    };
    vp_kernels_init(k, &o);
}

static void kernels_payload(const void *payload, size_t n)
{
    ROUND_TRIP(vp_kernels, kernels_init, vp_kernels_merge, vp_kernels_save, vp_kernels_free);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    vp_part_header h;
    const void *payload;
    size_t n;
    vp_error err = {0};
    if (vp_part_read("fuzz.vpart", copy, size, &h, &payload, &n, &err) == 0) {
        const uint8_t *p = payload;
        CHECK(p >= copy && p + n == copy + size);
        CHECK(strlen(h.command) < sizeof h.command);
        CHECK(!h.options.len || h.options.data[h.options.len - 1] == '\0');
        header_again(&h, payload, n);
        if (!strcmp(h.command, "summary") || !strcmp(h.command, "check"))
            run_payload(payload, n);
        else if (!strcmp(h.command, "memory"))
            memory_payload(payload, n);
        else if (!strcmp(h.command, "comm"))
            comm_payload(payload, n);
        else if (!strcmp(h.command, "steps"))
            steps_payload(payload, n);
        else if (!strcmp(h.command, "kernels"))
            kernels_payload(payload, n);
        vp_buf_free(&h.options);
    } else {
        CHECK(err.status == 3 && err.msg[0]);
        CHECK(h.options.data == NULL);
    }
    free(copy);
    return 0;
}
