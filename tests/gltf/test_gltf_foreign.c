/* test_gltf_foreign.c: glTF files as other tools write them. A gltfpack-style quantized file
 * (KHR_mesh_quantization required: 16-bit positions, normalized 8-bit normals) loads with the
 * values the extension defines; a file asking for a newer glTF says which version it needs; and
 * what the model leaves out (animations, skins, morph targets, extra attribute sets, extensions
 * Rill does not read) is said in one warning naming the file, never dropped silently. */
#include "rill_test.h"

#include "gltf_test_models.h"
#include "rill/formats/gltf.h"

/* One triangle the way gltfpack quantizes it: positions as unnormalized int16 (stride 8),
 * normals as normalized int8 (stride 4), 16-bit indices, the node scaling positions back, and
 * KHR_mesh_quantization required. `root` goes into the root object (extensionsUsed is there),
 * `attrs` after the primitive's attributes and `prim` after its indices (each "" or text ending or
 * starting with a comma as its place needs). */
static void quantized_gltf(char *dst, size_t cap, const char *root, const char *attrs,
                           const char *prim) {
    uint8_t bin[44] = {0};
    const int16_t pos[3][3] = {{0, 0, 0}, {1000, 0, 0}, {0, 1000, 0}};
    for (int v = 0; v < 3; v++) {
        memcpy(bin + v * 8, pos[v], 6);
        const int8_t nrm[3] = {0, -127, 0}; /* normalized: exactly -1 */
        memcpy(bin + 24 + v * 4, nrm, 3);
    }
    const uint16_t idx[3] = {0, 1, 2};
    memcpy(bin + 36, idx, 6);
    char enc[80];
    tm_base64(bin, sizeof(bin), enc);
    snprintf(
        dst, cap,
        "{\"asset\":{\"version\":\"2.0\"},%s"
        "\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
        "\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":24,\"byteStride\":8},"
        "{\"buffer\":0,\"byteOffset\":24,\"byteLength\":12,\"byteStride\":4},"
        "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1000,1000,0]},"
        "{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":3,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1%s},"
        "\"indices\":2%s}]}],"
        "\"nodes\":[{\"mesh\":0,\"scale\":[0.001,0.001,0.001]}],\"scenes\":[{\"nodes\":[0]}],"
        "\"scene\":0}",
        root, enc, attrs, prim);
}

static rill_result read_text(const char *text, rill_gltf_model **m, rill_error *err) {
    rill_gltf_read_desc d = {.name = "packed.gltf"};
    return rill_gltf_read_memory(text, strlen(text), &d, m, err);
}

static void test_mesh_quantization(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char text[4096];
    quantized_gltf(text, sizeof(text), "\"extensionsUsed\":[\"KHR_mesh_quantization\"],", "", "");
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    if (read_text(text, &m, &err) != RILL_OK) {
        fail_msg("quantized file refused: %s", err.msg);
    }
    const rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->vertex_count, 3);
    assert_true(p->positions[3] == 1000.0f && p->positions[7] == 1000.0f);
    assert_true(p->bounds_max[0] == 1000.0f && p->bounds_max[1] == 1000.0f);
    for (int v = 0; v < 3; v++) {
        assert_true(p->normals[v * 3 + 1] == -1.0f && p->normals[v * 3] == 0.0f);
    }
    assert_true(m->nodes[0].scale[0] == 0.001f);
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

static void test_versions(void **state) {
    (void)state;
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    const char *newer = "{\"asset\":{\"version\":\"2.0\",\"minVersion\":\"2.1\"}}";
    assert_int_equal(read_text(newer, &m, &err), RILL_ERR_VERSION);
    assert_non_null(strstr(err.msg, "packed.gltf: asset.minVersion: the file needs glTF 2.1"));
    assert_int_equal(read_text("{\"asset\":{\"version\":\"\"}}", &m, &err), RILL_ERR_VERSION);
    assert_non_null(strstr(err.msg, "asset.version: glTF \"\" is not supported"));
    /* A later minor version without minVersion is meant to load in a 2.0 reader. */
    assert_int_equal(read_text("{\"asset\":{\"version\":\"2.1\"}}", &m, &err), RILL_OK);
    rill_gltf_model_free(m);
}

/* Reads text with warnings captured; returns the number of warnings, the last in cap. */
static int read_warnings(const char *text, rill_test_log *cap) {
    rill_test_log_begin(cap);
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    rill_result r = read_text(text, &m, &err);
    rill_test_log_end(cap);
    if (r != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    rill_gltf_model_free(m);
    return rill_test_log_count(cap, RILL_LOG_WARN);
}

static void test_left_out_is_said(void **state) {
    (void)state;
    char text[4096];
    rill_test_log cap = {0};
    /* Nothing left out: no warning (quantization and the lights are read). */
    quantized_gltf(text, sizeof(text),
                   "\"extensionsUsed\":[\"KHR_lights_punctual\",\"KHR_texture_transform\","
                   "\"KHR_mesh_quantization\"],",
                   "", "");
    assert_int_equal(read_warnings(text, &cap), 0);
    /* Everything at once, in one line that names the file. */
    quantized_gltf(text, sizeof(text),
                   "\"animations\":[{},{}],\"skins\":[{\"joints\":[0]}],"
                   "\"extensionsUsed\":[\"KHR_materials_clearcoat\",\"KHR_mesh_quantization\","
                   "\"KHR_materials_sheen\"],",
                   ",\"TEXCOORD_2\":0,\"COLOR_1\":0,\"_CUSTOM\":0,\"TEXCOORD_12\":0",
                   ",\"targets\":[{\"POSITION\":0}]");
    assert_int_equal(read_warnings(text, &cap), 1);
    assert_string_equal(cap.last_msg,
                        "packed.gltf: left out (Rill does not read them): 2 animations, 1 skin, "
                        "morph targets on 1 primitive, attribute TEXCOORD_2, attribute COLOR_1, "
                        "attribute TEXCOORD_12, "
                        "extensions KHR_materials_clearcoat, KHR_materials_sheen");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_quantization),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_left_out_is_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
