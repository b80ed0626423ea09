/* render_internal.h: the renderer object shared by renderer.c (lifetime, readback, stats),
 * render_pools.c (meshes, textures, materials), the frame_*.c files (the 3D frame: views, graph,
 * passes, pipelines; their own declarations are in frame.h) and exec.c (graph execution). */
#ifndef RILL_RENDER_INTERNAL_H
#define RILL_RENDER_INTERNAL_H

#include "rill/render.h"
#include "rill/render/environment.h"

#include "gpu.h"
#include "range_alloc.h"

#define RILL__MAX_CASCADES 4

/* Phases of recording a frame on the CPU, timed for rill_render_stats. */
enum rill__cpu_phase {
    RILL__CPU_SETUP,    /* camera and cascade matrices */
    RILL__CPU_CULL,     /* frustum and shadow culling, draw lists, motion history */
    RILL__CPU_SORT,     /* sorting the draw lists */
    RILL__CPU_UPLOAD,   /* per-frame buffers: frame uniforms, instances, lights, clusters */
    RILL__CPU_GRAPH,    /* building and compiling the frame graph */
    RILL__CPU_COMMANDS, /* executing the graph: barriers, passes, draws */
    RILL__CPU_SUBMIT,   /* ending and submitting the command buffer */
    RILL__CPU_PHASES
};

/* An index buffer (and the edge buffer beside it, when there is one) several meshes draw with
 * (rill_mesh_desc.share_indices): both are freed with their last user. */
typedef struct rill__ib_share {
    rill__buf *buf;
    rill__buf *edges;
    uint32_t users;
} rill__ib_share;

/* One member of a static batch's merged mesh, as the voxel GI reads it: its triangles there
 * (what the batch instance's ranges name) and its own mesh (a model primitive with its voxel
 * copy) placed in the merged mesh's space. */
typedef struct rill__vox_part {
    uint32_t first_index, index_count;
    rill_mesh mesh;
    float local[16];
} rill__vox_part;

/* The triangles the voxel GI reads for a mesh without a CPU copy of its own (gi_voxel_source.c):
 * xyz per vertex, a triangle list; `cell` is the clustering grid (metres) it was simplified on,
 * 0 when kept as it is. A static batch's merged mesh keeps no triangles but its members (parts,
 * by first_index), each voxelized from its own mesh. Owned by the mesh slot. */
typedef struct rill__vox_source {
    float *positions;
    uint32_t *indices;
    uint32_t vertex_count, tri_count;
    float cell;
    rill__vox_part *parts;
    uint32_t part_count;
} rill__vox_source;

typedef struct mesh_slot {
    rill__buf *vb, *ib;
    rill__buf *eb;            /* edge buffer (line list), NULL without one */
    rill__ib_share *ib_share; /* NULL while the mesh is the only user of ib (and eb) */
    uint32_t index_count, max_index;
    uint32_t edge_index_count; /* 0 without an edge buffer */
    /* Where the edges start in the buffer that holds them: 0 in the mesh's own eb; for a mesh in a
     * shared block (eb NULL) they follow its triangles in the block's index buffer, so the
     * wireframe pass draws a block's edges like its triangles (rill__mesh_edges). */
    uint32_t first_edge;
    float center[3], radius; /* local bounding sphere */
    float box_min[3], box_max[3];
    /* The CPU copy picking tests (rill_render_mesh_triangles): xyz per vertex and the triangle
     * list; NULL for gpu_only and merged meshes. */
    float *cpu_positions;
    uint32_t *cpu_indices;
    uint32_t cpu_vertex_count;
    rill__vox_source vox; /* model primitives (gpu_only): what voxel GI reads instead */
    /* A mesh in a shared block (render_pools.c "merged meshes", static batches): block is its
     * index + 1 (0 = the mesh owns vb and ib), its ranges there, and the
     * upload numbers that make them drawable. */
    uint32_t block;
    uint32_t first_index, vertex_count;
    int32_t vertex_offset;
    uint64_t vseq, iseq;
    /* A skinned mesh (rill_mesh_desc.skin): its weights (a storage buffer of rill_vertex_skin;
     * vb is then a storage buffer too, read by the skinning pass) and 1 + the largest joint index
     * they name. NULL / 0 for a rigid mesh. */
    rill__buf *sb;
    uint32_t skin_joints;
    /* Morph targets (rill_mesh_desc.morph_*): their displacements (a storage buffer: positions,
     * then normals when morph_normals), the target count and the longest displacement (bounds). */
    rill__buf *mb;
    uint32_t morph_targets;
    bool morph_normals;
    float morph_reach;
    /* Per-vertex extras (rill_mesh_desc.colors / uv1): a vertex buffer of rill__vertex_extra
     * (vertex binding 1), NULL when the mesh has none (it binds the renderer's default, stride
     * 0). A skinned instance's target mesh draws its base mesh's: xb_of names it. */
    rill__buf *xb;
    rill_mesh xb_of;
    /* A skin or morph target: its vertices are rewritten every frame (GPU culling's geometry
     * arena does not copy them). */
    bool rewritten;
} mesh_slot;

/* One vertex's extras in a mesh's extras buffer (mesh_slot.xb), vertex binding 1: colour as RGBA
 * 16-bit unorm (location 4), the second UV set (location 5). 16 bytes. */
typedef struct rill__vertex_extra {
    uint16_t color[4];
    float uv1[2];
} rill__vertex_extra;

/* The extras buffer mesh m draws with (its own, its skin base's) or NULL for the default. */
rill__buf *rill__mesh_extras(const rill_renderer *r, const mesh_slot *m);

/* A block of shared vertex + index buffers for merged meshes, sub-allocated in vertices and
 * indices. */
typedef struct mesh_block {
    rill__buf *vb, *ib;
    rill__range_alloc vr, ir;
} mesh_block;

typedef struct mesh_block_free {
    uint32_t block;
    uint32_t first_index, index_count, vertex_offset, vertex_count;
    uint64_t frame; /* freed once the frames in flight that may read it are done */
} mesh_block_free;

typedef struct tex_slot {
    rill__img *img;
    rill__img *pending; /* a replacement waiting for its upload (rill_render_texture_replace) */
    uint32_t batch;     /* 0 = switches alone; else with every pending texture of its batch */
    /* The image it holds levels of: format, colour space and full-chain size (for replace). */
    rill_tex_format format;
    bool srgb;
    uint32_t full_width, full_height;
    /* Its mean colour (linear, alpha-weighted; texture_mean.c), which voxel GI multiplies the
     * base-colour factor of the materials sampling it by; gi_mean_ok false: unknown (white). */
    float gi_mean[3];
    bool gi_mean_ok;
} tex_slot;

typedef struct mat_slot {
    rill__buf *ubo;
    rill__dset *set;
    rill_alpha_mode alpha_mode; /* how it draws: BLEND for a transmissive material */
    bool double_sided;
    bool transmissive; /* KHR_materials_transmission: samples the view's opaque image */
    /* What the descriptor set binds, kept so it can be rebuilt when a texture is replaced. */
    rill_texture tex[RILL_MATERIAL_TEX_NUM];
    rill__sampler_kind samplers[RILL_MATERIAL_TEX_NUM];
    /* What voxel-cone GI (gi_voxel.c) voxelizes: the base colour factor (rgb), times the mean
     * colour of gi_texture (the base-colour texture; none for terrain, whose factor is its first
     * layer's colour), and the emissive colour (factor alone). */
    float gi_albedo[3], gi_emissive[3];
    rill_texture gi_texture;
} mat_slot;

/* A physical image backing graph transients, reused across frames by description. */
typedef struct transient_img {
    rill_rg_image_desc desc;
    rill__img *img;
    uint64_t last_frame;
    bool used;
} transient_img;

/* One entry of the per-frame draw list. */
typedef struct draw_item {
    uint64_t key;  /* sort key */
    uint32_t inst; /* index into the snapshot's instances */
    uint32_t prev; /* last frame's matrix, when it differs from this frame's: history slot * 2 +
                      half (rill_renderer.prev_m), else UINT32_MAX */
    /* A ranged instance: snapshot ranges [range, range + range_n) (visible, consecutive), else
     * range_n = 0 (the whole mesh). */
    uint32_t range, range_n;
} draw_item;

/* Motion history of one instance (frame_cull.c): its id, the last frame it was culled in with
 * the half of its prev_xform holding that frame's matrix (frame_half = frame * 2 + half;
 * UINT64_MAX: none yet), and that matrix's fingerprint. */
typedef struct prev_key {
    uint64_t id;
    uint64_t frame_half;
    uint64_t hash;
} prev_key;

/* Culling in slices of the snapshot (frame_cull.c), which may run on several threads: what one
 * slice found (where its draw items start in every list, each list's item count, the counts the
 * view keeps, its motion records) ... */
typedef struct cull_slice {
    uint32_t at;
    uint32_t len[5]; /* opaque, transparent, casters, wires, ghosts */
    uint32_t plain, solid, edges, glass, tracked;
} cull_slice;

/* ... and each instance whose motion history the serial pass after the slices updates: its
 * snapshot position, the history slot its id had there last frame (UINT32_MAX: look it up) and
 * its matrix's fingerprint. The pass leaves the draw items' `prev` in `slot`. */
typedef struct cull_track {
    uint32_t pos, slot;
    uint64_t hash;
} cull_track;

/* An instance's last two distinct world matrices: the half prev_key names holds the newest, the
 * other the one before, written only when the matrix changes (most instances never move). */
typedef struct prev_xform {
    float m[2][16];
} prev_xform;

/* The graph images one view's passes read and write, as the graph handed them out when it was
 * built (frame_graph.c). depth, normal, motion and shadow_map are the view's own (the graph names
 * view N's copies "name.N": it orders a resource's readers after all its writers, so views cannot
 * share them); hdr is shared; ao and ao_raw are none ({0}) without SSAO. */
#define RILL__DECAL_LAYERS 3
/* The lit passes' decal walk for transparent surfaces: the decals, their tile lists (binding 19..)
 */
#define RILL__DECAL_BINDINGS 2
typedef struct rill__view_res {
    rill_rg_image depth, normal, motion, shadow_map, hdr, ao, ao_raw;
    /* ForwardDecal (post_decal.c), premultiplied with their coverage in the last channel, one
     * layer each (RILL__DECAL_LAYERS): albedo, world normal, roughness; {0} without decals */
    rill_rg_image decal;
    rill_rg_image ldr;   /* the view's tonemapped colour (the output itself for a single view) */
    rill_rg_image scene; /* the opaque image with mips transmissive surfaces see; {0}: none */
    /* "water.scene": the lit image before the waters draw, copied once for PoolWater and Water
     * (rill__add_scene_copy, frame_passes.c); {0} until a water asks for it this frame */
    rill_rg_image water_scene;
    /* With MSAA (msaa.c): the multisampled depth and HDR colour of the opaque pass; {0} without */
    rill_rg_image depth_ms, hdr_ms;
    /* With OIT (oit.c): the per-pixel counts and layers, imported; {0} without */
    rill_rg_buffer oit_counts, oit_layers;
} rill__view_res;

/* A view's settings with every default resolved (rill__view_defaults in frame_views.c): the one
 * place that says what a zero field of rill_render_view means. */
typedef struct rill__view_settings {
    float world_from_view[16];
    float fov_y, znear, zfar, half_h; /* half_h: half the orthographic height */
    bool orthographic;
    rill_tonemapper tonemapper; /* never DEFAULT */
    float exposure;             /* linear scale, 2^exposure_ev */
    uint32_t ssao_slices, ssao_per_side;
    float ssao_thickness, ssao_radius;
    float bloom_intensity, bloom_threshold;
    float ae_rate, ae_min_ev, ae_max_ev; /* auto exposure */
    /* The world's look (environment.c, rill__view_environment): the ambient multiplier, the sky
     * mode (never AUTO), distance fog (fog_on: it applies) and the atmosphere (mode ATMOSPHERE:
     * the routed one or the defaults), every value finite and in range. */
    float ambient;
    rill_sky_mode sky_mode;
    bool fog_on;
    rill_render_distance_fog fog;
    rill_render_atmosphere atmo;
    rill_render_skybox skybox; /* mode SKYBOX: the routed Skybox (image never NULL then) */
    rill_entity skybox_source;
} rill__view_settings;

/* One level of the bloom pyramid as a pass sees it (frame_graph.c fills the handles). */
typedef struct rill__bloom_step {
    const struct rill__view *view;
    uint32_t level;
    rill_rg_image src, cur, out; /* down: src -> out; up: src (the level below) + cur -> out */
} rill__bloom_step;

#define RILL__BLOOM_LEVELS 5
/* Bytes between two views' auto-exposure states in exposure_buf (a storage buffer offset
 * alignment every device accepts). */
#define RILL__EXPOSURE_STRIDE 256u

/* The anti-aliasing effects of one view of the frame being recorded (effects_aa.c): whether TAA
 * runs (the view is then jittered by `jitter`, clip-space x and y), whether its history restarts,
 * the images its passes use and the parameters of FXAA, SMAA and CAS. */
typedef struct rill__aa_frame {
    bool taa, taa_reset;
    float jitter[2];
    rill_rg_image taa_src, taa_dst, hist_in, hist_out, motion, depth;
    rill_rg_image fxaa_src, fxaa_dst;
    float fxaa_threshold[2]; /* relative, minimum */
    rill_rg_image smaa_src, smaa_edges, smaa_weights, smaa_dst;
    float smaa_threshold;
    uint32_t smaa_steps;
    rill_rg_image cas_src, cas_dst;
    float cas_strength;
    bool cas_denoise;
} rill__aa_frame;

/* Screen-space reflections of one view (ssr.c): whether they run, the settings after clamping,
 * the pyramids' level counts and the graph images of their passes (src: the lit colour they read,
 * dst: the colour they write). */
typedef struct rill__ssr_frame {
    bool on;
    float intensity, thickness, max_roughness;
    uint32_t steps, hiz_levels, blur_levels;
    rill_rg_image hiz, trace, src, dst, depth, normal;
} rill__ssr_frame;

/* The screen effects of one view this frame (effects*.c, plugin_host.c): the handles its
 * effects get (fg: the view's own depth, normal, motion, shadow map, hdr and ldr; the frame's
 * anchors and exposure buffer), its colour chain (hdr_color is what its tonemapping reads,
 * ldr_color what the composition or the output reads), which engine effects added passes, and
 * their images and parameters. Every camera has its own, so no effect is shared between views. */
typedef struct rill__view_fx {
    rill_render_graph fg;
    rill_rg_image hdr_color, ldr_color;
    uint32_t chain[2];
    bool ssao, bloom, auto_exposure; /* planned, then: their effects added passes */
    bool material_in_normal;         /* the prepass packs roughness + metalness (SSR or GI reads) */
    rill_rg_image bloom_out, ae_src;
    rill_rg_image plugin_src[2]; /* plugin_host.c: scratch copies of the HDR and LDR colour */
    rill__bloom_step bloom_down[RILL__BLOOM_LEVELS], bloom_up[RILL__BLOOM_LEVELS];
    rill__aa_frame aa;
    rill__ssr_frame ssr;
} rill__view_fx;

/* One camera view of the frame: everything its passes read, filled by rill__view_fill
 * (frame_views.c) and handed to each of its passes as the pass's user pointer. A frame with a
 * single view uses views[0]. */
typedef struct rill__view {
    const rill_render_snapshot *snap;
    const rill_render_view *view; /* as given; NULL on a frame with nothing to draw */
    rill__view_settings set;
    uint32_t index;        /* in the frame: passes and images of view N > 0 are "name.N" */
    bool in_rect;          /* several views, or one in part: composed into out_rect */
    uint32_t size3[2];     /* its 3D images' size (render scale of out_rect's) */
    uint32_t scene_levels; /* mips of res.scene (transmission.c); 0 without */
    uint32_t out_rect[4];  /* pixels of the output (x, y, w, h; top-left origin) */
    float view_proj[16];
    /* ghosts: in a mixed-passthrough view, the ghost instances again (key: blended, then the
     * opacity in 16 bits above the mesh): the opaque ones first, whose pixels get alpha =
     * opacity after the opaque pass, then the blended ones, whose alpha (opacity x material
     * alpha) is drawn after the transparent pass. */
    RILL_ARRAY(draw_item) opaque, transparent, casters, wires, ghosts;
    bool passthrough;       /* mixed passthrough: the output's alpha shows the camera feed */
    uint32_t msaa;          /* samples per pixel of its opaque pass (msaa.c; 1: none) */
    uint32_t oit_layers;    /* OIT layers per pixel (oit.c; 0: sorted blending) */
    float oit_threshold;    /* OIT alpha_threshold, clamped */
    uint32_t casters_plain; /* casters[0, casters_plain) are opaque, the rest alpha-masked */
    uint32_t opaque_solid;  /* opaque[0, opaque_solid) never cut (no alpha mask, no crossfade) */
    uint32_t wires_edges;   /* wires[0, wires_edges) draw edge buffers, the rest line fill */
    uint32_t ghosts_opaque; /* ghosts[0, ghosts_opaque) are opaque, the rest blended */
    float wire_color[4], wire_fade[4]; /* resolved rill_render_wireframe */
    rill__buf *frame_buf, *inst_buf, *light_buf, *cluster_buf, *cluster_idx_buf;
    uint64_t frame_off, inst_off, inst_size, light_off, light_size;
    uint64_t cluster_off, cluster_size, cluster_idx_off, cluster_idx_size;
    uint32_t cascades;
    float cascade_vp[RILL__MAX_CASCADES][16];
    rill__view_res res;
    rill__view_fx fx;
    /* A camera drawing into a render texture (rill_render_view.target): the texture, its image
     * in the graph (imported, shared by the views drawing into it) and the anchors its effects
     * order against instead of the frame's (its passes all run before the other cameras'). */
    rill_texture target_tex;
    rill_rg_image target;
    rill_rg_pass target_main_end, target_post_end;
} rill__view;

/* TAA's state across frames (effects_aa.c): two history images at the 3D size (history[cur] holds
 * the last result when valid), the frame TAA last ran, the jitter sample since the last reset, and
 * the camera it ran for (cut detection). */
typedef struct rill__taa_state {
    rill__img *history[2];
    uint32_t w, h, cur, sample;
    uint64_t last_frame;
    bool valid;
    float fwd[3], proj[5];
} rill__taa_state;

/* settings_fix.c: keys (source entity, type, field) already warned about, so a value clamped
 * every frame logs once. */
typedef struct rill__warned {
    uint64_t keys[64];
    uint32_t n;
} rill__warned;

/* The frame being recorded: its views, which effects run, and the frame-wide graph resources.
 * Views are filled by frame_views.c, handles by frame_graph.c; passes get the part they need
 * through their user pointer. Kept on the renderer only so the draw lists keep their memory. */
typedef struct rill__frame {
    rill__view views[RILL_RENDER_MAX_VIEWS];
    uint32_t view_count; /* >= 1 once planned */
    bool composed;       /* several views (or one in part): black, then each view's ldr */
    bool no_view;        /* every view had zero area: the output is black */
    bool shadows;        /* the sun casts shadows */
    uint32_t cascades;
    /* the anchors and engine images handed to setup_graph (frame_graph.c): view 0's, and the
     * output's ldr */
    rill_render_graph fg;
    rill_rg_image out;     /* the swapchain image (windowed) */
    uint32_t target_views; /* views[0, target_views) draw into render textures */
    /* the render textures drawn this frame, imported (every other view's lit passes read them) */
    rill_rg_image targets[RILL_RENDER_MAX_VIEWS];
    rill_texture target_texs[RILL_RENDER_MAX_VIEWS];
    uint32_t target_count;
    /* what the overlay and the output read: the output's ldr (a single view's colour chain end,
     * or the composition of every view) */
    rill_rg_image ldr_color;
} rill__frame;

struct rill_rg_ctx {
    rill_renderer *r;
    rill__cmd *cmd;
    const rill_rg *g;
};

/* The engine's pipelines, created from one table (frame_pipelines.c). A pair (X, X_DS) is
 * single- and double-sided: draw code indexes it as &pipes[X] + double_sided. */
/* clang-format off */
#define RILL__PIPES(X)                                                                             \
    X(PREPASS) X(PREPASS_DS) X(PREPASS_SOLID) X(PREPASS_SOLID_DS) X(PREPASS_PACK)                  \
    X(PREPASS_PACK_DS)                                                                             \
    X(OPAQUE) X(OPAQUE_DS)                                                                         \
    X(TRANSPARENT) X(TRANSPARENT_DS) X(TRANSPARENT_RGB) X(TRANSPARENT_RGB_DS)                      \
    X(WIRE) X(WIRE_EDGES) X(GHOST_ALPHA) X(GHOST_BLEND_ALPHA) X(GHOST_BLEND_ALPHA_DS)              \
    X(SHADOW) X(SHADOW_MASK)                                                                       \
    X(SSAO) X(SSAO_BLUR) X(BLOOM_DOWN) X(BLOOM_UP) X(AUTO_EXPOSURE) X(TONEMAP)                     \
    X(TAA) X(FXAA) X(SMAA_EDGES) X(SMAA_WEIGHTS) X(SMAA_BLEND) X(CAS)                            \
    X(FOG)                                                                                         \
    X(SSR_HIZ) X(SSR_TRACE) X(SSR_BLUR) X(SSR_RESOLVE)                                             \
    X(IBL_LUT) X(IBL_FILL) X(IBL_DOWN) X(IBL_SH) X(IBL_PREFILTER)                                \
    X(SKY_TRANSMITTANCE) X(SKY_MULTISCATTER) X(SKY_VIEW) X(SKY_AERIAL) X(SKY) X(SKY_IBL)           \
    X(SKYBOX)                                                                                      \
    X(VFOG) X(VFOG_APPLY) X(CLOUDS) X(CLOUDS_SHADOW) X(WATER)                                                       \
    X(OCEAN_SPECTRUM) X(OCEAN_FFT) X(OCEAN_MAPS) X(OCEAN_DRAW)                                     \
    X(SSGI) X(SSGI_TEMPORAL) X(SSGI_APPLY)                                                         \
    X(VXGI_INJECT) X(VXGI_MIPS) X(VXGI_TRACE) X(VXGI_DEBUG)                                        \
    X(GPU_CULL) X(GPU_CULL_SUBGROUP) X(GPU_OCCLUSION)
/* clang-format on */
#define RILL__PIPE_ENUM(name) RILL__PIPE_##name,
typedef enum rill__pipe_id { RILL__PIPES(RILL__PIPE_ENUM) RILL__PIPE_NUM } rill__pipe_id;
#undef RILL__PIPE_ENUM

struct rill_renderer {
    rill_renderer_desc desc;
    struct rill__rthread *rthread;   /* render_thread.c: the render thread, NULL without one */
    struct rill__skinning *skinning; /* skinned instances' GPU state (skinning.c), NULL until one */
    struct rill__gpu_cull *gpu_cull; /* GPU-driven culling's resident table (gpu_cull.c), or NULL */
    struct rill_plugins *plugins;    /* effect plugin host (plugin_host.c), or NULL */
    rill__gpu *gpu;
    uint32_t width, height;
    float render_scale;     /* applied: of the output, in (0, 1] (renderer.c apply_scale) */
    float render_scale_req; /* asked: of the logical window, in [0.1, 2] */
    float display_scale;    /* physical pixels per logical one (window content scale; 1) */
    bool shadow_size_auto;  /* desc.shadow_map_size follows the tier */
    char hint[320];         /* the integrated-GPU hint of this launch, "" when none */
    rill_pool mesh_pool, tex_pool, mat_pool;
    mesh_slot *meshes;
    RILL_ARRAY(mesh_block) blocks;
    RILL_ARRAY(mesh_block_free) block_frees;
    tex_slot *textures;
    RILL_ARRAY(uint32_t) tex_replacing; /* texture ids with a pending replacement */
    uint32_t tex_next_batch;            /* rill_render_texture_replace_many batch ids */
    mat_slot *materials;
    rill__img *white, *flat_normal;
    rill__buf *default_extras; /* one rill__vertex_extra (white, uv1 0), bound with stride 0 */
    rill__pipe *pipes[RILL__PIPE_NUM]; /* pipes[RILL__PIPE_WIRE] is NULL without line fill */
    /* last frame's wireframe draws by kind and passthrough alpha draws (stats) */
    uint32_t edge_draws, fill_wire_draws, ghost_alpha_draws;
    rill__buf *exposure_buf; /* persistent auto-exposure state, RILL__EXPOSURE_STRIDE per view */
    rill_rg *graph;
    RILL_ARRAY(transient_img) transients;
    RILL_ARRAY(rill__img *) slot_images; /* per graph slot, this frame */
    rill__buf *readback[3];
    uint32_t readback_slot; /* slot of the last frame's readback */
    bool have_frame;
    rill__frame frame; /* the frame being recorded (its draw lists keep their memory) */
    /* scratch kept across frames so recording allocates nothing once warm */
    RILL_ARRAY(draw_item) sort_tmp;
    RILL_ARRAY(cull_slice) cull_slices;
    RILL_ARRAY(cull_track) cull_tracks;
    /* The frame's motion records by snapshot position (history slot * 2 + half, or UINT32_MAX),
     * taken by the first view culled over snapshot `motion_instances` in frame `motion_frame` and
     * reused by the frame's other views of it (frame_cull.c) */
    RILL_ARRAY(uint32_t) motion_prev;
    const rill_render_instance *motion_instances;
    uint32_t motion_count;
    uint64_t motion_frame;
    RILL_ARRAY(uint32_t) cluster_counts;
    RILL_ARRAY(struct cluster_range) light_ranges;
    RILL_ARRAY(float) light_d2;                /* nearest-light selection: distances, twice */
    RILL_ARRAY(rill_render_light) view_lights; /* a view's nearest lights when over the limit */
    /* history */
    float prev_view_proj[RILL_RENDER_MAX_VIEWS][16]; /* by view index */
    uint32_t have_prev_view_proj;                    /* bit i: prev_view_proj[i] is set */
    rill_map prev_index; /* instance id -> history slot (index into prev_keys and prev_m) */
    RILL_ARRAY(prev_key) prev_keys;
    RILL_ARRAY(prev_xform) prev_m;
    RILL_ARRAY(uint32_t) pos_slot;   /* snapshot position -> history slot used there last time */
    RILL_ARRAY(uint32_t) prev_remap; /* scratch of the history's compaction */
    uint32_t history_new_taken;      /* ids the history took in this frame */
    uint64_t history_new_t0;         /* when it took the first */
    bool history_new_full;           /* this frame takes no more new ids */
    bool history_new_pinned;         /* rill__motion_history_set_new_ids set the two below */
    uint32_t history_new_min;        /* new ids a frame takes whatever the clock says */
    double history_new_ms;           /* the time budget of more (0: exactly min a frame) */
    uint32_t history_lookups;        /* this frame's serial map lookups (history_slot_lookup) */
    uint64_t frame_counter;
    /* Meshes and materials destroyed so far: a snapshot's "unchanged" instances may name one gone
     * since the last frame (GPU culling then reads every instance again). */
    uint32_t assets_destroyed;
    /* stats */
    double cpu_record_ms, cpu_wait_ms;
    double cpu_phase_ms[RILL__CPU_PHASES]; /* last frame, by rill__cpu_phase */
    double cpu_create_ms;                  /* last frame: rill__gpu_create_time's share */
    uint32_t gpu_objects_created;
    uint64_t phase_t; /* time of the last phase mark (ns) */
    uint32_t instances_submitted, instances_visible, draw_calls;
    uint32_t instances_occluded; /* GPU culling's occlusion (gpu_occlusion.c) */
    uint32_t light_cluster_refs;
    uint64_t triangles;
    struct rill__overlay *overlay; /* overlay.c: text and capture; NULL until first used */
    struct rill__debug *debug;     /* debug_views.c: the debug panel; NULL until one is set */
    /* exec.c: CPU time of recording each pass of the last frame (labels interned) */
    uint32_t pass_cpu_count;
    const char *pass_cpu_names[RILL_RENDER_MAX_PASS_TIMINGS];
    double pass_cpu_ms[RILL_RENDER_MAX_PASS_TIMINGS];
    struct rill__effects *effects;              /* effects.c: the composition registry */
    rill__taa_state taa[RILL_RENDER_MAX_VIEWS]; /* effects_aa.c, by view index */
    rill__warned env_warned;     /* environment.c, ssr.c and rill__settings_fix's clamp warnings */
    struct rill__ibl *ibl;       /* ibl.c: image-based light */
    struct rill__sky *sky;       /* sky.c: the physical sky */
    struct rill__gi *gi;         /* gi.c: screen-space GI, one per view index */
    struct rill__vox *vox;       /* gi_voxel*.c: the voxel radiance clipmap, NULL until used */
    struct rill__hwrt *hwrt;     /* gi_hwrt*.c: the Hwrt tier's structures, NULL until used */
    struct rill__post *post;     /* post.c: colour grading, depth of field, motion blur */
    struct rill__probes *probes; /* probe.c: reflection probes (NULL until the first frame) */
    struct rill__capture *capture; /* probe_capture.c: capture sources (NULL until one) */
    struct rill__vfog *vfog;       /* fog_volume.c: volumetric fog */
    struct rill__clouds *clouds;   /* clouds.c: the sky's cloud layer */
    struct rill__water *water;     /* water.c: PoolWater */
    struct rill__ocean *ocean;     /* ocean.c: Water, the FFT ocean */
    struct rill__msaa *msaa;       /* msaa.c: multisampled pipelines, warnings */
    struct rill__oit *oit;         /* oit.c: OIT pipelines and layer buffers (NULL until used) */

    /* skybox.c: sky mode Skybox */
    struct rill__skybox *skybox;
    /* envmap.c: the EnvironmentMapLight's image (made on the first frame) */
    struct rill__envmap *envmap;
    /* render_targets.c: the render textures by name (rill_render_target_texture) */
    struct {
        char name[64];
        rill_texture tex;
        uint32_t width, height; /* the size asked last (its image's once a resize lands) */
    } targets[RILL_RENDER_MAX_TARGETS];
    uint32_t target_count;
    bool warned_target; /* a Camera.target was refused (said once) */
};

/* frame_render.c: the 3D frame (views, graph, passes, pipelines live in the frame_*.c files). */
rill_result rill__frame_create(rill_renderer *r, rill_error *err);
void rill__frame_destroy(rill_renderer *r);
rill_result rill__frame_render(rill_renderer *r, const rill_render_snapshot *snap, rill_error *err);
/* render_thread.c: the optional render thread. guard waits for the frame in progress when called
 * from another thread (every renderer entry point that reads or changes renderer state calls it;
 * a no-op without a render thread and on it); submit waits for the previous frame and hands
 * `snap` over; stats copies what the thread published at the end of the last frame the caller
 * synchronised with (the hand-off, a sync, a guard), with GPU timings as fresh as without it. */
rill_result rill__rthread_start(rill_renderer *r, rill_error *err);
void rill__rthread_stop(rill_renderer *r);
void rill__rthread_guard(const rill_renderer *r);
bool rill__rthread_here(void);
rill_result rill__rthread_submit(rill_renderer *r, const rill_render_snapshot *snap,
                                 rill_error *err);
void rill__rthread_stats(const rill_renderer *r, rill_render_stats *out);
/* renderer.c: rill_renderer_stats' fields from the renderer's own state. */
void rill__renderer_fill_stats(const rill_renderer *r, rill_render_stats *out);
/* ... the GPU timings alone: pass_count, pass_names, pass_gpu_ms, ssr_gpu_ms, probe_bake_gpu_ms
 * (the newest frame the GPU has finished). */
void rill__renderer_fill_gpu_timings(const rill_renderer *r, rill_render_stats *out);

/* overlay.c: adds the overlay pass (when there is text) and the capture pass (when one was asked
 * for) between end_main_pass_post_processing and out_pass; frees the overlay state. */
rill_result rill__overlay_add_pass(rill_renderer *r, rill_rg *g, rill_rg_pass out_pass,
                                   rill_error *err);
void rill__overlay_destroy(rill_renderer *r);

/* exec.c */
rill_result rill__graph_execute(rill_renderer *r, rill__cmd *cmd, rill_error *err);
/* The GPU image behind a handle of the graph being executed; NULL for {0}. */
rill__img *rill__ctx_img(rill_rg_ctx *ctx, rill_rg_image image);
void rill__transients_release_unused(rill_renderer *r, bool all);

/* procmesh.c: builds vertex/index arrays owned by the caller (rill_free both). */
bool rill__procmesh_cube(rill_vertex **out_v, uint32_t *out_vn, uint32_t **out_i, uint32_t *out_in);
bool rill__procmesh_sphere(uint32_t segments, rill_vertex **out_v, uint32_t *out_vn,
                           uint32_t **out_i, uint32_t *out_in);
bool rill__procmesh_plane(rill_vertex **out_v, uint32_t *out_vn, uint32_t **out_i,
                          uint32_t *out_in);

/* render_pools.c: the mesh, texture and material pools. Lookups return NULL for stale handles or
 * resources not yet uploaded. */
rill_result rill__pools_create(rill_renderer *r, rill_error *err);
/* At frame start, after the frame's uploads are recorded: textures whose replacement is uploaded
 * switch to it, and the materials using them get new descriptor sets. */
/* Texture streaming and sharing (model.c, texture_stream.c): where a model's texture came from.
 * path is the image's VFS path (rill_strdup'd; the exported .rmip when there is one; NULL = not
 * shareable: embedded or unreadable); bytes are GPU bytes of the full chain and of its "#low" tail
 * (both 0 for a decoded image: not streamable); low = loaded as "#low"; read_bytes = the level
 * bytes read for it; shared = not loaded: the texture is the one share.find returned (or an
 * earlier texture of the same model naming the same image), owned elsewhere. */
typedef struct rill__tex_origin {
    char *path;
    uint64_t full_bytes, low_bytes, read_bytes;
    bool low, srgb, shared;
} rill__tex_origin;
/* A live texture already uploaded for (VFS path, colour space), or {0}. */
typedef struct rill__tex_share {
    rill_texture (*find)(void *user, const char *path, bool srgb);
    void *user;
} rill__tex_share;
/* rill_render_model_create_vfs that records origins (m->texture_count entries, zeroed by the
 * caller), takes the textures share finds instead of loading them again, and, with start_low,
 * reads every streamable texture as its "#low" tail. On failure no shared texture is destroyed. */
rill_result rill__render_model_create_streamed(rill_renderer *r, const rill_gltf_model *m,
                                               rill_vfs *vfs, const char *model_path,
                                               const rill__tex_share *share, bool start_low,
                                               rill__tex_origin *origins, rill_render_model *out,
                                               rill_error *err);
/* A glTF material's texture reference of each slot (RILL_MATERIAL_TEX_*, model.c); an
 * extension's slots only when the material uses the extension (others get a "none" reference). */
void rill__model_material_refs(const rill_gltf_material *mt,
                               const rill_gltf_texref *out[RILL_MATERIAL_TEX_NUM]);
void rill__tex_chain_bytes(const rill_tex_data *tex, uint64_t *out_full, uint64_t *out_low);
/* texture_mean.c: the mean colour (linear RGB, alpha-weighted) of an RGBA8 image or of a chain's
 * smallest level, sampled on a bounded grid; false when it has none (wholly transparent, a
 * format or level it cannot read). */
bool rill__texture_mean_rgba8(const uint8_t *px, uint32_t width, uint32_t height, bool srgb,
                              float out[3]);
bool rill__texture_mean_data(const rill_tex_data *tex, float out[3]);
/* Stores mean in t (ok false: unknown, white). */
void rill__texture_set_mean(tex_slot *t, bool ok, const float mean[3]);
/* What voxel GI multiplies a material's base colour by for texture tex: its mean colour, white
 * for none, a stale handle or an unknown mean. */
void rill__texture_gi_tint(const rill_renderer *r, rill_texture tex, float out[3]);
void rill__pools_commit_replacements(rill_renderer *r);
void rill__pools_destroy(rill_renderer *r); /* the GPU objects (needs the device) */
void rill__pools_release(rill_renderer *r); /* the pools' memory (after the device) */
const mesh_slot *rill__mesh_get(const rill_renderer *r, rill_mesh mesh);
/* Gives a mesh without a CPU copy (a glTF model primitive) the voxel GI's copy of its triangles
 * (gi_voxel_source.c; scale: the largest scale it is drawn at, for the simplification grid).
 * Skinned and morphing meshes get none (the voxels would hold their rest pose). False when out of
 * memory. */
bool rill__mesh_keep_vox_source(rill_renderer *r, rill_mesh mesh, const float *positions,
                                uint32_t vertex_count, const uint32_t *indices,
                                uint32_t index_count, float scale);
/* The same from positions `stride` bytes apart (a vertex struct's position member). */
bool rill__mesh_keep_vox_source_strided(rill_renderer *r, rill_mesh mesh, const void *positions,
                                        size_t stride, uint32_t vertex_count,
                                        const uint32_t *indices, uint32_t index_count, float scale);
/* Gives a mesh a copy built beforehand (rill__vox_source_build, e.g. on the worker that parsed a
 * far-world proxy): moved in and *src left empty, or freed where rill__mesh_keep_vox_source would
 * keep none. */
void rill__mesh_take_vox_source(rill_renderer *r, rill_mesh mesh, rill__vox_source *src);
/* Gives a static batch's merged mesh its members (copied; sorted by first_index by the caller),
 * which the voxel GI voxelizes in its stead. False when out of memory. */
bool rill__mesh_keep_vox_parts(rill_renderer *r, rill_mesh mesh, const rill__vox_part *parts,
                               uint32_t count);
void rill__vox_source_free(rill__vox_source *s);
/* A mesh that draws a skinned mesh `base`'s posed vertices: its own vertex buffer (storage and
 * vertex, filled by the skinning pass, never uploaded), base's indices and edges shared. {0} with
 * err set when base is stale or not skinned. */
rill_mesh rill__mesh_create_skin_target(rill_renderer *r, rill_mesh base, rill_error *err);
/* The writable slot of a live mesh, NULL for a stale handle. */
mesh_slot *rill__mesh_slot(rill_renderer *r, rill_mesh mesh);
/* Skinning (skinning.c): before the frame's views are planned, every snapshot skin whose mesh is
 * skinned gets its posed vertices written by a compute dispatch into a per-instance target mesh,
 * and *out_snap becomes a copy of snap whose skinned instances draw that mesh (snap itself when
 * it has no skins). Targets unused for a few frames are destroyed; rill__skinning_destroy frees
 * everything. */
rill_result rill__skinning_run(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                               rill_render_snapshot *out_snap, rill_error *err);
void rill__skinning_destroy(rill_renderer *r);
/* Extract's skins (extract_skins.c): every drawn instance whose entity has a MeshSkin or a
 * MeshMorph gets a rill_render_skin, its joint matrices and morph weights in buf. False when out
 * of memory. */
bool rill__extract_skins(rill_world *world, rill_render_extract_buf *buf);
/* Extract's marks of what changed (extract_marks.c): begin, before anything is extracted, keeps
 * the last extract's instances and empties the array for this one; finish, once every instance is
 * written, marks them over buf->jobs and sets the snapshot's instance_changed and epochs (false
 * when out of memory). */
void rill__extract_marks_begin(rill_render_extract_buf *buf);
bool rill__extract_marks_finish(rill_render_extract_buf *buf, rill_render_snapshot *snap);
/* The index buffer a mesh's edges are drawn from (from m->first_edge on), NULL without edges. */
static inline rill__buf *rill__mesh_edges(const mesh_slot *m) {
    return m->eb ? m->eb : m->block && m->edge_index_count ? m->ib : NULL;
}
/* What a mesh's maker already measured of its vertices: their box, its centre and the radius to
 * the farthest vertex from that centre (the local bounds every mesh keeps). */
typedef struct rill__mesh_bounds {
    float box_min[3], box_max[3], center[3], radius;
} rill__mesh_bounds;
/* A mesh placed in a shared block (one bind + one indirect draw for many of them); the same as
 * rill_render_mesh_create (own buffers) when it does not fit a block. bounds: its vertices' bounds
 * as the maker measured them (static batching measures them over the jobs), or NULL to measure
 * them here. */
rill_mesh rill__mesh_create_merged(rill_renderer *r, const rill_mesh_desc *desc,
                                   const rill__mesh_bounds *bounds, rill_error *err);
/* GPU bytes of every live texture's levels (the image each texture samples now). */
uint64_t rill__texture_bytes(const rill_renderer *r);
/* Ends a texture create (render_pools.c, texture.c): with img set and its upload queued (ok), img
 * fills the slot of pool id as `info` describes it (format, colour space, full-chain size) and
 * the handle is returned; otherwise img and id are released and {0} is returned. */
rill_texture rill__texture_finish(rill_renderer *r, uint32_t id, rill__img *img, bool ok,
                                  const tex_slot *info);
const mat_slot *rill__material_get(const rill_renderer *r, rill_material mat);

/* settings_route.c: registers Ssao/Bloom/AutoExposure (and makes them comps' first settings
 * types); routes every settings type to the n views (cams: each view's camera entity). */
rill_result rill__render_settings_register(rill_world *w, rill_render_components *out,
                                           rill_error *err);
/* rill__render_type_ensure: type d's component in w, registered when the world has none yet;
 * {0} with err naming the type when registration fails. rill__render_settings_ensure: the same for
 * each of the n types, each then added to out's routed settings types; slots (NULL, or n
 * pointers) receive the components. */
rill_component rill__render_type_ensure(rill_world *w, const rill_type_desc *d, rill_error *err);
rill_result rill__render_settings_ensure(rill_world *w, const rill_type_desc *d, uint32_t n,
                                         rill_render_components *out, rill_component *const *slots,
                                         rill_error *err);
/* environment.c: registers WorldEnvironment, DistanceFog and Atmosphere as settings types;
 * resolves a view's environment into out (after rill__view_defaults), warning once per source
 * entity about values it had to clamp. */
rill_result rill__environment_register(rill_world *w, rill_render_components *out, rill_error *err);
void rill__view_environment(rill_renderer *r, const rill_render_snapshot *snap,
                            const rill_render_view *v, rill__view_settings *out);
/* settings_fix.c: what every settings type's resolution uses. rill__fix: v clamped to [lo, hi]
 * (a NaN or infinity: def), warning once per (source, type, field) that it was replaced, naming
 * the entity; rill__fix_u32 the same for a count; rill__fix_warn says it for a value the caller
 * replaced. rill__settings_fix: rill__fix with the renderer's own warned set. rill__warned_first:
 * whether key is new to w (then remembered). */
typedef struct rill__fix_src {
    rill__warned *warned;
    const char *type;   /* the settings component, e.g. "ScreenSpaceGi" */
    rill_entity entity; /* 0: a hand-built view or the defaults */
} rill__fix_src;
bool rill__warned_first(rill__warned *w, uint64_t key);
void rill__fix_warn(const rill__fix_src *s, const char *field, double was, double now);
float rill__fix(const rill__fix_src *s, const char *field, float v, float lo, float hi, float def);
uint32_t rill__fix_u32(const rill__fix_src *s, const char *field, uint32_t v, uint32_t lo,
                       uint32_t hi);
float rill__settings_fix(rill_renderer *r, const char *type, rill_entity source, const char *field,
                         float v, float lo, float hi, float def);
/* Every float lane of a routed settings copy (data, of type td, from entity source) that is NaN
 * or infinite is replaced: +inf by the field's maximum, -inf by its minimum, where it has one,
 * anything else by the field's default; a warning names type, entity, field and both values, once
 * per (source, type, field) in warned. Each settings type's own resolution then clamps finite
 * values; this keeps what no range reaches (inf on a field with only a minimum, a field with no
 * range) off the GPU whatever set it: a scene file, --effect, a script, C. */
void rill__settings_fix_nonfinite(const rill_type_desc *td, rill_entity source, void *data,
                                  rill_render_extract_buf *warned);
/* render_targets.c: whether tex is a render texture (owned by the renderer). */
bool rill__target_owned(const rill_renderer *r, rill_texture tex);
/* The render texture `name` at width x height (0: RILL_RENDER_TARGET_SIZE; clamped to 16 ..
 * 4096): made at that size, or, when it has another, a black image of the new size queued to
 * replace it (rill__texture_replace_resized). {0} with err set as rill_render_target_texture. */
rill_texture rill__target_texture_sized(rill_renderer *r, const char *name, uint32_t width,
                                        uint32_t height, rill_error *err);
/* texture.c: queues data (one level, any size) as tex's next image; the slot takes its size when
 * the replacement switches in (rill__pools_commit_replacements, which rebuilds the materials). */
rill_result rill__texture_replace_resized(rill_renderer *r, rill_texture tex,
                                          const rill_tex_data *data, rill_error *err);
/* The GPU image of a texture (NULL for a stale handle). */
rill__img *rill__texture_img(const rill_renderer *r, rill_texture tex);

/* ssr.c: registers ScreenSpaceReflections as a settings type. */
rill_result rill__ssr_register(rill_world *w, rill_render_components *out, rill_error *err);
/* probe_extract.c: registers LightProbe, ReflectionProbeSource and ParallaxCorrection; fills the
 * snapshot's probes (and the VFS their sources are read through) at extract. */
rill_result rill__probe_register(rill_world *w, rill_error *err);
/* envmap.c: registers EnvironmentMapLight (a routed settings type). */
rill_result rill__envmap_register(rill_world *w, rill_render_components *out, rill_error *err);
rill_result rill__probe_extract(rill_world *world, rill_render_extract_buf *buf,
                                rill_render_snapshot *out, rill_error *err);
/* extract.c: fn(user, world_from_box, component, entity) for every entity holding component
 * `name` and a GlobalTransform; false as soon as fn returns false (out of memory). */
typedef bool (*rill__box_fn)(void *user, const float world_from_box[16], const void *component,
                             rill_entity entity);
bool rill__extract_boxes(rill_world *w, const char *name, rill__box_fn fn, void *user);
/* fog_volume.c: registers VolumetricFog (a settings type) and FogVolume; fills the snapshot's
 * fog volumes at extract (false when out of memory). */
rill_result rill__vfog_register(rill_world *w, rill_render_components *out, rill_error *err);
bool rill__vfog_extract(rill_world *w, rill_render_extract_buf *buf, rill_render_snapshot *out);
/* water.c: registers PoolWater; fills the snapshot's water boxes at extract (false when out of
 * memory). */
rill_result rill__water_register(rill_world *w, rill_error *err);
/* msaa.c: registers the Msaa and OrderIndependentTransparency settings components. */
rill_result rill__msaa_register(rill_world *w, rill_render_components *out, rill_error *err);
bool rill__water_extract(rill_world *w, rill_render_extract_buf *buf, rill_render_snapshot *out);
/* ocean.c: registers Water (a component and a routed settings type, so --effect finds it);
 * fills the snapshot's oceans at extract with their channel modes (false when out of memory). */
rill_result rill__ocean_register(rill_world *w, rill_render_components *out, rill_error *err);
bool rill__ocean_extract(rill_world *w, rill_render_extract_buf *buf, rill_render_snapshot *out);
/* clouds.c: registers Clouds (a settings type). */
rill_result rill__clouds_register(rill_world *w, rill_render_components *out, rill_error *err);
rill_result rill__render_route_settings(rill_world *w, const rill_render_components *comps,
                                        rill_render_extract_buf *buf, rill_render_view **views,
                                        const rill_entity *cams, uint32_t n, rill_error *err);

/* terrain_draw.c: the world's terrain renderer (NULL when none), and its part of extract: sync the
 * chunk meshes, then push one instance per chunk mesh. False when out of memory. */
rill_render_terrain *rill__render_terrain_of(const rill_world *world);
bool rill__render_terrain_extract(rill_render_terrain *rt, rill_render_extract_buf *buf);

/* renderer.c: render_scale from the asked scale and the display's (windowed: GLFW's content
 * scale of the window, read now). */
void rill__renderer_apply_scale(rill_renderer *r);

/* settings_route.c: the routed copy of `type` on v (NULL when none or of another size). */
const rill_render_routed_settings *rill__view_routed(const rill_render_view *v, const char *type,
                                                     uint32_t size);

#endif
