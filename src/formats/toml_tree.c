/* toml_tree.c: the TOML value tree (values, tables indexed by hash once large, freeing without
 * recursion), the document's lifetime, and the path lookup and typed getters users call. */
#include "toml_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* >>tree -------------------------------------------------------------------------------------- */

rill_toml_value *rill__toml_value_new(rill_toml_type type, uint32_t line, uint32_t col) {
    rill_toml_value *v = rill_calloc_tagged(1, sizeof(*v), RILL_MEM_FORMATS);
    if (v) {
        v->type = type;
        v->line = line;
        v->col = col;
    }
    return v;
}

/* Frees a value tree without recursion, so a deeply nested document cannot overflow the stack
 * on the way out either (the parser bounds depth, but this stays safe for any tree). */
void rill__toml_value_free(rill_toml_value *v) {
    RILL_ARRAY(rill_toml_value *) stack = {0};
    while (v) {
        for (uint32_t i = 0; i < v->items.len; i++) {
            if (!rill_array_push(&stack, v->items.data[i])) {
                /* Out of memory while freeing: fall back to recursion for this child. */
                rill__toml_value_free(v->items.data[i]);
            }
        }
        rill_array_free(&v->items);
        rill_map_free(&v->index);
        rill_free(v->key);
        if (v->type == RILL_TOML_STRING) {
            rill_free(v->as.s.data);
        }
        rill_free(v);
        v = stack.len ? rill_array_pop(&stack) : NULL;
    }
    rill_array_free(&stack);
}

bool rill__toml_key_eq(const rill_toml_value *m, const char *key, size_t len) {
    return m->key && m->key_len == len && memcmp(m->key, key, len) == 0;
}

/* Member `key` of table t, or NULL. */
rill_toml_value *rill__toml_table_get(const rill_toml_value *t, const char *key, size_t len) {
    if (t->index.cap) {
        uint64_t idx;
        if (rill_map_get(&t->index, rill_hash64(key, len), &idx) && idx < t->items.len &&
            rill__toml_key_eq(t->items.data[idx], key, len)) {
            return t->items.data[idx];
        }
        /* A hash collision keeps the first key in the index; the rest are found by scanning. */
    }
    for (uint32_t i = 0; i < t->items.len; i++) {
        if (rill__toml_key_eq(t->items.data[i], key, len)) {
            return t->items.data[i];
        }
    }
    return NULL;
}

/* Adds member m (whose key is set) to table t. Returns false when out of memory. */
bool rill__toml_table_add(rill_toml_value *t, rill_toml_value *m) {
    if (!rill_array_push(&t->items, m)) {
        return false;
    }
    if (t->items.len >= TOML_INDEX_MIN) {
        if (!t->index.cap) {
            for (uint32_t i = 0; i < t->items.len; i++) {
                uint64_t h = rill_hash64(t->items.data[i]->key, t->items.data[i]->key_len);
                uint64_t old;
                if (!rill_map_get(&t->index, h, &old) && !rill_map_set(&t->index, h, i)) {
                    t->items.len--;
                    return false;
                }
            }
        } else {
            uint64_t h = rill_hash64(m->key, m->key_len);
            uint64_t old;
            if (!rill_map_get(&t->index, h, &old) &&
                !rill_map_set(&t->index, h, t->items.len - 1u)) {
                t->items.len--;
                return false;
            }
        }
    }
    return true;
}

void rill_toml_destroy(rill_toml *doc) {
    if (!doc) {
        return;
    }
    rill__toml_value_free(doc->root);
    rill_free(doc->name);
    rill_free(doc);
}

const rill_toml_value *rill_toml_root(const rill_toml *doc) {
    return doc ? doc->root : NULL;
}

const char *rill_toml_name(const rill_toml *doc) {
    return doc ? doc->name : NULL;
}

/* >>lookup ------------------------------------------------------------------------------------ */

const rill_toml_value *rill_toml_value_find(const rill_toml_value *from, const char *path) {
    if (!from || !path) {
        return NULL;
    }
    const rill_toml_value *v = from;
    const char *s = path;
    if (*s == '\0') {
        return v;
    }
    for (;;) {
        if (*s == '[') {
            /* Array index: [N]. */
            s++;
            uint64_t idx = 0;
            if (*s < '0' || *s > '9') {
                return NULL;
            }
            while (*s >= '0' && *s <= '9') {
                idx = idx * 10u + (uint64_t)(*s - '0');
                if (idx > UINT32_MAX) {
                    return NULL;
                }
                s++;
            }
            if (*s != ']' || v->type != RILL_TOML_ARRAY || idx >= v->items.len) {
                return NULL;
            }
            s++;
            v = v->items.data[idx];
        } else {
            const char *key;
            size_t klen;
            if (*s == '"' || *s == '\'') {
                char q = *s++;
                key = s;
                while (*s && *s != q) {
                    s++;
                }
                if (*s != q) {
                    return NULL;
                }
                klen = (size_t)(s - key);
                s++;
            } else {
                key = s;
                while (*s && *s != '.' && *s != '[') {
                    s++;
                }
                klen = (size_t)(s - key);
                if (klen == 0) {
                    return NULL;
                }
            }
            if (v->type != RILL_TOML_TABLE) {
                return NULL;
            }
            v = rill__toml_table_get(v, key, klen);
            if (!v) {
                return NULL;
            }
        }
        if (*s == '\0') {
            return v;
        }
        if (*s == '.') {
            s++;
            if (*s == '\0') {
                return NULL;
            }
        } else if (*s != '[') {
            return NULL;
        }
    }
}

const rill_toml_value *rill_toml_find(const rill_toml *doc, const char *path) {
    return doc ? rill_toml_value_find(doc->root, path) : NULL;
}

rill_toml_type rill_toml_value_type(const rill_toml_value *v) {
    return v ? v->type : RILL_TOML_NONE;
}

uint32_t rill_toml_value_len(const rill_toml_value *v) {
    return v && (v->type == RILL_TOML_ARRAY || v->type == RILL_TOML_TABLE) ? v->items.len : 0u;
}

const rill_toml_value *rill_toml_value_at(const rill_toml_value *v, uint32_t i) {
    return i < rill_toml_value_len(v) ? v->items.data[i] : NULL;
}

const char *rill_toml_value_key(const rill_toml_value *v) {
    return v ? v->key : NULL;
}

uint32_t rill_toml_value_line(const rill_toml_value *v) {
    return v ? v->line : 0u;
}

uint32_t rill_toml_value_col(const rill_toml_value *v) {
    return v ? v->col : 0u;
}

uint32_t rill_toml_value_key_line(const rill_toml_value *v) {
    return v && v->key ? v->key_line : rill_toml_value_line(v);
}

uint32_t rill_toml_value_key_col(const rill_toml_value *v) {
    return v && v->key ? v->key_col : rill_toml_value_col(v);
}

const char *rill_toml_value_string(const rill_toml_value *v, const char *def) {
    return v && v->type == RILL_TOML_STRING ? v->as.s.data : def;
}

size_t rill_toml_value_string_len(const rill_toml_value *v) {
    return v && v->type == RILL_TOML_STRING ? v->as.s.len : 0u;
}

int64_t rill_toml_value_int(const rill_toml_value *v, int64_t def) {
    return v && v->type == RILL_TOML_INT ? v->as.i : def;
}

double rill_toml_value_float(const rill_toml_value *v, double def) {
    if (v && v->type == RILL_TOML_FLOAT) {
        return v->as.f;
    }
    if (v && v->type == RILL_TOML_INT) {
        return (double)v->as.i;
    }
    return def;
}

bool rill_toml_value_bool(const rill_toml_value *v, bool def) {
    return v && v->type == RILL_TOML_BOOL ? v->as.b : def;
}

const char *rill_toml_get_string(const rill_toml *doc, const char *path, const char *def) {
    return rill_toml_value_string(rill_toml_find(doc, path), def);
}

int64_t rill_toml_get_int(const rill_toml *doc, const char *path, int64_t def) {
    return rill_toml_value_int(rill_toml_find(doc, path), def);
}

double rill_toml_get_float(const rill_toml *doc, const char *path, double def) {
    return rill_toml_value_float(rill_toml_find(doc, path), def);
}

bool rill_toml_get_bool(const rill_toml *doc, const char *path, bool def) {
    return rill_toml_value_bool(rill_toml_find(doc, path), def);
}

const char *rill_toml_type_name(rill_toml_type type) {
    switch (type) {
        RILL_TOML_TYPE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "none";
    }
}
