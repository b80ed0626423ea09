/* rill/render/environment.h: the world's look: the one WorldEnvironment of a world (sections ssao,
 * fog, ambient, sky), the physical Atmosphere, DistanceFog and the time of day.
 *
 * ON THE ENVIRONMENT
 *   A world has one WorldEnvironment: its sections route to cameras like any settings component
 *   (rill/render/effects.h, ON ROUTING; a camera's own copy wins). A second one is warned about,
 *   naming both entities, and ignored. Sections:
 *     ssao     the SSAO settings; `ssao.enabled` is the switch (an Ssao component on the route
 *              still works and wins over the section).
 *     fog      distance fog (rill_render_distance_fog); `fog.enabled` is the switch (default off;
 *              a DistanceFog component on the route wins over the section).
 *     ambient  a multiplier on the ambient (image-based) light, default 1.
 *     sky      `sky.mode`: Auto (default) = Skybox when a Skybox component is routed, else
 *              Atmosphere when an Atmosphere source exists or a DirectionalLight is marked
 *              `sun`, else Color (the camera's clear colour).
 *
 * ON THE ATMOSPHERE
 *   The Atmosphere component holds the physical model's settings (Hillaire 2020: Rayleigh, Mie
 *   and ozone over a spherical planet; world units are metres, world y = 0 is the ground) and
 *   routes to cameras; its presence makes sky mode Auto resolve to Atmosphere. rendering_method
 *   Auto follows the quality tier (High raymarched, Medium and Low lookup). With sky mode
 *   Atmosphere the sun light reaching the camera is tinted by the atmosphere's transmittance
 *   toward the sun (rill_render_atmosphere_transmittance): white-yellow at noon, red at sunset,
 *   none below the horizon. The sky itself is drawn behind everything from the atmosphere's
 *   look-up tables (the sun's disc included), distant surfaces fade into it (aerial perspective
 *   over 32 km) and the image-based light is baked from it; docs/renderer.md, "The physical
 *   sky". */
#ifndef RILL_RENDER_ENVIRONMENT_H
#define RILL_RENDER_ENVIRONMENT_H

#include "rill/render.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rill_sky_mode {
    RILL_SKY_AUTO = 0, /* Atmosphere with an Atmosphere source or a marked sun, else Color */
    RILL_SKY_COLOR,    /* the camera's clear colour */
    RILL_SKY_SKYBOX,   /* a Skybox image */
    RILL_SKY_ATMOSPHERE,
    RILL_SKY_MODE_NUM,
    RILL_SKY_MODE_FORCE_U32 = 0x7FFFFFFF
} rill_sky_mode;

typedef enum rill_fog_falloff {
    RILL_FOG_EXPONENTIAL_SQUARED = 0, /* 1 - exp(-(density * d)^2), the default */
    RILL_FOG_EXPONENTIAL,             /* 1 - exp(-density * d) */
    RILL_FOG_LINEAR,                  /* 0 at start, 1 at end */
    RILL_FOG_FALLOFF_NUM,
    RILL_FOG_FALLOFF_FORCE_U32 = 0x7FFFFFFF
} rill_fog_falloff;

/* Distance fog ("DistanceFog", and WorldEnvironment's fog section). Defaults (NOTES 10):
 * exponential squared, density 0.0015 per metre, linear start 50 m and end 1500 m, colour
 * (0.6, 0.7, 0.8), sky_color on (with an atmosphere the colour is the sky's horizon colour toward
 * the view direction), sun inscatter colour (1.0, 0.9, 0.7) with exponent 8 (black: none), height
 * falloff 0 (per metre above y = 0: the density falls as exp(-height_falloff * y)). */
typedef struct rill_render_distance_fog {
    bool enabled;
    rill_fog_falloff falloff;
    float density;
    float start, end;
    float color[4];
    bool sky_color;
    float sun_color[4];
    float sun_exponent;
    float height_falloff;
} rill_render_distance_fog;

/* The component "WorldEnvironment" (one per world). Defaults: ssao as the Ssao component with
 * enabled true, fog as DistanceFog with enabled false, ambient 1, sky mode Auto. */
typedef struct rill_world_environment {
    rill_render_ssao ssao;
    rill_render_distance_fog fog;
    float ambient;
    rill_sky_mode sky_mode;
} rill_world_environment;

typedef enum rill_atmosphere_method {
    RILL_ATMOSPHERE_AUTO = 0,   /* by quality tier: High raymarched, Medium and Low lookup */
    RILL_ATMOSPHERE_LOOKUP,     /* the sky from the sky-view table */
    RILL_ATMOSPHERE_RAYMARCHED, /* the sky marched per pixel (sharper, costlier) */
    RILL_ATMOSPHERE_METHOD_NUM,
    RILL_ATMOSPHERE_METHOD_FORCE_U32 = 0x7FFFFFFF
} rill_atmosphere_method;

/* The component "Atmosphere" (routed to cameras). Defaults (NOTES 10, Earth): ground radius 6360
 * km, top 6460 km; Rayleigh scattering (5.802, 13.558, 33.1) per Mm (1e-6 per metre), scale
 * height 8 km; Mie scattering 3.996 and absorption 4.40 per Mm, scale height 1.2 km, phase g 0.8;
 * ozone absorption (0.650, 1.881, 0.085) per Mm in a tent centred at 25 km, 15 km half width;
 * ground albedo 0.3; sun angular diameter 0.545 degrees; method Auto. */
typedef struct rill_render_atmosphere {
    float ground_radius_km, top_radius_km;
    float rayleigh_scattering[3];
    float rayleigh_scale_height_km;
    float mie_scattering, mie_absorption;
    float mie_scale_height_km;
    float mie_g;
    float ozone_absorption[3];
    float ozone_center_km, ozone_half_width_km;
    float ground_albedo[3];
    float sun_angular_diameter_deg;
    rill_atmosphere_method rendering_method;
} rill_render_atmosphere;

/* The component "Skybox" (routed to cameras): an equirectangular image drawn as the sky and
 * baked into the image-based light. Its presence makes sky mode Auto resolve to Skybox. image: a
 * project path (read through rill_renderer_set_vfs's file system) of a Radiance .hdr (linear)
 * or an 8-bit image (.png, .jpg, .tga: sRGB), at most 8192 x 4096; its centre column looks along
 * -Z and its top row straight up. rotation: degrees about +Y. brightness: a linear multiplier
 * (default 1). A missing or broken image is a warning naming the entity and the file, and the
 * sky falls back to the camera's clear colour (the frame still renders). */
typedef struct rill_render_skybox {
    const char *image;
    float rotation;
    float brightness;
} rill_render_skybox;

/* The component "EnvironmentMapLight" (routed to cameras): an image that replaces the sky as the
 * source of the image-based light (the sky drawn behind the scene is unchanged). The first view
 * with one decides for the frame. image: a project path (through rill_renderer_set_vfs's file
 * system) of an equirectangular Radiance .hdr (linear) or 8-bit image (sRGB), 4 x 2 to
 * 8192 x 4096, or a .rmip cube (docs/formats/rmip.md); it is reprojected onto the image-based
 * light's power-of-two RGBA16F cube (256 / 128 / 64 by tier) and prefiltered like the sky.
 * intensity: a linear multiplier (default 1; WorldEnvironment's ambient multiplies it too).
 * rotation: degrees about +Y (default 0; the image's centre looks along -Z). A missing or broken
 * image is a warning naming the entity and the file, and the light comes from the sky. */
typedef struct rill_render_environment_map_light {
    const char *image;
    float intensity;
    float rotation;
} rill_render_environment_map_light;

/* The component "NightStars" (routed to cameras; drawn with the physical atmosphere): about 9,000
 * procedural stars (positions and brightness from a hash, magnitudes up to 6) fading in while
 * the sun goes from 0 to -12 degrees, dimmed by the air toward them. intensity: a linear
 * multiplier (default 1, 0 = none); twinkle: their brightness flickers over time (default off). */
typedef struct rill_render_night_stars {
    float intensity;
    bool twinkle;
} rill_render_night_stars;

/* The component "Clouds" (routed to cameras; drawn with the physical atmosphere, sky mode
 * Atmosphere): a layer of cumulus from `altitude` to `altitude + thickness` metres above the
 * ground, raymarched through procedural noise (a coverage field of cells about 6 km across eroded
 * by 1 km detail), lit by the sun through the atmosphere's transmittance (self-shadowed) and by
 * the sky, drawn over the sky (hiding the sun's disc) and baked into the image-based light.
 * Defaults (NOTES 10): coverage 0.5 (0: none, 1: overcast), density 0.03 per metre, altitude
 * 1500 m, thickness 2000 m, wind (10, 0) m/s along world x and z (the clouds drift with the frame
 * time). Quality tiers: High 128 view steps + 6 light steps, Medium 48 + 4, Low none. The camera
 * is expected below the layer (above its base there are no clouds). */
typedef struct rill_render_clouds {
    float coverage;
    float density;
    float altitude;
    float thickness;
    float wind[2];
} rill_render_clouds;

/* The defaults above (what an all-default component holds). */
rill_render_clouds rill_render_clouds_query_defaults(void);
rill_render_night_stars rill_render_night_stars_query_defaults(void);
rill_render_skybox rill_render_skybox_query_defaults(void);
rill_render_environment_map_light rill_render_environment_map_light_query_defaults(void);
rill_render_atmosphere rill_render_atmosphere_defaults(void);
rill_render_distance_fog rill_render_distance_fog_defaults(void);
rill_world_environment rill_world_environment_defaults(void);

/* The transmittance of the atmosphere from a point `altitude_m` above the ground toward a
 * direction whose cosine with the local zenith is cos_zenith, to space (0 where the ray meets the
 * ground): what tints the sun light there. a NULL = the defaults; non-finite inputs are clamped. */
void rill_render_atmosphere_transmittance(const rill_render_atmosphere *a, float altitude_m,
                                          float cos_zenith, float out_rgb[3]);

/* Time of day (NOTES 10): latitude 45 degrees at an equinox; hour angle H = 15 deg * (hours - 12),
 * elevation = asin(cos 45 * cos H); the sun rises toward +X, culminates toward -Z and sets toward
 * -X. out_dir is where the sun light travels (from the sun toward the ground, unit length). */
void rill_render_sun_direction_for_hour(double hours, float out_dir[3]);
/* Turns the world's sun (the DirectionalLight marked sun, else the one with the lowest entity id
 * that has a Transform) to the time of day's direction: its Transform's rotation is set and the
 * transforms updated, so the next extract sees it. The rotation is in the light's parent space
 * (a sun is expected at the root). RILL_ERR_NOT_FOUND without a DirectionalLight; a non-finite
 * hours is RILL_ERR_INVALID_ARGUMENT. */
rill_result rill_render_set_time_of_day(rill_world *world, const rill_render_components *comps,
                                        double hours, rill_error *err);

#ifdef __cplusplus
}
#endif
#endif /* RILL_RENDER_ENVIRONMENT_H */
