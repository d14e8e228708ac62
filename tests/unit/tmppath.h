/* Where a test may write: a fresh name under $TMPDIR (the system default when
 * unset), made by mkstemp/mkdtemp from the template this fills. A test never
 * uses a fixed absolute path: tests/paths/check-test-paths fails on one. */
#ifndef VPROF_TEST_TMPPATH_H
#define VPROF_TEST_TMPPATH_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Fills buf with "$TMPDIR/STEM-XXXXXX" and returns it. */
static inline char *test_tmp_template(char *buf, size_t n, const char *stem)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t)
        t = "/tmp";  /* test-paths: the default when TMPDIR is unset */
    snprintf(buf, n, "%s/%s-XXXXXX", t, stem);
    return buf;
}

/* One small input file in a directory of its own, for the tests that read
 * one trace: makes "$TMPDIR/STEM-XXXXXX" into dir and writes text to
 * path, DIR/t.json.  0, or -1 (a cmocka setup's failure). */
static inline int test_file_make(char *dir, size_t dn, char *path, size_t pn, const char *stem,
                                 const char *text)
{
    if (!mkdtemp(test_tmp_template(dir, dn, stem)))
        return -1;
    snprintf(path, pn, "%s/t.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* Removes what test_file_make made (the directory must hold no other file). */
static inline void test_file_remove(const char *dir, const char *path)
{
    unlink(path);
    rmdir(dir);
}

#endif
