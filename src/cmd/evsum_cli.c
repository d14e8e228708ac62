/* api, copies, ranges: the shared command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cmd/evsum_cli.h"
#include "cli/scale.h"
#include "vprof/evsum_view.h"
#include "vprof/rangeproj_view.h"

enum { OPT_BY = VP_OPT_FIRST_CMD };

typedef struct evcmd {
    vp_common_opts common;
    vp_evsum_opts o;
    vp_evsum result;
} evcmd;

/* --by: name (always), rank, and for api level. */
static int parse_by(evcmd *e, const char *name, const char *arg)
{
    char *copy = vp_strdup(arg), *save = NULL;
    int ok = 1;
    int api = e->o.family == VP_EVSUM_API;
    e->o.by_rank = e->o.by_level = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "rank") == 0)
            e->o.by_rank = 1;
        else if (api && strcmp(tok, "level") == 0)
            e->o.by_level = 1;
        else if (strcmp(tok, "name") != 0)
            ok = 0, vp_usage_error(name, "--by: unknown grouping '%s' (name, rank%s)", tok,
                                   api ? ", level" : "");
    }
    free(copy);
    return ok ? 0 : -1;
}

/* The tables of the output, in vp_cmd.tables' order. */
static size_t make_tables(const evcmd *e, vp_table **t)
{
    static const char *const nothing[] = {
        "no runtime or driver API calls (cuda_runtime, cuda_driver, AscendCL) in the input",
        "no memcpy or memset events (gpu_memcpy, gpu_memset) in the input",
        "no user annotations (user_annotation, gpu_user_annotation) in the input",
    };
    const vp_evsum *r = &e->result;
    long top = e->common.top;
    size_t nt = 0;
    t[nt++] = vp_evsum_table(r, top);
    if (r->ngroups == 0)
        vp_table_add_note(t[0], "%s%s", nothing[r->o.family],
                          e->common.has_steps ? " (with --steps)" : "");
    if (r->o.family == VP_EVSUM_COPIES)
        t[nt++] = vp_copies_size_table(r, top);
    if (r->proj) {
        t[nt] = vp_rangeproj_table(r->proj, top, r->o.by_rank);
        if (r->proj->ngroups == 0)
            vp_table_add_note(t[nt], "no GPU work launched inside a user annotation (it needs "
                                     "the runtime calls and the GPU events with their "
                                     "correlation ids)");
        nt++;
    }
    return nt;
}

int vp_evsum_command(int argc, char **argv, const char *name, vp_evsum_family family)
{
    static const struct option longopts[] = {
        VP_COMMON_LONGOPTS,
        VP_TOP_LONGOPT,
        VP_STEPS_LONGOPT,
        VP_SCALE_LONGOPTS,
        VP_TABLE_LONGOPT,
        {"by", required_argument, 0, OPT_BY},
        {0, 0, 0, 0},
    };
    const vp_cmd *self = vp_cmd_find(name);
    evcmd e;
    memset(&e, 0, sizeof e);
    vp_common_init(&e.common);
    e.o.family = family;
    int c, status = VP_EXIT_USAGE;
    optind = 1;
    while ((c = vp_getopt(&e.common, self, argc, argv, VP_COMMON_SHORTOPTS, longopts, &status)) >= 0) {
        if (c == OPT_BY && parse_by(&e, name, optarg) == 0)
            continue;
        if (c != OPT_BY)
            vp_usage_error(name, "unexpected option");
        return VP_EXIT_USAGE;
    }
    if (c == VP_OPT_EXIT)
        return status;
    if (optind >= argc)
        return vp_usage_error(name, "no trace given (a file, or - for standard input)");
    e.o.partial = e.common.partial;
    e.o.steps = e.common.has_steps ? &e.common.steps : NULL;
    /* ranges: the projection unless only the other table is printed */
    e.o.project = family == VP_EVSUM_RANGES &&
                  !(e.common.table && strcmp(e.common.table, "ranges") == 0 && !e.common.save_part);
    e.o.say = e.common.verbose ? vp_verbose_say : NULL;
    vp_evsum_init(&e.result, &e.o);
    vp_parts parts = {.cmd = name, .opts = &e.o, .model = &e.result};
    status = vp_parts_run(&e.common, &parts, argv + optind, (size_t)(argc - optind));
    if (status == VP_EXIT_OK) {
        vp_evsum_finish(&e.result);
        vp_table *t[3];
        size_t nt = make_tables(&e, t);
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
