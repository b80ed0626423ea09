/* rsn_doc.h: the intermediate document of a parsed .rsn file (private to the scene module).
 *
 * The parser turns text into flat arrays of entities, components and fields, checking the syntax
 * of every value but keeping it in text form (a span of the source plus its line and column).
 * Nothing here knows the reflection registry; binding values to component fields happens later
 * (bind.c hands each field's value text to reflection's rill_field_parse_ex, the one value parser
 * of .rsn, the CLI and tests), so the parser can also check files for tools and keep unknown
 * components verbatim.
 */
#ifndef RILL_SCENE_RSN_DOC_H
#define RILL_SCENE_RSN_DOC_H

#include "rill/base.h"

#define RSN_VERSION 1u
#define RSN_NONE_INDEX UINT32_MAX

typedef struct rsn_field {
    uint32_t name_off, name_len;
    uint32_t line, col;
    uint32_t val_off, val_end;  /* the value's whole text (comments inside included) */
    uint32_t val_line, val_col; /* where the value starts */
} rsn_field;

typedef struct rsn_component {
    uint32_t name_off, name_len;
    uint32_t line, col;
    uint32_t first_field, field_count;
    uint32_t raw_off, raw_end; /* the whole block, name to closing brace inclusive */
} rsn_component;

typedef struct rsn_entity {
    uint32_t id;
    uint32_t parent;             /* 0 = none */
    uint32_t name_off, name_len; /* the quoted name string; name_off RSN_NONE_INDEX = unnamed */
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

#endif
