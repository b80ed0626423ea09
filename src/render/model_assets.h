/* model_assets.h: what extract needs from the render asset cache (model_assets.c). */
#ifndef RILL_RENDER_MODEL_ASSETS_H
#define RILL_RENDER_MODEL_ASSETS_H

#include "rill/render.h"

/* The cache attached to world, or NULL. */
rill_render_assets *rill__render_assets_of(const rill_world *world);
/* The asset server the cache loads through (reflection probes read their sources by its VFS). */
rill_asset_server *rill__render_assets_server(const rill_render_assets *ra);
/* The cache that world's resource `resource` holds, or NULL (none, or destroyed). */
rill_render_assets *rill__render_assets_at(const rill_world *world, uint32_t resource);
/* The GPU mesh and material of one ModelMesh (uploading its asset when needed); false when it
 * cannot be drawn (yet). */
bool rill__render_assets_resolve(rill_render_assets *ra, const rill_model_mesh *mm,
                                 rill_mesh *out_mesh, rill_material *out_material);

/* The material a draw with `mat` (a material of asset `owner`'s upload) uses: mat itself, or with
 * the texture heatmap on the heat material of mat's texture state (a static batch draws its
 * material owner's textures, so it shows their state as its members would show their own). */
rill_material rill__render_assets_drawn_material(rill_render_assets *ra, uint32_t owner,
                                                 rill_material mat);

/* What rill__render_assets_peek found. */
typedef enum rill__resolved {
    RILL__RESOLVE_OK,    /* drawn with *out_mesh, *out_material */
    RILL__RESOLVE_NONE,  /* cannot be drawn (failed upload, or it names what its model lacks) */
    RILL__RESOLVE_SERIAL /* ask rill__render_assets_resolve (the asset is not uploaded yet, or the
                          * texture heatmap is on) */
} rill__resolved;
/* The last entry one peeking thread found (zero = none): a model's primitives come in runs. */
typedef struct rill__assets_cursor {
    uint32_t id;
    const void *entry;
} rill__assets_cursor;
/* rill__render_assets_resolve without side effects, for extract's walk on several threads: it
 * reads the cache only (no upload, no use mark: rill_render_assets_update keeps every asset a
 * ModelMesh names alive). Safe to call from any number of threads while nothing else changes ra.
 */
rill__resolved rill__render_assets_peek(const rill_render_assets *ra, const rill_model_mesh *mm,
                                        rill__assets_cursor *cur, rill_mesh *out_mesh,
                                        rill_material *out_material);

/* The glTF primitive a ModelMesh names (CPU data of the loaded asset), or NULL. */
const rill_gltf_primitive *rill__render_assets_primitive(rill_render_assets *ra,
                                                         const rill_model_mesh *mm);
/* The LOD level of an asset: N for a path ending "_lodN.glb" (or .gltf), else 0. */
uint32_t rill__render_assets_level(rill_render_assets *ra, uint32_t asset_id);
/* The material static batching uses for a ModelMesh: *out_key identifies its content (equal
 * materials of different assets, e.g. LOD levels or models naming the same images, share a key),
 * *out_mat is the first uploaded material with that content and *out_owner the asset holding it
 * (keep it alive with rill__render_assets_touch while the material is drawn). */
bool rill__render_assets_material_of(rill_render_assets *ra, const rill_model_mesh *mm,
                                     uint64_t *out_key, rill_material *out_mat,
                                     uint32_t *out_owner);
/* Marks an asset's upload as used this frame (it is not released). */
void rill__render_assets_touch(rill_render_assets *ra, uint32_t asset_id);
/* What a ModelMesh's texture streaming user needs: its GPU mesh and its material's texstream id
 * (RILL_TEXSTREAM_NONE when it has no streamed material or cannot draw). False while its asset has
 * no upload yet (not loaded): rill__render_assets_uploads tells when to ask again. */
bool rill__render_assets_stream_mesh(rill_render_assets *ra, const rill_model_mesh *mm,
                                     rill_mesh *out_mesh, uint32_t *out_ts_mat);
/* How many uploads (failed ones included) the cache has made so far. */
uint64_t rill__render_assets_uploads(const rill_render_assets *ra);
/* The texture streaming users of the cache (texture_users.h). */
struct rill__tex_users *rill__render_assets_users(rill_render_assets *ra);
/* The static batcher of the cache (batch.h). */
struct rill__batcher *rill__render_assets_batcher(rill_render_assets *ra);

#endif
