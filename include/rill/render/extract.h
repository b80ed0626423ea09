/* rill/render/extract.h: render components and building a snapshot from a world (part of
 * rill/render.h).
 *
 * The components the renderer reads (MeshInstance, lights, models, effect and environment
 * settings), their registration, and rill_render_extract with its caller-owned buffer.
 */
#ifndef RILL_RENDER_EXTRACT_H
#define RILL_RENDER_EXTRACT_H

#include "rill/base.h"
#include "rill/channels.h"
#include "rill/render/snapshot.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Render components. rill_render_register_components registers "MeshInstance" { mesh: u32,
 * material: u32 } (renderer handles; runtime-only, for meshes a program creates itself) and, via
 * rill_scene_model_register (rill/scene/model.h), the asset-naming components the renderer draws:
 * Model, ModelMesh, RenderMode, DirectionalLight, PointLight and SpotLight. */
typedef struct rill_mesh_instance {
    uint32_t mesh, material;
} rill_mesh_instance;

#define RILL_RENDER_MAX_SETTINGS 128u
typedef struct rill_render_components {
    rill_component mesh_instance, directional_light, point_light, spot_light, model, model_mesh,
        render_mode;
    rill_component mesh_shown; /* MeshShown (rill/scene/model.h): the ModelMeshes extract visits */
    rill_component scene_channels; /* SceneChannels (rill/channels.h), attached by register */
    /* Effect settings components (rill/render/effects.h): the engine's three, and every settings
     * type routed to cameras at extract (settings[0..settings_count)). */
    rill_component ssao, bloom, auto_exposure;
    /* Anti-aliasing settings (rill/render/effects.h): TemporalAntiAliasing, Fxaa, Smaa,
     * ContrastAdaptiveSharpening. */
    rill_component taa, fxaa, smaa, cas;
    /* The world's look (rill/render/environment.h): WorldEnvironment, DistanceFog, Atmosphere. */
    rill_component world_environment, distance_fog, atmosphere, skybox, night_stars;
    rill_component settings[RILL_RENDER_MAX_SETTINGS];
    uint32_t settings_count;
} rill_render_components;
/* Registers (or finds, when already registered) the render components. */
/* Also attaches scene channels (rill_channels_attach): defaults and per-channel modes, which
 * rill_render_extract resolves into each instance's mode (hidden > wireframe > ghost > normal,
 * joined with the entity's RenderMode). */
rill_result rill_render_register_components(rill_world *world, rill_render_components *out,
                                            rill_error *err);

/* Snapshot storage owned by the caller, reused across frames (no allocation once grown). */
typedef struct rill_render_extract_buf {
    RILL_ARRAY(rill_render_instance) instances;
    RILL_ARRAY(rill_render_range) ranges; /* of the instances (static batches) */
    RILL_ARRAY(rill_render_light) lights;
    RILL_ARRAY(struct rill_render_probe) probes;
    rill_render_view views[RILL_RENDER_MAX_VIEWS];
    bool warned_views;        /* the "too many cameras" warning was logged */
    bool warned_viewport;     /* the "viewport clamped" warning was logged */
    bool warned_out_of_world; /* ... and the first out_of_world entity */
    bool warned_environments; /* ... and a second WorldEnvironment */
    uint32_t
        out_of_world; /* last extract: entities skipped (world matrix beyond RILL_WORLD_LIMIT) */
    /* last extract: elapsed time sorting the shown ModelMeshes by slot and walking them (batching
     * included when on); the rest of extract is cameras, MeshInstances, terrain and lights */
    uint64_t sort_ns, walk_ns;
    const struct rill_channel_modes *channel_modes; /* the world's, looked up per extract */
    /* routing: per view slot (RILL_RENDER_MAX_VIEWS, then the primary view) its routed copies */
    rill_render_routed_settings routed[RILL_RENDER_MAX_VIEWS + 1][RILL_RENDER_MAX_SETTINGS];
    RILL_ARRAY(unsigned char) routed_bytes;
    RILL_ARRAY(rill_entity) route_sources;
    /* routing: the (source, type, field) keys of the non-finite settings values already warned
     * about (settings_fix.c), at most 256 */
    RILL_ARRAY(uint64_t) settings_warned;
    /* the shown ModelMesh entities in slot order, and the sort's scratch (extract.c) */
    RILL_ARRAY(rill_entity) shown, shown_tmp;
    /* Set by the owner (NULL: serial): the jobs the walk over the shown ModelMeshes is spread
     * over, in chunks merged in order (the snapshot is the same with any number of workers).
     * rill_content passes its app's (rill_app_jobs). With static batching on, NULL walks as the
     * batcher's reference: each entity skipped or taken as it comes. */
    rill_jobs *jobs;
    RILL_ARRAY(struct rill__extract_part) walk_parts; /* per chunk of that walk (extract.c) */
    /* static batching: the walk's notes for the batcher, per chunk from its start (extract.c) */
    RILL_ARRAY(struct rill__walk_seen) walk_seen;
    RILL_ARRAY(struct rill__batch_offer) walk_takes;
    RILL_ARRAY(uint32_t) sort_counts;   /* the slot sort's digit counts per chunk (extract.c) */
    RILL_ARRAY(rill_render_skin) skins; /* skinned instances and their joint matrices */
    RILL_ARRAY(float) joint_matrices;
    RILL_ARRAY(float) morph_weights;
    rill_map skinned; /* MeshSkin entity -> its dense index (extract_skins.c) */
    rill_map morphed; /* MeshMorph entity -> its dense index (extract_skins.c) */
    RILL_ARRAY(struct rill_render_decal) decals;         /* ForwardDecal boxes (post_decal.c) */
    RILL_ARRAY(struct rill_render_fog_box) fog_volumes;  /* FogVolume boxes (fog_volume.c) */
    RILL_ARRAY(struct rill_render_water_box) water;      /* PoolWater boxes (water.c) */
    RILL_ARRAY(struct rill_render_water_surface) oceans; /* Water (ocean.c) */
    /* What changed since the last extract (ON WHAT CHANGED, extract_marks.c): the last extract's
     * instances (the two arrays trade places at each extract), a byte per instance of this one
     * (the snapshot's instance_changed), the epochs of this extract's instances and of the last
     * one's (0: not a finished extract), and the elapsed time of the last extract's marking. */
    RILL_ARRAY(rill_render_instance) prev_instances;
    RILL_ARRAY(uint8_t) instance_changed;
    /* Per instance, its position in the last extract (the snapshot's instance_prev), and the
     * id lookup that finds it (4 to 8 buckets per instance). */
    RILL_ARRAY(uint32_t) instance_prev;
    RILL_ARRAY(uint32_t) lookup;
    uint64_t instance_epoch, prev_epoch;
    uint64_t mark_ns;
} rill_render_extract_buf;
/* Frees the buffer's arrays (a snapshot pointing into it is then invalid). NULL is a no-op. */
void rill_render_extract_buf_free(rill_render_extract_buf *buf);
/* Builds a snapshot from the world: every active camera with a GlobalTransform becomes a view
 * (snapshot views, sorted by order then entity id, at most RILL_RENDER_MAX_VIEWS: the lowest
 * orders are kept and a warning is logged once per buf), and snapshot.view is the primary one
 * (is_default first, then lowest order, then lowest entity id); every MeshInstance with a
 * GlobalTransform, every shown ModelMesh (MeshShown, rill/scene/model.h: LOD levels not drawn are
 * parked out of it) with a GlobalTransform that the world's rill_render_assets resolves (see ON
 * RENDER ASSETS), each with its RenderMode, the sun (the DirectionalLight marked sun, else the
 * one with the lowest entity id), every
 * point and spot light. A camera's viewport is
 * clamped to [0,1] (w, h to what is left of the output). hdr = false means the view is rendered
 * without tonemapping or exposure: tonemapper NONE, so linear values clamp to [0,1]. Returns
 * RILL_ERR_NOT_FOUND when there is no active camera. The snapshot points into buf (valid until
 * buf changes). */
rill_result rill_render_extract(rill_world *world, const rill_render_components *comps,
                                rill_render_extract_buf *buf, rill_render_snapshot *out_snap,
                                rill_error *err);
/* ON WHAT CHANGED
 *   rill_render_extract marks which instances changed since the last extract into the same buf
 *   (rill_render_snapshot.instance_changed): 0 where every field of the instance holds the bytes
 *   of the one at the same position of the last extract (padding is not compared), 1 where one
 *   differs or the last extract had no such position (every position after the first extract, after
 * a failed one, or after rill_render_extract_buf_free). The comparison runs over buf->jobs once the
 * instances are written; the last extract's instances are kept for it (a second instance array the
 * size of the first, 104 bytes per instance, and a byte per instance for the marks). The snapshot's
 *   instance_epoch and instance_changed_since name the two extracts compared, so a renderer
 *   trusts the marks only when it drew the earlier one last. A caller that edits an extracted
 *   instance in place must mark it (buf->instance_changed.data[i] = 1), or GPU culling may keep
 *   drawing it as it was. */
/* After appending instances to buf->instances behind a successful rill_render_extract into
 * snap (rill_content appends its extra instances and far-world proxies): marks the appended ones
 * the same way and points snap at all of buf's instances and marks. A snapshot whose
 * instance_count runs past its marks must not keep instance_changed: call this, or set it NULL.
 * Does nothing (RILL_OK) when snap is not buf's last extract or that extract failed. */
rill_result rill_render_extract_mark_appended(rill_render_extract_buf *buf,
                                              rill_render_snapshot *snap, rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_EXTRACT_H */
