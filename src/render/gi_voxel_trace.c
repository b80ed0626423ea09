/* gi_voxel_trace.c: the voxel-cone GI tiers' passes in the "gi" effect (gi.c): once a frame the
 * clipmap's CPU update (gi_voxel.c), uploads and injection (gi_voxel_gpu.c); per camera the cone
 * trace ("vxgi_trace", half resolution, gi_voxel_trace.comp: SdfLow 2 cones x 12 steps, SdfHigh
 * 4 x 20, plus one specular cone along the reflection when specular_intensity > 0) whose
 * output the screen-space tier's temporal and apply passes accumulate and composite, and the
 * VoxelCache debug view ("vxgi_debug", gi_voxel_debug.comp) in place of the composite. */
#include "frame.h"
#include "gi_internal.h"
#include "gi_voxel.h"

#include <string.h>

rill__vox *rill__gi_voxel_prepare(rill_renderer *r, const rill__view *vs, rill_rg *g,
                                  rill_error *err) {
    rill__vox *vx = rill__vox_get(r);
    if (!vx) {
        return NULL;
    }
    /* The clipmap follows the cameras that draw the picture: a view into a render texture (a
     * probe capture's faces, a mirror camera) uses it where it is, or every capture would scroll
     * it away and back, re-voxelizing the bricks that enter both times. */
    if (!vs->target_tex.id) {
        const float *cam = &vs->set.world_from_view[12];
        rill__vox_update(r, vx, vs->snap, cam);
    }
    if (!rill__vox_gpu_prepare(r, vx)) {
        return NULL;
    }
    if (rill__vox_add_inject(r, vx, g, vs, err) != RILL_OK) {
        return NULL;
    }
    return vx;
}

static void pass_trace(rill_rg_ctx *ctx, void *user) {
    const rill__gi *gi = user;
    rill__vox *vx = ctx->r->vox;
    rill__gi_trace_io io;
    rill__gi_trace_io_get(ctx, gi, &io);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_VXGI_TRACE]);
    rill__binding b[10];
    memset(b, 0, sizeof(b));
    b[0] = io.frame;
    b[1] = io.depth;
    b[2] = io.normal;
    b[3] = io.sky;
    rill__vox_bind(vx, ctx, false, &b[4]);
    b[8] = io.raw;
    b[9] = io.spec;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 10);
    struct {
        float origins[RILL__VOX_CASCADES][4];
        uint32_t fw, fh, hw, hh, cones, steps, frame_index;
        float tan_half;
        uint32_t spec, pad[3];
    } push;
    memset(&push, 0, sizeof(push));
    rill__vox_origins(vx, push.origins);
    push.fw = io.full[0];
    push.fh = io.full[1];
    push.hw = io.half[0];
    push.hh = io.half[1];
    push.cones = gi->cur.cones;
    push.steps = gi->cur.cone_steps;
    push.frame_index = gi->frame_index;
    push.tan_half = gi->cur.cones <= 2 ? 1.0f : 0.8f; /* 45 / 39 degrees: the hemisphere covered */
    push.spec = gi->cur.specular_intensity > 0.0f ? 1u : 0u;
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__gi_trace_dispatch(ctx, &io);
}

rill_result rill__gi_add_voxel_trace(rill_render_effect_ctx *ctx, rill__gi *gi, rill__vox *vx,
                                     rill_error *err) {
    rill_rg_pass p;
    RILL_TRY(rill__gi_add_trace_pass(ctx, gi, "vxgi_trace", pass_trace, &p, err));
    return rill__vox_use(vx, ctx->graph, p, err);
}

static void pass_debug(rill_rg_ctx *ctx, void *user) {
    const rill__gi *gi = user;
    rill__vox *vx = ctx->r->vox;
    rill__img *dst = rill__ctx_img(ctx, gi->dst);
    const rill__img_desc *fd = rill__img_get_desc(dst);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_VXGI_DEBUG]);
    rill__binding b[9];
    memset(b, 0, sizeof(b));
    b[0].buf = gi->view->frame_buf;
    b[0].offset = gi->view->frame_off;
    b[0].range = sizeof(rill__gpu_frame);
    b[1] = (rill__binding){
        .img = rill__ctx_img(ctx, gi->src), .layer = -1, .sampler = RILL__SAMPLER_NEAREST_CLAMP};
    /* 2, 3: the trace's layout (depth, sky), unread here */
    b[2] = (rill__binding){
        .img = rill__ctx_img(ctx, gi->depth), .layer = -1, .sampler = RILL__SAMPLER_NEAREST_CLAMP};
    rill__binding ibl[3];
    rill__ibl_bindings(ctx->r, ibl);
    b[3] = ibl[2];
    rill__vox_bind(vx, ctx, true, &b[4]);
    b[8] = (rill__binding){.img = dst, .layer = -1};
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 9);
    struct {
        float origins[RILL__VOX_CASCADES][4];
        uint32_t fw, fh, pad[2];
    } push;
    rill__vox_origins(vx, push.origins);
    push.fw = fd->width;
    push.fh = fd->height;
    push.pad[0] = push.pad[1] = 0;
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (fd->width + 7) / 8, (fd->height + 7) / 8, 1);
}

rill_result rill__gi_add_voxel_debug(rill_render_effect_ctx *ctx, rill__gi *gi, rill__vox *vx,
                                     rill_error *err) {
    rill_rg *g = ctx->graph;
    rill_rg_pass_desc pd = {.label = "vxgi_debug", .exec = pass_debug, .user = gi};
    rill_rg_pass p = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill_rg_use_image(g, p, gi->src, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, p, gi->depth, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill__ibl_access_sh_compute(ctx->renderer, g, p, err));
    RILL_TRY(rill__vox_use(vx, g, p, err));
    return rill_rg_use_image(g, p, gi->dst, RILL_RG_USAGE_STORAGE_WRITE, err);
}
