/* The operands of a command, resolved by the library (vp_inputs_expand),
 * its refusal said as a usage error of the command (cli/inputs.h). */
#include "cli/cli.h"
#include "cli/inputs.h"
#include "vprof/error.h"

int vp_inputs_resolve(const char *cmd, char *const *args, size_t n, vp_inputs *out)
{
    vp_error err = {0};
    if (vp_inputs_expand(args, n, out, &err) != 0)
        return vp_usage_error(cmd, "%s", err.msg);
    int st = vp_cli_check_outputs(cmd, out->paths, out->n);
    if (st != 0)
        vp_inputs_free(out);
    return st;
}
