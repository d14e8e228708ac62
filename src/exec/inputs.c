/* Operands to files: directories expanded, one file named twice refused
 * (vprof/exec.h, vp_inputs_expand). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vprof/ascend_files.h"
#include "vprof/error.h"
#include "vprof/exec.h"
#include "vprof/rank.h"
#include "vprof/util.h"

/* One resolved file and the operand it came from, for the messages. */
typedef struct entry {
    char *path;
    const char *arg;
} entry;

typedef struct list {
    entry *v;
    size_t n, cap;
} list;

static void push(list *l, char *path, const char *arg)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = vp_realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (entry){path, arg};
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Rank order: names with a rank first, by rank, then by name. */
static int cmp_rank_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    long rx = vp_rank_from_name(x), ry = vp_rank_from_name(y);
    if ((rx < 0) != (ry < 0))
        return rx < 0 ? 1 : -1;
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return strcmp(x, y);
}

static int is_ascend(const char *dir)
{
    vp_asc_run run;
    vp_error err = {0};
    if (vp_asc_scan_once(dir, &run, &err) != 0)
        return 0;
    vp_asc_run_free(&run);
    return 1;
}

static int is_trace_name(const char *name)
{
    return name[0] != '.' && (ends_with(name, ".json") || ends_with(name, ".gz"));
}

/* Whether dir/sub is a directory with a trace file directly in it. */
static int holds_traces(const char *dir, const char *sub)
{
    vp_buf b = {0};
    vp_buf_printf(&b, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", sub);
    struct stat st;
    int found = 0;
    DIR *d = stat(vp_buf_cstr(&b), &st) == 0 && S_ISDIR(st.st_mode) ? opendir(vp_buf_cstr(&b)) : NULL;
    if (d) {
        struct dirent *e;
        while (!found && (e = readdir(d)) != NULL)
            found = is_trace_name(e->d_name);
        closedir(d);
    }
    vp_buf_free(&b);
    return found;
}

/* A directory stands for the traces directly in it: subfolders that hold
 * traces (other runs, or the ranks of this one filed apart) are not read,
 * and are named so that nobody takes the sum for the whole. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void warn_subfolders(const char *dir, char **subs, size_t nsubs)
{
    if (!nsubs)
        return;
    qsort(subs, nsubs, sizeof *subs, cmp_str);
    vp_buf b = {0};
    for (size_t i = 0; i < nsubs; i++)
        vp_buf_printf(&b, "%s%s/", i ? ", " : "", subs[i]);
    vp_warn("%s: %s %s traces too, not read (a directory stands for the traces directly "
            "in it): give %s as operand%s, or each run alone",
            dir, vp_buf_cstr(&b), nsubs == 1 ? "holds" : "hold", nsubs == 1 ? "it" : "them",
            nsubs == 1 ? "" : "s");
    vp_buf_free(&b);
}

/* The trace files of dir, in rank order, pushed; how many. */
static size_t expand_dir(list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char **names = NULL;
    size_t n = 0, cap = 0, nsubs = 0, subcap = 0;
    char **subs = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (name[0] != '.' && !is_trace_name(name) && holds_traces(dir, name)) {
            if (nsubs == subcap) {
                subcap = subcap ? 2 * subcap : 8;
                subs = vp_realloc(subs, subcap * sizeof *subs);
            }
            subs[nsubs++] = vp_strdup(name);
            continue;
        }
        if (!is_trace_name(name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            names = vp_realloc(names, cap * sizeof *names);
        }
        names[n++] = vp_strdup(name);
    }
    closedir(d);
    warn_subfolders(dir, subs, nsubs);
    for (size_t i = 0; i < nsubs; i++)
        free(subs[i]);
    free(subs);
    if (n)
        qsort(names, n, sizeof *names, cmp_rank_name);
    size_t pushed = 0;
    for (size_t i = 0; i < n; i++) {
        vp_buf b = {0};
        vp_buf_printf(&b, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", names[i]);
        struct stat st;
        if (stat(vp_buf_cstr(&b), &st) == 0 && S_ISREG(st.st_mode)) {
            push(l, vp_strdup(vp_buf_cstr(&b)), dir);
            pushed++;
        }
        vp_buf_free(&b);
        free(names[i]);
    }
    free(names);
    return pushed;
}

/* "ARG" or "ARG (its FILE)" when the file came from a directory. */
static void name_of(vp_buf *b, const entry *e)
{
    if (strcmp(e->arg, e->path) == 0)
        vp_buf_printf(b, "%s", e->arg);
    else
        vp_buf_printf(b, "%s (its %s)", e->arg, e->path);
}

static int refuse_twice(const entry *a, const entry *b, vp_error *err)
{
    vp_buf x = {0}, y = {0};
    name_of(&x, a);
    name_of(&y, b);
    if (strcmp(a->path, "-") == 0)
        vp_error_set(err, VP_EXIT_USAGE, "standard input (-) is given twice");
    else
        vp_error_set(err, VP_EXIT_USAGE, "%s and %s are the same file: read twice, its events "
                                         "would be counted twice",
                     vp_buf_cstr(&x), vp_buf_cstr(&y));
    vp_buf_free(&x);
    vp_buf_free(&y);
    return -1;
}

typedef struct ident {
    dev_t dev;
    ino_t ino;
    size_t at;      /* index in the list */
} ident;

static int cmp_ident(const void *a, const void *b)
{
    const ident *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* Sorted by device and inode (then position), two neighbours alike are
 * one file twice; named: the first operand that repeats an earlier one. */
static int check_twice(const list *l, vp_error *err)
{
    ident *id = vp_malloc((l->n ? l->n : 1) * sizeof *id);
    size_t m = 0, stdin_at = (size_t)-1;
    for (size_t i = 0; i < l->n; i++) {
        struct stat st;
        if (strcmp(l->v[i].path, "-") == 0) {
            if (stdin_at != (size_t)-1) {
                free(id);
                return refuse_twice(&l->v[stdin_at], &l->v[i], err);
            }
            stdin_at = i;
        } else if (stat(l->v[i].path, &st) == 0) {
            id[m++] = (ident){st.st_dev, st.st_ino, i};
        }
    }
    if (m > 1)
        qsort(id, m, sizeof *id, cmp_ident);
    size_t first = (size_t)-1, second = (size_t)-1;
    for (size_t i = 1; i < m; i++)
        if (id[i].dev == id[i - 1].dev && id[i].ino == id[i - 1].ino && id[i].at < second) {
            first = id[i - 1].at;
            second = id[i].at;
        }
    free(id);
    if (first == (size_t)-1)
        return 0;
    return refuse_twice(&l->v[first], &l->v[second], err);
}

int vp_inputs_expand(char *const *args, size_t n, vp_inputs *out, vp_error *err)
{
    list l = {0};
    for (size_t i = 0; i < n; i++) {
        if (vp_asc_is_dir(args[i]) && !is_ascend(args[i]) && expand_dir(&l, args[i]) > 0)
            continue;
        push(&l, vp_strdup(args[i]), args[i]);
    }
    int st = check_twice(&l, err);
    out->n = l.n;
    out->paths = vp_malloc((l.n ? l.n : 1) * sizeof *out->paths);
    for (size_t i = 0; i < l.n; i++)
        out->paths[i] = l.v[i].path;
    free(l.v);
    if (st != 0)
        vp_inputs_free(out);
    return st;
}

void vp_inputs_free(vp_inputs *in)
{
    vp_asc_scan_forget();   /* the readings that used them are over */
    for (size_t i = 0; i < in->n; i++)
        free(in->paths[i]);
    free(in->paths);
    in->paths = NULL;
    in->n = 0;
}
