/* rill/render/snapshot.h: what one frame draws, and drawing it (part of rill/render.h).
 *
 * The view (camera, per-view effect settings, viewport, routed settings, render target), drawn
 * instances and their ranges, lights, the sky and image-based light, skins, the snapshot that
 * gathers them, and rill_renderer_render / read_pixels / write_png.
 */
#ifndef RILL_RENDER_SNAPSHOT_H
#define RILL_RENDER_SNAPSHOT_H

#include "rill/base.h"
#include "rill/render/renderer.h"
#include "rill/render/resources.h"
#include "rill/scene/model.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Screen-space ambient occlusion presets: samples per pixel = slices x samples per side x 2. */
typedef enum rill_ssao_quality {
    RILL_SSAO_HIGH = 0, /* 18 samples (3 slices x 3 per side), the default */
    RILL_SSAO_LOW,      /* 4 (1 x 2) */
    RILL_SSAO_MEDIUM,   /* 8 (2 x 2) */
    RILL_SSAO_ULTRA,    /* 54 (9 x 3) */
    RILL_SSAO_CUSTOM,   /* slice_count and samples_per_slice_side as given */
    RILL_SSAO_QUALITY_NUM,
    RILL_SSAO_QUALITY_FORCE_U32 = 0x7FFFFFFF
} rill_ssao_quality;

/* SSAO settings of a view (it also needs the HIGH quality tier). Off means no pass at all. Zero
 * values are defaults: quality High, thickness 0 -> 0.25 (set thickness_set for an explicit 0),
 * radius 0 -> 0.5 world units. Clamped when used: slice_count 1..16, samples_per_slice_side 1..8,
 * thickness >= 0. */
typedef struct rill_render_ssao {
    bool enabled;
    rill_ssao_quality quality;
    uint32_t slice_count, samples_per_slice_side;
    float thickness;
    bool thickness_set;
    float radius;
} rill_render_ssao;

/* Resolves settings to what runs: slices, samples per side and thickness after presets, defaults
 * and clamps. */
void rill_render_ssao_resolve(const rill_render_ssao *s, uint32_t *out_slices,
                              uint32_t *out_per_side, float *out_thickness);

/* Bloom settings of a view (runs at the Medium and High tiers). Zero values are defaults:
 * intensity 0.15 (how much of the blurred light is added), threshold 1.0 (linear HDR brightness
 * where light starts to bloom; set threshold_set for an explicit 0). */
typedef struct rill_render_bloom {
    bool enabled;
    float intensity;
    float threshold;
    bool threshold_set;
} rill_render_bloom;

/* Auto exposure (Medium and High tiers): the average log luminance of the HDR image is brought
 * towards middle grey. Zero values are defaults: rate 0.05 (fraction of the remaining difference
 * closed each frame; the first measured frame jumps straight to the target), min_ev -10, max_ev
 * 10. The result adds to exposure_ev. */
typedef struct rill_render_auto_exposure {
    bool enabled;
    float rate;
    float min_ev, max_ev;
} rill_render_auto_exposure;

/* Passthrough output (Camera.passthrough). OFF: the output is opaque and ghosts draw as normal
 * geometry. MIXED (a see-through display over a camera feed): the output's alpha is 0 where
 * nothing drew (the feed shows), 1 where geometry drew, and a ghost's opacity on its visible
 * pixels; ghosts stay opaque in colour and depth, so what they hide stays hidden. The engine's
 * anti-aliasing and sharpening pass the alpha through; a plugin effect must do so too. */
typedef enum rill_passthrough {
    RILL_PASSTHROUGH_OFF = 0,
    RILL_PASSTHROUGH_MIXED,
    RILL_PASSTHROUGH_NUM
} rill_passthrough;

/* The view. world_from_view is the camera's world matrix (column-major; looks down -Z, +Y up).
 * Defaults (zero): fov_y 0.8 rad, near 0.1, far 1000, tonemapper ACES, exposure 0 EV,
 * clear color black unless given (alpha is ignored). */
typedef struct rill_render_view {
    rill_render_ssao ssao;
    rill_render_bloom bloom;
    rill_render_auto_exposure auto_exposure;
    float world_from_view[16];
    float fov_y, near_plane, far_plane;
    bool orthographic;
    float ortho_height;
    float clear_color[4];
    rill_tonemapper tonemapper;
    float exposure_ev; /* exposure compensation: the HDR color is scaled by 2^exposure_ev */
    /* Where the view lands on the output: normalized x, y, w, h (top-left origin). All zero =
     * the whole output (0, 0, 1, 1). The view clears and draws only its rectangle, with the
     * aspect ratio of the rectangle's pixel size; zero width or height = not drawn. See
     * rill_render_snapshot.views for several views. */
    float viewport[4];
    /* Drawing order among the snapshot's views (Camera.order; lower draws first). */
    int32_t order;
    /* Settings routed to this camera (rill/render/effects.h, ON ROUTING): settings_count copies,
     * one per settings type. rill_render_extract fills them (and ssao/bloom/auto_exposure from the
     * Ssao/Bloom/AutoExposure components); NULL/0 when the view is built by hand. */
    const struct rill_render_routed_settings *settings;
    uint32_t settings_count;
    rill_passthrough passthrough; /* Camera.passthrough */
    /* The Camera entity rill_render_extract made the view from (RILL_ENTITY_NULL for a view built
     * by hand): how tools find a camera's view by its Name (rill render --camera). */
    uint64_t camera;
    /* Camera.target: the render texture (rill_render_target_texture) the view draws into instead
     * of the output (its viewport is then ignored); NULL: the output. */
    const char *target;
    /* The render texture's size (Camera.target_width / target_height, clamped to 16 .. 4096);
     * 0: RILL_RENDER_TARGET_SIZE. */
    uint32_t target_size[2];
} rill_render_view;

/* One routed settings copy: the type's name, the bytes, and the entity it came from. */
typedef struct rill_render_routed_settings {
    const char *type;
    const void *data;
    uint32_t size;
    rill_entity source;
} rill_render_routed_settings;

/* Most views one snapshot carries (rill_render_extract drops the rest, highest order first, with
 * a warning once per extract buffer). */
#define RILL_RENDER_MAX_VIEWS 8u

/* How an instance draws: rill_render_mode (rill/scene/model.h, the RenderMode component). */
/* One drawn mesh. id identifies the instance across frames (for motion vectors); 0 = no
 * history (no motion). */
/* A sub-range of an instance's mesh (rill_render_snapshot.ranges; static batches use them):
 * index_count triangle indices from first_index and edge_count edge indices from first_edge (both
 * relative to the mesh's own), culled on its own bounding sphere (center, radius: mesh space). A
 * range beyond the mesh's indices draws nothing. */
typedef struct rill_render_range {
    uint32_t first_index, index_count;
    uint32_t first_edge, edge_count;
    float center[3], radius;
} rill_render_range;

typedef struct rill_render_instance {
    uint64_t id;
    rill_mesh mesh;
    rill_material material;
    float transform[16];
    rill_render_mode mode;
    float ghost_opacity;
    /* LOD crossfade (NOTES: complementary screen-space dither): 0 draws whole; f in (0, 1) draws
     * the pixels whose 4x4 ordered-dither threshold is below f (the incoming level), -f the rest
     * (the outgoing level), in every pass that draws the mesh, shadows included. Two instances
     * carrying +f and -f cover each pixel exactly once. */
    float lod_fade;
    /* range_count > 0: only ranges [range_first, range_first + range_count) of the snapshot's
     * ranges are drawn, each culled alone (consecutive visible ones that touch draw as one); 0: the
     * whole mesh. Ranges outside the snapshot's: the instance draws nothing. */
    uint32_t range_first, range_count;
} rill_render_instance;

/* Wireframe look. Zero = defaults: color (0.2, 0.85, 1.0, 0.65), fade off, fade_start 8,
 * fade_end 40, min_alpha 0.08. With fade on, alpha = color.a * mix(min_alpha, 1, 1 -
 * smoothstep(fade_start, fade_end, distance)), and an instance whose bounds lie wholly beyond
 * fade_end is skipped. A mesh with an edge buffer (rill_mesh_desc.edge_indices) draws it as
 * lines; one without falls back to polygon-mode lines over its triangles, which need
 * rill_render_stats.fill_mode_non_solid (without it such instances draw nothing). */
typedef struct rill_render_wireframe {
    float color[4];
    bool fade;
    float fade_start, fade_end, min_alpha;
} rill_render_wireframe;

/* Directional light: direction is where the light travels (world), color linear, illuminance a
 * plain multiplier (1 = a white diffuse surface facing the light reflects 1/pi... of it). */
typedef struct rill_render_dir_light {
    float direction[3];
    float color[3];
    float illuminance;
    bool shadows;
    bool marked; /* the DirectionalLight is marked sun (the sky then defaults to the atmosphere) */
} rill_render_dir_light;

typedef enum rill_light_kind {
    RILL_LIGHT_POINT = 0,
    RILL_LIGHT_SPOT,
    RILL_LIGHT_KIND_FORCE_U32 = 0x7FFFFFFF
} rill_light_kind;

/* The most point and spot lights one view shades. A snapshot may hold any number: each view
 * shades the RILL_RENDER_MAX_LIGHTS nearest its camera (ties: the earlier light), so the
 * application never trims or sorts its lights. */
#define RILL_RENDER_MAX_LIGHTS 1024u

/* Point or spot light: intensity / distance^2 falloff, windowed to 0 at range (0 = 20).
 * Spot cones in radians (outer 0 = pi/4; inner 0 = 0). */
typedef struct rill_render_light {
    rill_light_kind kind;
    float position[3];
    float direction[3];
    float color[3];
    float intensity;
    float range;
    float inner_angle, outer_angle;
} rill_render_light;

/* The default sky colour of the image-based light's gradient (rill_render_snapshot.ambient): a
 * slightly blue daylight shade, so a face turned from the sun reads about a fifth as bright as
 * a sunlit one under a sun of illuminance 3. */
#define RILL_RENDER_DEFAULT_AMBIENT_R 0.20f
#define RILL_RENDER_DEFAULT_AMBIENT_G 0.22f
#define RILL_RENDER_DEFAULT_AMBIENT_B 0.26f

/* Where the sky's light comes from (WorldEnvironment's sky mode). */
typedef enum rill_render_sky_mode {
    RILL_RENDER_SKY_COLOR = 0,  /* a gradient from the snapshot's ambient colour */
    RILL_RENDER_SKY_SKYBOX,     /* an image (environment.image) */
    RILL_RENDER_SKY_ATMOSPHERE, /* the physical atmosphere (the sun's direction re-bakes it) */
    RILL_RENDER_SKY_MODE_NUM,
    RILL_RENDER_SKY_MODE_FORCE_U32 = 0x7FFFFFFF
} rill_render_sky_mode;

/* The image-based light (docs/renderer.md, "Image-based light"): the renderer bakes the sky into a
 * prefiltered specular cube and diffuse spherical harmonics that light every surface, re-baking
 * (one cube face a frame) only when what it is baked from changes. Zero = the colour gradient
 * at intensity 1. With an image set (and uploaded), the image is baked instead of the gradient. */
typedef struct rill_render_environment {
    rill_render_sky_mode mode;
    /* Multiplier on all image-based light (WorldEnvironment.ambient): used when intensity_set,
     * else 1. NaN counts as 0; clamped to [0, 1000]. Changing it does not re-bake. */
    float intensity;
    bool intensity_set;
    /* An equirectangular texture (rill_render_texture_create_data, RGBA16F for HDR): its centre
     * column looks along -Z, +X a quarter turn to its right, top row straight up; {0} = the
     * gradient. */
    rill_texture image;
    float rotation;   /* radians, turns the image about +Y */
    float brightness; /* linear multiplier of the image (NaN counts as 0) */
    /* Any change re-bakes: a way to say "the sky changed" for inputs the renderer cannot see. */
    uint32_t version;
} rill_render_environment;

/* What to draw this frame. Arrays are read during rill_renderer_render only. */
/* The pose of one skinned instance: instances[instance] (whose mesh has skin weights) is drawn
 * with the joint matrices joint_matrices[first_joint .. first_joint + joint_count), 16 floats
 * each, column major, in the instance's local space (joint world x inverse bind, then the inverse
 * of the instance's transform). A vertex lands at transform * sum_k weight_k * J[joint_k] * v. An
 * entry whose mesh has no weights, or whose weights name a joint beyond joint_count, is ignored
 * (the instance draws rigid). */
typedef struct rill_render_skin {
    uint32_t instance;
    uint32_t first_joint, joint_count;
    /* Morph weights: morph_weights[first_weight .. first_weight + weight_count), one per morph
     * target of the instance's mesh (weight_count 0: no morph; joint_count 0: no skin). */
    uint32_t first_weight, weight_count;
} rill_render_skin;

typedef struct rill_render_snapshot {
    rill_render_view view;
    const rill_render_instance *instances;
    uint32_t instance_count;
    /* Optional (NULL: any instance may have changed): per instance, 0 when it is byte for byte
     * the instance at the same position of the previous snapshot this renderer drew, non-zero
     * when it may differ (another id, mesh, material, matrix, mode, fade or ranges, or a position
     * the previous snapshot did not have). GPU culling (docs/renderer.md, "GPU-driven culling")
     * passes the unchanged ones without reading them, so a mostly static world costs it a few
     * bytes per instance a frame. A 0 for an instance that did change keeps it drawn as it was.
     * rill_render_extract fills it (rill/render/extract.h, ON WHAT CHANGED). */
    const uint8_t *instance_changed;
    /* Optional (NULL: none): per instance, the position of the previous snapshot (the one
     * instance_changed_since names) that held it byte for byte, UINT32_MAX when none did (a new
     * or changed instance). Unlike instance_changed it follows an instance that moved to another
     * position (a spawn or despawn before it, an LOD level added or removed): GPU culling passes
     * those unread too. Where both are set they agree: instance_prev[i] == i exactly where
     * instance_changed[i] == 0. rill_render_extract fills it; a snapshot built by hand may leave
     * it NULL. */
    const uint32_t *instance_prev;
    /* Which snapshots the marks compare: instance_epoch names this snapshot's instances (unique
     * in the process), instance_changed_since the snapshot they were compared with (0: none, so
     * every position is marked). rill_render_extract sets both; a snapshot built by hand leaves
     * them 0. GPU culling trusts the marks of a snapshot with an epoch only when
     * instance_changed_since is the epoch of the snapshot it scanned last (an application that
     * extracts twice per frame, or one renderer drawing two worlds in turn, is read whole); marks
     * without an epoch are trusted as the previous snapshot's, as before. */
    uint64_t instance_epoch, instance_changed_since;
    const rill_render_range *ranges; /* what instances' range_first / range_count index */
    uint32_t range_count;
    bool has_sun;
    rill_render_dir_light sun;
    const rill_render_light *lights; /* any number: see RILL_RENDER_MAX_LIGHTS */
    uint32_t light_count;
    /* The sky colour of the image-based light's colour gradient (linear radiance at the zenith;
     * 0.7 of it at the horizon, 0.35 below): a uniform sky of colour c lights a white diffuse
     * surface with c. rill_render_extract sets (0.2, 0.22, 0.26). */
    float ambient[3];
    /* The ambient multiplier of views without a WorldEnvironment (rill/render/environment.h):
     * 0 = 1 unless ambient_scale_set, which makes it the value as given (0: no ambient light).
     * rill_content sets both from project.toml's [rendering] ambient. */
    float ambient_scale;
    bool ambient_scale_set;
    rill_render_environment environment;
    rill_render_wireframe wireframe;
    /* Every view of the frame in drawing order (rill_render_extract sorts them by order, then
     * entity id), at most RILL_RENDER_MAX_VIEWS (more are ignored). NULL/0: only `view` is drawn.
     * `view` stays the primary view (rill_render_extract: a copy of the default camera's), which
     * single-view code reads; when views is set the renderer draws views and ignores `view`.
     * Several views, or one not covering the output, turn off SSAO, bloom, auto exposure and
     * clustered lights (docs/renderer.md, Cameras). */
    const rill_render_view *views;
    uint32_t view_count;
    /* Skinned instances (rill_render_extract: every ModelMesh with a MeshSkin, rill/scene/model.h)
     * and the joint matrices they index. */
    const rill_render_skin *skins;
    uint32_t skin_count;
    const float *joint_matrices;
    const float *morph_weights;
    /* Reflection probes (rill/render/reflections.h) and the VFS their sources are read through
     * (NULL: the file system). rill_render_extract fills both. */
    const struct rill_render_probe *probes;
    uint32_t probe_count;
    struct rill_vfs *probe_vfs;
    /* Decal boxes (rill/render/post.h; rill_render_extract: every ForwardDecal with a
     * GlobalTransform). */
    const struct rill_render_decal *decals;
    uint32_t decal_count;
    /* FogVolume boxes (rill/render/volumetric.h; rill_render_extract: every FogVolume with a
     * GlobalTransform). */
    const struct rill_render_fog_box *fog_volumes;
    uint32_t fog_volume_count;
    /* PoolWater boxes (rill/render/water.h; rill_render_extract: every PoolWater with a
     * GlobalTransform). */
    const struct rill_render_water_box *water;
    uint32_t water_count;
    /* Water oceans (rill/render/ocean.h; rill_render_extract: every Water with a GlobalTransform
     * its channels do not hide; the renderer draws one on a camera, else the lowest entity id's).
     */
    const struct rill_render_water_surface *oceans;
    uint32_t ocean_count;
} rill_render_snapshot;

/* Records and submits one frame. Frames pipeline: the call returns once the GPU has the work;
 * rill_renderer_read_pixels waits for it. With a render thread the call returns once the thread
 * has the snapshot (after waiting for the previous frame), and an error of the recording is
 * returned by rill_renderer_sync and by the next call of this one. */
rill_result rill_renderer_render(rill_renderer *r, const rill_render_snapshot *snap,
                                 rill_error *err);
/* ON THE RENDER THREAD
 *   With rill_renderer_desc.render_thread (rill_renderer_query_defaults and rill_content's
 *   projects turn it on; a zero desc leaves it off) the renderer records and submits each frame
 *   on its own thread, so the caller's next frame (the app's update stages: scripts, physics,
 *   streaming decisions, transforms) runs while the previous one is recorded. The hand-off is a
 *   snapshot: rill_renderer_render copies the rill_render_snapshot struct, and everything it
 *   points to must stay unchanged until rill_renderer_sync returns (extract again only after
 *   that). The render thread touches no other caller state; every renderer call made meanwhile
 *   (creating, replacing or destroying meshes, textures and materials, settings, overlay,
 *   read-back) first waits for the frame, so it sees the renderer as the single-threaded order
 *   would and the pixels are the same. rill_renderer_stats does not wait: it reports the last
 *   frame the caller synchronised with (after a hand-off, the frame before it). Callbacks the
 *   renderer makes while recording (setup_graph, effects, plugins) run on the render thread.
 *   Windowed, the window's size and content scale are read on the calling thread in
 *   rill_renderer_render (GLFW allows them there only). rill_content adds a system that calls
 *   rill_renderer_sync first in the extract stage (the stage where uploads begin). */
/* Waits until the render thread has finished the frame handed to it and returns that frame's
 * result (RILL_OK without a render thread). A failure stays until the next rill_renderer_render
 * returns it (that call hands nothing over then). */
rill_result rill_renderer_sync(rill_renderer *r, rill_error *err);
/* Headless: waits for the last frame and copies its RGBA8 pixels (sRGB-encoded, row-major, top row
 * first) into dst, which must hold width * height * 4 bytes. */
rill_result rill_renderer_read_pixels(rill_renderer *r, uint8_t *dst, size_t dst_size,
                                      rill_error *err);
/* Headless: read_pixels + PNG file. */
rill_result rill_renderer_write_png(rill_renderer *r, const char *path, rill_error *err);
void rill_renderer_size(const rill_renderer *r, uint32_t *out_w, uint32_t *out_h);
/* Waits until the GPU is idle. */
rill_result rill_renderer_wait_idle(rill_renderer *r, rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_SNAPSHOT_H */
