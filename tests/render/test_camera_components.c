/* test_camera_components.c: GPU tests of Camera components through rill_render_extract (views,
 * orthographic, HDR, split screen, picture in picture) on lavapipe with validation on, compared
 * against committed golden PNGs like test_render_gpu.c (tolerance in golden.h). No Vulkan device is
 * a failure, never a skip: CI installs lavapipe. */
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

#include "golden.h"
#include "model_gen.h"
#include "rill/formats/image.h"
#include "rill/render.h"

#include "gpu_fixture.h"

/* >>cameras: Camera components through rill_render_extract. */

/* Counts warnings from the render module. */
static void count_warn_sink(rill_log_level level, const char *module, const char *msg, void *user) {
    (void)msg;
    if (level == RILL_LOG_WARN && strcmp(module, "render") == 0) {
        (*(int *)user)++;
    }
}

/* Spawns a camera looking from eye at target. */
static rill_camera *spawn_camera(rill_world *w, rill_entity *out, const float eye[3],
                                 const float target[3]) {
    const rill_builtins *b = rill_world_builtin(w);
    rill_entity e = rill_world_spawn(w);
    rill_camera *c = rill_world_add(w, e, b->camera, NULL);
    assert_non_null(c);
    render_test_entity_look_at(w, e, eye, target);
    if (out) {
        *out = e;
    }
    return rill_world_get(w, e, b->camera);
}

/* A cube on a floor lit by a sun of the given illuminance. */
static void camera_scene(fixture *f, rill_world *w, const rill_render_components *rc,
                         float illuminance) {
    rill_entity cube = rill_world_spawn(w);
    rill_mesh_instance mi = {f->cube.id,
                             mat(f, 0.9f, 0.5f, 0.2f, 1, 0, 0.4f, RILL_ALPHA_OPAQUE).id};
    assert_non_null(rill_world_add(w, cube, rc->mesh_instance, &mi));
    rill_transform t = rill_transform_identity();
    t.translation[1] = 0.5f;
    t.rotation[1] = 0.3826834f, t.rotation[3] = 0.9238795f; /* 45 degrees about Y */
    assert_true(rill_world_set_transform(w, cube, &t));
    rill_entity floor = rill_world_spawn(w);
    rill_mesh_instance fi = {f->plane.id,
                             mat(f, 0.7f, 0.7f, 0.7f, 1, 0, 0.8f, RILL_ALPHA_OPAQUE).id};
    assert_non_null(rill_world_add(w, floor, rc->mesh_instance, &fi));
    t = rill_transform_identity();
    t.scale[0] = t.scale[1] = t.scale[2] = 10.0f;
    assert_true(rill_world_set_transform(w, floor, &t));
    rill_entity sun_e = rill_world_spawn(w);
    rill_directional_light *dl = rill_world_add(w, sun_e, rc->directional_light, NULL);
    assert_non_null(dl);
    dl->illuminance = illuminance;
    t = rill_transform_identity();
    versor qx, qy, qs;
    glm_quatv(qx, -1.0471976f, (vec3){1, 0, 0});
    glm_quatv(qy, 0.5235988f, (vec3){0, 1, 0});
    glm_quat_mul(qy, qx, qs);
    memcpy(t.rotation, qs, sizeof(float) * 4);
    assert_true(rill_world_set_transform(w, sun_e, &t));
}

/* Extracts and renders the world; the pixels land in px. */
static void render_world(fixture *f, rill_world *w, const rill_render_components *rc,
                         rill_render_extract_buf *xb, uint8_t *px) {
    rill_world_update_transforms(w);
    rill_render_snapshot snap;
    rill_error err = {0};
    if (rill_render_extract(w, rc, xb, &snap, &err) != RILL_OK) {
        fail_msg("extract: %s", err.msg);
    }
    if (rill_renderer_render(f->r, &snap, &err) != RILL_OK) {
        fail_msg("render: %s", err.msg);
    }
    read_frame(f, px);
}

/* render_world once, into a fresh extract buffer, held to a golden; destroys w. */
static void render_world_expect(fixture *f, rill_world *w, const rill_render_components *rc,
                                const char *golden) {
    rill_render_extract_buf xb = {0};
    static uint8_t px[W * H * 4];
    render_world(f, w, rc, &xb, px);
    golden_expect(golden, px, W, H);
    rill_render_extract_buf_free(&xb);
    rill_world_destroy(w);
}

/* Views: every active camera, sorted by order then entity id, at most RILL_RENDER_MAX_VIEWS (the
 * lowest orders kept, one warning per buffer); the primary view is the default camera; viewports
 * are clamped; hdr off selects the clamp-only tonemapper. No rendering here. */
static void test_camera_views_extract(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    assert_non_null(w);
    rill_render_components rc;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    static const float eye[3] = {0, 2, 5}, target[3] = {0, 0, 0};
    /* Orders 9, 8, ..., 0 plus an inactive one and a second camera with order 3. */
    rill_entity ents[12];
    for (int i = 0; i < 10; i++) {
        rill_camera *c = spawn_camera(w, &ents[i], eye, target);
        c->order = 9 - i;
        c->clear_color[0] = (float)(9 - i) / 10.0f;
    }
    rill_camera *off = spawn_camera(w, &ents[10], eye, target);
    off->order = -5;
    off->active = false;
    rill_camera *dup = spawn_camera(w, &ents[11], eye, target);
    dup->order = 3;
    dup->is_default = true;
    dup->hdr = false;
    dup->projection = RILL_PROJECTION_ORTHOGRAPHIC;
    dup->viewport[0] = -0.5f, dup->viewport[1] = 0.75f, dup->viewport[2] = 2.0f,
    dup->viewport[3] = 0.5f;
    rill_world_update_transforms(w);

    int warnings = 0;
    rill_log_set_sink(count_warn_sink, &warnings);
    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
    assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
    rill_log_set_sink(NULL, NULL);
    /* Too many cameras, and dup's clamped viewport (naming its entity): each once per buffer,
     * not per frame. */
    assert_int_equal(warnings, 2);
    assert_int_equal(snap.view_count, RILL_RENDER_MAX_VIEWS);
    /* Orders 0, 1, 2, 3 (the earlier entity first), 3 (dup), 4, 5, 6; 7..9 dropped. */
    int32_t want[RILL_RENDER_MAX_VIEWS] = {0, 1, 2, 3, 3, 4, 5, 6};
    for (uint32_t i = 0; i < snap.view_count; i++) {
        assert_int_equal(snap.views[i].order, want[i]);
    }
    assert_float_equal(snap.views[3].clear_color[0], 0.3f, 1e-6);
    assert_true(snap.views[3].tonemapper == RILL_TONEMAP_DEFAULT); /* hdr on */
    assert_false(snap.views[3].orthographic);
    const rill_render_view *d = &snap.views[4];
    assert_true(d->tonemapper == RILL_TONEMAP_NONE); /* hdr off */
    assert_true(d->orthographic);
    assert_float_equal(d->ortho_height, 10.0f, 1e-6);
    assert_float_equal(d->viewport[0], 0.0f, 1e-6);
    assert_float_equal(d->viewport[1], 0.75f, 1e-6);
    assert_float_equal(d->viewport[2], 1.0f, 1e-6);
    assert_float_equal(d->viewport[3], 0.25f, 1e-6);
    /* Default camera first for single-view readers. */
    assert_true(snap.view.orthographic);
    assert_int_equal(snap.view.order, 3);
    assert_true(snap.view.tonemapper == RILL_TONEMAP_NONE);
    /* Camera defaults: the whole output, hdr on. */
    assert_float_equal(snap.views[0].viewport[2], 1.0f, 1e-6);
    assert_float_equal(snap.views[0].viewport[3], 1.0f, 1e-6);

    /* Without a default camera the lowest order wins; a new buffer warns again. */
    rill_camera *c = rill_world_get(w, ents[11], rill_world_builtin(w)->camera);
    c->is_default = false;
    for (int i = 0; i < 10; i++) {
        rill_world_despawn(w, ents[i]);
    }
    rill_render_extract_buf xb2 = {0};
    warnings = 0;
    rill_log_set_sink(count_warn_sink, &warnings);
    assert_int_equal(rill_render_extract(w, &rc, &xb2, &snap, &err), RILL_OK);
    rill_log_set_sink(NULL, NULL);
    assert_int_equal(warnings, 1); /* dup's viewport is still clamped: the new buffer says so */
    assert_int_equal(snap.view_count, 1);
    assert_int_equal(snap.view.order, 3);
    rill_render_extract_buf_free(&xb);
    rill_render_extract_buf_free(&xb2);
    rill_world_destroy(w);
}

/* A world with the render components registered and camera_scene's content in it. */
static rill_world *camera_world(fixture *f, rill_render_components *rc, float illuminance) {
    rill_world *w = rill_world_create(NULL, NULL);
    assert_non_null(w);
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, rc, &err), RILL_OK);
    camera_scene(f, w, rc, illuminance);
    return w;
}

/* An orthographic Camera end to end: extract, render, golden. The cube keeps its size with
 * distance (checked through the golden) and the frame is clean under validation. */
static void test_camera_orthographic(void **state) {
    fixture *f = *state;
    rill_render_components rc;
    rill_world *w = camera_world(f, &rc, 3.0f);
    static const float eye[3] = {4, 4, 4}, target[3] = {0, 0.5f, 0};
    rill_camera *c = spawn_camera(w, NULL, eye, target);
    c->projection = RILL_PROJECTION_ORTHOGRAPHIC;
    c->ortho_height = 4.0f;
    c->clear_color[0] = 0.1f, c->clear_color[1] = 0.1f, c->clear_color[2] = 0.15f;
    render_world_expect(f, w, &rc, "camera_ortho");
}

/* hdr off on a bright scene: linear values clamp at 1 (more saturated pixels than ACES, which
 * rolls highlights off), and both match their goldens. */
static void test_camera_hdr(void **state) {
    fixture *f = *state;
    rill_render_components rc;
    rill_world *w = camera_world(f, &rc, 12.0f);
    static const float eye[3] = {0, 2.5f, 4.5f}, target[3] = {0, 0.5f, 0};
    rill_entity ce;
    spawn_camera(w, &ce, eye, target);
    rill_render_extract_buf xb = {0};
    static uint8_t on[W * H * 4], off[W * H * 4];
    render_world(f, w, &rc, &xb, on);
    rill_camera *c = rill_world_get(w, ce, rill_world_builtin(w)->camera);
    c->hdr = false;
    render_world(f, w, &rc, &xb, off);
    uint32_t sat_on = 0, sat_off = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        sat_on += on[i * 4] == 255;
        sat_off += off[i * 4] == 255;
    }
    assert_true(sat_off > sat_on + W * H / 20);
    golden_expect("camera_hdr_on", on, W, H);
    golden_expect("camera_hdr_off", off, W, H);
    rill_render_extract_buf_free(&xb);
    rill_world_destroy(w);
}

/* Pixel at (x, y) of an RGBA8 image W wide. */
static const uint8_t *pixel_at(const uint8_t *px, uint32_t x, uint32_t y) {
    return px + ((size_t)y * W + x) * 4;
}

/* Split screen: two cameras side by side (different angles and clear colors); the right one
 * stops at 80% of the height, so the strip below it, which no view covers, is black. */
static void test_camera_split_screen(void **state) {
    fixture *f = *state;
    rill_render_components rc;
    rill_world *w = camera_world(f, &rc, 3.0f);
    static const float eye_l[3] = {0, 2.5f, 4.5f}, eye_r[3] = {4.0f, 1.5f, 1.0f},
                       target[3] = {0, 0.5f, 0};
    rill_camera *l = spawn_camera(w, NULL, eye_l, target);
    l->viewport[0] = 0.0f, l->viewport[1] = 0.0f, l->viewport[2] = 0.5f, l->viewport[3] = 1.0f;
    l->clear_color[0] = 0.6f, l->clear_color[1] = 0.05f, l->clear_color[2] = 0.05f;
    rill_entity right;
    rill_camera *rcam = spawn_camera(w, &right, eye_r, target);
    rcam->viewport[0] = 0.5f, rcam->viewport[1] = 0.0f, rcam->viewport[2] = 0.5f,
    rcam->viewport[3] = 0.8f;
    rcam->clear_color[0] = 0.05f, rcam->clear_color[1] = 0.05f, rcam->clear_color[2] = 0.6f;
    rcam->order = 1;
    rill_render_extract_buf xb = {0};
    static uint8_t px[W * H * 4];
    render_world(f, w, &rc, &xb, px);
    const uint8_t *tl = pixel_at(px, 4, 4), *tr = pixel_at(px, W - 5, 4),
                  *br = pixel_at(px, W - 5, H - 5);
    assert_true(tl[0] > tl[2] + 60);                     /* red sky on the left */
    assert_true(tr[2] > tr[0] + 60);                     /* blue sky on the right */
    assert_true(br[0] == 0 && br[1] == 0 && br[2] == 0); /* covered by no view */
    golden_expect("camera_split", px, W, H);
    /* At half render scale the rectangles shrink with the 3D images and land in the same place
     * of the output. */
    rill_renderer_set_render_scale(f->r, 0.5f);
    render_world(f, w, &rc, &xb, px);
    tl = pixel_at(px, 4, 4), tr = pixel_at(px, W - 5, 4), br = pixel_at(px, W - 5, H - 5);
    assert_true(tl[0] > tl[2] + 60 && tr[2] > tr[0] + 60);
    assert_true(br[0] == 0 && br[1] == 0 && br[2] == 0);
    rill_renderer_set_render_scale(f->r, 1.0f);
    /* Zero-area views are skipped; with none left the output is black. */
    l->viewport[2] = 0.0f;
    rill_world_despawn(w, right);
    render_world(f, w, &rc, &xb, px);
    for (uint32_t i = 0; i < W * H; i++) {
        if (px[i * 4] || px[i * 4 + 1] || px[i * 4 + 2]) {
            fail_msg("pixel %u is not black", i);
        }
    }
    rill_render_extract_buf_free(&xb);
    rill_world_destroy(w);
}

/* Picture in picture: a small view with a higher order (orthographic, from above, hdr off) drawn
 * over a full-screen one. */
static void test_camera_picture_in_picture(void **state) {
    fixture *f = *state;
    rill_render_components rc;
    rill_world *w = camera_world(f, &rc, 3.0f);
    static const float eye[3] = {0, 2.5f, 4.5f}, target[3] = {0, 0.5f, 0};
    static const float eye_top[3] = {0.01f, 8.0f, 0.0f}, target_top[3] = {0, 0, 0};
    rill_camera *main_cam = spawn_camera(w, NULL, eye, target);
    main_cam->clear_color[0] = 0.1f, main_cam->clear_color[1] = 0.1f,
    main_cam->clear_color[2] = 0.15f;
    /* Spawned first with the higher order: drawing follows order, not spawn order. */
    rill_camera *pip = spawn_camera(w, NULL, eye_top, target_top);
    pip->order = 5;
    pip->projection = RILL_PROJECTION_ORTHOGRAPHIC;
    pip->ortho_height = 3.0f;
    pip->hdr = false;
    pip->viewport[0] = 0.6f, pip->viewport[1] = 0.05f, pip->viewport[2] = 0.35f,
    pip->viewport[3] = 0.35f;
    pip->clear_color[0] = 0.1f, pip->clear_color[1] = 0.6f, pip->clear_color[2] = 0.1f;
    render_world_expect(f, w, &rc, "camera_pip");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_camera_views_extract),
        cmocka_unit_test_setup_teardown(test_camera_orthographic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_camera_hdr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_camera_split_screen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_camera_picture_in_picture, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
