/* model_spawn.c: a glTF model's default scene turned into world entities (see
 * rill_scene_model_spawn in rill/scene/model.h). Nodes become entities with Name, Transform and
 * Parent; each primitive of a node's mesh becomes a child entity with a ModelMesh that names the
 * model asset, the mesh and the primitive (the renderer resolves it to GPU objects at extract);
 * KHR_lights_punctual lights and glTF cameras become light components and the world's Camera on
 * the node entity. A detail level's tree (rill__spawn_as.geometry_only) has neither, nor the
 * nodes whose subtree holds no primitive. All entities of one call are spawned with one
 * rill_world_spawn_n, so a large model costs one temporary array, not one allocation per
 * entity. */
#include "model_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cglm/cglm.h>

/* Deeper hierarchies than this are cut (the reader guarantees a tree; this bounds the walk). */
#define SPAWN_MAX_DEPTH 256

typedef struct spawn_ctx {
    rill_world *world;
    const rill_model_components *comps;
    uint32_t asset;
    const rill_gltf_model *m;
    uint8_t *visited;
    const rill_entity *ents;
    uint32_t next; /* next unused entity of ents */
    uint32_t cap;
    uint32_t mesh_instances;
    rill_entity *node_ents;    /* node -> its entity (RILL_ENTITY_NULL: not spawned) */
    uint32_t *node_at;         /* node -> its position in ents */
    const rill__spawn_as *as;  /* how each ModelMesh entity starts (NULL: as added) */
    rill__entity_list *meshes; /* where they are listed (NULL: nowhere) */
    bool list_short;           /* out of memory while listing */
} spawn_ctx;

/* Splits a node's local matrix into the world's translation / rotation / scale. A matrix with
 * shear cannot be represented exactly; the decomposition keeps its scale and rotation parts. */
static void node_transform(const rill_gltf_node *n, rill_transform *t) {
    if (!n->has_matrix) {
        memcpy(t->translation, n->translation, sizeof(t->translation));
        memcpy(t->rotation, n->rotation, sizeof(t->rotation));
        memcpy(t->scale, n->scale, sizeof(t->scale));
        return;
    }
    mat4 m, rot;
    vec4 tr;
    vec3 s;
    versor q;
    memcpy(m, n->matrix, sizeof(mat4));
    glm_decompose(m, tr, rot, s);
    glm_mat4_quat(rot, q);
    for (int k = 0; k < 3; k++) {
        t->translation[k] = tr[k];
        t->scale[k] = s[k];
    }
    for (int k = 0; k < 4; k++) {
        t->rotation[k] = q[k];
    }
}

/* Marks of the visited array: a node counted and due to spawn, one left out, one spawned. */
enum { NODE_DUE = 1, NODE_LEFT_OUT, NODE_SPAWNED };

/* Counts the entities a node's subtree needs (node + one per primitive), marking visited nodes
 * so a malformed graph can never be walked twice. geometry_only (a detail level) leaves out a
 * subtree that holds no primitive: its nodes carry only lights, cameras or nothing, which the
 * base tree has already. */
static uint32_t count_subtree(const rill_gltf_model *m, int32_t node, uint8_t *visited,
                              uint32_t depth, bool geometry_only) {
    if (depth > SPAWN_MAX_DEPTH || visited[node]) {
        return 0;
    }
    visited[node] = NODE_DUE;
    const rill_gltf_node *n = &m->nodes[node];
    uint32_t c = 1;
    if (n->mesh >= 0) {
        c += m->meshes[n->mesh].primitive_count;
    }
    for (uint32_t i = 0; i < n->child_count; i++) {
        c += count_subtree(m, n->children[i], visited, depth + 1, geometry_only);
    }
    if (geometry_only && c == 1) {
        visited[node] = NODE_LEFT_OUT;
        return 0;
    }
    return c;
}

static void add_light(spawn_ctx *c, rill_entity e, const rill_gltf_light *L) {
    if (L->type == RILL_GLTF_LIGHT_DIRECTIONAL) {
        rill_directional_light d = {
            {L->color[0], L->color[1], L->color[2], 1.0f}, L->intensity, true};
        rill_world_add(c->world, e, c->comps->directional_light, &d);
        return;
    }
    /* glTF's infinite range (0) becomes the distance where intensity / d^2 falls to 1/256. */
    float range =
        L->range > 0.0f ? L->range : fmaxf(1.0f, sqrtf(fmaxf(L->intensity, 0.0f) * 256.0f));
    if (L->type == RILL_GLTF_LIGHT_POINT) {
        rill_point_light p = {{L->color[0], L->color[1], L->color[2], 1.0f}, L->intensity, range};
        rill_world_add(c->world, e, c->comps->point_light, &p);
    } else {
        rill_spot_light s = {{L->color[0], L->color[1], L->color[2], 1.0f},
                             L->intensity,
                             range,
                             L->inner_cone_angle,
                             L->outer_cone_angle};
        rill_world_add(c->world, e, c->comps->spot_light, &s);
    }
}

static void add_camera(spawn_ctx *c, rill_entity e, const rill_gltf_camera *gc) {
    rill_camera cam;
    rill_type_apply_defaults(rill_world_component_type(c->world, RILL_COMPONENT_CAMERA), &cam);
    cam.active = true;
    if (gc->type == RILL_GLTF_CAMERA_ORTHOGRAPHIC) {
        cam.projection = RILL_PROJECTION_ORTHOGRAPHIC;
        cam.ortho_height = 2.0f * gc->ymag; /* ymag is half the height */
    } else {
        cam.projection = RILL_PROJECTION_PERSPECTIVE;
        cam.fov_y = gc->yfov;
    }
    cam.near_plane = gc->znear;
    if (gc->zfar > 0.0f) {
        cam.far_plane = gc->zfar; /* an infinite far plane keeps the Camera default */
    }
    rill_world_add(c->world, e, RILL_COMPONENT_CAMERA, &cam);
}

/* A MeshMorph of `count` weights on primitive entity pe: the node's, else the mesh's, else 0. */
static void add_morph(spawn_ctx *c, rill_entity pe, const rill_gltf_node *n,
                      const rill_gltf_mesh *mesh, uint32_t count) {
    rill_mesh_morph mm = {count, rill_calloc_tagged(count, sizeof(float), RILL_MEM_SCENE)};
    if (!mm.weights) {
        return; /* out of memory: drawn undisplaced */
    }
    const float *w = n->weight_count == count      ? n->weights
                     : mesh->weight_count == count ? mesh->weights
                                                   : NULL;
    if (w) {
        memcpy(mm.weights, w, count * sizeof(float));
    }
    if (!rill_world_add(c->world, pe, c->comps->mesh_morph, &mm)) {
        rill_free(mm.weights);
    }
}

static void spawn_node(spawn_ctx *c, int32_t node, rill_entity parent, uint32_t depth) {
    if (depth > SPAWN_MAX_DEPTH || c->visited[node] != NODE_DUE || c->next >= c->cap) {
        return;
    }
    c->visited[node] = NODE_SPAWNED;
    const rill_gltf_node *n = &c->m->nodes[node];
    c->node_at[node] = c->next;
    rill_entity e = c->ents[c->next++];
    c->node_ents[node] = e;
    char fallback[32];
    if (!n->name || !n->name[0]) {
        snprintf(fallback, sizeof(fallback), "node%d", (int)node);
    }
    rill_world_set_name(c->world, e, n->name && n->name[0] ? n->name : fallback);
    rill_transform t;
    node_transform(n, &t);
    rill_world_set_transform(c->world, e, &t);
    rill_world_set_parent(c->world, e, parent);
    if (n->mesh >= 0) {
        const rill_gltf_mesh *mesh = &c->m->meshes[n->mesh];
        rill_transform ident = rill_transform_identity();
        for (uint32_t p = 0; p < mesh->primitive_count && c->next < c->cap; p++) {
            rill_model_mesh mm = {c->asset, (uint32_t)n->mesh, p};
            rill_entity pe = c->ents[c->next++];
            rill_world_set_transform(c->world, pe, &ident);
            /* Parent first: an add observer of ModelMesh (scene channels) reads the ancestors. */
            rill_world_set_parent(c->world, pe, e);
            rill_world_add(c->world, pe, c->comps->model_mesh, &mm);
            if (mesh->primitives[p].target_count && c->comps->mesh_morph.id) {
                add_morph(c, pe, n, mesh, mesh->primitives[p].target_count);
            }
            if (c->as && c->as->write) {
                rill__scene_model_write_mesh(c->world, c->comps, pe, c->as->rmc, c->as->how);
            }
            if (c->meshes && !rill_array_push(c->meshes, pe)) {
                c->list_short = true;
            }
            c->mesh_instances++;
        }
    }
    bool geometry_only = c->as && c->as->geometry_only; /* the base's stand for every level */
    if (n->light >= 0 && !geometry_only) {
        add_light(c, e, &c->m->lights[n->light]);
    }
    if (n->camera >= 0 && !geometry_only) {
        add_camera(c, e, &c->m->cameras[n->camera]);
    }
    for (uint32_t i = 0; i < n->child_count; i++) {
        spawn_node(c, n->children[i], e, depth + 1);
    }
}

/* Gives the primitives of skinned node `node` (spawned, its primitives after it in ents) a
 * MeshSkin, when every joint of its skin was spawned (a detail level's tree leaves out subtrees
 * without meshes: its skinned primitives then draw in their rest pose). */
static void bind_skin(spawn_ctx *c, int32_t node) {
    const rill_gltf_node *n = &c->m->nodes[node];
    const rill_gltf_skin *sk = &c->m->skins[n->skin];
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!c->node_ents[sk->joints[j]]) {
            return;
        }
    }
    const rill_gltf_mesh *mesh = &c->m->meshes[n->mesh];
    size_t bytes = (size_t)sk->joint_count * (sizeof(rill_entity) + 16 * sizeof(float));
    for (uint32_t p = 0; p < mesh->primitive_count; p++) {
        uint32_t at = c->node_at[node] + 1u + p;
        if (!mesh->primitives[p].joints || at >= c->next) {
            continue;
        }
        rill_mesh_skin ms = {sk->joint_count, rill_malloc_tagged(bytes, RILL_MEM_SCENE), NULL};
        if (!ms.joints) {
            continue; /* out of memory: drawn rigid */
        }
        ms.inverse_bind = (float *)(ms.joints + sk->joint_count);
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            ms.joints[j] = c->node_ents[sk->joints[j]];
        }
        memcpy(ms.inverse_bind, sk->inverse_bind_matrices, (size_t)sk->joint_count * 64u);
        if (!rill_world_add(c->world, c->ents[at], c->comps->mesh_skin, &ms)) {
            rill_free(ms.joints);
        }
    }
}

rill_result rill_scene_model_spawn(rill_world *world, const rill_model_components *comps,
                                   rill_asset asset, const rill_gltf_model *model,
                                   rill_entity parent, rill_entity *out_root, rill_error *err) {
    return rill__scene_model_spawn_as(world, comps, asset, model, parent, NULL, NULL, out_root,
                                      err);
}

rill_result rill__scene_model_spawn_as(rill_world *world, const rill_model_components *comps,
                                       rill_asset asset, const rill_gltf_model *model,
                                       rill_entity parent, const rill__spawn_as *as,
                                       rill__entity_list *meshes, rill_entity *out_root,
                                       rill_error *err) {
    if (out_root) {
        *out_root = RILL_ENTITY_NULL;
    }
    if (!world || !comps || !model) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "scene: model spawn: NULL argument");
    }
    if (parent != RILL_ENTITY_NULL && !rill_world_is_alive(world, parent)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "scene: model spawn: the parent entity is not alive");
    }
    uint8_t *visited = rill_calloc_tagged(1, (size_t)model->node_count + 1, RILL_MEM_SCENE);
    rill_entity *node_ents =
        rill_calloc_tagged((size_t)model->node_count + 1, sizeof(rill_entity), RILL_MEM_SCENE);
    uint32_t *node_at =
        rill_calloc_tagged((size_t)model->node_count + 1, sizeof(uint32_t), RILL_MEM_SCENE);
    if (!visited || !node_ents || !node_at) {
        rill_free(visited);
        rill_free(node_ents);
        rill_free(node_at);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "scene: model spawn: out of memory");
    }
    int32_t scene =
        model->default_scene >= 0 ? model->default_scene : (model->scene_count ? 0 : -1);
    uint32_t root_count = scene >= 0 ? model->scenes[scene].node_count : model->node_count;
    uint32_t total = 1;
    for (uint32_t i = 0; i < root_count; i++) {
        int32_t node = scene >= 0 ? model->scenes[scene].nodes[i] : (int32_t)i;
        if (scene < 0 && model->nodes[node].parent >= 0) {
            continue;
        }
        total += count_subtree(model, node, visited, 0, as && as->geometry_only);
    }
    rill_entity *ents = rill_malloc_tagged(sizeof(rill_entity) * total, RILL_MEM_SCENE);
    if (!ents || rill_world_spawn_n(world, total, ents) != total) {
        rill_free(ents);
        rill_free(visited);
        rill_free(node_ents);
        rill_free(node_at);
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "scene: model spawn: out of memory");
    }
    rill_entity root = ents[0];
    const char *root_name =
        scene >= 0 && model->scenes[scene].name ? model->scenes[scene].name : "model";
    rill_world_set_name(world, root, root_name);
    rill_transform ident = rill_transform_identity();
    rill_world_set_transform(world, root, &ident);
    if (parent != RILL_ENTITY_NULL) {
        rill_world_set_parent(world, root, parent);
    }
    spawn_ctx c = {world, comps, asset.id,  model,   visited, ents,   1,
                   total, 0,     node_ents, node_at, as,      meshes, false};
    for (uint32_t i = 0; i < root_count; i++) {
        int32_t node = scene >= 0 ? model->scenes[scene].nodes[i] : (int32_t)i;
        if (scene < 0 && model->nodes[node].parent >= 0) {
            continue;
        }
        spawn_node(&c, node, root, 0);
    }
    for (uint32_t i = 0; comps->mesh_skin.id && i < model->node_count; i++) {
        const rill_gltf_node *n = &model->nodes[i];
        if (n->mesh >= 0 && n->skin >= 0 && (uint32_t)n->skin < model->skin_count && node_ents[i]) {
            bind_skin(&c, (int32_t)i);
        }
    }
    rill_free(ents);
    rill_free(visited);
    rill_free(node_ents);
    rill_free(node_at);
    if (out_root) {
        *out_root = root;
    }
    if (c.list_short) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "scene: model spawn: out of memory");
    }
    return RILL_OK;
}
