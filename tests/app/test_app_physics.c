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
    for (int i = 0; i < 10; i++)
        rill_app_frame(app);
    rill_physics_stats st;
    rill_physics_get_stats(phys, &st);
    assert_int_equal(st.steps, 0);
    assert_int_equal(rill_app_set_run_mode(app, RILL_RUN_MODE_GAME), RILL_OK);
    for (int i = 0; i < 240; i++)
        rill_app_frame(app);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_app_steps_physics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
