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

/* Entity-indexed storage comes in pages of RILL__PAGE_SLOTS slots, made when a slot of theirs is
 * first used: a world that grows never copies (nor zeroes) what it holds already, so a spawn costs
 * at most a few new pages however large the world is, and a lookup is one more load (the page
 * table: a few KB, kept in cache by use). */
/* Plain queries (rill_world_query) whose runs a world remembers, by desc (query.c). */
#define RILL__QUERY_MEMO 8u

#define RILL__PAGE_BITS 10u
#define RILL__PAGE_SLOTS (1u << RILL__PAGE_BITS)
#define RILL__PAGE_MASK (RILL__PAGE_SLOTS - 1u)

/* One page of a sparse index: at[slot % RILL__PAGE_SLOTS] is the dense index + 1 (0 = absent);
 * used counts the entries that are not 0 (an empty page is given back by set trims). */
typedef struct rill__index_page {
    uint32_t used;
    uint32_t at[RILL__PAGE_SLOTS];
} rill__index_page;

/* One component's storage: a sparse set. The index pages map slot -> dense index + 1; dense[i] is
 * the entity owning data[i * stride]. */
typedef struct rill__sparse_set {
    rill__index_page **pages; /* by slot >> RILL__PAGE_BITS; NULL: none of its slots */
    uint32_t page_cap;        /* entries of pages */
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

    /* >>entities: per slot generation and flags, in pages; free slots are reused LIFO. */
    struct rill__slot_page **slot_pages; /* by slot >> RILL__PAGE_BITS */
    uint32_t slot_page_cap;              /* entries of slot_pages */
    uint32_t slot_count;
    uint32_t slot_cap; /* slots the made pages hold */
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

    /* >>queries: the runs of the last RILL__QUERY_MEMO distinct plain queries (query.c) */
    struct rill_query_cache *query_memo[RILL__QUERY_MEMO];
    uint32_t query_memo_clock; /* stamps each use, so the least recently used entry goes first */
};

/* One page of entity slots: generations and flags (RILL__SLOT_*). */
struct rill__slot_page {
    uint32_t gen[RILL__PAGE_SLOTS];
    uint8_t flags[RILL__PAGE_SLOTS];
};

/* Grows *ptr (elements of elem bytes, *cap of them) to at least need, tagged RILL_MEM_WORLD.
 * New bytes are zeroed when zero is true. */
bool rill__world_grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem, bool zero);

/* Flags and generation of slot idx (< slot_cap). */
static inline uint8_t *rill__slot_flags(const rill_world *w, uint32_t idx) {
    return &w->slot_pages[idx >> RILL__PAGE_BITS]->flags[idx & RILL__PAGE_MASK];
}
static inline uint32_t *rill__slot_gen(const rill_world *w, uint32_t idx) {
    return &w->slot_pages[idx >> RILL__PAGE_BITS]->gen[idx & RILL__PAGE_MASK];
}

static inline bool rill__world_alive(const rill_world *w, rill_entity e) {
    uint32_t idx = RILL_ENTITY_INDEX(e);
    if (e == RILL_ENTITY_NULL || idx >= w->slot_count) {
        return false;
    }
    const struct rill__slot_page *p = w->slot_pages[idx >> RILL__PAGE_BITS];
    return (p->flags[idx & RILL__PAGE_MASK] & RILL__SLOT_ALIVE) &&
           p->gen[idx & RILL__PAGE_MASK] == RILL_ENTITY_GENERATION(e);
}

/* Dense index + 1 of slot's element in s (0 = absent). */
static inline uint32_t rill__set_index(const rill__sparse_set *s, uint32_t slot) {
    uint32_t p = slot >> RILL__PAGE_BITS;
    const rill__index_page *page = p < s->page_cap ? s->pages[p] : NULL;
    return page ? page->at[slot & RILL__PAGE_MASK] : 0u;
}

/* The entry of a slot whose page exists (it holds an element or is about to). */
static inline uint32_t *rill__set_entry(const rill__sparse_set *s, uint32_t slot) {
    return &s->pages[slot >> RILL__PAGE_BITS]->at[slot & RILL__PAGE_MASK];
}

static inline void *rill__set_get(const rill__sparse_set *s, uint32_t slot) {
    uint32_t d = rill__set_index(s, slot);
    return d ? s->data + (size_t)(d - 1u) * s->stride : NULL;
}

static inline rill__component *rill__world_comp(const rill_world *w, rill_component c) {
    return (c.id != 0 && c.id <= w->components.len) ? &w->components.data[c.id - 1u] : NULL;
}

/* Index pages (pages.c). Makes the slot pages up to n slots (slot_cap >= n after); false when out
 * of memory. */
bool rill__slots_reserve(rill_world *w, uint32_t n);
void rill__slots_free(rill_world *w);
/* Makes the index page of slot in s; false when out of memory. */
bool rill__set_page(rill__sparse_set *s, uint32_t slot);
/* Sets slot's entry to d (dense index + 1, or 0 to clear), counting the page's entries. The page
 * must exist when d is not 0. */
void rill__set_put(rill__sparse_set *s, uint32_t slot, uint32_t d);
/* Gives back the index pages that hold no entry (and a page table at a quarter of its use). */
void rill__set_trim_pages(rill__sparse_set *s);
void rill__set_free_pages(rill__sparse_set *s);

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
 * child of a listed entity is listed), parents before children. Returns how many went
 * (world_spawn.c). */
uint32_t rill__world_despawn_batch(rill_world *w, const rill_entity *list, uint32_t n);
void rill__transform_mark_dirty(rill_world *w, rill_entity e);

/* Events (events.c). */
void rill__events_free(rill_world *w);
/* Frees the runs plain queries remembered (rill_world_destroy). */
void rill__query_memo_free(rill_world *w);

/* world.c and world_spawn.c: what one calls in the other. */

/* Makes room for n entries in s (false when out of memory). */
bool rill__world_set_reserve(rill_world *w, rill__sparse_set *s, uint32_t n);
/* After a batch despawn (a structural change: pointers into the storage are stale already), the
 * index pages left empty go, and the arrays shrink: a mapped set holding under cap - 2 * slack
 * back to len + slack (SET_SLACK), a smaller one holding under a quarter of its capacity to twice
 * what it holds (64 at least; growth doubles at full, so it sways within a factor of four without
 * reallocating). A district that came and went does not leave its components' capacity behind. */
void rill__world_set_trim(rill_world *w, rill__sparse_set *s);
/* The free-slot list gives capacity back as spawns take slots from it: it holds up to every slot a
 * despawned district left, and kept that capacity (4 bytes a slot, 2 MB for a 300k-entity world)
 * after the slots were reused. Under a quarter full it shrinks to twice what it holds, never below
 * 1024 (growth doubles at full: a list swaying within a factor of four never reallocates). */
void rill__world_free_trim(rill_world *w);
/* Takes a slot (a free one first) and returns its live entity; the caller made room. */
rill_entity rill__world_spawn_one(rill_world *w);
/* The type's on_add, then every add observer, each on a fresh lookup: an earlier hook may have
 * despawned the entity or moved the storage. */
void rill__world_run_add_hooks(rill_world *world, rill_entity e, rill_component comp);
/* True when removing c from an entity runs anything (on_remove or remove observers). */
bool rill__world_has_remove_hooks(const rill__component *c);
/* The type's on_remove, then every remove observer, each on a fresh lookup (a hook may register
 * components, moving the table, or despawn the entity). The component is still in place. */
void rill__world_run_remove_hooks_of(rill_world *world, rill_entity e, rill_component comp);
/* Despawns every entity (running remove hooks first when hooks is true). */
void rill__world_despawn_all(rill_world *w, bool hooks);

#endif /* RILL_WORLD_INTERNAL_H */
