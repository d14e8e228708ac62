/* Unit tests for the worker pool (src/exec/pool.c, vprof/exec.h): results
 * taken in item order whatever order the workers finish in, each with
 * the messages its worker wrote, a dead worker reported as such, and
 * this process's buffered streams never written again by a worker. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmppath.h"
#include "vprof/exec.h"
#include "vprof/util.h"

typedef struct seen {
    vp_buf log;            /* what take saw, in the order it saw it */
    int die_at;            /* this item's worker dies (-1: none) */
    int die_signal;        /* by this signal, else exit status 5 */
    size_t stop_at;        /* take returns 9 for this item */
} seen;

/* Later items finish first: item i sleeps (8 - i) * 10 ms in a worker. */
static int work(void *ctx, size_t i, int worker, vp_buf *out)
{
    seen *s = ctx;
    if (worker) {
        usleep((useconds_t)(8 - i) * 10000);
        if ((int)i == s->die_at) {
            fprintf(stderr, "dying %zu\n", i);
            fflush(stderr);
            if (s->die_signal)
                raise(s->die_signal);
            _exit(5);
        }
        fprintf(stderr, "item %zu\n", i);
    }
    vp_buf_printf(out, "r%zu", i);
    return (int)(i % 2);
}

static int take(void *ctx, size_t i, const vp_pool_result *r)
{
    seen *s = ctx;
    vp_buf_printf(&s->log, "%zu:%s%s:%d:", i, r->worker ? "w" : "h", r->ok ? "" : "!", r->status);
    vp_buf_append(&s->log, r->data, r->n);
    vp_buf_putc(&s->log, ':');
    if (r->msg)
        vp_buf_append(&s->log, r->msg, r->nmsg);
    if (!r->ok)
        vp_buf_printf(&s->log, "signal %d pid %s|", r->signal, r->pid > 0 ? "set" : "none");
    vp_buf_putc(&s->log, ';');
    return i == s->stop_at ? 9 : 0;
}

static const char *run(seen *s, long jobs, size_t first, size_t last, int *st)
{
    vp_pool p = {work, take, NULL, s};
    vp_error err = {0};
    *st = vp_pool_run(&p, jobs, first, last, &err);
    assert_int_equal(err.status, 0);
    return vp_buf_cstr(&s->log);
}

static void test_input_order(void **state)
{
    (void)state;
    seen s = {.die_at = -1, .stop_at = SIZE_MAX};
    int st;
    const char *got = run(&s, 3, 0, 8, &st);
    assert_int_equal(st, 0);
    assert_string_equal(got,
                        "0:w:0:r0:item 0\n;1:w:1:r1:item 1\n;2:w:0:r2:item 2\n;3:w:1:r3:item 3\n;"
                        "4:w:0:r4:item 4\n;5:w:1:r5:item 5\n;6:w:0:r6:item 6\n;7:w:1:r7:item 7\n;");
    vp_buf_free(&s.log);
}

/* One job: every item here, in order, no messages captured. */
static void test_one_job_here(void **state)
{
    (void)state;
    seen s = {.die_at = -1, .stop_at = SIZE_MAX};
    int st;
    const char *got = run(&s, 1, 2, 5, &st);
    assert_int_equal(st, 0);
    assert_string_equal(got, "2:h:0:r2:;3:h:1:r3:;4:h:0:r4:;");
    vp_buf_free(&s.log);
}

/* take's non-zero return stops the pool there and is returned. */
static void test_stop(void **state)
{
    (void)state;
    seen s = {.die_at = -1, .stop_at = 2};
    int st;
    const char *got = run(&s, 2, 0, 6, &st);
    assert_int_equal(st, 9);
    assert_string_equal(got, "0:w:0:r0:item 0\n;1:w:1:r1:item 1\n;2:w:0:r2:item 2\n;");
    vp_buf_free(&s.log);
}

/* A worker that exits without its result, and one killed by a signal:
 * take hears of them at their turn, the others' results still in order.
 * A dead worker's messages are lost with its result (they travel in one
 * frame). */
static void test_dead_workers(void **state)
{
    (void)state;
    seen s = {.die_at = 1, .stop_at = SIZE_MAX};
    int st;
    const char *got = run(&s, 2, 0, 3, &st);
    assert_int_equal(st, 0);
    assert_string_equal(got, "0:w:0:r0:item 0\n;1:w!:0::signal 0 pid set|;2:w:0:r2:item 2\n;");
    vp_buf_free(&s.log);

    seen k = {.die_at = 0, .die_signal = SIGKILL, .stop_at = SIZE_MAX};
    got = run(&k, 2, 0, 2, &st);
    assert_string_equal(got, "0:w!:0::signal 9 pid set|;1:w:1:r1:item 1\n;");
    vp_buf_free(&k.log);
}

/* --mpi's operands: globs expanded in place, in glob order, a file named
 * kept as is; a glob matching nothing refused, except with local. */
static void test_operands_expand(void **state)
{
    (void)state;
    char dir[512], path[700];
    assert_non_null(mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-operands")));
    static const char *const files[] = {"r1.json", "r0.json", "x.txt"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
    }
    char glob1[600], named[600], none[600], absent[600];
    snprintf(glob1, sizeof glob1, "%s/r*.json", dir);
    snprintf(named, sizeof named, "%s/x.txt", dir);
    snprintf(none, sizeof none, "%s/q*.json", dir);
    snprintf(absent, sizeof absent, "%s/gone.json", dir);
    char *in[] = {named, glob1, absent};
    size_t n = 0;
    vp_error err = {0};
    char **list = vp_operands_expand(in, 3, 0, &n, &err);
    assert_non_null(list);
    assert_int_equal(n, 4);
    assert_string_equal(list[0], named);
    snprintf(path, sizeof path, "%s/r0.json", dir);
    assert_string_equal(list[1], path);
    snprintf(path, sizeof path, "%s/r1.json", dir);
    assert_string_equal(list[2], path);
    assert_string_equal(list[3], absent);   /* no wildcard: its reader says it is missing */
    vp_operands_free(list, n);

    /* local: what this node lacks is another node's */
    char *in2[] = {none, absent, named};
    list = vp_operands_expand(in2, 3, 1, &n, &err);
    assert_int_equal(n, 1);
    assert_string_equal(list[0], named);
    vp_operands_free(list, n);

    assert_null(vp_operands_expand(in2, 3, 0, &n, &err));
    assert_int_equal(err.status, 3);
    snprintf(path, sizeof path, "%s: no file matches", none);
    assert_string_equal(err.msg, path);
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A directory stands for its traces in rank order (rank1, rank2, rank10,
 * then names without a rank); a file reached twice is refused, naming
 * both operands. */
static void test_inputs_expand(void **state)
{
    (void)state;
    char dir[512], path[700];
    assert_non_null(mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-inputs")));
    static const char *const files[] = {"rank10.json", "rank2.json.gz", "rank1.json", "b.json",
                                        "notes.txt", ".hidden.json"};
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
    }
    char *args[] = {dir};
    vp_inputs in;
    vp_error err = {0};
    assert_int_equal(vp_inputs_expand(args, 1, &in, &err), 0);
    static const char *const want[] = {"rank1.json", "rank2.json.gz", "rank10.json", "b.json"};
    assert_int_equal(in.n, 4);
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, want[i]);
        assert_string_equal(in.paths[i], path);
    }
    vp_inputs_free(&in);

    char one[600];
    snprintf(one, sizeof one, "%s/rank2.json.gz", dir);
    char *twice[] = {dir, one};
    assert_int_equal(vp_inputs_expand(twice, 2, &in, &err), -1);
    assert_int_equal(err.status, 2);
    char msg[2048];
    snprintf(msg, sizeof msg, "%s (its %s) and %s are the same file: read twice, its events "
             "would be counted twice", dir, one, one);
    assert_string_equal(err.msg, msg);
    assert_int_equal(in.n, 0);
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A worker that flushes the stdio streams it inherited, as one does that
 * ends under valgrind (its __libc_freeres flushes every stream, _exit or
 * not), or any library code calling fflush(NULL). */
static int flushing_work(void *ctx, size_t i, int worker, vp_buf *out)
{
    (void)ctx;
    if (worker)
        fflush(NULL);
    vp_buf_printf(out, "r%zu", i);
    return 0;
}

/* take writes a line per item to a buffered stream of this process, as
 * merge writes its metadata spools (tmpfile) between items. */
static int spooling_take(void *ctx, size_t i, const vp_pool_result *r)
{
    fprintf((FILE *)ctx, "taken %zu: %.*s\n", i, (int)r->n, (const char *)r->data);
    return 0;
}

/* What waits in this process's stdio buffers when a worker starts is
 * never written again by that worker: the file holds each line once.
 * (Under valgrind merge -j 2 wrote 4 KiB of its spool twice.) */
static void test_workers_do_not_flush_our_streams(void **state)
{
    (void)state;
    FILE *spool = tmpfile();
    assert_non_null(spool);
    fputs("before\n", spool);
    vp_pool p = {flushing_work, spooling_take, NULL, spool};
    vp_error err = {0};
    assert_int_equal(vp_pool_run(&p, 2, 0, 6, &err), 0);
    fflush(spool);
    rewind(spool);
    char got[256] = {0};
    size_t n = fread(got, 1, sizeof got - 1, spool);
    fclose(spool);
    got[n] = '\0';
    assert_string_equal(got, "before\ntaken 0: r0\ntaken 1: r1\ntaken 2: r2\ntaken 3: r3\n"
                             "taken 4: r4\ntaken 5: r5\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_order),
        cmocka_unit_test(test_one_job_here),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_dead_workers),
        cmocka_unit_test(test_operands_expand),
        cmocka_unit_test(test_inputs_expand),
        cmocka_unit_test(test_workers_do_not_flush_our_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
