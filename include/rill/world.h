/* rill/world.h: entities, components, the reflection registry, queries, hierarchy, transforms,
 * per-frame events and deferred command buffers.
 *
 * ON ENTITIES
 *   A rill_entity is 64 bits: the low 32 bits are a slot index, the high 32 bits a generation that
 *   starts at 1 and grows each time the slot is reused. RILL_ENTITY_NULL (0) is never alive. Every
 *   call taking a stale or NULL entity is a no-op that returns NULL / false / 0; none crashes.
 *
 * ON COMPONENTS
 *   A component is a plain-old-data struct described to the world by a reflection type
 *   (rill_type_desc). Each component has its own sparse set: a sparse index by entity slot (in
 *   pages of 1024 slots, made as slots reach them, so a growing world never copies its index)
 *   that points into a dense array of entities and a parallel dense array of data. Add, remove and
 *   despawn are O(1) (removal swaps the last element into the hole), which matters because the
 *   streamer spawns and despawns thousands of entities per second. A pointer returned into
 * component storage is valid until the next structural change (add, remove, despawn, reserve) of
 * THAT component; changes of other components never move it.
 *
 * ON REFLECTION
 *   One registry per world describes every component, resource and any other reflected struct:
 *   name, size, alignment, flags, fields (name, type, offset, array count, default, min/max, enum
 *   names) and optional hooks. The scene reader/writer, effect routing, plugin settings and stats
 *   dumps are all driven by it: register a type once, never hand-write a second (de)serializer.
 *   Strings and asset paths are stored in components as `const char *` interned with rill_intern
 *   (base.h): components then stay POD (copyable with memcpy, comparable by pointer) and streamed
 *   content, which repeats the same names and paths over and over, stores each string once.
 *
 * ON QUERIES AND STRUCTURAL CHANGES
 *   rill_world_query iterates the entities that have every `with` component and none of the
 *   `without` ones, walking the smallest `with` set. Do not add, remove, spawn, despawn or reparent
 *   while a query is iterating (the iteration would skip or repeat entities): record the changes in
 *   a rill_commands buffer and apply it after the loop. Writing component data in place is fine.
 *
 * ON HIERARCHY AND TRANSFORMS
 *   rill_world_set_parent links entities. The links live in the world-managed Parent and Children
 *   components (an intrusive sibling list, so reparenting never allocates); do not add those two
 *   through rill_world_add. rill_world_update_transforms recomputes GlobalTransform only for the
 *   subtrees whose Transform was changed through rill_world_set_transform /
 *   rill_world_transform_mut / rill_world_add, or which were reparented.
 *
 * ON THREADS
 *   A world belongs to one thread (the main thread). rill_commands buffers may be recorded on any
 *   thread (one buffer per thread) and applied on the main thread.
 *
 * Depends on: base.
 */
#ifndef RILL_WORLD_H
#define RILL_WORLD_H

#include "rill/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* >>entity ------------------------------------------------------------------------------------ */

typedef uint64_t rill_entity;
#define RILL_ENTITY_NULL ((rill_entity)0)
#define RILL_ENTITY_INDEX(e) ((uint32_t)((e)&0xFFFFFFFFu))
#define RILL_ENTITY_GENERATION(e) ((uint32_t)((e) >> 32))
#define RILL_ENTITY_MAKE(index, generation)                                                        \
    ((rill_entity)(((uint64_t)(generation) << 32) | (uint64_t)(uint32_t)(index)))

/* Handles of the three id spaces. Each is a one-member struct so the compiler refuses a resource
 * where a component is expected (and a bare integer anywhere): pass them by value, compare ids with
 * `.id`, test validity with `.id != 0` (or the _valid helpers), write constants as
 * RILL_COMPONENT_NONE or `(rill_component){id}` where an id comes from outside (a table index).
 *
 * A component id: .id in 1..rill_world_component_count(), in registration order. 0 is invalid. */
typedef struct rill_component {
    uint32_t id;
} rill_component;
/* A resource (singleton) id, its own id space; 0 is invalid. */
typedef struct rill_resource {
    uint32_t id;
} rill_resource;
/* An event type id, its own id space; 0 is invalid. */
typedef struct rill_event {
    uint32_t id;
} rill_event;
#define RILL_COMPONENT_NONE ((rill_component){0})
#define RILL_RESOURCE_NONE ((rill_resource){0})
#define RILL_EVENT_NONE ((rill_event){0})

static inline bool rill_component_valid(rill_component c) {
    return c.id != 0;
}
static inline bool rill_component_eq(rill_component a, rill_component b) {
    return a.id == b.id;
}
static inline bool rill_resource_valid(rill_resource r) {
    return r.id != 0;
}
static inline bool rill_event_valid(rill_event e) {
    return e.id != 0;
}

typedef struct rill_world rill_world;

/* >>reflection -------------------------------------------------------------------------------- */

/* The storage of each field type (one element; arrays repeat it `count` times):
 *   BOOL bool | I32 int32_t | U32 uint32_t | I64 int64_t | U64 uint64_t | F32 float | F64 double
 *   VEC2 float[2] | VEC3 float[3] | VEC4 float[4] | QUAT float[4] (x, y, z, w)
 *   COLOR float[4] (linear r, g, b, a) | STRING, ASSET_PATH const char * (interned, may be NULL)
 *   ENTITY rill_entity | ENUM int32_t (written and read by name through the field's enum table). */
/* rill_field_type's values and their names (rill_field_type_name), one list. */
#define RILL_FIELD_TYPE_LIST(X)                                                                    \
    X(RILL_FIELD_NONE, "none")                                                                     \
    X(RILL_FIELD_BOOL, "bool")                                                                     \
    X(RILL_FIELD_I32, "i32")                                                                       \
    X(RILL_FIELD_U32, "u32")                                                                       \
    X(RILL_FIELD_I64, "i64")                                                                       \
    X(RILL_FIELD_U64, "u64")                                                                       \
    X(RILL_FIELD_F32, "f32")                                                                       \
    X(RILL_FIELD_F64, "f64")                                                                       \
    X(RILL_FIELD_VEC2, "vec2")                                                                     \
    X(RILL_FIELD_VEC3, "vec3")                                                                     \
    X(RILL_FIELD_VEC4, "vec4")                                                                     \
    X(RILL_FIELD_QUAT, "quat")                                                                     \
    X(RILL_FIELD_COLOR, "color")                                                                   \
    X(RILL_FIELD_STRING, "string")                                                                 \
    X(RILL_FIELD_ASSET_PATH, "asset_path")                                                         \
    X(RILL_FIELD_ENTITY, "entity")                                                                 \
    X(RILL_FIELD_ENUM, "enum")
typedef enum rill_field_type {
    RILL_FIELD_TYPE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_FIELD_TYPE_NUM,
    RILL_FIELD_TYPE_FORCE_U32 = 0x7FFFFFFF
} rill_field_type;

/* Field flags. */
enum {
    RILL_FIELD_HAS_MIN = 1u << 0,      /* clamp numeric values (each vector lane) to >= min */
    RILL_FIELD_HAS_MAX = 1u << 1,      /* clamp numeric values (each vector lane) to <= max */
    RILL_FIELD_NO_SERIALIZE = 1u << 2, /* runtime-only field: scene writer and dump skip it */
};

/* Type flags. */
enum {
    /* Runtime-only type: never written to scene files (GlobalTransform, Parent, Children). */
    RILL_TYPE_NO_SERIALIZE = 1u << 0,
    /* Maintained by the world itself: rill_world_add refuses it (Parent, Children). */
    RILL_TYPE_MANAGED = 1u << 1,
};

/* One name <-> value pair of an enum field. */
typedef struct rill_enum_item {
    const char *name;
    int32_t value;
} rill_enum_item;

/* One field of a reflected struct.
 *   name:          field name as written in text (required).
 *   type:          storage type (see rill_field_type).
 *   offset:        byte offset in the struct (use offsetof).
 *   count:         number of elements for a fixed array; 0 and 1 both mean a scalar.
 *   default_value: NULL = all zero; else points to `count` elements of the field's storage type
 *                  (for STRING/ASSET_PATH: to `const char *` pointers, which get interned).
 *   min, max:      clamping bounds used when flags has RILL_FIELD_HAS_MIN / HAS_MAX; they apply to
 *                  every numeric lane (ints, floats, vector components, colors). Ignored for other
 *                  types.
 *   enum_items:    for RILL_FIELD_ENUM, the table of names and values (enum_count entries).
 *   doc:           optional one-line description (shown by tools). */
typedef struct rill_field {
    const char *name;
    rill_field_type type;
    uint32_t offset;
    uint32_t count;
    uint32_t flags;
    const void *default_value;
    double min;
    double max;
    const rill_enum_item *enum_items;
    uint32_t enum_count;
    const char *doc;
} rill_field;

/* A component hook: `data` points at the component in storage. on_add runs after the data is in
 * place (on add and on replace); on_remove runs before it goes (on remove, replace, despawn,
 * rill_world_clear and, unless the world desc says otherwise, rill_world_destroy). A hook must not
 * make structural changes to the same component; other structural changes are allowed. */
typedef void (*rill_component_hook)(rill_world *world, rill_entity entity, void *data, void *user);

/* The description of a reflected type. Registration copies everything (fields, default bytes, enum
 * tables, names are interned), so the desc and what it points to may be temporaries.
 *   name:        unique type name (required), e.g. "Transform".
 *   size, align: sizeof / _Alignof of the C struct (size required; align 0 = 8 capped to size's
 *                natural alignment, max 16).
 *   flags:       RILL_TYPE_* bits.
 *   fields:      field_count field descriptions (RILL_FIELDS(array) sets both); fields may leave
 *                padding or private bytes undescribed (they are copied but not written to text).
 *   defaults:    optional prototype object of `size` bytes, applied before the per-field defaults
 *                (handy for C structs with many non-zero defaults). NULL = zero.
 *   on_add, on_remove, hook_user: optional component hooks (components only). */
typedef struct rill_type_desc {
    const char *name;
    uint32_t size;
    uint32_t align;
    uint32_t flags;
    const rill_field *fields;
    uint32_t field_count;
    const void *defaults;
    rill_component_hook on_add;
    rill_component_hook on_remove;
    void *hook_user;
    const char *doc;
} rill_type_desc;

/* A rill_type_desc's fields and field_count from one array of rill_field, counted by the compiler
 * (an array, never a pointer): {.name = "Health", RILL_TYPE_LAYOUT(health), RILL_FIELDS(fields)}.
 */
#define RILL_FIELDS(array) .fields = (array), .field_count = (uint32_t)RILL_COUNTOF(array)

/* Fills a rill_field for member `member` of struct `T` with type RILL_FIELD_<TYPE>. */
#define RILL_FIELD(T, member, TYPE)                                                                \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_##TYPE, .offset = (uint32_t)offsetof(T, member),       \
        .count = 1                                                                                 \
    }
/* RILL_FIELD with more designated members after the count (a range, a doc, a default):
 *   RILL_FIELD_WITH(T, radius, F32, RILL_FIELD_MIN(0.0), .doc = "metres")
 * (not for arrays: set .count in a full initializer instead). */
#define RILL_FIELD_WITH(T, member, TYPE, ...)                                                      \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_##TYPE, .offset = (uint32_t)offsetof(T, member),       \
        .count = 1, __VA_ARGS__                                                                    \
    }
/* The clamping flags and bounds of a field, for RILL_FIELD_WITH. */
#define RILL_FIELD_MIN(lo) .flags = RILL_FIELD_HAS_MIN, .min = (lo)
#define RILL_FIELD_MAX(hi) .flags = RILL_FIELD_HAS_MAX, .max = (hi)
#define RILL_FIELD_RANGE(lo, hi)                                                                   \
    .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi)
/* Size and alignment of struct T for a rill_type_desc initializer. */
#define RILL_TYPE_LAYOUT(T) .size = (uint32_t)sizeof(T), .align = (uint32_t) _Alignof(T)

/* Bytes of one element of a field type (0 for NONE / out of range). */
size_t rill_field_type_size(rill_field_type type);
/* Lower-case name of a field type ("vec3", "asset_path", ...), "none" when out of range. */
const char *rill_field_type_name(rill_field_type type);
/* Inverse of rill_field_type_name; RILL_FIELD_NONE when unknown. */
rill_field_type rill_field_type_from_name(const char *name);

/* The field called `name` in type, or NULL. */
const rill_field *rill_type_find_field(const rill_type_desc *type, const char *name);
/* Pointer to a field's first element inside obj. */
#define RILL_FIELD_PTR(obj, field) ((void *)((char *)(obj) + (field)->offset))
/* Element count of a field (count 0 reads as 1). */
uint32_t rill_field_count(const rill_field *field);

/* Writes the type's defaults into obj (size bytes): zero, then `defaults`, then every field's
 * default_value (strings interned). */
void rill_type_apply_defaults(const rill_type_desc *type, void *obj);
/* Clamps every field with HAS_MIN / HAS_MAX in place, lane by lane (NaN becomes the min, else the
 * max). Bool, string and entity fields are never clamped. Returns the number of numeric lanes that
 * changed (a vec3 whose x and z were out of range counts 2). */
uint32_t rill_type_clamp(const rill_type_desc *type, void *obj);
/* Copies src to dst (size bytes; memcpy: interned strings are shared, which is fine). */
void rill_type_copy(const rill_type_desc *type, void *dst, const void *src);
/* Compares the described fields (not padding): floats by value (so -0 == 0; NaN != NaN), strings
 * by content. Returns true when every field is equal. */
bool rill_type_equal(const rill_type_desc *type, const void *a, const void *b);

/* The enum name of `value` for an ENUM field, or NULL when the table has none. */
const char *rill_field_enum_name(const rill_field *field, int32_t value);
/* The value of enum name `name` (case-sensitive); false when unknown. */
bool rill_field_enum_value(const rill_field *field, const char *name, int32_t *out_value);

/* Reads numeric lane `index` of a field as a double. Lanes are numbered flat across the array:
 * element * lanes_per_element + lane (a scalar has 1 lane, a vec3 3, a color 4). Bool and enum
 * fields count as numeric. False for strings, entities and out-of-range indices. */
bool rill_field_get_f64(const rill_field *field, const void *obj, uint32_t index, double *out);
/* Writes a number into lane `index` (numbered as above), converted to the storage type with
 * saturation (NaN -> 0 for integers); no min/max clamping. */
bool rill_field_set_f64(const rill_field *field, void *obj, uint32_t index, double value);

/* The text form of field values is the value syntax of .rsn files (docs/formats/rsn.md,
 * "Grammar"), shared by the scene reader and writer, the CLI's field=value settings and tests.
 *
 * Appends the text form of one field's value to out:
 *   bool true|false; ints and floats in shortest round-trip form ("1", "0.5", "1e+30");
 *   vectors/quats/colors "(x, y, z)"; strings and asset paths quoted with C escapes ("" for NULL);
 *   entities as the decimal u64 (0 for none); enums by name (the number when the table has none);
 *   arrays "[a, b, c]". Returns false when out of memory. */
bool rill_field_format(const rill_field *field, const void *obj, rill_strbuf *out);
/* The same for one element of the field (elem points at it: an array field's elements one by
 * one). */
bool rill_field_format_element(const rill_field *field, const void *elem, rill_strbuf *out);
/* Parses the text form into obj's field. The syntax: whitespace and '#' comments between tokens;
 * numbers in the one number syntax (rill_num_parse_*; a finite decimal that overflows a float is
 * an error, inf/nan are written as such); strings "..." on one line with the escapes \" \\ \n \r
 * \t \0 \xHH, interned, "" read as NULL; string and asset fields also accept @"..."; vectors
 * "(x, y, z)" with exactly the type's lane count; arrays "[a, b]" with at most the field's count
 * (elements not listed keep their values); a trailing comma is allowed in both; an enum accepts a
 * name or an i32. Out-of-range integers fail. On success *out_consumed is the number of bytes used
 * (trailing text is left alone). On failure obj is untouched, the result is RILL_ERR_PARSE and the
 * message says "offset N: ..." relative to text. */
rill_result rill_field_parse(const rill_field *field, void *obj, const char *text, size_t len,
                             size_t *out_consumed, rill_error *err);

/* What the scene reader and writer add to the text form (zero = rill_field_parse/_format). */
typedef enum rill_field_text_flags {
    /* Parse: an out-of-range number is clamped (integers to their type, numbers to the field's
     * HAS_MIN/HAS_MAX bounds, NaN to the min) and reported through warn instead of failing. */
    RILL_FIELD_TEXT_CLAMP = 1u << 0,
    /* Format: asset paths are written @"path". */
    RILL_FIELD_TEXT_ASSET_AT = 1u << 1,
} rill_field_text_flags;

/* Hooks of the extended text form. Positions are byte offsets into the text being parsed. */
typedef struct rill_field_text {
    uint32_t flags; /* rill_field_text_flags */
    void *user;     /* passed to every hook */
    /* Parse: a non-fatal problem (a clamped value) at pos. */
    void (*warn)(void *user, size_t pos, const char *msg);
    /* Parse, ENTITY fields: when set, entities are read as "&id" or "none" (instead of a u64) and
     * this resolves &id (1 .. 4294967295) of array element elem into *out. False fails the parse
     * as out of memory. */
    bool (*entity_ref)(void *user, uint32_t id, uint32_t elem, size_t pos, rill_entity *out);
    /* Format, ENTITY fields: when set, a live entity is written "&id" with the id this gives
     * (false or RILL_ENTITY_NULL: "none"). */
    bool (*ref_format)(void *user, rill_entity e, uint64_t *out_id);
    /* Parse, ASSET_PATH fields: the path to store for interned path (at pos), e.g. normalized. */
    const char *(*asset_path)(void *user, const char *path, size_t pos);
} rill_field_text;

/* rill_field_parse with hooks (opt may be NULL). *out_pos is the number of bytes used on success
 * and the offset of the problem on failure; the message has no offset prefix. */
rill_result rill_field_parse_ex(const rill_field *field, void *obj, const char *text, size_t len,
                                const rill_field_text *opt, size_t *out_pos, rill_error *err);
/* rill_field_format with hooks (opt may be NULL). */
bool rill_field_format_ex(const rill_field *field, const void *obj, const rill_field_text *opt,
                          rill_strbuf *out);

/* Appends "Name { field: value field: value }" (one line, RILL_FIELD_NO_SERIALIZE fields
 * skipped) to out. A debugging and stats aid; the scene writer lays out whole files. */
bool rill_type_dump(const rill_type_desc *type, const void *obj, rill_strbuf *out);

/* >>world ------------------------------------------------------------------------------------- */

/* Defaults: entity_capacity 0 = 1024 (grows on demand; this only pre-sizes), run_hooks_on_destroy
 * true unless skip_hooks_on_destroy is set (set it when the systems the hooks call, e.g. the asset
 * server, are destroyed before the world). */
typedef struct rill_world_desc {
    uint32_t start_canary; /* must be 0 */
    uint32_t entity_capacity;
    bool skip_hooks_on_destroy;
    const char *label;   /* for logs; NULL = "world" */
    uint32_t end_canary; /* must be 0 */
} rill_world_desc;

/* Creates a world and registers the built-in components (see rill_builtin_component). desc may be
 * NULL or zero for defaults. Returns NULL when out of memory. Destroy with rill_world_destroy. */
rill_world *rill_world_create(const rill_world_desc *desc, rill_error *err);
/* Despawns everything (running on_remove hooks unless skip_hooks_on_destroy) and frees the world.
 * NULL is a no-op. */
void rill_world_destroy(rill_world *world);
/* Despawns every entity (hooks run), keeps registrations, resources and events. */
void rill_world_clear(rill_world *world);

/* >>entities ---------------------------------------------------------------------------------- */

/* A new empty entity, or RILL_ENTITY_NULL when out of memory. */
rill_entity rill_world_spawn(rill_world *world);
/* Spawns `count` empty entities into out[0..count) (caller-sized). Returns count, or 0 when out of
 * memory (nothing spawned then). */
uint32_t rill_world_spawn_n(rill_world *world, uint32_t count, rill_entity *out);
/* A bulk spawn: `count` entities that each get the same set of components.
 *   components: zero-terminated list of distinct, non-MANAGED component ids.
 *   data:       per component, NULL = the type's defaults for every entity, else `count` values
 *               back to back (sizeof the type each; strings already interned).
 * An all-zero desc spawns nothing. */
#define RILL_SPAWN_MAX_COMPONENTS 16
typedef struct rill_spawn_desc {
    uint32_t count;
    rill_component components[RILL_SPAWN_MAX_COMPONENTS];
    const void *data[RILL_SPAWN_MAX_COMPONENTS];
} rill_spawn_desc;
/* Spawns desc->count entities with their components in one pass: every storage grows once and is
 * filled with block copies, instead of one add per component per entity. out (NULL, or desc->count
 * entries) receives the entities, in the order of the data arrays. Transforms are marked dirty;
 * on_add hooks run after every entity is complete, component by component. Returns the count, or
 * 0 when the desc is invalid (unknown, MANAGED or repeated component; logged) or memory ran out;
 * nothing is spawned then. The entities also form long runs for rill_query_next_run. */
uint32_t rill_world_spawn_bulk(rill_world *world, const rill_spawn_desc *desc, rill_entity *out);
/* Pre-sizes entity storage for `entity_count` live entities in total. False when out of memory. */
bool rill_world_reserve(rill_world *world, uint32_t entity_count);
/* Despawns e: runs on_remove hooks, removes all its components, unlinks it from its parent's
 * children; its own children become roots (their transforms are marked dirty). False when e is not
 * alive. */
bool rill_world_despawn(rill_world *world, rill_entity e);
/* Despawns e and all its descendants. Returns the number of entities despawned (0 if stale).
 * Large subtrees (64 entities or more) go as one batch: on_remove hooks run first for all of them
 * (children before parents, every component still present), then each component's storage is
 * compacted in one pass instead of one swap-remove per entity, so despawning a 100k-entity scene
 * costs a few milliseconds. The order of other entities in a component's dense array may change
 * (it is not a contract in any case). */
uint32_t rill_world_despawn_recursive(rill_world *world, rill_entity e);
/* rill_world_despawn_recursive of roots[0..count) as one batch (stale ids are skipped; a root that
 * is a descendant of another root, or listed twice, goes once). Returns the number despawned. */
uint32_t rill_world_despawn_recursive_n(rill_world *world, const rill_entity *roots,
                                        uint32_t count);
/* True when e is a live entity of this world (false for NULL, stale or foreign ids). */
bool rill_world_is_alive(const rill_world *world, rill_entity e);
/* Number of live entities. */
uint32_t rill_world_entity_count(const rill_world *world);
/* Iterates live entities in slot order: `for (uint32_t it = 0; rill_world_entity_next(w, &it,
 * &e);)` Do not spawn or despawn while iterating. */
bool rill_world_entity_next(const rill_world *world, uint32_t *iter, rill_entity *out_entity);

/* >>components -------------------------------------------------------------------------------- */

/* Registers a component type; returns its id, or 0 on error (invalid desc, out of memory). A name
 * registered again with the same size returns the existing id (the first description stays);
 * with a different size it is an error. */
rill_component rill_world_register_component(rill_world *world, const rill_type_desc *desc);
/* The component registered as `name`, or 0. */
rill_component rill_world_find_component(const rill_world *world, const char *name);
/* The registry's copy of a component's type (valid for the world's lifetime), or NULL. */
const rill_type_desc *rill_world_component_type(const rill_world *world, rill_component comp);
/* Number of registered components (ids are 1..count). */
uint32_t rill_world_component_count(const rill_world *world);
/* Pre-sizes one component's storage for n entities in total. False when out of memory. */
bool rill_world_component_reserve(rill_world *world, rill_component comp, uint32_t n);
/* Writes zeros over the reserved, unused storage of elements [first, first + count) of comp
 * (clamped to [len, capacity)), so the OS maps those pages now rather than at the first add that
 * lands on them. A load uses it, in budgeted steps, for storage that an unbudgeted pass fills
 * later (GlobalTransforms written by rill_world_update_transforms). Returns the elements touched.
 * Changes no component data. */
uint32_t rill_world_component_prefault(rill_world *world, rill_component comp, uint32_t first,
                                       uint32_t count);

/* Adds comp to e (or replaces it) and returns a pointer to the stored data. init NULL = the type's
 * defaults, else `size` bytes copied from init (strings in init must already be interned, or use
 * rill_intern). On replace, on_remove runs for the old value before the copy. on_add runs after.
 * Adding Transform marks it dirty. Returns NULL for a stale entity, an unknown or MANAGED
 * component, or out of memory. The pointer is valid until the next structural change of comp. */
void *rill_world_add(rill_world *world, rill_entity e, rill_component comp, const void *init);
/* Adds an observer of comp: fn(world, e, data, user) runs after every add or replace of comp
 * (rill_world_add, rill_world_spawn_bulk, commands), after the type's own on_add. Lets a module
 * above the one that registered comp react to it (the channels module assigns defaults this way).
 * At most 6 per component; the same fn + user again is a no-op. False for an unknown component,
 * NULL fn or no room. */
bool rill_world_observe_add(rill_world *world, rill_component comp, rill_component_hook fn,
                            void *user);
/* Adds an observer of comp's removal: fn(world, e, data, user) runs before comp goes from e (on
 * remove, on replace with the old value, despawn, rill_world_clear and rill_world_destroy when it
 * runs hooks), after the type's own on_remove, while e still has all its components. Together
 * with an add observer it lets a module keep counts of what names an asset. At most 6 per
 * component; the same fn + user again is a no-op. False for an unknown component, NULL fn or no
 * room. */
bool rill_world_observe_remove(rill_world *world, rill_component comp, rill_component_hook fn,
                               void *user);
/* The data of comp on e, or NULL when absent / stale. Writing through it is allowed, but writing a
 * Transform this way does not mark it dirty (use rill_world_transform_mut). */
void *rill_world_get(const rill_world *world, rill_entity e, rill_component comp);
/* The data of n components of e in one pass: out[i] = rill_world_get(world, e, comps[i]) (NULL
 * when absent, or for an unknown / NONE component), with e's liveness checked once. Returns how
 * many were found (0 and every out[i] NULL for a stale entity). For walks that read several
 * components of each entity (extract fetches four per shown model, ahead of use). */
uint32_t rill_world_get_many(const rill_world *world, rill_entity e, const rill_component *comps,
                             uint32_t n, void **out);
/* True when e is alive and has comp. */
bool rill_world_has(const rill_world *world, rill_entity e, rill_component comp);
/* Removes comp from e (on_remove runs first). Removing Parent detaches e from its parent;
 * removing Children detaches all children. False when absent. */
bool rill_world_remove(rill_world *world, rill_entity e, rill_component comp);
/* Writes the components e has, in registration order, into out[0..cap) and returns how many e has
 * (may exceed cap: call again with a larger buffer). out may be NULL when cap is 0. */
uint32_t rill_world_entity_components(const rill_world *world, rill_entity e, rill_component *out,
                                      uint32_t cap);
/* Number of entities that have comp. */
uint32_t rill_world_component_len(const rill_world *world, rill_component comp);
/* Raw dense storage of comp: *out_entities[i] owns element i of *out_data (stride = type size).
 * Returns the element count. Valid until the next structural change of comp. Read-mostly: the
 * renderer's extract and bulk systems use it to walk one component without lookups. */
uint32_t rill_world_component_dense(const rill_world *world, rill_component comp,
                                    const rill_entity **out_entities, void **out_data);

/* >>resources --------------------------------------------------------------------------------- */

/* Registers a resource (singleton) type; same rules as components (hooks are ignored). */
rill_resource rill_world_register_resource(rill_world *world, const rill_type_desc *desc);
/* The resource registered as `name`, or 0. */
rill_resource rill_world_find_resource(const rill_world *world, const char *name);
/* The registry's copy of a resource's type (valid for the world's lifetime), or NULL. */
const rill_type_desc *rill_world_resource_type(const rill_world *world, rill_resource res);
/* Sets the resource's value (data NULL = defaults) and returns the world-owned storage (stable
 * until rill_world_remove_resource or world destroy). NULL for an unknown id or out of memory. */
void *rill_world_set_resource(rill_world *world, rill_resource res, const void *data);
/* The resource's storage, or NULL when it was never set (or removed). */
void *rill_world_get_resource(const rill_world *world, rill_resource res);
/* Frees the resource's storage (it reads as unset again). False when it was not set. */
bool rill_world_remove_resource(rill_world *world, rill_resource res);

/* Registers a reflected type that is neither component nor resource (plugin settings, event
 * payloads) so rill_world_find_type can find it. Returns the registry's copy, or NULL. */
const rill_type_desc *rill_world_register_type(rill_world *world, const rill_type_desc *desc);
/* Any registered type (component, resource or plain) by name, or NULL. */
const rill_type_desc *rill_world_find_type(const rill_world *world, const char *name);

/* >>builtins ---------------------------------------------------------------------------------- */

/* The built-in components, registered by rill_world_create in this order, so their ids are the
 * same in every world. Their names (used by scene files) are in quotes. */
typedef enum rill_builtin_component {
    RILL_BUILTIN_NAME = 1,         /* "Name" rill_name */
    RILL_BUILTIN_TRANSFORM,        /* "Transform" rill_transform */
    RILL_BUILTIN_GLOBAL_TRANSFORM, /* "GlobalTransform" rill_global_transform, NO_SERIALIZE */
    RILL_BUILTIN_PARENT,           /* "Parent" rill_parent, NO_SERIALIZE | MANAGED */
    RILL_BUILTIN_CHILDREN,         /* "Children" rill_children, NO_SERIALIZE | MANAGED */
    RILL_BUILTIN_CAMERA,           /* "Camera" rill_camera */
    RILL_COMPONENT_BUILTIN_NUM
} rill_builtin_component;
/* The built-ins as handles (compound literals: usable in code, not in static initializers). */
#define RILL_COMPONENT_NAME ((rill_component){RILL_BUILTIN_NAME})
#define RILL_COMPONENT_TRANSFORM ((rill_component){RILL_BUILTIN_TRANSFORM})
#define RILL_COMPONENT_GLOBAL_TRANSFORM ((rill_component){RILL_BUILTIN_GLOBAL_TRANSFORM})
#define RILL_COMPONENT_PARENT ((rill_component){RILL_BUILTIN_PARENT})
#define RILL_COMPONENT_CHILDREN ((rill_component){RILL_BUILTIN_CHILDREN})
#define RILL_COMPONENT_CAMERA ((rill_component){RILL_BUILTIN_CAMERA})

/* The same ids as struct fields, for code that prefers `rill_world_builtin(w)->transform`. */
typedef struct rill_builtins {
    rill_component name;
    rill_component transform;
    rill_component global_transform;
    rill_component parent;
    rill_component children;
    rill_component camera;
} rill_builtins;
/* Pointer valid for the world's lifetime. */
const rill_builtins *rill_world_builtin(const rill_world *world);

/* "Name" { value: string } */
typedef struct rill_name {
    const char *value; /* interned */
} rill_name;

/* "Transform" { translation: vec3, rotation: quat, scale: vec3 = (1, 1, 1) }: local to the parent.
 * rotation is a unit quaternion (x, y, z, w), default identity. */
typedef struct rill_transform {
    float translation[3];
    float rotation[4];
    float scale[3];
} rill_transform;

/* "GlobalTransform": the world matrix, column-major (m[12..14] is the translation). Computed by
 * rill_world_update_transforms; identity until then. Field "matrix" f32[16]. */
typedef struct rill_global_transform {
    float m[16];
} rill_global_transform;

/* "Parent": set by rill_world_set_parent. prev/next are the sibling links in the parent's list. */
typedef struct rill_parent {
    rill_entity parent;
    rill_entity prev_sibling;
    rill_entity next_sibling;
} rill_parent;

/* "Children": the head of the child list, in the order children were attached. */
typedef struct rill_children {
    rill_entity first;
    rill_entity last;
    uint32_t count;
} rill_children;

typedef enum rill_camera_role {
    RILL_CAMERA_ROLE_GAME = 0, /* "game" */
    RILL_CAMERA_ROLE_EDITOR,   /* "editor" */
    RILL_CAMERA_ROLE_NUM
} rill_camera_role;

typedef enum rill_projection {
    RILL_PROJECTION_PERSPECTIVE = 0, /* "perspective" */
    RILL_PROJECTION_ORTHOGRAPHIC,    /* "orthographic" */
    RILL_PROJECTION_NUM
} rill_projection;

/* "Camera". Field names in text are given where they differ from the C member.
 *   active true, is_default false, role game, projection perspective, fov_y 0.8 (radians,
 *   vertical), near_plane "near" 0.1, far_plane "far" 1000, ortho_height 10 (world units, full
 *   height), viewport (0, 0, 1, 1) normalized x, y, w, h, clear_color (0, 0, 0, 1), hdr true,
 *   order 0 (lower draws first), passthrough off ("off" | "mixed": the output's alpha lets a
 *   camera feed show where nothing drew and through ghosted geometry; rill_passthrough in
 *   rill/render.h). */
typedef struct rill_camera {
    bool active;
    bool is_default;
    bool hdr;
    int32_t role;       /* rill_camera_role */
    int32_t projection; /* rill_projection */
    float fov_y;
    float near_plane;
    float far_plane;
    float ortho_height;
    float viewport[4];
    float clear_color[4];
    int32_t order;
    int32_t passthrough; /* 0 off, 1 mixed */
    /* The render texture the camera draws into instead of the output (interned; NULL or "": the
     * output): materials sample it through an image URI "target:NAME" (rill/render.h,
     * rill_render_target_texture). */
    const char *target;
    /* The render texture's size in pixels (16 .. 4096; default 512 x 512). The texture takes the
     * size of the last camera drawing into it; a change switches to a new image once it is
     * uploaded (the camera draws at the old size until then). */
    uint32_t target_width, target_height;
} rill_camera;

/* Convenience: sets the Name component (the string is interned). NULL name removes it. */
void rill_world_set_name(rill_world *world, rill_entity e, const char *name);
/* The entity's name, or NULL when it has none (or is stale). Interned: valid until
 * rill_intern_shutdown. */
const char *rill_world_get_name(const rill_world *world, rill_entity e);
/* The first live entity (in slot order) whose Name equals name, or RILL_ENTITY_NULL. O(named). */
rill_entity rill_world_find_by_name(const rill_world *world, const char *name);

/* >>hierarchy --------------------------------------------------------------------------------- */

/* Makes child a child of parent (appended last), detaching it from its old parent first.
 * parent RILL_ENTITY_NULL detaches. Marks child's transform dirty. Refuses (returns false) stale
 * entities, child == parent and cycles (parent being a descendant of child). */
bool rill_world_set_parent(rill_world *world, rill_entity child, rill_entity parent);
/* The parent of e, or RILL_ENTITY_NULL. */
rill_entity rill_world_get_parent(const rill_world *world, rill_entity e);
/* Children iteration: `for (c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w,
 * c))`. Do not reparent or despawn the children while walking them this way. */
rill_entity rill_world_first_child(const rill_world *world, rill_entity e);
/* The sibling after e in its parent's list, or RILL_ENTITY_NULL (last child, root, stale). */
rill_entity rill_world_next_sibling(const rill_world *world, rill_entity e);
/* Number of direct children of e (0 for a stale entity). */
uint32_t rill_world_child_count(const rill_world *world, rill_entity e);
/* Copies up to cap children (in order) into out and returns the total child count. */
uint32_t rill_world_children(const rill_world *world, rill_entity e, rill_entity *out,
                             uint32_t cap);

/* >>transforms -------------------------------------------------------------------------------- */

/* The identity transform (zero translation, identity rotation, unit scale). */
rill_transform rill_transform_identity(void);
/* out = T * R * S as a column-major 4x4 matrix. */
void rill_transform_to_mat4(const rill_transform *t, float out[16]);
/* out = a * b (column-major). out may alias a or b. */
void rill_mat4_mul(const float a[16], const float b[16], float out[16]);
/* Writes the 4x4 identity matrix. */
void rill_mat4_identity(float out[16]);
/* Where the ray o + t * d crosses triangle (a, b, c), from either side (Moller-Trumbore): true
 * with *out_t > 0 (in lengths of d). A degenerate triangle or a ray in its plane misses. */
bool rill_ray_triangle(const float o[3], const float d[3], const float a[3], const float b[3],
                       const float c[3], float *out_t);
/* The world Rill places things in: every element of a world matrix and every model-space vertex
 * coordinate lies within +-RILL_WORLD_LIMIT metres. It is the farthest far plane a camera may have
 * (nothing beyond it is ever visible), and far enough inside the float range that products and
 * squares of such values stay finite, so bounds, distances and projections built from them do
 * too. Values beyond it (3e38, inf, NaN) are refused where they enter: the glTF reader, the scene
 * loader (warning with the file and the entity), extract (the entity is not drawn). */
#define RILL_WORLD_LIMIT 1.0e9f
/* True when all 16 elements of m are finite and within +-RILL_WORLD_LIMIT (NaN is not). */
bool rill_mat4_in_world_limit(const float m[16]);

/* Sets (adding if missing) e's Transform and marks it dirty. False when stale. */
bool rill_world_set_transform(rill_world *world, rill_entity e, const rill_transform *t);
/* Pointer to e's Transform for writing, marking it dirty; NULL when it has none. */
rill_transform *rill_world_transform_mut(rill_world *world, rill_entity e);
/* Marks e's subtree for recomputation (after writing through rill_world_get). */
void rill_world_mark_transform_dirty(rill_world *world, rill_entity e);
/* Recomputes GlobalTransform for every dirty subtree: global = parent_global * local (an ancestor
 * without Transform passes its own parent's matrix through; a root's parent matrix is identity).
 * Entities with a Transform but no GlobalTransform get one added. Returns the number of
 * GlobalTransforms written (so tests can see that clean subtrees were skipped). Call once per frame
 * in post_update. */
uint32_t rill_world_update_transforms(rill_world *world);
/* Recomputes the dirty subtrees rooted at entities[0..count) only (an entry that is clean, or
 * under a dirty ancestor, is skipped: the next full update covers it). A budgeted producer of many
 * transforms, the scene loader, propagates what it added this way within its own budget, so the
 * frame's full update finds them clean. Returns the number of GlobalTransforms written. */
uint32_t rill_world_update_transforms_of(rill_world *world, const rill_entity *entities,
                                         uint32_t count);
/* The entities whose GlobalTransform the last rill_world_update_transforms wrote, together with
 * those rill_world_update_transforms_of wrote since the full update before it (in walk order;
 * *out_count of them), so systems that cache world-space data (bounds for streaming distances,
 * static batches) can refresh only those. Valid until the next update; entities may have been
 * despawned since. */
const rill_entity *rill_world_changed_transforms(const rill_world *world, uint32_t *out_count);
/* The part of that list written since *cursor, for a system that reads it once per update but may
 * be skipped for an update, or run twice: every write has a sequence number, *cursor is the first
 * one not yet read (0 at the start) and the call advances it past the list. *out (*out_count
 * entries) are the writes from *cursor on that the list still holds. Returns false when some
 * writes since *cursor are no longer listed (a later full update started a new list, or the list
 * ran out of memory): the caller must then assume any GlobalTransform may have changed. */
bool rill_world_changed_transforms_since(const rill_world *world, uint64_t *cursor,
                                         const rill_entity **out, uint32_t *out_count);
/* e's world matrix (column-major 16 floats), or NULL when it has no GlobalTransform. */
const float *rill_world_global_matrix(const rill_world *world, rill_entity e);

/* >>queries ----------------------------------------------------------------------------------- */

#define RILL_QUERY_MAX_TERMS 8

/* Zero-terminated term lists: unused slots stay 0. At least one `with` term is required. */
typedef struct rill_query_desc {
    rill_component with[RILL_QUERY_MAX_TERMS];
    rill_component without[RILL_QUERY_MAX_TERMS];
} rill_query_desc;

/* Iteration state; lives on the caller's stack. Two ways to walk it, not to be mixed on one query:
 *   - entity by entity: read `entity` and rill_query_get after each successful rill_query_next;
 *   - run by run (the fast path): after each successful rill_query_next_run, entities[0..count)
 *     match and columns[t] points at term t's data of entities[0], the others following it
 *     contiguously (element k at (char *)columns[t] + k * stride of the term's type, which is
 *     sizeof(T) for a C struct registered with RILL_TYPE_LAYOUT), so a loop over a run is a plain
 *     array loop the compiler can vectorise.
 * The members after `columns` are private. */
typedef struct rill_query {
    rill_entity entity;
    uint32_t count;
    const rill_entity *entities;
    void *columns[RILL_QUERY_MAX_TERMS];
    rill_world *world;
    rill_query_desc desc;
    uint32_t with_count;
    uint32_t without_count;
    uint32_t driver;   /* index into desc.with of the smallest set */
    uint32_t cursor;   /* driver dense index: everything at or above it has been handed out */
    uint32_t run_left; /* entity-by-entity mode: elements of the buffered run not yet visited */
    uint32_t epoch;    /* the world's structural epoch when the run was found */
    const uint32_t *world_epoch;
    uint32_t strides[RILL_QUERY_MAX_TERMS];
    void *data[RILL_QUERY_MAX_TERMS];
    struct rill_query_cache *cache; /* NULL, or the cache this iteration replays or records */
    uint32_t replay;                /* next run record of the cache */
    uint32_t token;                 /* the cache's recording this iteration owns, if recording */
    bool replaying;
} rill_query;

/* Starts a query. An invalid desc (no with term, unknown id) gives a query that yields nothing.
 * The world remembers the runs of its last few distinct descs the way a rill_query_cache does
 * (below): a query a system starts every frame over a settled world replays them instead of
 * finding them again, the same runs in the same order. */
rill_query rill_world_query(rill_world *world, const rill_query_desc *desc);
/* Internal: buffers the next run for rill_query_next; false when done. */
bool rill__query_refill(rill_query *q);
/* Advances to the next match; false when done. Inline: stepping through a buffered run costs a
 * few instructions, and a run is refilled out of line. */
static inline bool rill_query_next(rill_query *q) {
    if (q == NULL) {
        return false;
    }
    if ((q->run_left == 0 || q->world_epoch == NULL || q->epoch != *q->world_epoch) &&
        !rill__query_refill(q)) {
        return false;
    }
    uint32_t k = --q->run_left;
    q->entity = q->entities[k];
    for (uint32_t t = 0; t < q->with_count; t++) {
        q->data[t] = (char *)q->columns[t] + (size_t)k * q->strides[t];
    }
    return true;
}
/* Advances to the next run of matches (see rill_query above): count >= 1 entities whose `with`
 * components sit at the same relative positions in every term's storage. Entities spawned together
 * (rill_world_spawn_bulk, a scene load) form long runs; entities whose components were added in
 * different orders, or moved by swap-removes, form shorter ones, down to one entity per run.
 * False when done (count is 0 then). The pointers are valid until the next structural change. */
bool rill_query_next_run(rill_query *q);
/* Data of `with` term `term` for the current entity (NULL for a bad index). */
void *rill_query_get(const rill_query *q, uint32_t term);
/* Counts the matches (runs the query to the end on a copy). */
uint32_t rill_query_count(const rill_query *q);

/* A cached query: a query that remembers where its runs lie. Finding a run compares the entity ids
 * of the term storages (an eighth of a 2-component loop's memory traffic); a cached query records
 * the runs of an iteration and replays them in later iterations for as long as none of its term
 * storages (with or without) changed structurally, so a system that runs every frame over a
 * settled world walks only the component data. Owned by the caller; destroy it before the world.
 * NULL when out of memory. An invalid desc gives a cache whose iterations yield nothing. */
typedef struct rill_query_cache rill_query_cache;
rill_query_cache *rill_world_query_cache(rill_world *world, const rill_query_desc *desc);
/* Frees the cache (NULL is a no-op). */
void rill_query_cache_destroy(rill_query_cache *cache);
/* Starts an iteration of the cached query; walk it with rill_query_next_run or rill_query_next
 * exactly like a rill_world_query. Only one iteration of a cache may be in progress at a time. */
rill_query rill_query_cache_iter(rill_query_cache *cache);

/* >>events ------------------------------------------------------------------------------------ */

/* Registers an event type with payloads of `size` bytes (1..65536). The same name and size
 * returns the existing id. 0 on error. */
rill_event rill_world_register_event(rill_world *world, const char *name, uint32_t size);
/* The event type registered as `name`, or 0. */
rill_event rill_world_find_event(const rill_world *world, const char *name);
/* Copies a payload into the current frame's buffer. False for an unknown id or out of memory. */
bool rill_world_send_event(rill_world *world, rill_event ev, const void *data);
/* Events live two frames: the previous and the current. Count and indexed access over both, oldest
 * first. Pointers are valid until the next send of this event type or rill_world_update_events. */
uint32_t rill_world_event_count(const rill_world *world, rill_event ev);
const void *rill_world_event_at(const rill_world *world, rill_event ev, uint32_t index);

/* A cursor so each reader sees each event once: zero-initialize, set `event`, then call
 * rill_event_read each frame until it returns NULL. A reader that skips more than a frame misses
 * the oldest events (`missed` counts them). */
typedef struct rill_event_reader {
    rill_event event;
    uint64_t next_seq;
    uint64_t missed;
} rill_event_reader;
/* The next unread event's payload, or NULL when the reader is up to date. */
const void *rill_event_read(const rill_world *world, rill_event_reader *reader);

/* Ends a frame for events: drops the previous frame's events, the current ones become previous.
 * Call once per frame (the app calls it in `first`). */
void rill_world_update_events(rill_world *world);

/* >>commands ---------------------------------------------------------------------------------- */

/* A deferred command buffer: records structural changes and applies them later, in order.
 * rill_commands_spawn returns a placeholder entity (generation 0, so never alive and never equal
 * to a real entity) that other commands of the same buffer may name; after rill_commands_apply,
 * rill_commands_resolve maps it to the real entity. Placeholders inside component data are not
 * rewritten. Commands naming an entity that is dead when applied are skipped. */
typedef struct rill_commands rill_commands;

/* world is used to look up component sizes while recording; recording does not touch storage, so
 * any thread may record into its own buffer while no component is being registered. */
rill_commands *rill_commands_create(rill_world *world);
/* Frees the buffer without applying it (placeholders are simply forgotten). NULL is a no-op. */
void rill_commands_destroy(rill_commands *cmds);
/* Drops recorded commands and placeholder mappings (keeps the memory). */
void rill_commands_clear(rill_commands *cmds);
/* Number of recorded commands. */
uint32_t rill_commands_len(const rill_commands *cmds);

/* A placeholder for an entity spawned when the buffer is applied. */
rill_entity rill_commands_spawn(rill_commands *cmds);
/* Records rill_world_despawn / rill_world_despawn_recursive of e (a real id or a placeholder). */
void rill_commands_despawn(rill_commands *cmds, rill_entity e);
void rill_commands_despawn_recursive(rill_commands *cmds, rill_entity e);
/* Records an add; data (NULL = defaults) is copied into the buffer now. False on unknown
 * component or out of memory. */
bool rill_commands_add(rill_commands *cmds, rill_entity e, rill_component comp, const void *data);
/* Records rill_world_remove of comp from e. */
void rill_commands_remove(rill_commands *cmds, rill_entity e, rill_component comp);
/* Records rill_world_set_parent; either side may be a placeholder, parent NULL detaches. */
void rill_commands_set_parent(rill_commands *cmds, rill_entity child, rill_entity parent);

/* Applies every command in order (hooks run as usual but must not record into this same buffer;
 * such records are refused), then clears the buffer (placeholder mappings are kept until the
 * next record or clear). Returns the number of commands that took effect. */
uint32_t rill_commands_apply(rill_world *world, rill_commands *cmds);
/* The real entity a placeholder of the last apply became, or e itself when e is not a placeholder;
 * RILL_ENTITY_NULL for an unknown placeholder. */
rill_entity rill_commands_resolve(const rill_commands *cmds, rill_entity e);

#ifdef __cplusplus
}
#endif
#endif /* RILL_WORLD_H */
