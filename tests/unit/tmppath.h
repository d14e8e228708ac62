/* Where a test may write: a fresh name under $TMPDIR (the system default when
 * unset), made by mkstemp/mkdtemp from the template this fills. A test never
 * uses a fixed absolute path: tests/paths/check-test-paths fails on one. */
#ifndef VPROF_TEST_TMPPATH_H
#define VPROF_TEST_TMPPATH_H

#include <stdio.h>
#include <stdlib.h>

/* Fills buf with "$TMPDIR/STEM-XXXXXX" and returns it. */
static inline char *test_tmp_template(char *buf, size_t n, const char *stem)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t)
        t = "/tmp";  /* test-paths: the default when TMPDIR is unset */
    snprintf(buf, n, "%s/%s-XXXXXX", t, stem);
    return buf;
}

#endif
