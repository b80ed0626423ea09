/* model_components.c: the components of rill/scene/model.h (Model, ModelMesh, RenderMode and the
 * three light kinds): plain data that names assets, registered here so every module from scene up
 * (channels, stream, render, tools) sees the same types. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model_internal.h"

static const float white4[4] = {1, 1, 1, 1};
static const float f_three = 3.0f, f_ten = 10.0f, f_twenty = 20.0f, f_quarter_pi = 0.785398f;
static const bool b_true = true;

static const rill_field dir_fields[] = {
    RILL_FIELD_WITH(rill_directional_light, color, COLOR, .default_value = white4),
    RILL_FIELD_WITH(rill_directional_light, illuminance, F32, RILL_FIELD_MIN(0.0),
                    .default_value = &f_three),
    RILL_FIELD_WITH(rill_directional_light, shadows, BOOL, .default_value = &b_true),
    RILL_FIELD_WITH(rill_directional_light, sun, BOOL,
                    .doc = "this light is the sun: the sky defaults to the atmosphere and "
                           "--time-of-day turns it"),
};
static const rill_directional_light dir_default = {{1, 1, 1, 1}, 3.0f, true, false};

static const rill_field point_fields[] = {
    RILL_FIELD_WITH(rill_point_light, color, COLOR, .default_value = white4),
    RILL_FIELD_WITH(rill_point_light, intensity, F32, RILL_FIELD_MIN(0.0), .default_value = &f_ten),
    RILL_FIELD_WITH(rill_point_light, range, F32, RILL_FIELD_MIN(0.0), .default_value = &f_twenty),
};
static const rill_point_light point_default = {{1, 1, 1, 1}, 10.0f, 20.0f};

static const rill_field spot_fields[] = {
    RILL_FIELD_WITH(rill_spot_light, color, COLOR, .default_value = white4),
    RILL_FIELD_WITH(rill_spot_light, intensity, F32, RILL_FIELD_MIN(0.0), .default_value = &f_ten),
    RILL_FIELD_WITH(rill_spot_light, range, F32, RILL_FIELD_MIN(0.0), .default_value = &f_twenty),
    RILL_FIELD_WITH(rill_spot_light, inner_angle, F32, RILL_FIELD_RANGE(0.0, 1.5707)),
    RILL_FIELD_WITH(rill_spot_light, outer_angle, F32, RILL_FIELD_RANGE(0.0, 1.5707),
                    .default_value = &f_quarter_pi),
};
static const rill_spot_light spot_default = {{1, 1, 1, 1}, 10.0f, 20.0f, 0.0f, 0.785398f};

static const rill_field model_fields[] = {
    RILL_FIELD(rill_model_ref, path, ASSET_PATH),
    RILL_FIELD_WITH(rill_model_ref, variant, STRING,
                    .doc = "the glTF material variant (KHR_materials_variants) to draw; "
                           "empty = the default materials"),
};

static const rill_field model_mesh_fields[] = {
    RILL_FIELD(rill_model_mesh, asset, U32),
    RILL_FIELD(rill_model_mesh, mesh, U32),
    RILL_FIELD(rill_model_mesh, primitive, U32),
    RILL_FIELD_WITH(rill_model_mesh, variant, U32,
                    .doc = "0 = the primitive's material, k = the file's material variant k - 1"),
};

static const rill_enum_item mode_items[] = {
    {"normal", RILL_RENDER_MODE_NORMAL},
    {"hidden", RILL_RENDER_MODE_HIDDEN},
    {"wireframe", RILL_RENDER_MODE_WIREFRAME},
    {"ghost", RILL_RENDER_MODE_GHOST},
};
static const float f_half = 0.5f;
static const rill_field mode_fields[] = {
    RILL_FIELD_WITH(rill_render_mode_component, mode, ENUM, .enum_items = mode_items,
                    .enum_count = 4,
                    .doc = "normal, hidden (no pass draws it), wireframe (lines only) or ghost"),
    RILL_FIELD_WITH(rill_render_mode_component, ghost_opacity, F32, RILL_FIELD_RANGE(0.0, 1.0),
                    .default_value = &f_half),
};
static const rill_render_mode_component mode_default = {RILL_RENDER_MODE_NORMAL, 0.5f, 0.0f};

static const rill_mesh_lod lod_default = {true, 40.0f, 100.0f, 220.0f, 5.0f, 0.0f};
static const rill_field lod_fields[] = {
    RILL_FIELD_WITH(rill_mesh_lod, enabled, BOOL,
                    .doc = "off: always the base model at full detail"),
    RILL_FIELD_WITH(rill_mesh_lod, lod1_distance, F32, RILL_FIELD_MIN(0.0),
                    .doc = "where LOD1 starts (full detail nearer)"),
    RILL_FIELD_WITH(rill_mesh_lod, lod2_distance, F32, RILL_FIELD_MIN(0.0),
                    .doc = "where LOD2 starts"),
    RILL_FIELD_WITH(rill_mesh_lod, lod3_distance, F32, RILL_FIELD_MIN(0.0),
                    .doc = "where LOD3 starts; further levels extend by x2.2"),
    RILL_FIELD_WITH(rill_mesh_lod, crossfade, F32, RILL_FIELD_MIN(0.0),
                    .doc = "width of the blend after each boundary (0 = swap)"),
    RILL_FIELD_WITH(rill_mesh_lod, cull_distance, F32, RILL_FIELD_MIN(0.0),
                    .doc = "beyond it nothing draws (0 = never culled)"),
};

/* >>MeshShown: a ModelMesh added, or a RenderMode set to anything but hidden, (re)joins the set
 * extract walks; only rill_scene_model_set_level takes an entity out of it. The observers' user
 * word packs the MeshShown id (low half) and the ModelMesh id (high half): a LOD switch writes
 * RenderMode on every mesh of two levels, so no name is looked up per write. */
_Static_assert(sizeof(void *) >= 8, "the observers' user word packs two 32-bit ids");

static void mark_shown(rill_world *w, rill_entity e, void *user) {
    rill_component shown = {(uint32_t)(uintptr_t)user};
    if (!rill_world_has(w, e, shown)) {
        rill_world_add(w, e, shown, NULL);
    }
}

static void on_model_mesh(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    mark_shown(w, e, user);
}

static void on_render_mode(rill_world *w, rill_entity e, void *data, void *user) {
    const rill_render_mode_component *rm = data;
    rill_component model_mesh = {(uint32_t)((uint64_t)(uintptr_t)user >> 32)};
    if (rm->mode != RILL_RENDER_MODE_HIDDEN && rill_world_has(w, e, model_mesh)) {
        mark_shown(w, e, user);
    }
}

/* MeshSkin owns its arrays: they go with the component. */
static void on_skin_removed(rill_world *w, rill_entity e, void *data, void *user) {
    (void)w, (void)e, (void)user;
    rill_mesh_skin *s = data;
    rill_free(s->joints);
    s->joints = NULL;
    s->inverse_bind = NULL;
    s->joint_count = 0;
}

static void on_morph_removed(rill_world *w, rill_entity e, void *data, void *user) {
    (void)w, (void)e, (void)user;
    rill_mesh_morph *m = data;
    rill_free(m->weights);
    m->weights = NULL;
    m->count = 0;
}

static rill_component reg(rill_world *w, const rill_type_desc *d) {
    rill_component c = rill_world_find_component(w, d->name);
    return c.id ? c : rill_world_register_component(w, d);
}

rill_result rill_scene_model_register(rill_world *world, rill_model_components *out,
                                      rill_error *err) {
    if (!world || !out) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "scene: NULL world or out");
    }
    rill_type_desc mm = {
        .name = "ModelMesh",
        RILL_TYPE_LAYOUT(rill_model_mesh),
        .flags = RILL_TYPE_NO_SERIALIZE,
        RILL_FIELDS(model_mesh_fields),
        .doc = "one primitive of a loaded glTF model (asset handle, mesh, primitive)"};
    rill_type_desc rm = {.name = "RenderMode",
                         RILL_TYPE_LAYOUT(rill_render_mode_component),
                         RILL_FIELDS(mode_fields),
                         .defaults = &mode_default,
                         .doc = "how this entity's mesh draws"};
    rill_type_desc dl = {.name = "DirectionalLight",
                         RILL_TYPE_LAYOUT(rill_directional_light),
                         RILL_FIELDS(dir_fields),
                         .defaults = &dir_default,
                         .doc = "sun-like light along the entity's -Z axis"};
    rill_type_desc pl = {.name = "PointLight",
                         RILL_TYPE_LAYOUT(rill_point_light),
                         RILL_FIELDS(point_fields),
                         .defaults = &point_default,
                         .doc = "omni light"};
    rill_type_desc sl = {.name = "SpotLight",
                         RILL_TYPE_LAYOUT(rill_spot_light),
                         RILL_FIELDS(spot_fields),
                         .defaults = &spot_default,
                         .doc = "cone light along -Z"};
    rill_type_desc md = {.name = "Model",
                         RILL_TYPE_LAYOUT(rill_model_ref),
                         RILL_FIELDS(model_fields),
                         .doc = "a glTF model drawn at this entity"};
    rill_type_desc ml = {.name = "MeshLod",
                         RILL_TYPE_LAYOUT(rill_mesh_lod),
                         RILL_FIELDS(lod_fields),
                         .defaults = &lod_default,
                         .doc =
                             "detail bands of this entity's Model (LOD levels, crossfade, cull)"};
    rill_type_desc ms = {.name = "MeshShown",
                         RILL_TYPE_LAYOUT(rill_mesh_shown),
                         .flags = RILL_TYPE_NO_SERIALIZE,
                         .doc = "this ModelMesh entity may draw (extract visits it)"};
    rill_type_desc sk = {.name = "MeshSkin",
                         RILL_TYPE_LAYOUT(rill_mesh_skin),
                         .flags = RILL_TYPE_NO_SERIALIZE,
                         .on_remove = on_skin_removed,
                         .doc = "the joint entities that pose this skinned ModelMesh (runtime)"};
    out->mesh_skin = reg(world, &sk);
    rill_type_desc mo = {.name = "MeshMorph",
                         RILL_TYPE_LAYOUT(rill_mesh_morph),
                         .flags = RILL_TYPE_NO_SERIALIZE,
                         .on_remove = on_morph_removed,
                         .doc = "the morph target weights this ModelMesh draws with (runtime)"};
    out->mesh_morph = reg(world, &mo);
    out->mesh_shown = reg(world, &ms);
    out->mesh_lod = reg(world, &ml);
    out->model = reg(world, &md);
    out->model_mesh = reg(world, &mm);
    out->render_mode = reg(world, &rm);
    out->directional_light = reg(world, &dl);
    out->point_light = reg(world, &pl);
    out->spot_light = reg(world, &sl);
    if (!out->model.id || !out->model_mesh.id || !out->render_mode.id ||
        !out->directional_light.id || !out->point_light.id || !out->spot_light.id ||
        !out->mesh_lod.id || !out->mesh_shown.id || !out->mesh_skin.id || !out->mesh_morph.id) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "scene: could not register the model components");
    }
    /* The observers keep MeshShown on whatever may draw; the same fn and user again is a no-op. */
    void *user =
        (void *)(uintptr_t)((uint64_t)out->mesh_shown.id | (uint64_t)out->model_mesh.id << 32);
    if (!rill_world_observe_add(world, out->model_mesh, on_model_mesh, user) ||
        !rill_world_observe_add(world, out->render_mode, on_render_mode, user)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "scene: could not observe ModelMesh and RenderMode");
    }
    return RILL_OK;
}

bool rill__scene_model_write_mesh(rill_world *world, const rill_model_components *comps,
                                  rill_entity e, rill_render_mode_component rmc,
                                  rill__mesh_write how) {
    rill_render_mode_component *rm =
        how == RILL__MESH_FADE ? rill_world_get(world, e, comps->render_mode) : NULL;
    if (rm) {
        rm->lod_fade = rmc.lod_fade;
        return true;
    }
    if (!rill_world_add(world, e, comps->render_mode, &rmc)) {
        return false;
    }
    if (how == RILL__MESH_PARK) {
        rill_world_remove(world, e, comps->mesh_shown);
    }
    return true;
}

/* What a walk writes on each ModelMesh entity: a RenderMode (rmc, as `how` says) or, with
 * set_variant, the material variant. */
typedef struct mesh_write {
    rill_render_mode_component rmc;
    rill__mesh_write how;
    bool set_variant;
    uint32_t variant;
} mesh_write;

/* Writes mw on ModelMesh entity e; true when it changed something. */
static bool write_one(rill_world *world, const rill_model_components *comps, rill_entity e,
                      const mesh_write *mw) {
    if (!mw->set_variant) {
        return rill__scene_model_write_mesh(world, comps, e, mw->rmc, mw->how);
    }
    const rill_model_mesh *mm = rill_world_get(world, e, comps->model_mesh);
    if (!mm || mm->variant == mw->variant) {
        return false;
    }
    rill_model_mesh next = *mm;
    next.variant = mw->variant;
    return rill_world_add(world, e, comps->model_mesh, &next) != NULL;
}

/* Writes mw on every ModelMesh entity of root's subtree (root included), depth-first with an
 * explicit stack (hierarchies can be deep; most trees fit the one on the C stack). */
static uint32_t walk_tree(rill_world *world, const rill_model_components *comps, rill_entity root,
                          const mesh_write *mw) {
    if (!world || !comps || !rill_world_is_alive(world, root)) {
        return 0;
    }
    rill_entity local[64], *stack = local, *heap = NULL;
    uint32_t len = 0, cap = RILL_COUNTOF(local), heap_cap = 0, set = 0;
    stack[len++] = root;
    while (len) {
        rill_entity e = stack[--len];
        if (rill_world_has(world, e, comps->model_mesh) && write_one(world, comps, e, mw)) {
            set++;
        }
        for (rill_entity c = rill_world_first_child(world, e); c;
             c = rill_world_next_sibling(world, c)) {
            if (len == cap) {
                if (!rill__array_reserve((void **)&heap, &heap_cap, cap * 2u, sizeof *heap)) {
                    break;
                }
                if (stack == local) {
                    memcpy(heap, local, len * sizeof *heap);
                }
                stack = heap, cap = heap_cap;
            }
            stack[len++] = c;
        }
    }
    rill_free(heap);
    return set;
}

static uint32_t set_tree(rill_world *world, const rill_model_components *comps, rill_entity root,
                         rill_render_mode_component rmc, rill__mesh_write how) {
    return walk_tree(world, comps, root, &(mesh_write){rmc, how, false, 0});
}

uint32_t rill_scene_model_set_variant(rill_world *world, const rill_model_components *comps,
                                      rill_entity root, uint32_t variant) {
    mesh_write mw = {{RILL_RENDER_MODE_NORMAL, 0.5f, 0.0f}, RILL__MESH_SET, true, variant};
    return walk_tree(world, comps, root, &mw);
}

uint32_t rill_scene_model_set_mode(rill_world *world, const rill_model_components *comps,
                                   rill_entity root, rill_render_mode mode, float ghost_opacity) {
    return set_tree(world, comps, root, (rill_render_mode_component){mode, ghost_opacity, 0.0f},
                    RILL__MESH_SET);
}

uint32_t rill_scene_model_set_fade(rill_world *world, const rill_model_components *comps,
                                   rill_entity root, float lod_fade) {
    return set_tree(world, comps, root,
                    (rill_render_mode_component){RILL_RENDER_MODE_NORMAL, 0.5f, lod_fade},
                    RILL__MESH_SET);
}

uint32_t rill_scene_model_refade(rill_world *world, const rill_model_components *comps,
                                 rill_entity root, float lod_fade) {
    return set_tree(world, comps, root,
                    (rill_render_mode_component){RILL_RENDER_MODE_NORMAL, 0.5f, lod_fade},
                    RILL__MESH_FADE);
}

uint32_t rill_scene_model_set_level(rill_world *world, const rill_model_components *comps,
                                    rill_entity root, bool shown, float lod_fade) {
    if (shown) {
        return rill_scene_model_set_fade(world, comps, root, lod_fade);
    }
    return set_tree(world, comps, root,
                    (rill_render_mode_component){RILL_RENDER_MODE_HIDDEN, 0.5f, 0.0f},
                    RILL__MESH_PARK);
}
