/* bind.c: turns a parsed .rsn document into component bytes using the reflection registry
 * (through a scene_types snapshot), expands non-streamed scene instances, and applies a bound
 * entity to the world. Each field's value text is read by reflection's value parser
 * (rill_field_parse_ex); this file supplies its hooks: places for messages, entity references
 * to patch, asset path checks.
 *
 * Binding runs on workers, so it only touches the snapshot, the interner (thread-safe) and the
 * VFS (thread-safe). It collects everything the main thread needs into a bound_scene: one byte
 * blob with every component's data, and the entity fields to patch once world entities exist.
 */
#include "scene_internal.h"

#include <stdio.h>
#include <string.h>

/* >>snapshot ---------------------------------------------------------------------------------- */

scene_types *rill__scene_types_create(rill_world *world) {
    scene_types *t = rill_calloc_tagged(1, sizeof *t, RILL_MEM_SCENE);
    if (!t) {
        return NULL;
    }
    atomic_store(&t->refs, 1);
    uint32_t n = rill_world_component_count(world);
    t->world_component_count = n;
    t->items = rill_calloc_tagged(n ? n : 1, sizeof *t->items, RILL_MEM_SCENE);
    if (!t->items) {
        goto fail;
    }
    for (uint32_t id = 1; id <= n; id++) {
        rill_component c = {id};
        const rill_type_desc *ty = rill_world_component_type(world, c);
        if (!ty || !ty->name) {
            continue;
        }
        scene_type *st = &t->items[t->count];
        st->type = ty;
        st->id = c;
        st->skip = (ty->flags & (RILL_TYPE_NO_SERIALIZE | RILL_TYPE_MANAGED)) != 0;
        st->proto = rill_malloc_tagged(ty->size ? ty->size : 1, RILL_MEM_SCENE);
        st->name_len = rill_calloc_tagged(ty->field_count ? ty->field_count : 1, sizeof(uint32_t),
                                          RILL_MEM_SCENE);
        if (!st->proto || !st->name_len) {
            goto fail;
        }
        for (uint32_t k = 0; k < ty->field_count; k++) {
            st->name_len[k] = ty->fields[k].name ? (uint32_t)strlen(ty->fields[k].name) : 0;
        }
        rill_type_apply_defaults(ty, st->proto);
        if (!rill_map_set(&t->by_name, rill_hash64_str(ty->name), t->count)) {
            goto fail;
        }
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
    if (t) {
        atomic_fetch_add(&t->refs, 1);
    }
}

void rill__scene_types_release(scene_types *t) {
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1) {
        return;
    }
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
    if (!rill_map_get(&t->by_name, rill_hash64(name, len), &idx)) {
        return -1;
    }
    const char *n = t->items[idx].type->name;
    if (strlen(n) != len || memcmp(n, name, len) != 0) {
        return -1;
    }
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
    if (r != RILL_OK) {
        return r;
    }
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
    if (b->failed) {
        return false;
    }
    b->failed = true;
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (pl->field) {
        rill_error_set(b->err, RILL_ERR_PARSE, "%s:%u:%u: %.*s.%.*s: %s", pl->doc->path, line, col,
                       (int)pl->comp_len, pl->comp, (int)pl->field_len, pl->field, msg);
    } else {
        rill_error_set(b->err, RILL_ERR_PARSE, "%s:%u:%u: %s", pl->doc->path, line, col, msg);
    }
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

/* Reads the document's text [off, off + len) as a value of a field of type `type` (a string or a
 * bool: entity names and the SceneInstance fields read before binding) into *dst through
 * reflection's value parser; false when it is not one. */
static bool plain_value(const rsn_doc *doc, uint32_t off, uint32_t len, rill_field_type type,
                        void *dst) {
    const rill_field f = {.name = "value", .type = type};
    return rill_field_parse_ex(&f, dst, doc->src + off, len, NULL, NULL, NULL) == RILL_OK;
}

/* One field value being bound: what reflection's parser hooks need to name places and record
 * entity references. */
typedef struct field_value {
    binder *b;
    const place *pl;
    const rsn_field *fd;
    uint32_t slot;     /* blob offset of the field's first element */
    uint32_t fix_base; /* bound index of the doc's first entity (references are file-local) */
} field_value;

/* The line and column of byte pos of a field's value text, counted on from the value's start. */
static void value_place(const field_value *fv, size_t pos, uint32_t *line, uint32_t *col) {
    const rsn_doc *doc = fv->pl->doc;
    const char *s = doc->src + fv->fd->val_off;
    *line = fv->fd->val_line;
    *col = fv->fd->val_col;
    for (size_t i = 0; i < pos; i++) {
        *col = s[i] == '\n' ? 1u : *col + 1u;
        *line += s[i] == '\n';
    }
}

static void value_warn(void *user, size_t pos, const char *msg) {
    field_value *fv = user;
    uint32_t line, col;
    value_place(fv, pos, &line, &col);
    bind_warn(fv->b, fv->pl, line, col, "%s", msg);
}

/* &id: patched to the spawned entity once entities exist (bound_fix); an id the file does not
 * have is a warning and reads as none. */
static bool value_entity_ref(void *user, uint32_t id, uint32_t elem, size_t pos, rill_entity *out) {
    field_value *fv = user;
    uint64_t idx;
    *out = RILL_ENTITY_NULL;
    if (!rill_map_get(&fv->pl->doc->id_to_index, id, &idx)) {
        uint32_t line, col;
        value_place(fv, pos, &line, &col);
        bind_warn(fv->b, fv->pl, line, col, "entity &%u is not in the file; using none", id);
        return true;
    }
    bound_fix fx = {.off = fv->slot + elem * (uint32_t)sizeof(rill_entity),
                    .target = fv->fix_base + (uint32_t)idx};
    return rill_array_push(&fv->b->out->fixes, fx);
}

/* Normalizes an interned asset path and, when asked, checks that the VFS has it; warns about
 * invalid or missing paths at every use. Files repeat the same paths many times, so the result is
 * cached per interned spelling: the map holds the normalized interned pointer, with bit 0 set when
 * the path is invalid and bit 1 set when it is missing (interned strings are at least 2-aligned
 * in practice, but the low bits are masked only after checking the stored flag bits). */
static const char *value_asset(void *user, const char *s, size_t pos) {
    field_value *fv = user;
    binder *b = fv->b;
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
            if (strcmp(norm, s) != 0) {
                norm_s = rill_intern(norm);
            }
            if (!norm_s) {
                norm_s = s;
            }
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
    if (invalid || missing) {
        uint32_t line, col;
        value_place(fv, pos, &line, &col);
        if (invalid) {
            bind_warn(b, fv->pl, line, col, "asset path \"%s\" is not a valid project path", s);
        } else if (b->opts->strict) {
            bind_fail(b, fv->pl, line, col, "asset \"%s\" is missing (an error with --strict)",
                      norm_s);
        } else {
            bind_warn(b, fv->pl, line, col, "asset \"%s\" is missing", norm_s);
        }
    }
    return norm_s;
}

/* Binds the value of field f (from fd) into the component bytes at blob offset `off`, through
 * reflection's value parser: the shape and range rules of docs/formats/rsn.md live there. */
static bool bind_value(binder *b, const place *pl, const rsn_field *fd, const rill_field *f,
                       uint32_t off, uint32_t fix_base) {
    field_value fv = {.b = b, .pl = pl, .fd = fd, .slot = off + f->offset, .fix_base = fix_base};
    const rill_field_text opt = {.flags = RILL_FIELD_TEXT_CLAMP,
                                 .user = &fv,
                                 .warn = value_warn,
                                 .entity_ref = value_entity_ref,
                                 .asset_path = value_asset};
    size_t pos = 0;
    rill_error e; /* written only on failure */
    const rsn_doc *doc = pl->doc;
    if (rill_field_parse_ex(f, b->out->blob + off, doc->src + fd->val_off,
                            fd->val_end - fd->val_off, &opt, &pos, &e) != RILL_OK) {
        uint32_t line, col;
        value_place(&fv, pos, &line, &col);
        return bind_fail(b, pl, line, col, "%s", e.msg);
    }
    return true;
}

/* Reserves `size` bytes of the blob, 16-byte aligned; returns the offset or UINT32_MAX. */
static uint32_t blob_alloc(bound_scene *o, size_t size) {
    size_t off = RILL_ALIGN_UP(o->blob_len, (size_t)16);
    size_t need = off + size;
    if (need > UINT32_MAX - 64u) {
        return UINT32_MAX;
    }
    if (need > o->blob_cap) {
        size_t cap = o->blob_cap ? o->blob_cap * 2u : 4096u;
        while (cap < need) {
            cap *= 2u;
        }
        uint8_t *nb = rill_realloc_tagged(o->blob, cap, RILL_MEM_SCENE);
        if (!nb) {
            return UINT32_MAX;
        }
        o->blob = nb;
        o->blob_cap = cap;
    }
    o->blob_len = need;
    return (uint32_t)off;
}

/* Names for "did you mean": the registered component types, a type's fields. */
static const char *type_name(const void *ctx, uint32_t i) {
    const scene_types *t = ctx;
    return t->items[i].id.id == t->unknown_comp.id ? NULL : t->items[i].type->name;
}

static const char *field_name(const void *ctx, uint32_t i) {
    const rill_type_desc *ty = ctx;
    return (ty->fields[i].flags & RILL_FIELD_NO_SERIALIZE) ? NULL : ty->fields[i].name;
}

static bool bind_component(binder *b, const rsn_doc *doc, const rsn_component *c,
                           uint32_t entity_index, uint32_t fix_base, bool top) {
    place pl = {.doc = doc, .comp = doc->src + c->name_off, .comp_len = c->name_len};
    bound_scene *o = b->out;
    if (top) {
        o->file_components++;
    }
    int32_t ti = rill__scene_types_find(b->types, pl.comp, c->name_len);
    if (ti < 0 || b->types->items[ti].id.id == b->types->unknown_comp.id) {
        if (top) {
            o->unknown_components++;
        }
        char hint[96] = "";
        const char *near =
            rill_suggest_name(pl.comp, c->name_len, type_name, b->types, b->types->count);
        if (near) {
            snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        }
        if (b->opts->strict) {
            return bind_fail(b, &pl, c->line, c->col,
                             "unknown component '%.*s' (an error with --strict)%s",
                             (int)c->name_len, pl.comp, hint);
        }
        bind_warn(b, &pl, c->line, c->col, "unknown component '%.*s' %s%s", (int)c->name_len,
                  pl.comp, b->opts->lossy ? "skipped" : "kept as written, not used", hint);
        if (b->opts->lossy) {
            return true;
        }
        if (b->unknown.len && !rill_strbuf_append(&b->unknown, "\x01", 1)) {
            return false;
        }
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
            const char *near =
                rill_suggest_name(fname, fd->name_len, field_name, ty, ty->field_count);
            bind_warn(b, &cp, fd->line, fd->col,
                      "component '%s' has no field '%.*s'; ignored%s%s%s", ty->name,
                      (int)fd->name_len, fname, near ? " (did you mean '" : "", near ? near : "",
                      near ? "'?)" : "");
            continue;
        }
        if (k < 64) {
            if (seen & (UINT64_C(1) << k)) {
                bind_warn(b, &pl, fd->line, fd->col, "field given twice; the last one counts");
            }
            seen |= UINT64_C(1) << k;
        }
        if (!bind_value(b, &pl, fd, f, off, fix_base)) {
            return false;
        }
    }
    if (b->failed) {
        return false;
    }
    /* A component given twice: the later block replaces the earlier whole (its fields do not
     * merge), as the world's add does; said, like a field given twice. */
    for (uint32_t k = o->ents.data[entity_index].first_comp; k < o->comps.len; k++) {
        if (o->comps.data[k].comp.id == st->id.id) {
            pl.field = NULL;
            bind_warn(b, &pl, c->line, c->col,
                      "%s given twice in this entity; the last block replaces the earlier one "
                      "(their fields do not merge)",
                      ty->name);
            break;
        }
    }
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
        if (b->docs.data[i].path == path) {
            return b->docs.data[i].doc;
        }
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
            if (!d) {
                rill_free(text);
            }
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
        if (c->name_len != 13 || memcmp(doc->src + c->name_off, "SceneInstance", 13) != 0) {
            continue;
        }
        *line = c->line;
        *col = c->col;
        for (uint32_t f = 0; f < c->field_count; f++) {
            const rsn_field *fd = &doc->fields.data[c->first_field + f];
            if (fd->name_len == 5 && memcmp(doc->src + fd->name_off, "scene", 5) == 0) {
                *line = fd->val_line;
                *col = fd->val_col;
            }
        }
    }
}

/* Expands the non-streamed instances among bound entities [first, last). */
static rill_result expand_instances(binder *b, const rsn_doc *doc, uint32_t first, uint32_t last) {
    rill_component ic = b->types->instance_comp;
    if (!ic.id) {
        return RILL_OK;
    }
    for (uint32_t i = first; i < last && !b->failed; i++) {
        const bound_entity *be = &b->out->ents.data[i];
        const rill_scene_instance *si = NULL;
        for (uint32_t k = 0; k < be->comp_count; k++) {
            const bound_comp *bc = &b->out->comps.data[be->first_comp + k];
            if (bc->comp.id == ic.id) {
                si = (const rill_scene_instance *)(b->out->blob + bc->off);
            }
        }
        if (!si || si->streamed || !si->scene) {
            continue;
        }
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
            if (b->stack[d] == path) {
                cycle = true;
            }
        }
        if (cycle) {
            bind_warn(b, &pl, line, col,
                      "scene instance \"%s\" not expanded: it instances itself (cycle)", path);
            continue;
        }
        const rsn_doc *sub = get_doc(b, path, &pl, line, col);
        if (!sub) {
            continue;
        }
        b->stack[b->depth++] = path;
        rill_result r = bind_doc(b, sub, i, false);
        b->depth--;
        if (r != RILL_OK) {
            return r;
        }
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
    if (top) {
        o->file_entities += n;
    }
    for (uint32_t i = 0; i < n && !b->failed; i++) {
        if ((i & 4095u) == 4095u && cancelled(b)) {
            b->failed = true;
            return rill_error_set(b->err, RILL_ERR_CANCELLED, "%s: cancelled", doc->path);
        }
        const rsn_entity *de = &doc->entities.data[i];
        bound_entity be = {0};
        be.parent = de->parent_index == RSN_NONE_INDEX ? root_parent : base + de->parent_index;
        if (be.parent == RSN_NONE_INDEX) {
            o->roots++;
        }
        if (de->name_off != RSN_NONE_INDEX) {
            /* "" reads as NULL (an unset string field), but an entity named "" keeps its name. */
            be.name = NULL;
            plain_value(doc, de->name_off, de->name_len, RILL_FIELD_STRING, &be.name);
            be.name = be.name || de->name_len > 2 ? be.name : rill_intern("");
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
    if (b->failed) {
        return b->err && b->err->code ? b->err->code : RILL_ERR_PARSE;
    }
    if (b->opts->expand_instances) {
        return expand_instances(b, doc, base, base + n);
    }
    return RILL_OK;
}

/* >>expansion count --------------------------------------------------------------------------- */

/* The normalized, interned sub-scene path of a raw entity's non-streamed SceneInstance, read
 * straight from the document (before binding), or NULL. It matches what binding resolves, so the
 * count below and the expansion share get_doc's cache. */
static const char *raw_instance_path(const rsn_doc *doc, const rsn_entity *de) {
    for (uint32_t k = 0; k < de->comp_count; k++) {
        const rsn_component *c = &doc->comps.data[de->first_comp + k];
        if (c->name_len != 13 || memcmp(doc->src + c->name_off, "SceneInstance", 13) != 0) {
            continue;
        }
        const char *scene = NULL;
        bool streamed = false;
        for (uint32_t f = 0; f < c->field_count; f++) {
            const rsn_field *fd = &doc->fields.data[c->first_field + f];
            const char *name = doc->src + fd->name_off, *raw = NULL;
            uint32_t len = fd->val_end - fd->val_off;
            if (fd->name_len == 5 && memcmp(name, "scene", 5) == 0 &&
                plain_value(doc, fd->val_off, len, RILL_FIELD_STRING, &raw)) {
                char norm[RILL_VFS_PATH_MAX + 1];
                if (raw && rill_path_normalize(norm, sizeof norm, raw) && norm[0]) {
                    scene = strcmp(norm, raw) == 0 ? raw : rill_intern(norm);
                }
            } else if (fd->name_len == 8 && memcmp(name, "streamed", 8) == 0) {
                plain_value(doc, fd->val_off, len, RILL_FIELD_BOOL, &streamed);
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
        const char *path = raw_instance_path(doc, de);
        if (!path || b->depth > b->opts->max_depth || b->depth >= RILL_COUNTOF(b->stack)) {
            continue;
        }
        bool cycle = false;
        for (uint32_t d = 0; d < b->depth; d++) {
            if (b->stack[d] == path) {
                cycle = true;
            }
        }
        if (cycle) {
            continue;
        }
        place pl = {
            .doc = doc, .comp = "SceneInstance", .comp_len = 13, .field = "scene", .field_len = 5};
        uint32_t line, col;
        instance_place(doc, de, &line, &col);
        const rsn_doc *sub = get_doc(b, path, &pl, line, col);
        if (!sub) {
            continue;
        }
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
    if (total <= cap) {
        return RILL_OK;
    }
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
    if (top_path) {
        b.stack[b.depth++] = rill_intern(top_path);
    }
    rill_result r = opts->expand_instances ? check_expanded_count(&b, doc) : RILL_OK;
    if (r == RILL_OK) {
        r = bind_doc(&b, doc, RSN_NONE_INDEX, true);
    }
    for (uint32_t i = 0; i < b.docs.len; i++) {
        if (b.docs.data[i].doc) {
            rill__rsn_doc_free(b.docs.data[i].doc);
            rill_free(b.docs.data[i].doc);
        }
    }
    rill_array_free(&b.docs);
    rill_map_free(&b.asset_seen);
    rill_strbuf_free(&b.unknown);
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
