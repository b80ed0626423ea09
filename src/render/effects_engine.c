/* effects_engine.c: the engine's own screen effects as registry entries: SSAO (GI), auto exposure
 * and bloom (HDR_POST). Each runs only when the camera's view asks for it (the routed Ssao, Bloom,
 * AutoExposure components, or the view's fields when a snapshot is built by hand) and the quality
 * tier allows it: SSAO at High, bloom and auto exposure at Medium and High. */
#include "frame.h"
#include "rill/render/effects.h"

#include <stdio.h>
#include <string.h>

static rill__res find(const rill_rg *g, const char *name) {
    rill__res res = {rill_rg_resource_find(g, name)};
    return res;
}

static rill_result pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, void *user,
                        rill_error *err) {
    rill_rg_pass_desc d = {label, fn, user, false};
    return rill_rg_add_pass(g, &d, err);
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

/* SSAO of view 0: ao_raw from depth and normals, blurred into ao (opaque and transparent read
 * it). */
static rill_result add_ssao(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill_rg *g = ctx->graph;
    rill__view *vs = &r->frame.views[0];
    rill_rg_image_desc ad;
    memset(&ad, 0, sizeof(ad));
    ad.format = RILL_RG_FORMAT_R32F;
    ad.scale = r->render_scale;
    RILL_TRY(rill_rg_declare_image(g, "ao_raw", &ad, err));
    RILL_TRY(rill_rg_declare_image(g, "ao", &ad, err));
    vs->res.ao_raw = find(g, "ao_raw");
    vs->res.ao = find(g, "ao");
    RILL_TRY(pass(g, "ssao", rill__pass_ssao, vs, err));
    RILL_TRY(rill_rg_access(g, "ssao", "depth", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_access(g, "ssao", "normal", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_access(g, "ssao", "ao_raw", RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(pass(g, "ssao_blur", rill__pass_ssao_blur, vs, err));
    RILL_TRY(rill_rg_access(g, "ssao_blur", "ao_raw", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_access(g, "ssao_blur", "depth", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_access(g, "ssao_blur", "ao", RILL_RG_USAGE_STORAGE_WRITE, err));
    r->frame.ssao = true;
    return RILL_OK;
}

/* Auto exposure: measures ctx->color into the persistent state buffer tonemapping reads. */
static rill_result add_auto_exposure(rill_render_effect_ctx *ctx, rill_error *err) {
    rill__frame *f = &ctx->renderer->frame;
    rill_rg *g = ctx->graph;
    RILL_TRY(pass(g, "auto_exposure", rill__pass_auto_exposure, f, err));
    RILL_TRY(rill_rg_access(g, "auto_exposure", ctx->color, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_access(g, "auto_exposure", "exposure", RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, RILL_RG_END_MAIN_PASS, "auto_exposure", err));
    f->ae_src = find(g, ctx->color);
    f->auto_exposure = true;
    return RILL_OK;
}

static void bloom_name(char *dst, size_t cap, char kind, uint32_t level) {
    snprintf(dst, cap, "bloom_%c%u", kind, level);
}

/* The bloom pyramid: RILL__BLOOM_LEVELS downsampling passes from ctx->color, then upsampling
 * passes accumulating back to bloom_u0, which tonemapping adds. Every level is its own image (the
 * graph aliases their memory): a read-then-write of one image would order its reader after
 * itself. */
static rill_result add_bloom(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill_rg *g = ctx->graph;
    rill__frame *f = &r->frame;
    char name[32], label[32], prev[32];
    float scale = r->render_scale;
    for (uint32_t i = 0; i < RILL__BLOOM_LEVELS; i++) {
        scale *= 0.5f;
        rill_rg_image_desc d;
        memset(&d, 0, sizeof(d));
        d.format = RILL_RG_FORMAT_RGBA16F;
        d.scale = scale;
        bloom_name(name, sizeof(name), 'd', i);
        RILL_TRY(rill_rg_declare_image(g, name, &d, err));
        if (i + 1 < RILL__BLOOM_LEVELS) {
            bloom_name(label, sizeof(label), 'u', i);
            RILL_TRY(rill_rg_declare_image(g, label, &d, err));
        }
        if (i == 0) {
            snprintf(prev, sizeof(prev), "%s", ctx->color);
        } else {
            bloom_name(prev, sizeof(prev), 'd', i - 1);
        }
        rill__bloom_step *st = &f->bloom_down[i];
        *st = (rill__bloom_step){&f->views[0], i, find(g, prev), {-1}, find(g, name)};
        snprintf(label, sizeof(label), "bloom_down%u", i);
        RILL_TRY(pass(g, label, rill__pass_bloom_down, st, err));
        RILL_TRY(rill_rg_access(g, label, prev, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        RILL_TRY(rill_rg_access(g, label, name, RILL_RG_USAGE_STORAGE_WRITE, err));
    }
    for (int i = RILL__BLOOM_LEVELS - 2; i >= 0; i--) {
        char cur[32];
        bloom_name(prev, sizeof(prev), i + 1 == RILL__BLOOM_LEVELS - 1 ? 'd' : 'u',
                   (uint32_t)i + 1);
        bloom_name(cur, sizeof(cur), 'd', (uint32_t)i);
        bloom_name(name, sizeof(name), 'u', (uint32_t)i);
        rill__bloom_step *st = &f->bloom_up[i];
        *st = (rill__bloom_step){&f->views[0], (uint32_t)i, find(g, prev), find(g, cur),
                                 find(g, name)};
        snprintf(label, sizeof(label), "bloom_up%d", i);
        RILL_TRY(pass(g, label, rill__pass_bloom_up, st, err));
        RILL_TRY(rill_rg_access(g, label, prev, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        RILL_TRY(rill_rg_access(g, label, cur, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        RILL_TRY(rill_rg_access(g, label, name, RILL_RG_USAGE_STORAGE_WRITE, err));
    }
    f->bloom_out = find(g, "bloom_u0");
    f->bloom = true;
    return rill_rg_add_edge(g, RILL_RG_END_MAIN_PASS, "bloom_down0", err);
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
