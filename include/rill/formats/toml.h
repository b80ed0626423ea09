/* rill/formats/toml.h: the TOML reader for settings files (project.toml and any module's own).
 *
 *   rill_toml_parse() reads a TOML subset into a read-only document tree: tables ([a], [a.b],
 *   [[a]]), `key = value` with bare, quoted and dotted keys, basic strings (with escapes) and
 *   literal strings (both also in their multi-line forms), integers (decimal, 0x, 0o, 0b, with
 *   `_` separators), floats (with exponent, inf, nan), booleans, arrays (nested, multi-line,
 *   trailing comma) and inline tables. Dates and times are refused with a message. Every error
 *   names the place: "project.toml:12:7: expected '='". The typed getters take a dotted path and
 *   a default: rill_toml_get_string(doc, "rendering.graphics_quality", "Medium"). */
#ifndef RILL_FORMATS_TOML_H
#define RILL_FORMATS_TOML_H

#include "rill/base.h"

/* >>toml -------------------------------------------------------------------------------------- */

/* A parsed TOML document. Opaque; owned by the caller (rill_toml_destroy). Read-only after
 * parsing, so several threads may read one document at once. */
typedef struct rill_toml rill_toml;
/* A node of a document: a table, an array or a scalar. Pointers to values live as long as their
 * document. */
typedef struct rill_toml_value rill_toml_value;

/* rill_toml_type's values and their names (rill_toml_type_name), one list. */
#define RILL_TOML_TYPE_LIST(X)                                                                     \
    X(RILL_TOML_NONE, "none") /* "no such value" */                                                \
    X(RILL_TOML_STRING, "string")                                                                  \
    X(RILL_TOML_INT, "integer")                                                                    \
    X(RILL_TOML_FLOAT, "float")                                                                    \
    X(RILL_TOML_BOOL, "boolean")                                                                   \
    X(RILL_TOML_ARRAY, "array")                                                                    \
    X(RILL_TOML_TABLE, "table")
typedef enum rill_toml_type {
    RILL_TOML_TYPE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_TOML_TYPE_NUM,
    RILL_TOML_TYPE_FORCE_U32 = 0x7FFFFFFF
} rill_toml_type;

/* Hard limits that keep hostile input bounded. A document that exceeds one fails with
 * RILL_ERR_LIMIT and names the place. */
#define RILL_TOML_MAX_DEPTH 64u         /* nesting of arrays and inline tables */
#define RILL_TOML_MAX_INPUT (64u << 20) /* bytes */

/* Parses text[0..len) (need not be NUL-terminated; embedded NULs are an error). `name` is used in
 * messages (NULL = "<toml>"). On success *out_doc owns a new document; on failure *out_doc is NULL
 * and err (may be NULL) says "name:line:col: what". Columns count bytes from 1. */
rill_result rill_toml_parse(const char *text, size_t len, const char *name, rill_toml **out_doc,
                            rill_error *err);
/* Reads and parses a file; messages use `path` as the name. */
rill_result rill_toml_load(const char *path, rill_toml **out_doc, rill_error *err);
/* Frees a document and every value in it. NULL is a no-op. */
void rill_toml_destroy(rill_toml *doc);

/* The root table (never NULL for a document from rill_toml_parse). */
const rill_toml_value *rill_toml_root(const rill_toml *doc);
/* The name given at parse time. Valid as long as the document. */
const char *rill_toml_name(const rill_toml *doc);

/* Looks up a dotted path from the root: `window.width`, `a."key with.dots".b`, `layers[2]`,
 * `items[0].name`. Returns NULL when any step is missing, is of the wrong kind, or the path is
 * malformed. doc may be NULL (returns NULL). */
const rill_toml_value *rill_toml_find(const rill_toml *doc, const char *path);
/* The same from any table or array value. */
const rill_toml_value *rill_toml_value_find(const rill_toml_value *from, const char *path);

/* Typed getters by path. Each returns `def` when the path is missing or holds another type, except
 * that rill_toml_get_float also accepts an integer. The returned string lives as long as the
 * document (or is `def`). */
const char *rill_toml_get_string(const rill_toml *doc, const char *path, const char *def);
int64_t rill_toml_get_int(const rill_toml *doc, const char *path, int64_t def);
double rill_toml_get_float(const rill_toml *doc, const char *path, double def);
bool rill_toml_get_bool(const rill_toml *doc, const char *path, bool def);

/* Value accessors. All accept NULL (type NONE, length 0, defaults). */
rill_toml_type rill_toml_value_type(const rill_toml_value *v);
/* Number of array items or table members. */
uint32_t rill_toml_value_len(const rill_toml_value *v);
/* Array item i, or table member i in the order the file defines them; NULL when out of range. */
const rill_toml_value *rill_toml_value_at(const rill_toml_value *v, uint32_t i);
/* The key of a table member (NULL for array items and the root). */
const char *rill_toml_value_key(const rill_toml_value *v);
/* Where the value (or, for tables, the header or first key that created it) starts; 1-based. */
uint32_t rill_toml_value_line(const rill_toml_value *v);
uint32_t rill_toml_value_col(const rill_toml_value *v);
/* Where the key of a table member starts (for a [header] table: the header); for values without a
 * key, the same as rill_toml_value_line/col. */
uint32_t rill_toml_value_key_line(const rill_toml_value *v);
uint32_t rill_toml_value_key_col(const rill_toml_value *v);
const char *rill_toml_value_string(const rill_toml_value *v, const char *def);
/* Byte length of a string value (strings may hold NUL bytes written as \u0000); 0 otherwise. */
size_t rill_toml_value_string_len(const rill_toml_value *v);
int64_t rill_toml_value_int(const rill_toml_value *v, int64_t def);
double rill_toml_value_float(const rill_toml_value *v, double def); /* also accepts an integer */
bool rill_toml_value_bool(const rill_toml_value *v, bool def);
/* "string", "integer", "float", "boolean", "array", "table" or "none". Static storage. */
const char *rill_toml_type_name(rill_toml_type type);

#endif
