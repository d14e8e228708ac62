/* Bounded activity-buffer pool and its consumer thread (see
 * vprof/capture.h).
 *
 * CUPTI asks for an empty buffer on whatever thread fills one, and hands a
 * full one back on its own worker thread; neither may wait for us to turn
 * records into JSON. So the hand-back only queues the buffer, the pool's
 * thread decodes it, and the request takes a free buffer or, when the
 * bound is reached, refuses: CUPTI then drops records and counts them,
 * which the trace reports. The workload never waits and memory never
 * exceeds the bound. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vprof/capture.h"

typedef struct full_buf {
    uint8_t *buf;
    size_t valid;
} full_buf;

struct vp_cap_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;       /* the thread: a buffer queued, or stop */
    pthread_cond_t idle;       /* drainers: the queue emptied */
    pthread_cond_t freed;      /* a buffer came back to the free list */
    pthread_t thread;
    size_t buf_size, max_buffers;
    uint8_t **free_list;       /* buffers ready for CUPTI */
    size_t nfree;
    full_buf *queue;           /* ring of full buffers, max_buffers slots */
    size_t head, count;
    size_t allocated;
    int busy;                  /* the thread is consuming a buffer */
    int stop;
    uint64_t consumed, refused;
    vp_cap_consume_fn consume;
    vp_cap_tick_fn tick;
    void *ctx;
    int tick_ms;
};

static void deadline_in(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void *run(void *arg)
{
    vp_cap_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->count == 0) {
            if (p->stop)
                break;
            struct timespec ts;
            deadline_in(&ts, p->tick_ms);
            int r = pthread_cond_timedwait(&p->wake, &p->mu, &ts);
            if (r == ETIMEDOUT && p->tick) {
                pthread_mutex_unlock(&p->mu);
                p->tick(p->ctx);
                pthread_mutex_lock(&p->mu);
            }
            continue;
        }
        full_buf fb = p->queue[p->head];
        p->head = (p->head + 1) % p->max_buffers;
        p->count--;
        p->busy = 1;
        pthread_mutex_unlock(&p->mu);
        p->consume(p->ctx, fb.buf, fb.valid);
        /* A steady stream of buffers must not starve the deadlines. */
        if (p->tick)
            p->tick(p->ctx);
        pthread_mutex_lock(&p->mu);
        p->busy = 0;
        p->consumed++;
        p->free_list[p->nfree++] = fb.buf;
        pthread_cond_signal(&p->freed);
        if (p->count == 0)
            pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* What vp_cap_pool_new made, once its thread is gone (or never ran). */
static void pool_destroy(vp_cap_pool *p)
{
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->freed);
    free(p->free_list);
    free(p->queue);
    free(p);
}

vp_cap_pool *vp_cap_pool_new(size_t buf_size, size_t max_bytes, vp_cap_consume_fn consume,
                             vp_cap_tick_fn tick, void *ctx, int tick_ms)
{
    vp_cap_pool *p = vp_calloc(1, sizeof *p);
    p->buf_size = (buf_size + 7) & ~(size_t)7;
    p->max_buffers = max_bytes / p->buf_size;
    if (p->max_buffers < 2)
        p->max_buffers = 2;
    p->free_list = vp_calloc(p->max_buffers, sizeof *p->free_list);
    p->queue = vp_calloc(p->max_buffers, sizeof *p->queue);
    p->consume = consume;
    p->tick = tick;
    p->ctx = ctx;
    p->tick_ms = tick_ms > 0 ? tick_ms : 100;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->idle, NULL);
    pthread_cond_init(&p->freed, NULL);
    /* The thread must not take the workload's signals (SIGINT to Python's
     * main thread, SIGPROF to a sampler): block them all in it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int r = pthread_create(&p->thread, NULL, run, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        pool_destroy(p);
        return NULL;
    }
    return p;
}

uint8_t *vp_cap_pool_get(vp_cap_pool *p, size_t *size, int wait_ms)
{
    uint8_t *b = NULL;
    struct timespec until;
    if (wait_ms > 0)
        deadline_in(&until, wait_ms);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->nfree > 0) {
            b = p->free_list[--p->nfree];
        } else if (p->allocated < p->max_buffers) {
            /* malloc's alignment (16 on x86-64 and aarch64) covers CUPTI's 8. */
            b = malloc(p->buf_size);
            if (b)
                p->allocated++;
        }
        if (b || wait_ms <= 0 || pthread_cond_timedwait(&p->freed, &p->mu, &until) == ETIMEDOUT)
            break;
    }
    if (!b)
        p->refused++;
    pthread_mutex_unlock(&p->mu);
    *size = b ? p->buf_size : 0;
    return b;
}

void vp_cap_pool_put(vp_cap_pool *p, uint8_t *buf, size_t valid)
{
    if (!buf)
        return;
    pthread_mutex_lock(&p->mu);
    if (valid == 0) {
        p->free_list[p->nfree++] = buf;
        pthread_cond_signal(&p->freed);
    } else {
        /* Every buffer is either free, with CUPTI or queued, so the ring of
         * max_buffers slots cannot overflow. */
        p->queue[(p->head + p->count) % p->max_buffers] = (full_buf){buf, valid};
        p->count++;
        pthread_cond_signal(&p->wake);
    }
    pthread_mutex_unlock(&p->mu);
}

void vp_cap_pool_drain(vp_cap_pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->count > 0 || p->busy)
        pthread_cond_wait(&p->idle, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void vp_cap_pool_stats_get(vp_cap_pool *p, vp_cap_pool_stats *st)
{
    pthread_mutex_lock(&p->mu);
    st->buffers = p->allocated;
    st->max_buffers = p->max_buffers;
    st->consumed = p->consumed;
    st->refused = p->refused;
    pthread_mutex_unlock(&p->mu);
}

void vp_cap_pool_free(vp_cap_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    for (size_t i = 0; i < p->nfree; i++)
        free(p->free_list[i]);
    /* Buffers still with CUPTI are CUPTI's to give back; after the final
     * flush there are none. */
    pool_destroy(p);
}
