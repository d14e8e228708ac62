/* A pickle decoder for data only (see include/input/vprof/pickle.h).
 *
 * The decoder is a loop over opcodes with a value stack and a mark stack,
 * as pickle's own machine is, but it knows no opcode that can name a class
 * or call anything.  Values are 16-byte structs; containers are arena
 * headers whose item arrays grow in the arena while small and on the heap
 * when large (a device trace list can hold millions of entries), so the
 * whole tree is freed in a few calls. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vprof/pickle.h"
#include "vprof/util.h"

/* Opcodes of pickle protocols 0-5, by their names in pickletools. */
enum {
    OP_MARK = '(', OP_STOP = '.', OP_POP = '0', OP_POP_MARK = '1', OP_DUP = '2',
    OP_FLOAT = 'F', OP_INT = 'I', OP_BININT = 'J', OP_BININT1 = 'K', OP_LONG = 'L',
    OP_BININT2 = 'M', OP_NONE = 'N', OP_PERSID = 'P', OP_BINPERSID = 'Q', OP_REDUCE = 'R',
    OP_STRING = 'S', OP_BINSTRING = 'T', OP_SHORT_BINSTRING = 'U', OP_UNICODE = 'V',
    OP_BINUNICODE = 'X', OP_APPEND = 'a', OP_BUILD = 'b', OP_GLOBAL = 'c', OP_DICT = 'd',
    OP_EMPTY_DICT = '}', OP_APPENDS = 'e', OP_GET = 'g', OP_BINGET = 'h', OP_INST = 'i',
    OP_LONG_BINGET = 'j', OP_LIST = 'l', OP_EMPTY_LIST = ']', OP_OBJ = 'o', OP_PUT = 'p',
    OP_BINPUT = 'q', OP_LONG_BINPUT = 'r', OP_SETITEM = 's', OP_TUPLE = 't',
    OP_EMPTY_TUPLE = ')', OP_SETITEMS = 'u', OP_BINFLOAT = 'G',
    OP_PROTO = 0x80, OP_NEWOBJ = 0x81, OP_EXT1 = 0x82, OP_EXT2 = 0x83, OP_EXT4 = 0x84,
    OP_TUPLE1 = 0x85, OP_TUPLE2 = 0x86, OP_TUPLE3 = 0x87, OP_NEWTRUE = 0x88,
    OP_NEWFALSE = 0x89, OP_LONG1 = 0x8a, OP_LONG4 = 0x8b,
    OP_BINBYTES = 'B', OP_SHORT_BINBYTES = 'C',
    OP_SHORT_BINUNICODE = 0x8c, OP_BINUNICODE8 = 0x8d, OP_BINBYTES8 = 0x8e,
    OP_EMPTY_SET = 0x8f, OP_ADDITEMS = 0x90, OP_FROZENSET = 0x91, OP_NEWOBJ_EX = 0x92,
    OP_STACK_GLOBAL = 0x93, OP_MEMOIZE = 0x94, OP_FRAME = 0x95,
    OP_BYTEARRAY8 = 0x96, OP_NEXT_BUFFER = 0x97, OP_READONLY_BUFFER = 0x98,
};

static const struct { uint8_t op; const char *name; } opnames[] = {
    {OP_MARK, "MARK"}, {OP_STOP, "STOP"}, {OP_POP, "POP"}, {OP_POP_MARK, "POP_MARK"},
    {OP_DUP, "DUP"}, {OP_FLOAT, "FLOAT"}, {OP_INT, "INT"}, {OP_BININT, "BININT"},
    {OP_BININT1, "BININT1"}, {OP_LONG, "LONG"}, {OP_BININT2, "BININT2"}, {OP_NONE, "NONE"},
    {OP_PERSID, "PERSID"}, {OP_BINPERSID, "BINPERSID"}, {OP_REDUCE, "REDUCE"},
    {OP_STRING, "STRING"}, {OP_BINSTRING, "BINSTRING"}, {OP_SHORT_BINSTRING, "SHORT_BINSTRING"},
    {OP_UNICODE, "UNICODE"}, {OP_BINUNICODE, "BINUNICODE"}, {OP_APPEND, "APPEND"},
    {OP_BUILD, "BUILD"}, {OP_GLOBAL, "GLOBAL"}, {OP_DICT, "DICT"}, {OP_EMPTY_DICT, "EMPTY_DICT"},
    {OP_APPENDS, "APPENDS"}, {OP_GET, "GET"}, {OP_BINGET, "BINGET"}, {OP_INST, "INST"},
    {OP_LONG_BINGET, "LONG_BINGET"}, {OP_LIST, "LIST"}, {OP_EMPTY_LIST, "EMPTY_LIST"},
    {OP_OBJ, "OBJ"}, {OP_PUT, "PUT"}, {OP_BINPUT, "BINPUT"}, {OP_LONG_BINPUT, "LONG_BINPUT"},
    {OP_SETITEM, "SETITEM"}, {OP_TUPLE, "TUPLE"}, {OP_EMPTY_TUPLE, "EMPTY_TUPLE"},
    {OP_SETITEMS, "SETITEMS"}, {OP_BINFLOAT, "BINFLOAT"}, {OP_PROTO, "PROTO"},
    {OP_NEWOBJ, "NEWOBJ"}, {OP_EXT1, "EXT1"}, {OP_EXT2, "EXT2"}, {OP_EXT4, "EXT4"},
    {OP_TUPLE1, "TUPLE1"}, {OP_TUPLE2, "TUPLE2"}, {OP_TUPLE3, "TUPLE3"},
    {OP_NEWTRUE, "NEWTRUE"}, {OP_NEWFALSE, "NEWFALSE"}, {OP_LONG1, "LONG1"},
    {OP_LONG4, "LONG4"}, {OP_BINBYTES, "BINBYTES"}, {OP_SHORT_BINBYTES, "SHORT_BINBYTES"},
    {OP_SHORT_BINUNICODE, "SHORT_BINUNICODE"}, {OP_BINUNICODE8, "BINUNICODE8"},
    {OP_BINBYTES8, "BINBYTES8"}, {OP_EMPTY_SET, "EMPTY_SET"}, {OP_ADDITEMS, "ADDITEMS"},
    {OP_FROZENSET, "FROZENSET"}, {OP_NEWOBJ_EX, "NEWOBJ_EX"}, {OP_STACK_GLOBAL, "STACK_GLOBAL"},
    {OP_MEMOIZE, "MEMOIZE"}, {OP_FRAME, "FRAME"}, {OP_BYTEARRAY8, "BYTEARRAY8"},
    {OP_NEXT_BUFFER, "NEXT_BUFFER"}, {OP_READONLY_BUFFER, "READONLY_BUFFER"},
};

const char *vp_pk_opcode_name(uint8_t op)
{
    for (size_t i = 0; i < sizeof opnames / sizeof opnames[0]; i++)
        if (opnames[i].op == op)
            return opnames[i].name;
    return NULL;
}

/* Opcodes that import, call or look up objects: the ones that make
 * pickle.load dangerous. */
static int runs_code(uint8_t op)
{
    switch (op) {
    case OP_GLOBAL: case OP_STACK_GLOBAL: case OP_REDUCE: case OP_BUILD: case OP_INST:
    case OP_OBJ: case OP_NEWOBJ: case OP_NEWOBJ_EX: case OP_PERSID: case OP_BINPERSID:
    case OP_EXT1: case OP_EXT2: case OP_EXT4:
        return 1;
    default:
        return 0;
    }
}

/* ---- arena ---- */

#define CHUNK_SIZE ((size_t)1 << 20)
#define CHUNK_MAX ((size_t)64 << 20)
/* Item arrays above this size live on the heap, so that growing a big list
 * reallocates in place instead of leaving dead copies in the arena. */
#define HEAP_ITEMS_BYTES (64u << 10)

/* Dicts of up to this many keys share key arrays; a few thousand shapes
 * cover any real snapshot (trace entries, frames, blocks, segments). */
#define SHAPE_MAX_KEYS 64
#define SHAPE_SLOTS 8192
#define SHAPE_MRU 4

struct shape {
    vp_pk *keys;
    uint64_t hash;
    uint32_t n;
};

typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
} chunk;

struct vp_pk_doc {
    chunk *chunks;
    size_t arena_bytes;
    vp_pk **(*heap_arrays);  /* where the malloc'ed arrays are pointed to */
    size_t nheap, heap_cap;
    struct shape *shapes;    /* SHAPE_SLOTS, open addressing */
    struct shape *mru[SHAPE_MRU];
    size_t nshapes;
    size_t heap_bytes;
    vp_pk root;
    int protocol;
};

/* A tree of a gigabyte faults in a quarter of a million 4 KiB pages; with
 * transparent huge pages in "madvise" mode, big chunks can ask for 2 MiB
 * ones instead.  Only a hint: nothing depends on it. */
static void hint_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (n < 2 * huge)
        return;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

static void *arena_alloc(vp_pk_doc *doc, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    chunk *c = doc->chunks;
    if (!c || c->size - c->used < n) {
        /* Chunks grow with the document (fewer, larger mappings: fewer
         * page-table walks for a tree of a gigabyte). */
        size_t base = doc->arena_bytes / 8 > CHUNK_SIZE ? doc->arena_bytes / 8 : CHUNK_SIZE;
        if (base > CHUNK_MAX)
            base = CHUNK_MAX;
        size_t size = n > base / 4 ? n : base;
        chunk *nc = vp_malloc(sizeof *nc + size);
        hint_huge(nc, sizeof *nc + size);
        nc->used = 0;
        nc->size = size;
        doc->arena_bytes += sizeof *nc + size;
        /* A dedicated big chunk goes behind the current one so the current
         * one keeps filling. */
        if (c && size == n) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            doc->chunks = nc;
        }
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

/* ---- decoder state ---- */

typedef struct decoder {
    const uint8_t *p, *end, *start;
    const char *name;
    vp_error *err;
    vp_pk_doc *doc;
    vp_pk *stack;
    size_t sp, scap;
    size_t *marks;
    size_t nmarks, mcap;
    vp_pk *memo;
    size_t nmemo, memocap;
    size_t op_at;            /* offset of the opcode being decoded */
} decoder;

static int fail(decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(decoder *d, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vp_error_set(d->err, VP_EXIT_INPUT, "%s: byte %zu: %s", d->name, d->op_at, msg);
    return -1;
}

static const char *opname(uint8_t op)
{
    const char *n = vp_pk_opcode_name(op);
    return n ? n : "?";
}

/* Makes sure n argument bytes follow the opcode. */
static int need_slow(decoder *d, uint8_t op, size_t n)
{
    size_t left = (size_t)(d->end - d->p);
    return fail(d, "truncated pickle: %s needs %zu byte%s, %zu left", opname(op), n,
                n == 1 ? "" : "s", left);
}

static inline int need(decoder *d, uint8_t op, size_t n)
{
    if ((size_t)(d->end - d->p) >= n)
        return 0;
    return need_slow(d, op, n);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void grow_stack(decoder *d)
{
    d->scap = d->scap ? d->scap * 2 : 1024;
    d->stack = vp_realloc(d->stack, d->scap * sizeof *d->stack);
}

static inline int push(decoder *d, vp_pk v)
{
    if (d->sp == d->scap)
        grow_stack(d);
    d->stack[d->sp++] = v;
    return 0;
}

static vp_pk_seq *new_seq(decoder *d)
{
    vp_pk_seq *s = arena_alloc(d->doc, sizeof *s);
    memset(s, 0, sizeof *s);
    s->depth = 1;
    return s;
}

static int push_seq(decoder *d, vp_pk_type t, vp_pk_seq *s)
{
    vp_pk v = {.type = (uint8_t)t};
    v.u.seq = s;
    return push(d, v);
}

/* vp_pk_seq.flags */
enum {
    HEAP_ITEMS = 1,    /* items were malloc'ed */
    HEAP_KEYS = 2,     /* keys were malloc'ed */
    SHARED_KEYS = 4,   /* keys belong to the shape table, exact size */
};

/* Remembers a malloc'ed array (by the address of the pointer to it, which
 * lives in the arena and stays put) so that the document can free it. */
static void track_heap(decoder *d, vp_pk **slot)
{
    vp_pk_doc *doc = d->doc;
    if (doc->nheap == doc->heap_cap) {
        doc->heap_cap = doc->heap_cap ? doc->heap_cap * 2 : 64;
        doc->heap_arrays = vp_realloc(doc->heap_arrays, doc->heap_cap * sizeof *doc->heap_arrays);
    }
    doc->heap_arrays[doc->nheap++] = slot;
}

/* Resizes *arr (n items used) to cap items: in the arena while small, on
 * the heap when large, where growing a big list reallocates in place
 * instead of leaving dead copies behind. */
static void resize(decoder *d, vp_pk **arr, uint32_t n, uint32_t oldcap, uint32_t cap,
                   uint8_t *flags, uint8_t heapbit)
{
    size_t bytes = (size_t)cap * sizeof(vp_pk);
    if (*flags & heapbit) {
        d->doc->heap_bytes += bytes - (size_t)oldcap * sizeof(vp_pk);
        *arr = vp_realloc(*arr, bytes);
        return;
    }
    vp_pk *fresh;
    if (bytes > HEAP_ITEMS_BYTES) {
        fresh = vp_malloc(bytes);
        *flags |= heapbit;
        d->doc->heap_bytes += bytes;
        track_heap(d, arr);
    } else {
        fresh = arena_alloc(d->doc, bytes);
    }
    if (n)
        memcpy(fresh, *arr, (size_t)n * sizeof(vp_pk));
    *arr = fresh;
}

/* Room for k more entries in s (items, and keys for an unshared dict). */
static int reserve(decoder *d, vp_pk_seq *s, size_t k)
{
    if (k > UINT32_MAX - s->n)
        return fail(d, "container of more than %u items", UINT32_MAX);
    uint32_t need_n = s->n + (uint32_t)k;
    if (need_n <= s->cap)
        return 0;
    /* The first batch is usually the whole container: size it exactly.
     * Later batches (lists of more than 1000 items) double. */
    uint64_t cap = s->cap ? (uint64_t)s->cap * 2 : 0;
    if (cap < need_n)
        cap = need_n;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    resize(d, &s->items, s->n, s->cap, (uint32_t)cap, &s->flags, HEAP_ITEMS);
    s->cap = (uint32_t)cap;
    return 0;
}

static int check_depth(decoder *d, vp_pk_seq *s, const vp_pk *it)
{
    if (it->type >= VP_PK_LIST && it->u.seq->depth >= s->depth) {
        if (it->u.seq->depth >= VP_PK_MAX_DEPTH)
            return fail(d, "containers nested deeper than %d levels", VP_PK_MAX_DEPTH);
        s->depth = (uint16_t)(it->u.seq->depth + 1);
    }
    return 0;
}

/* Appends items[0..k) to a list or tuple; checks the nesting bound. */
static int seq_append(decoder *d, vp_pk_seq *s, const vp_pk *items, size_t k)
{
    if (k == 0)
        return 0;
    if (reserve(d, s, k) < 0)
        return -1;
    for (size_t i = 0; i < k; i++)
        if (check_depth(d, s, &items[i]) < 0)
            return -1;
    memcpy(s->items + s->n, items, k * sizeof(vp_pk));
    s->n += (uint32_t)k;
    return 0;
}

/* ---- shapes: shared key arrays ---- */

static uint64_t key_hash(const vp_pk *k)
{
    uint64_t h = 1469598103934665603u ^ k->type;
    if (k->type == VP_PK_STR) {
        for (uint32_t i = 0; i < k->len; i++)
            h = (h ^ (unsigned char)k->u.s[i]) * 1099511628211u;
    } else if (k->type == VP_PK_INT || k->type == VP_PK_BOOL) {
        h = (h ^ (uint64_t)k->u.i) * 1099511628211u;
    }
    return h;
}

/* Shapes are looked up only for keys that are plain scalars. */
static int key_eq(const vp_pk *a, const vp_pk *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case VP_PK_STR:
        return a->len == b->len && (a->u.s == b->u.s || memcmp(a->u.s, b->u.s, a->len) == 0);
    case VP_PK_INT: case VP_PK_BOOL:
        return a->u.i == b->u.i;
    case VP_PK_NONE:
        return 1;
    default:
        return 0;
    }
}

static void remember(vp_pk_doc *doc, struct shape *sh)
{
    memmove(doc->mru + 1, doc->mru, (SHAPE_MRU - 1) * sizeof doc->mru[0]);
    doc->mru[0] = sh;
}

/* The shared keys array for the k keys at pairs[0], pairs[2], ...; NULL
 * when the keys are not all scalars or the table is full. */
static vp_pk *shape_for(decoder *d, const vp_pk *pairs, size_t k)
{
    if (k == 0 || k > SHAPE_MAX_KEYS)
        return NULL;
    vp_pk_doc *doc = d->doc;
    /* Fast path: trace entries repeat the previous entry's keys, which
     * the memo made the very same strings. */
    for (size_t m = 0; m < SHAPE_MRU; m++) {
        struct shape *sh = doc->mru[m];
        if (!sh || sh->n != k)
            continue;
        size_t j = 0;
        while (j < k && sh->keys[j].type == pairs[2 * j].type && sh->keys[j].len == pairs[2 * j].len &&
               sh->keys[j].u.i == pairs[2 * j].u.i)
            j++;
        if (j == k) {
            if (m) {
                doc->mru[m] = doc->mru[0];
                doc->mru[0] = sh;
            }
            return sh->keys;
        }
    }
    uint64_t h = k;
    for (size_t i = 0; i < k; i++) {
        const vp_pk *key = &pairs[2 * i];
        if (key->type != VP_PK_STR && key->type != VP_PK_INT && key->type != VP_PK_NONE &&
            key->type != VP_PK_BOOL)
            return NULL;
        h = (h ^ key_hash(key)) * 0x9e3779b97f4a7c15u;
    }
    size_t mask = SHAPE_SLOTS - 1;
    for (size_t probe = 0, i = (size_t)(h >> 20) & mask; probe < SHAPE_SLOTS; probe++, i = (i + 1) & mask) {
        struct shape *sh = &doc->shapes[i];
        if (!sh->keys) {
            if (doc->nshapes >= SHAPE_SLOTS / 2)
                return NULL;   /* full enough: stop sharing new shapes */
            sh->keys = arena_alloc(doc, k * sizeof(vp_pk));
            for (size_t j = 0; j < k; j++)
                sh->keys[j] = pairs[2 * j];
            sh->n = (uint32_t)k;
            sh->hash = h;
            doc->nshapes++;
            remember(doc, sh);
            return sh->keys;
        }
        if (sh->hash != h || sh->n != k)
            continue;
        size_t j = 0;
        while (j < k && key_eq(&sh->keys[j], &pairs[2 * j]))
            j++;
        if (j == k) {
            remember(doc, sh);
            return sh->keys;
        }
    }
    return NULL;
}

/* Appends k key/value pairs (interleaved, as on the stack) to a dict. */
static int dict_append(decoder *d, vp_pk_seq *s, const vp_pk *pairs, size_t k)
{
    if (k == 0)
        return 0;
    for (size_t i = 0; i < 2 * k; i++)
        if (check_depth(d, s, &pairs[i]) < 0)
            return -1;
    if (s->n == 0 && s->cap == 0) {
        vp_pk *keys = shape_for(d, pairs, k);
        if (keys) {
            if (reserve(d, s, k) < 0)
                return -1;
            for (size_t i = 0; i < k; i++)
                s->items[i] = pairs[2 * i + 1];
            s->keys = keys;
            s->flags |= SHARED_KEYS;
            s->n = (uint32_t)k;
            return 0;
        }
    }
    uint32_t oldcap = s->cap;
    if (reserve(d, s, k) < 0)
        return -1;
    if (s->flags & SHARED_KEYS) {
        /* Growing a dict that shares its keys: it gets its own copy. */
        vp_pk *shared = s->keys;
        s->keys = NULL;
        s->flags &= (uint8_t)~SHARED_KEYS;
        resize(d, &s->keys, 0, 0, s->cap, &s->flags, HEAP_KEYS);
        memcpy(s->keys, shared, (size_t)s->n * sizeof(vp_pk));
    } else if (s->cap != oldcap || !s->keys) {
        resize(d, &s->keys, s->n, oldcap, s->cap, &s->flags, HEAP_KEYS);
    }
    for (size_t i = 0; i < k; i++) {
        s->keys[s->n + i] = pairs[2 * i];
        s->items[s->n + i] = pairs[2 * i + 1];
    }
    s->n += (uint32_t)k;
    return 0;
}

static int pop_mark(decoder *d, uint8_t op, size_t *mark)
{
    if (d->nmarks == 0)
        return fail(d, "%s without a MARK", opname(op));
    *mark = d->marks[--d->nmarks];
    return 0;
}

/* APPENDS / SETITEMS: the items above the last mark go into the container
 * just below it, which stays on the stack. */
static int fill_from_mark(decoder *d, uint8_t op, int want_dict)
{
    size_t mark = 0;
    if (pop_mark(d, op, &mark) < 0)
        return -1;
    if (mark == 0)
        return fail(d, "%s with no container below its MARK", opname(op));
    vp_pk *target = &d->stack[mark - 1];
    vp_pk_type want = want_dict ? VP_PK_DICT : VP_PK_LIST;
    if (target->type != want)
        return fail(d, "%s on something that is not a %s", opname(op), want_dict ? "dict" : "list");
    size_t k = d->sp - mark;
    if (want_dict && k % 2)
        return fail(d, "SETITEMS with an odd number of items (%zu)", k);
    int rc = want_dict ? dict_append(d, target->u.seq, d->stack + mark, k / 2)
                       : seq_append(d, target->u.seq, d->stack + mark, k);
    if (rc < 0)
        return -1;
    d->sp = mark;
    return 0;
}

/* APPEND / SETITEM: one item (or pair) into the container below it. */
static int fill_one(decoder *d, uint8_t op, int want_dict)
{
    size_t k = want_dict ? 2 : 1;
    size_t floor = d->nmarks ? d->marks[d->nmarks - 1] : 0;
    if (d->sp < floor + k + 1)
        return fail(d, "%s with too few items on the stack", opname(op));
    vp_pk *target = &d->stack[d->sp - k - 1];
    vp_pk_type want = want_dict ? VP_PK_DICT : VP_PK_LIST;
    if (target->type != want)
        return fail(d, "%s on something that is not a %s", opname(op), want_dict ? "dict" : "list");
    int rc = want_dict ? dict_append(d, target->u.seq, d->stack + d->sp - 2, 1)
                       : seq_append(d, target->u.seq, d->stack + d->sp - 1, 1);
    if (rc < 0)
        return -1;
    d->sp -= k;
    return 0;
}

/* TUPLE1..3 (n items) and TUPLE (from the mark). */
static int make_tuple(decoder *d, size_t from)
{
    vp_pk_seq *s = new_seq(d);
    /* An empty tuple may come before anything was pushed: no stack yet. */
    if (d->sp > from && seq_append(d, s, d->stack + from, d->sp - from) < 0)
        return -1;
    d->sp = from;
    return push_seq(d, VP_PK_TUPLE, s);
}

static int memo_put(decoder *d, size_t idx)
{
    size_t floor = d->nmarks ? d->marks[d->nmarks - 1] : 0;
    if (d->sp <= floor)
        return fail(d, "memo store with an empty stack");
    /* Python and the C++ pickler number memo entries densely from 0; a gap
     * is refused so that a 5-byte input cannot ask for a huge table. */
    if (idx > d->nmemo)
        return fail(d, "memo index %zu skips ahead of the %zu entries stored so far", idx, d->nmemo);
    if (idx == d->nmemo) {
        if (d->nmemo == d->memocap) {
            d->memocap = d->memocap ? d->memocap * 2 : 1024;
            d->memo = vp_realloc(d->memo, d->memocap * sizeof *d->memo);
        }
        d->nmemo++;
    }
    d->memo[idx] = d->stack[d->sp - 1];
    return 0;
}

static int memo_get(decoder *d, size_t idx)
{
    if (idx >= d->nmemo)
        return fail(d, "memo index %zu out of range (%zu entries)", idx, d->nmemo);
    return push(d, d->memo[idx]);
}

static int push_str(decoder *d, uint8_t op, size_t n)
{
    size_t left = (size_t)(d->end - d->p);
    if (n > left)
        return fail(d, "%s length %zu runs past the end of the input (%zu bytes left)", opname(op),
                    n, left);
    /* Copied, so that the input can be released as decoding goes; strings
     * are few, since writers memoize them. */
    char *s = arena_alloc(d->doc, n ? n : 1);
    memcpy(s, d->p, n);
    d->p += n;
    vp_pk v = {.type = VP_PK_STR, .len = (uint32_t)n};
    v.u.s = s;
    return push(d, v);
}

static void decoder_free(decoder *d)
{
    free(d->stack);
    free(d->marks);
    free(d->memo);
}

#define RELEASE_STEP ((size_t)32 << 20)

vp_pk_doc *vp_pk_decode_ex(const void *data, size_t len, const char *name, vp_error *err,
                           void (*release)(void *ctx, size_t upto), void *ctx)
{
    decoder d;
    memset(&d, 0, sizeof d);
    d.start = d.p = data;
    d.end = d.start + len;
    d.name = name;
    d.err = err;
    d.doc = vp_calloc(1, sizeof *d.doc);
    d.doc->shapes = vp_calloc(SHAPE_SLOTS, sizeof *d.doc->shapes);
    size_t released = 0;
    int rc = 0;

    if (len < 2 || d.p[0] != OP_PROTO) {
        fail(&d, "not a pickle: %s", len == 0 ? "the input is empty" : "it does not start with PROTO (0x80)");
        goto bad;
    }
    if (d.p[1] < 2 || d.p[1] > 5) {
        fail(&d, "pickle protocol %u not supported (2 to 5 are)", d.p[1]);
        goto bad;
    }
    d.doc->protocol = d.p[1];
    d.p += 2;

    for (;;) {
        if (d.p == d.end) {
            d.op_at = len;
            fail(&d, "truncated pickle: the input ends before STOP");
            goto bad;
        }
        if (release && (size_t)(d.p - d.start) - released >= RELEASE_STEP) {
            released = (size_t)(d.p - d.start);
            release(ctx, released);
        }
        d.op_at = (size_t)(d.p - d.start);
        uint8_t op = *d.p++;
        vp_pk v = {0};
        switch (op) {
        case OP_FRAME: {
            /* A framing hint: the frame's opcodes follow inline. */
            if ((rc = need(&d, op, 8)) < 0)
                goto bad;
            uint64_t flen = le32(d.p) | (uint64_t)le32(d.p + 4) << 32;
            d.p += 8;
            if (flen > (uint64_t)(d.end - d.p)) {
                fail(&d, "truncated pickle: FRAME of %llu bytes, %zu left",
                     (unsigned long long)flen, (size_t)(d.end - d.p));
                goto bad;
            }
            break;
        }
        case OP_STOP: {
            size_t floor = d.nmarks ? d.marks[d.nmarks - 1] : 0;
            if (d.sp <= floor) {
                fail(&d, "STOP with an empty stack");
                goto bad;
            }
            d.doc->root = d.stack[d.sp - 1];
            decoder_free(&d);
            return d.doc;
        }
        case OP_MARK:
            if (d.nmarks >= VP_PK_MAX_DEPTH) {
                fail(&d, "MARKs nested deeper than %d levels", VP_PK_MAX_DEPTH);
                goto bad;
            }
            if (d.nmarks == d.mcap) {
                d.mcap = d.mcap ? d.mcap * 2 : 64;
                d.marks = vp_realloc(d.marks, d.mcap * sizeof *d.marks);
            }
            d.marks[d.nmarks++] = d.sp;
            break;
        case OP_EMPTY_DICT:
            rc = push_seq(&d, VP_PK_DICT, new_seq(&d));
            break;
        case OP_EMPTY_LIST:
            rc = push_seq(&d, VP_PK_LIST, new_seq(&d));
            break;
        case OP_EMPTY_TUPLE:
            rc = push_seq(&d, VP_PK_TUPLE, new_seq(&d));
            break;
        case OP_SETITEMS:
            rc = fill_from_mark(&d, op, 1);
            break;
        case OP_APPENDS:
            rc = fill_from_mark(&d, op, 0);
            break;
        case OP_SETITEM:
            rc = fill_one(&d, op, 1);
            break;
        case OP_APPEND:
            rc = fill_one(&d, op, 0);
            break;
        case OP_TUPLE: {
            size_t mark = 0;
            if ((rc = pop_mark(&d, op, &mark)) == 0)
                rc = make_tuple(&d, mark);
            break;
        }
        case OP_TUPLE1: case OP_TUPLE2: case OP_TUPLE3: {
            size_t n = (size_t)(op - OP_TUPLE1 + 1);
            size_t floor = d.nmarks ? d.marks[d.nmarks - 1] : 0;
            if (d.sp < floor + n) {
                fail(&d, "%s with too few items on the stack", opname(op));
                goto bad;
            }
            rc = make_tuple(&d, d.sp - n);
            break;
        }
        case OP_MEMOIZE:
            rc = memo_put(&d, d.nmemo);
            break;
        case OP_BINPUT:
            if ((rc = need(&d, op, 1)) == 0)
                rc = memo_put(&d, *d.p++);
            break;
        case OP_LONG_BINPUT:
            if ((rc = need(&d, op, 4)) == 0) {
                size_t idx = le32(d.p);
                d.p += 4;
                rc = memo_put(&d, idx);
            }
            break;
        case OP_BINGET:
            if ((rc = need(&d, op, 1)) == 0)
                rc = memo_get(&d, *d.p++);
            break;
        case OP_LONG_BINGET:
            if ((rc = need(&d, op, 4)) == 0) {
                size_t idx = le32(d.p);
                d.p += 4;
                rc = memo_get(&d, idx);
            }
            break;
        case OP_SHORT_BINUNICODE:
            if ((rc = need(&d, op, 1)) == 0) {
                size_t n = *d.p++;
                rc = push_str(&d, op, n);
            }
            break;
        case OP_BINUNICODE:
            if ((rc = need(&d, op, 4)) == 0) {
                size_t n = le32(d.p);
                d.p += 4;
                rc = push_str(&d, op, n);
            }
            break;
        case OP_BININT1:
            if ((rc = need(&d, op, 1)) == 0) {
                v.type = VP_PK_INT;
                v.u.i = *d.p++;
                rc = push(&d, v);
            }
            break;
        case OP_BININT2:
            if ((rc = need(&d, op, 2)) == 0) {
                v.type = VP_PK_INT;
                v.u.i = d.p[0] | d.p[1] << 8;
                d.p += 2;
                rc = push(&d, v);
            }
            break;
        case OP_BININT:
            if ((rc = need(&d, op, 4)) == 0) {
                v.type = VP_PK_INT;
                v.u.i = (int32_t)le32(d.p);
                d.p += 4;
                rc = push(&d, v);
            }
            break;
        case OP_LONG1: {
            if ((rc = need(&d, op, 1)) < 0)
                break;
            size_t n = *d.p++;
            if (n > 8) {
                fail(&d, "LONG1 of %zu bytes: integers beyond 64 bits are not supported", n);
                goto bad;
            }
            if ((rc = need(&d, op, n)) < 0)
                break;
            /* Little-endian two's complement, sign-extended from n bytes. */
            uint64_t u = 0;
            for (size_t i = 0; i < n; i++)
                u |= (uint64_t)d.p[i] << (8 * i);
            if (n > 0 && n < 8 && (d.p[n - 1] & 0x80))
                u |= ~(uint64_t)0 << (8 * n);
            d.p += n;
            v.type = VP_PK_INT;
            v.u.i = (int64_t)u;
            rc = push(&d, v);
            break;
        }
        case OP_BINFLOAT:
            if ((rc = need(&d, op, 8)) == 0) {
                uint64_t u = 0;
                for (int i = 0; i < 8; i++)
                    u = u << 8 | d.p[i];    /* big-endian */
                d.p += 8;
                v.type = VP_PK_FLOAT;
                memcpy(&v.u.f, &u, sizeof u);
                rc = push(&d, v);
            }
            break;
        case OP_NEWTRUE: case OP_NEWFALSE:
            v.type = VP_PK_BOOL;
            v.u.i = op == OP_NEWTRUE;
            rc = push(&d, v);
            break;
        case OP_NONE:
            v.type = VP_PK_NONE;
            rc = push(&d, v);
            break;
        case OP_PROTO:
            fail(&d, "PROTO in the middle of a pickle");
            goto bad;
        default:
            if (runs_code(op))
                fail(&d, "pickle opcode %s refused: snapshots never need it, and running it could execute code",
                     opname(op));
            else if (vp_pk_opcode_name(op))
                fail(&d, "pickle opcode %s not supported: snapshots never use it", opname(op));
            else
                fail(&d, "not a pickle opcode: 0x%02x", op);
            goto bad;
        }
        if (rc < 0)
            goto bad;
    }
bad:
    decoder_free(&d);
    vp_pk_doc_free(d.doc);
    return NULL;
}

vp_pk_doc *vp_pk_decode(const void *data, size_t len, const char *name, vp_error *err)
{
    return vp_pk_decode_ex(data, len, name, err, NULL, NULL);
}

const vp_pk *vp_pk_root(const vp_pk_doc *doc)
{
    return &doc->root;
}

int vp_pk_protocol(const vp_pk_doc *doc)
{
    return doc->protocol;
}

size_t vp_pk_doc_bytes(const vp_pk_doc *doc)
{
    return doc->arena_bytes + doc->heap_bytes;
}

void vp_pk_doc_free(vp_pk_doc *doc)
{
    if (!doc)
        return;
    for (size_t i = 0; i < doc->nheap; i++)
        free(*doc->heap_arrays[i]);
    free(doc->heap_arrays);
    free(doc->shapes);
    chunk *c = doc->chunks;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    free(doc);
}

/* ---- accessors ---- */

int vp_pk_is(const vp_pk *v, vp_pk_type t)
{
    return v && v->type == t;
}

static int is_seq(const vp_pk *v)
{
    return v && (v->type == VP_PK_LIST || v->type == VP_PK_TUPLE || v->type == VP_PK_DICT);
}

size_t vp_pk_count(const vp_pk *v)
{
    if (!is_seq(v))
        return 0;
    return v->u.seq->n;
}

const vp_pk *vp_pk_item(const vp_pk *v, size_t i)
{
    if (!v || (v->type != VP_PK_LIST && v->type != VP_PK_TUPLE) || i >= v->u.seq->n)
        return NULL;
    return &v->u.seq->items[i];
}

const vp_pk *vp_pk_dict_get(const vp_pk *dict, const char *key)
{
    if (!vp_pk_is(dict, VP_PK_DICT))
        return NULL;
    size_t klen = strlen(key);
    const vp_pk_seq *s = dict->u.seq;
    /* Backwards: a repeated key's last value wins, as in Python. */
    for (size_t i = s->n; i-- > 0;) {
        const vp_pk *k = &s->keys[i];
        if (k->type == VP_PK_STR && k->len == klen && memcmp(k->u.s, key, klen) == 0)
            return &s->items[i];
    }
    return NULL;
}

const vp_pk *vp_pk_dict_key(const vp_pk *dict, size_t i)
{
    if (!vp_pk_is(dict, VP_PK_DICT) || i >= dict->u.seq->n)
        return NULL;
    return &dict->u.seq->keys[i];
}

const vp_pk *vp_pk_dict_value(const vp_pk *dict, size_t i)
{
    if (!vp_pk_is(dict, VP_PK_DICT) || i >= dict->u.seq->n)
        return NULL;
    return &dict->u.seq->items[i];
}

int64_t vp_pk_int(const vp_pk *v, int64_t fallback)
{
    if (v && (v->type == VP_PK_INT || v->type == VP_PK_BOOL))
        return v->u.i;
    return fallback;
}

const char *vp_pk_str(const vp_pk *v, size_t *len)
{
    if (!vp_pk_is(v, VP_PK_STR))
        return NULL;
    if (len)
        *len = v->len;
    return v->u.s;
}

int vp_pk_str_eq(const vp_pk *v, const char *s)
{
    size_t n = strlen(s);
    return vp_pk_is(v, VP_PK_STR) && v->len == n && memcmp(v->u.s, s, n) == 0;
}

/* ---- repr ---- */

static void repr_str(vp_buf *out, const char *s, size_t n)
{
    vp_buf_putc(out, '\'');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\'' || c == '\\') {
            vp_buf_putc(out, '\\');
            vp_buf_putc(out, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            vp_buf_printf(out, "\\x%02x", c);
        } else {
            vp_buf_putc(out, (char)c);
        }
    }
    vp_buf_putc(out, '\'');
}

void vp_pk_repr(vp_buf *out, const vp_pk *v, int max_depth)
{
    if (!v) {
        vp_buf_append(out, "NULL", 4);
        return;
    }
    switch ((vp_pk_type)v->type) {
    case VP_PK_NONE:
        vp_buf_append(out, "None", 4);
        return;
    case VP_PK_BOOL:
        vp_buf_printf(out, "%s", v->u.i ? "True" : "False");
        return;
    case VP_PK_INT:
        vp_buf_printf(out, "%lld", (long long)v->u.i);
        return;
    case VP_PK_FLOAT:
        vp_buf_printf(out, "%.17g", v->u.f);
        return;
    case VP_PK_STR:
        repr_str(out, v->u.s, v->len);
        return;
    case VP_PK_LIST: case VP_PK_TUPLE: case VP_PK_DICT:
        break;
    }
    const vp_pk_seq *s = v->u.seq;
    const char *open = v->type == VP_PK_LIST ? "[" : v->type == VP_PK_TUPLE ? "(" : "{";
    const char *close = v->type == VP_PK_LIST ? "]" : v->type == VP_PK_TUPLE ? ")" : "}";
    if (max_depth <= 0) {
        vp_buf_printf(out, "%s...%s", open, close);
        return;
    }
    vp_buf_append(out, open, 1);
    if (v->type == VP_PK_DICT) {
        for (uint32_t i = 0; i < s->n; i++) {
            if (i)
                vp_buf_append(out, ", ", 2);
            vp_pk_repr(out, &s->keys[i], max_depth - 1);
            vp_buf_append(out, ": ", 2);
            vp_pk_repr(out, &s->items[i], max_depth - 1);
        }
    } else {
        for (uint32_t i = 0; i < s->n; i++) {
            if (i)
                vp_buf_append(out, ", ", 2);
            vp_pk_repr(out, &s->items[i], max_depth - 1);
        }
        if (v->type == VP_PK_TUPLE && s->n == 1)
            vp_buf_putc(out, ',');
    }
    vp_buf_append(out, close, 1);
}
