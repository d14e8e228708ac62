/* Merge: peers (MPI, in the binary; vp_merge_peers in vprof/merge.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge/merge_int.h"
#include "vprof/exec.h"
#include "vprof/part.h"
#include "vprof/util.h"

/* Process r of P copies the r-th contiguous share of the inputs into
 * parts (with -j workers), as one process would; then every process but 0
 * sends each part's report and bytes, in pieces, to process 0, which
 * appends them in input order: nothing is held whole in memory.  Process 0
 * checks each part as it does a worker's, and copies an input again itself
 * when a process guessed the merged clock wrong. */
#define PIECE (1u << 20)

size_t vp_mg_share_start(size_t n, int r, int size)
{
    return n * (size_t)r / (size_t)size;
}

int vp_mg_send_share(merge *m, long jobs, size_t first, size_t last)
{
    const vp_merge_peers *pe = m->peers;
    m->keeping = 1;
    m->kept_fd = vp_calloc(m->nin ? m->nin : 1, sizeof *m->kept_fd);
    m->kept = vp_calloc(m->nin ? m->nin : 1, sizeof *m->kept);
    for (size_t i = 0; i < m->nin; i++)
        m->kept_fd[i] = -1;
    if (vp_mg_run_parts(m, jobs, first, last) != 0)
        return -1;
    char *piece = vp_malloc(PIECE);
    int st = 0;
    for (size_t i = first; i < last && st == 0; i++) {
        if (pe->send(pe->ctx, m->kept[i].data, m->kept[i].len) != 0) {
            vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot send its report", m->in[i].path);
            st = -1;
            break;
        }
        /* the part's length, from the report just sent */
        vp_rd r;
        vp_rd_init(&r, m->kept[i].data, m->kept[i].len);
        input scratch_in;
        memset(&scratch_in, 0, sizeof scratch_in);
        part_res res = {0};
        vp_mg_get_res(&r, &res, &scratch_in);
        free(res.msg);
        free(scratch_in.meta_dp);
        free(scratch_in.meta_di);
        free(scratch_in.meta_unit);
        for (uint64_t at = 0; at < res.len;) {
            size_t want = res.len - at < PIECE ? (size_t)(res.len - at) : PIECE;
            ssize_t got = pread(m->kept_fd[i], piece, want, (off_t)at);
            if (got <= 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot read back its part: %s",
                             m->in[i].path, got < 0 ? strerror(errno) : "short");
                st = -1;
                break;
            }
            if (pe->send(pe->ctx, piece, (size_t)got) != 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot send its part", m->in[i].path);
                st = -1;
                break;
            }
            at += (uint64_t)got;
        }
        close(m->kept_fd[i]);
        m->kept_fd[i] = -1;
    }
    free(piece);
    return st;
}

/* Process 0: the parts of processes 1..size-1, in order. */
int vp_mg_receive_shares(merge *m)
{
    const vp_merge_peers *pe = m->peers;
    vp_buf msg = {0};
    int st = 0;
    for (int p = 1; p < pe->size && st == 0; p++) {
        size_t first = vp_mg_share_start(m->nin, p, pe->size), last = vp_mg_share_start(m->nin, p + 1, pe->size);
        for (size_t i = first; i < last && st == 0; i++) {
            part_res res = {0};
            vp_rd r;
            if (pe->recv(pe->ctx, p, &msg) != 0 ||
                (vp_rd_init(&r, msg.data, msg.len), vp_mg_get_res(&r, &res, &m->in[i])) != 0) {
                vp_error_set(&m->err, VP_EXIT_INPUT, "%s: a damaged report from MPI process %d",
                             m->in[i].path, p);
                st = -1;
            }
            int fd = -1;
            if (st == 0 && res.len) {
                fd = vp_mg_part_file(m);
                if (fd < 0)
                    st = -1;
            }
            for (uint64_t at = 0; st == 0 && at < res.len;) {
                if (pe->recv(pe->ctx, p, &msg) != 0 || msg.len == 0 ||
                    vp_write_all(fd, msg.data, msg.len) != 0) {
                    vp_error_set(&m->err, VP_EXIT_INPUT, "%s: cannot write its part: %s",
                                 m->in[i].path, strerror(errno));
                    st = -1;
                }
                at += (uint64_t)msg.len;
            }
            if (st == 0) {
                st = vp_mg_take_part(m, i, fd, &res);
                if (st > 0)
                    st = vp_mg_part_again(m, i);
            }
            free(res.msg);
            if (fd >= 0)
                close(fd);
        }
    }
    vp_buf_free(&msg);
    return st;
}
