/* Merge: the output's top-level metadata.  deviceProperties,
 * distributedInfo and what merge did with each rank (vprofMergeInfo) are
 * spooled to temporary files as the inputs are accepted, since they may
 * only be written after the events, and copied into the tail at the end:
 * memory stays constant however many ranks are merged. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge_int.h"
#include "vprof/rank.h"
#include "vprof/sink.h"
#include "vprof/trace.h"
#include "vprof/trace_writer.h"
#include "vprof/util.h"

/* baseTimeNanoseconds, exactly (a number or a quoted one). */
int vp_mg_meta_base(vp_trace *t, int64_t *base)
{
    return vp_trace_meta_int(t, "baseTimeNanoseconds", base);
}

static void spool_value(FILE *f, long rank, const char *text, int *first)
{
    fprintf(f, "%s\"%ld\": %s", *first ? "" : ", ", rank, text);
    *first = 0;
}

/* The top-level values merge keeps of an input, as text, so that a
 * worker process can hand them to its parent. */
void vp_mg_keep_meta(input *in, const cJSON *meta)
{
    const cJSON *dp = cJSON_GetObjectItemCaseSensitive(meta, "deviceProperties");
    const cJSON *di = cJSON_GetObjectItemCaseSensitive(meta, "distributedInfo");
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(meta, "displayTimeUnit");
    free(in->meta_dp);
    free(in->meta_di);
    free(in->meta_unit);
    in->meta_dp = dp ? cJSON_PrintUnformatted(dp) : NULL;
    in->meta_di = di ? cJSON_PrintUnformatted(di) : NULL;
    in->meta_unit = cJSON_IsString(unit) ? vp_strdup(unit->valuestring) : NULL;
}

static void spool_input(merge *m, input *in)
{
    if (in->meta_dp)
        spool_value(m->spool_dp, in->rank, in->meta_dp, &m->first_dp);
    if (in->meta_di)
        spool_value(m->spool_di, in->rank, in->meta_di, &m->first_di);
    if (!m->time_unit && in->meta_unit)
        m->time_unit = vp_strdup(in->meta_unit);
    vp_buf b = {0};
    vp_tw_string(&b, in->path, strlen(in->path));
    fprintf(m->spool_info, "%s\"%ld\": {\"source\": %s, \"rankFrom\": \"%s\", \"shiftNs\": %lld, "
                           "\"eventsRead\": %llu, \"eventsWritten\": %llu, \"truncated\": %s",
            m->first_info ? "" : ", ", in->rank, vp_buf_cstr(&b),
            in->rank_explicit ? "command line" : vp_rank_source_name(in->rank_from),
            (long long)in->shift, (unsigned long long)in->events_read,
            (unsigned long long)in->events_written, in->truncated ? "true" : "false");
    if (in->has_base)
        fprintf(m->spool_info, ", \"baseTimeNanoseconds\": %lld", (long long)in->base);
    if (m->align == ALIGN_COLLECTIVE)
        fprintf(m->spool_info, ", \"collectivesMatched\": %zu", in->coll_matched);
    if (in->has_steps_window)
        fprintf(m->spool_info, ", \"stepsWindowNs\": [%lld, %lld]", (long long)in->steps_start,
                (long long)in->steps_end);
    fputc('}', m->spool_info);
    m->first_info = 0;
    vp_buf_free(&b);
}

static int copy_spool(merge *m, FILE *f)
{
    char buf[65536];
    size_t n;
    fflush(f);
    rewind(f);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        vp_sink_write(m->sink, buf, n);
    return ferror(f) ? -1 : 0;
}

/* What an input written to the output changes for the next ones: the
 * merged clock (the first rank merged), and the top-level metadata. */
void vp_mg_accept_input(merge *m, input *in)
{
    if (!m->out_base_set && (m->align == ALIGN_AUTO || m->align == ALIGN_BASE)) {
        m->out_base_set = 1;
        m->out_base = in->has_base ? in->base : 0;
    }
    if (in->has_base)
        m->any_base = 1;
    spool_input(m, in);
}

static const char *align_name(int a)
{
    switch (a) {
    case ALIGN_NONE: return "none";
    case ALIGN_START: return "start";
    case ALIGN_COLLECTIVE: return "collective";
    default: return "base";
    }
}

int vp_mg_write_tail(merge *m)
{
    vp_sink *s = m->sink;
    vp_sink_puts(s, "\n],\n");
    if (m->time_unit) {
        m->scratch.len = 0;
        vp_tw_string(&m->scratch, m->time_unit, strlen(m->time_unit));
        vp_sink_printf(s, "\"displayTimeUnit\": %s,\n", vp_buf_cstr(&m->scratch));
    }
    if (m->align != ALIGN_START && m->out_base_set && m->out_base)
        vp_sink_printf(s, "\"baseTimeNanoseconds\": %lld,\n", (long long)m->out_base);
    vp_buf names = {0};
    vp_buf_append(&names, "vprof merge of ", 15);
    int first = 1;
    for (size_t i = 0; i < m->nin; i++) {
        if (m->in[i].skipped)
            continue;
        if (!first)
            vp_buf_append(&names, ", ", 2);
        vp_buf_append(&names, m->in[i].path, strlen(m->in[i].path));
        first = 0;
    }
    m->scratch.len = 0;
    vp_tw_string(&m->scratch, names.data, names.len);
    vp_buf_free(&names);
    vp_sink_printf(s, "\"traceName\": %s,\n", vp_buf_cstr(&m->scratch));
    vp_sink_puts(s, "\"deviceProperties\": {");
    copy_spool(m, m->spool_dp);
    vp_sink_puts(s, "},\n\"distributedInfo\": {");
    copy_spool(m, m->spool_di);
    vp_sink_printf(s, "},\n\"vprofMergeInfo\": {\"align\": \"%s\", \"partial\": %s, \"ranks\": {",
                   align_name(m->align), m->partial ? "true" : "false");
    copy_spool(m, m->spool_info);
    return vp_sink_puts(s, "}}\n}\n");
}
