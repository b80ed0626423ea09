/* gi_hwrt_pack.c: the Hwrt GI tier's pure CPU steps, apart so unit tests reach them without a
 * device: packing a snapshot instance into a TLAS instance (Vulkan's row-major 3x4 transform,
 * 24-bit custom index, mask and flags) and deciding whether a mesh gets a BLAS under the
 * triangle, memory and per-frame build limits. */
#include "gi_hwrt.h"

#include <math.h>
#include <string.h>

/* VkGeometryInstanceFlagBitsKHR: TRIANGLE_FACING_CULL_DISABLE (1) | FORCE_OPAQUE (4). */
#define INSTANCE_FLAGS 0x5u

rill__hwrt_verdict rill__hwrt_blas_verdict(uint32_t triangles, uint64_t used_bytes,
                                           uint64_t budget_bytes, uint32_t built_triangles,
                                           uint32_t frame_triangles) {
    if (triangles == 0) {
        return RILL__HWRT_NO_TRIANGLES;
    }
    if (triangles > RILL__HWRT_MAX_BLAS_TRIANGLES) {
        return RILL__HWRT_TOO_BIG;
    }
    uint64_t estimate = (uint64_t)triangles * RILL__HWRT_BLAS_BYTES_PER_TRIANGLE;
    if (used_bytes > budget_bytes || estimate > budget_bytes - used_bytes) {
        return RILL__HWRT_OVER_BUDGET;
    }
    /* the first build of a frame always goes, so a mesh above the frame's share still builds */
    if (built_triangles > 0 && (uint64_t)built_triangles + triangles > frame_triangles) {
        return RILL__HWRT_DEFER;
    }
    return RILL__HWRT_BUILD;
}

bool rill__hwrt_pack_instance(const float world[16], uint32_t index, uint64_t blas_address,
                              rill__accel_instance *out) {
    if (index >= (1u << 24) || blas_address == 0) {
        return false;
    }
    for (int i = 0; i < 16; i++) {
        if (!isfinite(world[i])) {
            return false;
        }
    }
    /* column-major m[col * 4 + row] -> row-major 3x4 t[row * 4 + col] */
    for (int row = 0; row < 3; row++) {
        for (int col = 0; col < 4; col++) {
            out->transform[row * 4 + col] = world[col * 4 + row];
        }
    }
    out->index_mask = index | (0xFFu << 24);
    out->offset_flags = INSTANCE_FLAGS << 24;
    out->blas = blas_address;
    return true;
}
