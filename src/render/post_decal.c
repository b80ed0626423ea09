/* post_decal.c: ForwardDecal (rill/render/post.h). rill_render_extract gathers every ForwardDecal
 * with a GlobalTransform into the snapshot; the `forward_decal` effect (GI phase, order 10: after
 * the prepass, before lighting) runs one compute dispatch per decal over the 3D image, laying
 * each box's colour (premultiplied, coverage in alpha) into a `decal` image that the lit passes
 * read: opaque surfaces mix their albedo with it before lighting. Without decals there is no pass
 * and the lit passes read a 1x1 image of coverage 0. */
#include "post_internal.h"

#include <math.h>
#include <string.h>

#define DEG (3.14159265358979f / 180.0f)

/* Push constants of decal.comp. */
typedef struct decal_push {
    uint32_t size[2], first;
    float cos_end;
    float box_from_clip[16];
    float color[4];
    float up[4]; /* xyz, w: cos of the fade's start */
} decal_push;

/* This frame's decals, as the pass records them. */
typedef struct decal_frame {
    rill_rg_image depth, normal, out;
    uint32_t count;
    decal_push push[RILL_RENDER_MAX_DECALS];
} decal_frame;

static bool push_decal(void *user, const float world_from_box[16], const void *component,
                       rill_entity entity) {
    rill_render_extract_buf *buf = user;
    rill_render_decal b;
    memcpy(b.world_from_box, world_from_box, sizeof(b.world_from_box));
    const rill_render_forward_decal *fd = component;
    memcpy(b.base_color, fd->base_color, sizeof(b.base_color));
    b.angle_fade_start = fd->angle_fade_start;
    b.angle_fade_end = fd->angle_fade_end;
    b.entity = entity;
    return rill_array_push(&buf->decals, b);
}

bool rill__post_extract_decals(rill_world *w, rill_render_extract_buf *buf,
                               rill_render_snapshot *out) {
    rill_array_clear(&buf->decals);
    out->decals = NULL;
    out->decal_count = 0;
    if (!rill__extract_boxes(w, "ForwardDecal", push_decal, buf)) {
        return false;
    }
    out->decals = buf->decals.data;
    out->decal_count = (uint32_t)buf->decals.len;
    return true;
}

rill__img *rill__post_no_decal(const rill_renderer *r) {
    return r->post->no_decal;
}

static bool finite_all(const float *v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

/* The push constants of decal d for a view with this view-projection; false for a box that
 * cannot be inverted or holds non-finite values (skipped, warned once). */
static bool decal_constants(rill_renderer *r, const rill_render_decal *d, const float vp[16],
                            decal_push *out) {
    mat4 box, inv_box, inv_vp, m;
    memcpy(box, d->world_from_box, sizeof(box));
    memcpy(m, vp, sizeof(m));
    bool ok = finite_all(d->world_from_box, 16) && finite_all(d->base_color, 4) &&
              fabsf(glm_mat4_det(box)) > 1e-12f;
    if (!ok) {
        if (!r->post->warned_decals) {
            RILL_LOG_WARN("render",
                          "ForwardDecal of entity %u:%u: its box or colour is not "
                          "finite (or the box is flat); skipped",
                          RILL_ENTITY_INDEX(d->entity), RILL_ENTITY_GENERATION(d->entity));
            r->post->warned_decals = true;
        }
        return false;
    }
    glm_mat4_inv(box, inv_box);
    glm_mat4_inv(m, inv_vp);
    glm_mat4_mul(inv_box, inv_vp, m);
    memcpy(out->box_from_clip, m, sizeof(m));
    for (int k = 0; k < 4; k++) {
        out->color[k] = fminf(fmaxf(d->base_color[k], 0.0f), 1.0f);
    }
    float up[3] = {box[1][0], box[1][1], box[1][2]};
    float len = sqrtf(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    float start =
        isfinite(d->angle_fade_start) ? fminf(fmaxf(d->angle_fade_start, 0.0f), 180.0f) : 60.0f;
    float end = isfinite(d->angle_fade_end) ? fminf(fmaxf(d->angle_fade_end, 0.0f), 180.0f) : 80.0f;
    end = fmaxf(end, start + 0.01f);
    for (int k = 0; k < 3; k++) {
        out->up[k] = up[k] / len;
    }
    out->up[3] = cosf(start * DEG);
    out->cos_end = cosf(end * DEG);
    return true;
}

static void exec_decals(rill_rg_ctx *ctx, void *user) {
    const decal_frame *df = user;
    rill__img *dst = rill__ctx_img(ctx, df->out);
    const rill__img_desc *d = rill__img_get_desc(dst);
    rill__binding b[3];
    memset(b, 0, sizeof(b));
    rill_rg_image in[2] = {df->depth, df->normal};
    for (int i = 0; i < 2; i++) {
        b[i].img = rill__ctx_img(ctx, in[i]);
        b[i].layer = -1;
        b[i].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    }
    b[2].img = dst;
    b[2].layer = -1;
    b[2].sampler = RILL__SAMPLER_NUM;
    rill__cmd_bind_pipe(ctx->cmd, ctx->r->post->pipes[POST_PIPE_DECAL]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
    for (uint32_t i = 0; i < df->count; i++) {
        decal_push push = df->push[i];
        push.size[0] = d->width;
        push.size[1] = d->height;
        push.first = i == 0;
        if (i) {
            rill__cmd_compute_barrier(ctx->cmd);
        }
        rill__cmd_push(ctx->cmd, &push, sizeof(push));
        rill__cmd_dispatch(ctx->cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
    }
}

static bool decals_active(const rill_render_effect_ctx *ctx) {
    (void)ctx;
    return true; /* decided in add: the snapshot's decals */
}

static rill_result add_decals(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_renderer *r = ctx->renderer;
    rill__view *vs = &r->frame.views[ctx->view_index];
    const rill_render_snapshot *snap = vs->snap;
    if (!snap || !snap->decals || !snap->decal_count) {
        return RILL_OK;
    }
    decal_frame *df = &r->post->decals[ctx->view_index]; /* each camera's own */
    df->count = 0;
    uint32_t n = snap->decal_count;
    if (n > RILL_RENDER_MAX_DECALS) {
        n = RILL_RENDER_MAX_DECALS;
        if (!r->post->warned_many_decals) {
            RILL_LOG_WARN("render", "%u ForwardDecals; the first %u are drawn", snap->decal_count,
                          n);
            r->post->warned_many_decals = true;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        df->count += decal_constants(r, &snap->decals[i], vs->view_proj, &df->push[df->count]);
    }
    if (!df->count) {
        return RILL_OK;
    }
    rill_rg *g = ctx->graph;
    rill_rg_image_desc id = {.format = RILL_RG_FORMAT_RGBA16F, .scale = r->render_scale};
    df->out = rill_rg_create_image(g, "decal", &id, err);
    df->depth = vs->res.depth;
    df->normal = vs->res.normal;
    rill_rg_pass p = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = "forward_decal", .exec = exec_decals, .user = df}, err);
    RILL_TRY(rill_rg_use_image(g, p, df->depth, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, p, df->normal, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, p, df->out, RILL_RG_USAGE_STORAGE_WRITE, err));
    vs->res.decal = df->out;
    return RILL_OK;
}

rill_result rill__post_register_decals(rill_renderer *r, rill_error *err) {
    r->post->decals =
        rill_calloc_tagged(RILL_RENDER_MAX_VIEWS, sizeof(decal_frame), RILL_MEM_RENDER);
    if (!r->post->decals) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (decals)");
    }
    rill_render_effect_desc fx = {.id = "forward_decal",
                                  .phase = RILL_RENDER_PHASE_GI,
                                  .order = 10,
                                  .active = decals_active,
                                  .add = add_decals};
    return rill_render_effect_register(r, &fx, err) ? RILL_OK
                                                    : (err ? err->code : RILL_ERR_INVALID_ARGUMENT);
}
