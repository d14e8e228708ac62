/* api, copies, ranges: the shared command. */
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/evsum_cli.h"
#include "cmd/scale.h"
#include "vprof/evsum_view.h"

typedef struct evcmd {
    vp_common_opts common;
    vp_evsum_opts o;
    vp_evsum result;
} evcmd;

int vp_evsum_command(int argc, char **argv, const char *name, vp_evsum_family family)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_SCALE_LONGOPTS,
        VP_TABLE_LONGOPT,
        {0, 0, 0, 0},
    };
    static const char *const nothing[] = {
        "no runtime or driver API calls (cuda_runtime, cuda_driver) in the input",
        "no memcpy or memset events (gpu_memcpy, gpu_memset) in the input",
        "no user annotations (user_annotation, gpu_user_annotation) in the input",
    };
    const vp_cmd *self = vp_cmd_find(name);
    evcmd e;
    memset(&e, 0, sizeof e);
    vp_common_init(&e.common);
    e.o.family = family;
    int c, status = VP_EXIT_USAGE;
    optind = 1;
    while ((c = vp_getopt(&e.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        vp_usage_error(name, "unexpected option");
        return VP_EXIT_USAGE;
    }
    if (c == VP_OPT_EXIT)
        return status;
    if (optind >= argc)
        return vp_usage_error(name, "no trace given (a file, or - for standard input)");
    e.o.partial = e.common.partial;
    e.o.say = e.common.verbose ? vp_verbose_say : NULL;
    vp_evsum_init(&e.result, &e.o);
    vp_parts parts = {.cmd = name, .opts = &e.o, .model = &e.result};
    status = vp_parts_run(&e.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status == VP_EXIT_OK) {
        vp_evsum_finish(&e.result);
        vp_table *t[2];
        size_t nt = 0;
        t[nt++] = vp_evsum_table(&e.result, e.common.top);
        if (family == VP_EVSUM_COPIES)
            t[nt++] = vp_copies_size_table(&e.result, e.common.top);
        if (e.result.ngroups == 0)
            vp_table_add_note(t[0], "%s", nothing[family]);
        char schema[64];
        snprintf(schema, sizeof schema, "vprof.%s/1", name);
        status = vp_emit_tables(&e.common, t, nt, schema);
        for (size_t i = 0; i < nt; i++)
            vp_table_free(t[i]);
    } else if (status == VP_PARTS_DONE) {
        status = VP_EXIT_OK;
    }
    vp_evsum_free(&e.result);
    return status;
}
