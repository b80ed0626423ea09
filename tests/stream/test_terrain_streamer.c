/* The terrain-chunk streamer (rill/stream/terrain.h): a terrain system driven by rill_stream_update
 * follows the gate and the streaming camera like every streamer: chunks near the camera come in
 * with at most max_rebuilds applied per update and a collider exactly for each resident chunk; with
 * no camera nothing changes; closing the gate runs restore, which queues every missing chunk at
 * once, and the following updates apply them under the same limit; once removed, updates leave the
 * terrain alone. */
#include "rill_test.h"

#include "rill/stream/terrain.h"

typedef struct fixture {
    rill_world *world;
    rill_jobs *jobs;
    rill_physics *phys;
    rill_terrain_system *sys;
    rill_stream *stream;
    rill_entity terrain, camera;
} fixture;

static rill_entity spawn_camera(fixture *f, float x) {
    rill_entity cam = rill_world_spawn(f->world);
    rill_transform tr = rill_transform_identity();
    tr.translation[0] = x;
    tr.translation[1] = 20.0f;
    tr.translation[2] = 8.0f;
    rill_world_set_transform(f->world, cam, &tr);
    rill_camera c = {.active = true, .role = RILL_CAMERA_ROLE_GAME};
    rill_world_add(f->world, cam, rill_world_builtin(f->world)->camera, &c);
    return cam;
}

static void setup(fixture *f) {
    memset(f, 0, sizeof *f);
    rill_error err = {0};
    f->world = rill_world_create(NULL, NULL);
    f->jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    f->phys = rill_physics_create(&(rill_physics_desc){.world = f->world}, &err);
    f->sys = rill_terrain_system_create(
        &(rill_terrain_system_desc){.world = f->world, .jobs = f->jobs, .physics = f->phys}, &err);
    f->stream = rill_stream_create(
        &(rill_stream_desc){.world = f->world, .run_mode = RILL_RUN_MODE_GAME}, &err);
    assert_non_null(f->phys);
    assert_non_null(f->sys);
    assert_non_null(f->stream);
    assert_true(rill_stream_add_terrain(f->stream, f->sys));
    /* 8 chunks of 16 m in a row along +X; radius 16: in within 16 m of a chunk, out beyond 32. */
    rill_terrain t;
    rill_terrain_defaults(&t);
    t.chunks_x = 8;
    t.chunks_z = 1;
    t.chunk_size = 16.0f;
    t.resolution = 9;
    t.height_scale = 10.0f;
    t.stream = true;
    t.stream_radius = 16.0f;
    f->terrain = rill_world_spawn(f->world);
    rill_transform tr = rill_transform_identity();
    rill_world_set_transform(f->world, f->terrain, &tr);
    rill_world_add(f->world, f->terrain, rill_world_find_component(f->world, "Terrain"), &t);
    f->camera = spawn_camera(f, 8.0f);
}

static void teardown(fixture *f) {
    rill_stream_destroy(f->stream);
    rill_terrain_system_destroy(f->sys);
    rill_physics_destroy(f->phys);
    rill_jobs_destroy(f->jobs);
    rill_world_destroy(f->world);
}

/* One frame: completions drained (pre_update), transforms propagated, the stream updated. Checks
 * the per-frame limit and that colliders match resident chunks after every update. */
static void frame(fixture *f) {
    rill_jobs_drain(f->jobs, 0);
    rill_world_update_transforms(f->world);
    rill_stream_update(f->stream);
    rill_terrain_info info;
    assert_true(rill_terrain_get_info(f->sys, f->terrain, &info));
    assert_true(info.rebuilds_last_update <= 2);
    assert_int_equal(info.colliders, info.resident);
    rill_physics_stats ps;
    rill_physics_get_stats(f->phys, &ps);
    assert_int_equal(ps.static_colliders, info.resident);
}

static uint32_t resident_mask(const fixture *f) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < 8; i++) {
        if (rill_terrain_chunk_get_state(f->sys, f->terrain, i, 0) == RILL_TERRAIN_CHUNK_RESIDENT) {
            m |= 1u << i;
        }
    }
    return m;
}

static void test_terrain_follows_gate_and_camera(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    for (int i = 0; i < 10; i++) {
        frame(&f);
    }
    assert_int_equal(resident_mask(&f), 0x03u); /* x = 8: chunks 0 and 1 */

    /* No camera: residency stays as it is. */
    rill_world_despawn(f.world, f.camera);
    for (int i = 0; i < 10; i++) {
        frame(&f);
    }
    assert_int_equal(resident_mask(&f), 0x03u);

    /* A camera at the far end: chunks 6 and 7 come in, 0 and 1 go out. */
    f.camera = spawn_camera(&f, 120.0f);
    uint32_t applied = 0;
    for (int i = 0; i < 10; i++) {
        frame(&f);
        rill_terrain_info info;
        rill_terrain_get_info(f.sys, f.terrain, &info);
        applied += info.rebuilds_last_update;
    }
    assert_int_equal(resident_mask(&f), 0xC0u);
    assert_int_equal(applied, 2);

    /* The gate closes: restore queues the six missing chunks at once, before any update. */
    assert_true(rill_stream_set_mode(f.stream, RILL_RUN_MODE_EDIT));
    rill_terrain_info info;
    rill_terrain_get_info(f.sys, f.terrain, &info);
    assert_int_equal(info.building, 6);
    assert_int_equal(info.resident, 2);
    /* Applied at most 2 a frame: 3 frames after the builds land, all 8 are back. */
    frame(&f); /* builds run in the drain of the next frame, applied by its update */
    rill_terrain_get_info(f.sys, f.terrain, &info);
    assert_int_equal(info.resident, 2 + info.rebuilds_last_update);
    for (int i = 0; i < 4; i++) {
        frame(&f);
    }
    assert_int_equal(resident_mask(&f), 0xFFu);

    /* Removed: the stream no longer drives it (back in GAME, nothing streams out). */
    assert_true(rill_stream_remove_terrain(f.stream, f.sys));
    assert_false(rill_stream_remove_terrain(f.stream, f.sys));
    assert_true(rill_stream_set_mode(f.stream, RILL_RUN_MODE_GAME));
    for (int i = 0; i < 5; i++) {
        frame(&f);
    }
    assert_int_equal(resident_mask(&f), 0xFFu);
    teardown(&f);
}

int main(void) {
    rill_log_set_level(RILL_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terrain_follows_gate_and_camera),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
