/* environment.c: the world's look as components: WorldEnvironment (sections ssao, fog, ambient,
 * sky), DistanceFog, Atmosphere and Skybox, registered through reflection and routed to cameras
 * like the other settings (settings_route.c); their defaults; how a view resolves them (sky mode,
 * ambient, fog, atmosphere; hostile values clamped with a warning naming the source entity); the
 * CPU side of the atmosphere (the transmittance that tints the sun light) and the time of day. */
#include "rill/render/environment.h"
#include "render_internal.h"
#include "rill/render/effects.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* >>fields ---------------------------------------------------------------------------------- */

static const rill_enum_item ssao_quality_items[] = {
    {"High", RILL_SSAO_HIGH},   {"Low", RILL_SSAO_LOW},       {"Medium", RILL_SSAO_MEDIUM},
    {"Ultra", RILL_SSAO_ULTRA}, {"Custom", RILL_SSAO_CUSTOM},
};
static const rill_enum_item fog_items[] = {
    {"ExponentialSquared", RILL_FOG_EXPONENTIAL_SQUARED},
    {"Exponential", RILL_FOG_EXPONENTIAL},
    {"Linear", RILL_FOG_LINEAR},
};
static const rill_enum_item sky_items[] = {
    {"Auto", RILL_SKY_AUTO},
    {"Color", RILL_SKY_COLOR},
    {"Skybox", RILL_SKY_SKYBOX},
    {"Atmosphere", RILL_SKY_ATMOSPHERE},
};
static const rill_enum_item method_items[] = {
    {"Auto", RILL_ATMOSPHERE_AUTO},
    {"Lookup", RILL_ATMOSPHERE_LOOKUP},
    {"Raymarched", RILL_ATMOSPHERE_RAYMARCHED},
};

/* The fields of a distance fog `base` bytes into the component, names prefixed by `pre`. */
#define FOG_OFF(base, f) ((base) + offsetof(rill_render_distance_fog, f))
#define FOG_FIELDS(base, pre)                                                                      \
    {.name = pre "enabled",                                                                        \
     .type = RILL_FIELD_BOOL,                                                                      \
     .offset = FOG_OFF(base, enabled),                                                             \
     .doc = "the fog is on"},                                                                      \
        {.name = pre "falloff",                                                                    \
         .type = RILL_FIELD_ENUM,                                                                  \
         .offset = FOG_OFF(base, falloff),                                                         \
         .enum_items = fog_items,                                                                  \
         .enum_count = 3,                                                                          \
         .doc = "ExponentialSquared (default), Exponential, Linear"},                              \
        {.name = pre "density",                                                                    \
         .type = RILL_FIELD_F32,                                                                   \
         .offset = FOG_OFF(base, density),                                                         \
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,                                         \
         .max = 10,                                                                                \
         .doc = "per metre (exponential kinds), default 0.0015"},                                  \
        {.name = pre "start",                                                                      \
         .type = RILL_FIELD_F32,                                                                   \
         .offset = FOG_OFF(base, start),                                                           \
         .flags = RILL_FIELD_HAS_MIN,                                                              \
         .doc = "metres where linear fog begins, default 50"},                                     \
        {.name = pre "end",                                                                        \
         .type = RILL_FIELD_F32,                                                                   \
         .offset = FOG_OFF(base, end),                                                             \
         .flags = RILL_FIELD_HAS_MIN,                                                              \
         .doc = "metres where linear fog is whole, default 1500"},                                 \
        {.name = pre "color",                                                                      \
         .type = RILL_FIELD_COLOR,                                                                 \
         .offset = FOG_OFF(base, color),                                                           \
         .doc = "fog colour (linear), default (0.6, 0.7, 0.8)"},                                   \
        {.name = pre "sky_color",                                                                  \
         .type = RILL_FIELD_BOOL,                                                                  \
         .offset = FOG_OFF(base, sky_color),                                                       \
         .doc = "with an atmosphere, take the sky's horizon colour toward the view instead"},      \
        {.name = pre "sun_color",                                                                  \
         .type = RILL_FIELD_COLOR,                                                                 \
         .offset = FOG_OFF(base, sun_color),                                                       \
         .doc = "inscattered sun colour toward the sun, default (1, 0.9, 0.7); black: none"},      \
        {.name = pre "sun_exponent",                                                               \
         .type = RILL_FIELD_F32,                                                                   \
         .offset = FOG_OFF(base, sun_exponent),                                                    \
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,                                         \
         .min = 1,                                                                                 \
         .max = 4096,                                                                              \
         .doc = "how tight the sun's inscatter is, default 8"},                                    \
    {                                                                                              \
        .name = pre "height_falloff", .type = RILL_FIELD_F32,                                      \
        .offset = FOG_OFF(base, height_falloff), .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, \
        .max = 10, .doc = "per metre above y = 0: density falls as exp(-falloff * y); 0 = even"    \
    }

static const rill_field env_fields[] = {
    {.name = "ssao.enabled",
     .type = RILL_FIELD_BOOL,
     .offset = offsetof(rill_world_environment, ssao.enabled),
     .doc = "SSAO on (it runs at the High tier)"},
    {.name = "ssao.quality",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_world_environment, ssao.quality),
     .enum_items = ssao_quality_items,
     .enum_count = 5,
     .doc = "preset: High (18 samples, default), Low 4, Medium 8, Ultra 54, Custom"},
    {.name = "ssao.slice_count",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_world_environment, ssao.slice_count),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = 16,
     .doc = "Custom: directions per pixel (1..16)"},
    {.name = "ssao.samples_per_slice_side",
     .type = RILL_FIELD_U32,
     .offset = offsetof(rill_world_environment, ssao.samples_per_slice_side),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = 8,
     .doc = "Custom: samples on each side of a direction (1..8)"},
    {.name = "ssao.thickness",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_world_environment, ssao.thickness),
     .flags = RILL_FIELD_HAS_MIN,
     .doc = "assumed depth of surfaces (world units, >= 0), default 0.25"},
    {.name = "ssao.radius",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_world_environment, ssao.radius),
     .flags = RILL_FIELD_HAS_MIN,
     .doc = "sampling radius (world units), default 0.5"},
    FOG_FIELDS(offsetof(rill_world_environment, fog), "fog."),
    {.name = "ambient",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_world_environment, ambient),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 1000,
     .doc = "multiplier on the ambient (image-based) light, default 1"},
    {.name = "sky.mode",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_world_environment, sky_mode),
     .enum_items = sky_items,
     .enum_count = 4,
     .doc = "Auto (Skybox with a Skybox image, else Atmosphere with an Atmosphere or a "
            "sun-marked light, else Color), Color, Skybox, Atmosphere"},
};

static const rill_field fog_fields[] = {FOG_FIELDS(0, "")};

#define ATMO_F32(member, lo, hi, text)                                                             \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_F32,                                                   \
        .offset = offsetof(rill_render_atmosphere, member),                                        \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = (lo), .max = (hi), .doc = text    \
    }
#define ATMO_VEC3(member, hi, text)                                                                \
    {                                                                                              \
        .name = #member, .type = RILL_FIELD_VEC3,                                                  \
        .offset = offsetof(rill_render_atmosphere, member),                                        \
        .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX, .min = 0, .max = (hi), .doc = text       \
    }
static const rill_field atmo_fields[] = {
    ATMO_F32(ground_radius_km, 1, 1e6, "planet radius (km), default 6360"),
    ATMO_F32(top_radius_km, 1, 1e6, "radius of the atmosphere's top (km), default 6460"),
    ATMO_VEC3(rayleigh_scattering, 1e4, "per Mm (1e-6 / m), default (5.802, 13.558, 33.1)"),
    ATMO_F32(rayleigh_scale_height_km, 0.01, 1000, "km, default 8"),
    ATMO_F32(mie_scattering, 0, 1e4, "per Mm, default 3.996"),
    ATMO_F32(mie_absorption, 0, 1e4, "per Mm, default 4.40"),
    ATMO_F32(mie_scale_height_km, 0.01, 1000, "km, default 1.2"),
    ATMO_F32(mie_g, -0.999, 0.999, "Mie phase anisotropy, default 0.8"),
    ATMO_VEC3(ozone_absorption, 1e4, "per Mm, default (0.650, 1.881, 0.085)"),
    ATMO_F32(ozone_center_km, 0, 1000, "altitude of the ozone layer's peak (km), default 25"),
    ATMO_F32(ozone_half_width_km, 0.01, 1000, "half width of the ozone tent (km), default 15"),
    ATMO_VEC3(ground_albedo, 1, "default (0.3, 0.3, 0.3)"),
    ATMO_F32(sun_angular_diameter_deg, 0.01, 45, "degrees, default 0.545"),
    {.name = "rendering_method",
     .type = RILL_FIELD_ENUM,
     .offset = offsetof(rill_render_atmosphere, rendering_method),
     .enum_items = method_items,
     .enum_count = 3,
     .doc = "Auto (by tier: High Raymarched, else Lookup), Lookup, Raymarched"},
};

static const rill_field skybox_fields[] = {
    {.name = "image",
     .type = RILL_FIELD_ASSET_PATH,
     .offset = offsetof(rill_render_skybox, image),
     .doc = "equirectangular .hdr (linear) or .png/.jpg (sRGB), 4x2 to 8192x4096, or a .rmip "
            "cube; project path"},
    {.name = "rotation",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_skybox, rotation),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = -3600,
     .max = 3600,
     .doc = "degrees about +Y, default 0 (the image's centre looks along -Z)"},
    {.name = "brightness",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_skybox, brightness),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 65000,
     .doc = "linear multiplier, default 1"},
};

static const rill_field stars_fields[] = {
    {.name = "intensity",
     .type = RILL_FIELD_F32,
     .offset = offsetof(rill_render_night_stars, intensity),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 1000,
     .doc = "linear multiplier of the stars' brightness, default 1 (0: none)"},
    {.name = "twinkle",
     .type = RILL_FIELD_BOOL,
     .offset = offsetof(rill_render_night_stars, twinkle),
     .doc = "their brightness flickers over time, default off"},
};

/* >>defaults -------------------------------------------------------------------------------- */

rill_render_night_stars rill_render_night_stars_query_defaults(void) {
    rill_render_night_stars n = {.intensity = 1.0f, .twinkle = false};
    return n;
}

rill_render_skybox rill_render_skybox_query_defaults(void) {
    rill_render_skybox k = {.image = NULL, .rotation = 0.0f, .brightness = 1.0f};
    return k;
}

rill_render_distance_fog rill_render_distance_fog_defaults(void) {
    rill_render_distance_fog f = {.enabled = true,
                                  .falloff = RILL_FOG_EXPONENTIAL_SQUARED,
                                  .density = 0.0015f,
                                  .start = 50.0f,
                                  .end = 1500.0f,
                                  .color = {0.6f, 0.7f, 0.8f, 1.0f},
                                  .sky_color = true,
                                  .sun_color = {1.0f, 0.9f, 0.7f, 1.0f},
                                  .sun_exponent = 8.0f,
                                  .height_falloff = 0.0f};
    return f;
}

rill_world_environment rill_world_environment_defaults(void) {
    rill_world_environment e;
    memset(&e, 0, sizeof(e));
    e.ssao.enabled = true;
    e.ssao.quality = RILL_SSAO_HIGH;
    e.ssao.slice_count = 3;
    e.ssao.samples_per_slice_side = 3;
    e.ssao.thickness = 0.25f;
    e.ssao.thickness_set = true;
    e.ssao.radius = 0.5f;
    e.fog = rill_render_distance_fog_defaults();
    e.fog.enabled = false;
    e.ambient = 1.0f;
    e.sky_mode = RILL_SKY_AUTO;
    return e;
}

rill_render_atmosphere rill_render_atmosphere_defaults(void) {
    rill_render_atmosphere a = {.ground_radius_km = 6360.0f,
                                .top_radius_km = 6460.0f,
                                .rayleigh_scattering = {5.802f, 13.558f, 33.1f},
                                .rayleigh_scale_height_km = 8.0f,
                                .mie_scattering = 3.996f,
                                .mie_absorption = 4.40f,
                                .mie_scale_height_km = 1.2f,
                                .mie_g = 0.8f,
                                .ozone_absorption = {0.650f, 1.881f, 0.085f},
                                .ozone_center_km = 25.0f,
                                .ozone_half_width_km = 15.0f,
                                .ground_albedo = {0.3f, 0.3f, 0.3f},
                                .sun_angular_diameter_deg = 0.545f,
                                .rendering_method = RILL_ATMOSPHERE_AUTO};
    return a;
}

/* >>registration ---------------------------------------------------------------------------- */

rill_result rill__environment_register(rill_world *w, rill_render_components *out,
                                       rill_error *err) {
    static rill_world_environment env_default;
    static rill_render_distance_fog fog_default;
    static rill_render_atmosphere atmo_default;
    static rill_render_skybox skybox_default;
    static rill_render_night_stars stars_default;
    env_default = rill_world_environment_defaults();
    fog_default = rill_render_distance_fog_defaults();
    atmo_default = rill_render_atmosphere_defaults();
    skybox_default = rill_render_skybox_query_defaults();
    stars_default = rill_render_night_stars_query_defaults();
    rill_type_desc d[5] = {
        {.name = "WorldEnvironment",
         RILL_TYPE_LAYOUT(rill_world_environment),
         RILL_FIELDS(env_fields),
         .defaults = &env_default,
         .doc = "the world's look, one per world: sections ssao, fog, ambient and sky, routed to "
                "cameras"},
        {.name = "DistanceFog",
         RILL_TYPE_LAYOUT(rill_render_distance_fog),
         RILL_FIELDS(fog_fields),
         .defaults = &fog_default,
         .doc = "distance fog (linear, exponential, exponential squared), routed to cameras"},
        {.name = "Atmosphere",
         RILL_TYPE_LAYOUT(rill_render_atmosphere),
         RILL_FIELDS(atmo_fields),
         .defaults = &atmo_default,
         .doc = "physical sky and aerial perspective (Hillaire 2020), routed to cameras"},
        {.name = "Skybox",
         RILL_TYPE_LAYOUT(rill_render_skybox),
         RILL_FIELDS(skybox_fields),
         .defaults = &skybox_default,
         .doc = "an equirectangular image as the sky and its image-based light, routed to "
                "cameras"},
        {.name = "NightStars",
         RILL_TYPE_LAYOUT(rill_render_night_stars),
         RILL_FIELDS(stars_fields),
         .defaults = &stars_default,
         .doc = "procedural stars in the physical sky, fading in after sunset, routed to cameras"},
    };
    rill_component *const slots[5] = {&out->world_environment, &out->distance_fog, &out->atmosphere,
                                      &out->skybox, &out->night_stars};
    return rill__render_settings_ensure(w, d, 5, out, slots, err);
}

/* >>resolving a view ------------------------------------------------------------------------ */

typedef rill__fix_src clamp_src;

static void fix_rgb(const clamp_src *cs, const char *field, float *c, int n, float hi,
                    const float *def) {
    for (int k = 0; k < n; k++) {
        c[k] = rill__fix(cs, field, c[k], 0.0f, hi, def[k]);
    }
}

static void fix_fog(const clamp_src *cs, rill_render_distance_fog *f) {
    rill_render_distance_fog d = rill_render_distance_fog_defaults();
    if ((unsigned)f->falloff >= RILL_FOG_FALLOFF_NUM) {
        rill__fix_warn(cs, "falloff", (float)f->falloff, 0.0f);
        f->falloff = RILL_FOG_EXPONENTIAL_SQUARED;
    }
    f->density = rill__fix(cs, "density", f->density, 0.0f, 10.0f, d.density);
    f->start = rill__fix(cs, "start", f->start, 0.0f, 1e7f, d.start);
    f->end = rill__fix(cs, "end", f->end, 0.0f, 1e7f, d.end);
    if (f->end <= f->start) {
        f->end = f->start + 1e-3f;
    }
    fix_rgb(cs, "color", f->color, 4, 1e4f, d.color);
    fix_rgb(cs, "sun_color", f->sun_color, 4, 1e4f, d.sun_color);
    f->sun_exponent = rill__fix(cs, "sun_exponent", f->sun_exponent, 1.0f, 4096.0f, d.sun_exponent);
    f->height_falloff = rill__fix(cs, "height_falloff", f->height_falloff, 0.0f, 10.0f, 0.0f);
}

static void fix_atmosphere(const clamp_src *cs, rill_render_atmosphere *a) {
    rill_render_atmosphere d = rill_render_atmosphere_defaults();
    a->ground_radius_km =
        rill__fix(cs, "ground_radius_km", a->ground_radius_km, 1.0f, 1e6f, d.ground_radius_km);
    /* The top must lie above the ground (a shell at least 1 km thick). */
    a->top_radius_km = rill__fix(cs, "top_radius_km", a->top_radius_km, a->ground_radius_km + 1.0f,
                                 a->ground_radius_km * 4.0f + 1.0f, a->ground_radius_km + 100.0f);
    fix_rgb(cs, "rayleigh_scattering", a->rayleigh_scattering, 3, 1e4f, d.rayleigh_scattering);
    a->rayleigh_scale_height_km =
        rill__fix(cs, "rayleigh_scale_height_km", a->rayleigh_scale_height_km, 0.01f, 1000.0f,
                  d.rayleigh_scale_height_km);
    a->mie_scattering =
        rill__fix(cs, "mie_scattering", a->mie_scattering, 0.0f, 1e4f, d.mie_scattering);
    a->mie_absorption =
        rill__fix(cs, "mie_absorption", a->mie_absorption, 0.0f, 1e4f, d.mie_absorption);
    a->mie_scale_height_km = rill__fix(cs, "mie_scale_height_km", a->mie_scale_height_km, 0.01f,
                                       1000.0f, d.mie_scale_height_km);
    a->mie_g = rill__fix(cs, "mie_g", a->mie_g, -0.999f, 0.999f, d.mie_g);
    fix_rgb(cs, "ozone_absorption", a->ozone_absorption, 3, 1e4f, d.ozone_absorption);
    a->ozone_center_km =
        rill__fix(cs, "ozone_center_km", a->ozone_center_km, 0.0f, 1000.0f, d.ozone_center_km);
    a->ozone_half_width_km = rill__fix(cs, "ozone_half_width_km", a->ozone_half_width_km, 0.01f,
                                       1000.0f, d.ozone_half_width_km);
    fix_rgb(cs, "ground_albedo", a->ground_albedo, 3, 1.0f, d.ground_albedo);
    a->sun_angular_diameter_deg =
        rill__fix(cs, "sun_angular_diameter_deg", a->sun_angular_diameter_deg, 0.01f, 45.0f,
                  d.sun_angular_diameter_deg);
    if ((unsigned)a->rendering_method >= RILL_ATMOSPHERE_METHOD_NUM) {
        rill__fix_warn(cs, "rendering_method", (float)a->rendering_method, 0.0f);
        a->rendering_method = RILL_ATMOSPHERE_AUTO;
    }
}

void rill__view_environment(rill_renderer *r, const rill_render_snapshot *snap,
                            const rill_render_view *v, rill__view_settings *out) {
    const rill_render_routed_settings *env_rs =
        rill__view_routed(v, "WorldEnvironment", sizeof(rill_world_environment));
    const rill_render_routed_settings *fog_rs =
        rill__view_routed(v, "DistanceFog", sizeof(rill_render_distance_fog));
    const rill_render_routed_settings *atmo_rs =
        rill__view_routed(v, "Atmosphere", sizeof(rill_render_atmosphere));
    const rill_world_environment *env = env_rs ? env_rs->data : NULL;
    clamp_src cs = {&r->env_warned, "WorldEnvironment", env_rs ? env_rs->source : 0};

    /* Ambient: the environment's, else the snapshot's default (project.toml; 0 there is no
     * ambient light when it says it set it), else 1. */
    bool scale_given = snap && (snap->ambient_scale_set || snap->ambient_scale > 0.0f);
    float amb = env ? env->ambient : scale_given ? snap->ambient_scale : 1.0f;
    out->ambient = rill__fix(&cs, "ambient", amb, 0.0f, 1000.0f, 1.0f);

    /* Sky mode: Auto is the atmosphere when there is one to show or a marked sun. */
    rill_sky_mode mode = env ? env->sky_mode : RILL_SKY_AUTO;
    if ((unsigned)mode >= RILL_SKY_MODE_NUM) {
        rill__fix_warn(&cs, "sky.mode", (float)mode, 0.0f);
        mode = RILL_SKY_AUTO;
    }
    const rill_render_routed_settings *sky_rs =
        rill__view_routed(v, "Skybox", sizeof(rill_render_skybox));
    const rill_render_skybox *box = sky_rs ? sky_rs->data : NULL;
    bool has_image = box && box->image && box->image[0];
    if (mode == RILL_SKY_AUTO) {
        bool marked = snap && snap->has_sun && snap->sun.marked;
        bool asked = snap && snap->environment.mode == RILL_RENDER_SKY_ATMOSPHERE;
        mode = has_image                    ? RILL_SKY_SKYBOX
               : atmo_rs || marked || asked ? RILL_SKY_ATMOSPHERE
                                            : RILL_SKY_COLOR;
    }
    if (mode == RILL_SKY_SKYBOX && !has_image) {
        mode = RILL_SKY_COLOR; /* no image to show: the clear colour */
    }
    out->sky_mode = mode;
    out->skybox_source = 0;
    if (mode == RILL_SKY_SKYBOX) {
        clamp_src kcs = {&r->env_warned, "Skybox", sky_rs->source};
        out->skybox = *box;
        out->skybox.rotation = rill__fix(&kcs, "rotation", box->rotation, -3600.0f, 3600.0f, 0.0f);
        out->skybox.brightness =
            rill__fix(&kcs, "brightness", box->brightness, 0.0f, 65000.0f, 1.0f);
        out->skybox_source = sky_rs->source;
    }
    out->atmo = atmo_rs ? *(const rill_render_atmosphere *)atmo_rs->data
                        : rill_render_atmosphere_defaults();
    clamp_src acs = {&r->env_warned, "Atmosphere", atmo_rs ? atmo_rs->source : 0};
    fix_atmosphere(&acs, &out->atmo);

    /* Fog: a DistanceFog on the route wins over the environment's section. */
    out->fog_on = false;
    if (fog_rs) {
        out->fog = *(const rill_render_distance_fog *)fog_rs->data;
        clamp_src fcs = {&r->env_warned, "DistanceFog", fog_rs->source};
        fix_fog(&fcs, &out->fog);
        out->fog_on = out->fog.enabled;
    } else if (env && env->fog.enabled) {
        out->fog = env->fog;
        fix_fog(&cs, &out->fog);
        out->fog_on = true;
    }
}

/* >>atmosphere on the CPU ------------------------------------------------------------------- */

/* Extinction (per km) at altitude h km: Rayleigh, Mie (scattering + absorption) and the ozone
 * tent, the sum the transmittance integrates. */
static void extinction(const rill_render_atmosphere *a, float h, float out[3]) {
    float rd = expf(-h / a->rayleigh_scale_height_km);
    float md = expf(-h / a->mie_scale_height_km);
    float od = fmaxf(0.0f, 1.0f - fabsf(h - a->ozone_center_km) / a->ozone_half_width_km);
    for (int k = 0; k < 3; k++) {
        float per_mm = a->rayleigh_scattering[k] * rd +
                       (a->mie_scattering + a->mie_absorption) * md + a->ozone_absorption[k] * od;
        out[k] = per_mm * 1e-3f; /* per Mm -> per km */
    }
}

void rill_render_atmosphere_transmittance(const rill_render_atmosphere *atmo, float altitude_m,
                                          float cos_zenith, float out_rgb[3]) {
    rill_render_atmosphere a = atmo ? *atmo : rill_render_atmosphere_defaults();
    float rg =
        isfinite(a.ground_radius_km) && a.ground_radius_km >= 1.0f ? a.ground_radius_km : 6360.0f;
    float rt = isfinite(a.top_radius_km) && a.top_radius_km > rg ? a.top_radius_km : rg + 100.0f;
    float h = isfinite(altitude_m) ? RILL_CLAMP(altitude_m * 1e-3f, 0.0f, rt - rg) : 0.0f;
    float mu = isfinite(cos_zenith) ? RILL_CLAMP(cos_zenith, -1.0f, 1.0f) : 1.0f;
    float r = rg + h;
    /* A ray below the horizon that meets the ground: no sunlight. */
    float disc_g = r * r * (mu * mu - 1.0f) + rg * rg;
    if (mu < 0.0f && disc_g >= 0.0f) {
        out_rgb[0] = out_rgb[1] = out_rgb[2] = 0.0f;
        return;
    }
    float len = -r * mu + sqrtf(fmaxf(r * r * (mu * mu - 1.0f) + rt * rt, 0.0f));
    enum { STEPS = 64 };
    float depth[3] = {0, 0, 0}, dt = len / (float)STEPS;
    for (int i = 0; i < STEPS; i++) {
        float t = ((float)i + 0.5f) * dt;
        float ri = sqrtf(r * r + t * t + 2.0f * r * mu * t);
        float e[3];
        extinction(&a, ri - rg, e);
        for (int k = 0; k < 3; k++) {
            depth[k] += e[k] * dt;
        }
    }
    for (int k = 0; k < 3; k++) {
        out_rgb[k] = expf(-depth[k]);
    }
}

/* >>time of day ----------------------------------------------------------------------------- */

void rill_render_sun_direction_for_hour(double hours, float out_dir[3]) {
    /* Toward the sun in (east = +X, up = +Y, north = +Z) at latitude 45 on an equinox (declination
     * 0): east -sin H, up cos(lat) cos H, north -sin(lat) cos H. The light travels the other way.
     */
    const double lat = 45.0 * 3.14159265358979323846 / 180.0;
    double hh = isfinite(hours) ? hours : 12.0;
    double ha = 15.0 * (hh - 12.0) * 3.14159265358979323846 / 180.0;
    double to_sun[3] = {-sin(ha), cos(lat) * cos(ha), -sin(lat) * cos(ha)};
    double n = sqrt(to_sun[0] * to_sun[0] + to_sun[1] * to_sun[1] + to_sun[2] * to_sun[2]);
    for (int k = 0; k < 3; k++) {
        out_dir[k] = (float)(-to_sun[k] / n);
    }
}

/* The rotation taking the light's -Z axis onto d (unit), as a quaternion (x, y, z, w). */
static void quat_from_neg_z(const float d[3], float q[4]) {
    /* a = (0, 0, -1): q = normalize(1 + a.d, a x d), a x d = (d.y, -d.x, 0). */
    float w = 1.0f - d[2];
    if (w < 1e-6f) { /* d = +Z: half a turn about Y */
        q[0] = 0.0f, q[1] = 1.0f, q[2] = 0.0f, q[3] = 0.0f;
        return;
    }
    float x = d[1], y = -d[0];
    float n = sqrtf(x * x + y * y + w * w);
    q[0] = x / n, q[1] = y / n, q[2] = 0.0f, q[3] = w / n;
}

rill_result rill_render_set_time_of_day(rill_world *world, const rill_render_components *comps,
                                        double hours, rill_error *err) {
    if (!world || !comps || !comps->directional_light.id) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "time of day: NULL world");
    }
    if (!isfinite(hours)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "time of day: %g is not a finite number of hours", hours);
    }
    rill_query_desc qd;
    memset(&qd, 0, sizeof(qd));
    qd.with[0] = comps->directional_light;
    qd.with[1] = rill_world_builtin(world)->transform;
    rill_query q = rill_world_query(world, &qd);
    rill_entity best = 0;
    bool best_marked = false, found = false;
    while (rill_query_next(&q)) {
        const rill_directional_light *dl = rill_query_get(&q, 0);
        if (found && (best_marked > dl->sun || (best_marked == dl->sun && best < q.entity))) {
            continue;
        }
        best = q.entity;
        best_marked = dl->sun;
        found = true;
    }
    if (!found) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND,
                              "time of day: the world has no DirectionalLight with a Transform");
    }
    float d[3];
    rill_render_sun_direction_for_hour(hours, d);
    rill_transform *t = rill_world_transform_mut(world, best);
    quat_from_neg_z(d, t->rotation);
    rill_world_update_transforms(world);
    return RILL_OK;
}
