/* water.c: PoolWater (rill/render/water.h): the component (fields, defaults, registration), its
 * part of extract, and the GPU side: after the views are planned, the snapshot's boxes clamped
 * (warnings naming entity and field) into this frame's buffer as inverse matrices; per view, one
 * compute pass "water" (water.comp) after the sky over the lit image, and with the view's
 * ScreenSpaceReflections (Medium/High) a "water.scene" copy of the lit image before it that the
 * reflections read (shared with the ocean's pass: rill__add_scene_copy). Without water there is
 * no pass. */
#include "rill/render/water.h"
#include "frame.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* >>component ------------------------------------------------------------------------------- */

#define PW_F32(member, lo, hi, text)                                                               \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_F32,                                                   \
        .offset = offsetof(rill_render_pool_water, member),                                        \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi), .doc = text    \
    }
static const rill_field water_fields[] = {
    {.name = "depth_color",
     .type = RILL_FIELD_COLOR,
     .offset = offsetof(rill_render_pool_water, depth_color),
     .doc = "colour deep water tends to (linear), default (0, 0.15, 0.2)"},
    PW_F32(clarity, 0.01, 1000, "metres of water over which the light falls to 1/e, default 3"),
    PW_F32(wave_height, 0, 10, "height of the largest wave (metres), default 0.08"),
    PW_F32(wavelength, 0.05, 1000, "length of the largest wave (metres), default 3"),
    {.name = "wind_direction",
     .type = RILL_FIELD_VEC2,
     .offset = offsetof(rill_render_pool_water, wind_direction),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = -1,
     .max = 1,
     .doc = "where the waves run, world x and z, default (1, 0)"},
};

rill_render_pool_water rill_render_pool_water_query_defaults(void) {
    rill_render_pool_water w = {.depth_color = {0.0f, 0.15f, 0.2f, 1.0f},
                                .clarity = 3.0f,
                                .wave_height = 0.08f,
                                .wavelength = 3.0f,
                                .wind_direction = {1.0f, 0.0f}};
    return w;
}

rill_result rill__water_register(rill_world *w, rill_error *err) {
    static rill_render_pool_water def;
    def = rill_render_pool_water_query_defaults();
    const rill_type_desc d = {
        .name = "PoolWater",
        RILL_TYPE_LAYOUT(rill_render_pool_water),
        RILL_FIELDS(water_fields),
        .defaults = &def,
        .doc = "a box of water (the transform maps the unit cube onto it; the surface is its top "
               "face) with Gerstner waves, sky reflection (and the scene's, with the camera's "
               "ScreenSpaceReflections at Medium/High) and depth tint"};
    return rill__render_type_ensure(w, &d, err).id ? RILL_OK : RILL_ERR_INVALID_ARGUMENT;
}

static bool push_water_box(void *user, const float world_from_box[16], const void *component,
                           rill_entity entity) {
    rill_render_extract_buf *buf = user;
    rill_render_water_box b;
    memcpy(b.world_from_box, world_from_box, sizeof(b.world_from_box));
    memcpy(&b.water, component, sizeof(b.water));
    b.entity = entity;
    return rill_array_push(&buf->water, b);
}

bool rill__water_extract(rill_world *w, rill_render_extract_buf *buf, rill_render_snapshot *out) {
    rill_array_clear(&buf->water);
    out->water = NULL;
    out->water_count = 0;
    if (!rill__extract_boxes(w, "PoolWater", push_water_box, buf)) {
        return false;
    }
    out->water = buf->water.data;
    out->water_count = (uint32_t)buf->water.len;
    return true;
}

/* >>planning -------------------------------------------------------------------------------- */

/* A box as water.comp reads it. */
typedef struct gpu_box {
    float box_from_world[16];
    float color[4];
    float waves[4];
} gpu_box;

struct rill__water {
    rill__buf *buf;
    uint64_t off;
    uint32_t count;
    float time;
    bool warned; /* "too many PoolWater boxes" was said */
};

rill_result rill__water_create(rill_renderer *r, rill_error *err) {
    r->water = rill_calloc_tagged(1, sizeof(*r->water), RILL_MEM_RENDER);
    if (!r->water) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    return RILL_OK;
}

void rill__water_destroy(rill_renderer *r) {
    rill_free(r->water);
    r->water = NULL;
}

static void fix(rill_renderer *r, rill_entity src, rill_render_pool_water *w) {
    const char *t = "PoolWater";
    rill_render_pool_water d = rill_render_pool_water_query_defaults();
    for (int k = 0; k < 3; k++) {
        w->depth_color[k] =
            rill__settings_fix(r, t, src, "depth_color", w->depth_color[k], 0.0f, 1.0f, 0.0f);
    }
    w->clarity = rill__settings_fix(r, t, src, "clarity", w->clarity, 0.01f, 1000.0f, d.clarity);
    w->wave_height =
        rill__settings_fix(r, t, src, "wave_height", w->wave_height, 0.0f, 10.0f, d.wave_height);
    w->wavelength =
        rill__settings_fix(r, t, src, "wavelength", w->wavelength, 0.05f, 1000.0f, d.wavelength);
    for (int k = 0; k < 2; k++) {
        w->wind_direction[k] = rill__settings_fix(r, t, src, "wind_direction", w->wind_direction[k],
                                                  -1.0f, 1.0f, 0.0f);
    }
    float n = hypotf(w->wind_direction[0], w->wind_direction[1]);
    if (n < 1e-6f) {
        w->wind_direction[0] = 1.0f, w->wind_direction[1] = 0.0f, n = 1.0f;
    }
    w->wind_direction[0] /= n, w->wind_direction[1] /= n;
}

rill_result rill__water_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                             rill_error *err) {
    rill__water *wt = r->water;
    wt->count = 0;
    uint32_t n = snap->water ? snap->water_count : 0;
    if (!n || r->frame.no_view) {
        return RILL_OK;
    }
    if (n > RILL_RENDER_MAX_WATER_BOXES) {
        if (!wt->warned) {
            RILL_LOG_WARN("render", "%u PoolWater boxes; the first %u are drawn", n,
                          RILL_RENDER_MAX_WATER_BOXES);
            wt->warned = true;
        }
        n = RILL_RENDER_MAX_WATER_BOXES;
    }
    gpu_box *out = rill__frame_alloc(cmd, sizeof(gpu_box) * n, 256, &wt->buf, &wt->off);
    if (!out) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    }
    for (uint32_t i = 0; i < n; i++) {
        const rill_render_water_box *b = &snap->water[i];
        rill_render_pool_water w = b->water;
        fix(r, b->entity, &w);
        mat4 m, inv;
        memcpy(m, b->world_from_box, sizeof(m));
        float det = glm_mat4_det(m);
        if (!isfinite(det) || fabsf(det) < 1e-12f) {
            continue;
        }
        glm_mat4_inv(m, inv);
        gpu_box *g = &out[wt->count++];
        memcpy(g->box_from_world, inv, sizeof(inv));
        memcpy(g->color, w.depth_color, sizeof(float) * 3);
        g->color[3] = w.clarity;
        g->waves[0] = w.wave_height;
        g->waves[1] = w.wavelength;
        g->waves[2] = w.wind_direction[0];
        g->waves[3] = w.wind_direction[1];
    }
    wt->time = (float)((double)(r->frame_counter % 10000000u) / 60.0);
    return RILL_OK;
}

/* >>graph and recording --------------------------------------------------------------------- */

static void pass_water(rill_rg_ctx *ctx, void *user) {
    const rill__view *vs = user;
    rill_renderer *r = ctx->r;
    rill__water *wt = r->water;
    rill__img *depth = rill__ctx_img(ctx, vs->res.depth);
    const rill__img_desc *dd = rill__img_get_desc(depth);
    rill__binding b[6], ibl[3];
    memset(b, 0, sizeof(b));
    b[0].buf = vs->frame_buf;
    b[0].offset = vs->frame_off;
    b[0].range = sizeof(rill__gpu_frame);
    b[1].img = depth;
    b[1].layer = -1;
    b[1].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    b[2].img = rill__ctx_img(ctx, vs->res.hdr);
    b[2].layer = -1;
    b[3].buf = wt->buf;
    b[3].offset = wt->off;
    b[3].range = sizeof(gpu_box) * wt->count;
    rill__ibl_bindings(r, ibl);
    b[4] = ibl[0]; /* the prefiltered sky cube */
    struct {
        float inv_vp[16];
        float params[4];
        float ssr[4];
    } push;
    rill__water_ssr_settings(r, vs, push.ssr);
    /* Without reflections the scene copy is not made: the depth image stands in (never read). */
    bool reflect = push.ssr[0] > 0.0f;
    b[5].img = reflect ? rill__ctx_img(ctx, vs->res.water_scene) : depth;
    b[5].layer = -1;
    b[5].sampler = reflect ? RILL__SAMPLER_LINEAR_CLAMP : RILL__SAMPLER_NEAREST_CLAMP;
    mat4 vp, inv;
    memcpy(vp, vs->view_proj, sizeof(vp));
    glm_mat4_inv(vp, inv);
    memcpy(push.inv_vp, inv, sizeof(inv));
    push.params[0] = wt->time;
    push.params[1] = (float)wt->count;
    push.params[2] = push.params[3] = 0.0f;
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_WATER]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 6);
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (dd->width + 7) / 8, (dd->height + 7) / 8, 1);
}

rill_result rill__water_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                                 rill_rg_pass *out_last, rill_error *err) {
    *out_last = after;
    if (!r->water->count) {
        return RILL_OK;
    }
    float ssr[4];
    rill__water_ssr_settings(r, vs, ssr);
    bool reflect = ssr[0] > 0.0f;
    if (reflect) {
        RILL_TRY(rill__add_scene_copy(g, vs, &after, err));
    }
    rill_rg_pass_desc pd = {.label = "water", .exec = pass_water, .user = vs, .view = vs->index};
    rill_rg_pass p = rill_rg_add_pass(g, &pd, err);
    const rill_rg_usage rd = RILL_RG_USAGE_SAMPLED_COMPUTE;
    RILL_TRY(rill_rg_use_image(g, p, vs->res.depth, rd, err));
    if (reflect) {
        RILL_TRY(rill_rg_use_image(g, p, vs->res.water_scene, rd, err));
    }
    RILL_TRY(rill__ibl_access_compute(r, g, p, err));
    RILL_TRY(rill_rg_use_image(g, p, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill_rg_add_edge(g, after, p, err));
    *out_last = p;
    return RILL_OK;
}
