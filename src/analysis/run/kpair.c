/* Kernels of two runs matched by name (vprof/kpair.h). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/kpair.h"

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The length of the literal that starts at s[i], 0 when none does. */
static size_t literal_len(const char *s, size_t i)
{
    if (i > 0 && (ident_char(s[i - 1]) || (s[i] == '-' && s[i - 1] == ')')))
        return 0;
    size_t j = i;
    if (s[j] == '-' && isdigit((unsigned char)s[j + 1]))
        j++;
    if (isdigit((unsigned char)s[j])) {
        if (s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X') && isxdigit((unsigned char)s[j + 2])) {
            j += 2;
            while (isxdigit((unsigned char)s[j]))
                j++;
        } else {
            while (isdigit((unsigned char)s[j]))
                j++;
            if (s[j] == '.' && isdigit((unsigned char)s[j + 1]))
                for (j++; isdigit((unsigned char)s[j]); j++)
                    ;
            if ((s[j] == 'e' || s[j] == 'E') &&
                (isdigit((unsigned char)s[j + 1]) ||
                 ((s[j + 1] == '-' || s[j + 1] == '+') && isdigit((unsigned char)s[j + 2]))))
                for (j += 2; isdigit((unsigned char)s[j]); j++)
                    ;
        }
        while (strchr("uUlLfF", s[j]) && s[j])
            j++;
    } else if (strncmp(s + j, "true", 4) == 0) {
        j += 4;
    } else if (strncmp(s + j, "false", 5) == 0) {
        j += 5;
    } else {
        return 0;
    }
    return ident_char(s[j]) ? 0 : j - i;
}

/* The length of the token at s[i] that is not a literal: an identifier
 * (with any digits in it) or one other character. */
static size_t other_len(const char *s, size_t i)
{
    size_t j = i;
    while (ident_char(s[j]))
        j++;
    return j > i ? j - i : 1;
}

void vp_kname_key(const char *name, vp_buf *out)
{
    out->len = 0;
    for (size_t i = 0; name[i];) {
        size_t n = literal_len(name, i);
        if (n) {
            vp_buf_putc(out, '#');
        } else {
            n = other_len(name, i);
            vp_buf_append(out, name + i, n);
        }
        i += n;
    }
    vp_buf_cstr(out);
}

void vp_kname_merged(const char *base, const char *now, vp_buf *out)
{
    out->len = 0;
    size_t i = 0, j = 0;
    while (base[i] && now[j]) {
        size_t a = literal_len(base, i), b = literal_len(now, j);
        if (a && b) {
            vp_buf_append(out, base + i, a);
            if (a != b || memcmp(base + i, now + j, a) != 0) {
                vp_buf_append(out, "->", 2);
                vp_buf_append(out, now + j, b);
            }
        } else if (!a && !b && (a = other_len(base, i)) == (b = other_len(now, j)) &&
                   memcmp(base + i, now + j, a) == 0) {
            vp_buf_append(out, base + i, a);
        } else {
            break;   /* not the same key: never asked for, shown whole below */
        }
        i += a;
        j += b;
    }
    if (base[i] || now[j]) {
        out->len = 0;
        vp_buf_printf(out, "%s -> %s", base, now);
    }
    vp_buf_cstr(out);
}

/* A key's leftover kernels: how many each run has, and the last one's
 * index in that run. */
typedef struct key_group {
    size_t n[2];
    long last[2];
} key_group;

size_t vp_kernel_pairs(const vp_run *base, const vp_run *now, int exact_only, vp_kpair **out,
                       size_t *ambiguous)
{
    const vp_run *runs[2] = {base, now};
    size_t nb = vp_run_nkernels(base), nn = vp_run_nkernels(now), n = 0;
    vp_kpair *p = vp_malloc((nb + nn + 1) * sizeof *p);
    long *match = vp_malloc((nn + 1) * sizeof *match);   /* now's kernel -> its row */
    vp_strmap *names = vp_strmap_new();
    int inserted;
    for (size_t i = 0; i < nn; i++) {
        const vp_kernel_total *k = vp_run_kernel(now, i);
        match[i] = -1;
        if (k->count)
            *vp_strmap_upsert(names, k->name, strlen(k->name), &inserted) = (void *)(uintptr_t)(i + 1);
    }
    for (size_t i = 0; i < nb; i++) {
        const vp_kernel_total *k = vp_run_kernel(base, i);
        if (!k->count)
            continue;
        long j = (long)(uintptr_t)vp_strmap_get(names, k->name, strlen(k->name)) - 1;
        if (j >= 0)
            match[j] = (long)n;
        p[n++] = (vp_kpair){(long)i, j, 0};
    }
    for (size_t i = 0; i < nn; i++)
        if (match[i] < 0 && vp_run_kernel(now, i)->count)
            p[n++] = (vp_kpair){-1, (long)i, 0};
    *ambiguous = 0;
    if (!exact_only) {
        /* group the leftovers (new or gone rows) by key */
        vp_strmap *keys = vp_strmap_new();
        key_group *g = vp_calloc(n + 1, sizeof *g);
        size_t ng = 0;
        long *row_group = vp_malloc((n + 1) * sizeof *row_group);
        vp_buf key = {0};
        for (size_t r = 0; r < n; r++) {
            row_group[r] = -1;
            int side = p[r].base < 0;
            if (p[r].base >= 0 && p[r].now >= 0)
                continue;
            long ki = side ? p[r].now : p[r].base;
            vp_kname_key(vp_run_kernel(runs[side], (size_t)ki)->name, &key);
            void **slot = vp_strmap_upsert(keys, key.data, key.len, &inserted);
            if (inserted)
                *slot = (void *)(uintptr_t)(++ng);
            key_group *kg = &g[(uintptr_t)*slot - 1];
            kg->n[side]++;
            kg->last[side] = ki;
            row_group[r] = (long)(uintptr_t)*slot - 1;
        }
        /* a one-to-one key joins its new row into its gone row */
        size_t kept = 0;
        for (size_t r = 0; r < n; r++) {
            long gi = row_group[r];
            key_group *kg = gi >= 0 ? &g[gi] : NULL;
            if (kg && kg->n[0] && kg->n[1] && (kg->n[0] > 1 || kg->n[1] > 1))
                ++*ambiguous;
            if (kg && kg->n[0] == 1 && kg->n[1] == 1) {
                if (p[r].base < 0)
                    continue;   /* joined into its gone row */
                p[r].now = kg->last[1];
                p[r].paired = 1;
            }
            p[kept++] = p[r];
        }
        n = kept;
        vp_buf_free(&key);
        free(row_group);
        free(g);
        vp_strmap_free(keys);
    }
    free(match);
    vp_strmap_free(names);
    *out = p;
    return n;
}
