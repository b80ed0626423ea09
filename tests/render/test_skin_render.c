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

/* A world showing one glTF file (written into a folder of its own) through the asset server,
 * the model and animation systems and the render assets, seen from +Z by an orthographic
 * camera 4 m high. */
typedef struct stage {
    const char *tmp; /* $RILL_TEST_TMP: where the pictures a test reads are written, or NULL */
    char dir[1024];
    rill_renderer *r;
    rill_world *w;
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_render_components rc;
    rill_scene_models *sm;
    rill_scene_anim *an;
    rill_render_assets *ra;
    rill_render_extract_buf xb;
} stage;

/* Writes text's first n bytes as `file` into the folder `sub` of $RILL_TEST_TMP (of `fallback`
 * without it), and opens s on that folder, the camera at (0, cy, 5) looking along -Z (lum_at's
 * y_top is cy + 2). */
static void stage_open(stage *s, const char *sub, const char *fallback, const char *file, size_t n,
                       float cy) {
    memset(s, 0, sizeof(*s));
    rill_error err = {0};
    s->tmp = getenv("RILL_TEST_TMP");
    char path[1200];
    snprintf(s->dir, sizeof(s->dir), "%s/%s", s->tmp ? s->tmp : fallback, sub);
    assert_int_equal(rill_dir_create_all(s->dir, NULL), RILL_OK);
    snprintf(path, sizeof(path), "%s/%s", s->dir, file);
    assert_int_equal(rill_file_write_all(path, text, n, NULL), RILL_OK);
    s->r = render_test_renderer(
        (rill_renderer_desc){.width = W, .height = H, .quality = RILL_RENDER_QUALITY_LOW});
    assert_non_null(s->r);
    s->w = rill_world_create(NULL, NULL);
    s->vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(s->vfs, s->dir, &err), RILL_OK);
    s->as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = s->vfs}, NULL);
    assert_int_equal(rill_gltf_register_asset_loader(s->as, &err), RILL_OK);
    assert_int_equal(rill_render_register_components(s->w, &s->rc, &err), RILL_OK);
    s->sm =
        rill_scene_models_create(&(rill_scene_models_desc){.world = s->w, .assets = s->as}, &err);
    assert_non_null(s->sm);
    s->an = rill_scene_anim_create(&(rill_scene_anim_desc){.world = s->w, .models = s->sm}, &err);
    assert_non_null(s->an);
    s->ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = s->r, .assets = s->as, .world = s->w}, &err);
    assert_non_null(s->ra);
    y_top = cy + 2.0f;
    rill_entity cam = rill_world_spawn(s->w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(s->w, RILL_COMPONENT_CAMERA), &c);
    c.active = true;
    c.projection = RILL_PROJECTION_ORTHOGRAPHIC;
    c.ortho_height = 4.0f;
    c.clear_color[0] = c.clear_color[1] = c.clear_color[2] = 0.0f;
    c.clear_color[3] = 1.0f;
    rill_world_add(s->w, cam, RILL_COMPONENT_CAMERA, &c);
    render_test_entity_look_at(s->w, cam, (float[]){0, cy, 5}, (float[]){0, cy, 0});
}

/* An entity at the origin showing model `file` (spawned at the next flush). */
static rill_entity stage_spawn(stage *s, const char *file) {
    rill_entity holder = rill_world_spawn(s->w);
    rill_transform ht = rill_transform_identity();
    rill_world_set_transform(s->w, holder, &ht);
    rill_model_ref ref = {rill_intern(file)};
    rill_world_add(s->w, holder, rill_scene_models_components(s->sm)->model, &ref);
    return holder;
}

/* Updates the systems, draws two frames and reads the picture into px; *out_skins: the
 * snapshot's skin count. */
static void render_pose(stage *s, uint32_t *out_skins) {
    rill_error err = {0};
    rill_scene_models_update(s->sm);
    rill_scene_anim_update(s->an, 0.0f);
    rill_world_update_transforms(s->w);
    rill_render_snapshot snap;
    for (int frame = 0; frame < 2; frame++) {
        assert_int_equal(rill_render_extract(s->w, &s->rc, &s->xb, &snap, &err), RILL_OK);
        assert_int_equal(rill_renderer_render(s->r, &snap, &err), RILL_OK);
    }
    *out_skins = snap.skin_count;
    assert_int_equal(rill_renderer_read_pixels(s->r, px, sizeof(px), &err), RILL_OK);
}

/* Writes the last frame as `name` into s's folder when $RILL_TEST_TMP is set (to look at). */
static void stage_png(const stage *s, const char *name) {
    if (s->tmp) {
        char path[1200];
        snprintf(path, sizeof(path), "%s/%s", s->dir, name);
        rill_renderer_write_png(s->r, path, NULL);
    }
}

/* Destroys what stage_open made, failing the test on a validation message. */
static void stage_close(stage *s) {
    rill_scene_anim_destroy(s->an);
    rill_scene_models_destroy(s->sm);
    rill_render_assets_destroy(s->ra);
    rill_render_extract_buf_free(&s->xb);
    rill_world_destroy(s->w);
    rill_asset_server_destroy(s->as);
    rill_vfs_destroy(s->vfs);
    render_test_destroy_clean(s->r, false);
}

static void test_bend(void **state) {
    (void)state;
    stage s;
    size_t n = skin_bar_text(&(skin_bar_opts){0}, text, sizeof(text));
    stage_open(&s, "skin_render", "/tmp/rill_test_skin", "bar.gltf", n, 1.0f);
    rill_entity holder = stage_spawn(&s, "bar.gltf");
    rill_animation_player p = {
        .clip = rill_intern("bend"), .playing = false, .loop = false, .speed = 1.0f, .time = 0.0f};
    rill_world_add(s.w, holder, rill_scene_anim_component(s.an), &p);
    rill_scene_models_flush(s.sm);
    const rill_model_components *mc = rill_scene_models_components(s.sm);
    assert_int_equal(rill_world_component_len(s.w, mc->mesh_skin), 1);
    const rill_entity *skinned;
    void *data;
    assert_int_equal(rill_world_component_dense(s.w, mc->mesh_skin, &skinned, &data), 1);
    const rill_mesh_skin *ms = data;
    assert_int_equal(ms->joint_count, 2);
    assert_string_equal(rill_world_get_name(s.w, ms->joints[0]), "j0");
    assert_string_equal(rill_world_get_name(s.w, ms->joints[1]), "j1");

    uint32_t skins = 0;
    render_pose(&s, &skins);
    assert_int_equal(skins, 1);
    assert_int_equal(s.xb.skins.data[0].joint_count, 2);
    int up0 = lum_at(0.0f, 1.75f), left0 = lum_at(-0.75f, 1.0f), low0 = lum_at(0.0f, 0.25f);
    stage_png(&s, "skin_t0.png");

    rill_animation_player *pp = rill_world_get(s.w, holder, rill_scene_anim_component(s.an));
    pp->time = 1.0f;
    render_pose(&s, &skins);
    int up1 = lum_at(0.0f, 1.75f), left1 = lum_at(-0.75f, 1.0f), low1 = lum_at(0.0f, 0.25f);
    stage_png(&s, "skin_t1.png");
    print_message("t=0: up %d left %d low %d; t=1: up %d left %d low %d\n", up0, left0, low0, up1,
                  left1, low1);
    /* Straight: the upper half is lit, left of the joint is dark. */
    assert_true(up0 > 300 && left0 < 30);
    /* Bent: the upper half lies along -X at y = 1. */
    assert_true(up1 < 30 && left1 > 300);
    /* The lower half follows j0, which does not move. */
    assert_true(low0 > 300 && low1 > 300);
    stage_close(&s);
}

/* A square whose morph target moves its corner (1, 1) by +1 in x: the mesh's default weight
 * 0.5 (no player) displaces it half way; clip "reach" at t = 0 and t = 1 none and all the way. */
static void test_morph(void **state) {
    (void)state;
    stage s;
    size_t n = morph_quad_text(&(morph_quad_opts){.weight = 0.5f}, text, sizeof(text));
    stage_open(&s, "morph_render", "/tmp/rill_test_morph", "quad.gltf", n, 0.0f);
    rill_entity holder = stage_spawn(&s, "quad.gltf");
    rill_scene_models_flush(s.sm);
    const rill_model_components *mc = rill_scene_models_components(s.sm);
    assert_int_equal(rill_world_component_len(s.w, mc->mesh_morph), 1);

    /* The mesh's default weight: half way. Along y = 0.9 the right edge lies at x = 1.475. */
    uint32_t deformed = 0;
    render_pose(&s, &deformed);
    assert_int_equal(deformed, 1);
    int near_half = lum_at(1.2f, 0.9f), far_half = lum_at(1.7f, 0.9f), in = lum_at(0, 0);
    /* The clip at 0 and 1: none, then all the way (the edge at x = 1.95 along y = 0.9). */
    rill_animation_player p = {
        .clip = rill_intern("reach"), .playing = false, .loop = false, .speed = 1.0f, .time = 0.0f};
    rill_world_add(s.w, holder, rill_scene_anim_component(s.an), &p);
    render_pose(&s, &deformed);
    int near0 = lum_at(1.2f, 0.9f);
    rill_animation_player *pp = rill_world_get(s.w, holder, rill_scene_anim_component(s.an));
    pp->time = 1.0f;
    render_pose(&s, &deformed);
    int far1 = lum_at(1.7f, 0.9f);
    stage_png(&s, "morph_t1.png");
    print_message("weight 0.5: near %d far %d centre %d; t=0 near %d; t=1 far %d\n", near_half,
                  far_half, in, near0, far1);
    assert_true(in > 300);
    assert_true(near_half > 300 && far_half < 30);
    assert_true(near0 < 30);
    assert_true(far1 > 300);
    stage_close(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bend), cmocka_unit_test(test_morph)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
