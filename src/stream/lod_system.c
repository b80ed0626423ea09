/* lod_system.c: the mesh-LOD system. For every Model the model system has spawned with baked
 * levels (or with one level and a MeshLod cull distance) it measures the camera's distance to the
 * entity, picks the level from its bands (MeshLod, else the defaults) and shows that level's tree
 * (RenderMode normal) while the others stay hidden. A Model entity whose own RenderMode is hidden
 * (a streamed instance on its way out, a hidden channel) shows no level. Inside a crossfade
 * interval both levels are shown with complementary dither fades (RenderMode.lod_fade: -f on the
 * outgoing tree, +f on the incoming), f rounded to the dither's 16 steps so the trees are rewritten
 * at most 15 times per crossing. Levels not drawn are parked (rill_scene_model_set_level): out of
 * the set extract walks. What each model shows is kept in the model system's per-tree word
 * (rill_scene_models_each_state), so it goes with the trees: nothing here outlives a Model.
 *
 * The cost follows what changes: a check also stores the model's slack, how far the camera may
 * travel before the shown state could change (to the nearest band edge, crossfade end or fade
 * step, less a rounding margin), and the model is not measured again until the camera's path
 * since then is that long, or the watch (lod_watch.c) finds it moved, its MeshLod edited or its
 * RenderMode set. An update walks the words and measures only the models due.
 *
 * New trees spawn already showing what their first check will pick (the system is the model
 * system's spawn picker, measuring from the spawn camera), and a switch writes the meshes the
 * model system lists per level: neither walks a hierarchy. An update measures at most the check
 * budget of its due models (lod_due.c picks which: a sweep share in model order, then the
 * nearest); the rest stay due for later updates.
 */
#include "stream_internal.h"

#include <math.h>
#include <string.h>

struct rill_lod_system {
    rill_world *world;
    rill_scene_models *models;
    const rill_model_components *comps;
    rill_lod_stats stats;
    rill__lod_watch watch;
    float spawn_camera[3]; /* where new trees are measured from when they spawn */
    bool has_spawn_camera;
    uint32_t check_budget;         /* most checks an update makes (0: no bound) */
    uint32_t sweep;                /* where the next bounded update's sweep starts */
    RILL_ARRAY(rill__lod_due) due; /* this update's due models */
};

static bool pick_at_spawn(void *user, rill_entity e, uint32_t n, rill_scene_model_spawn_pick *out);

rill_lod_system *rill_lod_system_create(rill_world *world, rill_scene_models *models) {
    if (!world || !models) {
        return NULL;
    }
    rill_lod_system *s = rill_calloc_tagged(1, sizeof *s, RILL_MEM_STREAM);
    if (!s) {
        return NULL;
    }
    s->world = world;
    s->models = models;
    s->comps = rill_scene_models_components(models);
    if (!rill__lod_watch_init(&s->watch, world, s->comps)) {
        rill_lod_system_destroy(s);
        return NULL;
    }
    rill_scene_models_set_spawn_pick(models, pick_at_spawn, s);
    s->check_budget = RILL_LOD_CHECK_BUDGET_DEFAULT;
    return s;
}

void rill_lod_system_destroy(rill_lod_system *s) {
    if (!s) {
        return;
    }
    rill_scene_models_set_spawn_pick(s->models, NULL, NULL);
    rill__lod_watch_free(&s->watch);
    rill_array_free(&s->due);
    rill_free(s);
}

static rill_lod_settings settings_of(const rill_lod_system *s, rill_entity e) {
    const rill_mesh_lod *ml = rill_world_get(s->world, e, s->comps->mesh_lod);
    if (!ml) {
        return rill_lod_settings_default();
    }
    return (rill_lod_settings){
        .enabled = ml->enabled,
        .distances = {ml->lod1_distance, ml->lod2_distance, ml->lod3_distance},
        .crossfade = ml->crossfade,
        .cull_distance = ml->cull_distance};
}

/* Whether e's MeshLod culls it: a model without baked levels is measured only then (its one
 * band ends at the cull distance), or once it has been (its word holds a state), so a cull
 * distance taken off shows it again. */
static bool culls(const rill_lod_system *s, rill_entity e) {
    const rill_mesh_lod *ml = rill_world_get(s->world, e, s->comps->mesh_lod);
    return ml && ml->enabled && ml->cull_distance > 0.0f;
}

/* What a model shows: level `a` (-1: nothing), and inside a crossfade level `b` fading in over it
 * at dither step q (1..15 of 16; a then carries -q/16 and b +q/16). Packed into bits 0-23 of the
 * model system's per-tree word with STATE_SET, so a word without it (a tree just spawned) reads as
 * the base level whole and a culled model's state is not mistaken for it. */
typedef struct shown_state {
    int32_t a, b;
    uint32_t q;
} shown_state;

#define FADE_STEPS 16u /* the dither's 4 x 4 thresholds: finer fades draw the same pixels */
#define STATE_SET (UINT64_C(1) << 23)

static uint64_t pack_state(shown_state v) {
    return (uint64_t)(uint32_t)(v.a + 1) | ((uint64_t)(uint32_t)(v.b + 1) << 8) |
           ((uint64_t)v.q << 16) | STATE_SET;
}

static shown_state unpack_state(uint64_t word) {
    if (!(word & STATE_SET)) {
        return (shown_state){0, -1, 0};
    }
    return (shown_state){(int32_t)(word & 0xffu) - 1, (int32_t)((word >> 8) & 0xffu) - 1,
                         (uint32_t)(word >> 16) & 0x7fu};
}

/* The state for a pick: the fade is rounded to the dither's steps, and a step of 0 or 16 is no
 * crossfade at all (one level drawn whole), so both levels draw only while each covers part. */
static shown_state state_of(rill_lod_pick p) {
    shown_state v = {p.level, -1, 0};
    if (p.next < 0 || p.level < 0) {
        return v;
    }
    float f = p.fade * (float)FADE_STEPS + 0.5f;
    uint32_t q = f > 0.0f ? (uint32_t)f : 0u;
    if (q >= FADE_STEPS) {
        v.a = p.next;
    } else if (q > 0) {
        v.b = p.next, v.q = q;
    }
    return v;
}

/* Moves model e's level trees (n levels) from `had` to `want`: levels no longer drawn are hidden
 * and parked, drawn ones get their mode and crossfade (complementary: -q/16 outgoing, +q/16
 * incoming). Inside one crossing only the fade changes: it is rewritten in place. The model
 * system writes each level through its list of the level's meshes, without a walk. */
static void apply_state(rill_lod_system *s, rill_entity e, uint32_t n, shown_state had,
                        shown_state want) {
    rill_scene_models *m = s->models;
    float f = (float)want.q / (float)FADE_STEPS;
    bool in_range = want.a >= 0 && (uint32_t)want.a < n && want.b >= 0 && (uint32_t)want.b < n;
    if (had.a == want.a && had.b == want.b && in_range) {
        rill_scene_models_refade(m, e, (uint32_t)want.a, -f);
        rill_scene_models_refade(m, e, (uint32_t)want.b, f);
        return;
    }
    int32_t old[2] = {had.a, had.b};
    for (int k = 0; k < 2; k++) {
        if (old[k] >= 0 && (uint32_t)old[k] < n && old[k] != want.a && old[k] != want.b) {
            rill_scene_models_set_level(m, e, (uint32_t)old[k], false, 0.0f);
        }
    }
    if (want.a >= 0 && (uint32_t)want.a < n) {
        rill_scene_models_set_level(m, e, (uint32_t)want.a, true, want.b >= 0 ? -f : 0.0f);
    }
    if (want.b >= 0 && (uint32_t)want.b < n) {
        rill_scene_models_set_level(m, e, (uint32_t)want.b, true, f);
    }
}

/* How far d can move before the shown state may change: the distance to the nearest band edge,
 * crossfade end, or (inside a crossfade) step of the fade's rounding, where q = floor(16 f + 1/2)
 * changes: at f = (k - 1/2) / 16. */
static float slack_at(const rill_lod_bands *b, float d) {
    float best = INFINITY;
    float step = b->crossfade / (float)FADE_STEPS;
    for (uint32_t i = 0; i < b->levels; i++) {
        best = fminf(best, fminf(fabsf(d - b->start[i]), fabsf(d - b->end[i])));
        if (i == 0 || !(b->crossfade > 0.0f)) {
            continue;
        }
        float in = d - b->start[i];
        best = fminf(best, fabsf(in - b->crossfade));
        if (in >= 0.0f && in < b->crossfade) {
            float k = floorf(in / step + 0.5f);
            best = fminf(best, fminf(fabsf(in - (k - 0.5f) * step), fabsf(in - (k + 0.5f) * step)));
        }
    }
    return best;
}

/* The slack as travel ticks, less a margin for the rounding of distances measured in floats
 * (a few ulps of the coordinates), rounded down; 0 (due at the next update) when none is left. */
static uint32_t slack_ticks(float slack, float d, const float camera[3]) {
    float reach = d;
    for (int i = 0; i < 3; i++) {
        reach = fmaxf(reach, fabsf(camera[i]));
    }
    slack -= 0.01f + 4e-6f * reach;
    if (!(slack > 0.0f)) {
        return 0;
    }
    return (uint32_t)((double)fminf(slack, LOD_SLACK_MAX) * LOD_TICKS_PER_M);
}

/* Where model e stands, for its distance (NULL: not placed yet). An entity with a Transform stands
 * at its GlobalTransform, once the transform system has made it; one without passes its
 * parent's placement through to the model it spawns (the nearest ancestor with a
 * GlobalTransform, the origin at the top), which is where that model is drawn. */
static const float *model_place(const rill_world *w, rill_entity e) {
    static const float origin[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const rill_builtins *b = rill_world_builtin(w);
    for (rill_entity p = e; p; p = rill_world_get_parent(w, p)) {
        const float *m = rill_world_global_matrix(w, p);
        if (m || rill_world_has(w, p, b->transform)) {
            return m;
        }
    }
    return origin;
}

/* What model e (n levels) should show seen from camera (NULL: the base whole), and in *ticks
 * how far the camera may travel before that could change. */
static shown_state wanted(const rill_lod_system *s, rill_entity e, uint32_t n, const float *camera,
                          uint32_t *ticks) {
    shown_state want = {0, -1, 0};
    *ticks = (uint32_t)((double)LOD_SLACK_MAX * LOD_TICKS_PER_M);
    if (camera) {
        rill_lod_settings st = settings_of(s, e);
        rill_lod_bands bands;
        rill_lod_bands_make(&st, n, &bands);
        const float *m = model_place(s->world, e);
        float d = 0.0f;
        if (m) {
            float dx = m[12] - camera[0], dy = m[13] - camera[1], dz = m[14] - camera[2];
            d = sqrtf(dx * dx + dy * dy + dz * dz);
        }
        want = state_of(rill_lod_pick_at(&bands, d));
        *ticks = slack_ticks(slack_at(&bands, d), d, camera);
    }
    const rill_render_mode_component *rm = rill_world_get(s->world, e, s->comps->render_mode);
    if (rm && rm->mode == RILL_RENDER_MODE_HIDDEN) {
        want = (shown_state){-1, -1, 0};
    }
    return want;
}

/* Measures model e (n levels) and shows what it should; returns its new word. */
static uint64_t check(rill_lod_system *s, rill_entity e, uint32_t n, uint64_t word,
                      const float *camera) {
    uint32_t ticks;
    shown_state want = wanted(s, e, n, camera, &ticks);
    shown_state had = unpack_state(word);
    uint64_t want_v = pack_state(want);
    if (pack_state(had) != want_v) {
        apply_state(s, e, n, had, want);
        s->stats.switches += had.a != want.a || had.b != want.b;
    }
    uint32_t due = (uint32_t)s->watch.travel + ticks;
    return want_v | LOD_WORD_CHECKED | (uint64_t)due << 32;
}

/* The model system's picker: new trees spawn showing what the first check will want, measured
 * from the spawn camera (else the last update's camera), so that check finds nothing to switch.
 * The word is left unchecked (the check still measures it, from this update's camera). Without
 * a camera, or before the Model entity has a world position, they spawn as without a picker. */
static bool pick_at_spawn(void *user, rill_entity e, uint32_t n, rill_scene_model_spawn_pick *out) {
    const rill_lod_system *s = user;
    const float *camera = s->has_spawn_camera   ? s->spawn_camera
                          : s->watch.had_camera ? s->watch.camera
                                                : NULL;
    if (!camera || !model_place(s->world, e)) {
        return false;
    }
    uint32_t ticks;
    shown_state want = wanted(s, e, n, camera, &ticks);
    float f = (float)want.q / (float)FADE_STEPS;
    for (uint32_t k = 0; k < n; k++) {
        out->shown[k] = (int32_t)k == want.a || (int32_t)k == want.b;
        out->lod_fade[k] = want.b < 0 ? 0.0f : (int32_t)k == want.b ? f : -f;
    }
    out->level_state = pack_state(want);
    return true;
}

void rill_lod_system_set_spawn_camera(rill_lod_system *s, const float camera[3]) {
    if (!s) {
        return;
    }
    s->has_spawn_camera = camera != NULL;
    if (camera) {
        memcpy(s->spawn_camera, camera, sizeof s->spawn_camera);
    }
}

static void count_shown(rill_lod_stats *st, uint64_t word) {
    shown_state v = unpack_state(word);
    if (v.a >= 0) {
        st->per_level[v.a]++;
    } else {
        st->culled++;
    }
    st->fading += v.b >= 0;
}

/* The squared distance from camera (NULL: 0) to model e, for choosing the nearest. */
static float distance2(const rill_lod_system *s, rill_entity e, const float *camera) {
    const float *m = camera ? model_place(s->world, e) : NULL;
    if (!m) {
        return 0.0f;
    }
    float dx = m[12] - camera[0], dy = m[13] - camera[1], dz = m[14] - camera[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Measures the due models, or within the check budget the ones rill__lod_due_choose puts first;
 * the others stay due (unchecked, so an update that made every model due is not forgotten) and
 * keep showing what they showed. */
static void check_due(rill_lod_system *s, const float *camera) {
    rill__lod_due *due = s->due.data;
    uint32_t len = s->due.len;
    if (s->check_budget && len > s->check_budget) {
        for (uint32_t i = 0; i < len; i++) {
            due[i].d2 = distance2(s, due[i].entity, camera);
        }
    }
    uint32_t now = rill__lod_due_choose(due, len, s->check_budget, &s->sweep);
    for (uint32_t i = 0; i < len; i++) {
        if (i < now) {
            *due[i].word = check(s, due[i].entity, due[i].levels, *due[i].word, camera);
        } else {
            *due[i].word &= ~LOD_WORD_CHECKED;
        }
        count_shown(&s->stats, *due[i].word);
    }
    s->stats.checked = now;
    s->stats.deferred = len - now;
}

void rill_lod_system_update(rill_lod_system *s, const float camera[3]) {
    if (!s) {
        return;
    }
    memset(s->stats.per_level, 0, sizeof s->stats.per_level);
    s->stats.models = 0;
    s->stats.culled = 0;
    s->stats.fading = 0;
    bool all = rill__lod_watch_update(&s->watch, s->world, s->models, s->comps, camera);
    uint32_t now = (uint32_t)s->watch.travel, peak = s->due.len;
    rill_array_clear(&s->due);
    rill_entity e;
    uint64_t *word;
    uint32_t n, checked_now = 0;
    for (uint32_t it = 0; (n = rill_scene_models_each_state(s->models, &it, &e, &word));) {
        if (n < 2 && !(*word & STATE_SET) && !culls(s, e)) {
            continue; /* no baked levels and no cull distance: the base tree draws as spawned */
        }
        s->stats.models++;
        uint64_t v = *word;
        /* Due: never checked, or the travel since reached the stored point (wrap-safe). */
        if (all || !(v & LOD_WORD_CHECKED) || (int32_t)(now - (uint32_t)(v >> 32)) >= 0) {
            if (rill_array_push(&s->due, ((rill__lod_due){word, e, n, it - 1u, 0.0f}))) {
                continue; /* measured below, with the others due */
            }
            *word = v = check(s, e, n, v, camera); /* out of memory: measured at once */
            checked_now++;
        }
        count_shown(&s->stats, v);
    }
    check_due(s, camera);
    s->stats.checked += checked_now;
    rill_array_trim(&s->due, peak > s->due.len ? peak : s->due.len, 1024u);
}

void rill_lod_system_set_check_budget(rill_lod_system *s, uint32_t max_checks) {
    if (s) {
        s->check_budget = max_checks;
    }
}

int32_t rill_lod_system_level(const rill_lod_system *s, rill_entity model_entity) {
    return rill_lod_system_levels(s, model_entity, NULL, NULL);
}

int32_t rill_lod_system_levels(const rill_lod_system *s, rill_entity model_entity,
                               int32_t *out_next, float *out_fade) {
    if (out_next) {
        *out_next = -1;
    }
    if (out_fade) {
        *out_fade = 0.0f;
    }
    if (!s || !rill_scene_models_levels(s->models, model_entity, NULL)) {
        return -1;
    }
    uint64_t word = rill_scene_models_level_state(s->models, model_entity);
    shown_state st = unpack_state(word);
    if (out_next) {
        *out_next = st.b;
    }
    if (out_fade && st.b >= 0) {
        *out_fade = (float)st.q / (float)FADE_STEPS;
    }
    return st.a;
}

void rill_lod_system_get_stats(const rill_lod_system *s, rill_lod_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (s) {
        *out = s->stats;
    }
}

rill_entity rill_lod_camera(const rill_world *world, rill_run_mode mode, float out_position[3]) {
    /* Bands are not gated: in edit and server modes the editor or game camera still counts. */
    rill_entity cam = rill_streaming_camera_pick(
        world, rill_run_mode_streams(mode) ? mode : RILL_RUN_MODE_SIMULATE);
    if (cam && out_position) {
        const float *m = rill_world_global_matrix(world, cam);
        for (int i = 0; i < 3; i++) {
            out_position[i] = m ? m[12 + i] : 0.0f;
        }
    }
    return cam;
}
