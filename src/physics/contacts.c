/* contacts.c: contact events (rill/physics.h "contacts"). Each step keeps the set of entity pairs
 * whose colliders produced contacts; a pair new to the set sends PhysicsContactBegin, a pair that
 * left it sends PhysicsContactEnd. Two things keep a pair that ODE did not collide this step:
 * sleep (ODE skips pairs whose dynamic sides all sleep: they still touch) and hops (ODE turns
 * the penetration of a landing into a little upward speed, so a body that lands leaves the surface
 * for a few steps: a pair apart for under PHYS_TOUCH_GRACE steps whose boxes are still within
 * PHYS_TOUCH_MARGIN of each other has not parted). */
#include "physics_internal.h"

#include <string.h>

#define PHYS_TOUCH_GRACE 30u   /* steps: 0.5 s at 60 Hz */
#define PHYS_TOUCH_MARGIN 0.15 /* metres between the colliders' bounding boxes */

void rill_physics_contact_events(rill_world *world, rill_event *out_begin, rill_event *out_end) {
    rill_event b = RILL_EVENT_NONE, e = RILL_EVENT_NONE;
    if (world) {
        b = rill_world_register_event(world, RILL_PHYSICS_CONTACT_BEGIN_EVENT,
                                      sizeof(rill_physics_contact));
        e = rill_world_register_event(world, RILL_PHYSICS_CONTACT_END_EVENT,
                                      sizeof(rill_physics_contact));
    }
    if (out_begin) {
        *out_begin = b;
    }
    if (out_end) {
        *out_end = e;
    }
}

uint32_t rill_physics_touching_count(const rill_physics *phys) {
    return phys ? phys->touching.len : 0u;
}

/* The key of an unordered entity pair. */
static uint64_t pair_key(rill_entity a, rill_entity b) {
    rill_entity ab[2] = {a < b ? a : b, a < b ? b : a};
    return rill_hash64(ab, sizeof(ab));
}

void rill__phys_touch_begin_step(rill_physics *phys) {
    phys->touch_stamp++;
}

void rill__phys_touch_note(rill_physics *phys, uint32_t ca, uint32_t cb, const dContactGeom *g) {
    const phys_collider *c1 = rill__phys_collider_get(phys, ca);
    const phys_collider *c2 = rill__phys_collider_get(phys, cb);
    if (!c1 || !c2 || !c1->entity || !c2->entity || c1->entity == c2->entity) {
        return;
    }
    uint64_t key = pair_key(c1->entity, c2->entity), at;
    if (rill_map_get(&phys->touch_index, key, &at)) {
        phys->touching.data[at - 1].seen = phys->touch_stamp;
        return;
    }
    phys_touch t = {.key = key,
                    .c = {.a = c1->entity,
                          .b = c2->entity,
                          .part_a = c1->part,
                          .part_b = c2->part,
                          .depth = (float)g->depth},
                    .ca = ca,
                    .cb = cb,
                    .seen = phys->touch_stamp,
                    .fresh = true};
    for (int k = 0; k < 3; k++) {
        t.c.point[k] = (float)g->pos[k];
        t.c.normal[k] = (float)g->normal[k];
    }
    if (!rill_array_push(&phys->touching, t)) {
        return; /* out of memory: the pair is noted at a later step */
    }
    if (!rill_map_set(&phys->touch_index, key, phys->touching.len)) {
        phys->touching.len--;
    }
}

/* Whether collider id is gone or belongs to another entity now. */
static bool collider_gone(const rill_physics *phys, uint32_t id, rill_entity e) {
    const phys_collider *c = rill__phys_collider_get(phys, id);
    return !c || !c->geom || c->entity != e;
}

/* A side that cannot move or sleeps: ODE skips pairs of such sides, so their touch holds. */
static bool resting(const rill_physics *phys, uint32_t id) {
    const phys_collider *c = rill__phys_collider_get(phys, id);
    return !c->body || !dBodyIsEnabled(c->body) || dBodyIsKinematic(c->body);
}

/* Whether the bounding boxes of two colliders are within PHYS_TOUCH_MARGIN of each other. */
static bool near_boxes(const rill_physics *phys, uint32_t ca, uint32_t cb) {
    dReal a[6], b[6];
    dGeomGetAABB(rill__phys_collider_get(phys, ca)->geom, a);
    dGeomGetAABB(rill__phys_collider_get(phys, cb)->geom, b);
    for (int k = 0; k < 3; k++) {
        if (a[2 * k] > b[2 * k + 1] + PHYS_TOUCH_MARGIN ||
            b[2 * k] > a[2 * k + 1] + PHYS_TOUCH_MARGIN) {
            return false;
        }
    }
    return true;
}

/* Whether an unseen pair still touches: both colliders live, and either nothing awake moves them
 * or they parted only just and by little (a hop). */
static bool held(const rill_physics *phys, const phys_touch *t) {
    if (collider_gone(phys, t->ca, t->c.a) || collider_gone(phys, t->cb, t->c.b)) {
        return false;
    }
    if (resting(phys, t->ca) && resting(phys, t->cb)) {
        return true;
    }
    return phys->touch_stamp - t->seen < PHYS_TOUCH_GRACE && near_boxes(phys, t->ca, t->cb);
}

void rill__phys_touch_end_step(rill_physics *phys) {
    uint32_t w = 0;
    bool moved = false;
    for (uint32_t i = 0; i < phys->touching.len; i++) {
        phys_touch *t = &phys->touching.data[i];
        if (t->fresh) {
            rill_world_send_event(phys->world, phys->contact_begin, &t->c);
            t->fresh = false;
        } else if (t->seen != phys->touch_stamp && !held(phys, t)) {
            rill_world_send_event(phys->world, phys->contact_end, &t->c);
            moved = true;
            continue;
        }
        if (w != i) {
            moved = true;
        }
        phys->touching.data[w++] = *t;
    }
    phys->touching.len = w;
    if (!moved) {
        return;
    }
    rill_map_clear(&phys->touch_index);
    for (uint32_t i = 0; i < w; i++) {
        rill_map_set(&phys->touch_index, phys->touching.data[i].key, i + 1u);
    }
}

void rill__phys_touch_free(rill_physics *phys) {
    rill_array_free(&phys->touching);
    rill_map_free(&phys->touch_index);
}
