/* lod_system.c: the mesh-LOD system. Each update it measures, for every Model the model system
 * has spawned with baked levels, the camera's distance to the entity, picks the level from its
 * bands (MeshLod, else the defaults) and shows that level's tree (RenderMode normal) while the
 * others stay hidden. Modes are written only when a pick changes, so a still camera costs one
 * distance and one band lookup per model. A Model entity whose own RenderMode is hidden (a streamed
 * instance on its way out, a hidden channel) shows no level. Inside a crossfade interval both
 * levels are shown with complementary dither fades (RenderMode.lod_fade: -f on the outgoing tree,
 * +f on the incoming), f rounded to the dither's 16 steps so the trees are rewritten at most 15
 * times per crossing. Levels not drawn are parked (rill_scene_model_set_level): out of the set
 * extract walks. What each model shows is kept in the model system's per-tree word
 * (rill_scene_models_each_state), so it goes with the trees: nothing here outlives a Model.
 */
#include "rill/stream.h"

#include <math.h>
#include <string.h>

struct rill_lod_system {
    rill_world *world;
    rill_scene_models *models;
    const rill_model_components *comps;
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

/* What a model shows: level `a` (-1: nothing), and inside a crossfade level `b` fading in over it
 * at dither step q (1..15 of 16; a then carries -q/16 and b +q/16). Packed into the model system's
 * per-tree word, where 0 (a tree just spawned) reads as the base level whole. */
typedef struct shown_state {
    int32_t a, b;
    uint32_t q;
} shown_state;

#define FADE_STEPS 16u /* the dither's 4 x 4 thresholds: finer fades draw the same pixels */

static uint64_t pack_state(shown_state v) {
    return (uint64_t)(uint32_t)(v.a + 1) | ((uint64_t)(uint32_t)(v.b + 1) << 8) |
           ((uint64_t)v.q << 16);
}

static shown_state unpack_state(uint64_t v) {
    if (v == 0)
        v = pack_state((shown_state){0, -1, 0});
    return (shown_state){(int32_t)(v & 0xffu) - 1, (int32_t)((v >> 8) & 0xffu) - 1,
                         (uint32_t)(v >> 16) & 0xffu};
}

/* The state for a pick: the fade is rounded to the dither's steps, and a step of 0 or 16 is no
 * crossfade at all (one level drawn whole), so both levels draw only while each covers part. */
static shown_state state_of(rill_lod_pick p) {
    shown_state v = {p.level, -1, 0};
    if (p.next < 0 || p.level < 0)
        return v;
    float f = p.fade * (float)FADE_STEPS + 0.5f;
    uint32_t q = f > 0.0f ? (uint32_t)f : 0u;
    if (q >= FADE_STEPS)
        v.a = p.next;
    else if (q > 0)
        v.b = p.next, v.q = q;
    return v;
}

/* Moves a model's level trees from `had` to `want`: levels no longer drawn are hidden and parked,
 * drawn ones get their mode and crossfade (complementary: -q/16 outgoing, +q/16 incoming). */
static void apply_state(rill_lod_system *s, const rill_entity *roots, uint32_t n, shown_state had,
                        shown_state want) {
    const rill_model_components *c = s->comps;
    int32_t old[2] = {had.a, had.b};
    for (int k = 0; k < 2; k++)
        if (old[k] >= 0 && (uint32_t)old[k] < n && old[k] != want.a && old[k] != want.b)
            rill_scene_model_set_level(s->world, c, roots[old[k]], false, 0.0f);
    float f = (float)want.q / (float)FADE_STEPS;
    if (want.a >= 0 && (uint32_t)want.a < n)
        rill_scene_model_set_level(s->world, c, roots[want.a], true, want.b >= 0 ? -f : 0.0f);
    if (want.b >= 0 && (uint32_t)want.b < n)
        rill_scene_model_set_level(s->world, c, roots[want.b], true, f);
}

void rill_lod_system_update(rill_lod_system *s, const float camera[3]) {
    if (!s)
        return;
    memset(s->stats.per_level, 0, sizeof s->stats.per_level);
    s->stats.models = 0;
    s->stats.culled = 0;
    s->stats.fading = 0;
    rill_entity e, roots[RILL_SCENE_MODEL_MAX_LEVELS];
    uint64_t *word;
    uint32_t n;
    for (uint32_t it = 0; (n = rill_scene_models_each_state(s->models, &it, &e, &word));) {
        if (n < 2)
            continue; /* no baked levels: the base tree draws as spawned */
        s->stats.models++;
        shown_state want = {0, -1, 0};
        if (camera) {
            rill_lod_settings st = settings_of(s, e);
            rill_lod_bands bands;
            rill_lod_bands_make(&st, n, &bands);
            const float *m = rill_world_global_matrix(s->world, e);
            float d = 0.0f;
            if (m) {
                float dx = m[12] - camera[0], dy = m[13] - camera[1], dz = m[14] - camera[2];
                d = sqrtf(dx * dx + dy * dy + dz * dz);
            }
            want = state_of(rill_lod_pick_at(&bands, d));
        }
        const rill_render_mode_component *rm = rill_world_get(s->world, e, s->comps->render_mode);
        if (rm && rm->mode == RILL_RENDER_MODE_HIDDEN)
            want = (shown_state){-1, -1, 0};
        uint64_t had_v = pack_state(unpack_state(*word)); /* 0: fresh, the base whole */
        if (want.a >= 0)
            s->stats.per_level[want.a]++;
        else
            s->stats.culled++;
        s->stats.fading += want.b >= 0;
        uint64_t want_v = pack_state(want);
        if (had_v == want_v)
            continue;
        shown_state had = unpack_state(had_v);
        rill_scene_models_levels(s->models, e, roots);
        apply_state(s, roots, n, had, want);
        *word = want_v;
        s->stats.switches += had.a != want.a || had.b != want.b;
    }
}

int32_t rill_lod_system_level(const rill_lod_system *s, rill_entity model_entity) {
    return rill_lod_system_levels(s, model_entity, NULL, NULL);
}

int32_t rill_lod_system_levels(const rill_lod_system *s, rill_entity model_entity,
                               int32_t *out_next, float *out_fade) {
    if (out_next)
        *out_next = -1;
    if (out_fade)
        *out_fade = 0.0f;
    if (!s || !rill_scene_models_levels(s->models, model_entity, NULL))
        return -1;
    shown_state st = unpack_state(rill_scene_models_level_state(s->models, model_entity));
    if (out_next)
        *out_next = st.b;
    if (out_fade && st.b >= 0)
        *out_fade = (float)st.q / (float)FADE_STEPS;
    return st.a;
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
