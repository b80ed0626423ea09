/* test_skin_render.c: a skinned glTF (tests/gltf/skin_bar.h: a strip along +Y bound to two
 * joints, clip "bend" turning the upper joint 90 degrees about +Z) read from a file through the
 * asset server, spawned by the model system, posed by an AnimationPlayer at t = 0 and t = 1, and
 * drawn headless on lavapipe with validation on, seen from +Z through an orthographic camera. At
 * t = 0 the strip stands straight: pixels on its upper half are lit and those left of the joint
 * dark; at t = 1 the upper half points along -X: the same pixels swap. The mesh entity carries a
 * MeshSkin naming the joint entities, extract gives the renderer one skin of two joint matrices,
 * and no validation message is seen. */
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

#include "../gltf/morph_quad.h"
#include "../gltf/skin_bar.h"
#include "rill/asset.h"
#include "rill/formats/gltf.h"
#include "rill/render.h"
#include "rill/scene/anim.h"
#include "rill/scene/model.h"

#define W 64
#define H 64

static char text[65536];
static uint8_t px[W * H * 4];

/* The brightness of the pixel showing world point (x, y) on the z = 0 plane: the camera sees
 * x in [-2, 2] and y in [-1, 3] (y in [-2, 2] with y_top 2). */
static float y_top = 3.0f;
static int lum_at(float x, float y) {
    int px_x = (int)((x + 2.0f) / 4.0f * W), px_y = (int)((y_top - y) / 4.0f * H);
    const uint8_t *p = &px[(px_y * W + px_x) * 4];
    return p[0] + p[1] + p[2];
}

static void render_pose(rill_world *w, rill_scene_models *sm, rill_scene_anim *an, rill_renderer *r,
                        const rill_render_components *rc, rill_render_extract_buf *xb,
                        uint32_t *out_skins) {
    rill_error err = {0};
    rill_scene_models_update(sm);
    rill_scene_anim_update(an, 0.0f);
    rill_world_update_transforms(w);
    rill_render_snapshot snap;
    for (int frame = 0; frame < 2; frame++) {
        assert_int_equal(rill_render_extract(w, rc, xb, &snap, &err), RILL_OK);
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    }
    *out_skins = snap.skin_count;
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
}

static void test_bend(void **state) {
    (void)state;
    rill_error err = {0};
    const char *tmp = getenv("RILL_TEST_TMP");
    char dir[1024], path[1200];
    snprintf(dir, sizeof(dir), "%s/skin_render", tmp ? tmp : "/tmp/rill_test_skin");
    assert_int_equal(rill_dir_create_all(dir, NULL), RILL_OK);
    size_t n = skin_bar_text(&(skin_bar_opts){0}, text, sizeof(text));
    snprintf(path, sizeof(path), "%s/bar.gltf", dir);
    assert_int_equal(rill_file_write_all(path, text, n, NULL), RILL_OK);

    rill_renderer *r = render_test_renderer(
        (rill_renderer_desc){.width = W, .height = H, .quality = RILL_RENDER_QUALITY_LOW});
    assert_non_null(r);
    rill_world *w = rill_world_create(NULL, NULL);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_server *as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    assert_int_equal(rill_gltf_register_asset_loader(as, &err), RILL_OK);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    rill_scene_models *sm =
        rill_scene_models_create(&(rill_scene_models_desc){.world = w, .assets = as}, &err);
    assert_non_null(sm);
    rill_scene_anim *an =
        rill_scene_anim_create(&(rill_scene_anim_desc){.world = w, .models = sm}, &err);
    assert_non_null(an);
    rill_render_assets *ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = r, .assets = as, .world = w}, &err);
    assert_non_null(ra);

    y_top = 3.0f;
    rill_entity cam = rill_world_spawn(w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(w, RILL_COMPONENT_CAMERA), &c);
    c.active = true;
    c.projection = RILL_PROJECTION_ORTHOGRAPHIC;
    c.ortho_height = 4.0f;
    c.clear_color[0] = c.clear_color[1] = c.clear_color[2] = 0.0f;
    c.clear_color[3] = 1.0f;
    rill_world_add(w, cam, RILL_COMPONENT_CAMERA, &c);
    render_test_entity_look_at(w, cam, (float[]){0, 1, 5}, (float[]){0, 1, 0});

    rill_entity holder = rill_world_spawn(w);
    rill_transform ht = rill_transform_identity();
    rill_world_set_transform(w, holder, &ht);
    rill_model_ref ref = {rill_intern("bar.gltf")};
    rill_world_add(w, holder, rill_scene_models_components(sm)->model, &ref);
    rill_animation_player p = {
        .clip = rill_intern("bend"), .playing = false, .loop = false, .speed = 1.0f, .time = 0.0f};
    rill_world_add(w, holder, rill_scene_anim_component(an), &p);
    rill_scene_models_flush(sm);
    const rill_model_components *mc = rill_scene_models_components(sm);
    assert_int_equal(rill_world_component_len(w, mc->mesh_skin), 1);
    const rill_entity *skinned;
    void *data;
    assert_int_equal(rill_world_component_dense(w, mc->mesh_skin, &skinned, &data), 1);
    const rill_mesh_skin *ms = data;
    assert_int_equal(ms->joint_count, 2);
    assert_string_equal(rill_world_get_name(w, ms->joints[0]), "j0");
    assert_string_equal(rill_world_get_name(w, ms->joints[1]), "j1");

    rill_render_extract_buf xb = {0};
    uint32_t skins = 0;
    render_pose(w, sm, an, r, &rc, &xb, &skins);
    assert_int_equal(skins, 1);
    assert_int_equal(xb.skins.data[0].joint_count, 2);
    int up0 = lum_at(0.0f, 1.75f), left0 = lum_at(-0.75f, 1.0f), low0 = lum_at(0.0f, 0.25f);
    if (tmp) {
        snprintf(path, sizeof(path), "%s/skin_t0.png", dir);
        rill_renderer_write_png(r, path, NULL);
    }

    rill_animation_player *pp = rill_world_get(w, holder, rill_scene_anim_component(an));
    pp->time = 1.0f;
    render_pose(w, sm, an, r, &rc, &xb, &skins);
    int up1 = lum_at(0.0f, 1.75f), left1 = lum_at(-0.75f, 1.0f), low1 = lum_at(0.0f, 0.25f);
    if (tmp) {
        snprintf(path, sizeof(path), "%s/skin_t1.png", dir);
        rill_renderer_write_png(r, path, NULL);
    }
    print_message("t=0: up %d left %d low %d; t=1: up %d left %d low %d\n", up0, left0, low0, up1,
                  left1, low1);
    /* Straight: the upper half is lit, left of the joint is dark. */
    assert_true(up0 > 300 && left0 < 30);
    /* Bent: the upper half lies along -X at y = 1. */
    assert_true(up1 < 30 && left1 > 300);
    /* The lower half follows j0, which does not move. */
    assert_true(low0 > 300 && low1 > 300);

    rill_scene_anim_destroy(an);
    rill_scene_models_destroy(sm);
    rill_render_assets_destroy(ra);
    rill_render_extract_buf_free(&xb);
    rill_world_destroy(w);
    rill_asset_server_destroy(as);
    rill_vfs_destroy(vfs);
    render_test_destroy_clean(r, false);
}

/* A square whose morph target moves its corner (1, 1) by +1 in x: the mesh's default weight
 * 0.5 (no player) displaces it half way; clip "reach" at t = 0 and t = 1 none and all the way. */
static void test_morph(void **state) {
    (void)state;
    rill_error err = {0};
    const char *tmp = getenv("RILL_TEST_TMP");
    char dir[1024], path[1200];
    snprintf(dir, sizeof(dir), "%s/morph_render", tmp ? tmp : "/tmp/rill_test_morph");
    assert_int_equal(rill_dir_create_all(dir, NULL), RILL_OK);
    size_t n = morph_quad_text(&(morph_quad_opts){.weight = 0.5f}, text, sizeof(text));
    snprintf(path, sizeof(path), "%s/quad.gltf", dir);
    assert_int_equal(rill_file_write_all(path, text, n, NULL), RILL_OK);
    rill_renderer *r = render_test_renderer(
        (rill_renderer_desc){.width = W, .height = H, .quality = RILL_RENDER_QUALITY_LOW});
    assert_non_null(r);
    rill_world *w = rill_world_create(NULL, NULL);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_server *as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    assert_int_equal(rill_gltf_register_asset_loader(as, &err), RILL_OK);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    rill_scene_models *sm =
        rill_scene_models_create(&(rill_scene_models_desc){.world = w, .assets = as}, &err);
    rill_scene_anim *an =
        rill_scene_anim_create(&(rill_scene_anim_desc){.world = w, .models = sm}, &err);
    rill_render_assets *ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = r, .assets = as, .world = w}, &err);
    assert_true(sm && an && ra);
    y_top = 2.0f;
    rill_entity cam = rill_world_spawn(w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(w, RILL_COMPONENT_CAMERA), &c);
    c.active = true;
    c.projection = RILL_PROJECTION_ORTHOGRAPHIC;
    c.ortho_height = 4.0f;
    c.clear_color[3] = 1.0f;
    c.clear_color[0] = c.clear_color[1] = c.clear_color[2] = 0.0f;
    rill_world_add(w, cam, RILL_COMPONENT_CAMERA, &c);
    render_test_entity_look_at(w, cam, (float[]){0, 0, 5}, (float[]){0, 0, 0});
    rill_entity holder = rill_world_spawn(w);
    rill_transform ht = rill_transform_identity();
    rill_world_set_transform(w, holder, &ht);
    rill_model_ref ref = {rill_intern("quad.gltf")};
    rill_world_add(w, holder, rill_scene_models_components(sm)->model, &ref);
    rill_scene_models_flush(sm);
    const rill_model_components *mc = rill_scene_models_components(sm);
    assert_int_equal(rill_world_component_len(w, mc->mesh_morph), 1);

    /* The mesh's default weight: half way. Along y = 0.9 the right edge lies at x = 1.475. */
    rill_render_extract_buf xb = {0};
    uint32_t deformed = 0;
    render_pose(w, sm, an, r, &rc, &xb, &deformed);
    assert_int_equal(deformed, 1);
    int near_half = lum_at(1.2f, 0.9f), far_half = lum_at(1.7f, 0.9f), in = lum_at(0, 0);
    /* The clip at 0 and 1: none, then all the way (the edge at x = 1.95 along y = 0.9). */
    rill_animation_player p = {
        .clip = rill_intern("reach"), .playing = false, .loop = false, .speed = 1.0f, .time = 0.0f};
    rill_world_add(w, holder, rill_scene_anim_component(an), &p);
    render_pose(w, sm, an, r, &rc, &xb, &deformed);
    int near0 = lum_at(1.2f, 0.9f);
    rill_animation_player *pp = rill_world_get(w, holder, rill_scene_anim_component(an));
    pp->time = 1.0f;
    render_pose(w, sm, an, r, &rc, &xb, &deformed);
    int far1 = lum_at(1.7f, 0.9f);
    if (tmp) {
        snprintf(path, sizeof(path), "%s/morph_t1.png", dir);
        rill_renderer_write_png(r, path, NULL);
    }
    print_message("weight 0.5: near %d far %d centre %d; t=0 near %d; t=1 far %d\n", near_half,
                  far_half, in, near0, far1);
    assert_true(in > 300);
    assert_true(near_half > 300 && far_half < 30);
    assert_true(near0 < 30);
    assert_true(far1 > 300);

    rill_scene_anim_destroy(an);
    rill_scene_models_destroy(sm);
    rill_render_assets_destroy(ra);
    rill_render_extract_buf_free(&xb);
    rill_world_destroy(w);
    rill_asset_server_destroy(as);
    rill_vfs_destroy(vfs);
    render_test_destroy_clean(r, false);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bend), cmocka_unit_test(test_morph)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
