/* transmission.c: the opaque image that transmissive materials (glTF KHR_materials_transmission)
 * see through their surface. A view whose transparent list holds one gets, after its opaque
 * surfaces, sky, water and fog are drawn, a copy of its HDR colour with a mip chain (each level
 * the 2 x 2 mean of the one above, the SSR blur's shader): the transparent pass samples it at the
 * refracted position, at a level that grows with the surface's roughness (pbr_transmission.glsl).
 * Views without a transmissive surface pay nothing. */
#include "frame.h"

/* Whether any of the view's transparent draws has a transmissive material. */
static bool view_transmits(const rill_renderer *r, const rill__view *vs) {
    const rill_render_instance *inst = vs->snap->instances;
    for (uint32_t i = 0; i < vs->transparent.len; i++) {
        const mat_slot *mt = rill__material_get(r, inst[vs->transparent.data[i].inst].material);
        if (mt && mt->transmissive) {
            return true;
        }
    }
    return false;
}

static uint32_t levels_for(uint32_t w, uint32_t h) {
    uint32_t n = 1;
    while (n < 16 && ((w >> n) >= 1 || (h >> n) >= 1)) {
        n++;
    }
    return n;
}

static uint32_t level_size(uint32_t size, uint32_t level) {
    uint32_t s = size >> level;
    return s ? s : 1;
}

/* The view's lit HDR image into level 0, then the mip chain level by level (storage images). */
static void pass_copy(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill__img *img = rill__ctx_img(ctx, vs->res.scene);
    rill__cmd_copy_image_general(ctx->cmd, rill__ctx_img(ctx, vs->res.hdr), img);
    const rill__img_desc *d = rill__img_get_desc(img);
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->pipes[RILL__PIPE_SSR_BLUR]);
    uint32_t levels = RILL_MIN(d->mips, vs->scene_levels);
    for (uint32_t l = 1; l < levels; l++) {
        rill__binding b[2] = {{.img = img, .layer = -1, .one_level = true, .level = l - 1},
                              {.img = img, .layer = -1, .one_level = true, .level = l}};
        rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
        uint32_t push[4] = {level_size(d->width, l - 1), level_size(d->height, l - 1),
                            level_size(d->width, l), level_size(d->height, l)};
        rill__cmd_push(ctx->cmd, push, sizeof(push));
        rill__cmd_dispatch(ctx->cmd, (push[2] + 7) / 8, (push[3] + 7) / 8, 1);
        if (l + 1 < levels) {
            rill__cmd_compute_barrier(ctx->cmd);
        }
    }
}

rill_result rill__transmission_add_view(rill_renderer *r, rill_rg *g, rill__view *vs,
                                        rill_rg_pass after, rill_rg_pass *out_last,
                                        rill_error *err) {
    *out_last = after;
    vs->res.scene = (rill_rg_image){0};
    vs->scene_levels = 0;
    if (!view_transmits(r, vs)) {
        return RILL_OK;
    }
    uint32_t w = vs->size3[0] ? vs->size3[0] : 1, h = vs->size3[1] ? vs->size3[1] : 1;
    vs->scene_levels = levels_for(w, h);
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = w,
                            .height = h,
                            .mips = vs->scene_levels};
    vs->res.scene = rill_rg_create_image(g, "transmission_scene", &d, err);
    /* The graph orders every reader of an image after all its writers, so the pass holds the
     * hdr image as written (it only reads it), as water and fog do, to sit between the opaque
     * and the transparent passes. */
    rill_rg_pass_desc pd = {.label = "transmission_copy", .exec = pass_copy, .user = vs};
    rill_rg_pass copy = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill_rg_use_image(g, copy, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_use_image(g, copy, vs->res.scene, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, after, copy, err));
    *out_last = copy;
    return RILL_OK;
}

rill__img *rill__transmission_img(rill_rg_ctx *ctx, const rill__view *vs) {
    return vs->res.scene.id ? rill__ctx_img(ctx, vs->res.scene) : ctx->r->white;
}
