/* effects_engine.c: the engine's own screen effects as registry entries: SSAO (GI), auto exposure
 * and bloom (HDR_POST). Each runs only when the camera's view asks for it (the routed Ssao, Bloom,
 * AutoExposure components, or the view's fields when a snapshot is built by hand) and the quality
 * tier allows it: SSAO at High, bloom and auto exposure at Medium and High. */
#include "frame.h"
#include "rill/render/effects.h"

#include <stdio.h>
#include <string.h>

/* One access per image: images[i] used as usages[i] by pass p. */
static rill_result use_images(rill_rg *g, rill_rg_pass p, const rill_rg_image *images,
                              const rill_rg_usage *usages, uint32_t n, rill_error *err) {
    for (uint32_t i = 0; i < n; i++) {
        RILL_TRY(rill_rg_use_image(g, p, images[i], usages[i], err));
    }
    return RILL_OK;
}

static rill_render_quality tier(const rill_render_effect_ctx *ctx) {
    return ctx->renderer->desc.quality;
}

static bool ssao_active(const rill_render_effect_ctx *ctx) {
    return ctx->view->ssao.enabled && tier(ctx) == RILL_RENDER_QUALITY_HIGH;
}

static bool bloom_active(const rill_render_effect_ctx *ctx) {
    return ctx->view->bloom.enabled && tier(ctx) != RILL_RENDER_QUALITY_LOW;
}

static bool ae_active(const rill_render_effect_ctx *ctx) {
    return ctx->view->auto_exposure.enabled && tier(ctx) != RILL_RENDER_QUALITY_LOW;
}

/* The view an engine effect runs for. */
static rill__view *view_of(const rill_render_effect_ctx *ctx) {
    return &ctx->renderer->frame.views[ctx->view_index];
}

/* SSAO of the view: ao_raw from depth and normals, blurred into ao (its opaque and transparent
 * passes read it). */
static rill_result add_ssao(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill_rg *g = ctx->graph;
    rill__view *vs = view_of(ctx);
    rill__view_res *res = &vs->res;
    rill_rg_image_desc ad = {.format = RILL_RG_FORMAT_R32F, .scale = r->render_scale};
    res->ao_raw = rill_rg_create_image(g, "ao_raw", &ad, err);
    res->ao = rill_rg_create_image(g, "ao", &ad, err);
    rill_rg_usage s = RILL_RG_USAGE_SAMPLED_COMPUTE, w = RILL_RG_USAGE_STORAGE_WRITE;
    rill_rg_pass_desc d = {.label = "ssao", .exec = rill__pass_ssao, .user = vs};
    rill_rg_pass p = rill_rg_add_pass(g, &d, err);
    RILL_TRY(use_images(g, p, (rill_rg_image[]){res->depth, res->normal, res->ao_raw},
                        (rill_rg_usage[]){s, s, w}, 3, err));
    d = (rill_rg_pass_desc){.label = "ssao_blur", .exec = rill__pass_ssao_blur, .user = d.user};
    p = rill_rg_add_pass(g, &d, err);
    RILL_TRY(use_images(g, p, (rill_rg_image[]){res->ao_raw, res->depth, res->ao},
                        (rill_rg_usage[]){s, s, w}, 3, err));
    vs->fx.ssao = true;
    return RILL_OK;
}

/* Auto exposure: measures ctx->color into the view's part of the persistent state buffer its
 * tonemapping reads. */
static rill_result add_auto_exposure(rill_render_effect_ctx *ctx, rill_error *err) {
    rill__view *vs = view_of(ctx);
    rill__view_fx *f = &vs->fx;
    rill_rg *g = ctx->graph;
    rill_rg_pass p = rill_rg_add_pass(g,
                                      &(rill_rg_pass_desc){.label = "auto_exposure",
                                                           .exec = rill__pass_auto_exposure,
                                                           .user = vs},
                                      err);
    RILL_TRY(rill_rg_use_image(g, p, ctx->color, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_buffer(g, p, ctx->frame->exposure, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, ctx->frame->end_main_pass, p, err));
    f->ae_src = ctx->color;
    f->auto_exposure = true;
    return RILL_OK;
}

/* One bloom step: a pass reading st->src (and st->cur when it is set) and writing st->out. */
static rill_result bloom_pass(rill_rg *g, const char *label, uint32_t level, rill_rg_exec_fn fn,
                              rill__bloom_step *st, rill_rg_pass *out, rill_error *err) {
    char name[32];
    snprintf(name, sizeof(name), "%s%u", label, level);
    rill_rg_pass p = *out =
        rill_rg_add_pass(g, &(rill_rg_pass_desc){.label = name, .exec = fn, .user = st}, err);
    RILL_TRY(rill_rg_use_image(g, p, st->src, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    if (st->cur.id) {
        RILL_TRY(rill_rg_use_image(g, p, st->cur, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    }
    return rill_rg_use_image(g, p, st->out, RILL_RG_USAGE_STORAGE_WRITE, err);
}

/* The bloom pyramid: RILL__BLOOM_LEVELS downsampling passes from ctx->color, then upsampling
 * passes accumulating back to bloom_u0, which tonemapping adds. Every level is its own image (the
 * graph aliases their memory): a read-then-write of one image would order its reader after
 * itself. */
static rill_result add_bloom(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill_rg *g = ctx->graph;
    rill__view *vs = view_of(ctx);
    rill__view_fx *f = &vs->fx;
    rill_rg_image down[RILL__BLOOM_LEVELS], up[RILL__BLOOM_LEVELS];
    rill_rg_pass first = {0};
    float scale = r->render_scale;
    for (uint32_t i = 0; i < RILL__BLOOM_LEVELS; i++) {
        char name[32];
        scale *= 0.5f;
        rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F, .scale = scale};
        snprintf(name, sizeof(name), "bloom_d%u", i);
        down[i] = rill_rg_create_image(g, name, &d, err);
        if (i + 1 < RILL__BLOOM_LEVELS) {
            snprintf(name, sizeof(name), "bloom_u%u", i);
            up[i] = rill_rg_create_image(g, name, &d, err);
        }
        rill__bloom_step *st = &f->bloom_down[i];
        *st = (rill__bloom_step){vs, i, i ? down[i - 1] : ctx->color, {0}, down[i]};
        rill_rg_pass p;
        RILL_TRY(bloom_pass(g, "bloom_down", i, rill__pass_bloom_down, st, &p, err));
        first = i ? first : p;
    }
    up[RILL__BLOOM_LEVELS - 1] = down[RILL__BLOOM_LEVELS - 1];
    for (int i = RILL__BLOOM_LEVELS - 2; i >= 0; i--) {
        rill__bloom_step *st = &f->bloom_up[i];
        *st = (rill__bloom_step){vs, (uint32_t)i, up[i + 1], down[i], up[i]};
        rill_rg_pass p;
        RILL_TRY(bloom_pass(g, "bloom_up", (uint32_t)i, rill__pass_bloom_up, st, &p, err));
    }
    f->bloom_out = up[0];
    f->bloom = true;
    return rill_rg_add_edge(g, ctx->frame->end_main_pass, first, err);
}

rill_result rill__effects_register_engine(rill_renderer *r, rill_error *err) {
    static const rill_render_effect_desc engine[] = {
        {.id = "ssao",
         .phase = RILL_RENDER_PHASE_GI,
         .order = 0,
         .settings = "Ssao",
         .active = ssao_active,
         .add = add_ssao},
        {.id = "auto_exposure",
         .phase = RILL_RENDER_PHASE_HDR_POST,
         .order = 100,
         .settings = "AutoExposure",
         .active = ae_active,
         .add = add_auto_exposure},
        {.id = "bloom",
         .phase = RILL_RENDER_PHASE_HDR_POST,
         .order = 200,
         .settings = "Bloom",
         .active = bloom_active,
         .add = add_bloom},
    };
    for (size_t i = 0; i < sizeof(engine) / sizeof(engine[0]); i++) {
        if (!rill_render_effect_register(r, &engine[i], err)) {
            return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
        }
    }
    return RILL_OK;
}
