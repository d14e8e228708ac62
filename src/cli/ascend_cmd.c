/* What vprof comm, steps, kernels and memory share for Ascend inputs: the
 * arguments, the cluster groups, the step_trace_time table. */
#include <stdlib.h>
#include <string.h>

#include "cli/ascend_cmd.h"
#include "vprof/ascend_groups.h"
#include "vprof/util.h"

asc_arg asc_arg_of(const char *path)
{
    asc_arg a = {0, VP_ASC_TRACE};
    if (vp_asc_is_dir(path)) {
        a.is_dir = 1;
        a.kind = VP_ASC_UNKNOWN;
        return a;
    }
    if (strcmp(path, "-") == 0)
        return a;
    vp_asc_file k = vp_asc_sniff(path);
    if (k != VP_ASC_UNKNOWN)
        a.kind = k;
    return a;
}

int asc_read_comm_groups(const char *path, const vp_asc_run *run, vp_stt *s)
{
    vp_error err = {0};
    if (vp_asc_run_comm_groups(path, run, s, &err) != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

vp_table *asc_stt_table(vp_stt *s, int add_stage, const char *source)
{
    vp_stt_stage_result st;
    vp_stt_stage_rows(s, add_stage, &st);
    vp_table *t = vp_stt_table(s, &st, source);
    vp_stt_stage_result_free(&st);
    return t;
}
