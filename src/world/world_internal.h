/* world_internal.h: the private layout of rill_world shared by the world module's sources
 * (entities and sparse sets in world.c, reflection in reflect.c and reflect_text.c, hierarchy and
 * transforms in hierarchy.c, queries in query.c, events in events.c, command buffers in
 * commands.c). */
#ifndef RILL_WORLD_INTERNAL_H
#define RILL_WORLD_INTERNAL_H

#include "rill/world.h"

/* The value of enum name name[0, len) of an ENUM field (case-sensitive); false when unknown. */
bool rill__field_enum_lookup(const rill_field *field, const char *name, size_t len, int32_t *out);

/* Per-slot flags. */
enum {
    RILL__SLOT_ALIVE = 1u << 0,
    RILL__SLOT_DIRTY = 1u << 1,      /* transform must be recomputed (in world->dirty) */
    RILL__SLOT_DESPAWNING = 1u << 2, /* on_remove hooks are running for it */
    RILL__SLOT_BATCH = 1u << 3,      /* listed by the batch despawn in progress */
};

/* What a registry entry describes. */
typedef enum rill__type_kind {
    RILL__KIND_PLAIN = 0,
    RILL__KIND_COMPONENT,
    RILL__KIND_RESOURCE,
} rill__type_kind;

/* A registered type: the registry's own copy of the desc. `desc.fields` points at `fields`,
 * `desc.defaults` at `defaults` (the fully baked default object: prototype plus field defaults with
 * interned strings, so adding a component with defaults is one memcpy). */
typedef struct rill__type {
    rill_type_desc desc;
    rill_field *fields;
    void *defaults;
    void **owned; /* allocations made for field defaults and enum tables */
    uint32_t owned_len;
    rill__type_kind kind;
    uint32_t id; /* component or resource id; 0 for plain types */
} rill__type;

/* One component's storage: a sparse set. sparse[slot] is dense index + 1 (0 = absent); dense[i] is
 * the entity owning data[i * stride]. */
typedef struct rill__sparse_set {
    uint32_t *sparse;
    uint32_t sparse_cap;
    rill_entity *dense;
    uint8_t *data;
    uint32_t len;
    uint32_t cap;
    uint32_t stride;
    uint32_t version; /* bumped by every change that moves or adds elements (query caches) */
} rill__sparse_set;

#define RILL__MAX_OBSERVERS 6u
/* Observers of one component: hooks of modules above the one that registered it. */
typedef struct rill__observers {
    rill_component_hook fn[RILL__MAX_OBSERVERS];
    void *user[RILL__MAX_OBSERVERS];
    uint32_t count;
} rill__observers;

typedef struct rill__component {
    rill__type *type;
    rill__sparse_set set;
    rill__observers added;   /* rill_world_observe_add: run after the type's own on_add */
    rill__observers removed; /* rill_world_observe_remove: run after the type's own on_remove */
} rill__component;

typedef struct rill__resource {
    rill__type *type;
    void *data; /* NULL while unset */
} rill__resource;

/* One event type: two frames of payloads. Sequence numbers count every event ever sent of this
 * type, so readers can tell which ones they have seen. */
typedef struct rill__event_queue {
    const char *name;
    uint32_t size;
    uint8_t *buf[2]; /* [0] previous frame, [1] current frame */
    uint32_t count[2];
    uint32_t cap[2];
    uint64_t first_seq[2];
} rill__event_queue;

/* One pending node of the transform walk: the entity and the matrix of its parent. */
struct rill__xform_item {
    rill_entity entity;
    float parent[16];
};

struct rill_world {
    const char *label;
    bool skip_hooks_on_destroy;

    /* >>entities: per slot generation and flags; free slots are reused LIFO. */
    uint32_t *gens;
    uint8_t *flags;
    uint32_t slot_count;
    uint32_t slot_cap;
    uint32_t *free_slots;
    uint32_t free_len;
    uint32_t free_cap;
    uint32_t alive;
    /* Bumped by every change that can move component data (insert, erase, growth, compaction),
     * so an entity-by-entity query notices that its buffered run went stale. */
    uint32_t epoch;

    /* >>registry */
    RILL_ARRAY(rill__type *) types;
    rill_map type_by_name;                  /* hash64(name) -> index into types */
    RILL_ARRAY(rill__component) components; /* index = id - 1 */
    RILL_ARRAY(rill__resource) resources;   /* index = id - 1 */
    rill_builtins builtins;

    /* >>transforms: entities whose transform changed since the last update (dedup by the DIRTY
     * slot flag). */
    RILL_ARRAY(rill_entity) dirty;
    RILL_ARRAY(rill_entity) scratch; /* reused by despawn_recursive (taken while in use) */
    RILL_ARRAY(struct rill__xform_item) xstack; /* update_transforms work stack */
    RILL_ARRAY(rill_entity) changed; /* GlobalTransforms written by the last update (and before) */
    bool changed_stale;     /* a full update finished: the next write starts the list afresh */
    uint64_t changed_first; /* sequence number of changed.data[0] (every write has the next one) */
    uint64_t changed_hole;  /* 1 + the sequence number of the last write the list missed (OOM) */

    /* >>events */
    RILL_ARRAY(rill__event_queue) events; /* index = id - 1 */
};

/* Grows *ptr (elements of elem bytes, *cap of them) to at least need, tagged RILL_MEM_WORLD.
 * New bytes are zeroed when zero is true. */
bool rill__world_grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem, bool zero);

static inline bool rill__world_alive(const rill_world *w, rill_entity e) {
    uint32_t idx = RILL_ENTITY_INDEX(e);
    return e != RILL_ENTITY_NULL && idx < w->slot_count && (w->flags[idx] & RILL__SLOT_ALIVE) &&
           w->gens[idx] == RILL_ENTITY_GENERATION(e);
}

static inline void *rill__set_get(const rill__sparse_set *s, uint32_t slot) {
    if (slot >= s->sparse_cap) {
        return NULL;
    }
    uint32_t d = s->sparse[slot];
    return d ? s->data + (size_t)(d - 1u) * s->stride : NULL;
}

static inline rill__component *rill__world_comp(const rill_world *w, rill_component c) {
    return (c.id != 0 && c.id <= w->components.len) ? &w->components.data[c.id - 1u] : NULL;
}

/* Internal component storage operations (world.c). Add does not run hooks or dirty marking. */
void *rill__set_insert(rill_world *w, rill__sparse_set *s, rill_entity e, bool *out_existed);
void rill__set_erase(rill_world *w, rill__sparse_set *s, uint32_t slot);

/* Registry (reflect.c). */
rill__type *rill__type_create(const rill_type_desc *desc, rill_error *err);
void rill__type_destroy(rill__type *t);

/* Hierarchy (hierarchy.c): unlinks e from its parent and orphans its children. */
void rill__hierarchy_detach_all(rill_world *w, rill_entity e);
/* Unlinks e from its parent only (its Parent component goes; its children stay). */
void rill__hierarchy_unlink(rill_world *w, rill_entity e);
/* Despawns list[0..n): alive entities, each flagged RILL__SLOT_BATCH, closed under children (every
 * child of a listed entity is listed), parents before children. Returns how many went (world.c). */
uint32_t rill__world_despawn_batch(rill_world *w, const rill_entity *list, uint32_t n);
void rill__transform_mark_dirty(rill_world *w, rill_entity e);

/* Events (events.c). */
void rill__events_free(rill_world *w);

#endif /* RILL_WORLD_INTERNAL_H */
