/* Training-log lines: Megatron-LM iteration lines, its argument dump, and
 * generic key/value metrics. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/trainlog.h"
#include "vprof/util.h"

/* A number as logs write it: "1820.4", "1.2e+03", "9,000" (commas only
 * between groups of three digits), an optional trailing unit that the
 * caller looks at.  Returns the end of the number, or NULL when none. */
static const char *parse_number(const char *p, const char *end, double *out)
{
    char buf[64];
    size_t n = 0;
    const char *q = p;
    if (q < end && (*q == '-' || *q == '+'))
        buf[n++] = *q++;
    int digits = 0;
    while (q < end && n < sizeof buf - 1) {
        if (isdigit((unsigned char)*q)) {
            buf[n++] = *q++;
            digits++;
        } else if (*q == ',' && digits && end - q >= 4 && isdigit((unsigned char)q[1]) &&
                   isdigit((unsigned char)q[2]) && isdigit((unsigned char)q[3]) &&
                   (end - q == 4 || !isdigit((unsigned char)q[4]))) {
            q++;  /* a thousands separator */
        } else if (*q == '.' || ((*q == 'e' || *q == 'E') && digits) ||
                   ((*q == '-' || *q == '+') && n && (buf[n - 1] == 'e' || buf[n - 1] == 'E'))) {
            buf[n++] = *q++;
        } else {
            break;
        }
    }
    if (!digits)
        return NULL;
    buf[n] = 0;
    char *e;
    errno = 0;
    double v = strtod(buf, &e);
    if (e == buf || errno || !isfinite(v))
        return NULL;
    /* strtod may stop early ("1.2e" then a letter): the text it used ends
     * where its copy ended, so count back what it left. */
    q -= (size_t)(buf + n - e);
    *out = v;
    return q;
}

static const char *find(const char *p, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (; p + n <= end; p++)
        if (memcmp(p, needle, n) == 0)
            return p;
    return NULL;
}

/* The number after "label" and a colon in a Megatron field. */
static int field_number(const char *line, const char *end, const char *label, double *out)
{
    const char *p = find(line, end, label);
    if (!p)
        return 0;
    p += strlen(label);
    while (p < end && (*p == ' ' || *p == ':'))
        p++;
    return parse_number(p, end, out) != NULL;
}

void vp_iter_rec_init(vp_iter_rec *r)
{
    r->kind = VP_LOG_NONE;
    r->iteration = -1;
    r->time_s = NAN;
    r->tflops = NAN;
    r->tokens_per_s = NAN;
    r->tokens_per_gpu = 0;
    r->global_batch = -1;
    r->flops_achieved = r->flops_promised = r->log_mfu = NAN;
    r->line = 0;
}

static int megatron_line(const char *line, const char *end, vp_iter_rec *r)
{
    double ms, v;
    if (!field_number(line, end, "elapsed time per iteration (ms)", &ms))
        return 0;
    const char *it = find(line, end, "iteration ");
    if (!it)
        return 0;
    it += strlen("iteration ");
    while (it < end && *it == ' ')
        it++;
    if (!parse_number(it, end, &v))
        return 0;
    r->kind = VP_LOG_MEGATRON;
    r->iteration = (long)v;
    r->time_s = ms / 1000;
    if (field_number(line, end, "throughput per GPU (TFLOP/s/GPU)", &v))
        r->tflops = v;
    if (field_number(line, end, "global batch size", &v))
        r->global_batch = (int64_t)v;
    return 1;
}

enum key_kind {
    K_NONE, K_ITER, K_TIME_S, K_TIME_MS, K_TOK_GPU, K_TOK_JOB, K_TFLOPS, K_GBS,
    K_ACHIEVED, K_PROMISED, K_MFU,
};

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0 && (n == m || s[n - m - 1] == '/');
}

static enum key_kind key_kind(const char *k)
{
    static const struct {
        const char *name;
        enum key_kind kind;
    } keys[] = {
        {"step", K_ITER}, {"iter", K_ITER}, {"iteration", K_ITER}, {"global_step", K_ITER},
        {"step_time", K_TIME_S}, {"step_time_s", K_TIME_S}, {"step_time(s)", K_TIME_S},
        {"iter_time", K_TIME_S}, {"iteration_time", K_TIME_S}, {"time_per_step", K_TIME_S},
        {"time/step", K_TIME_S}, {"step_time_ms", K_TIME_MS}, {"step_time(ms)", K_TIME_MS},
        {"iter_time_ms", K_TIME_MS}, {"iteration_time_ms", K_TIME_MS},
        {"tokens/s/gpu", K_TOK_GPU}, {"tokens_per_second_per_gpu", K_TOK_GPU},
        {"tokens_per_sec_per_gpu", K_TOK_GPU}, {"tps", K_TOK_GPU}, {"tgs", K_TOK_GPU},
        {"tokens/s", K_TOK_JOB}, {"tokens_per_second", K_TOK_JOB},
        {"tokens_per_sec", K_TOK_JOB}, {"tok/s", K_TOK_JOB},
        {"tflops", K_TFLOPS}, {"tflops/gpu", K_TFLOPS}, {"tflop/s", K_TFLOPS},
        {"tflop/s/gpu", K_TFLOPS},
        {"global_batch_size", K_GBS}, {"gbs", K_GBS},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(k, keys[i].name) == 0)
            return keys[i].kind;
    /* VeOmni's EnvironMeter, bare or under a prefix ("efficiency/") */
    if (ends_with(k, "flops_achieved(t)"))
        return K_ACHIEVED;
    if (ends_with(k, "flops_promised(t)"))
        return K_PROMISED;
    if (ends_with(k, "mfu"))
        return K_MFU;
    return K_NONE;
}

static int is_key_char(char c)
{
    return c && !strchr(" \t,|[]{}()'\":=;", c);
}

/* "step: 20  loss: 2.31  step_time: 1.82s  tokens/s/gpu=9,000", also as a
 * printed Python dict ({'step_time': 1.82, ...}). */
static int generic_line(const char *line, const char *end, vp_iter_rec *r)
{
    int have = 0;
    for (const char *s = line; s < end; s++) {
        if (*s != ':' && *s != '=')
            continue;
        /* The key: back over quotes and spaces, then its characters. */
        const char *ke = s;
        while (ke > line && (ke[-1] == ' ' || ke[-1] == '\'' || ke[-1] == '"'))
            ke--;
        const char *kb = ke;
        while (kb > line && (is_key_char(kb[-1]) || kb[-1] == '(' || kb[-1] == ')'))
            kb--;
        /* "(" and ")" belong to a key only as its unit: "step_time(ms)". */
        while (kb < ke && (*kb == '(' || *kb == ')'))
            kb++;
        if (kb == ke || ke - kb > 40)
            continue;
        char key[48];
        size_t kn = 0;
        for (const char *k = kb; k < ke; k++)
            key[kn++] = (char)tolower((unsigned char)*k);
        key[kn] = 0;
        enum key_kind kind = key_kind(key);
        if (kind == K_NONE)
            continue;
        const char *v = s + 1;
        while (v < end && (*v == ' ' || *v == '\'' || *v == '"'))
            v++;
        double x;
        const char *ve = parse_number(v, end, &x);
        if (!ve)
            continue;
        /* A unit written after the value wins over the key's. */
        if (kind == K_TIME_S || kind == K_TIME_MS) {
            if (end - ve >= 2 && ve[0] == 'm' && ve[1] == 's')
                kind = K_TIME_MS;
            else if (ve < end && ve[0] == 's')
                kind = K_TIME_S;
        }
        switch (kind) {
        case K_ITER: r->iteration = (long)x; break;
        case K_TIME_S: r->time_s = x; have = 1; break;
        case K_TIME_MS: r->time_s = x / 1000; have = 1; break;
        case K_TOK_GPU: r->tokens_per_s = x; r->tokens_per_gpu = 1; have = 1; break;
        case K_TOK_JOB: r->tokens_per_s = x; r->tokens_per_gpu = 0; have = 1; break;
        case K_TFLOPS: r->tflops = x; break;
        case K_GBS: r->global_batch = (int64_t)x; break;
        case K_ACHIEVED: r->flops_achieved = x; have = 1; break;
        case K_PROMISED: r->flops_promised = x; break;
        case K_MFU: r->log_mfu = x; break;
        default: break;
        }
        s = ve - 1;
    }
    if (have)
        r->kind = VP_LOG_GENERIC;
    return have;
}

int vp_trainlog_parse_line(const char *line, size_t len, vp_iter_rec *rec)
{
    const char *end = line + len;
    vp_iter_rec_init(rec);
    if (megatron_line(line, end, rec))
        return 1;
    vp_iter_rec_init(rec);
    if (generic_line(line, end, rec))
        return 1;
    vp_iter_rec_init(rec);
    return 0;
}

/* "    seq_length ...................................... 8192" */
static void argument_line(vp_trainlog *log, const char *line, const char *end)
{
    static const struct {
        const char *name;
        size_t off;
    } args[] = {
        {"world_size", offsetof(vp_trainlog, world_size)},
        {"seq_length", offsetof(vp_trainlog, seq_length)},
        {"global_batch_size", offsetof(vp_trainlog, global_batch)},
    };
    const char *p = line;
    while (p < end && *p == ' ')
        p++;
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        size_t n = strlen(args[i].name);
        if ((size_t)(end - p) <= n || memcmp(p, args[i].name, n) != 0 || p[n] != ' ')
            continue;
        const char *q = p + n + 1;
        if (end - q < 3 || memcmp(q, "...", 3) != 0)
            continue;
        while (q < end && (*q == '.' || *q == ' '))
            q++;
        double v;
        const char *e = parse_number(q, end, &v);
        if (e && v >= 0 && v == floor(v))
            *(int64_t *)((char *)log + args[i].off) = (int64_t)v;
    }
}

void vp_trainlog_add(vp_trainlog *log, const vp_iter_rec *rec)
{
    if (log->n == log->cap) {
        log->cap = log->cap ? log->cap * 2 : 64;
        log->recs = vp_realloc(log->recs, log->cap * sizeof *log->recs);
    }
    log->recs[log->n++] = *rec;
    log->veomni += !isnan(rec->flops_achieved) && !isnan(rec->flops_promised);
}

/* A JSON array of objects opens the file: "[" then "{" (or "]", or the
 * end of the line); a log line that starts with a "[date]" does not. */
static int json_start(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line++ != '[')
        return 0;
    while (*line == ' ' || *line == '\t')
        line++;
    return *line == '{' || *line == ']' || *line == '\n' || *line == '\r' || !*line;
}

/* A W&B JSON export: the whole file (first: its first line, read), then
 * its elements. */
static int read_json(FILE *f, const char *first, int is_stdin, const char *path,
                     vp_trainlog *log, vp_error *err)
{
    vp_buf text = {0};
    vp_buf_append(&text, first, strlen(first));
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        vp_buf_append(&text, chunk, got);
    int bad = ferror(f);
    if (!is_stdin)
        fclose(f);
    int rc = -1;
    if (bad)
        vp_error_set(err, VP_EXIT_INPUT, "cannot read %s", path);
    else
        rc = vp_trainlog_json(text.data ? text.data : "", text.len, path, log, err);
    vp_buf_free(&text);
    if (rc != 0)
        vp_trainlog_free(log);
    return rc;
}

int vp_trainlog_read(const char *path, vp_trainlog *log, vp_error *err)
{
    memset(log, 0, sizeof *log);
    log->world_size = log->seq_length = log->global_batch = -1;
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = vp_malloc(VP_TRAINLOG_MAX_LINE + 1);
    int rest = 0;  /* inside the cut-off rest of a long line */
    vp_log_cols cols;
    int csv = 0;
    while (fgets(buf, VP_TRAINLOG_MAX_LINE + 1, f)) {
        size_t n = strlen(buf);
        int complete = n > 0 && buf[n - 1] == '\n';
        if (rest) {
            rest = !complete;
            continue;
        }
        rest = !complete && !feof(f);
        if (log->lines == 0 && json_start(buf)) {
            int rc = read_json(f, buf, is_stdin, path, log, err);
            free(buf);
            return rc;
        }
        log->lines++;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            n--;
        vp_iter_rec rec;
        if (!csv && vp_trainlog_csv_header(buf, n, &cols)) {
            csv = 1;
            log->source = VP_LOGSRC_CSV;
        } else if (csv ? vp_trainlog_csv_row(&cols, buf, n, &rec)
                       : vp_trainlog_parse_line(buf, n, &rec)) {
            rec.line = log->lines;
            vp_trainlog_add(log, &rec);
        } else {
            argument_line(log, buf, buf + n);
        }
    }
    int bad = ferror(f);
    free(buf);
    if (!is_stdin)
        fclose(f);
    if (bad) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot read %s", path);
        vp_trainlog_free(log);
        return -1;
    }
    return 0;
}

void vp_trainlog_free(vp_trainlog *log)
{
    free(log->recs);
    log->recs = NULL;
    log->n = log->cap = 0;
}
