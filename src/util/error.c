/* Error reporting: library code fills a vp_error, subcommands print it. */
#include <stdio.h>
#include <stdlib.h>

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

static vp_diag_handler handler;

void vp_diag_install(const vp_diag_handler *h)
{
    if (h)
        handler = *h;
    else
        handler = (vp_diag_handler){0};
}

const char *vp_diag_hint_or(vp_hint code, const char *fallback)
{
    const char *t = handler.hint ? handler.hint(handler.ctx, code) : NULL;
    return t ? t : fallback;
}

const char *vp_diag_hint(vp_hint code)
{
    return vp_diag_hint_or(code, "");
}

void vp_warn(const char *fmt, ...)
{
    if (!handler.emit)
        return;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (msg) {
        vsnprintf(msg, (size_t)n + 1, fmt, ap2);
        handler.emit(handler.ctx, VP_DIAG_WARNING, msg);
        free(msg);
    }
    va_end(ap2);
}
