/* Error reporting: library code fills a vp_error, subcommands print it. */
#include <stdio.h>

#include "vprof/error.h"

int vp_quiet;

void vp_error_vset(vp_error *err, int status, const char *fmt, va_list ap)
{
    if (err == NULL || err->status != 0)
        return;
    /* A zero status would read as "no error"; callers that pass it still
     * mean failure, and bad input is the likeliest. */
    err->status = status != 0 ? status : VP_EXIT_INPUT;
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

void vp_error_set(vp_error *err, int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vp_error_vset(err, status, fmt, ap);
    va_end(ap);
}

void vp_error_print(const vp_error *err)
{
    fprintf(stderr, "vprof: %s\n", err->msg);
}

void vp_warn(const char *fmt, ...)
{
    va_list ap;

    if (vp_quiet)
        return;
    fputs("vprof: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
