/* clouds.c: the Clouds settings type (rill/render/environment.h: fields, defaults, registration)
 * and the cloud layer of the physical sky. When the frame shows an atmosphere (sky.c) and its
 * first atmosphere view has Clouds routed at a tier above Low, sky.c's plan asks rill__clouds_plan
 * for this frame's settings (clamped, warnings naming the entity and field); the graph gets one
 * frame-wide compute pass "clouds" after "sky.view" writing the cloud panorama (clouds.comp,
 * clouds_common.glsl: light and transmittance over azimuth x elevation, 4:1, about two screen
 * pixels a texel, at most 512 x 128 at Medium and 1024 x 256 at High) that the "sky" pass and the
 * image-based light's fill composite over the sky. Without clouds nothing is created or bound. */
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
        .fields = cloud_fields,
        .field_count = (uint32_t)(sizeof(cloud_fields) / sizeof(cloud_fields[0])),
        .defaults = &def,
        .doc =
            "a raymarched cloud layer in the physical sky (and its image-based light), routed to "
            "cameras; Medium and High tiers"};
    rill_component c = rill_world_find_component(w, d.name);
    if (!c.id) {
        c = rill_world_register_component(w, &d);
    }
    if (!c.id) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render: could not register the Clouds component");
    }
    return rill_render_components_add_settings(out, c, err);
}

/* >>planning -------------------------------------------------------------------------------- */

/* The push constants of clouds.comp. */
typedef struct clouds_push {
    float place[4];
    float layer[4];
    uint32_t steps[4];
} clouds_push;

struct rill__clouds {
    bool on;
    rill_render_clouds set; /* this frame's, clamped */
    clouds_push push;
    rill_rg_image pano;
};

rill_result rill__clouds_create(rill_renderer *r, rill_error *err) {
    r->clouds = rill_calloc_tagged(1, sizeof(*r->clouds), RILL_MEM_RENDER);
    if (!r->clouds) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory");
    }
    return RILL_OK;
}

void rill__clouds_destroy(rill_renderer *r) {
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

bool rill__clouds_plan(rill_renderer *r, const rill_render_view *v, const float camera[3],
                       float fov_y, uint32_t width, uint32_t height) {
    rill__clouds *c = r->clouds;
    c->on = false;
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
    return true;
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

rill_result rill__clouds_add_pass(rill_renderer *r, rill_rg *g, rill_error *err) {
    rill__clouds *c = r->clouds;
    if (!c->on) {
        return RILL_OK;
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
