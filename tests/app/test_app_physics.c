/* test_app_physics.c: physics stepped by the app in fixed_update, transforms written back and
 * propagated in the same frame, nothing stepped while time stands still (EDIT). */
#include "rill_test.h"

#include "rill/app.h"

#include <math.h>

static void test_app_steps_physics(void **state) {
    (void)state;
    rill_error err = {0};
    rill_app *app = rill_app_create(&(rill_app_desc){.deterministic = true, .root = ""}, &err);
    assert_non_null(app);
    rill_app_physics *ap = rill_app_enable_physics(app, NULL, &err);
    assert_non_null(ap);
    rill_physics *phys = rill_app_physics_world(ap);
    rill_world *w = rill_app_world(app);
    rill_physics_components c = rill_physics_register(w);
    rill_entity ground = rill_world_spawn(w);
    rill_transform t = rill_transform_identity();
    rill_world_set_transform(w, ground, &t);
    rill_collider col;
    rill_type_apply_defaults(rill_world_component_type(w, c.collider), &col);
    col.half_extents[0] = col.half_extents[2] = 10.0f;
    rill_world_add(w, ground, c.collider, &col);
    rill_entity ball = rill_world_spawn(w);
    t.translation[1] = 3.0f;
    rill_world_set_transform(w, ball, &t);
    col.shape = RILL_COLLIDER_SPHERE;
    col.radius = 0.5f;
    rill_world_add(w, ball, c.collider, &col);
    rill_world_add(w, ball, c.rigid_body, NULL);

    /* EDIT: time stands still, no fixed steps, nothing falls. */
    assert_int_equal(rill_app_set_run_mode(app, RILL_RUN_MODE_EDIT), RILL_OK);
    for (int i = 0; i < 10; i++) {
        rill_app_frame(app);
    }
    rill_physics_stats st;
    rill_physics_get_stats(phys, &st);
    assert_int_equal(st.steps, 0);
    assert_int_equal(rill_app_set_run_mode(app, RILL_RUN_MODE_GAME), RILL_OK);
    for (int i = 0; i < 240; i++) {
        rill_app_frame(app);
    }
    rill_physics_get_stats(phys, &st);
    assert_int_equal(st.steps, 240);
    assert_int_equal(st.bodies, 1);
    /* Resting on the ground (top at 0.5): its GlobalTransform, propagated by the app, says so. */
    const float *m = rill_world_global_matrix(w, ball);
    assert_non_null(m);
    assert_true(fabsf(m[13] - 1.0f) < 0.02f);
    rill_app_disable_physics(ap);
    rill_app_destroy(app);
}

/* The gate drives terrain streaming through the app: a game camera near one end keeps the chunks
 * near it resident; a body dropped there settles on the terrain's surface; EDIT brings every
 * chunk back. */
static void test_app_terrain_streams_and_bodies_settle(void **state) {
    (void)state;
    rill_error err = {0};
    rill_app *app = rill_app_create(&(rill_app_desc){.deterministic = true, .root = ""}, &err);
    assert_non_null(app);
    rill_app_physics *ap = rill_app_enable_physics(app, NULL, &err);
    rill_app_terrain *at = rill_app_enable_terrain(app, rill_app_physics_world(ap), &err);
    assert_non_null(at);
    rill_world *w = rill_app_world(app);
    rill_component tc = rill_world_find_component(w, "Terrain");
    rill_terrain t;
    rill_terrain_defaults(&t);
    t.chunks_x = 8;
    t.chunks_z = 1;
    t.chunk_size = 16.0f;
    t.resolution = 17;
    t.height_scale = 10.0f;
    t.stream = true;
    t.stream_radius = 16.0f;
    rill_entity te = rill_world_spawn(w);
    rill_transform tr = rill_transform_identity();
    rill_world_set_transform(w, te, &tr);
    rill_world_add(w, te, tc, &t);
    rill_entity cam = rill_world_spawn(w);
    tr.translation[0] = 8.0f;
    tr.translation[1] = 20.0f;
    tr.translation[2] = 8.0f;
    rill_world_set_transform(w, cam, &tr);
    rill_world_add(w, cam, rill_world_builtin(w)->camera, NULL);

    rill_physics_components pc = rill_physics_register(w);
    rill_entity ball = rill_world_spawn(w);
    tr.translation[0] = 10.0f;
    tr.translation[1] = 30.0f;
    rill_world_set_transform(w, ball, &tr);
    rill_collider col;
    rill_type_apply_defaults(rill_world_component_type(w, pc.collider), &col);
    col.shape = RILL_COLLIDER_SPHERE;
    col.radius = 0.5f;
    rill_world_add(w, ball, pc.collider, &col);
    rill_world_add(w, ball, pc.rigid_body, NULL);

    for (int i = 0; i < 300; i++) {
        rill_app_frame(app);
    }
    rill_terrain_system *ts = rill_app_terrain_system(at);
    rill_terrain_info info;
    assert_true(rill_terrain_get_info(ts, te, &info));
    assert_int_equal(info.status, RILL_TERRAIN_STATUS_READY);
    /* Camera at x = 8: chunks 0..2 are within 16 m of it (chunk 2 starts at 32, 24 m away: kept
     * out), so chunks 0 and 1 are in and the far end is out. */
    assert_int_equal(rill_terrain_chunk_get_state(ts, te, 0, 0), RILL_TERRAIN_CHUNK_RESIDENT);
    assert_int_equal(rill_terrain_chunk_get_state(ts, te, 1, 0), RILL_TERRAIN_CHUNK_RESIDENT);
    assert_int_equal(rill_terrain_chunk_get_state(ts, te, 7, 0), RILL_TERRAIN_CHUNK_UNLOADED);
    float h;
    assert_true(rill_terrain_height_at(ts, te, 10.0f, 8.0f, &h, NULL));
    const float *m = rill_world_global_matrix(w, ball);
    assert_true(m[13] > h && m[13] < h + 1.5f); /* resting on the ground near (10, 8) */
    rill_physics_stats ps;
    rill_physics_get_stats(rill_app_physics_world(ap), &ps);
    assert_int_equal(ps.static_colliders, info.resident);

    assert_int_equal(rill_app_set_run_mode(app, RILL_RUN_MODE_EDIT), RILL_OK);
    rill_app_terrain_flush(at);
    assert_true(rill_terrain_get_info(ts, te, &info));
    assert_int_equal(info.resident, 8);
    rill_app_disable_terrain(at);
    rill_app_disable_physics(ap);
    rill_app_destroy(app);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_app_steps_physics),
        cmocka_unit_test(test_app_terrain_streams_and_bodies_settle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
