/* post_dof.c: DepthOfField (rill/render/post.h): the circle of confusion of every pixel from its
 * depth through a thin lens (focal length from the sensor height and the camera's field of view),
 * a half-resolution blur (separable Gaussian, or a bokeh disc) and a full-resolution composite
 * that mixes each pixel towards the blur as its circle grows. HDR_POST, after TAA; off at Low. */
#include "post_internal.h"

#include <math.h>
#include <string.h>

/* Push constants of dof_coc.comp and dof_composite.comp (after the output size). */
typedef struct dof_push {
    uint32_t size[2], pad[2];
    float near_plane, far_plane, ortho, scale;
    float focus, max_coc;
} dof_push;

static bool dof_active(const rill_render_effect_ctx *ctx) {
    return rill__post_settings(ctx, sizeof(rill_render_dof)) &&
           ctx->renderer->desc.quality != RILL_RENDER_QUALITY_LOW;
}

/* The thin-lens constants of the camera and d for an image h3 pixels tall. */
static dof_push dof_constants(const rill_render_view *v, const rill_render_dof *d, uint32_t h3) {
    rill__view_settings st;
    rill__view_defaults(v, &st);
    float fov = st.orthographic ? 0.8f : st.fov_y;
    float focal = d->sensor_height / (2.0f * tanf(fov * 0.5f));
    float aperture = focal / d->aperture_f_stops;
    float scale =
        aperture * focal / fmaxf(d->focal_distance - focal, 1e-4f) / d->sensor_height * (float)h3;
    float depth[3];
    rill__post_depth_params(v, depth);
    return (dof_push){{0, 0},   {0, 0}, depth[0],          depth[1],
                      depth[2], scale,  d->focal_distance, d->max_circle_of_confusion};
}

/* A run of pipe reading in[0..n) (linear[i]: bilinear) into out. */
static rill__post_run *dof_run(rill_renderer *r, rill__post_pipe pipe, const rill_rg_image *in,
                               const bool *linear, uint32_t n, rill_rg_image out, const void *push,
                               uint32_t push_size) {
    rill__post_run *run = rill__post_run_new(r, pipe);
    if (run) {
        for (uint32_t i = 0; i < n; i++) {
            run->in[i] = in[i];
            run->in_linear[i] = linear[i];
        }
        run->in_count = n;
        run->out = out;
        memcpy(run->push, push, push_size);
    }
    return run;
}

static rill_result add_dof(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill_rg *g = ctx->graph;
    rill_render_dof d;
    memcpy(&d, rill__post_settings(ctx, sizeof(d)), sizeof(d));
    rill__post_fix_dof(r, rill__post_source(ctx->view, "DepthOfField"), &d);
    if (d.max_circle_of_confusion < 1.0f) {
        return RILL_OK; /* nothing can blur */
    }
    uint32_t h3 = r->frame.views[ctx->view_index].size3[1]; /* the camera's 3D images */
    dof_push push = dof_constants(ctx->view, &d, h3);
    rill_rg_image_desc half = {.format = RILL_RG_FORMAT_RGBA16F, .scale = r->render_scale * 0.5f};
    rill_rg_image coc = rill_rg_create_image(g, "dof_coc", &half, err);
    rill_rg_image blur_a = rill_rg_create_image(g, "dof_blur_a", &half, err);
    rill_rg_image blur_b = rill_rg_create_image(g, "dof_blur_b", &half, err);
    rill_rg_image src = ctx->color, depth = ctx->frame->depth;
    rill__post_run *run = dof_run(r, POST_PIPE_DOF_COC, (rill_rg_image[]){src, depth},
                                  (bool[]){true, false}, 2, coc, &push, sizeof(push));
    if (!run) {
        return RILL_OK;
    }
    RILL_TRY(rill__post_add_pass(ctx, "dof_coc", run, err));
    if (d.mode == RILL_DOF_BOKEH) {
        run = dof_run(r, POST_PIPE_DOF_BOKEH, &coc, (bool[]){true}, 1, blur_b, &push, 8);
        RILL_TRY(run ? rill__post_add_pass(ctx, "dof_bokeh", run, err) : RILL_OK);
    } else {
        float dir[2][4] = {{0, 0, 1, 0}, {0, 0, 0, 1}}; /* after the size: the axis */
        run = dof_run(r, POST_PIPE_DOF_BLUR, &coc, (bool[]){true}, 1, blur_a, dir[0], 16);
        RILL_TRY(run ? rill__post_add_pass(ctx, "dof_blur_h", run, err) : RILL_OK);
        run = dof_run(r, POST_PIPE_DOF_BLUR, &blur_a, (bool[]){true}, 1, blur_b, dir[1], 16);
        RILL_TRY(run ? rill__post_add_pass(ctx, "dof_blur_v", run, err) : RILL_OK);
    }
    if (!run) {
        return RILL_OK;
    }
    rill_rg_image dst = rill_render_effect_next_color(ctx, err);
    run = dof_run(r, POST_PIPE_DOF_COMPOSITE, (rill_rg_image[]){src, depth, blur_b},
                  (bool[]){false, false, true}, 3, dst, &push, sizeof(push));
    if (!run) {
        return rill_error_set(err, RILL_ERR_LIMIT, "render: depth of field: too many post passes");
    }
    return rill__post_add_pass(ctx, "dof_composite", run, err);
}

rill_result rill__post_register_dof(rill_renderer *r, rill_error *err) {
    rill_render_effect_desc fx = {.id = "depth_of_field",
                                  .phase = RILL_RENDER_PHASE_HDR_POST,
                                  .order = 50,
                                  .settings = "DepthOfField",
                                  .active = dof_active,
                                  .add = add_dof};
    return rill_render_effect_register(r, &fx, err) ? RILL_OK
                                                    : (err ? err->code : RILL_ERR_INVALID_ARGUMENT);
}
