/* The partial result of `vprof counters` (docs/partials.md, "counters"):
 * the ranks read and every series with all its points.  Merged in input
 * order, they give what one process reading the files in turn gives
 * (vp_counters_finish sorts the series afterwards). */
#include <stdlib.h>
#include <string.h>

#include "vprof/counters.h"
#include "vprof/part.h"
#include "vprof/util.h"

static void put_series(vp_buf *b, const vp_cseries *s, size_t n)
{
    vp_put_u64(b, n);
    for (size_t i = 0; i < n; i++) {
        vp_put_i64(b, s[i].rank);
        vp_put_i64(b, s[i].stream);
        vp_put_str(b, s[i].name, strlen(s[i].name));
        vp_put_i64(b, s[i].pid);
        vp_put_i64(b, s[i].tid);
        vp_put_u64(b, s[i].n);
        for (size_t j = 0; j < s[i].n; j++) {
            vp_put_i64(b, s[i].ts[j]);
            vp_put_f64(b, s[i].v[j]);
        }
    }
}

void vp_counters_save(const vp_counters *c, vp_buf *b)
{
    vp_put_u64(b, c->nfiles);
    for (size_t i = 0; i < c->nfiles; i++)
        vp_put_i64(b, c->ranks[i]);
    put_series(b, c->queue, c->nqueue);
    put_series(b, c->bw, c->nbw);
}

static void get_series(vp_rd *r, vp_cseries **arr, size_t *n)
{
    size_t k = vp_get_count(r, 6);
    for (size_t i = 0; i < k && !r->bad; i++) {
        *arr = vp_realloc(*arr, (*n + 1) * sizeof **arr);
        vp_cseries *s = &(*arr)[(*n)++];
        memset(s, 0, sizeof *s);
        s->rank = (long)vp_get_i64(r);
        s->stream = vp_get_i64(r);
        size_t len;
        const char *name = vp_get_cstr(r, &len);
        if (!name || len >= sizeof s->name) {
            r->bad = 1;
            return;
        }
        memcpy(s->name, name, len);
        s->pid = vp_get_i64(r);
        s->tid = vp_get_i64(r);
        size_t np = vp_get_count(r, 2);
        s->cap = s->n = r->bad ? 0 : np;
        s->ts = vp_malloc((np ? np : 1) * sizeof *s->ts);
        s->v = vp_malloc((np ? np : 1) * sizeof *s->v);
        for (size_t j = 0; j < np && !r->bad; j++) {
            s->ts[j] = vp_get_i64(r);
            s->v[j] = vp_get_f64(r);
        }
    }
}

int vp_counters_merge(vp_counters *c, const void *p, size_t n, vp_error *err)
{
    vp_rd r;
    vp_rd_init(&r, p, n);
    size_t nf = vp_get_count(&r, 1);
    for (size_t i = 0; i < nf && !r.bad; i++) {
        c->ranks = vp_realloc(c->ranks, (c->nfiles + 1) * sizeof *c->ranks);
        c->ranks[c->nfiles++] = (long)vp_get_i64(&r);
    }
    get_series(&r, &c->queue, &c->nqueue);
    get_series(&r, &c->bw, &c->nbw);
    if (!vp_rd_done(&r)) {
        vp_error_set(err, VP_EXIT_INPUT, "damaged counters partial result");
        return -1;
    }
    return 0;
}
