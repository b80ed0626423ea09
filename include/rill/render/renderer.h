/* rill/render/renderer.h: the renderer object (part of rill/render.h).
 *
 * Handles (meshes, textures, materials), the renderer description (size, window, device, quality
 * tier, shadows, render scale, debug switches, the setup_graph hook, jobs), creation and
 * destruction, run-time settings (debug flags, render scale, quality, vsync) and what the
 * renderer applies now. rill/render.h describes the renderer as a whole.
 */
#ifndef RILL_RENDER_RENDERER_H
#define RILL_RENDER_RENDERER_H

#include "rill/base.h"
#include "rill/render/graph.h"

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
    /* With GPU culling: no occlusion culling (docs/renderer.md "GPU-driven culling"): every
     * instance in the view's frustum is drawn, as before two-phase occlusion existed. */
    RILL_RENDER_DEBUG_NO_OCCLUSION = 1u << 4,
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

/* The GPU backend a renderer runs on (rill_renderer_desc.backend). DEFAULT: the environment
 * variable RILL_RENDER_BACKEND ("vulkan" or "null"), else Vulkan. NULL: no device at all (the
 * model is sokol's dummy backend): meshes, textures, materials, uploads under the per-frame
 * budget, deferred destruction, extract, frame planning and render-graph compilation all run,
 * and every recorded command is checked (a draw without a pipeline, a push beyond the pipeline's
 * push constants, unbalanced rendering or labels... count as validation messages), but nothing
 * is drawn: read_pixels gives zeros, GPU timings are empty and GPU-written buffers stay as the
 * CPU left them. For tests and tools that need no pixels; headless only. */
typedef enum rill_render_backend {
    RILL_RENDER_BACKEND_DEFAULT = 0,
    RILL_RENDER_BACKEND_VULKAN,
    RILL_RENDER_BACKEND_NULL,
    RILL_RENDER_BACKEND_NUM,
    RILL_RENDER_BACKEND_FORCE_U32 = 0x7FFFFFFF
} rill_render_backend;

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
 *   against a brick = 1 unit; rill_render_stats.gi_voxel_units says what the last frame spent);
 *   backend DEFAULT = RILL_RENDER_BACKEND or Vulkan (rill_render_backend). */
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
    /* Record and submit each frame on a render thread (see ON THE RENDER THREAD in
     * rill/render/snapshot.h). false: on the thread that calls rill_renderer_render. A zero desc
     * leaves it off; rill_renderer_query_defaults and rill_content_renderer_desc (project.toml
     * [rendering] render_thread, default true) turn it on. */
    bool render_thread;
    rill_render_backend backend;
    /* A capture reflection probe (rill_render_probe.capture) draws this many of its six cube
     * faces a frame: 0 = 1 (the capture's cost spread over six frames), 6 = all in one frame. */
    uint32_t probe_capture_faces;
    uint32_t end_canary; /* must be 0 */
} rill_renderer_desc;

/* The defaults applied to a zero desc (for tests and tools), and render_thread true (a zero
 * desc cannot tell "off" from "default", so it stays off there). */
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
    bool render_thread;           /* frames are recorded on a render thread (desc.render_thread) */
    uint64_t upload_budget_bytes; /* per frame (desc.upload_budget_bytes, 0 resolved to 32 MiB) */
} rill_renderer_settings;
void rill_renderer_get_settings(const rill_renderer *r, rill_renderer_settings *out);
/* Resizes the headless target (windowed renderers follow the surface). */
rill_result rill_renderer_resize(rill_renderer *r, uint32_t width, uint32_t height,
                                 rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_RENDERER_H */
