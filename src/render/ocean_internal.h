/* ocean_internal.h: what ocean.c (component, planning) and ocean_draw.c (GPU passes) share: the
 * renderer's ocean state and the block the ocean shaders read. */
#ifndef RILL_RENDER_OCEAN_INTERNAL_H
#define RILL_RENDER_OCEAN_INTERNAL_H

#include "frame.h"
#include "rill/render/ocean.h"

/* Seconds after which the sea repeats (angular frequencies are multiples of 2 pi / this). */
#define RILL__OCEAN_PERIOD 200.0

/* The block of the ocean shaders (std430, `Ocean` in ocean_common.glsl). */
typedef struct rill__ocean_block {
    float water_from_world[16];
    float tiles[4];   /* xyz each cascade's tile (m), w cascades */
    float depth[4];   /* rgb depth colour, w clarity (m) */
    float scatter[4]; /* rgb tint of the scene through the water, w foam */
    float wind[4];    /* xy direction (unit, local x z), z speed (m/s), w fetch (m) */
    float sim[4];     /* x amplitude, y choppiness, z grid size, w time (s) */
    float extent[4];  /* xy half extent (m), z 1 when bounded */
    float mode[4];    /* x rill_render_mode, y opacity */
} rill__ocean_block;

struct rill__ocean {
    bool on;           /* this frame draws an ocean */
    uint32_t size;     /* grid per cascade: 256, or 128 at Low */
    uint32_t cascades; /* simulated this frame */
    float time;        /* seconds, modulo RILL__OCEAN_PERIOD */
    rill__buf *block_buf;
    uint64_t block_off;
    rill__buf *work;         /* FFT workspace: cascades x 2 fields x size² vec4 */
    rill__img *disp, *slope; /* RGBA16F arrays, one layer per cascade */
    uint32_t img_size;       /* the images' size (re-made when the tier changes it) */
    rill_rg_usage disp_use, slope_use;
    rill_rg_buffer r_work;
    rill_rg_image r_disp, r_slope;
    rill__warned warned; /* "ignored: one ocean a world" */
};

/* ocean_draw.c: makes the workspace and the images for o->size (again when it changed); frees
 * them. */
rill_result rill__ocean_make_gpu(rill_renderer *r, rill__ocean *o, rill_error *err);
void rill__ocean_free_gpu(rill_renderer *r, rill__ocean *o);

#endif
