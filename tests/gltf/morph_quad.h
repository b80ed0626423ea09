/* morph_quad.h: a glTF with a morph target, written by the tests (header-only): a square from
 * (-1, -1) to (1, 1) facing +Z (black, white emission, double sided) whose one target moves the
 * corner (1, 1) by (+1, 0, 0). The mesh's default weight is `weight`; clip "reach" drives the
 * weight from 0 at t = 0 to 1 at t = 1. The variations make hostile files. */
#ifndef RILL_TEST_MORPH_QUAD_H
#define RILL_TEST_MORPH_QUAD_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "skin_bar.h"

typedef struct morph_quad_opts {
    float weight;          /* the mesh's default weight */
    bool nan_delta;        /* a displacement is NaN */
    uint32_t targets;      /* targets listed (0 = 1; extra ones repeat the first) */
    uint32_t mesh_weights; /* weights listed on the mesh (0 = one per target) */
    float emission;        /* the emissive factor (0 = 1) */
    float strength;        /* KHR_materials_emissive_strength (0 = not given) */
} morph_quad_opts;

static inline size_t morph_quad_text(const morph_quad_opts *o, char *text, size_t cap) {
    _Alignas(16) uint8_t b[172];
    memset(b, 0, sizeof(b));
    float *pos = (float *)b, *nrm = (float *)(b + 48), *delta = (float *)(b + 108);
    uint16_t *idx = (uint16_t *)(b + 96);
    float *times = (float *)(b + 156), *wout = (float *)(b + 164);
    const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int v = 0; v < 4; v++) {
        pos[v * 3] = corners[v][0];
        pos[v * 3 + 1] = corners[v][1];
        nrm[v * 3 + 2] = 1.0f;
    }
    const uint16_t q[6] = {0, 1, 2, 0, 2, 3};
    memcpy(idx, q, sizeof(q));
    delta[2 * 3] = o->nan_delta ? NAN : 1.0f; /* vertex 2, the corner (1, 1) */
    times[0] = 0.0f, times[1] = 1.0f;
    wout[0] = 0.0f, wout[1] = 1.0f;
    char b64[512];
    rill_test_base64(b, sizeof(b), b64);
    uint32_t tn = o->targets ? o->targets : 1u, wn = o->mesh_weights ? o->mesh_weights : tn;
    static char targets[16384], weights[8192];
    size_t at = 0, aw = 0;
    for (uint32_t k = 0; k < tn && at + 32 < sizeof(targets); k++) {
        at += (size_t)snprintf(targets + at, sizeof(targets) - at, "%s{\"POSITION\":3}",
                               k ? "," : "");
    }
    for (uint32_t k = 0; k < wn && aw + 32 < sizeof(weights); k++) {
        aw += (size_t)snprintf(weights + aw, sizeof(weights) - aw, "%s%g", k ? "," : "",
                               (double)o->weight);
    }
    char mat[256];
    float e = o->emission > 0.0f ? o->emission : 1.0f;
    if (o->strength != 0.0f) {
        snprintf(mat, sizeof(mat),
                 ",\"extensions\":{\"KHR_materials_emissive_strength\":{\"emissiveStrength\""
                 ":%g}}",
                 (double)o->strength);
    } else {
        mat[0] = '\0';
    }
    int n = snprintf(
        text, cap,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"name\":\"quad\",\"mesh\":0}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0,0,0,1]},"
        "\"emissiveFactor\":[%g,%g,%g],\"doubleSided\":true%s}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},"
        "\"indices\":2,\"material\":0,\"targets\":[%s]}],\"weights\":[%s]}],"
        "\"animations\":[{\"name\":\"reach\",\"channels\":[{\"sampler\":0,\"target\":"
        "{\"node\":0,\"path\":\"weights\"}}],\"samplers\":[{\"input\":4,\"output\":5}]}],"
        "\"buffers\":[{\"byteLength\":172,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":172}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
        "\"min\":[-1,-1,0],\"max\":[1,1,0]},"
        "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":4,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":96,\"componentType\":5123,\"count\":6,"
        "\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":108,\"componentType\":5126,\"count\":4,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":156,\"componentType\":5126,\"count\":2,"
        "\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":164,\"componentType\":5126,\"count\":2,"
        "\"type\":\"SCALAR\"}]}",
        (double)e, (double)e, (double)e, mat, targets, weights, b64);
    return n > 0 ? (size_t)n : 0;
}

#endif
