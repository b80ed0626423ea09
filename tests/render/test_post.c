/* The post-processing effects (rill/render/post.h) on lavapipe, small images, validation on:
 * colour grading (an identity .cube leaves the image within 1/255, a warm one gives what the CPU
 * lookup of every pixel predicts, a broken one is refused naming the file and line and the frame
 * still renders, white balance / exposure / saturation move the colours the right way), depth of
 * field (the far object's edges soften, the focal plane's stay sharp, in both modes), motion blur
 * (a moving cube's edges soften, a still one is untouched; in split screen the second camera's
 * half streaks like the first's: the object's motion reaches every view) and hostile settings
 * (clamped with a warning naming the field). */
#include "cube_lut_text.h"
#include "rill_test.h"

#include "rill/asset.h"
#include "rill/formats/cube.h"
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/post.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_test.h"

#include <cglm/clipspace/persp_rh_zo.h>

#define W 96
#define H 64

typedef struct scene {
    rill_renderer *r;
    rill_mesh cube, sphere;
    rill_material lit, glow, warm_glow;
    rill_render_instance inst[3];
    rill_render_snapshot s;
    rill_render_routed_settings rs[3];
    uint8_t px[W * H * 4];
} scene;

static bool scene_open(scene *sc) {
    memset(sc, 0, sizeof(*sc));
    sc->r =
        render_test_renderer((rill_renderer_desc){.width = W, .height = H, .shadow_map_size = 256});
    if (!sc->r) {
        return false;
    }
    rill_error err = {0};
    sc->cube = rill_render_mesh_cube(sc->r, &err);
    sc->sphere = rill_render_mesh_sphere(sc->r, 16, &err);
    assert_true(sc->cube.id && sc->sphere.id);
    sc->lit =
        render_test_material(sc->r, (rill_material_desc){.base_color = {0.8f, 0.6f, 0.4f, 1}});
    sc->glow = render_test_material(
        sc->r, (rill_material_desc){.base_color = {0, 0, 0, 1}, .emissive = {1.0f, 1.0f, 1.0f}});
    sc->warm_glow = render_test_material(
        sc->r, (rill_material_desc){.base_color = {0, 0, 0, 1}, .emissive = {0.9f, 0.4f, 0.1f}});
    /* camera at the origin looking down -Z (world_from_view identity) */
    for (int i = 0; i < 16; i++) {
        sc->s.view.world_from_view[i] = i % 5 == 0 ? 1.0f : 0.0f;
    }
    sc->s.has_sun = true;
    sc->s.sun = (rill_render_dir_light){{0.3f, -0.5f, -1.0f}, {1, 1, 1}, 3.0f, false, false};
    sc->s.ambient[0] = sc->s.ambient[1] = sc->s.ambient[2] = 0.2f;
    sc->s.instances = sc->inst;
    return true;
}

static void scene_close(scene *sc) {
    rill_render_mesh_destroy(sc->r, sc->cube);
    rill_render_mesh_destroy(sc->r, sc->sphere);
    rill_render_material_destroy(sc->r, sc->lit);
    rill_render_material_destroy(sc->r, sc->glow);
    rill_render_material_destroy(sc->r, sc->warm_glow);
    render_test_destroy_clean(sc->r, false);
}

/* Sets the camera's routed settings: n (type, data, size) triples. */
static void scene_settings(scene *sc, uint32_t n, const char *const *types, const void *const *data,
                           const uint32_t *sizes) {
    for (uint32_t i = 0; i < n; i++) {
        sc->rs[i] = (rill_render_routed_settings){types[i], data[i], sizes[i], 0};
    }
    sc->s.view.settings = n ? sc->rs : NULL;
    sc->s.view.settings_count = n;
}

static void one_setting(scene *sc, const char *type, const void *data, uint32_t size) {
    scene_settings(sc, 1, &type, &data, &size);
}

/* Renders `frames` frames and reads the last back into sc->px. */
static void scene_render(scene *sc, int frames) {
    rill_error err = {0};
    for (int f = 0; f < frames; f++) {
        assert_int_equal(rill_renderer_render(sc->r, &sc->s, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(sc->r, sc->px, sizeof(sc->px), &err), RILL_OK);
}

static bool effect_ran(const rill_renderer *r, const char *id) {
    rill_render_effect_info fi;
    for (uint32_t i = 0; i < rill_render_effect_count(r); i++) {
        if (rill_render_effect_get(r, i, &fi) && strcmp(fi.id, id) == 0) {
            return fi.ran_last_frame;
        }
    }
    return false;
}

/* Sum of squared horizontal luma steps over columns [x0, x1): how sharp the edges there are (a
 * blur spreads a step over several pixels, which lowers the sum of squares). */
static double edges(const uint8_t *px, int x0, int x1) {
    double sum = 0.0;
    for (int y = 0; y < H; y++) {
        for (int x = x0; x < x1 - 1; x++) {
            const uint8_t *a = px + (y * W + x) * 4, *b = a + 4;
            double d = (double)(a[0] + a[1] + a[2]) - (double)(b[0] + b[1] + b[2]);
            sum += d * d;
        }
    }
    return sum;
}

static double mean_channel(const uint8_t *px, int c) {
    double sum = 0.0;
    for (int i = 0; i < W * H; i++) {
        sum += px[i * 4 + c];
    }
    return sum / (W * H);
}

/* A lit sphere (a range of shades) and two glowing cubes. */
static void grade_scene(scene *sc) {
    render_test_place(&sc->inst[0], 1, sc->sphere, sc->lit, (float[3]){-0.7f, 0, -4}, 1.6f, 0);
    render_test_place(&sc->inst[1], 2, sc->cube, sc->warm_glow, (float[3]){1.2f, 0.4f, -4}, 0.7f,
                      0.5f);
    render_test_place(&sc->inst[2], 3, sc->cube, sc->glow, (float[3]){1.0f, -0.7f, -4}, 0.5f, 0.3f);
    sc->s.instance_count = 3;
}

static rill_render_color_grading neutral_grade(void) {
    return (rill_render_color_grading){
        .contrast = 1, .saturation = 1, .gamma = {1, 1, 1}, .gain = {1, 1, 1}};
}

static void test_color_grading_lut(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "post_lut");
    char *id = rill_test_cube_text(17, false, "TITLE \"id\"\n");
    char *warm = rill_test_cube_text(9, true, "TITLE \"warm\"\n");
    rill_test_write_file(dir, "looks/identity.cube", id, strlen(id));
    rill_test_write_file(dir, "looks/warm.cube", warm, strlen(warm));
    rill_test_write_file(dir, "looks/broken.cube", warm, strlen(warm) / 2); /* truncated */
    rill_cube_lut warm_lut;
    rill_error err = {0};
    assert_int_equal(rill_cube_parse(warm, strlen(warm), "warm", &warm_lut, &err), RILL_OK);
    free(id);
    free(warm);
    rill_vfs *vfs = rill_vfs_create(&(rill_vfs_desc){0}, &err);
    assert_non_null(vfs);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_renderer_set_vfs(sc.r, vfs);

    grade_scene(&sc);
    scene_render(&sc, 3);
    static uint8_t base[W * H * 4];
    memcpy(base, sc.px, sizeof(base));

    /* identity: the table pass runs and changes nothing beyond rounding */
    rill_render_color_grading g = neutral_grade();
    g.lut = "looks/identity.cube";
    one_setting(&sc, "ColorGrading", &g, sizeof(g));
    scene_render(&sc, 2);
    assert_true(effect_ran(sc.r, "color_grading_lut"));
    assert_false(effect_ran(sc.r, "color_grading")); /* its HDR part is neutral: no pass */
    int worst = 0;
    for (int i = 0; i < W * H * 4; i++) {
        int d = abs((int)sc.px[i] - (int)base[i]);
        worst = d > worst ? d : worst;
    }
    assert_true(worst <= 1);

    /* warm: every pixel is the CPU lookup of the ungraded one */
    g.lut = "looks/warm.cube";
    scene_render(&sc, 2);
    worst = 0;
    for (int i = 0; i < W * H; i++) {
        float in[3], out[3];
        for (int k = 0; k < 3; k++) {
            in[k] = (float)base[i * 4 + k] / 255.0f;
        }
        rill_cube_sample(&warm_lut, in, out);
        for (int k = 0; k < 3; k++) {
            int want = (int)lroundf(fminf(fmaxf(out[k], 0.0f), 1.0f) * 255.0f);
            int d = abs(want - (int)sc.px[i * 4 + k]);
            worst = d > worst ? d : worst;
        }
    }
    print_message("warm: worst difference from the CPU lookup %d\n", worst);
    assert_true(worst <= 2);
    assert_true(mean_channel(sc.px, 0) > mean_channel(base, 0) + 5.0);
    assert_true(mean_channel(sc.px, 2) < mean_channel(base, 2));

    /* broken: refused naming the file and line, the frame renders ungraded */
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    g.lut = "looks/broken.cube";
    scene_render(&sc, 2);
    rill_test_log_end(&cap);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 1);
    assert_true(rill_test_log_last_has(&cap, "looks/broken.cube:"));
    assert_true(rill_test_log_last_has(&cap, "LUT_3D_SIZE 9 needs 729"));
    assert_false(effect_ran(sc.r, "color_grading_lut"));
    assert_memory_equal(sc.px, base, sizeof(base));
    /* a missing file is said once too */
    rill_test_log_begin(&cap);
    g.lut = "looks/missing.cube";
    scene_render(&sc, 2);
    rill_test_log_end(&cap);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 1);
    assert_true(rill_test_log_last_has(&cap, "missing.cube"));

    rill_cube_free(&warm_lut);
    rill_renderer_set_vfs(sc.r, NULL);
    scene_close(&sc);
    rill_vfs_destroy(vfs);
    rill_test_tmpdir_remove(dir);
}

/* The scene-referred part: warmer white balance raises red over blue, +1 EV brightens,
 * saturation 0 leaves grey. */
static void test_color_grading_hdr(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    grade_scene(&sc);
    scene_render(&sc, 3);
    double r0 = mean_channel(sc.px, 0), g0 = mean_channel(sc.px, 1), b0 = mean_channel(sc.px, 2);
    rill_render_color_grading g = neutral_grade();
    g.temperature = 0.6f;
    one_setting(&sc, "ColorGrading", &g, sizeof(g));
    scene_render(&sc, 1);
    assert_true(effect_ran(sc.r, "color_grading"));
    assert_false(effect_ran(sc.r, "color_grading_lut"));
    double r1 = mean_channel(sc.px, 0), b1 = mean_channel(sc.px, 2);
    print_message("warm white balance: r/b %.3f -> %.3f\n", r0 / b0, r1 / b1);
    assert_true(r1 / b1 > r0 / b0 * 1.1);
    g = neutral_grade();
    g.exposure = 1.0f;
    scene_render(&sc, 1);
    assert_true(mean_channel(sc.px, 1) > g0 * 1.2);
    g = neutral_grade();
    g.saturation = 0.0f;
    scene_render(&sc, 1);
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = sc.px + i * 4;
        assert_true(abs(p[0] - p[1]) <= 2 && abs(p[1] - p[2]) <= 2);
    }
    /* lift / gamma / gain alone run the display-referred pass */
    g = neutral_grade();
    g.gain[2] = 0.5f;
    scene_render(&sc, 1);
    assert_true(effect_ran(sc.r, "color_grading_lut"));
    assert_true(mean_channel(sc.px, 2) < b0 * 0.6);
    scene_close(&sc);
}

/* Depth of field focused on a near tile: the far cube's edges soften, the tile's do not. */
static void test_depth_of_field(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    /* the near object: a thin tile facing the camera (no side faces off the focal plane) */
    render_test_place(&sc.inst[0], 1, sc.cube, sc.lit, (float[3]){-0.6f, 0, -2.75f}, 0.5f, 0);
    sc.inst[0].transform[10] = 0.02f;
    render_test_place(&sc.inst[1], 2, sc.cube, sc.lit, (float[3]){8, 0, -30}, 5.0f, 0);
    sc.s.instance_count = 2;
    scene_render(&sc, 3);
    double near0 = edges(sc.px, 0, W / 2), far0 = edges(sc.px, W / 2, W);
    for (int mode = 0; mode < 2; mode++) {
        rill_render_dof d = {mode ? RILL_DOF_BOKEH : RILL_DOF_GAUSSIAN, 2.75f, 0.04f, 0.01866f, 16};
        one_setting(&sc, "DepthOfField", &d, sizeof(d));
        scene_render(&sc, 1);
        assert_true(effect_ran(sc.r, "depth_of_field"));
        double near1 = edges(sc.px, 0, W / 2), far1 = edges(sc.px, W / 2, W);
        print_message("dof %s: near edges %.0f -> %.0f, far edges %.0f -> %.0f\n",
                      mode ? "bokeh" : "gaussian", near0, near1, far0, far1);
        assert_true(far1 < far0 * 0.6);
        assert_true(fabs(near1 - near0) < near0 * 0.1);
    }
    /* Low tier: no depth of field */
    rill_renderer_set_quality(sc.r, RILL_RENDER_QUALITY_LOW);
    scene_render(&sc, 1);
    assert_false(effect_ran(sc.r, "depth_of_field"));
    scene_close(&sc);
}

/* Motion blur: a cube moving sideways between two frames is streaked (its edges soften and the
 * streak covers background beside it); a still one is left exactly as it was. */
static void test_motion_blur(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    sc.s.instance_count = 1;
    rill_render_motion_blur m = {360.0f, 16};
    static uint8_t still[W * H * 4], moving[W * H * 4];
    for (int blur = 0; blur < 2; blur++) {
        if (blur) {
            one_setting(&sc, "MotionBlur", &m, sizeof(m));
        }
        render_test_place(&sc.inst[0], 7, sc.cube, sc.lit, (float[3]){0, 0, -3}, 0.8f, 0);
        scene_render(&sc, 3); /* still */
        if (blur) {
            assert_memory_equal(sc.px, still, sizeof(still));
        } else {
            memcpy(still, sc.px, sizeof(still));
        }
        render_test_place(&sc.inst[0], 7, sc.cube, sc.lit, (float[3]){0.3f, 0, -3}, 0.8f, 0);
        scene_render(&sc, 1); /* moved 0.3 m right since the last frame */
        if (blur) {
            assert_true(effect_ran(sc.r, "motion_blur"));
            double e0 = edges(moving, 0, W), e1 = edges(sc.px, 0, W);
            print_message("motion blur: edges %.0f -> %.0f\n", e0, e1);
            assert_true(e1 < e0 * 0.7);
            /* the streak reaches past the silhouette: background pixels take the cube's colour */
            int streaked = 0;
            for (int i = 0; i < W * H; i++) {
                const uint8_t *a = moving + i * 4, *b = sc.px + i * 4;
                streaked += a[0] + a[1] + a[2] < 10 && b[0] + b[1] + b[2] > 30;
            }
            print_message("motion blur: %d background pixels streaked\n", streaked);
            assert_true(streaked >= 20);
        } else {
            memcpy(moving, sc.px, sizeof(moving));
        }
    }
    scene_close(&sc);
}

/* Split screen, both halves the same camera with MotionBlur: a moving cube streaks in the second
 * view (view 1) exactly as in the first (before, only the frame's first view had object motion,
 * so view 1 saw a still cube), and both halves differ from the still frame. */
static void test_motion_blur_second_view(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    sc.s.instance_count = 1;
    rill_render_motion_blur m = {360.0f, 16};
    one_setting(&sc, "MotionBlur", &m, sizeof(m));
    rill_render_view views[2] = {sc.s.view, sc.s.view};
    views[0].viewport[2] = 0.5f, views[0].viewport[3] = 1.0f;
    views[1].viewport[0] = 0.5f, views[1].viewport[2] = 0.5f, views[1].viewport[3] = 1.0f;
    views[1].order = 1;
    sc.s.views = views;
    sc.s.view_count = 2;
    static uint8_t still[W * H * 4];
    render_test_place(&sc.inst[0], 7, sc.cube, sc.lit, (float[3]){0, 0, -3}, 0.8f, 0);
    scene_render(&sc, 3);
    memcpy(still, sc.px, sizeof(still));
    render_test_place(&sc.inst[0], 7, sc.cube, sc.lit, (float[3]){0.3f, 0, -3}, 0.8f, 0);
    scene_render(&sc, 1);
    int differ = 0, streaked[2] = {0, 0};
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W / 2; x++) {
            const uint8_t *l = sc.px + (y * W + x) * 4, *r = sc.px + (y * W + x + W / 2) * 4;
            differ += memcmp(l, r, 3) != 0;
            for (int h = 0; h < 2; h++) {
                const uint8_t *a = still + (y * W + x + h * W / 2) * 4, *b = h ? r : l;
                streaked[h] += a[0] + a[1] + a[2] < 10 && b[0] + b[1] + b[2] > 30;
            }
        }
    }
    print_message("split-screen motion blur: streaked %d left / %d right, %d pixels differ\n",
                  streaked[0], streaked[1], differ);
    assert_true(streaked[0] >= 10);
    assert_int_equal(streaked[1], streaked[0]);
    assert_int_equal(differ, 0);
    scene_close(&sc);
}

/* NaN, negative and huge settings are clamped with a warning naming the field; frames render. */
static void test_hostile_settings(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    grade_scene(&sc);
    rill_render_color_grading g = neutral_grade();
    g.contrast = NAN;
    g.gain[1] = 1e30f;
    rill_render_dof d = {(rill_dof_mode)77, NAN, -2.0f, 0.01866f, 1e9f};
    rill_render_motion_blur m = {-90.0f, 1000000000u};
    const char *types[3] = {"ColorGrading", "DepthOfField", "MotionBlur"};
    const void *data[3] = {&g, &d, &m};
    const uint32_t sizes[3] = {sizeof(g), sizeof(d), sizeof(m)};
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    scene_settings(&sc, 3, types, data, sizes);
    scene_render(&sc, 2);
    rill_test_log_end(&cap);
    /* contrast, gain, mode, focal_distance, aperture_f_stops, max_circle_of_confusion,
     * shutter_angle, samples: each once */
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 8);
    assert_true(rill_test_log_last_has(&cap, "MotionBlur of entity 0:0: samples = 1e+09 is out "
                                             "of range; using 64"));
    /* each hostile field alone names itself */
    const struct {
        int which;
        const char *field;
    } one[] = {{0, "contrast = nan"}, {1, "aperture_f_stops = -2"}, {2, "shutter_angle = -90"}};
    for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
        scene fresh;
        assert_true(scene_open(&fresh));
        grade_scene(&fresh);
        rill_render_dof dd = {RILL_DOF_GAUSSIAN, 10, 1, 0.01866f, 64};
        rill_render_motion_blur mm = {180, 8};
        rill_render_color_grading gg = neutral_grade();
        if (one[i].which == 0) {
            gg.contrast = NAN;
        } else if (one[i].which == 1) {
            dd.aperture_f_stops = -2;
        } else {
            mm.shutter_angle = -90;
        }
        const void *dd_data[3] = {&gg, &dd, &mm};
        scene_settings(&fresh, 3, types, dd_data, sizes);
        rill_test_log_begin(&cap);
        scene_render(&fresh, 1);
        rill_test_log_end(&cap);
        assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 1);
        assert_true(rill_test_log_last_has(&cap, one[i].field));
        scene_close(&fresh);
    }
    scene_close(&sc);
}

/* ForwardDecal: a box over part of a floor paints only the pixels inside its projected box,
 * redder; turned so its +Y lies along the floor (normal at 90 degrees), it fades out entirely. */
static void test_forward_decal(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    mat4 wfv;
    render_test_look_at(wfv, (float[3]){0, 3, 4}, (float[3]){0, -1, 0});
    memcpy(sc.s.view.world_from_view, wfv, sizeof(wfv));
    render_test_place(&sc.inst[0], 1, sc.cube, sc.lit, (float[3]){0, -1.1f, 0}, 1.0f, 0);
    sc.inst[0].transform[0] = 8.0f, sc.inst[0].transform[5] = 0.2f, sc.inst[0].transform[10] = 8.0f;
    sc.s.instance_count = 1;
    scene_render(&sc, 3);
    static uint8_t base[W * H * 4];
    memcpy(base, sc.px, sizeof(base));

    rill_render_decal d;
    memset(&d, 0, sizeof(d));
    mat4 box;
    glm_mat4_identity(box);
    glm_translate(box, (vec3){0.5f, -1.0f, 0.0f});
    glm_scale(box, (vec3){1.5f, 1.0f, 1.0f});
    memcpy(d.world_from_box, box, sizeof(box));
    memcpy(d.base_color, (float[4]){1, 0, 0, 1}, sizeof(d.base_color));
    d.angle_fade_start = 60, d.angle_fade_end = 80;
    sc.s.decals = &d;
    sc.s.decal_count = 1;
    scene_render(&sc, 1);
    assert_true(effect_ran(sc.r, "forward_decal"));
    /* the box's screen rectangle: its 8 corners through the view-projection */
    mat4 view, proj, vp;
    glm_mat4_inv(wfv, view);
    glm_perspective_rh_zo(0.8f, (float)W / (float)H, 0.1f, 1000.0f, proj);
    glm_mat4_mul(proj, view, vp);
    float x0 = W, x1 = 0, y0 = H, y1 = 0;
    for (int c = 0; c < 8; c++) {
        vec4 corner = {c & 1 ? 0.5f : -0.5f, c & 2 ? 0.5f : -0.5f, c & 4 ? 0.5f : -0.5f, 1}, w, cl;
        glm_mat4_mulv(box, corner, w);
        glm_mat4_mulv(vp, w, cl);
        float sx = (cl[0] / cl[3] * 0.5f + 0.5f) * W, sy = (0.5f - cl[1] / cl[3] * 0.5f) * H;
        x0 = fminf(x0, sx), x1 = fmaxf(x1, sx), y0 = fminf(y0, sy), y1 = fmaxf(y1, sy);
    }
    int changed = 0, outside = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const uint8_t *a = base + (y * W + x) * 4, *b = sc.px + (y * W + x) * 4;
            if (memcmp(a, b, 3) != 0) {
                changed++;
                outside += x + 1 < x0 || x > x1 + 1 || y + 1 < y0 || y > y1 + 1;
                assert_true(b[0] >= a[0] && b[2] <= a[2]); /* redder */
            }
        }
    }
    print_message("decal: %d pixels painted, %d outside the box's rectangle\n", changed, outside);
    assert_true(changed > 100);
    assert_int_equal(outside, 0);

    /* turned so the floor's normal is 90 degrees from the box's +Y: faded out */
    glm_rotate_x(box, 1.5707963f, box);
    memcpy(d.world_from_box, box, sizeof(box));
    scene_render(&sc, 1);
    assert_memory_equal(sc.px, base, sizeof(base));
    /* no decals: no pass */
    sc.s.decal_count = 0;
    scene_render(&sc, 1);
    assert_false(effect_ran(sc.r, "forward_decal"));
    assert_memory_equal(sc.px, base, sizeof(base));
    scene_close(&sc);
}

/* rill_render_extract turns every ForwardDecal with a GlobalTransform into a snapshot decal. */
static void test_forward_decal_extract(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    const rill_builtins *b = rill_world_builtin(w);
    render_test_world_camera(w, NULL);
    rill_entity decal = rill_world_spawn(w), bare = rill_world_spawn(w);
    rill_component fdc = rill_world_find_component(w, "ForwardDecal");
    assert_true(fdc.id != 0);
    rill_render_forward_decal fd;
    rill_type_apply_defaults(rill_world_component_type(w, fdc), &fd);
    assert_float_equal(fd.base_color[3], 1.0f, 0.0);
    assert_float_equal(fd.angle_fade_start, 60.0f, 0.0);
    fd.base_color[0] = 0.25f;
    assert_non_null(rill_world_add(w, decal, fdc, &fd));
    rill_transform t = rill_transform_identity();
    t.translation[1] = 2.0f;
    assert_non_null(rill_world_add(w, decal, b->transform, &t));
    assert_non_null(rill_world_add(w, decal, b->global_transform, NULL));
    assert_non_null(rill_world_add(w, bare, fdc, &fd)); /* no transform: not a decal */
    rill_world_update_transforms(w);
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.decal_count, 1);
    assert_float_equal(s.decals[0].base_color[0], 0.25f, 0.0);
    assert_float_equal(s.decals[0].world_from_box[13], 2.0f, 1e-6);
    assert_true(s.decals[0].entity == decal);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_color_grading_lut), cmocka_unit_test(test_color_grading_hdr),
        cmocka_unit_test(test_depth_of_field),    cmocka_unit_test(test_motion_blur_second_view),
        cmocka_unit_test(test_motion_blur),       cmocka_unit_test(test_hostile_settings),
        cmocka_unit_test(test_forward_decal),     cmocka_unit_test(test_forward_decal_extract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
