/* The demo city's scripted doors (tools/demo_scripts.c, compiled in), run the way `rill run` runs
 * the generated project: rill_demo_add_life writes the demo's scripts into a project folder and
 * puts the two gate doors (and the district loader) into the world; the app runs them from that
 * folder, frame by frame. The doors stay shut while the camera is far, swing open about their
 * hinges at the script's speed once it comes within 60 m of the gate (Transform and the
 * propagated world matrix both change), and shut again when it leaves. */
#include "rill_test.h"

#include <math.h>

#include "demo.h"
#include "rill/app.h"

typedef struct fixture {
    char dir[512];
    rill_app *app;
    rill_world *w;
    rill_app_scripts *as;
    rill_entity camera, gate;
    rill_test_log log;
} fixture;

static const float GATE[3] = {100.0f, 0.0f, -50.0f};

static void open_fixture(fixture *f) {
    memset(f, 0, sizeof(*f));
    rill_test_tmpdir(f->dir, sizeof(f->dir), "demo_scripts");
    rill_error err = {0};
    f->app = rill_app_create(&(rill_app_desc){.deterministic = true, .root = f->dir}, &err);
    assert_non_null(f->app);
    f->w = rill_app_world(f->app);
    assert_int_equal(rill_app_register_components(f->w, NULL, NULL, &err), RILL_OK);
    f->as = rill_app_enable_scripts(f->app, NULL, &err);
    assert_non_null(f->as);
    /* What the demo's main scene holds that the doors need: the gate and a camera (500 m off). */
    f->gate = rill_world_spawn(f->w);
    rill_world_set_name(f->w, f->gate, "NM_Gate");
    rill_transform t = rill_transform_identity();
    memcpy(t.translation, GATE, sizeof(GATE));
    rill_world_set_transform(f->w, f->gate, &t);
    f->camera = rill_world_spawn(f->w);
    rill_world_set_name(f->w, f->camera, "Camera");
    t = rill_transform_identity();
    t.translation[0] = GATE[0] + 500.0f, t.translation[1] = 45.0f;
    rill_world_set_transform(f->w, f->camera, &t);
    rill_world_add(f->w, f->camera, RILL_COMPONENT_CAMERA, NULL);
    /* One 200 m cell: no car block fits, so only the doors and the loader are added. */
    rill_demo_layout l = {.side = 1, .districts = 1, .offset = 0.0f};
    uint32_t n = 0;
    assert_int_equal(rill_demo_add_life(f->w, f->dir, &l, &n, &err), RILL_OK);
    assert_int_equal(n, 3);
    rill_test_log_begin(&f->log);
}

static void close_fixture(fixture *f) {
    rill_test_log_end(&f->log);
    rill_app_disable_scripts(f->as);
    rill_app_destroy(f->app);
    rill_test_tmpdir_remove(f->dir);
}

static void frames(fixture *f, int n) {
    for (int i = 0; i < n; i++) {
        rill_app_frame(f->app);
    }
}

static void move_camera(fixture *f, float x, float z) {
    rill_transform t =
        *(const rill_transform *)rill_world_get(f->w, f->camera, RILL_COMPONENT_TRANSFORM);
    t.translation[0] = x, t.translation[2] = z;
    rill_world_set_transform(f->w, f->camera, &t);
}

static const float *rotation(fixture *f, rill_entity door) {
    const rill_transform *t = rill_world_get(f->w, door, RILL_COMPONENT_TRANSFORM);
    assert_non_null(t);
    return t->rotation;
}

static void test_gate_doors_open_when_the_camera_nears(void **state) {
    (void)state;
    fixture f;
    open_fixture(&f);
    rill_entity left = rill_world_find_by_name(f.w, "Gate door left");
    rill_entity right = rill_world_find_by_name(f.w, "Gate door right");
    assert_true(left && right);
    assert_true(rill_world_get_parent(f.w, left) == f.gate);
    float closed_left[4], closed_right[4], closed_matrix[16];
    memcpy(closed_left, rotation(&f, left), sizeof(closed_left));
    memcpy(closed_right, rotation(&f, right), sizeof(closed_right));

    frames(&f, 10); /* the camera 500 m away: shut */
    rill_scripts *s = rill_app_scripts_system(f.as);
    assert_true(rill_scripts_running(s, left) && rill_scripts_running(s, right));
    assert_memory_equal(rotation(&f, left), closed_left, sizeof(closed_left));
    assert_memory_equal(rotation(&f, right), closed_right, sizeof(closed_right));
    memcpy(closed_matrix, rill_world_global_matrix(f.w, left), sizeof(closed_matrix));

    /* 20 m in front of the gate: 30 frames of 1/60 s at 0.8 rad/s turn the left door -0.4 rad
     * about Y (it opens towards -1.45), the right one +0.4 from its half turn. */
    move_camera(&f, GATE[0], GATE[2] + 20.0f);
    frames(&f, 30);
    const float *rl = rotation(&f, left);
    assert_float_equal(rl[1], sinf(-0.2f), 1e-4);
    assert_float_equal(rl[3], cosf(-0.2f), 1e-4);
    const float *rr = rotation(&f, right);
    float yaw_right = 2.0f * atan2f(rr[1], rr[3]);
    float closed_yaw = 2.0f * atan2f(closed_right[1], closed_right[3]);
    assert_float_equal(yaw_right - closed_yaw, 0.4f, 1e-3);
    /* The renderer's matrix followed (transform propagation, the same frame). */
    const float *m = rill_world_global_matrix(f.w, left);
    assert_true(fabsf(m[0] - closed_matrix[0]) > 0.05f);
    assert_true(fabsf(m[12] - (GATE[0] - 8.0f)) < 1e-3f); /* it turns about its hinge */

    /* Wide open after 2 s more (1.45 rad at 0.8 rad/s), and it stays there. */
    frames(&f, 120);
    rl = rotation(&f, left);
    assert_float_equal(2.0f * atan2f(rl[1], rl[3]), -1.45f, 1e-3);

    /* The camera leaves (90 m away, beyond the 60 m radius): shut again after 2 s. */
    move_camera(&f, GATE[0] + 90.0f, GATE[2]);
    frames(&f, 120);
    rl = rotation(&f, left);
    for (int k = 0; k < 4; k++) {
        assert_float_equal(rl[k], closed_left[k], 1e-5);
    }
    rr = rotation(&f, right);
    for (int k = 0; k < 4; k++) {
        assert_float_equal(rr[k], closed_right[k], 1e-5);
    }
    assert_true(rill_scripts_running(s, left) && rill_scripts_running(s, right));
    close_fixture(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gate_doors_open_when_the_camera_nears),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
