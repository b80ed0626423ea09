/* test_model_spawn.c: rill_scene_model_spawn on a generated glTF model loaded through the asset
 * server (node hierarchy with TRS and matrix transforms, two meshes, a point light, a camera): the
 * entity tree it builds (names, parents, GlobalTransforms, ModelMeshes naming the asset, light and
 * camera values), then rill_render_extract resolving the ModelMeshes through rill_render_assets
 * (one upload for the asset) and a headless frame on lavapipe with validation on, seen through
 * the model's own camera, which must not be empty; RenderMode hidden removes a tree from it. */
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

#include "model_gen.h"
#include "rill/render.h"

#define W 96
#define H 72

static rill_entity find_child(rill_world *w, rill_entity parent, const char *name) {
    for (rill_entity c = rill_world_first_child(w, parent); c; c = rill_world_next_sibling(w, c)) {
        const char *n = rill_world_get_name(w, c);
        if (n && strcmp(n, name) == 0) {
            return c;
        }
    }
    return RILL_ENTITY_NULL;
}

static uint32_t count_mesh_children(rill_world *w, const rill_render_components *rc, rill_entity e,
                                    rill_asset asset, const rill_gltf_model *gm,
                                    uint32_t *out_valid) {
    uint32_t n = 0;
    for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
        const rill_model_mesh *mm = rill_world_get(w, c, rc->model_mesh);
        if (!mm) {
            continue;
        }
        n++;
        if (mm->asset == asset.id && mm->mesh < gm->mesh_count &&
            mm->primitive < gm->meshes[mm->mesh].primitive_count) {
            (*out_valid)++;
        }
    }
    return n;
}

static void test_spawn_tree_and_render(void **state) {
    (void)state;
    rill_error err = {0};
    const char *tmp_env = getenv("RILL_TEST_TMP");
    const char *names[] = {"robot.glb"};
    char dir[1024], path[1200];
    if (model_gen_write_files("model_spawn", names, 1, dir, sizeof(dir), &err) != RILL_OK) {
        fail_msg("glb write: %s", err.msg);
    }
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_server *as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    assert_non_null(as);
    assert_int_equal(rill_gltf_register_asset_loader(as, &err), RILL_OK);
    rill_asset asset = rill_asset_load_sync(as, "models/robot.glb", &err);
    assert_int_equal(rill_asset_get_state(as, asset), RILL_ASSET_STATE_LOADED);
    const rill_gltf_model *gm = rill_asset_get_payload_as(as, asset, RILL_GLTF_ASSET_LOADER);
    assert_non_null(gm);

    rill_renderer *r = render_test_renderer(
        (rill_renderer_desc){.width = W, .height = H, .quality = RILL_RENDER_QUALITY_LOW});
    assert_non_null(r);
    rill_world *w = rill_world_create(NULL, NULL);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    rill_model_components mc;
    assert_int_equal(rill_scene_model_register(w, &mc, &err), RILL_OK);
    assert_int_equal(mc.model_mesh.id, rc.model_mesh.id);
    rill_entity holder = rill_world_spawn(w);
    rill_transform ht = rill_transform_identity();
    ht.translation[0] = 10.0f; /* the model follows its holder */
    rill_world_set_transform(w, holder, &ht);

    /* Argument checks. */
    rill_entity root = 1;
    assert_int_equal(rill_scene_model_spawn(NULL, &mc, asset, gm, holder, &root, NULL),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(root, RILL_ENTITY_NULL);
    assert_int_equal(
        rill_scene_model_spawn(w, &mc, asset, gm, RILL_ENTITY_MAKE(77, 3), &root, NULL),
        RILL_ERR_INVALID_ARGUMENT);

    uint32_t before = rill_world_entity_count(w);
    assert_int_equal(rill_scene_model_spawn(w, &mc, asset, gm, holder, &root, &err), RILL_OK);
    /* root + 4 nodes + 3 primitive entities */
    assert_int_equal(rill_world_entity_count(w) - before, 8);
    assert_int_equal(rill_world_get_parent(w, root), holder);
    assert_string_equal(rill_world_get_name(w, root), "testscene");
    rill_entity base = find_child(w, root, "base"), eye = find_child(w, root, "eye");
    assert_true(base && eye);
    rill_entity arm = find_child(w, base, "arm"), lamp = find_child(w, base, "lamp");
    assert_true(arm && lamp);
    assert_int_equal(rill_world_child_count(w, root), 2);
    assert_int_equal(rill_world_child_count(w, base), 3); /* arm, lamp, its primitive */

    /* ModelMeshes: one under base, two under arm, all naming the asset and a real primitive. */
    uint32_t valid = 0;
    assert_int_equal(count_mesh_children(w, &rc, base, asset, gm, &valid), 1);
    assert_int_equal(count_mesh_children(w, &rc, arm, asset, gm, &valid), 2);
    assert_int_equal(valid, 3);
    assert_int_equal(rill_world_component_len(w, rc.model_mesh), 3);
    assert_int_equal(rill_world_component_len(w, rc.mesh_instance), 0);

    /* Transforms. */
    rill_world_update_transforms(w);
    const float *gb = rill_world_global_matrix(w, base);
    const float *ga = rill_world_global_matrix(w, arm);
    const float *gl = rill_world_global_matrix(w, lamp);
    const float *ge = rill_world_global_matrix(w, eye);
    assert_true(gb && ga && gl && ge);
    assert_float_equal(gb[12], 10.0f, 1e-5);
    assert_float_equal(gb[13], 0.5f, 1e-5);
    assert_float_equal(ga[12], 11.0f, 1e-5);
    assert_float_equal(ga[13], 1.5f, 1e-5);
    /* arm: 90 degrees about +Y, scale 0.5: its local +X axis maps to world -Z * 0.5. */
    assert_float_equal(ga[0], 0.0f, 1e-5);
    assert_float_equal(ga[2], -0.5f, 1e-5);
    assert_float_equal(gl[13], 2.5f, 1e-5);
    /* The camera node came as a matrix. */
    assert_float_equal(ge[12], 10.0f, 1e-5);
    assert_float_equal(ge[13], 1.5f, 1e-5);
    assert_float_equal(ge[14], 6.0f, 1e-5);
    const rill_transform *et = rill_world_get(w, eye, rill_world_builtin(w)->transform);
    assert_float_equal(et->rotation[3], 1.0f, 1e-5);
    assert_float_equal(et->scale[1], 1.0f, 1e-5);

    /* The light and the camera. */
    const rill_point_light *pl = rill_world_get(w, lamp, rc.point_light);
    assert_non_null(pl);
    assert_float_equal(pl->intensity, MODEL_GEN_LIGHT_INTENSITY, 1e-5);
    assert_float_equal(pl->range, MODEL_GEN_LIGHT_RANGE, 1e-5);
    assert_float_equal(pl->color[1], 0.8f, 1e-5);
    assert_float_equal(pl->color[2], 0.6f, 1e-5);
    const rill_camera *cam = rill_world_get(w, eye, RILL_COMPONENT_CAMERA);
    assert_non_null(cam);
    assert_true(cam->active);
    assert_int_equal(cam->projection, RILL_PROJECTION_PERSPECTIVE);
    assert_float_equal(cam->fov_y, MODEL_GEN_CAM_YFOV, 1e-6);
    assert_float_equal(cam->near_plane, MODEL_GEN_CAM_ZNEAR, 1e-6);
    assert_float_equal(cam->far_plane, MODEL_GEN_CAM_ZFAR, 1e-4);

    /* Without render assets attached to the world, ModelMeshes cannot be drawn. */
    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
    assert_int_equal(snap.instance_count, 0);
    rill_render_assets *ra = rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = r, .assets = as, .world = w}, &err);
    assert_non_null(ra);
    assert_null(rill_render_assets_create(
        &(rill_render_assets_desc){.renderer = r, .assets = as, .world = w}, &err));

    /* Render through the model's camera: the boxes fill part of the frame. Extract uploads the
     * asset once and resolves every ModelMesh to the upload's meshes and materials. */
    static uint8_t px[W * H * 4];
    for (int frame = 0; frame < 3; frame++) {
        assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
        assert_int_equal(snap.instance_count, 3);
        const rill_render_model *rm = rill_render_assets_model(ra, asset);
        assert_non_null(rm);
        assert_int_equal(rm->mesh_count, 3);
        for (uint32_t i = 0; i < snap.instance_count; i++) {
            bool mesh_ok = false, mat_ok = false;
            for (uint32_t k = 0; k < rm->mesh_count; k++) {
                mesh_ok |= rm->meshes[k].id == snap.instances[i].mesh.id;
            }
            for (uint32_t k = 0; k < rm->material_count; k++) {
                mat_ok |= rm->materials[k].id == snap.instances[i].material.id;
            }
            assert_true(mesh_ok && mat_ok);
        }
        assert_int_equal(snap.light_count, 1);
        assert_float_equal(snap.view.fov_y, MODEL_GEN_CAM_YFOV, 1e-6);
        snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.2f;
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
    uint32_t lit = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        if (px[i * 4] > 8 || px[i * 4 + 1] > 8 || px[i * 4 + 2] > 8) {
            lit++;
        }
    }
    print_message("model spawn frame: %u of %u pixels lit\n", lit, W * H);
    if (tmp_env) { /* for a look by hand */
        snprintf(path, sizeof(path), "%s/model_spawn.png", tmp_env);
        rill_renderer_write_png(r, path, NULL);
    }
    assert_true(lit > W * H / 50);
    assert_true(lit < W * H); /* the background stays clear */
    rill_render_assets_stats ras;
    rill_render_assets_get_stats(ra, &ras);
    assert_int_equal(ras.uploads, 1);
    assert_int_equal(ras.models, 1);

    /* RenderMode hidden on the tree: every instance is still extracted, marked hidden, and the
     * frame is empty. */
    assert_int_equal(rill_scene_model_set_mode(w, &mc, root, RILL_RENDER_MODE_HIDDEN, 0.5f), 3);
    assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
    assert_int_equal(snap.instance_count, 3);
    for (uint32_t i = 0; i < snap.instance_count; i++) {
        assert_int_equal(snap.instances[i].mode, RILL_RENDER_MODE_HIDDEN);
    }
    assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
    uint32_t lit_hidden = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        if (px[i * 4] > 8 || px[i * 4 + 1] > 8 || px[i * 4 + 2] > 8) {
            lit_hidden++;
        }
    }
    assert_int_equal(lit_hidden, 0);

    /* Despawning the holder's subtree removes every spawned entity. */
    assert_int_equal(rill_world_despawn_recursive(w, holder), 9);
    assert_int_equal(rill_world_component_len(w, rc.model_mesh), 0);

    /* With nothing naming the asset, updates destroy the upload after the release delay (2). */
    for (int i = 0; i < 3; i++) {
        rill_render_assets_update(ra);
    }
    rill_render_assets_get_stats(ra, &ras);
    assert_int_equal(ras.models, 0);
    assert_int_equal(ras.unloads, 1);
    rill_render_assets_destroy(ra);
    rill_render_extract_buf_free(&xb);
    rill_world_destroy(w);
    rill_asset_release(as, asset);
    rill_asset_server_destroy(as);
    rill_vfs_destroy(vfs);
    render_test_destroy_clean(r, false);
}

/* A model without scenes spawns every root node; node names fall back to "nodeN". */
static void test_spawn_no_scene(void **state) {
    (void)state;
    rill_gltf_node nodes[2];
    memset(nodes, 0, sizeof(nodes));
    int32_t kids[1] = {1};
    for (int i = 0; i < 2; i++) {
        nodes[i].parent = -1;
        nodes[i].mesh = nodes[i].camera = nodes[i].light = -1;
        nodes[i].rotation[3] = 1.0f;
        nodes[i].scale[0] = nodes[i].scale[1] = nodes[i].scale[2] = 1.0f;
        nodes[i].matrix[0] = nodes[i].matrix[5] = nodes[i].matrix[10] = nodes[i].matrix[15] = 1;
    }
    nodes[0].child_count = 1, nodes[0].children = kids;
    nodes[1].parent = 0;
    nodes[1].translation[2] = 3.0f;
    rill_gltf_model m;
    memset(&m, 0, sizeof(m));
    m.node_count = 2, m.nodes = nodes, m.default_scene = -1;
    rill_world *w = rill_world_create(NULL, NULL);
    rill_model_components mc;
    rill_error err = {0};
    assert_int_equal(rill_scene_model_register(w, &mc, &err), RILL_OK);
    rill_entity root = 0;
    rill_asset none = {0};
    assert_int_equal(rill_scene_model_spawn(w, &mc, none, &m, RILL_ENTITY_NULL, &root, &err),
                     RILL_OK);
    assert_string_equal(rill_world_get_name(w, root), "model");
    assert_int_equal(rill_world_get_parent(w, root), RILL_ENTITY_NULL);
    rill_entity n0 = find_child(w, root, "node0");
    assert_true(n0);
    rill_entity n1 = find_child(w, n0, "node1");
    assert_true(n1);
    rill_world_update_transforms(w);
    assert_float_equal(rill_world_global_matrix(w, n1)[14], 3.0f, 1e-6);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn_no_scene),
        cmocka_unit_test(test_spawn_tree_and_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
