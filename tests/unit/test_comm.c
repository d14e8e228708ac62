/* Unit tests for src/analysis/collective.c and gpuwork.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/classify.h"
#include "vprof/collective.h"
#include "vprof/gpuwork.h"

#define K(s) vp_coll_from_kernel(s, strlen(s))
#define A(s) vp_coll_from_arg(s, strlen(s))

static void test_kernel_names(void **state)
{
    (void)state;
    assert_int_equal(K("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
                     VP_COLL_ALLREDUCE);
    assert_int_equal(K("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*)"),
                     VP_COLL_REDUCESCATTER);
    assert_int_equal(K("ncclDevKernel_Reduce_Sum_f32_RING_LL"), VP_COLL_REDUCE);
    assert_int_equal(K("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)"), VP_COLL_SENDRECV);
    assert_int_equal(K("ncclDevKernel_AllGather_RING_LL(ncclDevComm*)"), VP_COLL_ALLGATHER);
    assert_int_equal(K("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*)"), VP_COLL_BROADCAST);
    assert_int_equal(K("void ncclDevKernel_Generic(ncclDevComm*)"), VP_COLL_UNKNOWN);
    assert_int_equal(K("ampere_sgemm_128x64_nn"), VP_COLL_UNKNOWN);
    assert_string_equal(vp_coll_name(VP_COLL_UNKNOWN), "Other");
    assert_string_equal(vp_coll_name(VP_COLL_ALLTOALL), "AllToAll");
}

static void test_arg_names(void **state)
{
    (void)state;
    assert_int_equal(A("allreduce"), VP_COLL_ALLREDUCE);
    assert_int_equal(A("all_reduce"), VP_COLL_ALLREDUCE);
    assert_int_equal(A("_allgather_base"), VP_COLL_ALLGATHER);
    assert_int_equal(A("allgather_into_tensor_coalesced"), VP_COLL_ALLGATHER);
    assert_int_equal(A("reduce_scatter_tensor"), VP_COLL_REDUCESCATTER);
    assert_int_equal(A("_reduce_scatter_base"), VP_COLL_REDUCESCATTER);
    assert_int_equal(A("all_to_all"), VP_COLL_ALLTOALL);
    assert_int_equal(A("alltoall_base"), VP_COLL_ALLTOALL);
    assert_int_equal(A("broadcast"), VP_COLL_BROADCAST);
    assert_int_equal(A("reduce"), VP_COLL_REDUCE);
    assert_int_equal(A("send"), VP_COLL_SEND);
    assert_int_equal(A("recv"), VP_COLL_RECV);
    assert_int_equal(A("barrier"), VP_COLL_BARRIER);
    assert_int_equal(A("gather"), VP_COLL_UNKNOWN);
}

static void test_factors_and_dtypes(void **state)
{
    (void)state;
    assert_true(vp_coll_bus_factor(VP_COLL_ALLREDUCE, 8) == 2.0 * 7 / 8);
    assert_true(vp_coll_bus_factor(VP_COLL_ALLGATHER, 4) == 0.75);
    assert_true(vp_coll_bus_factor(VP_COLL_REDUCESCATTER, 2) == 0.5);
    assert_true(vp_coll_bus_factor(VP_COLL_ALLTOALL, 2) == 0.5);
    assert_true(vp_coll_bus_factor(VP_COLL_BROADCAST, 8) == 1.0);
    assert_true(vp_coll_bus_factor(VP_COLL_SENDRECV, 2) == 1.0);
    assert_true(vp_coll_bus_factor(VP_COLL_ALLREDUCE, 1) == 0.0);
    assert_true(vp_coll_bus_factor(VP_COLL_ALLREDUCE, -1) < 0);
    assert_true(vp_coll_bus_factor(VP_COLL_UNKNOWN, 8) < 0);
    assert_int_equal(vp_dtype_size("Float", 5), 4);
    assert_int_equal(vp_dtype_size("BFloat16", 8), 2);
    assert_int_equal(vp_dtype_size("Long", 4), 8);
    assert_int_equal(vp_dtype_size("Float8_e4m3fn", 13), 1);
    assert_int_equal(vp_dtype_size("Mystery", 7), 0);
}

/* A hand-made event: X phase, category, name, ts/dur in ns, args text. */
static vp_event mk(const char *cat, const char *name, int64_t ts, int64_t dur, const char *args)
{
    vp_event e;
    memset(&e, 0, sizeof e);
    e.ph = 'X';
    e.cat = (vp_span){cat, strlen(cat)};
    e.name = (vp_span){name, strlen(name)};
    e.ts = ts;
    e.dur = dur;
    e.has_ts = e.has_dur = 1;
    if (args)
        e.args = (vp_span){args, strlen(args)};
    return e;
}

static void test_gpuwork_measure_and_steps(void **state)
{
    vp_gpuwork w;
    vp_event ev[] = {
        mk("user_annotation", "ProfilerStep#1", 0, 1000, NULL),
        mk("user_annotation", "ProfilerStep#2", 1000, 1000, NULL),
        mk("cuda_runtime", "cudaLaunchKernel", 10, 5, "{\"correlation\": 1}"),
        mk("cuda_runtime", "cudaLaunchKernel", 20, 5, "{\"correlation\": 2}"),
        mk("cuda_runtime", "cudaLaunchKernel", 1010, 5, "{\"correlation\": 3}"),
        mk("kernel", "gemm", 100, 200, "{\"stream\": 7, \"correlation\": 1}"),
        mk("kernel", "ncclDevKernel_AllReduce_Sum_f32", 250, 150, "{\"stream\": 9, \"correlation\": 2}"),
        mk("gpu_memcpy", "Memcpy HtoD", 450, 50, "{\"stream\": 7, \"correlation\": 99}"),
        mk("cuda_sync", "Event Sync", 500, 400, "{\"stream\": -1, \"correlation\": 98}"),
        mk("kernel", "gemm", 1100, 100, "{\"stream\": 7, \"correlation\": 3}"),
        mk("gpu_user_annotation", "ProfilerStep#1", 0, 2000, NULL),
    };

    (void)state;
    vp_gpuwork_init(&w);
    for (size_t i = 0; i < sizeof ev / sizeof *ev; i++)
        vp_gpuwork_observe(&w, &ev[i]);
    assert_int_equal(w.n, 4);          /* Event Sync on no stream is left out */
    assert_int_equal(w.no_stream, 1);

    vp_gpu_sets sets;
    vp_gpu_totals t;
    vp_gpu_sets_init(&sets);
    vp_gpu_measure(&sets, w.ev, NULL, w.n, &t);
    assert_int_equal(t.span, 1100);
    assert_int_equal(t.compute, 300);
    assert_int_equal(t.comm, 150);
    assert_int_equal(t.overlap, 50);
    assert_int_equal(t.exposed, 100);
    assert_int_equal(t.memory, 50);
    assert_int_equal(t.memory_exposed, 50);
    assert_int_equal(t.busy, 450);
    assert_int_equal(t.idle, 650);
    assert_int_equal(t.free, 1100 - 400);
    assert_int_equal(t.non_compute, 1100 - 300 - 650);

    vp_step_range r;
    assert_int_equal(vp_step_range_parse(":-1", &r), 0);
    assert_int_equal(vp_gpuwork_resolve(&w, &r), 1);
    assert_int_equal(w.n, 2);          /* step 2's kernel and the unlaunched memcpy dropped */
    assert_int_equal(w.unlaunched, 1);
    vp_gpu_measure(&sets, w.ev, NULL, w.n, &t);
    assert_int_equal(t.span, 300);
    assert_true(t.overlap * 10000 / t.comm == 3333);

    /* No events at all: zeros, no division. */
    vp_gpu_measure(&sets, w.ev, NULL, 0, &t);
    assert_int_equal(t.span, 0);
    assert_int_equal(t.busy, 0);
    vp_gpu_sets_free(&sets);
    vp_gpuwork_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test(test_arg_names),
        cmocka_unit_test(test_factors_and_dtypes),
        cmocka_unit_test(test_gpuwork_measure_and_steps),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
