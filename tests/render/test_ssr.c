/* Screen-space reflections (rill/render/reflections.h) on lavapipe, validation on: a mirror-smooth
 * floor under a red box shows the box below it with SSR and not without; without the settings
 * there is no pass; hostile settings are clamped (the effect still runs, the image stays finite);
 * the component's defaults and routing from a world. */
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/reflections.h"
#include "rill/scene.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render_test.h"

#define W 64
#define H 64

typedef struct scene {
    rill_renderer *r;
    rill_mesh cube, plane;
    rill_material floor, red;
    rill_render_instance in[2];
    rill_render_snapshot s;
    rill_render_routed_settings rs;
    rill_render_ssr ssr;
} scene;

/* A mirror floor (white metal, roughness 0) and a red box floating above it, seen from above and
 * in front; a sun from above. */
static bool scene_open(scene *sc, rill_render_quality q) {
    memset(sc, 0, sizeof(*sc));
    sc->r = render_test_renderer(
        (rill_renderer_desc){.width = W, .height = H, .shadow_map_size = 256, .quality = q});
    if (!sc->r) {
        return false;
    }
    rill_error err = {0};
    sc->cube = rill_render_mesh_cube(sc->r, &err);
    sc->plane = rill_render_mesh_plane(sc->r, &err);
    assert_true(sc->cube.id && sc->plane.id);
    sc->floor = render_test_material(sc->r, (rill_material_desc){.base_color = {1, 1, 1, 1},
                                                                 .metallic = 1.0f,
                                                                 .roughness = 0.0f,
                                                                 .roughness_set = true});
    sc->red = render_test_material(
        sc->r, (rill_material_desc){.base_color = {1, 0, 0, 1}, .roughness = 0.9f});
    render_test_place(&sc->in[0], 1, sc->plane, sc->floor, (float[3]){0, 0, 0}, 40.0f, 0.0f);
    render_test_place(&sc->in[1], 2, sc->cube, sc->red, (float[3]){0, 0.9f, 0}, 0.8f, 0.0f);
    mat4 wfv;
    render_test_look_at(wfv, (float[3]){0, 1.6f, 4.0f}, (float[3]){0, 0.2f, 0});
    memcpy(sc->s.view.world_from_view, wfv, sizeof(wfv));
    sc->s.instances = sc->in;
    sc->s.instance_count = 2;
    sc->s.has_sun = true;
    sc->s.sun = (rill_render_dir_light){{0.3f, -1, -0.4f}, {1, 1, 1}, 3.0f, false, false};
    sc->s.ambient[0] = sc->s.ambient[1] = sc->s.ambient[2] = 0.2f;
    sc->ssr = rill_render_ssr_query_defaults();
    sc->rs = (rill_render_routed_settings){"ScreenSpaceReflections", &sc->ssr, sizeof(sc->ssr), 0};
    return true;
}

static void scene_close(scene *sc) {
    rill_render_mesh_destroy(sc->r, sc->cube);
    rill_render_mesh_destroy(sc->r, sc->plane);
    rill_render_material_destroy(sc->r, sc->floor);
    rill_render_material_destroy(sc->r, sc->red);
    render_test_destroy_clean(sc->r, false);
}

/* Renders a few frames (uploads land in the first) with SSR on or off and reads the pixels. */
static void scene_render(scene *sc, bool ssr, uint8_t *px) {
    sc->s.view.settings = ssr ? &sc->rs : NULL;
    sc->s.view.settings_count = ssr ? 1 : 0;
    rill_error err = {0};
    for (int f = 0; f < 3; f++) {
        assert_int_equal(rill_renderer_render(sc->r, &sc->s, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(sc->r, px, W * H * 4, &err), RILL_OK);
    const char *dir = getenv("RILL_TEST_PNG_DIR"); /* to look at the pictures */
    if (dir) {
        static int shot;
        char path[512];
        snprintf(path, sizeof(path), "%s/ssr_%d_%s.png", dir, shot++, ssr ? "on" : "off");
        assert_int_equal(rill_renderer_write_png(sc->r, path, &err), RILL_OK);
    }
}

static bool reddish(const uint8_t *p) {
    return p[0] > 60 && p[0] > 2 * p[1] + 10 && p[0] > 2 * p[2] + 10;
}

/* The effect "ssr": whether it ran last frame and how many passes it added. */
static uint32_t ssr_passes(rill_renderer *r) {
    for (uint32_t i = 0; i < rill_render_effect_count(r); i++) {
        rill_render_effect_info info;
        assert_true(rill_render_effect_get(r, i, &info));
        if (strcmp(info.id, "ssr") == 0) {
            return info.ran_last_frame ? info.passes : 0;
        }
    }
    fail_msg("no ssr effect registered");
    return 0;
}

static void test_ssr_mirror_floor(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, RILL_RENDER_QUALITY_MEDIUM)) {
        skip();
    }
    static uint8_t off[W * H * 4], on[W * H * 4];
    scene_render(&sc, false, off);
    assert_int_equal(ssr_passes(sc.r), 0);
    scene_render(&sc, true, on);
    assert_int_equal(ssr_passes(sc.r), 4);
    rill_render_stats st;
    rill_renderer_stats(sc.r, &st);
    assert_true(st.ssr_gpu_ms > 0.0); /* the four passes' timestamps (rill render --stats) */
    /* The box's own pixels are red in both; the lowest row holding one of them without SSR. */
    int box_bottom = -1, off_red = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            if (reddish(off + (y * W + x) * 4)) {
                box_bottom = y;
                off_red++;
            }
        }
    }
    assert_true(box_bottom > 0 && off_red > 20);
    /* With SSR the floor below the box takes its colour: red pixels that were not red, all below
     * the box. */
    int new_red = 0, new_red_below = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const uint8_t *a = off + (y * W + x) * 4, *b = on + (y * W + x) * 4;
            if (reddish(b) && !reddish(a)) {
                new_red++;
                new_red_below += y > box_bottom;
            }
        }
    }
    print_message("box pixels %d (bottom row %d); reflected red pixels %d, %d below the box\n",
                  off_red, box_bottom, new_red, new_red_below);
    assert_true(new_red >= off_red / 4);
    assert_true(new_red_below >= new_red * 9 / 10);
    /* At an odd render scale (64 x 0.55 = 35 pixels: pyramid levels 18, 9, 4, 2, 1) the box still
     * shows below itself. */
    rill_renderer_set_render_scale(sc.r, 0.55f);
    static uint8_t scaled[W * H * 4];
    scene_render(&sc, true, scaled);
    int scaled_red = 0;
    for (int i = (box_bottom + 2) * W; i < W * H; i++) {
        scaled_red += reddish(scaled + i * 4) && !reddish(off + i * 4);
    }
    print_message("reflected red pixels at render scale 0.55: %d\n", scaled_red);
    assert_true(scaled_red >= new_red_below / 2);
    scene_close(&sc);
}

/* Hostile values are clamped: the effect runs, the image has no NaN (a NaN would tonemap to
 * black or garbage over the whole floor), and the Low tier switches it off. */
static void test_ssr_hostile_and_tier(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc, RILL_RENDER_QUALITY_MEDIUM)) {
        skip();
    }
    static uint8_t ok[W * H * 4], bad[W * H * 4];
    scene_render(&sc, true, ok);
    sc.ssr.intensity = NAN;
    sc.ssr.thickness = -5.0f;
    sc.ssr.max_roughness = INFINITY;
    sc.ssr.steps = 100000;
    scene_render(&sc, true, bad);
    assert_int_equal(ssr_passes(sc.r), 4);
    /* intensity and max roughness back to their defaults, thickness 1 mm: the floor's
     * reflection of the box is still there, nothing went black. */
    int differ = 0;
    for (int i = 0; i < W * H; i++) {
        differ += abs(ok[i * 4] - bad[i * 4]) > 40;
    }
    assert_true(differ < W * H / 20);
    rill_renderer_set_quality(sc.r, RILL_RENDER_QUALITY_LOW);
    scene_render(&sc, true, bad);
    assert_int_equal(ssr_passes(sc.r), 0);
    scene_close(&sc);
}

/* The component's defaults (NOTES 10) and its routing from a world entity to the camera. */
static void test_ssr_component(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    rill_component c = rill_world_find_component(w, "ScreenSpaceReflections");
    assert_true(c.id != 0);
    rill_render_ssr d;
    rill_type_apply_defaults(rill_world_component_type(w, c), &d);
    assert_float_equal(d.intensity, 1.0f, 0.0);
    assert_float_equal(d.thickness, 0.3f, 1e-7);
    assert_float_equal(d.max_roughness, 0.6f, 1e-7);
    assert_int_equal(d.steps, 32);
    const rill_builtins *b = rill_world_builtin(w);
    rill_entity cam = rill_world_spawn(w), env = rill_world_spawn(w);
    rill_camera cc;
    rill_type_apply_defaults(rill_world_component_type(w, b->camera), &cc);
    cc.active = true;
    assert_non_null(rill_world_add(w, cam, b->camera, &cc));
    assert_non_null(rill_world_add(w, cam, b->transform, NULL));
    assert_non_null(rill_world_add(w, cam, b->global_transform, NULL));
    d.thickness = 0.7f;
    assert_non_null(rill_world_add(w, env, c, &d));
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    uint32_t size = 0;
    const rill_render_ssr *routed =
        rill_render_view_settings(&s.view, "ScreenSpaceReflections", &size);
    assert_non_null(routed);
    assert_int_equal(size, sizeof(rill_render_ssr));
    assert_float_equal(routed->thickness, 0.7f, 1e-7);
    rill_world_remove(w, env, c);
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    assert_null(rill_render_view_settings(&s.view, "ScreenSpaceReflections", NULL));
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ssr_component),
        cmocka_unit_test(test_ssr_mirror_floor),
        cmocka_unit_test(test_ssr_hostile_and_tier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
