/* shape.c: the checks every collider passes before ODE sees it, geom construction for each shape
 * kind, mesh and heightfield data, and static colliders added through the API. */
#include "physics_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define HF_MAX_SAMPLES 4097u
#define HF_THICKNESS                                                                               \
    8.0 /* metres of solid below the lowest sample, so fast bodies do not tunnel                   \
         */

static const char *shape_name(int32_t shape) {
    static const char *names[] = {"box", "sphere", "capsule", "mesh", "heightfield"};
    return shape >= 0 && shape < RILL_COLLIDER_SHAPE_NUM ? names[shape] : "invalid";
}

/* >>checks */

bool rill__phys_check_collider(const rill_physics *phys, const rill_collider *col,
                               const float scale[3], bool dynamic, char *why, size_t why_cap) {
    static const float one[3] = {1.0f, 1.0f, 1.0f};
    const float *s = scale ? scale : one;
    if (!rill__phys_finite(s, 3) || s[0] <= 0.0f || s[1] <= 0.0f || s[2] <= 0.0f) {
        snprintf(why, why_cap, "scale (%g, %g, %g) is not finite and positive", (double)s[0],
                 (double)s[1], (double)s[2]);
        return false;
    }
    if (!isfinite(col->friction) || col->friction < 0.0f || !isfinite(col->restitution) ||
        col->restitution < 0.0f || col->restitution > 1.0f) {
        snprintf(why, why_cap, "friction %g / restitution %g out of range", (double)col->friction,
                 (double)col->restitution);
        return false;
    }
    switch (col->shape) {
    case RILL_COLLIDER_BOX:
        if (!rill__phys_finite(col->half_extents, 3) || col->half_extents[0] <= 0.0f ||
            col->half_extents[1] <= 0.0f || col->half_extents[2] <= 0.0f) {
            snprintf(why, why_cap, "box half_extents (%g, %g, %g) must be finite and > 0",
                     (double)col->half_extents[0], (double)col->half_extents[1],
                     (double)col->half_extents[2]);
            return false;
        }
        return true;
    case RILL_COLLIDER_SPHERE:
    case RILL_COLLIDER_CAPSULE:
        if (!isfinite(col->radius) || col->radius <= 0.0f) {
            snprintf(why, why_cap, "%s radius %g must be finite and > 0", shape_name(col->shape),
                     (double)col->radius);
            return false;
        }
        if (col->shape == RILL_COLLIDER_CAPSULE &&
            (!isfinite(col->half_height) || col->half_height < 0.0f)) {
            snprintf(why, why_cap, "capsule half_height %g must be finite and >= 0",
                     (double)col->half_height);
            return false;
        }
        return true;
    case RILL_COLLIDER_MESH:
    case RILL_COLLIDER_HEIGHTFIELD: {
        if (dynamic) {
            snprintf(why, why_cap, "a %s collider cannot move (static only)",
                     shape_name(col->shape));
            return false;
        }
        const phys_shape *sh = rill__phys_shape_get(phys, col->shape_data);
        rill_physics_shape_type want = col->shape == RILL_COLLIDER_MESH
                                           ? RILL_PHYSICS_SHAPE_MESH
                                           : RILL_PHYSICS_SHAPE_HEIGHTFIELD;
        if (!sh || sh->type != want) {
            snprintf(why, why_cap, "%s collider names shape %u, which is not a live %s shape",
                     shape_name(col->shape), col->shape_data, shape_name(col->shape));
            return false;
        }
        return true;
    }
    default:
        snprintf(why, why_cap, "unknown collider shape %d", (int)col->shape);
        return false;
    }
}

bool rill__phys_check_body(const rill_rigid_body *rb, char *why, size_t why_cap) {
    if (rb->kind < 0 || rb->kind >= RILL_BODY_KIND_NUM) {
        snprintf(why, why_cap, "unknown body kind %d", (int)rb->kind);
        return false;
    }
    if (!isfinite(rb->mass) || rb->mass <= 0.0f) {
        snprintf(why, why_cap, "mass %g must be finite and > 0", (double)rb->mass);
        return false;
    }
    if (!isfinite(rb->linear_damping) || !isfinite(rb->angular_damping) ||
        rb->linear_damping < 0.0f || rb->linear_damping > 1.0f || rb->angular_damping < 0.0f ||
        rb->angular_damping > 1.0f) {
        snprintf(why, why_cap, "damping (%g, %g) must be in [0, 1]", (double)rb->linear_damping,
                 (double)rb->angular_damping);
        return false;
    }
    if (!rill__phys_finite(rb->linear_velocity, 3) || !rill__phys_finite(rb->angular_velocity, 3)) {
        snprintf(why, why_cap, "velocity is not finite");
        return false;
    }
    return true;
}

/* >>geoms */

dGeomID rill__phys_make_geom(rill_physics *phys, const rill_collider *col, const float scale[3],
                             char *why, size_t why_cap) {
    static const float one[3] = {1.0f, 1.0f, 1.0f};
    const float *s = scale ? scale : one;
    float smax = RILL_MAX(s[0], RILL_MAX(s[1], s[2]));
    switch (col->shape) {
    case RILL_COLLIDER_BOX:
        return dCreateBox(0, 2.0 * col->half_extents[0] * s[0], 2.0 * col->half_extents[1] * s[1],
                          2.0 * col->half_extents[2] * s[2]);
    case RILL_COLLIDER_SPHERE:
        return dCreateSphere(0, col->radius * smax);
    case RILL_COLLIDER_CAPSULE:
        return dCreateCapsule(0, col->radius * RILL_MAX(s[0], s[2]), 2.0 * col->half_height * s[1]);
    case RILL_COLLIDER_MESH: {
        phys_shape *sh = rill__phys_shape_get(phys, col->shape_data);
        return sh ? dCreateTriMesh(0, sh->tri, NULL, NULL, NULL) : NULL;
    }
    case RILL_COLLIDER_HEIGHTFIELD: {
        phys_shape *sh = rill__phys_shape_get(phys, col->shape_data);
        return sh ? dCreateHeightfield(0, sh->hf, 1) : NULL;
    }
    default:
        snprintf(why, why_cap, "unknown collider shape %d", (int)col->shape);
        return NULL;
    }
}

/* q = a * b for (x, y, z, w) quaternions. */
static void quat_mul(const float a[4], const float b[4], float q[4]) {
    q[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    q[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    q[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    q[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

static void quat_rotate(const float q[4], const float v[3], float out[3]) {
    /* v' = v + 2w (q x v) + 2 q x (q x v) */
    float t[3] = {2.0f * (q[1] * v[2] - q[2] * v[1]), 2.0f * (q[2] * v[0] - q[0] * v[2]),
                  2.0f * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

/* ODE's capsule runs along its local Z; Rill's along +Y: a quarter turn about X maps one on the
 * other. */
static const float capsule_turn[4] = {-0.70710678f, 0.0f, 0.0f, 0.70710678f};

void rill__phys_place_static(rill_physics *phys, dGeomID geom, const rill_collider *col,
                             const float pos[3], const float rot[4]) {
    float q[4];
    memcpy(q, rot, sizeof q);
    float p[3] = {pos[0], pos[1], pos[2]};
    if (col->shape == RILL_COLLIDER_CAPSULE) {
        quat_mul(rot, capsule_turn, q);
    } else if (col->shape == RILL_COLLIDER_HEIGHTFIELD) {
        /* ODE centres a heightfield on its position; Rill puts the first sample there. */
        const phys_shape *sh = rill__phys_shape_get(phys, col->shape_data);
        if (sh) {
            float half[3] = {0.5f * sh->spacing_x * (float)(sh->samples_x - 1), 0.0f,
                             0.5f * sh->spacing_z * (float)(sh->samples_z - 1)};
            float off[3];
            quat_rotate(rot, half, off);
            for (int i = 0; i < 3; i++) {
                p[i] += off[i];
            }
        }
    }
    dQuaternion oq;
    rill__phys_to_ode_quat(q, oq);
    dGeomSetPosition(geom, p[0], p[1], p[2]);
    dGeomSetQuaternion(geom, oq);
}

void rill__phys_attach(dGeomID geom, dBodyID body, const rill_collider *col) {
    dGeomSetBody(geom, body);
    if (col->shape == RILL_COLLIDER_CAPSULE) {
        dQuaternion oq;
        rill__phys_to_ode_quat(capsule_turn, oq);
        dGeomSetOffsetQuaternion(geom, oq);
    }
}

/* >>shapes */

static rill_result check_mesh(const rill_physics_shape_desc *d, const char *label,
                              rill_error *err) {
    if (!d->positions || !d->indices || d->vertex_count < 3 || d->index_count < 3 ||
        d->index_count % 3 != 0) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "%s: a mesh needs positions and a whole number of triangles "
                              "(vertex_count %u, index_count %u)",
                              label, d->vertex_count, d->index_count);
    }
    if (d->vertex_count > (1u << 24) || d->index_count > (3u << 24)) {
        return rill_error_set(err, RILL_ERR_LIMIT, "%s: mesh too large (%u vertices, %u indices)",
                              label, d->vertex_count, d->index_count);
    }
    for (uint32_t i = 0; i < d->vertex_count * 3u; i++) {
        if (!isfinite(d->positions[i])) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "%s: vertex %u has a non-finite coordinate", label, i / 3u);
        }
    }
    bool any_area = false;
    for (uint32_t t = 0; t < d->index_count; t += 3) {
        const uint32_t *ix = &d->indices[t];
        if (ix[0] >= d->vertex_count || ix[1] >= d->vertex_count || ix[2] >= d->vertex_count) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "%s: triangle %u names a vertex past %u", label, t / 3u,
                                  d->vertex_count);
        }
        const float *a = &d->positions[ix[0] * 3], *b = &d->positions[ix[1] * 3],
                    *c = &d->positions[ix[2] * 3];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        if (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 1e-20f) {
            any_area = true;
        }
    }
    if (!any_area) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: every triangle has zero area",
                              label);
    }
    return RILL_OK;
}

static rill_result check_heightfield(const rill_physics_shape_desc *d, const char *label,
                                     rill_error *err) {
    if (!d->heights || d->samples_x < 2 || d->samples_z < 2 || d->samples_x > HF_MAX_SAMPLES ||
        d->samples_z > HF_MAX_SAMPLES) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "%s: a heightfield needs heights and 2..%u samples a side (got %u x "
                              "%u)",
                              label, HF_MAX_SAMPLES, d->samples_x, d->samples_z);
    }
    if (!isfinite(d->spacing_x) || !isfinite(d->spacing_z) || d->spacing_x <= 0.0f ||
        d->spacing_z <= 0.0f) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "%s: heightfield spacing (%g, %g) must be finite and > 0", label,
                              (double)d->spacing_x, (double)d->spacing_z);
    }
    uint32_t n = d->samples_x * d->samples_z;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(d->heights[i])) {
            return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                                  "%s: height at sample (%u, %u) is not finite", label,
                                  i % d->samples_x, i / d->samples_x);
        }
    }
    return RILL_OK;
}

void rill__physics_shape_release(phys_shape *s) {
    if (s->tri) {
        dGeomTriMeshDataDestroy(s->tri);
    }
    if (s->hf) {
        dGeomHeightfieldDataDestroy(s->hf);
    }
    rill_free(s->positions);
    rill_free(s->indices);
    rill_free(s->heights);
    memset(s, 0, sizeof *s);
}

static rill_result build_shape(phys_shape *s, const rill_physics_shape_desc *d) {
    s->type = d->type;
    if (d->type == RILL_PHYSICS_SHAPE_MESH) {
        size_t pb = (size_t)d->vertex_count * 3u * sizeof(float);
        size_t ib = (size_t)d->index_count * sizeof(uint32_t);
        s->positions = rill_malloc_tagged(pb, RILL_MEM_PHYSICS);
        s->indices = rill_malloc_tagged(ib, RILL_MEM_PHYSICS);
        if (!s->positions || !s->indices) {
            return RILL_ERR_OUT_OF_MEMORY;
        }
        memcpy(s->positions, d->positions, pb);
        memcpy(s->indices, d->indices, ib);
        s->vertex_count = d->vertex_count;
        s->index_count = d->index_count;
        s->bytes = pb + ib;
        _Static_assert(sizeof(dTriIndex) == sizeof(uint32_t), "ODE built with 32-bit indices");
        s->tri = dGeomTriMeshDataCreate();
        dGeomTriMeshDataBuildSingle(s->tri, s->positions, 3 * sizeof(float), (int)d->vertex_count,
                                    s->indices, (int)d->index_count, 3 * sizeof(uint32_t));
        return RILL_OK;
    }
    size_t n = (size_t)d->samples_x * d->samples_z;
    s->heights = rill_malloc_tagged(n * sizeof(float), RILL_MEM_PHYSICS);
    if (!s->heights) {
        return RILL_ERR_OUT_OF_MEMORY;
    }
    memcpy(s->heights, d->heights, n * sizeof(float));
    s->samples_x = d->samples_x;
    s->samples_z = d->samples_z;
    s->spacing_x = d->spacing_x;
    s->spacing_z = d->spacing_z;
    s->bytes = n * sizeof(float);
    s->hf = dGeomHeightfieldDataCreate();
    /* ODE reads the samples in place (no copy): they live in the shape. */
    dGeomHeightfieldDataBuildSingle(s->hf, s->heights, 0, d->spacing_x * (float)(d->samples_x - 1),
                                    d->spacing_z * (float)(d->samples_z - 1), (int)d->samples_x,
                                    (int)d->samples_z, 1.0, 0.0, HF_THICKNESS, 0);
    return RILL_OK;
}

rill_result rill_physics_shape_create(rill_physics *phys, const rill_physics_shape_desc *desc,
                                      rill_physics_shape *out_shape, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_physics_shape_create", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (out_shape) {
        out_shape->id = 0;
    }
    if (!phys || !desc || !out_shape) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_physics_shape_create: %s",
                              !phys   ? "no physics"
                              : !desc ? "no desc"
                                      : "no out_shape");
    }
    const char *label = desc->label ? desc->label : "shape";
    rill_result r;
    if (desc->type == RILL_PHYSICS_SHAPE_MESH) {
        r = check_mesh(desc, label, err);
    } else if (desc->type == RILL_PHYSICS_SHAPE_HEIGHTFIELD) {
        r = check_heightfield(desc, label, err);
    } else {
        r = rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "%s: unknown shape type %d", label,
                           (int)desc->type);
    }
    if (r != RILL_OK) {
        return r;
    }
    uint32_t id = rill_pool_alloc(&phys->shape_pool);
    if (!id) {
        return rill_error_set(err, RILL_ERR_POOL_EXHAUSTED, "%s: all %u shape handles are in use",
                              label, phys->desc.max_colliders);
    }
    phys_shape *s = rill__phys_shape_get(phys, id);
    memset(s, 0, sizeof *s);
    r = build_shape(s, desc);
    if (r != RILL_OK) {
        rill__physics_shape_release(s);
        rill_pool_free(&phys->shape_pool, id);
        return rill_error_set(err, r, "%s: out of memory", label);
    }
    out_shape->id = id;
    return RILL_OK;
}

void rill_physics_shape_destroy(rill_physics *phys, rill_physics_shape shape) {
    if (!phys) {
        return;
    }
    phys_shape *s = rill__phys_shape_get(phys, shape.id);
    if (!s) {
        return;
    }
    /* Geoms read the shape's arrays in place: none may outlive them. */
    for (uint32_t slot = 0; s->users > 0 && slot < phys->desc.max_colliders; slot++) {
        phys_collider *c = &phys->colliders[slot];
        if (c->geom && c->shape_id == shape.id) {
            /* The collider's id is kept in its geom's data (set at creation). */
            uint32_t id = (uint32_t)(uintptr_t)dGeomGetData(c->geom);
            if (c->from_component) {
                rill_map_remove(&phys->by_entity, c->entity);
            }
            rill__phys_collider_free(phys, id);
        }
    }
    rill__physics_shape_release(s);
    rill_pool_free(&phys->shape_pool, shape.id);
}

size_t rill_physics_shape_bytes(const rill_physics *phys, rill_physics_shape shape) {
    const phys_shape *s = phys ? rill__phys_shape_get(phys, shape.id) : NULL;
    return s ? s->bytes : 0;
}

/* >>api colliders */

rill_result rill_physics_collider_add(rill_physics *phys, const rill_physics_collider_desc *desc,
                                      rill_physics_collider *out_collider, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_physics_collider_add", err) != RILL_OK) {
        return RILL_ERR_INVALID_ARGUMENT;
    }
    if (out_collider) {
        out_collider->id = 0;
    }
    if (!phys || !desc || !out_collider) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_physics_collider_add: %s",
                              !phys   ? "no physics"
                              : !desc ? "no desc"
                                      : "no out_collider");
    }
    char why[256];
    float rot[4];
    memcpy(rot, desc->rotation, sizeof rot);
    if (rot[0] == 0.0f && rot[1] == 0.0f && rot[2] == 0.0f && rot[3] == 0.0f) {
        rot[3] = 1.0f;
    }
    if (!rill__phys_finite(desc->position, 3) || !rill__phys_finite(rot, 4)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_physics_collider_add: position or rotation is not finite");
    }
    float len = sqrtf(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] + rot[3] * rot[3]);
    for (int i = 0; i < 4; i++) {
        rot[i] /= len;
    }
    if (!rill__phys_check_collider(phys, &desc->collider, NULL, false, why, sizeof why)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_physics_collider_add: %s", why);
    }
    uint32_t id = rill__phys_collider_alloc(phys);
    if (!id) {
        return rill_error_set(err, RILL_ERR_POOL_EXHAUSTED,
                              "rill_physics_collider_add: all %u collider handles are in use",
                              phys->desc.max_colliders);
    }
    dGeomID g = rill__phys_make_geom(phys, &desc->collider, NULL, why, sizeof why);
    if (!g) {
        rill__phys_collider_free(phys, id);
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_physics_collider_add: %s", why);
    }
    phys_collider *c = rill__phys_collider_get(phys, id);
    c->geom = g;
    c->entity = desc->entity;
    c->part = desc->part;
    c->col = desc->collider;
    c->layers = desc->collider.layers;
    c->friction = desc->collider.friction;
    c->restitution = desc->collider.restitution;
    if (desc->collider.shape == RILL_COLLIDER_MESH ||
        desc->collider.shape == RILL_COLLIDER_HEIGHTFIELD) {
        c->shape_id = desc->collider.shape_data;
        rill__phys_shape_get(phys, c->shape_id)->users++;
    }
    dGeomSetData(g, (void *)(uintptr_t)id);
    rill__phys_place_static(phys, g, &desc->collider, desc->position, rot);
    dSpaceAdd(phys->static_space, g);
    phys->static_count++;
    out_collider->id = id;
    return RILL_OK;
}

void rill_physics_collider_remove(rill_physics *phys, rill_physics_collider collider) {
    if (!phys) {
        return;
    }
    phys_collider *c = rill__phys_collider_get(phys, collider.id);
    if (!c || c->from_component) {
        return;
    }
    rill__phys_collider_free(phys, collider.id);
}
