/* bind.c: turns a parsed .rsn document into component bytes using the reflection registry
 * (through a scene_types snapshot), expands non-streamed scene instances, and applies a bound
 * entity to the world.
 *
 * Binding runs on workers, so it only touches the snapshot, the interner (thread-safe) and the
 * VFS (thread-safe). It collects everything the main thread needs into a bound_scene: one byte
 * blob with every component's data, and the entity fields to patch once world entities exist.
 */
#include "scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* >>snapshot ---------------------------------------------------------------------------------- */

scene_types *rill__scene_types_create(rill_world *world) {
    scene_types *t = rill_calloc_tagged(1, sizeof *t, RILL_MEM_SCENE);
    if (!t)
        return NULL;
    atomic_store(&t->refs, 1);
    uint32_t n = rill_world_component_count(world);
    t->world_component_count = n;
    t->items = rill_calloc_tagged(n ? n : 1, sizeof *t->items, RILL_MEM_SCENE);
    if (!t->items)
        goto fail;
    for (uint32_t id = 1; id <= n; id++) {
        rill_component c = {id};
        const rill_type_desc *ty = rill_world_component_type(world, c);
        if (!ty || !ty->name)
            continue;
        scene_type *st = &t->items[t->count];
        st->type = ty;
        st->id = c;
        st->skip = (ty->flags & (RILL_TYPE_NO_SERIALIZE | RILL_TYPE_MANAGED)) != 0;
        st->proto = rill_malloc_tagged(ty->size ? ty->size : 1, RILL_MEM_SCENE);
        st->name_len = rill_calloc_tagged(ty->field_count ? ty->field_count : 1, sizeof(uint32_t),
                                          RILL_MEM_SCENE);
        if (!st->proto || !st->name_len)
            goto fail;
        for (uint32_t k = 0; k < ty->field_count; k++) {
            st->name_len[k] = ty->fields[k].name ? (uint32_t)strlen(ty->fields[k].name) : 0;
        }
        rill_type_apply_defaults(ty, st->proto);
        if (!rill_map_set(&t->by_name, rill_hash64_str(ty->name), t->count))
            goto fail;
        t->count++;
    }
    t->name_comp = rill_world_builtin(world)->name;
    t->instance_comp = rill_world_find_component(world, "SceneInstance");
    t->unknown_comp = rill_world_find_component(world, "SceneUnknown");
    return t;
fail:
    rill__scene_types_release(t);
    return NULL;
}

void rill__scene_types_retain(scene_types *t) {
    if (t)
        atomic_fetch_add(&t->refs, 1);
}

void rill__scene_types_release(scene_types *t) {
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
        return;
    for (uint32_t i = 0; i < t->count; i++) {
        rill_free(t->items[i].proto);
        rill_free(t->items[i].name_len);
    }
    rill_free(t->items);
    rill_map_free(&t->by_name);
    rill_free(t);
}

int32_t rill__scene_types_find(const scene_types *t, const char *name, size_t len) {
    uint64_t idx;
    if (!rill_map_get(&t->by_name, rill_hash64(name, len), &idx))
        return -1;
    const char *n = t->items[idx].type->name;
    if (strlen(n) != len || memcmp(n, name, len) != 0)
        return -1;
    return (int32_t)idx;
}

/* rill_hash64_str must agree with rill_hash64 over the same bytes for the lookup above; both are
 * XXH3 of the string's bytes per base.h. */

void rill__bound_free(bound_scene *b) {
    rill_array_free(&b->ents);
    rill_array_free(&b->comps);
    rill_array_free(&b->fixes);
    rill_free(b->blob);
    memset(b, 0, sizeof *b);
}

rill_result rill__scene_read_file(rill_vfs *vfs, const char *path, char **out, size_t *out_len,
                                  rill_error *err) {
    uint8_t *data = NULL;
    size_t size = 0;
    rill_result r = vfs ? rill_vfs_read_all(vfs, path, &data, &size, err)
                        : rill_file_read_all(path, &data, &size, err);
    if (r != RILL_OK)
        return r;
    *out = (char *)data;
    *out_len = size;
    return RILL_OK;
}

/* >>binding ----------------------------------------------------------------------------------- */

typedef struct doc_cache_entry {
    const char *path; /* interned */
    rsn_doc *doc;     /* NULL: the file could not be read or parsed (already warned) */
} doc_cache_entry;

typedef struct binder {
    const scene_types *types;
    const bind_opts *opts;
    bound_scene *out;
    rill_error *err;
    bool failed;
    const char *stack[64]; /* interned paths of the files being expanded, outermost first */
    uint32_t depth;
    RILL_ARRAY(doc_cache_entry) docs;
    rill_map asset_seen; /* interned path pointer -> 1 exists / 2 missing */
    rill_strbuf unknown; /* verbatim blocks of the current entity */
    char *scratch;       /* string decoding buffer */
    size_t scratch_cap;
} binder;

/* The place of a value for messages. */
typedef struct place {
    const rsn_doc *doc;
    const char *comp;
    uint32_t comp_len;
    const char *field;
    uint32_t field_len;
} place;

static bool bind_fail(binder *b, const place *pl, uint32_t line, uint32_t col, const char *fmt, ...)
    RILL_PRINTF(5, 6);
static bool bind_fail(binder *b, const place *pl, uint32_t line, uint32_t col, const char *fmt,
                      ...) {
    if (b->failed)
        return false;
    b->failed = true;
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rill_error_set(b->err, RILL_ERR_PARSE, "%s:%u:%u: %.*s.%.*s: %s", pl->doc->path, line, col,
                   (int)pl->comp_len, pl->comp, (int)pl->field_len, pl->field, msg);
    return false;
}

static void bind_warn(binder *b, const place *pl, uint32_t line, uint32_t col, const char *fmt, ...)
    RILL_PRINTF(5, 6);
static void bind_warn(binder *b, const place *pl, uint32_t line, uint32_t col, const char *fmt,
                      ...) {
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    b->out->warnings++;
    if (pl->field) {
        RILL_LOG_WARN(SCENE_LOG, "%s:%u:%u: %.*s.%.*s: %s", pl->doc->path, line, col,
                      (int)pl->comp_len, pl->comp, (int)pl->field_len, pl->field, msg);
    } else {
        RILL_LOG_WARN(SCENE_LOG, "%s:%u:%u: %s", pl->doc->path, line, col, msg);
    }
}

static const char *value_kind_name(uint8_t kind) {
    switch (kind) {
    case RSN_V_BOOL:
        return "a bool";
    case RSN_V_NUMBER:
        return "a number";
    case RSN_V_STRING:
        return "a string";
    case RSN_V_ASSET:
        return "an asset path";
    case RSN_V_REF:
        return "an entity reference";
    case RSN_V_NONE:
        return "'none'";
    case RSN_V_IDENT:
        return "a name";
    case RSN_V_TUPLE:
        return "a tuple";
    case RSN_V_LIST:
        return "an array";
    default:
        return "a value";
    }
}

/* Decodes a string value and interns it ("" interns as NULL for paths). */
static const char *intern_value(binder *b, const rsn_doc *doc, const rsn_value *v) {
    const char *span = doc->src + v->off;
    if (!v->flag) {
        return rill_intern_n(span, v->len);
    }
    if (b->scratch_cap < (size_t)v->len + 1u) {
        char *s = rill_realloc_tagged(b->scratch, (size_t)v->len + 1u, RILL_MEM_SCENE);
        if (!s)
            return NULL;
        b->scratch = s;
        b->scratch_cap = (size_t)v->len + 1u;
    }
    size_t n = rill__rsn_string_decode(span, v->len, b->scratch, b->scratch_cap);
    return rill_intern_n(b->scratch, n);
}

/* Clamps a numeric lane to the field's bounds, warning when it changes. */
static double clamp_lane(binder *b, const place *pl, const rsn_value *v, const rill_field *f,
                         double x) {
    double y = x;
    if ((f->flags & RILL_FIELD_HAS_MIN) && !(y >= f->min))
        y = f->min;
    if ((f->flags & RILL_FIELD_HAS_MAX) && y > f->max)
        y = f->max;
    if (y != x || (isnan(x) && !isnan(y))) {
        bind_warn(b, pl, v->line, v->col, "value %.*s out of range, clamped to %g",
                  (int)RILL_MIN(v->len, 40u), pl->doc->src + v->off, y);
    }
    return y;
}

static bool bind_int(binder *b, const place *pl, const rsn_value *v, const rill_field *f,
                     void *dst) {
    if (v->kind != RSN_V_NUMBER) {
        return bind_fail(b, pl, v->line, v->col, "expected an integer, found %s",
                         value_kind_name(v->kind));
    }
    bool neg, over;
    uint64_t mag;
    if (!rill_num_parse_int(pl->doc->src + v->off, v->len, &neg, &mag, &over)) {
        return bind_fail(b, pl, v->line, v->col, "'%.*s' is not an integer",
                         (int)RILL_MIN(v->len, 40u), pl->doc->src + v->off);
    }
    /* Range of the storage type, then the field's own bounds. */
    long double lo, hi;
    switch (f->type) {
    case RILL_FIELD_I32:
        lo = INT32_MIN;
        hi = INT32_MAX;
        break;
    case RILL_FIELD_U32:
        lo = 0;
        hi = UINT32_MAX;
        break;
    case RILL_FIELD_I64:
        lo = (long double)INT64_MIN;
        hi = (long double)INT64_MAX;
        break;
    default:
        lo = 0;
        hi = (long double)UINT64_MAX;
        break;
    }
    if (f->flags & RILL_FIELD_HAS_MIN && (long double)f->min > lo)
        lo = ceill(f->min);
    if (f->flags & RILL_FIELD_HAS_MAX && (long double)f->max < hi)
        hi = floorl(f->max);
    long double x = neg ? -(long double)mag : (long double)mag;
    bool clamped = over;
    if (x < lo) {
        x = lo;
        clamped = true;
    }
    if (x > hi) {
        x = hi;
        clamped = true;
    }
    if (clamped) {
        bind_warn(b, pl, v->line, v->col, "value %.*s out of range, clamped to %.0Lf",
                  (int)RILL_MIN(v->len, 40u), pl->doc->src + v->off, x);
    }
    /* Exact conversions: x is integral and inside the type's range here. For 64-bit types rebuild
     * from the magnitude when not clamped, since long double may not hold every u64. */
    switch (f->type) {
    case RILL_FIELD_I32: {
        int32_t y = (int32_t)x;
        memcpy(dst, &y, 4);
        break;
    }
    case RILL_FIELD_U32: {
        uint32_t y = (uint32_t)x;
        memcpy(dst, &y, 4);
        break;
    }
    case RILL_FIELD_I64: {
        int64_t y;
        if (!clamped && !neg)
            y = (int64_t)mag;
        else if (!clamped && neg)
            y = (int64_t)(0u - mag);
        else
            y = x <= (long double)INT64_MIN   ? INT64_MIN
                : x >= (long double)INT64_MAX ? INT64_MAX
                                              : (int64_t)x;
        memcpy(dst, &y, 8);
        break;
    }
    default: {
        uint64_t y = !clamped ? mag : (x >= (long double)UINT64_MAX ? UINT64_MAX : (uint64_t)x);
        memcpy(dst, &y, 8);
        break;
    }
    }
    return true;
}

/* True when a number token that parsed to infinity was written as a finite decimal: "1e999" (or
 * "1e39" for a 32-bit float) overflowed. Only the tokens inf/+inf/-inf mean infinity. */
static bool overflowed(const char *s, uint32_t len, double x) {
    if (!isinf(x))
        return false;
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        s++;
        len--;
    }
    return !(len == 3 && memcmp(s, "inf", 3) == 0);
}

static bool bind_float_lane(binder *b, const place *pl, const rsn_value *v, const rill_field *f,
                            bool f64, void *dst) {
    if (v->kind != RSN_V_NUMBER) {
        return bind_fail(b, pl, v->line, v->col, "expected a number, found %s",
                         value_kind_name(v->kind));
    }
    const char *s = pl->doc->src + v->off;
    bool has_bounds = (f->flags & (RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX)) != 0;
    if (f64) {
        double d;
        if (!rill_num_parse_f64(s, v->len, &d)) {
            return bind_fail(b, pl, v->line, v->col, "'%.*s' is not a number",
                             (int)RILL_MIN(v->len, 40u), s);
        }
        if (overflowed(s, v->len, d)) {
            return bind_fail(b, pl, v->line, v->col,
                             "number too large for a 64-bit float (write inf for infinity)");
        }
        if (has_bounds)
            d = clamp_lane(b, pl, v, f, d);
        memcpy(dst, &d, 8);
    } else {
        float x;
        if (!rill_num_parse_f32(s, v->len, &x)) {
            /* An integer token in hex is a valid integer but not a float. */
            return bind_fail(b, pl, v->line, v->col, "'%.*s' is not a number",
                             (int)RILL_MIN(v->len, 40u), s);
        }
        if (overflowed(s, v->len, (double)x)) {
            return bind_fail(b, pl, v->line, v->col,
                             "number too large for a 32-bit float (write inf for infinity)");
        }
        if (has_bounds) {
            double y = clamp_lane(b, pl, v, f, (double)x);
            if (y != (double)x && !(isnan(y) && isnan(x)))
                x = (float)y;
        }
        memcpy(dst, &x, 4);
    }
    return true;
}

/* Normalizes an interned asset path and, when asked, checks that the VFS has it; warns about
 * invalid or missing paths at every use. Files repeat the same paths many times, so the result is
 * cached per interned spelling: the map holds the normalized interned pointer, with bit 0 set when
 * the path is invalid and bit 1 set when it is missing (interned strings are at least 2-aligned
 * in practice, but the low bits are masked only after checking the stored flag bits). */
static const char *asset_check(binder *b, const place *pl, const rsn_value *v, const char *s) {
    uint64_t key = (uint64_t)(uintptr_t)s, val;
    const char *norm_s;
    bool invalid = false, missing = false;
    if (rill_map_get(&b->asset_seen, key, &val)) {
        norm_s = (const char *)(uintptr_t)(val & ~UINT64_C(3));
        invalid = (val & 1u) != 0;
        missing = (val & 2u) != 0;
    } else {
        char norm[RILL_VFS_PATH_MAX + 1];
        norm_s = s;
        if (!rill_path_normalize(norm, sizeof norm, s)) {
            invalid = true;
        } else {
            if (strcmp(norm, s) != 0)
                norm_s = rill_intern(norm);
            if (!norm_s)
                norm_s = s;
            if (b->opts->check_assets) {
                char file[RILL_VFS_PATH_MAX + 1];
                const char *label;
                bool exists = false;
                if (rill_path_split_label(norm_s, file, sizeof file, &label)) {
                    exists =
                        b->opts->vfs ? rill_vfs_exists(b->opts->vfs, file) : rill_file_exists(file);
                }
                missing = !exists;
            }
        }
        if (((uintptr_t)norm_s & 3u) == 0) {
            rill_map_set(&b->asset_seen, key,
                         (uint64_t)(uintptr_t)norm_s | (invalid ? 1u : 0u) | (missing ? 2u : 0u));
        }
    }
    if (invalid) {
        bind_warn(b, pl, v->line, v->col, "asset path \"%s\" is not a valid project path", s);
    } else if (missing) {
        bind_warn(b, pl, v->line, v->col, "asset \"%s\" is missing", norm_s);
    }
    return norm_s;
}

/* Binds one element (not an array) of field f from value index vi into dst. `fix_base` is the
 * index of the doc's first entity in the bound scene (entity references are file-local). */
static bool bind_scalar(binder *b, const place *pl, uint32_t vi, const rill_field *f, void *dst,
                        uint32_t fix_base) {
    const rsn_doc *doc = pl->doc;
    const rsn_value *v = &doc->values.data[vi];
    switch (f->type) {
    case RILL_FIELD_BOOL:
        if (v->kind != RSN_V_BOOL) {
            return bind_fail(b, pl, v->line, v->col, "expected true or false, found %s",
                             value_kind_name(v->kind));
        }
        *(bool *)dst = v->flag != 0;
        return true;
    case RILL_FIELD_I32:
    case RILL_FIELD_U32:
    case RILL_FIELD_I64:
    case RILL_FIELD_U64:
        return bind_int(b, pl, v, f, dst);
    case RILL_FIELD_F32:
        return bind_float_lane(b, pl, v, f, false, dst);
    case RILL_FIELD_F64:
        return bind_float_lane(b, pl, v, f, true, dst);
    case RILL_FIELD_VEC2:
    case RILL_FIELD_VEC3:
    case RILL_FIELD_VEC4:
    case RILL_FIELD_QUAT:
    case RILL_FIELD_COLOR: {
        uint32_t lanes = (uint32_t)(rill_field_type_size(f->type) / sizeof(float));
        if (v->kind != RSN_V_TUPLE || v->count != lanes) {
            return bind_fail(
                b, pl, v->line, v->col, "expected a tuple of %u numbers, found %s", lanes,
                v->kind == RSN_V_TUPLE ? "a tuple of another size" : value_kind_name(v->kind));
        }
        uint32_t c = vi + 1;
        for (uint32_t i = 0; i < lanes; i++) {
            if (!bind_float_lane(b, pl, &doc->values.data[c], f, false, (float *)dst + i)) {
                return false;
            }
            c += doc->values.data[c].size;
        }
        return true;
    }
    case RILL_FIELD_STRING:
    case RILL_FIELD_ASSET_PATH: {
        if (v->kind != RSN_V_STRING && v->kind != RSN_V_ASSET) {
            return bind_fail(b, pl, v->line, v->col, "expected %s, found %s",
                             f->type == RILL_FIELD_STRING ? "a string" : "an asset path @\"...\"",
                             value_kind_name(v->kind));
        }
        const char *s = v->len ? intern_value(b, doc, v) : NULL;
        if (v->len && !s) {
            return bind_fail(b, pl, v->line, v->col, "out of memory");
        }
        if (f->type == RILL_FIELD_ASSET_PATH && s) {
            s = asset_check(b, pl, v, s);
        }
        memcpy(dst, &s, sizeof s);
        return true;
    }
    case RILL_FIELD_ENTITY: {
        rill_entity none = RILL_ENTITY_NULL;
        memcpy(dst, &none, sizeof none);
        if (v->kind == RSN_V_NONE)
            return true;
        if (v->kind != RSN_V_REF) {
            return bind_fail(b, pl, v->line, v->col, "expected &id or none, found %s",
                             value_kind_name(v->kind));
        }
        uint64_t idx;
        if (!rill_map_get(&doc->id_to_index, v->ref, &idx)) {
            bind_warn(b, pl, v->line, v->col, "entity &%u is not in the file; using none", v->ref);
            return true;
        }
        bound_fix fx = {.off = (uint32_t)((uint8_t *)dst - b->out->blob),
                        .target = fix_base + (uint32_t)idx};
        if (!rill_array_push(&b->out->fixes, fx)) {
            return bind_fail(b, pl, v->line, v->col, "out of memory");
        }
        return true;
    }
    case RILL_FIELD_ENUM: {
        int32_t value;
        if (v->kind == RSN_V_IDENT) {
            char name[128];
            if (v->len >= sizeof name) {
                return bind_fail(b, pl, v->line, v->col, "enum name too long");
            }
            memcpy(name, doc->src + v->off, v->len);
            name[v->len] = '\0';
            if (!rill_field_enum_value(f, name, &value)) {
                return bind_fail(b, pl, v->line, v->col, "'%s' is not a value of this enum", name);
            }
        } else if (v->kind == RSN_V_NUMBER) {
            bool neg, over;
            uint64_t mag;
            if (!rill_num_parse_int(doc->src + v->off, v->len, &neg, &mag, &over) || over ||
                mag > (neg ? 2147483648u : 2147483647u)) {
                return bind_fail(b, pl, v->line, v->col, "expected an enum name");
            }
            value = neg ? (int32_t)(0 - (int64_t)mag) : (int32_t)mag;
        } else {
            return bind_fail(b, pl, v->line, v->col, "expected an enum name, found %s",
                             value_kind_name(v->kind));
        }
        memcpy(dst, &value, sizeof value);
        return true;
    }
    default:
        bind_warn(b, pl, v->line, v->col, "field type %u cannot be read from text; skipped",
                  (unsigned)f->type);
        return true;
    }
}

/* Reserves `size` bytes of the blob, 16-byte aligned; returns the offset or UINT32_MAX. */
static uint32_t blob_alloc(bound_scene *o, size_t size) {
    size_t off = RILL_ALIGN_UP(o->blob_len, (size_t)16);
    size_t need = off + size;
    if (need > UINT32_MAX - 64u)
        return UINT32_MAX;
    if (need > o->blob_cap) {
        size_t cap = o->blob_cap ? o->blob_cap * 2u : 4096u;
        while (cap < need)
            cap *= 2u;
        uint8_t *nb = rill_realloc_tagged(o->blob, cap, RILL_MEM_SCENE);
        if (!nb)
            return UINT32_MAX;
        o->blob = nb;
        o->blob_cap = cap;
    }
    o->blob_len = need;
    return (uint32_t)off;
}

static bool bind_component(binder *b, const rsn_doc *doc, const rsn_component *c,
                           uint32_t entity_index, uint32_t fix_base, bool top) {
    place pl = {.doc = doc, .comp = doc->src + c->name_off, .comp_len = c->name_len};
    bound_scene *o = b->out;
    if (top)
        o->file_components++;
    int32_t ti = rill__scene_types_find(b->types, pl.comp, c->name_len);
    if (ti < 0 || b->types->items[ti].id.id == b->types->unknown_comp.id) {
        if (top)
            o->unknown_components++;
        if (b->opts->lossy) {
            bind_warn(b, &pl, c->line, c->col, "unknown component '%.*s' skipped", (int)c->name_len,
                      pl.comp);
            return true;
        }
        if (b->unknown.len && !rill_strbuf_append(&b->unknown, "\x01", 1))
            return false;
        return rill_strbuf_append(&b->unknown, doc->src + c->raw_off, c->raw_end - c->raw_off);
    }
    const scene_type *st = &b->types->items[ti];
    if (st->skip) {
        bind_warn(b, &pl, c->line, c->col, "component '%s' is runtime-only; ignored",
                  st->type->name);
        return true;
    }
    const rill_type_desc *ty = st->type;
    uint32_t off = blob_alloc(o, ty->size ? ty->size : 1u);
    if (off == UINT32_MAX) {
        return bind_fail(b, &pl, c->line, c->col, "out of memory");
    }
    memcpy(o->blob + off, st->proto, ty->size);
    /* Fields given twice: the last wins, with a warning (a bitset over the first 64 fields). */
    uint64_t seen = 0;
    uint32_t hint = 0;
    for (uint32_t fi = 0; fi < c->field_count && !b->failed; fi++) {
        const rsn_field *fd = &doc->fields.data[c->first_field + fi];
        const char *fname = doc->src + fd->name_off;
        pl.field = fname;
        pl.field_len = fd->name_len;
        /* Files list fields in registry order, so start looking after the last match. */
        const rill_field *f = NULL;
        uint32_t k = 0;
        for (uint32_t probe = 0; probe < ty->field_count; probe++) {
            uint32_t j =
                hint + probe < ty->field_count ? hint + probe : hint + probe - ty->field_count;
            if (st->name_len[j] == fd->name_len &&
                memcmp(ty->fields[j].name, fname, fd->name_len) == 0) {
                f = &ty->fields[j];
                k = j;
                hint = j + 1u < ty->field_count ? j + 1u : 0;
                break;
            }
        }
        if (!f || (f->flags & RILL_FIELD_NO_SERIALIZE)) {
            place cp = pl;
            cp.field = NULL;
            bind_warn(b, &cp, fd->line, fd->col, "component '%s' has no field '%.*s'; ignored",
                      ty->name, (int)fd->name_len, fname);
            continue;
        }
        if (k < 64) {
            if (seen & (UINT64_C(1) << k)) {
                bind_warn(b, &pl, fd->line, fd->col, "field given twice; the last one counts");
            }
            seen |= UINT64_C(1) << k;
        }
        uint8_t *base = o->blob + off + f->offset;
        uint32_t count = rill_field_count(f);
        size_t esize = rill_field_type_size(f->type);
        if (f->offset + esize * count > ty->size) {
            return bind_fail(b, &pl, fd->line, fd->col, "field lies outside its component");
        }
        if (count > 1) {
            const rsn_value *v = &doc->values.data[fd->value];
            if (v->kind != RSN_V_LIST) {
                return bind_fail(b, &pl, v->line, v->col, "expected an array [...] of %u, found %s",
                                 count, value_kind_name(v->kind));
            }
            if (v->count > count) {
                return bind_fail(b, &pl, v->line, v->col, "array has %u values, the field holds %u",
                                 v->count, count);
            }
            uint32_t ci = fd->value + 1;
            for (uint32_t i = 0; i < v->count; i++) {
                /* The blob may not move while binding one component: blob_alloc ran before. */
                if (!bind_scalar(b, &pl, ci, f, base + esize * i, fix_base))
                    return false;
                ci += doc->values.data[ci].size;
            }
        } else if (!bind_scalar(b, &pl, fd->value, f, base, fix_base)) {
            return false;
        }
    }
    if (b->failed)
        return false;
    bound_comp bc = {.comp = st->id, .off = off};
    if (!rill_array_push(&o->comps, bc)) {
        return bind_fail(b, &pl, c->line, c->col, "out of memory");
    }
    o->ents.data[entity_index].comp_count++;
    RILL_UNUSED(entity_index);
    return true;
}

static rill_result bind_doc(binder *b, const rsn_doc *doc, uint32_t root_parent, bool top);

/* Finds (or reads and parses) a sub-scene document; NULL after a warning when it cannot. */
static const rsn_doc *get_doc(binder *b, const char *path, const place *pl, uint32_t line,
                              uint32_t col) {
    for (uint32_t i = 0; i < b->docs.len; i++) {
        if (b->docs.data[i].path == path)
            return b->docs.data[i].doc;
    }
    doc_cache_entry ce = {.path = path, .doc = NULL};
    char *text = NULL;
    size_t len = 0;
    rill_error e = {0};
    if (rill__scene_read_file(b->opts->vfs, path, &text, &len, &e) == RILL_OK) {
        rsn_doc *d = rill_calloc_tagged(1, sizeof *d, RILL_MEM_SCENE);
        if (d && rill__rsn_parse_owned(d, path, text, len, &e) == RILL_OK) {
            ce.doc = d;
        } else {
            if (!d)
                rill_free(text);
            rill_free(d);
        }
    }
    if (!ce.doc) {
        bind_warn(b, pl, line, col, "scene instance \"%s\" not expanded: %s", path, e.msg);
    }
    if (!rill_array_push(&b->docs, ce)) {
        if (ce.doc) {
            rill__rsn_doc_free(ce.doc);
            rill_free(ce.doc);
        }
        return NULL;
    }
    return ce.doc;
}

static bool cancelled(const binder *b) {
    return b->opts->cancel && atomic_load(b->opts->cancel);
}

/* The place of an entity's SceneInstance.scene value (else of the entity) for messages. */
static void instance_place(const rsn_doc *doc, const rsn_entity *de, uint32_t *line,
                           uint32_t *col) {
    *line = de->line;
    *col = de->col;
    for (uint32_t k = 0; k < de->comp_count; k++) {
        const rsn_component *c = &doc->comps.data[de->first_comp + k];
        if (c->name_len != 13 || memcmp(doc->src + c->name_off, "SceneInstance", 13) != 0)
            continue;
        *line = c->line;
        *col = c->col;
        for (uint32_t f = 0; f < c->field_count; f++) {
            const rsn_field *fd = &doc->fields.data[c->first_field + f];
            if (fd->name_len == 5 && memcmp(doc->src + fd->name_off, "scene", 5) == 0) {
                *line = doc->values.data[fd->value].line;
                *col = doc->values.data[fd->value].col;
            }
        }
    }
}

/* Expands the non-streamed instances among bound entities [first, last). */
static rill_result expand_instances(binder *b, const rsn_doc *doc, uint32_t first, uint32_t last) {
    rill_component ic = b->types->instance_comp;
    if (!ic.id)
        return RILL_OK;
    for (uint32_t i = first; i < last && !b->failed; i++) {
        const bound_entity *be = &b->out->ents.data[i];
        const rill_scene_instance *si = NULL;
        for (uint32_t k = 0; k < be->comp_count; k++) {
            const bound_comp *bc = &b->out->comps.data[be->first_comp + k];
            if (bc->comp.id == ic.id)
                si = (const rill_scene_instance *)(b->out->blob + bc->off);
        }
        if (!si || si->streamed || !si->scene)
            continue;
        const char *path = si->scene;
        const rsn_entity *de = &doc->entities.data[i - first];
        place pl = {
            .doc = doc, .comp = "SceneInstance", .comp_len = 13, .field = "scene", .field_len = 5};
        uint32_t line, col;
        instance_place(doc, de, &line, &col);
        /* The stack holds the top file too, so depth - 1 levels of nesting are open. */
        if (b->depth > b->opts->max_depth || b->depth >= RILL_COUNTOF(b->stack)) {
            bind_warn(b, &pl, line, col,
                      "scene instance \"%s\" not expanded: nesting deeper than %u", path,
                      b->opts->max_depth);
            continue;
        }
        bool cycle = false;
        for (uint32_t d = 0; d < b->depth; d++) {
            if (b->stack[d] == path)
                cycle = true;
        }
        if (cycle) {
            bind_warn(b, &pl, line, col,
                      "scene instance \"%s\" not expanded: it instances itself (cycle)", path);
            continue;
        }
        const rsn_doc *sub = get_doc(b, path, &pl, line, col);
        if (!sub)
            continue;
        b->stack[b->depth++] = path;
        rill_result r = bind_doc(b, sub, i, false);
        b->depth--;
        if (r != RILL_OK)
            return r;
    }
    return b->failed ? (b->err && b->err->code ? b->err->code : RILL_ERR_PARSE) : RILL_OK;
}

static rill_result bind_doc(binder *b, const rsn_doc *doc, uint32_t root_parent, bool top) {
    bound_scene *o = b->out;
    uint32_t n = doc->entities.len;
    if ((uint64_t)o->ents.len + n > b->opts->max_entities) {
        b->failed = true;
        return rill_error_set(b->err, RILL_ERR_LIMIT, "%s: the load would exceed %u entities",
                              doc->path, b->opts->max_entities);
    }
    uint32_t base = o->ents.len;
    if (!rill_array_reserve(&o->ents, base + n)) {
        b->failed = true;
        return rill_error_set(b->err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->path);
    }
    if (top)
        o->file_entities += n;
    for (uint32_t i = 0; i < n && !b->failed; i++) {
        if ((i & 4095u) == 4095u && cancelled(b)) {
            b->failed = true;
            return rill_error_set(b->err, RILL_ERR_CANCELLED, "%s: cancelled", doc->path);
        }
        const rsn_entity *de = &doc->entities.data[i];
        bound_entity be = {0};
        be.parent = de->parent_index == RSN_NONE_INDEX ? root_parent : base + de->parent_index;
        if (be.parent == RSN_NONE_INDEX)
            o->roots++;
        if (de->name != RSN_NONE_INDEX) {
            be.name = intern_value(b, doc, &doc->values.data[de->name]);
        }
        be.first_comp = o->comps.len;
        be.first_fix = o->fixes.len;
        o->ents.data[o->ents.len++] = be;
        uint32_t ei = o->ents.len - 1u;
        b->unknown.len = 0;
        for (uint32_t k = 0; k < de->comp_count; k++) {
            if (!bind_component(b, doc, &doc->comps.data[de->first_comp + k], ei, base, top)) {
                if (!b->failed) {
                    b->failed = true;
                    rill_error_set(b->err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->path);
                }
                break;
            }
        }
        if (!b->failed && b->unknown.len && b->types->unknown_comp.id) {
            const char *blocks = rill_intern_n(b->unknown.data, b->unknown.len);
            uint32_t off = blob_alloc(o, sizeof(rill_scene_unknown));
            bound_comp bc = {.comp = b->types->unknown_comp, .off = off};
            if (!blocks || off == UINT32_MAX || !rill_array_push(&o->comps, bc)) {
                b->failed = true;
                return rill_error_set(b->err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory",
                                      doc->path);
            }
            rill_scene_unknown su = {.blocks = blocks};
            memcpy(o->blob + off, &su, sizeof su);
            o->ents.data[ei].comp_count++;
        }
        o->ents.data[ei].fix_count = o->fixes.len - o->ents.data[ei].first_fix;
    }
    if (b->failed)
        return b->err && b->err->code ? b->err->code : RILL_ERR_PARSE;
    if (b->opts->expand_instances) {
        return expand_instances(b, doc, base, base + n);
    }
    return RILL_OK;
}

/* >>expansion count --------------------------------------------------------------------------- */

/* The normalized, interned sub-scene path of a raw entity's non-streamed SceneInstance, read
 * straight from the document (before binding), or NULL. It matches what binding resolves, so the
 * count below and the expansion share get_doc's cache. */
static const char *raw_instance_path(binder *b, const rsn_doc *doc, const rsn_entity *de) {
    for (uint32_t k = 0; k < de->comp_count; k++) {
        const rsn_component *c = &doc->comps.data[de->first_comp + k];
        if (c->name_len != 13 || memcmp(doc->src + c->name_off, "SceneInstance", 13) != 0)
            continue;
        const char *scene = NULL;
        bool streamed = false;
        for (uint32_t f = 0; f < c->field_count; f++) {
            const rsn_field *fd = &doc->fields.data[c->first_field + f];
            const rsn_value *v = &doc->values.data[fd->value];
            const char *name = doc->src + fd->name_off;
            if (fd->name_len == 5 && memcmp(name, "scene", 5) == 0 && v->len > 0 &&
                (v->kind == RSN_V_STRING || v->kind == RSN_V_ASSET)) {
                const char *raw = intern_value(b, doc, v);
                char norm[RILL_VFS_PATH_MAX + 1];
                if (raw && rill_path_normalize(norm, sizeof norm, raw) && norm[0]) {
                    scene = strcmp(norm, raw) == 0 ? raw : rill_intern(norm);
                }
            } else if (fd->name_len == 8 && memcmp(name, "streamed", 8) == 0 &&
                       v->kind == RSN_V_BOOL) {
                streamed = v->flag != 0;
            }
        }
        return streamed ? NULL : scene;
    }
    return NULL;
}

/* Entities a load of doc would create once its non-streamed instances expand (same depth and
 * cycle rules as expand_instances), counted from the files' entity blocks before anything is
 * bound. Saturates: it returns as soon as the count passes cap. Counts are memoized per
 * (document, depth), so files that instance each other many times are still read and counted
 * once per level, and 16 instances nested 9 deep cost 9 small parses, not 16^8 expansions. */
static uint64_t count_expanded(binder *b, const rsn_doc *doc, uint64_t cap, rill_map *memo) {
    uint64_t total = doc->entities.len;
    for (uint32_t i = 0; i < doc->entities.len && total <= cap; i++) {
        const rsn_entity *de = &doc->entities.data[i];
        const char *path = raw_instance_path(b, doc, de);
        if (!path || b->depth > b->opts->max_depth || b->depth >= RILL_COUNTOF(b->stack))
            continue;
        bool cycle = false;
        for (uint32_t d = 0; d < b->depth; d++) {
            if (b->stack[d] == path)
                cycle = true;
        }
        if (cycle)
            continue;
        place pl = {
            .doc = doc, .comp = "SceneInstance", .comp_len = 13, .field = "scene", .field_len = 5};
        uint32_t line, col;
        instance_place(doc, de, &line, &col);
        const rsn_doc *sub = get_doc(b, path, &pl, line, col);
        if (!sub)
            continue;
        uint64_t key = ((uint64_t)(uintptr_t)sub << 6) | b->depth, sub_count;
        if (!rill_map_get(memo, key, &sub_count)) {
            b->stack[b->depth++] = path;
            sub_count = count_expanded(b, sub, cap, memo);
            b->depth--;
            rill_map_set(memo, key, sub_count);
        }
        total = sub_count > cap ? cap + 1u : total + sub_count;
    }
    return total;
}

/* Fails the load before any expansion when the count of what it would create passes the
 * limit. */
static rill_result check_expanded_count(binder *b, const rsn_doc *doc) {
    rill_map memo = {0};
    uint64_t cap = b->opts->max_entities;
    uint64_t total = count_expanded(b, doc, cap, &memo);
    rill_map_free(&memo);
    if (total <= cap)
        return RILL_OK;
    b->failed = true;
    return rill_error_set(b->err, RILL_ERR_LIMIT,
                          "%s: with its scene instances expanded the load would create more than "
                          "%llu entities, the scene_entities limit (raise it: "
                          "RILL_LIMITS=scene_entities=N, rill --limit scene_entities=N, "
                          "rill_limits_set, or rill_scene_read_desc.max_entities)",
                          doc->path, (unsigned long long)cap);
}

rill_result rill__scene_bind(const scene_types *types, const bind_opts *opts, const rsn_doc *doc,
                             const char *top_path, bound_scene *out, rill_error *err) {
    binder b = {.types = types, .opts = opts, .out = out, .err = err};
    if (top_path)
        b.stack[b.depth++] = rill_intern(top_path);
    rill_result r = opts->expand_instances ? check_expanded_count(&b, doc) : RILL_OK;
    if (r == RILL_OK)
        r = bind_doc(&b, doc, RSN_NONE_INDEX, true);
    for (uint32_t i = 0; i < b.docs.len; i++) {
        if (b.docs.data[i].doc) {
            rill__rsn_doc_free(b.docs.data[i].doc);
            rill_free(b.docs.data[i].doc);
        }
    }
    rill_array_free(&b.docs);
    rill_map_free(&b.asset_seen);
    rill_strbuf_free(&b.unknown);
    rill_free(b.scratch);
    return r;
}

/* >>apply ------------------------------------------------------------------------------------- */

void rill__scene_apply_entity(rill_world *world, const scene_types *types, bound_scene *b,
                              uint32_t i, const rill_entity *spawned, rill_entity root) {
    const bound_entity *be = &b->ents.data[i];
    rill_entity e = spawned[i];
    rill_entity parent = be->parent == RSN_NONE_INDEX ? root : spawned[be->parent];
    if (parent != RILL_ENTITY_NULL) {
        rill_world_set_parent(world, e, parent);
    }
    if (be->name && types->name_comp.id) {
        rill_name nm = {.value = be->name};
        rill_world_add(world, e, types->name_comp, &nm);
    }
    for (uint32_t k = 0; k < be->fix_count; k++) {
        const bound_fix *fx = &b->fixes.data[be->first_fix + k];
        rill_entity t = fx->target == RSN_NONE_INDEX ? RILL_ENTITY_NULL : spawned[fx->target];
        memcpy(b->blob + fx->off, &t, sizeof t);
    }
    for (uint32_t k = 0; k < be->comp_count; k++) {
        const bound_comp *bc = &b->comps.data[be->first_comp + k];
        rill_world_add(world, e, bc->comp, b->blob + bc->off);
    }
}
