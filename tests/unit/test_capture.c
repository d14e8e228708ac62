/* Unit tests for the CUDA-free parts of `vprof record` (src/capture/):
 * the VPROF_* environment, the capture-range state machine, the bounded
 * buffer pool, the msprof command lines. The record-to-JSON writer has
 * its own file, test_capture_writer.c. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "vprof/capture.h"
#include "vprof/msprof.h"

#include "tmppath.h"

/* An output directory that is only data for the parser and the file namer:
 * nothing is written there. */
#define DATA_DIR "/tmp/prof"  /* test-paths: data */

/* ---- a fake environment ---- */

static const char *table_lookup(void *ctx, const char *name)
{
    const char *const *kv = ctx;
    for (; kv[0]; kv += 2)
        if (strcmp(kv[0], name) == 0)
            return kv[1];
    return NULL;
}

static void test_config_defaults(void **state)
{
    (void)state;
    vp_cap_config c;
    vp_cap_config_init(&c);
    const char *env[] = {NULL};
    vp_error err = {0};
    assert_int_equal(vp_cap_config_from_env(&c, table_lookup, (void *)env, &err), 0);
    assert_string_equal(c.output_dir, ".");
    assert_int_equal(c.kinds, VP_CAP_DEFAULT_KINDS);
    assert_int_equal(c.range, VP_RANGE_ALL);
    assert_int_equal(c.gzip, 1);
    vp_buf b = {0};
    vp_cap_config_to_env(&c, &b);
    assert_string_equal(b.data, "VPROF_OUTPUT_DIR=.\n");
    vp_buf_free(&b);
    vp_cap_kinds_text(c.kinds, &b);
    assert_string_equal(b.data, "kernel,memcpy,memset,sync,runtime,driver,overhead");
    vp_buf_free(&b);
    vp_cap_config_free(&c);
}

static void test_config_round_trip(void **state)
{
    (void)state;
    const char *env[] = {
        "VPROF_OUTPUT_DIR", DATA_DIR, "VPROF_KINDS", "kernel,memcpy,nvtx", "VPROF_CAPTURE_RANGE",
        "nvtx:train step", "VPROF_DELAY", "2.5", "VPROF_DURATION", "250ms", "VPROF_RANKS", "0,3,8-15",
        "VPROF_BUFFER_SIZE", "8M", "VPROF_BUFFER_POOL", "1G", "VPROF_FLUSH_MS", "0", "VPROF_GZIP", "0",
        "VPROF_QUIET", "1", NULL,
    };
    vp_cap_config c;
    vp_cap_config_init(&c);
    vp_error err = {0};
    assert_int_equal(vp_cap_config_from_env(&c, table_lookup, (void *)env, &err), 0);
    assert_string_equal(c.output_dir, DATA_DIR);
    assert_int_equal(c.kinds, VP_CAP_KERNEL | VP_CAP_MEMCPY | VP_CAP_NVTX);
    assert_int_equal(c.range, VP_RANGE_NVTX);
    assert_string_equal(c.range_name, "train step");
    assert_int_equal(c.delay_ns, 2500000000LL);
    assert_int_equal(c.duration_ns, 250000000LL);
    assert_int_equal(c.nranks, 3);
    assert_int_equal(c.rank_lo[2], 8);
    assert_int_equal(c.rank_hi[2], 15);
    assert_int_equal(c.buffer_size, 8u << 20);
    assert_int_equal(c.pool_size, 1u << 30);
    assert_int_equal(c.flush_ms, 0);
    assert_int_equal(c.gzip, 0);
    assert_int_equal(c.quiet, 1);
    vp_buf b = {0};
    vp_cap_config_to_env(&c, &b);
    assert_string_equal(b.data, "VPROF_OUTPUT_DIR=" DATA_DIR "\n"
                                "VPROF_KINDS=kernel,memcpy,nvtx\n"
                                "VPROF_CAPTURE_RANGE=nvtx:train step\n"
                                "VPROF_DELAY=2.5\n"
                                "VPROF_DURATION=0.25\n"
                                "VPROF_RANKS=0,3,8-15\n"
                                "VPROF_BUFFER_SIZE=8M\n"
                                "VPROF_BUFFER_POOL=1G\n"
                                "VPROF_FLUSH_MS=0\n"
                                "VPROF_GZIP=0\n"
                                "VPROF_QUIET=1\n");
    /* What to_env prints, from_env reads back to the same config. */
    vp_cap_config d;
    vp_cap_config_init(&d);
    const char *env2[32];
    int n = 0;
    char *copy = vp_strdup(b.data);
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        *eq = 0;
        env2[n++] = line;
        env2[n++] = eq + 1;
    }
    env2[n] = NULL;
    assert_int_equal(vp_cap_config_from_env(&d, table_lookup, (void *)env2, &err), 0);
    vp_buf b2 = {0};
    vp_cap_config_to_env(&d, &b2);
    assert_string_equal(b.data, b2.data);
    free(copy);
    vp_buf_free(&b);
    vp_buf_free(&b2);
    vp_cap_config_free(&c);
    vp_cap_config_free(&d);
}

static void test_config_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name, *value, *msg;
    } bad[] = {
        {"VPROF_KINDS", "kernel,gpu", "VPROF_KINDS: unknown kind 'gpu'"},
        {"VPROF_CAPTURE_RANGE", "nvtx:", "VPROF_CAPTURE_RANGE: 'nvtx:' is not a capture range"},
        {"VPROF_CAPTURE_RANGE", "cudaprofilerapi", "is not a capture range"},
        {"VPROF_DELAY", "-1", "VPROF_DELAY: '-1' is not a time in seconds"},
        {"VPROF_DELAY", "1h", "is not a time in seconds"},
        {"VPROF_DURATION", ".", "is not a time in seconds"},
        {"VPROF_RANKS", "3-1", "VPROF_RANKS: '3-1' is not a rank list"},
        {"VPROF_RANKS", "0,", "is not a rank list"},
        {"VPROF_BUFFER_SIZE", "1K", "VPROF_BUFFER_SIZE: '1K' is not a size from 64K to 1T"},
        {"VPROF_BUFFER_POOL", "8X", "is not a size"},
        {"VPROF_FLUSH_MS", "-5", "VPROF_FLUSH_MS: '-5' is not milliseconds"},
        {"VPROF_GZIP", "maybe", "VPROF_GZIP: 'maybe' is not 0 or 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *env[] = {bad[i].name, bad[i].value, NULL};
        vp_cap_config c;
        vp_cap_config_init(&c);
        vp_error err = {0};
        assert_int_equal(vp_cap_config_from_env(&c, table_lookup, (void *)env, &err), -1);
        assert_int_equal(err.status, VP_EXIT_USAGE);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("%s=%s: message '%s' lacks '%s'", bad[i].name, bad[i].value, err.msg, bad[i].msg);
        vp_cap_config_free(&c);
    }
}

static void test_seconds_exact(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t ns;
    } ok[] = {
        {"0", 0}, {"10", 10000000000LL}, {"0.1", 100000000}, {"1.000000001", 1000000001},
        {"2s", 2000000000}, {"250ms", 250000000}, {"1.5ms", 1500000}, {".5", 500000000},
        {"0.1234567891", 123456789},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t ns = -1;
        vp_error err = {0};
        assert_int_equal(vp_cap_parse_seconds(ok[i].text, &ns, "t", &err), 0);
        if (ns != ok[i].ns)
            fail_msg("%s: %lld ns, expected %lld", ok[i].text, (long long)ns, (long long)ok[i].ns);
    }
}

static void test_ranks_and_paths(void **state)
{
    (void)state;
    const char *env[] = {"SLURM_PROCID", "5", "OMPI_COMM_WORLD_RANK", "x", "WORLD_SIZE", "16", NULL};
    assert_int_equal(vp_cap_env_rank(table_lookup, (void *)env), 5);  /* an invalid one is skipped */
    assert_int_equal(vp_cap_env_world_size(table_lookup, (void *)env), 16);
    const char *env2[] = {"RANK", "3", "SLURM_PROCID", "5", NULL};
    assert_int_equal(vp_cap_env_rank(table_lookup, (void *)env2), 3);  /* torchrun's first */
    const char *none[] = {NULL};
    assert_int_equal(vp_cap_env_rank(table_lookup, (void *)none), -1);

    vp_cap_config c;
    vp_cap_config_init(&c);
    assert_true(vp_cap_rank_selected(&c, 7));
    vp_error err = {0};
    assert_int_equal(vp_cap_parse_ranks("0,3,8-15", &c, "--ranks", &err), 0);
    assert_true(vp_cap_rank_selected(&c, -1));  /* unknown is rank 0 */
    assert_true(vp_cap_rank_selected(&c, 3));
    assert_false(vp_cap_rank_selected(&c, 4));
    assert_true(vp_cap_rank_selected(&c, 15));
    assert_false(vp_cap_rank_selected(&c, 16));

    vp_buf b = {0};
    free(c.output_dir);
    c.output_dir = vp_strdup(DATA_DIR "//");
    vp_cap_output_path(&c, 3, 4242, &b);
    assert_string_equal(b.data, DATA_DIR "/vprof_rank3_4242.pt.trace.json.gz");
    b.len = 0;
    c.gzip = 0;
    vp_cap_output_path(&c, -1, 7, &b);
    assert_string_equal(b.data, DATA_DIR "/vprof_rank0_7.pt.trace.json");
    vp_buf_free(&b);
    vp_cap_config_free(&c);
}

/* ---- control ---- */

#define S 1000000000LL

static vp_cap_config ctl_config(vp_cap_range range, const char *name, int64_t delay, int64_t duration)
{
    vp_cap_config c;
    vp_cap_config_init(&c);
    c.range = range;
    c.range_name = name ? vp_strdup(name) : NULL;
    c.delay_ns = delay;
    c.duration_ns = duration;
    return c;
}

static void test_ctl_all(void **state)
{
    (void)state;
    vp_cap_config c = ctl_config(VP_RANGE_ALL, NULL, 0, 0);
    vp_cap_ctl ctl;
    assert_int_equal(vp_cap_ctl_init(&ctl, &c, 100 * S), VP_CTL_START);
    assert_true(ctl.capturing);
    assert_int_equal(vp_cap_ctl_deadline(&ctl), INT64_MAX);
    /* Profiler and NVTX events mean nothing to "all". */
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_STOP, 101 * S, 0, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_POP, 101 * S, 1, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_EXIT, 102 * S, 0, 0, NULL), VP_CTL_STOP);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_TICK, 103 * S, 0, 0, NULL), VP_CTL_NONE);
    vp_cap_config_free(&c);
}

static void test_ctl_delay_duration(void **state)
{
    (void)state;
    vp_cap_config c = ctl_config(VP_RANGE_ALL, NULL, 5 * S, 2 * S);
    vp_cap_ctl ctl;
    assert_int_equal(vp_cap_ctl_init(&ctl, &c, 100 * S), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_deadline(&ctl), 105 * S);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_TICK, 105 * S - 1, 0, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_TICK, 105 * S, 0, 0, NULL), VP_CTL_START);
    assert_int_equal(vp_cap_ctl_deadline(&ctl), 107 * S);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_TICK, 106 * S, 0, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_TICK, 107 * S + 3, 0, 0, NULL), VP_CTL_STOP);
    assert_int_equal(vp_cap_ctl_deadline(&ctl), INT64_MAX);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_TICK, 200 * S, 0, 0, NULL), VP_CTL_NONE);
    vp_cap_config_free(&c);
}

static void test_ctl_profiler_api(void **state)
{
    (void)state;
    vp_cap_config c = ctl_config(VP_RANGE_PROFILER_API, NULL, 0, 0);
    vp_cap_ctl ctl;
    assert_int_equal(vp_cap_ctl_init(&ctl, &c, 0), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_STOP, 1, 0, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_START, 2, 0, 0, NULL), VP_CTL_START);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_START, 3, 0, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_STOP, 4, 0, 0, NULL), VP_CTL_STOP);
    /* Every range is captured, as nsys's --capture-range-end=repeat. */
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_START, 5, 0, 0, NULL), VP_CTL_START);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_EXIT, 6, 0, 0, NULL), VP_CTL_STOP);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_START, 7, 0, 0, NULL), VP_CTL_NONE);
    vp_cap_config_free(&c);

    /* With a delay, a range that opened early starts at the deadline; a
     * duration counts from the first start and ends all later ranges. */
    c = ctl_config(VP_RANGE_PROFILER_API, NULL, 10, 5);
    assert_int_equal(vp_cap_ctl_init(&ctl, &c, 0), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_START, 3, 0, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_deadline(&ctl), 10);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_TICK, 10, 0, 0, NULL), VP_CTL_START);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_STOP, 12, 0, 0, NULL), VP_CTL_STOP);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_START, 14, 0, 0, NULL), VP_CTL_START);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_TICK, 15, 0, 0, NULL), VP_CTL_STOP);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_PROFILER_START, 20, 0, 0, NULL), VP_CTL_NONE);
    vp_cap_config_free(&c);
}

static void test_ctl_nvtx(void **state)
{
    (void)state;
    vp_cap_config c = ctl_config(VP_RANGE_NVTX, NULL, 0, 0);
    free(c.range_name);
    c.range_name = vp_strdup("step");
    vp_cap_ctl ctl;
    assert_int_equal(vp_cap_ctl_init(&ctl, &c, 0), VP_CTL_NONE);
    /* Thread 1: outer (other) > step > inner (other). */
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_PUSH, 1, 1, 0, "outer"), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_PUSH, 2, 1, 0, "step"), VP_CTL_START);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_PUSH, 3, 1, 0, "inner"), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_PUSH, 3, 1, 0, NULL), VP_CTL_NONE);
    /* Thread 2 pops what it never pushed: ignored. */
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_POP, 4, 2, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_POP, 5, 1, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_POP, 5, 1, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_POP, 6, 1, 0, NULL), VP_CTL_STOP);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_POP, 7, 1, 0, NULL), VP_CTL_NONE);
    /* Two threads inside "step": capture until both left. */
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_PUSH, 8, 1, 0, "step"), VP_CTL_START);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_PUSH, 9, 2, 0, "step"), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_POP, 10, 1, 0, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_POP, 11, 2, 0, NULL), VP_CTL_STOP);
    /* Start/end ranges, closed by id from any thread. */
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_PUSH, 12, 3, 77, "other"), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_PUSH, 12, 3, 42, "step"), VP_CTL_START);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_END, 13, 4, 77, NULL), VP_CTL_NONE);
    assert_int_equal(vp_cap_ctl_event(&ctl, VP_CTL_NVTX_END, 14, 4, 42, NULL), VP_CTL_STOP);
    assert_int_equal(ctl.overflow, 0);
    vp_cap_config_free(&c);
}

/* ---- pool ---- */

typedef struct consumer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int hold;                  /* the consumer waits while set */
    uint8_t order[64];
    int n;
    int ticks;
} consumer;

static void consume(void *ctx, uint8_t *buf, size_t valid)
{
    consumer *c = ctx;
    pthread_mutex_lock(&c->mu);
    while (c->hold)
        pthread_cond_wait(&c->cv, &c->mu);
    assert_true(valid >= 1);
    c->order[c->n++] = buf[0];
    pthread_mutex_unlock(&c->mu);
}

static void on_tick(void *ctx)
{
    consumer *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->ticks++;
    pthread_mutex_unlock(&c->mu);
}

static void test_pool_bounded(void **state)
{
    (void)state;
    consumer c = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .hold = 1};
    /* 64K buffers, at most 3 (200K / 64K). */
    vp_cap_pool *p = vp_cap_pool_new(65536, 200000, consume, on_tick, &c, 10);
    assert_non_null(p);
    uint8_t *b[4];
    size_t size;
    for (int i = 0; i < 3; i++) {
        b[i] = vp_cap_pool_get(p, &size, 0);
        assert_non_null(b[i]);
        assert_int_equal(size, 65536);
        assert_int_equal((uintptr_t)b[i] % 8, 0);
    }
    /* The bound: refused at once, or after a short wait. */
    assert_null(vp_cap_pool_get(p, &size, 0));
    assert_int_equal(size, 0);
    assert_null(vp_cap_pool_get(p, &size, 20));
    for (int i = 0; i < 3; i++) {
        b[i][0] = (uint8_t)(10 + i);
        vp_cap_pool_put(p, b[i], 100);
    }
    /* Still all taken while the consumer is held. */
    assert_null(vp_cap_pool_get(p, &size, 0));
    pthread_mutex_lock(&c.mu);
    c.hold = 0;
    pthread_cond_broadcast(&c.cv);
    pthread_mutex_unlock(&c.mu);
    vp_cap_pool_drain(p);
    assert_int_equal(c.n, 3);
    assert_int_equal(c.order[0], 10);  /* in the order handed over */
    assert_int_equal(c.order[1], 11);
    assert_int_equal(c.order[2], 12);
    /* Reused, not reallocated; a buffer given back empty is not consumed. */
    b[3] = vp_cap_pool_get(p, &size, 0);
    assert_non_null(b[3]);
    vp_cap_pool_put(p, b[3], 0);
    vp_cap_pool_drain(p);
    vp_cap_pool_stats st;
    vp_cap_pool_stats_get(p, &st);
    assert_int_equal(st.buffers, 3);
    assert_int_equal(st.max_buffers, 3);
    assert_int_equal(st.consumed, 3);
    assert_int_equal(st.refused, 3);
    /* The tick runs while idle. */
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&c.mu);
    assert_true(c.ticks >= 1);
    pthread_mutex_unlock(&c.mu);
    vp_cap_pool_free(p);
}

static void *late_put(void *arg)
{
    void **a = arg;
    struct timespec ts = {0, 30 * 1000000L};
    nanosleep(&ts, NULL);
    vp_cap_pool_put(a[0], a[1], 0);
    return NULL;
}

static void test_pool_wait(void **state)
{
    (void)state;
    consumer c = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    vp_cap_pool *p = vp_cap_pool_new(65536, 0, consume, NULL, &c, 0);  /* at least 2 */
    size_t size;
    uint8_t *x = vp_cap_pool_get(p, &size, 0), *y = vp_cap_pool_get(p, &size, 0);
    assert_non_null(x);
    assert_non_null(y);
    void *args[2] = {p, x};
    pthread_t t;
    pthread_create(&t, NULL, late_put, args);
    /* Old CUPTI cannot take a refusal: the request waits for a buffer. */
    uint8_t *z = vp_cap_pool_get(p, &size, 5000);
    assert_ptr_equal(z, x);
    pthread_join(t, NULL);
    vp_cap_pool_put(p, y, 0);
    vp_cap_pool_put(p, z, 0);
    vp_cap_pool_free(p);
}

/* ---- msprof ---- */

static char *joined(const vp_argv *a)
{
    vp_buf b = {0};
    vp_shell_join(a->v, a->n, &b);
    return b.data;
}

static void expect_msprof(const vp_msprof_opts *o, const char *expected)
{
    char *cmd[] = {"python", "train.py", "--name", "it's a test", NULL};
    vp_argv a = {0};
    vp_msprof_collect_argv(o, "/usr/local/Ascend/bin/msprof", cmd, 4, &a);
    assert_null(a.v[a.n]);
    char *s = joined(&a);
    assert_string_equal(s, expected);
    free(s);
    vp_argv_free(&a);
}

static void test_msprof_options(void **state)
{
    (void)state;
    vp_msprof_opts o = {.output = "/out", .level = -1};
    const char *app = " '--application=python train.py --name '\\''it'\\''\\'\\'''\\''s a test'\\'''";
    vp_buf want = {0};
#define WANT(opts)                                                               \
    do {                                                                         \
        want.len = 0;                                                            \
        vp_buf_printf(&want, "/usr/local/Ascend/bin/msprof --output=/out%s%s", opts, app); \
        expect_msprof(&o, want.data);                                            \
    } while (0)
    WANT("");
    o.level = 0;
    WANT(" --task-time=l0");
    o.level = 1;
    WANT(" --task-time=l1 --ascendcl=on");
    o.level = 2;
    WANT(" --task-time=l1 --ascendcl=on --runtime-api=on --aicpu=on");
    o.task_time = "off";
    WANT(" --task-time=off --ascendcl=on --runtime-api=on --aicpu=on");
    o.level = -1;
    o.task_time = "on";
    WANT(" --task-time=on");
    o.task_time = NULL;
    o.aic_metrics = "MemoryUB";
    WANT(" --ai-core=on --aic-metrics=MemoryUB");
    o.aic_metrics = NULL;
    o.cpu = 1;
    WANT(" --sys-cpu-profiling=on --host-sys=cpu");
    o.memory = 1;
    WANT(" --sys-cpu-profiling=on --sys-hardware-mem=on --host-sys=cpu,mem");
    o.cpu = 0;
    WANT(" --sys-hardware-mem=on --host-sys=mem");
    o.memory = 0;
    char *extra[] = {"--l2=on", "--msproftx=on"};
    o.extra = extra;
    o.nextra = 2;
    WANT(" --l2=on --msproftx=on");
#undef WANT
    vp_buf_free(&want);

    vp_argv a = {0};
    vp_msprof_export_argv("msprof", "/out/PROF_000001_x", &a);
    char *s = joined(&a);
    assert_string_equal(s, "msprof --export=on --output=/out/PROF_000001_x");
    free(s);
    vp_argv_free(&a);
}

static void test_msprof_check(void **state)
{
    (void)state;
    vp_msprof_opts o = {.level = -1, .aic_metrics = "PipeUtilization", .task_time = "l1"};
    vp_error err = {0};
    assert_int_equal(vp_msprof_check(&o, &err), 0);
    o.aic_metrics = "0x49,0x4a";
    assert_int_equal(vp_msprof_check(&o, &err), 0);
    o.aic_metrics = "Pipe";
    assert_int_equal(vp_msprof_check(&o, &err), VP_MSPROF_BAD_AIC_METRICS);
    assert_non_null(strstr(err.msg, "'Pipe' is not one of"));
    assert_null(strstr(err.msg, "--"));
    o.aic_metrics = NULL;
    o.task_time = "l2";
    vp_error e2 = {0};
    assert_int_equal(vp_msprof_check(&o, &e2), VP_MSPROF_BAD_TASK_TIME);
    assert_string_equal(e2.msg, "'l2' is not on, off, l0 or l1");
    o.task_time = NULL;
    o.level = 3;
    vp_error e3 = {0};
    assert_int_equal(vp_msprof_check(&o, &e3), VP_MSPROF_BAD_LEVEL);
    assert_string_equal(e3.msg, "3 is not 0, 1 or 2");
}

static void test_shell_quote(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"plain-word_1.2/x:y,z@h%+=", "plain-word_1.2/x:y,z@h%+="},
        {"", "''"},
        {"a b", "'a b'"},
        {"$HOME", "'$HOME'"},
        {"it's", "'it'\\''s'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vp_buf b = {0};
        vp_shell_quote(cases[i][0], &b);
        assert_string_equal(b.data, cases[i][1]);
        vp_buf_free(&b);
    }
}

static void test_msprof_results(void **state)
{
    (void)state;
    char dir[512];
    assert_non_null(mkdtemp(test_tmp_template(dir, sizeof dir, "vprof-msprof")));
    char p[1024];
    const char *names[] = {"PROF_000002_20260101000000000_B", "PROF_000001_20260101000000000_A", "other"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        assert_int_equal(mkdir(p, 0777), 0);
    }
    snprintf(p, sizeof p, "%s/PROF_000001_20260101000000000_A/mindstudio_profiler_output", dir);
    assert_int_equal(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/PROF_file", dir);
    FILE *f = fopen(p, "w");
    fclose(f);
    vp_argv a = {0};
    vp_msprof_find_results(dir, 0, &a);
    assert_int_equal(a.n, 2);
    assert_non_null(strstr(a.v[0], "PROF_000001"));
    assert_non_null(strstr(a.v[1], "PROF_000002"));
    assert_true(vp_msprof_exported(a.v[0]));
    assert_false(vp_msprof_exported(a.v[1]));
    vp_argv_free(&a);
    vp_msprof_find_results(dir, (long long)time(NULL) + 100, &a);  /* none that new */
    assert_int_equal(a.n, 0);
    vp_argv_free(&a);
    char *found = vp_find_on_path("sh", "/nonexistent:/bin:/usr/bin");
    assert_non_null(found);
    assert_non_null(strstr(found, "/sh"));
    free(found);
    assert_null(vp_find_on_path("no-such-program-vprof", "/bin:/usr/bin"));
    assert_null(vp_find_on_path("sh", NULL));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults),  cmocka_unit_test(test_config_round_trip),
        cmocka_unit_test(test_config_errors),    cmocka_unit_test(test_seconds_exact),
        cmocka_unit_test(test_ranks_and_paths),  cmocka_unit_test(test_ctl_all),
        cmocka_unit_test(test_ctl_delay_duration), cmocka_unit_test(test_ctl_profiler_api),
        cmocka_unit_test(test_ctl_nvtx),         cmocka_unit_test(test_pool_bounded),
        cmocka_unit_test(test_pool_wait),        cmocka_unit_test(test_msprof_options),
        cmocka_unit_test(test_msprof_check),     cmocka_unit_test(test_shell_quote),
        cmocka_unit_test(test_msprof_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
