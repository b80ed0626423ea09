/* rill/render/terrain.h: drawing the chunks of a rill_terrain_system (part of
 * rill/render.h).
 */
#ifndef RILL_RENDER_TERRAIN_H
#define RILL_RENDER_TERRAIN_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/render/renderer.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ON TERRAIN
 *   rill_render_terrain draws the chunks of a rill_terrain_system (rill/terrain.h). It attaches to
 *   the world (resource "RenderTerrain", at most one per world) and rill_render_extract calls its
 *   update and adds one opaque instance per resident chunk, so chunks are culled, lit, shadowed and
 *   cast shadows like any mesh, with a splat material per terrain (RILL_MATERIAL_TERRAIN: the
 *   terrain's weight map, and 2 x 2 atlases of its layers' albedo and normal textures, read
 *   through vfs; a missing or broken layer texture is a warning and draws as its layer colour).
 *   A chunk gets a GPU mesh when it becomes resident (again on every rebuild) and loses it when it
 *   streams out; the renderer frees that memory once the frames in flight are done. After the
 *   upload the terrain's CPU copy of the mesh is dropped. Chunks of one resolution share one GPU
 *   index buffer, freed with the last of them. Layer textures never stream. */
typedef struct rill_render_terrain rill_render_terrain;
/* renderer, world and terrain are required and borrowed; vfs may be NULL (no layer textures). */
/* keep_cpu_meshes: leave the terrain system's CPU copy of each chunk mesh in place after the
 * upload (by default it is dropped: rill_terrain_chunk_drop_mesh). */
typedef struct rill_render_terrain_desc {
    uint32_t start_canary; /* must be 0 */
    rill_renderer *renderer;
    rill_world *world;
    struct rill_terrain_system *terrain;
    rill_vfs *vfs;
    bool keep_cpu_meshes;
    uint32_t end_canary; /* must be 0 */
} rill_render_terrain_desc;
/* terrains drawn, chunk meshes alive on the GPU, totals of uploads and releases, and the GPU bytes
 * chunk meshes hold now: vertex buffers (one per chunk), index buffers and edge buffers (one of
 * each per resolution, shared by its chunks: rill_mesh_desc.share_indices; the edges are the
 * grid's cell sides, which the wireframe pass draws). */
typedef struct rill_render_terrain_stats {
    uint32_t terrains, meshes;
    uint64_t uploads, releases;
    uint32_t index_buffers;
    uint64_t vertex_bytes, index_bytes, edge_bytes;
} rill_render_terrain_stats;
/* NULL + err when an argument is missing or the world already has one. Destroy it before the
 * renderer and the terrain system. */
rill_render_terrain *rill_render_terrain_create(const rill_render_terrain_desc *desc,
                                                rill_error *err);
/* Destroys every chunk mesh, material and texture and detaches from the world. NULL: no-op. */
void rill_render_terrain_destroy(rill_render_terrain *rt);
/* Uploads chunks that became resident or were rebuilt, releases those that went out. Called by
 * rill_render_extract; call it yourself when building snapshots by hand. */
void rill_render_terrain_update(rill_render_terrain *rt);
void rill_render_terrain_get_stats(const rill_render_terrain *rt, rill_render_terrain_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_TERRAIN_H */
