/* test_gltf_foreign.c: glTF files as other tools write them. A gltfpack-style quantized file
 * (KHR_mesh_quantization required: 16-bit positions, normalized 8-bit normals) loads with the
 * values the extension defines; a file asking for a newer glTF says which version it needs; and
 * what the model leaves out (animations, morph targets, extra attribute sets (a second set of
 * skin weights too), extensions Rill does not read) is said in one warning naming the file,
 * never dropped silently. Material lighting extensions (unlit, ior, specular, clear coat) are read,
 * written back and refused when out of range; point and line primitives are named as left out.
 * A gltfpack -c file (EXT_meshopt_compression, octahedral normals) decodes
 * to the same triangle, and each shape meshoptimizer's decoders would assert on is refused with its
 * place first. */
#include "rill_test.h"

#include <meshoptimizer.h>

#include "gltf_test_models.h"
#include "rill/formats/gltf.h"

/* One triangle the way gltfpack quantizes it: positions as unnormalized int16 (stride 8),
 * normals as normalized int8 (stride 4), 16-bit indices, the node scaling positions back, and
 * KHR_mesh_quantization required. `root` goes into the root object (extensionsUsed is there),
 * `attrs` after the primitive's attributes and `prim` after its indices (each "" or text ending or
 * starting with a comma as its place needs). */
static const int16_t k_pos[3][3] = {{0, 0, 0}, {1000, 0, 0}, {0, 1000, 0}};

/* The triangle's three views: positions at 0 (stride 8), normals at 24 (stride 4), indices at
 * 36. */
static void quantized_bin(uint8_t bin[44]) {
    memset(bin, 0, 44);
    for (int v = 0; v < 3; v++) {
        memcpy(bin + v * 8, k_pos[v], 6);
        const int8_t nrm[3] = {0, -127, 0}; /* normalized: exactly -1 */
        memcpy(bin + 24 + v * 4, nrm, 3);
    }
    const uint16_t idx[3] = {0, 1, 2};
    memcpy(bin + 36, idx, 6);
}

static void quantized_gltf(char *dst, size_t cap, const char *root, const char *attrs,
                           const char *prim) {
    uint8_t bin[44];
    quantized_bin(bin);
    char enc[80];
    rill_test_base64(bin, sizeof(bin), enc);
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
                   "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"path\":"
                   "\"pointer\"}}],\"samplers\":[{\"input\":0,\"output\":0}]}],"
                   "\"skins\":[{\"joints\":[0]}],"
                   "\"extensionsUsed\":[\"KHR_materials_clearcoat\",\"KHR_mesh_quantization\","
                   "\"EXT_lights_image_based\"],",
                   ",\"TEXCOORD_2\":0,\"COLOR_1\":0,\"_CUSTOM\":0,\"TEXCOORD_12\":0,"
                   "\"JOINTS_1\":0",
                   ",\"targets\":[{\"POSITION\":0,\"TANGENT\":0}]");
    assert_int_equal(read_warnings(text, &cap), 1);
    assert_string_equal(cap.last_msg,
                        "packed.gltf: left out (Rill does not read them): 1 animation channel "
                        "without a node target, "
                        "TANGENT morph targets on 1 primitive, attribute TEXCOORD_2, attribute "
                        "COLOR_1, "
                        "attribute TEXCOORD_12, attribute JOINTS_1, "
                        "extension EXT_lights_image_based");
}

/* A material with every lighting extension Rill reads, two textures (images without bytes) for
 * their texture references, and a primitive of lines beside the triangles; `mat1` is the second
 * material's extension objects. */
static void material_gltf(char *dst, size_t cap, const char *mat1) {
    char root[2048];
    snprintf(root, sizeof(root),
             "\"extensionsUsed\":[\"KHR_materials_unlit\",\"KHR_materials_ior\","
             "\"KHR_materials_specular\",\"KHR_materials_clearcoat\","
             "\"KHR_materials_transmission\",\"KHR_materials_volume\",\"KHR_materials_sheen\","
             "\"KHR_materials_iridescence\",\"KHR_materials_anisotropy\","
             "\"KHR_materials_dispersion\",\"KHR_texture_transform\"],"
             "\"images\":[{\"uri\":\"data:image/png;base64,\"}],"
             "\"textures\":[{\"source\":0},{\"source\":0}],"
             "\"materials\":[{\"extensions\":{\"KHR_materials_unlit\":{}}},"
             "{\"extensions\":{%s}}],",
             mat1);
    quantized_gltf(dst, cap, root, "",
                   ",\"material\":1},{\"attributes\":{\"POSITION\":0},\"mode\":1");
}

static const char k_mat1[] =
    "\"KHR_materials_ior\":{\"ior\":1.4},"
    "\"KHR_materials_specular\":{\"specularFactor\":0.5,\"specularColorFactor\":[1,0.5,0.25],"
    "\"specularTexture\":{\"index\":1},\"specularColorTexture\":{\"index\":0,\"texCoord\":1}},"
    "\"KHR_materials_clearcoat\":{\"clearcoatFactor\":0.75,\"clearcoatRoughnessFactor\":0.25,"
    "\"clearcoatTexture\":{\"index\":0},\"clearcoatRoughnessTexture\":{\"index\":1,"
    "\"extensions\":{\"KHR_texture_transform\":{\"scale\":[2,3],\"texCoord\":1}}},"
    "\"clearcoatNormalTexture\":{\"index\":1,\"scale\":0.5}},"
    "\"KHR_materials_transmission\":{\"transmissionFactor\":0.9,\"transmissionTexture\":"
    "{\"index\":1}},"
    "\"KHR_materials_volume\":{\"thicknessFactor\":0.2,\"thicknessTexture\":{\"index\":0},"
    "\"attenuationDistance\":3,\"attenuationColor\":[0.5,0.75,1]},"
    "\"KHR_materials_sheen\":{\"sheenColorFactor\":[1,0.5,0.25],\"sheenRoughnessFactor\":0.3,"
    "\"sheenColorTexture\":{\"index\":0},\"sheenRoughnessTexture\":{\"index\":1}},"
    "\"KHR_materials_iridescence\":{\"iridescenceFactor\":0.8,\"iridescenceTexture\":{\"index\":1},"
    "\"iridescenceIor\":1.6,\"iridescenceThicknessMinimum\":50,"
    "\"iridescenceThicknessMaximum\":700,\"iridescenceThicknessTexture\":{\"index\":0}},"
    "\"KHR_materials_anisotropy\":{\"anisotropyStrength\":0.6,\"anisotropyRotation\":-1.5,"
    "\"anisotropyTexture\":{\"index\":1,\"texCoord\":1}},"
    "\"KHR_materials_dispersion\":{\"dispersion\":0.25}";

static void check_material_exts(const rill_gltf_model *m) {
    assert_int_equal(m->material_count, 2);
    const rill_gltf_material *u = &m->materials[0], *x = &m->materials[1];
    assert_true(u->unlit && !x->unlit);
    assert_true(u->ior == 0.0f && !u->has_specular && u->clearcoat_factor == 0.0f);
    assert_true(x->ior == 1.4f && x->has_specular && x->specular_factor == 0.5f);
    assert_true(x->specular_color_factor[0] == 1.0f && x->specular_color_factor[1] == 0.5f &&
                x->specular_color_factor[2] == 0.25f);
    assert_true(x->clearcoat_factor == 0.75f && x->clearcoat_roughness_factor == 0.25f);
    /* The extensions' textures, with their UV sets, transforms and the coat normal's scale. */
    assert_int_equal(u->specular_texture.texture, -1);
    assert_int_equal(u->clearcoat_normal_texture.texture, -1);
    assert_int_equal(x->specular_texture.texture, 1);
    assert_int_equal(x->specular_color_texture.texture, 0);
    assert_int_equal(x->specular_color_texture.texcoord, 1);
    assert_int_equal(x->clearcoat_texture.texture, 0);
    const rill_gltf_texref *cr = &x->clearcoat_roughness_texture;
    assert_true(cr->texture == 1 && cr->has_transform && cr->uv_scale[0] == 2.0f &&
                cr->uv_scale[1] == 3.0f && cr->transform_texcoord == 1);
    assert_true(x->clearcoat_normal_texture.texture == 1 &&
                x->clearcoat_normal_texture.scale == 0.5f);
    /* Transmission and volume: factors, textures, attenuation; absent: none, thin, white. */
    assert_true(u->transmission_factor == 0.0f && !u->has_volume);
    assert_true(u->attenuation_color[0] == 1.0f && u->attenuation_distance == 0.0f);
    assert_true(x->transmission_factor == 0.9f && x->transmission_texture.texture == 1);
    assert_true(x->has_volume && x->thickness_factor == 0.2f && x->thickness_texture.texture == 0);
    assert_true(x->attenuation_distance == 3.0f && x->attenuation_color[0] == 0.5f &&
                x->attenuation_color[1] == 0.75f && x->attenuation_color[2] == 1.0f);
    /* Sheen: colour, roughness, both textures; absent: none. */
    assert_true(!u->has_sheen && x->has_sheen && x->sheen_roughness_factor == 0.3f);
    assert_true(x->sheen_color_factor[0] == 1.0f && x->sheen_color_factor[1] == 0.5f &&
                x->sheen_color_factor[2] == 0.25f);
    assert_true(x->sheen_color_texture.texture == 0 && x->sheen_roughness_texture.texture == 1);
    /* Iridescence, anisotropy, dispersion; absent: none, with the film's defaults. */
    assert_true(u->iridescence_factor == 0.0f && u->iridescence_ior == 1.3f &&
                u->iridescence_thickness_min == 100.0f && u->iridescence_thickness_max == 400.0f);
    assert_true(u->anisotropy_strength == 0.0f && u->dispersion == 0.0f);
    assert_true(x->iridescence_factor == 0.8f && x->iridescence_ior == 1.6f &&
                x->iridescence_thickness_min == 50.0f && x->iridescence_thickness_max == 700.0f);
    assert_true(x->iridescence_texture.texture == 1 &&
                x->iridescence_thickness_texture.texture == 0);
    assert_true(x->anisotropy_strength == 0.6f && x->anisotropy_rotation == -1.5f);
    assert_true(x->anisotropy_texture.texture == 1 && x->anisotropy_texture.texcoord == 1);
    assert_true(x->dispersion == 0.25f);
}

/* KHR_materials_unlit, _ior, _specular, _clearcoat, _transmission, _volume, _sheen,
 * _iridescence, _anisotropy and _dispersion: factors and textures read and written back; the line
 * primitive named in the one warning; bad factors and texture references refused naming the place.
 */
static void test_material_extensions(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    static char text[8192];
    material_gltf(text, sizeof(text), k_mat1);
    rill_test_log cap = {0};
    rill_test_log_begin(&cap);
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    rill_result res = read_text(text, &m, &err);
    rill_test_log_end(&cap);
    if (res != RILL_OK) {
        fail_msg("%s", err.msg);
    }
    assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 0);
    /* The lines primitive (one segment) is read as a prism of 6 triangles. */
    assert_int_equal(m->meshes[0].primitive_count, 2);
    assert_int_equal(m->meshes[0].primitives[1].index_count, 18);
    assert_int_equal(m->skipped_primitives, 0);
    check_material_exts(m);
    uint8_t *glb = NULL;
    size_t n = 0;
    assert_int_equal(rill_glb_write_memory(m, NULL, &glb, &n, &err), RILL_OK);
    rill_gltf_model *back = NULL;
    if (rill_gltf_read_memory(glb, n, NULL, &back, &err) != RILL_OK) {
        fail_msg("written file refused: %s", err.msg);
    }
    check_material_exts(back);
    rill_free(glb);
    rill_gltf_model_free(back);
    rill_gltf_model_free(m);
    static const char *const bad[][2] = {
        {"\"KHR_materials_ior\":{\"ior\":0.5}",
         "packed.gltf: materials[1].extensions.KHR_materials_ior.ior: 0.5 is out of range [1, "
         "1000]"},
        {"\"KHR_materials_ior\":{\"ior\":1e999}",
         "packed.gltf: materials[1].extensions.KHR_materials_ior.ior: not a finite number"},
        {"\"KHR_materials_specular\":{\"specularColorFactor\":[1,-1,1]}",
         "packed.gltf: materials[1].extensions.KHR_materials_specular.specularColorFactor[1]: -1 "
         "is out of range [0, 1e6]"},
        {"\"KHR_materials_specular\":{\"specularFactor\":\"x\"}",
         "packed.gltf: materials[1].extensions.KHR_materials_specular.specularFactor: expected a "
         "number"},
        {"\"KHR_materials_clearcoat\":{\"clearcoatFactor\":2}",
         "packed.gltf: materials[1].extensions.KHR_materials_clearcoat.clearcoatFactor: 2 is out "
         "of range [0, 1]"},
        {"\"KHR_materials_clearcoat\":{\"clearcoatRoughnessFactor\":-0.5}",
         "packed.gltf: materials[1].extensions.KHR_materials_clearcoat.clearcoatRoughnessFactor: "
         "-0.5 is out of range [0, 1]"},
        {"\"KHR_materials_clearcoat\":7",
         "packed.gltf: materials[1].extensions.KHR_materials_clearcoat: expected an object"},
        {"\"KHR_materials_clearcoat\":{\"clearcoatFactor\":1,\"clearcoatTexture\":{\"index\":2}}",
         "packed.gltf: materials[1].extensions.KHR_materials_clearcoat.clearcoatTexture.index: "},
        {"\"KHR_materials_clearcoat\":{\"clearcoatNormalTexture\":{\"texCoord\":0}}",
         "packed.gltf: materials[1].extensions.KHR_materials_clearcoat.clearcoatNormalTexture."
         "index: missing"},
        {"\"KHR_materials_clearcoat\":{\"clearcoatNormalTexture\":{\"index\":0,\"scale\":1e30}}",
         "packed.gltf: materials[1].extensions.KHR_materials_clearcoat.clearcoatNormalTexture."
         "scale: 1e+30 is out of range [-1000, 1000]"},
        {"\"KHR_materials_specular\":{\"specularTexture\":{\"index\":-1}}",
         "packed.gltf: materials[1].extensions.KHR_materials_specular.specularTexture.index"},
        {"\"KHR_materials_transmission\":{\"transmissionFactor\":1e999}",
         "packed.gltf: materials[1].extensions.KHR_materials_transmission.transmissionFactor: not "
         "a finite number"},
        {"\"KHR_materials_transmission\":{\"transmissionFactor\":1.5}",
         "packed.gltf: materials[1].extensions.KHR_materials_transmission.transmissionFactor: 1.5 "
         "is out of range [0, 1]"},
        {"\"KHR_materials_transmission\":{\"transmissionTexture\":{\"index\":9}}",
         "packed.gltf: materials[1].extensions.KHR_materials_transmission.transmissionTexture."
         "index"},
        {"\"KHR_materials_volume\":{\"thicknessFactor\":-1}",
         "packed.gltf: materials[1].extensions.KHR_materials_volume.thicknessFactor: -1 is out of "
         "range [0, 1e+06]"},
        {"\"KHR_materials_volume\":{\"attenuationDistance\":0}",
         "packed.gltf: materials[1].extensions.KHR_materials_volume.attenuationDistance: 0 is out "
         "of range"},
        {"\"KHR_materials_volume\":{\"attenuationColor\":[2,0,0]}",
         "packed.gltf: materials[1].extensions.KHR_materials_volume.attenuationColor[0]: 2 is out "
         "of range [0, 1]"},
        {"\"KHR_materials_sheen\":{\"sheenColorFactor\":[1,1,-0.5]}",
         "packed.gltf: materials[1].extensions.KHR_materials_sheen.sheenColorFactor[2]: -0.5 is "
         "out of range [0, 1]"},
        {"\"KHR_materials_sheen\":{\"sheenRoughnessFactor\":1e999}",
         "packed.gltf: materials[1].extensions.KHR_materials_sheen.sheenRoughnessFactor: not a "
         "finite number"},
        {"\"KHR_materials_sheen\":{\"sheenRoughnessTexture\":{}}",
         "packed.gltf: materials[1].extensions.KHR_materials_sheen.sheenRoughnessTexture.index: "
         "missing"},
        {"\"KHR_materials_iridescence\":{\"iridescenceFactor\":1.5}",
         "packed.gltf: materials[1].extensions.KHR_materials_iridescence.iridescenceFactor: 1.5 "
         "is out of range [0, 1]"},
        {"\"KHR_materials_iridescence\":{\"iridescenceIor\":0.5}",
         "packed.gltf: materials[1].extensions.KHR_materials_iridescence.iridescenceIor: 0.5 is "
         "out of range [1, 1000]"},
        {"\"KHR_materials_iridescence\":{\"iridescenceThicknessMaximum\":-400}",
         "packed.gltf: materials[1].extensions.KHR_materials_iridescence."
         "iridescenceThicknessMaximum: -400 is out of range [0, 1e+06]"},
        {"\"KHR_materials_iridescence\":{\"iridescenceThicknessTexture\":{\"index\":5}}",
         "packed.gltf: materials[1].extensions.KHR_materials_iridescence."
         "iridescenceThicknessTexture.index"},
        {"\"KHR_materials_anisotropy\":{\"anisotropyStrength\":-0.1}",
         "packed.gltf: materials[1].extensions.KHR_materials_anisotropy.anisotropyStrength: -0.1 "
         "is out of range [0, 1]"},
        {"\"KHR_materials_anisotropy\":{\"anisotropyRotation\":1e999}",
         "packed.gltf: materials[1].extensions.KHR_materials_anisotropy.anisotropyRotation: not a "
         "finite number"},
        {"\"KHR_materials_anisotropy\":{\"anisotropyTexture\":{\"index\":\"a\"}}",
         "packed.gltf: materials[1].extensions.KHR_materials_anisotropy.anisotropyTexture.index"},
        {"\"KHR_materials_dispersion\":{\"dispersion\":-1}",
         "packed.gltf: materials[1].extensions.KHR_materials_dispersion.dispersion: -1 is out of "
         "range [0, 1000]"},
        {"\"KHR_materials_dispersion\":[]",
         "packed.gltf: materials[1].extensions.KHR_materials_dispersion: expected an object"},
        {"\"KHR_materials_specular\":{\"specularColorTexture\":[0]}",
         "packed.gltf: materials[1].extensions.KHR_materials_specular.specularColorTexture: "
         "expected an object"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        material_gltf(text, sizeof(text), bad[i][0]);
        m = NULL;
        assert_int_not_equal(read_text(text, &m, &err), RILL_OK);
        assert_null(m);
        if (strstr(err.msg, bad[i][1]) == NULL) {
            fail_msg("%s: got \"%s\"", bad[i][0], err.msg);
        }
    }
    RILL_TEST_LEAK_END();
}

/* The same triangle as gltfpack -c writes it: every view EXT_meshopt_compression-encoded into
 * buffer 0 (normals through the octahedral filter), buffer 1 the byte-less fallback the views
 * nominally live in. `find`, when given, is replaced once by `replace` (hostile variants). */
static void meshopt_gltf(char *dst, size_t cap, const char *find, const char *replace) {
    uint8_t raw[44], packed[256];
    quantized_bin(raw);
    const float unit[12] = {0, -1, 0, 0, 0, -1, 0, 0, 0, -1, 0, 0};
    meshopt_encodeFilterOct(raw + 24, 3, 4, 8, unit);
    size_t pos_n = meshopt_encodeVertexBuffer(packed, 96, raw, 3, 8);
    size_t nrm_n = meshopt_encodeVertexBuffer(packed + 96, 80, raw + 24, 3, 4);
    const unsigned int idx[3] = {0, 1, 2};
    size_t idx_n = meshopt_encodeIndexBuffer(packed + 176, 80, idx, 3);
    assert_true(pos_n && nrm_n && idx_n);
    char enc[360], text[4096];
    rill_test_base64(packed, sizeof(packed), enc);
    snprintf(
        text, sizeof(text),
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"extensionsUsed\":[\"EXT_meshopt_compression\",\"KHR_mesh_quantization\"],"
        "\"extensionsRequired\":[\"EXT_meshopt_compression\",\"KHR_mesh_quantization\"],"
        "\"buffers\":[{\"byteLength\":256,\"uri\":\"data:application/octet-stream;base64,%s\"},"
        "{\"byteLength\":44,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
        "\"bufferViews\":[{\"buffer\":1,\"byteLength\":24,\"byteStride\":8,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":8,"
        "\"count\":3,\"mode\":\"ATTRIBUTES\"}}},"
        "{\"buffer\":1,\"byteOffset\":24,\"byteLength\":12,\"byteStride\":4,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":96,\"byteLength\":%zu,"
        "\"byteStride\":4,\"count\":3,\"mode\":\"ATTRIBUTES\",\"filter\":\"OCTAHEDRAL\"}}},"
        "{\"buffer\":1,\"byteOffset\":36,\"byteLength\":6,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":176,\"byteLength\":%zu,"
        "\"byteStride\":2,\"count\":3,\"mode\":\"TRIANGLES\"}}}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1000,1000,0]},"
        "{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":3,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},"
        "\"indices\":2}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
        enc, pos_n, nrm_n, idx_n);
    const char *at = find ? strstr(text, find) : NULL;
    assert_true(!find || at);
    snprintf(dst, cap, "%.*s%s%s", at ? (int)(at - text) : (int)strlen(text), text,
             at ? replace : "", at ? at + strlen(find) : "");
}

static void expect_refused(const char *find, const char *replace, const char *needle) {
    char text[4096];
    meshopt_gltf(text, sizeof(text), find, replace);
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    assert_int_not_equal(read_text(text, &m, &err), RILL_OK);
    assert_null(m);
    if (!strstr(err.msg, needle)) {
        fail_msg("expected \"%s\" in \"%s\"", needle, err.msg);
    }
}

static void test_meshopt_compression(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char text[4096];
    meshopt_gltf(text, sizeof(text), NULL, NULL);
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    if (read_text(text, &m, &err) != RILL_OK) {
        fail_msg("meshopt file refused: %s", err.msg);
    }
    const rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->vertex_count, 3);
    assert_int_equal(p->index_count, 3);
    for (int v = 0; v < 3; v++) {
        for (int k = 0; k < 3; k++) {
            assert_true(p->positions[v * 3 + k] == (float)k_pos[v][k]);
        }
        assert_true(p->normals[v * 3 + 1] == -1.0f);
        assert_int_equal(p->indices[v], v);
    }
    rill_gltf_model_free(m);
    /* Shapes the decoders would assert on, bytes that do not decode, and a view of the
     * byte-less fallback without the extension: each refused with its place. */
    expect_refused(
        "\"byteStride\":8,\"count\":3", "\"byteStride\":6,\"count\":4",
        "bufferViews[0].extensions.EXT_meshopt_compression: ATTRIBUTES needs a byteStride");
    expect_refused("\"filter\":\"OCTAHEDRAL\"", "\"filter\":\"QUATERNION\"",
                   "bufferViews[1].extensions.EXT_meshopt_compression: QUATERNION needs");
    expect_refused("\"byteStride\":2,\"count\":3", "\"byteStride\":2,\"count\":2",
                   "TRIANGLES needs a count that is a multiple of 3");
    expect_refused("\"mode\":\"TRIANGLES\"", "\"mode\":\"STRIPS\"",
                   "bufferViews[2].extensions.EXT_meshopt_compression.mode: expected ATTRIBUTES");
    expect_refused("\"filter\":\"OCTAHEDRAL\"", "\"filter\":\"SMOOTH\"",
                   "filter: expected NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL");
    expect_refused("\"byteOffset\":96,", "\"byteOffset\":97,", "does not decode");
    expect_refused("\"byteOffset\":176,\"byteLength\":", "\"byteOffset\":250,\"byteLength\":",
                   "not in a buffer with data");
    expect_refused(",\"byteStride\":8,\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,",
                   ",\"byteStride\":8,\"extensions\":{\"X\":{\"buffer\":0,",
                   "bufferViews[0]: buffer 1 is an EXT_meshopt_compression fallback without bytes");
    RILL_TEST_LEAK_END();
}

/* An image whose data URI holds no bytes is kept, and the written file says so again (an empty data
 * URI: a bufferView may not be empty), so the writer's output reads back (a fuzz finding: the
 * writer wrote an image with neither uri nor bufferView, which its own reader refuses). */
static void test_empty_image_round_trip(void **state) {
    (void)state;
    static const char text[] =
        "{\"asset\":{\"version\":\"2.0\"},\"images\":[{\"uri\":\"data:image/png;base64,\"}],"
        "\"textures\":[{\"source\":0}],\"materials\":[{\"normalTexture\":{\"index\":0}}]}";
    rill_error err = {0};
    rill_gltf_model *m = NULL;
    assert_int_equal(read_text(text, &m, &err), RILL_OK);
    assert_int_equal(m->image_count, 1);
    uint8_t *glb = NULL;
    size_t n = 0;
    assert_int_equal(rill_glb_write_memory(m, NULL, &glb, &n, &err), RILL_OK);
    rill_gltf_model *back = NULL;
    if (rill_gltf_read_memory(glb, n, NULL, &back, &err) != RILL_OK) {
        fail_msg("written file refused: %s", err.msg);
    }
    assert_int_equal(back->image_count, 1);
    assert_int_equal(back->images[0].size, 0);
    rill_free(glb);
    rill_gltf_model_free(back);
    rill_gltf_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_quantization),   cmocka_unit_test(test_versions),
        cmocka_unit_test(test_left_out_is_said),    cmocka_unit_test(test_material_extensions),
        cmocka_unit_test(test_meshopt_compression), cmocka_unit_test(test_empty_image_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
