/* vprof reduce: partial results (--save-part) merged and printed as the
 * command that wrote them would have printed them over all their inputs.
 *
 * The first partial's header names the command and the options that
 * shaped it; reduce runs that command with those options, its own
 * (presentation) options after them, and the partials as operands, which
 * the command then reads as partials (cli/scale.h: vp_reducing). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cli/scale.h"
#include "vprof/analyses.h"
#include "vprof/error.h"
#include "vprof/part.h"
#include "vprof/util.h"

const char cmd_reduce_usage[] =
    "usage: vprof reduce [options] PART...\n"
    "\n"
    "Merges partial results written with --save-part by kernels, ops, launches,\n"
    "api, copies, ranges, comm, steps, summary, check or memory (a Slurm job\n"
    "array's tasks, say) and prints what\n"
    "that command would have printed over all their inputs, in the order of the\n"
    "PART operands.\n"
    "The command and its options come from the first partial; every PART must come\n"
    "from the same command with the same options (docs/partials.md).\n"
    "\n"
    "  -f, --format FMT   table (default), csv, tsv, json, md\n"
    "  -o, --output FILE  write there instead of standard output\n"
    "      --full-names   never shorten kernel names in the table format\n"
    "      --top N        rows kept, where the command has --top\n"
    "      --table NAME   that table alone, where the command has --table (vprof CMD\n"
    "                     --table list names them)\n"
    "      --save-part P  merge into one partial result P instead (a reduction tree)\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      what the command says with -v\n"
    "  -h, --help         this help\n"
    "\n"
    "Examples:\n"
    "  vprof reduce parts/*.vpart\n"
    "  vprof reduce -f csv -o kernels.csv parts/rank*.vpart\n";

int cmd_reduce(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},
        {"full-names", no_argument, 0, VP_OPT_FULL_NAMES},
        {"top", required_argument, 0, VP_OPT_TOP},
        VP_TABLE_LONGOPT,
        {"save-part", required_argument, 0, VP_OPT_SAVE_PART},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:qvh", longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(cmd_reduce_usage, stdout);
            return VP_EXIT_OK;
        }
        if (c == '?') {
            fprintf(stderr, "Try 'vprof help reduce'.\n");
            return VP_EXIT_USAGE;
        }
    }
    if (optind >= argc)
        return vp_usage_error("reduce", "no partial result given (files written by --save-part)");

    /* The first header says which command, with which options. */
    vp_buf data = {0};
    FILE *f = fopen(argv[optind], "rb");
    if (f) {
        char buf[65536];
        size_t r;
        while ((r = fread(buf, 1, sizeof buf, f)) > 0)
            vp_buf_append(&data, buf, r);
        fclose(f);
    }
    if (!f) {
        fprintf(stderr, "vprof: reduce: cannot read %s: %s\n", argv[optind], strerror(errno));
        return VP_EXIT_INPUT;
    }
    vp_error err = {0};
    vp_part_header h;
    const void *payload;
    size_t n;
    if (vp_part_read(argv[optind], data.data, data.len, &h, &payload, &n, &err) != 0) {
        vp_error_print(&err);
        vp_buf_free(&data);
        return VP_EXIT_INPUT;
    }
    vp_buf_free(&data);
    /* The commands that make partials are the analyses' table's. */
    const vp_cmd *cmd = vp_cmd_find(h.command);
    if (!cmd || !vp_analysis_find(h.command)) {
        if (cmd)
            fprintf(stderr, "vprof: reduce: %s: made by '%s', which makes no partial results\n",
                    argv[optind], h.command);
        else
            fprintf(stderr, "vprof: reduce: %s: made by '%s', which this vprof does not have\n",
                    argv[optind], h.command);
        vp_buf_free(&h.options);
        return VP_EXIT_INPUT;
    }

    /* command, its options, ours, the partials */
    size_t nopts = 0;
    for (size_t i = 0; i < h.options.len; i++)
        nopts += h.options.data[i] == '\0';
    char **av = vp_calloc(nopts + (size_t)argc + 2, sizeof *av);
    char label[64];
    snprintf(label, sizeof label, "vprof: %s", cmd->name);
    size_t ac = 0;
    av[ac++] = label;
    for (size_t i = 0; i < h.options.len; i += strlen(h.options.data + i) + 1)
        av[ac++] = h.options.data + i;
    for (int i = 1; i < argc; i++)
        av[ac++] = argv[i];  /* getopt put our options first, the operands after */
    av[ac] = NULL;
    vp_reducing = 1;
    int status = cmd->fn((int)ac, av);
    free(av);
    vp_buf_free(&h.options);
    return status;
}
