/* gi_voxel_gpu.c: the GPU side of the voxel radiance clipmap (gi_voxel.h). The voxels of every
 * cascade live in one device buffer laid out as on the CPU (brick after brick), so a finished
 * brick is one 32 KiB upload. Each cascade's light is a 64^3 RGBA16F 3D image with 5 mip levels,
 * imported into the graph every frame; the "vxgi_inject" pass lights the cascades that changed
 * (gi_voxel_inject.comp: sun with its cascaded shadow map, point and spot lights, emissive) and
 * rebuilds their mips (gi_voxel_mips.comp); one more cascade is lit in turn every frame so moving
 * lights and shadows reach all four within four frames. The cone trace and the debug view (gi.c)
 * read the images through rill__vox_bind. */
#include "frame.h"
#include "gi_voxel.h"

#include <string.h>

#define VOX_MAX_LIGHTS 64u /* point and spot lights lighting the voxels */
#define VOX_BRICK_BYTES ((uint64_t)RILL__VOX_BRICK_VOXELS * 8u)
#define VOX_CASCADE_BYTES (VOX_BRICK_BYTES * RILL__VOX_BRICKS)

static const char *const vol_names[RILL__VOX_CASCADES] = {"vxgi.cascade0", "vxgi.cascade1",
                                                          "vxgi.cascade2", "vxgi.cascade3"};

void rill__vox_gpu_destroy(rill_renderer *r, rill__vox *vx) {
    rill__buf_destroy(r->gpu, vx->buf);
    vx->buf = NULL;
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        rill__img_destroy(r->gpu, vx->cascades[c].img);
        vx->cascades[c].img = NULL;
        vx->cascades[c].img_written = false;
    }
}

static bool make_resources(rill_renderer *r, rill__vox *vx) {
    rill_error err = {0};
    if (!vx->buf) {
        vx->buf = rill__buf_create(r->gpu, VOX_CASCADE_BYTES * RILL__VOX_CASCADES,
                                   RILL__BUF_STORAGE | RILL__BUF_TRANSFER_DST, false, "vxgi voxels",
                                   &err);
    }
    for (uint32_t c = 0; c < RILL__VOX_CASCADES && vx->buf; c++) {
        if (vx->cascades[c].img) {
            continue;
        }
        rill__img_desc d = {.width = RILL__VOX_RES,
                            .height = RILL__VOX_RES,
                            .depth = RILL__VOX_RES,
                            .layers = 1,
                            .mips = RILL__VOX_MIPS,
                            .format = RILL_RG_FORMAT_RGBA16F,
                            .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE,
                            .label = vol_names[c]};
        vx->cascades[c].img = rill__img_create(r->gpu, &d, &err);
        if (!vx->cascades[c].img) {
            break;
        }
    }
    bool ok = vx->buf && vx->cascades[RILL__VOX_CASCADES - 1].img;
    if (!ok) {
        RILL_LOG_WARN("render", "voxel GI unavailable: %s", err.msg);
        rill__vox_gpu_destroy(r, vx);
    }
    return ok;
}

bool rill__vox_gpu_prepare(rill_renderer *r, rill__vox *vx) {
    if (!make_resources(r, vx)) {
        return false;
    }
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        rill__vox_cascade *cc = &vx->cascades[c];
        bool sent = false;
        for (uint32_t i = 0; i < RILL__VOX_BRICKS; i++) {
            rill__vox_brick *b = &cc->bricks[i];
            if (!b->upload || b->dirty) {
                continue; /* unchanged, or not finished */
            }
            uint64_t off = VOX_CASCADE_BYTES * c + VOX_BRICK_BYTES * i;
            rill_error err = {0};
            if (rill__buf_upload(r->gpu, vx->buf, off,
                                 &cc->voxels[(size_t)i * RILL__VOX_BRICK_VOXELS * 2],
                                 VOX_BRICK_BYTES, &err) != RILL_OK) {
                RILL_LOG_WARN("render", "voxel GI: brick upload failed (%s)", err.msg);
                break; /* tried again next frame */
            }
            b->upload = false;
            sent = true;
        }
        if (sent) {
            cc->upload_seq = rill__buf_upload_seq(vx->buf);
            cc->inject = true;
        }
    }
    return true;
}

void rill__vox_origins(const rill__vox *vx, float out[RILL__VOX_CASCADES][4]) {
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        float s = rill__vox_size(c);
        for (int k = 0; k < 3; k++) {
            out[c][k] = (float)vx->cascades[c].origin[k] * s;
        }
        out[c][3] = s;
    }
}

/* >>inject ----------------------------------------------------------------------------------- */

static void pass_inject(rill_rg_ctx *ctx, void *user);

rill_result rill__vox_add_inject(rill_renderer *r, rill__vox *vx, rill_rg *g, const rill__view *vs,
                                 rill_error *err) {
    if (vx->graph_frame == r->frame_counter) {
        return RILL_OK; /* another view already did */
    }
    vx->graph_frame = r->frame_counter;
    vx->inject_mask = 0;
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        rill__vox_cascade *cc = &vx->cascades[c];
        /* Injected once the frame that records the brick uploads has them: until then the
         * buffer may hold the bricks' previous contents. */
        bool landed = rill__buf_seq_done(vx->buf, cc->upload_seq);
        if (!cc->img_written || (cc->inject && landed)) {
            vx->inject_mask |= 1u << c;
        }
    }
    vx->inject_mask |= 1u << (vx->round++ % RILL__VOX_CASCADES);
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = RILL__VOX_RES,
                            .height = RILL__VOX_RES};
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        rill__vox_cascade *cc = &vx->cascades[c];
        rill_rg_usage initial =
            cc->img_written ? RILL_RG_USAGE_SAMPLED_COMPUTE : RILL_RG_USAGE_NONE;
        vx->vol[c] = rill_rg_import_image(g, vol_names[c], &d, cc->img, initial,
                                          RILL_RG_USAGE_SAMPLED_COMPUTE, err);
    }
    vx->inject_view = vs;
    rill_rg_pass_desc pd = {.label = "vxgi_inject", .exec = pass_inject, .user = vx};
    rill_rg_pass p = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill_rg_use_image(g, p, vs->res.shadow_map, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        if (vx->inject_mask & (1u << c)) {
            RILL_TRY(rill_rg_use_image(g, p, vx->vol[c], RILL_RG_USAGE_STORAGE_WRITE, err));
        }
    }
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        if (vx->inject_mask & (1u << c)) {
            rill__vox_cascade *cc = &vx->cascades[c];
            cc->inject = cc->inject && !rill__buf_seq_done(vx->buf, cc->upload_seq);
            cc->img_written = true;
        }
    }
    vx->resident = 0;
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        vx->resident += vx->cascades[c].img_written ? 1u : 0u;
    }
    return RILL_OK;
}

static void record_mips(rill_rg_ctx *ctx, rill__img *img) {
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_VXGI_MIPS]);
    for (uint32_t m = 1; m < RILL__VOX_MIPS; m++) {
        rill__cmd_compute_barrier(ctx->cmd);
        rill__binding b[2];
        memset(b, 0, sizeof(b));
        b[0] = (rill__binding){.img = img, .layer = -1, .one_level = true, .level = m - 1};
        b[1] = (rill__binding){.img = img, .layer = -1, .one_level = true, .level = m};
        rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
        uint32_t size = RILL__VOX_RES >> m;
        rill__cmd_push(ctx->cmd, &size, sizeof(size));
        uint32_t groups = (size + 3) / 4;
        rill__cmd_dispatch(ctx->cmd, groups, groups, groups);
    }
}

static void pass_inject(rill_rg_ctx *ctx, void *user) {
    rill__vox *vx = user;
    const rill__view *vs = vx->inject_view;
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        if (!(vx->inject_mask & (1u << c))) {
            continue;
        }
        rill__img *img = rill__ctx_img(ctx, vx->vol[c]);
        rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_VXGI_INJECT]);
        rill__binding b[5];
        memset(b, 0, sizeof(b));
        b[0].buf = vs->frame_buf;
        b[0].offset = vs->frame_off;
        b[0].range = sizeof(rill__gpu_frame);
        b[1].img = rill__ctx_img(ctx, vs->res.shadow_map);
        b[1].layer = -1;
        b[1].sampler = RILL__SAMPLER_SHADOW;
        b[2].buf = vx->buf;
        b[2].offset = 0;
        b[2].range = 0;
        b[3].buf = vs->light_buf;
        b[3].offset = vs->light_off;
        b[3].range = vs->light_size;
        b[4] = (rill__binding){.img = img, .layer = -1, .one_level = true, .level = 0};
        rill__cmd_bind_transient_set(ctx->cmd, 0, b, 5);
        struct {
            int32_t origin[4];
            float size;
            uint32_t max_lights, pad[2];
        } push = {{vx->cascades[c].origin[0], vx->cascades[c].origin[1], vx->cascades[c].origin[2],
                   (int32_t)c},
                  rill__vox_size(c),
                  VOX_MAX_LIGHTS,
                  {0, 0}};
        rill__cmd_push(ctx->cmd, &push, sizeof(push));
        uint32_t groups = RILL__VOX_RES / 4;
        rill__cmd_dispatch(ctx->cmd, groups, groups, groups);
        record_mips(ctx, img);
    }
}

/* >>reading ---------------------------------------------------------------------------------- */

rill_result rill__vox_use(rill__vox *vx, rill_rg *g, rill_rg_pass p, rill_error *err) {
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        RILL_TRY(rill_rg_use_image(g, p, vx->vol[c], RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    }
    return RILL_OK;
}

void rill__vox_bind(rill__vox *vx, rill_rg_ctx *ctx, bool nearest,
                    rill__binding b[RILL__VOX_CASCADES]) {
    for (uint32_t c = 0; c < RILL__VOX_CASCADES; c++) {
        memset(&b[c], 0, sizeof(b[c]));
        b[c].img = rill__ctx_img(ctx, vx->vol[c]);
        b[c].layer = -1;
        b[c].sampler = nearest ? RILL__SAMPLER_NEAREST_REPEAT : RILL__SAMPLER_LINEAR_REPEAT;
    }
}
