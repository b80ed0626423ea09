/* rill/terrain.h: heightmap terrain split into chunks, each with a render mesh and a physics
 * collider built on workers, streamed in and out around the camera.
 *
 * ON THE TERRAIN COMPONENT
 *   A "Terrain" entity is a grid of chunks_x by chunks_z square chunks of chunk_size metres. Each
 *   chunk has resolution samples per edge, and neighbours share their edge samples, so the whole
 *   heightmap is (chunks_x * (resolution - 1) + 1) by (chunks_z * (resolution - 1) + 1) samples.
 *   The entity's Transform translation places the terrain's first corner (sample (0, 0)); the
 *   terrain is axis-aligned (rotation and scale are ignored). Height = sample * height_scale +
 *   height_offset, where a sample is in [0, 1]:
 *     - heightmap "*.png": a 16-bit greyscale PNG (8-bit is widened) of exactly the size above;
 *     - heightmap "*.r16": raw unsigned 16-bit little-endian samples (v / 65535), same count;
 *     - heightmap "*.r32" or "*.f32": raw 32-bit little-endian floats, used as they are;
 *     - no heightmap: generated from `seed` by a deterministic noise (fractal value noise whose
 *       largest features are noise_scale metres across).
 *   A file of the wrong size, a truncated file, or a non-finite sample is an error naming the file
 *   (logged, the terrain stays empty, rill_terrain_info says why).
 *
 * ON CHUNKS AND STREAMING
 *   With stream off (edit mode, or the component's `stream` false) every chunk is resident. With
 *   streaming on, a chunk comes in when the camera's distance to the chunk's bounds (in the XZ
 *   plane) is <= stream_radius and goes out when it is > stream_radius + chunk_size; in between
 *   it keeps its state, so a camera on the boundary does not make it flicker. stream_radius is
 *   never below one chunk size. Going out releases the chunk's render mesh and physics collider;
 *   the heights stay (they are the authored data). Coming in builds the mesh (positions and
 *   normals) and the collider data on a worker; the results come back through the main-thread
 *   completion queue and at most max_rebuilds (default 2) are applied per frame, so crossing a
 *   ring of chunks never hitches. With no streaming camera, residency stays as it is.
 *
 * ON SPLAT LAYERS
 *   Up to 4 layers, each a base colour (tint) and optional albedo and normal textures tiled every
 *   layer_tile metres, blended by the weight texture `splat_map` (RGBA: one channel per layer,
 *   normalized at draw time; none = layer 0 everywhere). The splat map is loaded with the heights
 *   and never streams; the renderer draws layer textures at full resolution.
 *
 * ON THREADS
 *   The system belongs to the main thread; its workers only read heights and write their own
 *   build results.
 *
 * Depends on: base, world, asset (VFS reads), formats (images), physics (colliders).
 */
#ifndef RILL_TERRAIN_H
#define RILL_TERRAIN_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/physics.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RILL_TERRAIN_MAX_LAYERS 4
#define RILL_TERRAIN_MAX_CHUNKS_SIDE 256u
#define RILL_TERRAIN_MAX_RESOLUTION 1025u
/* The default of rill_terrain_system_desc.max_chunks: 128 x 128 chunks, a quarter of the
 * renderer's 65536 meshes (the rest stays for models) and of the physics world's colliders. */
#define RILL_TERRAIN_DEFAULT_MAX_CHUNKS 16384u

/* >>component --------------------------------------------------------------------------------- */

/* "Terrain". Defaults: chunks_x 4, chunks_z 4 (1..256), chunk_size 64 (m, > 0), resolution 129
 * (2..1025 samples per chunk edge), height_scale 64 (m), height_offset 0, heightmap "" (generated),
 * seed 1, noise_scale 256 (m), stream false, stream_radius 256 (m; at least chunk_size),
 * max_rebuilds 2 (1..64 applied per frame), splat_map "" (layer 0 only), layer_count 1 (0..4),
 * layer_color[i] (0.35, 0.45, 0.25, 1), (0.45, 0.4, 0.35, 1), (0.55, 0.55, 0.55, 1),
 * (0.9, 0.9, 0.92, 1), layer_albedo / layer_normal "" (none), layer_tile 8 (m). Changing any field
 * but the layer ones, stream and stream_radius reloads the terrain. */
typedef struct rill_terrain {
    uint32_t chunks_x, chunks_z;
    float chunk_size;
    uint32_t resolution;
    float height_scale;
    float height_offset;
    const char *heightmap; /* asset path, interned; NULL or "" = generated */
    uint32_t seed;
    float noise_scale;
    bool stream;
    float stream_radius;
    uint32_t max_rebuilds;
    const char *splat_map; /* asset path, interned */
    uint32_t layer_count;
    float layer_color[RILL_TERRAIN_MAX_LAYERS][4];
    const char *layer_albedo[RILL_TERRAIN_MAX_LAYERS];
    const char *layer_normal[RILL_TERRAIN_MAX_LAYERS];
    float layer_tile[RILL_TERRAIN_MAX_LAYERS];
} rill_terrain;

/* Registers "Terrain" (and the physics components) in world; returns its id (0 for NULL). */
rill_component rill_terrain_register(rill_world *world);
/* Fills *out with the defaults above. */
void rill_terrain_defaults(rill_terrain *out);

/* >>streaming decisions ----------------------------------------------------------------------- */

/* The XZ distance from point p (x, z) to an axis-aligned rectangle [min, max] (0 inside). */
float rill_terrain_rect_distance(const float p[2], const float rect_min[2],
                                 const float rect_max[2]);
/* The residency rule for one chunk: 1 = bring in (distance <= radius), -1 = send out
 * (distance > radius + chunk_size), 0 = keep its state. radius is raised to chunk_size first. */
int rill_terrain_chunk_decision(float distance, float radius, float chunk_size);

/* >>system ------------------------------------------------------------------------------------ */

typedef struct rill_terrain_system rill_terrain_system;

/* world and jobs are required. vfs NULL: only generated terrains load (a heightmap path fails).
 * physics NULL: no colliders. All are borrowed and must outlive the system. */
typedef struct rill_terrain_system_desc {
    uint32_t start_canary;
    rill_world *world;
    rill_jobs *jobs;
    rill_vfs *vfs;
    rill_physics *physics;
    uint32_t max_in_flight; /* 0 = 8: chunk builds queued on workers at once */
    /* 0 = RILL_TERRAIN_DEFAULT_MAX_CHUNKS: chunks all terrains may hold resident at once (a
     * terrain's chunks_x x chunks_z, or its streaming ring's when stream is on). Each resident
     * chunk is a renderer mesh and a collider; a terrain that would pass it is refused (FAILED,
     * its error names the limit). Docs: docs/limits.md. */
    uint32_t max_chunks;
    uint32_t end_canary;
} rill_terrain_system_desc;

/* Creates the system (registers Terrain). NULL with err filled on a bad desc or out of memory. */
rill_terrain_system *rill_terrain_system_create(const rill_terrain_system_desc *desc,
                                                rill_error *err);
/* Waits for the builds in flight, releases every chunk, collider and heightmap. NULL: no-op. */
void rill_terrain_system_destroy(rill_terrain_system *sys);

/* What the streaming gate says this frame: streaming (the gate is open), has_camera (a streaming
 * camera exists) and its world position. timed: the update's applies also stop once it has run
 * budget_ns (after at least one apply over all terrains: nothing starves); the terrain streamer
 * sets it from the stream's budget (the frame's streaming budget left, docs/streaming.md). Not
 * timed: max_rebuilds alone bounds them. */
typedef struct rill_terrain_view {
    bool streaming;
    bool has_camera;
    float camera_position[3];
    bool timed;
    uint64_t budget_ns;
} rill_terrain_view;

/* Once per frame on the main thread (post_update): follows Terrain components (new, changed,
 * removed), decides each chunk's residency, releases chunks that went out, queues builds, and
 * applies at most max_rebuilds finished builds per terrain (and, with a timed view, no more once
 * the update has run view->budget_ns, one at least). Build results reach it through the
 * jobs' completion queue, drained by the app in pre_update (or by rill_jobs_drain). */
void rill_terrain_system_update(rill_terrain_system *sys, const rill_terrain_view *view);
/* The streaming gate closed (edit mode): queues builds for every chunk that is not resident, up to
 * the in-flight bound, and applies none; the following updates (which see the gate closed) queue
 * the rest and apply them under the per-frame limit. The terrain streamer's restore. */
void rill_terrain_system_restore(rill_terrain_system *sys);
/* Blocks until every terrain is loaded and every wanted chunk is built and applied, ignoring the
 * per-frame limit (for tools, tests and boot loads). */
void rill_terrain_system_flush(rill_terrain_system *sys, const rill_terrain_view *view);

/* >>queries ----------------------------------------------------------------------------------- */

typedef enum rill_terrain_chunk_state {
    RILL_TERRAIN_CHUNK_UNLOADED = 0, /* heights only */
    RILL_TERRAIN_CHUNK_BUILDING,     /* a build is queued or done and waiting to be applied */
    RILL_TERRAIN_CHUNK_RESIDENT,     /* mesh and collider live */
    RILL_TERRAIN_CHUNK_STATE_NUM,
    RILL_TERRAIN_CHUNK_STATE_FORCE_U32 = 0x7FFFFFFF
} rill_terrain_chunk_state;

typedef enum rill_terrain_status {
    RILL_TERRAIN_STATUS_NONE = 0, /* not a known terrain */
    RILL_TERRAIN_STATUS_LOADING,  /* heights being read */
    RILL_TERRAIN_STATUS_READY,
    RILL_TERRAIN_STATUS_FAILED, /* see rill_terrain_info.error */
    RILL_TERRAIN_STATUS_NUM,
    RILL_TERRAIN_STATUS_FORCE_U32 = 0x7FFFFFFF
} rill_terrain_status;

/* What one terrain holds now. Sizes in world units; bytes are CPU memory of this system. */
typedef struct rill_terrain_info {
    rill_terrain_status status;
    uint32_t chunks_x, chunks_z, resolution;
    float chunk_size;
    float origin[3]; /* world position of sample (0, 0) */
    uint32_t samples_x, samples_z;
    uint32_t resident, building;
    uint32_t colliders;
    uint32_t rebuilds_last_update; /* builds applied by the last update */
    uint64_t rebuilds_total;
    uint64_t build_ns_total; /* worker time of the applied builds (mesh + collider samples) */
    uint64_t apply_ns_total; /* main-thread time applying them (collider creation, hand-over) */
    size_t height_bytes;     /* heights + splat map: always held */
    size_t resident_bytes;   /* meshes of resident chunks */
    rill_error error;        /* FAILED: why, naming the file */
} rill_terrain_info;

/* Fills *out for terrain entity e; false (status NONE) when e is not a terrain the system knows. */
bool rill_terrain_get_info(const rill_terrain_system *sys, rill_entity e, rill_terrain_info *out);
/* Totals over every terrain: chunks, resident, building, colliders, rebuilds applied by the last
 * update and in total with their worker and main-thread times, and CPU bytes. */
typedef struct rill_terrain_stats {
    uint32_t terrains, chunks, resident, building, colliders, rebuilds_last_update;
    uint32_t failed; /* terrains whose load failed (bad heightmap, over max_chunks …) */
    uint64_t rebuilds_total, build_ns_total, apply_ns_total;
    size_t height_bytes, resident_bytes;
} rill_terrain_stats;
void rill_terrain_get_stats(const rill_terrain_system *sys, rill_terrain_stats *out);

/* The state of chunk (cx, cz) of terrain e (UNLOADED for anything out of range). */
rill_terrain_chunk_state rill_terrain_chunk_get_state(const rill_terrain_system *sys, rill_entity e,
                                                      uint32_t cx, uint32_t cz);

/* The terrain height and unit normal under world (x, z), from the heights (resident or not), with
 * the same triangles as the mesh and the collider. False when no READY terrain covers the point.
 * e RILL_ENTITY_NULL: any terrain. out_normal may be NULL. */
bool rill_terrain_height_at(const rill_terrain_system *sys, rill_entity e, float x, float z,
                            float *out_height, float out_normal[3]);

/* The first point where the ray from origin along dir (need not be unit length) meets the surface
 * of terrain e (RILL_ENTITY_NULL: the nearest of every terrain), within max_distance (world units
 * along the normalized ray; 0 = unlimited). The surface is the mesh's: two triangles a cell, split
 * as rill_terrain_height_at's, from the heights of a READY terrain, hit from above or below; every
 * chunk's cells, or with resident_only those of resident chunks only (what a renderer draws: the
 * ray passes over the others). True with *out_distance and the triangle's unit normal (pointing
 * up; out_normal may be NULL); false on a miss or bad arguments. Cost: the cells the ray
 * crosses. */
bool rill_terrain_raycast(const rill_terrain_system *sys, rill_entity e, const float origin[3],
                          const float dir[3], float max_distance, bool resident_only,
                          float *out_distance, float out_normal[3]);

/* A resident chunk's mesh for the renderer. Vertices are interleaved position (world space) and
 * normal, 6 floats each, resolution^2 of them, row-major by z; vertices is NULL once the CPU copy
 * was dropped (rill_terrain_chunk_drop_mesh; the other fields stay valid). indices (a triangle
 * list) and edge_indices (a line list: the grid's cell sides, 4 res (res - 1) indices, for the
 * wireframe pass) are shared by every chunk of the terrain and depend only on the resolution.
 * `version` changes whenever the chunk is rebuilt, so a GPU copy keyed by it knows when it is
 * stale. The pointers stay valid until the chunk goes out, its mesh is dropped, or the next update.
 */
typedef struct rill_terrain_chunk_mesh {
    const float *vertices;
    uint32_t vertex_count;
    const uint32_t *indices;
    uint32_t index_count;
    const uint32_t *edge_indices;
    uint32_t edge_index_count;
    uint64_t version;
    float bounds_min[3], bounds_max[3];
} rill_terrain_chunk_mesh;
bool rill_terrain_chunk_get_mesh(const rill_terrain_system *sys, rill_entity e, uint32_t cx,
                                 uint32_t cz, rill_terrain_chunk_mesh *out);

/* The caller holds its own copy of resident chunk (cx, cz)'s mesh (the renderer's GPU copy): the
 * CPU vertices are freed (rill_terrain_info.resident_bytes then counts only the collider). A
 * rebuild brings them back. Returns the bytes freed (0: not resident or already dropped). */
size_t rill_terrain_chunk_drop_mesh(rill_terrain_system *sys, rill_entity e, uint32_t cx,
                                    uint32_t cz);
/* Rebuilds resident chunk (cx, cz): it goes out (mesh and collider) and its build is queued at
 * once, applied by a later update like any build. For a consumer that needs the CPU mesh of a
 * chunk whose copy was dropped. False when it is not resident (or out of memory). */
bool rill_terrain_chunk_refresh(rill_terrain_system *sys, rill_entity e, uint32_t cx, uint32_t cz);

/* The splat weight map of a READY terrain (RGBA8, row-major; NULL when it has none). */
const uint8_t *rill_terrain_splat_map(const rill_terrain_system *sys, rill_entity e,
                                      uint32_t *out_width, uint32_t *out_height);

/* Draws every terrain's chunk grid by state into an RGBA8 image, in pale colours (w x h, row-major;
 * image x follows world x and image y world z, so the top row is world_min z: -Z, forward, is up)
 * covering the world XZ rectangle [world_min, world_max]: resident chunks green, building amber,
 * unloaded grey, each with a one-pixel darker border where cells are at least 3 pixels wide; pixels
 * outside every terrain are left as they are. For maps and debug views (`rill fly`'s map.png).
 * Returns the number of chunks drawn (touching the image). */
uint32_t rill_terrain_draw_chunk_map(const rill_terrain_system *sys, const float world_min[2],
                                     const float world_max[2], uint8_t *rgba, uint32_t w,
                                     uint32_t h);

/* >>heightmaps -------------------------------------------------------------------------------- */

/* Reads heights for terrain t into *out_heights (samples_x * samples_z floats, caller frees with
 * rill_free): from `path` (through vfs) or generated when path is NULL or "". Errors name the
 * file. Thread-safe; the system calls it on a worker. */
rill_result rill_terrain_load_heights(rill_vfs *vfs, const rill_terrain *t, const char *path,
                                      float **out_heights, uint32_t *out_samples_x,
                                      uint32_t *out_samples_z, rill_error *err);
/* The deterministic noise of generated terrains, in [0, 1], at (x, z) metres. */
float rill_terrain_noise(uint32_t seed, float noise_scale, float x, float z);

#ifdef __cplusplus
}
#endif
#endif /* RILL_TERRAIN_H */
