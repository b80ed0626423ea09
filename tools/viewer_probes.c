/* viewer_probes.c: the viewer's reflection-probe selection (viewer_probes.h): a ray against every
 * probe's box (the unit cube through the probe's GlobalTransform, a slab test in the box's own
 * space) and the selected probe's box as a wireframe cube instance. */
#include "viewer_probes.h"

#include "rill/render/reflections.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

/* Where the ray enters the unit cube of box space (world_from_box, column-major), as a distance
 * along the world ray; false when it misses it, starts inside it or the matrix is singular. */
static bool ray_enters_box(const float m[16], const float origin[3], const float dir[3],
                           float *out_t) {
    mat4 world_from_box, box_from_world;
    memcpy(world_from_box, m, sizeof(world_from_box));
    if (!(fabsf(glm_mat4_det(world_from_box)) > 1e-12f)) {
        return false;
    }
    glm_mat4_inv(world_from_box, box_from_world);
    vec4 o = {origin[0], origin[1], origin[2], 1.0f}, d = {dir[0], dir[1], dir[2], 0.0f};
    vec4 lo, ld;
    glm_mat4_mulv(box_from_world, o, lo);
    glm_mat4_mulv(box_from_world, d, ld);
    float enter = -FLT_MAX, leave = FLT_MAX;
    for (int k = 0; k < 3; k++) {
        if (fabsf(ld[k]) < 1e-12f) {
            if (lo[k] < -0.5f || lo[k] > 0.5f) {
                return false;
            }
            continue;
        }
        float a = (-0.5f - lo[k]) / ld[k], b = (0.5f - lo[k]) / ld[k];
        enter = fmaxf(enter, fminf(a, b));
        leave = fminf(leave, fmaxf(a, b));
    }
    /* The box-space parameter is the world one: the direction was mapped, not renormalized. */
    if (!(enter <= leave) || enter <= 0.0f || !isfinite(enter)) {
        return false;
    }
    *out_t = enter;
    return true;
}

rill_entity viewer_probe_pick(rill_world *w, const float origin[3], const float dir[3],
                              float max_distance, float *out_distance) {
    rill_component lp = rill_world_find_component(w, "LightProbe");
    if (!lp.id) {
        return 0;
    }
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = lp;
    qd.with[1] = rill_world_builtin(w)->global_transform;
    rill_query q = rill_world_query(w, &qd);
    rill_entity best = 0;
    float best_t = max_distance;
    while (rill_query_next(&q)) {
        const rill_global_transform *xf = rill_query_get(&q, 1);
        float t;
        if (ray_enters_box(xf->m, origin, dir, &t) && t < best_t) {
            best_t = t;
            best = q.entity;
        }
    }
    if (best && out_distance) {
        *out_distance = best_t;
    }
    return best;
}

rill_mesh viewer_probe_box_mesh(rill_renderer *r, rill_error *err) {
    rill_vertex v[8];
    memset(v, 0, sizeof(v));
    for (int i = 0; i < 8; i++) {
        v[i].position[0] = (i & 1) ? 0.5f : -0.5f;
        v[i].position[1] = (i & 2) ? 0.5f : -0.5f;
        v[i].position[2] = (i & 4) ? 0.5f : -0.5f;
        v[i].normal[1] = 1.0f;
    }
    /* Two triangles a face (never drawn filled: the mode is wireframe), the 12 edges. */
    static const uint32_t tris[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                      2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    static const uint32_t edges[24] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3,
                                       4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7};
    rill_mesh_desc d = {.vertices = v,
                        .vertex_count = 8,
                        .indices = tris,
                        .index_count = 36,
                        .label = "probe box",
                        .edge_indices = edges,
                        .edge_index_count = 24};
    return rill_render_mesh_create(r, &d, err);
}

bool viewer_is_probe(rill_world *w, rill_entity e) {
    rill_component lp = rill_world_find_component(w, "LightProbe");
    return e && lp.id && rill_world_is_alive(w, e) && rill_world_get(w, e, lp) &&
           rill_world_get(w, e, rill_world_builtin(w)->global_transform);
}

bool viewer_probe_box(rill_world *w, rill_entity e, rill_mesh cube, rill_render_instance *out) {
    if (!viewer_is_probe(w, e) || !cube.id) {
        return false;
    }
    const rill_global_transform *xf = rill_world_get(w, e, rill_world_builtin(w)->global_transform);
    memset(out, 0, sizeof(*out));
    out->id = UINT64_MAX - 1u; /* no world entity draws under this id */
    out->mesh = cube;
    memcpy(out->transform, xf->m, sizeof(out->transform));
    out->mode = RILL_RENDER_MODE_WIREFRAME;
    return true;
}
