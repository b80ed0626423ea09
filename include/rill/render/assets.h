/* rill/render/assets.h: the render asset cache: glTF assets named by ModelMesh entities
 * uploaded once and shared, texture streaming of their textures, and static batching (part of
 * rill/render.h).
 */
#ifndef RILL_RENDER_ASSETS_H
#define RILL_RENDER_ASSETS_H

#include "rill/asset.h"
#include "rill/base.h"
#include "rill/render/model.h"
#include "rill/render/renderer.h"
#include "rill/stream/textures.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ON RENDER ASSETS
 *   A rill_render_assets turns the asset handles that ModelMesh components name into GPU meshes,
 *   textures and materials: one upload per glTF asset (rill_render_model_create), shared by every
 *   entity that names it. Created with a world, it attaches itself to that world (the resource
 *   "RenderAssets"), and rill_render_extract resolves every ModelMesh through it: a LOADED asset
 *   not uploaded yet is uploaded there and then; one still loading draws nothing; one whose
 *   upload fails warns once (module "render") and draws nothing. Images of a model resolve
 *   relative to the model's path through the asset server's VFS (packs and loose roots alike).
 *   The cache holds its own reference on each uploaded asset. rill_render_assets_update (once per
 *   frame; rill_app_enable_models runs it in the extract stage) uploads every asset a ModelMesh
 *   names, and destroys the uploads (and drops the references) of assets no ModelMesh named for
 *   release_delay_frames updates; the renderer frees the GPU memory once the frames in flight
 *   are done. Without updates, uploads live until rill_render_assets_destroy. */
typedef struct rill_render_assets rill_render_assets;
/* renderer, assets and world are borrowed; release_delay_frames 0 = 2. */
typedef struct rill_render_assets_desc {
    uint32_t start_canary; /* must be 0 */
    rill_renderer *renderer;
    rill_asset_server *assets;
    rill_world *world;
    uint32_t release_delay_frames;
    /* Texture streaming settings (copied); NULL = rill_texstream_settings_default(). */
    const rill_texstream_settings *texture_streaming;
    uint32_t end_canary; /* must be 0 */
} rill_render_assets_desc;
typedef struct rill_render_assets_stats {
    uint32_t models;                     /* uploads alive */
    uint64_t uploads, unloads, failures; /* totals since create */
} rill_render_assets_stats;
/* NULL + err when an argument is missing or another cache is attached to the world. */
rill_render_assets *rill_render_assets_create(const rill_render_assets_desc *desc, rill_error *err);
/* Detaches from the world, destroys every upload and releases the references. NULL: no-op. */
void rill_render_assets_destroy(rill_render_assets *ra);
void rill_render_assets_update(rill_render_assets *ra);
/* The upload of a glTF asset (uploading it when LOADED and not uploaded yet), or NULL. */
const rill_render_model *rill_render_assets_model(rill_render_assets *ra, rill_asset asset);
/* The VFS path of the image a texture of the cache's models was loaded from (the exported .rmip
 * when there is one); NULL for a texture it did not load from a file (embedded images) or does
 * not hold. Lives while the texture does. For debug views (rill/render/debug.h). */
const char *rill_render_assets_texture_path(const rill_render_assets *ra, rill_texture tex);
void rill_render_assets_get_stats(const rill_render_assets *ra, rill_render_assets_stats *out);

/* ON TEXTURE STREAMING (docs/streaming.md "Texture streaming")
 *   The cache streams the textures of the models it uploads: every .rmip texture read through
 *   the VFS and every glTF material (a standard material: its five slots) is registered with a
 *   rill_texstream. While streaming is on (settings.enabled and the world's "StreamingState"
 *   gate active) a model uploads its textures as their "#low" tails; otherwise at full. Each
 *   update runs a slice of a sweep over the world's ModelMesh entities (their world boxes are
 *   the material users), the evaluator's update, the loads (the asset server: "x.rmip#low" or
 *   "x.rmip", pack byte ranges on its workers) and the applies, sent to the renderer as one
 *   rill_render_texture_replace_many batch per update so a material switches all its slots at
 *   one frame once all are uploaded. Turning streaming off (settings or gate) brings every
 *   texture back to full once. Embedded and PNG textures are not streamed (full). */
typedef struct rill_render_texture_streaming_stats {
    rill_texstream_stats decisions; /* textures, full/low, in flight, resident bytes, ... */
    uint64_t bytes_read;            /* level bytes read for streamed textures since create */
    uint64_t swaps, batches, cancelled, load_failures;
    uint32_t queued, loading;           /* requests waiting for a loading slot / loading */
    uint32_t replacing;                 /* GPU switches waiting for their uploads (renderer-wide) */
    uint64_t swap_ns_last, swap_ns_max; /* main-thread time sending a batch of swaps */
    /* main-thread time of the whole streaming update (the user sweep's slice, loads, decisions,
     * the swap batch) */
    uint64_t update_ns_last, update_ns_max;
    uint64_t update_cpu_ns_last; /* the same update's thread CPU time (preemption left out) */
    /* Full swaps from the evaluation that requested them to the frame that switched them on
     * screen (rill_render_assets_set_time's clock): count, worst and mean. Add up to one
     * interval (0.5 s) for the time from crossing full_distance to that evaluation. */
    uint64_t full_landed;
    double full_latency_ms_max, full_latency_ms_mean;
} rill_render_texture_streaming_stats;
/* Settings at run time (the next update evaluates at once). ra NULL: no-op / defaults. */
void rill_render_assets_set_texture_streaming(rill_render_assets *ra,
                                              const rill_texstream_settings *settings);
rill_texstream_settings rill_render_assets_get_texture_streaming(const rill_render_assets *ra);
void rill_render_assets_get_texture_streaming_stats(const rill_render_assets *ra,
                                                    rill_render_texture_streaming_stats *out);
/* Work left before the textures match the decisions: requests in flight (loading, or loaded and
 * parked) and an evaluation in progress; 0 = settled. Swaps already handed to the renderer
 * switch at its next frame (stats.replacing). */
uint32_t rill_render_assets_texture_streaming_pending(const rill_render_assets *ra);
/* The clock of the 2 Hz cadence, in seconds (the app passes its real time); without calls the
 * monotonic clock is used. */
void rill_render_assets_set_time(rill_render_assets *ra, double seconds);
/* Debug view: every model material drawn flat in the colour of its texture state: green full,
 * blue "#low", amber swapping (a request in flight), grey not streamed. */
void rill_render_assets_set_texture_heatmap(rill_render_assets *ra, bool on);
/* Static batching of the ModelMesh entities the cache resolves (off by default; project.toml
 * [rendering] static_batching = true turns it on for content). Static geometry is merged per
 * (cell of a uniform grid, material, channel mask) into one mesh drawn as one instance whose ranges
 * (rill_render_range) are its members, ordered by part (a finer grid, part_size) and LOD level: the
 * renderer culls the ranges one by one on their part's bounds and draws a material's visible ranges
 * with one indirect call. A batch holds every LOD level of its members it has seen; a level
 * switched off or crossfading only turns its members' ranges off (the fading ones draw alone,
 * dithered): no rebuild. Never batched: PRESERVE_IDENTITY entities, blended materials, entities
 * with a RenderMode of their own (wireframe, ghost), entities that moved in the last static_frames
 * frames (animated), and groups of one without multi-draw indirect. Built members cost extract one
 * compare a frame; a change to one (channels, mesh, transform, despawn) reaches the batcher through
 * world observers and the changed-transform list, turns its range off (it draws alone) and queues
 * its cell for a rebuild; a queued cell is collected in one extract, then built one step (batch
 * meshes of about mesh_vertices) at a time within build_ms of CPU time per extract (at least one
 * mesh a frame), so neither a streaming district nor one large cell is built in one frame, and
 * the picture never waits for a rebuild. A channel's render mode is resolved per batch at extract:
 * changing it rebuilds nothing. docs/channels.md "Static batching". */
typedef struct rill_render_batching {
    bool enabled;
    float cell_size;        /* metres; 0 = 64 */
    float build_ms;         /* CPU time for cell (re)builds per extract; 0 = 1 ms (>= 1 mesh) */
    uint32_t static_frames; /* frames without moving before an entity is batched; 0 = 60 */
    float part_size; /* metres; 0 = 16: a batch's members are grouped per sub-cell, culled apart */
    /* entities first taken as candidates per extract; 0 = 4096. The rest draw as instances and
     * are taken by later extracts, and no cell starts a rebuild in the extract after one that
     * left some (their cells would be built again as they arrive): a district streaming in, or
     * the first frame of a world, is spread over frames instead of one long extract. */
    uint32_t new_per_frame;
    /* vertices of one batch mesh at most (unless one member has more); 0 = 16384. A build step
     * merges about this much, so it bounds the work between two looks at the clock. Meshes of one
     * material in one shared block still draw as one indirect call. */
    uint32_t mesh_vertices;
} rill_render_batching;
typedef struct rill_render_batching_stats {
    bool enabled;
    float cell_size, part_size, build_ms;
    uint32_t cells;            /* cells that ever held a candidate */
    uint32_t batches;          /* batch meshes alive */
    uint32_t batched_entities; /* entities in them (every LOD level seen) */
    uint32_t candidates;       /* entities batchable when last walked (batched or waiting) */
    uint32_t materials;        /* distinct materials of the batches (one indirect draw each) */
    uint32_t cells_built_last_frame;  /* builds completed in the last extract */
    uint32_t meshes_built_last_frame; /* batch meshes made in the last extract */
    uint32_t cells_building;          /* collected, their meshes being built step by step */
    uint32_t cells_waiting;           /* queued for a rebuild, beyond the time budget so far */
    uint32_t taken_new_last_frame;    /* entities first taken as candidates in the last extract */
    uint32_t deferred_new_last_frame; /* ... and left to later extracts (new_per_frame spent) */
    uint64_t cells_built;             /* total rebuilds (completed) */
    uint64_t meshes_built;            /* total batch meshes made */
    uint64_t members_changed;         /* collected members left out of their build (changed) */
    uint64_t range_switches;          /* members' ranges turned on or off (LOD switches, fades) */
    double build_ms_last_frame;       /* CPU time building cells in the last extract */
    double build_ms_total, build_ms_max_cell; /* a cell's: all its steps */
} rill_render_batching_stats;
/* Changes the settings from the next extract on (a new cell size or off drops every batch). */
void rill_render_assets_set_batching(rill_render_assets *ra, const rill_render_batching *settings);
void rill_render_assets_get_batching_stats(const rill_render_assets *ra,
                                           rill_render_batching_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_ASSETS_H */
