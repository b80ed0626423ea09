/* test_vfog.c: volumetric fog (rill/render/volumetric.h, src/render/fog_volume.c) on lavapipe with
 * validation on, as a user sees it: the fog in front of a black cube brightens with the cube's
 * distance (more air, more scattered light); looking toward a low sun the fog is brighter than
 * looking away; fog in a roof's shadow is darker; a point light lights the fog around it; a
 * FogVolume box fogs what is seen through it and nothing beside it; a VolumetricFog or FogVolume of
 * density 0 and the Low tier change no pixel; hostile settings clamp to what the clamped values
 * render; a scene's components reach the snapshot through extract. Temporal reprojection: a still
 * camera's picture settles, a turning camera's fog stays where the world has it (reprojected, not
 * smeared along the screen) and a cut starts afresh. RILL_VFOG_PNG_DIR=dir writes each frame a
 * test reads, to look at. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "golden.h"
#include "render_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rill/render.h"
#include "rill/render/volumetric.h"
#include "rill/scene.h"

#define W 48
#define H 48

typedef struct fixture {
    rill_renderer *r;
    rill_mesh cube;
    rill_material black, white;
    rill_render_instance inst;
    rill_render_snapshot snap;
    rill_render_volumetric_fog fog;
    rill_render_routed_settings rs;
    rill_render_fog_box box;
    uint8_t px[W * H * 4];
} fixture;

static int setup(void **state) {
    rill_renderer_desc d = {
        .width = W, .height = H, .shadow_map_size = 256, .quality = RILL_RENDER_QUALITY_MEDIUM};
    fixture *f = render_test_fixture(state, sizeof(*f), d);
    if (!f) {
        return -1;
    }
    f->cube = render_test_cube(f->r);
    f->black = render_test_material(
        f->r, (rill_material_desc){.base_color = {0, 0, 0, 1}, .roughness = 1.0f});
    f->white = render_test_material(f->r, (rill_material_desc){.base_color = {1, 1, 1, 1}});
    return 0;
}

/* Camera at eye looking at `at`; a sun (not marked: the sky is the clear colour) shining along
 * sun_dir; no routed settings, no instance. */
static void scene(fixture *f, const float eye[3], const float at[3], const float sun_dir[3]) {
    memset(&f->snap, 0, sizeof(f->snap));
    mat4 inv;
    render_test_look_at(inv, eye, at);
    memcpy(f->snap.view.world_from_view, inv, sizeof(mat4));
    f->snap.view.fov_y = 0.6f;
    f->snap.view.far_plane = 2000.0f;
    f->snap.has_sun = true;
    f->snap.sun.color[0] = f->snap.sun.color[1] = f->snap.sun.color[2] = 1.0f;
    f->snap.sun.illuminance = 3.0f;
    f->snap.sun.shadows = true;
    memcpy(f->snap.sun.direction, sun_dir, sizeof(float) * 3);
    f->snap.ambient[0] = 0.2f, f->snap.ambient[1] = 0.22f, f->snap.ambient[2] = 0.26f;
}

static void with_fog(fixture *f, const rill_render_volumetric_fog *fog) {
    f->fog = *fog;
    f->rs = (rill_render_routed_settings){"VolumetricFog", &f->fog, sizeof(f->fog), 0};
    f->snap.view.settings = &f->rs;
    f->snap.view.settings_count = 1;
}

static void with_cube(fixture *f, rill_material m, const float pos[3], float size) {
    render_test_place(&f->inst, 1, f->cube, m, pos, size, 0.0f);
    f->snap.instances = &f->inst;
    f->snap.instance_count = 1;
}

/* One frame of f->snap, read back (and written to RILL_VFOG_PNG_DIR/name.png when set). */
static void frame_once(fixture *f, const char *name) {
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    if (rill_renderer_read_pixels(f->r, f->px, sizeof(f->px), &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
    const char *dir = getenv("RILL_VFOG_PNG_DIR");
    if (dir && name) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.png", dir, name);
        assert_int_equal(rill_renderer_write_png(f->r, path, &err), RILL_OK);
    }
}

/* A frame without the view's settings: the fog's history starts again at the next frame. */
static void restart_history(fixture *f) {
    uint32_t n = f->snap.view.settings_count;
    f->snap.view.settings_count = 0;
    rill_error err = {0};
    assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    f->snap.view.settings_count = n;
}

/* The picture a test reads: a fresh fog history, then three frames (uploads, then the
 * image-based light's bake; the fog's history blends the later two), so every call renders the
 * same frames for the same snapshot whatever came before. */
static void frame(fixture *f, const char *name) {
    rill_error err = {0};
    restart_history(f);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rill_renderer_render(f->r, &f->snap, &err), RILL_OK);
    }
    if (rill_renderer_read_pixels(f->r, f->px, sizeof(f->px), &err) != RILL_OK) {
        fail_msg("read_pixels: %s", err.msg);
    }
    const char *dir = getenv("RILL_VFOG_PNG_DIR");
    if (dir && name) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.png", dir, name);
        assert_int_equal(rill_renderer_write_png(f->r, path, &err), RILL_OK);
    }
}

/* Mean of R, G and B (0..255) over the 6 x 6 pixels around (x, y). */
static double mean_at(const fixture *f, int x, int y) {
    double s = 0.0;
    for (int j = y - 3; j < y + 3; j++) {
        for (int i = x - 3; i < x + 3; i++) {
            const uint8_t *p = f->px + ((size_t)j * W + (size_t)i) * 4;
            s += (p[0] + p[1] + p[2]) / 3.0;
        }
    }
    return s / 36.0;
}

/* The last frame's pixels into out. */
static void copy_px(const fixture *f, uint8_t *out) {
    memcpy(out, f->px, sizeof(f->px));
}

static void set_identity(float m[16]) {
    memset(m, 0, sizeof(float) * 16);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static const float noon[3] = {0.0f, -1.0f, -0.3f};

/* The fog in front of a black cube scatters more light the farther the cube: near < far, and
 * without fog the cube is black. */
static void test_thickens_with_distance(void **state) {
    fixture *f = *state;
    const float dist[3] = {8.0f, 40.0f, 160.0f};
    double c[3], none;
    for (int i = 0; i < 3; i++) {
        float d = dist[i];
        scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2, 0}, noon);
        with_cube(f, f->black, (float[3]){d, 2, 0}, d * 0.25f);
        rill_render_volumetric_fog fog = rill_render_volumetric_fog_query_defaults();
        with_fog(f, &fog);
        char name[32];
        snprintf(name, sizeof(name), "distance_%d", (int)d);
        frame(f, name);
        c[i] = mean_at(f, W / 2, H / 2);
        if (i == 1) {
            golden_expect("vfog_distance_40", f->px, W, H);
        }
    }
    scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2, 0}, noon);
    with_cube(f, f->black, (float[3]){40, 2, 0}, 10.0f);
    frame(f, "distance_none");
    none = mean_at(f, W / 2, H / 2);
    print_message("fog over a black cube: 8 m %.1f, 40 m %.1f, 160 m %.1f; no fog %.1f\n", c[0],
                  c[1], c[2], none);
    assert_true(none < 3.0);
    assert_true(c[0] > none + 2.0);
    assert_true(c[1] > c[0] + 5.0);
    assert_true(c[2] > c[1] + 5.0);
}

/* With a low sun, the fog toward the sun is brighter than away from it (forward scattering), and
 * the sun's part is real: without the sun the same view is darker. */
static void test_brighter_toward_sun(void **state) {
    fixture *f = *state;
    const float low_sun[3] = {-0.95f, -0.3f, 0.0f}; /* it travels toward -X: the sun is at +X */
    rill_render_volumetric_fog fog = rill_render_volumetric_fog_query_defaults();
    double c[3];
    const float at[2][3] = {{100, 2, 0}, {-100, 2, 0}};
    for (int i = 0; i < 3; i++) {
        scene(f, (float[3]){0, 2, 0}, at[i == 1], low_sun);
        f->snap.has_sun = i < 2;
        with_fog(f, &fog);
        frame(f, i == 0 ? "toward_sun" : i == 1 ? "away_from_sun" : "no_sun");
        c[i] = mean_at(f, W / 2, H / 2);
    }
    print_message("fog toward the sun %.1f, away %.1f, without the sun %.1f\n", c[0], c[1], c[2]);
    assert_true(c[0] > c[1] * 1.5 + 5.0);
    assert_true(c[1] > c[2]);
}

/* The fog under a roof is in its shadow (the cascaded shadow map): darker than in the open. */
static void test_shadowed_fog_darker(void **state) {
    fixture *f = *state;
    const float sun[3] = {0.0f, -1.0f, 0.0f};
    rill_render_volumetric_fog fog = rill_render_volumetric_fog_query_defaults();
    fog.ambient_intensity = 0.0f; /* the sun's light alone */
    double c[2];
    for (int i = 0; i < 2; i++) {
        scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2, 0}, sun);
        with_fog(f, &fog);
        if (i == 1) { /* a 120 m black slab 9 m up, over the camera and the air it looks at */
            with_cube(f, f->black, (float[3]){20, 9, 0}, 1.0f);
            mat4 m;
            glm_mat4_identity(m);
            glm_translate(m, (vec3){20, 9, 0});
            glm_scale(m, (vec3){120, 1, 120});
            memcpy(f->inst.transform, m, sizeof(m));
        }
        frame(f, i ? "roof" : "open");
        c[i] = mean_at(f, W / 2, H / 2);
    }
    print_message("fog in the open %.1f, under a roof %.1f\n", c[0], c[1]);
    assert_true(c[1] < c[0] * 0.6);
}

/* A point light in the fog lights the air around it (no sun, no sky light): the middle of the view,
 * where the light hangs, is brighter with it than without; a spot light aimed away lights less. */
static void test_point_light_in_fog(void **state) {
    fixture *f = *state;
    rill_render_volumetric_fog fog = rill_render_volumetric_fog_query_defaults();
    fog.ambient_intensity = 0.0f;
    rill_render_light lt;
    memset(&lt, 0, sizeof(lt));
    lt.kind = RILL_LIGHT_POINT;
    lt.position[0] = 12.0f, lt.position[1] = 2.0f;
    lt.color[0] = lt.color[1] = lt.color[2] = 1.0f;
    lt.intensity = 400.0f;
    lt.range = 30.0f;
    double c[3];
    for (int i = 0; i < 3; i++) {
        scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2, 0}, noon);
        f->snap.has_sun = false;
        with_fog(f, &fog);
        if (i > 0) {
            if (i == 2) { /* a narrow spot aimed away from the camera's view of it */
                lt.kind = RILL_LIGHT_SPOT;
                lt.direction[1] = -1.0f;
                lt.inner_angle = 0.1f;
                lt.outer_angle = 0.2f;
            }
            f->snap.lights = &lt;
            f->snap.light_count = 1;
        }
        frame(f, i == 0 ? "light_none" : i == 1 ? "light_point" : "light_spot");
        c[i] = mean_at(f, W / 2, H / 2);
    }
    print_message("fog around a light: none %.1f, point %.1f, spot aimed down %.1f\n", c[0], c[1],
                  c[2]);
    assert_true(c[1] > c[0] + 20.0);
    assert_true(c[2] < c[1] - 10.0);
}

/* A FogVolume box in front of the camera fogs the black cube behind it where it is seen through
 * the box, and leaves the pixels beside the box alone. */
static void test_fog_volume_box(void **state) {
    fixture *f = *state;
    uint8_t clear[W * H * 4];
    rill_render_volumetric_fog fog = rill_render_volumetric_fog_query_defaults();
    fog.density = 0.0f; /* only the box's fog */
    for (int i = 0; i < 2; i++) {
        scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2, 0}, noon);
        with_cube(f, f->black, (float[3]){60, 2, 0}, 60.0f); /* fills the view */
        with_fog(f, &fog);
        if (i == 1) {
            /* A 10 m box 20 m ahead, 4 m wide: the middle of the view only. */
            memset(&f->box, 0, sizeof(f->box));
            mat4 m;
            glm_mat4_identity(m);
            glm_translate(m, (vec3){20, 2, 0});
            glm_scale(m, (vec3){10, 4, 4});
            memcpy(f->box.world_from_box, m, sizeof(m));
            f->box.fog = rill_render_fog_volume_query_defaults();
            f->snap.fog_volumes = &f->box;
            f->snap.fog_volume_count = 1;
        }
        frame(f, i ? "box" : "box_none");
        if (i == 0) {
            copy_px(f, clear);
        }
    }
    double mid = mean_at(f, W / 2, H / 2), side = mean_at(f, 4, 4);
    memcpy(f->px, clear, sizeof(clear));
    double mid0 = mean_at(f, W / 2, H / 2), side0 = mean_at(f, 4, 4);
    print_message("box: middle %.1f (without %.1f), corner %.1f (without %.1f)\n", mid, mid0, side,
                  side0);
    assert_true(mid > mid0 + 10.0);
    assert_true(fabs(side - side0) < 0.5);
}

/* Density 0 (the camera's and a box's) and the Low tier change no pixel; the Low tier adds no
 * pass either. */
static void test_zero_density_and_low_tier_change_nothing(void **state) {
    fixture *f = *state;
    uint8_t plain[W * H * 4];
    scene(f, (float[3]){0, 2, 0}, (float[3]){100, 12, 0}, noon);
    with_cube(f, f->white, (float[3]){30, 2, 0}, 6.0f);
    frame(f, "plain");
    copy_px(f, plain);
    rill_render_volumetric_fog fog = rill_render_volumetric_fog_query_defaults();
    fog.density = 0.0f;
    with_fog(f, &fog);
    f->box.fog = rill_render_fog_volume_query_defaults();
    set_identity(f->box.world_from_box);
    f->box.fog.density = 0.0f;
    f->snap.fog_volumes = &f->box;
    f->snap.fog_volume_count = 1;
    frame(f, "zero_density");
    assert_memory_equal(f->px, plain, sizeof(plain));
    /* A box with fog out of sight (behind the camera): the passes run, the view is unchanged. */
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){-50, 2, 0});
    glm_scale_uni(m, 10.0f);
    memcpy(f->box.world_from_box, m, sizeof(m));
    f->box.fog.density = 1.0f;
    frame(f, "box_behind");
    assert_memory_equal(f->px, plain, sizeof(plain));
    /* Real fog at the Low tier: none. */
    fog.density = 0.05f;
    with_fog(f, &fog);
    rill_renderer_set_quality(f->r, RILL_RENDER_QUALITY_LOW);
    frame(f, "low_tier");
    rill_renderer_set_quality(f->r, RILL_RENDER_QUALITY_MEDIUM);
    assert_memory_equal(f->px, plain, sizeof(plain));
    frame(f, "medium_tier");
    assert_true(memcmp(f->px, plain, sizeof(plain)) != 0);
}

/* Hostile values clamp (a warning naming the entity and field) to what the clamped values render:
 * NaN density is the default 0.02, an anisotropy of 40 is 0.95, an infinite distance the default
 * 256 m, a negative height falloff 0,
 * a box's NaN colour is white and its negative density none. */
static void test_hostile_settings_clamp(void **state) {
    fixture *f = *state;
    uint8_t want[W * H * 4];
    for (int k = 0; k < 2; k++) {
        rill_render_volumetric_fog fog = rill_render_volumetric_fog_query_defaults();
        rill_render_fog_volume box = rill_render_fog_volume_query_defaults();
        if (k == 0) { /* what the clamped values are */
            fog.anisotropy = 0.95f;
            fog.distance = 256.0f;
            fog.height_falloff = 0.0f;
            box.density = 0.0f;
        } else {
            fog.density = NAN;
            fog.anisotropy = 40.0f;
            fog.distance = INFINITY;
            fog.height_falloff = -3.0f; /* 0 */
            box.color[1] = NAN;
            box.density = -5.0f;
        }
        scene(f, (float[3]){0, 2, 0}, (float[3]){100, 2, 0}, noon);
        with_cube(f, f->black, (float[3]){60, 2, 0}, 8.0f);
        with_fog(f, &fog);
        f->rs.source = 7; /* names the entity in the warning */
        memset(&f->box, 0, sizeof(f->box));
        set_identity(f->box.world_from_box);
        f->box.fog = box;
        f->snap.fog_volumes = &f->box;
        f->snap.fog_volume_count = 1;
        frame(f, k ? "hostile" : "hostile_clamped");
        if (k == 0) {
            copy_px(f, want);
        }
    }
    assert_memory_equal(f->px, want, sizeof(want));
    /* A degenerate box matrix drops the box; the frame still renders. */
    memset(f->box.world_from_box, 0, sizeof(f->box.world_from_box));
    f->box.fog.density = 1.0f;
    frame(f, NULL);
}

/* Mean absolute difference (0..255, over R, G and B) between two frames' pixels. */
static double mean_diff(const uint8_t *a, const uint8_t *b) {
    double s = 0.0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) {
        if (i % 4 != 3) {
            s += fabs((double)a[i] - (double)b[i]);
        }
    }
    return s / (W * H * 3.0);
}

/* Fog lit by a point light 12 m ahead of a camera at (0, 2, 0) looking along the turn `deg`
 * (degrees to the left of +X); no sun, no sky light, so the glow is all there is. */
static void glow_scene(fixture *f, rill_render_light *lt, float deg) {
    float a = deg * 0.01745329f;
    scene(f, (float[3]){0, 2, 0}, (float[3]){100.0f * cosf(a), 2, -100.0f * sinf(a)}, noon);
    f->snap.has_sun = false;
    static rill_render_volumetric_fog fog;
    fog = rill_render_volumetric_fog_query_defaults();
    fog.ambient_intensity = 0.0f;
    with_fog(f, &fog);
    memset(lt, 0, sizeof(*lt));
    lt->kind = RILL_LIGHT_POINT;
    lt->position[0] = 12.0f, lt->position[1] = 2.0f;
    lt->color[0] = lt->color[1] = lt->color[2] = 1.0f;
    lt->intensity = 400.0f;
    lt->range = 30.0f;
    f->snap.lights = lt;
    f->snap.light_count = 1;
}

/* A still camera: the jittered slices and the history settle, so after 30 frames a frame is
 * nearly the one before it (under half a level on average), and the settled picture is within a
 * few levels of the first frame (the history adds no light of its own). */
static void test_temporal_still_camera_converges(void **state) {
    fixture *f = *state;
    uint8_t first[W * H * 4], prev[W * H * 4];
    rill_render_light lt;
    glow_scene(f, &lt, 0.0f);
    frame(f, "still_first");
    copy_px(f, first);
    double early = 0.0, late = 0.0;
    for (int i = 0; i < 40; i++) {
        copy_px(f, prev);
        frame_once(f, i == 39 ? "still_settled" : NULL);
        double d = mean_diff(prev, f->px);
        if (i == 0) {
            early = d;
        }
        if (i >= 30) {
            late = d > late ? d : late;
        }
    }
    double drift = mean_diff(first, f->px);
    print_message("still camera: frame-to-frame %.3f at first, at most %.3f after 30 frames; "
                  "settled vs first %.3f\n",
                  early, late, drift);
    assert_true(late < 0.5);
    assert_true(drift < 4.0);
    assert_true(fabs(mean_at(f, W / 2, H / 2) - 0.0) > 20.0); /* the glow is there */
}

/* A camera turning 3 degrees a frame keeps the glow where the world has it: after the turn the
 * picture is within a few levels of a fresh history at the same place (last frame's froxels are
 * reprojected; blending them by screen position instead would drag the glow behind by about 7
 * froxels a frame). A turn of 90 degrees in one frame is a cut: the first frame after it is
 * exactly a fresh history's, nothing of the glow smeared into a view without it. */
static void test_temporal_reprojects_and_cuts(void **state) {
    fixture *f = *state;
    uint8_t fresh[W * H * 4];
    rill_render_light lt;
    glow_scene(f, &lt, 15.0f);
    frame(f, NULL);
    for (int i = 1; i <= 5; i++) {
        glow_scene(f, &lt, 15.0f - 3.0f * (float)i);
        frame_once(f, i == 5 ? "turning" : NULL);
    }
    uint8_t turned[W * H * 4];
    copy_px(f, turned);
    glow_scene(f, &lt, 0.0f);
    frame(f, "turn_fresh");
    copy_px(f, fresh);
    double turn_diff = mean_diff(turned, fresh);
    /* The cut: many frames of the glow, then a turn to the right, away from it. */
    glow_scene(f, &lt, 0.0f);
    for (int i = 0; i < 8; i++) {
        frame_once(f, NULL);
    }
    glow_scene(f, &lt, -90.0f);
    frame_once(f, "after_cut");
    uint8_t cut[W * H * 4];
    copy_px(f, cut);
    restart_history(f);
    frame_once(f, "cut_fresh");
    print_message("turning 3 degrees a frame vs fresh %.3f; after a cut vs fresh %.3f\n", turn_diff,
                  mean_diff(cut, f->px));
    assert_true(turn_diff < 3.0);
    assert_memory_equal(cut, f->px, sizeof(cut));
}

/* A light that goes out or jumps leaves no ghost in the fog: the history is clamped to the range
 * of this frame's froxels around each one, so the first frame after the change is close to a
 * fresh history's picture: measured 0.00 levels after the light went out, 2.6 after the jump (the
 * glow's edge keeps some within its 3 x 3 range). Without the clamp (checked) 90% of the old glow
 * stays on that frame: 162 and 114 levels off. */
static void test_temporal_no_ghost(void **state) {
    fixture *f = *state;
    uint8_t changed[W * H * 4];
    rill_render_light lt;
    double diff[2];
    for (int c = 0; c < 2; c++) {
        glow_scene(f, &lt, 0.0f);
        frame(f, NULL);
        for (int i = 0; i < 8; i++) {
            frame_once(f, NULL);
        }
        if (c == 0) {
            f->snap.light_count = 0; /* the light goes out */
        } else {
            lt.position[2] = 8.0f; /* the light jumps 8 m to the side */
        }
        frame_once(f, c ? "jumped" : "went_out");
        copy_px(f, changed);
        restart_history(f);
        frame_once(f, c ? "jumped_fresh" : "went_out_fresh");
        diff[c] = mean_diff(changed, f->px);
    }
    print_message("first frame vs a fresh history: light out %.3f, light jumped %.3f\n", diff[0],
                  diff[1]);
    assert_true(diff[0] < 1.0);
    assert_true(diff[1] < 5.0);
}

/* The user's path: VolumetricFog on the camera entity is routed to the view, every FogVolume with
 * a GlobalTransform reaches the snapshot with its entity, and their defaults are NOTES 10's. */
static void test_components_extract(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    const rill_builtins *b = rill_world_builtin(w);
    rill_entity cam = render_test_world_camera(w, NULL);
    rill_component vf = rill_world_find_component(w, "VolumetricFog");
    rill_component fv = rill_world_find_component(w, "FogVolume");
    assert_true(vf.id && fv.id);
    rill_render_volumetric_fog fog;
    rill_type_apply_defaults(rill_world_component_type(w, vf), &fog);
    assert_float_equal(fog.density, 0.02f, 0.0);
    assert_float_equal(fog.scattering_albedo, 0.9f, 0.0);
    assert_float_equal(fog.anisotropy, 0.6f, 0.0);
    assert_float_equal(fog.height_falloff, 0.05f, 0.0);
    assert_float_equal(fog.distance, 256.0f, 0.0);
    fog.density = 0.5f;
    assert_non_null(rill_world_add(w, cam, vf, &fog));
    rill_entity box = rill_world_spawn(w);
    rill_render_fog_volume bv;
    rill_type_apply_defaults(rill_world_component_type(w, fv), &bv);
    assert_float_equal(bv.density, 0.1f, 0.0);
    bv.scattering = 2.0f;
    assert_non_null(rill_world_add(w, box, fv, &bv));
    assert_non_null(rill_world_add(w, box, b->transform, NULL));
    assert_non_null(rill_world_add(w, box, b->global_transform, NULL));
    rill_entity no_xf = rill_world_spawn(w); /* no transform: not a box anywhere */
    assert_non_null(rill_world_add(w, no_xf, fv, &bv));

    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    uint32_t size = 0;
    const rill_render_volumetric_fog *routed =
        rill_render_view_settings(&s.view, "VolumetricFog", &size);
    assert_non_null(routed);
    assert_int_equal(size, sizeof(*routed));
    assert_float_equal(routed->density, 0.5f, 0.0);
    assert_int_equal(s.fog_volume_count, 1);
    assert_int_equal(s.fog_volumes[0].entity, box);
    assert_float_equal(s.fog_volumes[0].fog.scattering, 2.0f, 0.0);
    rill_world_remove(w, box, fv);
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.fog_volume_count, 0);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest gpu[] = {
        cmocka_unit_test(test_thickens_with_distance),
        cmocka_unit_test(test_brighter_toward_sun),
        cmocka_unit_test(test_shadowed_fog_darker),
        cmocka_unit_test(test_point_light_in_fog),
        cmocka_unit_test(test_fog_volume_box),
        cmocka_unit_test(test_zero_density_and_low_tier_change_nothing),
        cmocka_unit_test(test_hostile_settings_clamp),
        cmocka_unit_test(test_temporal_still_camera_converges),
        cmocka_unit_test(test_temporal_reprojects_and_cuts),
        cmocka_unit_test(test_temporal_no_ghost),
    };
    const struct CMUnitTest cpu[] = {
        cmocka_unit_test(test_components_extract),
    };
    int failed = cmocka_run_group_tests_name("vfog_cpu", cpu, NULL, NULL);
    return failed + cmocka_run_group_tests_name("vfog_gpu", gpu, setup, render_test_teardown);
}
