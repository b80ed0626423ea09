/* clouds.c: the Clouds settings type (rill/render/environment.h: fields, defaults, registration)
 * and the cloud layer of the physical sky. When the frame shows an atmosphere (sky.c) and its
 * first atmosphere view has Clouds routed at a tier above Low, sky.c's plan asks rill__clouds_plan
 * for this frame's settings (clamped, warnings naming the entity and field); the graph gets one
 * frame-wide compute pass "clouds" after "sky.view" writing the cloud panorama (clouds.comp,
 * clouds_common.glsl: light and transmittance over azimuth x elevation, 4:1, about two screen
 * pixels a texel, at most 512 x 128 at Medium and 1024 x 256 at High) that the "sky" pass and the
 * image-based light's fill composite over the sky. With the sun above the horizon a second pass,
 * "clouds.shadow" (clouds_shadow.comp), writes the cloud shadow map: the transmittance of the
 * layer along the sun's ray from each ground point of a square around the camera (16 km, 128²
 * texels at Medium, 256² at High, snapped to whole texels so it does not swim as the camera
 * moves), which every lit pass (pbr_body.glsl, vfog.comp) multiplies the sun's light by. Without
 * clouds nothing is created or bound (a white texel stands in for the map). */
#include "frame.h"
#include "rill/render/environment.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* >>component ------------------------------------------------------------------------------- */

#define CL_F32(member, lo, hi, text)                                                               \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_F32, .offset = offsetof(rill_render_clouds, member),   \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi), .doc = text    \
    }
static const rill_field cloud_fields[] = {
    CL_F32(coverage, 0, 1, "share of the sky covered: 0 none, 1 overcast, default 0.5"),
    CL_F32(density, 0, 10, "extinction per metre inside a cloud, default 0.03"),
    CL_F32(altitude, 0, 50000, "metres above the ground where the layer begins, default 1500"),
    CL_F32(thickness, 10, 20000, "metres from the layer's base to its top, default 2000"),
    {.name = "wind",
     .type = RILL_FIELD_VEC2,
     .offset = offsetof(rill_render_clouds, wind),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = -1000,
     .max = 1000,
     .doc = "drift in metres per second along world x and z, default (10, 0)"},
};

rill_render_clouds rill_render_clouds_query_defaults(void) {
    rill_render_clouds c = {.coverage = 0.5f,
                            .density = 0.03f,
                            .altitude = 1500.0f,
                            .thickness = 2000.0f,
                            .wind = {10.0f, 0.0f}};
    return c;
}

rill_result rill__clouds_register(rill_world *w, rill_render_components *out, rill_error *err) {
    static rill_render_clouds def;
    def = rill_render_clouds_query_defaults();
    const rill_type_desc d = {
        .name = "Clouds",
        RILL_TYPE_LAYOUT(rill_render_clouds),
        RILL_FIELDS(cloud_fields),
        .defaults = &def,
        .doc =
            "a raymarched cloud layer in the physical sky (and its image-based light), routed to "
            "cameras; Medium and High tiers"};
    return rill__render_settings_ensure(w, &d, 1, out, NULL, err);
}

/* >>planning -------------------------------------------------------------------------------- */

/* The push constants of clouds.comp. */
typedef struct clouds_push {
    float place[4];
    float layer[4];
    uint32_t steps[4];
} clouds_push;

/* The push constants of clouds_shadow.comp. */
typedef struct shadow_push {
    float place[4]; /* the square's corner x, z (km), the wind's drift x, z (km) */
    float layer[4];
    float sun[4]; /* toward the sun, y at least 0.05 */
    float map[4]; /* square size (km), texels a side, steps */
} shadow_push;

#define SHADOW_SIZE_KM 16.0f /* the cloud shadow map's square */

struct rill__clouds {
    bool on;
    rill_render_clouds set; /* this frame's, clamped */
    clouds_push push;
    rill_rg_image pano;
    bool shadow_on; /* the cloud shadow map this frame (sun above the horizon) */
    shadow_push shadow_push;
    rill__img *shadow;      /* the map (kept: made again when the tier changes its size) */
    rill_rg_image r_shadow; /* this frame's import of it */
    float shadow_consts[4]; /* common.glsl's frame.cloud_shadow */
};

rill_result rill__clouds_create(rill_renderer *r, rill_error *err) {
    r->clouds = rill_calloc_tagged(1, sizeof(*r->clouds), RILL_MEM_RENDER);
    if (!r->clouds) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    return RILL_OK;
}

void rill__clouds_destroy(rill_renderer *r) {
    if (r->clouds) {
        rill__img_destroy(r->gpu, r->clouds->shadow);
    }
    rill_free(r->clouds);
    r->clouds = NULL;
}

static void fix(rill_renderer *r, rill_entity src, rill_render_clouds *c) {
    const char *t = "Clouds";
    rill_render_clouds d = rill_render_clouds_query_defaults();
    c->coverage = rill__settings_fix(r, t, src, "coverage", c->coverage, 0.0f, 1.0f, d.coverage);
    c->density = rill__settings_fix(r, t, src, "density", c->density, 0.0f, 10.0f, d.density);
    c->altitude =
        rill__settings_fix(r, t, src, "altitude", c->altitude, 0.0f, 50000.0f, d.altitude);
    c->thickness =
        rill__settings_fix(r, t, src, "thickness", c->thickness, 10.0f, 20000.0f, d.thickness);
    for (int k = 0; k < 2; k++) {
        c->wind[k] = rill__settings_fix(r, t, src, "wind", c->wind[k], -1000.0f, 1000.0f, 0.0f);
    }
}

/* The cloud shadow map's image at n x n texels (made again when n changes); false when it cannot
 * be made (no cloud shadows then, said once). */
static bool shadow_image(rill_renderer *r, rill__clouds *c, uint32_t n) {
    if (c->shadow && rill__img_get_desc(c->shadow)->width == n) {
        return true;
    }
    rill__img_destroy(r->gpu, c->shadow);
    rill__img_desc d = {.width = n,
                        .height = n,
                        .layers = 1,
                        .mips = 1,
                        .format = RILL_RG_FORMAT_RG16F,
                        .usage = RILL__IMG_SAMPLED | RILL__IMG_STORAGE,
                        .label = "cloud shadow map"};
    rill_error err = {0};
    c->shadow = rill__img_create(r->gpu, &d, &err);
    if (!c->shadow) {
        RILL_LOG_WARN("render", "clouds: no cloud shadow map (%s)", err.msg);
    }
    return c->shadow != NULL;
}

/* The cloud shadow map's push constants and the frame constants that find it: a square of
 * SHADOW_SIZE_KM around the camera, its corner snapped to whole texels. */
static void plan_shadow(rill_renderer *r, rill__clouds *c, const float camera[3],
                        const float sun_to[3], bool high) {
    c->shadow_on = false;
    memset(c->shadow_consts, 0, sizeof(c->shadow_consts));
    float len = sun_to
                    ? sqrtf(sun_to[0] * sun_to[0] + sun_to[1] * sun_to[1] + sun_to[2] * sun_to[2])
                    : 0.0f;
    uint32_t n = high ? 256u : 128u;
    if (!(len > 1e-6f) || !(sun_to[1] / len > 0.0f) || !shadow_image(r, c, n)) {
        return; /* no sun, the sun is down (it lights nothing) or there is no map */
    }
    shadow_push *p = &c->shadow_push;
    float texel = SHADOW_SIZE_KM * 1e3f / (float)n; /* metres */
    double ox = floor(((double)camera[0] - SHADOW_SIZE_KM * 500.0) / texel) * texel;
    double oz = floor(((double)camera[2] - SHADOW_SIZE_KM * 500.0) / texel) * texel;
    p->place[0] = (float)(ox * 1e-3);
    p->place[1] = (float)(oz * 1e-3);
    p->place[2] = c->push.place[2];
    p->place[3] = c->push.place[3];
    memcpy(p->layer, c->push.layer, sizeof(p->layer));
    /* Toward the sun, unit, raised to 3 degrees at least (a lower sun's shadows would reach
     * past the square). */
    float sy = fmaxf(sun_to[1] / len, 0.05f);
    float sl = sqrtf(sun_to[0] * sun_to[0] + sun_to[2] * sun_to[2]);
    float k = sl > 1e-6f ? sqrtf(1.0f - sy * sy) / sl : 0.0f;
    p->sun[0] = sun_to[0] * k, p->sun[1] = sy, p->sun[2] = sun_to[2] * k;
    p->map[0] = SHADOW_SIZE_KM;
    p->map[1] = (float)n;
    p->map[2] = high ? 16.0f : 8.0f;
    c->shadow_consts[0] = (float)ox;
    c->shadow_consts[1] = (float)oz;
    c->shadow_consts[2] = 1.0f / (SHADOW_SIZE_KM * 1e3f);
    c->shadow_consts[3] = 1.0f;
    c->shadow_on = true;
}

bool rill__clouds_plan(rill_renderer *r, const rill_render_view *v, const float camera[3],
                       float fov_y, uint32_t width, uint32_t height, const float sun_to[3]) {
    rill__clouds *c = r->clouds;
    c->on = false;
    c->shadow_on = false;
    memset(c->shadow_consts, 0, sizeof(c->shadow_consts));
    rill_render_quality q = r->desc.quality;
    const rill_render_routed_settings *rs =
        q == RILL_RENDER_QUALITY_LOW ? NULL
                                     : rill__view_routed(v, "Clouds", sizeof(rill_render_clouds));
    if (!rs) {
        return false;
    }
    c->set = *(const rill_render_clouds *)rs->data;
    fix(r, rs->source, &c->set);
    bool high = q == RILL_RENDER_QUALITY_HIGH;
    /* About two screen pixels a texel around the horizon, within the tier's size. */
    float fov_x = fmaxf(fov_y, 0.05f) * (float)width / (float)(height ? height : 1);
    float want = 3.14159265f * (float)width / fmaxf(fov_x, 0.05f);
    uint32_t most = high ? 1024u : 512u;
    uint32_t w = (uint32_t)RILL_CLAMP(want, 128.0f, (float)most);
    w = (w + 7u) & ~7u;
    clouds_push *p = &c->push;
    memset(p, 0, sizeof(*p));
    double t = (double)(r->frame_counter % 10000000u) / 60.0; /* seconds at 60 frames a second */
    p->place[0] = camera[0] * 1e-3f;
    p->place[1] = camera[2] * 1e-3f;
    p->place[2] = (float)fmod(c->set.wind[0] * t * 1e-3, 1000.0);
    p->place[3] = (float)fmod(c->set.wind[1] * t * 1e-3, 1000.0);
    p->layer[0] = c->set.coverage;
    p->layer[1] = c->set.density * 1e3f; /* per km */
    p->layer[2] = c->set.altitude * 1e-3f;
    p->layer[3] = c->set.thickness * 1e-3f;
    p->steps[0] = w;
    p->steps[1] = w / 4u;
    p->steps[2] = high ? 128u : 48u;
    p->steps[3] = high ? 6u : 4u;
    c->on = true;
    plan_shadow(r, c, camera, sun_to, high);
    return true;
}

void rill__clouds_frame_consts(const rill_renderer *r, float out[4]) {
    const rill__clouds *c = r->clouds;
    if (c && c->on && c->shadow_on) {
        memcpy(out, c->shadow_consts, sizeof(c->shadow_consts));
    } else {
        memset(out, 0, sizeof(float) * 4);
    }
}

uint64_t rill__clouds_key(const rill_renderer *r) {
    const rill__clouds *c = r->clouds;
    return c && c->on ? rill_hash64_seed(&c->set, sizeof(c->set), 0x636c64u) : 0;
}

/* >>graph and recording --------------------------------------------------------------------- */

static void pass_clouds(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__clouds *c = r->clouds;
    rill__binding b[4];
    memset(b, 0, sizeof(b));
    rill__sky_clouds_bindings(ctx, r, b);
    b[3].img = rill__ctx_img(ctx, c->pano);
    b[3].layer = -1;
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_CLOUDS]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 4);
    rill__cmd_push(ctx->cmd, &c->push, sizeof(c->push));
    rill__cmd_dispatch(ctx->cmd, (c->push.steps[0] + 7u) / 8u, (c->push.steps[1] + 7u) / 8u, 1);
}

static void pass_shadow(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = user;
    rill__clouds *c = r->clouds;
    rill__binding b[1];
    memset(b, 0, sizeof(b));
    b[0].img = rill__ctx_img(ctx, c->r_shadow);
    b[0].layer = -1;
    uint32_t n = (uint32_t)c->shadow_push.map[1];
    rill__cmd_bind_pipe(ctx->cmd, r->pipes[RILL__PIPE_CLOUDS_SHADOW]);
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 1);
    rill__cmd_push(ctx->cmd, &c->shadow_push, sizeof(c->shadow_push));
    rill__cmd_dispatch(ctx->cmd, (n + 7u) / 8u, (n + 7u) / 8u, 1);
}

/* The cloud shadow map's pass (written every frame: the clouds drift). */
static rill_result add_shadow_pass(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__clouds *c = r->clouds;
    uint32_t n = (uint32_t)c->shadow_push.map[1];
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RG16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .width = n,
                            .height = n};
    c->r_shadow = rill_rg_import_image(g, "clouds.shadow_map", &d, c->shadow, RILL_RG_USAGE_NONE,
                                       RILL_RG_USAGE_NONE, err);
    if (!c->r_shadow.id) {
        return err ? err->code : RILL_ERR_INVALID_ARGUMENT;
    }
    /* Read by lit passes that may all be culled (nothing drawn): never culled itself. */
    rill_rg_pass_desc pd = {
        .label = "clouds.shadow", .exec = pass_shadow, .user = r, .side_effect = true};
    rill_rg_pass p = rill_rg_add_pass(g, &pd, err);
    return rill_rg_use_image(g, p, c->r_shadow, RILL_RG_USAGE_STORAGE_WRITE, err);
}

rill_result rill__clouds_shadow_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass,
                                       rill_rg_usage usage, rill_error *err) {
    const rill__clouds *c = r->clouds;
    if (!c || !c->on || !c->shadow_on) {
        return RILL_OK;
    }
    return rill_rg_use_image(g, pass, c->r_shadow, usage, err);
}

rill__img *rill__clouds_shadow_img(const rill_renderer *r) {
    const rill__clouds *c = r->clouds;
    return c && c->on && c->shadow_on ? c->shadow : r->white;
}

rill_result rill__clouds_add_pass(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__clouds *c = r->clouds;
    if (!c->on) {
        return RILL_OK;
    }
    if (c->shadow_on) {
        RILL_TRY(add_shadow_pass(r, g, err));
    }
    rill_rg_image_desc d = {.format = RILL_RG_FORMAT_RGBA16F,
                            .size_mode = RILL_RG_SIZE_ABSOLUTE,
                            .scale = 1.0f,
                            .width = c->push.steps[0],
                            .height = c->push.steps[1]};
    c->pano = rill_rg_create_image(g, "clouds", &d, err);
    rill_rg_pass_desc pd = {.label = "clouds", .exec = pass_clouds, .user = r};
    rill_rg_pass p = rill_rg_add_pass(g, &pd, err);
    RILL_TRY(rill__sky_access(r, g, p, err));
    return rill_rg_use_image(g, p, c->pano, RILL_RG_USAGE_STORAGE_WRITE, err);
}

bool rill__clouds_on(const rill_renderer *r) {
    return r->clouds && r->clouds->on;
}

rill_result rill__clouds_access(rill_renderer *r, rill_rg *g, rill_rg_pass pass, rill_error *err) {
    if (!rill__clouds_on(r)) {
        return RILL_OK;
    }
    return rill_rg_use_image(g, pass, r->clouds->pano, RILL_RG_USAGE_SAMPLED_COMPUTE, err);
}

void rill__clouds_binding(rill_rg_ctx *ctx, const rill_renderer *r, rill__binding *b) {
    b->img = rill__clouds_on(r) ? rill__ctx_img(ctx, r->clouds->pano) : r->white;
    b->layer = -1;
    b->sampler = RILL__SAMPLER_LINEAR_CLAMP;
}
