/* Every camera with its own effects (docs/renderer.md, Cameras), on lavapipe with validation on:
 * a split screen and a picture in picture where bloom runs for one camera only change that
 * camera's rectangle and nothing else (both halves lit), TAA keeps a history per camera, and
 * hostile viewports (NaN, outside [0, 1], zero size) are clamped or skipped. Goldens at 128x96. */
#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/graph.h"
#include "rill/scene.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"
#include "render_test.h"

#define W 128
#define H 96

typedef struct fixture {
    rill_renderer *r;
    rill_rg *graph; /* the last frame's graph */
    rill_mesh cube, plane;
    rill_world *w;
    rill_render_components rc;
    rill_render_extract_buf xb;
} fixture;

static rill_result grab_graph(const rill_render_graph *fg, void *user, rill_error *err) {
    (void)err;
    ((fixture *)user)->graph = fg->graph;
    return RILL_OK;
}

/* A bright emissive cube and a grey one on a floor under a sun (bloom has light to spread). */
static void scene(fixture *f) {
    rill_error err = {0};
    rill_material glow = render_test_material(
        f->r, (rill_material_desc){.base_color = {1, 1, 1, 1}, .emissive = {6.0f, 5.0f, 2.0f}});
    rill_material grey = render_test_material(
        f->r, (rill_material_desc){.base_color = {0.6f, 0.6f, 0.6f, 1}, .roughness = 0.8f});
    struct {
        rill_mesh mesh;
        rill_material mat;
        float x, y, s;
    } parts[] = {
        {f->cube, glow, -0.8f, 0.5f, 1}, {f->cube, grey, 0.9f, 0.5f, 1}, {f->plane, grey, 0, 0, 8}};
    for (int i = 0; i < 3; i++) {
        rill_entity e = rill_world_spawn(f->w);
        rill_mesh_instance mi = {parts[i].mesh.id, parts[i].mat.id};
        assert_non_null(rill_world_add(f->w, e, f->rc.mesh_instance, &mi));
        rill_transform t = rill_transform_identity();
        t.translation[0] = parts[i].x, t.translation[1] = parts[i].y;
        t.scale[0] = t.scale[1] = t.scale[2] = parts[i].s;
        assert_true(rill_world_set_transform(f->w, e, &t));
    }
    rill_entity sun = rill_world_spawn(f->w);
    rill_directional_light dl = {.color = {1, 1, 1}, .illuminance = 3.0f, .shadows = true};
    assert_non_null(rill_world_add(f->w, sun, f->rc.directional_light, &dl));
    static const float from[3] = {2, 4, 3}, to[3] = {0, 0, 0};
    render_test_entity_look_at(f->w, sun, from, to);
    (void)err;
}

static int setup(void **state) {
    fixture *f = rill_calloc(1, sizeof(*f));
    f->r = render_test_renderer((rill_renderer_desc){.width = W,
                                                     .height = H,
                                                     .shadow_map_size = 256,
                                                     .quality = RILL_RENDER_QUALITY_HIGH,
                                                     .setup_graph = grab_graph,
                                                     .setup_graph_user = f});
    assert_non_null(f->r);
    rill_error err = {0};
    f->cube = rill_render_mesh_cube(f->r, &err);
    f->plane = rill_render_mesh_plane(f->r, &err);
    f->w = rill_world_create(NULL, NULL);
    assert_non_null(f->w);
    assert_int_equal(rill_render_register_components(f->w, &f->rc, &err), RILL_OK);
    scene(f);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rill_render_extract_buf_free(&f->xb);
    rill_world_destroy(f->w);
    render_test_destroy_clean(f->r, false);
    rill_free(f);
    return 0;
}

/* A camera at eye looking at target over viewport (x, y, w, h), drawn at `order`. */
static rill_entity camera(fixture *f, const float eye[3], const float target[3],
                          const float viewport[4], int32_t order) {
    rill_entity e = rill_world_spawn(f->w);
    rill_camera *c = rill_world_add(f->w, e, rill_world_builtin(f->w)->camera, NULL);
    assert_non_null(c);
    render_test_entity_look_at(f->w, e, eye, target);
    c = rill_world_get(f->w, e, rill_world_builtin(f->w)->camera);
    memcpy(c->viewport, viewport, sizeof(c->viewport));
    c->clear_color[0] = 0.05f, c->clear_color[1] = 0.07f, c->clear_color[2] = 0.12f;
    c->order = order;
    return e;
}

static void add_bloom(fixture *f, rill_entity cam) {
    rill_render_bloom b = {
        .enabled = true, .intensity = 1.0f, .threshold = 0.5f, .threshold_set = true};
    assert_non_null(rill_world_add(f->w, cam, f->rc.bloom, &b));
}

/* Extracts and renders `frames` frames; px gets the last one. */
static void render(fixture *f, uint32_t frames, uint8_t *px) {
    rill_error err = {0};
    for (uint32_t i = 0; i < frames; i++) {
        rill_world_update_transforms(f->w);
        rill_render_snapshot snap;
        if (rill_render_extract(f->w, &f->rc, &f->xb, &snap, &err) != RILL_OK) {
            fail_msg("extract: %s", err.msg);
        }
        if (rill_renderer_render(f->r, &snap, &err) != RILL_OK) {
            fail_msg("render: %s", err.msg);
        }
    }
    assert_int_equal(rill_renderer_read_pixels(f->r, px, W * H * 4, &err), RILL_OK);
    rill_render_stats st;
    rill_renderer_stats(f->r, &st);
    assert_int_equal(st.validation_messages, 0);
}

/* Pixels of [x0, x1) x [y0, y1) whose colour differs between a and b by more than 8, and the
 * mean brightness of that rectangle in a. */
static uint32_t changed(const uint8_t *a, const uint8_t *b, uint32_t x0, uint32_t y0, uint32_t x1,
                        uint32_t y1) {
    uint32_t n = 0;
    for (uint32_t y = y0; y < y1; y++) {
        for (uint32_t x = x0; x < x1; x++) {
            for (int c = 0; c < 3; c++) {
                size_t i = ((size_t)y * W + x) * 4 + (size_t)c;
                if (abs((int)a[i] - (int)b[i]) > 8) {
                    n++;
                    break;
                }
            }
        }
    }
    return n;
}

static double mean(const uint8_t *a, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
    double s = 0;
    for (uint32_t y = y0; y < y1; y++) {
        for (uint32_t x = x0; x < x1; x++) {
            for (int c = 0; c < 3; c++) {
                s += a[((size_t)y * W + x) * 4 + (size_t)c];
            }
        }
    }
    return s / (3.0 * (x1 - x0) * (y1 - y0));
}

static bool has_pass(const fixture *f, const char *label) {
    return rill_rg_order_of(f->graph, label) >= 0;
}

/* Split screen, bloom on the left camera only: the left half glows, the right half is the image
 * without bloom pixel for pixel; both halves are lit; each camera has its own passes. */
static void test_split_screen_bloom_one_side(void **state) {
    fixture *f = *state;
    static const float eye_l[3] = {0, 2.5f, 4.5f}, eye_r[3] = {3.5f, 2.0f, 3.0f},
                       target[3] = {0, 0.5f, 0};
    static const float left[4] = {0, 0, 0.5f, 1}, right[4] = {0.5f, 0, 0.5f, 1};
    rill_entity l = camera(f, eye_l, target, left, 0);
    camera(f, eye_r, target, right, 1);
    add_bloom(f, l);
    static uint8_t with[W * H * 4], without[W * H * 4];
    render(f, 1, with);
    assert_true(has_pass(f, "bloom_down0") && !has_pass(f, "bloom_down0.1"));
    assert_true(has_pass(f, "opaque") && has_pass(f, "opaque.1"));
    assert_true(has_pass(f, "tonemapping") && has_pass(f, "tonemapping.1"));
    assert_true(has_pass(f, "compose"));
    assert_true(mean(with, 0, 0, W / 2, H) > 30.0 && mean(with, W / 2, 0, W, H) > 30.0);
    golden_expect("camera_split_bloom", with, W, H);
    rill_world_remove(f->w, l, f->rc.bloom);
    render(f, 1, without);
    assert_false(has_pass(f, "bloom_down0"));
    assert_true(changed(with, without, 0, 0, W / 2, H) > (W / 2) * H / 20);
    assert_int_equal(changed(with, without, W / 2, 0, W, H), 0);
}

/* Picture in picture: bloom on the inset only changes the inset's rectangle; TAA on the full view
 * runs with its own history while the inset has none. */
static void test_pip_effects_per_camera(void **state) {
    fixture *f = *state;
    static const float eye[3] = {0, 2.5f, 4.5f}, target[3] = {0, 0.5f, 0};
    static const float eye_top[3] = {0.01f, 6.0f, 0.0f}, target_top[3] = {0, 0, 0};
    static const float full[4] = {0, 0, 1, 1}, inset[4] = {0.6f, 0.05f, 0.35f, 0.4f};
    rill_entity main_cam = camera(f, eye, target, full, 0);
    rill_entity pip = camera(f, eye_top, target_top, inset, 5);
    assert_non_null(rill_world_add(f->w, main_cam, f->rc.taa, NULL));
    add_bloom(f, pip);
    static uint8_t with[W * H * 4], without[W * H * 4];
    render(f, 4, with);
    assert_true(has_pass(f, "taa") && !has_pass(f, "taa.1"));
    assert_true(has_pass(f, "bloom_down0.1") && !has_pass(f, "bloom_down0"));
    uint32_t x0 = (uint32_t)(0.6f * W + 0.5f), y0 = (uint32_t)(0.05f * H + 0.5f);
    uint32_t x1 = (uint32_t)(0.95f * W + 0.5f), y1 = (uint32_t)(0.45f * H + 0.5f);
    assert_true(mean(with, x0, y0, x1, y1) > 20.0 && mean(with, 0, y1, W, H) > 20.0);
    golden_expect("camera_pip_bloom_taa", with, W, H);
    rill_world_remove(f->w, pip, f->rc.bloom);
    /* A restarted history: the first frame of the run above was a fresh renderer's first. */
    rill_render_taa *taa = rill_world_get(f->w, main_cam, f->rc.taa);
    taa->reset = true;
    render(f, 1, without);
    taa = rill_world_get(f->w, main_cam, f->rc.taa);
    taa->reset = false;
    render(f, 3, without);
    assert_true(changed(with, without, x0, y0, x1, y1) > (x1 - x0) * (y1 - y0) / 20);
    /* Outside the inset: the same TAA-converged full view (TAA is deterministic per frame). */
    assert_int_equal(changed(with, without, 0, y1, W, H), 0);
}

/* Hostile viewports: NaN and out-of-range values clamp into [0, 1] at extract, a zero-size view
 * is skipped; the frame still renders the valid camera, validation clean. */
static void test_hostile_viewports(void **state) {
    fixture *f = *state;
    static const float eye[3] = {0, 2.5f, 4.5f}, target[3] = {0, 0.5f, 0};
    static const float ok[4] = {0, 0, 0.5f, 1};
    const float bad_nan[4] = {NAN, 0.5f, NAN, 0.5f}, bad_range[4] = {-3.0f, 0.25f, 7.0f, 1e30f},
                zero[4] = {0.5f, 0.5f, 0.0f, 0.3f};
    camera(f, eye, target, ok, 0);
    camera(f, eye, target, bad_nan, 1);
    camera(f, eye, target, bad_range, 2);
    camera(f, eye, target, zero, 3);
    rill_render_snapshot snap;
    rill_error err = {0};
    rill_world_update_transforms(f->w);
    assert_int_equal(rill_render_extract(f->w, &f->rc, &f->xb, &snap, &err), RILL_OK);
    assert_int_equal(snap.view_count, 4);
    for (uint32_t i = 0; i < snap.view_count; i++) {
        const float *v = snap.views[i].viewport;
        for (int k = 0; k < 4; k++) {
            assert_true(v[k] >= 0.0f && v[k] <= 1.0f);
        }
        assert_true(v[0] + v[2] <= 1.0f && v[1] + v[3] <= 1.0f);
    }
    /* (-3, 0.25, 7, 1e30) -> (0, 0.25, 1, 0.75): the whole width below a quarter. */
    assert_true(snap.views[2].viewport[0] == 0.0f && snap.views[2].viewport[2] == 1.0f);
    assert_true(fabsf(snap.views[2].viewport[3] - 0.75f) < 1e-6f);
    static uint8_t px[W * H * 4];
    render(f, 1, px);
    assert_true(mean(px, 0, 0, W / 2, H / 4) > 20.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_split_screen_bloom_one_side, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pip_effects_per_camera, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_viewports, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
