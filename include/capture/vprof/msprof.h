/* The Ascend backend of `vprof record`: the msprof command lines built
 * from vprof's options (reference/ascend.md §4), and where msprof put its
 * results. Pure string and directory work, unit-tested without CANN. */
#ifndef VPROF_MSPROF_H
#define VPROF_MSPROF_H

#include <stddef.h>

#include "vprof/error.h"
#include "vprof/util.h"

/* A NULL-terminated argument vector of malloc'ed strings. */
typedef struct vp_argv {
    char **v;
    size_t n, cap;
} vp_argv;

void vp_argv_push(vp_argv *a, const char *s);
void vp_argv_pushf(vp_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vp_argv_free(vp_argv *a);

/* Appends s quoted for a POSIX shell: as is when it is made only of
 * characters no shell treats specially, else in single quotes. */
void vp_shell_quote(const char *s, vp_buf *out);
/* argv[0..n) quoted and joined by spaces. */
void vp_shell_join(char *const *argv, size_t n, vp_buf *out);

/* The paths (dir/name) of the entries of dir that keep accepts, sorted by
 * name, appended to out: what a profiling run left in its output folder,
 * in the order it wrote them (the names carry rank or creation time). */
void vp_dir_find(const char *dir, int (*keep)(const char *name, const char *path, const void *ctx),
                 const void *ctx, vp_argv *out);

typedef struct vp_msprof_opts {
    const char *output;        /* --output=DIR */
    int level;                 /* -1: msprof's defaults; 0, 1, 2 (docs/record.md) */
    const char *aic_metrics;   /* --ai-core=on --aic-metrics=NAME */
    const char *task_time;     /* on, off, l0, l1: overrides the level's */
    int cpu;                   /* device and host CPU sampling */
    int memory;                /* device HBM/DDR and host memory sampling */
    char *const *extra;        /* passed through verbatim, before --application */
    size_t nextra;
} vp_msprof_opts;

/* Checks the values msprof would reject late (after the workload ran).
 * Returns 0, or which field is wrong (VP_MSPROF_BAD_*) with err (status
 * VP_EXIT_USAGE) saying why, for the caller to name the field as its
 * users set it. */
enum { VP_MSPROF_BAD_LEVEL = 1, VP_MSPROF_BAD_TASK_TIME, VP_MSPROF_BAD_AIC_METRICS };
int vp_msprof_check(const vp_msprof_opts *o, vp_error *err);

/* The collection command: msprof --output=DIR [options] --application=CMD,
 * where CMD is cmd[0..ncmd) shell-quoted (msprof splits it). */
void vp_msprof_collect_argv(const vp_msprof_opts *o, const char *msprof, char *const *cmd, size_t ncmd,
                            vp_argv *out);

/* The export command for one PROF_* directory (msprof --export=on). */
void vp_msprof_export_argv(const char *msprof, const char *prof_dir, vp_argv *out);

/* The PROF_* directories directly under dir whose modification time is at
 * or after since (seconds), newest name last; appended to out as paths. */
void vp_msprof_find_results(const char *dir, long long since, vp_argv *out);

/* 1 when prof_dir holds mindstudio_profiler_output/ (exported already). */
int vp_msprof_exported(const char *prof_dir);

/* The msprof executable on PATH (malloc'ed), or NULL. */
char *vp_find_on_path(const char *name, const char *path);

#endif
