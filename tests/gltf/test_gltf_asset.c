/* test_gltf_asset.c: the .glb/.gltf asset-server loader: a model loads through the VFS (with its
 * external buffer), "#meshN" narrows it to one mesh, bad labels and broken files fail with a
 * message naming the file, and the payload is freed by the server (leak-checked). */
#include "rill_test.h"

#include "gltf_test_models.h"
#include "rill/asset.h"
#include "rill/formats/edges.h"
#include "rill/formats/gltf.h"

static void copy_file(const char *from, const char *to) {
    uint8_t *data;
    size_t size;
    rill_error err = {0};
    assert_int_equal(rill_file_read_all(from, &data, &size, &err), RILL_OK);
    assert_int_equal(rill_file_write_all(to, data, size, &err), RILL_OK);
    rill_free(data);
}

static void test_loader(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char dir[512], path[700];
    rill_test_tmpdir(dir, sizeof(dir), "gltf_asset");
    rill_error err = {0};
    /* models/cube.glb: two meshes (the second a plane) so "#mesh1" means something. */
    rill_gltf_model *cube = tm_cube();
    rill_gltf_model *plane = tm_plane(2);
    rill_gltf_mesh *meshes = tm_alloc(2, sizeof(rill_gltf_mesh));
    meshes[0] = cube->meshes[0];
    meshes[1] = plane->meshes[0];
    plane->mesh_count = 0;
    rill_free(plane->meshes);
    plane->meshes = NULL;
    rill_free(cube->meshes);
    cube->meshes = meshes;
    cube->mesh_count = 2;
    rill_gltf_model_free(plane);
    rill_test_path(path, sizeof(path), dir, "models");
    assert_int_equal(rill_dir_create_all(path, &err), RILL_OK);
    rill_test_path(path, sizeof(path), dir, "models/cube.glb");
    assert_int_equal(rill_glb_write_file(cube, path, NULL, &err), RILL_OK);
    rill_gltf_model_free(cube);
    rill_test_path(path, sizeof(path), dir, "models/broken.glb");
    assert_int_equal(rill_file_write_all(path, "glTF\x02\0\0\0\xff\0\0\0", 12, &err), RILL_OK);
    const char *box = "/usr/share/assimp/models/glTF2/BoxTextured-glTF/";
    bool have_box = rill_dir_exists(box);
    if (have_box) {
        char from[512];
        snprintf(from, sizeof(from), "%sBoxTextured.gltf", box);
        rill_test_path(path, sizeof(path), dir, "models/box.gltf");
        copy_file(from, path);
        snprintf(from, sizeof(from), "%sBoxTextured0.bin", box);
        rill_test_path(path, sizeof(path), dir, "models/BoxTextured0.bin");
        copy_file(from, path);
    }

    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_non_null(vfs);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_server_desc sd = {.vfs = vfs};
    rill_asset_server *server = rill_asset_server_create(&sd, NULL);
    assert_non_null(server);
    assert_int_equal(rill_gltf_register_asset_loader(server, &err), RILL_OK);

    rill_asset a = rill_asset_load_sync(server, "models/cube.glb", &err);
    assert_int_equal(rill_asset_get_state(server, a), RILL_ASSET_STATE_LOADED);
    const rill_gltf_model *m = rill_asset_get_payload_as(server, a, RILL_GLTF_ASSET_LOADER);
    assert_non_null(m);
    assert_int_equal(m->mesh_count, 2);
    assert_int_equal(rill_gltf_model_triangle_count(m), 12 + 8);
    assert_int_equal(m->node_count, 1);

    rill_asset b = rill_asset_load_sync(server, "models/cube.glb#mesh1", &err);
    assert_int_equal(rill_asset_get_state(server, b), RILL_ASSET_STATE_LOADED);
    m = rill_asset_get_payload_as(server, b, RILL_GLTF_ASSET_LOADER);
    assert_int_equal(m->mesh_count, 1);
    assert_string_equal(m->meshes[0].name, "plane");
    assert_int_equal(m->node_count, 0);
    assert_int_equal(m->material_count, 1);

    rill_asset c = rill_asset_load_sync(server, "models/cube.glb#mesh7", &err);
    assert_int_equal(rill_asset_get_state(server, c), RILL_ASSET_STATE_FAILED);
    assert_non_null(strstr(rill_asset_error(server, c), "models/cube.glb#mesh7"));
    rill_asset d = rill_asset_load_sync(server, "models/cube.glb#lod", &err);
    assert_int_equal(rill_asset_get_state(server, d), RILL_ASSET_STATE_FAILED);
    rill_asset e = rill_asset_load_sync(server, "models/broken.glb", &err);
    assert_int_equal(rill_asset_get_state(server, e), RILL_ASSET_STATE_FAILED);
    assert_non_null(strstr(rill_asset_error(server, e), "models/broken.glb"));

    rill_asset f = {0};
    if (have_box) {
        /* A .gltf whose buffer is a separate file beside it, read through the VFS. */
        f = rill_asset_load_sync(server, "models/box.gltf", &err);
        if (rill_asset_get_state(server, f) != RILL_ASSET_STATE_LOADED) {
            fail_msg("%s", rill_asset_error(server, f));
        }
        m = rill_asset_get_payload_as(server, f, RILL_GLTF_ASSET_LOADER);
        assert_int_equal(rill_gltf_model_triangle_count(m), 12);
        assert_string_equal(m->images[0].uri, "CesiumLogoFlat.png");
    } else {
        print_message("assimp-testmodels not installed: external-buffer case skipped\n");
    }
    rill_asset all[] = {a, b, c, d, e, f};
    for (size_t i = 0; i < RILL_COUNTOF(all); i++) {
        rill_asset_release(server, all[i]);
    }
    rill_asset_server_update(server);
    rill_asset_server_destroy(server);
    rill_vfs_destroy(vfs);
    rill_test_tmpdir_remove(dir);
    RILL_TEST_LEAK_END();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
