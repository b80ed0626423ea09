/* sync.c: keeps the simulation in step with the world's Collider and RigidBody components, and
 * writes dynamic bodies back into their Transforms after each step.
 *
 * The sync polls rather than hooking component add/remove: one pass over the Collider set per step
 * is cheap next to the collision pass, and it also sees in-place edits of a component's fields
 * (which no hook reports). Each built collider keeps a copy of the component it was built from;
 * a different copy means rebuild. */
#include "physics_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The parts of a RigidBody that decide how its body is built (velocities and the sleeping flag are
 * state, not configuration). */
static bool body_config_equal(const rill_rigid_body *a, const rill_rigid_body *b) {
    return a->kind == b->kind && a->mass == b->mass && a->linear_damping == b->linear_damping &&
           a->angular_damping == b->angular_damping && a->gravity == b->gravity;
}

static uint64_t config_hash(const rill_collider *col, const rill_rigid_body *rb,
                            const float scale[3]) {
    uint64_t h = rill_hash64(col, sizeof *col);
    h = rill_hash64_seed(scale, 3 * sizeof(float), h);
    if (rb) {
        float cfg[4] = {(float)rb->kind, rb->mass, rb->linear_damping, rb->angular_damping};
        h = rill_hash64_seed(cfg, sizeof cfg, h ^ (rb->gravity ? 1u : 2u));
    }
    return h;
}

/* The entity's world matrix: its Transform for a root (fresher than a GlobalTransform that is
 * propagated after fixed_update), else its GlobalTransform. */
static void entity_matrix(const rill_physics *phys, rill_entity e, float m[16]) {
    bool root = !rill_world_has(phys->world, e, phys->parent);
    const rill_transform *t = rill_world_get(phys->world, e, phys->transform);
    const float *g = rill_world_global_matrix(phys->world, e);
    if (root && t) {
        rill_transform_to_mat4(t, m);
    } else if (g) {
        memcpy(m, g, 16 * sizeof(float));
    } else if (t) {
        rill_transform_to_mat4(t, m);
    } else {
        rill_mat4_identity(m);
    }
}

static void set_mass(dBodyID body, const rill_collider *col, const rill_rigid_body *rb,
                     const float s[3]) {
    dMass m;
    float smax = RILL_MAX(s[0], RILL_MAX(s[1], s[2]));
    switch (col->shape) {
    case RILL_COLLIDER_SPHERE:
        dMassSetSphereTotal(&m, rb->mass, col->radius * smax);
        break;
    case RILL_COLLIDER_CAPSULE:
        dMassSetCapsuleTotal(&m, rb->mass, 2, col->radius * RILL_MAX(s[0], s[2]),
                             2.0 * col->half_height * s[1]);
        break;
    default:
        dMassSetBoxTotal(&m, rb->mass, 2.0 * col->half_extents[0] * s[0],
                         2.0 * col->half_extents[1] * s[1], 2.0 * col->half_extents[2] * s[2]);
        break;
    }
    dBodySetMass(body, &m);
}

/* Builds the collider of a component entity. Returns its id, or 0 with why[] filled. */
static uint32_t build_component(rill_physics *phys, rill_entity e, const rill_collider *col,
                                const rill_rigid_body *rb, char *why, size_t why_cap) {
    float m[16], pos[3], rot[4], scale[3];
    entity_matrix(phys, e, m);
    if (!rill__phys_finite(m, 16)) {
        snprintf(why, why_cap, "its transform is not finite");
        return 0;
    }
    rill__phys_decompose(m, pos, rot, scale);
    if (!rill__phys_check_collider(phys, col, scale, rb != NULL, why, why_cap)) {
        return 0;
    }
    if (rb) {
        if (!rill__phys_check_body(rb, why, why_cap)) {
            return 0;
        }
        if (rill_world_has(phys->world, e, phys->parent)) {
            snprintf(why, why_cap, "a RigidBody must be on a root entity (this one has a parent)");
            return 0;
        }
        if (!rill_world_has(phys->world, e, phys->transform)) {
            snprintf(why, why_cap, "a RigidBody needs a Transform");
            return 0;
        }
    }
    uint32_t id = rill__phys_collider_alloc(phys);
    if (!id) {
        snprintf(why, why_cap,
                 "all %u collider handles are in use (the max_colliders limit: "
                 "rill_physics_desc.max_colliders, docs/limits.md)",
                 phys->desc.max_colliders);
        return 0;
    }
    dGeomID g = rill__phys_make_geom(phys, col, scale, why, why_cap);
    if (!g) {
        rill__phys_collider_free(phys, id);
        return 0;
    }
    phys_collider *c = rill__phys_collider_get(phys, id);
    c->geom = g;
    c->entity = e;
    c->from_component = true;
    c->col = *col;
    c->layers = col->layers;
    c->friction = col->friction;
    c->restitution = col->restitution;
    if (col->shape == RILL_COLLIDER_MESH || col->shape == RILL_COLLIDER_HEIGHTFIELD) {
        c->shape_id = col->shape_data;
        rill__phys_shape_get(phys, c->shape_id)->users++;
    }
    memcpy(c->matrix, m, sizeof c->matrix);
    memcpy(c->last_pos, pos, sizeof pos);
    memcpy(c->last_rot, rot, sizeof rot);
    dGeomSetData(g, (void *)(uintptr_t)id);
    if (!rb) {
        rill__phys_place_static(phys, g, col, pos, rot);
        dSpaceAdd(phys->static_space, g);
        phys->static_count++;
        return id;
    }
    c->has_rb = true;
    c->rb = *rb;
    c->kinematic = rb->kind == RILL_BODY_KINEMATIC;
    dBodyID b = dBodyCreate(phys->ode_world);
    c->body = b;
    phys->body_count++;
    set_mass(b, col, rb, scale);
    dQuaternion q;
    rill__phys_to_ode_quat(rot, q);
    dBodySetPosition(b, pos[0], pos[1], pos[2]);
    dBodySetQuaternion(b, q);
    dBodySetLinearVel(b, rb->linear_velocity[0], rb->linear_velocity[1], rb->linear_velocity[2]);
    dBodySetAngularVel(b, rb->angular_velocity[0], rb->angular_velocity[1],
                       rb->angular_velocity[2]);
    dBodySetLinearDamping(b, rb->linear_damping);
    dBodySetAngularDamping(b, rb->angular_damping);
    dBodySetGravityMode(b, rb->gravity ? 1 : 0);
    if (c->kinematic) {
        dBodySetKinematic(b);
    }
    memcpy(c->last_lin, rb->linear_velocity, sizeof c->last_lin);
    memcpy(c->last_ang, rb->angular_velocity, sizeof c->last_ang);
    rill__phys_attach(g, b, col);
    dSpaceAdd(phys->dynamic_space, g);
    return id;
}

static void refuse(rill_physics *phys, rill_entity e, uint64_t hash, const char *why) {
    uint64_t old;
    if (rill_map_get(&phys->refused, e, &old) && old == hash) {
        return;
    }
    rill_map_set(&phys->refused, e, hash);
    const char *name = rill_world_get_name(phys->world, e);
    RILL_LOG_ERROR(PHYS_LOG, "entity %u:%u%s%s%s: collider refused: %s", RILL_ENTITY_INDEX(e),
                   RILL_ENTITY_GENERATION(e), name ? " (" : "", name ? name : "", name ? ")" : "",
                   why);
}

/* Follows an in-place change of a built collider's entity: moves statics and kinematic bodies,
 * teleports dynamic bodies whose Transform was written by someone else, applies velocities that
 * gameplay set. Returns false when the collider must be rebuilt (its scale changed). */
static bool follow_entity(rill_physics *phys, phys_collider *c, rill_rigid_body *rb) {
    if (c->body && !c->kinematic) {
        const rill_transform *t = rill_world_get(phys->world, c->entity, phys->transform);
        if (t && (memcmp(t->translation, c->last_pos, sizeof c->last_pos) != 0 ||
                  memcmp(t->rotation, c->last_rot, sizeof c->last_rot) != 0)) {
            if (!rill__phys_finite(t->translation, 3) || !rill__phys_finite(t->rotation, 4)) {
                return false;
            }
            dQuaternion q;
            rill__phys_to_ode_quat(t->rotation, q);
            dBodySetPosition(c->body, t->translation[0], t->translation[1], t->translation[2]);
            dBodySetQuaternion(c->body, q);
            dBodyEnable(c->body);
            memcpy(c->last_pos, t->translation, sizeof c->last_pos);
            memcpy(c->last_rot, t->rotation, sizeof c->last_rot);
        }
        if (rb && (memcmp(rb->linear_velocity, c->last_lin, sizeof c->last_lin) != 0 ||
                   memcmp(rb->angular_velocity, c->last_ang, sizeof c->last_ang) != 0)) {
            if (!rill__phys_finite(rb->linear_velocity, 3) ||
                !rill__phys_finite(rb->angular_velocity, 3)) {
                return false;
            }
            dBodySetLinearVel(c->body, rb->linear_velocity[0], rb->linear_velocity[1],
                              rb->linear_velocity[2]);
            dBodySetAngularVel(c->body, rb->angular_velocity[0], rb->angular_velocity[1],
                               rb->angular_velocity[2]);
            dBodyEnable(c->body);
            memcpy(c->last_lin, rb->linear_velocity, sizeof c->last_lin);
            memcpy(c->last_ang, rb->angular_velocity, sizeof c->last_ang);
        }
        return true;
    }
    float m[16];
    entity_matrix(phys, c->entity, m);
    if (memcmp(m, c->matrix, sizeof m) == 0) {
        return true;
    }
    if (!rill__phys_finite(m, 16)) {
        return false;
    }
    float pos[3], rot[4], scale[3], old_pos[3], old_rot[4], old_scale[3];
    rill__phys_decompose(m, pos, rot, scale);
    rill__phys_decompose(c->matrix, old_pos, old_rot, old_scale);
    if (fabsf(scale[0] - old_scale[0]) > 1e-6f || fabsf(scale[1] - old_scale[1]) > 1e-6f ||
        fabsf(scale[2] - old_scale[2]) > 1e-6f) {
        return false;
    }
    memcpy(c->matrix, m, sizeof m);
    if (c->body) {
        dQuaternion q;
        rill__phys_to_ode_quat(rot, q);
        dBodySetPosition(c->body, pos[0], pos[1], pos[2]);
        dBodySetQuaternion(c->body, q);
    } else {
        rill__phys_place_static(phys, c->geom, &c->col, pos, rot);
    }
    return true;
}

static void drop_component(rill_physics *phys, uint32_t index) {
    uint32_t id = phys->component_ids.data[index];
    phys_collider *c = rill__phys_collider_get(phys, id);
    if (c) {
        rill_map_remove(&phys->by_entity, c->entity);
    }
    rill__phys_collider_free(phys, id);
    rill_array_swap_remove(&phys->component_ids, index);
}

static void visit(rill_physics *phys, rill_entity e, const rill_collider *col) {
    rill_rigid_body *rb = rill_world_get(phys->world, e, phys->comps.rigid_body);
    uint64_t idv = 0;
    if (rill_map_get(&phys->by_entity, e, &idv)) {
        phys_collider *c = rill__phys_collider_get(phys, (uint32_t)idv);
        bool same = c && memcmp(&c->col, col, sizeof *col) == 0 && c->has_rb == (rb != NULL) &&
                    (!rb || body_config_equal(&c->rb, rb));
        if (same && follow_entity(phys, c, rb)) {
            c->stamp = phys->stamp;
            return;
        }
        /* Changed: drop it here; it is rebuilt below. */
        for (uint32_t i = 0; i < phys->component_ids.len; i++) {
            if (phys->component_ids.data[i] == (uint32_t)idv) {
                drop_component(phys, i);
                break;
            }
        }
    }
    float m[16], pos[3], rot[4], scale[3];
    entity_matrix(phys, e, m);
    rill__phys_decompose(m, pos, rot, scale);
    uint64_t hash = config_hash(col, rb, scale);
    uint64_t old;
    if (rill_map_get(&phys->refused, e, &old) && old == hash) {
        return;
    }
    char why[256] = "";
    uint32_t id = build_component(phys, e, col, rb, why, sizeof why);
    if (!id) {
        refuse(phys, e, hash, why);
        return;
    }
    rill_map_remove(&phys->refused, e);
    phys_collider *c = rill__phys_collider_get(phys, id);
    c->stamp = phys->stamp;
    if (!rill_map_set(&phys->by_entity, e, id) || !rill_array_push(&phys->component_ids, id)) {
        rill_map_remove(&phys->by_entity, e);
        rill__phys_collider_free(phys, id);
        refuse(phys, e, hash, "out of memory");
    }
}

/* Forgets refusals of entities that no longer carry a Collider (despawned or removed). */
static void prune_refused(rill_physics *phys) {
    if (phys->refused.len == 0) {
        return;
    }
    rill_entity gone[64];
    uint32_t n = 0;
    uint64_t k, v;
    for (uint32_t it = 0; n < RILL_COUNTOF(gone) && rill_map_next(&phys->refused, &it, &k, &v);) {
        if (!rill_world_has(phys->world, k, phys->comps.collider)) {
            gone[n++] = k;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        rill_map_remove(&phys->refused, gone[i]);
    }
}

void rill__phys_sync_components(rill_physics *phys) {
    phys->stamp++;
    rill_query_desc qd = {.with = {phys->comps.collider}};
    rill_query q = rill_world_query(phys->world, &qd);
    while (rill_query_next(&q)) {
        visit(phys, q.entity, rill_query_get(&q, 0));
    }
    for (uint32_t i = 0; i < phys->component_ids.len;) {
        const phys_collider *c = rill__phys_collider_get(phys, phys->component_ids.data[i]);
        if (!c || c->stamp != phys->stamp) {
            drop_component(phys, i);
        } else {
            i++;
        }
    }
    prune_refused(phys);
}

void rill__phys_write_back(rill_physics *phys) {
    for (uint32_t i = 0; i < phys->component_ids.len; i++) {
        phys_collider *c = rill__phys_collider_get(phys, phys->component_ids.data[i]);
        if (!c || !c->body || c->kinematic) {
            continue;
        }
        rill_rigid_body *rb = rill_world_get(phys->world, c->entity, phys->comps.rigid_body);
        bool awake = dBodyIsEnabled(c->body) != 0;
        if (!awake && rb && rb->sleeping) {
            continue; /* nothing moved since the last write */
        }
        const dReal *p = dBodyGetPosition(c->body);
        const dReal *q = dBodyGetQuaternion(c->body);
        rill_transform *t = rill_world_transform_mut(phys->world, c->entity);
        if (t) {
            for (int k = 0; k < 3; k++) {
                t->translation[k] = (float)p[k];
            }
            rill__phys_from_ode_quat(q, t->rotation);
            memcpy(c->last_pos, t->translation, sizeof c->last_pos);
            memcpy(c->last_rot, t->rotation, sizeof c->last_rot);
        }
        if (rb) {
            const dReal *lv = dBodyGetLinearVel(c->body), *av = dBodyGetAngularVel(c->body);
            for (int k = 0; k < 3; k++) {
                rb->linear_velocity[k] = awake ? (float)lv[k] : 0.0f;
                rb->angular_velocity[k] = awake ? (float)av[k] : 0.0f;
            }
            rb->sleeping = !awake;
            memcpy(c->last_lin, rb->linear_velocity, sizeof c->last_lin);
            memcpy(c->last_ang, rb->angular_velocity, sizeof c->last_ang);
        }
    }
}
