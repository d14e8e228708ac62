/* msprof command lines and result directories (see vprof/msprof.h). */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vprof/msprof.h"

void vp_argv_push(vp_argv *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->v = vp_realloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = vp_strdup(s);
    a->v[a->n] = NULL;
}

void vp_argv_pushf(vp_argv *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = vp_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    vp_argv_push(a, s);
    free(s);
}

void vp_argv_free(vp_argv *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

void vp_shell_quote(const char *s, vp_buf *out)
{
    int plain = *s != 0;
    for (const char *p = s; *p && plain; p++)
        plain = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-", *p) != NULL;
    if (plain) {
        vp_buf_append(out, s, strlen(s));
    } else {
        vp_buf_putc(out, '\'');
        for (const char *p = s; *p; p++) {
            if (*p == '\'')
                vp_buf_append(out, "'\\''", 4);
            else
                vp_buf_putc(out, *p);
        }
        vp_buf_putc(out, '\'');
    }
    vp_buf_cstr(out);
}

void vp_shell_join(char *const *argv, size_t n, vp_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            vp_buf_putc(out, ' ');
        vp_shell_quote(argv[i], out);
    }
    vp_buf_cstr(out);
}

/* msprof's --aic-metrics names (reference/ascend.md §4); custom register
 * lists ("0x49,0x4a") also pass. */
static const char *const aic_metrics[] = {
    "PipeUtilization", "ArithmeticUtilization", "Memory", "MemoryL0", "MemoryUB",
    "ResourceConflictRatio", "L2Cache", "MemoryAccess", NULL,
};

int vp_msprof_check(const vp_msprof_opts *o, vp_error *err)
{
    if (o->level < -1 || o->level > 2) {
        vp_error_set(err, VP_EXIT_USAGE, "%d is not 0, 1 or 2", o->level);
        return VP_MSPROF_BAD_LEVEL;
    }
    if (o->task_time && strcmp(o->task_time, "on") && strcmp(o->task_time, "off") &&
        strcmp(o->task_time, "l0") && strcmp(o->task_time, "l1")) {
        vp_error_set(err, VP_EXIT_USAGE, "'%s' is not on, off, l0 or l1", o->task_time);
        return VP_MSPROF_BAD_TASK_TIME;
    }
    if (o->aic_metrics) {
        int ok = strncmp(o->aic_metrics, "0x", 2) == 0;
        for (const char *const *m = aic_metrics; *m && !ok; m++)
            ok = strcmp(*m, o->aic_metrics) == 0;
        if (!ok) {
            vp_error_set(err, VP_EXIT_USAGE,
                         "'%s' is not one of PipeUtilization, ArithmeticUtilization, Memory, "
                         "MemoryL0, MemoryUB, ResourceConflictRatio, L2Cache, MemoryAccess (or 0x registers)",
                         o->aic_metrics);
            return VP_MSPROF_BAD_AIC_METRICS;
        }
    }
    return 0;
}

void vp_msprof_collect_argv(const vp_msprof_opts *o, const char *msprof, char *const *cmd, size_t ncmd,
                            vp_argv *out)
{
    vp_argv_push(out, msprof);
    vp_argv_pushf(out, "--output=%s", o->output ? o->output : ".");
    /* The levels follow torch_npu's profiler_level: 0 task timing only,
     * 1 adds the AscendCL layer, 2 adds runtime API and AI CPU. */
    const char *task_time = o->level == 0 ? "l0" : o->level > 0 ? "l1" : NULL;
    if (o->task_time)
        task_time = o->task_time;
    if (task_time)
        vp_argv_pushf(out, "--task-time=%s", task_time);
    if (o->level >= 1)
        vp_argv_push(out, "--ascendcl=on");
    if (o->level >= 2) {
        vp_argv_push(out, "--runtime-api=on");
        vp_argv_push(out, "--aicpu=on");
    }
    if (o->aic_metrics) {
        vp_argv_push(out, "--ai-core=on");
        vp_argv_pushf(out, "--aic-metrics=%s", o->aic_metrics);
    }
    if (o->cpu)
        vp_argv_push(out, "--sys-cpu-profiling=on");
    if (o->memory)
        vp_argv_push(out, "--sys-hardware-mem=on");
    if (o->cpu || o->memory)
        vp_argv_pushf(out, "--host-sys=%s", o->cpu && o->memory ? "cpu,mem" : o->cpu ? "cpu" : "mem");
    for (size_t i = 0; i < o->nextra; i++)
        vp_argv_push(out, o->extra[i]);
    vp_buf app = {0};
    vp_buf_printf(&app, "--application=");
    vp_shell_join(cmd, ncmd, &app);
    vp_argv_push(out, app.data);
    vp_buf_free(&app);
}

void vp_msprof_export_argv(const char *msprof, const char *prof_dir, vp_argv *out)
{
    vp_argv_push(out, msprof);
    vp_argv_push(out, "--export=on");
    vp_argv_pushf(out, "--output=%s", prof_dir);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void vp_dir_find(const char *dir, int (*keep)(const char *name, const char *path, const void *ctx),
                 const void *ctx, vp_argv *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    vp_argv names = {0};
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        vp_buf p = {0};
        vp_buf_printf(&p, "%s/%s", dir, e->d_name);
        if (keep(e->d_name, p.data, ctx))
            vp_argv_push(&names, p.data);
        vp_buf_free(&p);
    }
    closedir(d);
    if (names.n > 1)
        qsort(names.v, names.n, sizeof *names.v, cmp_str);
    for (size_t i = 0; i < names.n; i++)
        vp_argv_push(out, names.v[i]);
    vp_argv_free(&names);
}

/* PROF_{NNNNNN}_{timestamp}_...: name order is creation order. */
static int is_new_result(const char *name, const char *path, const void *ctx)
{
    long long since = *(const long long *)ctx;
    struct stat sb;
    return strncmp(name, "PROF_", 5) == 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) &&
           (long long)sb.st_mtime >= since;
}

void vp_msprof_find_results(const char *dir, long long since, vp_argv *out)
{
    vp_dir_find(dir, is_new_result, &since, out);
}

int vp_msprof_exported(const char *prof_dir)
{
    vp_buf p = {0};
    vp_buf_printf(&p, "%s/mindstudio_profiler_output", prof_dir);
    struct stat sb;
    int ok = stat(p.data, &sb) == 0 && S_ISDIR(sb.st_mode);
    vp_buf_free(&p);
    return ok;
}

char *vp_find_on_path(const char *name, const char *path)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? vp_strdup(name) : NULL;
    if (!path)
        return NULL;
    const char *p = path;
    for (;;) {
        size_t n = strcspn(p, ":");
        vp_buf b = {0};
        if (n == 0)
            vp_buf_printf(&b, "./%s", name);  /* an empty entry is the current directory */
        else
            vp_buf_printf(&b, "%.*s/%s", (int)n, p, name);
        struct stat sb;
        if (stat(b.data, &sb) == 0 && S_ISREG(sb.st_mode) && access(b.data, X_OK) == 0)
            return b.data;
        vp_buf_free(&b);
        if (!p[n])
            return NULL;
        p += n + 1;
    }
}
