/* reflect.c: the reflection side of the world module: field type tables, registry copies of type
 * descriptions, and the generic object helpers (defaults, clamp, copy, equal, numeric access, text
 * dump) that the scene reader/writer, effect routing and stats dumps share. The text form of a
 * field (format and parse) is in reflect_text.c. */
#include "world_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* >>field types */

/* How the numeric lanes of a field type are stored. */
typedef enum lane_kind {
    LANE_NONE,
    LANE_BOOL,
    LANE_I32,
    LANE_U32,
    LANE_I64,
    LANE_U64,
    LANE_F32,
    LANE_F64
} lane_kind;

typedef struct field_info {
    uint8_t size;  /* bytes per element */
    uint8_t align; /* required alignment of an element */
    uint8_t lanes; /* numeric lanes per element (0 = not numeric) */
    uint8_t lane;  /* lane_kind */
} field_info;

static const field_info FIELD_INFO[RILL_FIELD_TYPE_NUM] = {
    [RILL_FIELD_NONE] = {0, 1, 0, LANE_NONE},
    [RILL_FIELD_BOOL] = {sizeof(bool), _Alignof(bool), 1, LANE_BOOL},
    [RILL_FIELD_I32] = {4, 4, 1, LANE_I32},
    [RILL_FIELD_U32] = {4, 4, 1, LANE_U32},
    [RILL_FIELD_I64] = {8, _Alignof(int64_t), 1, LANE_I64},
    [RILL_FIELD_U64] = {8, _Alignof(uint64_t), 1, LANE_U64},
    [RILL_FIELD_F32] = {4, 4, 1, LANE_F32},
    [RILL_FIELD_F64] = {8, _Alignof(double), 1, LANE_F64},
    [RILL_FIELD_VEC2] = {8, 4, 2, LANE_F32},
    [RILL_FIELD_VEC3] = {12, 4, 3, LANE_F32},
    [RILL_FIELD_VEC4] = {16, 4, 4, LANE_F32},
    [RILL_FIELD_QUAT] = {16, 4, 4, LANE_F32},
    [RILL_FIELD_COLOR] = {16, 4, 4, LANE_F32},
    [RILL_FIELD_STRING] = {sizeof(const char *), _Alignof(const char *), 0, LANE_NONE},
    [RILL_FIELD_ASSET_PATH] = {sizeof(const char *), _Alignof(const char *), 0, LANE_NONE},
    [RILL_FIELD_ENTITY] = {8, _Alignof(rill_entity), 0, LANE_NONE},
    [RILL_FIELD_ENUM] = {4, 4, 1, LANE_I32},
};

static bool type_valid(rill_field_type t) {
    return t > RILL_FIELD_NONE && t < RILL_FIELD_TYPE_NUM;
}

static bool is_string_type(rill_field_type t) {
    return t == RILL_FIELD_STRING || t == RILL_FIELD_ASSET_PATH;
}

size_t rill_field_type_size(rill_field_type type) {
    return type_valid(type) ? FIELD_INFO[type].size : 0;
}

const char *rill_field_type_name(rill_field_type type) {
    switch (type) {
        RILL_FIELD_TYPE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "none";
    }
}

rill_field_type rill_field_type_from_name(const char *name) {
    if (name == NULL) {
        return RILL_FIELD_NONE;
    }
    for (int t = 1; t < RILL_FIELD_TYPE_NUM; t++) {
        if (strcmp(rill_field_type_name((rill_field_type)t), name) == 0) {
            return (rill_field_type)t;
        }
    }
    return RILL_FIELD_NONE;
}

uint32_t rill_field_count(const rill_field *field) {
    return field->count == 0 ? 1u : field->count;
}

const rill_field *rill_type_find_field(const rill_type_desc *type, const char *name) {
    if (type == NULL || name == NULL) {
        return NULL;
    }
    for (uint32_t i = 0; i < type->field_count; i++) {
        if (type->fields[i].name != NULL && strcmp(type->fields[i].name, name) == 0) {
            return &type->fields[i];
        }
    }
    return NULL;
}

/* >>registry copies */

static bool own(rill__type *t, void *p) {
    void **grown =
        rill_realloc_tagged(t->owned, sizeof(void *) * (t->owned_len + 1u), RILL_MEM_WORLD);
    if (grown == NULL) {
        return false;
    }
    t->owned = grown;
    t->owned[t->owned_len++] = p;
    return true;
}

/* Interns every string element of the string fields of obj in place. */
static void intern_strings(const rill_field *fields, uint32_t field_count, void *obj) {
    for (uint32_t i = 0; i < field_count; i++) {
        const rill_field *f = &fields[i];
        if (!is_string_type(f->type)) {
            continue;
        }
        const char **p = (const char **)RILL_FIELD_PTR(obj, f);
        for (uint32_t k = 0; k < rill_field_count(f); k++) {
            if (p[k] != NULL) {
                p[k] = rill_intern(p[k]);
            }
        }
    }
}

void rill__type_destroy(rill__type *t) {
    if (t == NULL) {
        return;
    }
    for (uint32_t i = 0; i < t->owned_len; i++) {
        rill_free(t->owned[i]);
    }
    rill_free(t->owned);
    rill_free(t->fields);
    rill_free(t->defaults);
    rill_free(t);
}

rill__type *rill__type_create(const rill_type_desc *desc, rill_error *err) {
    if (desc == NULL || desc->name == NULL || desc->name[0] == '\0' || desc->size == 0) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "type desc needs a name and a size");
        return NULL;
    }
    uint32_t align = desc->align;
    if (align == 0) {
        /* Largest power of two up to 8 that divides the size: what the C struct most likely has. */
        align = 8;
        while (align > 1 && desc->size % align != 0) {
            align >>= 1;
        }
    }
    if (align > 16 || (align & (align - 1u)) != 0) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "type %s: alignment %u is not a power of two <= 16", desc->name, align);
        return NULL;
    }
    if (desc->field_count > 0 && desc->fields == NULL) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "type %s: field_count without fields",
                       desc->name);
        return NULL;
    }
    for (uint32_t i = 0; i < desc->field_count; i++) {
        const rill_field *f = &desc->fields[i];
        if (f->name == NULL || f->name[0] == '\0' || !type_valid(f->type)) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                           "type %s: field %u has no name or a bad type", desc->name, i);
            return NULL;
        }
        uint64_t end =
            (uint64_t)f->offset + (uint64_t)rill_field_count(f) * FIELD_INFO[f->type].size;
        if (end > desc->size || f->offset % FIELD_INFO[f->type].align != 0) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                           "type %s: field %s lies outside the struct or is misaligned", desc->name,
                           f->name);
            return NULL;
        }
        if (f->type == RILL_FIELD_ENUM && f->enum_count > 0 && f->enum_items == NULL) {
            rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "type %s: enum field %s has no items",
                           desc->name, f->name);
            return NULL;
        }
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(desc->fields[j].name, f->name) == 0) {
                rill_error_set(err, RILL_ERR_ALREADY_EXISTS, "type %s: field %s appears twice",
                               desc->name, f->name);
                return NULL;
            }
        }
    }

    rill__type *t = rill_calloc_tagged(1, sizeof(*t), RILL_MEM_WORLD);
    if (t == NULL) {
        goto oom;
    }
    t->desc = *desc;
    t->desc.align = align;
    t->desc.name = rill_intern(desc->name);
    t->desc.doc = desc->doc ? rill_intern(desc->doc) : NULL;
    if (desc->field_count > 0) {
        t->fields = rill_calloc_tagged(desc->field_count, sizeof(rill_field), RILL_MEM_WORLD);
        if (t->fields == NULL) {
            goto oom;
        }
        memcpy(t->fields, desc->fields, sizeof(rill_field) * desc->field_count);
    }
    for (uint32_t i = 0; i < desc->field_count; i++) {
        rill_field *f = &t->fields[i];
        f->name = rill_intern(f->name);
        f->doc = f->doc ? rill_intern(f->doc) : NULL;
        if (f->default_value != NULL) {
            size_t bytes = (size_t)rill_field_count(f) * FIELD_INFO[f->type].size;
            void *copy = rill_malloc_tagged(bytes, RILL_MEM_WORLD);
            if (copy == NULL || !own(t, copy)) {
                rill_free(copy);
                goto oom;
            }
            memcpy(copy, f->default_value, bytes);
            if (is_string_type(f->type)) {
                const char **s = copy;
                for (uint32_t k = 0; k < rill_field_count(f); k++) {
                    s[k] = s[k] ? rill_intern(s[k]) : NULL;
                }
            }
            f->default_value = copy;
        }
        if (f->enum_count > 0) {
            rill_enum_item *items =
                rill_calloc_tagged(f->enum_count, sizeof(*items), RILL_MEM_WORLD);
            if (items == NULL || !own(t, items)) {
                rill_free(items);
                goto oom;
            }
            for (uint32_t k = 0; k < f->enum_count; k++) {
                items[k].name = f->enum_items[k].name ? rill_intern(f->enum_items[k].name) : "";
                items[k].value = f->enum_items[k].value;
            }
            f->enum_items = items;
        } else {
            f->enum_items = NULL;
        }
    }
    t->desc.fields = t->fields;
    /* Bake the defaults into one object so a default add is one memcpy. */
    t->defaults = rill_calloc_tagged(1, desc->size, RILL_MEM_WORLD);
    if (t->defaults == NULL) {
        goto oom;
    }
    t->desc.defaults = NULL;
    t->desc.fields = t->fields;
    {
        rill_type_desc tmp = *desc;
        tmp.fields = t->fields;
        rill_type_apply_defaults(&tmp, t->defaults);
    }
    t->desc.defaults = t->defaults;
    return t;

oom:
    rill__type_destroy(t);
    rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "type %s: out of memory", desc->name);
    return NULL;
}

/* >>object helpers */

void rill_type_apply_defaults(const rill_type_desc *type, void *obj) {
    if (type == NULL || obj == NULL) {
        return;
    }
    memset(obj, 0, type->size);
    if (type->defaults != NULL) {
        memcpy(obj, type->defaults, type->size);
    }
    for (uint32_t i = 0; i < type->field_count; i++) {
        const rill_field *f = &type->fields[i];
        if (f->default_value != NULL && type_valid(f->type)) {
            memcpy(RILL_FIELD_PTR(obj, f), f->default_value,
                   (size_t)rill_field_count(f) * FIELD_INFO[f->type].size);
        }
    }
    intern_strings(type->fields, type->field_count, obj);
}

/* Lane address of flat lane index `i` of field f in obj. */
static void *lane_ptr(const rill_field *f, const void *obj, uint32_t i) {
    const field_info *fi = &FIELD_INFO[f->type];
    uint32_t lane_size = fi->size / fi->lanes;
    return (char *)obj + f->offset + (size_t)i * lane_size;
}

static double lane_get(lane_kind k, const void *p) {
    switch (k) {
    case LANE_BOOL:
        return *(const bool *)p ? 1.0 : 0.0;
    case LANE_I32:
        return (double)*(const int32_t *)p;
    case LANE_U32:
        return (double)*(const uint32_t *)p;
    case LANE_I64:
        return (double)*(const int64_t *)p;
    case LANE_U64:
        return (double)*(const uint64_t *)p;
    case LANE_F32:
        return (double)*(const float *)p;
    case LANE_F64:
        return *(const double *)p;
    default:
        return 0.0;
    }
}

/* Converts v to an integer type without undefined behaviour (NaN -> 0, saturating). */
static int64_t sat_i64(double v, double lo, double hi) {
    if (v != v) {
        return 0;
    }
    if (v <= lo) {
        return (int64_t)lo;
    }
    if (v >= hi) {
        return v >= 9.2233720368547758e18 ? INT64_MAX : (int64_t)hi;
    }
    return (int64_t)v;
}

static void lane_set(lane_kind k, void *p, double v) {
    switch (k) {
    case LANE_BOOL:
        *(bool *)p = v != 0.0;
        break;
    case LANE_I32:
        *(int32_t *)p = (int32_t)sat_i64(v, -2147483648.0, 2147483647.0);
        break;
    case LANE_U32:
        *(uint32_t *)p = (uint32_t)sat_i64(v, 0.0, 4294967295.0);
        break;
    case LANE_I64:
        *(int64_t *)p = sat_i64(v, -9.2233720368547758e18, 9.2233720368547758e18);
        break;
    case LANE_U64:
        if (v != v || v <= 0.0) {
            *(uint64_t *)p = 0;
        } else if (v >= 1.8446744073709552e19) {
            *(uint64_t *)p = UINT64_MAX;
        } else {
            *(uint64_t *)p = (uint64_t)v;
        }
        break;
    case LANE_F32:
        *(float *)p = (float)v;
        break;
    case LANE_F64:
        *(double *)p = v;
        break;
    default:
        break;
    }
}

bool rill_field_get_f64(const rill_field *field, const void *obj, uint32_t index, double *out) {
    if (field == NULL || obj == NULL || !type_valid(field->type) ||
        FIELD_INFO[field->type].lanes == 0) {
        return false;
    }
    if (index >= rill_field_count(field) * FIELD_INFO[field->type].lanes) {
        return false;
    }
    if (out) {
        *out = lane_get((lane_kind)FIELD_INFO[field->type].lane, lane_ptr(field, obj, index));
    }
    return true;
}

bool rill_field_set_f64(const rill_field *field, void *obj, uint32_t index, double value) {
    if (field == NULL || obj == NULL || !type_valid(field->type) ||
        FIELD_INFO[field->type].lanes == 0) {
        return false;
    }
    if (index >= rill_field_count(field) * FIELD_INFO[field->type].lanes) {
        return false;
    }
    lane_set((lane_kind)FIELD_INFO[field->type].lane, lane_ptr(field, obj, index), value);
    return true;
}

uint32_t rill_type_clamp(const rill_type_desc *type, void *obj) {
    if (type == NULL || obj == NULL) {
        return 0;
    }
    uint32_t changed = 0;
    for (uint32_t i = 0; i < type->field_count; i++) {
        const rill_field *f = &type->fields[i];
        if (!(f->flags & (RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX)) || !type_valid(f->type)) {
            continue;
        }
        const field_info *fi = &FIELD_INFO[f->type];
        if (fi->lanes == 0 || fi->lane == LANE_BOOL) {
            continue;
        }
        uint32_t n = rill_field_count(f) * fi->lanes;
        for (uint32_t k = 0; k < n; k++) {
            void *p = lane_ptr(f, obj, k);
            double v = lane_get((lane_kind)fi->lane, p);
            double c = v;
            if (v != v) {
                c = (f->flags & RILL_FIELD_HAS_MIN)   ? f->min
                    : (f->flags & RILL_FIELD_HAS_MAX) ? f->max
                                                      : 0.0;
            } else if ((f->flags & RILL_FIELD_HAS_MIN) && v < f->min) {
                c = f->min;
            } else if ((f->flags & RILL_FIELD_HAS_MAX) && v > f->max) {
                c = f->max;
            }
            if (c != v || v != v) {
                lane_set((lane_kind)fi->lane, p, c);
                changed++;
            }
        }
    }
    return changed;
}

void rill_type_copy(const rill_type_desc *type, void *dst, const void *src) {
    if (type != NULL && dst != NULL && src != NULL && dst != src) {
        memmove(dst, src, type->size);
    }
}

static bool str_eq(const char *a, const char *b) {
    if (a == b) {
        return true;
    }
    return strcmp(a ? a : "", b ? b : "") == 0;
}

bool rill_type_equal(const rill_type_desc *type, const void *a, const void *b) {
    if (type == NULL || a == NULL || b == NULL) {
        return a == b;
    }
    for (uint32_t i = 0; i < type->field_count; i++) {
        const rill_field *f = &type->fields[i];
        if (!type_valid(f->type)) {
            continue;
        }
        const field_info *fi = &FIELD_INFO[f->type];
        uint32_t n = rill_field_count(f);
        if (is_string_type(f->type)) {
            const char *const *pa = (const char *const *)((const char *)a + f->offset);
            const char *const *pb = (const char *const *)((const char *)b + f->offset);
            for (uint32_t k = 0; k < n; k++) {
                if (!str_eq(pa[k], pb[k])) {
                    return false;
                }
            }
        } else if (f->type == RILL_FIELD_ENTITY || fi->lane == LANE_I64 || fi->lane == LANE_U64) {
            /* Compared bit for bit: doubles cannot hold every 64-bit integer. */
            if (memcmp((const char *)a + f->offset, (const char *)b + f->offset,
                       (size_t)n * fi->size) != 0) {
                return false;
            }
        } else if (fi->lane == LANE_BOOL) {
            for (uint32_t k = 0; k < n; k++) {
                if (((const bool *)((const char *)a + f->offset))[k] !=
                    ((const bool *)((const char *)b + f->offset))[k]) {
                    return false;
                }
            }
        } else {
            for (uint32_t k = 0; k < n * fi->lanes; k++) {
                if (lane_get((lane_kind)fi->lane, lane_ptr(f, a, k)) !=
                    lane_get((lane_kind)fi->lane, lane_ptr(f, b, k))) {
                    return false;
                }
            }
        }
    }
    return true;
}

const char *rill_field_enum_name(const rill_field *field, int32_t value) {
    if (field == NULL) {
        return NULL;
    }
    for (uint32_t i = 0; i < field->enum_count; i++) {
        if (field->enum_items[i].value == value) {
            return field->enum_items[i].name;
        }
    }
    return NULL;
}

bool rill__field_enum_lookup(const rill_field *field, const char *name, size_t len, int32_t *out) {
    for (uint32_t i = 0; i < field->enum_count; i++) {
        const char *n = field->enum_items[i].name;
        if (n != NULL && strlen(n) == len && memcmp(n, name, len) == 0) {
            *out = field->enum_items[i].value;
            return true;
        }
    }
    return false;
}

bool rill_field_enum_value(const rill_field *field, const char *name, int32_t *out_value) {
    if (field == NULL || name == NULL) {
        return false;
    }
    int32_t v;
    if (!rill__field_enum_lookup(field, name, strlen(name), &v)) {
        return false;
    }
    if (out_value) {
        *out_value = v;
    }
    return true;
}

/* >>dump */

bool rill_type_dump(const rill_type_desc *type, const void *obj, rill_strbuf *out) {
    if (type == NULL || obj == NULL || out == NULL) {
        return false;
    }
    bool ok = rill_strbuf_printf(out, "%s {", type->name);
    for (uint32_t i = 0; ok && i < type->field_count; i++) {
        const rill_field *f = &type->fields[i];
        if (f->flags & RILL_FIELD_NO_SERIALIZE) {
            continue;
        }
        ok = rill_strbuf_printf(out, " %s: ", f->name) && rill_field_format(f, obj, out);
    }
    return ok && rill_strbuf_append(out, " }", 2);
}
