/* Counting the characters of UTF-8 text (vprof/util.h). */
#include <stdint.h>
#include <string.h>

#include "vprof/util.h"

size_t vp_utf8_chars(const char *p, size_t n)
{
    /* Eight bytes at a time: error locations count the characters of a
     * whole line read again, and the fuzz build instruments every
     * comparison of a byte-by-byte loop. */
    size_t cont = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        /* a continuation byte has bit 7 set and bit 6 (shifted onto
         * bit 7) clear */
        cont += (size_t)__builtin_popcountll(w & ~(w << 1) & 0x8080808080808080ULL);
    }
    for (; i < n; i++)
        cont += ((unsigned char)p[i] & 0xC0) == 0x80;
    return n - cont;
}
