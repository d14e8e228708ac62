/* Reporting gate outcomes the ways CI systems read them: a vprof table
 * (any -f format), GitHub Actions workflow commands, or a JUnit XML report. */
#ifndef VPROF_VERDICT_H
#define VPROF_VERDICT_H

#include <stddef.h>
#include <stdio.h>

#include "vprof/table.h"

typedef struct vp_verdict {
    const char *gate;     /* the expression as given */
    const char *kind;     /* "fail-if", "expect", "baseline" */
    int failed;
    const char *detail;   /* measured values */
} vp_verdict;

/* A "gates" table: Gate, Kind, Result (pass / FAIL), Detail. */
vp_table *vp_verdict_table(const vp_verdict *v, size_t n);

/* "::error title=vprof <kind>::<gate>: <detail>" per failure and
 * "::notice ..." per pass, one line each (newlines escaped as GitHub wants). */
int vp_verdict_github(FILE *out, const char *tool, const vp_verdict *v, size_t n);

/* <testsuites><testsuite name=tool tests= failures=><testcase name=gate>
 * with a <failure message=detail/> for each failed gate. */
int vp_verdict_junit(FILE *out, const char *tool, const vp_verdict *v, size_t n);

#endif
