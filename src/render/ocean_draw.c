/* ocean_draw.c: the GPU side of Water (ocean.c plans it). Once a frame, before any view, three
 * compute steps simulate the sea: "ocean.spectrum" (ocean_spectrum.comp: h(k, t) and its derived
 * spectra into the workspace), "ocean.fft" (ocean_fft.comp twice: rows, then columns) and
 * "ocean.maps" (ocean_maps.comp: the displacement and slope images, a layer per cascade). Per
 * view, "water.scene" copies the lit image (what the water shows through refraction offsets and
 * its screen-space reflections read, since "ocean" writes the lit image in place; one copy with
 * the pool water's, rill__add_scene_copy) and "ocean"
 * (ocean_draw.comp) draws the water over the lit image. Without an ocean there is no pass and
 * nothing is allocated. */
#include "ocean_internal.h"
#include "rill/render/reflections.h"

#include <math.h>
#include <string.h>

#define WORK_ELEMS(size) ((uint64_t)RILL_RENDER_OCEAN_MAX_CASCADES * 2u * (size) * (size))

void rill__ocean_free_gpu(rill_renderer *r, rill__ocean *o) {
    rill__buf_destroy(r->gpu, o->work);
    rill__img_destroy(r->gpu, o->disp);
    rill__img_destroy(r->gpu, o->slope);
    o->work = NULL;
    o->disp = o->slope = NULL;
    o->img_size = 0;
}

static rill__img *make_maps(rill_renderer *r, uint32_t size, const char *label, rill_error *err) {
    rill__img_desc d = {.width = size,
                        .height = size,
                        .layers = RILL_RENDER_OCEAN_MAX_CASCADES,
                        .mips = 1,
                        .format = RILL_RG_FORMAT_RGBA16F,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE,
                        .label = label};
    return rill__img_create(r->gpu, &d, err);
}

rill_result rill__ocean_make_gpu(rill_renderer *r, rill__ocean *o, rill_error *err) {
    if (o->work && o->img_size == o->size) {
        return RILL_OK;
    }
    rill__ocean_free_gpu(r, o);
    o->work = rill__buf_create(r->gpu, WORK_ELEMS(o->size) * 16u, RILL__BUF_STORAGE, false,
                               "ocean fft workspace", err);
    o->disp = o->work ? make_maps(r, o->size, "ocean displacement", err) : NULL;
    o->slope = o->disp ? make_maps(r, o->size, "ocean slopes", err) : NULL;
    if (!o->slope) {
        rill__ocean_free_gpu(r, o);
        return err ? err->code : RILL_ERR_VULKAN;
    }
    o->img_size = o->size;
    o->disp_use = o->slope_use = RILL_RG_USAGE_NONE;
    return RILL_OK;
}

/* >>graph ----------------------------------------------------------------------------------- */

static rill_result import_maps(rill_rg *g, const char *name, rill__img *img, rill_rg_usage *use,
                               rill_rg_image *out, rill_error *err) {
    const rill__img_desc *id = rill__img_get_desc(img);
    rill_rg_image_desc d = {.format = id->format,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .scale = 1.0f,
                            .width = id->width,
                            .height = id->height,
                            .layers = id->layers,
                            .mips = 1,
                            .array_view = true};
    const rill_rg_usage final = RILL_RG_USAGE_SAMPLED_COMPUTE;
    *out = rill_rg_import_image(g, name, &d, img, *use, final, err);
    if (!out->id) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    *use = final;
    return RILL_OK;
}

static void pass_spectrum(rill_rg_ctx *ctx, void *user);
static void pass_fft(rill_rg_ctx *ctx, void *user);
static void pass_maps(rill_rg_ctx *ctx, void *user);

static rill_rg_pass sim_pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, void *user,
                             rill_error *err) {
    /* The maps outlive the frame's views only through them: never culled (a view reads them). */
    rill_rg_pass_desc d = {.label = label, .exec = fn, .user = user, .side_effect = true};
    return rill_rg_add_pass(g, &d, err);
}

rill_result rill__ocean_add_passes(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__ocean *o = r->ocean;
    if (!o->on) {
        return RILL_OK;
    }
    const rill_rg_usage wr = RILL_RG_USAGE_STORAGE_WRITE;
    o->r_work = rill_rg_import_buffer(g, "ocean.work", o->work, RILL_RG_USAGE_NONE,
                                      RILL_RG_USAGE_NONE, err);
    RILL_TRY(import_maps(g, "ocean.displacement", o->disp, &o->disp_use, &o->r_disp, err));
    RILL_TRY(import_maps(g, "ocean.slopes", o->slope, &o->slope_use, &o->r_slope, err));
    rill_rg_pass p = sim_pass(g, "ocean.spectrum", pass_spectrum, r, err);
    RILL_TRY(rill_rg_use_buffer(g, p, o->r_work, wr, err));
    p = sim_pass(g, "ocean.fft", pass_fft, r, err);
    RILL_TRY(rill_rg_use_buffer(g, p, o->r_work, wr, err));
    p = sim_pass(g, "ocean.maps", pass_maps, r, err);
    RILL_TRY(rill_rg_use_buffer(g, p, o->r_work, RILL_RG_USAGE_STORAGE_READ, err));
    RILL_TRY(rill_rg_use_image(g, p, o->r_disp, wr, err));
    return rill_rg_use_image(g, p, o->r_slope, wr, err);
}

static void pass_ocean(rill_rg_ctx *ctx, void *user);

rill_result rill__ocean_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                                 rill_rg_pass *out_last, rill_error *err) {
    *out_last = after;
    rill__ocean *o = r->ocean;
    if (!o->on) {
        return RILL_OK;
    }
    RILL_TRY(rill__add_scene_copy(g, vs, &after, err));
    rill_rg_pass_desc pd = {.label = "ocean", .exec = pass_ocean, .user = vs, .view = vs->index};
    rill_rg_pass p = rill_rg_add_pass(g, &pd, err);
    const rill_rg_usage rd = RILL_RG_USAGE_SAMPLED_COMPUTE;
    RILL_TRY(rill_rg_use_image(g, p, vs->res.water_scene, rd, err));
    RILL_TRY(rill_rg_use_image(g, p, vs->res.depth, rd, err));
    RILL_TRY(rill_rg_use_image(g, p, o->r_disp, rd, err));
    RILL_TRY(rill_rg_use_image(g, p, o->r_slope, rd, err));
    RILL_TRY(rill__ibl_access_compute(r, g, p, err));
    RILL_TRY(rill_rg_use_image(g, p, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, after, p, err));
    *out_last = p;
    return RILL_OK;
}

/* >>recording ------------------------------------------------------------------------------- */

static void bind_buf(rill__binding *b, rill__buf *buf, uint64_t off, uint64_t range) {
    memset(b, 0, sizeof(*b));
    b->buf = buf;
    b->offset = off;
    b->range = range;
}

static void bind_img(rill__binding *b, rill__img *img, rill__sampler_kind s) {
    memset(b, 0, sizeof(*b));
    b->img = img;
    b->layer = -1;
    b->sampler = s;
}

static void pass_spectrum(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__ocean *o = r->ocean;
    rill__binding b[2];
    bind_buf(&b[0], o->work, 0, 0);
    bind_buf(&b[1], o->block_buf, o->block_off, sizeof(rill__ocean_block));
    uint32_t push[4] = {o->size, o->cascades, 0, 0};
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_OCEAN_SPECTRUM]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, o->size / 16u, o->size / 16u, o->cascades);
}

/* Rows, then columns: one workgroup a line of every field of every cascade. The graph sees one
 * pass writing the workspace; the barrier between the two directions is recorded here. */
static void pass_fft(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__ocean *o = r->ocean;
    rill__binding b;
    bind_buf(&b, o->work, 0, 0);
    uint32_t log2n = 0;
    while ((1u << log2n) < o->size) {
        log2n++;
    }
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_OCEAN_FFT]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, &b, 1);
    for (uint32_t dir = 0; dir < 2; dir++) {
        if (dir) {
            rill__cmd_compute_barrier(ctx->cmd);
        }
        uint32_t push[4] = {o->size, log2n, dir, 0};
        rill__cmd_push(ctx->cmd, push, sizeof(push));
        rill__cmd_dispatch(ctx->cmd, o->size, 2u, o->cascades);
    }
}

static void pass_maps(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__ocean *o = r->ocean;
    rill__binding b[4];
    bind_buf(&b[0], o->work, 0, 0);
    bind_buf(&b[1], o->block_buf, o->block_off, sizeof(rill__ocean_block));
    bind_img(&b[2], rill__ctx_img(ctx, o->r_disp), RILL__SAMPLER_LINEAR_REPEAT);
    bind_img(&b[3], rill__ctx_img(ctx, o->r_slope), RILL__SAMPLER_LINEAR_REPEAT);
    uint32_t push[4] = {o->size, o->cascades, 0, 0};
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_OCEAN_MAPS]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 4);
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, o->size / 16u, o->size / 16u, o->cascades);
}

/* The SSR effect warns about the settings' values; here they are only clamped. */
void rill__water_ssr_settings(const rill_renderer *r, const rill__view *vs, float out[4]) {
    memset(out, 0, sizeof(float) * 4);
    const rill_render_routed_settings *rs =
        r->desc.quality == RILL_RENDER_QUALITY_LOW
            ? NULL
            : rill__view_routed(vs->view, "ScreenSpaceReflections", sizeof(rill_render_ssr));
    if (!rs) {
        return;
    }
    const rill_render_ssr *s = rs->data;
    rill_render_ssr d = rill_render_ssr_query_defaults();
    out[0] = isfinite(s->intensity) ? RILL_CLAMP(s->intensity, 0.0f, 4.0f) : d.intensity;
    out[1] = isfinite(s->thickness) ? RILL_CLAMP(s->thickness, 0.001f, 100.0f) : d.thickness;
    out[2] = (float)RILL_CLAMP(s->steps ? s->steps : d.steps, 1u, 256u);
}

static void pass_ocean(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill_renderer *r = ctx->r;
    rill__ocean *o = r->ocean;
    rill__img *depth = rill__ctx_img(ctx, vs->res.depth);
    const rill__img_desc *dd = rill__img_get_desc(depth);
    rill__binding b[8], ibl[3];
    bind_buf(&b[0], vs->frame_buf, vs->frame_off, sizeof(rill__gpu_frame));
    bind_img(&b[1], depth, RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[2], rill__ctx_img(ctx, vs->res.hdr), RILL__SAMPLER_NEAREST_CLAMP);
    bind_buf(&b[3], o->block_buf, o->block_off, sizeof(rill__ocean_block));
    rill__ibl_bindings(r, ibl);
    b[4] = ibl[0]; /* the prefiltered sky cube */
    bind_img(&b[5], rill__ctx_img(ctx, o->r_disp), RILL__SAMPLER_LINEAR_REPEAT);
    bind_img(&b[6], rill__ctx_img(ctx, o->r_slope), RILL__SAMPLER_LINEAR_REPEAT);
    bind_img(&b[7], rill__ctx_img(ctx, vs->res.water_scene), RILL__SAMPLER_LINEAR_CLAMP);
    struct {
        float inv_vp[16];
        float params[4];
        float ssr[4];
    } push;
    mat4 vp, inv;
    memcpy(vp, vs->view_proj, sizeof(vp));
    glm_mat4_inv(vp, inv);
    memcpy(push.inv_vp, inv, sizeof(inv));
    /* The angle one pixel spans (radians), for fading cascades finer than a pixel. */
    float fov = RILL_CLAMP(vs->set.fov_y, 1e-4f, 3.1f);
    push.params[0] = 2.0f * tanf(0.5f * fov) / (float)RILL_MAX(dd->height, 1u);
    /* Wireframe mode: the lines take the view's wireframe colour. */
    memcpy(&push.params[1], vs->wire_color, sizeof(float) * 3);
    rill__water_ssr_settings(r, vs, push.ssr);
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_OCEAN_DRAW]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 8);
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (dd->width + 7) / 8, (dd->height + 7) / 8, 1);
}
