/* ssr.c: screen-space reflections (rill/render/reflections.h): the ScreenSpaceReflections
 * settings component (fields, defaults, clamping with a warning naming the entity and field), the
 * registry effect that adds its four compute passes on the lit HDR image (GI phase, after
 * lighting; off at the Low tier) and their recording: the min-depth pyramid (ssr_hiz), the
 * half-resolution trace (ssr_trace), the blur pyramid (ssr_blur) and the bilateral resolve into
 * the image (ssr_resolve). */
#include "frame.h"
#include "rill/render/effects.h"
#include "rill/render/reflections.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define HIZ_LEVELS_MAX 8u  /* half size down to 1/128 of it */
#define BLUR_LEVELS_MAX 5u /* the trace and four blurrier levels */

/* >>component ------------------------------------------------------------------------------- */

rill_render_ssr rill_render_ssr_query_defaults(void) {
    rill_render_ssr s = {.intensity = 1.0f, .thickness = 0.3f, .max_roughness = 0.6f, .steps = 32};
    return s;
}

static const rill_field ssr_fields[] = {
    {.name = "intensity",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_ssr, intensity),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 4,
     .doc = "weight of the traced reflection (0..4), default 1"},
    {.name = "thickness",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_ssr, thickness),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0.001,
     .max = 100,
     .doc = "metres a surface is assumed to extend behind the depth buffer, default 0.3"},
    {.name = "max_roughness",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_ssr, max_roughness),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 1,
     .doc = "rougher surfaces trace nothing (their reflection fades out toward it), default 0.6"},
    {.name = "steps",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_render_ssr, steps),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = 256,
     .doc = "depth-pyramid steps per ray (1..256), default 32"},
};

rill_result rill__ssr_register(rill_world *w, rill_render_components *out, rill_error *err) {
    static rill_render_ssr def;
    def = rill_render_ssr_query_defaults();
    rill_type_desc d = {.name = "ScreenSpaceReflections",
                        RILL_TYPE_LAYOUT(rill_render_ssr),
                        RILL_FIELDS(ssr_fields),
                        .defaults = &def,
                        .doc = "screen-space reflections (half-resolution depth-pyramid trace, "
                               "blur pyramid, bilateral resolve), routed to cameras"};
    return rill__render_settings_ensure(w, &d, 1, out, NULL, err);
}

/* >>settings of a frame --------------------------------------------------------------------- */

/* The routed settings of the view, clamped, into f. */
static void resolve_settings(rill_renderer *r, const rill_render_effect_ctx *ctx,
                             rill__ssr_frame *f) {
    rill_render_ssr s = rill_render_ssr_query_defaults();
    rill_entity src = 0;
    if (ctx->settings && ctx->settings_size == sizeof(s)) {
        memcpy(&s, ctx->settings, sizeof(s));
    }
    for (uint32_t i = 0; ctx->view && i < ctx->view->settings_count; i++) {
        if (ctx->view->settings[i].data == ctx->settings) {
            src = ctx->view->settings[i].source;
        }
    }
    rill_render_ssr d = rill_render_ssr_query_defaults();
    rill__fix_src fs = {&r->env_warned, "ScreenSpaceReflections", src};
    f->intensity = rill__fix(&fs, "intensity", s.intensity, 0.0f, 4.0f, d.intensity);
    f->thickness = rill__fix(&fs, "thickness", s.thickness, 0.001f, 100.0f, d.thickness);
    f->max_roughness =
        rill__fix(&fs, "max_roughness", s.max_roughness, 0.0f, 1.0f, d.max_roughness);
    f->steps = rill__fix_u32(&fs, "steps", s.steps, 1, 256);
}

/* >>graph ----------------------------------------------------------------------------------- */

static uint32_t levels_for(uint32_t w, uint32_t h, uint32_t max) {
    uint32_t n = 1;
    while (n < max && (w >> n) >= 1 && (h >> n) >= 1) {
        n++;
    }
    return n;
}

static bool ssr_active(const rill_render_effect_ctx *ctx) {
    return ctx->settings && ctx->renderer->desc.quality != RILL_RENDER_QUALITY_LOW;
}

static rill_result add_ssr(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill_rg *g = ctx->graph;
    rill__view *vs = &r->frame.views[ctx->view_index];
    rill__ssr_frame *f = &vs->fx.ssr;
    rill__view_res *res = &vs->res;
    resolve_settings(r, ctx, f);
    uint32_t full_w = vs->size3[0], full_h = vs->size3[1]; /* the camera's 3D images */
    uint32_t hw = full_w > 1 ? (full_w + 1) / 2 : 1, hh = full_h > 1 ? (full_h + 1) / 2 : 1;
    f->hiz_levels = levels_for(hw, hh, HIZ_LEVELS_MAX);
    f->blur_levels = levels_for(hw, hh, BLUR_LEVELS_MAX);
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_R32F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = hw,
                            .height = hh,
                            .mips = f->hiz_levels};
    f->hiz = rill_rg_create_image(g, "ssr_hiz", &d, err);
    d.format = RILL_RG_FORMAT_RGBA16F;
    d.mips = f->blur_levels;
    f->trace = rill_rg_create_image(g, "ssr_trace", &d, err);
    f->src = ctx->color;
    f->dst = rill_render_effect_next_color(ctx, err);
    f->depth = res->depth;
    f->normal = res->normal;
    const rill_rg_usage s = RILL_RG_USAGE_SAMPLED_COMPUTE, w = RILL_RG_USAGE_STORAGE_WRITE;
    rill_rg_pass p = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = "ssr_hiz", .exec = rill__pass_ssr_hiz, .user = vs}, err);
    RILL_TRY(rill_rg_use_image(g, p, f->depth, s, err));
    RILL_TRY(rill_rg_use_image(g, p, f->hiz, w, err));
    p = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = "ssr_trace", .exec = rill__pass_ssr_trace, .user = vs},
        err);
    rill_rg_image in[] = {f->hiz, f->depth, f->normal, f->src};
    for (int i = 0; i < 4; i++) {
        RILL_TRY(rill_rg_use_image(g, p, in[i], s, err));
    }
    RILL_TRY(rill_rg_use_image(g, p, f->trace, w, err));
    p = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = "ssr_blur", .exec = rill__pass_ssr_blur, .user = vs}, err);
    RILL_TRY(rill_rg_use_image(g, p, f->trace, w, err));
    p = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = "ssr_resolve", .exec = rill__pass_ssr_resolve, .user = vs},
        err);
    rill_rg_image rin[] = {f->depth, f->normal, f->trace, f->hiz, f->src};
    for (int i = 0; i < 5; i++) {
        RILL_TRY(rill_rg_use_image(g, p, rin[i], s, err));
    }
    RILL_TRY(rill__ibl_access_compute(r, g, p, err));
    RILL_TRY(rill__probes_access(r, g, p, s, err));
    RILL_TRY(rill_rg_use_image(g, p, f->dst, w, err));
    f->on = true;
    return RILL_OK;
}

rill_result rill__ssr_effect_register(rill_renderer *r, rill_error *err) {
    rill_render_effect_desc d = {.id = "ssr",
                                 .phase = RILL_RENDER_PHASE_GI,
                                 .order = 100,
                                 .settings = "ScreenSpaceReflections",
                                 .active = ssr_active,
                                 .add = add_ssr,
                                 .after_lighting = true};
    if (!rill_render_effect_register(r, &d, err)) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    return RILL_OK;
}

/* >>passes ---------------------------------------------------------------------------------- */

static rill__binding tex(rill__img *img, rill__sampler_kind sampler) {
    return (rill__binding){.img = img, .layer = -1, .sampler = sampler};
}

static rill__binding store_level(rill__img *img, uint32_t level) {
    return (rill__binding){.img = img, .layer = -1, .one_level = true, .level = level};
}

static rill__binding frame_ubo(const rill__view *vs) {
    return (rill__binding){
        .buf = vs->frame_buf, .offset = vs->frame_off, .range = sizeof(rill__gpu_frame)};
}

static uint32_t level_size(uint32_t size, uint32_t level) {
    uint32_t s = size >> level;
    return s ? s : 1;
}

void rill__pass_ssr_hiz(rill_rg_ctx *ctx, void *user) {
    const rill__ssr_frame *f = &((const rill__view *)user)->fx.ssr;
    rill__img *depth = rill__ctx_img(ctx, f->depth), *hiz = rill__ctx_img(ctx, f->hiz);
    const rill__img_desc *dd = rill__img_get_desc(depth), *hd = rill__img_get_desc(hiz);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSR_HIZ]);
    for (uint32_t l = 0; l < f->hiz_levels; l++) {
        rill__binding b[3] = {tex(depth, RILL__SAMPLER_NEAREST_CLAMP),
                              store_level(hiz, l ? l - 1 : 0), store_level(hiz, l)};
        rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
        struct {
            uint32_t src[2], dst[2], level, farthest;
        } push = {{l ? level_size(hd->width, l - 1) : dd->width,
                   l ? level_size(hd->height, l - 1) : dd->height},
                  {level_size(hd->width, l), level_size(hd->height, l)},
                  l,
                  0u};
        rill__cmd_push(ctx->cmd, &push, sizeof(push));
        rill__cmd_dispatch(ctx->cmd, (push.dst[0] + 7) / 8, (push.dst[1] + 7) / 8, 1);
        if (l + 1 < f->hiz_levels) {
            rill__cmd_compute_barrier(ctx->cmd);
        }
    }
}

void rill__pass_ssr_trace(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    const rill__ssr_frame *f = &((const rill__view *)user)->fx.ssr;
    rill__img *trace = rill__ctx_img(ctx, f->trace), *depth = rill__ctx_img(ctx, f->depth);
    const rill__img_desc *td = rill__img_get_desc(trace), *dd = rill__img_get_desc(depth);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSR_TRACE]);
    rill__binding b[6] = {frame_ubo(vs),
                          tex(depth, RILL__SAMPLER_NEAREST_CLAMP),
                          tex(rill__ctx_img(ctx, f->normal), RILL__SAMPLER_NEAREST_CLAMP),
                          tex(rill__ctx_img(ctx, f->hiz), RILL__SAMPLER_NEAREST_CLAMP),
                          tex(rill__ctx_img(ctx, f->src), RILL__SAMPLER_LINEAR_CLAMP),
                          store_level(trace, 0)};
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 6);
    struct {
        uint32_t size[4], steps[4];
        float params[4];
    } push = {{td->width, td->height, dd->width, dd->height},
              {f->steps, f->hiz_levels, 0, 0},
              {f->thickness, f->max_roughness, 0.0f, 0.0f}};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (td->width + 7) / 8, (td->height + 7) / 8, 1);
}

void rill__pass_ssr_blur(rill_rg_ctx *ctx, void *user) {
    const rill__ssr_frame *f = &((const rill__view *)user)->fx.ssr;
    rill__img *trace = rill__ctx_img(ctx, f->trace);
    const rill__img_desc *td = rill__img_get_desc(trace);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSR_BLUR]);
    for (uint32_t l = 1; l < f->blur_levels; l++) {
        rill__binding b[2] = {store_level(trace, l - 1), store_level(trace, l)};
        rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
        uint32_t push[4] = {level_size(td->width, l - 1), level_size(td->height, l - 1),
                            level_size(td->width, l), level_size(td->height, l)};
        rill__cmd_push(ctx->cmd, push, sizeof(push));
        rill__cmd_dispatch(ctx->cmd, (push[2] + 7) / 8, (push[3] + 7) / 8, 1);
        if (l + 1 < f->blur_levels) {
            rill__cmd_compute_barrier(ctx->cmd);
        }
    }
}

void rill__pass_ssr_resolve(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill_renderer *r = ctx->r;
    const rill__ssr_frame *f = &vs->fx.ssr;
    rill__img *dst = rill__ctx_img(ctx, f->dst), *trace = rill__ctx_img(ctx, f->trace);
    const rill__img_desc *od = rill__img_get_desc(dst), *td = rill__img_get_desc(trace);
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SSR_RESOLVE]);
    rill__binding ibl[3];
    rill__ibl_bindings(r, ibl);
    rill__binding b[14] = {frame_ubo(vs),
                           tex(rill__ctx_img(ctx, f->depth), RILL__SAMPLER_NEAREST_CLAMP),
                           tex(rill__ctx_img(ctx, f->normal), RILL__SAMPLER_NEAREST_CLAMP),
                           tex(trace, RILL__SAMPLER_LINEAR_CLAMP),
                           tex(rill__ctx_img(ctx, f->hiz), RILL__SAMPLER_NEAREST_CLAMP),
                           tex(rill__ctx_img(ctx, f->src), RILL__SAMPLER_NEAREST_CLAMP),
                           store_level(dst, 0),
                           ibl[0],
                           ibl[1]};
    b[6].one_level = false;
    rill__probes_bindings(r, &b[9]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 14);
    struct {
        uint32_t size[4];
        float params[4];
    } push = {{od->width, od->height, td->width, td->height},
              {f->intensity, f->max_roughness, (float)(f->blur_levels - 1), 0.0f}};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (od->width + 7) / 8, (od->height + 7) / 8, 1);
}
