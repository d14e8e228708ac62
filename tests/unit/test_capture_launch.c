/* Unit tests for what vprof record's launch does in src/capture/launch.c
 * (vprof/launch.h): --print-env's lines, the command's wait status as an
 * exit status, and a run that finds the trace its command wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmppath.h"
#include "vprof/launch.h"

static void test_env_lines(void **state)
{
    vp_buf b = {0};
    (void)state;
    vp_launch_env_lines("A=1\nB=two words\nC=it's\nD=", &b);
    assert_string_equal(vp_buf_cstr(&b), "A=1\nB='two words'\nC='it'\\''s'\nD=''\n");
    vp_buf_free(&b);
}

static int exit_of(int code)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(code);
    int status;
    waitpid(pid, &status, 0);
    return status;
}

static void test_exit_like(void **state)
{
    (void)state;
    assert_int_equal(vp_launch_exit_like(exit_of(0)), 0);
    assert_int_equal(vp_launch_exit_like(exit_of(3)), 3);
    assert_int_equal(vp_launch_exit_like(exit_of(126)), 126);
    assert_int_equal(vp_launch_exit_like(-1), 127);
}

static void test_record_finds_traces(void **state)
{
    char dir[512];
    (void)state;
    test_tmp_template(dir, sizeof dir, "vprof-launch");
    assert_non_null(mkdtemp(dir));
    char *const cmd[] = {"sh", "-c",
                         "touch \"$OUT/vprof_rank1_7.pt.trace.json.gz\" \"$OUT/other.json\"; "
                         "exit 4", NULL};
    vp_buf env = {0};
    vp_buf_printf(&env, "OUT=%s", dir);
    vp_argv traces = {0};
    vp_error err = {0};
    int status = vp_launch_record(cmd, vp_buf_cstr(&env), dir, &traces, &err);
    assert_int_equal(err.status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 4);
    assert_int_equal(traces.n, 1);
    char want[600];
    snprintf(want, sizeof want, "%s/vprof_rank1_7.pt.trace.json.gz", dir);
    assert_string_equal(traces.v[0], want);
    unlink(want);
    snprintf(want, sizeof want, "%s/other.json", dir);
    unlink(want);
    rmdir(dir);
    vp_argv_free(&traces);
    vp_buf_free(&env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_lines),
        cmocka_unit_test(test_exit_like),
        cmocka_unit_test(test_record_finds_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
