/* extract_skins.c: the deformed instances of a snapshot. After extract's walks, every drawn
 * instance whose entity carries a MeshSkin or a MeshMorph (rill/scene/model.h) gets a
 * rill_render_skin with its morph weights (copied) and joint matrices: each joint entity's
 * GlobalTransform times its inverse bind matrix, brought into the instance's local space (the
 * inverse of the instance's own world matrix), since the renderer applies the instance's transform
 * after skinning. A world without either costs two lookups. */
#include "render_internal.h"

#include "rill/scene/model.h"

#include <string.h>

#include <cglm/cglm.h>

/* Writes the joint matrices of skin `s` drawn by instance `in` at out (s->joint_count * 16). A
 * joint entity without a GlobalTransform (despawned) stands still at the instance. */
static void joint_matrices(rill_world *world, const rill_mesh_skin *s,
                           const rill_render_instance *in, float *out) {
    rill_component gt = rill_world_builtin(world)->global_transform;
    mat4 mesh, inv;
    memcpy(mesh, in->transform, sizeof(mesh));
    glm_mat4_inv(mesh, inv);
    for (uint32_t j = 0; j < s->joint_count; j++) {
        const rill_global_transform *g = rill_world_get(world, s->joints[j], gt);
        mat4 jw, ib, rel, m;
        memcpy(jw, g ? g->m : in->transform, sizeof(jw));
        memcpy(ib, &s->inverse_bind[(size_t)j * 16], sizeof(ib));
        glm_mat4_mul(inv, jw, rel);
        glm_mat4_mul(rel, ib, m);
        memcpy(&out[(size_t)j * 16], m, sizeof(m));
    }
}

/* Fills map with every entity of component c (entity -> dense index); its dense array in *out
 * (NULL when none). False when out of memory. */
static bool index_component(rill_world *world, const char *name, rill_map *map, void **out) {
    rill_component c = rill_world_find_component(world, name);
    const rill_entity *ents = NULL;
    *out = NULL;
    uint32_t n = c.id ? rill_world_component_dense(world, c, &ents, out) : 0;
    rill_map_clear(map);
    if (!n) {
        *out = NULL;
        return true;
    }
    if (!rill_map_reserve(map, n)) {
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        rill_map_set(map, ents[i], i);
    }
    return true;
}

bool rill__extract_skins(rill_world *world, rill_render_extract_buf *buf) {
    buf->skins.len = 0;
    buf->joint_matrices.len = 0;
    buf->morph_weights.len = 0;
    void *skin_data, *morph_data;
    if (!index_component(world, "MeshSkin", &buf->skinned, &skin_data) ||
        !index_component(world, "MeshMorph", &buf->morphed, &morph_data)) {
        return false;
    }
    if (!skin_data && !morph_data) {
        return true;
    }
    const rill_mesh_skin *skins = skin_data;
    const rill_mesh_morph *morphs = morph_data;
    for (uint32_t i = 0; i < buf->instances.len; i++) {
        const rill_render_instance *in = &buf->instances.data[i];
        uint64_t at_s, at_m;
        bool sk = skins && rill_map_get(&buf->skinned, in->id, &at_s) && skins[at_s].joint_count;
        bool mo = morphs && rill_map_get(&buf->morphed, in->id, &at_m) && morphs[at_m].count &&
                  morphs[at_m].weights;
        if (!sk && !mo) {
            continue;
        }
        rill_render_skin rs = {i, buf->joint_matrices.len / 16u, sk ? skins[at_s].joint_count : 0,
                               buf->morph_weights.len, mo ? morphs[at_m].count : 0};
        if (!rill_array_push(&buf->skins, rs)) {
            return false;
        }
        if (sk) {
            float *m = rill_array_push_n(&buf->joint_matrices, (size_t)rs.joint_count * 16u);
            if (!m) {
                return false;
            }
            joint_matrices(world, &skins[at_s], in, m);
        }
        if (mo) {
            float *w = rill_array_push_n(&buf->morph_weights, rs.weight_count);
            if (!w) {
                return false;
            }
            memcpy(w, morphs[at_m].weights, rs.weight_count * sizeof(float));
        }
    }
    return true;
}
