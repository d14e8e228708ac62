/* Unit tests for the record-to-Kineto-JSON writer (src/capture/kineto.c):
 * records built here, as the shim builds them from CUPTI's, arrive in the
 * order CUPTI delivers (GPU work before the API call that launched it),
 * and the whole trace is compared byte for byte, then parsed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "vprof/capture.h"

#include "tmppath.h"

#define BASE INT64_C(1696186170000000000)  /* a multiple of 7,889,238 s */
#define T0 ((uint64_t)BASE + 1000000000u)   /* one second into the period */

static const char *fake_api_name(void *ctx, int driver, uint32_t cbid)
{
    (void)ctx;
    if (!driver && cbid == 211)
        return "cudaLaunchKernel_v7000";
    if (!driver && cbid == 31)
        return "cudaMemcpy_v3020";
    if (!driver && cbid == 10)
        return "cudaGetLastError_v3020";
    if (driver && cbid == 307)
        return "cuLaunchKernel";
    return NULL;
}

static char *fake_demangle(const char *mangled)
{
    if (strcmp(mangled, "_Z6vecAddPfS_S_i") == 0)
        return vp_strdup("vecAdd(float*, float*, float*, int)");
    return NULL;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    vp_buf b = {0};
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        vp_buf_append(&b, tmp, n);
    fclose(f);
    return (char *)vp_buf_cstr(&b);
}

static vp_cap_writer *open_writer(const char *path, long rank)
{
    vp_error err = {0};
    vp_sink_opts so = {0};
    vp_sink *s = vp_sink_open(path, &so, &err);
    assert_non_null(s);
    vp_cap_meta meta = {
        .base_ns = BASE, .pid = 4242, .process_name = "python3", .rank = rank, .world_size = rank >= 0 ? 8 : -1,
        .api_name = fake_api_name, .demangle = fake_demangle,
    };
    return vp_cap_writer_open(s, &meta);
}

static void test_base_time_and_labels(void **state)
{
    (void)state;
    assert_int_equal(vp_cap_base_time(BASE + 123), BASE);
    assert_int_equal(vp_cap_base_time(BASE - 1), BASE - INT64_C(7889238) * 1000000000);
    static const char *const labels[][2] = {
        {"cudaLaunchKernel_v7000", "cudaLaunchKernel"},
        {"cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2"},  /* _v2 stays */
        {"cudaMemcpy_v3020", "cudaMemcpy"},
        {"cuLaunchKernel", "cuLaunchKernel"},
        {"x_v123", "x_v123"},
        {"_v1234", ""},
    };
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        vp_buf b = {0};
        vp_cap_api_label(labels[i][0], &b);
        assert_string_equal(b.data ? b.data : "", labels[i][1]);
        vp_buf_free(&b);
    }
    assert_true(vp_cap_api_launches("cudaLaunchKernel"));
    assert_true(vp_cap_api_launches("cudaLaunchKernelExC"));
    assert_true(vp_cap_api_launches("cuLaunchKernelEx"));
    assert_true(vp_cap_api_launches("cudaGraphLaunch"));
    assert_true(vp_cap_api_launches("cudaMemcpyAsync"));
    assert_true(vp_cap_api_launches("cuMemsetD32Async"));
    assert_false(vp_cap_api_launches("cudaStreamSynchronize"));
    assert_false(vp_cap_api_launches("cudaMalloc"));
    /* Without a C++ runtime in the test, names stay; never a crash. */
    char *d = vp_cap_demangle("_Z6vecAddPfS_S_i");
    if (d)
        assert_string_equal(d, "vecAdd(float*, float*, float*, int)");
    free(d);
    assert_null(vp_cap_demangle("ncclDevKernel_AllReduce"));
}

static const char expected[] =
    "{\"schemaVersion\":1,\"distributedInfo\":{\"rank\":3,\"world_size\":8},\"displayTimeUnit\":\"ms\","
    "\"baseTimeNanoseconds\":1696186170000000000,\"traceEvents\":[\n"
    /* The kernel, before its launch: args as Kineto's, occupancy hints from the device. */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"vecAdd(float*, float*, float*, int)\",\"pid\":0,\"tid\":7,"
    "\"ts\":1000001,\"dur\":2.500,\"args\":{\"device\":0,\"context\":1,\"stream\":7,\"correlation\":7,"
    "\"registers per thread\":16,\"shared memory\":1280,\"blocks per SM\":1.185185,\"warps per SM\":4.740741,"
    "\"grid\":[128,1,1],\"block\":[128,1,1]}},\n"
    "{\"ph\":\"f\",\"id\":7,\"pid\":0,\"tid\":7,\"ts\":1000001,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
    /* A template name with quotes and a backslash, undemangled, from a graph. */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k<\\\"a\\\\b\\\">\",\"pid\":1,\"tid\":13,\"ts\":1000002,"
    "\"dur\":0.001,\"args\":{\"device\":1,\"context\":2,\"stream\":13,\"correlation\":0,"
    "\"registers per thread\":0,\"shared memory\":0,\"grid\":[1,1,1],\"block\":[32,1,1],"
    "\"graph id\":5,\"graph node id\":9}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,"
    "\"ts\":1000004,\"dur\":2.048,\"args\":{\"device\":0,\"context\":1,\"stream\":7,\"correlation\":8,"
    "\"bytes\":4096,\"memory bandwidth (GB/s)\":2}},\n"
    "{\"ph\":\"f\",\"id\":8,\"pid\":0,\"tid\":7,\"ts\":1000004,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":4242,\"tid\":4243,"
    "\"ts\":1000000,\"dur\":0.900,\"args\":{\"cbid\":211,\"correlation\":7}},\n"
    "{\"ph\":\"s\",\"id\":7,\"pid\":4242,\"tid\":4243,\"ts\":1000000,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpy\",\"pid\":4242,\"tid\":4243,\"ts\":1000000.950,"
    "\"dur\":5.150,\"args\":{\"cbid\":31,\"correlation\":8}},\n"
    "{\"ph\":\"s\",\"id\":8,\"pid\":4242,\"tid\":4243,\"ts\":1000000.950,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
    /* No flow for a call that launches nothing; an unknown cbid still named. */
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGetLastError\",\"pid\":4242,\"tid\":4243,"
    "\"ts\":1000006.200,\"dur\":0.010,\"args\":{\"cbid\":10,\"correlation\":9}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"driver API 999\",\"pid\":4242,\"tid\":4250,"
    "\"ts\":1000006.300,\"dur\":0.100,\"args\":{\"cbid\":999,\"correlation\":12}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":1000007,"
    "\"dur\":0,\"args\":{\"device\":0,\"context\":1,\"stream\":7,\"correlation\":10,\"bytes\":1024,"
    "\"memory bandwidth (GB/s)\":0}},\n"
    "{\"ph\":\"f\",\"id\":10,\"pid\":0,\"tid\":7,\"ts\":1000007,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":1000007,\"ts\":1000008,"
    "\"dur\":1,\"args\":{\"cuda_sync_kind\":\"Stream Sync\",\"stream\":7,\"correlation\":11,\"device\":0,"
    "\"context\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Event Sync\",\"pid\":1,\"tid\":-1,\"ts\":1000008.500,"
    "\"dur\":0.250,\"args\":{\"cuda_sync_kind\":\"Event Sync\",\"wait_on_cuda_event_id\":3,\"stream\":-1,"
    "\"correlation\":13,\"device\":1,\"context\":2}},\n"
    "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"user_annotation\",\"name\":\"mark\",\"pid\":4242,\"tid\":4243,"
    "\"ts\":1000009.500,\"args\":{\"domain\":\"app\"}},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":4242,\"tid\":4243,"
    "\"ts\":1000009,\"dur\":1},\n"
    "{\"ph\":\"X\",\"cat\":\"overhead\",\"name\":\"Activity Buffer Request\",\"pid\":-1,\"tid\":4243,"
    "\"ts\":1000011,\"dur\":0.100},\n"
    /* At the end: the range never closed, then the metadata rows. */
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"open\",\"pid\":4242,\"tid\":4250,\"ts\":1000010,"
    "\"dur\":1.100,\"args\":{\"unclosed\":1}},\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4242,\"tid\":0,\"ts\":1000000,\"args\":{\"name\":\"python3\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":4242,\"tid\":0,\"ts\":1000000,\"args\":{\"labels\":\"CPU\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":4242,\"tid\":0,\"ts\":1000000,"
    "\"args\":{\"sort_index\":4242}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4242,\"tid\":4243,\"ts\":1000000,"
    "\"args\":{\"name\":\"thread 4243 (pt_main_thread)\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":4242,\"tid\":4243,\"ts\":1000000,"
    "\"args\":{\"sort_index\":4243}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4242,\"tid\":4250,\"ts\":1000000,"
    "\"args\":{\"name\":\"thread 4250 (python3)\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":4242,\"tid\":4250,\"ts\":1000000,"
    "\"args\":{\"sort_index\":4250}},\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"ts\":1000000,\"args\":{\"name\":\"python3\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"tid\":0,\"ts\":1000000,\"args\":{\"labels\":\"GPU 0\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":0,\"tid\":0,\"ts\":1000000,"
    "\"args\":{\"sort_index\":5000000}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"ts\":1000000,\"args\":{\"name\":\"stream 7 \"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":0,\"tid\":7,\"ts\":1000000,\"args\":{\"sort_index\":7}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":1000007,\"ts\":1000000,"
    "\"args\":{\"name\":\"stream 7 sync\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":0,\"tid\":1000007,\"ts\":1000000,"
    "\"args\":{\"sort_index\":1000007}},\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"ts\":1000000,\"args\":{\"name\":\"python3\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":1,\"tid\":0,\"ts\":1000000,\"args\":{\"labels\":\"GPU 1\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":1,\"tid\":0,\"ts\":1000000,"
    "\"args\":{\"sort_index\":5000001}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":-1,\"ts\":1000000,\"args\":{\"name\":\"Device 1\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":-1,\"ts\":1000000,\"args\":{\"sort_index\":-1}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":13,\"ts\":1000000,\"args\":{\"name\":\"stream 13 \"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":13,\"ts\":1000000,\"args\":{\"sort_index\":13}},\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":-1,\"tid\":0,\"ts\":1000000,"
    "\"args\":{\"name\":\"CUPTI overhead\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":-1,\"tid\":0,\"ts\":1000000,"
    "\"args\":{\"sort_index\":16777226}},\n"
    "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Record Window End\",\"pid\":\"\",\"tid\":\"\",\"ts\":1000011.100}\n"
    "],\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H200\",\"totalGlobalMem\":150000000000,"
    "\"computeMajor\":9,\"computeMinor\":0,\"maxThreadsPerBlock\":1024,\"maxThreadsPerMultiprocessor\":2048,"
    "\"regsPerBlock\":65536,\"regsPerMultiprocessor\":65536,\"warpSize\":32,\"sharedMemPerBlock\":49152,"
    "\"sharedMemPerMultiprocessor\":233472,\"numSms\":108,\"sharedMemPerBlockOptin\":232448}],"
    "\"cupti_version\":\"130001\",\"vprofRecord\":{\"events\":19,\"droppedRecords\":5,\"refusedBuffers\":2,"
    "\"unmatchedMarkers\":1,\"unclosedMarkers\":1,\"capture\":\"all\"},\"traceName\":\"t.json\"}\n";

static void test_writer_exact(void **state)
{
    (void)state;
    char dir[512];
    assert_non_null(mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-capw")));
    char path[1024];
    snprintf(path, sizeof path, "%s/t.json", dir);
    vp_cap_writer *w = open_writer(path, 3);

    vp_cap_device dev = {
        .id = 0, .name = "NVIDIA H200", .total_mem = 150000000000ULL, .cc_major = 9, .max_threads_per_block = 1024,
        .max_threads_per_sm = 2048, .regs_per_block = 65536, .regs_per_sm = 65536, .warp_size = 32,
        .shared_per_block = 49152, .shared_per_sm = 233472, .shared_per_block_optin = 232448, .num_sms = 108,
    };
    vp_cap_add_device(w, &dev);
    vp_cap_add_device(w, &dev);  /* once per context: kept once */
    vp_cap_add_context(w, 1, 0);
    vp_cap_add_context(w, 2, 1);
    /* GPU work arrives first (CUPTI's buffers are per kind and context). */
    vp_cap_kernel k = {
        .start = T0 + 1000, .end = T0 + 3500, .device = 0, .context = 1, .stream = 7, .correlation = 7,
        .grid = {128, 1, 1}, .block = {128, 1, 1}, .registers = 16, .static_shared = 1024, .dynamic_shared = 256,
        .name = "_Z6vecAddPfS_S_i",
    };
    vp_cap_write_kernel(w, &k);
    vp_cap_kernel k2 = {
        .start = T0 + 2000, .end = T0 + 2001, .device = 1, .context = 2, .stream = 13, .correlation = 0,
        .grid = {1, 1, 1}, .block = {32, 1, 1}, .graph_id = 5, .graph_node = 9, .name = "k<\"a\\b\">",
    };
    vp_cap_write_kernel(w, &k2);
    vp_cap_memcpy m = {
        .start = T0 + 4000, .end = T0 + 6048, .bytes = 4096, .device = 0, .context = 1, .stream = 7,
        .correlation = 8, .copy_kind = 1, .src_kind = 1, .dst_kind = 3,
    };
    vp_cap_write_memcpy(w, &m);
    vp_cap_api a1 = {.start = T0, .end = T0 + 900, .pid = 4242, .tid = 4243, .correlation = 7, .cbid = 211};
    vp_cap_write_api(w, &a1);
    vp_cap_api a2 = {.start = T0 + 950, .end = T0 + 6100, .pid = 4242, .tid = 4243, .correlation = 8, .cbid = 31};
    vp_cap_write_api(w, &a2);
    vp_cap_api a3 = {.start = T0 + 6200, .end = T0 + 6210, .pid = 4242, .tid = 4243, .correlation = 9, .cbid = 10};
    vp_cap_write_api(w, &a3);
    vp_cap_api a4 = {.start = T0 + 6300, .end = T0 + 6400, .pid = 4242, .tid = 4250, .correlation = 12,
                     .cbid = 999, .driver = 1};
    vp_cap_write_api(w, &a4);
    vp_cap_memset ms = {.start = T0 + 7000, .end = T0 + 7000, .bytes = 1024, .device = 0, .context = 1,
                        .stream = 7, .correlation = 10, .mem_kind = 3};
    vp_cap_write_memset(w, &ms);
    vp_cap_sync s1 = {.start = T0 + 8000, .end = T0 + 9000, .context = 1, .stream = 7, .correlation = 11,
                      .event = VP_CAP_NONE32, .type = 3};
    vp_cap_write_sync(w, &s1);
    vp_cap_sync s2 = {.start = T0 + 8500, .end = T0 + 8750, .context = 2, .stream = VP_CAP_NONE32,
                      .correlation = 13, .event = 3, .type = 1};
    vp_cap_write_sync(w, &s2);
    vp_cap_marker mk[] = {
        {.ts = T0 + 9000, .id = 1, .pid = 4242, .tid = 4243, .flags = VP_MARK_START, .name = "ProfilerStep#1"},
        {.ts = T0 + 9500, .id = 5, .pid = 4242, .tid = 4243, .flags = VP_MARK_INSTANT, .name = "mark",
         .domain = "app"},
        {.ts = T0 + 10000, .id = 2, .pid = 4242, .tid = 4250, .flags = VP_MARK_START, .name = "open"},
        {.ts = T0 + 10000, .id = 1, .pid = 4242, .tid = 4243, .flags = VP_MARK_END},
        {.ts = T0 + 10500, .id = 99, .pid = 4242, .tid = 4243, .flags = VP_MARK_END},
    };
    for (size_t i = 0; i < sizeof mk / sizeof mk[0]; i++)
        vp_cap_write_marker(w, &mk[i]);
    vp_cap_overhead ov = {.start = T0 + 11000, .end = T0 + 11100, .kind = 7u << 16, .tid = 4243};
    vp_cap_write_overhead(w, &ov);

    const uint32_t *tids;
    assert_int_equal(vp_cap_threads(w, &tids), 2);
    assert_int_equal(tids[0], 4243);
    assert_int_equal(tids[1], 4250);
    vp_cap_add_thread_name(w, 4243, "pt_main_thread");
    assert_int_equal(vp_cap_writer_events(w), 18);

    vp_cap_stats st = {.dropped = 5, .refused = 2, .capture = "all", .versions = {"cupti_version", "130001"}};
    vp_error err = {0};
    assert_int_equal(vp_cap_writer_finish(w, &st, "t.json", &err), 0);
    char *text = slurp(path);
    if (strcmp(text, expected) != 0) {
        size_t i = 0;
        while (text[i] && text[i] == expected[i])
            i++;
        fail_msg("trace differs at byte %zu:\n got: %.200s\nwant: %.200s", i, text + i, expected + i);
    }
    /* Valid JSON, and the numbers a consumer reads back. */
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    cJSON *evs = cJSON_GetObjectItem(doc, "traceEvents");
    assert_int_equal(cJSON_GetArraySize(evs), 43);
    cJSON *first = cJSON_GetArrayItem(evs, 0);
    assert_string_equal(cJSON_GetObjectItem(first, "cat")->valuestring, "kernel");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "vprofRecord"), "droppedRecords")->valueint, 5);
    cJSON_Delete(doc);
    free(text);
    unlink(path);
    rmdir(dir);
}

static void test_writer_empty_and_abort(void **state)
{
    (void)state;
    char dir[512];
    assert_non_null(mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-capw")));
    char path[1024];
    snprintf(path, sizeof path, "%s/e.json", dir);
    vp_cap_writer *w = open_writer(path, -1);
    vp_error err = {0};
    assert_int_equal(vp_cap_writer_finish(w, NULL, NULL, &err), 0);
    char *text = slurp(path);
    assert_string_equal(text,
                        "{\"schemaVersion\":1,\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":1696186170000000000,"
                        "\"traceEvents\":[\n"
                        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4242,\"tid\":0,\"ts\":0,"
                        "\"args\":{\"name\":\"python3\"}},\n"
                        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":4242,\"tid\":0,\"ts\":0,"
                        "\"args\":{\"labels\":\"CPU\"}},\n"
                        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":4242,\"tid\":0,\"ts\":0,"
                        "\"args\":{\"sort_index\":4242}},\n"
                        "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Record Window End\",\"pid\":\"\",\"tid\":\"\",\"ts\":0}\n"
                        "],\"deviceProperties\":[],\"vprofRecord\":{\"events\":0,\"droppedRecords\":0,"
                        "\"refusedBuffers\":0,\"unmatchedMarkers\":0,\"unclosedMarkers\":0,\"capture\":\"all\"},"
                        "\"traceName\":\"\"}\n");
    free(text);
    unlink(path);
    /* Aborted: no file under the name, no temporary left. */
    w = open_writer(path, 0);
    vp_cap_kernel k = {.start = T0, .end = T0 + 1, .name = NULL};
    vp_cap_write_kernel(w, &k);
    vp_cap_writer_abort(w);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(rmdir(dir), 0);
}

/* A long run: a million kernels stream through without holding them. */
static void test_writer_streams(void **state)
{
    (void)state;
    char dir[512];
    assert_non_null(mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-capw")));
    char path[1024];
    snprintf(path, sizeof path, "%s/big.json.gz", dir);
    vp_error err = {0};
    vp_sink_opts so = {.gzip = 1, .level = 1};
    vp_sink *s = vp_sink_open(path, &so, &err);
    vp_cap_meta meta = {.base_ns = BASE, .pid = 1, .process_name = "p", .rank = -1, .world_size = -1};
    vp_cap_writer *w = vp_cap_writer_open(s, &meta);
    for (uint32_t i = 0; i < 200000; i++) {
        vp_cap_kernel k = {.start = T0 + i * 1000ull, .end = T0 + i * 1000ull + 500, .stream = i % 4,
                           .correlation = i + 1, .grid = {1, 1, 1}, .block = {1, 1, 1}, .name = "k"};
        vp_cap_write_kernel(w, &k);
    }
    assert_int_equal(vp_cap_writer_events(w), 400000);
    assert_int_equal(vp_cap_writer_finish(w, NULL, path, &err), 0);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_time_and_labels),
        cmocka_unit_test(test_writer_exact),
        cmocka_unit_test(test_writer_empty_and_abort),
        cmocka_unit_test(test_writer_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
