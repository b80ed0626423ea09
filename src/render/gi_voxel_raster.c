/* gi_voxel_raster.c: CPU voxelization of one mesh instance into one brick of the voxel clipmap
 * (gi_voxel.h): each triangle, in world space, marks the voxels of the brick its box overlaps
 * that it touches (a separating-axis test of triangle against voxel box), writing the instance's
 * albedo (occupied) and emissive colour. Pure CPU code over the caller's memory: the jobs of
 * gi_voxel.c run it on disjoint bricks at once. */
#include "gi_voxel.h"

#include <math.h>

static void sub3(const float a[3], const float b[3], float o[3]) {
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}

static void cross3(const float a[3], const float b[3], float o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Whether the projections of the triangle (v, relative to the box centre) and of the box (half
 * extents h) on axis are apart. A zero axis separates nothing. */
static bool apart_on(const float v[3][3], const float h[3], const float axis[3]) {
    float p0 = dot3(v[0], axis), p1 = dot3(v[1], axis), p2 = dot3(v[2], axis);
    float lo = fminf(p0, fminf(p1, p2)), hi = fmaxf(p0, fmaxf(p1, p2));
    float r = h[0] * fabsf(axis[0]) + h[1] * fabsf(axis[1]) + h[2] * fabsf(axis[2]);
    return lo > r || hi < -r;
}

bool rill__vox_tri_box(const float a[3], const float b[3], const float c[3], const float bmin[3],
                       const float bmax[3]) {
    float ctr[3], h[3], v[3][3], e[3][3];
    for (int k = 0; k < 3; k++) {
        ctr[k] = 0.5f * (bmin[k] + bmax[k]);
        h[k] = 0.5f * (bmax[k] - bmin[k]);
    }
    sub3(a, ctr, v[0]);
    sub3(b, ctr, v[1]);
    sub3(c, ctr, v[2]);
    for (int k = 0; k < 3; k++) { /* the box's own axes */
        float lo = fminf(v[0][k], fminf(v[1][k], v[2][k]));
        float hi = fmaxf(v[0][k], fmaxf(v[1][k], v[2][k]));
        if (lo > h[k] || hi < -h[k]) {
            return false;
        }
    }
    sub3(v[1], v[0], e[0]);
    sub3(v[2], v[1], e[1]);
    sub3(v[0], v[2], e[2]);
    float n[3];
    cross3(e[0], e[1], n); /* the triangle's plane */
    if (apart_on(v, h, n)) {
        return false;
    }
    static const float axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; i++) { /* edge x box axis */
        for (int j = 0; j < 3; j++) {
            float ax[3];
            cross3(e[i], axes[j], ax);
            if (apart_on(v, h, ax)) {
                return false;
            }
        }
    }
    return true;
}

static void to_world(const float m[16], const float p[3], float o[3]) {
    for (int k = 0; k < 3; k++) {
        o[k] = m[k] * p[0] + m[4 + k] * p[1] + m[8 + k] * p[2] + m[12 + k];
    }
}

static uint32_t pack_unorm(const float c[3], float scale, bool root, uint32_t alpha) {
    uint32_t w = alpha << 24;
    for (int k = 0; k < 3; k++) {
        float x = c[k] / scale;
        x = x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; /* NaN lands on 0 */
        if (root) {
            x = sqrtf(x);
        }
        w |= (uint32_t)(x * 255.0f + 0.5f) << (8 * k);
    }
    return w;
}

/* Marks the voxels of the brick (world voxels [lo, lo + 16)) triangle a, b, c touches. */
static uint32_t raster_tri(const float a[3], const float b[3], const float c[3],
                           const int32_t lo[3], float size, uint32_t *words, uint32_t albedo,
                           uint32_t emissive) {
    int32_t v0[3], v1[3];
    for (int k = 0; k < 3; k++) {
        float mn = fminf(a[k], fminf(b[k], c[k])), mx = fmaxf(a[k], fmaxf(b[k], c[k]));
        if (!isfinite(a[k]) || !isfinite(b[k]) || !isfinite(c[k])) {
            return 0; /* not finite (fminf would skip a NaN) */
        }
        /* the voxels of the boxes below, moved up a hair as there */
        float f0 = floorf((mn - size * 1e-3f) / size), f1 = floorf((mx - size * 1e-3f) / size);
        float l = (float)lo[k], hi = (float)(lo[k] + RILL__VOX_BRICK - 1);
        if (f1 < l || f0 > hi) {
            return 0;
        }
        v0[k] = (int32_t)(f0 > l ? f0 : l) - lo[k];
        v1[k] = (int32_t)(f1 < hi ? f1 : hi) - lo[k];
    }
    uint32_t added = 0;
    for (int32_t z = v0[2]; z <= v1[2]; z++) {
        for (int32_t y = v0[1]; y <= v1[1]; y++) {
            for (int32_t x = v0[0]; x <= v1[0]; x++) {
                uint32_t i = (uint32_t)(x + RILL__VOX_BRICK * (y + RILL__VOX_BRICK * z));
                if (words[2 * i] >> 24) {
                    continue; /* occupied already: the first surface keeps it */
                }
                /* moved up a hair: a face lying on a voxel boundary marks the voxel below it
                 * only (voxels are half-open, [lo, lo + size)) */
                float e = size * 1e-3f;
                float bmin[3] = {(float)(lo[0] + x) * size + e, (float)(lo[1] + y) * size + e,
                                 (float)(lo[2] + z) * size + e};
                float bmax[3] = {bmin[0] + size, bmin[1] + size, bmin[2] + size};
                if (rill__vox_tri_box(a, b, c, bmin, bmax)) {
                    words[2 * i] = albedo;
                    words[2 * i + 1] = emissive;
                    added++;
                }
            }
        }
    }
    return added;
}

uint32_t rill__vox_raster(const rill__vox_inst *inst, const int32_t lo[3], float size,
                          uint32_t *words, uint32_t first, uint32_t *count) {
    uint32_t albedo = pack_unorm(inst->albedo, 1.0f, false, 255u);
    uint32_t emissive = pack_unorm(inst->emissive, RILL__VOX_EMISSIVE_RANGE, true, 0u);
    uint32_t end = first + *count < inst->tri_count ? first + *count : inst->tri_count;
    uint32_t added = 0;
    for (uint32_t t = first; t < end; t++) {
        float w[3][3];
        for (int k = 0; k < 3; k++) {
            const float *p = &inst->positions[3 * (size_t)inst->indices[3 * (size_t)t + k]];
            to_world(inst->transform, p, w[k]);
        }
        added += raster_tri(w[0], w[1], w[2], lo, size, words, albedo, emissive);
    }
    *count = end > first ? end - first : 0;
    return added;
}
