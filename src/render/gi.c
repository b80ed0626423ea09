/* gi.c: screen-space global illumination as a registry effect ("gi": GI phase, on the lit HDR
 * image after end_main_pass, before TAA). Three compute passes per frame:
 *   ssgi           half resolution: for each pixel, short screen-space rays in `directions`
 *                  directions gather the lit colour of the surfaces they find above the pixel's
 *                  horizon (depth + normal aware; a sample must face the pixel), cosine-weighted
 *                  by how much each raises the horizon; rays that find nothing add nothing, the
 *                  lit pass's image-based light (the sky) already lights those directions.
 *   ssgi_temporal  half resolution: a depth-aware 5x5 filter of that, blended with last frame's
 *                  result reprojected through the motion vectors; history whose distance from
 *                  the camera does not match (a disocclusion) is rejected.
 *   ssgi_apply     full resolution: a depth-aware upsample, times an albedo estimate (the lit
 *                  colour's chromaticity: the prepass holds no albedo), times 1 - metalness (the
 *                  prepass packs it in the normal's alpha), times intensity, added to the lit
 *                  image (or alone: debug IndirectOnly); on the voxel tiers, plus the specular
 *                  cone's light (gi_voxel_trace.comp) times the surface's Fresnel reflectance
 *                  (F0 from the albedo estimate and metalness), intensity and
 *                  specular_intensity.
 * The history is two half-resolution images written in turn and imported into the graph each
 * frame, like TAA's; it restarts on a camera cut (projection change, a turn over 45 degrees in a
 * frame) and after a frame without GI, and is freed once GI has been off for 60 frames. */
#include "frame.h"
#include "gi_hwrt.h"
#include "gi_internal.h"
#include "gi_voxel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GI_CURRENT_WEIGHT 0.1f /* share of the current frame in each new history */
#define GI_IDLE_FRAMES 60u     /* frames without GI after which its history is freed */

static void bind_img(rill__binding *b, rill__img *img, rill__sampler_kind sampler) {
    b->img = img;
    b->layer = -1;
    b->sampler = sampler;
}

static void bind_frame(rill__binding *b, const rill__view *vs) {
    b->buf = vs->frame_buf;
    b->offset = vs->frame_off;
    b->range = sizeof(rill__gpu_frame);
}

static void dispatch_8x8(rill__cmd *cmd, uint32_t w, uint32_t h) {
    rill__cmd_dispatch(cmd, (w + 7) / 8, (h + 7) / 8, 1);
}

/* >>history ---------------------------------------------------------------------------------- */

static void history_free(rill_renderer *r, rill__gi *gi) {
    for (int i = 0; i < 2; i++) {
        rill__img_destroy(r->gpu, gi->history[i]);
        gi->history[i] = NULL;
    }
    gi->valid = false;
    gi->hw = gi->hh = 0;
}

/* (Re)creates the two history images at w x h; false (no accumulation this frame) on failure. */
static bool history_ready(rill_renderer *r, rill__gi *gi, uint32_t w, uint32_t h) {
    if (gi->history[0] && gi->hw == w && gi->hh == h) {
        return true;
    }
    history_free(r, gi);
    rill_error err = {0};
    if (!rill__history_images_create(r->gpu, gi->history, w, h, "ssgi", &err)) {
        RILL_LOG_WARN("render", "SSGI without accumulation: no history image (%s)", err.msg);
        history_free(r, gi);
        return false;
    }
    gi->hw = w;
    gi->hh = h;
    return true;
}

static rill_rg_image import_history(rill_rg *g, rill__gi *gi, const char *name, uint32_t i,
                                    rill_rg_usage initial, rill_error *err) {
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = gi->hw,
                            .height = gi->hh};
    return rill_rg_import_image(g, name, &d, gi->history[i], initial, RILL_RG_USAGE_SAMPLED_COMPUTE,
                                err);
}

/* Last frame's camera position in this frame's view space (w = 1 when usable), and this frame's
 * position kept for the next. */
static void track_camera(rill__gi *gi, const rill__view *vs, bool usable) {
    mat4 wfv, view;
    memcpy(wfv, vs->set.world_from_view, sizeof(wfv));
    glm_mat4_inv(wfv, view);
    vec4 prev = {gi->prev_cam[0], gi->prev_cam[1], gi->prev_cam[2], 1.0f}, out;
    glm_mat4_mulv(view, prev, out);
    memcpy(gi->prev_cam_view, out, sizeof(float) * 3);
    gi->prev_cam_view[3] = usable ? 1.0f : 0.0f;
    memcpy(gi->prev_cam, &vs->set.world_from_view[12], sizeof(gi->prev_cam));
}

/* Whether the camera cut since the history was written: another projection (fov, near, far,
 * orthographic height or mode) or a turn of more than 45 degrees; remembers this frame's. */
static bool camera_cut(rill__gi *gi, const rill__view *vs) {
    const float *m = vs->set.world_from_view;
    float len = sqrtf(m[8] * m[8] + m[9] * m[9] + m[10] * m[10]);
    float fwd[3] = {0.0f, 0.0f, -1.0f};
    if (len > 1e-6f) {
        fwd[0] = -m[8] / len, fwd[1] = -m[9] / len, fwd[2] = -m[10] / len;
    }
    float proj[5] = {vs->set.fov_y, vs->set.znear, vs->set.zfar, vs->set.half_h,
                     vs->set.orthographic ? 1.0f : 0.0f};
    float c = fwd[0] * gi->prev_fwd[0] + fwd[1] * gi->prev_fwd[1] + fwd[2] * gi->prev_fwd[2];
    bool cut = memcmp(proj, gi->prev_proj, sizeof(proj)) != 0 || !(c >= 0.70710678f);
    memcpy(gi->prev_fwd, fwd, sizeof(fwd));
    memcpy(gi->prev_proj, proj, sizeof(proj));
    return cut;
}

/* >>graph ------------------------------------------------------------------------------------ */

/* The camera's GI state (one per view index: its own history). */
static rill__gi *gi_of(const rill_render_effect_ctx *ctx) {
    return (rill__gi *)ctx->user + ctx->view_index;
}

static bool gi_active(const rill_render_effect_ctx *ctx) {
    rill__gi *gi = gi_of(ctx);
    rill_renderer *r = ctx->renderer;
    gi->device_name = rill__gpu_get_caps(r->gpu)->device_name;
    gi->hwrt_why = rill__hwrt_unavailable(r);
    rill__gi_resolve(gi, ctx->view, &gi->cur);
    bool on = gi->cur.on && r->desc.quality == RILL_RENDER_QUALITY_HIGH;
    if (!on && gi->history[0] && r->frame_counter - gi->last_frame > GI_IDLE_FRAMES) {
        history_free(r, gi); /* GI is off for this camera: give the history's memory back */
    }
    return on;
}

static rill_rg_pass add_pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, rill__gi *gi,
                             rill_error *err) {
    return rill_rg_add_pass(g, &(rill_rg_pass_desc){.label = label, .exec = fn, .user = gi}, err);
}

/* Whether the apply pass adds the voxel tiers' specular cone. */
static bool spec_on(const rill__gi *gi) {
    return gi->spec.id != 0 && gi->cur.specular_intensity > 0.0f;
}

static void pass_trace(rill_rg_ctx *ctx, void *user);
static void pass_temporal(rill_rg_ctx *ctx, void *user);
static void pass_apply(rill_rg_ctx *ctx, void *user);

/* Where this frame's accumulated result goes: the next history image (temporal), else a
 * transient; hist_in is last frame's, or the raw trace on a reset (then unread). */
static void plan_history(rill_renderer *r, rill__gi *gi, rill_rg *g, uint32_t hw, uint32_t hh,
                         rill_error *err) {
    bool temporal = gi->cur.temporal && history_ready(r, gi, hw, hh);
    bool cut = camera_cut(gi, gi->view); /* the camera this GI state belongs to */
    /* A fresh start: the first GI frame, after a frame without GI, a camera cut or another
     * tier. */
    bool fresh = cut || gi->last_frame + 1 != r->frame_counter || gi->prev_tier != gi->cur.tier;
    gi->prev_tier = gi->cur.tier;
    /* The directions' rotation restarts with it, so a fresh frame is the first frame of a new
     * renderer; without accumulation they keep rotating (TAA, when on, averages them). */
    gi->frame_index = fresh ? 0 : gi->frame_index + 1;
    gi->reset = !temporal || !gi->valid || fresh;
    if (!temporal) {
        rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                                .size_mode = RILL_RG_SIZE_ABSOLUTE,
                                .width = hw,
                                .height = hh};
        gi->hist_out = rill_rg_create_image(g, "ssgi.filtered", &d, err);
        gi->hist_in = gi->raw;
        gi->valid = false;
        return;
    }
    uint32_t next = gi->cur_hist ^ 1u;
    gi->hist_out = import_history(g, gi, "ssgi.history_out", next, RILL_RG_USAGE_NONE, err);
    gi->hist_in = gi->reset ? gi->raw
                            : import_history(g, gi, "ssgi.history_in", gi->cur_hist,
                                             RILL_RG_USAGE_SAMPLED_COMPUTE, err);
    gi->cur_hist = next;
    gi->valid = true;
}

static rill_result add_gi(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill__gi *gi = gi_of(ctx);
    rill_rg *g = ctx->graph;
    rill__view *vs = &r->frame.views[ctx->view_index];
    uint32_t w3 = vs->size3[0], h3 = vs->size3[1]; /* the camera's 3D images */
    uint32_t hw = (RILL_MAX(w3, 1u) + 1) / 2, hh = (RILL_MAX(h3, 1u) + 1) / 2;
    gi->view = vs;
    rill__vox *vx = NULL;
    rill__hwrt *rt = NULL;
    if (gi->cur.tier == RILL_GI_HWRT) {
        rt = rill__gi_hwrt_prepare(r, vs, g, err);
        if (!rt) { /* its structures could not be made (logged): the tier below it */
            gi->cur.tier = RILL_GI_SDF_HIGH;
            gi->cur.cones = 4;
            gi->cur.cone_steps = 20;
        }
    }
    if (gi->cur.tier == RILL_GI_SDF_LOW || gi->cur.tier == RILL_GI_SDF_HIGH) {
        vx = rill__gi_voxel_prepare(r, vs, g, err);
        if (!vx) {
            gi->cur.tier = RILL_GI_SCREEN_SPACE; /* logged by the clipmap */
        }
    }
    gi->src = ctx->color;
    gi->depth = ctx->frame->depth;
    gi->normal = ctx->frame->normal;
    gi->motion = ctx->frame->motion;
    rill_rg_image_desc rd = {.format = RILL_RG_FORMAT_RGBA16F,
                             .size_mode = RILL_RG_SIZE_ABSOLUTE,
                             .width = hw,
                             .height = hh};
    gi->raw = rill_rg_create_image(g, "ssgi.raw", &rd, err);
    /* the specular cone's light (voxel tiers; at specular_intensity 0 the trace leaves it
     * unwritten and the apply pass does not read it) */
    gi->spec = vx || rt ? rill_rg_create_image(g, "vxgi.spec", &rd, err) : (rill_rg_image){0};
    plan_history(r, gi, g, hw, hh, err);
    track_camera(gi, vs, !gi->reset);
    gi->last_frame = r->frame_counter;
    gi->dst = rill_render_effect_next_color(ctx, err);
    rill_rg_usage s = RILL_RG_USAGE_SAMPLED_COMPUTE, w = RILL_RG_USAGE_STORAGE_WRITE;

    rill_rg_pass p;
    if (vx) { /* SdfLow / SdfHigh: the cone trace fills raw */
        RILL_TRY(rill__gi_add_voxel_trace(ctx, gi, vx, err));
    } else if (rt) { /* Hwrt: the ray-traced bounce fills raw */
        RILL_TRY(rill__gi_add_hwrt_trace(ctx, gi, rt, err));
    } else {
        p = add_pass(g, "ssgi", pass_trace, gi, err);
        RILL_TRY(rill_rg_use_image(g, p, gi->depth, s, err));
        RILL_TRY(rill_rg_use_image(g, p, gi->normal, s, err));
        RILL_TRY(rill_rg_use_image(g, p, gi->src, s, err));
        RILL_TRY(rill_rg_use_image(g, p, gi->raw, w, err));
        RILL_TRY(rill_rg_add_edge(g, ctx->frame->end_main_pass, p, err));
    }

    p = add_pass(g, "ssgi_temporal", pass_temporal, gi, err);
    RILL_TRY(rill_rg_use_image(g, p, gi->raw, s, err));
    if (!gi->reset) {
        RILL_TRY(rill_rg_use_image(g, p, gi->hist_in, s, err));
    }
    RILL_TRY(rill_rg_use_image(g, p, gi->motion, s, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->depth, s, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->hist_out, w, err));

    if (vx && gi->cur.voxel_cache) {
        return rill__gi_add_voxel_debug(ctx, gi, vx, err);
    }
    p = add_pass(g, "ssgi_apply", pass_apply, gi, err);
    RILL_TRY(rill_rg_use_image(g, p, gi->src, s, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->hist_out, s, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->depth, s, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->normal, s, err));
    if (spec_on(gi)) {
        RILL_TRY(rill_rg_use_image(g, p, gi->spec, s, err));
    }
    return rill_rg_use_image(g, p, gi->dst, w, err);
}

/* >>passes ----------------------------------------------------------------------------------- */

static void pass_trace(rill_rg_ctx *ctx, void *user) {
    const rill__gi *gi = user;
    rill__img *raw = rill__ctx_img(ctx, gi->raw);
    const rill__img_desc *hd = rill__img_get_desc(raw);
    const rill__img_desc *fd = rill__img_get_desc(rill__ctx_img(ctx, gi->src));
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSGI]);
    rill__binding b[5];
    memset(b, 0, sizeof(b));
    bind_frame(&b[0], gi->view);
    bind_img(&b[1], rill__ctx_img(ctx, gi->depth), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[2], rill__ctx_img(ctx, gi->normal), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[3], rill__ctx_img(ctx, gi->src), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[4], raw, RILL__SAMPLER_NUM);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 5);
    struct {
        uint32_t fw, fh, hw, hh, directions, steps;
        float radius;
        uint32_t frame_index;
    } push = {fd->width,          fd->height,    hd->width,      hd->height,
              gi->cur.directions, gi->cur.steps, gi->cur.radius, gi->frame_index};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    dispatch_8x8(ctx->cmd, hd->width, hd->height);
}

/* >>world-space traces (gi_voxel_trace.c, gi_hwrt.c) ----------------------------------------- */

rill_result rill__gi_add_trace_pass(rill_render_effect_ctx *ctx, rill__gi *gi, const char *label,
                                    rill_rg_exec_fn exec, rill_rg_pass *out, rill_error *err) {
    rill_rg *g = ctx->graph;
    rill_rg_pass p = add_pass(g, label, exec, gi, err);
    *out = p;
    rill_rg_usage s = RILL_RG_USAGE_SAMPLED_COMPUTE;
    RILL_TRY(rill_rg_use_image(g, p, gi->depth, s, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->normal, s, err));
    RILL_TRY(rill__ibl_access_sh_compute(ctx->renderer, g, p, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->raw, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->spec, RILL_RG_USAGE_STORAGE_WRITE, err));
    return rill_rg_add_edge(g, ctx->frame->end_main_pass, p, err);
}

void rill__gi_trace_io_get(rill_rg_ctx *ctx, const rill__gi *gi, rill__gi_trace_io *io) {
    memset(io, 0, sizeof(*io));
    rill__img *raw = rill__ctx_img(ctx, gi->raw), *depth = rill__ctx_img(ctx, gi->depth);
    bind_frame(&io->frame, gi->view);
    bind_img(&io->depth, depth, RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&io->normal, rill__ctx_img(ctx, gi->normal), RILL__SAMPLER_NEAREST_CLAMP);
    rill__binding ibl[3];
    rill__ibl_bindings(ctx->r, ibl);
    io->sky = ibl[2];
    io->raw = (rill__binding){.img = raw, .layer = -1};
    io->spec = (rill__binding){.img = rill__ctx_img(ctx, gi->spec), .layer = -1};
    const rill__img_desc *fd = rill__img_get_desc(depth), *hd = rill__img_get_desc(raw);
    io->full[0] = fd->width, io->full[1] = fd->height;
    io->half[0] = hd->width, io->half[1] = hd->height;
}

void rill__gi_trace_dispatch(rill_rg_ctx *ctx, const rill__gi_trace_io *io) {
    dispatch_8x8(ctx->cmd, io->half[0], io->half[1]);
}

static void pass_temporal(rill_rg_ctx *ctx, void *user) {
    const rill__gi *gi = user;
    rill__img *out = rill__ctx_img(ctx, gi->hist_out);
    const rill__img_desc *hd = rill__img_get_desc(out);
    const rill__img_desc *fd = rill__img_get_desc(rill__ctx_img(ctx, gi->depth));
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSGI_TEMPORAL]);
    rill__binding b[6];
    memset(b, 0, sizeof(b));
    bind_frame(&b[0], gi->view);
    bind_img(&b[1], rill__ctx_img(ctx, gi->raw), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[2], rill__ctx_img(ctx, gi->hist_in), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[3], rill__ctx_img(ctx, gi->motion), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[4], rill__ctx_img(ctx, gi->depth), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[5], out, RILL__SAMPLER_NUM);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 6);
    struct {
        uint32_t hw, hh, fw, fh, reset;
        float current_weight, pad[2];
        float prev_cam[4];
    } push = {hd->width,           hd->height,        fd->width, fd->height,
              gi->reset ? 1u : 0u, GI_CURRENT_WEIGHT, {0, 0},    {0, 0, 0, 0}};
    memcpy(push.prev_cam, gi->prev_cam_view, sizeof(push.prev_cam));
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    dispatch_8x8(ctx->cmd, hd->width, hd->height);
}

static void pass_apply(rill_rg_ctx *ctx, void *user) {
    const rill__gi *gi = user;
    rill__img *dst = rill__ctx_img(ctx, gi->dst);
    rill__img *acc = rill__ctx_img(ctx, gi->hist_out);
    const rill__img_desc *fd = rill__img_get_desc(dst);
    const rill__img_desc *hd = rill__img_get_desc(acc);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSGI_APPLY]);
    rill__binding b[7];
    memset(b, 0, sizeof(b));
    bind_frame(&b[0], gi->view);
    bind_img(&b[1], rill__ctx_img(ctx, gi->src), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[2], acc, RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[3], rill__ctx_img(ctx, gi->depth), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[4], rill__ctx_img(ctx, gi->normal), RILL__SAMPLER_NEAREST_CLAMP);
    bind_img(&b[5], dst, RILL__SAMPLER_NUM);
    /* without the specular cone its slot holds the accumulated light again (unread) */
    bind_img(&b[6], spec_on(gi) ? rill__ctx_img(ctx, gi->spec) : acc, RILL__SAMPLER_NEAREST_CLAMP);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 7);
    struct {
        uint32_t fw, fh, hw, hh;
        float intensity;
        uint32_t indirect_only;
        float specular, pad;
    } push = {fd->width,
              fd->height,
              hd->width,
              hd->height,
              gi->cur.intensity,
              gi->cur.indirect_only ? 1u : 0u,
              spec_on(gi) ? gi->cur.intensity * gi->cur.specular_intensity : 0.0f,
              0.0f};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    dispatch_8x8(ctx->cmd, fd->width, fd->height);
}

/* >>lifetime --------------------------------------------------------------------------------- */

rill_result rill__gi_create(rill_renderer *r, rill_error *err) {
    rill__gi *gi = rill_calloc_tagged(RILL_RENDER_MAX_VIEWS, sizeof(*gi), RILL_MEM_RENDER);
    if (!gi) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (gi)");
    }
    r->gi = gi;
    rill_render_effect_desc d = {.id = "gi",
                                 .phase = RILL_RENDER_PHASE_GI,
                                 .order = 50, /* before ssr: reflections show the bounce */
                                 /* names it for --effect gi; gi_active decides (ScreenSpaceGi) */
                                 .settings = "GlobalIllumination",
                                 .active = gi_active,
                                 .add = add_gi,
                                 .user = gi,
                                 .after_lighting = true};
    if (!rill_render_effect_register(r, &d, err)) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    return RILL_OK;
}

void rill__gi_destroy(rill_renderer *r) {
    rill__vox_destroy(r);
    rill__hwrt_destroy(r);
    if (!r->gi) {
        return;
    }
    for (uint32_t v = 0; v < RILL_RENDER_MAX_VIEWS; v++) {
        history_free(r, &r->gi[v]);
    }
    rill_free(r->gi);
    r->gi = NULL;
}

double rill__gi_gpu_ms(const rill_render_stats *st) {
    double ms = 0.0;
    for (uint32_t i = 0; i < st->pass_count; i++) {
        const char *n = st->pass_names[i];
        if (n && (strncmp(n, "ssgi", 4) == 0 || strncmp(n, "vxgi", 4) == 0 ||
                  strncmp(n, "hwrt", 4) == 0)) {
            ms += st->pass_gpu_ms[i];
        }
    }
    return ms;
}

void rill__gi_stats(const rill_renderer *r, rill_render_stats *st) {
    st->gi_ms = rill__gi_gpu_ms(st);
    st->gi_voxelize_ms = 0.0;
    st->gi_voxel_units = 0;
    st->gi_voxels_filled = 0;
    st->gi_cascades_resident = 0;
    st->gi_tier = 0;
    st->gi_hwrt_why[0] = '\0';
    const rill__gi *g0 = r->gi;
    if (g0 && g0->last_frame == r->frame_counter && g0->cur.on) {
        st->gi_tier = (uint32_t)g0->cur.tier;
        if (g0->cur.asked == RILL_GI_HWRT && g0->hwrt_why) {
            snprintf(st->gi_hwrt_why, sizeof(st->gi_hwrt_why), "%s", g0->hwrt_why);
        }
    }
    const rill__vox *vx = r->vox;
    if (vx && vx->frame == r->frame_counter) { /* a voxel tier ran in the last frame */
        st->gi_voxelize_ms = vx->ms;
        st->gi_voxel_units = vx->units;
        st->gi_cascades_resident = vx->resident;
        for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
            st->gi_voxels_filled += vx->cascades[c].filled;
        }
    }
}
