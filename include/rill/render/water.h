/* rill/render/water.h: PoolWater, a bounded planar water surface (NOTES 10: a box, a sum of 4
 * Gerstner waves).
 *
 * ON POOL WATER
 *   An entity with a PoolWater and a GlobalTransform is a box of water: the transform maps the
 *   unit cube (-0.5 .. 0.5 on each axis) onto it and the water's surface is the box's top face
 *   (keep the box upright: the waves are laid out in world x and z). Each view draws it in a
 *   compute pass "water" after the sky (before distance and volumetric fog and the transparent
 *   pass): every pixel whose ray meets the top face nearer than the scene behind gets a surface
 *   normal from four Gerstner waves (amplitude from wave_height, lengths from wavelength down,
 *   directions spread around wind_direction, speeds from deep-water dispersion, moving with the
 *   frame time at 60 frames a second), the sky's reflection (the image-based light's sharpest
 *   level along the reflected ray) and the sun's glint weighted by Fresnel (F0 0.02), over the
 *   scene behind it seen through the water: tinted toward depth_color with the path length
 *   under the surface (clarity: metres over which the light falls to 1/e). The surface is flat
 *   (only its normal waves) and writes no depth. Hostile values clamp with a warning naming the
 *   entity and field; a box whose matrix cannot be inverted is dropped. Not done: the FFT ocean
 *   (Water), screen-space and probe reflections of the scene, refraction offsets, channel modes. */
#ifndef RILL_RENDER_WATER_H
#define RILL_RENDER_WATER_H

#include "rill/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The component "PoolWater". Defaults: depth colour (0.0, 0.15, 0.2) (NOTES 10), clarity 3 m,
 * wave height 0.08 m, wavelength 3 m, wind direction (1, 0) (world x, z). */
typedef struct rill_render_pool_water {
    float depth_color[4];
    float clarity;
    float wave_height;
    float wavelength;
    float wind_direction[2];
} rill_render_pool_water;

/* One PoolWater of a snapshot (rill_render_extract: each entity with a PoolWater and a
 * GlobalTransform). */
typedef struct rill_render_water_box {
    float world_from_box[16]; /* column-major */
    rill_render_pool_water water;
    rill_entity entity; /* the PoolWater's (warnings); 0 when built by hand */
} rill_render_water_box;

/* Most PoolWater boxes one frame draws (the rest are dropped with a warning once per renderer). */
#define RILL_RENDER_MAX_WATER_BOXES 16u

rill_render_pool_water rill_render_pool_water_query_defaults(void);

#ifdef __cplusplus
}
#endif

#endif
