/* gi_voxel.h: the voxel radiance clipmap of the voxel-cone GI tiers (SdfLow / SdfHigh), shared by
 * its files:
 *   gi_voxel.c         the CPU side: which scene instances are resident (keyed by instance id),
 *                      the four cascades' origins around the camera (toroidal addressing: a
 *                      scroll voxelizes only the slabs that enter), the bricks to (re)voxelize and
 *                      the per-frame work budget they are voxelized under on the job system.
 *   gi_voxel_raster.c  one mesh instance's triangles into one brick's voxels (occupancy, albedo,
 *                      emissive): the only code that touches voxels on the CPU.
 *   gi_voxel_source.c  the bounded CPU copy of a glTF model primitive's triangles that the
 *                      voxelizer reads (model meshes are gpu_only), simplified when large.
 *   gi_voxel_gpu.c     the GPU side: changed bricks uploaded into one storage buffer, radiance
 *                      injected into four 64^3 3D images (sun with its cascaded shadows, point and
 *                      spot lights, emissive), their mip pyramids, the cone trace, the VoxelCache
 *                      debug view.
 *
 * Layout (NOTES §9): cascade c has 64^3 voxels of 0.5 * 2^c metres (0.5, 1, 2, 4). World voxel v
 * of cascade c (v = floor(p / size)) lives at texel v mod 64 (toroidal); the cascade covers
 * [origin, origin + 64) with origin a multiple of the brick size (16), so the region moves in
 * whole bricks and a brick of texels always holds one world brick. A voxel is two words: albedo
 * RGBA8 (a = 255: occupied) and emissive (rgb: sqrt(e / 16) in 8 bits, a unused). */
#ifndef RILL_RENDER_GI_VOXEL_H
#define RILL_RENDER_GI_VOXEL_H

#include "render_internal.h"

#define RILL__VOX_CASCADES 4
#define RILL__VOX_RES 64                                        /* voxels per side */
#define RILL__VOX_BRICK 16                                      /* voxels per brick side */
#define RILL__VOX_BRICKS_SIDE (RILL__VOX_RES / RILL__VOX_BRICK) /* 4 */
#define RILL__VOX_BRICKS (RILL__VOX_BRICKS_SIDE * RILL__VOX_BRICKS_SIDE * RILL__VOX_BRICKS_SIDE)
#define RILL__VOX_BRICK_VOXELS (RILL__VOX_BRICK * RILL__VOX_BRICK * RILL__VOX_BRICK)
#define RILL__VOX_MIPS 5                /* 64, 32, 16, 8, 4 */
#define RILL__VOX_SIZE0 0.5f            /* metres per voxel of cascade 0 */
#define RILL__VOX_EMISSIVE_RANGE 16.0f  /* the brightest emissive colour a voxel holds */
#define RILL__VOX_DEFAULT_BUDGET 50000u /* work units per frame (rill_renderer_desc) */
#define RILL__VOX_STILL_FRAMES 30u /* frames a moved instance waits still before it voxelizes */
#define RILL__VOX_SRC_KEEP 2048u   /* a model primitive this small is kept as it is */
#define RILL__VOX_SRC_MAX 8192u    /* triangles a simplified primitive keeps at most */
#define RILL__VOX_SRC_CELL 0.25f   /* clustering grid (metres): half the finest voxel */

/* One resident instance, as voxelized. */
typedef struct rill__vox_inst {
    uint64_t id; /* rill_render_instance.id; 0 = a free slot */
    rill_mesh mesh;
    rill_material material;
    float transform[16];
    float box_min[3], box_max[3]; /* world bounds */
    float albedo[3], emissive[3];
    uint64_t seen;  /* the frame that last listed it */
    uint64_t moved; /* the frame its transform last changed */
    bool out;       /* moving: kept out of the clipmap until still for RILL__VOX_STILL_FRAMES */
    const float *positions;
    const uint32_t *indices;
    uint32_t tri_count;
} rill__vox_inst;

/* A brick being voxelized: where its work stopped (the next instance slot and triangle). */
typedef struct rill__vox_brick {
    bool dirty;   /* needs (more) voxelizing */
    bool started; /* cleared already; cursor valid */
    bool upload;  /* voxels changed since the last upload */
    uint32_t next_inst, next_tri;
} rill__vox_brick;

typedef struct rill__vox_cascade {
    int32_t origin[3]; /* world voxel of the region's low corner (a multiple of 16) */
    bool placed;       /* origin set once */
    uint32_t *voxels;  /* 2 words a voxel, brick after brick (brick b at b * 4096 * 2) */
    rill__vox_brick bricks[RILL__VOX_BRICKS];
    uint32_t filled;       /* occupied voxels */
    bool inject;           /* its radiance must be injected again */
    uint64_t upload_seq;   /* the buffer upload that holds its last bricks */
    struct rill__img *img; /* radiance (rgb premultiplied by a) and opacity, with mips */
    bool img_written;      /* the image holds injected radiance (else undefined) */
} rill__vox_cascade;

typedef struct rill__vox {
    rill__vox_cascade cascades[RILL__VOX_CASCADES];
    RILL_ARRAY(rill__vox_inst) insts; /* stable slots (cursors index them) */
    RILL_ARRAY(uint32_t) near;        /* this frame's bricks' overlapping slots (gi_voxel.c) */
    uint32_t live;                    /* slots in use */
    uint64_t frame;                   /* the last frame voxelized */
    uint32_t budget;                  /* work units a frame may spend */
    /* the last frame's figures */
    uint64_t units;        /* work units spent (one triangle or instance examined = 1) */
    double ms;             /* wall time on the calling thread */
    uint32_t bricks_done;  /* bricks finished */
    uint32_t round;        /* the cascade whose light is refreshed next (round robin) */
    struct rill__buf *buf; /* every cascade's voxels, as laid out in memory */
    /* this frame's graph: the cascades' images, which of them the inject pass lights */
    uint64_t graph_frame;
    rill_rg_image vol[RILL__VOX_CASCADES];
    uint32_t inject_mask;
    const struct rill__view *inject_view; /* whose shadow map and lights light them */
    uint32_t resident;                    /* cascades holding injected radiance */
} rill__vox;

/* gi_voxel.c ------------------------------------------------------------------------------------
 */

/* The clipmap of r (created on first use; NULL when out of memory). */
rill__vox *rill__vox_get(rill_renderer *r);
void rill__vox_destroy(rill_renderer *r);
/* This frame's CPU work: tracks snap's instances (added, changed, gone), scrolls the cascades to
 * the camera at cam, and voxelizes dirty bricks on r's jobs within the budget. Once a frame. */
void rill__vox_update(rill_renderer *r, rill__vox *vx, const rill_render_snapshot *snap,
                      const float cam[3]);
/* Metres per voxel of cascade c. */
static inline float rill__vox_size(uint32_t c) {
    return RILL__VOX_SIZE0 * (float)(1u << c);
}
/* Index of texel t (each 0..63) of a cascade's voxel array (words / 2). */
static inline uint32_t rill__vox_index(const int32_t t[3]) {
    uint32_t b =
        (uint32_t)(t[0] / RILL__VOX_BRICK) +
        RILL__VOX_BRICKS_SIDE * ((uint32_t)(t[1] / RILL__VOX_BRICK) +
                                 RILL__VOX_BRICKS_SIDE * (uint32_t)(t[2] / RILL__VOX_BRICK));
    uint32_t v = (uint32_t)(t[0] % RILL__VOX_BRICK) +
                 RILL__VOX_BRICK * ((uint32_t)(t[1] % RILL__VOX_BRICK) +
                                    RILL__VOX_BRICK * (uint32_t)(t[2] % RILL__VOX_BRICK));
    return b * RILL__VOX_BRICK_VOXELS + v;
}
/* The voxel of cascade c holding world point p: its two words, NULL outside the region. */
const uint32_t *rill__vox_at(const rill__vox *vx, uint32_t c, const float p[3]);

/* gi_voxel_raster.c ------------------------------------------------------------------------------
 */

/* Voxelizes triangles [first, first + *count) of inst into the brick whose world voxels start at
 * lo (cascade voxel size `size`, the brick's words at `words`): a voxel a triangle touches takes
 * the instance's albedo and emissive. Stops after `allot` triangles; *count becomes how many it
 * examined. Returns the voxels newly occupied. */
uint32_t rill__vox_raster(const rill__vox_inst *inst, const int32_t lo[3], float size,
                          uint32_t *words, uint32_t first, uint32_t *count);
/* Whether the box [bmin, bmax] touches the triangle a, b, c (separating axes). */
bool rill__vox_tri_box(const float a[3], const float b[3], const float c[3], const float bmin[3],
                       const float bmax[3]);

/* gi_voxel_source.c ------------------------------------------------------------------------------
 */

/* Builds the voxelizer's copy of a triangle list (xyz positions): as it is up to
 * RILL__VOX_SRC_KEEP triangles, else clustered on a RILL__VOX_SRC_CELL-metre grid (in world
 * metres: the mesh is drawn at most `scale` times its size) coarsened until at most
 * RILL__VOX_SRC_MAX triangles are left. A list with an index out of range or a non-finite position
 * gets no copy (true, *out empty). False when out of memory (*out empty). */
bool rill__vox_source_build(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                            uint32_t index_count, float scale, rill__vox_source *out);

/* gi_voxel_gpu.c ---------------------------------------------------------------------------------
 */

/* Uploads finished bricks and makes the buffer and 3D images (false: no voxel GI this frame). */
bool rill__vox_gpu_prepare(rill_renderer *r, rill__vox *vx);
void rill__vox_gpu_destroy(rill_renderer *r, rill__vox *vx);
/* Imports the cascades into g (once a frame) and adds "vxgi_inject" (light, then mips) for the
 * cascades whose voxels or region changed, plus one more in turn (the light moves), lit for view
 * vs. */
rill_result rill__vox_add_inject(rill_renderer *r, rill__vox *vx, rill_rg *g,
                                 const struct rill__view *vs, rill_error *err);
/* Cascade c's origin (metres) and voxel size, as the shaders take them (vec4 origins[4]). */
void rill__vox_origins(const rill__vox *vx, float out[RILL__VOX_CASCADES][4]);
/* Adds reads of every cascade to pass p. */
rill_result rill__vox_use(rill__vox *vx, rill_rg *g, rill_rg_pass p, rill_error *err);
/* Binds the cascades at b[0..3] (trilinear or nearest; repeat: toroidal). */
void rill__vox_bind(rill__vox *vx, rill_rg_ctx *ctx, bool nearest,
                    rill__binding b[RILL__VOX_CASCADES]);

#endif
