/* lod_system.c: the mesh-LOD system. Each update it measures, for every Model the model system
 * has spawned with baked levels, the camera's distance to the entity, picks the level from its
 * bands (MeshLod, else the defaults) and shows that level's tree (RenderMode normal) while the
 * others stay hidden. Modes are written only when a pick changes, so a still camera costs one
 * distance and one band lookup per model. A Model entity whose own RenderMode is hidden (a streamed
 * instance on its way out, a hidden channel) shows no level. Inside a crossfade interval the level
 * whose weight is larger is shown: the renderer has no dithered blend yet, so this is the swap at
 * the interval's middle.
 */
#include "rill/stream.h"

#include <math.h>
#include <string.h>

struct rill_lod_system {
    rill_world *world;
    rill_scene_models *models;
    const rill_model_components *comps;
    rill_map shown; /* Model entity -> shown level + 1 (0 = none shown: culled) */
    rill_lod_stats stats;
};

rill_lod_system *rill_lod_system_create(rill_world *world, rill_scene_models *models) {
    if (!world || !models)
        return NULL;
    rill_lod_system *s = rill_calloc_tagged(1, sizeof *s, RILL_MEM_STREAM);
    if (!s)
        return NULL;
    s->world = world;
    s->models = models;
    s->comps = rill_scene_models_components(models);
    return s;
}

void rill_lod_system_destroy(rill_lod_system *s) {
    if (!s)
        return;
    rill_map_free(&s->shown);
    rill_free(s);
}

static rill_lod_settings settings_of(const rill_lod_system *s, rill_entity e) {
    const rill_mesh_lod *ml = rill_world_get(s->world, e, s->comps->mesh_lod);
    if (!ml)
        return rill_lod_settings_default();
    return (rill_lod_settings){
        .enabled = ml->enabled,
        .distances = {ml->lod1_distance, ml->lod2_distance, ml->lod3_distance},
        .crossfade = ml->crossfade,
        .cull_distance = ml->cull_distance};
}

static void show(rill_lod_system *s, const rill_entity *roots, uint32_t level, bool on) {
    rill_scene_model_set_mode(s->world, s->comps, roots[level],
                              on ? RILL_RENDER_MODE_NORMAL : RILL_RENDER_MODE_HIDDEN, 0.0f);
}

void rill_lod_system_update(rill_lod_system *s, const float camera[3]) {
    if (!s)
        return;
    memset(s->stats.per_level, 0, sizeof s->stats.per_level);
    s->stats.models = 0;
    s->stats.culled = 0;
    rill_entity e, roots[RILL_SCENE_MODEL_MAX_LEVELS];
    uint32_t n;
    for (uint32_t it = 0; (n = rill_scene_models_each(s->models, &it, &e));) {
        if (n < 2)
            continue; /* no baked levels: the base tree draws as spawned */
        s->stats.models++;
        rill_lod_settings st = settings_of(s, e);
        rill_lod_bands bands;
        rill_lod_bands_make(&st, n, &bands);
        int32_t want = 0;
        if (camera) {
            const float *m = rill_world_global_matrix(s->world, e);
            float d = 0.0f;
            if (m) {
                float dx = m[12] - camera[0], dy = m[13] - camera[1], dz = m[14] - camera[2];
                d = sqrtf(dx * dx + dy * dy + dz * dz);
            }
            rill_lod_pick p = rill_lod_pick_at(&bands, d);
            want = p.next >= 0 && p.fade >= 0.5f ? p.next : p.level;
        }
        const rill_render_mode_component *rm = rill_world_get(s->world, e, s->comps->render_mode);
        if (rm && rm->mode == RILL_RENDER_MODE_HIDDEN)
            want = -1;
        uint64_t had = 1; /* a fresh tree shows its base level */
        rill_map_get(&s->shown, e, &had);
        if (want >= 0)
            s->stats.per_level[want]++;
        else
            s->stats.culled++;
        if ((int64_t)had - 1 == want)
            continue;
        rill_scene_models_levels(s->models, e, roots);
        if (had)
            show(s, roots, (uint32_t)(had - 1u), false);
        if (want >= 0)
            show(s, roots, (uint32_t)want, true);
        rill_map_set(&s->shown, e, (uint64_t)(want + 1));
        s->stats.switches++;
    }
}

int32_t rill_lod_system_level(const rill_lod_system *s, rill_entity model_entity) {
    uint64_t v = 1;
    if (!s || !rill_scene_models_levels(s->models, model_entity, NULL))
        return -1;
    rill_map_get(&s->shown, model_entity, &v);
    return (int32_t)v - 1;
}

void rill_lod_system_get_stats(const rill_lod_system *s, rill_lod_stats *out) {
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (s)
        *out = s->stats;
}

rill_entity rill_lod_camera(const rill_world *world, rill_run_mode mode, float out_position[3]) {
    /* Bands are not gated: in edit and server modes the editor or game camera still counts. */
    rill_entity cam = rill_streaming_camera_pick(
        world, rill_run_mode_streams(mode) ? mode : RILL_RUN_MODE_SIMULATE);
    if (cam && out_position) {
        const float *m = rill_world_global_matrix(world, cam);
        for (int i = 0; i < 3; i++)
            out_position[i] = m ? m[12 + i] : 0.0f;
    }
    return cam;
}
