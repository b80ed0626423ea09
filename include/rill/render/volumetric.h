/* rill/render/volumetric.h: volumetric fog: the VolumetricFog settings (routed to cameras like
 * any settings, rill/render/effects.h ON ROUTING) and FogVolume boxes (entities).
 *
 * ON VOLUMETRIC FOG
 *   A camera whose routed settings hold a VolumetricFog gets a froxel volume of the air in front
 *   of it (80 x 45 x 32 froxels at the Medium tier, 160 x 90 x 64 at High, none at Low: NOTES
 *   9, 10), its slices spaced exponentially out to `distance` metres. Each froxel holds the
 *   medium there: the camera's own fog (density falling with height above y = 0) plus every
 *   FogVolume box containing it. The medium is lit by the sun through its cascaded shadow map
 *   (Henyey-Greenstein phase, brighter toward the sun), by the view's point and spot lights (no
 *   shadows) and by the sky's ambient light (the image-based light's mean radiance, times
 *   WorldEnvironment.ambient), integrated front to back
 *   and applied over the lit image before the transparent pass: surfaces (and the sky, at
 *   `distance`) are dimmed by the transmittance and take the scattered light. Without a
 *   VolumetricFog on the camera there is no pass and FogVolumes change nothing.
 *   Hostile values (NaN, infinities, out of range) are clamped with one warning naming the entity
 *   and the field. Not done yet: temporal reprojection. */
#ifndef RILL_RENDER_VOLUMETRIC_H
#define RILL_RENDER_VOLUMETRIC_H

#include "rill/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The component "VolumetricFog" (routed to cameras). Defaults (NOTES 10): density 0.02 per metre
 * at y <= 0, scattering albedo 0.9 (the scattered share of the extinction, the rest absorbed),
 * anisotropy (Henyey-Greenstein phase g) 0.6, height falloff 0.05 per metre (density times
 * exp(-height_falloff * y) above y = 0), colour (1, 1, 1) (tints the scattered light), ambient
 * intensity 1 (the sky's light in the fog), distance 256 m (how far the froxel volume reaches). */
typedef struct rill_render_volumetric_fog {
    float density;
    float scattering_albedo;
    float anisotropy;
    float height_falloff;
    float color[4];
    float ambient_intensity;
    float distance;
} rill_render_volumetric_fog;

/* The component "FogVolume": a box of fog (the entity's transform maps the unit cube, -0.5 .. 0.5
 * on each axis, onto it) that adds to the medium of every camera with a VolumetricFog. Defaults:
 * density 0.1, colour (1, 1, 1), absorption 0.3, scattering 0.3 (per metre at density 1: the
 * box's extinction is density * (absorption + scattering)), anisotropy 0.5. */
typedef struct rill_render_fog_volume {
    float density;
    float color[4];
    float absorption;
    float scattering;
    float anisotropy;
} rill_render_fog_volume;

/* One FogVolume of a snapshot (rill_render_extract: each entity with a FogVolume and a
 * GlobalTransform). */
typedef struct rill_render_fog_box {
    float world_from_box[16]; /* column-major */
    rill_render_fog_volume fog;
    rill_entity entity; /* the FogVolume's (warnings); 0 when built by hand */
} rill_render_fog_box;

/* Most FogVolumes one frame uses (the rest are dropped with a warning once per renderer). */
#define RILL_RENDER_MAX_FOG_VOLUMES 64u

rill_render_volumetric_fog rill_render_volumetric_fog_query_defaults(void);
rill_render_fog_volume rill_render_fog_volume_query_defaults(void);

#ifdef __cplusplus
}
#endif

#endif
