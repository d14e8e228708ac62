/* Unit tests for src/io/source.c: plain and gzip byte sources, multi-member
 * and damaged gzip streams, standard input, chunking and re-location. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>
#include <unistd.h>
#include <zlib.h>

#include "vprof/source.h"
#include "vprof/util.h"

#include "tmppath.h"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    return mkdtemp(test_tmp_template(tmpdir, sizeof tmpdir, "vprof-test-source")) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[512];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *path_of(const char *name)
{
    static char buf[4][512];
    static int i;
    char *p = buf[i++ % 4];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* One gzip member holding data (deflate, window bits 15 + 16). */
static unsigned char *gzip_member(const void *data, size_t n, int level, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, level, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *out = vp_malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* Pseudo-random text that compresses about 3:1, so that compressed sizes
 * are large enough to cut in the middle. */
static char *make_text(size_t n, uint32_t seed)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789{}[]\":, \n";
    char *p = vp_malloc(n + 1);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = alphabet[(x >> 16) % (sizeof alphabet - 1)];
    }
    p[n] = 0;
    return p;
}

typedef struct drained {
    vp_buf data;
    size_t nchunks;
    int rc;           /* last vp_source_next result */
    vp_error err;
    int truncated;
    int gzip;
} drained;

/* Reads a source to its end, checking the chunk invariants on the way. */
static void drain_source(vp_source *s, drained *d)
{
    vp_chunk c;
    memset(d, 0, sizeof *d);
    d->gzip = vp_source_is_gzip(s);
    for (;;) {
        memset(&c, 0, sizeof c);
        d->rc = vp_source_next(s, &c, &d->err);
        if (d->rc != 1)
            break;
        assert_int_equal(c.offset, d->data.len);
        assert_true(c.len > 0);
        assert_true(c.len <= VP_SOURCE_CHUNK);
        vp_buf_append(&d->data, c.data, c.len);
        d->nchunks++;
    }
    d->truncated = vp_source_truncated(s);
    /* After the end or a failure, the same answer again. */
    vp_error err2 = {0};
    assert_int_equal(vp_source_next(s, &c, &err2), d->rc);
    if (d->rc < 0)
        assert_string_equal(err2.msg, d->err.msg);
}

static void drain(const char *path, drained *d)
{
    vp_error err = {0};
    vp_source *s = vp_source_open(path, &err);
    if (!s)
        fail_msg("cannot open %s: %s", path, err.msg);
    assert_string_equal(vp_source_name(s), strcmp(path, "-") ? path : "standard input");
    drain_source(s, d);
    vp_source_close(s);
}

static void drained_free(drained *d)
{
    vp_buf_free(&d->data);
}

static void test_plain_small(void **state)
{
    const char *text = "{\"traceEvents\": []}\n";
    const char *path = path_of("small.json");
    drained d;
    vp_error err = {0};
    (void)state;

    write_file(path, text, strlen(text));
    vp_source *s = vp_source_open(path, &err);
    assert_non_null(s);
    assert_int_equal(vp_source_is_gzip(s), 0);
    assert_int_equal(vp_source_input_size(s), strlen(text));
    drain_source(s, &d);
    assert_int_equal(vp_source_input_pos(s), strlen(text));
    vp_source_close(s);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.nchunks, 1);
    assert_int_equal(d.data.len, strlen(text));
    assert_memory_equal(d.data.data, text, strlen(text));
    drained_free(&d);
}

static void test_one_byte(void **state)
{
    const char *path = path_of("one.json");
    drained d;
    (void)state;
    /* A single 0x1f is not gzip: too short for the magic. */
    write_file(path, "\x1f", 1);
    drain(path, &d);
    assert_int_equal(d.gzip, 0);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.data.len, 1);
    drained_free(&d);
}

static void test_empty(void **state)
{
    const char *path = path_of("empty.json");
    drained d;
    (void)state;
    write_file(path, "", 0);
    drain(path, &d);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.nchunks, 0);
    assert_int_equal(d.gzip, 0);
    drained_free(&d);

    /* A gzip member of nothing is empty too. */
    size_t zn;
    unsigned char *z = gzip_member("", 0, 6, &zn);
    path = path_of("empty.json.gz");
    write_file(path, z, zn);
    drain(path, &d);
    assert_int_equal(d.gzip, 1);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.data.len, 0);
    drained_free(&d);
    free(z);
}

static void test_open_errors(void **state)
{
    vp_error err = {0};
    (void)state;
    assert_null(vp_source_open(path_of("does-not-exist.json"), &err));
    assert_int_equal(err.status, 3);
    char want[512];
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory",
             path_of("does-not-exist.json"));
    assert_string_equal(err.msg, want);

    vp_error err2 = {0};
    assert_null(vp_source_open(tmpdir, &err2));
    assert_int_equal(err2.status, 3);
    snprintf(want, sizeof want, "%s: is a directory, not a trace file", tmpdir);
    assert_string_equal(err2.msg, want);
}

/* 5 MiB + a bit: every chunk but the last is exactly VP_SOURCE_CHUNK. */
static void test_plain_large(void **state)
{
    size_t n = 5 * VP_SOURCE_CHUNK + 12345;
    char *text = make_text(n, 1);
    const char *path = path_of("large.json");
    drained d;
    vp_error err = {0};
    vp_chunk c;
    (void)state;

    write_file(path, text, n);
    vp_source *s = vp_source_open(path, &err);
    assert_non_null(s);
    uint64_t off = 0;
    size_t i = 0;
    while (vp_source_next(s, &c, &err) == 1) {
        assert_int_equal(c.offset, off);
        assert_int_equal(c.len, i < 5 ? VP_SOURCE_CHUNK : 12345);
        assert_memory_equal(c.data, text + off, c.len);
        /* Plain input: the compressed offset is the uncompressed one. */
        assert_int_equal(c.comp_offset, off + c.len);
        off += c.len;
        i++;
    }
    assert_int_equal(err.status, 0);
    assert_int_equal(i, 6);
    assert_int_equal(off, n);
    assert_int_equal(vp_source_input_pos(s), n);
    vp_source_close(s);

    /* Closing early, with the reader thread still ahead, is clean. */
    s = vp_source_open(path, &err);
    assert_non_null(s);
    assert_int_equal(vp_source_next(s, &c, &err), 1);
    vp_source_close(s);
    s = vp_source_open(path, &err);
    assert_non_null(s);
    vp_source_close(s);

    drain(path, &d);
    assert_int_equal(d.data.len, n);
    drained_free(&d);
    free(text);
}

static void test_gzip_large(void **state)
{
    size_t n = 5 * VP_SOURCE_CHUNK + 777;
    char *text = make_text(n, 2);
    size_t zn;
    unsigned char *z = gzip_member(text, n, 9, &zn);
    const char *path = path_of("large.json.gz");
    vp_error err = {0};
    vp_chunk c;
    (void)state;

    write_file(path, z, zn);
    vp_source *s = vp_source_open(path, &err);
    assert_non_null(s);
    assert_int_equal(vp_source_is_gzip(s), 1);
    assert_int_equal(vp_source_input_size(s), zn);
    uint64_t off = 0, last_comp = 0;
    size_t i = 0;
    while (vp_source_next(s, &c, &err) == 1) {
        assert_int_equal(c.offset, off);
        assert_int_equal(c.len, i < 5 ? VP_SOURCE_CHUNK : 777);
        assert_memory_equal(c.data, text + off, c.len);
        assert_true(c.comp_offset >= last_comp);
        assert_true(c.comp_offset <= zn);
        last_comp = c.comp_offset;
        off += c.len;
        i++;
    }
    assert_int_equal(err.status, 0);
    assert_int_equal(off, n);
    assert_int_equal(last_comp, zn);
    assert_int_equal(vp_source_input_pos(s), zn);
    vp_source_close(s);
    free(z);
    free(text);
}

/* Two (and many) members concatenated decode as one stream, as pigz and
 * parallel gzip write them; members may be tiny or empty. */
static void test_gzip_multi_member(void **state)
{
    size_t n1 = VP_SOURCE_CHUNK + 1000, n2 = 2 * VP_SOURCE_CHUNK + 5;
    char *t1 = make_text(n1, 3), *t2 = make_text(n2, 4);
    size_t z1n, z2n, zen;
    unsigned char *z1 = gzip_member(t1, n1, 1, &z1n);
    unsigned char *z2 = gzip_member(t2, n2, 6, &z2n);
    unsigned char *ze = gzip_member("", 0, 6, &zen);
    vp_buf file = {0}, want = {0};
    drained d;
    (void)state;

    vp_buf_append(&file, z1, z1n);
    vp_buf_append(&file, z2, z2n);
    vp_buf_append(&want, t1, n1);
    vp_buf_append(&want, t2, n2);
    write_file(path_of("two.json.gz"), file.data, file.len);
    drain(path_of("two.json.gz"), &d);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.data.len, want.len);
    assert_memory_equal(d.data.data, want.data, want.len);
    drained_free(&d);

    /* Many small members, with empty ones in between. */
    file.len = want.len = 0;
    for (int i = 0; i < 300; i++) {
        char piece[64];
        int pn = snprintf(piece, sizeof piece, "{\"member\": %d},\n", i);
        size_t zn;
        unsigned char *z = gzip_member(piece, (size_t)pn, i % 10, &zn);
        vp_buf_append(&file, z, zn);
        vp_buf_append(&want, piece, (size_t)pn);
        free(z);
        if (i % 7 == 0)
            vp_buf_append(&file, ze, zen);
    }
    write_file(path_of("many.json.gz"), file.data, file.len);
    drain(path_of("many.json.gz"), &d);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.nchunks, 1);
    assert_int_equal(d.data.len, want.len);
    assert_memory_equal(d.data.data, want.data, want.len);
    drained_free(&d);

    vp_buf_free(&file);
    vp_buf_free(&want);
    free(z1);
    free(z2);
    free(ze);
    free(t1);
    free(t2);
}

/* Trailing NUL bytes (tape blocks, preallocated files) are accepted as
 * gzip does. */
static void test_gzip_nul_padding(void **state)
{
    const char *text = "[{\"ph\": \"X\"}]";
    size_t zn;
    unsigned char *z = gzip_member(text, strlen(text), 6, &zn);
    vp_buf file = {0};
    drained d;
    (void)state;

    vp_buf_append(&file, z, zn);
    for (int i = 0; i < 5000; i++)
        vp_buf_putc(&file, 0);
    write_file(path_of("padded.json.gz"), file.data, file.len);
    drain(path_of("padded.json.gz"), &d);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.data.len, strlen(text));
    assert_memory_equal(d.data.data, text, strlen(text));
    drained_free(&d);

    /* Padding between two members too. */
    vp_buf_append(&file, z, zn);
    write_file(path_of("padded2.json.gz"), file.data, file.len);
    drain(path_of("padded2.json.gz"), &d);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.data.len, 2 * strlen(text));
    drained_free(&d);
    vp_buf_free(&file);
    free(z);
}

static void test_gzip_trailing_garbage(void **state)
{
    const char *text = "[{\"ph\": \"X\"}]";
    size_t zn;
    unsigned char *z = gzip_member(text, strlen(text), 6, &zn);
    vp_buf file = {0};
    drained d;
    char want[512];
    (void)state;

    vp_buf_append(&file, z, zn);
    vp_buf_append(&file, "garbage", 7);
    write_file(path_of("garbage.json.gz"), file.data, file.len);
    drain(path_of("garbage.json.gz"), &d);
    assert_int_equal(d.rc, -1);
    assert_int_equal(d.err.status, 3);
    assert_int_equal(d.truncated, 0);
    snprintf(want, sizeof want,
             "%s: compressed byte %zu: expected another gzip member or the end of the file, "
             "found byte 0x67",
             path_of("garbage.json.gz"), zn);
    assert_string_equal(d.err.msg, want);
    drained_free(&d);

    /* NULs then garbage: still garbage. */
    file.len = zn;
    vp_buf_append(&file, "\0\0\0x", 4);
    write_file(path_of("garbage2.json.gz"), file.data, file.len);
    drain(path_of("garbage2.json.gz"), &d);
    assert_int_equal(d.rc, -1);
    snprintf(want, sizeof want,
             "%s: compressed byte %zu: expected another gzip member or the end of the file, "
             "found byte 0x78",
             path_of("garbage2.json.gz"), zn + 3);
    assert_string_equal(d.err.msg, want);
    drained_free(&d);

    /* A second "member" with a bad header. */
    file.len = zn;
    vp_buf_append(&file, "\x1f\x00\x08\x00\x00\x00\x00\x00\x00\x03", 10);
    write_file(path_of("garbage3.json.gz"), file.data, file.len);
    drain(path_of("garbage3.json.gz"), &d);
    assert_int_equal(d.rc, -1);
    snprintf(want, sizeof want,
             "%s: corrupt gzip stream in the member at compressed byte %zu: invalid gzip header "
             "(after %zu uncompressed bytes)",
             path_of("garbage3.json.gz"), zn, strlen(text));
    assert_string_equal(d.err.msg, want);
    drained_free(&d);
    vp_buf_free(&file);
    free(z);
}

static void test_gzip_bad_crc(void **state)
{
    size_t n = 3 * VP_SOURCE_CHUNK;
    char *text = make_text(n, 5);
    size_t zn;
    unsigned char *z = gzip_member(text, n, 6, &zn);
    drained d;
    char want[512];
    (void)state;

    z[zn - 8] ^= 0x01;   /* the CRC-32 of the trailer */
    write_file(path_of("crc.json.gz"), z, zn);
    drain(path_of("crc.json.gz"), &d);
    assert_int_equal(d.rc, -1);
    assert_int_equal(d.err.status, 3);
    assert_int_equal(d.truncated, 0);
    snprintf(want, sizeof want,
             "%s: corrupt gzip stream in the member at compressed byte 0: CRC-32 check failed "
             "(after %zu uncompressed bytes)",
             path_of("crc.json.gz"), n);
    assert_string_equal(d.err.msg, want);
    /* What came before the check is right. */
    assert_true(d.data.len <= n);
    assert_memory_equal(d.data.data, text, d.data.len);
    drained_free(&d);

    /* Damage inside the deflate data. */
    z[zn - 8] ^= 0x01;
    for (size_t i = 20; i < 60; i++)
        z[i] = 0xff;
    write_file(path_of("bad.json.gz"), z, zn);
    drain(path_of("bad.json.gz"), &d);
    assert_int_equal(d.rc, -1);
    assert_int_equal(d.truncated, 0);
    snprintf(want, sizeof want, "%s: corrupt gzip stream in the member at compressed byte 0: ",
             path_of("bad.json.gz"));
    assert_memory_equal(d.err.msg, want, strlen(want));
    drained_free(&d);
    free(z);
    free(text);
}

/* A gzip file cut short: an error that says so, vp_source_truncated()
 * is 1, and everything inflated before the cut was delivered first. */
static void test_gzip_truncated(void **state)
{
    size_t n = 4 * VP_SOURCE_CHUNK + 99;
    char *text = make_text(n, 6);
    size_t zn;
    unsigned char *z = gzip_member(text, n, 6, &zn);
    drained d;
    char want[512];
    (void)state;

    static const double cuts[] = {0.5, 0.1, 0.9};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        size_t cut = (size_t)((double)zn * cuts[k]);
        write_file(path_of("cut.json.gz"), z, cut);
        drain(path_of("cut.json.gz"), &d);
        assert_int_equal(d.rc, -1);
        assert_int_equal(d.err.status, 3);
        assert_int_equal(d.truncated, 1);
        snprintf(want, sizeof want,
                 "%s: compressed byte %zu: truncated gzip stream: the input ends inside a "
                 "member (after %zu uncompressed bytes)",
                 path_of("cut.json.gz"), cut, d.data.len);
        assert_string_equal(d.err.msg, want);
        /* The data before the cut: a prefix of the original, and nearly
         * all that the compressed bytes held (the text compresses evenly). */
        assert_memory_equal(d.data.data, text, d.data.len);
        assert_true((double)d.data.len > (double)n * cuts[k] * 0.9);
        assert_true(d.data.len < n);
        drained_free(&d);
    }

    /* Cut inside the trailer: every byte was inflated, but the member is
     * not complete. */
    write_file(path_of("cut-trailer.json.gz"), z, zn - 3);
    drain(path_of("cut-trailer.json.gz"), &d);
    assert_int_equal(d.rc, -1);
    assert_int_equal(d.truncated, 1);
    assert_int_equal(d.data.len, n);
    assert_memory_equal(d.data.data, text, n);
    drained_free(&d);

    /* Only the magic, and a header cut short. */
    write_file(path_of("magic.json.gz"), "\x1f\x8b", 2);
    drain(path_of("magic.json.gz"), &d);
    assert_int_equal(d.gzip, 1);
    assert_int_equal(d.rc, -1);
    assert_int_equal(d.truncated, 1);
    assert_int_equal(d.data.len, 0);
    drained_free(&d);
    write_file(path_of("header.json.gz"), z, 7);
    drain(path_of("header.json.gz"), &d);
    assert_int_equal(d.rc, -1);
    assert_int_equal(d.truncated, 1);
    drained_free(&d);

    /* A complete member followed by a cut one. */
    vp_buf file = {0};
    size_t sn;
    unsigned char *small = gzip_member("hello ", 6, 6, &sn);
    vp_buf_append(&file, small, sn);
    vp_buf_append(&file, z, zn / 2);
    write_file(path_of("cut2.json.gz"), file.data, file.len);
    drain(path_of("cut2.json.gz"), &d);
    assert_int_equal(d.rc, -1);
    assert_int_equal(d.truncated, 1);
    assert_memory_equal(d.data.data, "hello ", 6);
    assert_memory_equal(d.data.data + 6, text, d.data.len - 6);
    drained_free(&d);
    vp_buf_free(&file);
    free(small);
    free(z);
    free(text);
}

typedef struct writer_arg {
    int fd;
    const unsigned char *data;
    size_t n;
} writer_arg;

/* Writes the data to a pipe in uneven pieces, the first one a single byte
 * (the source must wait for the second magic byte). */
static void *pipe_writer(void *p)
{
    writer_arg *w = p;
    size_t off = 0, piece = 1;
    while (off < w->n) {
        size_t k = w->n - off < piece ? w->n - off : piece;
        ssize_t r = write(w->fd, w->data + off, k);
        if (r <= 0)
            break;
        off += (size_t)r;
        piece = piece * 7 % 100003 + 1;
    }
    close(w->fd);
    return NULL;
}

/* Reads "-" with standard input replaced by a pipe that a thread fills. */
static void drain_stdin(const void *data, size_t n, drained *d)
{
    int fds[2];
    pthread_t th;
    writer_arg w;
    int saved = dup(STDIN_FILENO);

    assert_true(saved >= 0);
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
    close(fds[0]);
    w.fd = fds[1];
    w.data = data;
    w.n = n;
    assert_int_equal(pthread_create(&th, NULL, pipe_writer, &w), 0);
    vp_error err = {0};
    vp_source *s = vp_source_open("-", &err);
    assert_non_null(s);
    assert_int_equal(vp_source_input_size(s), 0);
    drain_source(s, d);
    vp_source_close(s);
    pthread_join(th, NULL);
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
}

static void test_stdin(void **state)
{
    size_t n = 3 * VP_SOURCE_CHUNK + 17;
    char *text = make_text(n, 7);
    size_t zn;
    unsigned char *z = gzip_member(text, n, 6, &zn);
    drained d;
    uint64_t line, col;
    (void)state;

    drain_stdin(text, n, &d);
    assert_int_equal(d.gzip, 0);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.data.len, n);
    assert_memory_equal(d.data.data, text, n);
    drained_free(&d);

    drain_stdin(z, zn, &d);
    assert_int_equal(d.gzip, 1);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.data.len, n);
    assert_memory_equal(d.data.data, text, n);
    drained_free(&d);

    drain_stdin("", 0, &d);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.data.len, 0);
    drained_free(&d);

    /* Standard input cannot be read twice. */
    assert_int_equal(vp_source_locate("-", 0, &line, &col), -1);
    free(z);
    free(text);
}

static void test_locate(void **state)
{
    /* Lines, and columns counted in characters (UTF-8 sequences). */
    const char *text = "ab\ncd\n\xC3\xA9\xE2\x82\xACxy\n\nz";
    uint64_t line = 0, col = 0;
    (void)state;

    write_file(path_of("locate.json"), text, strlen(text));
    assert_int_equal(vp_source_locate(path_of("locate.json"), 0, &line, &col), 0);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);
    assert_int_equal(vp_source_locate(path_of("locate.json"), 2, &line, &col), 0);
    assert_int_equal(line, 1);
    assert_int_equal(col, 3);
    assert_int_equal(vp_source_locate(path_of("locate.json"), 3, &line, &col), 0);
    assert_int_equal(line, 2);
    assert_int_equal(col, 1);
    assert_int_equal(vp_source_locate(path_of("locate.json"), 11, &line, &col), 0);  /* 'x' */
    assert_int_equal(line, 3);
    assert_int_equal(col, 3);
    assert_int_equal(vp_source_locate(path_of("locate.json"), 15, &line, &col), 0);  /* 'z' */
    assert_int_equal(line, 5);
    assert_int_equal(col, 1);
    /* The end itself is a position; past it is not. */
    assert_int_equal(vp_source_locate(path_of("locate.json"), 16, &line, &col), 0);
    assert_int_equal(line, 5);
    assert_int_equal(col, 2);
    assert_int_equal(vp_source_locate(path_of("locate.json"), 17, &line, &col), -1);
    assert_int_equal(vp_source_locate(path_of("nope.json"), 0, &line, &col), -1);

    /* A long line of 3- and 2-byte characters: columns are counted eight
     * bytes at a time, and every offset here falls at another position
     * of those words, at the start of a character or inside one. */
    char wide[2 + 5 * 10 + 1];
    memcpy(wide, "{\n", 2);
    for (int j = 0; j < 10; j++)
        memcpy(wide + 2 + 5 * j, "\xE2\x82\xAC\xC3\xA9", 5);  /* U+20AC, U+00E9 */
    wide[sizeof wide - 1] = 'x';
    write_file(path_of("locate.json"), wide, sizeof wide);
    for (uint64_t j = 0; j <= 10; j++) {
        /* The euro sign (or the x after the last pair) and its two
         * continuation bytes, then the e-acute and its one. */
        static const uint64_t at[5] = {0, 1, 1, 1, 2};
        for (uint64_t k = 0; k < (j < 10 ? 5u : 1u); k++) {
            uint64_t off = 2 + 5 * j + k;
            assert_int_equal(vp_source_locate(path_of("locate.json"), off, &line, &col), 0);
            assert_int_equal(line, 2);
            assert_int_equal(col, 1 + 2 * j + at[k]);
        }
    }

    /* Across chunks, and through gzip. */
    size_t n = 2 * VP_SOURCE_CHUNK + 10;
    char *big = vp_malloc(n);
    memset(big, 'x', n);
    for (size_t i = 99; i < n; i += 100)
        big[i] = '\n';
    size_t zn;
    unsigned char *z = gzip_member(big, n, 6, &zn);
    write_file(path_of("locate.json.gz"), z, zn);
    uint64_t off = VP_SOURCE_CHUNK + 5;   /* line 10486, column 82 */
    assert_int_equal(vp_source_locate(path_of("locate.json.gz"), off, &line, &col), 0);
    assert_int_equal(line, off / 100 + 1);
    assert_int_equal(col, off % 100 + 1);
    free(z);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_small),
        cmocka_unit_test(test_one_byte),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_plain_large),
        cmocka_unit_test(test_gzip_large),
        cmocka_unit_test(test_gzip_multi_member),
        cmocka_unit_test(test_gzip_nul_padding),
        cmocka_unit_test(test_gzip_trailing_garbage),
        cmocka_unit_test(test_gzip_bad_crc),
        cmocka_unit_test(test_gzip_truncated),
        cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_locate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
