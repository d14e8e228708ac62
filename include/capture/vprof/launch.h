/* Running the command `vprof record` profiles, free of CUDA: where the
 * CUPTI shim and the output directory are, the variables that inject the
 * shim, the command itself with signals forwarded, and the traces it
 * wrote.  Nothing here prints; failures come back in a vp_error. */
#ifndef VPROF_LAUNCH_H
#define VPROF_LAUNCH_H

#include <time.h>

#include "vprof/capture.h"
#include "vprof/error.h"
#include "vprof/msprof.h"
#include "vprof/util.h"

/* Runs argv (searched on PATH) with the NAME=VALUE lines of env (may be
 * NULL) added to its environment, forwarding SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGUSR1 and SIGUSR2 to it, except those the terminal sent (the
 * command is in our process group and got them already).  Returns its
 * wait status; -1 when it could not be forked.  err is set when it could
 * not be forked, or run ("cannot run <what> 'argv[0]': ...", and the
 * status is then an exit of 127 when not found, else 126). */
int vp_launch_run(char *const *argv, const char *env, const char *what, vp_error *err);

/* The output directory as an absolute path, created (with its parents)
 * when create is set: children may run elsewhere (torchrun workers, srun
 * steps).  Malloc'ed; NULL with err when it cannot be created. */
char *vp_launch_output_dir(const char *dir, int create, vp_error *err);

/* libvprof-cupti.so: VPROF_CUPTI_LIB (NULL when that is no file), else
 * beside the running binary, in its ../lib (and the multiarch and lib64
 * variants), in build_dir, in install_libdir (either may be NULL or "").
 * Malloc'ed, or NULL. */
char *vp_launch_find_shim(const char *build_dir, const char *install_libdir);

/* Why vp_launch_find_shim found none, into err (status 2): VPROF_CUPTI_LIB
 * is no file, this build has no CUPTI (have_cupti 0), or it is nowhere. */
void vp_launch_shim_missing(int have_cupti, vp_error *err);

/* The NAME=VALUE lines that inject shim into a CUDA process recording
 * what c says. */
void vp_launch_shim_env(const vp_cap_config *c, const char *shim, vp_buf *out);

/* What `vprof record` needs before it runs the command: the shim found
 * (build_dir, install_libdir as vp_launch_find_shim; have_cupti for the
 * reason when it is not), c->output_dir made absolute (and created when
 * create is set), and env the lines that inject the shim.  -1 with err
 * set: status 2 without a shim, 3 when the directory cannot be made. */
int vp_launch_prepare(vp_cap_config *c, const char *build_dir, const char *install_libdir,
                      int have_cupti, int create, vp_buf *env, vp_error *err);

/* The traces a run wrote: vprof_rank*_*.pt.trace.json[.gz] in dir,
 * modified since `since`, sorted by name, appended to out. */
void vp_launch_find_traces(const char *dir, const struct timespec *since, vp_argv *out);

/* What a run says as it goes: a line, error 1 for a failure to show
 * always, 0 for progress a quiet front end leaves out. */
typedef void (*vp_launch_say)(void *ctx, int error, const char *line);

/* Runs msprof's collection command (vp_msprof_collect_argv) and exports
 * each PROF_* directory it wrote in dir that is not exported yet
 * (vp_msprof_export_argv), saying each export command before it runs and
 * each run that failed.  *profs: the PROF_* directories written, newest
 * name last.  Returns the collection's wait status (vp_launch_run's). */
int vp_launch_msprof(char *const *collect, const char *msprof, const char *dir, vp_argv *profs,
                     vp_launch_say say, void *ctx);

/* Runs cmd as vp_launch_run does and appends the traces it wrote in dir
 * to traces (vp_launch_find_traces since just before it started).
 * Returns its wait status, err set as vp_launch_run sets it. */
int vp_launch_record(char *const *cmd, const char *env, const char *dir, vp_argv *traces,
                     vp_error *err);

/* The NAME=VALUE lines of env, one a line, each value quoted for a shell
 * when it has to be, appended to out. */
void vp_launch_env_lines(const char *env, vp_buf *out);

/* A command's wait status as the exit status of the process that ran it:
 * its code, 127 when it did not run (status < 0), or, when a signal
 * killed it, death by the same signal (so that a calling shell sees
 * 128+N and an interrupted loop stops) without a core file of our own;
 * 128+N when that signal does not kill. */
int vp_launch_exit_like(int status);

#endif
