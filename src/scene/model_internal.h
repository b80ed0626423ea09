/* model_internal.h: what the model files of the scene module share: how one ModelMesh entity's
 * RenderMode is written (model_components.c), a tree spawned already shown or parked with its
 * ModelMesh entities listed (model_spawn.c), and the per-level lists of a model's ModelMesh
 * entities that the model system keeps so a level is shown, parked or refaded without a walk of
 * its hierarchy (model_levels.c).
 */
#ifndef RILL_SCENE_MODEL_INTERNAL_H
#define RILL_SCENE_MODEL_INTERNAL_H

#include "rill/scene/model.h"

typedef enum rill__mesh_write {
    RILL__MESH_SET,  /* RenderMode through the world: its observers run */
    RILL__MESH_PARK, /* the same, then MeshShown taken off */
    RILL__MESH_FADE, /* lod_fade alone, in place: the mode stays, no observer has anything to learn
                      */
} rill__mesh_write;

/* Writes rmc on ModelMesh entity e as `how` says. False when the world refused the add. */
bool rill__scene_model_write_mesh(rill_world *world, const rill_model_components *comps,
                                  rill_entity e, rill_render_mode_component rmc,
                                  rill__mesh_write how);

typedef RILL_ARRAY(rill_entity) rill__entity_list;

/* How a tree's ModelMesh entities start: as rill_scene_model_spawn leaves them (write false), or
 * with rmc written as `how` says, each right after its ModelMesh is added. A detail level's tree
 * (geometry_only) gets no lights and no cameras: the base tree's stand for the model whichever
 * level shows, so a level's copies would light the scene again and render views of their own. */
typedef struct rill__spawn_as {
    bool write;
    rill_render_mode_component rmc;
    rill__mesh_write how;
    bool geometry_only;
} rill__spawn_as;

/* rill_scene_model_spawn with the ModelMesh entities started as `as` says (NULL: as spawned) and
 * appended to *meshes (NULL: not listed; out of memory: the list is short and the call returns
 * RILL_ERR_OUT_OF_MEMORY with the tree spawned). */
rill_result rill__scene_model_spawn_as(rill_world *world, const rill_model_components *comps,
                                       rill_asset asset, const rill_gltf_model *model,
                                       rill_entity parent, const rill__spawn_as *as,
                                       rill__entity_list *meshes, rill_entity *out_root,
                                       rill_error *err);

/* The ModelMesh entities of a model's level trees, level by level: level k is
 * meshes[begin(k), end[k]) with begin(0) = 0 and begin(k) = end[k - 1]. A member that died, lost
 * its ModelMesh or left its level's tree is dropped (its slot set to RILL_ENTITY_NULL) the next
 * time its level is written. */
typedef struct rill__model_levels {
    rill_entity *meshes;
    uint32_t end[RILL_SCENE_MODEL_MAX_LEVELS];
    uint32_t levels;
} rill__model_levels;

/* Takes the list of `levels` levels from all (ends as above). False when out of memory. */
bool rill__model_levels_set(rill__model_levels *l, const rill__entity_list *all,
                            const uint32_t *end, uint32_t levels);
void rill__model_levels_free(rill__model_levels *l);
/* Writes rmc (as `how`) on the members of `level`, whose tree is rooted at root. Returns how many
 * it wrote. */
uint32_t rill__model_levels_write(rill__model_levels *l, rill_world *world,
                                  const rill_model_components *comps, uint32_t level,
                                  rill_entity root, rill_render_mode_component rmc,
                                  rill__mesh_write how);

#endif
