/* model_levels.c: the ModelMesh entities of a model's level trees, listed level by level when the
 * trees spawn, so showing, parking or refading a level writes its meshes without walking the
 * hierarchy (rill_scene_models_set_level / refade). The list is checked as it is used: a member
 * that died, lost its ModelMesh or no longer has the level's root among its ancestors (moved out
 * of the tree, or orphaned by a despawned parent) is dropped for good.
 */
#include <string.h>

#include "model_internal.h"

/* Levels nest a few nodes deep; deeper than the spawn's own cut means not below root. */
#define LEVEL_MAX_DEPTH 260u

bool rill__model_levels_set(rill__model_levels *l, const rill__entity_list *all,
                            const uint32_t *end, uint32_t levels) {
    rill__model_levels_free(l);
    if (levels > RILL_SCENE_MODEL_MAX_LEVELS) {
        return false;
    }
    if (all->len) {
        l->meshes = rill_malloc_tagged(all->len * sizeof *l->meshes, RILL_MEM_SCENE);
        if (!l->meshes) {
            return false;
        }
        memcpy(l->meshes, all->data, all->len * sizeof *l->meshes);
    }
    memcpy(l->end, end, levels * sizeof *end);
    l->levels = levels;
    return true;
}

void rill__model_levels_free(rill__model_levels *l) {
    rill_free(l->meshes);
    memset(l, 0, sizeof *l);
}

/* Whether member e is still a ModelMesh entity of the tree rooted at root. */
static bool still_member(const rill_world *w, const rill_model_components *c, rill_entity e,
                         rill_entity root) {
    if (!rill_world_is_alive(w, e) || !rill_world_has(w, e, c->model_mesh)) {
        return false;
    }
    for (uint32_t d = 0; e && d < LEVEL_MAX_DEPTH; d++, e = rill_world_get_parent(w, e)) {
        if (e == root) {
            return true;
        }
    }
    return false;
}

uint32_t rill__model_levels_write(rill__model_levels *l, rill_world *world,
                                  const rill_model_components *comps, uint32_t level,
                                  rill_entity root, rill_render_mode_component rmc,
                                  rill__mesh_write how) {
    if (level >= l->levels) {
        return 0;
    }
    uint32_t set = 0;
    for (uint32_t i = level ? l->end[level - 1] : 0; i < l->end[level]; i++) {
        rill_entity e = l->meshes[i];
        if (!e) {
            continue;
        }
        if (!still_member(world, comps, e, root)) {
            l->meshes[i] = RILL_ENTITY_NULL;
        } else if (rill__scene_model_write_mesh(world, comps, e, rmc, how)) {
            set++;
        }
    }
    return set;
}
