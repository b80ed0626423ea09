/* world_spawn.c: spawning entities in bulk (rill_world_spawn_bulk: components checked, storage
 * reserved once, values filled, hooks and observers run) and despawning them (one, a batch of
 * commands, or the whole world). */
#include "world_internal.h"

#include <string.h>

#define WORLD_LOG "world"

/* >>bulk spawn */

/* The components of a bulk spawn, checked: known, not MANAGED, not repeated. 0 on a bad desc. */
static uint32_t bulk_components(rill_world *w, const rill_spawn_desc *d, rill__component **out) {
    uint32_t n = 0;
    for (; n < RILL_SPAWN_MAX_COMPONENTS && d->components[n].id != 0; n++) {
        rill_component id = d->components[n];
        rill__component *c = rill__world_comp(w, id);
        if (c == NULL || (c->type->desc.flags & RILL_TYPE_MANAGED)) {
            RILL_LOG_WARN(WORLD_LOG, "%s: spawn_bulk: component %u is %s", w->label, id.id,
                          c ? "managed by the world" : "unknown");
            return UINT32_MAX;
        }
        for (uint32_t k = 0; k < n; k++) {
            if (d->components[k].id == id.id) {
                RILL_LOG_WARN(WORLD_LOG, "%s: spawn_bulk: %s listed twice", w->label,
                              c->type->desc.name);
                return UINT32_MAX;
            }
        }
        out[n] = c;
    }
    return n;
}

/* Makes the index pages of s for the slots a spawn of count takes: the last from_free free slots
 * (reused last in, first out) and the new ones after them. */
static bool bulk_pages(rill_world *w, rill__sparse_set *s, uint32_t count, uint32_t from_free) {
    for (uint32_t i = w->free_len - from_free; i < w->free_len; i++) {
        if (!rill__set_page(s, w->free_slots[i])) {
            return false;
        }
    }
    uint64_t end = (uint64_t)w->slot_count + (count - from_free);
    for (uint64_t slot = w->slot_count; slot < end; slot = (slot | RILL__PAGE_MASK) + 1u) {
        if (!rill__set_page(s, (uint32_t)slot)) {
            return false;
        }
    }
    return true;
}

/* Grows every storage the spawn writes, so that nothing after it can fail. */
static bool bulk_reserve(rill_world *w, rill__component **comps, uint32_t nc, uint32_t count,
                         bool dirty) {
    uint32_t from_free = RILL_MIN(count, w->free_len);
    uint64_t slots = (uint64_t)w->slot_count + (count - from_free);
    if (slots > UINT32_MAX || !rill_world_reserve(w, (uint32_t)slots)) {
        return false;
    }
    for (uint32_t c = 0; c < nc; c++) {
        rill__sparse_set *s = &comps[c]->set;
        if ((uint64_t)s->len + count > UINT32_MAX || !bulk_pages(w, s, count, from_free) ||
            !rill__world_set_reserve(w, s, s->len + count)) {
            return false;
        }
    }
    return !dirty || rill_array_reserve(&w->dirty, w->dirty.len + count);
}

/* Writes n copies of the size-byte value at src, stride bytes apart, doubling the copied block
 * when the elements are packed. */
static void fill_repeat(uint8_t *dst, const void *src, uint32_t n, uint32_t size, uint32_t stride) {
    if (n == 0) {
        return;
    }
    if (size != stride) {
        for (uint32_t i = 0; i < n; i++) {
            memcpy(dst + (size_t)i * stride, src, size);
        }
        return;
    }
    memcpy(dst, src, size);
    for (size_t done = 1; done < n;) {
        size_t k = RILL_MIN(done, (size_t)n - done);
        memcpy(dst + done * size, dst, k * size);
        done += k;
    }
}

/* Hints that a bulk spawn is about to write n fresh elements of s from its length on. */
static void bulk_advise(rill__sparse_set *s, uint32_t n) {
    rill_mem_advise_bulk(s->dense + s->len, (size_t)n * sizeof(rill_entity));
    rill_mem_advise_bulk(s->data + (size_t)s->len * s->stride, (size_t)n * s->stride);
}

/* Appends ids[0..n) with their data (or defaults) to one component's storage. */
static void bulk_fill(rill__component *c, const rill_entity *ids, uint32_t n, const void *src) {
    rill__sparse_set *s = &c->set;
    uint32_t base = s->len;
    if (s->dense + base != ids) {
        memcpy(s->dense + base, ids, (size_t)n * sizeof(rill_entity));
    }
    for (uint32_t i = 0; i < n; i++) {
        rill__set_put(s, RILL_ENTITY_INDEX(ids[i]), base + i + 1u);
    }
    uint32_t size = c->type->desc.size;
    uint8_t *dst = s->data + (size_t)base * s->stride;
    if (src == NULL) {
        fill_repeat(dst, c->type->defaults, n, size, s->stride);
    } else if (size == s->stride) {
        memcpy(dst, src, (size_t)n * size);
    } else {
        for (uint32_t i = 0; i < n; i++) {
            memcpy(dst + (size_t)i * s->stride, (const uint8_t *)src + (size_t)i * size, size);
        }
    }
    s->len = base + n;
    s->version++;
}

uint32_t rill_world_spawn_bulk(rill_world *world, const rill_spawn_desc *desc, rill_entity *out) {
    if (world == NULL || desc == NULL || desc->count == 0) {
        return 0;
    }
    rill__component *comps[RILL_SPAWN_MAX_COMPONENTS];
    uint32_t nc = bulk_components(world, desc, comps);
    if (nc == UINT32_MAX) {
        return 0;
    }
    uint32_t n = desc->count;
    bool has_transform = false, has_hook = false;
    for (uint32_t c = 0; c < nc; c++) {
        has_transform = has_transform || desc->components[c].id == RILL_BUILTIN_TRANSFORM;
        has_hook = has_hook || comps[c]->type->desc.on_add != NULL || comps[c]->added.count;
    }
    /* Hooks may move storage, so they walk a list of their own when the caller gave none. */
    rill_entity *list = out;
    if (list == NULL && (has_hook || nc == 0)) {
        list = rill_malloc_tagged((size_t)n * sizeof(rill_entity), RILL_MEM_WORLD);
    }
    if ((list == NULL && nc == 0) || (has_hook && list == NULL) ||
        !bulk_reserve(world, comps, nc, n, has_transform)) {
        RILL_LOG_ERROR(WORLD_LOG, "%s: spawn_bulk of %u: out of memory", world->label, n);
        if (list != out) {
            rill_free(list);
        }
        return 0;
    }
    for (uint32_t c = 0; c < nc; c++) {
        bulk_advise(&comps[c]->set, n);
    }
    /* The ids go straight into the first storage's dense array (or the caller's list), and every
     * other storage copies them from there. */
    rill_entity *ids = nc > 0 ? comps[0]->set.dense + comps[0]->set.len : list;
    for (uint32_t i = 0; i < n; i++) {
        ids[i] = rill__world_spawn_one(world);
    }
    if (list != NULL && list != ids) {
        memcpy(list, ids, (size_t)n * sizeof(rill_entity));
    }
    for (uint32_t c = 0; c < nc; c++) {
        bulk_fill(comps[c], ids, n, desc->data[c]);
    }
    world->epoch++;
    if (has_transform) {
        for (uint32_t i = 0; i < n; i++) {
            *rill__slot_flags(world, RILL_ENTITY_INDEX(ids[i])) |= RILL__SLOT_DIRTY;
            world->dirty.data[world->dirty.len++] = ids[i];
        }
    }
    for (uint32_t c = 0; c < nc && has_hook; c++) {
        for (uint32_t i = 0; i < n; i++) {
            rill__world_run_add_hooks(world, list[i], desc->components[c]);
        }
    }
    if (list != out) {
        rill_free(list);
    }
    rill__world_free_trim(world);
    return n;
}

/* Frees e's slot after its components are gone. */
static void release_slot(rill_world *w, uint32_t idx) {
    *rill__slot_flags(w, idx) = 0;
    /* Generation 0 is reserved for command-buffer placeholders, so skip it on wrap-around. */
    uint32_t *gen = rill__slot_gen(w, idx);
    if (++*gen == 0) {
        *gen = 1;
    }
    /* The free list can never need more entries than there are slots. */
    if (w->free_len == w->free_cap) {
        if (!rill__world_grow((void **)&w->free_slots, &w->free_cap, w->free_len + 1u,
                              sizeof(uint32_t), false)) {
            RILL_LOG_ERROR(WORLD_LOG, "%s: out of memory; slot %u leaks", w->label, idx);
            w->alive--;
            return;
        }
    }
    w->free_slots[w->free_len++] = idx;
    w->alive--;
}

static void run_remove_hooks(rill_world *w, rill_entity e, uint32_t idx) {
    for (uint32_t c = 0; c < w->components.len; c++) {
        const rill__component *comp = &w->components.data[c];
        if (rill__world_has_remove_hooks(comp) && rill__set_get(&comp->set, idx) != NULL) {
            rill__world_run_remove_hooks_of(w, e, (rill_component){c + 1u});
        }
    }
}

bool rill_world_despawn(rill_world *world, rill_entity e) {
    if (world == NULL || !rill__world_alive(world, e)) {
        return false;
    }
    uint32_t idx = RILL_ENTITY_INDEX(e);
    uint8_t *flags = rill__slot_flags(world, idx);
    if (*flags & RILL__SLOT_DESPAWNING) {
        return false; /* a hook of this entity despawned it again */
    }
    *flags |= RILL__SLOT_DESPAWNING;
    /* Hooks first, while the entity still has every component, so a hook may read the others. */
    run_remove_hooks(world, e, idx);
    if (!rill__world_alive(world, e)) {
        return false; /* cannot happen through the API, but a hook must not crash us */
    }
    rill__hierarchy_detach_all(world, e);
    for (uint32_t c = 0; c < world->components.len; c++) {
        rill__sparse_set *s = &world->components.data[c].set;
        if (rill__set_index(s, idx) != 0) {
            rill__set_erase(world, s, idx);
        }
    }
    release_slot(world, idx);
    return true;
}

uint32_t rill__world_despawn_batch(rill_world *w, const rill_entity *list, uint32_t n) {
    /* Hooks first, in reverse order (children before parents, as one by one), while every listed
     * entity still has all its components. DESPAWNING makes a hook's despawn of a listed entity
     * a no-op: the batch removes it anyway. */
    for (uint32_t i = 0; i < n; i++) {
        *rill__slot_flags(w, RILL_ENTITY_INDEX(list[i])) |= RILL__SLOT_DESPAWNING;
    }
    bool any_hook = false;
    for (uint32_t c = 0; c < w->components.len && !any_hook; c++) {
        any_hook = rill__world_has_remove_hooks(&w->components.data[c]);
    }
    if (any_hook) {
        for (uint32_t i = n; i-- > 0;) {
            if (rill__world_alive(w, list[i])) {
                run_remove_hooks(w, list[i], RILL_ENTITY_INDEX(list[i]));
            }
        }
    }
    /* Links that cross the edge of the batch: a listed entity under a parent that stays (the
     * roots), or a child that a hook attached to a listed entity. Links inside the batch simply
     * vanish with the Parent and Children components below. */
    const rill__sparse_set *ps = &w->components.data[RILL_BUILTIN_PARENT - 1].set;
    const rill__sparse_set *cs = &w->components.data[RILL_BUILTIN_CHILDREN - 1].set;
    for (uint32_t i = 0; i < n; i++) {
        rill_entity e = list[i];
        if (!rill__world_alive(w, e)) {
            continue;
        }
        const rill_parent *p = rill__set_get(ps, RILL_ENTITY_INDEX(e));
        if (p != NULL && !(*rill__slot_flags(w, RILL_ENTITY_INDEX(p->parent)) & RILL__SLOT_BATCH)) {
            rill__hierarchy_unlink(w, e);
        }
        const rill_children *ch = rill__set_get(cs, RILL_ENTITY_INDEX(e));
        for (rill_entity c = ch ? ch->first : RILL_ENTITY_NULL; c != RILL_ENTITY_NULL;) {
            const rill_parent *cp = rill__set_get(ps, RILL_ENTITY_INDEX(c));
            rill_entity next = cp ? cp->next_sibling : RILL_ENTITY_NULL;
            if (!(*rill__slot_flags(w, RILL_ENTITY_INDEX(c)) & RILL__SLOT_BATCH)) {
                rill__hierarchy_unlink(w, c);
                rill__transform_mark_dirty(w, c);
                /* The unlink may have dropped e's Children component and moved others. */
                ch = rill__set_get(cs, RILL_ENTITY_INDEX(e));
                if (ch == NULL) {
                    break;
                }
            }
            c = next;
        }
    }
    /* Component storage: a set holding few listed entities erases them one by one; a set where
     * they are a large share is compacted in one sequential pass, which is far cheaper than
     * scattered swap-removes. */
    for (uint32_t c = 0; c < w->components.len; c++) {
        rill__sparse_set *s = &w->components.data[c].set;
        if (s->len == 0) {
            rill__set_trim_pages(s); /* emptied by single removes since */
            continue;
        }
        if ((uint64_t)n * 4u < s->len) {
            for (uint32_t i = 0; i < n; i++) {
                uint32_t idx = RILL_ENTITY_INDEX(list[i]);
                if (rill__world_alive(w, list[i]) && rill__set_index(s, idx) != 0) {
                    rill__set_erase(w, s, idx);
                }
            }
            rill__world_set_trim(w, s);
            continue;
        }
        /* One pass: ids and sparse entries move one by one, the component bytes of each run of
         * kept entries with one memmove (a scene's entities sit together in the dense arrays, so
         * runs are long). */
        uint32_t kept = 0, run_from = 0, run_to = 0, run_len = 0;
        for (uint32_t d = 0; d <= s->len; d++) {
            bool drop = d < s->len &&
                        (*rill__slot_flags(w, RILL_ENTITY_INDEX(s->dense[d])) & RILL__SLOT_BATCH);
            if ((d == s->len || drop) && run_len > 0) {
                memmove(s->data + (size_t)run_to * s->stride,
                        s->data + (size_t)run_from * s->stride, (size_t)run_len * s->stride);
                run_len = 0;
            }
            if (d == s->len) {
                break;
            }
            rill_entity owner = s->dense[d];
            if (drop) {
                rill__set_put(s, RILL_ENTITY_INDEX(owner), 0);
                continue;
            }
            if (kept != d) {
                if (run_len == 0) {
                    run_from = d;
                    run_to = kept;
                }
                run_len++;
                s->dense[kept] = owner;
                *rill__set_entry(s, RILL_ENTITY_INDEX(owner)) = kept + 1u;
            }
            kept++;
        }
        s->len = kept;
        s->version++;
        w->epoch++;
        rill__world_set_trim(w, s);
    }
    uint32_t gone = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (rill__world_alive(w, list[i])) {
            release_slot(w, RILL_ENTITY_INDEX(list[i]));
            gone++;
        }
    }
    return gone;
}

void rill__world_despawn_all(rill_world *w, bool hooks) {
    if (hooks) {
        for (uint32_t i = 0; i < w->slot_count; i++) {
            uint8_t *flags = rill__slot_flags(w, i);
            if ((*flags & RILL__SLOT_ALIVE) && !(*flags & RILL__SLOT_DESPAWNING)) {
                *flags |= RILL__SLOT_DESPAWNING;
                run_remove_hooks(w, RILL_ENTITY_MAKE(i, *rill__slot_gen(w, i)), i);
            }
        }
    }
    /* Everything goes at once: no need to unlink hierarchies one by one. */
    for (uint32_t c = 0; c < w->components.len; c++) {
        rill__sparse_set *s = &w->components.data[c].set;
        for (uint32_t d = 0; d < s->len; d++) {
            rill__set_put(s, RILL_ENTITY_INDEX(s->dense[d]), 0);
        }
        s->len = 0;
        s->version++;
    }
    w->epoch++;
    for (uint32_t i = 0; i < w->slot_count; i++) {
        if (*rill__slot_flags(w, i) & RILL__SLOT_ALIVE) {
            release_slot(w, i);
        }
    }
    rill_array_clear(&w->dirty);
}

void rill_world_clear(rill_world *world) {
    if (world != NULL) {
        rill__world_despawn_all(world, true);
    }
}
