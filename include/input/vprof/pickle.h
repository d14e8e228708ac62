/* A pickle decoder for data only.
 *
 * It understands the opcodes that plain Python data (dicts, lists, tuples,
 * str, int, float, bool, None) needs at protocols 2 to 5, and the layout of
 * PyTorch's C++ pickler; everything that could name or call code (GLOBAL,
 * STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID, EXT*, ...) is
 * refused.  Decoding can therefore never execute anything.
 *
 * Every length is checked against the bytes left, memo indices against the
 * memo, and nesting against VP_PK_MAX_DEPTH, so no input can make the
 * decoder read out of bounds, loop, or allocate more than a fixed multiple
 * of its size.
 *
 * The result is a tree of values living in one arena owned by a vp_pk_doc.
 * Memo references (BINGET) are not copied: two places that refer to the same
 * memoized container hold the same vp_pk_seq pointer, so the tree is a DAG.
 * A memo reference to a container still being filled can even make a
 * cycle; code that walks the tree generically must bound its depth. */
#ifndef VPROF_PICKLE_H
#define VPROF_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/error.h"

/* Deeper containers than this are refused (real snapshots nest about 9). */
#define VP_PK_MAX_DEPTH 1000

typedef enum vp_pk_type {
    VP_PK_NONE = 0,
    VP_PK_BOOL,
    VP_PK_INT,    /* int64; LONG1 beyond 8 bytes is refused */
    VP_PK_FLOAT,
    VP_PK_STR,    /* UTF-8 bytes as written, not NUL-terminated */
    VP_PK_LIST,
    VP_PK_TUPLE,
    VP_PK_DICT,
} vp_pk_type;

typedef struct vp_pk_seq vp_pk_seq;

/* One value: 16 bytes, stored inline in containers. */
typedef struct vp_pk {
    uint8_t type;        /* vp_pk_type */
    uint32_t len;        /* VP_PK_STR: byte length */
    union {
        int64_t i;       /* VP_PK_INT, VP_PK_BOOL (0/1) */
        double f;        /* VP_PK_FLOAT */
        const char *s;   /* VP_PK_STR */
        vp_pk_seq *seq;  /* VP_PK_LIST, VP_PK_TUPLE, VP_PK_DICT */
    } u;
} vp_pk;

/* A list, tuple or dict.  A dict holds n pairs: keys[i] -> items[i], in
 * insertion order; a repeated key keeps both (the later wins in
 * vp_pk_dict_get, as in Python).  Dicts with the same keys in the same
 * order (every trace entry of a snapshot) share one keys array, which is
 * why a dict's keys must be treated as read-only. */
struct vp_pk_seq {
    uint32_t n;          /* items, or pairs for a dict */
    uint32_t cap;
    uint32_t user;       /* 0 after decoding; free for the consumer to mark
                            shared containers it has already converted */
    uint16_t depth;      /* 1 + the deepest container inside (bounded) */
    uint8_t flags;       /* private to the decoder */
    uint8_t pad;
    vp_pk *items;
    vp_pk *keys;         /* dicts only */
};

typedef struct vp_pk_doc vp_pk_doc;

/* Decodes a whole pickle held in memory.  name is used in error messages
 * ("FILE: byte N: ...").  On success returns a document whose root is the
 * value under STOP; bytes after STOP are ignored, as Python ignores them.
 * On failure returns NULL with err set (status VP_EXIT_INPUT).  The decoded
 * tree does not point into data: data may be released right after. */
vp_pk_doc *vp_pk_decode(const void *data, size_t len, const char *name, vp_error *err);

/* Like vp_pk_decode, but calls release(ctx, upto) now and then with an
 * offset before which the decoder will not look at data again, so that a
 * caller reading a mapped file can drop the pages it no longer needs. */
vp_pk_doc *vp_pk_decode_ex(const void *data, size_t len, const char *name, vp_error *err,
                           void (*release)(void *ctx, size_t upto), void *ctx);

const vp_pk *vp_pk_root(const vp_pk_doc *doc);
int vp_pk_protocol(const vp_pk_doc *doc);
/* Bytes the tree occupies (arena and container arrays), for benchmarks. */
size_t vp_pk_doc_bytes(const vp_pk_doc *doc);
void vp_pk_doc_free(vp_pk_doc *doc);

/* Accessors; all accept NULL and the wrong type, returning the fallback. */
int vp_pk_is(const vp_pk *v, vp_pk_type t);
size_t vp_pk_count(const vp_pk *v);          /* list/tuple items, dict pairs */
const vp_pk *vp_pk_item(const vp_pk *v, size_t i);   /* list/tuple item i */
const vp_pk *vp_pk_dict_get(const vp_pk *dict, const char *key);
const vp_pk *vp_pk_dict_key(const vp_pk *dict, size_t i);    /* pair i */
const vp_pk *vp_pk_dict_value(const vp_pk *dict, size_t i);
int64_t vp_pk_int(const vp_pk *v, int64_t fallback);  /* ints and bools */
/* The string's bytes and length, or NULL when v is not a string. */
const char *vp_pk_str(const vp_pk *v, size_t *len);
int vp_pk_str_eq(const vp_pk *v, const char *s);

/* The name of an opcode byte ("GLOBAL", "BINGET"), or NULL if unknown. */
const char *vp_pk_opcode_name(uint8_t op);

/* Writes v as Python's repr would (dict keys in order, True/False/None),
 * descending at most max_depth levels ("..." below).  For tests and
 * debugging; floats are printed with %.17g. */
struct vp_buf;
void vp_pk_repr(struct vp_buf *out, const vp_pk *v, int max_depth);

#endif
