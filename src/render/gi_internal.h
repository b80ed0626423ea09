/* gi_internal.h: what the global illumination files share: the settings a frame resolved from
 * GlobalIllumination / ScreenSpaceGi (gi_settings.c) and the screen-space GI state across frames
 * (gi.c: its history images, the images of this frame's passes, the warnings already given). */
#ifndef RILL_RENDER_GI_INTERNAL_H
#define RILL_RENDER_GI_INTERNAL_H

#include "render_internal.h"
#include "rill/render/effects.h"
#include "rill/render/gi.h"

/* What the camera's routed GI settings ask for, every value clamped. */
typedef struct rill__gi_resolved {
    bool on;               /* a pass runs (before the quality tier's ceiling) */
    rill_gi_quality asked; /* what the source asked for (ScreenSpace for ScreenSpaceGi) */
    float intensity;
    float radius;
    uint32_t directions, steps;
    bool temporal;
    bool indirect_only; /* debug IndirectOnly (or VoxelCache on the screen-space tier) */
    /* what runs: ScreenSpace, SdfLow, SdfHigh or Hwrt (where the device cannot trace rays,
     * Hwrt runs SdfHigh) */
    rill_gi_quality tier;
    uint32_t cones, cone_steps; /* the voxel tiers' (SdfLow 2 x 12, SdfHigh 4 x 20) */
    bool voxel_cache;           /* debug VoxelCache on a voxel tier */
    float specular_intensity;   /* the voxel tiers' specular cone (0 on ScreenSpace) */
} rill__gi_resolved;

typedef struct rill__gi {
    rill__gi_resolved cur; /* this frame's (rill__gi_resolve) */
    /* history: two half-resolution RGBA16F images written in turn (rgb: accumulated indirect
     * light, a: the surface's distance from the camera), valid when history[cur_hist] holds
     * the last frame's */
    rill__img *history[2];
    uint32_t hw, hh, cur_hist;
    bool valid, reset;
    uint64_t last_frame;
    float prev_cam[3];               /* the camera's position when the history was written */
    float prev_fwd[3], prev_proj[5]; /* its forward axis and projection (cut detection) */
    float prev_cam_view[4];          /* it, in this frame's view space (w: history usable) */
    uint32_t frame_index;            /* rotates the trace's directions; 0 on a reset */
    rill_gi_quality prev_tier;       /* the tier the history was written by */
    /* this frame's graph images */
    rill_rg_image src, dst, raw, hist_in, hist_out, depth, normal, motion;
    /* the voxel tiers' specular cone, half resolution (rgb its light, a the view's Fresnel
     * weight), not accumulated (one cone along the reflection, no rotation): written by the
     * trace, read by the apply pass; 0 on ScreenSpace */
    rill_rg_image spec;
    const struct rill__view *view;
    rill__warned warned; /* warnings given once: (entity, field) keys, messages without one */
    /* Set before resolving (gi_active): NULL when the Hwrt tier can run on this renderer's
     * device, else why not (it then runs SdfHigh), and the device's name for the log. */
    const char *hwrt_why;
    const char *device_name;
} rill__gi;

/* gi_settings.c: registers GlobalIllumination and ScreenSpaceGi as routed settings types. */
rill_result rill__gi_register_components(rill_world *w, rill_render_components *out,
                                         rill_error *err);
/* Resolves v's routed GI settings into out (on = false when none or Off), warning once per
 * clamped field, per yield and per missing tier. */
void rill__gi_resolve(rill__gi *gi, const rill_render_view *v, rill__gi_resolved *out);

/* gi.c: creates the state and registers the "gi" effect (GI phase, on the lit image); destroys
 * it (history images included); fills st's gi_ms (the ssgi* passes among st's pass timings) and
 * gi_voxelize_ms. */
rill_result rill__gi_create(rill_renderer *r, rill_error *err);
/* gi_voxel_trace.c: the voxel tiers' part of the frame: the clipmap updated, uploaded and lit
 * (NULL: not available this frame, the screen-space trace runs instead), the cone trace into
 * gi->raw, the VoxelCache view into gi->dst. */
struct rill__vox;
struct rill__vox *rill__gi_voxel_prepare(rill_renderer *r, const rill__view *vs, rill_rg *g,
                                         rill_error *err);
rill_result rill__gi_add_voxel_trace(rill_render_effect_ctx *ctx, rill__gi *gi,
                                     struct rill__vox *vx, rill_error *err);
rill_result rill__gi_add_voxel_debug(rill_render_effect_ctx *ctx, rill__gi *gi,
                                     struct rill__vox *vx, rill_error *err);
/* gi.c, for the world-space traces (voxel cones, ray queries): the pass `label` recorded by
 * exec (user gi), reading the depth, the normals and the sky's SH and writing gi->raw and gi->spec
 * after the main passes (*out; the caller adds what its trace reads besides); and, while
 * recording, the bindings and sizes every such trace starts from, and its dispatch (8x8 groups
 * over the half-resolution raw image). */
rill_result rill__gi_add_trace_pass(rill_render_effect_ctx *ctx, rill__gi *gi, const char *label,
                                    rill_rg_exec_fn exec, rill_rg_pass *out, rill_error *err);
typedef struct rill__gi_trace_io {
    rill__binding frame, depth, normal, sky, raw, spec; /* sky: the environment's SH */
    uint32_t full[2], half[2];                          /* the depth's size, raw's */
} rill__gi_trace_io;
void rill__gi_trace_io_get(rill_rg_ctx *ctx, const rill__gi *gi, rill__gi_trace_io *io);
void rill__gi_trace_dispatch(rill_rg_ctx *ctx, const rill__gi_trace_io *io);
void rill__gi_destroy(rill_renderer *r);
void rill__gi_stats(const rill_renderer *r, rill_render_stats *st);
/* The GI passes' GPU ms among st's pass timings (ssgi*, vxgi*, hwrt*): rill_render_stats.gi_ms. */
double rill__gi_gpu_ms(const rill_render_stats *st);

#endif
