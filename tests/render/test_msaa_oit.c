/* Msaa and OrderIndependentTransparency (rill/render/msaa.h) on lavapipe, small images,
 * validation on: MSAA smooths a tilted quad's edges (pixels between the quad's and the
 * background's colour appear along them, the squared steps across them shrink) and leaves the
 * flat inside alone; enabling OIT turns the camera's MSAA off with one warning naming the camera
 * and disabling it brings MSAA back; hostile sample counts are lowered with a warning naming the
 * entity. OIT: three transparent planes crossing each other give the same image in every spawn
 * order (per-object sorted blending does not), separate planes give what sorted blending gives,
 * alpha_threshold drops fainter fragments, hostile settings are clamped naming the entity. */
#include "rill_test.h"

#include "rill/render.h"
#include "rill/render/msaa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_test.h"

#define W 96
#define H 64

typedef struct scene {
    rill_renderer *r;
    rill_mesh cube, plane;
    rill_material white, glass[3];
    rill_render_instance inst[8];
    rill_render_snapshot s;
    rill_render_routed_settings rs[2];
    uint8_t px[W * H * 4];
} scene;

static bool scene_open(scene *sc) {
    memset(sc, 0, sizeof(*sc));
    sc->r = render_test_renderer((rill_renderer_desc){.width = W, .height = H});
    if (!sc->r) {
        return false;
    }
    rill_error err = {0};
    sc->cube = rill_render_mesh_cube(sc->r, &err);
    sc->plane = rill_render_mesh_plane(sc->r, &err);
    assert_true(sc->cube.id && sc->plane.id);
    sc->white = render_test_material(
        sc->r, (rill_material_desc){.base_color = {1, 1, 1, 1}, .unlit = true});
    const float tint[3][4] = {{1, 0.1f, 0.1f, 0.5f}, {0.1f, 1, 0.1f, 0.5f}, {0.1f, 0.1f, 1, 0.5f}};
    for (int i = 0; i < 3; i++) {
        rill_material_desc d = {
            .unlit = true, .alpha_mode = RILL_ALPHA_BLEND, .double_sided = true};
        memcpy(d.base_color, tint[i], sizeof(d.base_color));
        sc->glass[i] = render_test_material(sc->r, d);
    }
    for (int i = 0; i < 16; i++) { /* camera at the origin looking down -Z */
        sc->s.view.world_from_view[i] = i % 5 == 0 ? 1.0f : 0.0f;
    }
    sc->s.view.camera = ((uint64_t)1 << 32) | 7u; /* "camera entity 7:1" */
    sc->s.view.tonemapper = RILL_TONEMAP_NONE;
    sc->s.instances = sc->inst;
    return true;
}

static void scene_close(scene *sc) {
    rill_render_mesh_destroy(sc->r, sc->cube);
    rill_render_mesh_destroy(sc->r, sc->plane);
    rill_render_material_destroy(sc->r, sc->white);
    for (int i = 0; i < 3; i++) {
        rill_render_material_destroy(sc->r, sc->glass[i]);
    }
    render_test_destroy_clean(sc->r, false);
}

/* The camera's routed settings: Msaa (samples; 0: none) and OIT (NULL: none), from `source`. */
static void scene_route(scene *sc, int32_t samples, const rill_render_oit *oit,
                        rill_entity source) {
    static rill_render_msaa msaa;
    static rill_render_oit oit_copy;
    uint32_t n = 0;
    if (samples) {
        msaa.samples = (rill_msaa_samples)samples;
        sc->rs[n++] = (rill_render_routed_settings){"Msaa", &msaa, sizeof(msaa), source};
    }
    if (oit) {
        oit_copy = *oit;
        sc->rs[n++] = (rill_render_routed_settings){"OrderIndependentTransparency", &oit_copy,
                                                    sizeof(oit_copy), source};
    }
    sc->s.view.settings = n ? sc->rs : NULL;
    sc->s.view.settings_count = n;
}

static void scene_render(scene *sc, int frames) {
    rill_error err = {0};
    for (int f = 0; f < frames; f++) {
        assert_int_equal(rill_renderer_render(sc->r, &sc->s, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(sc->r, sc->px, sizeof(sc->px), &err), RILL_OK);
}

/* A white unlit square turned 17 degrees about the view axis, over black. */
static void tilted_quad(scene *sc) {
    rill_render_instance *in = &sc->inst[0];
    memset(in, 0, sizeof(*in));
    in->id = 1;
    in->mesh = sc->cube;
    in->material = sc->white;
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){0, 0, -4});
    glm_rotate_z(m, 0.3f, m);
    glm_scale(m, (vec3){2.2f, 2.2f, 0.1f});
    memcpy(in->transform, m, sizeof(mat4));
    sc->s.instance_count = 1;
}

/* Edge measure: pixels strictly between black and white (red channel 16..239), and the sum of
 * squared horizontal red steps (a hard edge is one big step; a smoothed one several small). */
static void edge_measure(const uint8_t *px, int *out_mid, double *out_steps) {
    int mid = 0;
    double steps = 0.0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int v = px[(y * W + x) * 4];
            mid += v >= 16 && v <= 239;
            if (x + 1 < W) {
                double d = (double)v - (double)px[(y * W + x + 1) * 4];
                steps += d * d;
            }
        }
    }
    *out_mid = mid;
    *out_steps = steps;
}

static void test_msaa_smooths_edges(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    tilted_quad(&sc);
    scene_render(&sc, 1);
    static uint8_t off[W * H * 4];
    memcpy(off, sc.px, sizeof(off));
    int mid_off, mid_on;
    double steps_off, steps_on;
    edge_measure(off, &mid_off, &steps_off);

    scene_route(&sc, RILL_MSAA_SAMPLE4, NULL, 3);
    scene_render(&sc, 1);
    edge_measure(sc.px, &mid_on, &steps_on);
    print_message("msaa 4x: %d edge pixels between (off: %d), squared steps %.0f (off: %.0f)\n",
                  mid_on, mid_off, steps_on, steps_off);
    assert_true(mid_off <= 2); /* one sample: every pixel is quad or background */
    assert_true(mid_on >= 60); /* the quad's outline is about 4 x 60 pixels long */
    assert_true(steps_on < steps_off * 0.8);
    /* the inside and the far background are untouched */
    int centre = ((H / 2) * W + W / 2) * 4, corner = 0;
    assert_int_equal(sc.px[centre], off[centre]);
    assert_int_equal(sc.px[corner], off[corner]);
    /* a routed Msaa set back to Off draws the single-sample image again, pixel for pixel */
    scene_route(&sc, RILL_MSAA_OFF, NULL, 3);
    scene_render(&sc, 1);
    assert_memory_equal(sc.px, off, sizeof(off));
    scene_close(&sc);
}

static void test_oit_forces_msaa_off(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    tilted_quad(&sc);
    scene_render(&sc, 1);
    static uint8_t off[W * H * 4], on[W * H * 4];
    memcpy(off, sc.px, sizeof(off));
    scene_route(&sc, RILL_MSAA_SAMPLE4, NULL, 3);
    scene_render(&sc, 1);
    memcpy(on, sc.px, sizeof(on));
    assert_memory_not_equal(on, off, sizeof(on));

    /* OIT enabled: no MSAA, one warning naming the camera over several frames */
    rill_render_oit oit = {8, 0.0f, true};
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    scene_route(&sc, RILL_MSAA_SAMPLE4, &oit, 3);
    scene_render(&sc, 3);
    rill_test_log_end(&cap);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 1);
    assert_true(rill_test_log_last_has(&cap, "camera entity 7:1: OrderIndependentTransparency"));
    assert_memory_equal(sc.px, off, sizeof(off));

    /* disabled: the camera's Msaa is back, silently */
    oit.enabled = false;
    rill_test_log_begin(&cap);
    scene_route(&sc, RILL_MSAA_SAMPLE4, &oit, 3);
    scene_render(&sc, 1);
    rill_test_log_end(&cap);
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 0);
    assert_memory_equal(sc.px, on, sizeof(on));
    /* and its source removed: likewise */
    scene_route(&sc, RILL_MSAA_SAMPLE4, NULL, 3);
    scene_render(&sc, 1);
    assert_memory_equal(sc.px, on, sizeof(on));
    scene_close(&sc);
}

/* Every warning of a stretch, joined (the device may add its own after the clamp's). */
static char warnings[4096];
static void grab(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)module, (void)user;
    size_t n = strlen(warnings);
    if (level == RILL_LOG_WARN && n + strlen(msg) + 2 < sizeof(warnings)) {
        snprintf(warnings + n, sizeof(warnings) - n, "%s\n", msg);
    }
}

static void test_msaa_hostile_samples(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    tilted_quad(&sc);
    warnings[0] = 0;
    rill_log_set_sink(grab, NULL);
    scene_route(&sc, 1000, NULL, ((uint64_t)2 << 32) | 9u);
    scene_render(&sc, 2);
    scene_route(&sc, -5, NULL, ((uint64_t)2 << 32) | 10u);
    scene_render(&sc, 1);
    rill_log_set_sink(NULL, NULL);
    print_message("%s", warnings);
    assert_non_null(
        strstr(warnings, "Msaa of entity 9:2: samples = 1000 is out of range; using 8"));
    assert_non_null(strstr(warnings, "Msaa of entity 10:2: samples = -5 is out of range; using 1"));
    scene_close(&sc);
}

/* Three glass planes (red, green, blue; alpha 0.5) through one point, turned about +Y by -50, 0
 * and 50 degrees (or, separate, parallel at three depths and shifted), spawned in `order`: the
 * instance spawned k-th is k-th in the snapshot and has id k + 1. */
static void glass_planes(scene *sc, const int order[3], bool separate) {
    for (int k = 0; k < 3; k++) {
        int i = order[k];
        rill_render_instance *in = &sc->inst[k];
        memset(in, 0, sizeof(*in));
        in->id = (uint64_t)k + 1;
        in->mesh = sc->plane;
        in->material = sc->glass[i];
        mat4 m;
        glm_mat4_identity(m);
        if (separate) {
            glm_translate(m, (vec3){(float)(i - 1) * 0.6f, 0, -3.0f - (float)i});
        } else {
            glm_translate(m, (vec3){0, 0, -4});
            glm_rotate_y(m, (float)(i - 1) * 0.87f, m);
        }
        glm_rotate_x(m, 1.5708f, m); /* the XZ plane faces the camera (+Z) */
        glm_scale_uni(m, 2.6f);
        memcpy(in->transform, m, sizeof(mat4));
    }
    sc->s.instance_count = 3;
}

/* Pixels of a and b whose channels differ by more than tol. */
static int pixels_off(const uint8_t *a, const uint8_t *b, int tol) {
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        for (int c = 0; c < 3; c++) {
            if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > tol) {
                n++;
                break;
            }
        }
    }
    return n;
}

static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

static void test_oit_any_draw_order(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    sc.s.view.clear_color[0] = sc.s.view.clear_color[1] = sc.s.view.clear_color[2] = 0.2f;
    rill_render_oit oit = {8, 0.0f, true};
    static uint8_t sorted[6][W * H * 4], first[W * H * 4];
    int sorted_differ = 0;
    for (int o = 0; o < 6; o++) {
        glass_planes(&sc, orders[o], false);
        scene_route(&sc, 0, NULL, 0);
        scene_render(&sc, 1);
        memcpy(sorted[o], sc.px, sizeof(sc.px));
        if (o > 0) {
            sorted_differ = RILL_MAX(sorted_differ, pixels_off(sorted[o], sorted[0], 2));
        }
        scene_route(&sc, 0, &oit, 0);
        scene_render(&sc, 1);
        if (o == 0) {
            memcpy(first, sc.px, sizeof(first));
        } else {
            assert_int_equal(pixels_off(sc.px, first, 0), 0);
        }
    }
    print_message("sorted blending: up to %d of %d pixels change with the spawn order; OIT: none\n",
                  sorted_differ, W * H);
    assert_true(sorted_differ > 200);
    /* the three colours all show where the planes cross (the centre column) */
    assert_true(pixels_off(first, sorted[0], 2) > 100);
    scene_close(&sc);
}

static void test_oit_matches_sorted_when_sortable(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    sc.s.view.clear_color[0] = sc.s.view.clear_color[1] = sc.s.view.clear_color[2] = 0.2f;
    const int order[3] = {2, 0, 1};
    glass_planes(&sc, order, true);
    scene_render(&sc, 1);
    static uint8_t sorted[W * H * 4];
    memcpy(sorted, sc.px, sizeof(sorted));
    rill_render_oit oit = {8, 0.0f, true};
    scene_route(&sc, 0, &oit, 0);
    scene_render(&sc, 1);
    assert_int_equal(pixels_off(sc.px, sorted, 2), 0); /* half-float layers: rounding only */
    assert_true(pixels_off(sc.px, sorted, 0) < W * H / 4);
    /* alpha_threshold above the glass's alpha: nothing is stored, the background shows */
    oit.alpha_threshold = 0.6f;
    scene_route(&sc, 0, &oit, 0);
    scene_render(&sc, 1);
    for (int i = 0; i < W * H; i++) {
        assert_int_equal(sc.px[i * 4], sc.px[0]);
    }
    scene_close(&sc);
}

static void test_oit_hostile_settings(void **state) {
    (void)state;
    scene sc;
    if (!scene_open(&sc)) {
        skip();
    }
    const int order[3] = {0, 1, 2};
    glass_planes(&sc, order, false);
    rill_render_oit oit = {1000000u, NAN, true};
    warnings[0] = 0;
    rill_log_set_sink(grab, NULL);
    scene_route(&sc, 0, &oit, ((uint64_t)4 << 32) | 12u);
    scene_render(&sc, 2);
    rill_log_set_sink(NULL, NULL);
    print_message("%s", warnings);
    assert_non_null(strstr(warnings, "OrderIndependentTransparency of entity 12:4: layer_count = "
                                     "1e+06 is out of range; using 16"));
    assert_non_null(strstr(warnings, "OrderIndependentTransparency of entity 12:4: "
                                     "alpha_threshold = nan is out of range; using 0"));
    /* and the frame is the one the clamped settings give */
    static uint8_t clamped[W * H * 4];
    memcpy(clamped, sc.px, sizeof(clamped));
    oit = (rill_render_oit){16, 0.0f, true};
    scene_route(&sc, 0, &oit, ((uint64_t)4 << 32) | 12u);
    scene_render(&sc, 1);
    assert_memory_equal(sc.px, clamped, sizeof(clamped));
    scene_close(&sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msaa_smooths_edges),
        cmocka_unit_test(test_oit_forces_msaa_off),
        cmocka_unit_test(test_msaa_hostile_samples),
        cmocka_unit_test(test_oit_any_draw_order),
        cmocka_unit_test(test_oit_matches_sorted_when_sortable),
        cmocka_unit_test(test_oit_hostile_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
