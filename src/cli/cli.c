/* Options and output shared by the table-printing subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "vprof/classify.h"
#include "vprof/error.h"
#include "vprof/partfile.h"
#include "vprof/sink.h"
#include "vprof/util.h"

#ifndef VPROF_HAVE_MPI
#define VPROF_HAVE_MPI 0
#endif

/* The library's diagnostics, printed as vprof always printed them; the
 * hints name the options that the library may not. */
static void print_diag(void *ctx, vp_diag_kind kind, const char *msg)
{
    (void)ctx;
    (void)kind;   /* warnings are the only kind */
    if (!vp_quiet)
        fprintf(stderr, "vprof: warning: %s\n", msg);
}

static const char *hint_text(void *ctx, vp_hint code)
{
    (void)ctx;
    switch (code) {
    case VP_HINT_PARTIAL_USED:
        return "--partial: ";
    case VP_HINT_PARTIAL_RETRY:
        return "; --partial uses them";
    case VP_HINT_GIVE_HIDDEN:
        return " or with --hidden";
    case VP_HINT_GIVE_LAYERS:
        return " or with --layers";
    case VP_HINT_GIVE_HEADS:
        return " or with --heads";
    case VP_HINT_GIVE_VOCAB:
        return " or with --vocab";
    case VP_HINT_GIVE_HEAD_DIM:
        return " or with --head-dim";
    case VP_HINT_GIVE_TOP_K:
        return " or with --top-k";
    case VP_HINT_GIVE_MOE_FFN:
        return " or with --moe-ffn";
    case VP_HINT_GIVE_FFN:
        return " or with --ffn";
    case VP_HINT_MFU_TOKENS:
        return "--model needs --tokens-per-step (tokens of one step, all ranks) and "
               "--seq-len (tokens per sequence)";
    case VP_HINT_MFU_STEP_TIME:
        return " (use vprof mfu --step-time instead)";
    case VP_HINT_MFU_PEAK:
        return ": give --peak-tflops";
    case VP_HINT_METRICS_LIST:
        return " (vprof check --list-metrics lists them)";
    case VP_HINT_METRIC_NEEDS:
        return " (see vprof check --list-metrics for what it needs)";
    case VP_HINT_BASE_RUN:
        return " (vprof diff, or vprof check --baseline)";
    case VP_HINT_MFU_NO_MODEL:
        return "no model: give --model config.json, or describe it with --hidden, --layers, "
               "--heads, --ffn and --vocab";
    case VP_HINT_OPT_LOG: return "--log";
    case VP_HINT_OPT_SEQ_LEN: return "--seq-len";
    case VP_HINT_OPT_SEQLENS: return "--seqlens";
    case VP_HINT_OPT_TOKENS_PER_STEP: return "--tokens-per-step";
    case VP_HINT_OPT_GLOBAL_BATCH: return "--global-batch";
    case VP_HINT_OPT_TOKENS_PER_SEC: return "--tokens-per-sec";
    case VP_HINT_OPT_STEP_TIME: return "--step-time";
    case VP_HINT_OPT_STEPS: return "--steps";
    case VP_HINT_OPT_WORLD_SIZE: return "--world-size";
    case VP_HINT_OPT_PEAK: return "--peak-tflops";
    case VP_HINT_OPT_GPU: return "--gpu";
    case VP_HINT_OPT_DTYPE: return "--dtype";
    case VP_HINT_MEMORY_SNAPSHOT:
        return ": try `vprof memory`";
    case VP_HINT_STEPS:
        return "--steps";
    case VP_HINT_COMM_KERNELS:
        return " (--comm-kernels REGEX names the kernels of a library the rules do not know)";
    case VP_HINT_COUNT:
        break;
    }
    return "";
}

void vp_cli_diagnostics_install(void)
{
    vp_diag_install(&(vp_diag_handler){.emit = print_diag, .hint = hint_text});
}

void vp_common_init(vp_common_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = VP_FMT_TABLE;
    vp_step_range_parse(":", &o->steps);
}

/* The one place that writes the prefix of a command's message: "vprof: ",
 * then "CMD: " when there is a command, never "vprof" as a command name
 * (a second "vprof: " came in that way). */
static void say_prefix(const char *cmd)
{
    if (cmd && strcmp(cmd, "vprof") != 0)
        fprintf(stderr, "vprof: %s: ", cmd);
    else
        fputs("vprof: ", stderr);
}

void vp_cli_note(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_prefix(cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int vp_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_prefix(cmd);
    vfprintf(stderr, fmt, ap);
    if (cmd)
        fprintf(stderr, "\nTry 'vprof help %s'.\n", cmd);
    else
        fputs("\nTry 'vprof help'.\n", stderr);
    va_end(ap);
    return VP_EXIT_USAGE;
}

/* The files named by option: what vp_cli_check_outputs compares. */
typedef struct named_list {
    vp_named_path *v;
    size_t n, cap;
} named_list;

static named_list named_outputs, named_inputs;

static void name_path(named_list *l, const char *option, const char *path)
{
    if (!path)
        return;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].what, option) == 0) {  /* given again: the last counts */
            l->v[i].path = path;
            return;
        }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = vp_realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (vp_named_path){option, path};
}

void vp_cli_output(const char *option, const char *path)
{
    name_path(&named_outputs, option, path);
}

void vp_cli_input(const char *option, const char *path)
{
    name_path(&named_inputs, option, path);
}

int vp_cli_check_outputs(const char *cmd, char *const *paths, size_t n)
{
    if (named_outputs.n == 0)
        return 0;
    /* --save-part's pattern stands for the files it names: one per input
     * with %i, this process's with %r (rank 0 without MPI) */
    vp_named_path *outs = vp_malloc((named_outputs.n + n + 1) * sizeof *outs);
    char **made = vp_calloc(n + 1, sizeof *made);
    size_t no = 0, nmade = 0;
    for (size_t i = 0; i < named_outputs.n; i++) {
        const vp_named_path *o = &named_outputs.v[i];
        if (strcmp(o->what, "--save-part") != 0 || !strchr(o->path, '%')) {
            outs[no++] = *o;
            continue;
        }
        size_t each = strstr(o->path, "%i") ? (n ? n : 1) : 1;
        for (size_t k = 0; k < each; k++) {
            made[nmade] = vp_part_path(o->path, 0, k);
            outs[no++] = (vp_named_path){o->what, made[nmade++]};
        }
    }
    vp_named_path *ins = vp_malloc((named_inputs.n + n + 1) * sizeof *ins);
    size_t ni = 0;
    for (size_t i = 0; i < named_inputs.n; i++)
        ins[ni++] = named_inputs.v[i];
    for (size_t i = 0; i < n; i++)
        ins[ni++] = (vp_named_path){NULL, paths[i]};
    vp_error err = {0};
    int st = vp_outputs_check(outs, no, ins, ni, &err) == 0 ? 0 : vp_usage_error(cmd, "%s", err.msg);
    for (size_t i = 0; i < nmade; i++)
        free(made[i]);
    free(made);
    free(outs);
    free(ins);
    return st;
}

FILE *vp_outfile_open(vp_outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        return o->f;
    }
    o->path = path;
    o->f = open_memstream(&o->mem, &o->len);
    if (!o->f) {
        fputs("vprof: out of memory\n", stderr);
        abort();
    }
    return o->f;
}

int vp_outfile_close(vp_outfile *o, int rc)
{
    vp_error err = {0};
    if (!o->path) {
        if (fflush(stdout) != 0 || rc != 0) {
            fprintf(stderr, "vprof: cannot write standard output: %s\n", strerror(errno));
            return VP_EXIT_INPUT;
        }
        return VP_EXIT_OK;
    }
    if (fclose(o->f) != 0 && rc == 0)
        rc = -1;
    o->f = NULL;
    if (rc != 0)
        vp_error_set(&err, VP_EXIT_INPUT, "cannot write %s: %s", o->path, strerror(errno));
    vp_sink *s = rc == 0 ? vp_sink_open(o->path, NULL, &err) : NULL;
    if (s) {
        vp_sink_write(s, o->mem, o->len);
        rc = vp_sink_close(s, &err);   /* says why, naming the file */
    } else {
        rc = -1;
    }
    free(o->mem);
    o->mem = NULL;
    if (rc != 0) {
        vp_error_print(&err);
        return VP_EXIT_INPUT;
    }
    return VP_EXIT_OK;
}

int vp_options_conflict(const char *cmd, const char *a, const char *b, const char *why)
{
    return vp_usage_error(cmd, "%s and %s cannot be given together: %s", a, b, why);
}

/* The rules of --comm-kernels and --compute-kernels: one set for the
 * process, freed at its exit. */
static vp_kclass_rules *class_rules;

static void free_class_rules(void)
{
    vp_kclass_rules_free(class_rules);
    class_rules = NULL;
}

static int class_option(vp_common_opts *o, const vp_cmd *cmd, int comm, const char *arg)
{
    vp_error err = {0};
    if (!class_rules) {
        class_rules = vp_kclass_rules_new();
        atexit(free_class_rules);
    }
    if (vp_kclass_rules_set(class_rules, comm ? VP_CLASS_COMM : VP_CLASS_COMPUTE, arg, &err) != 0) {
        vp_usage_error(cmd->name, "%s: %s", comm ? "--comm-kernels" : "--compute-kernels",
                       err.msg);
        return -1;
    }
    o->classes = class_rules;
    return 1;
}

int vp_common_option(vp_common_opts *o, const vp_cmd *cmd, int c, const char *arg)
{
    o->cmd = cmd;   /* for the commands with a getopt loop of their own */
    switch (c) {
    case 'f':
        if (o->own_format && o->own_format(o->own_format_ctx, arg))
            return 1;
        if (vp_format_parse(arg, &o->format) != 0) {
            vp_usage_error(cmd->name, "unknown format '%s' (table, csv, tsv, json, md)", arg);
            return -1;
        }
        return 1;
    case 'o':
        o->output = arg;
        vp_cli_output("-o", arg);
        return 1;
    case 'q':
        vp_quiet = 1;
        return 1;
    case 'v':
        o->verbose = 1;
        return 1;
    case VP_OPT_FULL_NAMES:
        o->full_names = 1;
        return 1;
    case VP_OPT_PARTIAL:
        o->partial = 1;
        return 1;
    case VP_OPT_TOP: {
        char *e;
        long v = strtol(arg, &e, 10);
        if (e == arg || *e || v < 0) {
            vp_usage_error(cmd->name, "--top: expected a count (0 = all), found '%s'", arg);
            return -1;
        }
        o->top = v;
        return 1;
    }
    case VP_OPT_STEPS:
        if (vp_step_range_parse(arg, &o->steps) != 0) {
            vp_usage_error(cmd->name, "--steps: expected A:B, A:, :B or N, found '%s'", arg);
            return -1;
        }
        o->has_steps = 1;
        return 1;
    case 'j': {
        char *e;
        long v = strtol(arg, &e, 10);
        if (e == arg || *e || v < 1 || v > 4096) {
            vp_usage_error(cmd->name, "-j: expected a number of jobs from 1 to 4096, found '%s'",
                           arg);
            return -1;
        }
        o->jobs = v;
        return 1;
    }
    case VP_OPT_SAVE_PART:
        o->save_part = arg;
        vp_cli_output("--save-part", arg);
        return 1;
    case VP_OPT_MPI:
        if (!VPROF_HAVE_MPI) {
            vp_usage_error(cmd->name, "--mpi: this vprof was built without MPI "
                                      "(cmake -DVPROF_MPI=ON; vprof --version says)");
            return -1;
        }
        o->mpi = 1;
        return 1;
    case VP_OPT_LOCAL:
        if (!VPROF_HAVE_MPI) {
            vp_usage_error(cmd->name, "--local: this vprof was built without MPI "
                                      "(cmake -DVPROF_MPI=ON; vprof --version says)");
            return -1;
        }
        o->mpi = 1;
        o->local = 1;
        return 1;
    case VP_OPT_TABLE:
        return vp_table_option(o, cmd, arg);
    case VP_OPT_COMM_KERNELS:
    case VP_OPT_COMPUTE_KERNELS:
        return class_option(o, cmd, c == VP_OPT_COMM_KERNELS, arg);
    case 'h':
        fputs(cmd->usage, stdout);
        return 2;
    case '?':
        fprintf(stderr, "Try 'vprof help %s'.\n", cmd->name);
        return -1;
    default:
        return 0;
    }
}

/* The options that shape partial results, as given: the header of a
 * .vpart file carries them, and vprof reduce parses them again. */
static vp_buf shape;

const char *vp_shape_options(size_t *len)
{
    *len = shape.len;
    return shape.data ? shape.data : "";
}

static int presentation_only(int c)
{
    switch (c) {
    case 'f': case 'o': case 'q': case 'v': case 'h': case 'j':
    case VP_OPT_FULL_NAMES: case VP_OPT_TOP: case VP_OPT_SAVE_PART: case VP_OPT_MPI:
    case VP_OPT_LOCAL: case VP_OPT_TABLE:
        return 1;
    default:
        return 0;
    }
}

static int has_option(const struct option *longopts, int c)
{
    for (; longopts->name; longopts++)
        if (longopts->val == c)
            return 1;
    return 0;
}

int vp_getopt(vp_common_opts *o, const vp_cmd *cmd, int argc, char **argv,
              const char *shortopts, const struct option *longopts, int *status)
{
    o->cmd = cmd;
    for (;;) {
        int li = -1;
        int c = getopt_long(argc, argv, shortopts, longopts, &li);
        if (c == -1)
            return VP_OPT_END;
        if (c == 'j' && !has_option(longopts, 'j')) {
            /* in the common short set, but this command has no -j */
            fprintf(stderr, "%s: invalid option -- '%c'\n", argv[0], c);
            c = '?';
        }
        if (c != '?' && !presentation_only(c)) {
            if (li >= 0) {
                vp_buf_printf(&shape, "--%s", longopts[li].name);
                if (optarg)
                    vp_buf_printf(&shape, "=%s", optarg);
                vp_buf_putc(&shape, '\0');
            } else {
                vp_buf_printf(&shape, "-%c", c);
                vp_buf_putc(&shape, '\0');
                if (optarg) {
                    vp_buf_append(&shape, optarg, strlen(optarg));
                    vp_buf_putc(&shape, '\0');
                }
            }
        }
        int h = vp_common_option(o, cmd, c, optarg);
        if (h == 2) {
            *status = VP_EXIT_OK;
            return VP_OPT_EXIT;
        }
        if (h < 0) {
            *status = VP_EXIT_USAGE;
            return VP_OPT_EXIT;
        }
        if (h == 0)
            return c;
    }
}

void vp_verbose_say(const char *msg)
{
    fprintf(stderr, "vprof: %s\n", msg);
}
