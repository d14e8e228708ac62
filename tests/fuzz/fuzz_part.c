/* libFuzzer target for partial results (src/util/part.c, docs/partials.md):
 * the header reader, and the payload of every analysis in the table of
 * vprof/analyses.h (kernels, ops, launches, api, copies, ranges, comm,
 * steps, summary, check, memory): every merge that `vprof reduce` runs on
 * files anyone may hand it.  A command added to the table is fuzzed here
 * without a line more.
 *
 * The input is copied into a buffer of exactly its size, so that ASan
 * catches a read past the end.  Cross-checks: a header that reads back is
 * written again and reads back the same; a payload that merges into an
 * empty model (the entry's widest) is saved, merged into another, and
 * saved the same again (the merge of one partial is a fixed point), and
 * the entry's finish (the run's metrics, the memory curves, the kernel
 * summaries ...) runs on it without undefined behaviour. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/analyses.h"
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

/* A payload merged into an empty model, saved, merged into another and
 * saved again: the same bytes, or an input error. */
static void round_trip(const vp_analysis *a, const void *payload, size_t n)
{
    void *m = a->new_model(NULL);
    vp_error err = {0};
    if (a->merge(m, payload, n, &err) == 0) {
        vp_buf s1 = {0}, s2 = {0};
        a->save(m, &s1);
        void *again = a->new_model(NULL);
        CHECK(a->merge(again, s1.data, s1.len, &err) == 0);
        a->save(again, &s2);
        CHECK(s1.len == s2.len && memcmp(s1.data, s2.data, s1.len) == 0);
        if (a->finish) {
            a->finish(again);
            if (!strcmp(a->command, "summary") || !strcmp(a->command, "check"))
                for (size_t i = 0; i < vp_run_nmetrics(again); i++)
                    (void)vp_run_metric(again, i)->value;
        }
        a->free_model(again);
        vp_buf_free(&s1);
        vp_buf_free(&s2);
    } else {
        CHECK(err.status == 3);
    }
    a->free_model(m);
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
        const vp_analysis *a = vp_analysis_find(h.command);
        if (a)
            round_trip(a, payload, n);
        vp_buf_free(&h.options);
    } else {
        CHECK(err.status == 3 && err.msg[0]);
        CHECK(h.options.data == NULL);
    }
    free(copy);
    return 0;
}
