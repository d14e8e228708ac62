/* The gate options of diff and check: expressions from the command line,
 * their evaluation, and the verdict in the format asked for (a vprof table,
 * GitHub annotations, JUnit XML). */
#ifndef VPROF_CMD_GATECLI_H
#define VPROF_CMD_GATECLI_H

#include "cli/cli.h"
#include "vprof/gates.h"
#include "vprof/verdict.h"

typedef struct vp_gate_list {
    vp_gate *g;
    const char **kind;    /* "fail-if" or "expect", per gate */
    size_t n;
    int ci_format;        /* 0 none, 1 github, 2 junit */
} vp_gate_list;

/* Parses one expression; on error prints it with a caret under the fault
 * and returns -1 (exit status 2). */
int vp_gate_list_add(vp_gate_list *l, const char *cmd, const char *kind, const char *text);
void vp_gate_list_free(vp_gate_list *l);

/* -f github and -f junit are the gate verdict formats; 1 when arg was one. */
int vp_gate_format(vp_gate_list *l, const char *arg);

/* Evaluates every gate; fills verdicts (caller frees with
 * vp_gate_verdicts_free). Returns the number of failures, or -1 after
 * printing a usage error (a change without a base). */
long vp_gate_list_eval(const vp_gate_list *l, const char *cmd, const vp_run *base,
                       const vp_run *now, vp_verdict **out, vp_gate_result **res);
void vp_gate_verdicts_free(vp_verdict *v, vp_gate_result *res);

/* Writes the verdict in the CI format to o's output. Returns an exit status. */
int vp_gate_emit_ci(const vp_gate_list *l, const vp_common_opts *o, const char *tool,
                    const vp_verdict *v, size_t n);

#endif
