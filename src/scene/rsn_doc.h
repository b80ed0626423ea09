/* rsn_doc.h: the intermediate document of a parsed .rsn file (private to the scene module).
 *
 * The parser turns text into flat arrays of entities, components, fields and raw values, with
 * every value still in text form (a span of the source plus its line and column). Nothing here
 * knows the reflection registry; binding values to component fields happens later (bind.c), so
 * the parser can also check files for tools and keep unknown components verbatim.
 *
 * Values are stored in preorder: a tuple or list is followed by its children, and `size` counts
 * the values of the whole subtree, so the next sibling of value i is i + values[i].size.
 */
#ifndef RILL_SCENE_RSN_DOC_H
#define RILL_SCENE_RSN_DOC_H

#include "rill/base.h"

#define RSN_VERSION 1u
#define RSN_NONE_INDEX UINT32_MAX

typedef enum rsn_value_kind {
    RSN_V_BOOL = 1, /* flag = value */
    RSN_V_NUMBER,   /* span = the number token */
    RSN_V_STRING,   /* span = bytes between the quotes, escapes undecoded; flag = has escapes */
    RSN_V_ASSET,    /* like STRING, written @"..." */
    RSN_V_REF,      /* &id: ref = id */
    RSN_V_NONE,     /* none */
    RSN_V_IDENT,    /* span = identifier (enum value) */
    RSN_V_TUPLE,    /* ( ... ): count children follow */
    RSN_V_LIST,     /* [ ... ]: count children follow */
} rsn_value_kind;

typedef struct rsn_value {
    uint8_t kind;
    uint8_t flag;
    uint16_t pad;
    uint32_t line, col;
    uint32_t off, len; /* span in the source text */
    uint32_t size;     /* values in this subtree, itself included */
    uint32_t count;    /* direct children of a tuple or list */
    uint32_t ref;      /* RSN_V_REF: file-local id */
} rsn_value;

typedef struct rsn_field {
    uint32_t name_off, name_len;
    uint32_t line, col;
    uint32_t value; /* index into values */
} rsn_field;

typedef struct rsn_component {
    uint32_t name_off, name_len;
    uint32_t line, col;
    uint32_t first_field, field_count;
    uint32_t raw_off, raw_end; /* the whole block, name to closing brace inclusive */
} rsn_component;

typedef struct rsn_entity {
    uint32_t id;
    uint32_t parent; /* 0 = none */
    uint32_t name;   /* value index of the name string, RSN_NONE_INDEX = unnamed */
    uint32_t line, col;
    uint32_t first_comp, comp_count;
    uint32_t parent_index; /* index of the parent entity in the doc, RSN_NONE_INDEX = root */
} rsn_entity;

typedef struct rsn_doc {
    char *path; /* owned copy, used in messages */
    char *src;  /* owned, NUL-terminated */
    size_t src_len;
    uint32_t version;
    RILL_ARRAY(rsn_entity) entities;
    RILL_ARRAY(rsn_component) comps;
    RILL_ARRAY(rsn_field) fields;
    RILL_ARRAY(rsn_value) values;
    rill_map id_to_index; /* file-local id -> entity index */
} rsn_doc;

/* Parses text[0..len) (need not be NUL-terminated; it is copied) into *doc. path names the file
 * in messages. On failure *doc is released and err says where. Checks ids, parents and cycles. */
rill_result rill__rsn_parse(rsn_doc *doc, const char *path, const char *text, size_t len,
                            rill_error *err);
/* Same, but takes ownership of src (allocated with rill_malloc, NUL at src[len]). */
rill_result rill__rsn_parse_owned(rsn_doc *doc, const char *path, char *src, size_t len,
                                  rill_error *err);
void rill__rsn_doc_free(rsn_doc *doc);

/* Decodes a validated string value span into dst[cap] (always NUL-terminated when cap > 0).
 * Returns the decoded length, which may exceed cap - 1 (then the copy is truncated). */
size_t rill__rsn_string_decode(const char *span, uint32_t len, char *dst, size_t cap);

#endif
