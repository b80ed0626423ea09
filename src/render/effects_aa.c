/* effects_aa.c: the anti-aliasing effects as registry anchors (rill/render/effects.h, ON
 * ANTI-ALIASING): TAA first in HDR_POST, then FXAA, SMAA and contrast-adaptive sharpening first in
 * OVERLAY. Each runs only when the camera's routed settings hold its component. This file adds
 * their passes to the frame graph, records them, and keeps TAA's history (two images written in
 * turn, imported into the graph each frame) and its jitter sequence. */
#include "frame.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TAA_SAMPLES 8u          /* jitter sequence length (Halton 2, 3) */
#define TAA_CURRENT_WEIGHT 0.1f /* share of the current frame in each new history */
#define TAA_CUT_COS 0.70710678f /* a camera turn above 45 degrees in one frame is a cut */
#define TAA_IDLE_FRAMES 60u     /* frames without TAA after which its history is freed */

static void bind_img(rill__binding *b, rill__img *img, rill__sampler_kind sampler) {
    b->img = img;
    b->layer = -1;
    b->sampler = sampler;
}

static void dispatch_8x8(rill__cmd *cmd, const rill__img_desc *d) {
    rill__cmd_dispatch(cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

/* The routed settings of ctx when they are at least `size` bytes (a settings type registered by
 * someone else under the same name with another layout is ignored: the defaults apply). */
static const void *settings_of(const rill_render_effect_ctx *ctx, uint32_t size) {
    return ctx->settings && ctx->settings_size >= size ? ctx->settings : NULL;
}

/* >>TAA ------------------------------------------------------------------------------------- */

/* The radical inverse of i in base b: the Halton sequence (i >= 1). */
static float halton(uint32_t i, uint32_t b) {
    float f = 1.0f, r = 0.0f;
    while (i > 0) {
        f /= (float)b;
        r += f * (float)(i % b);
        i /= b;
    }
    return r;
}

/* The camera's forward axis and projection, to detect cuts. */
static void camera_key(const rill_render_view *v, float fwd[3], float proj[5]) {
    const float *m = v->world_from_view;
    float len = sqrtf(m[8] * m[8] + m[9] * m[9] + m[10] * m[10]);
    if (!(len > 1e-6f)) {
        fwd[0] = fwd[1] = 0.0f, fwd[2] = -1.0f;
    } else {
        fwd[0] = -m[8] / len, fwd[1] = -m[9] / len, fwd[2] = -m[10] / len;
    }
    proj[0] = v->fov_y, proj[1] = v->near_plane, proj[2] = v->far_plane;
    proj[3] = v->ortho_height, proj[4] = v->orthographic ? 1.0f : 0.0f;
}

static bool taa_cut(const rill__taa_state *t, const float fwd[3], const float proj[5]) {
    if (memcmp(t->proj, proj, sizeof(t->proj)) != 0) {
        return true;
    }
    float c = fwd[0] * t->fwd[0] + fwd[1] * t->fwd[1] + fwd[2] * t->fwd[2];
    return !(c >= TAA_CUT_COS);
}

/* (Re)creates view v's two history images at w x h; false (TAA off this frame) when that
 * fails. */
static bool taa_history(rill_renderer *r, uint32_t v, uint32_t w, uint32_t h) {
    rill__taa_state *t = &r->taa[v];
    if (t->history[0] && t->w == w && t->h == h) {
        return true;
    }
    rill__taa_destroy_view(r, v);
    rill_error err = {0};
    if (!rill__history_images_create(r->gpu, t->history, w, h, "taa", &err)) {
        RILL_LOG_WARN("render", "TAA off: no history image (%s)", err.msg);
        rill__taa_destroy_view(r, v);
        return false;
    }
    t->w = w;
    t->h = h;
    t->valid = false;
    return true;
}

void rill__taa_plan(rill_renderer *r, rill__view *vs) {
    rill__aa_frame *aa = &vs->fx.aa;
    uint32_t v = vs->index, w3 = vs->size3[0], h3 = vs->size3[1];
    rill__taa_state *t = &r->taa[v];
    const rill_render_view *cam = vs->view;
    aa->jitter[0] = aa->jitter[1] = 0.0f;
    if (!aa->taa && t->history[0] && r->frame_counter - t->last_frame > TAA_IDLE_FRAMES) {
        rill__taa_destroy_view(r, v); /* TAA is off for this camera: give the memory back */
    }
    if (!aa->taa || !cam || !w3 || !h3 || !taa_history(r, v, w3, h3)) {
        aa->taa = false;
        return;
    }
    uint32_t size = 0;
    const rill_render_taa *s = rill_render_view_settings(cam, "TemporalAntiAliasing", &size);
    float fwd[3], proj[5];
    camera_key(cam, fwd, proj);
    bool reset = !t->valid || t->last_frame + 1 != r->frame_counter ||
                 (s && size >= sizeof(*s) && s->reset) || taa_cut(t, fwd, proj);
    memcpy(t->fwd, fwd, sizeof(t->fwd));
    memcpy(t->proj, proj, sizeof(t->proj));
    if (reset) {
        t->sample = 0;
    }
    /* The jitter restarts with the history, so a reset frame is the first frame of a fresh one. */
    uint32_t i = t->sample % TAA_SAMPLES + 1;
    t->sample++;
    aa->taa_reset = reset;
    /* A sub-pixel offset in [-0.5, 0.5) pixels, as clip-space x and y. */
    aa->jitter[0] = (halton(i, 2) - 0.5f) * 2.0f / (float)w3;
    aa->jitter[1] = (halton(i, 3) - 0.5f) * 2.0f / (float)h3;
}

void rill__taa_destroy_view(rill_renderer *r, uint32_t view) {
    rill__taa_state *t = &r->taa[view];
    for (int i = 0; i < 2; i++) {
        rill__img_destroy(r->gpu, t->history[i]);
        t->history[i] = NULL;
    }
    t->valid = false;
    t->w = t->h = 0;
}

void rill__taa_destroy(rill_renderer *r) {
    for (uint32_t v = 0; v < RILL_RENDER_MAX_VIEWS; v++) {
        rill__taa_destroy_view(r, v);
    }
}

static bool taa_active(const rill_render_effect_ctx *ctx) {
    return ctx->settings && ctx->renderer->desc.quality != RILL_RENDER_QUALITY_LOW;
}

/* Imports history image i of t as `name`: `initial` is what the previous frame left it in. */
static rill_rg_image import_history(const rill__taa_state *t, rill_rg *g, const char *name,
                                    uint32_t i, rill_rg_usage initial, rill_error *err) {
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = t->w,
                            .height = t->h};
    return rill_rg_import_image(g, name, &d, t->history[i], initial, RILL_RG_USAGE_SAMPLED_COMPUTE,
                                err);
}

/* The view an anti-aliasing effect runs for. */
static rill__view *view_of(const rill_render_effect_ctx *ctx) {
    return &ctx->renderer->frame.views[ctx->view_index];
}

/* taa: the current colour, motion and depth and last frame's history in; the anti-aliased colour
 * (the phase's next colour) and this frame's history out. */
static rill_result add_taa(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill__view *f = view_of(ctx);
    rill__aa_frame *aa = &f->fx.aa;
    rill__taa_state *t = &r->taa[f->index];
    rill_rg *g = ctx->graph;
    if (!aa->taa) {
        return RILL_OK; /* no history image this frame */
    }
    aa->taa_src = ctx->color;
    aa->taa_dst = rill_render_effect_next_color(ctx, err);
    uint32_t next = t->cur ^ 1u;
    aa->hist_out = import_history(t, g, "taa.history_out", next, RILL_RG_USAGE_NONE, err);
    aa->hist_in = aa->taa_reset ? aa->taa_src
                                : import_history(t, g, "taa.history_in", t->cur,
                                                 RILL_RG_USAGE_SAMPLED_COMPUTE, err);
    aa->motion = ctx->frame->motion;
    aa->depth = ctx->frame->depth;
    rill_rg_pass p = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = "taa", .exec = rill__pass_taa, .user = f}, err);
    RILL_TRY(rill_rg_use_image(g, p, aa->taa_src, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, p, aa->motion, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, p, aa->depth, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    if (!aa->taa_reset) {
        RILL_TRY(rill_rg_use_image(g, p, aa->hist_in, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    }
    RILL_TRY(rill_rg_use_image(g, p, aa->hist_out, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, p, aa->taa_dst, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, ctx->frame->end_main_pass, p, err));
    t->cur = next;
    t->valid = true;
    t->last_frame = r->frame_counter;
    return RILL_OK;
}

void rill__pass_taa(rill_rg_ctx *ctx, void *user) {
    const rill__view_fx *f = &((const rill__view *)user)->fx;
    rill__img *dst = rill__ctx_img(ctx, f->aa.taa_dst);
    const rill__img_desc *d = rill__img_get_desc(dst);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_TAA]);
    rill__binding b[6];
    memset(b, 0, sizeof(b));
    bind_img(&b[0], rill__ctx_img(ctx, f->aa.taa_src), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[1], rill__ctx_img(ctx, f->aa.hist_in), RILL__SAMPLER_LINEAR_CLAMP);
    bind_img(&b[2], rill__ctx_img(ctx, f->aa.motion), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[3], rill__ctx_img(ctx, f->aa.depth), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[4], dst, RILL__SAMPLER_NUM);
    bind_img(&b[5], rill__ctx_img(ctx, f->aa.hist_out), RILL__SAMPLER_NUM);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 6);
    struct {
        uint32_t w, h, reset;
        float current_weight;
    } push = {d->width, d->height, f->aa.taa_reset ? 1u : 0u, TAA_CURRENT_WEIGHT};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    dispatch_8x8(ctx->cmd, d);
}

/* >>LDR anti-aliasing and sharpening --------------------------------------------------------- */

/* One compute pass `label` reading `src` and writing `dst`. */
static rill_result add_filter(rill_rg *g, const char *label, rill_rg_exec_fn fn, rill__view *f,
                              rill_rg_image src, rill_rg_image dst, rill_rg_pass *out,
                              rill_error *err) {
    rill_rg_pass p =
        rill_rg_add_pass(g, &(rill_rg_pass_desc){.label = label, .exec = fn, .user = f}, err);
    if (out) {
        *out = p;
    }
    RILL_TRY(rill_rg_use_image(g, p, src, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    return rill_rg_use_image(g, p, dst, RILL_RG_USAGE_STORAGE_WRITE, err);
}

/* The phase's colour before and after a filter: *src gets the current one, *dst the next. */
static void next_pair(rill_render_effect_ctx *ctx, rill_rg_image *src, rill_rg_image *dst,
                      rill_error *err) {
    *src = ctx->color;
    *dst = rill_render_effect_next_color(ctx, err);
}

static rill_result add_fxaa(rill_render_effect_ctx *ctx, rill_error *err) {
    /* FXAA's documented quality presets, by rill_fxaa_sensitivity. */
    static const float rel[RILL_FXAA_SENSITIVITY_NUM] = {0.125f, 0.25f, 0.166f, 0.063f, 0.031f};
    static const float abs_min[RILL_FXAA_SENSITIVITY_NUM] = {0.0312f, 0.0833f, 0.0625f, 0.0156f,
                                                             0.0078f};
    rill__view *vs = view_of(ctx);
    rill__view_fx *f = &vs->fx;
    const rill_render_fxaa *s = settings_of(ctx, sizeof(rill_render_fxaa));
    uint32_t a = s ? (uint32_t)s->edge_threshold : 0u, b = s ? (uint32_t)s->edge_threshold_min : 0u;
    f->aa.fxaa_threshold[0] = rel[a < RILL_FXAA_SENSITIVITY_NUM ? a : 0];
    f->aa.fxaa_threshold[1] = abs_min[b < RILL_FXAA_SENSITIVITY_NUM ? b : 0];
    next_pair(ctx, &f->aa.fxaa_src, &f->aa.fxaa_dst, err);
    return add_filter(ctx->graph, "fxaa", rill__pass_fxaa, vs, f->aa.fxaa_src, f->aa.fxaa_dst, NULL,
                      err);
}

void rill__pass_fxaa(rill_rg_ctx *ctx, void *user) {
    const rill__view_fx *f = &((const rill__view *)user)->fx;
    rill__img *dst = rill__ctx_img(ctx, f->aa.fxaa_dst);
    const rill__img_desc *d = rill__img_get_desc(dst);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_FXAA]);
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    bind_img(&b[0], rill__ctx_img(ctx, f->aa.fxaa_src), RILL__SAMPLER_LINEAR_CLAMP);
    bind_img(&b[1], dst, RILL__SAMPLER_NUM);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
    struct {
        uint32_t w, h;
        float threshold, threshold_min;
    } push = {d->width, d->height, f->aa.fxaa_threshold[0], f->aa.fxaa_threshold[1]};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    dispatch_8x8(ctx->cmd, d);
}

/* SMAA 1x: luma edges ("smaa.edges"), blending weights from the edge shapes ("smaa.weights"),
 * then each pixel blended with the neighbours the weights name. */
static rill_result add_smaa(rill_render_effect_ctx *ctx, rill_error *err) {
    static const float threshold[RILL_SMAA_PRESET_NUM] = {0.1f, 0.15f, 0.1f, 0.05f};
    static const uint32_t steps[RILL_SMAA_PRESET_NUM] = {16, 4, 8, 32};
    rill__view *vs = view_of(ctx);
    rill__view_fx *f = &vs->fx;
    rill_rg *g = ctx->graph;
    const rill_render_smaa *s = settings_of(ctx, sizeof(rill_render_smaa));
    uint32_t p = s ? (uint32_t)s->preset : 0u;
    p = p < RILL_SMAA_PRESET_NUM ? p : 0u;
    f->aa.smaa_threshold = threshold[p];
    f->aa.smaa_steps = steps[p];
    rill__aa_frame *aa = &f->aa;
    next_pair(ctx, &aa->smaa_src, &aa->smaa_dst, err);
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA8_UNORM};
    aa->smaa_edges = rill_rg_create_image(g, "smaa.edges", &d, err);
    d.format = RILL_RG_FORMAT_RGBA16F;
    aa->smaa_weights = rill_rg_create_image(g, "smaa.weights", &d, err);
    RILL_TRY(add_filter(g, "smaa_edges", rill__pass_smaa_edges, vs, aa->smaa_src, aa->smaa_edges,
                        NULL, err));
    RILL_TRY(add_filter(g, "smaa_weights", rill__pass_smaa_weights, vs, aa->smaa_edges,
                        aa->smaa_weights, NULL, err));
    rill_rg_pass blend;
    RILL_TRY(add_filter(g, "smaa_blend", rill__pass_smaa_blend, vs, aa->smaa_src, aa->smaa_dst,
                        &blend, err));
    return rill_rg_use_image(g, blend, aa->smaa_weights, RILL_RG_USAGE_SAMPLED_COMPUTE, err);
}

/* One filter dispatch (SMAA steps, CAS): in (and in2) sampled -> out (storage), push {w, h, a, b}.
 */
static void filter_step(rill_rg_ctx *ctx, rill__pipe_id pipe, rill__img *in, rill__img *in2,
                        rill__img *out, uint32_t a, float b) {
    const rill__img_desc *d = rill__img_get_desc(out);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[pipe]);
    rill__binding bd[3];
    memset(bd, 0, sizeof(bd));
    uint32_t n = 0;
    bind_img(&bd[n++], in, RILL__SAMPLER_NEAREST_CLAMP);
    if (in2) {
        bind_img(&bd[n++], in2, RILL__SAMPLER_NEAREST_CLAMP);
    }
    bind_img(&bd[n++], out, RILL__SAMPLER_NUM);
    rill__cmd_bind_transient_set(ctx->cmd, 0, bd, n);
    struct {
        uint32_t w, h, a;
        float b;
    } push = {d->width, d->height, a, b};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    dispatch_8x8(ctx->cmd, d);
}

void rill__pass_smaa_edges(rill_rg_ctx *ctx, void *user) {
    const rill__view_fx *f = &((const rill__view *)user)->fx;
    filter_step(ctx, RILL__PIPE_SMAA_EDGES, rill__ctx_img(ctx, f->aa.smaa_src), NULL,
                rill__ctx_img(ctx, f->aa.smaa_edges), 0, f->aa.smaa_threshold);
}

void rill__pass_smaa_weights(rill_rg_ctx *ctx, void *user) {
    const rill__view_fx *f = &((const rill__view *)user)->fx;
    filter_step(ctx, RILL__PIPE_SMAA_WEIGHTS, rill__ctx_img(ctx, f->aa.smaa_edges), NULL,
                rill__ctx_img(ctx, f->aa.smaa_weights), f->aa.smaa_steps, 0.0f);
}

void rill__pass_smaa_blend(rill_rg_ctx *ctx, void *user) {
    const rill__view_fx *f = &((const rill__view *)user)->fx;
    filter_step(ctx, RILL__PIPE_SMAA_BLEND, rill__ctx_img(ctx, f->aa.smaa_src),
                rill__ctx_img(ctx, f->aa.smaa_weights), rill__ctx_img(ctx, f->aa.smaa_dst), 0,
                0.0f);
}

static rill_result add_cas(rill_render_effect_ctx *ctx, rill_error *err) {
    rill__view *vs = view_of(ctx);
    rill__view_fx *f = &vs->fx;
    const rill_render_cas *s = settings_of(ctx, sizeof(rill_render_cas));
    float k = s ? s->sharpening_strength : 0.6f;
    f->aa.cas_strength = k >= 0.0f ? (k <= 1.0f ? k : 1.0f) : 0.0f; /* NaN becomes 0 */
    f->aa.cas_denoise = s && s->denoise;
    next_pair(ctx, &f->aa.cas_src, &f->aa.cas_dst, err);
    return add_filter(ctx->graph, "cas", rill__pass_cas, vs, f->aa.cas_src, f->aa.cas_dst, NULL,
                      err);
}

void rill__pass_cas(rill_rg_ctx *ctx, void *user) {
    const rill__view_fx *f = &((const rill__view *)user)->fx;
    filter_step(ctx, RILL__PIPE_CAS, rill__ctx_img(ctx, f->aa.cas_src), NULL,
                rill__ctx_img(ctx, f->aa.cas_dst), f->aa.cas_denoise ? 1u : 0u, f->aa.cas_strength);
}

rill_result rill__effects_register_aa(rill_renderer *r, rill_error *err) {
    static const rill_render_effect_desc aa[] = {
        {.id = "taa",
         .phase = RILL_RENDER_PHASE_HDR_POST,
         .order = 0,
         .settings = "TemporalAntiAliasing",
         .active = taa_active,
         .add = add_taa},
        {.id = "fxaa",
         .phase = RILL_RENDER_PHASE_OVERLAY,
         .order = 0,
         .settings = "Fxaa",
         .add = add_fxaa},
        {.id = "smaa",
         .phase = RILL_RENDER_PHASE_OVERLAY,
         .order = 1,
         .settings = "Smaa",
         .add = add_smaa},
        {.id = "cas",
         .phase = RILL_RENDER_PHASE_OVERLAY,
         .order = 2,
         .settings = "ContrastAdaptiveSharpening",
         .add = add_cas},
    };
    for (size_t i = 0; i < sizeof(aa) / sizeof(aa[0]); i++) {
        if (!rill__effect_register_anchor(r, &aa[i], err)) {
            return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
        }
    }
    return RILL_OK;
}
