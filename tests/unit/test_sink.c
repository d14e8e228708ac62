/* Unit tests for src/io/sink.c: plain and gzip output, the temporary name
 * and rename, marks and rewinds, standard output and special files. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "vprof/sink.h"
#include "vprof/util.h"

#include "tmppath.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-sink")) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0)))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return 0;
}

static int entries(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    vp_buf b = {0};
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        vp_buf_append(&b, tmp, n);
    fclose(f);
    *len = b.len;
    vp_buf_cstr(&b);
    return b.data;
}

/* Inflates a whole gzip file with zlib, which checks the CRC and size in
 * the trailer; fails the test when the stream is not one valid member. */
static char *gunzip(const char *path, size_t *len)
{
    size_t clen;
    char *comp = slurp(path, &clen);
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK);
    vp_buf out = {0};
    z.next_in = (Bytef *)comp;
    z.avail_in = (uInt)clen;
    int r;
    do {
        vp_buf_reserve(&out, 1 << 20);
        z.next_out = (Bytef *)out.data + out.len;
        z.avail_out = (uInt)(out.cap - out.len - 1);
        r = inflate(&z, Z_NO_FLUSH);
        out.len = out.cap - 1 - z.avail_out;
        assert_true(r == Z_OK || r == Z_STREAM_END);
    } while (r != Z_STREAM_END);
    assert_int_equal(z.avail_in, 0);  /* nothing after the member */
    inflateEnd(&z);
    free(comp);
    *len = out.len;
    vp_buf_cstr(&out);
    return out.data;
}

static void fill(char *p, size_t n, unsigned seed)
{
    /* Compressible but not trivial: JSON-ish text with varying digits. */
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (i % 61 == 60) ? '\n' : "{\"ts\": 0123456789,}"[(seed >> 16) % 19];
    }
}

static void test_plain_roundtrip(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/out.json", dir);
    vp_error err = {0};
    vp_sink_opts o = {0};
    vp_sink *s = vp_sink_open(path, &o, &err);
    assert_non_null(s);
    assert_true(vp_sink_can_rewind(s));
    assert_string_equal(vp_sink_compressor(s), "none");
    /* Nothing under the real name until the end; the temporary is beside it. */
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(entries(), 1);
    vp_sink_puts(s, "hello ");
    vp_sink_printf(s, "%d %s", 42, "world");
    size_t big = 3u << 20;  /* larger than the buffer: the direct path */
    char *data = vp_malloc(big);
    fill(data, big, 7);
    vp_sink_write(s, data, big);
    assert_int_equal(vp_sink_bytes(s), 14 + big);
    assert_int_equal(vp_sink_close(s, &err), 0);
    size_t n;
    char *got = slurp(path, &n);
    assert_int_equal(n, 14 + big);
    assert_memory_equal(got, "hello 42 world", 14);
    assert_memory_equal(got + 14, data, big);
    assert_int_equal(entries(), 1);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_mode & S_IRUSR);
    free(got);
    free(data);
}

static void test_gzip_levels(void **state)
{
    (void)state;
    size_t len = (5u << 20) + 333;
    char *data = vp_malloc(len);
    fill(data, len, 3);
    for (int level = 0; level <= 9; level++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/l%d.json.gz", dir, level);
        vp_error err = {0};
        vp_sink_opts o = {.gzip = 1, .level = level};
        vp_sink *s = vp_sink_open(path, &o, &err);
        assert_non_null(s);
        /* in pieces of assorted sizes */
        size_t off = 0, step = 1;
        while (off < len) {
            size_t k = step < len - off ? step : len - off;
            vp_sink_write(s, data + off, k);
            off += k;
            step = step * 7 % 1500007 + 1;
        }
        assert_int_equal(vp_sink_close(s, &err), 0);
        size_t n;
        char *got = gunzip(path, &n);
        assert_int_equal(n, len);
        assert_memory_equal(got, data, len);
        free(got);
        unlink(path);
    }
    free(data);
}

static void test_gzip_empty(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/empty.gz", dir);
    vp_error err = {0};
    vp_sink_opts o = {.gzip = 1, .level = VP_SINK_DEFAULT_LEVEL};
    vp_sink *s = vp_sink_open(path, &o, &err);
    assert_non_null(s);
    assert_int_equal(vp_sink_close(s, &err), 0);
    size_t n;
    char *got = gunzip(path, &n);
    assert_int_equal(n, 0);
    free(got);
}

static void rewind_case(int gzip)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/rw.json%s", dir, gzip ? ".gz" : "");
    size_t len = 2u << 20;
    char *a = vp_malloc(len), *b = vp_malloc(len), *c = vp_malloc(len);
    fill(a, len, 1);
    fill(b, len, 2);
    fill(c, len, 3);
    vp_error err = {0};
    vp_sink_opts o = {.gzip = gzip, .level = 1};
    vp_sink *s = vp_sink_open(path, &o, &err);
    assert_non_null(s);
    vp_sink_write(s, a, len - 5);
    vp_sink_mark m;
    assert_int_equal(vp_sink_mark_here(s, &m, &err), 0);
    assert_int_equal(m.bytes, len - 5);
    vp_sink_write(s, b, len);
    /* Rewind twice to the same mark, with a mark taken in between. */
    assert_int_equal(vp_sink_rewind(s, &m, &err), 0);
    assert_int_equal(vp_sink_bytes(s), len - 5);
    vp_sink_write(s, b, 1000);
    vp_sink_mark m2;
    assert_int_equal(vp_sink_mark_here(s, &m2, &err), 0);
    assert_int_equal(vp_sink_rewind(s, &m, &err), 0);
    vp_sink_write(s, c, len);
    assert_int_equal(vp_sink_close(s, &err), 0);
    size_t n;
    char *got = gzip ? gunzip(path, &n) : slurp(path, &n);
    assert_int_equal(n, 2 * len - 5);
    assert_memory_equal(got, a, len - 5);
    assert_memory_equal(got + len - 5, c, len);
    free(got);
    free(a);
    free(b);
    free(c);
    unlink(path);
}

static void test_rewind_plain(void **state)
{
    (void)state;
    rewind_case(0);
}

static void test_rewind_gzip(void **state)
{
    (void)state;
    rewind_case(1);
}

/* Every member of a multi-member gzip file, decompressed one after the other. */
static char *gunzip_all(const char *path, size_t *len)
{
    size_t clen;
    char *comp = slurp(path, &clen);
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK);
    vp_buf out = {0};
    z.next_in = (Bytef *)comp;
    z.avail_in = (uInt)clen;
    for (;;) {
        vp_buf_reserve(&out, 1 << 20);
        z.next_out = (Bytef *)out.data + out.len;
        z.avail_out = (uInt)(out.cap - out.len - 1);
        int r = inflate(&z, Z_NO_FLUSH);
        out.len = out.cap - 1 - z.avail_out;
        assert_true(r == Z_OK || r == Z_STREAM_END);
        if (r == Z_STREAM_END) {
            if (z.avail_in == 0)
                break;
            assert_int_equal(inflateReset(&z), Z_OK);
        }
    }
    inflateEnd(&z);
    free(comp);
    *len = out.len;
    vp_buf_cstr(&out);
    return out.data;
}

/* A part written into a file descriptor, appended as a gzip member of its
 * own between two members of the sink; a rewind to the start of a member
 * gives the bytes of a part written once. */
static void test_gzip_members(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/members.json.gz", dir);
    size_t na = 300000, nb = 500000, nc = 1000;
    char *a = vp_malloc(na), *b = vp_malloc(nb), *c = vp_malloc(nc);
    fill(a, na, 1);
    fill(b, nb, 2);
    fill(c, nc, 3);
    vp_sink_opts so = {.gzip = 1, .level = 1};
    vp_error err = {0};
    int fds[2];
    off_t lens[2];
    for (int k = 0; k < 2; k++) {
        FILE *f = tmpfile();
        assert_non_null(f);
        fds[k] = dup(fileno(f));
        fclose(f);
        vp_sink *p = vp_sink_open_fd(fds[k], "part", &so, &err);
        assert_non_null(p);
        if (k == 1) {
            vp_sink_mark m;
            assert_int_equal(vp_sink_mark_here(p, &m, &err), 0);
            vp_sink_write(p, c, nc);
            vp_sink_write(p, a, na);
            assert_int_equal(vp_sink_rewind(p, &m, &err), 0);
        }
        vp_sink_write(p, b, nb);
        assert_int_equal(vp_sink_bytes(p), nb);
        assert_int_equal(vp_sink_close(p, &err), 0);
        struct stat sb;
        assert_int_equal(fstat(fds[k], &sb), 0);
        lens[k] = sb.st_size;
    }
    assert_int_equal(lens[0], lens[1]);
    char *p0 = vp_malloc((size_t)lens[0]), *p1 = vp_malloc((size_t)lens[1]);
    assert_int_equal(pread(fds[0], p0, (size_t)lens[0], 0), lens[0]);
    assert_int_equal(pread(fds[1], p1, (size_t)lens[1], 0), lens[1]);
    assert_memory_equal(p0, p1, (size_t)lens[0]);

    vp_sink *s = vp_sink_open(path, &so, &err);
    assert_non_null(s);
    vp_sink_write(s, a, na);
    assert_int_equal(vp_sink_append(s, fds[0], (uint64_t)lens[0], nb), 0);
    vp_sink_write(s, c, nc);
    assert_int_equal(vp_sink_bytes(s), na + nb + nc);
    assert_int_equal(vp_sink_close(s, &err), 0);
    size_t n;
    char *got = gunzip_all(path, &n);
    assert_int_equal(n, na + nb + nc);
    assert_memory_equal(got, a, na);
    assert_memory_equal(got + na, b, nb);
    assert_memory_equal(got + na + nb, c, nc);
    free(got);
    free(p0);
    free(p1);
    close(fds[0]);
    close(fds[1]);
    free(a);
    free(b);
    free(c);
}

static void test_abort_leaves_nothing(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/keep.json", dir);
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    int before = entries();
    vp_error err = {0};
    vp_sink_opts o = {.gzip = 1, .level = 1};
    vp_sink *s = vp_sink_open(path, &o, &err);
    assert_non_null(s);
    vp_sink_puts(s, "new content");
    assert_int_equal(entries(), before + 1);
    vp_sink_abort(s);
    assert_int_equal(entries(), before);
    size_t n;
    char *got = slurp(path, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(got, "old", 3);  /* the old file is untouched */
    free(got);
    vp_sink_abort(NULL);
}

static void test_special_file(void **state)
{
    (void)state;
    vp_error err = {0};
    vp_sink_opts o = {0};
    vp_sink *s = vp_sink_open("/dev/null", &o, &err);
    assert_non_null(s);
    assert_false(vp_sink_can_rewind(s));
    vp_sink_puts(s, "x");
    vp_sink_mark m;
    assert_int_equal(vp_sink_mark_here(s, &m, &err), 0);
    assert_int_equal(vp_sink_rewind(s, &m, &err), -1);
    assert_int_equal(err.status, 3);
    vp_error err2 = {0};
    assert_int_equal(vp_sink_close(s, &err2), 0);
    struct stat sb;
    assert_int_equal(stat("/dev/null", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));  /* written in place, not replaced */
}

static void test_open_errors(void **state)
{
    (void)state;
    vp_error err = {0};
    vp_sink_opts o = {0};
    assert_null(vp_sink_open("/nonexistent-dir-vprof/x.json", &o, &err));
    assert_int_equal(err.status, 3);
    assert_non_null(strstr(err.msg, "/nonexistent-dir-vprof/x.json"));
    vp_error err2 = {0};
    assert_null(vp_sink_open(dir, &o, &err2));
    assert_non_null(strstr(err2.msg, "directory"));
}

static void test_stdout(void **state)
{
    (void)state;
    vp_error err = {0};
    vp_sink_opts o = {0};
    vp_sink *s = vp_sink_open("-", &o, &err);
    assert_non_null(s);
    assert_string_equal(vp_sink_name(s), "standard output");
    assert_false(vp_sink_can_rewind(s));
    assert_int_equal(vp_sink_close(s, &err), 0);
}

/* The crc32 instruction's hash of a 32-bit value (CRC-32C, no inversion),
 * as ISA-L's deflate computes its hash slots. */
static uint32_t isal_hash(uint32_t v)
{
    uint32_t c = 0;
    for (int k = 0; k < 4; k++) {
        c ^= (v >> (8 * k)) & 0xff;
        for (int b = 0; b < 8; b++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return c;
}

/* One gzip member of data, compressed with the deflate state at st. */
static char *gzip_with_state_at(void *st, const char *data, size_t n, size_t *len)
{
    vp_sink_opts so = {.gzip = 1, .level = 1, .deflate_state = st};
    vp_error err = {0};
    FILE *f = tmpfile();
    assert_non_null(f);
    vp_sink *s = vp_sink_open_fd(fileno(f), "member", &so, &err);
    assert_non_null(s);
    vp_sink_write(s, data, n);
    assert_int_equal(vp_sink_close(s, &err), 0);
    struct stat sb;
    assert_int_equal(fstat(fileno(f), &sb), 0);
    char *out = vp_malloc((size_t)sb.st_size);
    assert_int_equal(pread(fileno(f), out, (size_t)sb.st_size, 0), sb.st_size);
    fclose(f);
    *len = (size_t)sb.st_size;
    return out;
}

/* ISA-L 2.30 hashed a stream's third byte from the address of its state
 * (sink.c, ISAL_PRIME): where that slot was the first byte's, the next
 * line's match to it was missed.  The same member with the state at 8
 * addresses whose slot is that one (as ISA-L masks it for a member this
 * small) and at 8 others: the same bytes. */
static void test_gzip_any_address(void **state)
{
    (void)state;
    size_t size = vp_sink_deflate_state_size();
    if (!size)
        skip(); /* zlib */
    char data[400];
    size_t n = 0;
    for (int i = 0; i < 3; i++)
        n += (size_t)snprintf(data + n, sizeof data - n,
                              "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, "
                              "\"tid\": 7, \"ts\": %d, \"dur\": 5},\n", i, 1000 + 10 * i);
    uint32_t v, mask = 8191;
    memcpy(&v, data, 4);
    while (mask > 2 * n)
        mask >>= 1;
    uint32_t slot = isal_hash(v) & mask;
    size_t span = (size_t)8192 << 16;
    char *region = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(region != MAP_FAILED);
    uintptr_t w = ((uintptr_t)region + 0xffff) & ~(uintptr_t)0xffff;
    char *first = NULL;
    size_t first_len = 0;
    int colliding = 0, other = 0;
    for (uintptr_t a = w; a + size < (uintptr_t)region + span && (colliding < 8 || other < 8);
         a += 0x10000) {
        int hit = (isal_hash((uint32_t)(a >> 16)) & mask) == slot;
        if (hit ? colliding >= 8 : other >= 8)
            continue;
        assert_int_equal(mprotect((void *)a, size, PROT_READ | PROT_WRITE), 0);
        size_t len;
        char *got = gzip_with_state_at((void *)a, data, n, &len);
        /* zeroed again (the next state may overlap it) and shut */
        assert_int_equal(madvise((void *)a, size, MADV_DONTNEED), 0);
        assert_int_equal(mprotect((void *)a, size, PROT_NONE), 0);
        if (!first) {
            first = got;
            first_len = len;
        } else {
            assert_int_equal(len, first_len);
            assert_memory_equal(got, first, len);
            free(got);
        }
        colliding += hit;
        other += !hit;
    }
    assert_int_equal(colliding, 8);
    assert_int_equal(other, 8);
    free(first);
    munmap(region, span);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_roundtrip),
        cmocka_unit_test(test_gzip_levels),
        cmocka_unit_test(test_gzip_empty),
        cmocka_unit_test(test_rewind_plain),
        cmocka_unit_test(test_rewind_gzip),
        cmocka_unit_test(test_gzip_members),
        cmocka_unit_test(test_gzip_any_address),
        cmocka_unit_test(test_abort_leaves_nothing),
        cmocka_unit_test(test_special_file),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_stdout),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
