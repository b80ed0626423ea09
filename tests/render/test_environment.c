/* The world's look (rill/render/environment.h) on lavapipe: WorldEnvironment routing (one per
 * world, a second ignored; the ssao section; an Ssao component still wins), the ambient
 * multiplier brightening a face the sun does not reach, the sun marking and time of day. */
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/environment.h"
#include "rill/scene.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"
#include "render_test.h"

typedef struct env_world {
    rill_world *w;
    rill_render_components comps;
    rill_entity cam;
} env_world;

static void env_open(env_world *ew) {
    memset(ew, 0, sizeof(*ew));
    ew->w = rill_world_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(ew->w, &ew->comps, &err), RILL_OK);
    const rill_builtins *b = rill_world_builtin(ew->w);
    ew->cam = rill_world_spawn(ew->w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(ew->w, b->camera), &c);
    c.active = true;
    assert_non_null(rill_world_add(ew->w, ew->cam, b->camera, &c));
    assert_non_null(rill_world_add(ew->w, ew->cam, b->transform, NULL));
    assert_non_null(rill_world_add(ew->w, ew->cam, b->global_transform, NULL));
}

static rill_world_environment env_defaults(env_world *ew) {
    rill_world_environment e;
    rill_type_apply_defaults(rill_world_component_type(ew->w, ew->comps.world_environment), &e);
    return e;
}

/* The defaults a scene gets (NOTES 10) and one WorldEnvironment per world. */
static void test_environment_routing(void **state) {
    (void)state;
    env_world ew;
    env_open(&ew);
    rill_world_environment e = env_defaults(&ew);
    assert_true(e.ssao.enabled);
    assert_false(e.fog.enabled);
    assert_float_equal(e.ambient, 1.0f, 0.0);
    assert_int_equal(e.sky_mode, RILL_SKY_AUTO);
    assert_float_equal(e.fog.density, 0.0015f, 1e-9);
    assert_int_equal(e.fog.falloff, RILL_FOG_EXPONENTIAL_SQUARED);
    rill_render_atmosphere a;
    rill_type_apply_defaults(rill_world_component_type(ew.w, ew.comps.atmosphere), &a);
    assert_float_equal(a.ground_radius_km, 6360.0f, 0.0);
    assert_float_equal(a.rayleigh_scattering[2], 33.1f, 1e-5);

    rill_entity first = rill_world_spawn(ew.w), second = rill_world_spawn(ew.w);
    e.ambient = 2.5f;
    e.ssao.quality = RILL_SSAO_LOW;
    assert_non_null(rill_world_add(ew.w, first, ew.comps.world_environment, &e));
    e.ambient = 7.0f;
    assert_non_null(rill_world_add(ew.w, second, ew.comps.world_environment, &e));
    assert_non_null(rill_world_add(ew.w, ew.cam, ew.comps.world_environment, &e));

    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    rill_error err = {0};
    assert_int_equal(rill_render_extract(ew.w, &ew.comps, &buf, &s, &err), RILL_OK);
    const rill_world_environment *re = rill_render_view_settings(&s.view, "WorldEnvironment", NULL);
    assert_non_null(re);
    /* The lowest entity id is the world's one: the camera's own copy is ignored too. */
    assert_true(ew.cam < first);
    assert_float_equal(re->ambient, 7.0f, 0.0); /* cam has the lowest id here */
    assert_true(buf.warned_environments);
    /* The ssao section turns SSAO on for the view. */
    assert_true(s.view.ssao.enabled);

    rill_world_remove(ew.w, ew.cam, ew.comps.world_environment);
    assert_int_equal(rill_render_extract(ew.w, &ew.comps, &buf, &s, &err), RILL_OK);
    re = rill_render_view_settings(&s.view, "WorldEnvironment", NULL);
    assert_float_equal(re->ambient, 2.5f, 0.0);
    assert_int_equal(s.view.ssao.quality, RILL_SSAO_LOW);

    /* An Ssao component on the route wins over the section. */
    rill_render_ssao ss;
    rill_type_apply_defaults(rill_world_component_type(ew.w, ew.comps.ssao), &ss);
    ss.quality = RILL_SSAO_ULTRA;
    assert_non_null(rill_world_add(ew.w, second, ew.comps.ssao, &ss));
    assert_int_equal(rill_render_extract(ew.w, &ew.comps, &buf, &s, &err), RILL_OK);
    assert_int_equal(s.view.ssao.quality, RILL_SSAO_ULTRA);

    /* The section switched off, no Ssao: no SSAO. */
    rill_world_remove(ew.w, second, ew.comps.ssao);
    rill_world_environment *fe = rill_world_get(ew.w, first, ew.comps.world_environment);
    fe->ssao.enabled = false;
    assert_int_equal(rill_render_extract(ew.w, &ew.comps, &buf, &s, &err), RILL_OK);
    assert_false(s.view.ssao.enabled);
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(ew.w);
}

/* The mean of the RGB channels of the frame's pixels. */
static double mean_rgb(rill_renderer *r, uint32_t n) {
    static uint8_t px[64 * 64 * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        sum += px[i * 4] + px[i * 4 + 1] + px[i * 4 + 2];
    }
    return sum / (3.0 * n);
}

/* A 64 x 64 renderer (validation on), or NULL when there is no Vulkan renderer. */
static rill_renderer *small_renderer(void) {
    return render_test_renderer(
        (rill_renderer_desc){.width = 64, .height = 64, .shadow_map_size = 256});
}

/* s (zeroed first) drawing the one instance in, seen from eye toward `at`. */
static void one_instance_view(rill_render_snapshot *s, const rill_render_instance *in,
                              const float eye[3], const float at[3]) {
    memset(s, 0, sizeof(*s));
    mat4 wfv; /* aligned for cglm; the view's array need not be */
    render_test_look_at(wfv, eye, at);
    memcpy(s->view.world_from_view, wfv, sizeof(wfv));
    s->instances = in;
    s->instance_count = 1;
}

/* Renders s on r `frames` times (what r uploads lands within the first frames). */
static void render_frames(rill_renderer *r, const rill_render_snapshot *s, int frames) {
    rill_error err = {0};
    for (int f = 0; f < frames; f++) {
        assert_int_equal(rill_renderer_render(r, s, &err), RILL_OK);
    }
}

/* Destroys mesh, mat and r, failing the test on a validation message. */
static void close_renderer(rill_renderer *r, rill_mesh mesh, rill_material mat) {
    rill_render_mesh_destroy(r, mesh);
    rill_render_material_destroy(r, mat);
    render_test_destroy_clean(r, false);
}

/* A face the sun does not reach is lit by the ambient light alone: raising
 * WorldEnvironment.ambient brightens it, 0 turns it black; project.toml's default
 * (snapshot.ambient_scale) applies only without a WorldEnvironment. */
static void test_ambient_multiplier(void **state) {
    (void)state;
    rill_renderer *r = small_renderer();
    if (!r) {
        skip();
    }
    rill_mesh cube = render_test_cube(r);
    rill_material mat = render_test_material(r, (rill_material_desc){0});
    rill_render_instance in;
    render_test_place(&in, 1, cube, mat, (float[3]){0, 0, 0}, 3.0f, 0.0f);
    rill_render_snapshot s;
    one_instance_view(&s, &in, (float[3]){0, 0, 4}, (float[3]){0, 0, 0});
    s.has_sun = true; /* travels along +Z onto the back face: the camera sees the unlit front */
    s.sun = (rill_render_dir_light){{0, 0, 1}, {1, 1, 1}, 3.0f, false, false};
    s.ambient[0] = s.ambient[1] = s.ambient[2] = 0.1f;
    rill_world_environment env;
    memset(&env, 0, sizeof(env));
    env.ambient = 1.0f;
    rill_render_routed_settings rs = {"WorldEnvironment", &env, sizeof(env), 0};
    s.view.settings = &rs;
    s.view.settings_count = 1;
    double means[4];
    const float amb[3] = {1.0f, 4.0f, 0.0f};
    for (int i = 0; i < 4; i++) {
        if (i < 3) {
            env.ambient = amb[i];
        } else { /* no environment: the snapshot's default multiplier */
            s.view.settings_count = 0;
            s.ambient_scale = 4.0f;
        }
        render_frames(r, &s, 3);
        means[i] = mean_rgb(r, 64 * 64);
    }
    print_message("means %.2f %.2f %.2f %.2f\n", means[0], means[1], means[2], means[3]);
    assert_true(means[1] > means[0] * 1.5);
    assert_true(means[2] < 1.0);
    assert_true(fabs(means[3] - means[1]) < 1.0);
    close_renderer(r, cube, mat);
}

/* NOTES 10's time of day, and the transmittance that tints the sun: bluer light is lost faster,
 * so the low sun is redder; below the horizon nothing arrives. */
static void test_time_of_day_and_transmittance(void **state) {
    (void)state;
    float d[3];
    rill_render_sun_direction_for_hour(12.0, d); /* culminates toward -Z: light travels +Z, down */
    assert_float_equal(d[0], 0.0f, 1e-6);
    assert_float_equal(d[1], -sinf(0.785398f), 1e-5);
    assert_true(d[2] > 0.7f);
    rill_render_sun_direction_for_hour(6.0, d); /* rises toward +X: light travels -X */
    assert_float_equal(d[0], -1.0f, 1e-5);
    assert_float_equal(d[1], 0.0f, 1e-5);
    rill_render_sun_direction_for_hour(18.0, d); /* sets toward -X */
    assert_float_equal(d[0], 1.0f, 1e-5);
    float noon[3], low[3], below[3];
    rill_render_atmosphere_transmittance(NULL, 0.0f, 1.0f, noon);
    rill_render_atmosphere_transmittance(NULL, 0.0f, 0.05f, low);
    rill_render_atmosphere_transmittance(NULL, 0.0f, -0.2f, below);
    assert_true(noon[0] > 0.8f && noon[0] <= 1.0f);
    assert_true(noon[2] < noon[0]);
    assert_true(low[0] / low[2] > 3.0f * noon[0] / noon[2]);
    assert_float_equal(below[0] + below[1] + below[2], 0.0f, 0.0);
    /* Hostile inputs: clamped, never NaN. */
    rill_render_atmosphere_transmittance(NULL, NAN, INFINITY, low);
    assert_true(isfinite(low[0]) && isfinite(low[2]));

    /* The world's sun (the marked one) turns; a NaN hour is refused. */
    env_world ew;
    env_open(&ew);
    rill_entity other = rill_world_spawn(ew.w), sun = rill_world_spawn(ew.w);
    rill_directional_light dl = {{1, 1, 1, 1}, 3.0f, true, false};
    const rill_builtins *b = rill_world_builtin(ew.w);
    assert_non_null(rill_world_add(ew.w, other, ew.comps.directional_light, &dl));
    dl.sun = true;
    assert_non_null(rill_world_add(ew.w, sun, ew.comps.directional_light, &dl));
    for (int i = 0; i < 2; i++) {
        rill_entity e = i ? sun : other;
        assert_non_null(rill_world_add(ew.w, e, b->transform, NULL));
        assert_non_null(rill_world_add(ew.w, e, b->global_transform, NULL));
    }
    rill_error err = {0};
    assert_int_equal(rill_render_set_time_of_day(ew.w, &ew.comps, NAN, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_render_set_time_of_day(ew.w, &ew.comps, 6.0, &err), RILL_OK);
    rill_render_extract_buf buf;
    memset(&buf, 0, sizeof(buf));
    rill_render_snapshot s;
    assert_int_equal(rill_render_extract(ew.w, &ew.comps, &buf, &s, &err), RILL_OK);
    assert_true(s.has_sun && s.sun.marked);
    assert_float_equal(s.sun.direction[0], -1.0f, 1e-4);
    assert_float_equal(s.sun.direction[1], 0.0f, 1e-4);
    /* A marked sun makes the sky default to the atmosphere: resolved per view in the renderer
     * (test_sun_warmer_at_sunset shows its effect). */
    rill_render_extract_buf_free(&buf);
    rill_world_destroy(ew.w);
}

/* The mean R / B of the frame (a white floor in the sun). */
static double red_over_blue(rill_renderer *r) {
    static uint8_t px[64 * 64 * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
    double rs = 0.0, bs = 0.0;
    for (uint32_t i = 0; i < 64 * 64; i++) {
        rs += px[i * 4];
        bs += px[i * 4 + 2];
    }
    return rs / (bs + 1.0);
}

/* With the atmosphere (a marked sun, sky mode Auto) the sun light at the ground is warmer at
 * sunset than at noon with no user action; without it (the sun not marked) the colour stays. */
static void test_sun_warmer_at_sunset(void **state) {
    (void)state;
    rill_renderer *r = small_renderer();
    if (!r) {
        skip();
    }
    rill_mesh plane = render_test_plane(r);
    rill_material mat = render_test_material(r, (rill_material_desc){0});
    rill_render_instance in;
    render_test_place(&in, 1, plane, mat, (float[3]){0, 0, 0}, 40.0f, 0.0f);
    rill_render_snapshot s;
    one_instance_view(&s, &in, (float[3]){0, 6, 0.01f}, (float[3]){0, 0, 0});
    s.has_sun = true;
    s.sun = (rill_render_dir_light){{0, 0, 0}, {1, 1, 1}, 3.0f, false, true};
    s.ambient_scale = 1e-6f; /* (nearly) no ambient: the floor shows the sun's colour */
    double ratio[4];
    const double hours[2] = {12.0, 17.5};
    for (int i = 0; i < 4; i++) {
        s.sun.marked = i < 2;
        rill_render_sun_direction_for_hour(hours[i % 2], s.sun.direction);
        render_frames(r, &s, 3);
        ratio[i] = red_over_blue(r);
    }
    print_message("R/B noon %.2f sunset %.2f, unmarked %.2f %.2f\n", ratio[0], ratio[1], ratio[2],
                  ratio[3]);
    assert_true(ratio[1] > ratio[0] * 1.5);
    assert_true(fabs(ratio[3] - ratio[2]) < 0.1);
    close_renderer(r, plane, mat);
}

/* The centre pixel's RGB. */
static void centre_rgb(rill_renderer *r, int out[3]) {
    static uint8_t px[64 * 64 * 4];
    rill_error err = {0};
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
    const uint8_t *c = px + (32 * 64 + 32) * 4;
    out[0] = c[0], out[1] = c[1], out[2] = c[2];
}

/* Distance fog drives farther surfaces toward the fog colour, monotonically, for every falloff;
 * off, the same cube keeps its colour at every distance. A golden: exponential-squared at 600 m. */
static void test_distance_fog_monotonic(void **state) {
    (void)state;
    rill_renderer *r = small_renderer();
    if (!r) {
        skip();
    }
    rill_error err = {0};
    rill_mesh cube = render_test_cube(r);
    rill_material mat =
        render_test_material(r, (rill_material_desc){.base_color = {0.9f, 0.2f, 0.1f, 1.0f}});
    rill_render_snapshot s;
    memset(&s, 0, sizeof(s));
    s.view.far_plane = 5000.0f;
    s.has_sun = true;
    s.sun = (rill_render_dir_light){{0.3f, -0.8f, -0.5f}, {1, 1, 1}, 3.0f, false, false};
    s.ambient[0] = s.ambient[1] = s.ambient[2] = 0.1f;
    rill_render_distance_fog fog = rill_render_distance_fog_defaults();
    rill_render_routed_settings rs = {"DistanceFog", &fog, sizeof(fog), 0};
    s.view.settings = &rs;
    s.view.settings_count = 1;
    const float dist[4] = {20.0f, 200.0f, 600.0f, 1400.0f};
    const rill_fog_falloff kinds[3] = {RILL_FOG_EXPONENTIAL_SQUARED, RILL_FOG_EXPONENTIAL,
                                       RILL_FOG_LINEAR};
    rill_render_instance in;
    for (int k = 0; k < 4; k++) {
        int fogged[3], prev = 1 << 30;
        for (int i = 0; i < 4; i++) {
            /* Same size on screen at every distance: the scale grows with it. */
            render_test_place(&in, 1, cube, mat, (float[3]){0, 0, -dist[i]}, dist[i] * 0.5f, 0.0f);
            s.instances = &in;
            s.instance_count = 1;
            fog.enabled = k < 3;
            fog.falloff = kinds[k < 3 ? k : 0];
            fog.density = 0.0015f;
            render_frames(r, &s, 3);
            int c[3];
            centre_rgb(r, c);
            if (k == 0 && i == 2) { /* the golden: exponential-squared fog over a cube at 600 m */
                static uint8_t px[64 * 64 * 4];
                assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
                golden_expect("fog_distance_exp2_600m", px, 64, 64);
            }
            fog.enabled = true; /* the reference: the whole fog colour at the same pixel */
            fog.density = 10.0f;
            fog.falloff = RILL_FOG_EXPONENTIAL;
            assert_int_equal(rill_renderer_render(r, &s, &err), RILL_OK);
            centre_rgb(r, fogged);
            int gap = abs(c[0] - fogged[0]) + abs(c[1] - fogged[1]) + abs(c[2] - fogged[2]);
            print_message("fog kind %d distance %.0f: gap to the fog colour %d\n", k, dist[i], gap);
            if (k < 3) {
                assert_true(gap <= prev);
                if (i == 3) {
                    assert_true(gap < 60); /* linear: 93% of the way at 1400 of 1500 m */
                }
                if (i == 0) {
                    assert_true(gap > 100);
                }
            } else { /* fog off: the cube looks the same at every distance */
                assert_true(gap > 100);
                assert_true(i == 0 || abs(gap - prev) < 8);
            }
            prev = gap;
        }
    }
    close_renderer(r, cube, mat);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environment_routing),
        cmocka_unit_test(test_ambient_multiplier),
        cmocka_unit_test(test_time_of_day_and_transmittance),
        cmocka_unit_test(test_sun_warmer_at_sunset),
        cmocka_unit_test(test_distance_fog_monotonic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
