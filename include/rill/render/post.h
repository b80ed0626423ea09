/* rill/render/post.h: the camera effects of the post-processing phases: colour grading (with a
 * .cube 3D look-up table), depth of field and motion blur; and ForwardDecal boxes. Each is a
 * settings component routed to cameras like Bloom (rill/render/effects.h, ON ROUTING) and a
 * registry effect that runs only for a camera whose routed settings hold it.
 *
 * ON THE EFFECTS (docs/renderer.md "Colour grading, depth of field, motion blur, decals")
 *   ColorGrading   two passes: `color_grading` (HDR_POST, order 150: after auto exposure measured
 *                  the image, before bloom) applies exposure, white balance (temperature, tint),
 *                  contrast (around middle grey 0.18) and saturation to the linear HDR colour;
 *                  `color_grading_lut` (LDR_POST, order -100: first) applies lift / gamma / gain
 *                  and then the .cube table to the tonemapped, sRGB-encoded colour, the values
 *                  tables made for SDR grading expect. A pass whose part is neutral is not added.
 *                  Every tier.
 *   DepthOfField   HDR_POST order 50 (after TAA): `dof_coc` (circle of confusion from depth, thin
 *                  lens: focal length from sensor_height and the camera's fov), `dof_blur_h` +
 *                  `dof_blur_v` (Gaussian) or `dof_bokeh` (a disc of 48 samples) at half
 *                  resolution, `dof_composite` at full resolution. Off at the Low tier.
 *   MotionBlur     HDR_POST order 60: `motion_blur` gathers colour along the strongest motion near
 *                  each pixel (camera and per-object motion: the prepass writes both) scaled by
 *                  shutter_angle / 360, weighted so moving objects streak over what is behind
 *                  them. Off at the Low tier.
 *   Values that are not finite or out of range are clamped with one warning naming the entity and
 *   the field. */
#ifndef RILL_RENDER_POST_H
#define RILL_RENDER_POST_H

#include "rill/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The component "ColorGrading". Neutral values change nothing: exposure 0, temperature 0, tint 0,
 * contrast 1, saturation 1, lift 0, gamma 1, gain 1, no lut. */
typedef struct rill_render_color_grading {
    float exposure;    /* EV added to the camera's, [-16, 16] */
    float temperature; /* white balance, [-1, 1]: negative cooler (bluer), positive warmer */
    float tint;        /* white balance, [-1, 1]: negative greener, positive more magenta */
    float contrast;    /* [0, 4], around middle grey (0.18) in log space */
    float saturation;  /* [0, 4]: 0 grey, 1 unchanged */
    float lift[3];     /* [-1, 1] per channel: raises the blacks, out = gain (x + lift (1 - x)) */
    float gamma[3];    /* [0.01, 10] per channel: out^(1 / gamma) */
    float gain[3];     /* [0, 16] per channel */
    /* An Adobe / Resolve .cube 3D table (rill/formats/cube.h), read through the renderer's file
     * system (rill_renderer_set_vfs: the project, so the path is the project's like any asset).
     * NULL or "": none. A file that cannot be read or parsed is logged once, naming the file and
     * line, and the grade runs without it. */
    const char *lut;
} rill_render_color_grading;

typedef enum rill_dof_mode {
    RILL_DOF_GAUSSIAN = 0, /* separable Gaussian blur, cheap */
    RILL_DOF_BOKEH,        /* a disc-shaped gather (bright points become discs) */
    RILL_DOF_MODE_NUM
} rill_dof_mode;

/* The component "DepthOfField". The circle of confusion of a point at distance d (thin lens,
 * focal length F = sensor_height / (2 tan(fov_y / 2)), aperture diameter F / aperture_f_stops):
 * F^2 / N * |d - focal_distance| / (d * (focal_distance - F)), as a fraction of sensor_height
 * times the image's height in pixels, at most max_circle_of_confusion. */
typedef struct rill_render_dof {
    rill_dof_mode mode;
    float focal_distance;   /* metres in focus (0.01 .. 1e6; 10) */
    float aperture_f_stops; /* f-number (0.01 .. 1000; 1): lower is blurrier */
    float sensor_height;    /* metres (0.001 .. 1; 0.01866, Super 35) */
    float
        max_circle_of_confusion; /* largest blur diameter, pixels of the 3D image (0 .. 128; 64) */
} rill_render_dof;

/* The component "MotionBlur". */
typedef struct rill_render_motion_blur {
    float shutter_angle; /* degrees of a frame the shutter is open (0 .. 360; 180) */
    uint32_t samples;    /* colour samples along each pixel's motion (1 .. 64; 8) */
} rill_render_motion_blur;

/* The component "ForwardDecal": the entity's box (a unit cube, -0.5 .. 0.5 on each axis, placed by
 * its GlobalTransform) paints onto the opaque surfaces inside it, projected along the box's -Y
 * (the maps' u runs along +X, v along +Z; their top edge is at -Z). Before lighting, inside the
 * lit pass: `base_color` times the `albedo` map replaces the surface's albedo by its alpha; the
 * `normal` map (tangent space, +Y green up the image) replaces the surface normal by
 * normal_strength; the green channel of the `roughness` map replaces its roughness by
 * roughness_strength; the albedo map's alpha masks all three. So a decal is lit, shadowed and
 * fogged like the surface. Surfaces turned away from the box's +Y fade out between
 * angle_fade_start and angle_fade_end (degrees between the surface normal and +Y). Blended and
 * transmissive surfaces inside the box are painted the same way (maps included) by their own
 * fragments. Map paths are project paths read through the renderer's file system
 * (rill_renderer_set_vfs; the exported .rmip is preferred) into the renderer's decal atlas (maps
 * above 1024 texels are scaled down); a missing or unreadable one, or one the full atlas has no
 * room for, is warned about once and the decal draws without it. The decal entity's scene channels
 * decide whether it draws: hidden or wireframe, not at all; ghost, like normal. */
typedef struct rill_render_forward_decal {
    float base_color[4];    /* linear RGB, alpha = opacity (default (1, 1, 1, 1)) */
    float angle_fade_start; /* degrees, 0 .. 180 (default 60) */
    float angle_fade_end;   /* degrees, above start (default 80) */
    const char *albedo;     /* sRGB colour map, alpha = coverage (NULL / "": none) */
    const char *normal;     /* tangent-space normal map (NULL / "": none) */
    const char *roughness;  /* linear map, roughness in green (NULL / "": none) */
    float normal_strength; /* 0 .. 1 (default 1): how far the map's normal replaces the surface's */
    float roughness_strength; /* 0 .. 1 (default 1): how far the map's roughness replaces it */
} rill_render_forward_decal;

/* One decal of a snapshot (rill_render_extract fills them from ForwardDecal components). The map
 * paths are borrowed from the world (valid until it changes) or the caller. */
typedef struct rill_render_decal {
    float world_from_box[16]; /* the box's world matrix (column-major) */
    float base_color[4];
    float angle_fade_start, angle_fade_end;  /* degrees */
    rill_entity entity;                      /* the ForwardDecal's (warnings); 0 by hand */
    const char *albedo, *normal, *roughness; /* NULL / "": none */
    float normal_strength, roughness_strength;
} rill_render_decal;

/* Most decals one frame draws (the rest are dropped with a warning once per renderer), and most
 * distinct decal maps the renderer holds in its decal atlas at once (decals in view naming more
 * draw without them, warned once; maps out of view make room). */
#define RILL_RENDER_MAX_DECALS 256u
#define RILL_RENDER_MAX_DECAL_MAPS 64u

/* The file system ColorGrading.lut and ForwardDecal map paths are read from (a project's,
 * rill_app_vfs); NULL: none (a lut or map then logs that it cannot be read). Borrowed: it must
 * outlive the renderer or be reset. */
void rill_renderer_set_vfs(rill_renderer *r, rill_vfs *vfs);

#ifdef __cplusplus
}
#endif

#endif
