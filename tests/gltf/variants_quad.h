/* variants_quad.h: a glTF with KHR_materials_variants written by the tests (header-only): two
 * squares facing +Z, "left" spanning x in [-1.5, -0.1] and "right" x in [0.1, 1.5], y in
 * [-0.7, 0.7], as two primitives of one mesh. Four unlit materials: 0 red, 1 blue, 2 green,
 * 3 white. Variants "blue", "green" and "plain"; the left square draws red by default, blue in
 * "blue", green in "green" and red in "plain" (not mapped); the right one is white in every
 * variant (it maps none). The options replace parts of the JSON to make hostile files. */
#ifndef RILL_TEST_VARIANTS_QUAD_H
#define RILL_TEST_VARIANTS_QUAD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "skin_bar.h"

typedef struct variants_quad_opts {
    const char *variants; /* the root extension's body (NULL: the three variants) */
    const char *mappings; /* the left primitive's extension body (NULL: blue and green mapped) */
    bool no_variants;     /* the file has no root extension (so no variants) */
} variants_quad_opts;

#define VARIANTS_QUAD_DEFAULT_VARIANTS                                                             \
    "{\"variants\":[{\"name\":\"blue\"},{\"name\":\"green\"},{\"name\":\"plain\"}]}"
#define VARIANTS_QUAD_DEFAULT_MAPPINGS                                                             \
    "{\"mappings\":[{\"material\":1,\"variants\":[0]},{\"material\":2,\"variants\":[1]}]}"

/* Writes the .gltf text into text (cap bytes, 16 KiB is plenty); returns its length. */
static inline size_t variants_quad_text(const variants_quad_opts *o, char *text, size_t cap) {
    _Alignas(16) uint8_t b[216];
    memset(b, 0, sizeof(b));
    float *pos = (float *)b, *nrm = (float *)(b + 96);
    uint16_t *idx = (uint16_t *)(b + 192);
    static const float xs[2][2] = {{-1.5f, -0.1f}, {0.1f, 1.5f}};
    for (int q = 0; q < 2; q++) {
        for (int v = 0; v < 4; v++) {
            float *p = &pos[(q * 4 + v) * 3];
            p[0] = xs[q][v & 1];
            p[1] = (v & 2) ? 0.7f : -0.7f;
            nrm[(q * 4 + v) * 3 + 2] = 1.0f;
        }
    }
    static const uint16_t quad[6] = {0, 1, 3, 0, 3, 2};
    memcpy(idx, quad, sizeof(quad));
    char b64[300];
    rill_test_base64(b, sizeof(b), b64);
    const char *variants = o && o->variants ? o->variants : VARIANTS_QUAD_DEFAULT_VARIANTS;
    const char *root_open =
        o && o->no_variants ? "" : "\"extensions\":{\"KHR_materials_variants\":";
    const char *unlit = "\"extensions\":{\"KHR_materials_unlit\":{}}";
    int n = snprintf(
        text, cap,
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"extensionsUsed\":[\"KHR_materials_variants\",\"KHR_materials_unlit\"],"
        "%s%s%s"
        "\"buffers\":[{\"byteLength\":216,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":96},"
        "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":96},"
        "{\"buffer\":0,\"byteOffset\":192,\"byteLength\":12}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
        "\"min\":[-1.5,-0.7,0],\"max\":[-0.1,0.7,0]},"
        "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
        "\"min\":[0.1,-0.7,0],\"max\":[1.5,0.7,0]},"
        "{\"bufferView\":1,\"byteOffset\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
        "{\"bufferView\":1,\"byteOffset\":48,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}],"
        "\"materials\":["
        "{\"name\":\"red\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,0,0,1]},%s},"
        "{\"name\":\"blue\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0,0,1,1]},%s},"
        "{\"name\":\"green\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0,1,0,1]},%s},"
        "{\"name\":\"white\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,1,1,1]},%s}],"
        "\"meshes\":[{\"name\":\"squares\",\"primitives\":["
        "{\"attributes\":{\"POSITION\":0,\"NORMAL\":2},\"indices\":4,\"material\":0,"
        "\"extensions\":{\"KHR_materials_variants\":%s}},"
        "{\"attributes\":{\"POSITION\":1,\"NORMAL\":3},\"indices\":4,\"material\":3}]}],"
        "\"nodes\":[{\"name\":\"squares\",\"mesh\":0}],"
        "\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
        root_open, root_open[0] ? variants : "", root_open[0] ? "}," : "", b64, unlit, unlit, unlit,
        unlit, o && o->mappings ? o->mappings : VARIANTS_QUAD_DEFAULT_MAPPINGS);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

#endif
