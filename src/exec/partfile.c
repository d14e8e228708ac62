/* Partial results as files (vprof/partfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/partfile.h"

char *vp_part_path(const char *pattern, long rank, size_t index)
{
    vp_buf b = {0};
    for (const char *s = pattern; *s; s++) {
        if (*s != '%' || !s[1]) {
            vp_buf_putc(&b, *s);
            continue;
        }
        s++;
        if (*s == 'r')
            vp_buf_printf(&b, "%ld", rank);
        else if (*s == 'i')
            vp_buf_printf(&b, "%zu", index);
        else if (*s == '%')
            vp_buf_putc(&b, '%');
        else {
            vp_buf_putc(&b, '%');
            vp_buf_putc(&b, *s);
        }
    }
    vp_buf_cstr(&b);
    return b.data ? b.data : vp_strdup("");
}

int vp_part_save(const char *path, const vp_part_kind *k, uint64_t inputs, const void *payload,
                 size_t n, vp_error *err)
{
    vp_part_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.command, sizeof h.command, "%s", k->command);
    h.payload_version = k->version;
    h.options.data = (char *)k->options;
    h.options.len = k->noptions;
    h.inputs = inputs;
    vp_buf out = {0};
    vp_part_write(&out, &h, payload, n);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(out.data, 1, out.len, f) == out.len;
    if (f && fclose(f) != 0)
        ok = 0;
    int why = errno;
    vp_buf_free(&out);
    if (!ok) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: cannot write %s: %s", k->command, path,
                     strerror(why));
        return -1;
    }
    return 0;
}

static int slurp(const char *path, vp_buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0)
        vp_buf_append(b, buf, r);
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

/* NUL-separated options as one line, for messages. */
static void join_options(vp_buf *out, const char *p, size_t n)
{
    for (size_t j = 0; j + 1 < n; j++)
        vp_buf_putc(out, p[j] ? p[j] : ' ');
}

int vp_part_load(const char *path, const vp_part_kind *k, const char *first, vp_buf *file,
                 const void **payload, size_t *n, vp_error *err)
{
    vp_part_header h;
    if (slurp(path, file) != 0) {
        vp_error_set(err, VP_EXIT_INPUT, "reduce: cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (vp_part_read(path, file->data, file->len, &h, payload, n, err) != 0)
        return -1;
    if (strcmp(h.command, k->command) != 0) {
        vp_error_set(err, VP_EXIT_INPUT, "reduce: %s: a partial result of vprof %s, not of "
                     "vprof %s", path, h.command, k->command);
    } else if (h.payload_version != k->version) {
        vp_error_set(err, VP_EXIT_INPUT, "reduce: %s: vprof %s partial version %llu, this vprof "
                     "reads version %llu", path, h.command,
                     (unsigned long long)h.payload_version, (unsigned long long)k->version);
    } else if (h.options.len != k->noptions ||
               (k->noptions && memcmp(h.options.data, k->options, k->noptions) != 0)) {
        vp_buf a = {0}, c = {0};
        join_options(&a, h.options.data, h.options.len);
        join_options(&c, k->options, k->noptions);
        vp_error_set(err, VP_EXIT_INPUT, "reduce: %s: made with other options than %s ('%s' "
                     "against '%s'): its numbers would not add up", path, first,
                     a.len ? vp_buf_cstr(&a) : "", c.len ? vp_buf_cstr(&c) : "");
        vp_buf_free(&a);
        vp_buf_free(&c);
    }
    vp_buf_free(&h.options);
    return err->status ? -1 : 0;
}

int vp_part_load_each(const vp_part_kind *k, char *const *paths, size_t n, vp_part_take_fn take,
                      void *ctx, vp_error *err)
{
    for (size_t i = 0; i < n; i++) {
        vp_buf file = {0};
        const void *payload;
        size_t len;
        int st = VP_EXIT_INPUT;
        if (vp_part_load(paths[i], k, paths[0], &file, &payload, &len, err) == 0)
            st = take(ctx, paths[i], i, payload, len);
        vp_buf_free(&file);
        if (st != VP_EXIT_OK)
            return st;
    }
    return VP_EXIT_OK;
}
