/* sky.c: the physical sky on the GPU (after Hillaire 2020, "A Scalable and Production Ready Sky
 * and Atmosphere Rendering Technique"), drawn when a view's sky mode resolves to Atmosphere.
 *
 * Frame-wide, from the first view that shows an atmosphere: the transmittance table (256 x 64)
 * and the multiple scattering table (32 x 32), made again only when the atmosphere's settings
 * change ("sky.transmittance", "sky.multiscatter"), and the sky view table (192 x 108) made every
 * frame ("sky.view": it follows the sun and the camera's altitude). Per view: the aerial
 * perspective volume (32 x 32 froxels x 32 slices over 32 km, "sky.aerial") and the "sky" pass
 * over the lit HDR image after the opaque pass: the sky (and the sun's disc) where nothing was
 * drawn, the aerial perspective on what was. The image-based light bakes its source cube from the
 * tables (rill__sky_ibl_fill) and distance fog takes the sky's horizon colour from them.
 *
 * A frame without an atmosphere adds no pass, creates no table and binds nothing. Radiance in the
 * tables is per unit of sun illuminance; the passes multiply by the sun light's colour times its
 * illuminance, so the sky scales with the sun like the direct light does. */
#include "frame.h"
#include "rill/render/environment.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define TRANS_W 256u
#define TRANS_H 64u
#define MS_SIZE 32u
#define VIEW_W 192u
#define VIEW_H 108u
#define AP_SIZE 32u /* froxels across; the volume is AP_SIZE * AP_SLICES x AP_SIZE */
#define AP_SLICES 32u

/* The settings block of sky_common.glsl (std140: vec4s). */
typedef struct sky_ubo {
    float radii[4];
    float rayleigh[4];
    float mie[4];
    float ozone[4];
    float ozone_width[4];
    float albedo[4];
    float sun_dir[4];
    float sun_radiance[4];
} sky_ubo;

/* What a view's sky passes read (their user pointer). */
typedef struct sky_view {
    rill_renderer *r;
    const rill__view *vs;
    rill_rg_image volume;
} sky_view;

struct rill__sky {
    rill__img *trans, *ms, *view;
    rill_rg_usage trans_use, ms_use, view_use;
    bool on;         /* this frame shows an atmosphere */
    bool luts_valid; /* trans and ms hold the tables of `luts_of` */
    bool luts_now;   /* this frame makes them */
    rill_render_atmosphere luts_of;
    rill_render_atmosphere atmo; /* this frame's (clamped) */
    sky_ubo ubo;
    rill__buf *ubo_buf;
    uint64_t ubo_off;
    uint32_t lut_runs;
    rill_rg_image r_trans, r_ms, r_view;
    sky_view views[RILL_RENDER_MAX_VIEWS];
};

/* The push constants of sky_aerial.comp and sky.comp. */
typedef struct view_push {
    float inv_vp[16];
    float camera[4];
    uint32_t rect[4];
} view_push;

rill_result rill__sky_create(rill_renderer *r, rill_error *err) {
    r->sky = rill_calloc_tagged(1, sizeof(*r->sky), RILL_MEM_RENDER);
    if (!r->sky) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    return RILL_OK;
}

void rill__sky_destroy(rill_renderer *r) {
    rill__sky *s = r->sky;
    if (!s) {
        return;
    }
    rill__img_destroy(r->gpu, s->trans);
    rill__img_destroy(r->gpu, s->ms);
    rill__img_destroy(r->gpu, s->view);
    rill_free(s);
    r->sky = NULL;
}

static rill__img *make_table(rill_renderer *r, uint32_t w, uint32_t h, const char *label,
                             rill_error *err) {
    rill__img_desc d = {.width = w,
                        .height = h,
                        .layers = 1,
                        .mips = 1,
                        .format = RILL_RG_FORMAT_RGBA16F,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE,
                        .label = label};
    return rill__img_create(r->gpu, &d, err);
}

/* The tables, made the first time an atmosphere is shown. */
static rill_result make_tables(rill_renderer *r, rill__sky *s, rill_error *err) {
    if (s->view) {
        return RILL_OK;
    }
    s->trans = make_table(r, TRANS_W, TRANS_H, "sky transmittance", err);
    s->ms = s->trans ? make_table(r, MS_SIZE, MS_SIZE, "sky multiple scattering", err) : NULL;
    s->view = s->ms ? make_table(r, VIEW_W, VIEW_H, "sky view", err) : NULL;
    if (!s->view) {
        return err ? err->code : RILL_ERR_VULKAN;
    }
    s->trans_use = s->ms_use = s->view_use = RILL_RG_USAGE_NONE;
    return RILL_OK;
}

/* Toward the sun, unit length ((0, 1, 0) when the snapshot has none or it is degenerate). */
static void toward_sun(const rill_render_snapshot *snap, float out[3]) {
    const float *d = snap->sun.direction;
    float n = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!snap->has_sun || !isfinite(n) || n < 1e-6f) {
        out[0] = 0.0f, out[1] = 1.0f, out[2] = 0.0f;
        return;
    }
    for (int k = 0; k < 3; k++) {
        out[k] = -d[k] / n;
    }
}

/* v clamped to [lo, hi]; NaN is lo, an infinity the end it points to. */
static float finite_clamp(float v, float lo, float hi) {
    return isnan(v) ? lo : RILL_CLAMP(v, lo, hi);
}

/* The settings block for atmosphere a (already clamped by rill__view_environment), the camera
 * at altitude cam_y metres and the snapshot's sun. */
static void fill_ubo(const rill_renderer *r, const rill_render_atmosphere *a,
                     const rill_render_snapshot *snap, float cam_y, sky_ubo *u) {
    memset(u, 0, sizeof(*u));
    const float per_km = 1e-3f; /* settings are per Mm */
    u->radii[0] = a->ground_radius_km;
    u->radii[1] = a->top_radius_km;
    u->radii[2] = finite_clamp(cam_y, 0.0f, 1e9f) * 1e-3f;
    u->radii[3] = 0.5f * a->sun_angular_diameter_deg * 3.14159265f / 180.0f;
    for (int k = 0; k < 3; k++) {
        u->rayleigh[k] = a->rayleigh_scattering[k] * per_km;
        u->ozone[k] = a->ozone_absorption[k] * per_km;
        u->albedo[k] = a->ground_albedo[k];
    }
    u->rayleigh[3] = a->rayleigh_scale_height_km;
    u->mie[0] = a->mie_scattering * per_km;
    u->mie[1] = a->mie_absorption * per_km;
    u->mie[2] = a->mie_scale_height_km;
    u->mie[3] = a->mie_g;
    u->ozone[3] = a->ozone_center_km;
    u->ozone_width[0] = a->ozone_half_width_km;
    toward_sun(snap, u->sun_dir);
    u->sun_dir[3] = snap->has_sun ? 1.0f : 0.0f;
    float e = snap->has_sun ? finite_clamp(snap->sun.illuminance, 0.0f, 1e5f) : 0.0f;
    for (int k = 0; k < 3; k++) {
        u->sun_radiance[k] = finite_clamp(snap->sun.color[k], 0.0f, 1e3f) * e;
    }
    rill_atmosphere_method m = a->rendering_method;
    if (m == RILL_ATMOSPHERE_AUTO) {
        m = r->desc.quality == RILL_RENDER_QUALITY_HIGH ? RILL_ATMOSPHERE_RAYMARCHED
                                                        : RILL_ATMOSPHERE_LOOKUP;
    }
    u->sun_radiance[3] = m == RILL_ATMOSPHERE_RAYMARCHED ? 1.0f : 0.0f;
}

/* NightStars on the view: their brightness (intensity x the fade while the sun goes from 0 to
 * -12 degrees) in ozone_width.y, and with twinkle the time in seconds in ozone_width.z (-1:
 * still). */
static void fill_stars(const rill_renderer *r, const rill_render_view *v, sky_ubo *u) {
    uint32_t size = 0;
    const rill_render_night_stars *ns = rill_render_view_settings(v, "NightStars", &size);
    u->ozone_width[2] = -1.0f;
    if (!ns || size != sizeof(*ns)) {
        return;
    }
    float elev = asinf(RILL_CLAMP(u->sun_dir[1], -1.0f, 1.0f)) * 180.0f / 3.14159265f;
    float fade = u->sun_dir[3] > 0.5f ? RILL_CLAMP(-elev / 12.0f, 0.0f, 1.0f) : 1.0f;
    u->ozone_width[1] = finite_clamp(ns->intensity, 0.0f, 1000.0f) * fade;
    if (ns->twinkle) {
        u->ozone_width[2] = (float)(r->frame_counter % 1000000u) / 60.0f;
    }
}

rill_result rill__sky_plan(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                           rill_error *err) {
    rill__sky *s = r->sky;
    s->on = false;
    s->luts_now = false;
    const rill_render_view *list = snap->view_count ? snap->views : &snap->view;
    uint32_t n = snap->view_count ? RILL_MIN(snap->view_count, RILL_RENDER_MAX_VIEWS) : 1;
    rill__view_settings set;
    const rill_render_view *shown = NULL;
    for (uint32_t i = 0; i < n && !s->on; i++) {
        rill__view_defaults(&list[i], &set);
        rill__view_environment(r, snap, &list[i], &set);
        s->on = set.sky_mode == RILL_SKY_ATMOSPHERE;
        shown = &list[i];
    }
    if (!s->on) {
        return RILL_OK;
    }
    RILL_TRY(make_tables(r, s, err));
    s->atmo = set.atmo;
    fill_ubo(r, &set.atmo, snap, set.world_from_view[13], &s->ubo);
    fill_stars(r, shown, &s->ubo);
    /* Clouds (clouds.c) of the same view: the flag the sky shaders composite them by. */
    uint32_t vw = r->width, vh = r->height;
    bool clouds = rill__clouds_plan(r, shown, &set.world_from_view[12], set.fov_y, vw, vh,
                                    s->ubo.sun_dir[3] > 0.5f ? s->ubo.sun_dir : NULL);
    s->ubo.ozone_width[3] = clouds ? 1.0f : 0.0f;
    sky_ubo *u = rill__frame_alloc(cmd, sizeof(sky_ubo), 256, &s->ubo_buf, &s->ubo_off);
    if (!u) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    }
    memcpy(u, &s->ubo, sizeof(*u));
    if (!s->luts_valid || memcmp(&s->luts_of, &set.atmo, sizeof(set.atmo)) != 0) {
        s->luts_now = true;
        s->luts_valid = true;
        s->luts_of = set.atmo;
        s->lut_runs++;
    }
    return RILL_OK;
}

bool rill__sky_on(const rill_renderer *r) {
    return r->sky && r->sky->on;
}

uint64_t rill__sky_key(const rill_renderer *r) {
    const rill__sky *s = r->sky;
    if (!s || !s->on) {
        return 0;
    }
    /* What the IBL's bake depends on besides the sun's direction: the settings and the sun's
     * colour x illuminance. */
    uint64_t h = rill_hash64_seed(&s->atmo, sizeof(s->atmo), 0x736b79u) ^ rill__clouds_key(r);
    return rill_hash64_seed(s->ubo.sun_radiance, sizeof(s->ubo.sun_radiance), h) | 1u;
}

/* >>graph ----------------------------------------------------------------------------------- */

static rill_result import(rill_rg *g, const char *name, rill__img *img, rill_rg_usage *use,
                          rill_rg_usage final, rill_rg_image *out, rill_error *err) {
    const rill__img_desc *id = rill__img_get_desc(img);
    rill_rg_image_desc d;
    memset(&d, 0, sizeof(d));
    d.format = id->format;
    d.size_mode = RILL_RG_SIZE_ABSOLUTE;
    d.width = id->width;
    d.height = id->height;
    d.layers = 1;
    d.mips = 1;
    *out = rill_rg_import_image(g, name, &d, img, *use, final, err);
    if (!out->id) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    *use = final;
    return RILL_OK;
}

static void pass_trans(rill_rg_ctx *ctx, void *user);
static void pass_ms(rill_rg_ctx *ctx, void *user);
static void pass_view(rill_rg_ctx *ctx, void *user);

static rill_rg_pass side_pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, void *user,
                              rill_error *err) {
    /* The tables outlive the frame: never culled. */
    rill_rg_pass_desc d = {.label = label, .exec = fn, .user = user, .side_effect = true};
    return rill_rg_add_pass(g, &d, err);
}

rill_result rill__sky_add_passes(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__sky *s = r->sky;
    if (!s->on) {
        return RILL_OK;
    }
    const rill_rg_usage rd = RILL_RG_USAGE_SAMPLED_COMPUTE, wr = RILL_RG_USAGE_STORAGE_WRITE;
    RILL_TRY(import(g, "sky.transmittance", s->trans, &s->trans_use, rd, &s->r_trans, err));
    RILL_TRY(import(g, "sky.multiscatter", s->ms, &s->ms_use, rd, &s->r_ms, err));
    RILL_TRY(import(g, "sky.view", s->view, &s->view_use, rd, &s->r_view, err));
    if (s->luts_now) {
        rill_rg_pass p = side_pass(g, "sky.transmittance", pass_trans, r, err);
        RILL_TRY(rill_rg_use_image(g, p, s->r_trans, wr, err));
        p = side_pass(g, "sky.multiscatter", pass_ms, r, err);
        RILL_TRY(rill_rg_use_image(g, p, s->r_trans, rd, err));
        RILL_TRY(rill_rg_use_image(g, p, s->r_ms, wr, err));
    }
    rill_rg_pass p = side_pass(g, "sky.view", pass_view, r, err);
    RILL_TRY(rill_rg_use_image(g, p, s->r_trans, rd, err));
    RILL_TRY(rill_rg_use_image(g, p, s->r_ms, rd, err));
    RILL_TRY(rill_rg_use_image(g, p, s->r_view, wr, err));
    return rill__clouds_add_pass(r, g, err); /* reads the tables: after them */
}

rill_result rill__sky_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass, rill_error *err) {
    rill__sky *s = r->sky;
    const rill_rg_usage rd = RILL_RG_USAGE_SAMPLED_COMPUTE;
    RILL_TRY(rill_rg_use_image(g, pass, s->r_trans, rd, err));
    RILL_TRY(rill_rg_use_image(g, pass, s->r_ms, rd, err));
    return rill_rg_use_image(g, pass, s->r_view, rd, err);
}

static void pass_aerial(rill_rg_ctx *ctx, void *user);
static void pass_sky(rill_rg_ctx *ctx, void *user);

rill_result rill__sky_add_view(rill_renderer *r, rill_rg *g, rill__view *vs, rill_rg_pass after,
                               rill_rg_pass *out_last, rill_error *err) {
    *out_last = after;
    if (!r->sky->on || vs->set.sky_mode != RILL_SKY_ATMOSPHERE) {
        return RILL_OK;
    }
    sky_view *sv = &r->sky->views[vs->index];
    sv->r = r;
    sv->vs = vs;
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .scale = 1.0f,
                            .width = AP_SIZE * AP_SLICES,
                            .height = AP_SIZE};
    sv->volume = rill_rg_create_image(g, "sky.aerial", &d, err);
    rill_rg_pass_desc pd = {
        .label = "sky.aerial", .exec = pass_aerial, .user = sv, .view = vs->index};
    rill_rg_pass ap = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill__sky_access(r, g, ap, err));
    RILL_TRY(rill_rg_use_image(g, ap, sv->volume, RILL_RG_USAGE_STORAGE_WRITE, err));
    pd.label = "sky";
    pd.exec = pass_sky;
    rill_rg_pass sp = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill__sky_access(r, g, sp, err));
    RILL_TRY(rill_rg_use_image(g, sp, sv->volume, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, sp, vs->res.depth, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    RILL_TRY(rill_rg_use_image(g, sp, vs->res.hdr, RILL_RG_USAGE_STORAGE_WRITE, err));
    RILL_TRY(rill__clouds_access(r, g, sp, err));
    RILL_TRY(rill_rg_add_edge(g, after, sp, err));
    *out_last = sp;
    return RILL_OK;
}

/* >>recording ------------------------------------------------------------------------------- */

static uint32_t groups(uint32_t n) {
    return (n + 7u) / 8u;
}

static void bind_ubo(const rill__sky *s, rill__binding *b) {
    b->buf = s->ubo_buf;
    b->offset = s->ubo_off;
    b->range = sizeof(sky_ubo);
}

static void bind_tex(rill__binding *b, rill__img *img) {
    b->img = img;
    b->layer = -1;
    b->sampler = RILL__SAMPLER_LINEAR_CLAMP;
}

static void bind_store(rill__binding *b, rill__img *img) {
    b->img = img;
    b->layer = -1;
}

static void pass_trans(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__sky *s = r->sky;
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    bind_ubo(s, &b[0]);
    bind_store(&b[1], rill__ctx_img(ctx, s->r_trans));
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SKY_TRANSMITTANCE]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
    rill__cmd_dispatch(ctx->cmd, groups(TRANS_W), groups(TRANS_H), 1);
}

static void pass_ms(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__sky *s = r->sky;
    rill__binding b[3];
    memset(b, 0, sizeof(b));
    bind_ubo(s, &b[0]);
    bind_tex(&b[1], rill__ctx_img(ctx, s->r_trans));
    bind_store(&b[2], rill__ctx_img(ctx, s->r_ms));
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SKY_MULTISCATTER]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
    rill__cmd_dispatch(ctx->cmd, groups(MS_SIZE), groups(MS_SIZE), 1);
}

static void pass_view(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__sky *s = r->sky;
    rill__binding b[4];
    memset(b, 0, sizeof(b));
    bind_ubo(s, &b[0]);
    bind_tex(&b[1], rill__ctx_img(ctx, s->r_trans));
    bind_tex(&b[2], rill__ctx_img(ctx, s->r_ms));
    bind_store(&b[3], rill__ctx_img(ctx, s->r_view));
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SKY_VIEW]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 4);
    rill__cmd_dispatch(ctx->cmd, groups(VIEW_W), groups(VIEW_H), 1);
}

/* The view's inverse view-projection, camera and pixel rectangle (of the 3D images). */
static void view_push_of(const rill__view *vs, const rill__img *depth, view_push *p) {
    memset(p, 0, sizeof(*p));
    mat4 vp, inv; /* aligned copies: cglm's SSE paths need 16-byte alignment */
    memcpy(vp, vs->view_proj, sizeof(vp));
    glm_mat4_inv(vp, inv);
    memcpy(p->inv_vp, inv, sizeof(inv));
    p->camera[0] = vs->set.world_from_view[12];
    p->camera[1] = vs->set.world_from_view[13];
    p->camera[2] = vs->set.world_from_view[14];
    /* Every view has its own images: the rectangle is the whole of them. */
    const rill__img_desc *d = rill__img_get_desc(depth);
    p->rect[2] = d->width;
    p->rect[3] = d->height;
}

static void pass_aerial(rill_rg_ctx *ctx, void *user) {
    sky_view *sv = user;
    rill_renderer *r = sv->r;
    rill__sky *s = r->sky;
    rill__binding b[4];
    memset(b, 0, sizeof(b));
    bind_ubo(s, &b[0]);
    bind_tex(&b[1], rill__ctx_img(ctx, s->r_trans));
    bind_tex(&b[2], rill__ctx_img(ctx, s->r_ms));
    bind_store(&b[3], rill__ctx_img(ctx, sv->volume));
    view_push p;
    view_push_of(sv->vs, rill__ctx_img(ctx, sv->vs->res.depth), &p);
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SKY_AERIAL]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 4);
    rill__cmd_push(ctx->cmd, &p, offsetof(view_push, rect));
    rill__cmd_dispatch(ctx->cmd, groups(AP_SIZE), groups(AP_SIZE), 1);
}

static void pass_sky(rill_rg_ctx *ctx, void *user) {
    sky_view *sv = user;
    rill_renderer *r = sv->r;
    rill__sky *s = r->sky;
    rill__img *depth = rill__ctx_img(ctx, sv->vs->res.depth);
    rill__binding b[8];
    memset(b, 0, sizeof(b));
    bind_ubo(s, &b[0]);
    bind_tex(&b[1], rill__ctx_img(ctx, s->r_trans));
    bind_tex(&b[2], rill__ctx_img(ctx, s->r_ms));
    bind_tex(&b[3], rill__ctx_img(ctx, s->r_view));
    bind_tex(&b[4], rill__ctx_img(ctx, sv->volume));
    bind_tex(&b[5], depth);
    b[5].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    bind_store(&b[6], rill__ctx_img(ctx, sv->vs->res.hdr));
    rill__clouds_binding(ctx, r, &b[7]);
    view_push p;
    view_push_of(sv->vs, depth, &p);
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SKY]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 8);
    rill__cmd_push(ctx->cmd, &p, sizeof(p));
    rill__cmd_dispatch(ctx->cmd, groups(p.rect[2]), groups(p.rect[3]), 1);
}

void rill__sky_ibl_fill(rill_rg_ctx *ctx, rill_renderer *r, rill__img *cube, uint32_t size) {
    rill__sky *s = r->sky;
    rill__binding b[5];
    memset(b, 0, sizeof(b));
    bind_ubo(s, &b[0]);
    bind_tex(&b[1], rill__ctx_img(ctx, s->r_trans));
    bind_tex(&b[2], rill__ctx_img(ctx, s->r_view));
    b[3].img = cube;
    b[3].layer = -1;
    b[3].one_level = true;
    b[3].level = 0;
    rill__clouds_binding(ctx, r, &b[4]);
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_SKY_IBL]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 5);
    rill__cmd_push(ctx->cmd, &size, sizeof(size));
    rill__cmd_dispatch(ctx->cmd, groups(size), groups(size), 6);
}

void rill__sky_fog_bindings(rill_rg_ctx *ctx, const rill_renderer *r, rill__binding *ubo,
                            rill__binding *view_lut) {
    const rill__sky *s = r->sky;
    bind_ubo(s, ubo);
    bind_tex(view_lut, rill__ctx_img(ctx, s->r_view));
}

void rill__sky_clouds_bindings(rill_rg_ctx *ctx, const rill_renderer *r, rill__binding b[3]) {
    const rill__sky *s = r->sky;
    bind_ubo(s, &b[0]);
    bind_tex(&b[1], rill__ctx_img(ctx, s->r_trans));
    bind_tex(&b[2], rill__ctx_img(ctx, s->r_view));
}

void rill__sky_stats(const rill_renderer *r, uint32_t *out_lut_runs) {
    *out_lut_runs = r->sky ? r->sky->lut_runs : 0;
}
