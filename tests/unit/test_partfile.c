/* Unit tests for src/exec/partfile.c (vprof/partfile.h): --save-part's
 * file names, and a partial written and read back with the checks of a
 * reduce (command, payload version, options), each refusal's message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmppath.h"
#include "vprof/partfile.h"

static void test_path(void **state)
{
    static const struct {
        const char *pattern, *path;
    } cases[] = {
        {"out/p%r-%i.vpart", "out/p3-12.vpart"},
        {"100%%.vpart", "100%.vpart"},
        {"%x%", "%x%"},
        {"plain", "plain"},
        {"", ""},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = vp_part_path(cases[i].pattern, 3, 12);
        assert_string_equal(p, cases[i].path);
        free(p);
    }
}

static const char opts[] = "--by\0name\0";   /* NUL-separated, as vp_shape_options */

static void test_save_load(void **state)
{
    char dir[512];
    (void)state;
    test_tmp_template(dir, sizeof dir, "vprof-partfile");
    assert_non_null(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/a.vpart", dir);
    vp_part_kind k = {"kernels", 4, opts, sizeof opts - 1};
    vp_error err = {0};
    assert_int_equal(vp_part_save(path, &k, 2, "xyz", 3, &err), 0);

    vp_buf file = {0};
    const void *payload;
    size_t n;
    assert_int_equal(vp_part_load(path, &k, "first.vpart", &file, &payload, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(payload, "xyz", 3);
    vp_buf_free(&file);

    vp_part_kind other = {"comm", 4, opts, sizeof opts - 1};
    assert_int_equal(vp_part_load(path, &other, "first.vpart", &file, &payload, &n, &err), -1);
    vp_buf_free(&file);
    char want[1024];
    snprintf(want, sizeof want, "reduce: %s: a partial result of vprof kernels, not of vprof comm",
             path);
    assert_string_equal(err.msg, want);
    assert_int_equal(err.status, VP_EXIT_INPUT);

    vp_error e2 = {0};
    vp_part_kind newer = {"kernels", 5, opts, sizeof opts - 1};
    assert_int_equal(vp_part_load(path, &newer, "first.vpart", &file, &payload, &n, &e2), -1);
    vp_buf_free(&file);
    snprintf(want, sizeof want, "reduce: %s: vprof kernels partial version 4, this vprof reads "
             "version 5", path);
    assert_string_equal(e2.msg, want);

    vp_error e3 = {0};
    vp_part_kind shaped = {"kernels", 4, "--top\0" "5\0", 8};
    assert_int_equal(vp_part_load(path, &shaped, "first.vpart", &file, &payload, &n, &e3), -1);
    vp_buf_free(&file);
    snprintf(want, sizeof want, "reduce: %s: made with other options than first.vpart ('--by "
             "name' against '--top 5'): its numbers would not add up", path);
    assert_string_equal(e3.msg, want);

    vp_error e4 = {0};
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none.vpart", dir);
    assert_int_equal(vp_part_load(missing, &k, missing, &file, &payload, &n, &e4), -1);
    vp_buf_free(&file);
    snprintf(want, sizeof want, "reduce: cannot read %s: No such file or directory", missing);
    assert_string_equal(e4.msg, want);

    vp_error e5 = {0};
    assert_int_equal(vp_part_save(missing + 0, &k, 1, "", 0, &e5), 0);
    char bad[700];
    snprintf(bad, sizeof bad, "%s/no/such/dir.vpart", dir);
    assert_int_equal(vp_part_save(bad, &k, 1, "", 0, &e5), -1);
    snprintf(want, sizeof want, "kernels: cannot write %s: No such file or directory", bad);
    assert_string_equal(e5.msg, want);

    unlink(path);
    unlink(missing);
    rmdir(dir);
}

/* Taken in order with their payloads; the first refusal stops the rest. */
typedef struct taken {
    char seen[16];
    size_t n;
    size_t fail_at;
} taken;

static int take_one(void *ctx, const char *path, size_t i, const void *payload, size_t n)
{
    (void)path;
    taken *t = ctx;
    if (i == t->fail_at)
        return 7;
    memcpy(t->seen + t->n, payload, n);
    t->n += n;
    return 0;
}

static void test_load_each(void **state)
{
    char dir[512];
    (void)state;
    test_tmp_template(dir, sizeof dir, "vprof-partfile");
    assert_non_null(mkdtemp(dir));
    char a[600], b[600], bad[600];
    snprintf(a, sizeof a, "%s/a.vpart", dir);
    snprintf(b, sizeof b, "%s/b.vpart", dir);
    snprintf(bad, sizeof bad, "%s/c.vpart", dir);
    vp_part_kind k = {"kernels", 4, opts, sizeof opts - 1};
    vp_part_kind other = {"comm", 4, opts, sizeof opts - 1};
    vp_error err = {0};
    assert_int_equal(vp_part_save(a, &k, 1, "ab", 2, &err), 0);
    assert_int_equal(vp_part_save(b, &k, 1, "cd", 2, &err), 0);
    assert_int_equal(vp_part_save(bad, &other, 1, "ef", 2, &err), 0);

    char *both[] = {a, b};
    taken t = {.fail_at = 9};
    assert_int_equal(vp_part_load_each(&k, both, 2, take_one, &t, &err), 0);
    assert_int_equal(t.n, 4);
    assert_memory_equal(t.seen, "abcd", 4);

    taken stop = {.fail_at = 1};   /* take's own status comes back */
    assert_int_equal(vp_part_load_each(&k, both, 2, take_one, &stop, &err), 7);
    assert_int_equal(stop.n, 2);
    assert_int_equal(err.status, 0);

    char *mixed[] = {a, bad, b};   /* another command's partial: refused, b never taken */
    taken m = {.fail_at = 9};
    assert_int_equal(vp_part_load_each(&k, mixed, 3, take_one, &m, &err), VP_EXIT_INPUT);
    assert_int_equal(err.status, VP_EXIT_INPUT);
    char want[1024];
    snprintf(want, sizeof want, "reduce: %s: a partial result of vprof comm, not of vprof kernels",
             bad);
    assert_string_equal(err.msg, want);
    assert_int_equal(m.n, 2);
    unlink(a);
    unlink(b);
    unlink(bad);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path),
        cmocka_unit_test(test_save_load),
        cmocka_unit_test(test_load_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
