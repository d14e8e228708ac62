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
#include "vprof/capture.h"
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

static void say_into(void *ctx, int error, const char *line)
{
    vp_buf_printf(ctx, "%d %s\n", error, line);
}

/* The Ascend run: the collection makes a PROF_* directory, whose export
 * ("false" for msprof here) is said before it runs and said to fail. */
static void test_msprof_exports(void **state)
{
    char dir[512];
    (void)state;
    test_tmp_template(dir, sizeof dir, "vprof-msprof");
    assert_non_null(mkdtemp(dir));
    vp_buf mk = {0};
    vp_buf_printf(&mk, "mkdir '%s/PROF_1'", dir);
    char *const collect[] = {"sh", "-c", mk.data, NULL};
    vp_argv profs = {0};
    vp_buf said = {0};
    int status = vp_launch_msprof(collect, "false", dir, &profs, say_into, &said);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(profs.n, 1);
    char want[2048];
    vp_buf out = {0}, quoted = {0};   /* the shell quotes a $TMPDIR that needs it */
    vp_buf_printf(&out, "--output=%s/PROF_1", dir);
    vp_shell_quote(out.data, &quoted);
    snprintf(want, sizeof want, "0 exporting: false --export=on %s\n"
             "0 msprof --export failed for %s/PROF_1\n", vp_buf_cstr(&quoted), dir);
    assert_string_equal(vp_buf_cstr(&said), want);
    vp_buf_free(&out);
    vp_buf_free(&quoted);
    snprintf(want, sizeof want, "%s/PROF_1", dir);
    rmdir(want);
    rmdir(dir);
    vp_argv_free(&profs);
    vp_buf_free(&said);
    vp_buf_free(&mk);
}

/* Why no shim: the variable that names none says so first. */
static void test_shim_missing(void **state)
{
    (void)state;
    vp_error err = {0};
    setenv("VPROF_CUPTI_LIB", "nowhere.so", 1);
    vp_launch_shim_missing(1, &err);
    assert_int_equal(err.status, 2);
    assert_string_equal(err.msg, "VPROF_CUPTI_LIB=nowhere.so is not a file");
    unsetenv("VPROF_CUPTI_LIB");
    err = (vp_error){0};
    vp_launch_shim_missing(0, &err);
    assert_string_equal(err.msg, "this vprof was built without CUDA, so without "
                        "libvprof-cupti.so (rebuild where the CUDA toolkit and CUPTI are "
                        "installed, or set VPROF_CUPTI_LIB)");
}

/* Before a run: the shim that VPROF_CUPTI_LIB names, the output
 * directory created and made absolute, and the injection in the
 * environment lines; without a shim, status 2 and why. */
static void test_prepare(void **state)
{
    (void)state;
    char dir[512], shim[600], out[700];
    assert_non_null(mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-prepare")));
    snprintf(shim, sizeof shim, "%s/libshim.so", dir);
    FILE *f = fopen(shim, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(out, sizeof out, "%s/traces", dir);
    setenv("VPROF_CUPTI_LIB", shim, 1);
    vp_cap_config c;
    vp_cap_config_init(&c);
    free(c.output_dir);
    c.output_dir = strdup(out);
    vp_buf env = {0};
    vp_error err = {0};
    assert_int_equal(vp_launch_prepare(&c, NULL, NULL, 1, 1, &env, &err), 0);
    char *abs = realpath(out, NULL);
    assert_non_null(abs);
    assert_string_equal(c.output_dir, abs);
    char want[800];
    snprintf(want, sizeof want, "CUDA_INJECTION64_PATH=%s\n", shim);
    assert_non_null(strstr(vp_buf_cstr(&env), want));
    vp_buf_free(&env);

    setenv("VPROF_CUPTI_LIB", "nowhere.so", 1);
    assert_int_equal(vp_launch_prepare(&c, NULL, NULL, 1, 1, &env, &err), -1);
    assert_int_equal(err.status, 2);
    assert_string_equal(err.msg, "VPROF_CUPTI_LIB=nowhere.so is not a file");
    unsetenv("VPROF_CUPTI_LIB");
    vp_buf_free(&env);
    vp_cap_config_free(&c);
    rmdir(abs);
    free(abs);
    unlink(shim);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_lines),
        cmocka_unit_test(test_exit_like),
        cmocka_unit_test(test_record_finds_traces),
        cmocka_unit_test(test_msprof_exports),
        cmocka_unit_test(test_shim_missing),
        cmocka_unit_test(test_prepare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
