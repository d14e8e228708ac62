/* vprof: dispatch to a subcommand (src/cmd/commands.c has the table),
 * `help` and `--version`. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "vprof/error.h"
#include "vprof/json.h"

#ifndef VPROF_VERSION
#define VPROF_VERSION "0.0.0"
#endif
#ifndef VPROF_GIT_COMMIT
#define VPROF_GIT_COMMIT "unknown"
#endif

#ifndef VPROF_HAVE_CUPTI
#define VPROF_HAVE_CUPTI 0
#endif
#ifndef VPROF_HAVE_SQLITE
#define VPROF_HAVE_SQLITE 0
#endif
#ifndef VPROF_HAVE_MPI
#define VPROF_HAVE_MPI 0
#endif

/* The version (CMake's project(VERSION), semantic versioning), the commit
 * it was built from, and one "backend: state" line per optional part. */
static void print_version(void)
{
    printf("vprof %s (commit %s)\n", VPROF_VERSION, VPROF_GIT_COMMIT);
    printf("inflate: %s\n", VPROF_HAVE_ISAL ? "ISA-L" : "zlib");
    printf("zlib: %s\n", zlibVersion());
    printf("cupti: %s\n", VPROF_HAVE_CUPTI ? "built (libvprof-cupti.so)" : "not built");
    printf("sqlite: %s\n", VPROF_HAVE_SQLITE ? "built" : "not built");
    printf("mpi: %s\n", VPROF_HAVE_MPI ? "built" : "not built");
    /* Chosen at start-up (VPROF_SIMD forces one): scripts/cross-check-arm64
     * asserts that arm64 runs NEON. */
    printf("json scanner: %s\n", vp_json_scanner());
}

/* The first line under "Examples:" in a command's usage text, if any. */
static void print_first_example(FILE *out, const char *usage)
{
    const char *p = strstr(usage, "\nExamples:\n");
    if (!p)
        return;
    p += strlen("\nExamples:\n");
    const char *end = strchr(p, '\n');
    fprintf(out, "%.*s\n", (int)(end ? end - p : (ptrdiff_t)strlen(p)), p);
}

static void print_overview(FILE *out)
{
    fprintf(out, "usage: vprof <command> [options] FILE...\n\ncommands:\n");
    for (const vp_cmd *c = vp_commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\nexamples:\n");
    for (const vp_cmd *c = vp_commands; c->name; c++)
        print_first_example(out, c->usage);
    fprintf(out, "\n'vprof help <command>' or 'vprof <command> --help' for a command's options.\n"
                 "Exit status: 0 ok, 1 a gate failed, 2 usage error, 3 bad input.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return VP_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        print_version();
        return VP_EXIT_OK;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_overview(stdout);
        return VP_EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            print_overview(stdout);
            return VP_EXIT_OK;
        }
        if (strcmp(argv[2], "--list") == 0) {  /* for scripts: one name a line */
            for (const vp_cmd *c = vp_commands; c->name; c++)
                puts(c->name);
            return VP_EXIT_OK;
        }
        const vp_cmd *c = vp_cmd_find(argv[2]);
        if (!c) {
            fprintf(stderr, "vprof: help: no command '%s'\n", argv[2]);
            return VP_EXIT_USAGE;
        }
        fputs(c->usage, stdout);
        return VP_EXIT_OK;
    }
    const vp_cmd *c = vp_cmd_find(name);
    if (!c) {
        fprintf(stderr, "vprof: '%s' is not a vprof command. See 'vprof help'.\n", name);
        return VP_EXIT_USAGE;
    }
    vp_cli_diagnostics_install();
    /* getopt names argv[0] in its messages: make them read like ours. */
    char label[64];
    snprintf(label, sizeof label, "vprof: %s", c->name);
    argv[1] = label;
    return c->fn(argc - 1, argv + 1);
}
