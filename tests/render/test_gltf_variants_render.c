/* test_gltf_variants_render.c: KHR_materials_variants end to end. A glTF with two squares and
 * three variants (tests/gltf/variants_quad.h: the left square red by default, blue in "blue",
 * green in "green", red in "plain"; the right one white in every variant) is read from a file
 * through the asset server, spawned by the model system from a Model { path, variant } component
 * and drawn headless on lavapipe. The variant is switched at runtime by writing the Model
 * component again (no respawn: the same ModelMesh entities), each picture checked by the colour
 * of both squares: spawned as "blue", then "green", "plain", the default (""), an unknown name
 * (the default materials and one warning), and "blue" again; then the same switch with static
 * batching on, once the squares are drawn by a batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gltf/variants_quad.h"
#include "rill/asset.h"
#include "rill/formats/gltf.h"
#include "rill/render.h"
#include "rill/render/assets.h"
#include "rill/scene/model.h"

#define W 64
#define H 64

static char text[16384];
static uint8_t px[W * H * 4];

typedef struct fixture {
    rill_renderer *r;
    rill_world *w;
    rill_vfs *vfs;
    rill_asset_server *as;
    rill_render_components rc;
    rill_scene_models *sm;
    rill_render_assets *ra;
    rill_render_extract_buf xb;
    rill_entity holder;
    const char *dir;
} fixture;

/* The pixel showing world point (x, y) on the z = 0 plane (the camera sees [-2, 2] squared). */
static const uint8_t *px_at(float x, float y) {
    int px_x = (int)((x + 2.0f) / 4.0f * W), px_y = (int)((2.0f - y) / 4.0f * H);
    return &px[(px_y * W + px_x) * 4];
}

/* 'r', 'g', 'b' when that channel is bright and over twice the others (the tonemapper bends
 * pure primaries toward white a little: unlit green reads about (90, 207, 47)), 'w' when all
 * are bright, '?' otherwise. */
static char colour_at(float x, float y) {
    const uint8_t *p = px_at(x, y);
    if (p[0] > 150 && p[1] > 150 && p[2] > 150) {
        return 'w';
    }
    for (int k = 0; k < 3; k++) {
        int a = p[(k + 1) % 3], b = p[(k + 2) % 3];
        if (p[k] > 120 && p[k] > 2 * a && p[k] > 2 * b) {
            return "rgb"[k];
        }
    }
    return '?';
}

/* Runs the model system, renders `frames` frames and reads the last one back. */
static void render(fixture *f, int frames) {
    rill_error err = {0};
    rill_render_snapshot snap;
    for (int i = 0; i < frames; i++) {
        rill_scene_models_update(f->sm);
        rill_world_update_transforms(f->w);
        assert_int_equal(rill_render_extract(f->w, &f->rc, &f->xb, &snap, &err), RILL_OK);
        assert_int_equal(rill_renderer_render(f->r, &snap, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(f->r, px, sizeof(px), &err), RILL_OK);
}

static void set_variant(fixture *f, const char *name) {
    rill_model_ref ref = {rill_intern("squares.gltf"), name ? rill_intern(name) : NULL};
    assert_non_null(
        rill_world_add(f->w, f->holder, rill_scene_models_components(f->sm)->model, &ref));
}

/* Renders with variant `name` and checks the left square's colour (the right one stays white)
 * and the ModelMesh variants (`want_variant` on the left square's entity). */
static void expect(fixture *f, const char *name, char left, uint32_t want_variant) {
    set_variant(f, name);
    render(f, 2);
    char l = colour_at(-0.8f, 0.0f), r = colour_at(0.8f, 0.0f);
    const uint8_t *lp = px_at(-0.8f, 0.0f);
    print_message("variant '%s': left %c (%u,%u,%u), right %c\n", name ? name : "(none)", l, lp[0],
                  lp[1], lp[2], r);
    assert_int_equal(l, left);
    assert_int_equal(r, 'w');
    const rill_model_components *mc = rill_scene_models_components(f->sm);
    const rill_entity *ents;
    void *data;
    uint32_t n = rill_world_component_dense(f->w, mc->model_mesh, &ents, &data);
    assert_int_equal(n, 2);
    for (uint32_t i = 0; i < n; i++) {
        const rill_model_mesh *mm = (const rill_model_mesh *)data + i;
        /* Both primitives carry the variant; the right one maps none and stays white. */
        assert_int_equal(mm->variant, want_variant);
    }
}

static void setup(fixture *f) {
    rill_error err = {0};
    memset(f, 0, sizeof(*f));
    const char *tmp = getenv("RILL_TEST_TMP");
    static char dir[1024], path[1200];
    snprintf(dir, sizeof(dir), "%s/variants_render", tmp ? tmp : "/tmp/rill_test_variants");
    f->dir = dir;
    assert_int_equal(rill_dir_create_all(dir, NULL), RILL_OK);
    size_t n = variants_quad_text(NULL, text, sizeof(text));
    snprintf(path, sizeof(path), "%s/squares.gltf", dir);
    assert_int_equal(rill_file_write_all(path, text, n, NULL), RILL_OK);
    f->r = render_test_renderer(
        (rill_renderer_desc){.width = W, .height = H, .quality = RILL_RENDER_QUALITY_LOW});
    assert_non_null(f->r);
    f->w = rill_world_create(NULL, NULL);
    f->vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(f->vfs, dir, &err), RILL_OK);
    f->as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = f->vfs}, NULL);
    assert_int_equal(rill_gltf_register_asset_loader(f->as, &err), RILL_OK);
    assert_int_equal(rill_render_register_components(f->w, &f->rc, &err), RILL_OK);
    f->sm =
        rill_scene_models_create(&(rill_scene_models_desc){.world = f->w, .assets = f->as}, &err);
    f->ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = f->r, .assets = f->as, .world = f->w}, &err);
    assert_true(f->sm && f->ra);
    rill_entity cam = rill_world_spawn(f->w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(f->w, RILL_COMPONENT_CAMERA), &c);
    c.active = true;
    c.projection = RILL_PROJECTION_ORTHOGRAPHIC;
    c.ortho_height = 4.0f;
    c.clear_color[0] = c.clear_color[1] = c.clear_color[2] = 0.0f;
    c.clear_color[3] = 1.0f;
    rill_world_add(f->w, cam, RILL_COMPONENT_CAMERA, &c);
    render_test_entity_look_at(f->w, cam, (float[]){0, 0, 5}, (float[]){0, 0, 0});
    f->holder = rill_world_spawn(f->w);
    rill_transform ht = rill_transform_identity();
    rill_world_set_transform(f->w, f->holder, &ht);
}

static void teardown(fixture *f) {
    rill_scene_models_destroy(f->sm);
    rill_render_assets_destroy(f->ra);
    rill_render_extract_buf_free(&f->xb);
    rill_world_destroy(f->w);
    rill_asset_server_destroy(f->as);
    rill_vfs_destroy(f->vfs);
    render_test_destroy_clean(f->r, false);
}

static void test_variant_switch(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    set_variant(&f, "blue");
    rill_scene_models_flush(f.sm);
    rill_model_mesh first;
    const rill_entity *ents;
    void *data;
    uint32_t n = rill_world_component_dense(f.w, rill_scene_models_components(f.sm)->model_mesh,
                                            &ents, &data);
    assert_int_equal(n, 2);
    first = *(const rill_model_mesh *)data;
    rill_entity first_e = ents[0];
    expect(&f, "blue", 'b', 1);
    const char *tmp = getenv("RILL_TEST_TMP");
    char path[1200];
    if (tmp) {
        snprintf(path, sizeof(path), "%s/variant_blue.png", f.dir);
        rill_renderer_write_png(f.r, path, NULL);
    }
    expect(&f, "green", 'g', 2);
    if (tmp) {
        snprintf(path, sizeof(path), "%s/variant_green.png", f.dir);
        rill_renderer_write_png(f.r, path, NULL);
    }
    expect(&f, "plain", 'r', 3);
    expect(&f, "", 'r', 0);
    rill_scene_models_stats st0, st1;
    rill_scene_models_get_stats(f.sm, &st0);
    expect(&f, "purple", 'r', 0);
    rill_scene_models_get_stats(f.sm, &st1);
    assert_int_equal(st1.warnings, st0.warnings + 1u); /* one warning naming the variant */
    expect(&f, "blue", 'b', 1);
    expect(&f, NULL, 'r', 0);
    /* Switched in place: the same entities, no respawn. */
    assert_int_equal(st1.spawns, 1);
    const rill_model_mesh *now =
        rill_world_get(f.w, first_e, rill_scene_models_components(f.sm)->model_mesh);
    assert_non_null(now);
    assert_int_equal(now->asset, first.asset);
    teardown(&f);
}

/* With static batching the squares are drawn by a batch once they stood still; a new variant
 * takes them out of it (the ModelMesh observer), so the picture shows the new material. */
static void test_variant_switch_batched(void **state) {
    (void)state;
    fixture f;
    setup(&f);
    rill_render_assets_set_batching(f.ra,
                                    &(rill_render_batching){.enabled = true, .static_frames = 1});
    set_variant(&f, "green");
    rill_scene_models_flush(f.sm);
    render(&f, 6);
    rill_render_batching_stats bs;
    rill_render_assets_get_batching_stats(f.ra, &bs);
    print_message("batches %u\n", bs.batches);
    assert_true(bs.batches > 0);
    assert_int_equal(colour_at(-0.8f, 0.0f), 'g');
    expect(&f, "blue", 'b', 1);
    render(&f, 6); /* batched again */
    assert_int_equal(colour_at(-0.8f, 0.0f), 'b');
    expect(&f, NULL, 'r', 0);
    teardown(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variant_switch),
        cmocka_unit_test(test_variant_switch_batched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
