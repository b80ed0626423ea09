/* gpu.h: the renderer's private GPU interface. Everything above src/render/vk (the render graph
 * executor, the 3D frame, meshes, materials) records work through these functions; only the files
 * under src/render/vk implement them and call Vulkan. The interface is deliberately small: buffers,
 * images, samplers, pipelines, descriptor sets, a frame loop with deferred deletion, a staging
 * upload ring, GPU timestamps and debug labels.
 *
 * Objects are plain pointers here because this header never leaves the render module; the public
 * API (rill/render.h) hands out generational handles instead.
 *
 * Two backends implement it (gpu_backend.h): Vulkan (src/render/vk) and a null device
 * (src/render/null) that keeps the same object lifetimes, upload budget and command-stream rules
 * without a driver; rill__gpu_desc.backend picks one per device.
 */
#ifndef RILL_RENDER_GPU_H
#define RILL_RENDER_GPU_H

#include "rill/base.h"
#include "rill/render/graph.h"
#include "rill/render/renderer.h"

typedef struct rill__gpu rill__gpu;
typedef struct rill__buf rill__buf;
typedef struct rill__img rill__img;
typedef struct rill__pipe rill__pipe;
typedef struct rill__dset rill__dset;
typedef struct rill__accel rill__accel;
typedef struct rill__cmd rill__cmd;

/* Formats the renderer uses; mapped to VkFormat inside the backend. The graph's format enum is
 * reused so graph transients and backend images speak the same language. */
typedef rill_rg_format rill__fmt;

enum {
    RILL__BUF_VERTEX = 1u << 0,
    RILL__BUF_INDEX = 1u << 1,
    RILL__BUF_UNIFORM = 1u << 2,
    RILL__BUF_STORAGE = 1u << 3,
    RILL__BUF_TRANSFER_SRC = 1u << 4,
    RILL__BUF_TRANSFER_DST = 1u << 5,
    RILL__BUF_INDIRECT = 1u << 6, /* draw parameters (rill__cmd_draw_indexed_indirect) */
    /* Holds acceleration structures (caps.ray_query): the backend's own use (rill__blas_create). */
    RILL__BUF_ACCEL_STORAGE = 1u << 7,
};

enum {
    RILL__IMG_SAMPLED = 1u << 0,
    RILL__IMG_STORAGE = 1u << 1,
    RILL__IMG_COLOR = 1u << 2,
    RILL__IMG_DEPTH = 1u << 3,
    RILL__IMG_TRANSFER_SRC = 1u << 4,
    RILL__IMG_TRANSFER_DST = 1u << 5,
    RILL__IMG_ARRAY = 1u << 6, /* not a Vulkan usage: the default view is an array view */
    /* A cube (layers must be 6, faces +X -X +Y -Y +Z -Z): the default view is a cube view. With
     * RILL__IMG_STORAGE every mip level also gets a 2D array view of its six faces
     * (rill__binding.one_level), so compute can write one level of every face. */
    RILL__IMG_CUBE = 1u << 7,
    /* Not a Vulkan usage: an RGBA8 or BGRA8 UNORM image also gets a sampled view of every layer
     * and level in the format's sRGB twin (VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT), bound with
     * rill__binding.srgb: compute writes sRGB-encoded bytes through the UNORM storage views (sRGB
     * formats take no storage) and samplers decode them before filtering. */
    RILL__IMG_SRGB_VIEW = 1u << 8,
};

typedef struct rill__gpu_desc {
    rill_render_backend backend; /* VULKAN or NULL (resolved: never DEFAULT) */
    const char *app_name;
    const char *device_name; /* substring match, overrides the automatic choice; NULL = auto */
    int validation;          /* 1 on, 0 off, -1 = default (debug build or RILL_VALIDATION=1) */
    bool sync_validation;    /* also enable synchronization validation (slower) */
    uint32_t frames_in_flight;
    uint64_t upload_budget_bytes;    /* per frame */
    uint64_t block_size_bytes;       /* sub-allocator block size */
    const char *pipeline_cache_path; /* NULL = in-memory only */
    void *glfw_window;               /* NULL = headless */
    bool vsync;
} rill__gpu_desc;

typedef struct rill__gpu_caps {
    char device_name[256];
    int device_type; /* 0 other, 1 integrated, 2 discrete, 3 virtual, 4 cpu */
    bool fill_mode_non_solid;
    bool texture_bc;          /* BC1-BC7 sampled images (else the renderer decodes them to RGBA8) */
    bool anisotropy;          /* samplerAnisotropy */
    bool multi_draw_indirect; /* multiDrawIndirect + drawIndirectFirstInstance */
    bool draw_indirect_count; /* and drawIndirectCount (rill__cmd_draw_indexed_indirect_count) */
    uint64_t max_storage_range; /* maxStorageBufferRange: bytes one storage binding may see */
    bool timestamps;
    bool validation;
    float timestamp_period_ns;
    /* Sample counts usable for an RGBA16F colour + D32F depth attachment pair (bit n: 2^n
     * samples; bit 0 always set). */
    uint32_t msaa_counts;
    bool fragment_stores; /* fragmentStoresAndAtomics (order-independent transparency) */
    /* Subgroup ballot and arithmetic operations in compute shaders (Vulkan 1.1 subgroup
     * properties): GPU culling's appends add once per group and subgroup (gpu_cull.c). */
    bool subgroup_ballot_arith;
    /* Hardware ray tracing for compute shaders (the Hwrt GI tier, gi_hwrt.c): the device offers
     * VK_KHR_acceleration_structure + VK_KHR_ray_query (+ VK_KHR_deferred_host_operations) with
     * their features and bufferDeviceAddress, and all were enabled. Optional: never required.
     * ray_query_note says why not when false (the missing extension or feature, or
     * RILL_NO_RAY_QUERY=1), empty when true. */
    bool ray_query;
    char ray_query_note[128];
} rill__gpu_caps;

rill_result rill__gpu_create(const rill__gpu_desc *desc, rill__gpu **out, rill_error *err);
/* Waits for the device, destroys everything still alive (reporting leaks) and frees gpu. */
void rill__gpu_destroy(rill__gpu *gpu);
const rill__gpu_caps *rill__gpu_get_caps(const rill__gpu *gpu);
uint32_t rill__gpu_validation_messages(const rill__gpu *gpu);
rill_result rill__gpu_wait_idle(rill__gpu *gpu, rill_error *err);

/* Memory statistics of the sub-allocator. */
typedef struct rill__gpu_mem_stats {
    uint32_t blocks;
    uint64_t block_bytes;
    uint64_t used_bytes;
    uint32_t allocations;
} rill__gpu_mem_stats;
void rill__gpu_mem_stats_get(const rill__gpu *gpu, rill__gpu_mem_stats *out);

/* >>resources ------------------------------------------------------------------------------- */

/* host_visible buffers are persistently mapped (rill__buf_map). */
rill__buf *rill__buf_create(rill__gpu *gpu, uint64_t size, uint32_t usage, bool host_visible,
                            const char *label, rill_error *err);
void *rill__buf_map(rill__buf *buf);
uint64_t rill__buf_size(const rill__buf *buf);
/* Deferred: destroyed once every frame that may use it has finished. NULL is a no-op. */
void rill__buf_destroy(rill__gpu *gpu, rill__buf *buf);

typedef struct rill__img_desc {
    uint32_t width, height, layers, mips;
    rill__fmt format;
    uint32_t usage;
    const char *label;
    /* Above 1: a 3D image (VK_IMAGE_TYPE_3D) of width x height x depth texels, one layer, whose
     * views are 3D (sampler3D / image3D); with RILL__IMG_STORAGE and mips every level also gets
     * its own view (rill__binding.one_level). 0 or 1: a 2D image. Not for cubes or arrays. */
    uint32_t depth;
    uint32_t samples; /* 0 or 1: single-sampled; 2, 4, 8: multisampled (caps.msaa_counts) */
} rill__img_desc;
rill__img *rill__img_create(rill__gpu *gpu, const rill__img_desc *desc, rill_error *err);
void rill__img_destroy(rill__gpu *gpu, rill__img *img);
const rill__img_desc *rill__img_get_desc(const rill__img *img);

/* Copies data now into the frame's staging ring (or keeps a copy until the next frame with budget
 * left) and records the GPU copy at the start of a frame. The resource is usable by any pass of
 * the frame in which the upload is recorded; rill__buf_ready / rill__img_ready say when. */
rill_result rill__buf_upload(rill__gpu *gpu, rill__buf *buf, uint64_t offset, const void *data,
                             uint64_t size, rill_error *err);
/* Uploads mip 0 of layer 0 (tightly packed) and generates the rest of the mip chain. */
rill_result rill__img_upload(rill__gpu *gpu, rill__img *img, const void *data, uint64_t size,
                             rill_error *err);
/* Uploads levels [first_level, first_level + level_count) as given (no generation): level_data[i]
 * must hold exactly the level's bytes (tightly packed rows of pixels, or of 4x4 blocks for block
 * formats; partial edge blocks count whole). The levels' previous contents are replaced in place
 * by a later frame's copy, ordered after every earlier frame's use of the image. */
#define RILL__MAX_MIPS 16
rill_result rill__img_upload_levels(rill__gpu *gpu, rill__img *img, uint32_t first_level,
                                    uint32_t level_count, const void *const *level_data,
                                    const uint64_t *level_size, rill_error *err);
/* The same for levels [0, level_count) without copying them: level_data[i] is read when a later
 * frame records the upload (within the staging budget), and release(user) runs once it is no
 * longer needed (recorded, the image destroyed, or the device destroyed). On an error nothing is
 * queued and release is not called. Keeps the main thread free of a second copy of big chains
 * (texture streaming hands over the loaded asset's payload). */
rill_result rill__img_upload_levels_borrowed(rill__gpu *gpu, rill__img *img, uint32_t level_count,
                                             const void *const *level_data,
                                             const uint64_t *level_size,
                                             void (*release)(void *user), void *user,
                                             rill_error *err);
/* Block formats (BC*) and bytes per block (BC) or per pixel (others); 0 = unknown. */
bool rill__fmt_is_block(rill__fmt fmt);
uint32_t rill__fmt_unit_bytes(rill__fmt fmt);
/* The bytes of mip level `level` of a width x height image of fmt (rows of pixels, or of 4 x 4
 * blocks for block formats). */
uint64_t rill__fmt_level_bytes(rill__fmt fmt, uint32_t width, uint32_t height, uint32_t level);
bool rill__buf_ready(const rill__buf *buf);
/* Marks a device-local buffer that GPU work fills (no upload) as drawable: the skinning pass
 * writes its target vertices before any pass reads them in the same frame. */
void rill__buf_mark_written(rill__buf *buf);
/* The number of the last upload queued into buf (0: none), and whether upload `seq` (and every one
 * before it) has been recorded, so a range written by it can be drawn. */
uint64_t rill__buf_upload_seq(const rill__buf *buf);
bool rill__buf_seq_done(const rill__buf *buf, uint64_t seq);
bool rill__img_ready(const rill__img *img);

typedef enum rill__sampler_kind {
    RILL__SAMPLER_LINEAR_REPEAT = 0,
    RILL__SAMPLER_LINEAR_CLAMP,
    RILL__SAMPLER_NEAREST_CLAMP,
    RILL__SAMPLER_SHADOW, /* compare LESS_OR_EQUAL, linear, clamp to border (white) */
    RILL__SAMPLER_LINEAR_MIRROR,
    RILL__SAMPLER_NEAREST_REPEAT,
    RILL__SAMPLER_NEAREST_MIRROR,
    RILL__SAMPLER_NUM
    /* values >= RILL__SAMPLER_NUM are material samplers from rill__sampler_material */
} rill__sampler_kind;

/* A material texture's sampler: wrap per axis (0 repeat, 1 clamp to edge, 2 mirrored repeat),
 * nearest or linear magnification and minification, mip filter (0 linear, 1 nearest, 2 none: only
 * the base level). Linear-mip samplers are anisotropic where the device does it well. */
typedef struct rill__sampler_desc {
    uint8_t wrap_u, wrap_v;
    bool mag_nearest, min_nearest;
    uint8_t mip;
} rill__sampler_desc;
/* The sampler for d (created once per distinct desc, kept until the device goes), as a kind to
 * put in rill__binding.sampler; RILL__SAMPLER_LINEAR_REPEAT with err set when it cannot be made. */
rill__sampler_kind rill__sampler_material(rill__gpu *gpu, const rill__sampler_desc *d,
                                          rill_error *err);
/* The desc of a material sampler kind (for debug views); false for a built-in or unknown kind. */
bool rill__sampler_desc_of(const rill__gpu *gpu, rill__sampler_kind kind, rill__sampler_desc *out);

/* >>acceleration structures (caps.ray_query) ----------------------------------------------- */

/* One triangle mesh for a bottom-level structure (BLAS): each vertex is `vertex_stride` bytes of
 * `vertices` starting with its position (3 floats); the triangles are `index_count` uint32
 * indices of `indices` from `first_index`, each plus vertex_offset; max_vertex is the largest
 * vertex (after the offset) they name. Both buffers are mesh buffers (vertex / index / storage
 * usage), which the backend makes readable by builds when caps.ray_query. */
typedef struct rill__blas_geom {
    rill__buf *vertices, *indices;
    uint32_t vertex_stride, max_vertex;
    uint32_t first_index, index_count;
    int32_t vertex_offset;
} rill__blas_geom;

/* One instance of a top-level structure (TLAS), laid out as VkAccelerationStructureInstanceKHR
 * (64 bytes): a row-major 3x4 object-to-world transform, the custom index (low 24 bits) and the
 * visibility mask (high 8), the hit-group offset (24 bits, unused by ray queries) and the flags
 * (high 8), and the device address of its BLAS (rill__accel_address). */
typedef struct rill__accel_instance {
    float transform[12];
    uint32_t index_mask;
    uint32_t offset_flags;
    uint64_t blas;
} rill__accel_instance;

/* Sizes a structure needs, from the device: the structure itself and its build's scratch. */
typedef struct rill__accel_sizes {
    uint64_t structure, scratch;
} rill__accel_sizes;

/* A BLAS for g's triangles (built by rill__cmd_build_blas with the same counts); its sizes in
 * out_sizes when not NULL. NULL with err set without caps.ray_query or on a device error. */
rill__accel *rill__blas_create(rill__gpu *gpu, const rill__blas_geom *g, const char *label,
                               rill__accel_sizes *out_sizes, rill_error *err);
/* A TLAS for up to max_instances instances, with its build scratch and host-visible instance
 * memory for every frame in flight. */
rill__accel *rill__tlas_create(rill__gpu *gpu, uint32_t max_instances, const char *label,
                               rill__accel_sizes *out_sizes, rill_error *err);
/* A mesh or storage buffer's device address (caps.ray_query: shaders read vertices through it);
 * 0 without ray queries or for NULL. */
uint64_t rill__buf_address(const rill__buf *buf);
/* The structure's device address (what rill__accel_instance.blas holds); 0 for NULL. */
uint64_t rill__accel_address(const rill__accel *a);
/* Deferred like buffers: destroyed once every frame that may use it has finished. NULL: no-op. */
void rill__accel_destroy(rill__gpu *gpu, rill__accel *a);
/* Records the build of blas from g (the geometry it was created for), after a barrier that makes
 * every earlier write (uploads, skinning) visible to it; its scratch lives until the frame ends. */
rill_result rill__cmd_build_blas(rill__cmd *cmd, rill__accel *blas, const rill__blas_geom *g,
                                 rill_error *err);
/* Copies `count` instances (at most the TLAS's max_instances) into this frame's instance memory
 * and records the TLAS build, after a barrier that orders the BLAS builds before it and followed
 * by one that makes it visible to compute shaders' ray queries. count 0 builds an empty TLAS. */
void rill__cmd_build_tlas(rill__cmd *cmd, rill__accel *tlas, const rill__accel_instance *inst,
                          uint32_t count);

/* >>pipelines ------------------------------------------------------------------------------- */

typedef enum rill__bind_kind {
    RILL__BIND_NONE = 0,
    RILL__BIND_UNIFORM,
    RILL__BIND_STORAGE,
    RILL__BIND_TEXTURE, /* combined image sampler */
    RILL__BIND_STORAGE_IMAGE,
    RILL__BIND_SAMPLED_IMAGE, /* image without a sampler (GLSL texture2D), GENERAL layout */
    RILL__BIND_SAMPLER,       /* sampler alone: rill__binding.sampler */
    RILL__BIND_ACCEL,         /* a top-level acceleration structure: rill__binding.accel */
} rill__bind_kind;

#define RILL__MAX_SETS 3
#define RILL__MAX_BINDINGS 24
#define RILL__MAX_COLOR 4

typedef struct rill__set_layout {
    rill__bind_kind bindings[RILL__MAX_BINDINGS]; /* binding i; NONE ends the list */
} rill__set_layout;

typedef enum rill__blend { RILL__BLEND_NONE = 0, RILL__BLEND_ALPHA } rill__blend;
typedef enum rill__cull { RILL__CULL_BACK = 0, RILL__CULL_NONE, RILL__CULL_FRONT } rill__cull;
typedef enum rill__cmp {
    RILL__CMP_LESS = 0,
    RILL__CMP_LESS_EQUAL,
    RILL__CMP_EQUAL,
    RILL__CMP_ALWAYS
} rill__cmp;

typedef struct rill__pipe_desc {
    const char *label;
    const uint32_t *vs, *fs, *cs; /* SPIR-V; cs alone = compute pipeline */
    size_t vs_size, fs_size, cs_size;
    /* the standard 48-byte mesh vertex (pos, normal, uv, tangent; binding 0) and the vertex
     * extras (colour, uv1; binding 1, rill__vertex_extra, its stride given when bound) */
    bool mesh_vertex_input;
    rill__fmt color_formats[RILL__MAX_COLOR];
    uint32_t color_count;
    rill__fmt depth_format; /* RILL_RG_FORMAT_NONE = no depth */
    rill__blend blend;
    rill__cull cull;
    bool depth_test, depth_write;
    rill__cmp depth_cmp;
    bool depth_bias; /* dynamic depth bias enabled */
    bool wireframe;  /* polygon mode line; needs caps.fill_mode_non_solid */
    bool line_list;  /* line list topology (edge buffers), filled */
    bool alpha_only; /* colour writes touch alpha only (passthrough alpha) */
    bool rgb_only;   /* colour writes leave alpha alone (ghosted glass: its alpha drawn apart) */
    /* The front face is dynamic state (rill__cmd_front_face before drawing): mirrored instances
     * draw clockwise. Static pipelines take counter-clockwise. */
    bool dynamic_front_face;
    rill__set_layout sets[RILL__MAX_SETS];
    uint32_t set_count;
    uint32_t push_size; /* bytes, visible to every stage */
    uint32_t samples;   /* rasterization samples: 0 or 1, or 2, 4, 8 (multisampled targets) */
} rill__pipe_desc;

rill__pipe *rill__pipe_create(rill__gpu *gpu, const rill__pipe_desc *desc, rill_error *err);
void rill__pipe_destroy(rill__gpu *gpu, rill__pipe *pipe);

/* One binding value for a descriptor set write. */
typedef struct rill__binding {
    rill__buf *buf;
    uint64_t offset, range; /* range 0 = whole buffer */
    rill__img *img;
    int32_t layer; /* -1 = all layers (array view), else one layer */
    rill__sampler_kind sampler;
    /* Storage images with mips (RILL__IMG_STORAGE, a cube or more than one level): true binds only
     * mip `level` (a cube's six faces as a 2D array); false binds the default view (every level).
     */
    bool one_level;
    uint32_t level;
    /* Sampled bindings of an image made with RILL__IMG_SRGB_VIEW (layer -1, one_level false):
     * its sRGB view. Ignored for images without one. */
    bool srgb;
    rill__accel *accel; /* RILL__BIND_ACCEL (caps.ray_query) */
} rill__binding;

/* A persistent descriptor set (for materials) laid out as `pipe`'s set `set_index`. */
rill__dset *rill__dset_create(rill__gpu *gpu, const rill__pipe *pipe, uint32_t set_index,
                              const rill__binding *bindings, uint32_t count, rill_error *err);
void rill__dset_destroy(rill__gpu *gpu, rill__dset *set);

/* >>frames ---------------------------------------------------------------------------------- */

/* Starts a frame: waits until the frame slot is free (its deletion queue is drained then), resets
 * its pools, acquires a swapchain image when windowed, and records pending uploads. */
rill_result rill__frame_begin(rill__gpu *gpu, rill__cmd **out_cmd, rill_error *err);
/* Submits the frame (and presents when windowed). */
rill_result rill__frame_end(rill__gpu *gpu, rill__cmd *cmd, rill_error *err);
/* The swapchain image for this frame (windowed), else NULL; and the surface size. */
rill__img *rill__frame_swapchain_image(rill__gpu *gpu);
void rill__gpu_surface_size(const rill__gpu *gpu, uint32_t *out_w, uint32_t *out_h);
/* The render thread's guard: called first by every resource call (create, destroy, upload,
 * pipelines, descriptor sets, samplers, wait_idle, vsync). NULL: none. */
void rill__gpu_set_guard(rill__gpu *gpu, void (*fn)(const void *user), const void *user);
/* The window's framebuffer size as the calling thread read it from GLFW (which allows that on
 * the main thread only): frame_begin and swapchain creation use it instead of asking GLFW. */
void rill__gpu_set_framebuffer_size(rill__gpu *gpu, int w, int h);
/* Windowed: the swapchain is made again with the present mode for vsync at the next frame. */
void rill__gpu_set_vsync(rill__gpu *gpu, bool vsync);
/* "fifo", "mailbox", "immediate" (the current swapchain's), or "none" headless. */
const char *rill__gpu_present_mode(const rill__gpu *gpu);
uint64_t rill__gpu_frame_index(const rill__gpu *gpu);
uint32_t rill__gpu_frame_slot(const rill__gpu *gpu);
uint32_t rill__gpu_frames_in_flight(const rill__gpu *gpu);
uint64_t rill__gpu_uploaded_last_frame(const rill__gpu *gpu);
/* The last frame's uploads: how many it recorded, and what its budget left queued for later. */
typedef struct rill__upload_figures {
    uint32_t uploads;       /* recorded at the last frame's start */
    uint64_t backlog_bytes; /* still queued after them */
} rill__upload_figures;
void rill__gpu_upload_figures(const rill__gpu *gpu, rill__upload_figures *out);
/* The CPU time this thread has spent in rill__buf_create, rill__img_create and rill__pipe_create
 * (whatever the backend) and how many calls that was, since it started: the frame reads it before
 * and after recording to say what making GPU objects cost it (rill_render_stats.cpu_create_ms).
 * Kept by the dispatcher, not a backend function. */
void rill__gpu_create_time(uint64_t *ns, uint32_t *calls);

/* Timestamps of the most recently completed frame: count pairs (name, milliseconds). */
uint32_t rill__gpu_timings(rill__gpu *gpu, const char *const **out_names, const double **out_ms);

/* >>commands -------------------------------------------------------------------------------- */

void rill__cmd_barriers(rill__cmd *cmd, const rill_rg_barrier *barriers, uint32_t count,
                        rill__img *const *images, rill__buf *const *buffers);
void rill__cmd_label_begin(rill__cmd *cmd, const char *label);
void rill__cmd_label_end(rill__cmd *cmd);
/* Paired GPU timestamps around a pass; name must live until the frame completes (static or
 * interned). */
void rill__cmd_timestamp_begin(rill__cmd *cmd, const char *name);
void rill__cmd_timestamp_end(rill__cmd *cmd);

typedef struct rill__attachment {
    rill__img *img;
    int32_t layer; /* -1 = the default view */
    bool clear;
    bool read_only;       /* depth: test only, in the read-only layout */
    float clear_color[4]; /* depth uses clear_color[0] */
} rill__attachment;

void rill__cmd_begin_rendering(rill__cmd *cmd, const rill__attachment *colors, uint32_t color_count,
                               const rill__attachment *depth, uint32_t width, uint32_t height);
void rill__cmd_end_rendering(rill__cmd *cmd);
void rill__cmd_bind_pipe(rill__cmd *cmd, rill__pipe *pipe);
void rill__cmd_bind_set(rill__cmd *cmd, uint32_t set_index, rill__dset *set);
/* Allocates a set from the frame's pool, writes it and binds it to the bound pipeline. */
rill_result rill__cmd_bind_transient_set(rill__cmd *cmd, uint32_t set_index,
                                         const rill__binding *bindings, uint32_t count);
void rill__cmd_push(rill__cmd *cmd, const void *data, uint32_t size);
void rill__cmd_depth_bias(rill__cmd *cmd, float constant, float slope);
/* The front face of the bound pipeline (one with dynamic_front_face): clockwise for instances
 * whose world matrix mirrors (negative determinant), counter-clockwise otherwise. */
void rill__cmd_front_face(rill__cmd *cmd, bool clockwise);
void rill__cmd_bind_mesh(rill__cmd *cmd, rill__buf *vertices, rill__buf *indices);
/* Binds a mesh for a mesh_vertex_input pipeline: its vertices (binding 0), its extras (binding 1,
 * extra_stride bytes apart; 0 repeats the first for every vertex) and indices. */
void rill__cmd_bind_mesh_extras(rill__cmd *cmd, rill__buf *vertices, rill__buf *extras,
                                uint32_t extra_stride, rill__buf *indices);
/* With a vertex offset (meshes sharing buffers, render_pools.c). */
void rill__cmd_draw_indexed_at(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                               uint32_t first_index, int32_t vertex_offset,
                               uint32_t first_instance);
/* `count` VkDrawIndexedIndirectCommand records (20 bytes each) at offset of buf (created with
 * RILL__BUF_INDIRECT); needs caps.multi_draw_indirect when count > 1. */
void rill__cmd_draw_indexed_indirect(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                     uint32_t count);
/* Up to max_count of those records, as many as the uint32 at count_offset of count_buf (written by
 * the GPU; RILL__BUF_INDIRECT) says; needs caps.draw_indirect_count. */
void rill__cmd_draw_indexed_indirect_count(rill__cmd *cmd, rill__buf *buf, uint64_t offset,
                                           rill__buf *count_buf, uint64_t count_offset,
                                           uint32_t max_count);
void rill__cmd_draw_indexed(rill__cmd *cmd, uint32_t index_count, uint32_t instance_count,
                            uint32_t first_index, uint32_t first_instance);
void rill__cmd_dispatch(rill__cmd *cmd, uint32_t x, uint32_t y, uint32_t z);
void rill__cmd_copy_image_to_buffer(rill__cmd *cmd, rill__img *img, rill__buf *buf);
/* Makes transfer writes visible to the host (before reading a readback buffer on the CPU). */
void rill__cmd_host_read_barrier(rill__cmd *cmd);
/* Limits the following begin_rendering calls to a rectangle of their attachments (pixels x, y, w,
 * h, top-left origin): render area, viewport and scissor; loads that clear clear only it. NULL
 * (or w or h 0) restores the whole attachment. */
void rill__cmd_set_render_rect(rill__cmd *cmd, const uint32_t rect[4]);
/* Orders compute shader writes before later compute reads and writes (between dispatches of one
 * pass that touch the same image). */
void rill__cmd_compute_barrier(rill__cmd *cmd);
/* The skinning pass's barriers (skinning.c): before its dispatches (after = false) every earlier
 * command's reads and writes finish before compute writes; after them, compute writes are seen by
 * the vertex input of every later draw. */
void rill__cmd_skinning_barrier(rill__cmd *cmd, bool after);
/* After GPU culling's dispatches (gpu_cull.c): compute writes are seen by the indirect draws'
 * parameters, the vertex shaders' storage reads and the host (tests read the visible flags). */
void rill__cmd_indirect_barrier(rill__cmd *cmd);
/* Copies size bytes of src (from src_off) to dst (at dst_off). first: after a barrier that makes
 * every earlier write (uploads included) visible to the copy; last: followed by one that makes the
 * copies visible to vertex and index fetch (a batch of copies passes first on its first and last
 * on its last). Buffers not host-visible are copy sources. */
void rill__cmd_copy_buffer(rill__cmd *cmd, rill__buf *src, uint64_t src_off, rill__buf *dst,
                           uint64_t dst_off, uint64_t size, bool first, bool last);
/* Copies src (whole) onto dst (same size and format), both in the GENERAL layout (images a pass
 * holds as STORAGE_WRITE), with barriers so earlier writes of either are seen and the copy is seen
 * by the compute work that follows in the same pass. */
void rill__cmd_copy_image_general(rill__cmd *cmd, rill__img *src, rill__img *dst);
/* Fills img (held as TRANSFER_DST) with one colour. */
void rill__cmd_clear_color(rill__cmd *cmd, rill__img *img, const float rgba[4]);
/* Copies src (whole, TRANSFER_SRC) into dst (TRANSFER_DST, same format) at pixel (x, y), cut to
 * dst; earlier transfer writes into dst are ordered before it (overlapping copies land in call
 * order). */
void rill__cmd_copy_image_to(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t x,
                             uint32_t y);
/* Blits src (whole) onto dst (whole), converting formats; both in transfer layouts. */
void rill__cmd_blit(rill__cmd *cmd, rill__img *src, rill__img *dst);
/* Blits src (whole, TRANSFER_SRC) onto level 0 of array layer `layer` of dst (TRANSFER_DST),
 * mirrored left to right when flip_x (a camera's picture onto a cube face), converting formats. */
void rill__cmd_blit_layer(rill__cmd *cmd, rill__img *src, rill__img *dst, uint32_t layer,
                          bool flip_x);
/* Resolves multisampled colour src (TRANSFER_SRC) into single-sampled dst (TRANSFER_DST), the
 * size of the smaller. */
void rill__cmd_resolve(rill__cmd *cmd, rill__img *src, rill__img *dst);

/* A frame-lifetime host-visible scratch allocation (instance data, per-frame uniforms). Memory is
 * valid until the frame slot comes around again. Returns NULL when the frame arena is full. */
void *rill__frame_alloc(rill__cmd *cmd, uint64_t size, uint64_t align, rill__buf **out_buf,
                        uint64_t *out_offset);

#endif /* RILL_RENDER_GPU_H */
