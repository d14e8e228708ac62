/* Unit tests for src/analysis/comm/collective.c and gpuwork.c, and for
 * comm.c (exposed time per collective, bus bandwidth, stragglers) and
 * breakdown.c (per-step breakdown, idle rows) with their partial
 * save/merge round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/breakdown.h"
#include "vprof/classify.h"
#include "vprof/collective.h"
#include "vprof/comm.h"
#include "vprof/gpupass.h"
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
    assert_false(vp_gpuwork_dropped(&w, 0));
    assert_false(vp_gpuwork_dropped(&w, 1));
    assert_true(vp_gpuwork_dropped(&w, 2));
    assert_true(vp_gpuwork_dropped(&w, 3));
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

/* HTA's kernel-type table: the time of each combination of classes, and
 * the combinations met only where one class ends as another starts. */
static void test_gpu_class_times(void **state)
{
    vp_gpu_sets s;
    int64_t t[8];
    unsigned instants;
    (void)state;
    vp_gpu_sets_init(&s);
    vp_ivset_add(&s.comp, 0, 100);
    vp_ivset_add(&s.comm, 50, 150);
    vp_ivset_add(&s.mem, 150, 200);    /* starts as communication ends */
    vp_ivset_add(&s.comp, 200, 220);   /* starts as memory ends */
    vp_ivset_add(&s.sync, 0, 1000);    /* no class of HTA's */
    vp_gpu_class_times(&s, t, &instants);
    assert_int_equal(t[0], 0);
    assert_int_equal(t[VP_GPU_COMP_BIT], 50 + 20);
    assert_int_equal(t[VP_GPU_COMP_BIT | VP_GPU_COMM_BIT], 50);
    assert_int_equal(t[VP_GPU_COMM_BIT], 50);
    assert_int_equal(t[VP_GPU_MEM_BIT], 50);
    assert_int_equal(t[VP_GPU_COMP_BIT | VP_GPU_MEM_BIT], 0);
    assert_int_equal(t[VP_GPU_COMM_BIT | VP_GPU_MEM_BIT], 0);
    assert_int_equal(t[7], 0);
    assert_int_equal(instants, 1u << (VP_GPU_COMM_BIT | VP_GPU_MEM_BIT) |
                                   1u << (VP_GPU_COMP_BIT | VP_GPU_MEM_BIT));
    /* a combination with time is never instant-only; all three at once */
    vp_ivset_add(&s.mem, 60, 70);
    vp_ivset_add(&s.mem, 140, 150);
    vp_gpu_class_times(&s, t, &instants);
    assert_int_equal(t[7], 10);
    assert_int_equal(t[VP_GPU_COMM_BIT | VP_GPU_MEM_BIT], 10);
    assert_int_equal(t[VP_GPU_COMP_BIT | VP_GPU_COMM_BIT], 40);
    assert_int_equal(t[VP_GPU_MEM_BIT], 50);
    assert_int_equal(instants, 1u << (VP_GPU_COMP_BIT | VP_GPU_MEM_BIT));
    /* nothing: no time, no instant */
    vp_ivset_clear(&s.comp);
    vp_ivset_clear(&s.comm);
    vp_ivset_clear(&s.mem);
    vp_gpu_class_times(&s, t, &instants);
    for (int m = 0; m < 8; m++)
        assert_int_equal(t[m], 0);
    assert_int_equal(instants, 0);
    vp_gpu_sets_free(&s);
}

/* What vp_gpu_pass does with a file's events, without the file. */
static void pass(vp_gpuwork *w, const vp_event *ev, size_t n, vp_gpu_pass_fn fn, void *ctx)
{
    vp_gpuwork_init(w);
    for (size_t i = 0; i < n; i++) {
        long k = vp_gpuwork_observe(w, &ev[i]);
        if (fn)
            fn(ctx, w, k, &ev[i]);
    }
    vp_gpuwork_resolve(w, NULL);
}

#define LAUNCH(ts, corr) mk("cuda_runtime", "cudaLaunchKernel", ts, 5, "{\"correlation\": " #corr "}")
#define SIZED(corr, stream, nelems, dtype) \
    "{\"correlation\": " #corr ", \"stream\": " #stream ", \"In msg nelems\": " #nelems \
    ", \"Out msg nelems\": " #nelems ", \"dtype\": \"" dtype "\", \"Group size\": 8, " \
    "\"Process Group Name\": \"0\"}"

/* One step; compute [1000, 2000) and [5500, 5700); collectives fully
 * hidden, partly hidden, fully exposed, two overlapping each other, and
 * one with no message size.  The reduce-scatter's size comes from the
 * record_param_comms op around its launch. */
static void comm_rank(vp_comm *c)
{
    vp_event ev[] = {
        mk("user_annotation", "ProfilerStep#1", 0, 10000, NULL),
        LAUNCH(10, 1), LAUNCH(20, 2), LAUNCH(30, 3), LAUNCH(40, 4), LAUNCH(50, 5), LAUNCH(60, 6),
        LAUNCH(70, 7), LAUNCH(80, 8),
        mk("cpu_op", "record_param_comms", 35, 15,
           "{\"Collective name\": \"reduce_scatter_tensor\", \"In msg nelems\": 2048, "
           "\"Out msg nelems\": 256, \"dtype\": \"Float\", \"Group size\": 4}"),
        mk("kernel", "gemm", 1000, 1000, "{\"stream\": 7, \"correlation\": 1}"),
        mk("kernel", "ncclDevKernel_AllReduce_Sum_f32", 1200, 300, SIZED(2, 9, 1000, "Float")),
        mk("kernel", "ncclDevKernel_AllGather_RING_LL", 1800, 600,
           "{\"correlation\": 3, \"stream\": 9, \"In msg nelems\": 500, \"Out msg nelems\": 4000, "
           "\"dtype\": \"BFloat16\", \"Group size\": 8, \"Process Group Name\": \"0\"}"),
        mk("kernel", "ncclDevKernel_ReduceScatter_Sum_f32", 3000, 500,
           "{\"correlation\": 4, \"stream\": 9}"),
        mk("kernel", "ncclDevKernel_AllReduce_Sum_f32", 5000, 600, SIZED(5, 9, 2000, "Float")),
        mk("kernel", "ncclDevKernel_AllReduce_Sum_f32", 5300, 600, SIZED(6, 10, 1000, "Float")),
        mk("kernel", "gemm", 5500, 200, "{\"stream\": 7, \"correlation\": 7}"),
        mk("kernel", "ncclKernel_SendRecv_RING_SIMPLE", 7000, 100, "{\"stream\": 11, \"correlation\": 8}"),
    };
    vp_gpuwork w;
    pass(&w, ev, sizeof ev / sizeof *ev, vp_comm_observe, c);
    /* 6 communication kernels and the 2 gemms, which a collective op seen
     * before them (record_param_comms) might have launched: they stay
     * compute, since their launches are outside it */
    assert_int_equal(c->file_colls, 8);
    assert_int_equal(c->file_rpcs, 1);
    vp_comm_rank *r = vp_comm_new_rank(c);
    r->rank = 3;
    r->path = strdup("rank3.json");
    vp_comm_add_rank(c, &w, r, 0);
    vp_gpuwork_free(&w);
}

static void test_comm_exposed(void **state)
{
    (void)state;
    vp_comm c;
    vp_comm_init(&c);
    comm_rank(&c);
    const vp_comm_rank *r = &c.ranks[0];
    assert_int_equal(r->t.span, 6100);
    assert_int_equal(r->t.compute, 1200);
    assert_int_equal(r->t.comm, 2400);
    assert_int_equal(r->t.overlap, 700);
    assert_int_equal(r->t.exposed, 1700);   /* the overlapping pair counts once here */
    assert_int_equal(r->t.free, 3200);
    assert_int_equal(r->t.idle, 3200);
    assert_int_equal(r->step_time, 10000);
    assert_int_equal(r->nsteps, 1);
    assert_int_equal(r->nsc, 6);
    assert_int_equal(r->sc[0].step, 1);

    /* In the order first seen: all-reduce on stream 9 (hidden 300 + the
     * first of the pair, 100 of 600 hidden), all-gather (200 of 600
     * hidden), reduce-scatter (exposed), all-reduce on stream 10 (200 of
     * 600 hidden), send/recv (exposed, no size). */
    assert_int_equal(c.ngroups, 5);
    const vp_comm_group *g = c.groups;
    assert_int_equal(g[0].type, VP_COLL_ALLREDUCE);
    assert_int_equal(g[0].stream, 9);
    assert_int_equal(g[0].group, 8);
    assert_int_equal(g[0].pg, 0);
    assert_int_equal(g[0].count, 2);
    assert_int_equal(g[0].total, 900);
    assert_int_equal(g[0].exposed, 500);
    assert_int_equal(g[0].sized_bytes, 12000);
    assert_int_equal(g[0].sized_time, 900);
    assert_int_equal(g[1].type, VP_COLL_ALLGATHER);
    assert_int_equal(g[1].exposed, 400);
    assert_int_equal(g[1].sized_bytes, 8000);
    assert_int_equal(g[2].type, VP_COLL_REDUCESCATTER);
    assert_int_equal(g[2].total, 500);
    assert_int_equal(g[2].exposed, 500);
    assert_int_equal(g[2].group, 4);           /* from record_param_comms */
    assert_int_equal(g[2].pg, -1);
    assert_int_equal(g[2].sized_bytes, 8192);
    assert_int_equal(g[3].type, VP_COLL_ALLREDUCE);
    assert_int_equal(g[3].stream, 10);
    assert_int_equal(g[3].exposed, 400);
    assert_int_equal(g[4].type, VP_COLL_SENDRECV);
    assert_int_equal(g[4].exposed, 100);
    assert_int_equal(g[4].sized_count, 0);

    /* Most time first; the tie at 600 goes to the lower type. */
    vp_comm_sort_groups(&c);
    assert_int_equal(c.groups[0].total, 900);
    assert_int_equal(c.groups[1].type, VP_COLL_ALLREDUCE);
    assert_int_equal(c.groups[1].stream, 10);
    assert_int_equal(c.groups[2].type, VP_COLL_ALLGATHER);
    assert_int_equal(c.groups[3].type, VP_COLL_REDUCESCATTER);
    assert_int_equal(c.groups[4].type, VP_COLL_SENDRECV);
    vp_comm_free(&c);
}

/* A reader that numbers every GPU event in its aux, as the run metrics
 * do, with comm riding on its pass. */
static void numbering_reader(void *ctx, vp_gpuwork *w, long gi, const vp_event *ev)
{
    if (gi >= 0)
        w->ev[gi].aux = 1000 + (uint32_t)gi;
    vp_comm_observe(ctx, w, gi, ev);
}

/* --steps 1 drops the second step's work, a communication kernel between
 * two kept ones among it: comm finds its records' events by itself, and
 * the reader's aux stays the reader's. */
static void test_comm_steps_under_a_reader(void **state)
{
    (void)state;
    vp_event ev[] = {
        mk("user_annotation", "ProfilerStep#1", 0, 1000, NULL),
        mk("user_annotation", "ProfilerStep#2", 1000, 1000, NULL),
        LAUNCH(10, 1), LAUNCH(20, 2), LAUNCH(1010, 3), LAUNCH(1020, 4), LAUNCH(30, 5),
        mk("kernel", "gemm", 1100, 100, "{\"stream\": 7, \"correlation\": 3}"),
        mk("kernel", "ncclDevKernel_AllReduce_Sum_f32", 100, 100, SIZED(1, 9, 1000, "Float")),
        mk("kernel", "ncclDevKernel_AllGather_RING_LL", 1200, 50, SIZED(4, 9, 1000, "Float")),
        mk("kernel", "gemm", 150, 100, "{\"stream\": 7, \"correlation\": 2}"),
        mk("kernel", "ncclKernel_SendRecv_RING_SIMPLE", 300, 40,
           "{\"stream\": 11, \"correlation\": 5}"),
    };
    vp_comm c;
    vp_comm_init(&c);
    vp_gpuwork w;
    vp_gpuwork_init(&w);
    for (size_t i = 0; i < sizeof ev / sizeof *ev; i++)
        numbering_reader(&c, &w, vp_gpuwork_observe(&w, &ev[i]), &ev[i]);
    vp_step_range range;
    assert_int_equal(vp_step_range_parse("1", &range), 0);
    vp_gpuwork_resolve(&w, &range);
    assert_int_equal(w.n, 3);
    vp_comm_rank *r = vp_comm_new_rank(&c);
    r->path = strdup("rank0.json");
    vp_comm_add_rank(&c, &w, r, 1);
    assert_int_equal(w.ev[0].aux, 1001);
    assert_int_equal(w.ev[1].aux, 1003);
    assert_int_equal(w.ev[2].aux, 1004);
    assert_int_equal(c.ngroups, 2);
    assert_int_equal(c.groups[0].type, VP_COLL_ALLREDUCE);
    assert_int_equal(c.groups[0].count, 1);
    assert_int_equal(c.groups[0].exposed, 50);   /* [150, 200) hidden by the gemm */
    assert_int_equal(c.groups[0].sized_bytes, 4000);
    assert_int_equal(c.groups[1].type, VP_COLL_SENDRECV);
    assert_int_equal(c.groups[1].stream, 11);
    assert_int_equal(c.groups[1].exposed, 40);
    assert_int_equal(r->nsc, 2);
    assert_int_equal(r->sc[1].start, 300);
    vp_gpuwork_free(&w);
    vp_comm_free(&c);
}

static void test_comm_bandwidth(void **state)
{
    (void)state;
    vp_comm c;
    vp_comm_init(&c);
    comm_rank(&c);
    double alg = 0, bus = 0;
    /* all-reduce of 8: 2(n-1)/n */
    assert_int_equal(vp_comm_bandwidth(&c.groups[0], &alg, &bus), 2);
    assert_true(alg == 12000.0 / 900.0);
    assert_true(bus == 12000.0 / 900.0 * 1.75);
    /* all-gather of 8: (n-1)/n */
    assert_int_equal(vp_comm_bandwidth(&c.groups[1], &alg, &bus), 2);
    assert_true(alg == 8000.0 / 600.0);
    assert_true(bus == 8000.0 / 600.0 * 0.875);
    /* reduce-scatter of 4: 8192 B in 500 ns */
    assert_int_equal(vp_comm_bandwidth(&c.groups[2], &alg, &bus), 2);
    assert_true(alg == 16.384);
    assert_true(bus == 12.288);
    /* no size: neither */
    assert_int_equal(vp_comm_bandwidth(&c.groups[4], &alg, &bus), 0);
    /* a size but no group size: algbw only */
    vp_comm_group g = {VP_COLL_ALLREDUCE, -1, -1, 0, 1, 100, 0, 400, 100, 1};
    assert_int_equal(vp_comm_bandwidth(&g, &alg, &bus), 1);
    assert_true(alg == 4.0);
    vp_comm_free(&c);
}

static void add_sc(vp_comm_rank *r, long step, int64_t start, int64_t dur)
{
    r->sc = realloc(r->sc, (r->nsc + 1) * sizeof *r->sc);
    r->sc[r->nsc++] = (vp_comm_step_coll){step, start, dur};
}

static void test_comm_stragglers_and_spread(void **state)
{
    (void)state;
    vp_comm c;
    vp_comm_init(&c);
    vp_comm_rank *a = vp_comm_new_rank(&c);
    vp_comm_rank *b = vp_comm_new_rank(&c);
    a->rank = 0;
    b->rank = 1;
    /* step 1: waits 0 + 200 on rank 0, 150 + 0 on rank 1 */
    add_sc(a, 1, 200, 300);
    add_sc(a, 1, 100, 100);
    add_sc(b, 1, 100, 250);
    add_sc(b, 1, 400, 100);
    /* step 2: one collective on rank 0, two on rank 1 */
    add_sc(a, 2, 1000, 50);
    add_sc(b, 2, 1000, 80);
    add_sc(b, 2, 1100, 10);
    /* step 3: rank 1 only */
    add_sc(b, 3, 2000, 10);
    a->t.compute = 700;
    b->t.compute = 500;
    vp_comm_straggler *rows;
    size_t uneven, n = vp_comm_stragglers(&c, &rows, &uneven);
    assert_int_equal(n, 2);
    assert_int_equal(uneven, 1);
    assert_int_equal(rows[0].step, 1);
    assert_int_equal(rows[0].collectives, 2);
    assert_int_equal(rows[0].straggler, 1);
    assert_int_equal(rows[0].its_wait, 150);
    assert_int_equal(rows[0].waiter, 0);
    assert_int_equal(rows[0].max_wait, 200);
    assert_int_equal(rows[1].step, 2);
    assert_int_equal(rows[1].collectives, 1);
    assert_int_equal(rows[1].straggler, 0);
    assert_int_equal(rows[1].its_wait, 0);
    assert_int_equal(rows[1].waiter, 1);
    assert_int_equal(rows[1].max_wait, 30);
    free(rows);

    /* Over both steps rank 1 waited 150 + 30, rank 0 200 + 0: rank 1 is
     * the slowest although rank 0 computes more (the old note's rule). */
    vp_comm_slowest sl;
    assert_int_equal(vp_comm_slowest_rank(&c, &sl), 1);
    assert_int_equal(sl.rank, 1);
    assert_int_equal(sl.wait, 180);
    assert_int_equal(sl.waiter, 0);
    assert_int_equal(sl.max_wait, 200);
    assert_int_equal(sl.steps, 2);

    vp_comm_spread s;
    vp_comm_spread_of(&c, 1, &s);   /* Computing */
    assert_int_equal(s.min, 500);
    assert_int_equal(s.max, 700);
    assert_true(s.median == 600.0);
    assert_int_equal(s.min_rank, 1);
    assert_int_equal(s.max_rank, 0);
    vp_comm_free(&c);
}

static void test_comm_save_merge(void **state)
{
    (void)state;
    vp_comm c;
    vp_comm_init(&c);
    comm_rank(&c);
    vp_buf s1 = {0}, s2 = {0};
    vp_comm_save(&c, &s1);

    vp_comm m;
    vp_comm_init(&m);
    vp_error err = {0};
    assert_int_equal(vp_comm_merge(&m, s1.data, s1.len, &err), 0);
    vp_comm_save(&m, &s2);
    assert_int_equal(s1.len, s2.len);
    assert_memory_equal(s1.data, s2.data, s1.len);
    /* A second partial: its ranks are appended, its groups added. */
    assert_int_equal(vp_comm_merge(&m, s1.data, s1.len, &err), 0);
    assert_int_equal(m.nranks, 2);
    assert_string_equal(m.ranks[1].path, "rank3.json");
    assert_int_equal(m.ranks[1].t.exposed, 1700);
    assert_int_equal(m.ranks[1].nsc, 6);
    assert_int_equal(m.ngroups, 5);
    assert_int_equal(m.groups[0].count, 4);
    assert_int_equal(m.groups[0].exposed, 1000);
    assert_int_equal(m.groups[2].sized_bytes, 2 * 8192);
    assert_int_equal(vp_strmap_count(m.pgs), 1);
    /* Cut short: an error, never a crash. */
    assert_int_equal(vp_comm_merge(&m, s1.data, s1.len - 1, &err), -1);
    assert_int_equal(err.status, 3);
    vp_buf_free(&s1);
    vp_buf_free(&s2);
    vp_comm_free(&m);
    vp_comm_free(&c);
}

/* Two steps: step 1 with data loading, forward, backward and optimizer
 * phases and a kernel, a collective and a memcpy; step 2 with a kernel;
 * a kernel launched after both. */
static void steps_rank(vp_breakdown *b, long rank)
{
    vp_event ev[] = {
        mk("user_annotation", "ProfilerStep#1", 0, 1000, NULL),
        mk("user_annotation", "ProfilerStep#2", 1000, 1000, NULL),
        mk("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10,
           100, NULL),
        mk("cpu_op", "autograd::engine::evaluate_function: AddBackward0", 500, 100, NULL),
        mk("cpu_op", "autograd::engine::evaluate_function: MulBackward0", 650, 150, NULL),
        mk("user_annotation", "Optimizer.step#SGD.step", 850, 100, NULL),
        mk("cuda_runtime", "cudaLaunchKernel", 200, 50, "{\"correlation\": 1}"),
        LAUNCH(300, 2), LAUNCH(400, 3), LAUNCH(1100, 4), LAUNCH(2500, 5),
        mk("kernel", "gemm", 300, 30, "{\"stream\": 7, \"correlation\": 1}"),
        mk("kernel", "ncclDevKernel_AllReduce_Sum_f32", 320, 200, "{\"stream\": 9, \"correlation\": 2}"),
        mk("gpu_memcpy", "Memcpy HtoD", 600, 100, "{\"stream\": 7, \"correlation\": 3}"),
        mk("kernel", "gemm", 1200, 200, "{\"stream\": 7, \"correlation\": 4}"),
        mk("kernel", "gemm", 2600, 100, "{\"stream\": 7, \"correlation\": 5}"),
    };
    vp_gpuwork w;
    pass(&w, ev, sizeof ev / sizeof *ev, vp_breakdown_observe, b);
    vp_breakdown_add_steps(b, &w, rank, 0);
    vp_gpuwork_free(&w);
}

static void test_steps_breakdown(void **state)
{
    (void)state;
    vp_breakdown b;
    vp_breakdown_init(&b);
    steps_rank(&b, 0);
    assert_int_equal(b.nfiles, 1);
    assert_int_equal(b.nrows, 2);
    assert_int_equal(b.outside, 1);
    assert_int_equal(b.empty_steps, 0);
    const vp_step_row *r = &b.rows[0];
    assert_int_equal(r->step, 1);
    assert_true(r->has_cpu);
    const int64_t want1[VP_BD_COUNT] = {
        [VP_BD_CPU] = 1000, [VP_BD_SPAN] = 400, [VP_BD_BUSY] = 320, [VP_BD_COMPUTE] = 30,
        [VP_BD_EXPOSED] = 190, [VP_BD_MEMORY] = 100, [VP_BD_IDLE] = 80, [VP_BD_DATA] = 100,
        [VP_BD_FWD] = 400, [VP_BD_BWD] = 300, [VP_BD_OPT] = 100, [VP_BD_KERNELS] = 2,
        [VP_BD_SHORT] = 1};
    for (int k = 0; k < VP_BD_COUNT; k++)
        assert_int_equal(r->v[k], want1[k]);
    r = &b.rows[1];
    assert_int_equal(r->step, 2);
    const int64_t want2[VP_BD_COUNT] = {
        [VP_BD_CPU] = 1000, [VP_BD_SPAN] = 200, [VP_BD_BUSY] = 200, [VP_BD_COMPUTE] = 200,
        [VP_BD_FWD] = 1000, [VP_BD_KERNELS] = 1};
    for (int k = 0; k < VP_BD_COUNT; k++)
        assert_int_equal(r->v[k], want2[k]);

    vp_summary s;
    assert_int_equal(vp_breakdown_summary(&b, VP_BD_COMPUTE, &s), 1);
    assert_true(s.mean == 115.0 && s.median == 115.0);
    assert_int_equal(s.min, 30);
    assert_int_equal(s.max, 200);

    /* A second rank: per step the largest value of each column. */
    steps_rank(&b, 1);
    b.rows[3].v[VP_BD_COMPUTE] = 250;
    vp_breakdown_max_over_ranks(&b);
    assert_int_equal(b.nrows, 2);
    assert_int_equal(b.rows[1].v[VP_BD_COMPUTE], 250);
    assert_int_equal(b.rows[0].v[VP_BD_EXPOSED], 190);
    vp_breakdown_free(&b);
}

static void test_steps_no_step_windows(void **state)
{
    (void)state;
    vp_event ev[] = {
        LAUNCH(0, 1),
        mk("kernel", "gemm", 100, 3, "{\"stream\": 7, \"correlation\": 1}"),
        mk("kernel", "gemm", 200, 50, "{\"stream\": 7}"),
    };
    vp_breakdown b;
    vp_breakdown_init(&b);
    vp_gpuwork w;
    pass(&w, ev, 3, vp_breakdown_observe, &b);
    vp_breakdown_add_steps(&b, &w, 0, 0);
    vp_gpuwork_free(&w);
    assert_int_equal(b.no_steps_files, 1);
    assert_int_equal(b.nrows, 1);
    assert_int_equal(b.rows[0].step, -1);
    assert_false(b.rows[0].has_cpu);
    assert_int_equal(b.rows[0].v[VP_BD_SPAN], 150);
    assert_int_equal(b.rows[0].v[VP_BD_SHORT], 1);
    vp_summary s;
    assert_int_equal(vp_breakdown_summary(&b, VP_BD_CPU, &s), 0);
    vp_breakdown_free(&b);
}

/* Stream 7: a host wait of 10 (launched at 205, after the stream went
 * idle at 200), an other gap of 100, a kernel wait of 20, an overlap (no
 * gap), a kernel wait of 10 after an unlaunched kernel.  Stream 9: one
 * kernel, no gaps. */
static void idle_rank(vp_breakdown *b)
{
    vp_event ev[] = {
        LAUNCH(50, 1), LAUNCH(205, 2), LAUNCH(150, 3), LAUNCH(160, 4), LAUNCH(170, 5),
        LAUNCH(60, 7),
        mk("kernel", "gemm", 100, 100, "{\"stream\": 7, \"correlation\": 1}"),
        mk("kernel", "gemm", 210, 90, "{\"stream\": 7, \"correlation\": 2}"),
        mk("kernel", "gemm", 400, 100, "{\"stream\": 7, \"correlation\": 3}"),
        mk("kernel", "gemm", 520, 80, "{\"stream\": 7, \"correlation\": 4}"),
        mk("kernel", "gemm", 550, 100, "{\"stream\": 7, \"correlation\": 5}"),
        mk("kernel", "gemm", 660, 40, "{\"stream\": 7}"),
        mk("kernel", "gemm", 100, 50, "{\"stream\": 9, \"correlation\": 7}"),
        mk("cuda_sync", "Stream Sync", 300, 90, "{\"stream\": 7, \"correlation\": 8}"),
    };
    vp_gpuwork w;
    pass(&w, ev, sizeof ev / sizeof *ev, NULL, NULL);
    vp_breakdown_add_idle(b, &w, 2, 30);
    vp_gpuwork_free(&w);
}

static void test_idle_rows(void **state)
{
    (void)state;
    vp_breakdown b;
    vp_breakdown_init(&b);
    idle_rank(&b);
    assert_int_equal(b.nfiles, 1);
    assert_int_equal(b.ntrows, 1);
    assert_int_equal(b.trows[0].rank, 2);
    assert_int_equal(b.trows[0].t.span, 600);
    assert_int_equal(b.trows[0].t.compute, 460);
    assert_int_equal(b.trows[0].t.idle, 50);   /* the sync fills [300, 390) */
    assert_int_equal(b.trows[0].t.non_compute, 90);
    assert_int_equal(b.nirows, 2);
    const vp_idle_row *r = &b.irows[0];
    assert_int_equal(r->rank, 2);
    assert_int_equal(r->stream, 7);
    assert_int_equal(r->host, 10);
    assert_int_equal(r->kernel, 30);
    assert_int_equal(r->other, 100);
    r = &b.irows[1];
    assert_int_equal(r->stream, 9);
    assert_int_equal(r->host + r->kernel + r->other, 0);
    vp_breakdown_free(&b);
}

static void test_steps_save_merge(void **state)
{
    (void)state;
    vp_breakdown b;
    vp_breakdown_init(&b);
    steps_rank(&b, 0);
    idle_rank(&b);
    vp_buf s1 = {0}, s2 = {0};
    vp_breakdown_save(&b, &s1);
    vp_breakdown m;
    vp_breakdown_init(&m);
    vp_error err = {0};
    assert_int_equal(vp_breakdown_merge(&m, s1.data, s1.len, &err), 0);
    vp_breakdown_save(&m, &s2);
    assert_int_equal(s1.len, s2.len);
    assert_memory_equal(s1.data, s2.data, s1.len);
    assert_int_equal(vp_breakdown_merge(&m, s1.data, s1.len, &err), 0);
    assert_int_equal(m.nfiles, 4);
    assert_int_equal(m.nrows, 4);
    assert_int_equal(m.nirows, 4);
    assert_int_equal(m.ntrows, 2);
    assert_int_equal(m.outside, 2);
    assert_int_equal(m.rows[2].v[VP_BD_FWD], 400);
    assert_int_equal(m.irows[2].other, 100);
    assert_int_equal(m.trows[1].t.compute, 460);
    assert_int_equal(vp_breakdown_merge(&m, s1.data, s1.len - 1, &err), -1);
    assert_int_equal(err.status, 3);
    vp_buf_free(&s1);
    vp_buf_free(&s2);
    vp_breakdown_free(&m);
    vp_breakdown_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test(test_arg_names),
        cmocka_unit_test(test_factors_and_dtypes),
        cmocka_unit_test(test_gpuwork_measure_and_steps),
        cmocka_unit_test(test_gpu_class_times),
        cmocka_unit_test(test_comm_exposed),
        cmocka_unit_test(test_comm_steps_under_a_reader),
        cmocka_unit_test(test_comm_bandwidth),
        cmocka_unit_test(test_comm_stragglers_and_spread),
        cmocka_unit_test(test_comm_save_merge),
        cmocka_unit_test(test_steps_breakdown),
        cmocka_unit_test(test_steps_no_step_windows),
        cmocka_unit_test(test_idle_rows),
        cmocka_unit_test(test_steps_save_merge),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
