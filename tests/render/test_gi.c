/* Global illumination (rill/render/gi.h) on lavapipe, validation on: a closed box with a red and a
 * green wall and a white floor under a point light shows colour bleeding on the floor with
 * screen-space GI and none without; Off and tiers below High add no pass; hostile values clamp
 * with a warning naming the field; a camera's ScreenSpaceGi wins over the world's
 * GlobalIllumination (warned once); the components route from a scene. */
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/gi.h"
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

#include "gi_box_fixture.h"

/* The floor takes the colour of the wall next to it with GI; without it both sides match. */
static void test_gi_colour_bleeding(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    static uint8_t off[W * H * 4], on[W * H * 4], ind[W * H * 4];
    box_render(&b, 3, off);
    double ratio_off = bleed(&b, off);
    assert_false(has_pass(&b, "ssgi"));

    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    use_gi(&b, &g);
    box_render(&b, 8, on);
    double ratio_on = bleed(&b, on);
    assert_true(has_pass(&b, "ssgi") && has_pass(&b, "ssgi_temporal") &&
                has_pass(&b, "ssgi_apply"));
    print_message("bleed ratio off %.3f on %.3f (intensity 0.4)\n", ratio_off, ratio_on);
    assert_true(fabs(ratio_off - 1.0) < 0.01); /* a symmetric room: both sides alike */
    assert_true(ratio_on > 1.03);              /* measured 1.05 */
    /* intensity scales the bounce */
    g.intensity = 1.0f;
    box_render(&b, 2, on);
    double ratio_strong = bleed(&b, on);
    print_message("bleed ratio at intensity 1: %.3f\n", ratio_strong);
    assert_true(ratio_strong > 1.08); /* measured 1.12 */
    assert_true(ratio_strong > ratio_on + 0.03);
    rill_render_stats st;
    rill_renderer_stats(b.r, &st);
    assert_true(st.gi_ms > 0.0);
    assert_true(st.gi_voxelize_ms == 0.0);

    /* IndirectOnly: the indirect light alone, darker than the lit image, still red by red. */
    g.intensity = 0.4f;
    g.debug = RILL_GI_DEBUG_INDIRECT_ONLY;
    box_render(&b, 4, ind);
    double sum_on = 0, sum_ind = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) {
        sum_on += on[i] * ((i & 3) != 3);
        sum_ind += ind[i] * ((i & 3) != 3);
    }
    assert_true(sum_ind < sum_on * 0.7);
    assert_true(sum_ind > 0.0);
    assert_true(bleed(&b, ind) > 1.5);

    /* A metal floor reflects no diffuse light: no bounce on it in the indirect view. */
    rill_material_desc md = {
        .base_color = {0.8f, 0.8f, 0.8f, 1.0f}, .metallic = 1.0f, .roughness = 1.0f};
    rill_material floor = b.inst[0].material;
    b.inst[0].material = render_test_material(b.r, md);
    static uint8_t metal[W * H * 4];
    box_render(&b, 3, metal);
    double mr, mg, wr, wg;
    patch_rg(&b, metal, (vec3){-0.8f, 0.0f, -0.3f}, &mr, &mg);
    patch_rg(&b, ind, (vec3){-0.8f, 0.0f, -0.3f}, &wr, &wg);
    print_message("indirect by the red wall: white floor %.1f, metal floor %.1f\n", wr / 49,
                  mr / 49);
    assert_true(wr / 49 >= 3.0);
    assert_true(mr / 49 < 0.5);
    b.inst[0].material = floor;

    /* Off: no pass, and the picture is the one without GI. */
    g.debug = RILL_GI_DEBUG_NONE;
    g.quality = RILL_GI_OFF;
    static uint8_t off2[W * H * 4];
    box_render(&b, 2, off2);
    assert_false(has_pass(&b, "ssgi"));
    assert_memory_equal(off, off2, sizeof(off));
    box_close(&b);
}

/* The tier is a ceiling: screen-space GI runs at High only. */
static void test_gi_tier_ceiling(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_MEDIUM);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    use_gi(&b, &g);
    box_render(&b, 1, NULL);
    assert_false(has_pass(&b, "ssgi"));
    rill_renderer_set_quality(b.r, RILL_RENDER_QUALITY_HIGH);
    box_render(&b, 1, NULL);
    assert_true(has_pass(&b, "ssgi"));
    box_close(&b);
}

/* Values that are not finite or out of range are clamped, each field warned about once. */
static void test_gi_hostile_settings(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_global_illumination g = {.quality = (rill_gi_quality)77,
                                         .intensity = NAN,
                                         .specular_intensity = -3.0f,
                                         .debug = (rill_gi_debug)9};
    use_gi(&b, &g);
    render_test_log_begin();
    static uint8_t px[W * H * 4];
    box_render(&b, 3, px);
    render_test_log_end();
    assert_int_equal(render_test_count_of(render_test_logged, "GlobalIllumination of entity"), 4);
    assert_non_null(strstr(render_test_logged, "quality = 77"));
    assert_non_null(strstr(render_test_logged, "intensity = nan"));
    assert_non_null(strstr(render_test_logged, "specular_intensity = -3"));
    assert_non_null(strstr(render_test_logged, "debug = 9"));
    assert_true(has_pass(&b, "ssgi")); /* the quality became ScreenSpace */

    rill_render_screen_space_gi ss = {
        .intensity = 1e9f, .radius = INFINITY, .directions = 0, .steps = 4000, .temporal = true};
    rill_render_routed_settings rs2 = {"ScreenSpaceGi", &ss, sizeof(ss), 0};
    b.snap.view.settings = &rs2;
    render_test_log_begin();
    box_render(&b, 2, px);
    render_test_log_end();
    assert_int_equal(render_test_count_of(render_test_logged, "ScreenSpaceGi of entity"), 4);
    assert_non_null(strstr(render_test_logged, "radius = inf"));
    assert_non_null(strstr(render_test_logged, "directions = 0 is out of range; using 1"));
    assert_non_null(strstr(render_test_logged, "steps = 4000 is out of range; using 32"));
    assert_non_null(strstr(render_test_logged, "intensity = 1e+09 is out of range; using 16"));
    box_close(&b);
}

/* From a scene: GlobalIllumination on a non-camera entity routes to the camera; a camera holding
 * its own ScreenSpaceGi keeps it and the world's setting yields (warned once). */
static void test_gi_world_yields_to_camera(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components comps;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &comps, &err), RILL_OK);
    const rill_builtins *bi = rill_world_builtin(w);
    rill_entity cam = rill_world_spawn(w), env = rill_world_spawn(w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(w, bi->camera), &c);
    c.active = true;
    assert_non_null(rill_world_add(w, cam, bi->camera, &c));
    assert_non_null(rill_world_add(w, cam, bi->transform, NULL));
    assert_non_null(rill_world_add(w, cam, bi->global_transform, NULL));
    rill_component gic = rill_world_find_component(w, "GlobalIllumination");
    rill_component ssc = rill_world_find_component(w, "ScreenSpaceGi");
    assert_true(gic.id && ssc.id);
    /* The defaults a scene gets. */
    rill_render_global_illumination g;
    rill_type_apply_defaults(rill_world_component_type(w, gic), &g);
    assert_int_equal(g.quality, RILL_GI_SCREEN_SPACE);
    assert_float_equal(g.intensity, 0.4f, 0.0);
    assert_float_equal(g.specular_intensity, 1.0f, 0.0);
    assert_int_equal(g.debug, RILL_GI_DEBUG_NONE);
    g.quality = RILL_GI_OFF;
    assert_non_null(rill_world_add(w, env, gic, &g));

    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    const rill_render_global_illumination *rg =
        rill_render_view_settings(&s.view, "GlobalIllumination", NULL);
    assert_non_null(rg);
    assert_int_equal(rg->quality, RILL_GI_OFF);
    b.snap.view.settings = s.view.settings;
    b.snap.view.settings_count = s.view.settings_count;
    box_render(&b, 1, NULL);
    assert_false(has_pass(&b, "ssgi")); /* the world says Off */

    rill_render_screen_space_gi ss;
    rill_type_apply_defaults(rill_world_component_type(w, ssc), &ss);
    assert_int_equal(ss.directions, 4);
    assert_true(ss.temporal);
    assert_non_null(rill_world_add(w, cam, ssc, &ss));
    assert_int_equal(rill_render_extract(w, &comps, &buf, &s, &err), RILL_OK);
    b.snap.view.settings = s.view.settings;
    b.snap.view.settings_count = s.view.settings_count;
    render_test_log_begin();
    box_render(&b, 3, NULL);
    rill_log_set_sink(NULL, NULL);
    assert_true(has_pass(&b, "ssgi")); /* the camera's ScreenSpaceGi runs */
    assert_int_equal(render_test_count_of(render_test_logged, "GlobalIllumination (entity"), 1);
    assert_non_null(strstr(render_test_logged, "yields"));
    box_close(&b);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(w);
}

/* The mean absolute difference of two frames' RGB bytes. */
static double frame_diff(const uint8_t *a, const uint8_t *b) {
    double d = 0.0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) {
        if ((i & 3) != 3) {
            d += fabs((double)a[i] - (double)b[i]);
        }
    }
    return d / (W * H * 3.0);
}

/* Temporal accumulation: with a still camera successive frames change much less than without
 * it (each frame traces other directions); a camera cut restarts the history, and
 * the first frame after it is the first frame of a fresh renderer, byte for byte. */
static void test_gi_temporal_and_cut(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_screen_space_gi ss = rill_render_screen_space_gi_query_defaults();
    ss.intensity = 4.0f; /* bright enough to see the noise in 8 bits */
    rill_render_routed_settings rs = {"ScreenSpaceGi", &ss, sizeof(ss), 0};
    b.snap.view.settings = &rs;
    b.snap.view.settings_count = 1;
    static uint8_t f0[W * H * 4], f1[W * H * 4];
    ss.temporal = false;
    box_render(&b, 4, f0);
    box_render(&b, 1, f1);
    double raw = frame_diff(f0, f1);
    ss.temporal = true;
    box_render(&b, 12, f0);
    box_render(&b, 1, f1);
    double accumulated = frame_diff(f0, f1);
    print_message("frame to frame: %.3f without accumulation, %.3f with\n", raw, accumulated);
    assert_true(raw > 0.2);
    assert_true(accumulated < raw * 0.5);

    /* A cut: the camera turns 90 degrees and looks at the red wall. */
    render_test_look_at(b.wfv, (float[3]){0, 1.0f, 0.2f}, (float[3]){-1.0f, 0.8f, 0.2f});
    memcpy(b.snap.view.world_from_view, b.wfv, sizeof(b.wfv));
    static uint8_t cut[W * H * 4], fresh[W * H * 4];
    box_render(&b, 1, cut);
    box_scene c;
    box_open(&c, RILL_RENDER_QUALITY_HIGH);
    memcpy(c.snap.view.world_from_view, b.wfv, sizeof(b.wfv));
    box_render(&c, 3, NULL); /* without GI: the uploads land */
    c.snap.view.settings = &rs;
    c.snap.view.settings_count = 1;
    box_render(&c, 1, fresh);
    assert_memory_equal(cut, fresh, sizeof(cut));
    box_close(&c);
    box_close(&b);
}

/* The mean of the RGB bytes of a 9x9 patch around the pixel where world point p lands. */
static double patch_mean(const box_scene *b, const uint8_t *px, vec3 p) {
    double r, g;
    patch_rg(b, px, p, &r, &g); /* 7x7 red and green sums */
    return (r + g) / (2.0 * 49.0);
}

/* Disocclusion: where a metal box floating in front of the camera was (black in the indirect
 * view), the floor it uncovers takes none of the box's history: its indirect light is the
 * floor's at once. */
static void test_gi_disocclusion(void **state) {
    (void)state;
    box_scene b;
    box_open(&b, RILL_RENDER_QUALITY_HIGH);
    rill_render_global_illumination g = rill_render_global_illumination_query_defaults();
    g.intensity = 4.0f;
    g.debug = RILL_GI_DEBUG_INDIRECT_ONLY;
    use_gi(&b, &g);
    vec3 spot = {-0.35f, 0.0f, -0.3f}; /* floor by the red wall, behind the box */
    static uint8_t fresh[W * H * 4], covered[W * H * 4], uncovered[W * H * 4];
    box_render(&b, 8, fresh); /* no box yet: the floor's converged indirect light */
    double floor_lit = patch_mean(&b, fresh, spot);
    /* The box on the line from the camera to the spot, a third of the way. */
    vec3 eye = {0, 1.3f, 0.9f}, at;
    glm_vec3_lerp(eye, spot, 0.35f, at);
    rill_render_instance inst[7];
    memcpy(inst, b.inst, sizeof(b.inst));
    /* a metal box: no diffuse bounce, so its indirect light is black */
    rill_material_desc md = {.base_color = {0.8f, 0.8f, 0.8f, 1.0f}, .metallic = 1.0f};
    place_box(&inst[6], 7, b.inst[0].mesh, render_test_material(b.r, md), at,
              (vec3){0.4f, 0.4f, 0.4f});
    b.snap.instances = inst;
    b.snap.instance_count = 7;
    box_render(&b, 8, covered);
    double box_lit = patch_mean(&b, covered, spot);
    b.snap.instance_count = 6; /* the box goes: its pixels show the floor again */
    box_render(&b, 1, uncovered);
    double after = patch_mean(&b, uncovered, spot);
    print_message("indirect at the spot: floor %.2f, box %.2f, floor uncovered %.2f\n", floor_lit,
                  box_lit, after);
    assert_true(floor_lit > 4.0);
    assert_true(box_lit < 0.25 * floor_lit);
    /* kept history would give 0.9 box + 0.1 floor */
    assert_true(fabs(after - floor_lit) < 0.1 * floor_lit);
    b.snap.instances = b.inst;
    box_close(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gi_colour_bleeding),
        cmocka_unit_test(test_gi_tier_ceiling),
        cmocka_unit_test(test_gi_hostile_settings),
        cmocka_unit_test(test_gi_world_yields_to_camera),
        cmocka_unit_test(test_gi_temporal_and_cut),
        cmocka_unit_test(test_gi_disocclusion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
