/* Gate options shared by diff and check (see gatecli.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gatecli.h"
#include "vprof/util.h"

int vp_gate_list_add(vp_gate_list *l, const char *cmd, const char *kind, const char *text)
{
    vp_gate g;
    char msg[256];
    size_t pos = 0;
    if (vp_gate_parse(text, &g, msg, sizeof msg, &pos) != 0) {
        fprintf(stderr, "vprof: %s: --%s: %s\n  %s\n  %*s^\n", cmd, kind, msg, text, (int)pos, "");
        return -1;
    }
    l->g = vp_realloc(l->g, (l->n + 1) * sizeof *l->g);
    l->kind = vp_realloc(l->kind, (l->n + 1) * sizeof *l->kind);
    l->g[l->n] = g;
    l->kind[l->n++] = kind;
    return 0;
}

void vp_gate_list_free(vp_gate_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        vp_gate_free(&l->g[i]);
    free(l->g);
    free(l->kind);
    memset(l, 0, sizeof *l);
}

int vp_gate_format(vp_gate_list *l, const char *arg)
{
    if (strcmp(arg, "github") == 0)
        l->ci_format = 1;
    else if (strcmp(arg, "junit") == 0)
        l->ci_format = 2;
    else
        return 0;
    return 1;
}

long vp_gate_list_eval(const vp_gate_list *l, const char *cmd, const vp_run *base,
                       const vp_run *now, vp_verdict **out, vp_gate_result **res)
{
    vp_verdict *v = vp_calloc(l->n ? l->n : 1, sizeof *v);
    vp_gate_result *r = vp_calloc(l->n ? l->n : 1, sizeof *r);
    long failed = 0;
    for (size_t i = 0; i < l->n; i++) {
        char msg[256];
        if (vp_gate_eval(&l->g[i], base, now, &r[i], msg, sizeof msg) != 0) {
            vp_usage_error(cmd, "%s", msg);
            free(v);
            free(r);
            return -1;
        }
        int fail_if = strcmp(l->kind[i], "fail-if") == 0;
        v[i].gate = l->g[i].text;
        v[i].kind = l->kind[i];
        v[i].failed = r[i].missing || (fail_if ? r[i].cond : !r[i].cond);
        v[i].detail = r[i].detail;
        failed += v[i].failed;
    }
    *out = v;
    *res = r;
    return failed;
}

void vp_gate_verdicts_free(vp_verdict *v, vp_gate_result *res)
{
    free(v);
    free(res);
}

int vp_gate_emit_ci(const vp_gate_list *l, const vp_common_opts *o, const char *tool,
                    const vp_verdict *v, size_t n)
{
    vp_outfile of;
    FILE *out = vp_outfile_open(&of, o->output);
    int rc = l->ci_format == 1 ? vp_verdict_github(out, tool, v, n) : vp_verdict_junit(out, tool, v, n);
    return vp_outfile_close(&of, rc);
}
