/* components.c: rill_app_register_components, the one list of every component the engine's
 * modules define. `rill components` prints the reference from it (docs/components.md is its
 * --markdown output) and `rill scene check` binds scene files against it, so neither can miss a
 * module's components. */
#include <string.h>

#include "rill/app.h"
#include "rill/scene/anim.h"
#include "rill/scene/model.h"

#if RILL_APP_HAS_RENDER
#include "rill/render.h"
#endif

/* Adds the group of component ids [first, end) that `module` registered. */
static void add_group(rill_app_component_group *groups, uint32_t *n, const char *module,
                      uint32_t first, uint32_t end) {
    if (!groups || *n >= RILL_APP_COMPONENT_GROUPS || end <= first) {
        return;
    }
    groups[*n] = (rill_app_component_group){module, {first}, end - first};
    (*n)++;
}

rill_result rill_app_register_components(rill_world *world, rill_app_component_group *groups,
                                         uint32_t *out_count, rill_error *err) {
    uint32_t n = 0;
    if (out_count) {
        *out_count = 0;
    }
    if (!world) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "rill_app_register_components: NULL world");
    }
    add_group(groups, &n, "world", 1, RILL_COMPONENT_BUILTIN_NUM);
    uint32_t at = rill_world_component_count(world) + 1;
    rill_scene_components sc = rill_scene_register(world);
    if (!sc.instance.id) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "registering the scene components");
    }
    add_group(groups, &n, "scene", at, rill_world_component_count(world) + 1);
    at = rill_world_component_count(world) + 1;
    rill_model_components mc;
    rill_result r = rill_scene_model_register(world, &mc, err);
    if (r != RILL_OK) {
        return r;
    }
    if (!rill_scene_anim_register(world, err).id) { /* AnimationPlayer plays a Model's clips */
        return err ? err->code : RILL_ERR_OUT_OF_MEMORY;
    }
    add_group(groups, &n, "scene/model", at, rill_world_component_count(world) + 1);
#if RILL_APP_HAS_RENDER
    at = rill_world_component_count(world) + 1;
    rill_render_components rc;
    if ((r = rill_render_register_components(world, &rc, err)) != RILL_OK) {
        return r;
    }
    add_group(groups, &n, "render", at, rill_world_component_count(world) + 1);
#endif
    at = rill_world_component_count(world) + 1;
    rill_physics_components pc = rill_physics_register(world);
    if (!pc.collider.id) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "registering the physics components");
    }
    add_group(groups, &n, "physics", at, rill_world_component_count(world) + 1);
    at = rill_world_component_count(world) + 1;
    if (!rill_terrain_register(world).id) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "registering the terrain component");
    }
    add_group(groups, &n, "terrain", at, rill_world_component_count(world) + 1);
    at = rill_world_component_count(world) + 1;
    if (!rill_script_register(world).id) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "registering the script component");
    }
    add_group(groups, &n, "script", at, rill_world_component_count(world) + 1);
    if (out_count) {
        *out_count = n;
    }
    return RILL_OK;
}
