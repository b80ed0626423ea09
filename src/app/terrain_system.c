/* terrain_system.c: runs the terrain system (rill/terrain.h) once per frame in post_update, right
 * after the app refreshes the streaming gate, with the gate's state and camera as its view. The
 * terrain module sits below the gate and cannot read it through the app; this is the glue. */
#include "rill/app.h"

#include <string.h>

struct rill_app_terrain {
    rill_app *app;
    rill_terrain_system *sys;
    rill_system system;
};

rill_terrain_view rill_app_terrain_view(const rill_app *app) {
    rill_terrain_view v = {0};
    if (!app)
        return v;
    /* Picked now rather than read from StreamingState, so a flush outside the frame (boot, tools)
     * sees the camera the world has at that moment. */
    v.streaming = rill_streaming_active(app);
    v.has_camera = rill_app_streaming_camera(app, v.camera_position) != RILL_ENTITY_NULL;
    return v;
}

static void sys_terrain(rill_app *app, void *user) {
    rill_app_terrain *t = user;
    rill_terrain_view v = rill_app_terrain_view(app);
    rill_terrain_system_update(t->sys, &v);
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
    /* After transform propagation and the gate refresh (BUILTIN + 1): this frame's camera. */
    t->system = rill_app_add_system(app, &(rill_system_desc){.name = "rill.terrain",
                                                             .stage = RILL_STAGE_POST_UPDATE,
                                                             .order = RILL_SYSTEM_ORDER_BUILTIN + 2,
                                                             .fn = sys_terrain,
                                                             .user = t});
    if (!t->system.id) {
        rill_terrain_system_destroy(t->sys);
        rill_free(t);
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                       "rill_app_enable_terrain: cannot add the system");
        return NULL;
    }
    return t;
}

rill_terrain_system *rill_app_terrain_system(const rill_app_terrain *t) {
    return t ? t->sys : NULL;
}

void rill_app_terrain_flush(rill_app_terrain *t) {
    if (!t)
        return;
    rill_terrain_view v = rill_app_terrain_view(t->app);
    rill_terrain_system_flush(t->sys, &v);
}

void rill_app_disable_terrain(rill_app_terrain *t) {
    if (!t)
        return;
    rill_app_remove_system(t->app, t->system);
    rill_terrain_system_destroy(t->sys);
    rill_free(t);
}
