/* What `vprof record` does around the profiled command, free of CUDA:
 * where the shim and the output are, the command run with signals
 * forwarded, the traces it wrote.  See vprof/launch.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vprof/capture.h"
#include "vprof/launch.h"
#include "vprof/msprof.h"
#include "vprof/util.h"

/* ---- the child and its signals ---- */

static volatile pid_t child_pid;

/* Forwards a signal to the command, except one the terminal sent: the
 * command is in our process group and got that one already. */
static void forward(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    if (info && info->si_code == SI_KERNEL)
        return;
    if (child_pid > 0)
        kill(child_pid, sig);
}

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define NFORWARDED (sizeof forwarded / sizeof forwarded[0])

/* Runs argv with the extra NAME=VALUE lines of env set; returns its
 * wait status, or -1 when it could not be started. */
int vp_launch_run(char *const *argv, const char *env, const char *what, vp_error *err)
{
    struct sigaction old[NFORWARDED], sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    /* Blocked until child_pid is set: a signal that comes between the
     * fork and then is held, not lost. */
    sigset_t block, prev;
    sigemptyset(&block);
    for (size_t i = 0; i < NFORWARDED; i++) {
        sigaction(forwarded[i], &sa, &old[i]);
        sigaddset(&block, forwarded[i]);
    }
    sigprocmask(SIG_BLOCK, &block, &prev);
    fflush(NULL);
    /* The child tells why exec failed through a pipe that a successful
     * exec closes: the library prints nothing, even from a child. */
    int fds[2] = {-1, -1};
    pid_t pid = -1;
    if (pipe(fds) == 0 && fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0 &&
        fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0)
        pid = fork();
    if (pid < 0) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot fork: %s", strerror(errno));
        if (fds[0] >= 0) {
            close(fds[0]);
            close(fds[1]);
        }
        for (size_t i = 0; i < NFORWARDED; i++)
            sigaction(forwarded[i], &old[i], NULL);
        sigprocmask(SIG_SETMASK, &prev, NULL);
        return -1;
    }
    if (pid == 0) {
        for (size_t i = 0; i < NFORWARDED; i++)
            sigaction(forwarded[i], &old[i], NULL);
        sigprocmask(SIG_SETMASK, &prev, NULL);
        for (const char *p = env; p && *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            char *line = vp_strndup(p, n);
            char *eq = strchr(line, '=');
            if (eq) {
                *eq = 0;
                setenv(line, eq + 1, 1);
            }
            free(line);
            p += n + (nl ? 1 : 0);
        }
        close(fds[0]);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(e == ENOENT ? 127 : 126);
    }
    child_pid = pid;
    sigprocmask(SIG_SETMASK, &prev, NULL);
    close(fds[1]);
    int e = 0;
    ssize_t got;
    while ((got = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (got == (ssize_t)sizeof e)
        vp_error_set(err, VP_EXIT_INPUT, "cannot run %s '%s': %s", what, argv[0], strerror(e));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = -1;
            break;
        }
    }
    child_pid = 0;
    for (size_t i = 0; i < NFORWARDED; i++)
        sigaction(forwarded[i], &old[i], NULL);
    return status;
}

#define SHIM_NAME "libvprof-cupti.so"

/* ---- paths ---- */

static int mkdir_p(const char *dir)
{
    vp_buf b = {0};
    vp_buf_append(&b, dir, strlen(dir));
    char *p = (char *)vp_buf_cstr(&b);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            vp_buf_free(&b);
            return -1;
        }
        *s = '/';
    }
    int r = mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
    vp_buf_free(&b);
    return r;
}

/* The output directory, created, as an absolute path (children may run
 * elsewhere: torchrun workers, srun steps). */
char *vp_launch_output_dir(const char *dir, int create, vp_error *err)
{
    if (create && mkdir_p(dir) != 0) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot create %s: %s", dir, strerror(errno));
        return NULL;
    }
    char *abs = realpath(dir, NULL);
    if (abs)
        return abs;
    if (create) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot resolve %s: %s", dir, strerror(errno));
        return NULL;
    }
    if (dir[0] == '/')
        return vp_strdup(dir);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return vp_strdup(dir);
    vp_buf b = {0};
    vp_buf_printf(&b, "%s/%s", cwd, dir);
    return (char *)vp_buf_cstr(&b);
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

char *vp_launch_find_shim(const char *build_dir, const char *install_libdir)
{
    const char *env = getenv("VPROF_CUPTI_LIB");
    if (env && *env)
        return is_file(env) ? realpath(env, NULL) : NULL;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    vp_argv cands = {0};
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        vp_argv_pushf(&cands, "%s/" SHIM_NAME, exe);
        vp_argv_pushf(&cands, "%s/../lib/" SHIM_NAME, exe);
        vp_argv_pushf(&cands, "%s/../lib64/" SHIM_NAME, exe);
#if defined(__x86_64__)
        vp_argv_pushf(&cands, "%s/../lib/x86_64-linux-gnu/" SHIM_NAME, exe);
#elif defined(__aarch64__)
        vp_argv_pushf(&cands, "%s/../lib/aarch64-linux-gnu/" SHIM_NAME, exe);
#endif
    }
    if (build_dir && *build_dir)
        vp_argv_pushf(&cands, "%s/" SHIM_NAME, build_dir);
    if (install_libdir && *install_libdir)
        vp_argv_pushf(&cands, "%s/" SHIM_NAME, install_libdir);
    char *found = NULL;
    for (size_t i = 0; i < cands.n && !found; i++)
        if (is_file(cands.v[i]))
            found = realpath(cands.v[i], NULL);
    vp_argv_free(&cands);
    return found;
}

void vp_launch_shim_env(const vp_cap_config *c, const char *shim, vp_buf *out)
{
    vp_buf_printf(out, "CUDA_INJECTION64_PATH=%s\n", shim);
    if (c->kinds & VP_CAP_NVTX || c->range == VP_RANGE_NVTX)
        vp_buf_printf(out, "NVTX_INJECTION64_PATH=%s\n", shim);
    vp_cap_config_to_env(c, out);
}

/* vprof_rank*.pt.trace.json[.gz], a regular file written since the run
 * began. */
static int is_new_trace(const char *nm, const char *path, const void *ctx)
{
    const struct timespec *since = ctx;
    size_t n = strlen(nm);
    int json = n > 14 && strcmp(nm + n - 14, ".pt.trace.json") == 0;
    int gz = n > 17 && strcmp(nm + n - 17, ".pt.trace.json.gz") == 0;
    if (strncmp(nm, "vprof_rank", 10) != 0 || (!json && !gz))
        return 0;
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
           (sb.st_mtim.tv_sec > since->tv_sec ||
            (sb.st_mtim.tv_sec == since->tv_sec && sb.st_mtim.tv_nsec >= since->tv_nsec));
}

void vp_launch_find_traces(const char *dir, const struct timespec *since, vp_argv *out)
{
    vp_dir_find(dir, is_new_trace, since, out);
}

int vp_launch_record(char *const *cmd, const char *env, const char *dir, vp_argv *traces,
                     vp_error *err)
{
    /* File times come from the kernel's coarse clock, which lags the
     * precise one by up to a tick: compare like with like. */
    struct timespec start;
#ifdef CLOCK_REALTIME_COARSE
    clock_gettime(CLOCK_REALTIME_COARSE, &start);
#else
    clock_gettime(CLOCK_REALTIME, &start);
    start.tv_sec--;
#endif
    int status = vp_launch_run(cmd, env, "command", err);
    vp_launch_find_traces(dir, &start, traces);
    return status;
}

void vp_launch_shim_missing(int have_cupti, vp_error *err)
{
    const char *env = getenv("VPROF_CUPTI_LIB");
    if (env && *env)
        vp_error_set(err, VP_EXIT_USAGE, "VPROF_CUPTI_LIB=%s is not a file", env);
    else if (!have_cupti)
        vp_error_set(err, VP_EXIT_USAGE, "this vprof was built without CUDA, so without " SHIM_NAME
                     " (rebuild where the CUDA toolkit and CUPTI are installed, or set "
                     "VPROF_CUPTI_LIB)");
    else
        vp_error_set(err, VP_EXIT_USAGE, SHIM_NAME " not found beside vprof, in ../lib or in the "
                     "build directory (set VPROF_CUPTI_LIB)");
}

/* vp_launch_run, saying what failed. */
static int run_saying(char *const *argv, vp_launch_say say, void *ctx)
{
    vp_error err = {0};
    int status = vp_launch_run(argv, NULL, "msprof", &err);
    if (err.status)
        say(ctx, 1, err.msg);
    return status;
}

int vp_launch_msprof(char *const *collect, const char *msprof, const char *dir, vp_argv *profs,
                     vp_launch_say say, void *ctx)
{
    time_t start = time(NULL);
    int status = run_saying(collect, say, ctx);
    vp_msprof_find_results(dir, (long long)start - 1, profs);
    for (size_t i = 0; i < profs->n; i++) {
        if (vp_msprof_exported(profs->v[i]))
            continue;
        vp_argv exp = {0};
        vp_msprof_export_argv(msprof, profs->v[i], &exp);
        vp_buf line = {0};
        vp_buf_printf(&line, "exporting: ");
        vp_shell_join(exp.v, exp.n, &line);
        say(ctx, 0, line.data);
        if (run_saying(exp.v, say, ctx) != 0) {
            line.len = 0;
            vp_buf_printf(&line, "msprof --export failed for %s", profs->v[i]);
            say(ctx, 0, line.data);
        }
        vp_buf_free(&line);
        vp_argv_free(&exp);
    }
    return status;
}

void vp_launch_env_lines(const char *env, vp_buf *out)
{
    for (const char *p = env; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        char *value = vp_strndup(eq + 1, n - (size_t)(eq + 1 - p));
        vp_buf_printf(out, "%.*s=", (int)(eq - p), p);
        vp_shell_quote(value, out);
        vp_buf_putc(out, '\n');
        free(value);
        p += n + (nl ? 1 : 0);
    }
}

int vp_launch_exit_like(int status)
{
    if (status < 0)
        return 127;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        fflush(NULL);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        return 128 + sig;
    }
    return 1;
}

int vp_launch_prepare(vp_cap_config *c, const char *build_dir, const char *install_libdir,
                      int have_cupti, int create, vp_buf *env, vp_error *err)
{
    char *shim = vp_launch_find_shim(build_dir, install_libdir);
    if (!shim) {
        vp_launch_shim_missing(have_cupti, err);
        return -1;
    }
    char *dir = vp_launch_output_dir(c->output_dir, create, err);
    if (!dir) {
        free(shim);
        return -1;
    }
    free(c->output_dir);
    c->output_dir = dir;
    vp_launch_shim_env(c, shim, env);
    free(shim);
    return 0;
}
