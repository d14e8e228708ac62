/* vprof record: run a command with the CUPTI shim injected (or under
 * Ascend's msprof), forward signals to it, return its exit status, and say
 * which traces it wrote. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "vprof/capture.h"
#include "vprof/launch.h"
#include "vprof/msprof.h"
#include "vprof/util.h"

#ifndef VPROF_HAVE_CUPTI
#define VPROF_HAVE_CUPTI 0
#endif
#ifndef VPROF_BUILD_DIR
#define VPROF_BUILD_DIR ""
#endif
#ifndef VPROF_INSTALL_LIBDIR
#define VPROF_INSTALL_LIBDIR ""
#endif

const char cmd_record_usage[] =
    "usage: vprof record [options] [--] COMMAND [ARG...]\n"
    "       vprof record --print-env [options]\n"
    "\n"
    "Runs COMMAND and records a Kineto-compatible trace of every CUDA process it\n"
    "starts, with no change to the program: the CUDA driver loads libvprof-cupti.so\n"
    "(CUDA_INJECTION64_PATH), which writes DIR/vprof_rank<R>_<pid>.pt.trace.json.gz\n"
    "when the process exits (or gets SIGINT/SIGTERM). Signals are forwarded; the\n"
    "exit status is COMMAND's. With --backend ascend, runs COMMAND under msprof.\n"
    "\n"
    "  -o, --output DIR        where the traces go (default .; created)\n"
    "      --capture-range R   all (default), cudaProfilerApi (between cudaProfilerStart\n"
    "                          and cudaProfilerStop), nvtx:NAME (inside NVTX ranges NAME)\n"
    "      --delay S           start recording S seconds after CUDA starts\n"
    "      --duration S        stop S seconds after recording started\n"
    "      --ranks LIST        only these ranks record (RANK, OMPI_COMM_WORLD_RANK,\n"
    "                          PMI_RANK or SLURM_PROCID), e.g. 0,3 or 0-7\n"
    "      --kinds LIST        kernel,memcpy,memset,sync,runtime,driver,overhead (the\n"
    "                          default), nvtx; or all\n"
    "      --nvtx              also record NVTX ranges (user_annotation slices)\n"
    "      --buffer-size SIZE  bytes per CUPTI buffer (default 4M)\n"
    "      --buffer-pool SIZE  bytes of buffers at most (default 64M): beyond, records\n"
    "                          are dropped and counted, never the workload slowed\n"
    "      --no-gzip           write .json instead of .json.gz\n"
    "      --summary           print `vprof kernels` of the traces written\n"
    "      --print-env         print the variables to set (NAME=VALUE lines) and exit,\n"
    "                          for launchers: env $(vprof record --print-env) torchrun ...\n"
    "      --dry-run           print what would run, run nothing\n"
    "      --backend B         cupti (default) or ascend\n"
    "  -q, --quiet             only errors on standard error\n"
    "  -h, --help              this help\n"
    "\n"
    "Ascend (--backend ascend; msprof from the CANN toolkit):\n"
    "      --level N           0 task timing, 1 + AscendCL, 2 + runtime API and AI CPU\n"
    "      --aic-metrics M     AI Core metrics: PipeUtilization, ArithmeticUtilization,\n"
    "                          Memory, MemoryL0, MemoryUB, ResourceConflictRatio,\n"
    "                          L2Cache, MemoryAccess\n"
    "      --task-time V       on, off, l0 or l1 (overrides the level's)\n"
    "      --cpu               device and host CPU sampling\n"
    "      --memory            device HBM/DDR and host memory sampling\n"
    "      --msprof-arg ARG    pass ARG to msprof (repeatable)\n"
    "\n"
    "The shim is found beside vprof, in ../lib, or in the build directory;\n"
    "VPROF_CUPTI_LIB overrides. Layout of the trace and limits: docs/record.md.\n"
    "\n"
    "Examples:\n"
    "  vprof record -- python train.py --steps 20\n"
    "  vprof record -o prof/ --capture-range cudaProfilerApi -- ./my_cuda_app\n"
    "  env $(vprof record --print-env -o prof) torchrun --nproc-per-node 8 train.py\n"
    "  vprof record --backend ascend -o prof/ -- python train_npu.py\n";

enum {
    OPT_CAPTURE_RANGE = VP_OPT_FIRST_CMD,
    OPT_DELAY,
    OPT_DURATION,
    OPT_RANKS,
    OPT_KINDS,
    OPT_NVTX,
    OPT_BUFFER_SIZE,
    OPT_BUFFER_POOL,
    OPT_NO_GZIP,
    OPT_SUMMARY,
    OPT_PRINT_ENV,
    OPT_DRY_RUN,
    OPT_BACKEND,
    OPT_LEVEL,
    OPT_AIC_METRICS,
    OPT_TASK_TIME,
    OPT_CPU,
    OPT_MEMORY,
    OPT_MSPROF_ARG,
};

typedef struct record {
    vp_cap_config cfg;
    int ascend;
    int summary, print_env, dry_run;
    vp_msprof_opts ms;
    vp_argv msprof_args;
} record;

/* What the library says, as record always said it: failures always,
 * progress unless -q. */
static void say(void *ctx, int error, const char *line)
{
    (void)ctx;
    if (error || !vp_quiet)
        fprintf(stderr, "vprof: record: %s\n", line);
}

static char *output_dir(const char *dir, int create)
{
    vp_error err = {0};
    char *abs = vp_launch_output_dir(dir, create, &err);
    if (!abs)
        say(NULL, 1, err.msg);
    return abs;
}

/* `vprof summary FILES` where it exists, `vprof kernels FILES` until then. */
static int summarize(char *const *files, size_t n)
{
    const vp_cmd *c = vp_cmd_find("summary");
    if (!c)
        c = vp_cmd_find("kernels");
    if (!c || n == 0)
        return VP_EXIT_OK;
    vp_argv a = {0};
    vp_argv_push(&a, c->name);
    for (size_t i = 0; i < n; i++)
        vp_argv_push(&a, files[i]);
    fflush(NULL);
    optind = 0;  /* the command parses its own options afresh */
    int rc = c->fn((int)a.n, a.v);
    vp_argv_free(&a);
    return rc;
}

/* ---- backends ---- */

static void print_argv(FILE *out, char *const *argv, size_t n)
{
    vp_buf line = {0};
    vp_shell_join(argv, n, &line);
    fprintf(out, "%s\n", line.data);
    vp_buf_free(&line);
}

static int record_cupti(record *r, char **cmd, int ncmd)
{
    vp_buf env = {0};
    vp_error perr = {0};
    if (vp_launch_prepare(&r->cfg, VPROF_BUILD_DIR, VPROF_INSTALL_LIBDIR, VPROF_HAVE_CUPTI,
                          !r->print_env && !r->dry_run, &env, &perr) != 0) {
        say(NULL, 1, perr.msg);
        return perr.status;
    }
    if (r->print_env || r->dry_run) {
        vp_buf lines = {0};
        vp_launch_env_lines(env.data, &lines);
        fwrite(lines.data, 1, lines.len, stdout);
        vp_buf_free(&lines);
        if (r->dry_run && ncmd > 0)
            print_argv(stdout, cmd, (size_t)ncmd);
        vp_buf_free(&env);
        return VP_EXIT_OK;
    }
    vp_argv traces = {0};
    vp_error err = {0};
    int status = vp_launch_record(cmd, env.data, r->cfg.output_dir, &traces, &err);
    if (err.status)
        say(NULL, 1, err.msg);
    vp_buf_free(&env);
    if (!vp_quiet) {
        if (traces.n == 0)
            fprintf(stderr, "vprof: record: no trace written to %s (the command made no CUDA call, or "
                            "not from a selected rank)\n",
                    r->cfg.output_dir);
        else
            fprintf(stderr, "vprof: record: %zu trace%s written:\n", traces.n, traces.n == 1 ? "" : "s");
        for (size_t i = 0; i < traces.n; i++)
            fprintf(stderr, "  %s\n", traces.v[i]);
    }
    if (r->summary && traces.n)
        summarize(traces.v, traces.n);
    vp_argv_free(&traces);
    return vp_launch_exit_like(status);
}

static int record_ascend(record *r, char **cmd, int ncmd)
{
    vp_error err = {0};
    int bad = vp_msprof_check(&r->ms, &err);
    if (bad != 0) {
        const char *opt = bad == VP_MSPROF_BAD_LEVEL       ? "--level"
                          : bad == VP_MSPROF_BAD_TASK_TIME ? "--task-time"
                                                           : "--aic-metrics";
        return vp_usage_error("record", "%s: %s", opt, err.msg);
    }
    int run = !r->dry_run;
    char *dir = output_dir(r->cfg.output_dir, run);
    if (!dir)
        return VP_EXIT_INPUT;
    r->ms.output = dir;
    r->ms.extra = r->msprof_args.v;
    r->ms.nextra = r->msprof_args.n;
    char *msprof = vp_find_on_path("msprof", getenv("PATH"));
    vp_argv collect = {0};
    vp_msprof_collect_argv(&r->ms, msprof ? msprof : "msprof", cmd, (size_t)ncmd, &collect);
    int rc = VP_EXIT_OK;
    if (r->dry_run) {
        print_argv(stdout, collect.v, collect.n);
        printf("# then, for each new %s/PROF_* without mindstudio_profiler_output/:\n", dir);
        printf("%s --export=on --output=%s/PROF_...\n", msprof ? msprof : "msprof", dir);
        goto out;
    }
    if (!msprof) {
        fprintf(stderr,
                "vprof: record: msprof not found on PATH: load the CANN toolkit's environment first,\n"
                "  e.g. source /usr/local/Ascend/ascend-toolkit/set_env.sh (or $ASCEND_TOOLKIT_HOME/set_env.sh)\n"
                "The command would be:\n  ");
        print_argv(stderr, collect.v, collect.n);
        rc = VP_EXIT_USAGE;
        goto out;
    }
    vp_argv profs = {0};
    int status = vp_launch_msprof(collect.v, msprof, dir, &profs, say, NULL);
    if (!vp_quiet) {
        if (profs.n == 0) {
            fprintf(stderr, "vprof: record: msprof wrote no PROF_* directory in %s\n", dir);
        } else {
            fprintf(stderr, "vprof: record: msprof results:\n");
            for (size_t i = 0; i < profs.n; i++)
                fprintf(stderr, "  %s/mindstudio_profiler_output/\n", profs.v[i]);
            fprintf(stderr, "read them with:\n  vprof kernels %s/mindstudio_profiler_output/msprof_*.json\n"
                            "  vprof comm %s/mindstudio_profiler_output/msprof_*.json\n",
                    profs.v[profs.n - 1], profs.v[profs.n - 1]);
        }
    }
    vp_argv_free(&profs);
    free(msprof);
    free(dir);
    vp_argv_free(&collect);
    return vp_launch_exit_like(status);
out:
    free(msprof);
    free(dir);
    vp_argv_free(&collect);
    return rc;
}

int cmd_record(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {"capture-range", required_argument, 0, OPT_CAPTURE_RANGE},
        {"delay", required_argument, 0, OPT_DELAY},
        {"duration", required_argument, 0, OPT_DURATION},
        {"ranks", required_argument, 0, OPT_RANKS},
        {"kinds", required_argument, 0, OPT_KINDS},
        {"nvtx", no_argument, 0, OPT_NVTX},
        {"buffer-size", required_argument, 0, OPT_BUFFER_SIZE},
        {"buffer-pool", required_argument, 0, OPT_BUFFER_POOL},
        {"no-gzip", no_argument, 0, OPT_NO_GZIP},
        {"summary", no_argument, 0, OPT_SUMMARY},
        {"print-env", no_argument, 0, OPT_PRINT_ENV},
        {"dry-run", no_argument, 0, OPT_DRY_RUN},
        {"backend", required_argument, 0, OPT_BACKEND},
        {"level", required_argument, 0, OPT_LEVEL},
        {"aic-metrics", required_argument, 0, OPT_AIC_METRICS},
        {"task-time", required_argument, 0, OPT_TASK_TIME},
        {"cpu", no_argument, 0, OPT_CPU},
        {"memory", no_argument, 0, OPT_MEMORY},
        {"msprof-arg", required_argument, 0, OPT_MSPROF_ARG},
        {0, 0, 0, 0},
    };
    record r;
    memset(&r, 0, sizeof r);
    vp_cap_config_init(&r.cfg);
    r.ms.level = -1;
    vp_error err = {0};
    int c, rc = VP_EXIT_OK, nvtx = 0;
    size_t pool = 0;
    int ascend_opt = 0;
    optind = 0;
    /* '+': the first non-option is COMMAND, whose options are its own. */
    while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
        const char *arg = optarg;
        int bad = 0;
        ascend_opt |= c >= OPT_LEVEL && c <= OPT_MSPROF_ARG;   /* the msprof options */
        switch (c) {
        case 'o':
            free(r.cfg.output_dir);
            r.cfg.output_dir = vp_strdup(arg);
            break;
        case 'q':
            vp_quiet = 1;
            r.cfg.quiet = 1;
            break;
        case 'h':
            fputs(cmd_record_usage, stdout);
            goto done;
        case OPT_CAPTURE_RANGE:
            bad = vp_cap_parse_range(arg, &r.cfg.range, &r.cfg.range_name, "--capture-range", &err);
            break;
        case OPT_DELAY: bad = vp_cap_parse_seconds(arg, &r.cfg.delay_ns, "--delay", &err); break;
        case OPT_DURATION:
            bad = vp_cap_parse_seconds(arg, &r.cfg.duration_ns, "--duration", &err);
            break;
        case OPT_RANKS: bad = vp_cap_parse_ranks(arg, &r.cfg, "--ranks", &err); break;
        case OPT_KINDS: bad = vp_cap_parse_kinds(arg, &r.cfg.kinds, "--kinds", &err); break;
        case OPT_NVTX: nvtx = 1; break;
        case OPT_BUFFER_SIZE:
            bad = vp_cap_parse_size(arg, &r.cfg.buffer_size, "--buffer-size", &err);
            break;
        case OPT_BUFFER_POOL: bad = vp_cap_parse_size(arg, &pool, "--buffer-pool", &err); break;
        case OPT_NO_GZIP: r.cfg.gzip = 0; break;
        case OPT_SUMMARY: r.summary = 1; break;
        case OPT_PRINT_ENV: r.print_env = 1; break;
        case OPT_DRY_RUN: r.dry_run = 1; break;
        case OPT_BACKEND:
            if (strcmp(arg, "cupti") == 0 || strcmp(arg, "cuda") == 0) {
                r.ascend = 0;
            } else if (strcmp(arg, "ascend") == 0 || strcmp(arg, "msprof") == 0) {
                r.ascend = 1;
            } else {
                rc = vp_usage_error("record", "unknown backend '%s' (cupti, ascend)", arg);
                goto done;
            }
            break;
        case OPT_LEVEL:
            if (strlen(arg) != 1 || arg[0] < '0' || arg[0] > '2') {
                rc = vp_usage_error("record", "--level: '%s' is not 0, 1 or 2", arg);
                goto done;
            }
            r.ms.level = arg[0] - '0';
            break;
        case OPT_AIC_METRICS: r.ms.aic_metrics = arg; break;
        case OPT_TASK_TIME: r.ms.task_time = arg; break;
        case OPT_CPU: r.ms.cpu = 1; break;
        case OPT_MEMORY: r.ms.memory = 1; break;
        case OPT_MSPROF_ARG: vp_argv_push(&r.msprof_args, arg); break;
        default:
            fprintf(stderr, "Try 'vprof help record'.\n");
            rc = VP_EXIT_USAGE;
            goto done;
        }
        if (bad) {
            rc = vp_usage_error("record", "%s", err.msg);
            goto done;
        }
    }
    if (nvtx)
        r.cfg.kinds |= VP_CAP_NVTX;
    if (pool)
        r.cfg.pool_size = pool;
    if (r.cfg.pool_size < 2 * r.cfg.buffer_size) {
        rc = vp_usage_error("record", "--buffer-pool must hold at least two buffers (2 x --buffer-size)");
        goto done;
    }
    if (ascend_opt && !r.ascend) {
        rc = vp_usage_error("record", "--level, --aic-metrics, --task-time, --cpu, --memory and --msprof-arg "
                                      "need --backend ascend");
        goto done;
    }
    char **cmd = argv + optind;
    int ncmd = argc - optind;
    if (r.ascend && r.print_env) {
        rc = vp_usage_error("record", "--print-env is for the cupti backend (msprof runs the command itself)");
        goto done;
    }
    if (ncmd == 0 && !r.print_env) {
        rc = vp_usage_error("record", "no command to run (vprof record [options] -- COMMAND [ARG...])");
        goto done;
    }
    if (ncmd > 0 && r.print_env) {
        rc = vp_usage_error("record", "--print-env takes no command (use --dry-run to see both)");
        goto done;
    }
    rc = r.ascend ? record_ascend(&r, cmd, ncmd) : record_cupti(&r, cmd, ncmd);
done:
    vp_argv_free(&r.msprof_args);
    vp_cap_config_free(&r.cfg);
    return rc;
}
