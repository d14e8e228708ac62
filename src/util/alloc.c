/* Checked allocation.  Running out of memory is not something a profile
 * reader can recover from meaningfully, so every allocation either
 * succeeds or ends the process with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/util.h"

static void oom(void)
{
    fputs("vprof: out of memory\n", stderr);
    abort();
}

void *vp_malloc(size_t n)
{
    /* malloc(0) may return NULL legitimately; ask for one byte so that
     * NULL always means failure. */
    void *p = malloc(n ? n : 1);

    if (p == NULL)
        oom();
    return p;
}

void *vp_calloc(size_t count, size_t size)
{
    void *p;

    if (count == 0 || size == 0)
        count = size = 1;
    p = calloc(count, size);
    if (p == NULL)
        oom();
    return p;
}

void *vp_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);

    if (q == NULL)
        oom();
    return q;
}

char *vp_strndup(const char *s, size_t n)
{
    char *d = vp_malloc(n + 1);

    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *vp_strdup(const char *s)
{
    return vp_strndup(s, strlen(s));
}
