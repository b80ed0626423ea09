/* extract_skins.c: the skinned instances of a snapshot. After extract's walks, every drawn
 * instance whose entity carries a MeshSkin (rill/scene/model.h) gets a rill_render_skin and its
 * joint matrices: each joint entity's GlobalTransform times its inverse bind matrix, brought into
 * the instance's local space (the inverse of the instance's own world matrix), since the renderer
 * applies the instance's transform after skinning. A world without MeshSkin costs one lookup. */
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

bool rill__extract_skins(rill_world *world, rill_render_extract_buf *buf) {
    buf->skins.len = 0;
    buf->joint_matrices.len = 0;
    rill_component sk = rill_world_find_component(world, "MeshSkin");
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = sk.id ? rill_world_component_dense(world, sk, &ents, &data) : 0;
    if (!n) {
        return true;
    }
    rill_map_clear(&buf->skinned);
    if (!rill_map_reserve(&buf->skinned, n)) {
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        rill_map_set(&buf->skinned, ents[i], i);
    }
    const rill_mesh_skin *skins = data;
    for (uint32_t i = 0; i < buf->instances.len; i++) {
        const rill_render_instance *in = &buf->instances.data[i];
        uint64_t at;
        if (!rill_map_get(&buf->skinned, in->id, &at) || !skins[at].joint_count) {
            continue;
        }
        const rill_mesh_skin *s = &skins[at];
        rill_render_skin rs = {i, buf->joint_matrices.len / 16u, s->joint_count};
        float *m = rill_array_push_n(&buf->joint_matrices, (size_t)s->joint_count * 16u);
        if (!m || !rill_array_push(&buf->skins, rs)) {
            return false;
        }
        joint_matrices(world, s, in, m);
    }
    return true;
}
