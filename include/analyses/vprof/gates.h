/* Gates for CI: a small expression language over a run's metrics
 * (vprof/runstats.h), evaluated on one run (`vprof check --expect`) or on a
 * base and a new run (`vprof diff --fail-if`).
 *
 *     gate   := metric op value
 *     metric := NAME                     a metric of `vprof check --list-metrics`
 *             | kernel:REGEX             total time of the kernels whose name matches
 *                                        (POSIX extended regex, unanchored)
 *     op     := > | >= | < | <= | == | !=
 *     value  := NUMBER [UNIT]            the new run's value, compared as is
 *             | +NUMBER% | -NUMBER%      the change from base to new, relative
 *             | +NUMBER[UNIT] | -NUMBER[UNIT]   the change, absolute
 *     UNIT   := ns us ms s | B KiB MiB GiB TiB KB MB GB TB | % | pp
 *
 * A value's unit must fit the metric: times for NS metrics, sizes for
 * BYTES, % or pp for PERCENT (and % for RATIO metrics, where 40% is 0.40).
 * NS and BYTES metrics refuse a bare non-zero number (no safe reading).
 * PERCENT values and unsigned or pp changes are in points; a signed % is a
 * relative change. A signed value (a change) needs a base run. */
#ifndef VPROF_GATES_H
#define VPROF_GATES_H

#include <regex.h>
#include <stddef.h>

#include "vprof/runstats.h"

typedef enum { VP_GATE_GT, VP_GATE_GE, VP_GATE_LT, VP_GATE_LE, VP_GATE_EQ, VP_GATE_NE } vp_gate_op;
typedef enum { VP_GATE_VALUE, VP_GATE_RELATIVE, VP_GATE_DELTA } vp_gate_mode;

typedef struct vp_gate {
    char *text;          /* as given */
    char *metric;        /* the metric name, or the regex of kernel:REGEX */
    int is_kernel;
    regex_t re;
    vp_col_type unit;    /* the metric's unit */
    vp_gate_op op;
    vp_gate_mode mode;
    double value;        /* in the metric's unit; a fraction for RELATIVE */
} vp_gate;

/* Parses text. On error returns -1 with msg set and *pos at the offending
 * character (for a caret under it). */
int vp_gate_parse(const char *text, vp_gate *g, char *msg, size_t msgn, size_t *pos);
void vp_gate_free(vp_gate *g);

typedef struct vp_gate_result {
    int cond;            /* the expression's truth: --fail-if fails when 1, --expect when 0 */
    int missing;         /* the metric is not in a run: a failure either way */
    double base, now;    /* metric values (base only with a base run) */
    char detail[512];    /* "step.median 612 ms -> 655 ms (+7.00 %)" */
} vp_gate_result;

/* Evaluates g on now (and base, which may be NULL). Returns -1 with msg set
 * when g needs a base and there is none (a usage error), else 0. */
int vp_gate_eval(const vp_gate *g, const vp_run *base, const vp_run *now, vp_gate_result *res,
                 char *msg, size_t msgn);

/* The value of a metric of a run, kernel:REGEX included; 0 when absent. */
int vp_gate_metric_value(const vp_gate *g, const vp_run *r, double *out);

#endif
