/* test_gltf_validator.c: the Khronos glTF validator accepts (no errors) what the .glb writer and
 * the LOD bake produce: procedural models with edges and lights, vertex colours, a second UV set
 * and material extensions, re-written assimp test models, and LOD levels. Runs
 * tests/gltf/validate.js with Node.js; skipped with a message when node or the gltf-validator
 * package is missing (scripts/install-deps.sh installs it under build/). */
#include <sys/wait.h>

#include "rill_test.h"

#include "gltf_test_models.h"
#include "rill/formats/edges.h"
#include "rill/formats/gltf.h"
#include "rill/formats/lod.h"

#define ASSIMP_DIR "/usr/share/assimp/models/glTF2/"

static void append(char *cmd, size_t cap, const char *s) {
    size_t n = strlen(cmd);
    assert_true(n + strlen(s) + 4 < cap);
    snprintf(cmd + n, cap - n, " '%s'", s);
}

static void write_model(rill_gltf_model *m, const char *dir, const char *name, char *cmd,
                        size_t cap) {
    char path[700];
    rill_test_path(path, sizeof(path), dir, name);
    rill_error err = {0};
    if (rill_glb_write_file(m, path, NULL, &err) != RILL_OK) {
        fail_msg("%s: %s", name, err.msg);
    }
    append(cmd, cap, path);
}

static void write_with_lods(rill_gltf_model *m, const char *dir, const char *name, char *cmd,
                            size_t cap) {
    write_model(m, dir, name, cmd, cap);
    rill_gltf_model *levels[RILL_LOD_MAX_LEVELS];
    uint32_t count;
    rill_error err = {0};
    assert_int_equal(rill_lod_bake(m, NULL, levels, NULL, &count, &err), RILL_OK);
    for (uint32_t i = 0; i < count; i++) {
        char lname[256];
        assert_true(rill_lod_path(lname, sizeof(lname), name, i + 1));
        write_model(levels[i], dir, lname, cmd, cap);
        rill_gltf_model_free(levels[i]);
    }
}

static void test_validator_accepts(void **state) {
    (void)state;
    const char *js = getenv("RILL_GLTF_VALIDATE_JS");
    if (!js || system("command -v node >/dev/null 2>&1") != 0) {
        print_message("node or validate.js not available; skipping the glTF validator test\n");
        skip();
    }
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "gltf_validator");
    static char cmd[16384];
    snprintf(cmd, sizeof(cmd), "node '%s'", js);
    rill_error err = {0};

    rill_gltf_model *m = tm_cube();
    assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
    m->light_count = 1;
    m->lights = tm_alloc(1, sizeof(rill_gltf_light));
    m->lights[0] = (rill_gltf_light){
        rill_strdup("lamp"), RILL_GLTF_LIGHT_SPOT, {1, 1, 1}, 20.0f, 10.0f, 0.1f, 0.5f};
    m->nodes[0].light = 0;
    write_model(m, dir, "cube.glb", cmd, sizeof(cmd));
    rill_gltf_model_free(m);
    /* Vertex colours, a second UV set and every material extension the writer writes. */
    m = tm_cube();
    rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    tm_add_colors_uv1(p);
    rill_gltf_material *mt = &m->materials[0];
    mt->unlit = true;
    mt->ior = 1.33f;
    mt->has_specular = true;
    mt->specular_factor = 0.5f;
    mt->specular_color_factor[0] = 1.0f;
    mt->specular_color_factor[1] = 0.5f;
    mt->specular_color_factor[2] = 0.25f;
    mt->clearcoat_factor = 0.75f;
    mt->clearcoat_roughness_factor = 0.25f;
    mt->occlusion_texture.texcoord = 1;
    write_model(m, dir, "extras.glb", cmd, sizeof(cmd));
    rill_gltf_model_free(m);
    m = tm_plane(8);
    assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
    write_model(m, dir, "plane.glb", cmd, sizeof(cmd));
    rill_gltf_model_free(m);
    m = tm_sphere(96, 48);
    write_with_lods(m, dir, "sphere.glb", cmd, sizeof(cmd));
    rill_gltf_model_free(m);

    if (rill_dir_exists(ASSIMP_DIR)) {
        static const char *files[] = {
            "2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
            "BoxTextured-glTF-Binary/BoxTextured.glb",
            "cameras/Cameras.gltf",
            "ClearCoat-glTF/ClearCoatTest.gltf",
            "BoxTexcoords-glTF/boxTexcoords.gltf",
        };
        for (size_t i = 0; i < RILL_COUNTOF(files); i++) {
            char src[512], name[128];
            snprintf(src, sizeof(src), ASSIMP_DIR "%s", files[i]);
            assert_int_equal(rill_gltf_read_file(src, NULL, &m, &err), RILL_OK);
            snprintf(name, sizeof(name), "assimp%zu.glb", i);
            /* External images stay references: copy them beside the written file. */
            for (uint32_t k = 0; k < m->image_count; k++) {
                if (m->images[k].uri) {
                    char from[700], to[700], srcdir[512];
                    assert_true(rill_path_dirname(srcdir, sizeof(srcdir), src));
                    rill_test_path(from, sizeof(from), srcdir, m->images[k].uri);
                    rill_test_path(to, sizeof(to), dir, m->images[k].uri);
                    uint8_t *data;
                    size_t size;
                    assert_int_equal(rill_file_read_all(from, &data, &size, &err), RILL_OK);
                    assert_int_equal(rill_file_write_all(to, data, size, &err), RILL_OK);
                    rill_free(data);
                }
            }
            if (i == 0) {
                write_with_lods(m, dir, name, cmd, sizeof(cmd));
            } else {
                assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
                write_model(m, dir, name, cmd, sizeof(cmd));
            }
            rill_gltf_model_free(m);
        }
    }
    int rc = system(cmd);
    int status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    if (status == 77) {
        print_message("gltf-validator npm package not installed; skipping\n");
        skip();
    }
    assert_int_equal(status, 0);
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validator_accepts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
