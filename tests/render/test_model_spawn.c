/* test_model_spawn.c: rill_render_model_spawn on a generated glTF model (node hierarchy with TRS
 * and matrix transforms, two meshes, a point light, a camera): the entity tree it builds (names,
 * parents, GlobalTransforms, MeshInstances, light and camera values), then a headless frame on
 * lavapipe with validation on, seen through the model's own camera, which must not be empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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
        if (n && strcmp(n, name) == 0)
            return c;
    }
    return RILL_ENTITY_NULL;
}

static uint32_t count_mesh_children(rill_world *w, const rill_render_components *rc, rill_entity e,
                                    const rill_render_model *rm, uint32_t *out_valid) {
    uint32_t n = 0;
    for (rill_entity c = rill_world_first_child(w, e); c; c = rill_world_next_sibling(w, c)) {
        const rill_mesh_instance *mi = rill_world_get(w, c, rc->mesh_instance);
        if (!mi)
            continue;
        n++;
        bool mesh_ok = false, mat_ok = false;
        for (uint32_t i = 0; i < rm->mesh_count; i++)
            mesh_ok |= rm->meshes[i].id == mi->mesh;
        for (uint32_t i = 0; i < rm->material_count; i++)
            mat_ok |= rm->materials[i].id == mi->material;
        if (mesh_ok && mat_ok && mi->mesh && mi->material)
            (*out_valid)++;
    }
    return n;
}

static void test_spawn_tree_and_render(void **state) {
    (void)state;
    rill_error err = {0};
    uint8_t *glb = NULL;
    size_t glb_size = 0;
    if (model_gen_glb(&glb, &glb_size, &err) != RILL_OK)
        fail_msg("glb write: %s", err.msg);
    rill_gltf_model *gm = NULL;
    if (rill_gltf_read_memory(glb, glb_size, NULL, &gm, &err) != RILL_OK)
        fail_msg("glb read: %s", err.msg);
    rill_free(glb);

    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = W, d.height = H, d.validation = 1;
    d.quality = RILL_RENDER_QUALITY_LOW;
    rill_renderer *r = NULL;
    if (rill_renderer_create(&d, &r, &err) != RILL_OK)
        fail_msg("no Vulkan renderer (install mesa-vulkan-drivers for lavapipe): %s", err.msg);
    rill_render_model rm;
    assert_int_equal(rill_render_model_create(r, gm, NULL, &rm, &err), RILL_OK);
    assert_int_equal(rm.mesh_count, 3);

    rill_world *w = rill_world_create(NULL);
    rill_render_components rc;
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    rill_entity holder = rill_world_spawn(w);
    rill_transform ht = rill_transform_identity();
    ht.translation[0] = 10.0f; /* the model follows its holder */
    rill_world_set_transform(w, holder, &ht);

    /* Argument checks. */
    rill_entity root = 1;
    assert_int_equal(rill_render_model_spawn(NULL, &rc, &rm, gm, holder, &root, NULL),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(root, RILL_ENTITY_NULL);
    assert_int_equal(rill_render_model_spawn(w, &rc, &rm, gm, RILL_ENTITY_MAKE(77, 3), &root, NULL),
                     RILL_ERR_INVALID_ARGUMENT);

    uint32_t before = rill_world_entity_count(w);
    assert_int_equal(rill_render_model_spawn(w, &rc, &rm, gm, holder, &root, &err), RILL_OK);
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

    /* MeshInstances: one under base, two under arm, all naming the uploaded GPU resources. */
    uint32_t valid = 0;
    assert_int_equal(count_mesh_children(w, &rc, base, &rm, &valid), 1);
    assert_int_equal(count_mesh_children(w, &rc, arm, &rm, &valid), 2);
    assert_int_equal(valid, 3);
    assert_int_equal(rill_world_component_len(w, rc.mesh_instance), 3);

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

    /* Render through the model's camera: the boxes fill part of the frame. */
    rill_render_extract_buf xb = {0};
    rill_render_snapshot snap;
    static uint8_t px[W * H * 4];
    for (int frame = 0; frame < 3; frame++) {
        assert_int_equal(rill_render_extract(w, &rc, &xb, &snap, &err), RILL_OK);
        assert_int_equal(snap.instance_count, 3);
        assert_int_equal(snap.light_count, 1);
        assert_float_equal(snap.view.fov_y, MODEL_GEN_CAM_YFOV, 1e-6);
        snap.ambient[0] = snap.ambient[1] = snap.ambient[2] = 0.2f;
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
    }
    assert_int_equal(rill_renderer_read_pixels(r, px, sizeof(px), &err), RILL_OK);
    uint32_t lit = 0;
    for (uint32_t i = 0; i < W * H; i++)
        if (px[i * 4] > 8 || px[i * 4 + 1] > 8 || px[i * 4 + 2] > 8)
            lit++;
    print_message("model spawn frame: %u of %u pixels lit\n", lit, W * H);
    const char *tmp = getenv("RILL_TEST_TMP");
    if (tmp) { /* for a look by hand */
        char path[1024];
        snprintf(path, sizeof(path), "%s/model_spawn.png", tmp);
        rill_dir_create_all(tmp, NULL);
        rill_renderer_write_png(r, path, NULL);
    }
    assert_true(lit > W * H / 50);
    assert_true(lit < W * H); /* the background stays clear */

    /* Despawning the holder's subtree removes every spawned entity. */
    assert_int_equal(rill_world_despawn_recursive(w, holder), 9);
    assert_int_equal(rill_world_component_len(w, rc.mesh_instance), 0);

    rill_render_extract_buf_free(&xb);
    rill_world_destroy(w);
    rill_render_model_destroy(r, &rm);
    rill_gltf_model_free(gm);
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    rill_renderer_destroy(r);
    assert_int_equal(st.validation_messages, 0);
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
    rill_render_model empty;
    memset(&empty, 0, sizeof(empty));
    rill_world *w = rill_world_create(NULL);
    rill_render_components rc;
    rill_error err = {0};
    assert_int_equal(rill_render_register_components(w, &rc, &err), RILL_OK);
    rill_entity root = 0;
    assert_int_equal(rill_render_model_spawn(w, &rc, &empty, &m, RILL_ENTITY_NULL, &root, &err),
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
