/* hierarchy.c: parent/child links (an intrusive sibling list stored in the Parent and Children
 * components, so reparenting never allocates per entity), recursive despawn, transform math and
 * dirty-only GlobalTransform propagation. */
#include "world_internal.h"

#include <math.h>
#include <string.h>

static rill__sparse_set *parent_set(rill_world *w) {
    return &w->components.data[RILL_BUILTIN_PARENT - 1].set;
}
static rill__sparse_set *children_set(rill_world *w) {
    return &w->components.data[RILL_BUILTIN_CHILDREN - 1].set;
}
static rill_parent *parent_of(rill_world *w, rill_entity e) {
    return rill__set_get(parent_set(w), RILL_ENTITY_INDEX(e));
}
static rill_children *children_of(rill_world *w, rill_entity e) {
    return rill__set_get(children_set(w), RILL_ENTITY_INDEX(e));
}

/* Removes child from its parent's list and drops its Parent component (and the parent's Children
 * component when that was the last child). */
static void unlink(rill_world *w, rill_entity child) {
    rill_parent *p = parent_of(w, child);
    if (p == NULL) {
        return;
    }
    rill_entity parent = p->parent, prev = p->prev_sibling, next = p->next_sibling;
    rill_children *ch = children_of(w, parent);
    if (prev != RILL_ENTITY_NULL) {
        rill_parent *pp = parent_of(w, prev);
        if (pp) {
            pp->next_sibling = next;
        }
    } else if (ch) {
        ch->first = next;
    }
    if (next != RILL_ENTITY_NULL) {
        rill_parent *np = parent_of(w, next);
        if (np) {
            np->prev_sibling = prev;
        }
    } else if (ch) {
        ch->last = prev;
    }
    if (ch && --ch->count == 0) {
        rill__set_erase(w, children_set(w), RILL_ENTITY_INDEX(parent));
    }
    rill__set_erase(w, parent_set(w), RILL_ENTITY_INDEX(child));
}

void rill__hierarchy_detach_all(rill_world *w, rill_entity e) {
    unlink(w, e);
    rill_children *ch;
    while ((ch = children_of(w, e)) != NULL) {
        rill_entity c = ch->first;
        unlink(w, c);
        rill__transform_mark_dirty(w, c);
    }
}

bool rill_world_set_parent(rill_world *world, rill_entity child, rill_entity parent) {
    if (world == NULL || !rill__world_alive(world, child) || child == parent) {
        return false;
    }
    if (parent != RILL_ENTITY_NULL) {
        if (!rill__world_alive(world, parent)) {
            return false;
        }
        /* Refuse cycles: child must not be an ancestor of parent. */
        for (rill_entity a = parent; a != RILL_ENTITY_NULL;) {
            if (a == child) {
                return false;
            }
            rill_parent *ap = parent_of(world, a);
            a = ap ? ap->parent : RILL_ENTITY_NULL;
        }
    }
    rill_parent *cur = parent_of(world, child);
    if (cur != NULL && cur->parent == parent) {
        return true;
    }
    if (cur == NULL && parent == RILL_ENTITY_NULL) {
        return true;
    }
    unlink(world, child);
    rill__transform_mark_dirty(world, child);
    if (parent == RILL_ENTITY_NULL) {
        return true;
    }
    bool existed;
    rill_parent *p = rill__set_insert(world, parent_set(world), child, &existed);
    if (p == NULL) {
        RILL_LOG_ERROR("world", "set_parent: out of memory");
        return false;
    }
    rill_children *ch = rill__set_insert(world, children_set(world), parent, &existed);
    if (ch == NULL) {
        rill__set_erase(world, parent_set(world), RILL_ENTITY_INDEX(child));
        RILL_LOG_ERROR("world", "set_parent: out of memory");
        return false;
    }
    if (!existed) {
        memset(ch, 0, sizeof(*ch));
    }
    *p = (rill_parent){parent, ch->last, RILL_ENTITY_NULL};
    if (ch->last != RILL_ENTITY_NULL) {
        rill_parent *lp = parent_of(world, ch->last);
        if (lp) {
            lp->next_sibling = child;
        }
    } else {
        ch->first = child;
    }
    ch->last = child;
    ch->count++;
    return true;
}

rill_entity rill_world_get_parent(const rill_world *world, rill_entity e) {
    const rill_parent *p = rill_world_get(world, e, RILL_COMPONENT_PARENT);
    return p ? p->parent : RILL_ENTITY_NULL;
}

rill_entity rill_world_first_child(const rill_world *world, rill_entity e) {
    const rill_children *c = rill_world_get(world, e, RILL_COMPONENT_CHILDREN);
    return c ? c->first : RILL_ENTITY_NULL;
}

rill_entity rill_world_next_sibling(const rill_world *world, rill_entity e) {
    const rill_parent *p = rill_world_get(world, e, RILL_COMPONENT_PARENT);
    return p ? p->next_sibling : RILL_ENTITY_NULL;
}

uint32_t rill_world_child_count(const rill_world *world, rill_entity e) {
    const rill_children *c = rill_world_get(world, e, RILL_COMPONENT_CHILDREN);
    return c ? c->count : 0;
}

uint32_t rill_world_children(const rill_world *world, rill_entity e, rill_entity *out,
                             uint32_t cap) {
    uint32_t n = 0;
    for (rill_entity c = rill_world_first_child(world, e); c != RILL_ENTITY_NULL;
         c = rill_world_next_sibling(world, c)) {
        if (out != NULL && n < cap) {
            out[n] = c;
        }
        n++;
    }
    return n;
}

void rill__hierarchy_unlink(rill_world *w, rill_entity e) {
    unlink(w, e);
}

/* Below this many entities a recursive despawn goes entity by entity: the batch path walks whole
 * component arrays, which only pays off for large subtrees. */
#define BATCH_MIN 64u

uint32_t rill_world_despawn_recursive_n(rill_world *world, const rill_entity *roots,
                                        uint32_t count) {
    if (world == NULL || roots == NULL || count == 0) {
        return 0;
    }
    /* Take the scratch list so a hook that despawns recursively again gets its own. */
    RILL_ARRAY(rill_entity) list = {world->scratch.data, 0, world->scratch.cap};
    world->scratch.data = NULL;
    world->scratch.cap = world->scratch.len = 0;
    /* Pre-order walk: every descendant lands after its ancestors. The BATCH flag marks listed
     * entities, so a root that is a descendant of another root (or listed twice) is taken once. */
    bool ok = true;
    bool hooks_running = false; /* some listed entity is already being despawned by a caller */
    for (uint32_t r = 0; ok && r < count; r++) {
        rill_entity e = roots[r];
        if (!rill__world_alive(world, e) ||
            (*rill__slot_flags(world, RILL_ENTITY_INDEX(e)) & RILL__SLOT_BATCH)) {
            continue;
        }
        uint32_t from = list.len;
        ok = rill_array_push(&list, e);
        if (ok) {
            *rill__slot_flags(world, RILL_ENTITY_INDEX(e)) |= RILL__SLOT_BATCH;
        }
        for (uint32_t i = from; ok && i < list.len; i++) {
            uint8_t f = *rill__slot_flags(world, RILL_ENTITY_INDEX(list.data[i]));
            hooks_running = hooks_running || (f & RILL__SLOT_DESPAWNING);
            rill_children *ch = children_of(world, list.data[i]);
            for (rill_entity c = ch ? ch->first : RILL_ENTITY_NULL; ok && c != RILL_ENTITY_NULL;) {
                rill_parent *cp = parent_of(world, c);
                if (!(*rill__slot_flags(world, RILL_ENTITY_INDEX(c)) & RILL__SLOT_BATCH)) {
                    ok = rill_array_push(&list, c);
                    if (ok) {
                        *rill__slot_flags(world, RILL_ENTITY_INDEX(c)) |= RILL__SLOT_BATCH;
                    }
                }
                c = cp ? cp->next_sibling : RILL_ENTITY_NULL;
            }
        }
    }
    if (!ok) {
        RILL_LOG_ERROR("world", "despawn_recursive: out of memory; despawning what was collected");
    }
    uint32_t n = 0;
    if (ok && !hooks_running && list.len >= BATCH_MIN) {
        n = rill__world_despawn_batch(world, list.data, list.len);
    } else {
        /* Entity by entity (small lists, re-entrant calls from hooks, or a partial list after
         * running out of memory). Reverse order: children go before their parents, so nothing is
         * orphaned on the way. */
        for (uint32_t i = 0; i < list.len; i++) {
            *rill__slot_flags(world, RILL_ENTITY_INDEX(list.data[i])) &= (uint8_t)~RILL__SLOT_BATCH;
        }
        for (uint32_t i = list.len; i-- > 0;) {
            n += rill_world_despawn(world, list.data[i]) ? 1u : 0u;
        }
    }
    rill_array_trim(&list, list.len, BATCH_MIN); /* a big despawn's list goes back after it */
    if (world->scratch.data == NULL) {
        world->scratch.data = list.data;
        world->scratch.cap = list.cap;
    } else {
        rill_free(list.data);
    }
    world->scratch.len = 0;
    return n;
}

uint32_t rill_world_despawn_recursive(rill_world *world, rill_entity e) {
    return rill_world_despawn_recursive_n(world, &e, 1);
}

/* >>math */

void rill_mat4_identity(float out[16]) {
    memset(out, 0, sizeof(float) * 16);
    out[0] = out[5] = out[10] = out[15] = 1.0f;
}

bool rill_mat4_in_world_limit(const float m[16]) {
    bool in = true;
    for (int i = 0; i < 16; i++) {
        in &= fabsf(m[i]) <= RILL_WORLD_LIMIT; /* false for NaN and infinities too */
    }
    return in;
}

void rill_mat4_mul(const float a[16], const float b[16], float out[16]) {
    float r[16];
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            r[c * 4 + row] = a[0 * 4 + row] * b[c * 4 + 0] + a[1 * 4 + row] * b[c * 4 + 1] +
                             a[2 * 4 + row] * b[c * 4 + 2] + a[3 * 4 + row] * b[c * 4 + 3];
        }
    }
    memcpy(out, r, sizeof r);
}

static void sub3(const float a[3], const float b[3], float out[3]) {
    for (int k = 0; k < 3; k++) {
        out[k] = a[k] - b[k];
    }
}

static void cross3(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

bool rill_ray_triangle(const float o[3], const float d[3], const float a[3], const float b[3],
                       const float c[3], float *out_t) {
    float e1[3], e2[3], p[3], tv[3], q[3];
    sub3(b, a, e1);
    sub3(c, a, e2);
    cross3(d, e2, p);
    float det = dot3(e1, p);
    if (!(fabsf(det) > 1e-12f)) {
        return false;
    }
    float inv = 1.0f / det;
    sub3(o, a, tv);
    float u = dot3(tv, p) * inv;
    if (u < 0.0f || u > 1.0f) {
        return false;
    }
    cross3(tv, e1, q);
    float v = dot3(d, q) * inv;
    if (v < 0.0f || u + v > 1.0f) {
        return false;
    }
    float t = dot3(e2, q) * inv;
    if (!(t > 0.0f)) {
        return false;
    }
    *out_t = t;
    return true;
}

rill_transform rill_transform_identity(void) {
    return (rill_transform){{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
}

void rill_transform_to_mat4(const rill_transform *t, float out[16]) {
    float x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
    float wx = w * x, wy = w * y, wz = w * z;
    float sx = t->scale[0], sy = t->scale[1], sz = t->scale[2];
    out[0] = (1 - 2 * (yy + zz)) * sx;
    out[1] = 2 * (xy + wz) * sx;
    out[2] = 2 * (xz - wy) * sx;
    out[3] = 0;
    out[4] = 2 * (xy - wz) * sy;
    out[5] = (1 - 2 * (xx + zz)) * sy;
    out[6] = 2 * (yz + wx) * sy;
    out[7] = 0;
    out[8] = 2 * (xz + wy) * sz;
    out[9] = 2 * (yz - wx) * sz;
    out[10] = (1 - 2 * (xx + yy)) * sz;
    out[11] = 0;
    out[12] = t->translation[0];
    out[13] = t->translation[1];
    out[14] = t->translation[2];
    out[15] = 1;
}

/* >>transforms */

void rill__transform_mark_dirty(rill_world *w, rill_entity e) {
    uint32_t idx = RILL_ENTITY_INDEX(e);
    if (!(*rill__slot_flags(w, idx) & RILL__SLOT_DIRTY)) {
        if (!rill_array_push(&w->dirty, e)) {
            RILL_LOG_ERROR("world", "out of memory marking a transform dirty");
            return;
        }
        *rill__slot_flags(w, idx) |= RILL__SLOT_DIRTY;
    }
}

void rill_world_mark_transform_dirty(rill_world *world, rill_entity e) {
    if (world != NULL && rill__world_alive(world, e)) {
        rill__transform_mark_dirty(world, e);
    }
}

bool rill_world_set_transform(rill_world *world, rill_entity e, const rill_transform *t) {
    if (world == NULL || t == NULL || !rill__world_alive(world, e)) {
        return false;
    }
    rill_transform *cur = rill_world_get(world, e, RILL_COMPONENT_TRANSFORM);
    if (cur != NULL) {
        *cur = *t;
        rill__transform_mark_dirty(world, e);
        return true;
    }
    return rill_world_add(world, e, RILL_COMPONENT_TRANSFORM, t) != NULL;
}

rill_transform *rill_world_transform_mut(rill_world *world, rill_entity e) {
    rill_transform *t = rill_world_get(world, e, RILL_COMPONENT_TRANSFORM);
    if (t != NULL) {
        rill__transform_mark_dirty(world, e);
    }
    return t;
}

const rill_entity *rill_world_changed_transforms(const rill_world *world, uint32_t *out_count) {
    if (out_count) {
        *out_count = world ? world->changed.len : 0;
    }
    return world ? world->changed.data : NULL;
}

bool rill_world_changed_transforms_since(const rill_world *world, uint64_t *cursor,
                                         const rill_entity **out, uint32_t *out_count) {
    uint64_t from = cursor ? *cursor : 0;
    uint32_t len = world ? world->changed.len : 0;
    uint64_t first = world ? world->changed_first : 0, end = first + len;
    bool whole = world && from >= first && from >= world->changed_hole && from <= end;
    uint32_t skip = whole ? (uint32_t)(from - first) : 0;
    if (out) {
        *out = world && world->changed.data ? world->changed.data + skip : NULL;
    }
    if (out_count) {
        *out_count = len - skip;
    }
    if (cursor) {
        *cursor = end;
    }
    return whole;
}

const float *rill_world_global_matrix(const rill_world *world, rill_entity e) {
    const rill_global_transform *g = rill_world_get(world, e, RILL_COMPONENT_GLOBAL_TRANSFORM);
    return g ? g->m : NULL;
}

/* The matrix a node's own transform is multiplied onto: the GlobalTransform of the nearest ancestor
 * that has a Transform (ancestors without one pass through), identity for roots. Only called for
 * nodes whose ancestors are all clean, so those matrices are current. */
static void parent_matrix(rill_world *w, rill_entity e, float out[16]) {
    const rill__sparse_set *ts = &w->components.data[RILL_BUILTIN_TRANSFORM - 1].set;
    const rill__sparse_set *gs = &w->components.data[RILL_BUILTIN_GLOBAL_TRANSFORM - 1].set;
    for (rill_parent *p = parent_of(w, e); p != NULL; p = parent_of(w, p->parent)) {
        uint32_t a = RILL_ENTITY_INDEX(p->parent);
        if (rill__set_get(ts, a) != NULL) {
            const rill_global_transform *g = rill__set_get(gs, a);
            if (g != NULL) {
                memcpy(out, g->m, sizeof(float) * 16);
                return;
            }
            break;
        }
    }
    rill_mat4_identity(out);
}

static bool has_dirty_ancestor(rill_world *w, rill_entity e) {
    for (rill_parent *p = parent_of(w, e); p != NULL; p = parent_of(w, p->parent)) {
        if (*rill__slot_flags(w, RILL_ENTITY_INDEX(p->parent)) & RILL__SLOT_DIRTY) {
            return true;
        }
    }
    return false;
}

/* Starts writing the changed list: a full update that finished empties it for the next round, so
 * the list holds what the last full update and the partial updates before it wrote. */
static void changed_begin(rill_world *w) {
    if (w->changed_stale) {
        w->changed_first += w->changed.len;
        rill_array_trim(&w->changed, w->changed.len, 256u); /* sized by the last round's use */
        rill_array_clear(&w->changed);
        w->changed_stale = false;
    }
}

/* Recomputes GlobalTransform for root's subtree (root dirty, no dirty ancestor). Returns the
 * number written. */
static uint32_t walk_subtree(rill_world *world, rill_entity root) {
    rill__sparse_set *ts = &world->components.data[RILL_BUILTIN_TRANSFORM - 1].set;
    rill__sparse_set *gs = &world->components.data[RILL_BUILTIN_GLOBAL_TRANSFORM - 1].set;
    uint32_t written = 0;
    world->xstack.len = 0;
    struct rill__xform_item *it = rill_array_push_n(&world->xstack, 1);
    if (it == NULL) {
        RILL_LOG_ERROR("world", "update_transforms: out of memory");
        return 0;
    }
    it->entity = root;
    parent_matrix(world, root, it->parent);
    while (world->xstack.len > 0) {
        struct rill__xform_item item = rill_array_pop(&world->xstack);
        uint32_t idx = RILL_ENTITY_INDEX(item.entity);
        float m[16];
        const rill_transform *t = rill__set_get(ts, idx);
        if (t != NULL) {
            float local[16];
            rill_transform_to_mat4(t, local);
            rill_mat4_mul(item.parent, local, m);
            bool existed;
            rill_global_transform *g = rill__set_insert(world, gs, item.entity, &existed);
            if (g != NULL) {
                memcpy(g->m, m, sizeof m);
                written++;
                if (!rill_array_push(&world->changed, item.entity)) {
                    world->changed_hole = world->changed_first + world->changed.len + 1u;
                    RILL_LOG_ERROR("world", "update_transforms: out of memory (changed list)");
                }
            }
        } else {
            memcpy(m, item.parent, sizeof m);
        }
        /* Clearing here (not at the end) keeps later dirty-list entries of this subtree from
         * starting a second walk; the ancestor checks already ran for this root. */
        *rill__slot_flags(world, idx) &= (uint8_t)~RILL__SLOT_DIRTY;
        for (rill_entity c = rill_world_first_child(world, item.entity); c != RILL_ENTITY_NULL;
             c = rill_world_next_sibling(world, c)) {
            struct rill__xform_item *ci = rill_array_push_n(&world->xstack, 1);
            if (ci == NULL) {
                RILL_LOG_ERROR("world", "update_transforms: out of memory");
                break;
            }
            ci->entity = c;
            memcpy(ci->parent, m, sizeof m);
        }
    }
    return written;
}

/* True when e's subtree is due and no dirty ancestor's walk covers it. */
static bool walk_root(rill_world *w, rill_entity e) {
    return rill__world_alive(w, e) &&
           (*rill__slot_flags(w, RILL_ENTITY_INDEX(e)) & RILL__SLOT_DIRTY) &&
           !has_dirty_ancestor(w, e);
}

uint32_t rill_world_update_transforms(rill_world *world) {
    if (world == NULL) {
        return 0;
    }
    uint32_t written = 0;
    changed_begin(world);
    for (uint32_t i = 0; i < world->dirty.len; i++) {
        rill_entity root = world->dirty.data[i];
        /* A dirty node under a dirty ancestor is covered by that ancestor's walk. */
        if (walk_root(world, root)) {
            written += walk_subtree(world, root);
        }
    }
    for (uint32_t i = 0; i < world->dirty.len; i++) {
        rill_entity e = world->dirty.data[i];
        if (rill__world_alive(world, e)) {
            *rill__slot_flags(world, RILL_ENTITY_INDEX(e)) &= (uint8_t)~RILL__SLOT_DIRTY;
        }
    }
    rill_array_trim(&world->dirty, world->dirty.len, 256u); /* sized by this round's use */
    rill_array_clear(&world->dirty);
    world->changed_stale = true;
    return written;
}

uint32_t rill_world_update_transforms_of(rill_world *world, const rill_entity *entities,
                                         uint32_t count) {
    if (world == NULL || entities == NULL) {
        return 0;
    }
    changed_begin(world);
    uint32_t written = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (walk_root(world, entities[i])) {
            written += walk_subtree(world, entities[i]);
        }
    }
    return written;
}
