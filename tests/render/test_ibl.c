/* test_ibl.c: the image-based light on lavapipe with validation on. What a user sees of it: a face
 * turned from the sun is lit by the sky (not black); a rough metal sphere takes the sky's colour
 * (blue sky vs orange sky); the intensity scales it without a re-bake; and the bake runs only when
 * the sky changes, one cube face a frame after the first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/render.h"

#define W 96
#define H 96

typedef struct fixture {
    rill_renderer *r;
    rill_mesh cube, sphere;
    rill_render_instance inst;
    rill_render_snapshot snap;
} fixture;

static int setup(void **state) {
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 256, .quality = RILL_RENDER_QUALITY_LOW};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    f->cube = render_test_cube(f->r);
    f->sphere = render_test_sphere(f->r, 32);
    return 0;
}

/* One object at the origin seen from +Z, the sun shining along -Z... from behind the object (so
 * the face the camera sees is turned from the sun). */
static void scene(fixture *f, rill_mesh mesh, rill_material m, const float sky[3]) {
    mat4 inv;
    render_test_look_at(inv, (float[3]){0, 0, 2.2f}, (float[3]){0, 0, 0});
    memset(&f->snap, 0, sizeof(f->snap));
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = 0.9f;
    memcpy(f->snap.ambient, sky, sizeof(float) * 3);
    f->snap.has_sun = true;
    glm_vec3_normalize_to((vec3){0.0f, -0.2f, 1.0f}, f->snap.sun.direction);
    f->snap.sun.color[0] = f->snap.sun.color[1] = f->snap.sun.color[2] = 1.0f;
    f->snap.sun.illuminance = 3.0f;
    render_test_place(&f->inst, 1, mesh, m, (float[3]){0, 0, 0}, 1.0f, 0.0f);
    f->snap.instances = &f->inst;
    f->snap.instance_count = 1;
}

static void render(fixture *f, uint8_t *px) {
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    if (rill_renderer_read_pixels(f->r, px, (size_t)W * H * 4, &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
}

/* Mean RGB of the central 16 x 16 pixels (on the object). */
static void centre_mean(const uint8_t *px, double out[3]) {
    out[0] = out[1] = out[2] = 0;
    for (int y = H / 2 - 8; y < H / 2 + 8; y++) {
        for (int x = W / 2 - 8; x < W / 2 + 8; x++) {
            for (int c = 0; c < 3; c++) {
                out[c] += px[(y * W + x) * 4 + c] / 256.0;
            }
        }
    }
}

static rill_render_stats stats(fixture *f) {
    rill_render_stats s;
    rill_renderer_stats(f->r, &s);
    return s;
}

/* The camera sees the cube's face turned away from the sun: lit by the default sky, not black. */
static void test_shaded_face_lit_by_sky(void **state) {
    fixture *f = *state;
    static uint8_t px[W * H * 4];
    rill_material m =
        render_test_material(f->r, (rill_material_desc){.base_color = {0.8f, 0.8f, 0.8f, 1}});
    const float sky[3] = {RILL_RENDER_DEFAULT_AMBIENT_R, RILL_RENDER_DEFAULT_AMBIENT_G,
                          RILL_RENDER_DEFAULT_AMBIENT_B};
    scene(f, f->cube, m, sky);
    render(f, px);
    double mean[3];
    centre_mean(px, mean);
    /* Before image-based light this face was (1, 1, 3). */
    assert_true(mean[0] > 40 && mean[1] > 40 && mean[2] > 40);
    assert_true(mean[2] > mean[0]); /* the default sky is slightly blue */
    /* No sky: the shaded face is black again (the light comes from the sky, nothing else). */
    scene(f, f->cube, m, (float[3]){0, 0, 0});
    for (int i = 0; i < 8; i++) {
        render(f, px);
    }
    centre_mean(px, mean);
    assert_true(mean[0] < 3 && mean[1] < 3 && mean[2] < 3);
    assert_int_equal(stats(f).validation_messages, 0);
    rill_render_material_destroy(f->r, m);
}

/* A rough metal sphere in shade reflects the sky: blue under a blue sky, orange under an orange
 * one. The intensity scales what it reflects. */
static void test_metal_follows_sky(void **state) {
    fixture *f = *state;
    static uint8_t px[W * H * 4];
    rill_material m =
        render_test_material(f->r, (rill_material_desc){.base_color = {0.95f, 0.95f, 0.95f, 1},
                                                        .metallic = 1.0f,
                                                        .roughness = 0.6f,
                                                        .roughness_set = true});
    double blue[3], orange[3], dim[3];
    scene(f, f->sphere, m, (float[3]){0.15f, 0.3f, 0.9f});
    f->snap.has_sun = false;
    for (int i = 0; i < 8; i++) {
        render(f, px);
    }
    centre_mean(px, blue);
    scene(f, f->sphere, m, (float[3]){0.9f, 0.4f, 0.1f});
    f->snap.has_sun = false;
    for (int i = 0; i < 8; i++) {
        render(f, px);
    }
    centre_mean(px, orange);
    assert_true(blue[2] > blue[0] + 30);
    assert_true(orange[0] > orange[2] + 30);
    uint32_t bakes = stats(f).ibl_bakes;
    f->snap.environment.intensity = 0.25f;
    f->snap.environment.intensity_set = true;
    render(f, px);
    centre_mean(px, dim);
    assert_true(dim[0] < orange[0] * 0.8 && dim[0] > 5);
    assert_int_equal(stats(f).ibl_bakes, bakes); /* intensity is applied, not baked */
    assert_int_equal(stats(f).validation_messages, 0);
    rill_render_material_destroy(f->r, m);
}

/* The first frame bakes whole; an unchanged sky never re-bakes; a change re-bakes over 7 frames
 * (the source, then one face a frame), and the frame the last face lands shows the new sky. */
static void test_rebake_only_on_change(void **state) {
    fixture *f = *state;
    static uint8_t px[W * H * 4];
    rill_material m =
        render_test_material(f->r, (rill_material_desc){.base_color = {0.8f, 0.8f, 0.8f, 1}});
    scene(f, f->cube, m, (float[3]){0.2f, 0.2f, 0.2f});
    render(f, px);
    rill_render_stats s0 = stats(f);
    assert_int_equal(s0.ibl_face_size, 64); /* the Low tier's */
    for (int i = 0; i < 10; i++) {
        render(f, px);
    }
    assert_int_equal(stats(f).ibl_bakes, s0.ibl_bakes);
    assert_int_equal(stats(f).ibl_steps, s0.ibl_steps);
    /* The sun turning does not change a colour sky. */
    glm_vec3_normalize_to((vec3){0.5f, -0.5f, 1.0f}, f->snap.sun.direction);
    render(f, px);
    assert_int_equal(stats(f).ibl_steps, s0.ibl_steps);
    double before[3], after[3];
    centre_mean(px, before);
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.6f;
    for (int i = 0; i < 6; i++) {
        render(f, px);
        assert_int_equal(stats(f).ibl_bakes, s0.ibl_bakes); /* still lit with the old bake */
        assert_int_equal(stats(f).ibl_steps, s0.ibl_steps + (uint32_t)i + 1);
    }
    centre_mean(px, after);
    assert_true(fabs(after[0] - before[0]) < 2);
    render(f, px);
    assert_int_equal(stats(f).ibl_bakes, s0.ibl_bakes + 1);
    centre_mean(px, after);
    assert_true(after[0] > before[0] + 20);
    for (int i = 0; i < 5; i++) {
        render(f, px);
    }
    assert_int_equal(stats(f).ibl_bakes, s0.ibl_bakes + 1);
    /* A tier change resizes the cubes and bakes them whole at once. */
    rill_renderer_set_quality(f->r, RILL_RENDER_QUALITY_HIGH);
    render(f, px);
    assert_int_equal(stats(f).ibl_face_size, 256);
    assert_int_equal(stats(f).ibl_bakes, s0.ibl_bakes + 2);
    assert_int_equal(stats(f).validation_messages, 0);
    rill_render_material_destroy(f->r, m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_shaded_face_lit_by_sky, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_metal_follows_sky, setup, render_test_teardown),
        cmocka_unit_test_setup_teardown(test_rebake_only_on_change, setup, render_test_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
