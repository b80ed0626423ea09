/* gate.c: run modes, the streaming gate and the choice of the streaming camera, plus the distance
 * helpers every streamer measures with. These are pure functions of a mode, a world and a few
 * points, kept apart from the stream object so the rules can be tested (and read) on their own.
 */
#include "rill/stream.h"

#include <math.h>

const char *rill_run_mode_name(rill_run_mode mode) {
    switch (mode) {
        RILL_RUN_MODE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "invalid";
    }
}

bool rill_run_mode_streams(rill_run_mode mode) {
    /* Edit mode keeps the whole world resident for authoring; a dedicated server has no camera
     * and its gameplay needs the full world. Paused keeps streaming on so that resuming does not
     * reload what was just unloaded. */
    return mode == RILL_RUN_MODE_GAME || mode == RILL_RUN_MODE_PLAY ||
           mode == RILL_RUN_MODE_PAUSED || mode == RILL_RUN_MODE_SIMULATE;
}

rill_entity rill_streaming_camera_pick(const rill_world *world, rill_run_mode mode) {
    if (!world || !rill_run_mode_streams(mode)) {
        return RILL_ENTITY_NULL;
    }
    const bool editor_ok = mode == RILL_RUN_MODE_SIMULATE;
    const rill_entity *entities = NULL;
    void *data = NULL;
    uint32_t n =
        rill_world_component_dense(world, rill_world_builtin(world)->camera, &entities, &data);
    /* Dense storage order changes with removals, so "first" is decided by entity slot index,
     * which depends only on the world's history and not on the storage layout. */
    rill_entity best[4] = {0}; /* default game, first game, default editor, first editor */
    for (uint32_t i = 0; i < n; i++) {
        const rill_camera *cam = (const rill_camera *)data + i;
        if (!cam->active) {
            continue;
        }
        int slot;
        if (cam->role == RILL_CAMERA_ROLE_GAME) {
            slot = cam->is_default ? 0 : 1;
        } else if (cam->role == RILL_CAMERA_ROLE_EDITOR && editor_ok) {
            slot = cam->is_default ? 2 : 3;
        } else {
            continue;
        }
        rill_entity e = entities[i];
        if (!best[slot] || RILL_ENTITY_INDEX(e) < RILL_ENTITY_INDEX(best[slot])) {
            best[slot] = e;
        }
        /* A default camera is also a candidate as "first" of its role. */
        if ((slot == 0 || slot == 2) &&
            (!best[slot + 1] || RILL_ENTITY_INDEX(e) < RILL_ENTITY_INDEX(best[slot + 1]))) {
            best[slot + 1] = e;
        }
    }
    for (int i = 0; i < 4; i++) {
        if (best[i]) {
            return best[i];
        }
    }
    return RILL_ENTITY_NULL;
}

float rill_stream_distance_to_box(const float p[3], const float mn[3], const float mx[3]) {
    float d2 = 0.0f;
    for (int i = 0; i < 3; i++) {
        float lo = mn[i] < mx[i] ? mn[i] : mx[i];
        float hi = mn[i] < mx[i] ? mx[i] : mn[i];
        float d = p[i] < lo ? lo - p[i] : p[i] > hi ? p[i] - hi : 0.0f;
        d2 += d * d;
    }
    return sqrtf(d2);
}

void rill_stream_box_transform(const float m[16], const float lmin[3], const float lmax[3],
                               float out_min[3], float out_max[3]) {
    /* Each output axis is the translation plus, per input axis, the smaller (for min) or larger
     * (for max) of the two corner products: the same box the 8 transformed corners span. */
    for (int r = 0; r < 3; r++) {
        float lo = m[12 + r], hi = m[12 + r];
        for (int c = 0; c < 3; c++) {
            float a = m[c * 4 + r] * lmin[c], b = m[c * 4 + r] * lmax[c];
            lo += a < b ? a : b;
            hi += a < b ? b : a;
        }
        out_min[r] = lo;
        out_max[r] = hi;
    }
}
