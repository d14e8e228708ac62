/* The snapshot model and its analyses: every fixture against the shared
 * expected.json, a synthetic snapshot that exercises what no real file
 * has (pending-free blocks, an unmatched free, an alloc still open, OOM
 * without addr), sites, and inputs that are pickles but not snapshots. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "vprof/memdoc.h"
#include "vprof/memsnap.h"
#include "vprof/util.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    vp_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        vp_buf_append(&b, chunk, n);
    fclose(f);
    *len = b.len;
    return b.data;
}

/* ---- a tiny pickle writer for synthetic snapshots (protocol 2, no memo) ---- */

static void em_str(vp_buf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    unsigned char h[5] = {'X', (unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                          (unsigned char)(n >> 24)};
    vp_buf_append(b, h, 5);
    vp_buf_append(b, s, n);
}

static void em_int(vp_buf *b, int64_t v)
{
    unsigned char h[10] = {0x8a, 8};
    for (int i = 0; i < 8; i++)
        h[2 + i] = (unsigned char)((uint64_t)v >> (8 * i));
    vp_buf_append(b, h, 10);
}

/* A dict from "key=value" pairs: values starting with a digit are ints,
 * "@x" leaves the value for the caller (already emitted), others strings. */
static void em_kv_int(vp_buf *b, const char *k, int64_t v)
{
    em_str(b, k);
    em_int(b, v);
    vp_buf_putc(b, 's');
}

static void em_kv_str(vp_buf *b, const char *k, const char *v)
{
    em_str(b, k);
    em_str(b, v);
    vp_buf_putc(b, 's');
}

static void em_frames(vp_buf *b, const char *file, int line, const char *name)
{
    em_str(b, "frames");
    vp_buf_putc(b, ']');
    vp_buf_putc(b, '}');
    em_kv_str(b, "filename", "??");
    em_kv_int(b, "line", 0);
    em_kv_str(b, "name", "torch::unwind::unwind()");
    vp_buf_putc(b, 'a');
    vp_buf_putc(b, '}');
    em_kv_str(b, "filename", file);
    em_kv_int(b, "line", line);
    em_kv_str(b, "name", name);
    vp_buf_putc(b, 'a');
    vp_buf_putc(b, 's');
}

static void em_block(vp_buf *b, int64_t addr, int64_t size, int64_t req, const char *state)
{
    vp_buf_putc(b, '}');
    em_kv_int(b, "address", addr);
    em_kv_int(b, "size", size);
    em_kv_int(b, "requested_size", req);
    em_kv_str(b, "state", state);
    vp_buf_putc(b, 'a');
}

static void em_event(vp_buf *b, const char *action, int64_t addr, int64_t size, int with_frames)
{
    vp_buf_putc(b, '}');
    em_kv_str(b, "action", action);
    if (strcmp(action, "oom") == 0)
        em_kv_int(b, "device_free", addr);
    else
        em_kv_int(b, "addr", addr);
    em_kv_int(b, "size", size);
    em_kv_int(b, "stream", 0);
    em_kv_str(b, "unknown_future_key", "ignored");
    if (with_frames)
        em_frames(b, "/home/u/proj/model.py", 42, "forward");  /* test-paths: data */
    vp_buf_putc(b, 'a');
}

static vp_memsnap *synthetic(vp_error *err)
{
    vp_buf b = {0};
    vp_buf_append(&b, "\x80\x02}", 3);
    em_str(&b, "segments");
    vp_buf_putc(&b, ']');
    vp_buf_putc(&b, '}');
    em_kv_int(&b, "device", 0);
    em_kv_int(&b, "address", 0x1000);
    em_kv_int(&b, "total_size", 4096);
    em_kv_str(&b, "segment_type", "small");
    em_str(&b, "blocks");
    vp_buf_putc(&b, ']');
    em_block(&b, 0x1000, 1024, 1000, "active_allocated");
    em_block(&b, 0x1400, 512, 512, "active_pending_free");
    em_block(&b, 0x1600, 2560, 2560, "inactive");
    vp_buf_putc(&b, 's');
    vp_buf_putc(&b, 'a');   /* segment into segments */
    vp_buf_putc(&b, 's');   /* 'segments' into the top dict */
    em_str(&b, "device_traces");
    vp_buf_putc(&b, ']');
    vp_buf_putc(&b, ']');
    em_event(&b, "free_completed", 0x9000, 300, 0);  /* older than the trace */
    em_event(&b, "alloc", 0x1000, 1000, 1);          /* open at the end */
    em_event(&b, "alloc", 0x2000, 50, 0);            /* the peak */
    em_event(&b, "free_requested", 0x2000, 50, 0);
    em_event(&b, "free_completed", 0x2000, 50, 0);
    em_event(&b, "alloc", 0x3000, 10, 1);            /* open at the end */
    em_event(&b, "oom", 5, 999, 1);                  /* device_free 5, no addr */
    em_event(&b, "segment_alloc", 0x1000, 4096, 0);
    em_event(&b, "annotate", 0, 0, 0);               /* newer than vprof */
    vp_buf_putc(&b, 'a');
    vp_buf_putc(&b, 's');
    vp_buf_putc(&b, '.');
    vp_memsnap *s = vp_memsnap_load_mem(b.data, b.len, "syn.pkl", err);
    vp_buf_free(&b);
    return s;
}

static void test_synthetic(void **state)
{
    (void)state;
    vp_error err = {0};
    vp_memsnap *s = synthetic(&err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_int_equal(s->ndevices, 1);
    const vp_ms_device *d = vp_memsnap_device(s, 0);
    assert_non_null(d);
    assert_int_equal(d->nevents, 9);
    vp_ms_stats st;
    vp_ms_device_stats(s, d, &st);
    assert_int_equal(st.reserved, 4096);
    assert_int_equal(st.allocated, 1024);
    assert_int_equal(st.requested, 1000);
    assert_int_equal(st.pending_free, 512);
    assert_int_equal(st.inactive, 2560);
    assert_int_equal(st.largest_inactive, 2560);
    assert_int_equal(st.inactive_blocks, 1);
    assert_int_equal(st.rounding_waste, 24);
    assert_true(st.fragmentation == 0.0);
    assert_int_equal(st.baseline, 300);
    assert_int_equal(st.peak_active, 1050);
    assert_int_equal(st.peak_index, 2);
    assert_int_equal(st.peak_has_time, 0);
    assert_int_equal(st.final_active, 1010);
    assert_int_equal(st.reserved_at_start, 0);
    assert_int_equal(st.peak_reserved, 4096);
    assert_int_equal(st.peak_reserved_index, 7);
    assert_int_equal(st.ooms, 1);
    assert_int_equal(st.actions[VP_MS_ALLOC], 3);
    assert_int_equal(st.actions[VP_MS_OTHER], 1);
    assert_int_equal(d->events[6].addr, 5);   /* device_free */

    vp_ms_live *lv;
    size_t n = vp_ms_live_at(s, d, st.peak_index, &lv);
    assert_int_equal(n, 2);
    assert_int_equal(lv[0].size, 1000);
    assert_int_equal(lv[0].alloc_index, 1);
    assert_int_equal(lv[1].size, 50);
    char site[256];
    assert_int_equal(vp_ms_site(s, lv[0].stack, 1, 0, site, sizeof site), 1);
    assert_string_equal(site, "model.py:42:forward");
    /* the unwinder frame is hidden even with --all-frames */
    assert_int_equal(vp_ms_site(s, lv[0].stack, 5, 1, site, sizeof site), 1);
    assert_int_equal(vp_ms_site(s, lv[1].stack, 1, 0, site, sizeof site), 0);
    assert_string_equal(site, "");
    free(lv);

    /* Before the first event: the older allocation freed at event 0. */
    n = vp_ms_live_at(s, d, -1, &lv);
    assert_int_equal(n, 1);
    assert_int_equal(lv[0].size, 300);
    assert_int_equal(lv[0].alloc_index, -1);
    free(lv);

    /* No entry has a time: the warm-up is the first quarter of the 9
     * entries, events 0 and 1; the 1000 bytes allocated at event 1 are
     * baseline, not a leak. */
    int64_t t0 = 7;
    assert_int_equal(vp_ms_start_time(s, &t0), 0);
    assert_int_equal(t0, 7);
    assert_int_equal(vp_ms_warmup_end(d), 2);
    n = vp_ms_leaks(s, d, &lv);
    assert_int_equal(n, 1);
    assert_int_equal(lv[0].size, 10);
    assert_int_equal(lv[0].alloc_index, 5);
    free(lv);

    int64_t *active, *reserved;
    vp_ms_timeline(s, d, &active, &reserved);
    static const int64_t want_a[] = {300, 0, 1000, 1050, 1050, 1000, 1010, 1010, 1010, 1010};
    static const int64_t want_r[] = {0, 0, 0, 0, 0, 0, 0, 0, 4096, 4096};
    for (size_t i = 0; i < 10; i++) {
        assert_int_equal(active[i], want_a[i]);
        assert_int_equal(reserved[i], want_r[i]);
    }
    free(active);
    free(reserved);
    vp_memsnap_free(s);
}

static void expect_not_snapshot(const char *bytes, size_t n, const char *want)
{
    vp_error err = {0};
    vp_memsnap *s = vp_memsnap_load_mem(bytes, n, "x.pkl", &err);
    assert_null(s);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    assert_string_equal(err.msg, want);
}

#define P(lit) lit, sizeof(lit) - 1

/* --by site and --leaks: allocations summed per site, most bytes first. */
static void test_sites(void **state)
{
    (void)state;
    vp_error err = {0};
    vp_memsnap *s = synthetic(&err);
    if (!s)
        fail_msg("%s", err.msg);
    const vp_ms_device *d = vp_memsnap_device(s, 0);
    vp_ms_stats st;
    vp_ms_device_stats(s, d, &st);
    vp_ms_live *lv;
    size_t n = vp_ms_live_at(s, d, st.peak_index, &lv);
    vp_ms_sites g;
    vp_ms_group_by_site(s, lv, n, 1, 0, &g);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.sums[0].site, "model.py:42:forward");
    assert_int_equal(g.sums[0].bytes, 1000);
    assert_int_equal(g.sums[0].count, 1);
    assert_string_equal(g.sums[1].site, "");
    assert_int_equal(g.sums[1].bytes, 50);
    assert_int_equal(g.sums[1].count, 1);
    vp_ms_sites_free(&g);
    free(lv);

    /* the one leak (event 5; event 1 is in the warm-up) and its site */
    n = vp_ms_leaks(s, d, &lv);
    vp_ms_group_by_site(s, lv, n, 1, 0, &g);
    assert_int_equal(g.n, 1);
    assert_string_equal(g.sums[0].site, "model.py:42:forward");
    assert_int_equal(g.sums[0].bytes, 10);
    assert_int_equal(g.sums[0].count, 1);
    vp_ms_sites_free(&g);
    free(lv);
    vp_memsnap_free(s);
}

static void test_not_a_snapshot(void **state)
{
    (void)state;
    expect_not_snapshot(P("\x80\x04K\x2a."), "x.pkl: not a memory snapshot: top level is an int");
    expect_not_snapshot(P("\x80\x04\x8c\x01" "a."), "x.pkl: not a memory snapshot: top level is a str");
    expect_not_snapshot(P("\x80\x04}."),
                        "x.pkl: not a memory snapshot: top level is a dict without 'segments' or 'device_traces'");
    expect_not_snapshot(P("\x80\x04]K\x01" "a."),
                        "x.pkl: not a memory snapshot: top level is a list of an int, not of segment dicts");
    expect_not_snapshot(P("\x80\x02}X\x08\x00\x00\x00segmentsK\x01s."),
                        "x.pkl: not a memory snapshot: 'segments' is an int, not a list");
    expect_not_snapshot(P("\x80\x02}X\x08\x00\x00\x00segments]}" "as."),
                        "x.pkl: not a memory snapshot: segment 0 has no 'address'");
    expect_not_snapshot(P("\x80\x02}X\x0d\x00\x00\x00" "device_traces](]}" "aes."),
                        "x.pkl: not a memory snapshot: device_traces[0][0] has no 'action' string");
    /* An empty list is a snapshot with no segments. */
    vp_error err = {0};
    vp_memsnap *s = vp_memsnap_load_mem(P("\x80\x04]."), "x.pkl", &err);
    assert_non_null(s);
    assert_int_equal(s->ndevices, 0);
    assert_int_equal(s->list_form, 1);
    vp_memsnap_free(s);
}

static void test_small_fixture(void **state)
{
    (void)state;
    const char *dir = getenv("VPROF_TEST_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/memsnap/t24_cs336_small_from_start.pickle", dir ? dir : "tests/data");
    vp_error err = {0};
    vp_memsnap *s = vp_memsnap_load(path, &err);
    if (!s)
        fail_msg("%s", err.msg);
    vp_ms_stats st;
    vp_ms_device_stats(s, vp_memsnap_device(s, 0), &st);
    assert_int_equal(st.peak_active, 3249143816);
    assert_int_equal(st.peak_index, 52);
    assert_int_equal(st.peak_time_us, 1772688692983308);
    assert_int_equal(st.baseline, 0);
    assert_int_equal(st.reserved, 3781165056);
    assert_int_equal(st.peak_reserved, 3781165056);
    assert_int_equal(st.reserved_at_start, 0);
    vp_memsnap_free(s);
}

/* vprof memory's one input (vprof/memdoc.h): the bundled snapshot told
 * from its content and read; a device it lacks refused with status 2. */
static void test_memdoc_snapshot(void **state)
{
    (void)state;
    const char *dir = getenv("VPROF_TEST_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/memsnap/t24_cs336_small_from_start.pickle",
             dir ? dir : "tests/data");
    vp_memdoc d;
    vp_error err = {0};
    assert_int_equal(vp_memdoc_is_ascend(path), 0);
    assert_int_equal(vp_memdoc_open(path, &d, &err), 0);
    assert_int_equal(d.kind, VP_MEMDOC_SNAPSHOT);
    assert_string_equal(vp_memdoc_kind_name(d.kind), "a snapshot");
    vp_memdoc_read_opts ro = {.device = 0};
    assert_int_equal(vp_memdoc_read(&d, &ro, &err), 0);
    vp_ms_stats st;
    vp_ms_device_stats(d.snap, vp_memsnap_device(d.snap, 0), &st);
    assert_int_equal(st.peak_active, 3249143816);
    vp_memdoc_free(&d);

    assert_int_equal(vp_memdoc_open(path, &d, &err), 0);
    ro.device = 3;
    assert_int_equal(vp_memdoc_read(&d, &ro, &err), -1);
    assert_int_equal(err.status, 2);
    char want[4200];
    snprintf(want, sizeof want, "%s has no device 3 (it has 1 device with data)", path);
    assert_string_equal(err.msg, want);
    vp_memdoc_free(&d);
}

/* ---- every fixture against expected.json ---- */

static int64_t jint(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v))
        fail_msg("expected.json: no number '%s'", k);
    return (int64_t)v->valuedouble;
}

static void check_fixture(const char *path, const char *label, const cJSON *exp)
{
    vp_error err = {0};
    vp_memsnap *s = vp_memsnap_load(path, &err);
    if (!s)
        fail_msg("%s: %s", label, err.msg);
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(exp, "devices");
    assert_int_equal(s->ndevices, (size_t)cJSON_GetArraySize(devs));
    const cJSON *dj;
    cJSON_ArrayForEach(dj, devs) {
        const vp_ms_device *d = vp_memsnap_device(s, atoi(dj->string));
        if (!d)
            fail_msg("%s: no device %s", label, dj->string);
        vp_ms_stats st;
        vp_ms_device_stats(s, d, &st);
#define EQ(field, key)                                                                            \
        if ((int64_t)(field) != jint(dj, key))                                                    \
            fail_msg("%s dev %s: %s = %lld, expected %lld", label, dj->string, key,                \
                     (long long)(field), (long long)jint(dj, key));
        EQ(st.trace_entries, "trace_entries");
        EQ(st.segments, "segments");
        EQ(st.blocks, "blocks");
        EQ(st.reserved, "reserved_bytes");
        EQ(st.allocated, "allocated_bytes");
        EQ(st.requested, "requested_bytes");
        EQ(st.pending_free, "pending_free_bytes");
        EQ(st.inactive, "inactive_bytes");
        EQ(st.largest_inactive, "largest_inactive_block");
        EQ(st.inactive_blocks, "inactive_blocks");
        EQ(st.rounding_waste, "rounding_waste_bytes");
        EQ(st.peak_active, "peak_active_bytes");
        EQ(st.peak_index, "peak_event_index");
        EQ(st.baseline, "baseline_active_bytes");
        EQ(st.final_active, "final_active_bytes");
        EQ(st.peak_reserved, "peak_reserved_bytes");
        EQ(st.reserved_at_start, "reserved_at_trace_start");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(dj, "peak_time_us");
        if (cJSON_IsNull(t))
            assert_int_equal(st.peak_has_time, 0);
        else
            EQ(st.peak_time_us, "peak_time_us");
        const cJSON *acts = cJSON_GetObjectItemCaseSensitive(dj, "actions"), *a;
        cJSON_ArrayForEach(a, acts) {
            int k;
            for (k = 0; k < VP_MS_NACTIONS; k++)
                if (strcmp(vp_ms_action_name(k), a->string) == 0)
                    break;
            if (k == VP_MS_NACTIONS || (int64_t)st.actions[k] != (int64_t)a->valuedouble)
                fail_msg("%s dev %s: action %s", label, dj->string, a->string);
        }
        vp_ms_live *lv;
        size_t n = vp_ms_live_at(s, d, st.peak_index, &lv);
        const cJSON *top = cJSON_GetObjectItemCaseSensitive(dj, "top_live_at_peak"), *e;
        size_t i = 0;
        cJSON_ArrayForEach(e, top) {
            if (i >= n)
                fail_msg("%s dev %s: only %zu live at peak", label, dj->string, n);
            char addr[32], site[4096];
            snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)lv[i].addr);
            vp_ms_site(s, lv[i].stack, 1, 0, site, sizeof site);
            const cJSON *js = cJSON_GetObjectItemCaseSensitive(e, "site");
            if (lv[i].size != jint(e, "size") ||
                strcmp(addr, cJSON_GetObjectItemCaseSensitive(e, "addr")->valuestring) != 0 ||
                strcmp(site, cJSON_IsString(js) ? js->valuestring : "") != 0)
                fail_msg("%s dev %s: top %zu is %lld %s %s", label, dj->string, i,
                         (long long)lv[i].size, addr, site);
            i++;
        }
        free(lv);
    }
    vp_memsnap_free(s);
}

static void test_expected_json(void **state)
{
    (void)state;
    const char *shared = getenv("VPROF_SHARED");
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/real/memsnap/expected.json", shared ? shared : "../shared");
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text)
        skip();
    cJSON *root = cJSON_ParseWithLength(text, len);
    assert_non_null(root);
    const cJSON *fx;
    int checked = 0;
    cJSON_ArrayForEach(fx, root) {
        char p[4096];
        snprintf(p, sizeof p, "%s/fixtures/real/memsnap/%s", shared ? shared : "../shared", fx->string);
        check_fixture(p, fx->string, fx);
        checked++;
    }
    assert_int_equal(checked, 13);
    /* The synthetic variants give their source's numbers. */
    static const char *const syn[][2] = {
        {"small_python_proto2.pickle", "t24_cs336_small_from_start.pickle"},
        {"small_python_proto3.pickle", "t24_cs336_small_from_start.pickle"},
        {"small_python_proto5.pickle", "t24_cs336_small_from_start.pickle"},
        {"small_cpp_pickler_style_proto2.pickle", "t24_cs336_small_from_start.pickle"},
        {"t20_oom_cpp_pickler_style_proto2.pickle", "t20_flexgen_oom_snapshot.pickle"},
    };
    for (size_t i = 0; i < sizeof syn / sizeof syn[0]; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/fixtures/synthetic/memsnap/%s", shared ? shared : "../shared", syn[i][0]);
        check_fixture(p, syn[i][0], cJSON_GetObjectItemCaseSensitive(root, syn[i][1]));
    }
    cJSON_Delete(root);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic),
        cmocka_unit_test(test_sites),
        cmocka_unit_test(test_not_a_snapshot),
        cmocka_unit_test(test_small_fixture),
        cmocka_unit_test(test_memdoc_snapshot),
        cmocka_unit_test(test_expected_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
