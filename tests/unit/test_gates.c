/* The gate language: parsing, units, and evaluation on hand-made runs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/gates.h"
#include "vprof/runstats.h"

static void parse_ok(const char *text, vp_gate *g)
{
    char msg[256];
    size_t pos = 99;
    int rc = vp_gate_parse(text, g, msg, sizeof msg, &pos);
    if (rc != 0)
        fail_msg("'%s': %s at %zu", text, msg, pos);
}

static void parse_bad(const char *text, const char *want, size_t want_pos)
{
    vp_gate g;
    char msg[256];
    size_t pos = 99;
    assert_int_equal(vp_gate_parse(text, &g, msg, sizeof msg, &pos), -1);
    assert_string_equal(msg, want);
    assert_int_equal(pos, want_pos);
}

static void test_parse(void **state)
{
    (void)state;
    vp_gate g;
    parse_ok("step.median > +5%", &g);
    assert_string_equal(g.metric, "step.median");
    assert_int_equal(g.op, VP_GATE_GT);
    assert_int_equal(g.mode, VP_GATE_RELATIVE);
    assert_true(fabs(g.value - 0.05) < 1e-12);
    vp_gate_free(&g);

    parse_ok("step.median < 700ms", &g);
    assert_int_equal(g.mode, VP_GATE_VALUE);
    assert_true(g.value == 7e8);
    vp_gate_free(&g);

    parse_ok("memory.peak_allocated <= 1.5GiB", &g);
    assert_true(g.value == 1.5 * 1073741824.0);
    vp_gate_free(&g);

    parse_ok("mfu >= 40%", &g);   /* a ratio: 40% is 0.40 */
    assert_true(fabs(g.value - 0.40) < 1e-12);
    assert_int_equal(g.mode, VP_GATE_VALUE);
    vp_gate_free(&g);

    parse_ok("comm.exposed_pct != 30", &g);
    assert_int_equal(g.op, VP_GATE_NE);
    vp_gate_free(&g);

    parse_ok("kernel:flash_fwd.* > +2ms", &g);
    assert_true(g.is_kernel);
    assert_string_equal(g.metric, "flash_fwd.*");
    assert_int_equal(g.mode, VP_GATE_DELTA);
    assert_true(g.value == 2e6);
    vp_gate_free(&g);

    parse_bad("comm.exposd_pct <= 30", "unknown metric", 0);   /* the CLI adds where they are listed */
    parse_bad("step.median +5%", "expected an operator: > >= < <= == !=", 12);
    parse_bad("step.median <== 3", "expected a number", 14);
    parse_bad("step.median > 5parsecs", "unknown unit (ns us ms s, B KiB MiB GiB TiB KB MB GB TB, %)", 15);
    parse_bad("gpu.idle_pct > 5ms", "this unit does not fit the metric's", 16);
    parse_bad("step.median > 5ms extra", "unexpected text after the value", 18);
    parse_bad("kernel:( > 1", "bad regular expression: Unmatched ( or \\(", 7);
    /* a time or a size compared with a bare number: refused, with units to choose */
    parse_bad("step.median < 700", "'700' is a time without a unit: write 700ms, 700us, 700ns or 700s", 14);
    parse_bad("step.median > +5", "'+5' is a time without a unit: write +5ms, +5us, +5ns or +5s", 14);
    parse_bad("kernel:gemm > 1.5", "'1.5' is a time without a unit: write 1.5ms, 1.5us, 1.5ns or 1.5s", 14);
    parse_bad("memory.peak_allocated > 80",
              "'80' is a size without a unit: write 80GiB, 80MiB, 80KiB or 80B", 24);
    parse_bad("step.median > 2pp", "pp (percentage points) fits only a percent metric", 15);
    parse_ok("comm.exposed == 0", &g);   /* zero needs no unit */
    assert_true(g.value == 0);
    vp_gate_free(&g);
    /* percent metrics: a bare number and pp are points; a signed % is relative */
    parse_ok("gpu.idle_pct > 5", &g);
    assert_int_equal(g.mode, VP_GATE_VALUE);
    assert_true(g.value == 5);
    vp_gate_free(&g);
    parse_ok("gpu.idle_pct > +2pp", &g);
    assert_int_equal(g.mode, VP_GATE_DELTA);
    assert_true(g.value == 2);
    vp_gate_free(&g);
    parse_ok("gpu.idle_pct > +2", &g);
    assert_int_equal(g.mode, VP_GATE_DELTA);
    assert_true(g.value == 2);
    vp_gate_free(&g);
    parse_ok("gpu.idle_pct > +10%", &g);
    assert_int_equal(g.mode, VP_GATE_RELATIVE);
    assert_true(fabs(g.value - 0.10) < 1e-12);
    vp_gate_free(&g);
}

/* A run without device work: its device metrics are zeros that measure
 * nothing, so gates on them fail (missing), saying why; a step-time gate
 * still judges. */
static void test_no_device(void **state)
{
    (void)state;
    vp_run *base = vp_run_new(), *cpu = vp_run_new();
    vp_run_set(cpu, "step.median", 75e6);
    vp_run_set(cpu, "gpu.span", 0);
    vp_run_set(cpu, "gpu.idle_pct", 0);
    vp_run_set(cpu, "kernels.count", 0);
    vp_run_set(base, "gpu.span", 2e9);
    vp_run_set(base, "gpu.idle_pct", 54);
    vp_gate g;
    vp_gate_result r;
    char msg[256];
    parse_ok("gpu.idle_pct < 20", &g);
    assert_int_equal(vp_gate_eval(&g, NULL, cpu, &r, msg, sizeof msg), 0);
    assert_int_equal(r.missing, 1);
    assert_string_equal(r.detail, "gpu.idle_pct: the run has no GPU/NPU activity (no kernel, memory "
                                  "copy or collective in the counted events): nothing to judge");
    vp_gate_free(&g);
    /* a change: the base run without device work is named */
    parse_ok("gpu.idle_pct > +5", &g);
    assert_int_equal(vp_gate_eval(&g, cpu, base, &r, msg, sizeof msg), 0);
    assert_int_equal(r.missing, 1);
    assert_string_equal(r.detail, "gpu.idle_pct: the base run has no GPU/NPU activity (no kernel, "
                                  "memory copy or collective in the counted events): nothing to "
                                  "judge");
    vp_gate_free(&g);
    parse_ok("step.median < 100ms", &g);
    assert_int_equal(vp_gate_eval(&g, NULL, cpu, &r, msg, sizeof msg), 0);
    assert_int_equal(r.missing, 0);
    assert_int_equal(r.cond, 1);
    vp_gate_free(&g);
    assert_int_equal(vp_run_has_device_work(cpu), 0);
    assert_int_equal(vp_run_has_device_work(base), 1);
    assert_int_equal(vp_metric_on_device("rank.spread_pct"), 1);
    assert_int_equal(vp_metric_on_device("step.median"), 0);
    assert_int_equal(vp_metric_on_device("memory.peak_allocated"), 0);
    vp_run_free(base);
    vp_run_free(cpu);
}

static void test_eval(void **state)
{
    (void)state;
    vp_run *base = vp_run_new(), *now = vp_run_new();
    vp_run_set(base, "step.median", 100e6);
    vp_run_set(now, "step.median", 107e6);
    vp_run_set(now, "comm.exposed_pct", 25);
    /* both ran on a device: their device metrics measure something */
    vp_run_set(base, "gpu.span", 1e9);
    vp_run_set(now, "gpu.span", 1e9);
    vp_gate g;
    vp_gate_result r;
    char msg[256];

    parse_ok("step.median > +5%", &g);
    assert_int_equal(vp_gate_eval(&g, base, now, &r, msg, sizeof msg), 0);
    assert_int_equal(r.cond, 1);
    assert_string_equal(r.detail, "step.median 100 ms -> 107 ms (+7.00 %; > +5 % is true)");
    /* without a base, a change is a usage error */
    assert_int_equal(vp_gate_eval(&g, NULL, now, &r, msg, sizeof msg), -1);
    vp_gate_free(&g);

    parse_ok("step.median > +10ms", &g);
    assert_int_equal(vp_gate_eval(&g, base, now, &r, msg, sizeof msg), 0);
    assert_int_equal(r.cond, 0);
    assert_string_equal(r.detail, "step.median 100 ms -> 107 ms (change +7.00 ms; > +10.0 ms is false)");
    vp_gate_free(&g);

    parse_ok("comm.exposed_pct <= 30", &g);
    assert_int_equal(vp_gate_eval(&g, NULL, now, &r, msg, sizeof msg), 0);
    assert_int_equal(r.cond, 1);
    assert_string_equal(r.detail, "comm.exposed_pct = 25.00% (<= 30.00% is true)");
    vp_gate_free(&g);

    /* a percent metric's change is in points */
    vp_run_set(base, "comm.exposed_pct", 22.5);
    parse_ok("comm.exposed_pct > +2pp", &g);
    assert_int_equal(vp_gate_eval(&g, base, now, &r, msg, sizeof msg), 0);
    assert_int_equal(r.cond, 1);
    assert_string_equal(r.detail, "comm.exposed_pct 22.50% -> 25.00% (change +2.50 pp; > +2.00 pp is true)");
    vp_gate_free(&g);
    parse_ok("comm.exposed_pct < -1", &g);
    assert_int_equal(vp_gate_eval(&g, base, now, &r, msg, sizeof msg), 0);
    assert_int_equal(r.cond, 0);
    assert_string_equal(r.detail, "comm.exposed_pct 22.50% -> 25.00% (change +2.50 pp; < -1.00 pp is false)");
    vp_gate_free(&g);

    /* a metric the run lacks: missing, which fails either way */
    parse_ok("memory.peak_allocated < 1GiB", &g);
    assert_int_equal(vp_gate_eval(&g, NULL, now, &r, msg, sizeof msg), 0);
    assert_int_equal(r.missing, 1);
    vp_gate_free(&g);

    vp_run_free(base);
    vp_run_free(now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_eval),
        cmocka_unit_test(test_no_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
