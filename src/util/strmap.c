/* String-keyed hash map.
 *
 * Entries live in an array in insertion order, which gives the ordered
 * iteration the header promises and keeps the table itself small: the
 * open-addressing table (linear probing, power-of-two size, at most 3/4
 * full) holds only an entry index and 32 bits of the key's hash, so a probe
 * rarely touches an entry whose key does not match.  Keys are copied,
 * NUL-terminated, into an arena of large blocks: one allocation per few
 * thousand kernel names instead of one per name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof/util.h"

#define ARENA_BLOCK (64 * 1024)

typedef struct entry {
    const char *key;
    size_t len;
    uint64_t hash;
    void *value;
} entry;

typedef struct slot {
    uint32_t idx;   /* entry index + 1; 0 marks an empty slot */
    uint32_t tag;   /* high 32 bits of the hash (the index uses the low ones) */
} slot;

typedef struct block {
    struct block *next;
    size_t used, size;
    char data[];
} block;

struct vp_strmap {
    entry *entries;
    size_t count, entries_cap;
    slot *slots;
    size_t mask;        /* slot count - 1 */
    block *blocks;      /* newest first */
};

/* ---- hashing ---------------------------------------------------------
 *
 * Kernel names are long (50-1000 bytes), so the hash reads 8-byte words
 * and runs four independent lanes over 32-byte stripes, letting the CPU
 * overlap the multiplies.  Each lane step is add-multiply-rotate-multiply;
 * the lanes are folded together and the result goes through a
 * multiply-xorshift finaliser so that every input bit reaches the low bits
 * the table index uses.  Words are loaded in host byte order: the values
 * are never stored, only compared within one process. */

#define K1 UINT64_C(0x9e3779b97f4a7c15)
#define K2 UINT64_C(0xc2b2ae3d27d4eb4f)
#define K3 UINT64_C(0x165667b19e3779f9)

static inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t w;

    memcpy(&w, p, sizeof(w));
    return w;
}

static inline uint64_t lane(uint64_t acc, uint64_t w)
{
    return rotl(acc + w * K2, 31) * K1;
}

static inline uint64_t finish(uint64_t h)
{
    h ^= h >> 33;
    h *= K2;
    h ^= h >> 29;
    h *= K3;
    h ^= h >> 32;
    return h;
}

uint64_t vp_hash_bytes(const void *data, size_t n)
{
    const unsigned char *p = data, *end = p + n;
    uint64_t h;

    if (n >= 32) {
        uint64_t a = K1 + K2, b = K2, c = 0, d = -K1;

        do {
            a = lane(a, load64(p));
            b = lane(b, load64(p + 8));
            c = lane(c, load64(p + 16));
            d = lane(d, load64(p + 24));
            p += 32;
        } while (end - p >= 32);
        h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
    } else {
        h = K3;
    }
    h += (uint64_t)n * K1;
    while (end - p >= 8) {
        h = lane(h, load64(p)) + K3;
        p += 8;
    }
    if (p < end) {
        /* The last 1-7 bytes: when the key is long enough, hash the full
         * word ending at its end (one load instead of a byte loop; bytes
         * hashed twice do no harm). */
        uint64_t w = 0;
        size_t rest = (size_t)(end - p);

        if (n >= 8)
            w = load64(end - 8);
        else
            memcpy(&w, p, rest);
        h = lane(h ^ rest, w);
    }
    return finish(h);
}

/* ---- key arena ------------------------------------------------------- */

static const char *arena_copy(vp_strmap *m, const char *key, size_t len)
{
    block *b = m->blocks;
    char *dst;

    if (b == NULL || b->size - b->used < len + 1) {
        /* A key larger than a block gets a block of its own. */
        size_t size = len + 1 > ARENA_BLOCK ? len + 1 : ARENA_BLOCK;

        b = vp_malloc(sizeof(*b) + size);
        b->used = 0;
        b->size = size;
        b->next = m->blocks;
        m->blocks = b;
    }
    dst = b->data + b->used;
    if (len)
        memcpy(dst, key, len);
    dst[len] = '\0';
    b->used += len + 1;
    return dst;
}

/* ---- table ----------------------------------------------------------- */

vp_strmap *vp_strmap_new(void)
{
    vp_strmap *m = vp_calloc(1, sizeof(*m));

    m->mask = 15;
    m->slots = vp_calloc(m->mask + 1, sizeof(*m->slots));
    return m;
}

void vp_strmap_free(vp_strmap *m)
{
    block *b, *next;

    if (m == NULL)
        return;
    for (b = m->blocks; b; b = next) {
        next = b->next;
        free(b);
    }
    free(m->entries);
    free(m->slots);
    free(m);
}

/* Returns the slot holding key, or the empty slot where it would go. */
static slot *find_slot(const vp_strmap *m, const char *key, size_t len, uint64_t hash)
{
    size_t i = (size_t)hash & m->mask;
    uint32_t tag = (uint32_t)(hash >> 32);

    for (;;) {
        slot *s = &m->slots[i];

        if (s->idx == 0)
            return s;
        if (s->tag == tag) {
            const entry *e = &m->entries[s->idx - 1];

            if (e->hash == hash && e->len == len &&
                (len == 0 || memcmp(e->key, key, len) == 0))
                return s;
        }
        i = (i + 1) & m->mask;
    }
}

static void grow_slots(vp_strmap *m)
{
    size_t nslots = (m->mask + 1) * 2, i;

    free(m->slots);
    m->slots = vp_calloc(nslots, sizeof(*m->slots));
    m->mask = nslots - 1;
    /* The stored hashes make rebuilding a matter of re-probing. */
    for (i = 0; i < m->count; i++) {
        const entry *e = &m->entries[i];
        size_t j = (size_t)e->hash & m->mask;

        while (m->slots[j].idx != 0)
            j = (j + 1) & m->mask;
        m->slots[j].idx = (uint32_t)(i + 1);
        m->slots[j].tag = (uint32_t)(e->hash >> 32);
    }
}

void **vp_strmap_upsert(vp_strmap *m, const char *key, size_t len, int *inserted)
{
    uint64_t hash = vp_hash_bytes(key, len);
    slot *s = find_slot(m, key, len, hash);
    entry *e;

    if (s->idx != 0) {
        if (inserted)
            *inserted = 0;
        return &m->entries[s->idx - 1].value;
    }
    if (m->count >= UINT32_MAX - 1) {
        fputs("vprof: out of memory\n", stderr);
        abort();
    }
    if ((m->count + 1) * 4 > (m->mask + 1) * 3) {
        grow_slots(m);
        s = find_slot(m, key, len, hash);
    }
    if (m->count == m->entries_cap) {
        m->entries_cap = m->entries_cap ? m->entries_cap * 2 : 16;
        m->entries = vp_realloc(m->entries, m->entries_cap * sizeof(*m->entries));
    }
    e = &m->entries[m->count++];
    e->key = arena_copy(m, key, len);
    e->len = len;
    e->hash = hash;
    e->value = NULL;
    s->idx = (uint32_t)m->count;
    s->tag = (uint32_t)(hash >> 32);
    if (inserted)
        *inserted = 1;
    return &e->value;
}

void *vp_strmap_get(const vp_strmap *m, const char *key, size_t len)
{
    const slot *s = find_slot(m, key, len, vp_hash_bytes(key, len));

    return s->idx ? m->entries[s->idx - 1].value : NULL;
}

size_t vp_strmap_count(const vp_strmap *m)
{
    return m->count;
}

const char *vp_strmap_key(const vp_strmap *m, size_t i, size_t *len)
{
    if (len)
        *len = m->entries[i].len;
    return m->entries[i].key;
}

void *vp_strmap_value(const vp_strmap *m, size_t i)
{
    return m->entries[i].value;
}
