/* skin_bar.h: a skinned glTF written by the tests (header-only): a flat strip 0.3 wide along +Y
 * from y = 0 to 2 facing +Z, 5 rows of 2 vertices, bound to two joints: "j0" at the origin and
 * its child "j1" at y = 1. Rows at y <= 0.5 follow j0, the row at y = 1 half each, rows above
 * follow j1. Clip "bend" turns j1 from 0 to 90 degrees about +Z over 1 s, so the strip's upper
 * half ends pointing along -X. The material is black with white emission, double sided, so the
 * strip shows without lights. The variations make hostile files for the reader's checks. */
#ifndef RILL_TEST_SKIN_BAR_H
#define RILL_TEST_SKIN_BAR_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../base64_encode.h"

typedef struct skin_bar_opts {
    uint8_t bad_joint;    /* nonzero: the top row's joint index (2 joints: >= 2 is out of range) */
    bool nan_weight;      /* a weight is NaN */
    uint32_t ibm_count;   /* the inverse bind accessor's count (0 = 2, one per joint) */
    uint32_t joint_count; /* entries in skins[0].joints (0 = 2; the extra ones repeat node 2) */
} skin_bar_opts;

/* Writes the .gltf text into text (cap bytes, 64 KiB is plenty); returns its length. */
static inline size_t skin_bar_text(const skin_bar_opts *o, char *text, size_t cap) {
    _Alignas(16) uint8_t b[656];
    memset(b, 0, sizeof(b));
    float *pos = (float *)b, *nrm = (float *)(b + 120), *wt = (float *)(b + 280);
    uint8_t *jt = b + 240;
    uint16_t *idx = (uint16_t *)(b + 440);
    float *ibm = (float *)(b + 488), *times = (float *)(b + 616), *quat = (float *)(b + 624);
    for (int r = 0; r < 5; r++) {
        for (int s = 0; s < 2; s++) {
            int v = r * 2 + s;
            pos[v * 3] = s ? 0.15f : -0.15f;
            pos[v * 3 + 1] = 0.5f * (float)r;
            nrm[v * 3 + 2] = 1.0f;
            float w1 = r < 2 ? 0.0f : r == 2 ? 0.5f : 1.0f;
            jt[v * 4] = 0;
            jt[v * 4 + 1] = 1;
            wt[v * 4] = 1.0f - w1;
            wt[v * 4 + 1] = w1;
        }
    }
    if (o->bad_joint) {
        jt[9 * 4 + 1] = o->bad_joint;
    }
    if (o->nan_weight) {
        wt[5 * 4 + 1] = NAN;
    }
    for (int r = 0; r < 4; r++) {
        uint16_t a = (uint16_t)(r * 2), c = (uint16_t)(r * 2 + 2);
        uint16_t q[6] = {a, (uint16_t)(a + 1), (uint16_t)(c + 1), a, (uint16_t)(c + 1), c};
        memcpy(&idx[r * 6], q, sizeof(q));
    }
    for (int j = 0; j < 2; j++) {
        float *m = &ibm[j * 16];
        m[0] = m[5] = m[10] = m[15] = 1.0f;
        m[13] = j ? -1.0f : 0.0f; /* j1 sits at y = 1 */
    }
    times[0] = 0.0f, times[1] = 1.0f;
    float h = sqrtf(0.5f);
    float q[8] = {0, 0, 0, 1, 0, 0, h, h};
    memcpy(quat, q, sizeof(q));
    char b64[1024];
    rill_test_base64(b, sizeof(b), b64);
    char joints[16384];
    size_t jn = (size_t)snprintf(joints, sizeof(joints), "2,3");
    for (uint32_t k = 2; k < o->joint_count && jn + 3 < sizeof(joints); k++) {
        jn += (size_t)snprintf(joints + jn, sizeof(joints) - jn, ",2");
    }
    int n = snprintf(
        text, cap,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"name\":\"root\",\"children\":[1,2]},"
        "{\"name\":\"bar\",\"mesh\":0,\"skin\":0},"
        "{\"name\":\"j0\",\"children\":[3]},"
        "{\"name\":\"j1\",\"translation\":[0,1,0]}],"
        "\"skins\":[{\"joints\":[%s],\"inverseBindMatrices\":6,\"skeleton\":2}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0,0,0,1]},"
        "\"emissiveFactor\":[1,1,1],\"doubleSided\":true}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,"
        "\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":4,\"material\":0}]}],"
        "\"animations\":[{\"name\":\"bend\",\"channels\":[{\"sampler\":0,\"target\":"
        "{\"node\":3,\"path\":\"rotation\"}}],\"samplers\":[{\"input\":7,\"output\":8}]}],"
        "\"buffers\":[{\"byteLength\":656,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":656}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":10,\"type\":\"VEC3\","
        "\"min\":[-0.15,0,0],\"max\":[0.15,2,0]},"
        "{\"bufferView\":0,\"byteOffset\":120,\"componentType\":5126,\"count\":10,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":240,\"componentType\":5121,\"count\":10,"
        "\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":280,\"componentType\":5126,\"count\":10,"
        "\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":440,\"componentType\":5123,\"count\":24,"
        "\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":488,\"componentType\":5126,\"count\":%u,"
        "\"type\":\"MAT4\"},"
        "{\"bufferView\":0,\"byteOffset\":616,\"componentType\":5126,\"count\":2,"
        "\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":624,\"componentType\":5126,\"count\":2,"
        "\"type\":\"VEC4\"}]}",
        joints, b64, o->ibm_count ? o->ibm_count : 2u);
    return n > 0 ? (size_t)n : 0;
}

#endif
