/* skybox.c: sky mode Skybox: the routed Skybox component's equirectangular image drawn as the sky
 * (pass "skybox" per view after the opaque pass, where depth is at the far plane) and handed to
 * the image-based light as its source (ibl.c bakes it turned and scaled the same way).
 *
 * The image is read the first time a frame names it, through the renderer's file system
 * (rill_renderer_set_vfs), decoded (rill_env_image_decode: a Radiance .hdr is linear, 8-bit images
 * are sRGB and made linear, a .rmip cube is resampled to an equirectangular image), and uploaded
 * as one RGBA16F level (envmap.c's rill__env_texture_load); NaN becomes 0 and values clamp below
 * half-float infinity. A missing, unreadable or too large (or small) image is one warning naming
 * the entity and the file, and that path is not tried again until another is named: the sky is
 * then the camera's clear colour. The upload lands at the start of the next frame, so the first
 * frame that names an image shows the clear colour. */
#include "frame.h"
#include "post_internal.h"

#include <math.h>
#include <string.h>

struct rill__skybox {
    const char *path; /* interned: the image last named */
    rill_texture tex; /* its texture, {0} when it failed */
    bool on;          /* this frame draws it (its texture is uploaded) */
    float rot[4];     /* cos, sin of the turn about +Y, brightness, 0 */
    rill__img *img;
};

/* The push constants of skybox.comp. */
typedef struct skybox_push {
    float inv_vp[16];
    float rot[4];
    uint32_t rect[4];
} skybox_push;

rill_result rill__skybox_create(rill_renderer *r, rill_error *err) {
    r->skybox = rill_calloc_tagged(1, sizeof(*r->skybox), RILL_MEM_RENDER);
    if (!r->skybox) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    return RILL_OK;
}

void rill__skybox_destroy(rill_renderer *r) {
    rill_free(r->skybox); /* the texture goes with the renderer's pool */
    r->skybox = NULL;
}

/* Reads, decodes and uploads path (src: the entity whose Skybox names it, for the warning). */
static rill_texture load(rill_renderer *r, const char *path, rill_entity src) {
    rill_error err = {0};
    rill_texture tex = rill__env_texture_load(r, path, "skybox", &err);
    if (!tex.id) {
        RILL_LOG_WARN("render",
                      "Skybox of entity %u:%u: image '%s': %s; the sky is the clear colour",
                      RILL_ENTITY_INDEX(src), RILL_ENTITY_GENERATION(src), path, err.msg);
    }
    return tex;
}

void rill__skybox_plan(rill_renderer *r, const rill_render_snapshot *snap) {
    rill__skybox *k = r->skybox;
    k->on = false;
    const rill_render_view *list = snap->view_count ? snap->views : &snap->view;
    uint32_t n = snap->view_count ? RILL_MIN(snap->view_count, RILL_RENDER_MAX_VIEWS) : 1;
    rill__view_settings set;
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++) {
        rill__view_defaults(&list[i], &set);
        rill__view_environment(r, snap, &list[i], &set);
        found = set.sky_mode == RILL_SKY_SKYBOX;
    }
    if (!found) {
        return;
    }
    const char *path = rill_intern(set.skybox.image);
    if (path != k->path) {
        if (k->tex.id) {
            rill_render_texture_destroy(r, k->tex);
        }
        k->path = path;
        k->tex = load(r, path, set.skybox_source);
    }
    int32_t ti = k->tex.id ? rill_pool_index(&r->tex_pool, k->tex.id) : -1;
    k->img = ti >= 0 ? r->textures[ti].img : NULL;
    k->on = k->img && rill__img_ready(k->img);
    float turn = set.skybox.rotation * 3.14159265f / 180.0f;
    k->rot[0] = cosf(turn);
    k->rot[1] = sinf(turn);
    k->rot[2] = set.skybox.brightness;
    k->rot[3] = turn;
}

bool rill__skybox_get(const rill_renderer *r, rill_texture *out_tex, float *out_rotation,
                      float *out_brightness) {
    const rill__skybox *k = r->skybox;
    if (!k || !k->on) {
        return false;
    }
    *out_tex = k->tex;
    *out_rotation = k->rot[3];
    *out_brightness = k->rot[2];
    return true;
}

static void pass_skybox(rill_rg_ctx *ctx, void *user);

rill_result rill__skybox_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                                  rill_rg_pass *out_last, rill_error *err) {
    *out_last = after;
    if (!r->skybox->on || vs->set.sky_mode != RILL_SKY_SKYBOX) {
        return RILL_OK;
    }
    rill_rg_pass_desc pd = {.label = "skybox", .exec = pass_skybox, .user = vs, .view = vs->index};
    rill_rg_pass p = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill_rg_use_image(g, p, vs->res.depth, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, p, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, after, p, err));
    *out_last = p;
    return RILL_OK;
}

static void pass_skybox(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill_renderer *r = ctx->r;
    rill__img *depth = rill__ctx_img(ctx, vs->res.depth);
    rill__binding b[3];
    memset(b, 0, sizeof(b));
    b[0].img = depth;
    b[0].layer = -1;
    b[0].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    b[1].img = r->skybox->img;
    b[1].layer = -1;
    /* Around (u) the image repeats; at the poles (v) it stops at its first and last rows. */
    rill__sampler_desc sd = {.wrap_u = 0, .wrap_v = 1};
    b[1].sampler = rill__sampler_material(r->gpu, &sd, NULL);
    b[2].img = rill__ctx_img(ctx, vs->res.hdr);
    b[2].layer = -1;
    skybox_push p;
    memset(&p, 0, sizeof(p));
    mat4 vp, inv; /* aligned copies: cglm's SSE paths need 16-byte alignment */
    memcpy(vp, vs->view_proj, sizeof(vp));
    glm_mat4_inv(vp, inv);
    memcpy(p.inv_vp, inv, sizeof(inv));
    memcpy(p.rot, r->skybox->rot, sizeof(p.rot));
    /* Every view has its own images: the rectangle is the whole of them. */
    p.rect[2] = rill__img_get_desc(depth)->width;
    p.rect[3] = rill__img_get_desc(depth)->height;
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SKYBOX]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
    rill__cmd_push(ctx->cmd, &p, sizeof(p));
    rill__cmd_dispatch(ctx->cmd, (p.rect[2] + 7u) / 8u, (p.rect[3] + 7u) / 8u, 1);
}
