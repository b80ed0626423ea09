/* rill/render/debug.h: the renderer's debug panels (the spec's debugger panels), drawn over the
 * finished frame by the overlay pass: render stats, culling debug, camera debug and the material
 * resolver. `rill render --debug-view stats|culling|cameras|material` and the viewer's F9 use
 * them; docs/renderer.md "Debug views" shows what each draws.
 *
 * ON THE PANELS
 *   STATS     text: draws, triangles, visible instances, the GPU and CPU time of every pass of the
 *             newest timed frame, the CPU phases of recording, GPU memory and the process's live
 *             memory by tag (rill_mem_live_bytes).
 *   CULLING   lines: the culling frustum of view 0 (yellow) and the bounding box of every instance
 *             that is not hidden: green when the culling frustum keeps it, red when it culls it.
 *             With freeze_culling, view 0 keeps being culled against the frustum it had on the
 *             first frame frozen, wherever its camera goes next: fly away and look at what that
 *             frustum draws.
 *   CAMERAS   lines: every view's frustum (white, its near plane rectangle orange), view 0's
 *             shadow cascades (one colour each: cyan, blue, magenta, orange) as their light-space
 *             boxes, and the frozen frustum when culling is frozen.
 *   MATERIAL  text: what the renderer draws an instance with (rill_render_describe_instance;
 *             the tool sets the text with rill_renderer_set_overlay_text, since it knows which
 *             entity was picked).
 *   Lines are drawn without depth test, over the image, in view 0's rectangle. A frustum is drawn
 *   out to its far plane or to just past the farthest instance, whichever is nearer. At most
 *   RILL_RENDER_DEBUG_MAX_LINES segments are drawn a frame (boxes past it are left out and the
 *   panel's text says how many).
 *   observe puts view 0's camera back and up so that the whole scene and the camera's own
 *   frustum are in sight (the image is drawn from there; culling stays the camera's own): how
 *   `rill render` shows the culling and camera panels, since a frustum seen from its own camera
 *   is only the image's border. */
#ifndef RILL_RENDER_DEBUG_H
#define RILL_RENDER_DEBUG_H

#include "rill/render.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rill_render_panel {
    RILL_RENDER_PANEL_NONE = 0,
    RILL_RENDER_PANEL_STATS,
    RILL_RENDER_PANEL_CULLING,
    RILL_RENDER_PANEL_CAMERAS,
    RILL_RENDER_PANEL_MATERIAL,
    RILL_RENDER_PANEL_NUM,
    RILL_RENDER_PANEL_FORCE_U32 = 0x7FFFFFFF
} rill_render_panel;

/* The panel names as the tools spell them ("stats", "culling", "cameras", "material"; "none"). */
const char *rill_render_panel_name(rill_render_panel p);

#define RILL_RENDER_DEBUG_MAX_LINES 16384u

/* Zero = no panel, culling live, the camera's own view. */
typedef struct rill_render_debug_desc {
    uint32_t start_canary; /* must be 0 */
    rill_render_panel panel;
    bool freeze_culling; /* view 0 is culled against its frustum of the first frozen frame */
    bool observe;        /* view 0 drawn from behind and above its camera (see ON THE PANELS) */
    uint32_t end_canary; /* must be 0 */
} rill_render_debug_desc;

/* Shows a panel over every following frame (NULL: none). Turning freeze_culling off (or the
 * panel off) thaws culling; turning it on again freezes the frustum of that frame. The first call
 * with a panel builds the overlay's pipeline; failures are logged and leave the panel off. */
void rill_renderer_set_debug(rill_renderer *r, const rill_render_debug_desc *desc);
/* The culling frustum's view-projection the renderer used for view 0 in the last frame (frozen or
 * not; column major, zero-to-one depth); false before any frame. */
bool rill_renderer_debug_cull_matrix(const rill_renderer *r, float out_vp[16]);

/* >>material resolver ------------------------------------------------------------------------- */

/* One texture slot of a material as the renderer binds it. */
typedef struct rill_render_texture_info {
    const char *slot; /* "base_color", "normal", ... (RILL_MATERIAL_TEX_* in order) */
    const char *path; /* the image's VFS path (rill_render_assets_texture_path), NULL unknown */
    uint32_t texture; /* the handle's id (0: the slot holds the placeholder) */
    uint32_t width, height;   /* the full chain's size */
    uint32_t resident_width;  /* the size of the level the GPU samples first now */
    uint32_t resident_level;  /* that level's index in the full chain (0 = full detail) */
    uint32_t resident_levels; /* levels held on the GPU */
    const char *format;       /* "rgba8", "bc7", ... */
    bool srgb;
    const char *sampler; /* "repeat", "clamp", ... (rill__sampler_kind's name) */
} rill_render_texture_info;

#define RILL_RENDER_MATERIAL_SLOTS RILL_MATERIAL_TEX_NUM
/* What the renderer draws one instance with (rill_render_describe_instance). Strings are static. */
typedef struct rill_render_instance_info {
    uint32_t instance;       /* its index in the snapshot */
    uint32_t mesh, material; /* handle ids */
    uint32_t index_count, vertex_count;
    const char *pipeline; /* the pipeline variant of its lit pass ("opaque", "transparent", ...) */
    const char *shader;   /* the fragment shader of that pipeline ("pbr.frag", ...) */
    const char *alpha_mode; /* "opaque", "mask", "blend" */
    bool double_sided;
    const char *render_mode; /* "normal", "hidden", "wireframe", "ghost" */
    float ghost_opacity;
    uint32_t range_count; /* > 0: drawn by ranges of a merged mesh (a static batch's) */
    bool batched;         /* its mesh sits in a shared block (merged meshes, static batches) */
    uint32_t texture_count;
    rill_render_texture_info textures[RILL_RENDER_MATERIAL_SLOTS];
} rill_render_instance_info;

/* The first instance of snap whose id is `id` (rill_render_extract: the entity), described;
 * false when snap has none or its mesh or material is not live. snap is the snapshot last
 * rendered (or about to be); ra (may be NULL) names the textures' image paths. */
bool rill_render_describe_instance(const rill_renderer *r, const rill_render_assets *ra,
                                   const rill_render_snapshot *snap, uint64_t id,
                                   rill_render_instance_info *out);
/* info as one JSON object (no newline) into buf (cap bytes, always NUL-terminated when cap > 0);
 * the length it needed. */
size_t rill_render_instance_info_json(const rill_render_instance_info *info, char *buf, size_t cap);
/* info as overlay text lines into buf (as above). */
size_t rill_render_instance_info_text(const rill_render_instance_info *info, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
