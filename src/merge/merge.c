/* The merge engine (vprof/merge.h, docs/merge.md).
 *
 * Each input is copied event by event from the reader to the sink; only
 * pid, flow/async id and (when the clock moves) ts are rewritten in the
 * event's raw text.  Rank R's processes become pids R*1000 + 0, 1, ...
 * (vprof/trace_writer.h), announced ahead of the events in "vprofMerge" so
 * that `vprof kernels --by rank` can tell the ranks apart again.
 * process_name and process_sort_index events are held until the end of
 * their input (a few per process) and written then with the rank in the
 * name and a rank-major sort index; every other metadata event passes
 * with its pid rewritten, so viewers still recognise all of them.
 *
 * The rank and the clock base of an input may be written after its events
 * (2024-era Kineto puts distributedInfo and baseTimeNanoseconds last).
 * Rather than read every input twice, merge assumes what the head of the
 * file suggests, checks at its end, and in the rare case it was wrong
 * rewinds the output to where the input began (vprof/sink.h) and copies
 * it again.  Only --steps and --align start|collective, which need a whole
 * input's content before its first event can be written, read inputs
 * twice.
 *
 * This file is the engine's entry: the options taken in, the inputs
 * checked, the pre-pass, the output opened and the inputs copied in turn
 * (or as parts), the tail.  Each step lives in a file of its own beside
 * it; merge_int.h says which. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge/merge_int.h"
#include "vprof/exec.h"
#include "vprof/sink.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

void vp_mg_warn(const merge *m, vp_merge_warning what, const char *path, long long a, long long b)
{
    if (m->hooks && m->hooks->warn)
        m->hooks->warn(m->hooks->ctx, what, path, a, b);
}

static void merge_free(merge *m)
{
    for (size_t i = 0; i < m->nin; i++) {
        free(m->in[i].colls);
        free(m->in[i].meta_dp);
        free(m->in[i].meta_di);
        free(m->in[i].meta_unit);
    }
    free(m->in);
    for (size_t i = 0; i < m->nprocs; i++) {
        vp_buf_free(&m->procs[i].key);
        free(m->procs[i].name_ev);
        free(m->procs[i].sort_ev);
    }
    free(m->procs);
    vp_strmap_free(m->pid_map);
    vp_buf_free(&m->ebuf);
    vp_buf_free(&m->scratch);
    free(m->time_unit);
    free(m->part_dir_buf);
    for (size_t i = 0; m->kept && i < m->nin; i++) {
        vp_buf_free(&m->kept[i]);
        if (m->kept_fd[i] >= 0)
            close(m->kept_fd[i]);
    }
    free(m->kept);
    free(m->kept_fd);
    for (size_t i = 0; m->part_fd && i < m->nin; i++)
        if (m->part_fd[i] >= 0)
            close(m->part_fd[i]);
    free(m->part_fd);
    free(m->output_name);
    if (m->spool_dp)
        fclose(m->spool_dp);
    if (m->spool_di)
        fclose(m->spool_di);
    if (m->spool_info)
        fclose(m->spool_info);
}

static int run(merge *m)
{
    int need_scan = m->has_steps || m->align == ALIGN_START || m->align == ALIGN_COLLECTIVE;
    size_t nstdin = 0;
    for (size_t i = 0; i < m->nin; i++)
        nstdin += vp_mg_is_stdin(&m->in[i]);
    if (nstdin > 1) {
        vp_error_set(&m->err, VP_EXIT_USAGE, "standard input (-) given %zu times", nstdin);
        return -1;
    }
    for (size_t i = 0; i < m->nin; i++)
        for (size_t j = 0; j < i; j++)
            if (m->in[i].rank_explicit && m->in[j].rank_explicit && m->in[i].rank == m->in[j].rank) {
                vp_error_set(&m->err, VP_EXIT_USAGE, "%s and %s are both given as rank %ld",
                             m->in[j].arg, m->in[i].arg, m->in[i].rank);
                return -1;
            }
    if (need_scan) {
        input *ref = NULL;
        for (size_t i = 0; i < m->nin; i++) {
            if (vp_mg_scan_input(m, &m->in[i], (long)i) != 0)
                return -1;
            m->in[i].skipped = !vp_mg_rank_wanted(m, m->in[i].rank);
            if (!ref && !m->in[i].skipped)
                ref = &m->in[i];
        }
        if (m->align == ALIGN_COLLECTIVE && ref) {
            m->out_base_set = 1;
            m->out_base = ref->has_base ? ref->base : 0;
            vp_mg_collective_offsets(m, ref);
        }
    }
    vp_sink_opts so = m->sink_opts;
    /* Parts: with -j, and always with gzip output, so that the output is
     * the same bytes for every -j (a gzip member per rank). */
    long jobs = m->jobs ? m->jobs : vp_online_cores();
    m->part_mode = jobs > 1 || so.gzip;
    m->progress = m->progress && jobs == 1;
    struct stat sb;
    vp_buf dir = {0};
    if (strcmp(m->output, "-") != 0 && (stat(m->output, &sb) != 0 || S_ISREG(sb.st_mode))) {
        const char *slash = strrchr(m->output, '/');
        if (!slash)
            vp_buf_append(&dir, ".", 1);
        else
            vp_buf_append(&dir, m->output, slash == m->output ? 1 : (size_t)(slash - m->output));
    } else {
        const char *tmp = getenv("TMPDIR");
        vp_buf_printf(&dir, "%s", tmp && *tmp ? tmp : "/tmp");
    }
    m->part_dir = vp_buf_cstr(&dir);
    m->part_dir_buf = dir.data;
    size_t first = 0, last = m->nin;
    if (m->peers) {
        m->part_mode = 1;
        m->progress = 0;
        first = vp_mg_share_start(m->nin, m->peers->rank, m->peers->size);
        last = vp_mg_share_start(m->nin, m->peers->rank + 1, m->peers->size);
        if (m->peers->rank != 0)
            return vp_mg_send_share(m, m->jobs ? m->jobs : 1, first, last);
        if (!m->jobs)
            jobs = 1;
    }
    m->sink = vp_sink_open(m->output, &so, &m->err);
    if (!m->sink)
        return -1;
    m->spool_dp = tmpfile();
    m->spool_di = tmpfile();
    m->spool_info = tmpfile();
    if (!m->spool_dp || !m->spool_di || !m->spool_info) {
        vp_error_set(&m->err, VP_EXIT_INPUT, "cannot create a temporary file for the metadata");
        return -1;
    }
    m->first_dp = m->first_di = m->first_info = 1;
    vp_sink_printf(m->sink, "{\"schemaVersion\": 1,\n\"vprofMerge\": {\"version\": 1, \"pidsPerRank\": %d},\n"
                            "\"traceEvents\": [\n",
                   VP_MERGE_PIDS_PER_RANK);
    if (m->part_mode) {
        if (vp_mg_run_parts(m, jobs, first, last) != 0)
            return -1;
        if (m->peers && vp_mg_receive_shares(m) != 0)
            return -1;
    } else {
        for (size_t i = 0; i < m->nin; i++) {
            input *in = &m->in[i];
            if (in->skipped && in->scanned) {
                in->done = 1;
                continue;
            }
            if (vp_mg_copy_input(m, in, (long)i) != 0)
                return -1;
        }
    }
    size_t merged = 0;
    for (size_t i = 0; i < m->nin; i++)
        merged += !m->in[i].skipped;
    if (!merged) {
        vp_error_set(&m->err, VP_EXIT_USAGE, "--ranks selects none of the inputs' ranks");
        return -1;
    }
    vp_mg_write_tail(m);
    m->output_name = vp_strdup(vp_sink_name(m->sink));
    vp_sink *s = m->sink;
    m->sink = NULL;
    return vp_sink_close(s, &m->err);
}


int vp_merge_run(const vp_merge_input *in, size_t n, const vp_merge_opts *o,
                 vp_merge_result *res, vp_error *err)
{
    merge m;
    memset(&m, 0, sizeof m);
    m.output = o->output;
    m.sink_opts = o->sink;
    m.align = o->align;
    m.coll_n = o->coll_n > 0 ? o->coll_n : VP_MERGE_DEFAULT_COLLECTIVES;
    m.ranks = o->ranks;
    m.nranks = o->nranks;
    if (o->steps) {
        m.steps = *o->steps;
        m.has_steps = 1;
    }
    m.has_w0 = o->has_w0;
    m.has_w1 = o->has_w1;
    m.w0 = o->w0;
    m.w1 = o->w1;
    m.drop = o->drop;
    m.ndrop = o->ndrop;
    m.keep = o->keep;
    m.nkeep = o->nkeep;
    m.partial = o->partial;
    m.classes = o->classes;
    m.progress = o->progress;
    m.jobs = o->jobs;
    m.peers = o->peers;
    m.hooks = o->hooks;
    m.nin = n;
    m.in = vp_calloc(n ? n : 1, sizeof *m.in);
    m.part_fd = vp_calloc(n ? n : 1, sizeof *m.part_fd);
    for (size_t i = 0; i < n; i++) {
        m.in[i].arg = in[i].arg ? in[i].arg : in[i].path;
        m.in[i].path = in[i].path;
        m.in[i].rank = in[i].rank;
        m.in[i].rank_explicit = in[i].rank_explicit;
        m.part_fd[i] = -1;
    }
    m.pid_map = vp_strmap_new();
    int r = run(&m);
    if (r != 0) {
        vp_sink_abort(m.sink);
        m.sink = NULL;
        if (!m.err.status)
            m.err.status = VP_EXIT_INPUT;
        *err = m.err;
    }
    if (res) {
        memset(res, 0, sizeof *res);
        res->ranks = vp_calloc(n ? n : 1, sizeof *res->ranks);
        res->n = n;
        for (size_t i = 0; i < n; i++)
            vp_mg_report_input(&m.in[i], &res->ranks[i]);
        res->any_base = m.any_base;
        res->output_name = m.output_name;
        m.output_name = NULL;
        res->wrote = r == 0 && (!m.peers || m.peers->rank == 0);
    }
    merge_free(&m);
    return r != 0 ? -1 : 0;
}

void vp_merge_result_free(vp_merge_result *res)
{
    free(res->ranks);
    free(res->output_name);
    memset(res, 0, sizeof *res);
}
