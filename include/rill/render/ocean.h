/* rill/render/ocean.h: Water, the FFT ocean (NOTES 10: a JONSWAP spectrum, 3 cascades of 256²
 * over 250 m / 37 m / 5 m tiles, wind 10 m/s along +X, choppiness 1.2, Fresnel F0 0.02, depth
 * colour (0.0, 0.15, 0.2)).
 *
 * ON WATER
 *   An entity with a Water and a GlobalTransform is an ocean: its surface is the entity's local
 *   plane y = 0 (the transform's translation sets the sea level and its yaw turns the wind with
 *   it; keep it upright and unscaled, scale stretches the waves), infinite, or an extent.x by
 *   extent.z metre rectangle centred on the entity when extent is not (0, 0). On a camera entity
 *   (where `rill render --effect Water:...` puts it) the surface is the world plane y = 0.
 *   One ocean a world: with several, one on a camera (an --effect) wins, else the lowest entity
 *   id; the others are named in a warning once.
 *
 *   Once a frame, before any camera's passes, compute passes simulate it (view-independent):
 *   "ocean.spectrum" evaluates h(k, t) per cascade from a JONSWAP spectrum (Hasselmann 1973 with
 *   gamma 3.3, fetch from fetch_km, a cos² spread around the wind) drawn with a fixed seed, and
 *   the eight derived spectra (height, horizontal displacement, slopes and the displacement's
 *   derivatives) packed two to a complex signal; "ocean.fft" runs the renderer's own radix-2
 *   inverse FFT (rows, then columns, one workgroup a line in shared memory); "ocean.maps" writes
 *   two RGBA16F array images, one layer per cascade: displacement (choppiness x Dx, height,
 *   choppiness x Dz) and slopes with the Jacobian's terms. Time is the frame count at 60 frames a
 *   second; angular frequencies are quantised to a 200 s period so the sea repeats exactly.
 *   Each camera then draws it in a compute pass "ocean" after the sky and PoolWater, over the lit
 *   image: a per-pixel ray against the displaced surface (refined from the mean plane by a few
 *   fixed-point steps), cascades faded out where their texels get smaller than a pixel, lit with
 *   Schlick's Fresnel (F0 0.02) between the image-based light's sky cube along the reflected ray
 *   plus the sun's glint, and the scene behind seen through the water (its opaque depth gives the
 *   path under the surface: e^(-(1 - depth_color) x path / clarity)) tinted by scatter_color and
 *   filled toward depth_color lit by the sky and sun; foam where the surface folds (Jacobian
 *   below 1) by `foam`. It writes no depth. Channels: the entity's SceneChannels (defaults
 *   `context`) resolve like any mesh: hidden draws nothing and skips the simulation, ghost blends
 *   it at the ghost opacity, wireframe draws the lines of a grid on the displaced surface.
 *   Quality tier: High and Medium simulate cascades x 256², Low at most 2 cascades of 128².
 *   Hostile values (NaN, infinities, out of range) clamp with a warning naming the entity and the
 *   field. Not done: screen-space and probe reflections on the ocean, refraction offsets, the
 *   view from under the surface (nothing is drawn from below), shore waves. */
#ifndef RILL_RENDER_OCEAN_H
#define RILL_RENDER_OCEAN_H

#include "rill/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The component "Water" (also a routed settings type, so `--effect Water` reaches it). */
typedef struct rill_render_water {
    float wind_speed;        /* m/s at 10 m above the sea, default 10 */
    float wind_direction[2]; /* where the waves run, local x and z, default (1, 0) */
    float choppiness;        /* horizontal displacement scale, default 1.2 */
    float amplitude;         /* spectrum scale (1 = JONSWAP as it is), default 1 */
    float fetch_km;          /* JONSWAP fetch, default 100 km */
    float tile_size[3];      /* each cascade's tile in metres, default (250, 37, 5) */
    uint32_t cascades;       /* 1..3, default 3 */
    float depth_color[4];    /* colour deep water tends to (linear), default (0, 0.15, 0.2) */
    float scatter_color[4];  /* tint of the scene seen through the water, default (0.8, 1, 0.95) */
    float clarity;           /* metres of water over which light falls to 1/e, default 6 */
    float foam;              /* foam amount where the surface folds, 0..4, default 1 */
    float extent[2];         /* metres along local x and z; (0, 0) infinite (default) */
} rill_render_water;

/* One Water of a snapshot (rill_render_extract: each entity with a Water and a GlobalTransform
 * that its channels do not hide). */
typedef struct rill_render_water_surface {
    float world_from_water[16]; /* column-major; identity for a Water on a camera */
    rill_render_water water;
    rill_entity entity;  /* the Water's (warnings); 0 when built by hand */
    uint32_t mode;       /* rill_render_mode of its channels: NORMAL, GHOST or WIREFRAME */
    float ghost_opacity; /* GHOST: 0..1 */
    bool on_camera;      /* held by a camera (--effect): preferred over the others */
} rill_render_water_surface;

/* The simulation's grid per cascade at High and Medium (Low: 128). */
#define RILL_RENDER_OCEAN_SIZE 256u
#define RILL_RENDER_OCEAN_MAX_CASCADES 3u

rill_render_water rill_render_water_query_defaults(void);

#ifdef __cplusplus
}
#endif

#endif
