/* rill/render/reflections.h: screen-space reflections (the ScreenSpaceReflections settings) and
 * reflection probes (LightProbe, ReflectionProbeSource, ParallaxCorrection).
 *
 * ON SCREEN-SPACE REFLECTIONS
 *   ScreenSpaceReflections is a settings component routed to cameras like Bloom or Ssao
 *   (rill/render/effects.h, ON ROUTING): a camera whose route holds one gets four compute passes
 *   on the lit HDR image, right after the main pass (before TAA and the HDR_POST phase):
 *     ssr_hiz      a min-depth pyramid at half resolution (each texel the nearest depth of the
 *                  texels it covers), down to 1/128 of the 3D size;
 *     ssr_trace    per half-resolution pixel whose material is smoother than max_roughness, a
 *                  ray along the mirror direction walks the pyramid (`steps` cells at most,
 *                  climbing where the ray is in front of a whole cell, descending where it may
 *                  hit); a surface counts as hit when the ray is behind it by less than
 *                  `thickness` metres; the hit pixel's colour is fetched with a confidence that
 *                  fades toward the screen's edges and near max_roughness;
 *     ssr_blur     the trace result's mip chain (premultiplied by confidence), the rougher a
 *                  surface the blurrier the level it reads;
 *     ssr_resolve  at full resolution: a depth- and normal-aware (bilateral) upsample of the
 *                  trace, blended into the image weighted by the split-sum Fresnel of the
 *                  pixel's roughness and metalness (the prepass writes them beside the normal),
 *                  replacing the environment's reflection that the lit passes put there.
 *   Where a ray misses or leaves the screen, the pixel keeps its environment reflection: the
 *   reflection probe covering it, else the sky's image-based light. Without the component there
 *   is no pass. Screen effects run for a single view covering the output.
 *   Defaults (NOTES 10): intensity 1, thickness 0.3 m, max_roughness 0.6, steps 32. Hostile
 *   values (not finite, out of range) are clamped with one warning naming the entity and field. */
/* ON REFLECTION PROBES
 *   An entity with a LightProbe and a GlobalTransform is a reflection probe: its transform maps the
 *   unit cube [-0.5, 0.5]^3 onto the box it influences. Inside the box the lit passes take their
 *   environment reflection from the probe's cube instead of the sky's, fully from `falloff` (a
 *   fraction of the box, default 0.1) inside its faces, fading to nothing at them; overlapping
 *   probes blend by those weights (the sky fills what they leave).
 *   ReflectionProbeSource says where the cube comes from: `source` is an equirectangular image
 *   (.hdr, .png, anything rill_image_load reads; its centre column looks along -Z, as the sky's
 *   image) read through the world's asset VFS (the file system without one), reprojected into a
 *   256 x 256 RGBA16F cube and prefiltered like the image-based light (GGX, mips down to 4 x 4).
 *   `intensity` (default 1) scales it. A probe is inert, with no GPU work, until its cube is
 *   ready; a source that cannot be read or decoded is reported once, naming the file and the
 *   entity, and the probe stays inert.
 *   ParallaxCorrection: None (the reflection is infinitely far), Auto (default, also without the
 *   component: the reflection ray is intersected with the probe's box and the cube is read toward
 *   that point, so a room's walls land where they are) or Custom (the box of half_extents metres
 *   along the probe's axes, centred on it).
 *   At most RILL_RENDER_MAX_SHADED_PROBES probes shade a frame: the ready ones nearest the camera
 *   (distance to their boxes). */
#ifndef RILL_RENDER_REFLECTIONS_H
#define RILL_RENDER_REFLECTIONS_H

#include "rill/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The component "ScreenSpaceReflections". intensity in [0, 4] scales the traced reflection's
 * weight; thickness in [0.001, 100] metres; max_roughness in [0, 1]: rougher surfaces trace
 * nothing (the reflection fades out toward it); steps in [1, 256]: pyramid steps per ray. */
typedef struct rill_render_ssr {
    float intensity;
    float thickness;
    float max_roughness;
    uint32_t steps;
} rill_render_ssr;

/* The defaults above. */
rill_render_ssr rill_render_ssr_query_defaults(void);

#define RILL_RENDER_MAX_SHADED_PROBES 4u

typedef enum rill_parallax_mode {
    RILL_PARALLAX_AUTO = 0, /* the probe's own box (its transform) */
    RILL_PARALLAX_NONE,     /* infinitely far */
    RILL_PARALLAX_CUSTOM,   /* half_extents */
    RILL_PARALLAX_MODE_NUM,
    RILL_PARALLAX_MODE_FORCE_U32 = 0x7FFFFFFF
} rill_parallax_mode;

/* The component "LightProbe": falloff in [0, 1] of the box (default 0.1). */
typedef struct rill_light_probe {
    float falloff;
} rill_light_probe;

/* The component "ReflectionProbeSource": source an asset path (NULL or "": inert), intensity in
 * [0, 1000] (default 1). capture (default off): instead of an image, the engine renders the scene
 * from the probe's centre into its cube (six 90-degree views into render textures, from the
 * frame after the probe appears, rill_renderer_desc.probe_capture_faces of them a frame: one by
 * default, so the capture takes six frames), then prefilters it; the probe is inert until then.
 * Changing capture_version captures again (a script bumps it after moving things). */
typedef struct rill_reflection_probe_source {
    const char *source;
    float intensity;
    bool capture;
    uint32_t capture_version;
} rill_reflection_probe_source;

/* The component "ParallaxCorrection": mode (default Auto), half_extents in metres (Custom;
 * default (1, 1, 1)). */
typedef struct rill_parallax_correction {
    rill_parallax_mode mode;
    float half_extents[3];
} rill_parallax_correction;

/* A probe as rill_render_extract hands it to the renderer (rill_render_snapshot.probes). */
typedef struct rill_render_probe {
    float world_from_probe[16]; /* maps [-0.5, 0.5]^3 onto the box of influence */
    float falloff, intensity;
    rill_parallax_mode parallax;
    float half_extents[3];
    const char *source;       /* the asset path; NULL: none (inert) */
    rill_entity entity;       /* named in messages; 0 for a hand-built probe */
    bool capture;             /* render the scene at the probe's centre instead (source ignored) */
    uint32_t capture_version; /* a new value captures again */
} rill_render_probe;

#ifdef __cplusplus
}
#endif

#endif
