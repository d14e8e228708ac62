/* The ordered worker pool (vprof/exec.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vprof/exec.h"
#include "vprof/part.h"
#include "vprof/trace.h"

long vp_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

int vp_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

typedef struct task {
    pid_t pid;
    int fd;           /* read end, -1 once closed */
    int here;         /* runs in this process at its turn */
    int done;
    int wstatus;
    vp_buf data;
} task;

/* The worker: work, then status, captured messages and result as one
 * frame.  It never returns. */
static void worker(const vp_pool *p, size_t i, int fd)
{
    FILE *cap = tmpfile();
    if (cap)
        dup2(fileno(cap), STDERR_FILENO);
    vp_buf out = {0}, msg = {0}, frame = {0};
    int st = p->work(p->ctx, i, 1, &out);
    fflush(stderr);
    if (cap && lseek(fileno(cap), 0, SEEK_SET) == 0) {
        char buf[4096];
        ssize_t r;
        while ((r = read(fileno(cap), buf, sizeof buf)) > 0)
            vp_buf_append(&msg, buf, (size_t)r);
    }
    vp_put_u64(&frame, (uint64_t)st);
    vp_put_str(&frame, msg.data, msg.len);
    vp_put_str(&frame, out.data, out.len);
    int rc = vp_write_all(fd, frame.data, frame.len);
    /* Freed although the process ends here: what a worker leaves behind
     * is a leak to a checker such as valgrind, which runs in every worker. */
    vp_buf_free(&out);
    vp_buf_free(&msg);
    vp_buf_free(&frame);
    if (cap)
        fclose(cap);
    /* _exit: the parent's stdio buffers and atexit handlers are not ours */
    _exit(rc == 0 ? 0 : 1);
}

static int run_here(const vp_pool *p, size_t i)
{
    vp_buf out = {0};
    vp_pool_result r = {0};
    r.ok = 1;
    r.status = p->work(p->ctx, i, 0, &out);
    r.data = out.data;
    r.n = out.len;
    int st = p->take(p->ctx, i, &r);
    vp_buf_free(&out);
    return st;
}

/* A finished worker's frame, handed over. */
static int finish(const vp_pool *p, task *t, size_t i)
{
    vp_rd rd;
    vp_rd_init(&rd, t->data.data, t->data.len);
    vp_pool_result r = {0};
    r.worker = 1;
    r.status = (int)vp_get_u64(&rd);
    r.msg = vp_get_str(&rd, &r.nmsg);
    r.data = vp_get_str(&rd, &r.n);
    r.ok = WIFEXITED(t->wstatus) && WEXITSTATUS(t->wstatus) == 0 && vp_rd_done(&rd);
    r.pid = (long)t->pid;
    r.signal = WIFSIGNALED(t->wstatus) ? WTERMSIG(t->wstatus) : 0;
    return p->take(p->ctx, i, &r);
}

/* The workers still running when the pool stops early: their results are
 * not wanted.  SIGKILL, not SIGTERM: a worker holds nothing that needs
 * cleaning up (its part file and pipe are the parent's to close), and a
 * checker such as valgrind turns a catchable signal into a leak report of
 * the blocks the worker still uses, on the parent's standard error. */
static void stop_all(task *t, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (t[i].fd >= 0) {
            kill(t[i].pid, SIGKILL);
            close(t[i].fd);
            waitpid(t[i].pid, NULL, 0);
            t[i].fd = -1;
        }
        vp_buf_free(&t[i].data);
    }
}

int vp_pool_run(const vp_pool *p, long jobs, size_t first, size_t last, vp_error *err)
{
    size_t n = last > first ? last - first : 0;
    if (jobs > (long)n)
        jobs = (long)n;
    if (jobs <= 1) {
        for (size_t i = first; i < last; i++) {
            int st = run_here(p, i);
            if (st != 0)
                return st;
        }
        return 0;
    }
    /* Workers may run ahead of the turn by a few items, not more: the
     * results waiting for their turn are what bounds the memory. */
    size_t window = (size_t)jobs * 4;
    /* A trace reader runs two threads, and its skip facts move work from
     * the parser to the inflating thread: that pays when the second has a
     * core of its own, and costs ~9 % more instructions (real-128) when
     * every core is busy anyway.  Readers of more jobs than half the cores
     * (this process and the workers it forks) go without. */
    int prepass = vp_trace_prepass;
    if (jobs * 2 > vp_online_cores())
        vp_trace_prepass = 0;
    task *t = vp_calloc(last, sizeof *t);
    for (size_t i = first; i < last; i++)
        t[i].fd = -1;
    struct pollfd *pfd = vp_calloc((size_t)jobs, sizeof *pfd);
    size_t *who = vp_calloc((size_t)jobs, sizeof *who);
    size_t started = first, taken = first;
    long running = 0;
    int st = 0;
    while (taken < last) {
        while (running < jobs && started < last && started - taken < window) {
            int where = p->place ? p->place(p->ctx, started) : VP_POOL_WORKER;
            if (where < 0) {
                st = VP_EXIT_INPUT;
                goto out;
            }
            if (where == VP_POOL_HERE) {
                t[started++].here = 1;
                continue;
            }
            int fds[2];
            /* Every stdio stream flushed, not just stdout and stderr: a
             * worker inherits what waits in this process's buffers, and a
             * worker that flushes them writes it a second time through the
             * shared file offset.  _exit does not, but a worker that ends
             * under valgrind does (its __libc_freeres flushes every
             * stream): merge's metadata spools (tmpfile) got 4 KiB of
             * their text again, -j 2 and -j 3 wrote different bytes. */
            fflush(NULL);
            pid_t pid = -1;
            if (pipe(fds) == 0) {
                pid = fork();
                if (pid < 0) {
                    close(fds[0]);
                    close(fds[1]);
                }
            }
            if (pid < 0) {
                vp_error_set(err, VP_EXIT_INPUT, "cannot start a worker: %s", strerror(errno));
                st = VP_EXIT_INPUT;
                goto out;
            }
            if (pid == 0) {
                close(fds[0]);
                for (size_t i = taken; i < started; i++)
                    if (t[i].fd >= 0)
                        close(t[i].fd);
                worker(p, started, fds[1]);
            }
            close(fds[1]);
            t[started].pid = pid;
            t[started].fd = fds[0];
            started++;
            running++;
        }
        task *w = &t[taken];
        if (w->here || w->done) {
            st = w->here ? run_here(p, taken) : finish(p, w, taken);
            vp_buf_free(&w->data);
            taken++;
            if (st != 0)
                goto out;
            continue;
        }
        nfds_t np = 0;
        for (size_t i = taken; i < started; i++)
            if (t[i].fd >= 0) {
                pfd[np].fd = t[i].fd;
                pfd[np].events = POLLIN;
                who[np++] = i;
            }
        if (poll(pfd, np, -1) < 0) {
            if (errno == EINTR)
                continue;
            vp_error_set(err, VP_EXIT_INPUT, "poll: %s", strerror(errno));
            st = VP_EXIT_INPUT;
            goto out;
        }
        for (nfds_t j = 0; j < np; j++) {
            if (!pfd[j].revents)
                continue;
            task *x = &t[who[j]];
            vp_buf_reserve(&x->data, 65536);
            ssize_t r = read(x->fd, x->data.data + x->data.len, 65536);
            if (r < 0 && errno == EINTR)
                continue;
            if (r > 0) {
                x->data.len += (size_t)r;
                continue;
            }
            close(x->fd);
            x->fd = -1;
            while (waitpid(x->pid, &x->wstatus, 0) < 0 && errno == EINTR)
                ;
            x->done = 1;
            running--;
        }
    }
out:
    vp_trace_prepass = prepass;
    stop_all(t, taken, started);
    free(t);
    free(pfd);
    free(who);
    return st;
}
