/* Errors and exit statuses shared by every module and subcommand.
 *
 * A library function that can fail takes a vp_error * and returns non-zero
 * on failure, having filled it; only the subcommand decides to print and
 * exit.  Messages never end in a newline and never start with "vprof: ". */
#ifndef VPROF_ERROR_H
#define VPROF_ERROR_H

#include <stdarg.h>

enum {
    VP_EXIT_OK = 0,     /* success */
    VP_EXIT_GATE = 1,   /* a diff/check threshold failed */
    VP_EXIT_USAGE = 2,  /* bad command line */
    VP_EXIT_INPUT = 3,  /* unreadable or invalid input */
};

typedef struct vp_error {
    int status;         /* one of VP_EXIT_*, 0 while no error is set */
    char msg[1024];
} vp_error;

/* Sets the error unless one is already set: the first cause wins, since
 * later failures are usually consequences of it. */
void vp_error_set(vp_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vp_error_vset(vp_error *err, int status, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Prints "vprof: <msg>" to stderr. */
void vp_error_print(const vp_error *err);

/* "vprof: warning: ..." on stderr (suppressed by vp_quiet). */
extern int vp_quiet;
void vp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
