/* terrain_system.c: gives the app a terrain system (rill/terrain.h) driven by the app's stream as
 * one of its streamers (rill/stream/terrain.h), so the chunks follow the gate, the streaming camera
 * and restore like every other streamer; and the flush boot loads and tools use. */
#include "rill/app.h"
#include "rill/stream/terrain.h"

#include <string.h>

struct rill_app_terrain {
    rill_app *app;
    rill_terrain_system *sys;
};

rill_terrain_view rill_app_terrain_view(const rill_app *app) {
    rill_terrain_view v = {0};
    if (!app) {
        return v;
    }
    /* Picked now rather than read from StreamingState, so a flush outside the frame (boot, tools)
     * sees the camera the world has at that moment. */
    v.streaming = rill_streaming_active(app);
    v.has_camera = rill_app_streaming_camera(app, v.camera_position) != RILL_ENTITY_NULL;
    return v;
}

rill_app_terrain *rill_app_enable_terrain(rill_app *app, rill_physics *physics, rill_error *err) {
    if (!app) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_app_enable_terrain: NULL app");
        return NULL;
    }
    rill_app_terrain *t = rill_calloc_tagged(1, sizeof *t, RILL_MEM_APP);
    if (!t) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_app_enable_terrain: out of memory");
        return NULL;
    }
    t->app = app;
    rill_terrain_system_desc d = {.world = rill_app_world(app),
                                  .jobs = rill_app_jobs(app),
                                  .vfs = rill_app_vfs(app),
                                  .physics = physics};
    t->sys = rill_terrain_system_create(&d, err);
    if (!t->sys) {
        rill_free(t);
        return NULL;
    }
    /* The stream runs it in post_update after transform propagation, with this frame's gate. */
    if (!rill_stream_add_terrain(rill_app_stream(app), t->sys)) {
        rill_terrain_system_destroy(t->sys);
        rill_free(t);
        rill_error_set(err, RILL_ERR_LIMIT,
                       "rill_app_enable_terrain: the app's stream has no room for a streamer");
        return NULL;
    }
    return t;
}

rill_terrain_system *rill_app_terrain_system(const rill_app_terrain *t) {
    return t ? t->sys : NULL;
}

void rill_app_terrain_flush(rill_app_terrain *t) {
    if (!t) {
        return;
    }
    rill_terrain_view v = rill_app_terrain_view(t->app);
    rill_terrain_system_flush(t->sys, &v);
}

void rill_app_disable_terrain(rill_app_terrain *t) {
    if (!t) {
        return;
    }
    rill_stream_remove_terrain(rill_app_stream(t->app), t->sys);
    rill_terrain_system_destroy(t->sys);
    rill_free(t);
}
