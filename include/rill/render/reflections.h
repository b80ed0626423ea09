/* rill/render/reflections.h: screen-space reflections (the ScreenSpaceReflections settings).
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

#ifdef __cplusplus
}
#endif

#endif
