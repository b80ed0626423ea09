/* rill/render.h: the Vulkan 1.3 renderer.
 *
 * ON USE
 *   rill_renderer_create opens a device (headless, or on a GLFW window) and builds the pipelines.
 *   Create meshes, textures and materials (handles; the data is copied and uploaded through a
 *   staging ring with a per-frame byte budget, so a resource may take a frame or more to become
 *   drawable; until then it draws nothing). Each frame, fill a rill_render_snapshot (by hand, or
 *   from a world with rill_render_extract) and call rill_renderer_render. Headless renderers read
 *   the result back with rill_renderer_read_pixels or rill_renderer_write_png.
 *
 * ON THE FRAME
 *   shadows (directional light, cascaded) -> prepass (depth, normals, motion vectors) -> opaque
 *   (Cook-Torrance metallic-roughness, clustered point/spot lights, 16-bit float HDR) ->
 *   transparent (sorted back to front, alpha blended) -> wireframe (mesh edge buffers as line
 *   lists; polygon-mode lines for meshes without one) ->
 *   end_main_pass -> tonemapping (compute; ACES fitted or AgX, with exposure, sRGB-encoded 8-bit
 *   output) -> end_main_pass_post_processing -> readback or present.
 *   rill_renderer_desc.setup_graph lets a caller add passes between the anchors every frame
 *   (see rill/render/graph.h); rill_render_fx runs user compute shaders there.
 *
 * ON WINDOWS
 *   Pass a GLFW window created with GLFW_CLIENT_API = GLFW_NO_API after glfwInit (the caller owns
 *   GLFW); the swapchain follows the framebuffer size. vsync true = FIFO, false = MAILBOX, else
 *   IMMEDIATE.
 *
 * ON ERRORS
 *   Every Vulkan result is checked; failures come back as rill_result with a message in the
 *   rill_error. With validation on (debug builds, RILL_VALIDATION=1, or desc.validation = 1)
 *   every validation warning or error is logged and counted
 *   (rill_render_stats.validation_messages). RILL_SYNC_VALIDATION=1 adds synchronization checks.
 *
 * ON DEVICES
 *   The device is chosen discrete > integrated > virtual > CPU among those with Vulkan 1.3,
 *   dynamicRendering, synchronization2 and timelineSemaphore. desc.device_name or the environment
 *   variable RILL_DEVICE (a case-insensitive substring of the device name) overrides the choice.
 */
#ifndef RILL_RENDER_H
#define RILL_RENDER_H

#include "rill/base.h"
#include "rill/channels.h"
#include "rill/formats/gltf.h"
#include "rill/formats/rmip.h"
#include "rill/render/graph.h"
#include "rill/scene/model.h"
#include "rill/stream/textures.h"
#include "rill/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rill_renderer rill_renderer;

/* Handles: 0 is invalid; a stale handle draws nothing and destroying it is a no-op. */
typedef struct rill_mesh {
    uint32_t id;
} rill_mesh;
typedef struct rill_texture {
    uint32_t id;
} rill_texture;
typedef struct rill_material {
    uint32_t id;
} rill_material;

typedef enum rill_tonemapper {
    RILL_TONEMAP_DEFAULT = 0, /* = ACES fitted */
    RILL_TONEMAP_ACES,
    RILL_TONEMAP_AGX,
    RILL_TONEMAP_NONE, /* clamp only */
    RILL_TONEMAP_NUM,
    RILL_TONEMAP_FORCE_U32 = 0x7FFFFFFF
} rill_tonemapper;

/* The frame graph as the renderer hands it to effects (rill_render_effect_ctx.frame) and to
 * setup_graph: the graph and the handles of its anchors and engine images, valid while this frame's
 * graph is built. A handle is {0} while its pass or image is not yet added (effects of the GI
 * phase run before end_main_pass exists) or when the frame has none. */
typedef struct rill_render_graph {
    rill_rg *graph;
    rill_rg_pass end_main_pass, tonemapping, end_main_pass_post_processing;
    rill_rg_pass output;                             /* the present or readback pass */
    rill_rg_image depth, normal, motion, shadow_map; /* view 0's */
    rill_rg_image hdr;       /* the lit HDR colour (before the effects of the HDR phases) */
    rill_rg_image ldr;       /* the tonemapped 8-bit colour (before the LDR effects) */
    rill_rg_buffer exposure; /* auto exposure's state */
} rill_render_graph;

/* Called while the frame graph is built, after the engine's passes and anchors exist; add passes
 * and edges here (fg->graph, fg's handles). The graph is rebuilt every frame. */
typedef rill_result (*rill_render_setup_graph_fn)(const rill_render_graph *fg, void *user,
                                                  rill_error *err);

/* Debug switches (rill_renderer_desc.debug_flags). */
enum {
    /* Shade every point/spot light at every pixel instead of using the clustered light lists
     * (reference output for testing the clustering). */
    RILL_RENDER_DEBUG_FLAT_LIGHT_LIST = 1u << 0,
    /* Show the prepass outputs instead of the shaded image: world normals as n * 0.5 + 0.5, or
     * motion vectors as (0.5 + 100 * motion in UV units, 0.5 + 100 * ..., 0.5). */
    RILL_RENDER_DEBUG_VIEW_NORMALS = 1u << 1,
    RILL_RENDER_DEBUG_VIEW_MOTION = 1u << 2,
    /* GPU-driven culling and drawing for the single-view frame (docs/renderer.md "GPU-driven
     * culling"): plain opaque instances stay resident on the GPU, updated by what changed, and a
     * compute pass culls them against the view and each shadow cascade into indirect draws;
     * everything else keeps the CPU path. */
    RILL_RENDER_DEBUG_GPU_CULL = 1u << 3,
};

/* Quality tiers. They pick the shadow map size and switch effects off, never on: SSAO runs only
 * at HIGH, bloom and auto exposure at MEDIUM and HIGH. The tier is a ceiling: it keeps an effect
 * out of the frame while the camera's routed settings (and their sources) stay as they are, so
 * raising it (rill_renderer_set_quality) restores them. On an integrated GPU a tier other than LOW
 * logs one hint at creation (rill_renderer_settings.hint). */
typedef enum rill_render_quality {
    RILL_RENDER_QUALITY_DEFAULT = 0, /* = MEDIUM */
    RILL_RENDER_QUALITY_LOW,
    RILL_RENDER_QUALITY_MEDIUM,
    RILL_RENDER_QUALITY_HIGH,
    RILL_RENDER_QUALITY_NUM,
    RILL_RENDER_QUALITY_FORCE_U32 = 0x7FFFFFFF
} rill_render_quality;

/* Renderer description. All zero = defaults:
 *   width, height 0 = 1280x720 (headless target size; windowed uses the surface size);
 *   glfw_window NULL = headless; vsync (windowed) false = MAILBOX, else IMMEDIATE; true = FIFO;
 *   device_name NULL = automatic (or RILL_DEVICE);
 *   validation 0 = on in debug builds or when RILL_VALIDATION=1; 1 = on; -1 = off;
 *   frames_in_flight 0 = 2 (max 3); upload_budget_bytes 0 = 32 MiB per frame;
 *   quality DEFAULT = MEDIUM; shadow_map_size 0 = the tier's size per cascade (Low 512, Medium
 *   1024, High 2048); shadow_cascades 0 = 4 (max 4);
 *   shadow_distance 0 = 60 world units; pipeline_cache_path NULL = no disk cache;
 *   render_scale 0 = 1.0: the 3D passes render at this fraction of the logical window (clamped
 *   to [0.1, 2]; never above the output's physical size: no supersampling, see
 *   rill_renderer_set_render_scale) and tonemapping upscales bilinearly to the full output;
 *   jobs NULL = record on the calling thread alone; else the frame's culling is split over these
 *   jobs (rill_jobs_for: the calling thread takes part, the draw lists and images are the same
 *   as without; the app's rill_app_jobs is the usual choice, rill_content_renderer_desc sets it).
 *   Borrowed: it must stay valid while the renderer records frames; voxel-cone GI voxelizes
 *   its bricks over these jobs too.
 *   gi_voxel_budget 0 = 50,000: the CPU voxelization of the voxel-cone GI tiers (SdfLow,
 *   SdfHigh) spends at most this many work units a frame (one triangle or one instance examined
 *   against a brick = 1 unit; rill_render_stats.gi_voxel_units says what the last frame spent). */
typedef struct rill_renderer_desc {
    uint32_t start_canary; /* must be 0 */
    uint32_t width, height;
    rill_render_quality quality;
    void *glfw_window;
    bool vsync;
    const char *device_name;
    int validation;
    bool sync_validation;
    uint32_t frames_in_flight;
    uint64_t upload_budget_bytes;
    uint32_t shadow_map_size;
    uint32_t shadow_cascades;
    float shadow_distance;
    const char *pipeline_cache_path;
    float render_scale;
    uint32_t debug_flags; /* RILL_RENDER_DEBUG_* bits */
    rill_render_setup_graph_fn setup_graph;
    void *setup_graph_user;
    rill_jobs *jobs;
    uint32_t gi_voxel_budget;
    uint32_t end_canary; /* must be 0 */
} rill_renderer_desc;

/* The defaults applied to a zero desc (for tests and tools). */
rill_renderer_desc rill_renderer_query_defaults(void);

/* Opens the device and builds pipelines. NULL on failure with err saying why (no Vulkan driver is
 * RILL_ERR_NO_DEVICE). Destroy with rill_renderer_destroy. */
rill_renderer *rill_renderer_create(const rill_renderer_desc *desc, rill_error *err);
/* Waits for the GPU and frees everything, including meshes, textures and materials still alive.
 * NULL is a no-op. */
void rill_renderer_destroy(rill_renderer *r);
/* Replaces desc.debug_flags from the next frame on. */
void rill_renderer_set_debug_flags(rill_renderer *r, uint32_t flags);
/* Changes render_scale from the next frame on: a fraction of the logical window, clamped to
 * [0.1, 2] (0 = 1). The 3D images are render_scale / display scale of the output (the display
 * scale is the window's content scale, 1 headless), never above the output: no supersampling.
 * The overlay is always drawn at the output's resolution. */
void rill_renderer_set_render_scale(rill_renderer *r, float scale);
/* Changes the quality tier from the next frame on (DEFAULT = MEDIUM): the ceiling on effects and,
 * unless desc.shadow_map_size was given, the shadow map size. Raising it brings back every effect
 * the cameras' routed settings still hold (the ceiling never touches the settings). */
void rill_renderer_set_quality(rill_renderer *r, rill_render_quality quality);
/* Windowed: switches vsync (FIFO; off: MAILBOX, else IMMEDIATE) by making the swapchain again at
 * the next frame. Headless: only recorded. */
void rill_renderer_set_vsync(rill_renderer *r, bool vsync);

/* What the renderer applies now. */
typedef struct rill_renderer_settings {
    rill_render_quality quality;
    uint32_t shadow_map_size;   /* per cascade */
    float render_scale;         /* asked, of the logical window ([0.1, 2]) */
    float display_scale;        /* physical pixels per logical pixel (1 headless) */
    float render_scale_applied; /* of the output: min(render_scale / display_scale, 1) */
    uint32_t width, height;     /* output */
    uint32_t width_3d, height_3d;
    bool vsync;               /* asked: FIFO present mode (windowed) */
    const char *present_mode; /* the swapchain's: "fifo", "mailbox", "immediate"; "none" headless */
    bool integrated_gpu;      /* the device is an integrated GPU */
    /* The integrated-GPU hint of this launch (integrated GPU and a tier other than Low, logged
     * once at creation; cleared by choosing Low), "" when none. Show it; it changes nothing. */
    const char *hint;
} rill_renderer_settings;
void rill_renderer_get_settings(const rill_renderer *r, rill_renderer_settings *out);
/* Resizes the headless target (windowed renderers follow the surface). */
rill_result rill_renderer_resize(rill_renderer *r, uint32_t width, uint32_t height,
                                 rill_error *err);

/* >>resources -------------------------------------------------------------------------------- */

/* The vertex layout meshes use: 48 bytes. tangent.w is the bitangent sign; a zero tangent makes
 * the shader derive one from screen-space derivatives. */
typedef struct rill_vertex {
    float position[3];
    float normal[3];
    float uv[2];
    float tangent[4];
} rill_vertex;

/* The skin weights of one vertex of a skinned mesh (rill_mesh_desc.skin): four joint indices into
 * the joint matrices an instance is drawn with (rill_render_skin) and their weights, which should
 * sum to 1. 24 bytes. */
typedef struct rill_vertex_skin {
    uint16_t joints[4];
    float weights[4];
} rill_vertex_skin;

/* Mesh description: vertices and 32-bit indices (copied; the caller keeps ownership). An edge
 * buffer (optional; rill/formats/edges.h, a glTF primitive's RILL_mesh_edges) is a line list over
 * the same vertices: the wireframe pass draws it as lines, and a mesh without one as polygon-mode
 * lines over its triangles. A merged (batched) mesh keeps its parts' edges by offsetting each
 * part's edge indices by the part's first vertex, as its triangle indices are.
 * share_indices: a live mesh whose index buffer this mesh draws with instead of uploading its own
 * (many meshes with one topology, e.g. terrain chunks of one resolution): indices is then ignored,
 * index_count must be 0 or that mesh's count, and vertex_count must cover its largest index. The
 * mesh also draws that mesh's edge buffer (edge_indices must then be empty): a grid's edges, like
 * its triangles, depend only on its resolution. Both buffers live until the last mesh using them
 * is destroyed.
 * A mesh keeps a CPU copy of its positions and triangle indices (12 bytes a vertex and 4 an index)
 * so that picking hits MeshInstance entities exactly (rill_render_mesh_triangles); gpu_only skips
 * it, for meshes picked another way (glTF models through their asset, terrain chunks through the
 * heights) or never. A mesh sharing the indices of a gpu_only mesh keeps no copy either. */
typedef struct rill_mesh_desc {
    uint32_t start_canary; /* must be 0 */
    const rill_vertex *vertices;
    uint32_t vertex_count;
    const uint32_t *indices;
    uint32_t index_count; /* a multiple of 3 */
    const char *label;
    const uint32_t *edge_indices; /* NULL = no edge buffer */
    uint32_t edge_index_count;    /* a multiple of 2 */
    rill_mesh share_indices;
    bool gpu_only; /* keep no CPU copy of the triangles (see below) */
    /* vertex_count skin weights (copied), NULL = a rigid mesh. An instance of a skinned mesh that
     * the snapshot gives joint matrices (rill_render_snapshot.skins) is skinned on the GPU before
     * any pass draws it; without them it draws in its rest pose. */
    const rill_vertex_skin *skin;
    /* Morph targets (copied), 0 = none: per vertex, each target's position (and, when
     * morph_normals is set, normal) displacement, vertex-major: vertex v's target t at
     * [(v * morph_target_count + t) * 3]. An instance given weights (rill_render_skin) is
     * displaced by sum_t weight_t * delta_t (before skinning) on the GPU; without them it draws
     * undisplaced. At most 256 targets. */
    uint32_t morph_target_count;
    const float *morph_positions;
    const float *morph_normals;
    /* Per-vertex extras (copied; NULL = none): colors, RGBA per vertex in [0, 1] (clamped; kept
     * at 16 bits each), multiplied into the material's base colour and alpha (glTF COLOR_0);
     * uv1, a second UV set that texture slots with uv_sets[slot] 1 sample (glTF TEXCOORD_1). A
     * mesh without colors draws white, one without uv1 samples (0, 0) there. A mesh with extras
     * keeps buffers of its own (static batching leaves it out). */
    const float *colors;
    const float *uv1;
    uint32_t end_canary; /* must be 0 */
} rill_mesh_desc;

/* Creates a mesh: validates the indices (and edge indices), copies the data and queues the upload
 * (drawable once uploaded). Returns {0} with err set on bad input (a stale share_indices included)
 * or when the pool (65536) is full. */
rill_mesh rill_render_mesh_create(rill_renderer *r, const rill_mesh_desc *desc, rill_error *err);
/* A mesh's index count and local bounding sphere, for CPU-side counters (a fly-through's triangle
 * counts without drawing). False for a stale handle (the outputs are then untouched); outputs may
 * be NULL. */
bool rill_render_mesh_info(const rill_renderer *r, rill_mesh mesh, uint32_t *out_index_count,
                           float out_center[3], float *out_radius);
/* A mesh's edge-buffer index count (2 per edge); 0 without one or for a stale handle. */
uint32_t rill_render_mesh_edge_count(const rill_renderer *r, rill_mesh mesh);
/* The CPU copy of a mesh's triangles that picking tests: positions, the triangle list and the local
 * box, borrowed until the mesh is destroyed. False for a stale handle and for meshes that keep no
 * copy (gpu_only, merged static batches). */
bool rill_render_mesh_triangles(const rill_renderer *r, rill_mesh mesh, rill_pick_mesh *out);
/* Lets rill_channels_pick hit MeshInstance entities: sets desc's mesh_source to the triangles of
 * the mesh each one draws (rill_render_mesh_triangles of r, which must outlive the pick). */
void rill_render_pick_source(const rill_renderer *r, rill_pick_desc *desc);
/* Releases a mesh once the frames using it are done. Stale or zero handles are a no-op. */
void rill_render_mesh_destroy(rill_renderer *r, rill_mesh mesh);
/* Procedural meshes (through the same upload path): unit cube (-0.5..0.5), UV sphere of radius
 * 0.5 (segments 0 = 32), plane of size 1 in XZ facing +Y. */
rill_mesh rill_render_mesh_cube(rill_renderer *r, rill_error *err);
rill_mesh rill_render_mesh_sphere(rill_renderer *r, uint32_t segments, rill_error *err);
rill_mesh rill_render_mesh_plane(rill_renderer *r, rill_error *err);

/* RGBA8 texture, tightly packed (copied). srgb: color data (base color, emissive) vs linear data
 * (normal, metallic-roughness, occlusion). A full mip chain is generated. */
typedef struct rill_texture_desc {
    uint32_t start_canary; /* must be 0 */
    const uint8_t *pixels;
    uint32_t width, height;
    bool srgb;
    const char *label;
    uint32_t end_canary; /* must be 0 */
} rill_texture_desc;
/* Creates a texture (pixels copied, upload queued). Returns {0} with err set on bad input. */
rill_texture rill_render_texture_create(rill_renderer *r, const rill_texture_desc *desc,
                                        rill_error *err);
/* A texture from prepared levels in their own format (a .rmip payload: rill_rmip_read, or the
 * rmip asset loader): BC1, BC4, BC5 and BC7 stay block-compressed on the GPU (sRGB or linear as
 * tex->srgb says; BC4 samples as (r, 0, 0, 1), BC5 as (r, g, 0, 1)); RGBA8 and RGBA16F upload as
 * they are. Every level of tex is uploaded as given and none is generated: levels[0] is the
 * image's base (tex->width x tex->height, any size, odd and non-multiple-of-4 included) and level
 * i must be max(1, width >> i) x max(1, height >> i) with exactly rill_tex_level_size bytes. A
 * device without textureCompressionBC gets the BC levels decoded to RGBA8 here (BC3 from legacy
 * files always is). {0} with err set on a broken chain or an unknown format. */
/* Render textures: a camera whose Camera.target (rill_render_view.target) names one draws into it
 * instead of the output, with its own effects, before the other cameras; a material whose image
 * URI is "target:NAME" (a glTF image, resolved by rill_render_model_create) samples it: cameras
 * drawing to the output see this frame's image, cameras drawing to a render texture last
 * frame's (a camera never waits for itself). RILL_RENDER_TARGET_SIZE square, RGBA8 sRGB, one mip
 * level, black until drawn. */
#define RILL_RENDER_TARGET_SIZE 512u
#define RILL_RENDER_MAX_TARGETS 16u
/* The render texture named `name` (1 to 63 characters), made on first use and owned by the
 * renderer (rill_render_texture_destroy ignores it). {0} with err set for a bad name or beyond
 * RILL_RENDER_MAX_TARGETS. */
rill_texture rill_render_target_texture(rill_renderer *r, const char *name, rill_error *err);

rill_texture rill_render_texture_create_data(rill_renderer *r, const rill_tex_data *tex,
                                             const char *label, rill_error *err);
/* Replaces the contents of tex with another mip range of the same image (texture streaming swaps
 * a full chain and its "#low" tail both ways): tex must have been made from a rill_tex_data of the
 * same format, colour space and full size (full_width x full_height; 0 = width x height). A new
 * GPU image is made for data's levels and uploaded; the swap is atomic: every frame draws either
 * the old image or the new one, never a partial upload. At the start of the first frame whose
 * upload holds the new image, the texture switches to it, the materials that use the texture get
 * new descriptor sets, and the old image (and sets) are freed once the frames using them are done.
 * GPU memory follows the levels present. rill_render_texture_pending says whether a replacement
 * is still waiting. {err} on a different image or a broken chain (the texture is unchanged). */
rill_result rill_render_texture_replace(rill_renderer *r, rill_texture tex,
                                        const rill_tex_data *data, rill_error *err);
/* Replaces count textures together: every one is checked first (nothing is queued when one
 * fails), and they switch at the start of one frame, the first whose uploads hold all of them
 * (the staging budget may spread their uploads over several frames; none switches before the
 * last has landed). Texture streaming swaps a material's slots with it, so no frame draws a
 * material with some slots switched and others not. A texture replaced again before its batch
 * switched leaves that batch for the new one. */
rill_result rill_render_texture_replace_many(rill_renderer *r, uint32_t count,
                                             const rill_texture *tex,
                                             const rill_tex_data *const *data, rill_error *err);
/* rill_render_texture_replace_many without copying the level bytes on this call: data[k]'s
 * levels are read when a later frame records their upload (within the staging budget), so they
 * must stay valid until release(users[k]) runs. release runs exactly once for every k: when the
 * upload was recorded, the texture replaced again or destroyed, the renderer destroyed, or at once
 * (on failure, or when the levels had to be decoded to RGBA8 and were copied). Texture streaming
 * hands the loaded .rmip payloads over this way (a 1024^2 BC7 chain copied on the main thread cost
 * about 0.8 ms). */
typedef void (*rill_render_release_fn)(void *user);
rill_result rill_render_texture_replace_many_borrowed(rill_renderer *r, uint32_t count,
                                                      const rill_texture *tex,
                                                      const rill_tex_data *const *data,
                                                      rill_render_release_fn release,
                                                      void *const *users, rill_error *err);
bool rill_render_texture_pending(const rill_renderer *r, rill_texture tex);
/* Releases a texture (deferred). Destroy the materials that use it first. Stale handles: no-op. */
void rill_render_texture_destroy(rill_renderer *r, rill_texture tex);

typedef enum rill_alpha_mode {
    RILL_ALPHA_OPAQUE = 0,
    RILL_ALPHA_MASK,
    RILL_ALPHA_BLEND,
    RILL_ALPHA_NUM,
    RILL_ALPHA_FORCE_U32 = 0x7FFFFFFF
} rill_alpha_mode;

/* How a texture is addressed outside [0, 1]. */
typedef enum rill_texture_wrap {
    RILL_TEXTURE_WRAP_REPEAT = 0,
    RILL_TEXTURE_WRAP_CLAMP,
    RILL_TEXTURE_WRAP_MIRROR,
    RILL_TEXTURE_WRAP_NUM,
    RILL_TEXTURE_WRAP_FORCE_U32 = 0x7FFFFFFF
} rill_texture_wrap;

/* A material's texture slots (index of rill_material_desc.samplers and .transforms). */
enum {
    RILL_MATERIAL_TEX_BASE_COLOR = 0,
    RILL_MATERIAL_TEX_NORMAL,
    RILL_MATERIAL_TEX_METALLIC_ROUGHNESS,
    RILL_MATERIAL_TEX_OCCLUSION,
    RILL_MATERIAL_TEX_EMISSIVE,
    RILL_MATERIAL_TEX_SPECULAR,            /* alpha: KHR_materials_specular strength */
    RILL_MATERIAL_TEX_SPECULAR_COLOR,      /* rgb (sRGB): specular colour */
    RILL_MATERIAL_TEX_CLEARCOAT,           /* red: clear coat strength */
    RILL_MATERIAL_TEX_CLEARCOAT_ROUGHNESS, /* green: clear coat roughness */
    RILL_MATERIAL_TEX_CLEARCOAT_NORMAL,    /* the clear coat's normal map */
    RILL_MATERIAL_TEX_TRANSMISSION,        /* red: transmission */
    RILL_MATERIAL_TEX_THICKNESS,           /* green: volume thickness */
    RILL_MATERIAL_TEX_SHEEN_COLOR,         /* rgb (sRGB): sheen colour */
    RILL_MATERIAL_TEX_SHEEN_ROUGHNESS,     /* alpha: sheen roughness */
    RILL_MATERIAL_TEX_NUM
};

typedef enum rill_texture_filter {
    RILL_TEXTURE_FILTER_LINEAR = 0,
    RILL_TEXTURE_FILTER_NEAREST,
    RILL_TEXTURE_FILTER_FORCE_U32 = 0x7FFFFFFF
} rill_texture_filter;
typedef enum rill_texture_mip_filter {
    RILL_TEXTURE_MIP_LINEAR = 0, /* trilinear (anisotropic on GPUs when min is linear) */
    RILL_TEXTURE_MIP_NEAREST,
    RILL_TEXTURE_MIP_NONE, /* the base level only */
    RILL_TEXTURE_MIP_FORCE_U32 = 0x7FFFFFFF
} rill_texture_mip_filter;

/* One texture slot's sampler. set false = the material-wide wrap (both axes) and nearest
 * (magnification) apply, with linear minification and mips. */
typedef struct rill_texture_sampler {
    bool set;
    rill_texture_wrap wrap_u, wrap_v;
    rill_texture_filter mag_filter, min_filter;
    rill_texture_mip_filter mip_filter;
} rill_texture_sampler;

/* One texture slot's UV transform (glTF KHR_texture_transform): uv' = T(offset) * R(rotation) *
 * S(scale) * uv, rotation in radians counter-clockwise in UV space. set false = identity. */
typedef struct rill_texture_transform {
    bool set;
    float offset[2];
    float rotation;
    float scale[2];
} rill_texture_transform;

typedef enum rill_material_kind {
    RILL_MATERIAL_PBR = 0, /* glTF metallic-roughness */
    RILL_MATERIAL_TERRAIN, /* splat layers blended by a weight map (see rill_material_desc) */
    RILL_MATERIAL_KIND_NUM,
    RILL_MATERIAL_KIND_FORCE_U32 = 0x7FFFFFFF
} rill_material_kind;

/* Metallic-roughness material. A zero desc gives glTF's defaults: base_color (1,1,1,1) (used when
 * all four components are 0), metallic 0, roughness 1 (a 0 roughness means "default" unless
 * roughness_set is true), emissive (0,0,0), normal_scale 1, occlusion_strength 1 (0 means
 * default for both), alpha_cutoff 0.5, opaque, single-sided. A texture handle of 0 means none
 * (white, or a flat normal). Textures are referenced, not owned: destroy materials first. */
typedef struct rill_material_desc {
    uint32_t start_canary; /* must be 0 */
    float base_color[4];
    float metallic;
    float roughness;
    bool roughness_set; /* take roughness as given even when 0 */
    float emissive[3];
    float normal_scale;
    float occlusion_strength;
    float alpha_cutoff;
    rill_alpha_mode alpha_mode;
    bool double_sided;
    rill_texture_wrap wrap; /* default repeat (both axes, slots without their own sampler) */
    bool nearest;           /* magnify with nearest texels (pixel art); default linear */
    rill_texture base_color_texture, normal_texture, metallic_roughness_texture, occlusion_texture,
        emissive_texture;
    rill_texture_sampler samplers[RILL_MATERIAL_TEX_NUM];     /* per slot (RILL_MATERIAL_TEX_*) */
    rill_texture_transform transforms[RILL_MATERIAL_TEX_NUM]; /* per slot */
    /* The UV set each slot samples (before its transform): 0 the vertex uv, 1 the mesh's uv1. */
    uint8_t uv_sets[RILL_MATERIAL_TEX_NUM];
    /* glTF KHR_materials_unlit: the base colour (times the vertex colour) is drawn as it is, with
     * no light, shadow or emission. */
    bool unlit;
    /* Dielectric reflectance (glTF KHR_materials_ior and KHR_materials_specular): ior 0 = 1.5;
     * without specular_set, specular 1 and specular_color white. The reflectance at normal
     * incidence of the non-metal part is min(((ior - 1) / (ior + 1))^2 * specular_color, 1) *
     * specular, at grazing angles specular. */
    float ior;
    bool specular_set;
    float specular;
    float specular_color[3];
    /* Their textures (0 = none, white): specular strength times specular_texture's alpha, the
     * colour times specular_color_texture's RGB (sRGB). */
    rill_texture specular_texture, specular_color_texture;
    /* glTF KHR_materials_clearcoat: a second, dielectric (ior 1.5) GGX layer of this strength
     * (0..1) and roughness over the geometric normal, darkening what is under it by its Fresnel
     * reflectance. 0 = none. Strength times clearcoat_texture's red, roughness times
     * clearcoat_roughness_texture's green; clearcoat_normal_texture (scaled by
     * clearcoat_normal_scale, 0 = 1) bends the coat's normal in the mesh's tangent frame. */
    float clearcoat, clearcoat_roughness;
    rill_texture clearcoat_texture, clearcoat_roughness_texture, clearcoat_normal_texture;
    float clearcoat_normal_scale;
    /* glTF KHR_materials_transmission: the share (0..1, times transmission_texture's red) of the
     * non-metal part's diffuse light replaced by what lies behind the surface, tinted by the base
     * colour and blurred by its roughness (the opaque image of the view, refracted through
     * the surface when it has a volume). A material with transmission draws after the opaque
     * surfaces, in the transparent pass, like a blended one (it casts no shadow). */
    float transmission;
    rill_texture transmission_texture;
    /* glTF KHR_materials_volume (volume_set; else thin-walled): thickness in the mesh's units
     * (times thickness_texture's green) bends the refracted view; light fades to
     * attenuation_color after attenuation_distance (0 = it never fades). */
    bool volume_set;
    float thickness;
    rill_texture thickness_texture;
    float attenuation_distance;
    float attenuation_color[3];
    /* glTF KHR_materials_sheen: a cloth-like layer (Charlie distribution, Ashikhmin visibility)
     * of this colour (times sheen_color_texture's RGB, sRGB; black = none) and roughness (times
     * sheen_roughness_texture's alpha) that brightens grazing angles; what is under it loses
     * the light the sheen reflects. */
    float sheen_color[3];
    float sheen_roughness;
    rill_texture sheen_color_texture, sheen_roughness_texture;
    const char *label;
    /* kind TERRAIN: the terrain splat material (rill_render_terrain makes these). Up to 4 layers
     * blended by splat_weights (RGBA, one channel per layer, sampled with the mesh uv; linear, not
     * sRGB), each layer its layer_color times its quadrant of layer_albedo_atlas (sRGB) with the
     * normal of its quadrant of layer_normal_atlas, tiled every layer_tile metres in world XZ
     * (quadrant of layer i: column i % 2, row i / 2). Missing textures: white albedo, flat normals,
     * equal weights for the layer_count layers. The PBR texture fields, emissive and alpha are
     * ignored; metallic, roughness and normal_scale apply. Opaque only. */
    rill_material_kind kind;
    rill_texture splat_weights, layer_albedo_atlas, layer_normal_atlas;
    uint32_t layer_count; /* 0 = 1; at most 4 */
    float layer_color[4][4];
    float layer_tile[4]; /* metres; 0 = 8 */
    uint32_t end_canary; /* must be 0 */
} rill_material_desc;
/* Creates a material; desc may be NULL (all defaults). Returns {0} with err set on failure. */
rill_material rill_render_material_create(rill_renderer *r, const rill_material_desc *desc,
                                          rill_error *err);
/* Releases a material (deferred). Stale handles are a no-op. */
void rill_render_material_destroy(rill_renderer *r, rill_material mat);

/* >>frame ------------------------------------------------------------------------------------ */

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
     * 0 = 1. rill_content sets it from project.toml's [rendering] ambient. */
    float ambient_scale;
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
 * rill_renderer_read_pixels waits for it. */
rill_result rill_renderer_render(rill_renderer *r, const rill_render_snapshot *snap,
                                 rill_error *err);
/* Headless: waits for the last frame and copies its RGBA8 pixels (sRGB-encoded, row-major, top row
 * first) into dst, which must hold width * height * 4 bytes. */
rill_result rill_renderer_read_pixels(rill_renderer *r, uint8_t *dst, size_t dst_size,
                                      rill_error *err);
/* Headless: read_pixels + PNG file. */
rill_result rill_renderer_write_png(rill_renderer *r, const char *path, rill_error *err);
void rill_renderer_size(const rill_renderer *r, uint32_t *out_w, uint32_t *out_h);
/* Waits until the GPU is idle. */
rill_result rill_renderer_wait_idle(rill_renderer *r, rill_error *err);

/* >>effects ---------------------------------------------------------------------------------- */

/* An in-place compute effect: user SPIR-V run over a whole graph image (typically hdr between
 * end_main_pass and tonemapping, or "ldr" between tonemapping and end_main_pass_post_processing).
 * Shader contract: set 0, binding 0 is the target as a read-write storage image (declare it
 * `rgba16f` for "hdr", `rgba8` for "ldr"); push constants start with `uvec2 size` followed by up to
 * 112 bytes of parameters; the dispatch covers size with groups of group_size x group_size. */
typedef struct rill_render_fx rill_render_fx;

/* Builds the pipeline. spirv is copied. Destroy with rill_render_fx_destroy (before the renderer).
 */
rill_render_fx *rill_render_fx_create(rill_renderer *r, const uint32_t *spirv, size_t spirv_size,
                                      const char *label, uint32_t group_size, rill_error *err);
/* Releases the effect (deferred on the GPU). NULL is a no-op. */
void rill_render_fx_destroy(rill_renderer *r, rill_render_fx *fx);
/* From a setup_graph callback: adds a pass labelled `label` that reads and writes `target` in place
 * with `params` (copied) and returns it ({0} with err set on failure); order it with
 * rill_rg_add_edges between two anchors. */
rill_rg_pass rill_render_fx_add(rill_rg *graph, rill_render_fx *fx, const char *label,
                                rill_rg_image target, const void *params, uint32_t params_size,
                                rill_error *err);

/* >>models ----------------------------------------------------------------------------------- */

/* A glTF model turned into renderer resources: one mesh per primitive, one material per glTF
 * material (plus a default), one texture per glTF texture that a material uses, and one instance
 * per (node, primitive) of the default scene with its world matrix. All arrays are owned by the
 * model and released (with the GPU resources) by rill_render_model_destroy. The meshes are
 * gpu_only: the glTF data holds their triangles (ModelMesh entities are picked through it). */
typedef struct rill_render_model {
    rill_mesh *meshes;
    uint32_t mesh_count;
    rill_material *materials;
    uint32_t material_count;
    rill_texture *textures;
    uint32_t texture_count;
    rill_render_instance *instances;
    uint32_t instance_count;
    float bounds_min[3], bounds_max[3]; /* world-space bounds of all instances */
} rill_render_model;

/* Uploads `model`. base_dir resolves external image URIs (NULL = embedded images only; others are
 * skipped with a warning and draw untextured). Images that fail to decode are warnings too. */
rill_result rill_render_model_create(rill_renderer *r, const rill_gltf_model *model,
                                     const char *base_dir, rill_render_model *out, rill_error *err);
/* Same, with external image URIs resolved relative to model_path (a VFS path: the folder part of
 * it) and read through vfs, so a model inside a pack finds its images in the pack. A missing or
 * undecodable image is a warning naming the model and the image, and its texture draws as the
 * placeholder (white for color and occlusion data, a flat normal for normal maps). */
rill_result rill_render_model_create_vfs(rill_renderer *r, const rill_gltf_model *model,
                                         rill_vfs *vfs, const char *model_path,
                                         rill_render_model *out, rill_error *err);
/* Destroys the model's meshes, materials and textures and frees its arrays; *model is zeroed. */
void rill_render_model_destroy(rill_renderer *r, rill_render_model *model);

/* >>stats ------------------------------------------------------------------------------------ */

#define RILL_RENDER_MAX_PASS_TIMINGS 128 /* every view of a split screen has its own passes */
typedef struct rill_render_stats {
    uint64_t frame_index;
    double cpu_record_ms; /* last rill_renderer_render: CPU time from frame start to submit */
    double cpu_wait_ms;   /* ... and time spent before that waiting for a free frame slot */
    /* Where cpu_record_ms went (ms): camera/cascade setup, culling and draw lists (with motion
     * history), sorting, filling per-frame buffers (instances, lights, light clusters), building
     * and compiling the graph, recording its commands, and ending + submitting. */
    double cpu_setup_ms, cpu_cull_ms, cpu_sort_ms, cpu_upload_ms, cpu_graph_ms, cpu_commands_ms,
        cpu_submit_ms;
    uint32_t pass_count; /* GPU timings of the last completed frame */
    const char *pass_names[RILL_RENDER_MAX_PASS_TIMINGS]; /* interned, static lifetime */
    double pass_gpu_ms[RILL_RENDER_MAX_PASS_TIMINGS];
    /* CPU time of recording each pass of the last recorded frame (its exec callback: draws,
     * dispatches, barriers excluded), ms; labels interned, static lifetime. */
    uint32_t pass_cpu_count;
    const char *pass_cpu_names[RILL_RENDER_MAX_PASS_TIMINGS];
    double pass_cpu_ms[RILL_RENDER_MAX_PASS_TIMINGS];
    uint32_t instances_submitted, instances_visible, draw_calls;
    uint32_t light_cluster_refs;  /* (cluster, light) pairs in the last frame's light grid */
    uint32_t validation_messages; /* validation warnings + errors since creation */
    uint64_t uploaded_bytes_last_frame;
    uint64_t gpu_memory_block_bytes, gpu_memory_used_bytes;
    uint32_t gpu_memory_blocks;
    char device_name[256];
    bool fill_mode_non_solid; /* wireframe (polygon mode line) is available */
    bool multi_draw_indirect; /* static batches of one material draw as one indirect call */
    bool validation;          /* validation layers are on */
    uint64_t triangles;       /* triangles drawn by the last frame, all passes (shadows too) */
    uint64_t texture_bytes;   /* GPU bytes of the levels every live texture holds now */
    /* Wireframe pass draws of the last frame: edge buffers drawn as line lists, and polygon-mode
     * line fill for meshes without edges. */
    uint32_t wire_edge_draws, wire_fill_draws;
    uint32_t ghost_alpha_draws; /* mixed passthrough: draws lowering ghost pixels' alpha */
    /* Image-based light: finished bakes and bake steps recorded since creation (a bake is 7
     * steps: the source, then one per cube face), and the cube's face size (the tier's). */
    uint32_t ibl_bakes, ibl_steps, ibl_face_size;
    /* Global illumination (rill/render/gi.h): GPU ms of the GI passes in the newest timed frame
     * (ssgi* and vxgi_*), and the wall ms the last frame's CPU voxelization took on the calling
     * thread (jobs included; 0 without a voxel tier). The voxel tiers' clipmap: work units the
     * last frame's voxelization spent (rill_renderer_desc.gi_voxel_budget), voxels occupied and
     * cascades resident (holding injected radiance, 0..4). */
    double gi_ms, gi_voxelize_ms;
    uint64_t gi_voxel_units;
    uint32_t gi_voxels_filled, gi_cascades_resident;
    /* Reflection probes (rill/render/reflections.h): probes shading the last frame, cubes baked
     * since creation, sources that could not be used; and the last frame's GPU time of the
     * screen-space reflections' passes (ssr_*) and of probe bakes (probe.*), ms. */
    uint32_t probes_shaded, probe_bakes, probes_failed;
    double ssr_gpu_ms, probe_bake_gpu_ms;
} rill_render_stats;
/* Fills *out (zeroed for a NULL renderer). GPU timings are those of the newest finished frame. */
void rill_renderer_stats(const rill_renderer *r, rill_render_stats *out);
/* Appends the last frame's compiled graph listing to sb. */
void rill_renderer_dump_graph(const rill_renderer *r, rill_strbuf *sb);

/* >>overlay ---------------------------------------------------------------------------------- */

/* Longest overlay text kept (bytes, the terminating NUL included); longer text is cut. */
#define RILL_RENDER_OVERLAY_MAX_TEXT 4096
/* Sets the text drawn over every following frame, in the top-left corner on a dark backdrop, after
 * tonemapping (at end_main_pass_post_processing, before readback or present). '\n' breaks lines;
 * the glyphs are stb_easy_font's (about 6 x 12 pixels, doubled on outputs 600 pixels tall or
 * more). text is copied; NULL or "" hides the overlay (no pass is added then). The first call
 * builds the overlay's pipeline; failures are logged and leave the overlay off. */
void rill_renderer_set_overlay_text(rill_renderer *r, const char *text);
/* Formats stats for an overlay or a log: frame time (frame_ms: the caller's measured CPU frame
 * time; <= 0 leaves it out), CPU record time, draw calls, triangles, visible instances and the GPU
 * time of each pass, one item per line. Writes at most cap bytes (always NUL-terminated when cap >
 * 0) and returns the length written. */
size_t rill_render_stats_format(const rill_render_stats *s, double frame_ms, char *buf, size_t cap);

/* Frame capture, for screenshots of windowed renderers (headless ones work too): the next
 * rill_renderer_render copies its final image (overlay included, as displayed) into a buffer the
 * renderer keeps; read it with rill_renderer_read_capture (waits for the GPU; dst NULL = only
 * report the size in *out_w x *out_h; RGBA8 sRGB-encoded, top row first, w * h * 4 bytes) or
 * write it with rill_renderer_write_capture_png. Reading before a captured frame is
 * RILL_ERR_NOT_FOUND. The capture stays readable until the next one. */
void rill_renderer_request_capture(rill_renderer *r);
rill_result rill_renderer_read_capture(rill_renderer *r, uint8_t *dst, size_t dst_size,
                                       uint32_t *out_w, uint32_t *out_h, rill_error *err);
rill_result rill_renderer_write_capture_png(rill_renderer *r, const char *path, rill_error *err);

/* >>world ------------------------------------------------------------------------------------ */

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

/* >>terrain ----------------------------------------------------------------------------------- */

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
#endif /* RILL_RENDER_H */
