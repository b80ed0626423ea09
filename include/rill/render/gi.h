/* rill/render/gi.h: global illumination settings: the world's GlobalIllumination (its tier,
 * strength and debug view) and the ScreenSpaceGi settings of the screen-space tier.
 *
 * ON GLOBAL ILLUMINATION
 *   GlobalIllumination is authored on a non-camera entity (typically the world environment's)
 *   and routes to cameras like any settings component (rill/render/effects.h, ON ROUTING).
 *   `quality` picks how light bounces:
 *     Off          no pass at all.
 *     ScreenSpace  (default) screen-space GI: the lit HDR image gathered along short screen-space
 *                  rays around each pixel (depth + normal aware), accumulated over frames with
 *                  motion-vector reprojection and disocclusion rejection, added to the lit image
 *                  before TAA.
 *     SdfLow, SdfHigh
 *                  voxel-cone GI: the scene's meshes (those keeping a CPU copy of their
 *                  triangles, and glTF model primitives through a bounded voxel copy made at
 *                  upload: simplified past 2,048 triangles) are voxelized on the CPU, under a
 * per-frame budget of work units (rill_renderer_desc.gi_voxel_budget) on the renderer's jobs, into
 * a clipmap of 4 cascades of 64^3 voxels (0.5 / 1 / 2 / 4 m) that scrolls with the camera (only
 * entering bricks are voxelized); instances that leave the snapshot take their voxels with them.
 * The GPU lights the voxels (sun with its cascaded shadow map, point and spot lights, emissive),
 * builds their mips and traces diffuse cones from each half-resolution pixel (SdfLow 2 cones x 12
 * steps, SdfHigh 4 x 20); what the cones miss is the sky. Accumulated and composited like
 *                  ScreenSpace.
 *     Hwrt         hardware ray tracing (docs/renderer.md "Hwrt"): where the device offers
 *                  VK_KHR_acceleration_structure + VK_KHR_ray_query, BLAS per mesh, TLAS per
 *                  frame, 4 diffuse rays + 1 specular ray per half-resolution pixel with ray
 *                  queries, composited like SdfHigh; elsewhere it runs SdfHigh and logs why once
 *                  (rill_render_stats.gi_tier / gi_hwrt_why say what ran).
 *   `intensity` (0.4) scales the indirect light; `specular_intensity` (1.0) scales, on SdfLow /
 *   SdfHigh, one specular cone traced along the reflection (its aperture from the roughness)
 *   times the surface's Fresnel reflectance, so rough metals reflect bounce colour (ScreenSpace
 *   is diffuse only).
 *   `debug` IndirectOnly shows the indirect light alone; VoxelCache (SdfLow / SdfHigh) shows the
 *   voxels' light as blocks, first voxel along each pixel's ray; on ScreenSpace it shows
 *   IndirectOnly (logged once).
 *   A camera whose route also holds ScreenSpaceGi keeps those settings: the world's setting
 *   yields (warned once). The quality tier is a ceiling: GI runs at the High tier only.
 *   Values that are not finite or out of range are clamped with one warning naming the entity
 *   and the field. */
#ifndef RILL_RENDER_GI_H
#define RILL_RENDER_GI_H

#include "rill/render.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rill_gi_quality {
    RILL_GI_OFF = 0,
    RILL_GI_SCREEN_SPACE, /* the default */
    RILL_GI_SDF_LOW,      /* voxel-cone GI, 2 cones x 12 steps */
    RILL_GI_SDF_HIGH,     /* voxel-cone GI, 4 cones x 20 steps */
    RILL_GI_HWRT,         /* hardware ray tracing where the device has it, else SdfHigh */
    RILL_GI_QUALITY_NUM,
    RILL_GI_QUALITY_FORCE_U32 = 0x7FFFFFFF
} rill_gi_quality;

typedef enum rill_gi_debug {
    RILL_GI_DEBUG_NONE = 0,
    RILL_GI_DEBUG_INDIRECT_ONLY, /* the image is the indirect light alone */
    RILL_GI_DEBUG_VOXEL_CACHE,   /* the voxel radiance clipmap (SdfLow / SdfHigh) */
    RILL_GI_DEBUG_NUM,
    RILL_GI_DEBUG_FORCE_U32 = 0x7FFFFFFF
} rill_gi_debug;

/* The component "GlobalIllumination". Defaults: ScreenSpace, intensity 0.4, specular_intensity
 * 1.0, debug None. */
typedef struct rill_render_global_illumination {
    rill_gi_quality quality;
    float intensity;          /* [0, 16] */
    float specular_intensity; /* [0, 16] */
    rill_gi_debug debug;
} rill_render_global_illumination;

/* The component "ScreenSpaceGi": the screen-space tier's own settings (a camera holding them
 * ignores GlobalIllumination). Defaults: intensity 0.4, radius 2 m, 4 directions of 6 steps,
 * temporal on. */
typedef struct rill_render_screen_space_gi {
    float intensity;     /* [0, 16] */
    float radius;        /* world units a ray reaches, [0.05, 100] */
    uint32_t directions; /* screen-space directions per pixel, [1, 16] */
    uint32_t steps;      /* samples along each, [1, 32] */
    bool temporal;       /* accumulate over frames (reprojected) */
} rill_render_screen_space_gi;

rill_render_global_illumination rill_render_global_illumination_query_defaults(void);
rill_render_screen_space_gi rill_render_screen_space_gi_query_defaults(void);

#ifdef __cplusplus
}
#endif

#endif
