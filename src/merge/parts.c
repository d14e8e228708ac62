/* Merge: parts.  With -j, and always with gzip output, each input is
 * copied into a part of its own (a temporary file; with gzip one whole
 * gzip member) by a worker process of the pool (vprof/exec.h), and the
 * parts are appended in input order: the output is the same bytes for
 * every -j.  A worker does not know the merged clock until the first rank
 * merged is done; it guesses, and its parent checks the guess and copies
 * the input again itself when it was wrong. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge/merge_int.h"
#include "vprof/exec.h"
#include "vprof/part.h"
#include "vprof/sink.h"
#include "vprof/util.h"

/* An empty temporary file for a part, unlinked at once: it goes away with
 * the last process that holds it, whatever happens to them. */
int vp_mg_part_file(merge *m)
{
    vp_buf b = {0};
    vp_buf_printf(&b, "%s/.vprof-merge-part-XXXXXX", m->part_dir);
    char *path = (char *)vp_buf_cstr(&b);
    int fd = mkstemp(path);
    if (fd < 0)
        vp_error_set(&m->err, VP_EXIT_INPUT, "cannot create a temporary file in %s: %s",
                     m->part_dir, strerror(errno));
    else
        unlink(path);
    vp_buf_free(&b);
    return fd;
}

/* Copies input i into the part file fd (from its start): the same
 * copy_input as without parts, into a sink of its own, so that with gzip
 * the part is one whole gzip member. */
static void copy_part(merge *m, size_t i, int fd, part_res *res)
{
    memset(res, 0, sizeof *res);
    vp_sink_opts so = m->sink_opts;
    vp_error err = {0};
    vp_sink *main_sink = m->sink;
    /* a write error is the output's, not the input's: name the output
     * (under --mpi a process other than rank 0 has no sink of its own:
     * the output is still the one it writes its parts for) */
    vp_buf name = {0};
    vp_buf_printf(&name, "%s (the part of %s, a temporary file in %s)",
                  main_sink ? vp_sink_name(main_sink) : m->output ? m->output : "the output",
                  m->in[i].path, m->part_dir);
    m->sink = vp_sink_open_fd(fd, vp_buf_cstr(&name), &so, &err);
    vp_buf_free(&name);
    if (!m->sink) {
        m->sink = main_sink;
        res->status = err.status ? err.status : VP_EXIT_INPUT;
        res->msg = vp_strdup(err.msg);
        return;
    }
    m->any_written = 0;
    m->err = (vp_error){0};
    int r = vp_mg_copy_input(m, &m->in[i], (long)i);
    res->bytes = vp_sink_bytes(m->sink);
    vp_sink *ps = m->sink;
    m->sink = main_sink;
    if (r != 0) {
        vp_sink_abort(ps);
        res->status = m->err.status ? m->err.status : VP_EXIT_INPUT;
        res->msg = vp_strdup(m->err.msg);
        return;
    }
    if (vp_sink_close(ps, &err) != 0) {
        res->status = err.status ? err.status : VP_EXIT_INPUT;
        res->msg = vp_strdup(err.msg);
        return;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        res->status = VP_EXIT_INPUT;
        res->msg = vp_strdup("cannot read back a temporary part");
        return;
    }
    res->len = (uint64_t)sb.st_size;
}

static void put_opt_str(vp_buf *b, const char *s)
{
    vp_put_u64(b, s != NULL);
    if (s)
        vp_put_str(b, s, strlen(s));
}

static char *get_opt_str(vp_rd *r)
{
    if (!vp_get_u64(r))
        return NULL;
    size_t n;
    const char *p = vp_get_str(r, &n);
    return vp_strndup(p ? p : "", n);
}

/* The result and what the copy learnt of the input, for the parent. */
static void put_res(vp_buf *b, const part_res *res, const input *in)
{
    vp_put_u64(b, (uint64_t)res->status);
    put_opt_str(b, res->msg);
    vp_put_u64(b, res->len);
    vp_put_u64(b, res->bytes);
    vp_put_i64(b, in->rank);
    vp_put_u64(b, (uint64_t)in->rank_from);
    vp_put_u64(b, (uint64_t)in->has_base);
    vp_put_i64(b, in->base);
    vp_put_i64(b, in->shift);
    vp_put_u64(b, (uint64_t)in->skipped);
    vp_put_u64(b, in->events_read);
    vp_put_u64(b, in->events_written);
    vp_put_u64(b, (uint64_t)in->truncated);
    put_opt_str(b, in->meta_dp);
    put_opt_str(b, in->meta_di);
    put_opt_str(b, in->meta_unit);
}

int vp_mg_get_res(vp_rd *r, part_res *res, input *in)
{
    res->status = (int)vp_get_u64(r);
    res->msg = get_opt_str(r);
    res->len = vp_get_u64(r);
    res->bytes = vp_get_u64(r);
    in->rank = (long)vp_get_i64(r);
    in->rank_from = (vp_rank_source)vp_get_u64(r);
    in->has_base = (int)vp_get_u64(r);
    in->base = vp_get_i64(r);
    in->shift = vp_get_i64(r);
    in->skipped = (int)vp_get_u64(r);
    in->events_read = vp_get_u64(r);
    in->events_written = vp_get_u64(r);
    in->truncated = (int)vp_get_u64(r);
    free(in->meta_dp);
    free(in->meta_di);
    free(in->meta_unit);
    in->meta_dp = get_opt_str(r);
    in->meta_di = get_opt_str(r);
    in->meta_unit = get_opt_str(r);
    in->known = 1;
    return vp_rd_done(r) ? 0 : -1;
}

/* Input i's part, at its turn: checked, appended, accounted.  1 when it
 * must be copied again (a worker's guess of the merged clock was wrong). */
int vp_mg_take_part(merge *m, size_t i, int part, const part_res *res)
{
    input *in = &m->in[i];
    if (res->status) {
        vp_error_set(&m->err, res->status, "%s", res->msg ? res->msg : "failed");
        return -1;
    }
    if (vp_mg_check_duplicate_now(m, in) != 0)
        return -1;
    if (!in->skipped) {
        if (in->shift != vp_mg_shift_of(m, in))
            return 1;
        if (res->bytes) {
            if (m->any_written)
                vp_sink_write(m->sink, ",\n", 2);
            if (vp_sink_append(m->sink, part, res->len, res->bytes) != 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "cannot write %s: %s", vp_sink_name(m->sink),
                             strerror(errno));
                return -1;
            }
            m->any_written = 1;
        }
        vp_mg_accept_input(m, in);
    }
    in->done = 1;
    return 0;
}

/* A process other than peer 0: input i's part waits to be sent (or its
 * error is this process's). */
static int keep_part(merge *m, size_t i, int fd, part_res *res)
{
    if (res->status) {
        vp_error_set(&m->err, res->status, "%s", res->msg ? res->msg : "failed");
        free(res->msg);
        close(fd);
        return -1;
    }
    put_res(&m->kept[i], res, &m->in[i]);
    m->kept_fd[i] = fd;
    free(res->msg);
    return 0;
}

static void echo(merge *m, const char *text, size_t n)
{
    if (n && m->hooks && m->hooks->echo)
        m->hooks->echo(m->hooks->ctx, text, n);
}

/* Where input i is copied: standard input (read once) and an input with
 * nothing to copy (left out by --ranks after a pre-pass) at their turn in
 * this process, any other in a worker, into a part file made here. */
static int part_place(void *ctx, size_t i)
{
    merge *m = ctx;
    input *in = &m->in[i];
    if ((in->skipped && in->scanned) || vp_mg_is_stdin(in))
        return VP_POOL_HERE;
    int fd = vp_mg_part_file(m);
    if (fd < 0)
        return -1;
    m->part_fd[i] = fd;
    return VP_POOL_WORKER;
}

/* Copies input i into its part; what the copy found goes to out. */
static int part_work(void *ctx, size_t i, int worker, vp_buf *out)
{
    merge *m = ctx;
    input *in = &m->in[i];
    if (in->skipped && in->scanned)
        return 0;
    if (worker) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        m->progress = 0;
        /* Until the first rank merged is done the merged clock is unknown. */
        m->guess_own = !m->out_base_set && (m->align == ALIGN_AUTO || m->align == ALIGN_BASE);
    } else {
        /* at its turn: the merged clock is known */
        m->part_fd[i] = vp_mg_part_file(m);
        if (m->part_fd[i] < 0)
            return -1;
        m->guess_own = 0;
    }
    int saved_any = m->any_written;
    part_res res;
    copy_part(m, i, m->part_fd[i], &res);
    m->any_written = saved_any;
    put_res(out, &res, in);
    free(res.msg);
    return 0;
}

static int part_take(void *ctx, size_t i, const vp_pool_result *r);

/* Input i copied again by this process, at its turn. */
int vp_mg_part_again(merge *m, size_t i)
{
    vp_buf out = {0};
    vp_pool_result r = {0};
    r.ok = 1;
    r.status = part_work(m, i, 0, &out);
    r.data = out.data;
    r.n = out.len;
    int st = part_take(m, i, &r);
    vp_buf_free(&out);
    return st;
}

/* Input i's part at its turn: the worker's messages passed on, the part
 * appended (or kept for process 0). */
static int part_take(void *ctx, size_t i, const vp_pool_result *r)
{
    merge *m = ctx;
    input *in = &m->in[i];
    if (!r->worker && r->status)
        return -1;
    if (!r->worker && r->n == 0) {
        in->done = 1;   /* nothing to copy */
        return 0;
    }
    vp_rd rd;
    vp_rd_init(&rd, r->data, r->n);
    part_res res = {0};
    int bad = vp_mg_get_res(&rd, &res, in) != 0;
    if (!r->ok || bad) {
        echo(m, r->msg, r->nmsg);
        free(res.msg);
        if (r->signal)
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: the worker process %ld died of signal %d (%s)",
                         in->path, r->pid, r->signal, strsignal(r->signal));
        else
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: the worker process %ld failed without a result",
                         in->path, r->pid);
        return -1;
    }
    int fd = m->part_fd[i];
    m->part_fd[i] = -1;
    if (m->keeping) {
        echo(m, r->msg, r->nmsg);
        return keep_part(m, i, fd, &res);
    }
    int st = vp_mg_take_part(m, i, fd, &res);
    free(res.msg);
    close(fd);
    if (st > 0) {
        if (!r->worker) {
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: internal error: its clock shift changed",
                         in->path);
            return -1;
        }
        /* copied under a wrong guess of the merged clock: again, here */
        if (m->hooks && m->hooks->recopy)
            m->hooks->recopy(m->hooks->ctx, in->path);
        return vp_mg_part_again(m, i);
    }
    echo(m, r->msg, r->nmsg);
    return st;
}

/* Inputs [first, last) into parts, jobs at a time, appended in input
 * order.  The workers run at most 4 jobs ahead of the output: what waits
 * is on disk. */
int vp_mg_run_parts(merge *m, long jobs, size_t first, size_t last)
{
    vp_pool pool = {part_work, part_take, part_place, m};
    vp_error err = {0};
    int st = vp_pool_run(&pool, jobs, first, last, &err);
    if (err.status)
        vp_error_set(&m->err, err.status, "%s", err.msg);
    return st ? -1 : 0;
}
