/* --seqlens: the real document lengths of packed batches (vprof/mfu.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/mfu.h"

/* Sums the lengths of a --seqlens file: numbers separated by white space
 * or commas, '#' to the end of a line a comment. */
int vp_seqlens_read(const char *path, double *tokens, double *sq_sum, int64_t *docs,
                    vp_error *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    *tokens = *sq_sum = 0;
    *docs = 0;
    char word[32];
    size_t n = 0;
    long line = 1;
    int c, comment = 0, rc = 0;
    do {
        c = getc(f);
        if (c == '#')
            comment = 1;
        if (comment || c == EOF || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
            if (n) {
                word[n] = 0;
                char *e;
                errno = 0;
                long long v = strtoll(word, &e, 10);
                if (*e || errno || v <= 0) {
                    vp_error_set(err, VP_EXIT_INPUT,
                                 "%s:%ld: expected a document length (a positive whole number), "
                                 "found '%s'", path, line, word);
                    rc = -1;
                    break;
                }
                *tokens += (double)v;
                *sq_sum += (double)v * (double)v;
                ++*docs;
                n = 0;
            }
            if (c == '\n') {
                line++;
                comment = 0;
            }
            continue;
        }
        if (n + 1 >= sizeof word) {
            vp_error_set(err, VP_EXIT_INPUT, "%s:%ld: a word too long for a document length",
                         path, line);
            rc = -1;
            break;
        }
        word[n++] = (char)c;
    } while (c != EOF);
    if (rc == 0 && ferror(f)) {
        vp_error_set(err, VP_EXIT_INPUT, "cannot read %s", path);
        rc = -1;
    }
    if (rc == 0 && *docs == 0) {
        vp_error_set(err, VP_EXIT_INPUT, "%s: no document lengths in it", path);
        rc = -1;
    }
    if (f != stdin)
        fclose(f);
    return rc;
}
