/* physics.c: the physics world's life cycle (ODE set-up shared by every world), the collider and
 * shape pools, stepping and stats.
 *
 * ODE keeps global state (its collision tables and per-thread caches), so the first world
 * initializes it and the last one closes it; both happen under one lock. ODE's allocator hooks are
 * pointed at rill_malloc (tag RILL_MEM_PHYSICS) so physics memory shows in the per-tag counters. */
#include "physics_internal.h"

#include <math.h>
#include <string.h>

static rill_mutex ode_lock;
static _Atomic int ode_lock_ready;
static uint32_t ode_users;

/* >>ode allocator and messages */

static void *ode_alloc(dsizeint size) {
    return rill_malloc_tagged(size ? size : 1u, RILL_MEM_PHYSICS);
}
static void *ode_realloc(void *ptr, dsizeint old_size, dsizeint new_size) {
    RILL_UNUSED(old_size);
    return rill_realloc_tagged(ptr, new_size ? new_size : 1u, RILL_MEM_PHYSICS);
}
static void ode_free(void *ptr, dsizeint size) {
    RILL_UNUSED(size);
    rill_free(ptr);
}
static void ode_message(int num, const char *msg, va_list ap) {
    char line[512];
    vsnprintf(line, sizeof line, msg, ap);
    /* ODE's messages are solver diagnostics (an LCP that did not converge); not fatal. */
    RILL_LOG_DEBUG(PHYS_LOG, "ODE message %d: %s", num, line);
}

static void ode_acquire(void) {
    /* The lock is made once; physics worlds are created on the main thread. */
    if (!ode_lock_ready) {
        rill_mutex_init(&ode_lock);
        ode_lock_ready = 1;
    }
    rill_mutex_lock(&ode_lock);
    if (ode_users++ == 0) {
        dSetAllocHandler(ode_alloc);
        dSetReallocHandler(ode_realloc);
        dSetFreeHandler(ode_free);
        dSetMessageHandler(ode_message);
        dInitODE2(0);
        dAllocateODEDataForThread(dAllocateMaskAll);
    }
    rill_mutex_unlock(&ode_lock);
}

static void ode_release(void) {
    rill_mutex_lock(&ode_lock);
    if (ode_users > 0 && --ode_users == 0) {
        dCleanupODEAllDataForThread();
        dCloseODE();
    }
    rill_mutex_unlock(&ode_lock);
}

/* >>helpers */

bool rill__phys_finite(const float *v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

void rill__phys_to_ode_quat(const float rot[4], dQuaternion out) {
    out[0] = rot[3];
    out[1] = rot[0];
    out[2] = rot[1];
    out[3] = rot[2];
}

void rill__phys_from_ode_quat(const dReal *q, float out[4]) {
    out[0] = (float)q[1];
    out[1] = (float)q[2];
    out[2] = (float)q[3];
    out[3] = (float)q[0];
}

/* Rotation matrix (columns normalized) to quaternion; the standard trace-based branches. */
static void mat3_to_quat(const float c0[3], const float c1[3], const float c2[3], float q[4]) {
    float m00 = c0[0], m10 = c0[1], m20 = c0[2];
    float m01 = c1[0], m11 = c1[1], m21 = c1[2];
    float m02 = c2[0], m12 = c2[1], m22 = c2[2];
    float tr = m00 + m11 + m22;
    if (tr > 0.0f) {
        float s = sqrtf(tr + 1.0f) * 2.0f;
        q[3] = 0.25f * s;
        q[0] = (m21 - m12) / s;
        q[1] = (m02 - m20) / s;
        q[2] = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q[3] = (m21 - m12) / s;
        q[0] = 0.25f * s;
        q[1] = (m01 + m10) / s;
        q[2] = (m02 + m20) / s;
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q[3] = (m02 - m20) / s;
        q[0] = (m01 + m10) / s;
        q[1] = 0.25f * s;
        q[2] = (m12 + m21) / s;
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q[3] = (m10 - m01) / s;
        q[0] = (m02 + m20) / s;
        q[1] = (m12 + m21) / s;
        q[2] = 0.25f * s;
    }
}

void rill__phys_decompose(const float m[16], float pos[3], float rot[4], float scale[3]) {
    float c[3][3];
    for (int i = 0; i < 3; i++) {
        float len =
            sqrtf(m[i * 4] * m[i * 4] + m[i * 4 + 1] * m[i * 4 + 1] + m[i * 4 + 2] * m[i * 4 + 2]);
        scale[i] = len;
        float inv = len > 0.0f ? 1.0f / len : 0.0f;
        for (int k = 0; k < 3; k++) {
            c[i][k] = m[i * 4 + k] * inv;
        }
    }
    pos[0] = m[12];
    pos[1] = m[13];
    pos[2] = m[14];
    mat3_to_quat(c[0], c[1], c[2], rot);
}

/* >>pools */

uint32_t rill__phys_collider_alloc(rill_physics *phys) {
    uint32_t id = rill_pool_alloc(&phys->collider_pool);
    if (id == 0) {
        return 0;
    }
    int32_t slot = rill_pool_index(&phys->collider_pool, id);
    memset(&phys->colliders[slot], 0, sizeof phys->colliders[slot]);
    return id;
}

phys_collider *rill__phys_collider_get(const rill_physics *phys, uint32_t id) {
    int32_t slot = rill_pool_index(&phys->collider_pool, id);
    return slot < 0 ? NULL : &phys->colliders[slot];
}

void rill__phys_collider_free(rill_physics *phys, uint32_t id) {
    phys_collider *c = rill__phys_collider_get(phys, id);
    if (!c) {
        return;
    }
    if (c->geom) {
        dGeomDestroy(c->geom);
    }
    phys_shape *s = c->shape_id ? rill__phys_shape_get(phys, c->shape_id) : NULL;
    if (s && s->users > 0) {
        s->users--;
    }
    if (c->body) {
        dBodyDestroy(c->body);
        phys->body_count--;
    } else if (c->geom) {
        phys->static_count--;
    }
    memset(c, 0, sizeof *c);
    rill_pool_free(&phys->collider_pool, id);
}

phys_shape *rill__phys_shape_get(const rill_physics *phys, uint32_t id) {
    int32_t slot = rill_pool_index(&phys->shape_pool, id);
    return slot < 0 ? NULL : &phys->shapes[slot];
}

/* >>create / destroy */

rill_physics_desc rill_physics_query_defaults(void) {
    rill_physics_desc d = {0};
    d.gravity[1] = -9.81f;
    d.gravity_set = true;
    d.solver_iterations = 20;
    d.max_colliders = 65536;
    d.max_contacts = 4;
    d.max_step_contacts = PHYS_STEP_CONTACTS_DEFAULT;
    return d;
}

static rill_physics_desc resolve_desc(const rill_physics_desc *in) {
    rill_physics_desc d = rill_physics_query_defaults();
    d.world = in->world;
    if (in->gravity_set) {
        memcpy(d.gravity, in->gravity, sizeof d.gravity);
    }
    if (in->solver_iterations) {
        d.solver_iterations = in->solver_iterations;
    }
    if (in->max_colliders) {
        d.max_colliders = in->max_colliders;
    }
    if (in->max_contacts) {
        d.max_contacts = in->max_contacts;
    }
    if (in->max_step_contacts) {
        d.max_step_contacts = in->max_step_contacts;
    }
    d.no_sleep = in->no_sleep;
    return d;
}

rill_physics *rill_physics_create(const rill_physics_desc *desc, rill_error *err) {
    if (!desc || !desc->world) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_physics_create: no world");
        return NULL;
    }
    if (desc->start_canary || desc->end_canary) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_physics_create: desc canaries are not zero (uninitialized desc?)");
        return NULL;
    }
    rill_physics_desc d = resolve_desc(desc);
    if (!rill__phys_finite(d.gravity, 3)) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_physics_create: gravity is not finite");
        return NULL;
    }
    if (d.max_colliders > RILL_POOL_MAX_CAPACITY || d.max_contacts > 256 ||
        d.max_step_contacts > PHYS_STEP_CONTACTS_MAX || d.solver_iterations > 1000) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_physics_create: max_colliders %u, max_contacts %u, max_step_contacts "
                       "%u or solver_iterations %u out of range",
                       d.max_colliders, d.max_contacts, d.max_step_contacts, d.solver_iterations);
        return NULL;
    }
    rill_physics *phys = rill_calloc_tagged(1, sizeof *phys, RILL_MEM_PHYSICS);
    if (!phys) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_physics_create: out of memory");
        return NULL;
    }
    phys->desc = d;
    phys->world = d.world;
    phys->comps = rill_physics_register(d.world);
    rill_physics_contact_events(d.world, &phys->contact_begin, &phys->contact_end);
    const rill_builtins *b = rill_world_builtin(d.world);
    phys->transform = b->transform;
    phys->global_transform = b->global_transform;
    phys->parent = b->parent;
    bool ok = phys->comps.collider.id && phys->comps.rigid_body.id &&
              rill_pool_init(&phys->collider_pool, d.max_colliders) == RILL_OK &&
              rill_pool_init(&phys->shape_pool, d.max_colliders) == RILL_OK;
    if (ok) {
        phys->colliders =
            rill_calloc_tagged(d.max_colliders, sizeof(phys_collider), RILL_MEM_PHYSICS);
        phys->shapes = rill_calloc_tagged(d.max_colliders, sizeof(phys_shape), RILL_MEM_PHYSICS);
        phys->contact_scratch =
            rill_calloc_tagged(d.max_contacts, sizeof(dContactGeom), RILL_MEM_PHYSICS);
        phys->contact_joints =
            rill_calloc_tagged(d.max_contacts, sizeof(dContact), RILL_MEM_PHYSICS);
        ok = phys->colliders && phys->shapes && phys->contact_scratch && phys->contact_joints;
    }
    if (!ok) {
        rill_pool_destroy(&phys->collider_pool);
        rill_pool_destroy(&phys->shape_pool);
        rill_free(phys->colliders);
        rill_free(phys->shapes);
        rill_free(phys->contact_scratch);
        rill_free(phys->contact_joints);
        rill_free(phys);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_physics_create: out of memory");
        return NULL;
    }
    ode_acquire();
    phys->ode_world = dWorldCreate();
    dWorldSetGravity(phys->ode_world, d.gravity[0], d.gravity[1], d.gravity[2]);
    dWorldSetQuickStepNumIterations(phys->ode_world, (int)d.solver_iterations);
    dWorldSetERP(phys->ode_world, 0.2);
    dWorldSetCFM(phys->ode_world, 1e-5);
    dWorldSetContactSurfaceLayer(phys->ode_world, 0.002);
    dWorldSetContactMaxCorrectingVel(phys->ode_world, 20.0);
    dWorldSetAutoDisableFlag(phys->ode_world, d.no_sleep ? 0 : 1);
    /* A body that stays this slow for 20 steps (1/3 s at 60 Hz) goes to sleep. */
    dWorldSetAutoDisableLinearThreshold(phys->ode_world, 0.05);
    dWorldSetAutoDisableAngularThreshold(phys->ode_world, 0.05);
    dWorldSetAutoDisableSteps(phys->ode_world, 20);
    phys->static_space = dHashSpaceCreate(0);
    phys->dynamic_space = dHashSpaceCreate(0);
    /* Cells from 1/8 m to 4 km: bodies are about a metre, terrain chunks tens of metres. */
    dHashSpaceSetLevels(phys->static_space, -3, 12);
    dHashSpaceSetLevels(phys->dynamic_space, -3, 12);
    phys->contacts = dJointGroupCreate(0);
    phys->ray = dCreateRay(0, 1.0);
    phys->query_sphere = dCreateSphere(0, 1.0);
    phys->query_box = dCreateBox(0, 1.0, 1.0, 1.0);
    return phys;
}

void rill_physics_destroy(rill_physics *phys) {
    if (!phys) {
        return;
    }
    for (uint32_t slot = 0; slot < phys->desc.max_colliders; slot++) {
        phys_collider *c = &phys->colliders[slot];
        if (c->geom) {
            dGeomDestroy(c->geom);
        }
        if (c->body) {
            dBodyDestroy(c->body);
        }
    }
    for (uint32_t slot = 0; slot < phys->desc.max_colliders; slot++) {
        rill__physics_shape_release(&phys->shapes[slot]);
    }
    dGeomDestroy(phys->ray);
    dGeomDestroy(phys->query_sphere);
    dGeomDestroy(phys->query_box);
    dJointGroupDestroy(phys->contacts);
    dSpaceDestroy(phys->static_space);
    dSpaceDestroy(phys->dynamic_space);
    dWorldDestroy(phys->ode_world);
    ode_release();
    rill_pool_destroy(&phys->collider_pool);
    rill_pool_destroy(&phys->shape_pool);
    rill_map_free(&phys->by_entity);
    rill_map_free(&phys->refused);
    rill_map_free(&phys->seen);
    rill__phys_touch_free(phys);
    rill_array_free(&phys->component_ids);
    rill_free(phys->colliders);
    rill_free(phys->shapes);
    rill_free(phys->contact_scratch);
    rill_free(phys->contact_joints);
    rill_free(phys);
}

/* >>step */

/* Mixes the two surfaces' materials: friction as the geometric mean, bounce as the larger. */
static void contact_surface(const phys_collider *a, const phys_collider *b, dSurfaceParameters *s) {
    memset(s, 0, sizeof *s);
    float fa = a ? a->friction : 0.6f, fb = b ? b->friction : 0.6f;
    float ra = a ? a->restitution : 0.0f, rb = b ? b->restitution : 0.0f;
    s->mode = dContactApprox1 | dContactSoftCFM | dContactSoftERP;
    s->mu = sqrtf(fa * fb);
    s->soft_cfm = 1e-4;
    s->soft_erp = 0.4;
    float bounce = RILL_MAX(ra, rb);
    if (bounce > 0.0f) {
        s->mode |= dContactBounce;
        s->bounce = bounce;
        s->bounce_vel = 0.2;
    }
}

static void near_callback(void *user, dGeomID o1, dGeomID o2) {
    rill_physics *phys = user;
    dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
    if (!b1 && !b2) {
        return;
    }
    if (b1 && b2 && dAreConnectedExcluding(b1, b2, dJointTypeContact)) {
        return;
    }
    bool k1 = !b1 || dBodyIsKinematic(b1), k2 = !b2 || dBodyIsKinematic(b2);
    if (k1 && k2) {
        return; /* neither side can move in response */
    }
    /* The step's contact budget: bodies piled at one point touch pairwise, so their contacts (and
     * ODE's solver time and memory, which follow them) would grow with the square of their
     * number. Past the budget a pair is not even tested: the cost of a pair is then one call. */
    uint32_t room = phys->desc.max_step_contacts - phys->contacts_last;
    if (room == 0) {
        phys->contacts_dropped++;
        return;
    }
    int cap = (int)RILL_MIN(phys->desc.max_contacts, room);
    int n = dCollide(o1, o2, cap, phys->contact_scratch, sizeof(dContactGeom));
    if (n <= 0) {
        return;
    }
    uint32_t id1 = (uint32_t)(uintptr_t)dGeomGetData(o1),
             id2 = (uint32_t)(uintptr_t)dGeomGetData(o2);
    const phys_collider *c1 = rill__phys_collider_get(phys, id1);
    const phys_collider *c2 = rill__phys_collider_get(phys, id2);
    rill__phys_touch_note(phys, id1, id2, &phys->contact_scratch[0]);
    for (int i = 0; i < n; i++) {
        dContact *ct = &phys->contact_joints[i];
        contact_surface(c1, c2, &ct->surface);
        ct->geom = phys->contact_scratch[i];
        dJointID j = dJointCreateContact(phys->ode_world, phys->contacts, ct);
        dJointAttach(j, b1, b2);
    }
    phys->contacts_last += (uint32_t)n;
}

void rill_physics_sync(rill_physics *phys) {
    if (!phys) {
        return;
    }
    rill__phys_sync_components(phys);
}

void rill_physics_step(rill_physics *phys, double dt) {
    if (!phys) {
        return;
    }
    uint64_t t0 = rill_time_ns();
    rill__phys_sync_components(phys);
    if (isfinite(dt) && dt > 0.0 && dt <= 1.0) {
        phys->contacts_last = 0;
        phys->contacts_dropped = 0;
        rill__phys_touch_begin_step(phys);
        dSpaceCollide(phys->dynamic_space, phys, near_callback);
        dSpaceCollide2((dGeomID)phys->dynamic_space, (dGeomID)phys->static_space, phys,
                       near_callback);
        dWorldQuickStep(phys->ode_world, dt);
        dJointGroupEmpty(phys->contacts);
        rill__phys_touch_end_step(phys);
        rill__phys_write_back(phys);
        phys->steps++;
    }
    phys->last_step_ns = rill_time_ns() - t0;
    phys->step_ns_total += phys->last_step_ns;
}

void rill_physics_get_stats(const rill_physics *phys, rill_physics_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (!phys) {
        return;
    }
    out->static_colliders = phys->static_count;
    out->bodies = phys->body_count;
    out->colliders = phys->static_count + phys->body_count;
    for (uint32_t i = 0; i < phys->component_ids.len; i++) {
        const phys_collider *c = rill__phys_collider_get(phys, phys->component_ids.data[i]);
        if (c && c->body && dBodyIsEnabled(c->body)) {
            out->awake++;
        }
    }
    out->shapes = phys->shape_pool.live;
    out->refused = phys->refused.len;
    out->contacts = phys->contacts_last;
    out->contacts_dropped = phys->contacts_dropped;
    out->steps = phys->steps;
    out->last_step_ns = phys->last_step_ns;
    out->step_ns_total = phys->step_ns_total;
}
