/* Unit tests for src/analysis/core/tracepass.c, the one per-file pass of every
 * reader of events: each event seen once in file order, the rank (the
 * trace's, an override, the position), step selection (the pass's own
 * steps, or steps the observer feeds), the shared warnings through the
 * diagnostics handler (with and without a front end's hint), the name
 * in messages, and errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/tracepass.h"

#include "tmppath.h"

/* Two steps (#4, #5), a launch in each, their kernels, one kernel without
 * "dur" and one name with an invalid UTF-8 byte. */
static const char stepped[] =
    "{\"distributedInfo\": {\"rank\": 3}, \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#4\", \"ts\": 0, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#5\", \"ts\": 100, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 110, \"dur\": 5, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\xff\", \"ts\": 20, \"dur\": 10, \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 120, \"dur\": 10, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 130, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"i\", \"name\": \"mark\", \"ts\": 140}\n"
    "]}\n";

/* No steps, no distributedInfo, no rank in the name. */
static const char flat[] = "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}]";

static char dir[256], stepped_path[320], flat_path[320], bad_path[320];
static char warned[8][512];
static int nwarned;

static void keep_warning(void *ctx, vp_diag_kind kind, const char *msg)
{
    (void)ctx;
    assert_int_equal(kind, VP_DIAG_WARNING);
    if (nwarned < 8)
        snprintf(warned[nwarned], sizeof warned[0], "%s", msg);
    nwarned++;
}

static const char *cli_hint(void *ctx, vp_hint code)
{
    (void)ctx;
    return code == VP_HINT_STEPS ? "--steps" : NULL;
}

static int put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-test-tracepass")))
        return -1;
    snprintf(stepped_path, sizeof stepped_path, "%s/stepped.json", dir);
    snprintf(flat_path, sizeof flat_path, "%s/flat.json", dir);
    snprintf(bad_path, sizeof bad_path, "%s/bad.json", dir);
    vp_diag_install(&(vp_diag_handler){.emit = keep_warning, .hint = cli_hint});
    return put(stepped_path, stepped) || put(flat_path, flat) ||
           put(bad_path, "[{\"ph\": \"X\"}, {\"ph\": }]");
}

static int teardown(void **state)
{
    (void)state;
    vp_diag_install(NULL);
    unlink(stepped_path);
    unlink(flat_path);
    unlink(bad_path);
    rmdir(dir);
    return 0;
}

/* What the observer saw: the events in order, by their first letter of
 * name, and whether the pass's steps had each before the observer did. */
typedef struct seen {
    char names[16];
    int n;
    const vp_trace_pass *p;
    int steps_ahead;
} seen;

static void observe(void *ctx, const vp_event *ev)
{
    seen *s = ctx;
    if (s->n < 15)
        s->names[s->n] = ev->name.n ? ev->name.p[0] : '?';
    s->n++;
    /* ProfilerStep#5 at 100 us: the pass gave it to its steps first */
    if (s->p->steps && ev->ts == 100000 && vp_steps_count(s->p->steps) == 2)
        s->steps_ahead = 1;
}

static void test_every_event_rank_no_range(void **state)
{
    (void)state;
    vp_trace_pass p;
    vp_error err = {0};
    seen s = {.p = &p};
    vp_trace_pass_opts o = {.position = 9, .rank = -1};
    assert_int_equal(vp_trace_pass_read(&p, stepped_path, &o, observe, &s, &err), 0);
    assert_int_equal(s.n, 8);
    assert_string_equal(s.names, "PcPckkkm");
    assert_null(p.steps);   /* no range: no steps kept */
    assert_int_equal(p.nsteps, 0);
    assert_int_equal(p.chosen, 0);
    assert_int_equal(p.rank, 3);
    assert_int_equal(p.rank_from, VP_RANK_DISTRIBUTED_INFO);
    nwarned = 0;
    vp_trace_pass_warn(&p, &(vp_trace_pass_warnings){.no_steps_kept = ", so nothing is kept",
                                                     .utf8 = 1});
    assert_int_equal(nwarned, 1);
    char want[512];
    snprintf(want, sizeof want,
             "%s: 1 invalid UTF-8 sequences in names were replaced by U+FFFD", stepped_path);
    assert_string_equal(warned[0], want);
    vp_trace_pass_close(&p);
    assert_null(p.trace);
}

static void test_range_selects(void **state)
{
    (void)state;
    vp_step_range r;
    assert_int_equal(vp_step_range_parse("5", &r), 0);
    vp_trace_pass p;
    vp_error err = {0};
    seen s = {.p = &p};
    vp_trace_pass_opts o = {.range = &r, .position = 9, .rank = 7};
    assert_int_equal(vp_trace_pass_read(&p, stepped_path, &o, observe, &s, &err), 0);
    assert_int_equal(s.steps_ahead, 1);
    assert_non_null(p.steps);
    assert_int_equal(p.own_steps, 1);
    assert_int_equal(p.nsteps, 2);
    assert_int_equal(p.chosen, 1);
    assert_int_equal(vp_steps_number(p.steps, 0), 4);
    assert_int_equal(vp_steps_selected(p.steps, 1), 0);
    assert_int_equal(vp_steps_selected(p.steps, 2), 1);
    assert_int_equal(p.rank, 7);   /* the override wins over distributedInfo */
    nwarned = 0;
    vp_trace_pass_warn(&p, &(vp_trace_pass_warnings){
                               .no_steps_kept = ", so nothing is kept",
                               .skipped = 1,
                               .skipped_what = "kernel events without \"dur\"",
                           });
    assert_int_equal(nwarned, 1);   /* a step is selected; UTF-8 not asked for */
    char want[512];
    snprintf(want, sizeof want, "%s: 1 kernel events without \"dur\" were skipped",
             stepped_path);
    assert_string_equal(warned[0], want);
    vp_trace_pass_close(&p);
}

static void test_range_selects_none(void **state)
{
    (void)state;
    vp_step_range r;
    assert_int_equal(vp_step_range_parse("9:", &r), 0);
    vp_trace_pass p;
    vp_error err = {0};
    seen s = {.p = &p};
    vp_trace_pass_opts o = {.range = &r, .rank = -1};
    assert_int_equal(vp_trace_pass_read(&p, stepped_path, &o, observe, &s, &err), 0);
    assert_int_equal(p.nsteps, 2);
    assert_int_equal(p.chosen, 0);
    nwarned = 0;
    vp_trace_pass_warnings w = {", so no kernel is kept", ": only metadata is kept", 0, NULL, 1};
    vp_trace_pass_warn(&p, &w);
    assert_int_equal(nwarned, 2);
    char want[512];
    snprintf(want, sizeof want,
             "%s: --steps selects none of the steps present (ProfilerStep#4 to #5): only "
             "metadata is kept",
             stepped_path);
    assert_string_equal(warned[0], want);
    snprintf(want, sizeof want,
             "%s: 1 invalid UTF-8 sequences in names were replaced by U+FFFD", stepped_path);
    assert_string_equal(warned[1], want);

    /* Without a front end the range is named, not its option. */
    vp_diag_install(&(vp_diag_handler){.emit = keep_warning});
    nwarned = 0;
    w.utf8 = 0;
    vp_trace_pass_warn(&p, &w);
    vp_diag_install(&(vp_diag_handler){.emit = keep_warning, .hint = cli_hint});
    assert_int_equal(nwarned, 1);
    snprintf(want, sizeof want,
             "%s: the step range selects none of the steps present (ProfilerStep#4 to #5): "
             "only metadata is kept",
             stepped_path);
    assert_string_equal(warned[0], want);
    vp_trace_pass_close(&p);
}

static void test_no_steps_position_rank(void **state)
{
    (void)state;
    vp_step_range r;
    assert_int_equal(vp_step_range_parse(":", &r), 0);
    vp_trace_pass p;
    vp_error err = {0};
    seen s = {.p = &p};
    vp_trace_pass_opts o = {.range = &r, .position = 9, .rank = -1};
    assert_int_equal(vp_trace_pass_read(&p, flat_path, &o, observe, &s, &err), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(p.nsteps, 0);
    assert_int_equal(p.rank, 9);
    assert_int_equal(p.rank_from, VP_RANK_POSITION);
    nwarned = 0;
    vp_trace_pass_warn(&p, &(vp_trace_pass_warnings){.no_steps_kept = ", so no kernel is kept"});
    assert_int_equal(nwarned, 1);
    char want[512];
    snprintf(want, sizeof want,
             "%s: --steps: the trace has no ProfilerStep#N annotations, so no kernel is kept",
             flat_path);
    assert_string_equal(warned[0], want);
    vp_trace_pass_close(&p);
}

/* A name for messages (a spooled standard input's): the warnings and
 * vp_trace_name say it, not the path read. */
static void test_name(void **state)
{
    (void)state;
    vp_trace_pass p;
    vp_error err = {0};
    seen s = {.p = &p};
    vp_trace_pass_opts o = {.name = "standard input", .rank = -1};
    assert_int_equal(vp_trace_pass_read(&p, flat_path, &o, observe, &s, &err), 0);
    assert_string_equal(vp_trace_name(p.trace), "standard input");
    nwarned = 0;
    vp_trace_pass_warn(&p, &(vp_trace_pass_warnings){.skipped = 2, .skipped_what = "events"});
    assert_int_equal(nwarned, 1);
    assert_string_equal(warned[0], "standard input: 2 events were skipped");
    vp_trace_pass_close(&p);
}

/* Steps the observer feeds itself (as vp_gpuwork does): the pass selects
 * them, gives them no event, and leaves them to their owner. */
static void feed(void *ctx, const vp_event *ev)
{
    if (ev->name.n && ev->name.p[0] == 'P')   /* the steps, not the launches */
        vp_steps_observe(ctx, ev);
}

static void test_caller_steps(void **state)
{
    (void)state;
    vp_step_range r;
    assert_int_equal(vp_step_range_parse("4", &r), 0);
    vp_steps *mine = vp_steps_new();
    vp_trace_pass p;
    vp_error err = {0};
    vp_trace_pass_opts o = {.range = &r, .steps = mine, .rank = -1};
    assert_int_equal(vp_trace_pass_read(&p, stepped_path, &o, feed, mine, &err), 0);
    assert_ptr_equal(p.steps, mine);
    assert_int_equal(p.own_steps, 0);
    assert_int_equal(p.nsteps, 2);
    assert_int_equal(p.chosen, 1);
    assert_int_equal(vp_steps_selected(mine, 1), 0);   /* no launch was fed */
    int64_t a, b;
    assert_int_equal(vp_steps_window(mine, 0, &a, &b), 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 100000);
    vp_trace_pass_close(&p);
    vp_steps_free(mine);
}

static void test_errors(void **state)
{
    (void)state;
    vp_trace_pass p;
    vp_error err = {0};
    seen s = {.p = &p};
    vp_trace_pass_opts o = {.rank = -1};
    assert_int_equal(vp_trace_pass_read(&p, bad_path, &o, observe, &s, &err), -1);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    assert_int_equal(s.n, 1);   /* the good event before the bad one */
    assert_non_null(p.trace);   /* the caller closes it */
    vp_trace_pass_close(&p);

    char missing[340];
    snprintf(missing, sizeof missing, "%s/missing.json", dir);
    vp_error err2 = {0};
    assert_int_equal(vp_trace_pass_read(&p, missing, &o, observe, &s, &err2), -1);
    assert_int_not_equal(err2.status, 0);
    assert_null(p.trace);
    vp_trace_pass_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_event_rank_no_range),
        cmocka_unit_test(test_range_selects),
        cmocka_unit_test(test_range_selects_none),
        cmocka_unit_test(test_no_steps_position_rank),
        cmocka_unit_test(test_name),
        cmocka_unit_test(test_caller_steps),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
