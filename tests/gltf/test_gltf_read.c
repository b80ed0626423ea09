/* test_gltf_read.c: the glTF reader and .glb writer: Debian's assimp test models (good ones load,
 * broken ones fail with a message naming the file), hand-made hostile files (each error names the
 * JSON path), every truncation length and random byte flips (errors, never crashes; run under
 * ASan in the asan preset), and the write -> read round trip. */
#include "rill_test.h"

#include <sys/resource.h>

#include "gltf_test_models.h"
#include "rill/formats/edges.h"
#include "rill/formats/gltf.h"

#define ASSIMP_DIR "/usr/share/assimp/models/"

static bool have_assimp(void) {
    return rill_dir_exists(ASSIMP_DIR "glTF2");
}

/* >>assimp models ----------------------------------------------------------------------------- */

static void test_assimp_good(void **state) {
    (void)state;
    if (!have_assimp()) {
        print_message("assimp-testmodels not installed (" ASSIMP_DIR "); skipping\n");
        skip();
    }
    static const struct {
        const char *path;
        uint64_t triangles;
    } good[] = {
        {"glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb", 75730},
        {"glTF2/BoxBadNormals-glTF-Binary/BoxBadNormals.glb", 12},
        {"glTF2/BoxTexcoords-glTF/boxTexcoords.gltf", 12},
        {"glTF2/BoxTextured-glTF-Binary/BoxTextured.glb", 12},
        {"glTF2/BoxTextured-glTF-Embedded/BoxTextured.gltf", 12},
        {"glTF2/BoxTextured-glTF/BoxTextured.gltf", 12},
        {"glTF2/BoxTextured-glTF-pbrSpecularGlossiness/BoxTextured.gltf", 12},
        {"glTF2/ClearCoat-glTF/ClearCoatTest.gltf", 37116},
        {"glTF2/cameras/Cameras.gltf", 2},
        {"glTF2/simple_skin/simple_skin.gltf", 8},
        {"glTF2/textureTransform/TextureTransformTest.gltf", 18},
        {"glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf", 12},
        {"glTF2/TestNoRootNode/SceneWithoutNodes.gltf", 0},
        {"glTF2/issue_3269/texcoord_crash.gltf", 10},
        /* Strip, fan and list variants of the same quad: all become 2 triangles. */
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_04.gltf", 2},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_05.gltf", 2},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_06.gltf", 2},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_11.gltf", 2},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_12.gltf", 2},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_13.gltf", 2},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_14.gltf", 2},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_15.gltf", 2},
        /* Points (an octahedron of 8 triangles each) and the square's outline as lines, a loop
         * and a strip, with and without indices (4 segments, a prism of 6 triangles each). */
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_00.gltf", 8192},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_01.gltf", 24},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_02.gltf", 24},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_03.gltf", 24},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_07.gltf", 8192},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_08.gltf", 24},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_09.gltf", 24},
        {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_10.gltf", 24},
    };
    for (size_t i = 0; i < RILL_COUNTOF(good); i++) {
        char path[512];
        snprintf(path, sizeof(path), ASSIMP_DIR "%s", good[i].path);
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        rill_result r = rill_gltf_read_file(path, NULL, &m, &err);
        if (r != RILL_OK) {
            fail_msg("%s: %s", good[i].path, err.msg);
        }
        assert_int_equal(rill_gltf_model_triangle_count(m), good[i].triangles);
        /* Every primitive the reader returns has unit normals, and tangents wherever its
         * material samples a normal texture. */
        for (uint32_t k = 0; k < m->mesh_count; k++) {
            for (uint32_t p = 0; p < m->meshes[k].primitive_count; p++) {
                const rill_gltf_primitive *pr = &m->meshes[k].primitives[p];
                assert_non_null(pr->normals);
                if (pr->material >= 0 && m->materials[pr->material].normal_texture.texture >= 0) {
                    assert_non_null(pr->tangents);
                }
                for (uint32_t v = 0; pr->tangents && v < pr->vertex_count; v++) {
                    const float *t = &pr->tangents[v * 4];
                    float l = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
                    assert_true(fabsf(l - 1.0f) < 1e-4f && (t[3] == 1.0f || t[3] == -1.0f));
                }
                for (uint32_t v = 0; v < pr->vertex_count; v++) {
                    const float *n = &pr->normals[v * 3];
                    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                    assert_true(fabsf(l - 1.0f) < 1e-4f);
                }
            }
        }
        rill_gltf_model_free(m);
    }
}

static void test_assimp_details(void **state) {
    (void)state;
    if (!have_assimp()) {
        skip();
    }
    rill_gltf_model *m;
    rill_error err = {0};
    assert_int_equal(
        rill_gltf_read_file(ASSIMP_DIR "glTF2/BoxTextured-glTF/BoxTextured.gltf", NULL, &m, &err),
        RILL_OK);
    /* External image: kept as a path relative to the model; texture, sampler, material links. */
    assert_int_equal(m->image_count, 1);
    assert_string_equal(m->images[0].uri, "CesiumLogoFlat.png");
    assert_null(m->images[0].data);
    assert_int_equal(m->texture_count, 1);
    assert_int_equal(m->textures[0].image, 0);
    assert_int_equal(m->materials[0].base_color_texture.texture, 0);
    assert_int_equal(m->samplers[0].mag_filter, 9729);
    assert_non_null(m->meshes[0].primitives[0].uv0);
    rill_gltf_model_free(m);

    /* Embedded image (GLB bufferView) comes with its bytes and MIME type. */
    assert_int_equal(rill_gltf_read_file(ASSIMP_DIR "glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
                                         NULL, &m, &err),
                     RILL_OK);
    assert_int_equal(m->image_count, 1);
    assert_non_null(m->images[0].data);
    assert_true(m->images[0].size > 8);
    assert_memory_equal(m->images[0].data, "\x89PNG", 4);
    assert_string_equal(m->images[0].mime_type, "image/png");
    rill_gltf_model_free(m);

    assert_int_equal(rill_gltf_read_file(ASSIMP_DIR "glTF2/cameras/Cameras.gltf", NULL, &m, &err),
                     RILL_OK);
    assert_int_equal(m->camera_count, 2);
    assert_int_equal(m->cameras[0].type, RILL_GLTF_CAMERA_PERSPECTIVE);
    assert_int_equal(m->cameras[1].type, RILL_GLTF_CAMERA_ORTHOGRAPHIC);
    rill_gltf_model_free(m);
}

static void test_assimp_broken(void **state) {
    (void)state;
    if (!have_assimp()) {
        skip();
    }
    static const struct {
        const char *path;
        rill_result code;
        const char *needle; /* part of the expected message */
    } bad[] = {
        /* glTF 1.0, said so whether the version is a GLB header's, a string or a number. */
        {"glTF/BoxTextured-glTF-Binary/BoxTextured.glb", RILL_ERR_VERSION,
         "glTF 1.0 is not supported (2.0 is)"},
        {"glTF/BoxTextured-glTF/BoxTextured.gltf", RILL_ERR_VERSION,
         "glTF 1.0 is not supported (2.0 is)"},
        {"glTF/CesiumMilkTruck/CesiumMilkTruck.gltf", RILL_ERR_VERSION,
         "glTF 1.0 is not supported (2.0 is)"},
        {"glTF/TwoBoxes/TwoBoxes.gltf", RILL_ERR_VERSION, "glTF 1.0 is not supported (2.0 is)"},
        {"glTF2/BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", RILL_ERR_CORRUPT,
         "meshes[0].primitives[0].attributes.POSITION: vertex 0 is not finite"},
        {"glTF2/IncorrectVertexArrays/Cube.gltf", RILL_ERR_CORRUPT, "bufferViews[2]"},
        {"glTF2/IndexOutOfRange/IndexOutOfRange.gltf", RILL_ERR_CORRUPT,
         "meshes[0].primitives[0].indices"},
        {"glTF2/IndexOutOfRange/AllIndicesOutOfRange.gltf", RILL_ERR_CORRUPT,
         "meshes[0].primitives[0].indices"},
        {"glTF2/MissingBin/BoxTextured.gltf", RILL_ERR_NOT_FOUND, "buffers[0].uri"},
        {"glTF2/RecursiveNodes/RecursiveNodes.gltf", RILL_ERR_CORRUPT, "cycle"},
        {"glTF2/TestNoRootNode/NoScene.gltf", RILL_ERR_CORRUPT, "scene: scene 0 out of range"},
        {"glTF2/draco/2CylinderEngine.gltf", RILL_ERR_UNSUPPORTED, "KHR_draco_mesh_compression"},
        {"glTF2/BoxTextured-glTF-techniqueWebGL/BoxTextured.gltf", RILL_ERR_UNSUPPORTED,
         "extensionsRequired[0]"},
        {"glTF2/wrongTypes/badArray.gltf", RILL_ERR_PARSE, "meshes[0].primitives"},
        {"glTF2/wrongTypes/badExtension.gltf", RILL_ERR_PARSE, "KHR_texture_transform"},
        {"glTF2/wrongTypes/badNumber.gltf", RILL_ERR_PARSE, "materials[0].normalTexture"},
        {"glTF2/wrongTypes/badObject.gltf", RILL_ERR_PARSE, "materials[0].pbrMetallicRoughness"},
        {"glTF2/wrongTypes/badString.gltf", RILL_ERR_PARSE, "scenes[0].name"},
        {"glTF2/wrongTypes/badUint.gltf", RILL_ERR_CORRUPT, "baseColorTexture.index"},
    };
    for (size_t i = 0; i < RILL_COUNTOF(bad); i++) {
        char path[512];
        snprintf(path, sizeof(path), ASSIMP_DIR "%s", bad[i].path);
        rill_gltf_model *m = (rill_gltf_model *)&m; /* must be reset to NULL on failure */
        rill_error err = {0};
        rill_result r = rill_gltf_read_file(path, NULL, &m, &err);
        if (r != bad[i].code || !strstr(err.msg, bad[i].needle) || !strstr(err.msg, path)) {
            fail_msg("%s: got %s \"%s\"", bad[i].path, rill_result_name(r), err.msg);
        }
        assert_null(m);
    }
}

/* >>hand-made files --------------------------------------------------------------------------- */

/* A one-triangle .gltf with a data: URI buffer (36 bytes of positions + 6 bytes of u16 indices),
 * with parts that tests replace to inject faults. */
static void tri_gltf(char *dst, size_t cap, const float pos[9], const char *pos_accessor,
                     const char *position_attr, const char *extra) {
    uint8_t bin[44] = {0};
    memcpy(bin, pos, 36);
    uint16_t idx[3] = {0, 1, 2};
    memcpy(bin + 36, idx, 6);
    char enc[80];
    rill_test_base64(bin, sizeof(bin), enc);
    snprintf(
        dst, cap,
        "{\"asset\":{\"version\":\"2.0\"},%s"
        "\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
        "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
        "\"accessors\":[%s,"
        "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%s},\"indices\":1}]}],"
        "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
        extra, enc, pos_accessor, position_attr);
}

static const float k_tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const char *k_pos_acc =
    "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}";

static rill_result read_text(const char *text, const char *name, rill_gltf_model **m,
                             rill_error *err) {
    rill_gltf_read_desc d = {.name = name};
    return rill_gltf_read_memory(text, strlen(text), &d, m, err);
}

static void expect_fail(const char *text, rill_result code, const char *needle) {
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    rill_result r = read_text(text, "chair.gltf", &m, &err);
    if (r != code || !strstr(err.msg, needle)) {
        fail_msg("expected %s with \"%s\", got %s \"%s\"", rill_result_name(code), needle,
                 rill_result_name(r), err.msg);
    }
    assert_null(m);
}

static void test_hostile_json(void **state) {
    (void)state;
    char text[4096];
    RILL_TEST_LEAK_BEGIN();
    /* The reference case loads. */
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
    rill_gltf_model *m;
    rill_error err = {0};
    assert_int_equal(read_text(text, "chair.gltf", &m, &err), RILL_OK);
    assert_int_equal(rill_gltf_model_triangle_count(m), 1);
    /* Generated normal: +Z for this counter-clockwise triangle. */
    assert_true(fabsf(m->meshes[0].primitives[0].normals[2] - 1.0f) < 1e-6f);
    rill_gltf_model_free(m);

    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "7", "");
    expect_fail(text, RILL_ERR_CORRUPT,
                "chair.gltf: meshes[0].primitives[0].attributes.POSITION: accessor 7 out of range");
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "-1", "");
    expect_fail(text, RILL_ERR_CORRUPT, "attributes.POSITION: accessor -1 out of range");
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "\"zero\"", "");
    expect_fail(text, RILL_ERR_PARSE, "attributes.POSITION: expected an index");
    /* Counts, offsets and strides that reach past the data. */
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"}", "0", "");
    expect_fail(text, RILL_ERR_CORRUPT, "accessors[0]: needs 48 bytes of bufferView 0");
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"byteOffset\":4294967296,\"componentType\":5126,\"count\":3,"
             "\"type\":\"VEC3\"}",
             "0", "");
    expect_fail(text, RILL_ERR_CORRUPT, "accessors[0]");
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"byteOffset\":1e300,\"componentType\":5126,\"count\":3,"
             "\"type\":\"VEC3\"}",
             "0", "");
    expect_fail(text, RILL_ERR_PARSE, "accessors[0].byteOffset");
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"componentType\":5126,\"count\":4294967295,\"type\":\"VEC3\"}",
             "0", "");
    expect_fail(text, RILL_ERR_LIMIT, "accessors[0]");
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}", "0", "");
    expect_fail(text, RILL_ERR_CORRUPT, "attributes.POSITION: accessor 0 has the wrong type");
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"componentType\":5127,\"count\":3,\"type\":\"VEC3\"}", "0", "");
    expect_fail(text, RILL_ERR_PARSE, "accessors[0].componentType");
    /* NaN and infinite positions. */
    float nan_tri[9] = {0, 0, 0, 1, 0, 0, 0, NAN, 0};
    tri_gltf(text, sizeof(text), nan_tri, k_pos_acc, "0", "");
    expect_fail(text, RILL_ERR_CORRUPT, "attributes.POSITION: vertex 2 is not finite");
    float inf_tri[9] = {INFINITY, 0, 0, 1, 0, 0, 0, 1, 0};
    tri_gltf(text, sizeof(text), inf_tri, k_pos_acc, "0", "");
    expect_fail(text, RILL_ERR_CORRUPT, "attributes.POSITION: vertex 0 is not finite");
    /* Version, required extensions, syntax. */
    expect_fail("{\"asset\":{\"version\":\"1.0\"}}", RILL_ERR_VERSION,
                "glTF 1.0 is not supported (2.0 is)");
    expect_fail("{\"asset\":{\"version\":\"3.0\"}}", RILL_ERR_VERSION, "asset.version");
    /* No asset.version, but 1.0's dictionaries: said to be 1.0, not "asset: missing". */
    expect_fail("{\"meshes\":{\"m\":{}}}", RILL_ERR_VERSION, "glTF 1.0 is not supported");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"KHR_draco_mesh_"
                "compression\"]}",
                RILL_ERR_UNSUPPORTED, "KHR_draco_mesh_compression is not supported");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\n \"nodes\":[{]}", RILL_ERR_PARSE,
                "chair.gltf:2:");
    expect_fail("", RILL_ERR_TRUNCATED, "chair.gltf");
    /* A byte order mark before the JSON is tolerated. */
    assert_int_equal(
        read_text("\xEF\xBB\xBF{\"asset\":{\"version\":\"2.0\"}}", "bom.gltf", &m, &err), RILL_OK);
    rill_gltf_model_free(m);
    /* Node graph: self-parenting, two parents, scene root that is a child. */
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[0]}]}",
                RILL_ERR_CORRUPT, "nodes[0].children[0]");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[2]},{\"children\":[2]},"
                "{}]}",
                RILL_ERR_CORRUPT, "nodes[1].children[0]: node 2 already has a parent");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{}],"
                "\"scenes\":[{\"nodes\":[1]}]}",
                RILL_ERR_CORRUPT, "scenes[0].nodes[0]: node 1 is not a root");
    /* URIs that would leave the model's folder or name another scheme. */
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
                "\"../../etc/passwd\"}]}",
                RILL_ERR_UNSUPPORTED, "buffers[0].uri");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
                "\"/etc/passwd\"}]}",
                RILL_ERR_UNSUPPORTED, "is not a relative path");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
                "\"http://example.com/a.bin\"}]}",
                RILL_ERR_UNSUPPORTED, "is not a relative path");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
                "\"data:application/octet-stream;base64,A$==\"}]}",
                RILL_ERR_PARSE, "invalid base64");
    /* Sparse substitution: vertex 0 takes the values stored at byte 24 (vertex 2's). */
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"componentType\":5123},"
             "\"values\":{\"bufferView\":0,\"byteOffset\":24}}}",
             "0", "");
    assert_int_equal(read_text(text, "chair.gltf", &m, &err), RILL_OK);
    assert_true(m->meshes[0].primitives[0].positions[0] == 0.0f &&
                m->meshes[0].primitives[0].positions[1] == 1.0f);
    rill_gltf_model_free(m);
    /* Sparse index read from the bytes of a float (0x3F80 = 16256): past the count. */
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":0,\"byteOffset\":14,"
             "\"componentType\":5123},\"values\":{\"bufferView\":0}}}",
             "0", "");
    expect_fail(text, RILL_ERR_CORRUPT, "accessors[0].sparse.indices: index 16256 out of range");
    RILL_TEST_LEAK_END();
}

/* Non-finite numbers (JSON has no NaN or infinity literal, but 1e999 overflows to infinity) are
 * errors naming the place: accessor bounds, node transforms, material factors. */
static void test_non_finite_numbers(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char text[4096];
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"min\":[0,-1e999,0],\"max\":[1,1,0]}",
             "0", "");
    expect_fail(text, RILL_ERR_CORRUPT, "chair.gltf: accessors[0].min[1]: not a finite number");
    tri_gltf(text, sizeof(text), k_tri,
             "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[1,1]}",
             "0", "");
    expect_fail(text, RILL_ERR_PARSE, "accessors[0].max: expected an array of 3 numbers");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"translation\":[0,1e999,0]}]}",
                RILL_ERR_CORRUPT, "nodes[0].translation[1]: not a finite number");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{},{\"scale\":[1,1,-2e400]}]}",
                RILL_ERR_CORRUPT, "nodes[1].scale[2]: not a finite number");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"materials\":[{\"pbrMetallicRoughness\":"
                "{\"baseColorFactor\":[1,1,1,1e39]}}]}",
                RILL_ERR_CORRUPT,
                "materials[0].pbrMetallicRoughness.baseColorFactor[3]: not a finite number");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"materials\":[{\"pbrMetallicRoughness\":"
                "{\"roughnessFactor\":1e999}}]}",
                RILL_ERR_CORRUPT,
                "materials[0].pbrMetallicRoughness.roughnessFactor: not a finite");
    expect_fail("{\"asset\":{\"version\":\"2.0\"},\"materials\":[{\"emissiveFactor\":"
                "[0,0,\"x\"]}]}",
                RILL_ERR_PARSE, "materials[0].emissiveFactor[2]: expected a number");
    RILL_TEST_LEAK_END();
}

/* The peak resident memory of this process so far, in bytes. */
static uint64_t peak_rss(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_maxrss * 1024u;
}

/* A file of about 1 KB whose 30 primitives all name one accessor of a million vertices without a
 * buffer view (zeros, as glTF says): decoded per primitive it would grow to gigabytes. The
 * model's decoded bytes are counted before anything is allocated, so the read ends at the limit
 * with an error naming it, quickly and without the memory. */
static void test_model_limit(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char prims[4096] = "";
    size_t o = 0;
    for (int i = 0; i < 30; i++) {
        o += (size_t)snprintf(prims + o, sizeof(prims) - o, "%s{\"attributes\":{\"POSITION\":0}}",
                              i ? "," : "");
    }
    char text[8192];
    snprintf(text, sizeof(text),
             "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,"
             "\"count\":999999,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[%s]}]}",
             prims);
    assert_true(strlen(text) < 1200); /* about 1.5 GB decoded without the limit */
    /* This test is about model_bytes: the expansion limit (test_expansion_bombs) is raised. */
    rill_limits big = rill_limits_query_defaults();
    big.model_expansion = 1u << 30;
    rill_limits_set(&big);
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    rill_gltf_read_desc d = {.name = "bomb.gltf", .max_bytes = 64u << 20};
    rill_result res = rill_gltf_read_memory(text, strlen(text), &d, &m, &err);
    if (res != RILL_ERR_LIMIT) {
        fail_msg("got %s: %s", rill_result_name(res), err.msg);
    }
    assert_null(m);
    assert_non_null(strstr(err.msg, "bomb.gltf: meshes[0].primitives["));
    /* Refused by the sum over the primitives, before any of them is decoded. */
    assert_non_null(strstr(err.msg, "the primitives up to here"));
    assert_non_null(strstr(err.msg, "model_bytes limit of 67108864"));
    assert_non_null(strstr(err.msg, "RILL_LIMITS=model_bytes=N"));
    assert_non_null(strstr(err.msg, "max_bytes"));
    /* Without a desc limit, the process-wide model_bytes limit applies. */
    rill_limits lim = big;
    lim.model_bytes = 48u << 20;
    rill_limits_set(&lim);
    res = rill_gltf_read_memory(text, strlen(text), NULL, &m, &err);
    rill_limits_set(NULL);
    assert_int_equal(res, RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "model_bytes limit of 50331648"));
    /* The limit's worth of memory at most: the test process itself stays below 256 MiB even with
     * the default 1 GiB limit never reached (its time, well under a second on an idle machine, is
     * not asserted: a loaded CI machine took over 5 s). */
    assert_true(peak_rss() < (256u << 20));
    /* The JSON tree counts too: a limit below it fails before any accessor is read. */
    d.max_bytes = 4096;
    assert_int_equal(rill_gltf_read_memory(text, strlen(text), &d, &m, &err), RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "JSON"));
    /* A within-limit version of the same file loads: one primitive, 1000 zero vertices. */
    snprintf(text, sizeof(text),
             "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,"
             "\"count\":999,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":"
             "{\"POSITION\":0}}]}]}");
    assert_int_equal(rill_gltf_read_memory(text, strlen(text), NULL, &m, &err), RILL_OK);
    assert_int_equal(rill_gltf_model_triangle_count(m), 333);
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

/* Skin joints and weights and morph targets count in the sum over the primitives made before
 * any accessor is decoded (issue 32 item 5): a primitive whose positions and normals alone stay
 * under model_bytes but whose targets (8 x POSITION and NORMAL displacements of 999,999 vertices,
 * 192 MB) or JOINTS_0 / WEIGHTS_0 (1.5 M vertices, 48 MB more) pass it is refused up front, naming
 * the primitive, not after decoding its attributes. The same primitive without them loads. */
static void test_skin_and_targets_counted_up_front(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_limits big = rill_limits_query_defaults();
    big.model_expansion = 1u << 30; /* this is about the sum against model_bytes */
    rill_limits_set(&big);
    static const char *const files[] = {
        /* eight morph targets, each naming the zero accessor 0 for POSITION and NORMAL */
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":"
        "999999,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,"
        "\"NORMAL\":0},\"targets\":[{\"POSITION\":0,\"NORMAL\":0},{\"POSITION\":0},{\"POSITION\":0}"
        ","
        "{\"POSITION\":0},{\"POSITION\":0},{\"POSITION\":0},{\"POSITION\":0},{\"POSITION\":0}]}]}]"
        "}",
        /* JOINTS_0 and WEIGHTS_0 of 1.5 M zero vertices */
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":"
        "1500000,\"type\":\"VEC3\"},{\"componentType\":5123,\"count\":1500000,\"type\":\"VEC4\"},"
        "{\"componentType\":5126,\"count\":1500000,\"type\":\"VEC4\"}],\"meshes\":[{\"primitives\":"
        "[{\"attributes\":{\"POSITION\":0,\"NORMAL\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}]}",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        rill_gltf_read_desc d = {.name = "bomb.gltf", .max_bytes = 64u << 20};
        rill_result res = rill_gltf_read_memory(files[i], strlen(files[i]), &d, &m, &err);
        if (res != RILL_ERR_LIMIT) {
            fail_msg("file %zu: got %s: %s", i, rill_result_name(res), err.msg);
        }
        assert_null(m);
        print_message("%s\n", err.msg);
        assert_non_null(strstr(err.msg, "bomb.gltf: meshes[0].primitives[0]: the primitives up to "
                                        "here"));
        assert_non_null(strstr(err.msg, "model_bytes limit of 67108864"));
    }
    /* Without the targets and the skin the same primitives fit. */
    static const char *const fits[] = {
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":"
        "999999,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,"
        "\"NORMAL\":0}}]}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":"
        "1500000,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,"
        "\"NORMAL\":0}}]}]}",
    };
    for (size_t i = 0; i < sizeof(fits) / sizeof(fits[0]); i++) {
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        rill_gltf_read_desc d = {.name = "fits.gltf", .max_bytes = 64u << 20};
        rill_result res = rill_gltf_read_memory(fits[i], strlen(fits[i]), &d, &m, &err);
        if (res != RILL_OK) {
            fail_msg("fits %zu: got %s: %s", i, rill_result_name(res), err.msg);
        }
        rill_gltf_model_free(m);
    }
    rill_limits_set(NULL);
    RILL_TEST_LEAK_END();
}

/* Files of a few hundred bytes that decode to hundreds of megabytes while staying inside
 * model_bytes (each took 0.45-0.6 GB and 2.6-5.5 s of CPU before the model_expansion limit): zero
 * indices drawing three zero vertices and unwelded for flat normals, a sparse accessor of 16 M
 * zeros, a strip of zero indices, indices times vertices over four primitives, tangents generated
 * for three primitives sharing 3 M zero vertices. Each is refused before the bytes are allocated,
 * naming the file and the JSON path; the process never holds the memory. */
static void test_expansion_bombs(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    static const char *const bombs[] = {
        /* zero-index draw */
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":3,"
        "\"type\":\"VEC3\"},{\"componentType\":5125,\"count\":16777215,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}]}",
        /* strip of zero indices */
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":3,"
        "\"type\":\"VEC3\"},{\"componentType\":5125,\"count\":16777215,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,"
        "\"mode\":5}]}]}",
        /* sparse: 16 M zeros, one value (a data: URI buffer) */
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16,\"uri\":"
        "\"data:application/octet-stream;base64,BQAAAAAAgD8AAABAAABAQA==\"}],\"bufferViews\":"
        "[{\"buffer\":0,\"byteLength\":4},{\"buffer\":0,\"byteOffset\":4,\"byteLength\":12}],"
        "\"accessors\":[{\"componentType\":5126,\"count\":16777215,\"type\":\"VEC3\",\"sparse\":"
        "{\"count\":1,\"indices\":{\"bufferView\":0,\"componentType\":5125},\"values\":"
        "{\"bufferView\":1}}}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}",
        /* indices x vertices, four primitives */
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":"
        "4000000,\"type\":\"VEC3\"},{\"componentType\":5126,\"count\":4000000,\"type\":\"VEC3\"},"
        "{\"componentType\":5125,\"count\":12000000,\"type\":\"SCALAR\"}],\"meshes\":"
        "[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":2},"
        "{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":2},{\"attributes\":"
        "{\"POSITION\":0,\"NORMAL\":1},\"indices\":2},{\"attributes\":{\"POSITION\":0,"
        "\"NORMAL\":1},\"indices\":2}]}]}",
        /* tangents for a normal-mapped material */
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":"
        "3000000,\"type\":\"VEC3\"},{\"componentType\":5126,\"count\":3000000,\"type\":\"VEC3\"},"
        "{\"componentType\":5126,\"count\":3000000,\"type\":\"VEC2\"}],\"images\":[{\"uri\":"
        "\"data:image/png;base64,\"}],\"textures\":[{\"source\":0}],\"materials\":[{"
        "\"normalTexture\":{\"index\":0}}],\"meshes\":[{\"primitives\":[{\"attributes\":"
        "{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"material\":0}]}]}",
    };
    for (size_t i = 0; i < sizeof(bombs) / sizeof(bombs[0]); i++) {
        assert_true(strlen(bombs[i]) < 700);
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        rill_gltf_read_desc d = {.name = "bomb.gltf"};
        rill_result res = rill_gltf_read_memory(bombs[i], strlen(bombs[i]), &d, &m, &err);
        if (res != RILL_ERR_LIMIT) {
            fail_msg("bomb %zu: got %s: %s", i, rill_result_name(res), err.msg);
        }
        assert_null(m);
        assert_non_null(strstr(err.msg, "bomb.gltf: meshes[0].primitives[0]"));
        assert_non_null(strstr(err.msg, "model_expansion limit of 1024 to 1"));
        assert_non_null(strstr(err.msg, "RILL_LIMITS=model_expansion=N"));
    }
    /* Refused before allocating: the process stays far below what any of them needed. */
    assert_true(peak_rss() < (256u << 20));
    /* Small expansions stay allowed (the 4 MiB floor), and raising the limit admits more: 500 k
     * zero indices unwelded (about 18 MB) are refused by default and load when allowed. */
    char text[512];
    const char *fmt = "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,"
                      "\"count\":3,\"type\":\"VEC3\"},{\"componentType\":5125,\"count\":%u,"
                      "\"type\":\"SCALAR\"}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                      "{\"POSITION\":0},\"indices\":1}]}]}";
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    snprintf(text, sizeof(text), fmt, 3000u);
    assert_int_equal(rill_gltf_read_memory(text, strlen(text), NULL, &m, &err), RILL_OK);
    assert_int_equal(rill_gltf_model_triangle_count(m), 1000);
    rill_gltf_model_free(m);
    snprintf(text, sizeof(text), fmt, 500001u);
    assert_int_equal(rill_gltf_read_memory(text, strlen(text), NULL, &m, &err), RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "model_expansion"));
    rill_limits lim = rill_limits_query_defaults();
    lim.model_expansion = 1u << 20;
    rill_limits_set(&lim);
    rill_result res = rill_gltf_read_memory(text, strlen(text), NULL, &m, &err);
    rill_limits_set(NULL);
    assert_int_equal(res, RILL_OK);
    assert_int_equal(rill_gltf_model_triangle_count(m), 166667);
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

/* Replaces the first `from` in text by `to` (the result must fit in cap). */
static void replace(char *text, size_t cap, const char *from, const char *to) {
    char *at = strstr(text, from);
    assert_non_null(at);
    size_t fl = strlen(from), tl = strlen(to), rest = strlen(at + fl);
    assert_true(strlen(text) - fl + tl < cap);
    memmove(at + tl, at + fl, rest + 1);
    memcpy(at, to, tl);
}

static void test_primitive_modes(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char text[4096];
    rill_gltf_model *m;
    rill_error err = {0};
    rill_test_log cap = {0};
    /* Points and lines are read as triangles, without a warning: the three indices as 3 points
     * (an octahedron each, 8 triangles), lines (1 segment, a prism of 6 triangles), a loop (3
     * segments) and a strip (2), of radius 0.005 x the diagonal (sqrt 2) around the vertices. */
    static const uint32_t want_tris[4] = {24, 6, 18, 12};
    const float s = 0.005f * 1.41421356f;
    for (int mode = 0; mode <= 3; mode++) {
        char repl[64];
        snprintf(repl, sizeof(repl), "\"indices\":1,\"mode\":%d}", mode);
        tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
        replace(text, sizeof(text), "\"indices\":1}", repl);
        rill_test_log_begin(&cap);
        assert_int_equal(read_text(text, "pts.gltf", &m, &err), RILL_OK);
        rill_test_log_end(&cap);
        assert_int_equal(rill_test_log_count(&cap, RILL_LOG_WARN), 0);
        assert_int_equal(m->skipped_primitives, 0);
        assert_int_equal(m->meshes[0].primitive_count, 1);
        assert_int_equal(rill_gltf_model_triangle_count(m), want_tris[mode]);
        const rill_gltf_primitive *p = &m->meshes[0].primitives[0];
        /* Octahedra reach s; a prism's triangular section reaches between s / 2 and s. */
        assert_true(p->bounds_max[2] > (mode ? 0.49f : 0.999f) * s &&
                    p->bounds_max[2] < 1.001f * s);
        assert_true(p->bounds_min[2] < -(mode ? 0.49f : 0.999f) * s);
        /* Every triangle faces away from the shape's centre line (flat normals, outward). */
        for (uint32_t t = 0; t < p->index_count / 3u; t++) {
            const float *a = &p->positions[(size_t)p->indices[t * 3] * 3];
            const float *b = &p->positions[(size_t)p->indices[t * 3 + 1] * 3];
            const float *c = &p->positions[(size_t)p->indices[t * 3 + 2] * 3];
            float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
            float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                          e1[0] * e2[1] - e1[1] * e2[0]};
            const float *vn = &p->normals[(size_t)p->indices[t * 3] * 3];
            assert_true(n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] > 0.0f);
        }
        rill_gltf_model_free(m);
    }
    /* Points past the expansion limit (24 vertices each, at most 2^24) are refused, naming the
     * primitive, before anything is allocated for them. */
    tri_gltf(text, sizeof(text), k_tri,
             "{\"componentType\":5126,\"count\":700000,\"type\":\"VEC3\"}", "0", "");
    replace(text, sizeof(text), "\"indices\":1}", "\"mode\":0}");
    rill_limits saved, wide;
    rill_limits_get(&saved);
    wide = saved;
    wide.model_expansion = 1u << 20; /* the accessor of zeros alone would trip this limit first */
    rill_limits_set(&wide);
    rill_result big = read_text(text, "pts.gltf", &m, &err);
    rill_limits_set(&saved);
    assert_int_equal(big, RILL_ERR_LIMIT);
    if (!strstr(err.msg, "pts.gltf: meshes[0].primitives[0]: 700000 points expand to 16800000 "
                         "vertices (limit 2^24)")) {
        fail_msg("%s", err.msg);
    }
    /* Strip and fan of three indices: one triangle each, winding kept. */
    for (int mode = 5; mode <= 6; mode++) {
        char repl[64];
        snprintf(repl, sizeof(repl), "\"indices\":1,\"mode\":%d}", mode);
        tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
        replace(text, sizeof(text), "\"indices\":1}", repl);
        assert_int_equal(read_text(text, "strip.gltf", &m, &err), RILL_OK);
        assert_int_equal(rill_gltf_model_triangle_count(m), 1);
        assert_true(m->meshes[0].primitives[0].normals[2] > 0.99f);
        rill_gltf_model_free(m);
    }
    /* byteStride: equal to the element is fine, smaller is refused, 2 is below the minimum. */
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
    replace(text, sizeof(text), "\"byteLength\":36}", "\"byteLength\":36,\"byteStride\":12}");
    assert_int_equal(read_text(text, "stride.gltf", &m, &err), RILL_OK);
    rill_gltf_model_free(m);
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
    replace(text, sizeof(text), "\"byteLength\":36}", "\"byteLength\":36,\"byteStride\":4}");
    expect_fail(text, RILL_ERR_CORRUPT, "accessors[0]: byteStride 4 smaller than the element (12)");
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
    replace(text, sizeof(text), "\"byteLength\":36}", "\"byteLength\":36,\"byteStride\":2}");
    expect_fail(text, RILL_ERR_CORRUPT, "bufferViews[0].byteStride: 2 below 4");
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
    replace(text, sizeof(text), "\"indices\":1}", "\"indices\":1,\"mode\":7}");
    expect_fail(text, RILL_ERR_PARSE, "meshes[0].primitives[0].mode");
    /* Two indices in a list: not a multiple of three. */
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
    replace(text, sizeof(text), "\"count\":3,\"type\":\"SCALAR\"",
            "\"count\":2,\"type\":\"SCALAR\"");
    expect_fail(text, RILL_ERR_CORRUPT, "indices: 2 indices is not a multiple of 3");
    RILL_TEST_LEAK_END();
}

/* No NORMAL: glTF asks for flat shading, so two triangles folded along a shared edge get
 * separate vertices with their own face normals. */
static void test_flat_normals(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    float pos[12] = {0, 0, 0, 1, 0, 0, 0.5f, 1, 0, 0.5f, -1, 1};
    uint16_t idx[6] = {0, 1, 2, 1, 0, 3};
    uint8_t bin[60];
    memcpy(bin, pos, 48);
    memcpy(bin + 48, idx, 12);
    char enc[96], text[2048];
    rill_test_base64(bin, sizeof(bin), enc);
    snprintf(text, sizeof(text),
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":60,\"uri\":"
             "\"data:application/octet-stream;base64,%s\"}],\"bufferViews\":[{\"buffer\":0,"
             "\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":12}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":"
             "\"VEC3\"},{\"bufferView\":1,\"componentType\":5123,\"count\":6,\"type\":"
             "\"SCALAR\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},"
             "\"indices\":1}]}]}",
             enc);
    rill_gltf_model *m;
    rill_error err = {0};
    assert_int_equal(read_text(text, "fold.gltf", &m, &err), RILL_OK);
    const rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->vertex_count, 6);
    assert_int_equal(p->index_count, 6);
    for (int v = 0; v < 3; v++) {
        assert_true(fabsf(p->normals[v * 3 + 2] - 1.0f) < 1e-6f); /* first face: +Z */
    }
    for (int v = 3; v < 6; v++) {
        /* second face: (0, -1, 1) x ... = normalized (0, 0.707, 0.707) */
        assert_true(fabsf(p->normals[v * 3 + 1] - 0.70710677f) < 1e-5f);
        assert_true(fabsf(p->normals[v * 3 + 2] - 0.70710677f) < 1e-5f);
    }
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

/* A glb of a cube with edges and a light, the sample for the truncation and flip tests. */
static void sample_glb(uint8_t **data, size_t *size) {
    rill_gltf_model *m = tm_cube();
    rill_error err = {0};
    assert_int_equal(rill_gltf_model_build_edges(m, NULL, &err), RILL_OK);
    assert_int_equal(rill_glb_write_memory(m, NULL, data, size, &err), RILL_OK);
    rill_gltf_model_free(m);
}

/* After a successful read of damaged bytes, the model must still keep the reader's promises. */
static void check_consistent(const rill_gltf_model *m) {
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            const rill_gltf_primitive *pr = &m->meshes[i].primitives[p];
            assert_int_equal(pr->index_count % 3, 0);
            for (uint32_t k = 0; k < pr->index_count; k++) {
                assert_true(pr->indices[k] < pr->vertex_count);
            }
            for (uint32_t k = 0; k < pr->edge_index_count; k++) {
                assert_true(pr->edge_indices[k] < pr->vertex_count);
            }
            assert_true(pr->material < (int32_t)m->material_count);
        }
    }
    for (uint32_t i = 0; i < m->node_count; i++) {
        assert_true(m->nodes[i].mesh < (int32_t)m->mesh_count);
    }
}

/* The cube without tangents and with a normal-mapped material: the reader must generate them,
 * so truncations and flips also run through tangent generation. */
static void sample_glb_normal_mapped(uint8_t **data, size_t *size) {
    rill_gltf_model *m = tm_cube();
    rill_error err = {0};
    for (uint32_t p = 0; p < m->meshes[0].primitive_count; p++) {
        rill_free(m->meshes[0].primitives[p].tangents);
        m->meshes[0].primitives[p].tangents = NULL;
    }
    m->image_count = m->texture_count = 1;
    m->images = tm_alloc(1, sizeof(rill_gltf_image));
    m->images[0].uri = tm_strdup("cube_n.png");
    m->textures = tm_alloc(1, sizeof(rill_gltf_texture));
    m->textures[0].sampler = -1;
    m->materials[0].normal_texture.texture = 0;
    assert_int_equal(rill_glb_write_memory(m, NULL, data, size, &err), RILL_OK);
    rill_gltf_model_free(m);
}

/* The cube with vertex colours, a second UV set and a material using every lighting extension
 * the reader reads: truncations and flips also run through those fields. */
static void sample_glb_extras(uint8_t **data, size_t *size) {
    rill_gltf_model *m = tm_cube();
    rill_error err = {0};
    rill_gltf_primitive *p = &m->meshes[0].primitives[0];
    tm_add_colors_uv1(p);
    rill_gltf_material *mt = &m->materials[0];
    mt->unlit = true;
    mt->ior = 1.33f;
    mt->has_specular = true;
    mt->specular_factor = 0.5f;
    mt->specular_color_factor[0] = mt->specular_color_factor[1] = 1.0f;
    mt->clearcoat_factor = 1.0f;
    mt->clearcoat_roughness_factor = 0.1f;
    mt->occlusion_texture.texcoord = 1;
    assert_int_equal(rill_glb_write_memory(m, NULL, data, size, &err), RILL_OK);
    rill_gltf_model_free(m);
}

static void truncate_all(const uint8_t *glb, size_t size);

static void test_truncation(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    uint8_t *glb;
    size_t size;
    sample_glb_normal_mapped(&glb, &size);
    rill_gltf_model *nm = NULL;
    rill_error nerr = {0};
    assert_int_equal(rill_gltf_read_memory(glb, size, NULL, &nm, &nerr), RILL_OK);
    assert_non_null(nm->meshes[0].primitives[0].tangents);
    rill_gltf_model_free(nm);
    truncate_all(glb, size);
    rill_free(glb);
    sample_glb(&glb, &size);
    truncate_all(glb, size);
    rill_free(glb);
    sample_glb_extras(&glb, &size);
    rill_gltf_model *xm = NULL;
    assert_int_equal(rill_gltf_read_memory(glb, size, NULL, &xm, &nerr), RILL_OK);
    assert_non_null(xm->meshes[0].primitives[0].colors);
    assert_non_null(xm->meshes[0].primitives[0].uv1);
    assert_true(xm->materials[0].unlit && xm->materials[0].clearcoat_factor == 1.0f);
    rill_gltf_model_free(xm);
    truncate_all(glb, size);
    rill_free(glb);

    /* Every prefix of a .gltf text is invalid JSON or misses data. */
    char text[4096];
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
    size_t tl = strlen(text);
    for (size_t len = 0; len < tl; len++) {
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        assert_int_not_equal(rill_gltf_read_memory(text, len, NULL, &m, &err), RILL_OK);
        assert_null(m);
    }
    RILL_TEST_LEAK_END();
}

/* A GLB whose header declares a length below its own 20-byte header (fuzz_gltf found it: the
 * chunk bound check wrapped and the JSON chunk was read past the buffer). */
static void test_glb_short_length(void **state) {
    (void)state;
    static const uint8_t k_bytes[22] = {'g', 'l',  'T', 'F', 2,    0,   0,   0,   0,   0,   0,
                                        0,   0xB8, 0,   0,   0x17, 'J', 'S', 'O', 'N', ';', 0x1C};
    rill_gltf_model *m = NULL;
    rill_error err = {0};
    assert_int_equal(rill_gltf_read_memory(k_bytes, sizeof(k_bytes), NULL, &m, &err),
                     RILL_ERR_TRUNCATED);
    assert_null(m);
    assert_non_null(strstr(err.msg, "offset 8: GLB length 0"));
}

/* Every truncation length of a .glb fails cleanly. */
static void truncate_all(const uint8_t *glb, size_t size) {
    uint8_t *copy = rill_malloc(size);
    for (size_t len = 0; len < size; len++) {
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        /* As stored: the header's length no longer matches. */
        memcpy(copy, glb, len);
        assert_int_not_equal(rill_gltf_read_memory(copy, len, NULL, &m, &err), RILL_OK);
        assert_null(m);
        /* With the header length patched, so the chunk walk itself meets the cut. */
        if (len >= 12) {
            uint32_t l32 = (uint32_t)len;
            memcpy(copy + 8, &l32, 4);
            assert_int_not_equal(rill_gltf_read_memory(copy, len, NULL, &m, &err), RILL_OK);
            assert_null(m);
        }
    }
    rill_free(copy);
}

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void flip_run(const uint8_t *src, size_t size, uint32_t iterations, uint64_t seed,
                     uint32_t *ok_count) {
    uint8_t *copy = rill_malloc(size);
    uint64_t s = seed;
    for (uint32_t it = 0; it < iterations; it++) {
        memcpy(copy, src, size);
        uint32_t flips = 1 + (uint32_t)(rng_next(&s) % 4);
        for (uint32_t f = 0; f < flips; f++) {
            size_t at = (size_t)(rng_next(&s) % size);
            copy[at] ^= (uint8_t)(1u << (rng_next(&s) % 8));
        }
        rill_gltf_model *m = NULL;
        rill_error err = {0};
        rill_gltf_read_desc d = {.max_bytes = 1u << 24};
        if (rill_gltf_read_memory(copy, size, &d, &m, &err) == RILL_OK) {
            check_consistent(m);
            uint8_t *out;
            size_t out_size;
            if (rill_glb_write_memory(m, NULL, &out, &out_size, &err) == RILL_OK) {
                rill_free(out);
            }
            rill_gltf_model_free(m);
            (*ok_count)++;
        } else {
            assert_null(m);
            assert_true(err.msg[0] != '\0');
        }
    }
    rill_free(copy);
}

static void test_byte_flips(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_log_set_level(RILL_LOG_ERROR); /* damaged modes log warnings; keep the output short */
    uint8_t *glb;
    size_t size;
    sample_glb(&glb, &size);
    uint32_t ok = 0;
    flip_run(glb, size, 20000, 0x9E3779B97F4A7C15ull, &ok);
    rill_free(glb);
    sample_glb_normal_mapped(&glb, &size);
    flip_run(glb, size, 5000, 0x2545F4914F6CDD1Dull, &ok);
    rill_free(glb);
    sample_glb_extras(&glb, &size);
    flip_run(glb, size, 5000, 0x9FB21C651E98DF25ull, &ok);
    rill_free(glb);
    char text[4096];
    tri_gltf(text, sizeof(text), k_tri, k_pos_acc, "0", "");
    flip_run((const uint8_t *)text, strlen(text), 10000, 0xD1B54A32D192ED03ull, &ok);
    rill_log_set_level(RILL_LOG_INFO);
    /* Flips inside float data leave a valid file; the test must have exercised both outcomes. */
    assert_true(ok > 0);
    RILL_TEST_LEAK_END();
}

/* >>round trip -------------------------------------------------------------------------------- */

static void round_trip(rill_gltf_model *a, const char *what) {
    rill_error err = {0};
    uint8_t *bytes1, *bytes2;
    size_t size1, size2;
    assert_int_equal(rill_glb_write_memory(a, NULL, &bytes1, &size1, &err), RILL_OK);
    assert_int_equal(size1 % 4, 0);
    rill_gltf_model *b;
    if (rill_gltf_read_memory(bytes1, size1, NULL, &b, &err) != RILL_OK) {
        fail_msg("%s: re-read failed: %s", what, err.msg);
    }
    const char *why = "";
    if (!tm_models_equal(a, b, &why)) {
        fail_msg("%s: round trip differs in %s", what, why);
    }
    /* Writing the re-read model gives the same bytes: the writer is deterministic and the
     * reader loses nothing it wrote. */
    assert_int_equal(rill_glb_write_memory(b, NULL, &bytes2, &size2, &err), RILL_OK);
    assert_int_equal(size1, size2);
    assert_memory_equal(bytes1, bytes2, size1);
    rill_free(bytes1);
    rill_free(bytes2);
    rill_gltf_model_free(b);
}

static void test_round_trip(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_gltf_model *cube = tm_cube();
    rill_error err = {0};
    assert_int_equal(rill_gltf_model_build_edges(cube, NULL, &err), RILL_OK);
    round_trip(cube, "cube");
    rill_gltf_model_free(cube);
    if (have_assimp()) {
        static const char *files[] = {
            "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
            "glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
            "glTF2/BoxTextured-glTF/BoxTextured.gltf",
            "glTF2/cameras/Cameras.gltf",
            "glTF2/ClearCoat-glTF/ClearCoatTest.gltf",
            "glTF2/textureTransform/TextureTransformTest.gltf",
        };
        for (size_t i = 0; i < RILL_COUNTOF(files); i++) {
            char path[512];
            snprintf(path, sizeof(path), ASSIMP_DIR "%s", files[i]);
            rill_gltf_model *m;
            assert_int_equal(rill_gltf_read_file(path, NULL, &m, &err), RILL_OK);
            round_trip(m, files[i]);
            rill_gltf_model_free(m);
        }
    } else {
        print_message("assimp-testmodels not installed: round trip of the cube only\n");
    }
    RILL_TEST_LEAK_END();
}

/* KHR_texture_transform is read on texture references (defaults filled in) and written back. */
static void test_texture_transform(void **state) {
    (void)state;
    if (!have_assimp()) {
        print_message("assimp-testmodels not installed: skipped\n");
        return;
    }
    rill_gltf_model *m;
    rill_error err = {0};
    assert_int_equal(rill_gltf_read_file(ASSIMP_DIR
                                         "glTF2/textureTransform/TextureTransformTest.gltf",
                                         NULL, &m, &err),
                     RILL_OK);
    assert_true(m->material_count >= 7);
    const rill_gltf_texref *u = &m->materials[0].base_color_texture; /* "Offset U" */
    assert_true(u->has_transform);
    assert_float_equal(u->offset[0], 0.5f, 1e-6);
    assert_float_equal(u->uv_scale[0], 1.0f, 0.0);
    assert_int_equal(u->transform_texcoord, -1);
    const rill_gltf_texref *all = &m->materials[5].base_color_texture; /* "All" */
    assert_float_equal(all->offset[0], -0.2f, 1e-6);
    assert_float_equal(all->offset[1], -0.1f, 1e-6);
    assert_float_equal(all->rotation, 0.3f, 1e-6);
    assert_float_equal(all->uv_scale[1], 1.5f, 1e-6);
    assert_false(m->materials[6].base_color_texture.has_transform); /* "Correct" */
    uint8_t *bytes;
    size_t size;
    assert_int_equal(rill_glb_write_memory(m, NULL, &bytes, &size, &err), RILL_OK);
    rill_gltf_model *b;
    assert_int_equal(rill_gltf_read_memory(bytes, size, NULL, &b, &err), RILL_OK);
    assert_float_equal(b->materials[5].base_color_texture.rotation, 0.3f, 1e-6);
    assert_non_null(
        strstr((const char *)bytes + 20, "\"extensionsUsed\":[\"KHR_texture_transform\""));
    rill_free(bytes);
    rill_gltf_model_free(b);
    rill_gltf_model_free(m);
}

/* Lights and node TRS written and read back through KHR_lights_punctual. */
static void test_lights_round_trip(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_gltf_model *m = tm_cube();
    m->light_count = 2;
    m->lights = tm_alloc(2, sizeof(rill_gltf_light));
    m->lights[0] = (rill_gltf_light){
        tm_strdup("sun"), RILL_GLTF_LIGHT_DIRECTIONAL, {1, 0.9f, 0.8f}, 3.0f, 0.0f, 0.0f,
        0.78539816f};
    m->lights[1] =
        (rill_gltf_light){NULL, RILL_GLTF_LIGHT_SPOT, {1, 1, 1}, 50.0f, 12.0f, 0.2f, 0.6f};
    m->nodes[0].light = 1;
    round_trip(m, "lights");
    uint8_t *bytes;
    size_t size;
    rill_error err = {0};
    assert_int_equal(rill_glb_write_memory(m, NULL, &bytes, &size, &err), RILL_OK);
    rill_gltf_model *b;
    assert_int_equal(rill_gltf_read_memory(bytes, size, NULL, &b, &err), RILL_OK);
    assert_int_equal(b->light_count, 2);
    assert_string_equal(b->lights[0].name, "sun");
    assert_int_equal(b->lights[1].type, RILL_GLTF_LIGHT_SPOT);
    assert_true(b->lights[1].range == 12.0f && b->lights[1].outer_cone_angle == 0.6f);
    assert_int_equal(b->nodes[0].light, 1);
    rill_gltf_model_free(b);
    rill_free(bytes);
    rill_gltf_model_free(m);
    RILL_TEST_LEAK_END();
}

static void test_writer_rejects_bad_model(void **state) {
    (void)state;
    rill_gltf_model *m = tm_cube();
    m->meshes[0].primitives[0].indices[5] = 999;
    uint8_t *bytes = (uint8_t *)&bytes;
    size_t size;
    rill_error err = {0};
    assert_int_equal(rill_glb_write_memory(m, NULL, &bytes, &size, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_null(bytes);
    m->meshes[0].primitives[0].indices[5] = 0;
    m->nodes[0].mesh = 3;
    assert_int_equal(rill_glb_write_memory(m, NULL, &bytes, &size, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    rill_gltf_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assimp_good),
        cmocka_unit_test(test_assimp_details),
        cmocka_unit_test(test_assimp_broken),
        cmocka_unit_test(test_hostile_json),
        cmocka_unit_test(test_non_finite_numbers),
        cmocka_unit_test(test_model_limit),
        cmocka_unit_test(test_expansion_bombs),
        cmocka_unit_test(test_skin_and_targets_counted_up_front),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_glb_short_length),
        cmocka_unit_test(test_byte_flips),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_lights_round_trip),
        cmocka_unit_test(test_writer_rejects_bad_model),
        cmocka_unit_test(test_texture_transform),
        cmocka_unit_test(test_primitive_modes),
        cmocka_unit_test(test_flat_normals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
