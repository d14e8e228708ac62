/* MPI in the binary (cli/mpi.h): a partial-result command's inputs shared
 * among the processes of a job, and merge's peers.  The library's driver
 * (vprof/parts.h) analyses each process's share; here are only the share,
 * the gather to rank 0 and the abort of the job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/mpi.h"
#include "cli/scale.h"
#include "vprof/exec.h"
#include "vprof/util.h"

#if VPROF_HAVE_MPI
#include <mpi.h>

/* One process's part of a shared command. */
typedef struct share {
    const vp_common_opts *o;
    vp_parts_job *j;
    int reducing;
} share;

/* This process's share of the inputs (contiguous, so that rank order is
 * input order), analysed; the partials gathered to rank 0 in rank order
 * and merged there. */
static int run_mpi_share(share *k, char *const *inputs, size_t n);
static int run_mpi_local(share *k, char *const *inputs, size_t n);

/* The operands, globs expanded by this process (vprof/exec.h). */
char **vp_mpi_expand(const char *cmd, int local, char *const *inputs, size_t n, size_t *nout)
{
    vp_error err = {0};
    char **list = vp_operands_expand(inputs, n, local, nout, &err);
    if (!list)
        fprintf(stderr, "vprof: %s: %s\n", cmd, err.msg);
    return list;
}

void vp_mpi_list_free(char **list, size_t n)
{
    vp_operands_free(list, n);
}

int vp_mpi_parts(const vp_common_opts *o, vp_parts_job *j, int reducing, char *const *inputs,
                 size_t n)
{
    share s = {o, j, reducing}, *k = &s;
    size_t nl = 0;
    char **list = vp_mpi_expand(j->command, k->o->local, inputs, n, &nl);
    if (!list)
        return VP_EXIT_INPUT;
    int st = k->o->local ? run_mpi_local(k, list, nl) : run_mpi_share(k, list, nl);
    vp_mpi_list_free(list, nl);
    return st;
}

/* The peers of a merge: one message at a time to process 0, tagged apart
 * from anything else. */
#define PEER_TAG 7201

static int peer_send(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    if (n > (size_t)0x7fffffff)
        return -1;
    return MPI_Send(p, (int)n, MPI_BYTE, 0, PEER_TAG, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static int peer_recv(void *ctx, int from, vp_buf *out)
{
    (void)ctx;
    MPI_Status ms;
    int n = 0;
    if (MPI_Probe(from, PEER_TAG, MPI_COMM_WORLD, &ms) != MPI_SUCCESS ||
        MPI_Get_count(&ms, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
        return -1;
    out->len = 0;
    vp_buf_reserve(out, (size_t)n + 1);
    if (MPI_Recv(out->data, n, MPI_BYTE, from, PEER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
        return -1;
    out->len = (size_t)n;
    return 0;
}

void vp_mpi_peers(vp_merge_peers *pe)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init(NULL, NULL);
    memset(pe, 0, sizeof *pe);
    MPI_Comm_rank(MPI_COMM_WORLD, &pe->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pe->size);
    pe->send = peer_send;
    pe->recv = peer_recv;
}

void vp_mpi_abort(const char *cmd, int status)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fprintf(stderr, "vprof: %s: MPI process %d of %d failed; aborting the job\n", cmd, rank, size);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
}

void vp_mpi_finish(void)
{
    MPI_Finalize();
}

static int run_share(share *k, char *const *inputs, size_t first, size_t last, int local);

static int run_mpi_share(share *k, char *const *inputs, size_t n)
{
    int inited = 0, rank = 0, size = 1;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t first = n * (size_t)rank / (size_t)size, last = n * ((size_t)rank + 1) / (size_t)size;
    return run_share(k, inputs, first, last, 0);
}

/* --local: the files this node has (its processes see the same local
 * disk), shared among this node's processes as --mpi shares all of them
 * among all processes.  The partials reach rank 0 in MPI rank order. */
static int run_mpi_local(share *k, char *const *inputs, size_t n)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init(NULL, NULL);
    MPI_Comm node;
    int nrank = 0, nsize = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    unsigned long long mine = n, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (total == 0) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "vprof: %s: --local: no node has any of the files named\n", k->j->command);
        MPI_Finalize();
        return VP_EXIT_INPUT;
    }
    size_t first = n * (size_t)nrank / (size_t)nsize, last = n * ((size_t)nrank + 1) / (size_t)nsize;
    return run_share(k, inputs, first, last, 1);
}

/* This process's inputs [first, last) analysed; the partials of every
 * process gathered to rank 0 and merged there in rank order (a process
 * without inputs sends nothing). */
static int run_share(share *k, char *const *inputs, size_t first, size_t last, int local)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    k->j->rank = rank;
    long jobs = k->o->jobs ? k->o->jobs : 1;
    int st = k->reducing ? vp_parts_reduce(k->j, inputs + first, last - first)
                         : vp_parts_analyse(k->j, jobs, inputs, first, last);
    if (st != VP_EXIT_OK) {
        char host[MPI_MAX_PROCESSOR_NAME] = "";
        int len = 0;
        MPI_Get_processor_name(host, &len);
        fprintf(stderr, "vprof: %s: MPI process %d of %d (%s) failed on its %sinputs %zu..%zu; "
                        "aborting the job\n",
                k->j->command, rank, size, host, local ? "node's " : "", first,
                last ? last - 1 : 0);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, st);
        return st;
    }
    if (k->o->save_part) {
        if (!vp_parts_each(k->j))
            st = vp_parts_save(k->j, last - first);
        MPI_Finalize();
        return st != VP_EXIT_OK ? st : VP_PARTS_DONE;
    }
    vp_buf mine = {0};
    if (rank != 0)
        k->j->a->save(k->j->model, &mine);
    /* Gatherv counts are ints: a partial over 2 GiB is refused. */
    if (mine.len > (size_t)0x7fffffff) {
        fprintf(stderr, "vprof: %s: MPI process %d: partial result of %zu bytes is over 2 GiB\n",
                k->j->command, rank, mine.len);
        MPI_Abort(MPI_COMM_WORLD, VP_EXIT_INPUT);
    }
    int len = (int)mine.len;
    int count = last > first;
    int *lens = NULL, *offs = NULL, *counts = NULL;
    char *all = NULL;
    if (rank == 0) {
        lens = vp_calloc((size_t)size, sizeof *lens);
        offs = vp_calloc((size_t)size, sizeof *offs);
        counts = vp_calloc((size_t)size, sizeof *counts);
    }
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long long total = 0;
        for (int r = 0; r < size; r++) {
            offs[r] = (int)total;
            total += lens[r];
        }
        if (total > 0x7fffffff) {
            fprintf(stderr, "vprof: %s: the partial results add up to %lld bytes, over MPI's 2 GiB\n",
                    k->j->command, total);
            MPI_Abort(MPI_COMM_WORLD, VP_EXIT_INPUT);
        }
        all = vp_malloc(total ? (size_t)total : 1);
    }
    MPI_Gatherv(mine.data, len, MPI_BYTE, all, lens, offs, MPI_BYTE, 0, MPI_COMM_WORLD);
    vp_buf_free(&mine);
    if (rank == 0) {
        /* rank 0's own share is already in ctx, and comes first */
        for (int r = 1; r < size && st == VP_EXIT_OK; r++) {
            if (!counts[r])
                continue;  /* a process without inputs */
            vp_error err = {0};
            if (k->j->a->merge(k->j->model, all + offs[r], (size_t)lens[r], &err) != 0) {
                fprintf(stderr, "vprof: %s: the partial result of MPI process %d: %s\n",
                        k->j->command, r, err.msg);
                st = VP_EXIT_INPUT;
            }
        }
        free(all);
        free(lens);
        free(offs);
        free(counts);
    }
    MPI_Finalize();
    if (st != VP_EXIT_OK)
        return st;
    return rank == 0 ? VP_EXIT_OK : VP_PARTS_DONE;
}
#endif
