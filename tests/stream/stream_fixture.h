/* stream_fixture.h: a world with a VFS over a temp folder, a scene loader on a fake clock (each
 * applied Tick costs a fixed time, so loads span frames) and a stream; scripted camera moves and a
 * frame function that runs loader -> transforms -> stream -> events as the app does. */
#ifndef RILL_STREAM_FIXTURE_H
#define RILL_STREAM_FIXTURE_H

#include "rill/stream.h"
#include "scene/scene_test_common.h"

typedef struct sfx {
    test_scene_env env; /* world, VFS, loader on a fake clock */
    rill_stream *stream;
    rill_component inst;
    rill_entity camera;
} sfx;

static inline void sfx_init(sfx *fx, rill_run_mode mode, uint64_t budget_ns, uint64_t cost_ns) {
    memset(fx, 0, sizeof *fx);
    test_scene_env_init(&fx->env, "stream", 0, budget_ns, cost_ns);
    fx->inst = rill_scene_register(fx->env.world).instance;
    rill_error err = {0};
    fx->stream = rill_stream_create(
        &(rill_stream_desc){.world = fx->env.world, .scenes = fx->env.loader, .run_mode = mode},
        &err);
    assert_non_null(fx->stream);
}

static inline void sfx_done(sfx *fx) {
    rill_stream_destroy(fx->stream);
    test_scene_env_done(&fx->env);
}

/* A scene of n entities with a Tick each, spread along x from 0 to (n-1) * step. */
static inline void sfx_scene(sfx *fx, const char *rel, uint32_t n, float step) {
    rill_strbuf sb = {0};
    rill_strbuf_printf(&sb, "rsn 1\n");
    for (uint32_t i = 1; i <= n; i++) {
        rill_strbuf_printf(&sb,
                           "entity %u { Tick { n: %u } Transform { translation: (%g, 0, 0) } }\n",
                           i, i, (double)((float)(i - 1) * step));
    }
    test_write_file(fx->env.dir, rel, sb.data);
    rill_strbuf_free(&sb);
}

static inline rill_entity sfx_instance(sfx *fx, const char *scene, float x, float z, float load_r,
                                       float unload_r, float half_extent) {
    rill_entity e = rill_world_spawn(fx->env.world);
    rill_transform t = {.translation = {x, 0, z}, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}};
    rill_world_set_transform(fx->env.world, e, &t);
    rill_scene_instance si = {.scene = rill_intern(scene),
                              .streamed = true,
                              .load_radius = load_r,
                              .unload_radius = unload_r,
                              .bounds_min = {-half_extent, -half_extent, -half_extent},
                              .bounds_max = {half_extent, half_extent, half_extent}};
    assert_non_null(rill_world_add(fx->env.world, e, fx->inst, &si));
    return e;
}

static inline void sfx_camera(sfx *fx, float x, float z) {
    if (!fx->camera) {
        fx->camera = rill_world_spawn(fx->env.world);
        rill_camera cam = {.active = true, .role = RILL_CAMERA_ROLE_GAME};
        assert_non_null(rill_world_add(fx->env.world, fx->camera,
                                       rill_world_builtin(fx->env.world)->camera, &cam));
    }
    rill_transform t = {.translation = {x, 0, z}, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}};
    rill_world_set_transform(fx->env.world, fx->camera, &t);
}

static inline void sfx_frame(sfx *fx) {
    rill_scene_loader_update(fx->env.loader);
    rill_world_update_transforms(fx->env.world);
    rill_stream_update(fx->stream);
    rill_world_update_events(fx->env.world);
}

static inline void sfx_frames(sfx *fx, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        sfx_frame(fx);
    }
}

static inline rill_stream_stats sfx_stats(sfx *fx) {
    rill_stream_stats st;
    rill_stream_get_stats(fx->stream, &st);
    return st;
}

#endif
