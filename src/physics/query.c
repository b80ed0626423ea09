/* query.c: raycasts and overlap tests. Each runs one reusable ODE geom against both spaces and
 * reports the entities of what it touches. */
#include "physics_internal.h"

#include <math.h>
#include <string.h>

typedef struct ray_ctx {
    rill_physics *phys;
    uint32_t mask;
    bool hit;
    float best;
    rill_physics_hit out;
    float dir[3];
} ray_ctx;

static const phys_collider *collider_of(const rill_physics *phys, dGeomID g, uint32_t mask) {
    const phys_collider *c = rill__phys_collider_get(phys, (uint32_t)(uintptr_t)dGeomGetData(g));
    if (!c) {
        return NULL;
    }
    if (mask != 0 && (c->layers & mask) == 0) {
        return NULL;
    }
    return c;
}

static void ray_callback(void *user, dGeomID ray, dGeomID g) {
    ray_ctx *ctx = user;
    const phys_collider *c = collider_of(ctx->phys, g, ctx->mask);
    if (!c) {
        return;
    }
    dContactGeom contacts[8];
    int n = dCollide(ray, g, (int)RILL_COUNTOF(contacts), contacts, sizeof(dContactGeom));
    for (int i = 0; i < n; i++) {
        float d = (float)contacts[i].depth;
        if (ctx->hit && d >= ctx->best) {
            continue;
        }
        ctx->hit = true;
        ctx->best = d;
        ctx->out.entity = c->entity;
        ctx->out.part = c->part;
        float nrm[3];
        for (int k = 0; k < 3; k++) {
            ctx->out.position[k] = (float)contacts[i].pos[k];
            nrm[k] = (float)contacts[i].normal[k];
        }
        /* ODE's ray normals point along or against the ray depending on the shape: make them
         * face the ray, as a surface normal seen from the origin. */
        float dot = nrm[0] * ctx->dir[0] + nrm[1] * ctx->dir[1] + nrm[2] * ctx->dir[2];
        float sign = dot > 0.0f ? -1.0f : 1.0f;
        for (int k = 0; k < 3; k++) {
            ctx->out.normal[k] = nrm[k] * sign;
        }
        ctx->out.distance = d;
    }
}

bool rill_physics_raycast(rill_physics *phys, const float origin[3], const float dir[3],
                          float max_distance, uint32_t mask, rill_physics_hit *out_hit) {
    if (out_hit) {
        memset(out_hit, 0, sizeof *out_hit);
    }
    if (!phys || !origin || !dir || !rill__phys_finite(origin, 3) || !rill__phys_finite(dir, 3) ||
        !isfinite(max_distance) || max_distance <= 0.0f) {
        return false;
    }
    float len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    if (!(len > 0.0f)) {
        return false;
    }
    ray_ctx ctx = {.phys = phys, .mask = mask};
    for (int k = 0; k < 3; k++) {
        ctx.dir[k] = dir[k] / len;
    }
    dGeomRaySetLength(phys->ray, max_distance);
    dGeomRaySet(phys->ray, origin[0], origin[1], origin[2], ctx.dir[0], ctx.dir[1], ctx.dir[2]);
    /* Only the nearest contact per geom matters (a mesh would otherwise report every crossing). */
    dGeomRaySetClosestHit(phys->ray, 1);
    dSpaceCollide2(phys->ray, (dGeomID)phys->static_space, &ctx, ray_callback);
    dSpaceCollide2(phys->ray, (dGeomID)phys->dynamic_space, &ctx, ray_callback);
    if (ctx.hit && out_hit) {
        *out_hit = ctx.out;
    }
    return ctx.hit;
}

typedef struct overlap_ctx {
    rill_physics *phys;
    uint32_t mask;
    rill_entity *out;
    uint32_t cap;
    uint32_t count;
} overlap_ctx;

static void overlap_callback(void *user, dGeomID probe, dGeomID g) {
    overlap_ctx *ctx = user;
    const phys_collider *c = collider_of(ctx->phys, g, ctx->mask);
    if (!c) {
        return;
    }
    uint64_t seen;
    if (rill_map_get(&ctx->phys->seen, c->entity, &seen)) {
        return;
    }
    dContactGeom contact;
    if (dCollide(probe, g, 1, &contact, sizeof contact) <= 0) {
        return;
    }
    rill_map_set(&ctx->phys->seen, c->entity, 1);
    if (ctx->count < ctx->cap) {
        ctx->out[ctx->count] = c->entity;
    }
    ctx->count++;
}

static uint32_t overlap(rill_physics *phys, dGeomID probe, uint32_t mask, rill_entity *out,
                        uint32_t cap) {
    overlap_ctx ctx = {.phys = phys, .mask = mask, .out = out, .cap = out ? cap : 0};
    rill_map_clear(&phys->seen);
    dSpaceCollide2(probe, (dGeomID)phys->static_space, &ctx, overlap_callback);
    dSpaceCollide2(probe, (dGeomID)phys->dynamic_space, &ctx, overlap_callback);
    return ctx.count;
}

uint32_t rill_physics_overlap_sphere(rill_physics *phys, const float center[3], float radius,
                                     uint32_t mask, rill_entity *out, uint32_t cap) {
    if (!phys || !center || !rill__phys_finite(center, 3) || !isfinite(radius) || radius <= 0.0f) {
        return 0;
    }
    dGeomSphereSetRadius(phys->query_sphere, radius);
    dGeomSetPosition(phys->query_sphere, center[0], center[1], center[2]);
    return overlap(phys, phys->query_sphere, mask, out, cap);
}

uint32_t rill_physics_overlap_box(rill_physics *phys, const float center[3],
                                  const float half_extents[3], const float rotation[4],
                                  uint32_t mask, rill_entity *out, uint32_t cap) {
    static const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    const float *rot = rotation ? rotation : identity;
    if (!phys || !center || !half_extents || !rill__phys_finite(center, 3) ||
        !rill__phys_finite(half_extents, 3) || !rill__phys_finite(rot, 4) ||
        half_extents[0] <= 0.0f || half_extents[1] <= 0.0f || half_extents[2] <= 0.0f) {
        return 0;
    }
    float len = sqrtf(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] + rot[3] * rot[3]);
    if (!(len > 0.0f)) {
        return 0;
    }
    float r[4] = {rot[0] / len, rot[1] / len, rot[2] / len, rot[3] / len};
    dQuaternion q;
    rill__phys_to_ode_quat(r, q);
    dGeomBoxSetLengths(phys->query_box, 2.0 * half_extents[0], 2.0 * half_extents[1],
                       2.0 * half_extents[2]);
    dGeomSetPosition(phys->query_box, center[0], center[1], center[2]);
    dGeomSetQuaternion(phys->query_box, q);
    return overlap(phys, phys->query_box, mask, out, cap);
}
