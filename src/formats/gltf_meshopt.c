/* gltf_meshopt.c: EXT_meshopt_compression bufferViews (gltfpack -c, and most glTF shipped to the
 * web): the view's bytes are count * byteStride bytes decoded by meshoptimizer from a compressed
 * range of another buffer, then filtered. meshoptimizer's decoders check their input, but assert
 * on their size arguments, so every combination of mode, filter, stride and count is checked here
 * first: a hostile file must never reach one of those asserts. */
#include "gltf_internal.h"

#include <meshoptimizer.h>

const char *rill__gltf_meshopt_check(const rill__gltf_meshopt *m) {
    if (m->count == 0 || m->stride == 0) {
        return "count and byteStride must be above 0";
    }
    if (m->mode == RILL__MESHOPT_ATTRIBUTES) {
        if (m->stride % 4 != 0 || m->stride > 256) {
            return "ATTRIBUTES needs a byteStride that is a multiple of 4, at most 256";
        }
    } else if (m->stride != 2 && m->stride != 4) {
        return "TRIANGLES and INDICES need a byteStride of 2 or 4";
    } else if (m->filter != RILL__MESHOPT_FILTER_NONE) {
        return "filters apply to ATTRIBUTES only";
    }
    if (m->mode == RILL__MESHOPT_TRIANGLES && m->count % 3 != 0) {
        return "TRIANGLES needs a count that is a multiple of 3";
    }
    if (m->filter == RILL__MESHOPT_FILTER_OCTAHEDRAL && m->stride != 4 && m->stride != 8) {
        return "OCTAHEDRAL needs a byteStride of 4 or 8";
    }
    if (m->filter == RILL__MESHOPT_FILTER_QUATERNION && m->stride != 8) {
        return "QUATERNION needs a byteStride of 8";
    }
    return NULL;
}

bool rill__gltf_meshopt_decode(uint8_t *dst, const rill__gltf_meshopt *m, const uint8_t *src,
                               size_t size) {
    size_t count = (size_t)m->count, stride = m->stride;
    int res;
    if (m->mode == RILL__MESHOPT_ATTRIBUTES) {
        res = meshopt_decodeVertexBuffer(dst, count, stride, src, size);
    } else if (m->mode == RILL__MESHOPT_TRIANGLES) {
        res = meshopt_decodeIndexBuffer(dst, count, stride, src, size);
    } else {
        res = meshopt_decodeIndexSequence(dst, count, stride, src, size);
    }
    if (res != 0) {
        return false;
    }
    if (m->filter == RILL__MESHOPT_FILTER_OCTAHEDRAL) {
        meshopt_decodeFilterOct(dst, count, stride);
    } else if (m->filter == RILL__MESHOPT_FILTER_QUATERNION) {
        meshopt_decodeFilterQuat(dst, count, stride);
    } else if (m->filter == RILL__MESHOPT_FILTER_EXPONENTIAL) {
        meshopt_decodeFilterExp(dst, count, stride);
    }
    return true;
}
