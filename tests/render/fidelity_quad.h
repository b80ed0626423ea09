/* fidelity_quad.h: the glTF files of the fidelity test (header-only): a 2 x 2 square facing +Z
 * (corners (-1, -1), (1, -1), (1, 1), (-1, 1)) with normals, UV set 0 (u left to right, v top to
 * bottom, as glTF's image origin is top left) and UV set 1 mirrored left to right, optionally
 * vertex colours (red, green, blue, white at those corners) in one of three accessor encodings,
 * and one material given as JSON text whose textures may name one 2 x 1 image (left texel, right
 * texel) through texture 0 (nearest filtering, repeat). Written as .gltf text with the buffer and
 * the PNG image as data: URIs, as an exporter would. */
#ifndef RILL_TEST_FIDELITY_QUAD_H
#define RILL_TEST_FIDELITY_QUAD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../base64_encode.h"
#include "rill/formats/image.h"

typedef enum fq_colors {
    FQ_NO_COLORS = 0,
    FQ_FLOAT_VEC4, /* float RGBA */
    FQ_UBYTE_VEC3, /* normalized unsigned byte RGB (stride 4) */
    FQ_USHORT_VEC4 /* normalized unsigned short RGBA */
} fq_colors;

typedef struct fq_opts {
    fq_colors colors;
    const char *material; /* the material object's JSON text */
    uint8_t texels[2][4]; /* the 2 x 1 image (RGBA) textures name */
} fq_opts;

/* Buffer layout (bytes): positions 0, normals 48, UV0 96, UV1 128, indices 160 (12), colours as
 * float 176 (64), as bytes 240 (16, stride 4), as shorts 256 (32); 288 in all. */
#define FQ_BYTES 288

static inline void fq_buffer(uint8_t *b) {
    memset(b, 0, FQ_BYTES);
    const float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    const float rgba[4][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 1, 1}};
    for (int v = 0; v < 4; v++) {
        float p[3] = {corner[v][0], corner[v][1], 0.0f}, n[3] = {0, 0, 1};
        float u = corner[v][0] > 0 ? 1.0f : 0.0f, t = corner[v][1] > 0 ? 0.0f : 1.0f;
        float uv0[2] = {u, t}, uv1[2] = {1.0f - u, t};
        memcpy(b + v * 12, p, 12);
        memcpy(b + 48 + v * 12, n, 12);
        memcpy(b + 96 + v * 8, uv0, 8);
        memcpy(b + 128 + v * 8, uv1, 8);
        memcpy(b + 176 + v * 16, rgba[v], 16);
        for (int k = 0; k < 4; k++) {
            if (k < 3) {
                b[240 + v * 4 + k] = (uint8_t)(rgba[v][k] * 255.0f);
            }
            uint16_t s = (uint16_t)(rgba[v][k] * 65535.0f);
            memcpy(b + 256 + v * 8 + k * 2, &s, 2);
        }
    }
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(b + 160, idx, sizeof(idx));
}

/* Writes the file into text (cap bytes; 8 KiB is plenty); returns its length, 0 on failure. */
static inline size_t fq_text(const fq_opts *o, char *text, size_t cap) {
    uint8_t b[FQ_BYTES];
    fq_buffer(b);
    char b64[FQ_BYTES * 2], img64[1024];
    rill_test_base64(b, sizeof(b), b64);
    uint8_t *png = NULL;
    size_t png_n = 0;
    rill_error err = {0};
    if (rill_image_encode_png(&o->texels[0][0], 2, 1, 4, &png, &png_n, &err) != RILL_OK ||
        png_n * 4 / 3 + 8 > sizeof(img64)) {
        rill_free(png);
        return 0;
    }
    rill_test_base64(png, png_n, img64);
    rill_free(png);
    static const char *const color_attr[] = {"", ",\"COLOR_0\":5", ",\"COLOR_0\":6",
                                             ",\"COLOR_0\":7"};
    int n = snprintf(
        text, cap,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"extensionsUsed\":[\"KHR_texture_transform\",\"KHR_materials_unlit\","
        "\"KHR_materials_ior\",\"KHR_materials_specular\",\"KHR_materials_clearcoat\"],"
        "\"nodes\":[{\"name\":\"quad\",\"mesh\":0}],"
        "\"materials\":[%s],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,"
        "\"TEXCOORD_0\":2,\"TEXCOORD_1\":3%s},\"indices\":4,\"material\":0}]}],"
        "\"samplers\":[{\"magFilter\":9728,\"minFilter\":9728}],"
        "\"images\":[{\"uri\":\"data:image/png;base64,%s\"}],"
        "\"textures\":[{\"sampler\":0,\"source\":0}],"
        "\"buffers\":[{\"byteLength\":%d,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":240},"
        "{\"buffer\":0,\"byteOffset\":240,\"byteLength\":16,\"byteStride\":4},"
        "{\"buffer\":0,\"byteOffset\":256,\"byteLength\":32}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
        "\"min\":[-1,-1,0],\"max\":[1,1,0]},"
        "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":4,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":96,\"componentType\":5126,\"count\":4,"
        "\"type\":\"VEC2\"},"
        "{\"bufferView\":0,\"byteOffset\":128,\"componentType\":5126,\"count\":4,"
        "\"type\":\"VEC2\"},"
        "{\"bufferView\":0,\"byteOffset\":160,\"componentType\":5123,\"count\":6,"
        "\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":176,\"componentType\":5126,\"count\":4,"
        "\"type\":\"VEC4\"},"
        "{\"bufferView\":1,\"componentType\":5121,\"normalized\":true,\"count\":4,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5123,\"normalized\":true,\"count\":4,"
        "\"type\":\"VEC4\"}]}",
        o->material, color_attr[o->colors], img64, FQ_BYTES, b64);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

#endif
