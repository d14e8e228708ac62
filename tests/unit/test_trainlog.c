/* Unit tests for src/flops/trainlog.c: Megatron-LM iteration lines, the
 * argument dump, generic key/value lines, and the constructed log in
 * tests/data/models. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/trainlog.h"

#include "tmppath.h"

static int parse(const char *line, vp_iter_rec *r)
{
    return vp_trainlog_parse_line(line, strlen(line), r);
}

static void test_megatron_line(void **state)
{
    vp_iter_rec r;
    (void)state;
    assert_int_equal(parse(" [2025-06-02 14:10:18.125678] iteration       20/    1000 | "
                           "consumed samples:         2560 | elapsed time per iteration (ms): "
                           "1821.7 | throughput per GPU (TFLOP/s/GPU): 462.9 | learning rate: "
                           "3.000000E-06 | global batch size:   128 | lm loss: 2.301847E+00 |",
                           &r), 1);
    assert_int_equal(r.kind, VP_LOG_MEGATRON);
    assert_int_equal(r.iteration, 20);
    assert_true(fabs(r.time_s - 1.8217) < 1e-12);
    assert_true(r.tflops == 462.9);
    assert_int_equal(r.global_batch, 128);
    assert_true(isnan(r.tokens_per_s));

    /* Without --log-throughput there is no TFLOP/s field. */
    assert_int_equal(parse(" iteration        1/     100 | consumed samples: 8 | elapsed time "
                           "per iteration (ms): 95.0 | learning rate: 1.0E-05 | global batch "
                           "size:     8 |", &r), 1);
    assert_true(isnan(r.tflops));
    assert_true(fabs(r.time_s - 0.095) < 1e-12);

    /* Other Megatron lines are not records. */
    assert_int_equal(parse("[after training is done] datetime: 2025-06-02 14:20:00", &r), 0);
    assert_int_equal(parse("", &r), 0);
}

static void test_generic_lines(void **state)
{
    vp_iter_rec r;
    (void)state;
    assert_int_equal(parse("step: 20  loss: 2.3012  tokens/s/gpu: 9,000  step_time: 1.82s", &r), 1);
    assert_int_equal(r.kind, VP_LOG_GENERIC);
    assert_int_equal(r.iteration, 20);
    assert_true(r.tokens_per_s == 9000 && r.tokens_per_gpu);
    assert_true(fabs(r.time_s - 1.82) < 1e-12);

    assert_int_equal(parse("iter=7 step_time=1820ms tokens_per_second=576000", &r), 1);
    assert_int_equal(r.iteration, 7);
    assert_true(fabs(r.time_s - 1.82) < 1e-12);
    assert_true(r.tokens_per_s == 576000 && !r.tokens_per_gpu);

    assert_int_equal(parse("{'global_step': 3, 'step_time_ms': 250.5, 'tflops': 401.2}", &r), 1);
    assert_int_equal(r.iteration, 3);
    assert_true(fabs(r.time_s - 0.2505) < 1e-12);
    assert_true(r.tflops == 401.2);

    assert_int_equal(parse("step_time(ms): 12.5, gbs: 64", &r), 1);
    assert_true(fabs(r.time_s - 0.0125) < 1e-12);
    assert_int_equal(r.global_batch, 64);

    /* A list "1,2" is not a thousands group; timestamps are not keys. */
    assert_int_equal(parse("tps: 1,25 at 12:30:01", &r), 1);
    assert_true(r.tokens_per_s == 1);
    assert_int_equal(parse("loss: 2.3 lr=1e-4", &r), 0);
    assert_int_equal(parse("step: 5", &r), 0);  /* no time, no throughput */
}

static void test_read_log(void **state)
{
    const char *dir = getenv("VPROF_TEST_DATA");
    char path[1024];
    vp_trainlog log;
    vp_error err = {0};
    (void)state;
    snprintf(path, sizeof path, "%s/models/megatron-llama3-8b.log", dir ? dir : "tests/data");
    assert_int_equal(vp_trainlog_read(path, &log, &err), 0);
    assert_int_equal(log.n, 6);
    assert_int_equal(log.world_size, 64);
    assert_int_equal(log.seq_length, 8192);
    assert_int_equal(log.global_batch, 128);
    assert_int_equal(log.recs[0].iteration, 10);
    assert_int_equal(log.recs[5].iteration, 60);
    assert_true(log.recs[1].tflops == 462.9);
    assert_int_equal(log.recs[0].line, 16);
    vp_trainlog_free(&log);

    memset(&err, 0, sizeof err);
    assert_int_equal(vp_trainlog_read("/nonexistent/x.log", &log, &err), -1);
    assert_int_equal(err.status, VP_EXIT_INPUT);
}

static void test_long_line(void **state)
{
    char path[512];
    int fd = mkstemp(test_tmp_template(path, sizeof path, "vprof-trainlog"));
    FILE *f = fdopen(fd, "w");
    vp_trainlog log;
    vp_error err = {0};
    (void)state;
    /* A line longer than the limit, with a record after its cut-off part,
     * then a normal record: the cut-off rest is not read as a line. */
    for (int i = 0; i < VP_TRAINLOG_MAX_LINE + 100; i++)
        fputc('x', f);
    fputs(" step_time: 9\nstep: 2 step_time: 1.5\n", f);
    fclose(f);
    assert_int_equal(vp_trainlog_read(path, &log, &err), 0);
    remove(path);
    assert_int_equal(log.n, 1);
    assert_int_equal(log.recs[0].iteration, 2);
    assert_int_equal(log.recs[0].line, 2);
    vp_trainlog_free(&log);
}

/* VeOmni's EnvironMeter keys, bare and prefixed; a CSV export's rows. */
static void test_veomni(void **state)
{
    vp_iter_rec r;
    (void)state;
    assert_int_equal(parse("{'flops_achieved(T)': 2400.5, 'flops_promised(T)': 8000.0, 'mfu': 0.3, "
                           "'tokens_per_second(M)': 0.5}", &r), 1);
    assert_true(r.flops_achieved == 2400.5);
    assert_true(r.flops_promised == 8000.0);
    assert_true(r.log_mfu == 0.3);
    assert_true(isnan(r.tokens_per_s));   /* (M) is not a tokens/s key */
    assert_int_equal(parse("{\"efficiency/flops_achieved(T)\": 10, \"efficiency/mfu\": 0.1}", &r), 1);
    assert_true(r.flops_achieved == 10);
    assert_true(r.log_mfu == 0.1);
    assert_int_equal(parse("xflops_achieved(T)=3 other_mfu=1", &r), 0);

    vp_log_cols c;
    const char *head = "\"Step\",\"run - flops_achieved(T)\",\"flops_promised(T)\",\"loss\"";
    assert_int_equal(vp_trainlog_csv_header(head, strlen(head), &c), 1);
    assert_int_equal(c.step, 0);
    assert_int_equal(c.achieved, 1);
    assert_int_equal(c.promised, 2);
    assert_int_equal(c.mfu, -1);
    assert_int_equal(vp_trainlog_csv_row(&c, "7,12.5,50,2.0", 13, &r), 1);
    assert_int_equal(r.iteration, 7);
    assert_true(r.flops_achieved == 12.5 && r.flops_promised == 50);
    assert_int_equal(vp_trainlog_csv_row(&c, "8,,,2.0", 7, &r), 0);
    assert_int_equal(vp_trainlog_csv_header("step,loss", 9, &c), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron_line),
        cmocka_unit_test(test_generic_lines),
        cmocka_unit_test(test_read_log),
        cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_veomni),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
