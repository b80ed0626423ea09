/* world.c: the world object, entity slots, per-component sparse sets, the type registry
 * (components, resources, plain types), resources, the built-in components, add/remove hooks and
 * single spawns. Bulk spawn and despawn are in world_spawn.c. */
#include "world_internal.h"

#include <string.h>

#define WORLD_LOG "world"

/* >>growth */

bool rill__world_grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem, bool zero) {
    uint32_t old = *cap;
    /* 64 skips the tiny early steps of spawn and add; past RILL_MAPPED_MIN an array has a mapping
     * of its own and doubles without a copy (a 1 M-entity world doubles GlobalTransform's 64 MB
     * inside some spawn). */
    if (!rill__array_grow_large(ptr, cap, need, elem, 64u, RILL_MEM_WORLD)) {
        return false;
    }
    if (zero && *cap > old) {
        memset((char *)*ptr + (size_t)old * elem, 0, (size_t)(*cap - old) * elem);
    }
    return true;
}

/* >>sparse set */

/* A set whose component array has a mapping of its own (past RILL_MAPPED_MIN: rill_realloc_large)
 * resizes by moving pages, not copying, so it keeps its capacity within a slack of what it holds
 * instead of doubling: it grows to need + need/SET_SLACK and a batch despawn shrinks it back to
 * that once it holds more than twice the slack (rill__world_set_trim). A set swaying within that
 * band never reallocates, and the same entities take the same memory whatever the world held before
 * (a doubled 40 MB GlobalTransform array kept 20 MB nothing used). Smaller sets double and halve.
 */
#define SET_SLACK 32u

static uint32_t slack_cap(uint32_t n) {
    return (uint32_t)RILL_MIN((uint64_t)n + n / SET_SLACK + 64u, UINT32_MAX);
}

/* Resizes dense and data to exactly `to` elements (at least len), growing or shrinking; false when
 * out of memory (the set still valid: a grown data array is merely larger than cap, a dense array
 * that did not shrink merely larger than the new cap). */
static bool set_resize(rill__sparse_set *s, uint32_t to) {
    to = RILL_MAX(to, s->len);
    void *data = rill_realloc_large(s->data, (size_t)to * s->stride, RILL_MEM_WORLD);
    if (data == NULL) {
        return false;
    }
    s->data = data;
    void *dense = rill_realloc_large(s->dense, (size_t)to * sizeof(rill_entity), RILL_MEM_WORLD);
    if (dense != NULL) {
        s->dense = dense;
    } else if (to > s->cap) {
        return false;
    }
    s->cap = to;
    return true;
}

bool rill__world_set_reserve(rill_world *w, rill__sparse_set *s, uint32_t n) {
    if (n <= s->cap) {
        return true;
    }
    w->epoch++;
    s->version++;
    if (s->stride != 0 && rill__mem_mapped(s->data)) {
        return set_resize(s, slack_cap(n));
    }
    uint32_t cap = s->cap;
    if (!rill__world_grow((void **)&s->dense, &cap, n, sizeof(rill_entity), false)) {
        return false;
    }
    uint32_t dcap = s->cap;
    if (!rill__world_grow((void **)&s->data, &dcap, cap, s->stride, false)) {
        /* dense grew but data did not: keep cap at the old value, dense is merely larger. */
        return false;
    }
    s->cap = cap;
    return true;
}

/* After a batch despawn (a structural change: pointers into the storage are stale already), the
 * index pages left empty go, and the arrays shrink: a mapped set holding under cap - 2 * slack
 * back to len + slack (SET_SLACK), a smaller one holding under a quarter of its capacity to twice
 * what it holds (64 at least; growth doubles at full, so it sways within a factor of four without
 * reallocating). A district that came and went does not leave its components' capacity behind. */
void rill__world_set_trim(rill_world *w, rill__sparse_set *s) {
    rill__set_trim_pages(s);
    if (s->cap <= 64u || s->stride == 0) {
        return;
    }
    if (rill__mem_mapped(s->data)) {
        uint32_t to = slack_cap(s->len);
        if ((uint64_t)s->cap > (uint64_t)to + (uint64_t)s->len / SET_SLACK && set_resize(s, to)) {
            s->version++;
            w->epoch++;
        }
        return;
    }
    if (s->len >= s->cap / 4u) {
        return;
    }
    uint32_t cap = s->cap, to = RILL_MAX(64u, 2u * s->len);
    /* data first: should dense then stay larger, it is merely larger than cap (as in reserve) */
    if (!rill__array_fit((void **)&s->data, &s->cap, s->len, to, s->stride)) {
        return;
    }
    rill__array_fit((void **)&s->dense, &cap, s->len, to, sizeof(rill_entity));
    s->version++;
    w->epoch++;
}

void *rill__set_insert(rill_world *w, rill__sparse_set *s, rill_entity e, bool *out_existed) {
    uint32_t slot = RILL_ENTITY_INDEX(e);
    uint32_t at = rill__set_index(s, slot);
    if (at != 0) {
        s->dense[at - 1u] = e;
        *out_existed = true;
        return s->data + (size_t)(at - 1u) * s->stride;
    }
    *out_existed = false;
    if (!rill__set_page(s, slot)) {
        return NULL;
    }
    if (s->len == s->cap && !rill__world_set_reserve(w, s, s->len + 1u)) {
        return NULL;
    }
    w->epoch++;
    s->version++;
    uint32_t d = s->len++;
    s->dense[d] = e;
    rill__set_put(s, slot, d + 1u);
    return s->data + (size_t)d * s->stride;
}

void rill__set_erase(rill_world *w, rill__sparse_set *s, uint32_t slot) {
    w->epoch++;
    s->version++;
    uint32_t d = rill__set_index(s, slot) - 1u;
    uint32_t last = s->len - 1u;
    if (d != last) {
        rill_entity moved = s->dense[last];
        s->dense[d] = moved;
        memcpy(s->data + (size_t)d * s->stride, s->data + (size_t)last * s->stride, s->stride);
        *rill__set_entry(s, RILL_ENTITY_INDEX(moved)) = d + 1u;
    }
    rill__set_put(s, slot, 0);
    s->len--;
}

static void set_free(rill__sparse_set *s) {
    rill__set_free_pages(s);
    rill_free(s->dense);
    rill_free(s->data);
    memset(s, 0, sizeof(*s));
}

/* >>registry */

static rill__type *find_type(const rill_world *w, const char *name) {
    uint64_t idx;
    if (name == NULL || !rill_map_get(&w->type_by_name, rill_hash64_str(name), &idx)) {
        return NULL;
    }
    rill__type *t = w->types.data[idx];
    return strcmp(t->desc.name, name) == 0 ? t : NULL;
}

/* Registers desc as `kind`; returns the registry entry (existing one for a compatible repeat). */
static rill__type *register_type(rill_world *w, const rill_type_desc *desc, rill__type_kind kind) {
    if (w == NULL || desc == NULL || desc->name == NULL) {
        RILL_LOG_ERROR(WORLD_LOG, "register: NULL world, desc or name");
        return NULL;
    }
    rill__type *existing = find_type(w, desc->name);
    if (existing != NULL) {
        if (existing->kind == kind && existing->desc.size == desc->size) {
            return existing;
        }
        RILL_LOG_ERROR(WORLD_LOG, "register: type %s already registered with another size or kind",
                       desc->name);
        return NULL;
    }
    rill_error err = {0};
    rill__type *t = rill__type_create(desc, &err);
    if (t == NULL) {
        RILL_LOG_ERROR(WORLD_LOG, "register: %s", err.msg);
        return NULL;
    }
    t->kind = kind;
    if (!rill_array_push(&w->types, t) ||
        !rill_map_set(&w->type_by_name, rill_hash64_str(t->desc.name), w->types.len - 1u)) {
        if (w->types.len > 0 && w->types.data[w->types.len - 1u] == t) {
            w->types.len--;
        }
        rill__type_destroy(t);
        RILL_LOG_ERROR(WORLD_LOG, "register: out of memory");
        return NULL;
    }
    return t;
}

rill_component rill_world_register_component(rill_world *world, const rill_type_desc *desc) {
    rill__type *t = register_type(world, desc, RILL__KIND_COMPONENT);
    if (t == NULL) {
        return RILL_COMPONENT_NONE;
    }
    if (t->id != 0) {
        return (rill_component){t->id};
    }
    rill__component c = {0};
    c.type = t;
    c.set.stride = RILL_ALIGN_UP(t->desc.size, t->desc.align);
    if (!rill_array_push(&world->components, c)) {
        RILL_LOG_ERROR(WORLD_LOG, "register: out of memory");
        return RILL_COMPONENT_NONE; /* the type stays registered as a component-to-be; a retry fills
                                       in the id */
    }
    t->id = world->components.len;
    return (rill_component){t->id};
}

rill_component rill_world_find_component(const rill_world *world, const char *name) {
    rill__type *t = world ? find_type(world, name) : NULL;
    return (t && t->kind == RILL__KIND_COMPONENT) ? (rill_component){t->id} : RILL_COMPONENT_NONE;
}

const rill_type_desc *rill_world_component_type(const rill_world *world, rill_component comp) {
    rill__component *c = world ? rill__world_comp(world, comp) : NULL;
    return c ? &c->type->desc : NULL;
}

uint32_t rill_world_component_count(const rill_world *world) {
    return world ? world->components.len : 0;
}

bool rill_world_component_reserve(rill_world *world, rill_component comp, uint32_t n) {
    rill__component *c = world ? rill__world_comp(world, comp) : NULL;
    if (c == NULL) {
        return false;
    }
    /* the index pages are made as slots reach them */
    return rill__world_set_reserve(world, &c->set, n);
}

uint32_t rill_world_component_prefault(rill_world *world, rill_component comp, uint32_t first,
                                       uint32_t count) {
    rill__component *c = world ? rill__world_comp(world, comp) : NULL;
    if (c == NULL) {
        return 0;
    }
    rill__sparse_set *s = &c->set;
    uint64_t from = RILL_MAX(first, s->len);
    uint64_t end = RILL_MIN((uint64_t)first + count, (uint64_t)s->cap);
    if (from >= end) {
        return 0;
    }
    memset(&s->dense[from], 0, (size_t)(end - from) * sizeof(rill_entity));
    memset(s->data + (size_t)from * s->stride, 0, (size_t)(end - from) * s->stride);
    return (uint32_t)(end - from);
}

const rill_type_desc *rill_world_register_type(rill_world *world, const rill_type_desc *desc) {
    rill__type *t = register_type(world, desc, RILL__KIND_PLAIN);
    return t ? &t->desc : NULL;
}

const rill_type_desc *rill_world_find_type(const rill_world *world, const char *name) {
    rill__type *t = world ? find_type(world, name) : NULL;
    return t ? &t->desc : NULL;
}

/* >>resources */

rill_resource rill_world_register_resource(rill_world *world, const rill_type_desc *desc) {
    rill__type *t = register_type(world, desc, RILL__KIND_RESOURCE);
    if (t == NULL) {
        return RILL_RESOURCE_NONE;
    }
    if (t->id != 0) {
        return (rill_resource){t->id};
    }
    rill__resource r = {t, NULL};
    if (!rill_array_push(&world->resources, r)) {
        return RILL_RESOURCE_NONE;
    }
    t->id = world->resources.len;
    return (rill_resource){t->id};
}

static rill__resource *get_res(const rill_world *w, rill_resource res) {
    return (w && res.id != 0 && res.id <= w->resources.len) ? &w->resources.data[res.id - 1u]
                                                            : NULL;
}

rill_resource rill_world_find_resource(const rill_world *world, const char *name) {
    rill__type *t = world ? find_type(world, name) : NULL;
    return (t && t->kind == RILL__KIND_RESOURCE) ? (rill_resource){t->id} : RILL_RESOURCE_NONE;
}

const rill_type_desc *rill_world_resource_type(const rill_world *world, rill_resource res) {
    rill__resource *r = get_res(world, res);
    return r ? &r->type->desc : NULL;
}

void *rill_world_set_resource(rill_world *world, rill_resource res, const void *data) {
    rill__resource *r = get_res(world, res);
    if (r == NULL) {
        return NULL;
    }
    if (r->data == NULL) {
        r->data = rill_malloc_tagged(r->type->desc.size, RILL_MEM_WORLD);
        if (r->data == NULL) {
            return NULL;
        }
    }
    memmove(r->data, data ? data : r->type->defaults, r->type->desc.size);
    return r->data;
}

void *rill_world_get_resource(const rill_world *world, rill_resource res) {
    rill__resource *r = get_res(world, res);
    return r ? r->data : NULL;
}

bool rill_world_remove_resource(rill_world *world, rill_resource res) {
    rill__resource *r = get_res(world, res);
    if (r == NULL || r->data == NULL) {
        return false;
    }
    rill_free(r->data);
    r->data = NULL;
    return true;
}

/* >>builtins */

static const rill_enum_item CAMERA_ROLES[] = {{"game", RILL_CAMERA_ROLE_GAME},
                                              {"editor", RILL_CAMERA_ROLE_EDITOR}};
static const rill_enum_item PROJECTIONS[] = {{"perspective", RILL_PROJECTION_PERSPECTIVE},
                                             {"orthographic", RILL_PROJECTION_ORTHOGRAPHIC}};
/* Camera.passthrough: the values of rill_passthrough (rill/render.h). */
static const rill_enum_item PASSTHROUGH[] = {{"off", 0}, {"mixed", 1}};

static bool register_builtins(rill_world *w) {
    static const rill_field name_fields[] = {RILL_FIELD(rill_name, value, STRING)};
    static const float one3[3] = {1, 1, 1};
    static const float quat_id[4] = {0, 0, 0, 1};
    static const rill_field transform_fields[] = {
        RILL_FIELD(rill_transform, translation, VEC3),
        RILL_FIELD_WITH(rill_transform, rotation, QUAT, .default_value = quat_id),
        RILL_FIELD_WITH(rill_transform, scale, VEC3, .default_value = one3),
    };
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    static const rill_field global_fields[] = {{.name = "matrix",
                                                .type = RILL_FIELD_F32,
                                                .offset = 0,
                                                .count = 16,
                                                .default_value = identity}};
    static const rill_field parent_fields[] = {RILL_FIELD(rill_parent, parent, ENTITY),
                                               RILL_FIELD(rill_parent, prev_sibling, ENTITY),
                                               RILL_FIELD(rill_parent, next_sibling, ENTITY)};
    static const rill_field children_fields[] = {RILL_FIELD(rill_children, first, ENTITY),
                                                 RILL_FIELD(rill_children, last, ENTITY),
                                                 RILL_FIELD(rill_children, count, U32)};
    static const bool yes = true;
    static const uint32_t target_size = 512;
    static const float fov = 0.8f, znear = 0.1f, zfar = 1000.0f, ortho = 10.0f;
    static const float viewport[4] = {0, 0, 1, 1};
    static const float clear[4] = {0, 0, 0, 1};
    static const rill_field camera_fields[] = {
        {.name = "active",
         .type = RILL_FIELD_BOOL,
         .offset = offsetof(rill_camera, active),
         .default_value = &yes},
        RILL_FIELD(rill_camera, is_default, BOOL),
        {.name = "role",
         .type = RILL_FIELD_ENUM,
         .offset = offsetof(rill_camera, role),
         .enum_items = CAMERA_ROLES,
         .enum_count = 2},
        {.name = "projection",
         .type = RILL_FIELD_ENUM,
         .offset = offsetof(rill_camera, projection),
         .enum_items = PROJECTIONS,
         .enum_count = 2},
        {.name = "fov_y",
         .type = RILL_FIELD_F32,
         .offset = offsetof(rill_camera, fov_y),
         .default_value = &fov,
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
         .min = 0.001,
         .max = 3.14},
        {.name = "near",
         .type = RILL_FIELD_F32,
         .offset = offsetof(rill_camera, near_plane),
         .default_value = &znear,
         .flags = RILL_FIELD_HAS_MIN,
         .min = 1e-6},
        {.name = "far",
         .type = RILL_FIELD_F32,
         .offset = offsetof(rill_camera, far_plane),
         .default_value = &zfar,
         .flags = RILL_FIELD_HAS_MIN,
         .min = 1e-5},
        {.name = "ortho_height",
         .type = RILL_FIELD_F32,
         .offset = offsetof(rill_camera, ortho_height),
         .default_value = &ortho,
         .flags = RILL_FIELD_HAS_MIN,
         .min = 1e-6},
        {.name = "viewport",
         .type = RILL_FIELD_VEC4,
         .offset = offsetof(rill_camera, viewport),
         .default_value = viewport,
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
         .min = 0,
         .max = 1},
        {.name = "clear_color",
         .type = RILL_FIELD_COLOR,
         .offset = offsetof(rill_camera, clear_color),
         .default_value = clear},
        {.name = "hdr",
         .type = RILL_FIELD_BOOL,
         .offset = offsetof(rill_camera, hdr),
         .default_value = &yes},
        RILL_FIELD(rill_camera, order, I32),
        {.name = "passthrough",
         .type = RILL_FIELD_ENUM,
         .offset = offsetof(rill_camera, passthrough),
         .enum_items = PASSTHROUGH,
         .enum_count = 2},
        {.name = "target",
         .type = RILL_FIELD_STRING,
         .offset = offsetof(rill_camera, target),
         .doc = "render texture drawn into instead of the screen; materials sample it as the "
                "image \"target:NAME\""},
        {.name = "target_width",
         .type = RILL_FIELD_U32,
         .offset = offsetof(rill_camera, target_width),
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
         .min = 16,
         .max = 4096,
         .default_value = &target_size,
         .doc = "pixels across the render texture `target` (16..4096)"},
        {.name = "target_height",
         .type = RILL_FIELD_U32,
         .offset = offsetof(rill_camera, target_height),
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
         .min = 16,
         .max = 4096,
         .default_value = &target_size,
         .doc = "pixels down the render texture `target` (16..4096)"},
    };
    const rill_type_desc descs[] = {
        {.name = "Name", RILL_TYPE_LAYOUT(rill_name), RILL_FIELDS(name_fields)},
        {.name = "Transform", RILL_TYPE_LAYOUT(rill_transform), RILL_FIELDS(transform_fields)},
        {.name = "GlobalTransform",
         .size = sizeof(rill_global_transform),
         .align = 16,
         .flags = RILL_TYPE_NO_SERIALIZE,
         RILL_FIELDS(global_fields)},
        {.name = "Parent",
         RILL_TYPE_LAYOUT(rill_parent),
         .flags = RILL_TYPE_NO_SERIALIZE | RILL_TYPE_MANAGED,
         RILL_FIELDS(parent_fields)},
        {.name = "Children",
         RILL_TYPE_LAYOUT(rill_children),
         .flags = RILL_TYPE_NO_SERIALIZE | RILL_TYPE_MANAGED,
         RILL_FIELDS(children_fields)},
        {.name = "Camera", RILL_TYPE_LAYOUT(rill_camera), RILL_FIELDS(camera_fields)},
    };
    for (uint32_t i = 0; i < RILL_COUNTOF(descs); i++) {
        if (rill_world_register_component(w, &descs[i]).id != i + 1u) {
            return false;
        }
    }
    w->builtins = (rill_builtins){
        RILL_COMPONENT_NAME,   RILL_COMPONENT_TRANSFORM, RILL_COMPONENT_GLOBAL_TRANSFORM,
        RILL_COMPONENT_PARENT, RILL_COMPONENT_CHILDREN,  RILL_COMPONENT_CAMERA};
    return true;
}

const rill_builtins *rill_world_builtin(const rill_world *world) {
    return world ? &world->builtins : NULL;
}

/* >>world */

rill_world *rill_world_create(const rill_world_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_world_create", err) != RILL_OK) {
        return NULL;
    }
    rill_world_desc d = desc ? *desc : (rill_world_desc){0};
    if (d.entity_capacity == 0) {
        d.entity_capacity = 1024;
    }
    rill_world *w = rill_calloc_tagged(1, sizeof(*w), RILL_MEM_WORLD);
    if (w == NULL) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_world_create: out of memory");
        return NULL;
    }
    w->label = d.label ? rill_intern(d.label) : "world";
    w->skip_hooks_on_destroy = d.skip_hooks_on_destroy;
    if (!rill_world_reserve(w, d.entity_capacity) || !register_builtins(w)) {
        RILL_LOG_ERROR(WORLD_LOG, "%s: out of memory at creation", w->label);
        w->skip_hooks_on_destroy = true;
        rill_world_destroy(w);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_world_create: out of memory");
        return NULL;
    }
    return w;
}

void rill_world_destroy(rill_world *world) {
    if (world == NULL) {
        return;
    }
    rill__world_despawn_all(world, !world->skip_hooks_on_destroy);
    for (uint32_t i = 0; i < world->components.len; i++) {
        set_free(&world->components.data[i].set);
    }
    for (uint32_t i = 0; i < world->resources.len; i++) {
        rill_free(world->resources.data[i].data);
    }
    for (uint32_t i = 0; i < world->types.len; i++) {
        rill__type_destroy(world->types.data[i]);
    }
    rill__events_free(world);
    rill__query_memo_free(world);
    rill_array_free(&world->types);
    rill_array_free(&world->components);
    rill_array_free(&world->resources);
    rill_array_free(&world->dirty);
    rill_array_free(&world->scratch);
    rill_array_free(&world->xstack);
    rill_array_free(&world->changed);
    rill_map_free(&world->type_by_name);
    rill__slots_free(world);
    rill_free(world->free_slots);
    rill_free(world);
}

/* >>entities */

bool rill_world_reserve(rill_world *world, uint32_t entity_count) {
    if (world == NULL) {
        return false;
    }
    /* Slots beyond the live ones may be free already; reserve for the worst case. */
    return rill__slots_reserve(world, entity_count);
}

/* The free-slot list gives capacity back as spawns take slots from it: it holds up to every slot a
 * despawned district left, and kept that capacity (4 bytes a slot, 2 MB for a 300k-entity world)
 * after the slots were reused. Under a quarter full it shrinks to twice what it holds, never below
 * 1024 (growth doubles at full: a list swaying within a factor of four never reallocates). */
void rill__world_free_trim(rill_world *w) {
    if (w->free_cap > 1024u && w->free_len < w->free_cap / 4u) {
        rill__array_fit((void **)&w->free_slots, &w->free_cap, w->free_len,
                        RILL_MAX(1024u, 2u * w->free_len), sizeof(uint32_t));
    }
}

inline rill_entity rill__world_spawn_one(rill_world *w) {
    uint32_t idx;
    if (w->free_len > 0) {
        idx = w->free_slots[--w->free_len];
    } else {
        idx = w->slot_count++;
        *rill__slot_gen(w, idx) = 1;
    }
    *rill__slot_flags(w, idx) = RILL__SLOT_ALIVE;
    w->alive++;
    return RILL_ENTITY_MAKE(idx, *rill__slot_gen(w, idx));
}

rill_entity rill_world_spawn(rill_world *world) {
    if (world == NULL) {
        return RILL_ENTITY_NULL;
    }
    if (world->free_len == 0 && world->slot_count == world->slot_cap &&
        !rill_world_reserve(world, world->slot_count + 1u)) {
        return RILL_ENTITY_NULL;
    }
    rill_entity e = rill__world_spawn_one(world);
    rill__world_free_trim(world);
    return e;
}

uint32_t rill_world_spawn_n(rill_world *world, uint32_t count, rill_entity *out) {
    if (world == NULL || (count > 0 && out == NULL)) {
        return 0;
    }
    uint32_t from_free = RILL_MIN(count, world->free_len);
    uint64_t need = (uint64_t)world->slot_count + (count - from_free);
    if (need > UINT32_MAX || !rill_world_reserve(world, (uint32_t)need)) {
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        out[i] = rill__world_spawn_one(world);
    }
    rill__world_free_trim(world);
    return count;
}

/* >>hooks */

/* The type's on_add, then every add observer, each on a fresh lookup: an earlier hook may have
 * despawned the entity or moved the storage. */
void rill__world_run_add_hooks(rill_world *world, rill_entity e, rill_component comp) {
    const rill__component *c = rill__world_comp(world, comp);
    const rill_type_desc *t = &c->type->desc;
    void *data = t->on_add ? rill_world_get(world, e, comp) : NULL;
    if (data != NULL) {
        t->on_add(world, e, data, t->hook_user);
    }
    for (uint32_t k = 0; k < rill__world_comp(world, comp)->added.count; k++) {
        c = rill__world_comp(world, comp);
        data = rill_world_get(world, e, comp);
        if (data != NULL) {
            c->added.fn[k](world, e, data, c->added.user[k]);
        }
    }
}

bool rill__world_has_remove_hooks(const rill__component *c) {
    return c->type->desc.on_remove != NULL || c->removed.count;
}

/* The type's on_remove, then every remove observer, each on a fresh lookup (a hook may register
 * components, moving the table, or despawn the entity). The component is still in place. */
void rill__world_run_remove_hooks_of(rill_world *world, rill_entity e, rill_component comp) {
    const rill_type_desc *t = &rill__world_comp(world, comp)->type->desc;
    void *data = t->on_remove ? rill_world_get(world, e, comp) : NULL;
    if (data != NULL) {
        t->on_remove(world, e, data, t->hook_user);
    }
    for (uint32_t k = 0; k < rill__world_comp(world, comp)->removed.count; k++) {
        const rill__component *c = rill__world_comp(world, comp);
        data = rill_world_get(world, e, comp);
        if (data != NULL) {
            c->removed.fn[k](world, e, data, c->removed.user[k]);
        }
    }
}

/* Adds fn + user to list (the same pair again is a no-op); false when the list is full. */
static bool observe(rill_world *world, rill__component *c, rill__observers *list,
                    rill_component_hook fn, void *user, const char *what) {
    for (uint32_t k = 0; k < list->count; k++) {
        if (list->fn[k] == fn && list->user[k] == user) {
            return true;
        }
    }
    if (list->count == RILL__MAX_OBSERVERS) {
        RILL_LOG_WARN(WORLD_LOG, "%s: %s has %u %s observers already", world->label,
                      c->type->desc.name, RILL__MAX_OBSERVERS, what);
        return false;
    }
    list->fn[list->count] = fn;
    list->user[list->count++] = user;
    return true;
}

bool rill_world_observe_add(rill_world *world, rill_component comp, rill_component_hook fn,
                            void *user) {
    rill__component *c = world && fn ? rill__world_comp(world, comp) : NULL;
    return c != NULL && c->type->kind == RILL__KIND_COMPONENT &&
           observe(world, c, &c->added, fn, user, "add");
}

bool rill_world_observe_remove(rill_world *world, rill_component comp, rill_component_hook fn,
                               void *user) {
    rill__component *c = world && fn ? rill__world_comp(world, comp) : NULL;
    return c != NULL && c->type->kind == RILL__KIND_COMPONENT &&
           observe(world, c, &c->removed, fn, user, "remove");
}

bool rill_world_is_alive(const rill_world *world, rill_entity e) {
    return world != NULL && rill__world_alive(world, e);
}

uint32_t rill_world_entity_count(const rill_world *world) {
    return world ? world->alive : 0;
}

bool rill_world_entity_next(const rill_world *world, uint32_t *iter, rill_entity *out_entity) {
    if (world == NULL || iter == NULL) {
        return false;
    }
    while (*iter < world->slot_count) {
        uint32_t i = (*iter)++;
        if (*rill__slot_flags(world, i) & RILL__SLOT_ALIVE) {
            if (out_entity) {
                *out_entity = RILL_ENTITY_MAKE(i, *rill__slot_gen(world, i));
            }
            return true;
        }
    }
    return false;
}

/* >>components */

void *rill_world_add(rill_world *world, rill_entity e, rill_component comp, const void *init) {
    if (world == NULL || !rill__world_alive(world, e)) {
        return NULL;
    }
    rill__component *c = rill__world_comp(world, comp);
    if (c == NULL) {
        RILL_LOG_WARN(WORLD_LOG, "%s: add of unknown component %u", world->label, comp.id);
        return NULL;
    }
    const rill_type_desc *t = &c->type->desc;
    if (t->flags & RILL_TYPE_MANAGED) {
        RILL_LOG_WARN(WORLD_LOG, "%s: %s is managed by the world; use rill_world_set_parent",
                      world->label, t->name);
        return NULL;
    }
    uint32_t idx = RILL_ENTITY_INDEX(e);
    /* init may point into this very storage (copying one entity's component to another), and
     * the insert below may move it: take a copy first. */
    uint8_t local[256];
    void *heap = NULL;
    const uint8_t *base = c->set.data;
    if (init != NULL && base != NULL && (const uint8_t *)init >= base &&
        (const uint8_t *)init < base + (size_t)c->set.cap * c->set.stride) {
        void *copy = t->size <= sizeof local ? (void *)local
                                             : (heap = rill_malloc_tagged(t->size, RILL_MEM_WORLD));
        if (copy == NULL) {
            return NULL;
        }
        memcpy(copy, init, t->size);
        init = copy;
    }
    void *old = rill__set_get(&c->set, idx);
    if (old != NULL && rill__world_has_remove_hooks(c)) {
        rill__world_run_remove_hooks_of(world, e, comp);
        /* The hook may have registered components (moving the component table) or despawned. */
        c = rill__world_comp(world, comp);
        if (!rill__world_alive(world, e)) {
            rill_free(heap);
            return NULL;
        }
    }
    bool existed;
    void *data = rill__set_insert(world, &c->set, e, &existed);
    if (data == NULL) {
        RILL_LOG_ERROR(WORLD_LOG, "%s: out of memory adding %s", world->label, t->name);
        rill_free(heap);
        return NULL;
    }
    memcpy(data, init ? init : c->type->defaults, t->size);
    rill_free(heap);
    if (comp.id == RILL_BUILTIN_TRANSFORM) {
        rill__transform_mark_dirty(world, e);
    }
    if (t->on_add != NULL || c->added.count) {
        /* Hooks may change other storage, but not this component's (documented rule). */
        rill__world_run_add_hooks(world, e, comp);
        data = rill_world_get(world, e, comp);
    }
    return data;
}

void *rill_world_get(const rill_world *world, rill_entity e, rill_component comp) {
    if (world == NULL || !rill__world_alive(world, e)) {
        return NULL;
    }
    rill__component *c = rill__world_comp(world, comp);
    return c ? rill__set_get(&c->set, RILL_ENTITY_INDEX(e)) : NULL;
}

uint32_t rill_world_get_many(const rill_world *world, rill_entity e, const rill_component *comps,
                             uint32_t n, void **out) {
    bool alive = world != NULL && rill__world_alive(world, e);
    uint32_t slot = RILL_ENTITY_INDEX(e), found = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rill__component *c = alive ? rill__world_comp(world, comps[i]) : NULL;
        out[i] = c ? rill__set_get(&c->set, slot) : NULL;
        found += out[i] != NULL;
    }
    return found;
}

bool rill_world_has(const rill_world *world, rill_entity e, rill_component comp) {
    return rill_world_get(world, e, comp) != NULL;
}

bool rill_world_remove(rill_world *world, rill_entity e, rill_component comp) {
    void *data = rill_world_get(world, e, comp);
    if (data == NULL) {
        return false;
    }
    if (comp.id == RILL_BUILTIN_PARENT) {
        return rill_world_set_parent(world, e, RILL_ENTITY_NULL);
    }
    if (comp.id == RILL_BUILTIN_CHILDREN) {
        rill_entity child;
        while ((child = rill_world_first_child(world, e)) != RILL_ENTITY_NULL) {
            rill_world_set_parent(world, child, RILL_ENTITY_NULL);
        }
        return true;
    }
    rill__component *c = rill__world_comp(world, comp);
    if (rill__world_has_remove_hooks(c)) {
        rill__world_run_remove_hooks_of(world, e, comp);
        c = rill__world_comp(world, comp); /* a hook may have grown the component table */
        if (!rill__world_alive(world, e)) {
            return true;
        }
    }
    if (comp.id == RILL_BUILTIN_TRANSFORM) {
        /* Its children inherit a different matrix now (pass-through). */
        rill__transform_mark_dirty(world, e);
    }
    uint32_t idx = RILL_ENTITY_INDEX(e);
    if (rill__set_get(&c->set, idx) == NULL) {
        return true; /* the hook removed it already */
    }
    rill__set_erase(world, &c->set, idx);
    return true;
}

uint32_t rill_world_entity_components(const rill_world *world, rill_entity e, rill_component *out,
                                      uint32_t cap) {
    if (world == NULL || !rill__world_alive(world, e)) {
        return 0;
    }
    uint32_t idx = RILL_ENTITY_INDEX(e);
    uint32_t n = 0;
    for (uint32_t c = 0; c < world->components.len; c++) {
        const rill__sparse_set *s = &world->components.data[c].set;
        if (rill__set_index(s, idx) != 0) {
            if (out != NULL && n < cap) {
                out[n] = (rill_component){c + 1u};
            }
            n++;
        }
    }
    return n;
}

uint32_t rill_world_component_len(const rill_world *world, rill_component comp) {
    rill__component *c = world ? rill__world_comp(world, comp) : NULL;
    return c ? c->set.len : 0;
}

uint32_t rill_world_component_dense(const rill_world *world, rill_component comp,
                                    const rill_entity **out_entities, void **out_data) {
    rill__component *c = world ? rill__world_comp(world, comp) : NULL;
    if (out_entities) {
        *out_entities = c ? c->set.dense : NULL;
    }
    if (out_data) {
        *out_data = c ? c->set.data : NULL;
    }
    return c ? c->set.len : 0;
}

/* >>names */

void rill_world_set_name(rill_world *world, rill_entity e, const char *name) {
    if (name == NULL) {
        rill_world_remove(world, e, RILL_COMPONENT_NAME);
        return;
    }
    if (!rill_world_is_alive(world, e)) {
        return;
    }
    rill_name n = {rill_intern(name)};
    rill_world_add(world, e, RILL_COMPONENT_NAME, &n);
}

const char *rill_world_get_name(const rill_world *world, rill_entity e) {
    const rill_name *n = rill_world_get(world, e, RILL_COMPONENT_NAME);
    return n ? n->value : NULL;
}

rill_entity rill_world_find_by_name(const rill_world *world, const char *name) {
    if (world == NULL || name == NULL) {
        return RILL_ENTITY_NULL;
    }
    const char *interned = rill_intern(name);
    const rill__sparse_set *s = &world->components.data[RILL_BUILTIN_NAME - 1].set;
    rill_entity best = RILL_ENTITY_NULL;
    for (uint32_t d = 0; d < s->len; d++) {
        const rill_name *n = (const rill_name *)(s->data + (size_t)d * s->stride);
        if ((n->value == interned || (n->value && strcmp(n->value, name) == 0)) &&
            (best == RILL_ENTITY_NULL ||
             RILL_ENTITY_INDEX(s->dense[d]) < RILL_ENTITY_INDEX(best))) {
            best = s->dense[d];
        }
    }
    return best;
}
