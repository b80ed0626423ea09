/* post_decal.c: ForwardDecal (rill/render/post.h). rill_render_extract gathers every ForwardDecal
 * with a GlobalTransform whose scene channels draw it into the snapshot; the `forward_decal`
 * effect (GI phase, order 10: after the prepass, before lighting) culls a camera's decals against
 * its view, resolves their maps (post_decal_maps.c) and, when it records, bins them into 16 x 16
 * pixel tiles (one bit per decal per tile) so that one compute dispatch (decal.comp) walks, per
 * tile, only the decals whose projected box touches it and whose depth range (the box's NDC z,
 * found here) meets the tile's surfaces' (min/max prepass depth, found by the tile). It writes
 * one image of three layers the lit pass reads (premultiplied, coverage last): albedo, world
 * normal and roughness; opaque surfaces mix theirs with them before lighting. Blended and
 * transmissive surfaces (not in the prepass) walk the same decals and tile lists, without the
 * depth test, in their fragment shader (pbr_decals.glsl, bound by rill__post_decal_bindings).
 * Both sample the maps from the decal atlas (post_decal_atlas.c), each decal naming its maps'
 * cells. Without decals there is no pass: the lit passes read a 1x1 layer of zeros and empty
 * lists. */
#include "post_internal.h"

#include "rill/channels.h"

#include <math.h>
#include <string.h>

#define DEG (3.14159265358979f / 180.0f)
#define TILE 16u
#define WORDS ((RILL_RENDER_MAX_DECALS + 31u) / 32u)
#define TILE_HEADER 4u /* the tile buffer opens with words per tile, tiles across, 0, 0 */

/* Push constants of decal.comp. */
typedef struct decal_push {
    uint32_t size[2], tiles_x, words;
    float world_from_clip[16];
    uint32_t depth_cull; /* 1: tiles drop decals outside their depth range */
} decal_push;

/* One decal as decal.comp reads it (std430). */
typedef struct gpu_decal {
    float box_from_world[16];
    float color[4];
    float axis_y[4];  /* w: cos of angle_fade_start */
    float axis_x[4];  /* w: cos of angle_fade_end */
    float params[4];  /* normal strength, roughness strength, the box's NDC depth min, max */
    uint32_t maps[4]; /* albedo, normal, roughness: atlas codes (decal_atlas.glsl; 0 = none) */
} gpu_decal;

/* This frame's decals of one view, as the pass records them. */
typedef struct decal_frame {
    rill_rg_image depth, normal, out; /* out: RILL__DECAL_LAYERS layers */
    uint32_t count;
    float world_from_clip[16];
    gpu_decal gpu[RILL_RENDER_MAX_DECALS];
    float rect[RILL_RENDER_MAX_DECALS][4]; /* the projected box in NDC: x0, y0, x1, y1 */
    rill__post_decal_copies copies;        /* maps placed in the atlas this frame */
    /* what the pass put in the frame's arena, for the transparent surfaces' walk (pbr_decals.glsl);
     * valid in the frame whose counter is `recorded` */
    rill__buf *dbuf, *bbuf;
    uint64_t doff, boff, dbytes, bbytes, recorded;
} decal_frame;

/* What the extract callback needs: the world (the decal's channels) and the buffer. */
typedef struct decal_extract {
    rill_world *world;
    rill_render_extract_buf *buf;
} decal_extract;

static bool push_decal(void *user, const float world_from_box[16], const void *component,
                       rill_entity entity) {
    decal_extract *x = user;
    const rill_render_forward_decal *fd = component;
    /* The decal's own channels: hidden and wireframe channels do not paint (a decal has no
     * edges to draw); ghost draws like normal, as ghosted meshes do outside mixed passthrough. */
    const rill_channel_modes *modes = x->buf->channel_modes;
    uint64_t mask = modes ? rill_channels_get(x->world, entity) : 0;
    if (mask & (modes ? modes->hidden | modes->wireframe : 0)) {
        float opacity = 1.0f;
        rill_render_mode mode = rill_channels_resolve(modes, mask, &opacity);
        if (mode == RILL_RENDER_MODE_HIDDEN || mode == RILL_RENDER_MODE_WIREFRAME) {
            return true;
        }
    }
    rill_render_decal b;
    memset(&b, 0, sizeof(b));
    memcpy(b.world_from_box, world_from_box, sizeof(b.world_from_box));
    memcpy(b.base_color, fd->base_color, sizeof(b.base_color));
    b.angle_fade_start = fd->angle_fade_start;
    b.angle_fade_end = fd->angle_fade_end;
    b.entity = entity;
    b.albedo = fd->albedo;
    b.normal = fd->normal;
    b.roughness = fd->roughness;
    b.normal_strength = fd->normal_strength;
    b.roughness_strength = fd->roughness_strength;
    return rill_array_push(&x->buf->decals, b);
}

bool rill__post_extract_decals(rill_world *w, rill_render_extract_buf *buf,
                               rill_render_snapshot *out) {
    rill_array_clear(&buf->decals);
    out->decals = NULL;
    out->decal_count = 0;
    decal_extract x = {w, buf};
    if (!rill__extract_boxes(w, "ForwardDecal", push_decal, &x)) {
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

static float clamp01(float v) {
    return isfinite(v) ? fminf(fmaxf(v, 0.0f), 1.0f) : 0.0f;
}

/* The unit direction of column c of m (the box's axis), or false when it has no length. */
static bool axis_of(mat4 m, int c, float out[4]) {
    float len = sqrtf(m[c][0] * m[c][0] + m[c][1] * m[c][1] + m[c][2] * m[c][2]);
    for (int k = 0; k < 3; k++) {
        out[k] = len > 0.0f ? m[c][k] / len : 0.0f;
    }
    return len > 0.0f && isfinite(len);
}

/* The box's rectangle on screen (NDC x0, y0, x1, y1) through vp, and its depth range (NDC z min,
 * max, widened a little for rounding); false when the whole box lies outside one clip plane
 * (culled). A box crossing the camera plane covers the whole screen and starts at depth 0. Depth
 * grows with distance in front of the camera, so the box's farthest point is a corner. */
static bool screen_rect(mat4 box, const float vp[16], float out[4], float z[2]) {
    mat4 m, clip_from_box;
    memcpy(m, vp, sizeof(m));
    glm_mat4_mul(m, box, clip_from_box);
    uint32_t outside[6] = {0};
    bool behind = false;
    out[0] = out[1] = 1.0f, out[2] = out[3] = -1.0f;
    z[0] = 1.0f, z[1] = 0.0f;
    for (int c = 0; c < 8; c++) {
        vec4 corner = {c & 1 ? 0.5f : -0.5f, c & 2 ? 0.5f : -0.5f, c & 4 ? 0.5f : -0.5f, 1}, cl;
        glm_mat4_mulv(clip_from_box, corner, cl);
        outside[0] += cl[0]<-cl[3], outside[1] += cl[0]> cl[3];
        outside[2] += cl[1]<-cl[3], outside[3] += cl[1]> cl[3];
        outside[4] += cl[2]<0.0f, outside[5] += cl[2]> cl[3];
        if (cl[3] <= 1e-6f) {
            behind = true;
            continue;
        }
        float x = cl[0] / cl[3], y = cl[1] / cl[3];
        z[0] = fminf(z[0], cl[2] / cl[3]), z[1] = fmaxf(z[1], cl[2] / cl[3]);
        out[0] = fminf(out[0], x), out[1] = fminf(out[1], y);
        out[2] = fmaxf(out[2], x), out[3] = fmaxf(out[3], y);
    }
    for (int p = 0; p < 6; p++) {
        if (outside[p] == 8) {
            return false;
        }
    }
    if (behind) {
        out[0] = out[1] = -1.0f, out[2] = out[3] = 1.0f;
        z[0] = 0.0f;
    }
    z[0] = fmaxf(z[0] - 1e-5f, 0.0f), z[1] = fminf(z[1] + 1e-5f, 1.0f);
    for (int k = 0; k < 4; k++) {
        out[k] = fminf(fmaxf(out[k], -1.0f), 1.0f);
    }
    return out[0] <= out[2] && out[1] <= out[3];
}

/* The atlas code of the map at path for this frame (0: none, failed, not read yet or no room). */
static uint32_t map_code(rill_renderer *r, decal_frame *df, const char *path, bool srgb,
                         rill_entity entity) {
    rill__post_decal_map *m = rill__post_decal_map_get(r, path, srgb, entity);
    return rill__post_decal_atlas_code(r, m, entity, &df->copies);
}

/* Decal d as the shader reads it, and its screen rectangle, for a view with this
 * view-projection; false for a box outside the view, or one that cannot be inverted or holds
 * non-finite values (skipped, warned once). */
static bool decal_constants(rill_renderer *r, decal_frame *df, const rill_render_decal *d,
                            const float vp[16], gpu_decal *out, float rect[4]) {
    mat4 box, inv_box;
    memcpy(box, d->world_from_box, sizeof(box));
    bool ok = finite_all(d->world_from_box, 16) && finite_all(d->base_color, 4) &&
              fabsf(glm_mat4_det(box)) > 1e-12f;
    if (ok) {
        glm_mat4_inv(box, inv_box);
        ok = finite_all(&inv_box[0][0], 16) && axis_of(box, 0, out->axis_x) &&
             axis_of(box, 1, out->axis_y);
    }
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
    if (!screen_rect(box, vp, rect, &out->params[2])) {
        return false;
    }
    memcpy(out->box_from_world, inv_box, sizeof(inv_box));
    for (int k = 0; k < 4; k++) {
        out->color[k] = clamp01(d->base_color[k]);
    }
    float start =
        isfinite(d->angle_fade_start) ? fminf(fmaxf(d->angle_fade_start, 0.0f), 180.0f) : 60.0f;
    float end = isfinite(d->angle_fade_end) ? fminf(fmaxf(d->angle_fade_end, 0.0f), 180.0f) : 80.0f;
    end = fmaxf(end, start + 0.01f);
    out->axis_y[3] = cosf(start * DEG);
    out->axis_x[3] = cosf(end * DEG);
    out->params[0] = clamp01(d->normal_strength);
    out->params[1] = clamp01(d->roughness_strength);
    out->maps[0] = map_code(r, df, d->albedo, true, d->entity);
    out->maps[1] = map_code(r, df, d->normal, false, d->entity);
    out->maps[2] = map_code(r, df, d->roughness, false, d->entity);
    out->maps[3] = 0;
    return true;
}

/* Sets decal i's bit in every tile its rectangle touches. */
static void bin_decal(uint32_t *bits, uint32_t i, const float rect[4], uint32_t w, uint32_t h,
                      uint32_t tiles_x, uint32_t tiles_y, uint32_t words) {
    /* NDC to pixels (y down), then to tiles, widened by a pixel for rounding */
    float px0 = (rect[0] * 0.5f + 0.5f) * (float)w - 1.0f;
    float px1 = (rect[2] * 0.5f + 0.5f) * (float)w + 1.0f;
    float py0 = (0.5f - rect[3] * 0.5f) * (float)h - 1.0f;
    float py1 = (0.5f - rect[1] * 0.5f) * (float)h + 1.0f;
    uint32_t tx0 = px0 <= 0.0f ? 0 : (uint32_t)px0 / TILE;
    uint32_t ty0 = py0 <= 0.0f ? 0 : (uint32_t)py0 / TILE;
    uint32_t tx1 = px1 <= 0.0f ? 0 : (uint32_t)px1 / TILE;
    uint32_t ty1 = py1 <= 0.0f ? 0 : (uint32_t)py1 / TILE;
    tx1 = tx1 < tiles_x ? tx1 : tiles_x - 1;
    ty1 = ty1 < tiles_y ? ty1 : tiles_y - 1;
    for (uint32_t ty = ty0; ty <= ty1; ty++) {
        for (uint32_t tx = tx0; tx <= tx1; tx++) {
            bits[(ty * tiles_x + tx) * words + i / 32u] |= 1u << (i % 32u);
        }
    }
}

static void exec_decals(rill_rg_ctx *ctx, void *user) {
    decal_frame *df = user;
    rill_renderer *r = ctx->r;
    rill__img *dst = rill__ctx_img(ctx, df->out);
    const rill__img_desc *d = rill__img_get_desc(dst);
    decal_push push;
    memset(&push, 0, sizeof(push));
    push.size[0] = d->width;
    push.size[1] = d->height;
    push.tiles_x = (d->width + TILE - 1) / TILE;
    uint32_t tiles_y = (d->height + TILE - 1) / TILE;
    push.words = (df->count + 31u) / 32u;
    push.depth_cull = r->post->decal_depth_cull_off ? 0u : 1u;
    memcpy(push.world_from_clip, df->world_from_clip, sizeof(push.world_from_clip));
    /* the decals and the tiles' bits, in this frame's arena */
    uint64_t decal_bytes = (uint64_t)df->count * sizeof(gpu_decal);
    uint64_t bit_bytes =
        ((uint64_t)push.tiles_x * tiles_y * push.words + TILE_HEADER) * sizeof(uint32_t);
    rill__buf *dbuf = NULL, *bbuf = NULL;
    uint64_t doff = 0, boff = 0;
    gpu_decal *gd = rill__frame_alloc(ctx->cmd, decal_bytes, 256, &dbuf, &doff);
    uint32_t *bits = gd ? rill__frame_alloc(ctx->cmd, bit_bytes, 256, &bbuf, &boff) : NULL;
    if (bits) {
        memcpy(gd, df->gpu, decal_bytes);
        memset(bits, 0, bit_bytes);
        bits[0] = push.words, bits[1] = push.tiles_x;
        for (uint32_t i = 0; i < df->count; i++) {
            bin_decal(bits + TILE_HEADER, i, df->rect[i], d->width, d->height, push.tiles_x,
                      tiles_y, push.words);
        }
    } else { /* the arena is full: no decals this frame, the images still written (zeros) */
        push.words = 0;
        dbuf = bbuf = r->post->no_decal_buf;
        doff = boff = 0;
        decal_bytes = bit_bytes = 0;
    }
    df->dbuf = dbuf, df->doff = doff, df->dbytes = decal_bytes;
    df->bbuf = bbuf, df->boff = boff, df->bbytes = bit_bytes;
    df->recorded = r->frame_counter;
    rill__binding b[7];
    memset(b, 0, sizeof(b));
    rill_rg_image in[2] = {df->depth, df->normal};
    for (int i = 0; i < 2; i++) {
        b[i].img = rill__ctx_img(ctx, in[i]);
        b[i].layer = -1;
        b[i].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    }
    b[2].img = dst, b[2].layer = -1;
    b[3].buf = dbuf, b[3].offset = doff, b[3].range = decal_bytes;
    b[4].buf = bbuf, b[4].offset = boff, b[4].range = bit_bytes;
    b[5].img = rill__post_decal_atlas_img(r), b[5].layer = -1;
    b[5].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    b[6] = b[5], b[6].srgb = true; /* albedo maps: decoded before filtering */
    rill__cmd_bind_pipe(ctx->cmd, r->post->pipes[POST_PIPE_DECAL]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, (uint32_t)RILL_COUNTOF(b));
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, push.tiles_x, tiles_y, 1);
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
    df->copies.n = 0;
    rill__post_decal_atlas_begin(r);
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
        df->count += decal_constants(r, df, &snap->decals[i], vs->view_proj, &df->gpu[df->count],
                                     df->rect[df->count]);
    }
    if (!df->count) {
        return RILL_OK; /* none in view */
    }
    mat4 vp;
    memcpy(vp, vs->view_proj, sizeof(vp));
    glm_mat4_inv(vp, vp);
    memcpy(df->world_from_clip, vp, sizeof(vp));
    rill_rg *g = ctx->graph;
    rill_rg_image_desc id = {.format = RILL_RG_FORMAT_RGBA16F,
                             .scale = r->render_scale,
                             .layers = RILL__DECAL_LAYERS,
                             .array_view = true};
    df->out = rill_rg_create_image(g, "decal", &id, err);
    if (!df->out.id) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    df->depth = vs->res.depth;
    df->normal = vs->res.normal;
    RILL_TRY(rill__post_decal_atlas_add(r, g, &df->copies, err)); /* the maps placed this frame */
    rill_rg_pass p = rill_rg_add_pass(
        g, &(rill_rg_pass_desc){.label = "forward_decal", .exec = exec_decals, .user = df}, err);
    RILL_TRY(rill_rg_use_image(g, p, df->depth, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, p, df->normal, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill__post_decal_atlas_access(r, g, p, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, p, df->out, RILL_RG_USAGE_STORAGE_WRITE, err));
    vs->res.decal = df->out;
    return RILL_OK;
}

void rill__post_decal_bindings(const rill_renderer *r, uint32_t view_index,
                               rill__binding out[RILL__DECAL_BINDINGS]) {
    const decal_frame *df = view_index < RILL_RENDER_MAX_VIEWS && r->post && r->post->decals
                                ? &r->post->decals[view_index]
                                : NULL;
    bool live = df && df->recorded == r->frame_counter && df->bbytes;
    memset(out, 0, sizeof(rill__binding) * RILL__DECAL_BINDINGS);
    out[0].buf = live ? df->dbuf : r->post->no_decal_buf;
    out[0].offset = live ? df->doff : 0;
    out[0].range = live ? df->dbytes : 0;
    out[1].buf = live ? df->bbuf : r->post->no_decal_buf;
    out[1].offset = live ? df->boff : 0;
    out[1].range = live ? df->bbytes : 0;
}

rill__img *rill__post_decal_view_atlas(const rill_renderer *r, uint32_t view_index) {
    const decal_frame *df = view_index < RILL_RENDER_MAX_VIEWS && r->post && r->post->decals
                                ? &r->post->decals[view_index]
                                : NULL;
    return df && df->recorded == r->frame_counter ? rill__post_decal_atlas_img(r)
                                                  : r->post->no_decal;
}

void rill__post_decal_depth_cull(rill_renderer *r, bool on) {
    r->post->decal_depth_cull_off = !on;
}

rill_result rill__post_register_decals(rill_renderer *r, rill_error *err) {
    r->post->decals =
        rill_calloc_tagged(RILL_RENDER_MAX_VIEWS, sizeof(decal_frame), RILL_MEM_RENDER);
    if (!r->post->decals) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory (decals)");
    }
    static const uint8_t zeros[256];
    r->post->no_decal_buf =
        rill__buf_create(r->gpu, sizeof(zeros), RILL__BUF_STORAGE | RILL__BUF_TRANSFER_DST, false,
                         "no decal buffer", err);
    if (!r->post->no_decal_buf ||
        rill__buf_upload(r->gpu, r->post->no_decal_buf, 0, zeros, sizeof(zeros), err) != RILL_OK) {
        return err ? err->code : RILL_ERR_VULKAN;
    }
    rill_render_effect_desc fx = {.id = "forward_decal",
                                  .phase = RILL_RENDER_PHASE_GI,
                                  .order = 10,
                                  .active = decals_active,
                                  .add = add_decals};
    return rill_render_effect_register(r, &fx, err) ? RILL_OK
                                                    : (err ? err->code : RILL_ERR_INVALID_ARGUMENT);
}
