/* post_motion.c: MotionBlur (rill/render/post.h): one pass gathering colour along the strongest
 * motion near each pixel (the prepass writes camera and per-object motion: each instance's
 * previous world matrix and the previous view-projection) scaled by shutter_angle / 360, weighted
 * as a reconstruction of the scattered streaks (shaders/motion_blur.comp). HDR_POST after depth of
 * field; off at Low. */
#include "post_internal.h"

#include <string.h>

static bool motion_active(const rill_render_effect_ctx *ctx) {
    return rill__post_settings(ctx, sizeof(rill_render_motion_blur)) &&
           ctx->renderer->desc.quality != RILL_RENDER_QUALITY_LOW;
}

/* Push constants of motion_blur.comp. */
typedef struct motion_push {
    uint32_t size[2];
    float shutter;
    uint32_t samples;
    float max_px;
} motion_push;

static rill_result add_motion(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill_render_motion_blur m;
    memcpy(&m, rill__post_settings(ctx, sizeof(m)), sizeof(m));
    rill__post_fix_motion_blur(r, rill__post_source(ctx->view, "MotionBlur"), &m);
    if (m.shutter_angle <= 0.0f || m.samples < 2) {
        return RILL_OK; /* a closed shutter or one sample: no blur */
    }
    rill__post_run *run = rill__post_run_new(r, POST_PIPE_MOTION_BLUR);
    if (!run) {
        return RILL_OK;
    }
    /* The longest streak: an eighth of the image's longer side. */
    const uint32_t *size3 = r->frame.views[ctx->view_index].size3; /* the camera's 3D images */
    float longer = (float)(size3[0] > size3[1] ? size3[0] : size3[1]);
    motion_push push = {{0, 0}, m.shutter_angle / 360.0f, m.samples, longer / 8.0f};
    memcpy(run->push, &push, sizeof(push));
    run->in[0] = ctx->color;
    run->in_linear[0] = true;
    run->in[1] = ctx->frame->motion;
    run->in[2] = ctx->frame->depth;
    run->in_count = 3;
    run->out = rill_render_effect_next_color(ctx, err);
    return rill__post_add_pass(ctx, "motion_blur", run, err);
}

rill_result rill__post_register_motion(rill_renderer *r, rill_error *err) {
    rill_render_effect_desc fx = {.id = "motion_blur",
                                  .phase = RILL_RENDER_PHASE_HDR_POST,
                                  .order = 60,
                                  .settings = "MotionBlur",
                                  .active = motion_active,
                                  .add = add_motion};
    return rill_render_effect_register(r, &fx, err) ? RILL_OK
                                                    : (err ? err->code : RILL_ERR_INVALID_ARGUMENT);
}
