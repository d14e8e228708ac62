/* The operands' way through cli/scale.h for comm and steps (cli/gpupass_cli.h). */
#include <getopt.h>

#include "cli/gpupass_cli.h"

int vp_parts_operands(const vp_common_opts *o, const vp_parts *p, int argc, char **argv,
                      int *status)
{
    if (optind >= argc) {
        *status = vp_usage_error(p->cmd, "no trace given (a file, or - for standard input)");
        return 0;
    }
    *status = vp_parts_run(o, p, argv + optind, (size_t)(argc - optind));
    if (*status != VP_PARTS_DONE)
        return *status == VP_EXIT_OK;
    *status = VP_EXIT_OK;
    return 0;
}
