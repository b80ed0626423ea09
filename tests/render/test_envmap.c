/* test_envmap.c: EnvironmentMapLight on lavapipe with validation on, as a user sees it: a rough
 * metal sphere in shade takes the colour of the environment image (red image: red sphere, blue
 * image: blue sphere), from a .png and from a .rmip cube alike; it wins over a Skybox as the
 * source of the light; a missing file, a 1 x 1 image and a truncated .rmip are one warning naming
 * the entity and the file, and the sphere is lit by the sky as without the component.
 * RILL_ENVMAP_PNG_DIR=dir writes each frame measured, to look at. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/asset.h"
#include "rill/formats/image.h"
#include "rill/formats/rmip_cube.h"
#include "rill/render.h"
#include "rill/render/environment.h"
#include "rill/render/post.h"

#define W 64
#define H 64
#define SOURCE ((rill_entity)42u)

typedef struct fixture {
    rill_renderer *r;
    rill_mesh sphere;
    rill_material metal;
    rill_render_instance inst;
    rill_render_snapshot snap;
    rill_vfs *vfs;
    char dir[64];
    uint8_t px[W * H * 4];
} fixture;

/* The warnings logged while a test runs (the last one kept). */
static char last_warning[1024];
static void sink(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)module;
    (void)user;
    if (level >= RILL_LOG_WARN) {
        snprintf(last_warning, sizeof(last_warning), "%s", msg);
    }
}

/* Writes a w x h PNG of one colour into dir/name. */
static void write_png(const char *dir, const char *name, uint32_t w, uint32_t h,
                      const uint8_t rgb[3]) {
    uint8_t *px = rill_calloc((size_t)w * h, 3);
    assert_non_null(px);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        memcpy(px + i * 3, rgb, 3);
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    rill_error err = {0};
    assert_int_equal(rill_image_write_png(path, px, w, h, 3, &err), RILL_OK);
    rill_free(px);
}

/* Writes a red .rmip cube (and a copy cut short) into dir. */
static void write_cubes(const char *dir) {
    rill_image img;
    rill_error err = {0};
    assert_int_equal(rill_image_alloc(&img, 32, 16, RILL_PIXEL_RGBA32F, &err), RILL_OK);
    float *p = img.pixels;
    for (size_t i = 0; i < 32 * 16; i++) {
        p[i * 4] = 0.8f;
        p[i * 4 + 3] = 1.0f;
    }
    uint8_t *file = NULL;
    size_t size = 0;
    assert_int_equal(rill_rmip_cube_from_equirect(&img, 16, &file, &size, &err), RILL_OK);
    char path[512];
    snprintf(path, sizeof(path), "%s/red.rmip", dir);
    assert_int_equal(rill_file_write_all(path, file, size, &err), RILL_OK);
    snprintf(path, sizeof(path), "%s/cut.rmip", dir);
    assert_int_equal(rill_file_write_all(path, file, size / 2, &err), RILL_OK);
    rill_free(file);
    rill_image_free(&img);
}

static int setup(void **state) {
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 256, .quality = RILL_RENDER_QUALITY_LOW};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    rill_error err = {0};
    f->sphere = render_test_sphere(f->r, 24);
    f->metal =
        render_test_material(f->r, (rill_material_desc){.base_color = {0.95f, 0.95f, 0.95f, 1},
                                                        .metallic = 1.0f,
                                                        .roughness = 0.6f,
                                                        .roughness_set = true});
    snprintf(f->dir, sizeof(f->dir), "/tmp/rill_envmapXXXXXX");
    assert_non_null(mkdtemp(f->dir));
    write_png(f->dir, "red.png", 32, 16, (const uint8_t[3]){230, 20, 20});
    write_png(f->dir, "blue.png", 32, 16, (const uint8_t[3]){20, 20, 230});
    write_png(f->dir, "tiny.png", 1, 1, (const uint8_t[3]){230, 20, 20});
    write_cubes(f->dir);
    f->vfs = rill_vfs_create(&(rill_vfs_desc){0}, &err);
    assert_non_null(f->vfs);
    assert_int_equal(rill_vfs_mount_dir(f->vfs, f->dir, &err), RILL_OK);
    rill_renderer_set_vfs(f->r, f->vfs);
    rill_log_set_sink(sink, NULL);
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rill_log_set_sink(NULL, NULL);
    rill_renderer_set_vfs(f->r, NULL);
    rill_vfs_destroy(f->vfs);
    const char *names[] = {"red.png", "blue.png", "tiny.png", "red.rmip", "cut.rmip"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[600];
        snprintf(path, sizeof(path), "%s/%s", f->dir, names[i]);
        remove(path);
    }
    remove(f->dir);
    rill_render_material_destroy(f->r, f->metal);
    render_test_destroy_clean(f->r, false);
    rill_free(f);
    return 0;
}

/* The metal sphere at the origin seen from +Z, no sun, under a grey sky gradient, with the
 * settings given; rendered until the light's bake has finished; mean RGB of its centre. */
static void sphere_mean(fixture *f, rill_render_routed_settings *rs, uint32_t rs_count,
                        const char *name, double out[3]) {
    mat4 inv;
    render_test_look_at(inv, (float[3]){0, 0, 2.2f}, (float[3]){0, 0, 0});
    memset(&f->snap, 0, sizeof(f->snap));
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = 0.9f;
    f->snap.ambient[0] = f->snap.ambient[1] = f->snap.ambient[2] = 0.4f;
    render_test_place(&f->inst, 1, f->sphere, f->metal, (float[3]){0, 0, 0}, 1.0f, 0.0f);
    f->snap.instances = &f->inst;
    f->snap.instance_count = 1;
    f->snap.view.settings = rs;
    f->snap.view.settings_count = rs_count;
    rill_error err = {0};
    for (int i = 0; i < 9; i++) { /* the upload, then the bake's seven steps */
        assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    }
    if (rill_renderer_read_pixels(f->r, f->px, sizeof(f->px), &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
    const char *dir = getenv("RILL_ENVMAP_PNG_DIR");
    if (dir && name) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.png", dir, name);
        assert_int_equal(rill_renderer_write_png(f->r, path, &err), RILL_OK);
    }
    out[0] = out[1] = out[2] = 0.0;
    for (int y = H / 2 - 6; y < H / 2 + 6; y++) {
        for (int x = W / 2 - 6; x < W / 2 + 6; x++) {
            for (int k = 0; k < 3; k++) {
                out[k] += f->px[((size_t)y * W + (size_t)x) * 4 + (size_t)k] / 144.0;
            }
        }
    }
}

static uint32_t validation(fixture *f) {
    rill_render_stats s;
    rill_renderer_stats(f->r, &s);
    return s.validation_messages;
}

/* Red image: red sphere; blue image: blue sphere; a red .rmip cube: red again; no component:
 * the grey sky's light. The intensity scales the light. */
static void test_image_lights_metal(void **state) {
    fixture *f = *state;
    rill_render_environment_map_light e = rill_render_environment_map_light_query_defaults();
    rill_render_routed_settings rs = {"EnvironmentMapLight", &e, sizeof(e), SOURCE};
    double grey[3], red[3], blue[3], cube[3], dim[3];
    sphere_mean(f, NULL, 0, "envmap_none", grey);
    e.image = "red.png";
    sphere_mean(f, &rs, 1, "envmap_red", red);
    e.image = "blue.png";
    sphere_mean(f, &rs, 1, "envmap_blue", blue);
    e.image = "red.rmip";
    sphere_mean(f, &rs, 1, "envmap_red_rmip", cube);
    e.intensity = 0.25f;
    sphere_mean(f, &rs, 1, NULL, dim);
    print_message("sphere: sky %.0f %.0f %.0f, red %.0f %.0f %.0f, blue %.0f %.0f %.0f, "
                  "red cube %.0f %.0f %.0f, dim %.0f %.0f %.0f\n",
                  grey[0], grey[1], grey[2], red[0], red[1], red[2], blue[0], blue[1], blue[2],
                  cube[0], cube[1], cube[2], dim[0], dim[1], dim[2]);
    assert_true(fabs(grey[0] - grey[2]) < 10.0 && grey[0] > 20.0);
    assert_true(red[0] > red[2] + 40.0);
    assert_true(blue[2] > blue[0] + 40.0);
    assert_true(red[0] > blue[0] + 40.0); /* redder with the red image than with the blue */
    assert_true(cube[0] > cube[2] + 40.0);
    assert_true(dim[0] < cube[0] * 0.8 && dim[0] > 5.0);
    assert_int_equal(validation(f), 0);
}

/* An EnvironmentMapLight wins over a Skybox as the light's source (the sky stays drawn). */
static void test_wins_over_skybox(void **state) {
    fixture *f = *state;
    rill_render_environment_map_light e = rill_render_environment_map_light_query_defaults();
    e.image = "red.png";
    rill_render_skybox box = rill_render_skybox_query_defaults();
    box.image = "blue.png";
    rill_render_routed_settings rs[2] = {{"Skybox", &box, sizeof(box), 0},
                                         {"EnvironmentMapLight", &e, sizeof(e), SOURCE}};
    double sky_only[3], both[3];
    sphere_mean(f, rs, 1, "skybox_blue", sky_only);
    sphere_mean(f, rs, 2, "skybox_blue_envmap_red", both);
    print_message("sphere: blue skybox %.0f %.0f %.0f, with a red environment map %.0f %.0f "
                  "%.0f\n",
                  sky_only[0], sky_only[1], sky_only[2], both[0], both[1], both[2]);
    assert_true(sky_only[2] > sky_only[0] + 40.0);
    assert_true(both[0] > both[2] + 40.0);
    /* The corner shows the sky: still the blue Skybox. */
    const uint8_t *corner = f->px + ((size_t)2 * W + 2) * 4;
    assert_true(corner[2] > corner[0] + 40);
    assert_int_equal(validation(f), 0);
}

/* Missing, 1 x 1 and truncated images: one warning naming the entity and the file; the sky's
 * light (grey), the frame renders. */
static void test_broken_images_fall_back(void **state) {
    fixture *f = *state;
    rill_render_environment_map_light e = rill_render_environment_map_light_query_defaults();
    rill_render_routed_settings rs = {"EnvironmentMapLight", &e, sizeof(e), SOURCE};
    const char *bad[3] = {"missing.hdr", "tiny.png", "cut.rmip"};
    for (int i = 0; i < 3; i++) {
        last_warning[0] = 0;
        e.image = bad[i];
        double c[3];
        sphere_mean(f, &rs, 1, NULL, c);
        print_message("%s: %.0f %.0f %.0f; warning: %s\n", bad[i], c[0], c[1], c[2], last_warning);
        assert_non_null(strstr(last_warning, "EnvironmentMapLight of entity 42:0"));
        assert_non_null(strstr(last_warning, bad[i]));
        assert_true(fabs(c[0] - c[2]) < 10.0 && c[0] > 20.0);
    }
    assert_int_equal(validation(f), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_image_lights_metal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wins_over_skybox, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broken_images_fall_back, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
