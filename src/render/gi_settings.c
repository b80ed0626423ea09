/* gi_settings.c: the global illumination settings components (GlobalIllumination, the world's
 * tier / strength / debug view, and ScreenSpaceGi, the screen-space tier's own settings),
 * registered through reflection and routed to cameras like the other settings
 * (settings_route.c), and how a camera's routed copies resolve into what the frame runs: a
 * ScreenSpaceGi on the route wins over GlobalIllumination, Hwrt runs SdfHigh where the device
 * cannot trace rays (gi_hwrt.c says why), hostile values are clamped; each case is logged once. */
#include "gi_internal.h"
#include "rill/render/effects.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* >>fields ---------------------------------------------------------------------------------- */

static const rill_enum_item quality_items[] = {
    {"Off", RILL_GI_OFF},        {"ScreenSpace", RILL_GI_SCREEN_SPACE},
    {"SdfLow", RILL_GI_SDF_LOW}, {"SdfHigh", RILL_GI_SDF_HIGH},
    {"Hwrt", RILL_GI_HWRT},
};
static const rill_enum_item debug_items[] = {
    {"None", RILL_GI_DEBUG_NONE},
    {"IndirectOnly", RILL_GI_DEBUG_INDIRECT_ONLY},
    {"VoxelCache", RILL_GI_DEBUG_VOXEL_CACHE},
};

#define GI_OFF(f) offsetof(rill_render_global_illumination, f)
static const rill_field gi_fields[] = {
    {.name = "quality",
     .type = RILL_FIELD_ENUM,
     .offset = GI_OFF(quality),
     .enum_items = quality_items,
     .enum_count = 5,
     .doc = "Off, ScreenSpace (default; runs at the High tier), SdfLow (voxel-cone GI, 2 cones x "
            "12 steps), SdfHigh (4 x 20), Hwrt (ray-traced, where the device has ray queries; "
            "else runs SdfHigh)"},
    {.name = "intensity",
     .type = RILL_FIELD_F32,
     .offset = GI_OFF(intensity),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 16,
     .doc = "strength of the indirect light, default 0.4"},
    {.name = "specular_intensity",
     .type = RILL_FIELD_F32,
     .offset = GI_OFF(specular_intensity),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 16,
     .doc = "specular multiplier, default 1 (SdfLow / SdfHigh trace one specular cone along the "
            "reflection; ScreenSpace is diffuse only)"},
    {.name = "debug",
     .type = RILL_FIELD_ENUM,
     .offset = GI_OFF(debug),
     .enum_items = debug_items,
     .enum_count = 3,
     .doc = "None, IndirectOnly (the indirect light alone), VoxelCache (SdfLow/SdfHigh: the voxel "
            "clipmap's light; IndirectOnly on ScreenSpace)"},
};

#define SS_OFF(f) offsetof(rill_render_screen_space_gi, f)
static const rill_field ssgi_fields[] = {
    {.name = "intensity",
     .type = RILL_FIELD_F32,
     .offset = SS_OFF(intensity),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .max = 16,
     .doc = "strength of the indirect light, default 0.4"},
    {.name = "radius",
     .type = RILL_FIELD_F32,
     .offset = SS_OFF(radius),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 0.05,
     .max = 100,
     .doc = "world units a ray reaches, default 2"},
    {.name = "directions",
     .type = RILL_FIELD_U32,
     .offset = SS_OFF(directions),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = 16,
     .doc = "screen-space directions per pixel (1..16), default 4"},
    {.name = "steps",
     .type = RILL_FIELD_U32,
     .offset = SS_OFF(steps),
     .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
     .min = 1,
     .max = 32,
     .doc = "samples along each direction (1..32), default 6"},
    {.name = "temporal",
     .type = RILL_FIELD_BOOL,
     .offset = SS_OFF(temporal),
     .doc = "accumulate over frames (reprojected with the motion vectors), default on"},
};

/* >>defaults -------------------------------------------------------------------------------- */

rill_render_global_illumination rill_render_global_illumination_query_defaults(void) {
    rill_render_global_illumination g = {.quality = RILL_GI_SCREEN_SPACE,
                                         .intensity = 0.4f,
                                         .specular_intensity = 1.0f,
                                         .debug = RILL_GI_DEBUG_NONE};
    return g;
}

rill_render_screen_space_gi rill_render_screen_space_gi_query_defaults(void) {
    rill_render_screen_space_gi s = {
        .intensity = 0.4f, .radius = 2.0f, .directions = 4, .steps = 6, .temporal = true};
    return s;
}

/* >>registration ---------------------------------------------------------------------------- */

rill_result rill__gi_register_components(rill_world *w, rill_render_components *out,
                                         rill_error *err) {
    static rill_render_global_illumination gi_default;
    static rill_render_screen_space_gi ssgi_default;
    gi_default = rill_render_global_illumination_query_defaults();
    ssgi_default = rill_render_screen_space_gi_query_defaults();
    rill_type_desc d[2] = {
        {.name = "GlobalIllumination",
         RILL_TYPE_LAYOUT(rill_render_global_illumination),
         RILL_FIELDS(gi_fields),
         .defaults = &gi_default,
         .doc = "global illumination tier, strength and debug view, authored on a non-camera "
                "entity and routed to cameras"},
        {.name = "ScreenSpaceGi",
         RILL_TYPE_LAYOUT(rill_render_screen_space_gi),
         RILL_FIELDS(ssgi_fields),
         .defaults = &ssgi_default,
         .doc = "screen-space GI settings, routed to cameras; a camera holding them ignores "
                "GlobalIllumination"},
    };
    return rill__render_settings_ensure(w, d, 2, out, NULL, err);
}

/* >>resolving a view ------------------------------------------------------------------------ */

typedef rill__fix_src clamp_src;

/* ScreenSpaceGi's values into out. */
static void resolve_ssgi(const clamp_src *cs, const rill_render_screen_space_gi *s,
                         rill__gi_resolved *out) {
    rill_render_screen_space_gi d = rill_render_screen_space_gi_query_defaults();
    out->on = true;
    out->asked = RILL_GI_SCREEN_SPACE;
    out->intensity = rill__fix(cs, "intensity", s->intensity, 0.0f, 16.0f, d.intensity);
    out->radius = rill__fix(cs, "radius", s->radius, 0.05f, 100.0f, d.radius);
    out->directions = rill__fix_u32(cs, "directions", s->directions, 1, 16);
    out->steps = rill__fix_u32(cs, "steps", s->steps, 1, 32);
    out->temporal = s->temporal;
    out->tier = RILL_GI_SCREEN_SPACE;
}

static const char *quality_name(rill_gi_quality q) {
    for (size_t i = 0; i < sizeof(quality_items) / sizeof(quality_items[0]); i++) {
        if (quality_items[i].value == (int32_t)q) {
            return quality_items[i].name;
        }
    }
    return "?";
}

/* GlobalIllumination's values into out: its tier (those not built run ScreenSpace) with the
 * screen-space defaults scaled by its intensity. */
static void resolve_world(const rill__gi *gi, const clamp_src *cs,
                          const rill_render_global_illumination *g, rill__gi_resolved *out) {
    rill_render_global_illumination d = rill_render_global_illumination_query_defaults();
    rill_gi_quality q = g->quality;
    if ((unsigned)q >= RILL_GI_QUALITY_NUM) {
        rill__fix_warn(cs, "quality", (double)(unsigned)q, (double)RILL_GI_SCREEN_SPACE);
        q = RILL_GI_SCREEN_SPACE;
    }
    rill_gi_debug dbg = g->debug;
    if ((unsigned)dbg >= RILL_GI_DEBUG_NUM) {
        rill__fix_warn(cs, "debug", (double)(unsigned)dbg, 0.0);
        dbg = RILL_GI_DEBUG_NONE;
    }
    float intensity = rill__fix(cs, "intensity", g->intensity, 0.0f, 16.0f, d.intensity);
    float specular = rill__fix(cs, "specular_intensity", g->specular_intensity, 0.0f, 16.0f,
                               d.specular_intensity);
    if (q == RILL_GI_OFF) {
        return;
    }
    rill_render_screen_space_gi ss = rill_render_screen_space_gi_query_defaults();
    ss.intensity = intensity;
    resolve_ssgi(cs, &ss, out);
    out->asked = q;
    out->tier = q == RILL_GI_HWRT && gi->hwrt_why ? RILL_GI_SDF_HIGH : q;
    bool voxel = out->tier == RILL_GI_SDF_LOW || out->tier == RILL_GI_SDF_HIGH;
    out->cones = out->tier == RILL_GI_SDF_HIGH ? 4u : 2u; /* NOTES §9 */
    out->cone_steps = out->tier == RILL_GI_SDF_HIGH ? 20u : 12u;
    out->voxel_cache = voxel && dbg == RILL_GI_DEBUG_VOXEL_CACHE;
    /* the voxel tiers trace a specular cone, Hwrt a specular ray */
    out->specular_intensity = voxel || out->tier == RILL_GI_HWRT ? specular : 0.0f;
    out->indirect_only = dbg != RILL_GI_DEBUG_NONE && !out->voxel_cache;
    if (q == RILL_GI_HWRT && rill__warned_first(cs->warned, rill_hash64_str(quality_name(q)))) {
        const char *dev = gi->device_name ? gi->device_name : "?";
        if (gi->hwrt_why) {
            RILL_LOG_INFO("render",
                          "GlobalIllumination quality Hwrt: hardware ray tracing is not "
                          "available on %s (%s); running SdfHigh (voxel-cone GI)",
                          dev, gi->hwrt_why);
        } else {
            RILL_LOG_INFO("render",
                          "GlobalIllumination quality Hwrt: ray-traced GI with ray queries on %s",
                          dev);
        }
    }
    if (dbg == RILL_GI_DEBUG_VOXEL_CACHE && !voxel &&
        rill__warned_first(cs->warned, rill_hash64_str("VoxelCache"))) {
        RILL_LOG_INFO("render", "GlobalIllumination debug VoxelCache: the ScreenSpace tier has no "
                                "voxel cache (SdfLow/SdfHigh have); showing IndirectOnly");
    }
}

void rill__gi_resolve(rill__gi *gi, const rill_render_view *v, rill__gi_resolved *out) {
    memset(out, 0, sizeof(*out));
    const rill_render_routed_settings *ss =
        rill__view_routed(v, "ScreenSpaceGi", sizeof(rill_render_screen_space_gi));
    const rill_render_routed_settings *wg =
        rill__view_routed(v, "GlobalIllumination", sizeof(rill_render_global_illumination));
    if (ss) {
        if (wg && rill__warned_first(&gi->warned, rill_hash64_str("yield") ^ wg->source ^
                                                      (ss->source * 0x9E3779B97F4A7C15ull))) {
            RILL_LOG_WARN("render",
                          "the camera holds ScreenSpaceGi (entity %u:%u): its settings are used "
                          "and GlobalIllumination (entity %u:%u) yields",
                          RILL_ENTITY_INDEX(ss->source), RILL_ENTITY_GENERATION(ss->source),
                          RILL_ENTITY_INDEX(wg->source), RILL_ENTITY_GENERATION(wg->source));
        }
        clamp_src cs = {&gi->warned, "ScreenSpaceGi", ss->source};
        resolve_ssgi(&cs, ss->data, out);
    } else if (wg) {
        clamp_src cs = {&gi->warned, "GlobalIllumination", wg->source};
        resolve_world(gi, &cs, wg->data, out);
    }
}
