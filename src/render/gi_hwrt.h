/* gi_hwrt.h: what the Hwrt GI tier's files share: the limits that bound its structures, the
 * record a ray that hits an instance reads (its material and where its triangles are), the pure
 * CPU steps (gi_hwrt_pack.c: TLAS instance packing, whether a mesh gets a BLAS) and the frame's
 * part (gi_hwrt.c: BLAS per mesh, TLAS per frame, the trace pass). */
#ifndef RILL_RENDER_GI_HWRT_H
#define RILL_RENDER_GI_HWRT_H

#include "render_internal.h"
#include "rill/render/effects.h"

/* Instances in the TLAS a frame (more are left out and counted); 64 bytes each per frame in
 * flight of host-visible memory. */
#define RILL__HWRT_MAX_INSTANCES 65536u
/* A mesh above this many triangles gets no BLAS (it stays out of the traced scene). */
#define RILL__HWRT_MAX_BLAS_TRIANGLES (4u << 20)
/* Device bytes all BLASes together may take (estimated before creation, counted after). */
#define RILL__HWRT_BLAS_BUDGET_BYTES (512ull << 20)
/* Triangles of BLAS builds recorded a frame (at least one mesh a frame builds, however big):
 * streaming a district in spreads its builds over frames. */
#define RILL__HWRT_BUILD_TRIANGLES_PER_FRAME (1u << 20)
/* Bytes a BLAS is estimated to take per triangle before the device says (it says after). */
#define RILL__HWRT_BLAS_BYTES_PER_TRIANGLE 64u

/* What the trace reads of an instance a ray hits (gi_hwrt_trace.comp's Record, 64 bytes): the
 * material's albedo (the voxel tiers' estimate: factor x the texture's mean) and emissive, the
 * device addresses of its mesh's vertex and index buffers (low, high words), its first index,
 * vertex offset and the vertex stride in floats. */
typedef struct rill__hwrt_record {
    float albedo[4];
    float emissive[4];
    uint32_t vb[2], ib[2];
    uint32_t first_index;
    int32_t vertex_offset;
    uint32_t stride_floats, pad;
} rill__hwrt_record;

/* >>gi_hwrt_pack.c ---------------------------------------------------------------------------- */

typedef enum rill__hwrt_verdict {
    RILL__HWRT_BUILD = 0,    /* make and build its BLAS this frame */
    RILL__HWRT_DEFER,        /* this frame's build budget is spent: a later frame */
    RILL__HWRT_TOO_BIG,      /* over RILL__HWRT_MAX_BLAS_TRIANGLES: never */
    RILL__HWRT_OVER_BUDGET,  /* the BLASes' memory budget would be exceeded: not while it is */
    RILL__HWRT_NO_TRIANGLES, /* fewer than 3 indices */
} rill__hwrt_verdict;

/* Whether a mesh of `triangles` gets a BLAS now, with `used_bytes` of `budget_bytes` held by
 * the BLASes and `built_triangles` already recorded this frame (of frame_triangles). */
rill__hwrt_verdict rill__hwrt_blas_verdict(uint32_t triangles, uint64_t used_bytes,
                                           uint64_t budget_bytes, uint32_t built_triangles,
                                           uint32_t frame_triangles);
/* A TLAS instance of the BLAS at blas_address, placed by `world` (a column-major 4x4, the
 * snapshot's transform), custom index `index` (which record a hit reads; below 2^24), every
 * ray's mask, both faces hit (mirrored transforms too), opaque. False (out untouched) when the
 * transform is not finite or the index does not fit. */
bool rill__hwrt_pack_instance(const float world[16], uint32_t index, uint64_t blas_address,
                              rill__accel_instance *out);

/* >>gi_hwrt.c --------------------------------------------------------------------------------- */

/* NULL when this renderer's device can run the Hwrt tier, else why not (a sentence fragment
 * that lives as long as the renderer). */
const char *rill__hwrt_unavailable(const rill_renderer *r);

struct rill__gi;
typedef struct rill__hwrt rill__hwrt;
/* The frame's structures: once a frame (the first camera), the snapshot's instances' BLASes
 * made (under the limits above) and the pass that builds them and the TLAS added; NULL when the
 * tier cannot run this frame (logged once; the caller runs another tier). */
rill__hwrt *rill__gi_hwrt_prepare(rill_renderer *r, const rill__view *vs, rill_rg *g,
                                  rill_error *err);
/* The camera's trace pass ("hwrt_trace", half resolution) into gi->raw and gi->spec. */
rill_result rill__gi_add_hwrt_trace(rill_render_effect_ctx *ctx, struct rill__gi *gi,
                                    rill__hwrt *hw, rill_error *err);
void rill__hwrt_destroy(rill_renderer *r);

#endif
