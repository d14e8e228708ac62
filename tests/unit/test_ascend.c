/* The Ascend readers: CSV rules, file kinds, step_trace_time stages, the
 * large-packet rule, task classes and HCCL operation names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/ascend_csvwork.h"
#include "vprof/ascend_files.h"
#include "vprof/ascend_groups.h"
#include "vprof/ascend_hccl.h"
#include "vprof/ascend_partial.h"
#include "vprof/ascend_stage_rows.h"
#include "vprof/ascend_stt.h"
#include "vprof/classify.h"
#include "vprof/collective.h"
#include "vprof/csv.h"
#include "vprof/steps.h"

#include "tmppath.h"

static char tmpdir[256];

static char *write_tmp(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_csv_quoting(void **state)
{
    (void)state;
    /* A BOM, CRLF, doubled quotes, commas and a line break inside quotes,
     * a short row, a trailing TAB inside a quoted number. */
    const char *p = write_tmp("q.csv", "\xEF\xBB\xBF"
                                       "Name,Input Shapes,Start Time(us),Call Stack\r\n"
                                       "Slice,\"\"\"2,8193;2;2\"\"\",\"1736413971558972.912\t\",\"a.py:1\r\nb.py:2\"\r\n"
                                       "\r\n"
                                       "Short,x\n");
    vp_error err = {0};
    vp_csv *c = vp_csv_open(p, &err);
    assert_non_null(c);
    assert_int_equal(vp_csv_ncols(c), 4);
    const char *names[] = {"Start Time(us)", NULL};
    int ts = vp_csv_col(c, names);
    assert_int_equal(ts, 2);
    assert_int_equal(vp_csv_next(c, &err), 1);
    assert_string_equal(vp_csv_str(c, 0), "Slice");
    assert_string_equal(vp_csv_str(c, 1), "\"2,8193;2;2\"");
    assert_string_equal(vp_csv_str(c, 3), "a.py:1\r\nb.py:2");
    int64_t ns;
    assert_int_equal(vp_csv_us(vp_csv_field(c, ts), &ns), 0);
    assert_true(ns == 1736413971558972912LL);
    assert_int_equal(vp_csv_next(c, &err), 1);
    assert_int_equal(vp_csv_line(c), 5);   /* the quoted line break counts */
    assert_string_equal(vp_csv_str(c, 0), "Short");
    assert_string_equal(vp_csv_str(c, 3), "");   /* absent field */
    assert_int_equal(vp_csv_next(c, &err), 0);
    vp_csv_close(c);
}

static void test_csv_missing(void **state)
{
    (void)state;
    double d;
    int64_t v;
    assert_int_equal(vp_csv_num((vp_span){"N/A", 3}, &d), 1);
    assert_int_equal(vp_csv_num((vp_span){"", 0}, &d), 1);
    assert_int_equal(vp_csv_num((vp_span){" 4e-06\t", 7}, &d), 0);
    assert_true(d == 4e-06);
    assert_int_equal(vp_csv_int((vp_span){"abc", 3}, &v), -1);
    assert_int_equal(vp_csv_us((vp_span){"1724670453385978.290\t", 21}, &v), 0);
    assert_true(v == 1724670453385978290LL);
}

static void test_csv_open_quote(void **state)
{
    (void)state;
    const char *p = write_tmp("o.csv", "a,b\n1,\"x\n");
    vp_error err = {0};
    vp_csv *c = vp_csv_open(p, &err);
    assert_non_null(c);
    assert_int_equal(vp_csv_next(c, &err), -1);
    assert_non_null(strstr(err.msg, "line 2: a quoted field is not closed"));
    vp_csv_close(c);
    vp_error e2 = {0};
    assert_null(vp_csv_open(write_tmp("e.csv", ""), &e2));
    assert_int_equal(e2.status, VP_EXIT_INPUT);
}

static void test_sniff(void **state)
{
    (void)state;
    assert_int_equal(vp_asc_sniff(write_tmp("k", "Step Id,Model ID,Name,Type,Accelerator Core,Duration(us)\n")),
                     VP_ASC_KERNELS);
    assert_int_equal(vp_asc_sniff(write_tmp("s", "Op Name,OP Type,Task Type,Task Duration(us)\n")),
                     VP_ASC_KERNELS);
    assert_int_equal(vp_asc_sniff(write_tmp("t", "Step,Computing,Communication(Not Overlapped)\n")),
                     VP_ASC_STEP_TRACE);
    assert_int_equal(vp_asc_sniff(write_tmp("m", "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB)\n")),
                     VP_ASC_MEMORY_RECORD);
    assert_int_equal(vp_asc_sniff(write_tmp("n", "Component,Timestamp(us),Total Reserved(MB),Device\r\n")),
                     VP_ASC_MODULE_MEM);
    assert_int_equal(vp_asc_sniff(write_tmp("o", "Name,Size(KB),Allocation Time(us),Release Time(us)\n")),
                     VP_ASC_OPERATOR_MEMORY);
    assert_int_equal(vp_asc_sniff(write_tmp("c", "{\"step2\": {\"p2p\": {\"x@1\": {\"Communication Time Info\": {}}}}}")),
                     VP_ASC_COMM);
    assert_int_equal(vp_asc_sniff(write_tmp("x", "{\"step2\": {\"p2p\": {\"x@1\": {\"0-1\": {\"Transport Type\": \"RDMA\"}}}}}")),
                     VP_ASC_MATRIX);
    assert_int_equal(vp_asc_sniff(write_tmp("j", "[{\"ph\": \"X\"}]")), VP_ASC_TRACE);
    assert_int_equal(vp_asc_sniff(write_tmp("u", "hello\n")), VP_ASC_UNKNOWN);
}

static void test_stage(void **state)
{
    (void)state;
    long r[8];
    assert_int_equal(vp_stt_parse_index("(0, 1, 2, 3)", r, 8), 4);
    assert_int_equal(r[3], 3);
    assert_int_equal(vp_stt_parse_index("7", r, 8), -1);
    vp_stt s = {0};
    for (int k = 0; k < 3; k++) {
        vp_stt_row *x = vp_stt_add(&s);
        x->step = 2;
        x->rank = k;
        x->v[VP_STT_COMPUTING] = 10 + k;
        x->v[VP_STT_FREE] = 30 - k;
        x->have = (1u << VP_STT_COMPUTING) | (1u << VP_STT_FREE);
    }
    vp_stt_row m;
    long two[] = {0, 1};
    assert_int_equal(vp_stt_stage(&s, 2, two, 2, &m), 1);
    assert_int_equal(m.v[VP_STT_COMPUTING], 11);
    assert_int_equal(m.v[VP_STT_FREE], 30);
    assert_int_equal(vp_stt_stage(&s, 2, NULL, 0, &m), 1);
    assert_int_equal(m.v[VP_STT_COMPUTING], 12);
    assert_int_equal(vp_stt_stage(&s, 3, NULL, 0, &m), 0);
    vp_stt_free(&s);
}

static void add_group(vp_stt *s, const char *id, const char *name, const long *r, size_t n)
{
    s->groups = realloc(s->groups, (s->ngroups + 1) * sizeof *s->groups);
    vp_asc_pgroup *g = &s->groups[s->ngroups++];
    g->id = strdup(id);
    g->name = strdup(name);
    g->ranks = malloc(n * sizeof *g->ranks);
    memcpy(g->ranks, r, n * sizeof *r);
    g->n = n;
}

static void test_pipeline_stages(void **state)
{
    (void)state;
    /* tp 2 x pp 2: pipelines {0, 2} and {1, 3}; the tp groups are the
     * stages; the world group holds two ranks of a pipeline: ignored. */
    vp_stt s = {0};
    const long pp0[] = {0, 2}, pp1[] = {3, 1}, tp0[] = {1, 0}, tp1[] = {2, 3};
    const long world[] = {0, 1, 2, 3}, one[] = {0};
    add_group(&s, "a", "pp", pp0, 2);
    add_group(&s, "b", "PP_new_stream", pp1, 2);
    add_group(&s, "c", "tp", tp0, 2);
    add_group(&s, "d", "tp", tp1, 2);
    add_group(&s, "e", "default_group", world, 4);
    add_group(&s, "f", "cp", one, 1);
    vp_asc_stages st;
    assert_int_equal(vp_asc_stages_of(s.groups, s.ngroups, &st), 2);
    assert_int_equal(st.n, 2);
    assert_int_equal(st.first[1], 2);
    assert_int_equal(st.ranks[0], 0);
    assert_int_equal(st.ranks[1], 1);
    assert_int_equal(st.ranks[2], 2);
    assert_int_equal(st.ranks[3], 3);
    vp_asc_stages_free(&st);
    /* no pp group: no pipeline, no stage */
    assert_int_equal(vp_asc_stages_of(s.groups + 2, 3, &st), 0);
    assert_int_equal(st.n, 0);
    vp_asc_stages_free(&st);
    vp_stt_free(&s);

    /* The real rank-0 profiler_metadata.json (tp 2, pp 2, dp 2, 8 ranks):
     * pp [0, 4] and pp_new_stream [0, 4] are one pipeline; default_group,
     * mp and embd [0, 4] hold both its ranks; dp, tp, tp_dp_cp ... make
     * the stage (0, 1, 2, 3). */
    const char *data = getenv("VPROF_TEST_DATA");
    if (!data)
        skip();
    char path[1024];
    snprintf(path, sizeof path, "%s/ascend/msinsight_metadata/profiler_metadata.json", data);
    vp_error err = {0};
    assert_int_equal(vp_asc_read_groups(path, &s, &err), 0);
    assert_int_equal(s.ngroups, 21);
    assert_int_equal(vp_asc_read_groups(path, &s, &err), 0);   /* the same groups: once */
    assert_int_equal(s.ngroups, 21);
    assert_int_equal(vp_asc_stages_of(s.groups, s.ngroups, &st), 1);
    assert_int_equal(st.n, 1);
    assert_int_equal(st.first[1], 4);
    assert_int_equal(st.ranks[3], 3);
    vp_asc_stages_free(&st);
    vp_stt_free(&s);
    assert_int_equal(vp_asc_read_groups(write_tmp("nm.json", "[1]"), &s, &err), -1);
    vp_stt_free(&s);
}

static void test_large_packets(void **state)
{
    (void)state;
    double sizes[] = {65.536, 4e-06, 0.0008};
    int64_t counts[] = {2, 3, 1};
    assert_true(vp_hccl_large_ratio(VP_HCCL_RDMA, sizes, counts, 3) == 2.0 / 6.0);
    /* 65.536 MB is large on HCCS too (> 32 MB); 20.97152 is not. */
    assert_true(vp_hccl_large_ratio(VP_HCCL_HCCS, sizes, counts, 3) == 2.0 / 6.0);
    double s2[] = {20.97152};
    int64_t c2[] = {63};
    assert_true(vp_hccl_large_ratio(VP_HCCL_HCCS, s2, c2, 1) == 0.0);
    assert_true(vp_hccl_large_ratio(VP_HCCL_RDMA, s2, c2, 1) == 1.0);
}

static void test_classes(void **state)
{
    (void)state;
    assert_int_equal(vp_npu_classify("HCCL", 4, "hcom_allReduce__483_2", 21), VP_CLASS_COMM);
    assert_int_equal(vp_npu_classify("AI_CORE", 7, "MatMul", 6), VP_CLASS_COMPUTE);
    assert_int_equal(vp_npu_classify("DSA_SQE", 7, "DropOutGenMask", 14), VP_CLASS_COMPUTE);
    assert_int_equal(vp_npu_classify("SDMA_SQE", 8, "MemcpyAsync", 11), VP_CLASS_MEMORY);
    assert_int_equal(vp_npu_classify("EVENT_WAIT_SQE", 14, "x", 1), VP_CLASS_SYNC);
    assert_int_equal(vp_npu_classify(NULL, 0, "hcom_send__822_0", 16), VP_CLASS_COMM);
    assert_int_equal(vp_npu_classify("Other", 5, "aclnnAdd", 8), VP_CLASS_COMPUTE);
    assert_int_equal(vp_coll_from_kernel("hcom_allReduce__483_2", 21), VP_COLL_ALLREDUCE);
    assert_int_equal(vp_coll_from_kernel("hcom_reduceScatter__483_4", 25), VP_COLL_REDUCESCATTER);
    assert_int_equal(vp_coll_from_kernel("hcom_receive__822_0", 19), VP_COLL_RECV);
    assert_int_equal(vp_coll_from_kernel("hcom_broadcast__483_0", 21), VP_COLL_BROADCAST);
}

static void test_scan_data(void **state)
{
    (void)state;
    const char *data = getenv("VPROF_TEST_DATA");
    if (!data)
        skip();
    char path[1024];
    snprintf(path, sizeof path, "%s/ascend/msinsight_gpt3_rank0_ascend_pt", data);
    vp_asc_run run;
    vp_error err = {0};
    assert_int_equal(vp_asc_scan(path, &run, &err), 0);
    assert_int_equal(run.n, 1);
    assert_int_equal(run.ranks[0].rank, 0);
    assert_string_equal(run.ranks[0].rank_from, "profiler_info");
    assert_non_null(run.ranks[0].files[VP_ASC_KERNELS]);
    assert_non_null(run.ranks[0].files[VP_ASC_MODULE_MEM]);
    assert_null(run.ranks[0].files[VP_ASC_TRACE]);
    vp_asc_run_free(&run);
    snprintf(path, sizeof path, "%s/ascend/run2", data);
    assert_int_equal(vp_asc_scan(path, &run, &err), 0);
    assert_int_equal(run.n, 2);
    assert_int_equal(run.ranks[1].rank, 1);
    assert_non_null(run.ranks[1].files[VP_ASC_TRACE]);
    vp_asc_run_free(&run);
}

/* vp_asc_scan_once: what the first scan of a path found, copied, until
 * vp_asc_scan_forget (a file added since is seen only after it). */
static void test_scan_once(void **state)
{
    (void)state;
    char dir[512], out[600];
    snprintf(dir, sizeof dir, "%s/once_ascend_pt", tmpdir);
    snprintf(out, sizeof out, "%s/ASCEND_PROFILER_OUTPUT", dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(mkdir(out, 0700), 0);
    write_tmp("once_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
              "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
              "1,mm,MatMul,AI_CORE,10,5\n");
    vp_asc_run run;
    vp_error err = {0};
    assert_int_equal(vp_asc_scan_once(dir, &run, &err), 0);
    assert_non_null(run.ranks[0].files[VP_ASC_KERNELS]);
    assert_null(run.ranks[0].files[VP_ASC_STEP_TRACE]);
    vp_asc_run_free(&run);
    write_tmp("once_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
              "Step,Computing,Communication(Not Overlapped),Free\n1,5,0,0\n");
    assert_int_equal(vp_asc_scan_once(dir, &run, &err), 0);
    assert_int_equal(run.n, 1);
    assert_string_equal(run.ranks[0].dir, dir);
    assert_non_null(strstr(run.ranks[0].files[VP_ASC_KERNELS], "kernel_details.csv"));
    assert_null(run.ranks[0].files[VP_ASC_STEP_TRACE]);   /* the kept scan */
    vp_asc_run_free(&run);
    assert_int_equal(vp_asc_scan(dir, &run, &err), 0);
    assert_non_null(run.ranks[0].files[VP_ASC_STEP_TRACE]);
    vp_asc_run_free(&run);
    vp_asc_scan_forget();
    assert_int_equal(vp_asc_scan_once(dir, &run, &err), 0);
    assert_non_null(run.ranks[0].files[VP_ASC_STEP_TRACE]);
    vp_asc_run_free(&run);
    vp_asc_scan_forget();
}

static vp_stt_row *rank_row(vp_stt *s, long step, long rank, int64_t computing, int64_t free_ns)
{
    vp_stt_row *r = vp_stt_add(s);
    r->step = step;
    r->rank = rank;
    r->v[VP_STT_COMPUTING] = computing;
    r->v[VP_STT_FREE] = free_ns;
    r->have = 1u << VP_STT_COMPUTING | 1u << VP_STT_FREE;
    return r;
}

/* Stage rows over all ranks when there are no groups; rows ordered by
 * step, ranks before stages. */
static void test_stage_rows_added(void **state)
{
    (void)state;
    vp_stt s = {0};
    rank_row(&s, 2, 1, 20, 3);
    rank_row(&s, 1, 1, 20, 3);
    rank_row(&s, 1, 0, 10, 5);
    vp_stt_stage_result st;
    vp_stt_stage_rows(&s, 1, &st);
    assert_int_equal(st.added, VP_STT_STAGES_ALL_RANKS);
    assert_int_equal(st.checked, 0);
    assert_int_equal(st.ndiffer, 0);
    assert_int_equal(s.n, 5);
    long want_step[] = {1, 1, 1, 2, 2}, want_rank[] = {0, 1, -1, 1, -1};
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(s.rows[i].step, want_step[i]);
        assert_int_equal(s.rows[i].rank, want_rank[i]);
    }
    assert_true(s.rows[2].is_stage);
    assert_string_equal(s.rows[2].index, "(1, 0)");
    assert_int_equal(s.rows[2].v[VP_STT_COMPUTING], 20);
    assert_int_equal(s.rows[2].v[VP_STT_FREE], 5);
    assert_int_equal(s.rows[4].v[VP_STT_COMPUTING], 20);
    assert_int_equal(s.rows[4].v[VP_STT_FREE], 3);
    vp_stt_stage_result_free(&st);
    vp_stt_free(&s);
}

/* A cluster file's stage row is checked against its ranks, not added. */
static void test_stage_rows_checked(void **state)
{
    (void)state;
    vp_stt s = {0};
    rank_row(&s, 1, 0, 10, 5);
    rank_row(&s, 1, 1, 20, 3);
    vp_stt_row *g = rank_row(&s, 1, -1, 15, 5);
    g->is_stage = 1;
    g->index = strdup("(0, 1)");
    vp_stt_stage_result st;
    vp_stt_stage_rows(&s, 1, &st);
    assert_int_equal(st.added, VP_STT_STAGES_NONE);
    assert_int_equal(st.checked, 1);
    assert_int_equal(st.ndiffer, 1);
    assert_int_equal(st.differ[0].step, 1);
    assert_string_equal(st.differ[0].index, "(0, 1)");
    assert_int_equal(st.differ[0].column, VP_STT_COMPUTING);
    assert_int_equal(st.differ[0].value, 15);
    assert_int_equal(st.differ[0].max, 20);
    assert_int_equal(s.n, 3);
    vp_stt_stage_result_free(&st);
    vp_stt_free(&s);
}

/* Rows, groups and the source survive a partial result. */
static void test_stt_partial(void **state)
{
    (void)state;
    vp_stt s = {0};
    rank_row(&s, 3, 7, 11, 13)->device = 4;
    long ranks[] = {7, 8};
    vp_asc_add_group(&s, "h1", "pp", ranks, 2);
    s.groups_from = VP_ASC_GROUPS_METADATA;
    vp_buf b = {0};
    vp_stt_save(&s, vp_stt_trace_source(1), &b);
    vp_stt back = {0};
    const char *source = NULL;
    vp_rd r;
    vp_rd_init(&r, b.data, b.len);
    assert_int_equal(vp_stt_merge(&back, &source, &r), 0);
    assert_true(vp_rd_done(&r));
    assert_ptr_equal(source, vp_stt_trace_source(1));
    assert_int_equal(back.n, 1);
    assert_int_equal(back.rows[0].step, 3);
    assert_int_equal(back.rows[0].rank, 7);
    assert_int_equal(back.rows[0].device, 4);
    assert_int_equal(back.rows[0].v[VP_STT_COMPUTING], 11);
    assert_int_equal(back.rows[0].v[VP_STT_FREE], 13);
    assert_int_equal(back.rows[0].have, s.rows[0].have);
    assert_int_equal(back.ngroups, 1);
    assert_string_equal(back.groups[0].name, "pp");
    assert_int_equal(back.groups[0].ranks[1], 8);
    assert_int_equal(back.groups_from, VP_ASC_GROUPS_METADATA);
    vp_buf_free(&b);
    vp_stt_free(&back);
    vp_stt_free(&s);
}

/* kernel_details.csv's tasks as device work (summary on a CSV-only rank):
 * each task at its start, classed as kernels classes it, selected by Step
 * Id with the range rule of ProfilerStep numbers. */
static void test_csv_work(void **state)
{
    (void)state;
    const char *path = write_tmp("kd.csv",
        "Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
        "2,16,MatMul,MatMul,AI_CORE,1000,5.0004\n"
        "2,N/A,hcom_receive__1_0,hcom_receive_,HCCL,1003.5,10\n"
        "3,16,Cast,Cast,AI_VECTOR_CORE,2000,1\n"
        "5,17,Slice,Slice,AI_CORE,,2\n"
        "5,17,Add,Add,AI_CORE,3000.25,0.5\n");
    vp_asc_csv_work c;
    vp_error err = {0};
    assert_int_equal(vp_asc_csv_work_read(path, NULL, &c, &err), 0);
    assert_int_equal(c.w.n, 4);             /* Slice has no start */
    assert_int_equal(c.no_start, 1);
    assert_int_equal(c.w.ev[0].start, 1000000);
    assert_int_equal(c.w.ev[0].end, 1005000);   /* 5.0004 us, to the ns */
    assert_int_equal(c.w.ev[0].cls, VP_CLASS_COMPUTE);
    assert_int_equal(c.w.ev[0].stream, 16);
    assert_int_equal(c.w.ev[1].cls, VP_CLASS_COMM);
    assert_int_equal(c.w.ev[1].stream, -1);
    assert_int_equal(c.w.ev[1].flags, VP_GPU_F_BY_TIME | VP_GPU_F_RECEIVE);
    assert_int_equal(c.w.ev[1].device, VP_GPU_DEVICE_NONE);
    assert_int_equal(c.w.ev[3].start, 3000250);
    assert_string_equal(c.names[3], "Add");
    assert_int_equal(c.nsteps, 3);
    assert_int_equal(c.steps[0], 2);
    assert_int_equal(c.steps[2], 5);
    vp_asc_csv_work_free(&c);

    vp_step_range r;
    assert_int_equal(vp_step_range_parse("3:", &r), 0);
    assert_int_equal(vp_asc_csv_work_read(path, &r, &c, &err), 0);
    assert_int_equal(c.w.n, 2);             /* Cast (step 3) and Add (step 5) */
    assert_string_equal(c.names[0], "Cast");
    assert_int_equal(c.nsteps, 2);
    assert_int_equal(c.steps[0], 3);
    vp_asc_csv_work_free(&c);

    /* the rule itself: a single number is that step, negative counts from the end */
    const long v[] = {2, 5, 9};
    size_t a, b;
    assert_int_equal(vp_step_range_parse("5", &r), 0);
    vp_step_range_slice(&r, v, 3, &a, &b);
    assert_int_equal(a, 1);
    assert_int_equal(b, 2);
    assert_int_equal(vp_step_range_parse("7", &r), 0);
    vp_step_range_slice(&r, v, 3, &a, &b);
    assert_int_equal(a, b);                 /* no step 7: none */
    assert_int_equal(vp_step_range_parse(":-1", &r), 0);
    vp_step_range_slice(&r, v, 3, &a, &b);
    assert_int_equal(a, 0);
    assert_int_equal(b, 2);
    long ids[] = {5, 2, 5, 9, 2};
    assert_int_equal(vp_step_ids_distinct(ids, 5), 3);
    assert_int_equal(ids[0], 2);
    assert_int_equal(ids[1], 5);
    assert_int_equal(ids[2], 9);
}

int main(void)
{
    if (!mkdtemp(test_tmp_template(tmpdir, sizeof tmpdir, "vprof-test-ascend")))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_quoting),  cmocka_unit_test(test_csv_missing),
        cmocka_unit_test(test_csv_open_quote), cmocka_unit_test(test_sniff),
        cmocka_unit_test(test_stage),        cmocka_unit_test(test_pipeline_stages),
        cmocka_unit_test(test_large_packets),
        cmocka_unit_test(test_stage_rows_added), cmocka_unit_test(test_stage_rows_checked),
        cmocka_unit_test(test_stt_partial),
        cmocka_unit_test(test_classes),      cmocka_unit_test(test_scan_data),
        cmocka_unit_test(test_scan_once),
        cmocka_unit_test(test_csv_work),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
