/* rill/render/msaa.h: multisample anti-aliasing (Msaa) and order-independent transparency
 * (OrderIndependentTransparency), two settings components routed to cameras like Bloom
 * (rill/render/effects.h, ON ROUTING).
 *
 * ON MSAA (docs/renderer.md "MSAA and order-independent transparency")
 *   A camera whose route holds Msaa with `samples` 2, 4 or 8 draws its opaque surfaces with that
 *   many samples per pixel: a depth-only `prepass_msaa` fills a multisampled depth image, the
 *   `opaque` pass shades into a multisampled HDR image tested against it (each pixel shaded once,
 *   its coverage per sample), and `msaa_resolve` averages the samples into the view's `hdr`
 *   before anything else reads it (sky, fog, water, transparent surfaces, every effect). The
 *   single-sampled prepass (depth, normals, motion: what SSAO, SSR, GI, TAA, fog and the post
 *   effects read) is unchanged. Transparent and wireframe surfaces draw after the resolve, one
 *   sample per pixel. A count the device cannot draw is lowered to the largest it can (logged
 *   once per count); a value that is not 1, 2, 4 or 8 is lowered to the power of two below it
 *   (at most 8) with one warning naming the entity. Off (1) is the default without the
 *   component; the component's own default is 4 (Bevy's).
 *
 * ON ORDER-INDEPENDENT TRANSPARENCY
 *   With OrderIndependentTransparency `enabled` routed to a camera, its transparent pass stores
 *   each fragment (premultiplied colour and depth) in per-pixel layers (at most `layer_count`,
 *   1..16; a fragment arriving when a pixel's layers are full is dropped) instead of blending it,
 *   and the `oit_resolve` compute pass sorts each pixel's layers by depth and blends them back to
 *   front over the opaque image: the result does not depend on draw order. Fragments whose alpha
 *   is below `alpha_threshold` (0..1) are not stored. OIT and MSAA do not combine: while OIT is
 *   enabled the camera draws without MSAA (one warning naming the camera when it starts); when
 *   OIT is disabled or its source removed, the camera's Msaa applies again. */
#ifndef RILL_RENDER_MSAA_H
#define RILL_RENDER_MSAA_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Msaa.samples: samples per pixel of the opaque pass. */
typedef enum rill_msaa_samples {
    RILL_MSAA_OFF = 1,
    RILL_MSAA_SAMPLE2 = 2,
    RILL_MSAA_SAMPLE4 = 4,
    RILL_MSAA_SAMPLE8 = 8
} rill_msaa_samples;

/* The component "Msaa" (default samples Sample4). */
typedef struct rill_render_msaa {
    rill_msaa_samples samples;
} rill_render_msaa;

/* The component "OrderIndependentTransparency" (defaults: layer_count 8, alpha_threshold 0,
 * enabled true). */
typedef struct rill_render_oit {
    uint32_t layer_count;  /* fragments kept per pixel, 1..16 */
    float alpha_threshold; /* fragments with a lower alpha are not stored, 0..1 */
    bool enabled;
} rill_render_oit;

#define RILL_RENDER_OIT_MAX_LAYERS 16u

#ifdef __cplusplus
}
#endif

#endif
