/* rill/render/effects.h: the composition registry (render effects in four phases) and the settings
 * components that route effect settings to cameras.
 *
 * ON COMPOSITION
 *   Every screen effect, the engine's (SSAO, auto exposure, bloom) and a plugin's alike, is an
 *   entry in one list per renderer: an id, a phase, an order and the settings type it reads. The
 *   graph of a frame adds the entries phase by phase, inside a phase by order (ties: registration
 *   order); an effect never names another pass. Phases:
 *     GI        after the prepass, before opaque lighting: depth, normal and motion are written;
 *               its images are inputs lighting samples (SSAO writes ao). HDR before TAA.
 *               A GI effect registered with after_lighting instead transforms the lit HDR image:
 *               it runs after end_main_pass, before TAA and the HDR_POST phase (plugin effects
 *               of the GI phase do).
 *     HDR_POST  after end_main_pass (and TAA), before tonemapping: the colour is linear HDR.
 *     LDR_POST  after tonemapping, before FXAA/SMAA: display-encoded 8-bit colour.
 *     OVERLAY   after anti-aliasing, before the text overlay and the output copy.
 *   Each phase has a current colour image (ctx->color: hdr in GI and HDR_POST, ldr after
 *   tonemapping; a rill_rg_image handle). An effect that changes the colour reads ctx->color and
 * writes the image rill_render_effect_next_color returns; what runs later in the phase (and the
 * phase's consumer: tonemapping for HDR, the output for LDR) reads that image instead. Anchors that
 * are missing (no TAA yet, no FXAA) change nothing: the phase still runs in its place.
 *
 *   An effect runs for a camera only when the camera's routed settings hold its settings type
 *   (rill_render_view_settings); otherwise it adds no pass, binds no pipeline and costs nothing.
 *
 * ON CAMERAS
 *   The phases run once per camera (view) of the frame, each camera with its own routed settings,
 *   images and colour chain: a split screen runs bloom on one half and not the other. The add
 *   callback is called once per camera that wants the effect, inside that camera's view scope of
 *   the graph (rill_rg_begin_view): passes and images it adds are named "name.N" for view N > 0
 *   and view-relative images are relative to the camera's rectangle, so an effect written for one
 *   camera works for all. What the effect's passes read at execution must be per camera too:
 *   keep it in rill_render_effect_state memory (not in the effect's user pointer, which the next
 *   camera's add would overwrite) and give that as the pass's user pointer. */
#ifndef RILL_RENDER_EFFECTS_H
#define RILL_RENDER_EFFECTS_H

#include "rill/render.h"
#include "rill/render/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rill_render_phase's values and their names (rill_render_phase_name), one list. */
#define RILL_RENDER_PHASE_LIST(X)                                                                  \
    X(RILL_RENDER_PHASE_GI, "gi")                                                                  \
    X(RILL_RENDER_PHASE_HDR_POST, "hdr_post")                                                      \
    X(RILL_RENDER_PHASE_LDR_POST, "ldr_post")                                                      \
    X(RILL_RENDER_PHASE_OVERLAY, "overlay")
typedef enum rill_render_phase {
    RILL_RENDER_PHASE_LIST(RILL_ENUM_ID) /* values from the list */
    RILL_RENDER_PHASE_NUM,
    RILL_RENDER_PHASE_FORCE_U32 = 0x7FFFFFFF
} rill_render_phase;

/* "gi", "hdr_post", "ldr_post", "overlay" ("?" out of range). */
const char *rill_render_phase_name(rill_render_phase p);

/* What an effect's add callback gets while the frame graph is built. */
typedef struct rill_render_effect_ctx {
    rill_renderer *renderer;
    rill_rg *graph;
    const rill_render_graph *frame; /* the frame's anchors and engine images, as handles */
    rill_render_phase phase;
    const rill_render_view *view; /* the camera the effect runs for (routed settings applied) */
    const void *settings;         /* the camera's routed copy of the effect's settings type */
    uint32_t settings_size;       /* (NULL/0 for an effect with no settings type) */
    rill_rg_image color;          /* the phase's current colour image */
    const char *id;               /* the effect's id */
    void *user;                   /* the desc's user pointer */
    uint32_t view_index;          /* the camera's view in the frame (0: the first drawn) */
    /* private: the registry's chain state */
    uint32_t chain_;
} rill_render_effect_ctx;

/* Creates a new image like ctx->color (format, size), makes it the phase's colour and returns it
 * (ctx->color changes to it; the graph names it "hdr.fxN" / "ldr.fxN"). The effect must write it
 * in one of its passes. {0} with err set when the graph refuses. */
rill_rg_image rill_render_effect_next_color(rill_render_effect_ctx *ctx, rill_error *err);

/* size bytes of zeroed memory that live until the next frame's graph is built (16-byte
 * aligned): where an effect keeps what its passes read for this camera (see ON CAMERAS). NULL
 * with err set when size is 0 or above 16 MiB, or memory runs out. */
void *rill_render_effect_state(rill_render_effect_ctx *ctx, size_t size, rill_error *err);

/* Adds the effect's passes (rill_rg_add_pass + rill_rg_use_image) to ctx->graph. */
typedef rill_result (*rill_render_effect_add_fn)(rill_render_effect_ctx *ctx, rill_error *err);
/* Optional: false keeps the effect out of this frame although its settings are routed (engine
 * effects apply the quality tier ceiling here). */
typedef bool (*rill_render_effect_active_fn)(const rill_render_effect_ctx *ctx);

/* id:       unique among the renderer's effects (copied); names the effect in dumps and the viewer.
 * phase, order: where it runs (lower order first; ties: registration order).
 * settings: the settings component type name routed to cameras ("Bloom"); the effect runs only
 *           for cameras whose routed settings hold it. NULL: the effect decides with active alone.
 * active:   optional condition; when given it replaces the settings check (it sees
 *           ctx->settings, NULL when the camera has none). add: required.
 * after_lighting: GI phase only: run on the lit HDR image after end_main_pass (see ON
 *           COMPOSITION) instead of before lighting. */
typedef struct rill_render_effect_desc {
    uint32_t start_canary; /* must be 0 */
    const char *id;
    rill_render_phase phase;
    int32_t order;
    const char *settings;
    rill_render_effect_active_fn active;
    rill_render_effect_add_fn add;
    void *user;
    bool after_lighting;
    uint32_t end_canary; /* must be 0 */
} rill_render_effect_desc;

#define RILL_RENDER_MAX_EFFECTS 128

/* Registers an effect; returns its handle (> 0), or 0 with err set (bad desc, duplicate id, full).
 * Takes effect from the next frame. */
uint32_t rill_render_effect_register(rill_renderer *r, const rill_render_effect_desc *desc,
                                     rill_error *err);
/* Removes an effect (plugin unload / hot reload). Stale handles are a no-op. */
void rill_render_effect_unregister(rill_renderer *r, uint32_t effect);

/* The registered effects in run order (phase, order, registration). */
typedef struct rill_render_effect_info {
    uint32_t handle;
    const char *id;
    rill_render_phase phase;
    int32_t order;
    const char *settings;
    bool ran_last_frame; /* added passes to the last frame's graph */
    uint32_t passes;     /* how many */
    /* GPU time of those passes in the newest finished frame with timings (ms; 0 without) */
    double gpu_ms;
} rill_render_effect_info;
uint32_t rill_render_effect_count(const rill_renderer *r);
/* False when i >= count. */
bool rill_render_effect_get(const rill_renderer *r, uint32_t i, rill_render_effect_info *out);

/* >>anti-aliasing ------------------------------------------------------------------------------ */

/* ON ANTI-ALIASING
 *   Four engine effects, each run only for a camera whose routed settings hold its component (no
 *   component: no pass, no pipeline bind). They are anchors of the registry: they run first in
 *   their phase, before every effect of that phase whatever its order.
 *     TemporalAntiAliasing  first in HDR_POST (after GI and the main pass, before bloom and auto
 *                           exposure). The camera's projection is jittered by a sub-pixel Halton
 *                           (2, 3) offset (8 samples); the prepass motion vectors (unjittered)
 *                           reproject last frame's result, clamped to the 3x3 neighbourhood of the
 *                           current pixel in YCoCg, and 10 % of the current frame is blended in.
 *                           History restarts (and the jitter sequence with it) on the first frame,
 *                           after a frame without TAA, on a resize or render-scale change, on a
 *                           projection change or a camera turn of more than 45 degrees in one frame
 *                           (a cut), and while `reset` is set. Off at the Low quality tier.
 *     Fxaa, Smaa, ContrastAdaptiveSharpening
 *                           first in OVERLAY (after LDR_POST, before the overlay effects), in that
 *                           order, on the tonemapped 8-bit colour. */

/* Edge detection thresholds of FXAA (relative contrast / minimum contrast):
 * HIGH (default) 0.125 / 0.0312, LOW 0.25 / 0.0833, MEDIUM 0.166 / 0.0625, ULTRA 0.063 / 0.0156,
 * EXTREME 0.031 / 0.0078. Lower thresholds find more (fainter) edges. */
typedef enum rill_fxaa_sensitivity {
    RILL_FXAA_HIGH = 0,
    RILL_FXAA_LOW,
    RILL_FXAA_MEDIUM,
    RILL_FXAA_ULTRA,
    RILL_FXAA_EXTREME,
    RILL_FXAA_SENSITIVITY_NUM
} rill_fxaa_sensitivity;

/* SMAA presets (luma edge threshold / search steps each way along an edge):
 * HIGH (default) 0.1 / 16, LOW 0.15 / 4, MEDIUM 0.1 / 8, ULTRA 0.05 / 32. */
typedef enum rill_smaa_preset {
    RILL_SMAA_HIGH = 0,
    RILL_SMAA_LOW,
    RILL_SMAA_MEDIUM,
    RILL_SMAA_ULTRA,
    RILL_SMAA_PRESET_NUM
} rill_smaa_preset;

/* The component "TemporalAntiAliasing". reset: drop the history this frame (a camera cut the engine
 * cannot see). */
typedef struct rill_render_taa {
    bool reset;
} rill_render_taa;

/* The component "Fxaa". */
typedef struct rill_render_fxaa {
    rill_fxaa_sensitivity edge_threshold;
    rill_fxaa_sensitivity edge_threshold_min;
} rill_render_fxaa;

/* The component "Smaa" (1x: edge detection, blend weights, neighbourhood blending). */
typedef struct rill_render_smaa {
    rill_smaa_preset preset;
} rill_render_smaa;

/* The component "ContrastAdaptiveSharpening". sharpening_strength in [0, 1] (0.6 when a scene
 * leaves it out; a zeroed C struct means 0, the mildest sharpening); denoise: sharpen less where
 * the neighbourhood is noisy (high local contrast). */
typedef struct rill_render_cas {
    float sharpening_strength;
    bool denoise;
} rill_render_cas;

/* >>routing ------------------------------------------------------------------------------------ */

/* ON ROUTING
 *   A settings component (Bloom, Ssao, AutoExposure, a plugin's) may sit on any entity. At each
 *   rill_render_extract the routing table is rebuilt: for every camera, its route is the camera
 *   entity itself, then every other entity holding a settings component in entity-id order, other
 *   cameras excepted (settings on a camera entity are that camera's own: in a split screen one
 *   camera may bloom and the other not); per settings type the first source on the route wins. The
 * view gets a copy (removing the source removes the copy at the next extract). Register a settings
 * type with rill_render_components_add_settings after rill_render_register_components. */

/* Adds a component type to the routed settings types of comps (at most RILL_RENDER_MAX_SETTINGS;
 * adding one twice is a no-op). */
rill_result rill_render_components_add_settings(rill_render_components *comps,
                                                rill_component settings, rill_error *err);

/* The view's routed copy of the settings type `type` (by name), NULL when the camera has none.
 * *size gets its size when size is non-NULL. */
const void *rill_render_view_settings(const rill_render_view *v, const char *type, uint32_t *size);

#ifdef __cplusplus
}
#endif

#endif
