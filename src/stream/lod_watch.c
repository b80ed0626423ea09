/* lod_watch.c: what makes a model's LOD check due, for the LOD system (lod_system.c). A check
 * holds until the camera has travelled as far as the model's slack (the distance to the nearest
 * point where its shown state could change), so the watch counts the camera's path length, and
 * makes due at once the models whose other inputs changed: moved (the world's changed-transforms
 * list), MeshLod added, edited in place or removed (the MeshLod storage compared with a copy: it
 * is small), and RenderMode added or replaced on the Model entity (an add observer sends the
 * entity as an event; a RenderMode written in place is seen at the model's next check).
 */
#include "stream_internal.h"

#include <math.h>
#include <string.h>

_Static_assert(sizeof(void *) >= 8, "the observer's user word packs two 32-bit ids");

/* The observer: user packs the event id (low half) and the Model component id (high half). */
static void on_render_mode(rill_world *w, rill_entity e, void *data, void *user) {
    (void)data;
    uint64_t ids = (uint64_t)(uintptr_t)user;
    if (rill_world_has(w, e, (rill_component){(uint32_t)(ids >> 32)})) {
        rill_world_send_event(w, (rill_event){(uint32_t)ids}, &e);
    }
}

bool rill__lod_watch_init(rill__lod_watch *lw, rill_world *world, const rill_model_components *mc) {
    memset(lw, 0, sizeof *lw);
    lw->mode_set = rill_world_find_event(world, "ModelRenderModeSet");
    if (!lw->mode_set.id) {
        lw->mode_set = rill_world_register_event(world, "ModelRenderModeSet", sizeof(rill_entity));
    }
    uint64_t ids = (uint64_t)lw->mode_set.id | (uint64_t)mc->model.id << 32;
    /* Moves before the watch existed do not matter: every model starts due. */
    rill_world_changed_transforms_since(world, &lw->moved_at, NULL, NULL);
    return lw->mode_set.id && mc->model.id &&
           rill_world_observe_add(world, mc->render_mode, on_render_mode, (void *)(uintptr_t)ids);
}

void rill__lod_watch_free(rill__lod_watch *lw) {
    rill_array_free(&lw->lod_entities);
    rill_array_free(&lw->lod_values);
}

static void make_due(rill_scene_models *models, rill_entity e) {
    uint64_t *word = rill_scene_models_state_of(models, e);
    if (word) {
        *word &= ~LOD_WORD_CHECKED;
    }
}

/* The camera's step since the last update, rounded up to ticks. False when every model is due. */
static bool advance(rill__lod_watch *lw, const float *camera) {
    bool had = lw->had_camera, ok = true;
    lw->had_camera = camera != NULL;
    if (!camera) {
        return !had;
    }
    if (had) {
        double d2 = 0.0;
        for (int i = 0; i < 3; i++) {
            double d = (double)camera[i] - (double)lw->camera[i];
            d2 += d * d;
        }
        double step = sqrt(d2);
        ok = step < (double)LOD_SLACK_MAX; /* NaN too */
        if (ok) {
            lw->travel += (uint64_t)ceil(step * LOD_TICKS_PER_M);
        }
    }
    memcpy(lw->camera, camera, sizeof lw->camera);
    return had && ok;
}

/* Models whose MeshLod changed since the last call, by comparing the storage with a copy. False
 * when the copy cannot be kept (out of memory): every model is due then. */
static bool mesh_lod_edits(rill__lod_watch *lw, rill_world *world, rill_scene_models *models,
                           rill_component comp) {
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = rill_world_component_dense(world, comp, &ents, &data);
    const rill_mesh_lod *vals = data;
    uint32_t had = lw->lod_entities.len;
    if (n == had && (n == 0 || (memcmp(ents, lw->lod_entities.data, n * sizeof *ents) == 0 &&
                                memcmp(vals, lw->lod_values.data, n * sizeof *vals) == 0))) {
        return true;
    }
    bool same_set = n == had && memcmp(ents, lw->lod_entities.data, n * sizeof *ents) == 0;
    for (uint32_t i = 0; i < had; i++) {
        if (!same_set || memcmp(&vals[i], &lw->lod_values.data[i], sizeof *vals) != 0) {
            make_due(models, lw->lod_entities.data[i]);
        }
    }
    for (uint32_t i = 0; i < n && !same_set; i++) {
        make_due(models, ents[i]);
    }
    rill_array_clear(&lw->lod_entities);
    rill_array_clear(&lw->lod_values);
    if (!rill_array_reserve(&lw->lod_entities, n) || !rill_array_reserve(&lw->lod_values, n)) {
        return false;
    }
    if (n) {
        memcpy(lw->lod_entities.data, ents, n * sizeof *ents);
        memcpy(lw->lod_values.data, vals, n * sizeof *vals);
    }
    lw->lod_entities.len = lw->lod_values.len = n;
    return true;
}

bool rill__lod_watch_update(rill__lod_watch *lw, rill_world *world, rill_scene_models *models,
                            const rill_model_components *mc, const float *camera) {
    bool all = !advance(lw, camera);
    const rill_entity *moved = NULL;
    uint32_t n = 0;
    all |= !rill_world_changed_transforms_since(world, &lw->moved_at, &moved, &n);
    for (uint32_t i = 0; i < n && !all; i++) {
        if (rill_world_has(world, moved[i], mc->model)) {
            make_due(models, moved[i]);
        }
    }
    all |= !mesh_lod_edits(lw, world, models, mc->mesh_lod);
    /* Events live two frames: one sent after this update is read by the next. */
    uint32_t sent = rill_world_event_count(world, lw->mode_set);
    for (uint32_t i = 0; i < sent && !all; i++) {
        rill_entity e;
        memcpy(&e, rill_world_event_at(world, lw->mode_set, i), sizeof e);
        make_due(models, e);
    }
    return all;
}
