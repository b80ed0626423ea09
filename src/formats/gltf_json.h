/* gltf_json.h: the glTF reader's JSON parser. One pass over a private copy of the text builds a
 * read-only tree whose strings are unescaped in place (so every string and key is a
 * NUL-terminated C string inside the copy) and whose nodes come from a block arena; nothing is
 * allocated per value. The input is hostile: nesting depth is capped, every escape and number is
 * checked against the JSON grammar (RFC 8259), and the tree's memory is counted so the caller
 * can charge it to a limit before it grows. Not part of the public API. */
#ifndef RILL_FORMATS_GLTF_JSON_H
#define RILL_FORMATS_GLTF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rill__gj_type {
    RILL__GJ_NULL = 0,
    RILL__GJ_FALSE,
    RILL__GJ_TRUE,
    RILL__GJ_NUMBER,
    RILL__GJ_STRING,
    RILL__GJ_ARRAY,
    RILL__GJ_OBJECT
} rill__gj_type;

typedef struct rill__gj {
    uint8_t type;                 /* rill__gj_type */
    uint8_t lazy;                 /* a number kept as text (read it with rill__gj_num) */
    uint32_t count;               /* children of an array or object; text length of a lazy number */
    const char *key;              /* member name inside an object, NULL elsewhere */
    const struct rill__gj *next;  /* next sibling */
    const struct rill__gj *child; /* first child of an array or object */
    union {
        double num;      /* RILL__GJ_NUMBER, not lazy */
        const char *str; /* RILL__GJ_STRING; the text of a lazy number */
    } u;
} rill__gj;

typedef struct rill__gj_block rill__gj_block;

typedef struct rill__gj_doc {
    const rill__gj *root;
    char *text;             /* the private copy holding every string */
    rill__gj_block *blocks; /* node arena */
    size_t bytes;           /* memory held: text copy + nodes */
} rill__gj_doc;

/* Parses `size` bytes of JSON. Whitespace and NUL bytes may follow the root value (GLB chunks are
 * padded); anything else there is an error. max_bytes caps the memory the tree may take. On
 * failure returns false with *err_offset at the failing byte and *over_limit set when the cap
 * (not the grammar) stopped it; doc is then empty. */
bool rill__gj_parse(const char *json, size_t size, size_t max_bytes, rill__gj_doc *doc,
                    size_t *err_offset, bool *over_limit);
void rill__gj_free(rill__gj_doc *doc);

/* The first member named `key` of an object (NULL when absent or obj is not an object). */
const rill__gj *rill__gj_get(const rill__gj *obj, const char *key);

/* The value of a number (0 for anything else). Numbers the exact fast path could not convert
 * (more than 15 significant digits or a large exponent) are converted here with strtod, only
 * when read, which saves the conversion of the many bounds no reader needs in full. Overflowing
 * text such as 1e999 reads as infinity. */
double rill__gj_num(const rill__gj *v);
/* Whether a number is finite, without converting when its magnitude is evidently in range. */
bool rill__gj_num_finite(const rill__gj *v);

#define RILL__GJ_FOR(e, parent) for ((e) = (parent) ? (parent)->child : NULL; (e); (e) = (e)->next)

static inline bool rill__gj_is_number(const rill__gj *v) {
    return v && v->type == RILL__GJ_NUMBER;
}
static inline bool rill__gj_is_string(const rill__gj *v) {
    return v && v->type == RILL__GJ_STRING;
}
static inline bool rill__gj_is_array(const rill__gj *v) {
    return v && v->type == RILL__GJ_ARRAY;
}
static inline bool rill__gj_is_object(const rill__gj *v) {
    return v && v->type == RILL__GJ_OBJECT;
}
static inline bool rill__gj_is_bool(const rill__gj *v) {
    return v && (v->type == RILL__GJ_TRUE || v->type == RILL__GJ_FALSE);
}

#endif /* RILL_FORMATS_GLTF_JSON_H */
