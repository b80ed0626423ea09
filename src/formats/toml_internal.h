/* toml_internal.h: what the TOML parser (toml.c) and the tree with its lookups (toml_tree.c)
 * share: the value and document structs and the table operations. */
#ifndef RILL_TOML_INTERNAL_H
#define RILL_TOML_INTERNAL_H

#include "rill/formats/toml.h"

#include <stdbool.h>
#include <stddef.h>

enum {
    TF_HEADER = 1u << 0, /* table defined by a [header] */
    TF_DOTTED = 1u << 1, /* table created by a dotted key (a.b = 1) */
    TF_INLINE = 1u << 2, /* inline table { }: sealed once closed */
    TF_AOT = 1u << 3,    /* array created by [[header]] */
    TF_STATIC = 1u << 4, /* array written as a literal [ ]: sealed */
};

/* A table is indexed by hash once it holds this many members; below, a linear scan is faster. */
#define TOML_INDEX_MIN 16u

struct rill_toml_value {
    rill_toml_type type;
    uint32_t line, col;
    uint32_t flags;
    char *key; /* member key within the parent table, NUL-terminated; NULL otherwise */
    uint32_t key_len;
    uint32_t key_line, key_col; /* where the key (or the header naming the table) starts */
    union {
        int64_t i;
        double f;
        bool b;
        struct {
            char *data; /* NUL-terminated; may hold NULs before len */
            uint32_t len;
        } s;
    } as;
    RILL_ARRAY(rill_toml_value *) items; /* members of tables, items of arrays */
    rill_map index;                      /* tables with many members: hash(key) -> item index */
};

struct rill_toml {
    rill_toml_value *root;
    char *name;
};

/* A value of type with its position, zeroed otherwise; NULL when out of memory. */
rill_toml_value *rill__toml_value_new(rill_toml_type type, uint32_t line, uint32_t col);
/* Frees a value tree without recursion (a deeply nested document cannot overflow the stack). */
void rill__toml_value_free(rill_toml_value *v);
/* Whether member m's key is key[0, len). */
bool rill__toml_key_eq(const rill_toml_value *m, const char *key, size_t len);
/* Member `key` of table t, or NULL. */
rill_toml_value *rill__toml_table_get(const rill_toml_value *t, const char *key, size_t len);
/* Adds member m (whose key is set) to table t. Returns false when out of memory. */
bool rill__toml_table_add(rill_toml_value *t, rill_toml_value *m);

#endif
