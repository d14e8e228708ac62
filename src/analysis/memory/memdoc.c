/* One input of vprof memory told and read (vprof/memdoc.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vprof/memdoc.h"
#include "vprof/trace.h"

int vp_memdoc_is_ascend(const char *path)
{
    if (vp_asc_is_dir(path))
        return 1;
    if (strcmp(path, "-") == 0)
        return 0;
    vp_asc_file k = vp_asc_sniff(path);
    return k == VP_ASC_MEMORY_RECORD || k == VP_ASC_OPERATOR_MEMORY || k == VP_ASC_MODULE_MEM;
}

int vp_memdoc_open(const char *path, vp_memdoc *d, vp_error *err)
{
    memset(d, 0, sizeof *d);
    d->path = d->name = path;
    if (vp_memdoc_is_ascend(path)) {
        d->kind = VP_MEMDOC_ASCEND;
        d->is_dir = vp_asc_is_dir(path);
        d->asc_kind = d->is_dir ? VP_ASC_UNKNOWN : vp_asc_sniff(path);
        return 0;
    }
    if (strcmp(path, "-") == 0) {
        if (!(d->spooled = vp_mem_spool_stdin(err)))
            return -1;
        d->name = "standard input";
    }
    vp_mem_input kind;
    if (vp_mem_sniff(d->spooled ? d->spooled : path, d->spooled != NULL, &kind, &d->whole, &d->gz,
                     err) != 0)
        return -1;
    d->kind = kind == VP_MEM_SNAPSHOT ? VP_MEMDOC_SNAPSHOT
            : kind == VP_MEM_TRACE    ? VP_MEMDOC_TRACE
                                      : VP_MEMDOC_TIMELINE;
    return 0;
}

const char *vp_memdoc_kind_name(vp_memdoc_kind k)
{
    return k == VP_MEMDOC_SNAPSHOT ? "a snapshot"
         : k == VP_MEMDOC_TRACE    ? "a trace"
         : k == VP_MEMDOC_TIMELINE ? "a memory timeline"
                                   : "an Ascend profile";
}

static int read_snapshot(vp_memdoc *d, int device, vp_error *err)
{
    /* the pickle was held when it was gzip or standard input */
    d->snap = d->gz || d->spooled ? vp_memsnap_load_mem(d->whole.data, d->whole.len, d->name, err)
                                  : vp_memsnap_load(d->path, err);
    if (!d->snap) {
        if (!err->status)
            err->status = VP_EXIT_INPUT;
        return -1;
    }
    if (device >= 0 && !vp_memsnap_device(d->snap, device)) {
        vp_error_set(err, VP_EXIT_USAGE, "%s has no device %d (it has %zu device%s with data)",
                     d->name, device, d->snap->ndevices, d->snap->ndevices == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

int vp_memdoc_read(vp_memdoc *d, const vp_memdoc_read_opts *o, vp_error *err)
{
    int rc = 0;
    switch (d->kind) {
    case VP_MEMDOC_SNAPSHOT:
        return read_snapshot(d, o->device, err);
    case VP_MEMDOC_TRACE: {
        vp_trace_opts topts = {.partial = o->partial, .progress = 1, .name = d->name};
        d->events = vp_memevents_read(d->spooled ? d->spooled : d->path, &topts, o->keep_points,
                                      o->find_ops, err);
        rc = d->events ? 0 : -1;
        break;
    }
    case VP_MEMDOC_TIMELINE:
        rc = vp_memtimeline_parse(d->whole.data, d->whole.len, d->name, &d->timeline, err);
        break;
    case VP_MEMDOC_ASCEND:
        rc = vp_asc_rankmem_load(d->path, d->is_dir, d->asc_kind, &d->ranks, &d->nranks, err);
        break;
    }
    if (rc != 0)
        err->status = VP_EXIT_INPUT;
    return rc;
}

void vp_memdoc_free(vp_memdoc *d)
{
    if (d->snap)
        vp_memsnap_free(d->snap);
    if (d->events)
        vp_memevents_free(d->events);
    if (d->kind == VP_MEMDOC_TIMELINE)
        vp_memtimeline_free(&d->timeline);
    if (d->ranks)
        vp_asc_rankmem_free(d->ranks, d->nranks);
    vp_buf_free(&d->whole);
    if (d->spooled) {
        unlink(d->spooled);
        free(d->spooled);
    }
    memset(d, 0, sizeof *d);
}
